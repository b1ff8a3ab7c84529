"""Fixes you can trust (issue 24, item 4): --diff shows what --fix would write and writes
nothing, --show-fixes lists what was fixed, the summary counts what --fix can fix, unsafe fixes
(HW001 -> marlin, a key move for a release nobody declared) wait for --unsafe-fixes, and SARIF
carries each fix as the same edit --fix makes (cfglint.edit.fix.fix_of). On published
submissions, changed in one place."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from cfglint.cli import main
from cfglint.edit.fix import apply_text_edits, fixes_of
from cfglint.lint import lint_paths
from support import copy_submission, lint, only, position, replace_once

CFGLINT = str(Path(sys.executable).parent / "cfglint")
# the two host paths of this published entry are RED001 (tests/golden/examples.yaml)
KIMI = "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"
DRAFT = "/home/_shared/aa-artifacts-dynamo-kimi-k3/models/Kimi-K3-DSpark/56ce616ad7486f0e96cbb51ef23ed5a1bce1d92d"
HW = "artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle"   # rules/examples.yaml HW001


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CFGLINT, "check", "--no-config", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def _texts(d: Path) -> dict:
    return {p: p.read_bytes() for p in d.rglob("*") if p.is_file()}


def _hw001(tmp_path: Path) -> Path:
    d = copy_submission(HW, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: RTX-6000D")
    replace_once(d / "run.sh", "--moe-runner-backend marlin", "--moe-runner-backend flashinfer_cutlass")
    return d


def test_diff_prints_the_change_writes_nothing_and_exits_1(tmp_path):
    d = copy_submission(KIMI, tmp_path / "s")
    before = _texts(d)
    proc = _run(tmp_path / "s", KIMI, "--diff")
    assert proc.returncode == 1, proc.stderr
    assert _texts(d) == before
    decode = f"{KIMI}/decode.args"
    line = position((d / "decode.args").read_text(), DRAFT)[0]
    assert proc.stdout.splitlines()[:3] == [f"--- {decode}", f"+++ {decode}", f"@@ -{line - 3},7 +{line - 3},7 @@"]
    assert f"\n---speculative-draft-model-path {DRAFT}\n+--speculative-draft-model-path <host-path>\n" in proc.stdout
    assert proc.stdout.count("\n+--speculative-draft-model-path <host-path>\n") == 2   # decode.args and prefill.args
    assert "cfglint: would fix 2 finding(s) in 2 file(s)" in proc.stderr
    # the diff is exactly what --fix then writes: patch applies it to a fresh copy
    fresh = copy_submission(KIMI, tmp_path / "p")
    patch = subprocess.run(["patch", "-p0", "-s"], input=proc.stdout, cwd=tmp_path / "p", capture_output=True, text=True)
    assert patch.returncode == 0, patch.stdout + patch.stderr
    fix = _run(tmp_path / "s", KIMI, "--fix")
    assert fix.returncode == 0 and {p.relative_to(d): t for p, t in _texts(d).items()} == \
        {p.relative_to(fresh): t for p, t in _texts(fresh).items()}


def test_diff_ends_at_the_files_end_and_patch_applies_it_without_fuzz(tmp_path):
    # the diff split the text on newlines, so a file ending with one got an empty line past its end
    # ("@@ -1,5 +1,5 @@" on a 4-line file; patch: "succeeded at 1 with fuzz 1")
    for name, strip in (("newline", False), ("no-newline", True)):
        d = _hw001(tmp_path / name / "s")
        run = d / "run.sh"
        if strip:
            run.write_bytes(run.read_bytes().rstrip(b"\n"))
        text = run.read_text(encoding="utf-8")
        proc = _run(tmp_path / name / "s", HW, "--diff", "--unsafe-fixes")
        assert proc.returncode == 1, proc.stderr
        lines = proc.stdout.splitlines()
        hunks = [h for h in lines if h.startswith("@@")]
        assert all(int(h.split()[1].split(",")[1]) <= len(text.splitlines()) for h in hunks), hunks
        assert ("\\ No newline at end of file" in lines) is strip
        fresh = _hw001(tmp_path / name / "p")
        if strip:
            (fresh / "run.sh").write_bytes((fresh / "run.sh").read_bytes().rstrip(b"\n"))
        patch = subprocess.run(["patch", "-p0", "-F0"], input=proc.stdout, cwd=tmp_path / name / "p",
                               capture_output=True, text=True)
        assert patch.returncode == 0 and "fuzz" not in patch.stdout, patch.stdout + patch.stderr
        fixed = _run(tmp_path / name / "s", HW, "--fix", "--unsafe-fixes")
        assert "fixed 1 finding" in fixed.stderr + fixed.stdout, fixed.stderr
        assert (fresh / "run.sh").read_bytes() == run.read_bytes(), name   # the diff is what --fix writes


def test_diff_of_a_clean_submission_is_empty_and_exits_0(tmp_path):
    d = copy_submission(HW, tmp_path)
    proc = _run(tmp_path, HW, "--diff")
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    assert "would fix 0 finding(s) in 0 file(s)" in proc.stderr and d.is_dir()


def test_diff_takes_no_report_options(tmp_path):
    copy_submission(KIMI, tmp_path)
    for more in (["--format", "json"], ["-o", "x.txt"], ["--statistics"], ["--write-baseline", "b.json"]):
        proc = _run(tmp_path, KIMI, "--diff", *more)
        assert proc.returncode == 2 and "--diff prints the diff of the fixes" in proc.stderr, more
    proc = _run(tmp_path, KIMI, "--show-fixes")
    assert proc.returncode == 2 and "--show-fixes acts on the fixes of --fix or --diff" in proc.stderr


def test_show_fixes_lists_each_fix(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    lines = {name: position((d / name).read_text(), DRAFT) for name in ("decode.args", "prefill.args")}
    proc = _run(tmp_path, KIMI, "--fix", "--show-fixes")
    assert proc.returncode == 0, proc.stderr
    shown = [line for line in proc.stderr.splitlines() if line.startswith("cfglint: fixed ") and "RED001" in line]
    assert shown == [f"cfglint: fixed {KIMI}/{name}:{line}:{col}: RED001 "
                     f"'{DRAFT[:60]}...({len(DRAFT)} characters)' -> '<host-path>'"
                     for name, (line, col) in sorted(lines.items())]
    assert "cfglint: fixed 2 finding(s)" in proc.stderr
    assert only(lint(d), "RED001") == []


def test_the_summary_counts_fixable_findings(tmp_path):
    copy_submission(KIMI, tmp_path)
    proc = _run(tmp_path, KIMI)
    assert proc.stdout.splitlines()[-1].endswith("; 2 fixable with --fix")
    # an unsafe fix is counted apart
    _hw001(tmp_path)
    proc = _run(tmp_path, HW)
    assert proc.returncode == 1 and "HW001" in proc.stdout
    assert proc.stdout.splitlines()[-1].endswith("; 0 fixable with --fix (1 more with --unsafe-fixes)")
    proc = _run(tmp_path, HW, "--fix", "--unsafe-fixes")
    assert "HW001" not in proc.stdout


def test_unsafe_fix_waits_for_unsafe_fixes(tmp_path):
    d = _hw001(tmp_path)
    before = (d / "run.sh").read_text()
    flashinfer = next(line for line in before.splitlines() if "flashinfer_cutlass" in line)
    proc = _run(tmp_path, HW, "--fix")
    assert (d / "run.sh").read_text() == before and "fixed 0 finding(s); 1 more with --unsafe-fixes" in proc.stderr
    diff = _run(tmp_path, HW, "--diff")
    assert (diff.returncode, diff.stdout) == (0, "") and "; 1 more with --unsafe-fixes" in diff.stderr
    diff = _run(tmp_path, HW, "--diff", "--unsafe-fixes")
    assert diff.returncode == 1 and "-" + flashinfer in diff.stdout and "+" + flashinfer.replace(
        "--moe-runner-backend flashinfer_cutlass", "--moe-runner-backend marlin") in diff.stdout
    proc = _run(tmp_path, HW, "--fix", "--unsafe-fixes", "--show-fixes")
    assert "HW001" not in proc.stdout and "MEM001" in proc.stdout   # the weights still do not fit an RTX-6000D
    assert (d / "run.sh").read_text() == before.replace("--moe-runner-backend flashinfer_cutlass",
                                                        "--moe-runner-backend marlin")
    assert "HW001 'flashinfer_cutlass' -> 'marlin'" in proc.stderr


def test_sarif_fixes_are_the_edits_fix_makes(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    result = lint_paths([str(d)])
    fixes = fixes_of(result.findings, result.files)
    red = [f for f in result.findings if f.rule_id == "RED001"]
    assert len(red) == 2 and all(id(f) in fixes for f in red)
    out = CliRunner().invoke(main, ["check", str(d), "--no-config", "-f", "sarif"]).stdout
    results = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "RED001"]
    for r, f in zip(results, red):
        (sarif_fix,) = r["fixes"]
        assert sarif_fix["properties"] == {"safe": True}
        (change,) = sarif_fix["artifactChanges"]
        (rep,) = change["replacements"]
        (edit,) = fixes[id(f)].edits
        region = rep["deletedRegion"]
        assert (region["startLine"], region["startColumn"], region["endLine"], region["endColumn"]) == \
            (edit.span.line, edit.span.col, edit.span.end_line, edit.span.end_col)
        assert rep["insertedContent"]["text"] == edit.text == "<host-path>"
        text = (d / Path(f.span.path).name).read_text()
        assert apply_text_edits(text, [edit]) == text.replace(DRAFT, "<host-path>")


def test_hw001_fix_is_unsafe_in_sarif(tmp_path):
    d = _hw001(tmp_path)
    out = CliRunner().invoke(main, ["check", str(d), "--no-config", "-f", "sarif"]).stdout
    (r,) = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "HW001"]
    assert r["fixes"][0]["properties"] == {"safe": False}
    assert r["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == "marlin"


def test_diff_masks_credentials_on_the_lines_it_shows(tmp_path):
    # a host path (fixable) beside a literal API key on the same line: the key never appears
    d = copy_submission("artificial-analysis/kimi-k3/b300-sglang-tp8", tmp_path)
    key = "sk-live-4f9c2e7a1b3d5f7a9c"
    replace_once(d / "run.sh", "--enable-symm-mem", f"--enable-symm-mem --api-key {key} --download-dir /home/alice/hf")
    proc = _run(tmp_path, "artificial-analysis/kimi-k3/b300-sglang-tp8", "--diff", "--show-fixes")
    assert proc.returncode == 1 and "<host-path>" in proc.stdout
    assert key not in proc.stdout + proc.stderr and key[:8] not in proc.stdout + proc.stderr
    assert "*" * len(key) in proc.stdout
