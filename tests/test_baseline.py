"""Baselines and SARIF fingerprints: stable when unrelated lines move."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import copy_submission

R1 = "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"
CFGLINT = str(Path(sys.executable).parent / "cfglint")


def sarif_fingerprints(cwd):
    subprocess.run([CFGLINT, "check", "s", "-f", "sarif", "-o", "out.sarif"], cwd=cwd, capture_output=True)
    results = json.loads((cwd / "out.sarif").read_text())["runs"][0]["results"]
    return {(r["locations"][0]["physicalLocation"]["region"]["startLine"],
             r["partialFingerprints"]["primaryLocationLineHash"]) for r in results}


def test_fingerprints_survive_a_line_inserted_above(tmp_path):
    copy_submission(R1, tmp_path).rename(tmp_path / "s")
    before = sarif_fingerprints(tmp_path)
    args = tmp_path / "s" / "decode.args"
    args.write_text("# a comment added at the top\n" + args.read_text())
    after = sarif_fingerprints(tmp_path)
    assert {h for _, h in before} == {h for _, h in after}
    assert {line for line, _ in before} != {line for line, _ in after}  # the line did move


def test_baseline_reports_only_new_findings(tmp_path):
    copy_submission(R1, tmp_path).rename(tmp_path / "s")
    proc = subprocess.run([CFGLINT, "check", "s", "--write-baseline", "base.json"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and "wrote 2 finding(s)" in proc.stderr
    assert subprocess.run([CFGLINT, "check", "s", "--baseline", "base.json"], cwd=tmp_path).returncode == 0
    args = tmp_path / "s" / "decode.args"
    args.write_text("# moved\n" + args.read_text() + "HF_HOME=/home/alice/hf\n")
    proc = subprocess.run([CFGLINT, "check", "s", "--baseline", "base.json", "-f", "json"], cwd=tmp_path,
                          capture_output=True, text=True)
    found = json.loads(proc.stdout)["findings"]
    last = len(args.read_text().splitlines())
    assert proc.returncode == 1 and [(f["rule"], f["line"]) for f in found] == [("RED001", last)]
    bad = subprocess.run([CFGLINT, "check", "s", "--baseline", "s/decode.args"], cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read baseline" in bad.stderr


def test_fix_redacts_host_paths_and_keeps_everything_else(tmp_path):
    copy_submission(R1, tmp_path).rename(tmp_path / "s")
    args = tmp_path / "s" / "decode.args"
    before = args.read_bytes().replace(b"\n", b"\r\n")  # CRLF survives too
    args.write_bytes(before)
    proc = subprocess.run([CFGLINT, "check", "s", "--fix"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and "fixed 2 finding(s)" in proc.stderr
    after = args.read_bytes()
    old = b"/home/_shared/aa-artifacts-dynamo-kimi-k3/models/Kimi-K3-DSpark/56ce616ad7486f0e96cbb51ef23ed5a1bce1d92d"
    assert after == before.replace(old, b"<host-path>")


def test_the_summary_counts_what_the_baseline_hid(tmp_path):
    import jsonschema

    copy_submission(R1, tmp_path).rename(tmp_path / "s")
    subprocess.run([CFGLINT, "check", "s", "--write-baseline", "base.json"], cwd=tmp_path, check=True, capture_output=True)
    text = subprocess.run([CFGLINT, "check", "s", "--baseline", "base.json"], cwd=tmp_path, capture_output=True, text=True)
    assert text.returncode == 0 and "no findings in 1 submission(s) / file(s) (2 findings hidden by the baseline)" \
        in text.stdout
    args = tmp_path / "s" / "decode.args"
    args.write_text(args.read_text() + "HF_HOME=/home/alice/hf\n")   # one new finding beside the two recorded
    text = subprocess.run([CFGLINT, "check", "s", "--baseline", "base.json"], cwd=tmp_path, capture_output=True, text=True)
    assert text.returncode == 1 and "cfglint: 1 finding(s) (1 error(s)) in 1 submission(s) / file(s) " \
        "(2 findings hidden by the baseline)" in text.stdout
    as_json = subprocess.run([CFGLINT, "check", "s", "--baseline", "base.json", "-f", "json", "-o", "out.json"],
                             cwd=tmp_path, capture_output=True, text=True)
    data = json.loads((tmp_path / "out.json").read_text())
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "cfglint-output.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert data["baselined"] == 2 and len(data["findings"]) == 1
    assert "(2 findings hidden by the baseline)" in as_json.stderr      # the summary on standard error with -o
    without = subprocess.run([CFGLINT, "check", "s", "-f", "json"], cwd=tmp_path, capture_output=True, text=True)
    assert "baselined" not in json.loads(without.stdout)               # no baseline, no count
    assert "hidden by the baseline" not in subprocess.run([CFGLINT, "check", "s"], cwd=tmp_path, capture_output=True,
                                                          text=True).stdout
