"""The bundled real submissions: cfglint reports exactly the golden findings, nothing else."""

from __future__ import annotations

import glob

import yaml

from cfglint.lint import lint_paths

from support import EXAMPLES, ROOT

GOLDEN = ROOT / "tests" / "golden" / "examples.yaml"


def test_examples_report_exactly_the_golden_findings():
    golden = yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))
    expected = {(g["rule"], g["path"], g["line"], g["col"]) for g in golden}
    result = lint_paths([str(EXAMPLES)])
    prefix = str(EXAMPLES.relative_to(ROOT)) + "/"
    got = set()
    for f in result.findings:
        path = f.span.path
        path = path[path.index(prefix) + len(prefix):] if prefix in path else path
        got.add((f.rule_id, path, f.span.line, f.span.col))
    assert got - expected == set(), "findings not in the golden file (false positives?)"
    assert expected - got == set(), "golden findings no longer reported"


def test_every_golden_finding_has_a_reason():
    for g in yaml.safe_load(GOLDEN.read_text(encoding="utf-8")):
        assert len(g["reason"]) > 20, g


def test_examples_cover_the_published_pages():
    subs = glob.glob(str(EXAMPLES / "*" / "*" / "*" / "submission.yaml"))
    docs = [yaml.safe_load(open(s, encoding="utf-8"))["source"]["document"] for s in subs]
    assert docs.count("000_527771f1a7637570.txt") == 15
    assert docs.count("001_9e571c784600a1d3.txt") >= 15
    engines = {(yaml.safe_load(open(s))["engine"]["name"], yaml.safe_load(open(s))["engine"].get("orchestrator")) for s in subs}
    assert {("sglang", None), ("trtllm", None), ("trtllm", "dynamo"), ("sglang", "dynamo")} <= engines
