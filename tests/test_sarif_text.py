"""SARIF text is written result by result (report._in_results) to bound memory; it must be
exactly what json.dumps(log, indent=2) writes for the same log."""

from __future__ import annotations

import json

from cfglint.checks import all_rules
from cfglint.lint import lint_paths
from cfglint.output import report

from support import EXAMPLES, copy_submission, replace_once

KIMI = "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"


def _same_as_one_dump(findings, sources) -> None:
    text = report.sarif(findings, all_rules(), sources, 1)
    assert text == json.dumps(json.loads(text), indent=2) + "\n"


def test_sarif_of_the_examples_is_what_one_dump_writes():
    result = lint_paths([str(EXAMPLES)])
    kinds = {"related": any(f.related for f in result.findings), "fix": any(f.fix for f in result.findings)}
    assert all(kinds.values()), kinds
    _same_as_one_dump(result.findings, result.sources)


def test_sarif_with_a_suppressed_finding_and_with_no_result(tmp_path):
    d = copy_submission(KIMI, tmp_path / "s")
    replace_once(d / "decode.args", "--speculative-draft-model-path /home/",
                 "# cfglint: disable=RED001 -- published as is\n--speculative-draft-model-path /home/")
    result = lint_paths([str(d)])
    assert any(f.suppressed for f in result.findings)
    _same_as_one_dump(result.findings, result.sources)
    _same_as_one_dump([], {})


def test_the_command_writes_the_report_in_pieces_with_the_same_bytes(tmp_path, cfglint_exe):
    # cfglint check writes report.sarif_parts piece by piece (stdout and -o): the bytes of the
    # one string report.sarif makes; each piece is the log's head, one result or the tail
    import subprocess

    d = copy_submission(KIMI, tmp_path / "s")
    result = lint_paths([str(d)])
    parts = list(report.sarif_parts(result.findings, all_rules(), result.sources, 1))
    assert len(parts) == len(result.findings) + 2 and parts[1].lstrip(",\n").startswith("        {")
    out = subprocess.run([str(cfglint_exe), "check", "--no-config", "--format", "sarif", str(d)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    target = tmp_path / "out.sarif"
    subprocess.run([str(cfglint_exe), "check", "--no-config", "--format", "sarif", "-o", str(target), str(d)],
                   cwd=tmp_path, capture_output=True, timeout=120)
    assert out.returncode == 1 and out.stdout == target.read_text(encoding="utf-8")
    log = json.loads(out.stdout)
    assert len(log["runs"][0]["results"]) == len(result.findings)
    assert out.stdout == json.dumps(log, indent=2) + "\n"
