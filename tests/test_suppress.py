"""Inline suppressions in shell, argument files and YAML; unused ones are findings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import copy_submission, replace_once

from cfglint.lint import lint_paths

R1 = "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"
KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
CFGLINT = Path(sys.executable).parent / "cfglint"


def _active(path):
    return [(f.rule_id, Path(f.span.path).name, f.span.line) for f in lint_paths([str(path)]).findings if not f.suppressed]


def test_line_before_in_an_args_file(tmp_path):
    d = copy_submission(R1, tmp_path)
    assert [r for r, *_ in _active(d)] == ["RED001", "RED001"]
    replace_once(d / "decode.args", "--speculative-draft-model-path",
                 "# cfglint: disable=RED001 -- shared draft cache, named in the run notes\n--speculative-draft-model-path")
    assert _active(d) == [("RED001", "prefill.args", 20)]
    result = lint_paths([str(d)])
    silenced = [f for f in result.findings if f.suppressed]
    assert len(silenced) == 1 and silenced[0].suppressed == "shared draft cache, named in the run notes"


def test_directive_before_a_continued_shell_command_covers_all_its_lines(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8 \\", "--tp-size 4 \\")
    assert [r for r, *_ in _active(d)] == ["MEM001", "TOP001", "TOP002"]
    replace_once(d / "run.sh", "docker run", "# cfglint: disable=TOP -- half the node on purpose\ndocker run")
    # the family prefix TOP covers TOP001 and TOP002, on line 5 of the command; not MEM001 (the
    # weights of Kimi K3 do not fit 4 B300s), which it does not name
    assert [r for r, *_ in _active(d)] == ["MEM001"]


def test_file_level_directive_in_yaml_and_unused_directive(tmp_path):
    d = copy_submission(R1, tmp_path)
    text = (d / "submission.yaml").read_text()
    (d / "submission.yaml").write_text("# cfglint: disable-file=HW001 -- not an sm120 system\n" + text)
    found = _active(d)
    assert ("SUP001", "submission.yaml", 1) in found
    sup = [f for f in lint_paths([str(d)]).findings if f.rule_id == "SUP001"][0]
    assert "this suppression of HW001 silences nothing" in sup.message


def test_reason_required_setting(tmp_path):
    d = copy_submission(R1, tmp_path)
    replace_once(d / "decode.args", "--speculative-draft-model-path",
                 "# cfglint: disable=RED001\n--speculative-draft-model-path")
    result = lint_paths([str(d)], require_reason=True)
    assert [(f.rule_id, Path(f.span.path).name) for f in result.findings if not f.suppressed] == [
        ("SUP002", "decode.args"), ("RED001", "prefill.args")]


def test_suppressed_findings_do_not_fail_and_reach_sarif(tmp_path):
    d = copy_submission(R1, tmp_path)
    for name in ("decode.args", "prefill.args"):
        replace_once(d / name, "--speculative-draft-model-path",
                     "# cfglint: disable=RED001 -- site cache\n--speculative-draft-model-path")
    out = tmp_path / "out.sarif"
    proc = subprocess.run([str(CFGLINT), "check", str(d), "-f", "sarif", "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text())["runs"][0]["results"]
    assert [r["suppressions"] for r in results] == [[{"kind": "inSource", "justification": "site cache"}]] * 2
    text = subprocess.run([str(CFGLINT), "check", str(d)], capture_output=True, text=True)
    assert "RED001" not in text.stdout and text.returncode == 0


def test_same_line_directive_in_yaml(tmp_path):
    d = copy_submission("nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d", tmp_path)
    replace_once(d / "ctx_config.yaml", "enable_autotuner: true", "autotuner_enabled: true  # cfglint: disable=SCH001 -- fork keeps the old key")
    assert [f for f in _active(d) if f[0] not in ("COV001", "FLG001")] == []  # the published gaps and warning (tests/golden)


def test_directive_reaches_the_next_command_past_comments_and_unknown_ids(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4")
    replace_once(d / "run.sh", "docker run", "# cfglint: disable=TOP,MEM001 -- on purpose\n\n# launch:\ndocker run")
    assert _active(d) == []
    replace_once(d / "run.sh", "disable=TOP,MEM001 --", "disable=TOP,MEM001,FOO9 --")
    sup = [f for f in lint_paths([str(d)]).findings if f.rule_id == "SUP001"]
    assert len(sup) == 1 and "unknown rule(s) FOO9" in sup[0].message


def test_summary_counts_suppressed_findings(tmp_path):
    d = copy_submission(R1, tmp_path)
    for name in ("decode.args", "prefill.args"):
        replace_once(d / name, "--speculative-draft-model-path",
                     "# cfglint: disable=RED001 -- site cache\n--speculative-draft-model-path")
    out = subprocess.run([str(CFGLINT), "check", str(d)], capture_output=True, text=True).stdout
    assert out.strip().endswith("(2 suppressed in source)")


def test_a_leaked_secret_cannot_be_suppressed_inline(tmp_path):
    """A contributor's own '# cfglint: disable=RED002' (or disable-file=RED) silences nothing: the
    secret stays an active RED002 and the directive is a SUP001 that says how to handle it."""
    token = "hf_" + "Q7" * 17
    for directive in ("# cfglint: disable=RED002 -- test key", "# cfglint: disable-file=RED -- test key"):
        d = copy_submission(KIMI_B300, tmp_path / directive.split("=")[0][-12:].strip(": "))
        replace_once(d / "run.sh", "docker run", f"{directive}\ndocker run -e HF_TOKEN={token}")
        found = lint_paths([str(d)]).findings
        secret = [f for f in found if f.rule_id == "RED002"]
        assert [(f.span.line, bool(f.suppressed)) for f in secret] == [(3, False)], directive
        sup = [f for f in found if f.rule_id == "SUP001"]
        assert [(f.span.line, f.span.col) for f in sup] == [(2, 1)], directive
        assert "cannot be suppressed inline" in sup[0].message and "root configuration" in sup[0].message
        proc = subprocess.run([str(CFGLINT), "check", str(d), "--no-config"], capture_output=True, text=True)
        assert proc.returncode == 1 and token not in proc.stdout


def test_a_rule_of_several_that_silences_nothing_is_reported_at_its_place(tmp_path):
    d = copy_submission(R1, tmp_path)
    line = replace_once(d / "decode.args", "--speculative-draft-model-path",
                        "# cfglint: disable=RED001, top -- shared draft cache\n--speculative-draft-model-path")
    text = (d / "decode.args").read_text().splitlines()[line - 1]
    sup = [f for f in lint_paths([str(d)]).findings if f.rule_id == "SUP001"]
    assert [(Path(f.span.path).name, f.span.line, f.span.col, f.span.end_col) for f in sup] == [
        ("decode.args", line, text.index("top") + 1, text.index("top") + 4)]
    assert "TOP in this suppression silences nothing here (RED001 does); remove TOP" in sup[0].message
    assert _active(d) == [("SUP001", "decode.args", line), ("RED001", "prefill.args", 20)]
    # controls: every named rule silences something (RED and RED001 both cover RED001), or none
    # does (one SUP001 for the whole comment, as before)
    (d / "decode.args").write_text((d / "decode.args").read_text().replace("disable=RED001, top", "disable=RED001,RED"))
    assert _active(d) == [("RED001", "prefill.args", 20)]
    (d / "decode.args").write_text((d / "decode.args").read_text().replace("disable=RED001,RED", "disable=TOP,SPEC"))
    sup = [f for f in lint_paths([str(d)]).findings if f.rule_id == "SUP001"]
    assert len(sup) == 1 and sup[0].span.col == 1 and "this suppression of TOP, SPEC silences nothing" in sup[0].message


def test_several_used_rules_and_one_unused(tmp_path):
    d = copy_submission(R1, tmp_path)
    line = replace_once(d / "decode.args", "--speculative-draft-model-path",
                        "# cfglint: disable=RED001,RED,SPEC -- shared draft cache\n--speculative-draft-model-path")
    sup = [f for f in lint_paths([str(d)]).findings if f.rule_id == "SUP001"]
    text = (d / "decode.args").read_text().splitlines()[line - 1]
    assert [(f.span.line, f.span.col) for f in sup] == [(line, text.index("SPEC") + 1)]
    assert sup[0].message == "SPEC in this suppression silences nothing here (RED001, RED do); remove SPEC from the list"
