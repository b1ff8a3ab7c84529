"""Pull requests (issue 24, item 6): one run writes several reports (`--format F[:FILE]`,
repeatable), the Markdown report for the job summary holds every finding, `--statistics`
counts findings per rule, and `--shard i/N` splits the submissions so that `cfglint merge` of the
parts' SARIF is byte for byte the SARIF of one run. On the bundled examples."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from cfglint.model import Finding, Span
from cfglint.output.markdown import MAX_BYTES, cell, markdown
from support import ROOT, copy_submission, shared

CFGLINT = str(Path(sys.executable).parent / "cfglint")
# the findings the bundled examples have, each justified (tests/golden/examples.yaml)
GOLDEN = Counter(e["rule"] for e in yaml.safe_load((ROOT / "tests" / "golden" / "examples.yaml").read_text(encoding="utf-8")))
KIMI = "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([CFGLINT, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_one_run_writes_every_report_as_separate_runs_would(tmp_path):
    sarif, md, js = tmp_path / "r.sarif", tmp_path / "r.md", tmp_path / "r.json"
    both = _run("check", "examples/submissions", "--jobs", "1", "--format", "github", "--format", f"sarif:{sarif}",
                "--format", f"markdown:{md}", "-f", f"json:{js}")
    assert both.returncode == 1, both.stderr
    assert both.stdout == _run("check", "examples/submissions", "--jobs", "1", "--format", "github").stdout
    assert sarif.read_text() == _run("check", "examples/submissions", "--jobs", "1", "--format", "sarif").stdout
    assert js.read_text() == _run("check", "examples/submissions", "--jobs", "1", "--format", "json").stdout
    findings = json.loads(js.read_text())["findings"]
    # the job summary: every finding, each at its place, with its rule linked to its page
    text = md.read_text()
    assert text.startswith("## cfglint\n")
    rows = [line for line in text.splitlines() if line.startswith(("| error |", "| warning |", "| note |"))]
    assert len(rows) == len(findings) == sum(GOLDEN.values())
    first = findings[0]
    assert rows[0].startswith(f"| {first['level']} | [{first['rule']}](https://github.com/cfglint/cfglint/blob/main/"
                              f"docs/rules/{first['rule']}.md) | {cell(first['path'])}:{first['line']}:{first['column']} |")


def test_format_and_output_combinations_are_checked(tmp_path):
    copy_submission(KIMI, tmp_path)
    for args, why in ((["-f", "json", "-f", "github"], "would both write to standard output"),
                      (["-f", "sarif:a.sarif", "-o", "b.txt"], "every --format names its own file"),
                      (["-f", "sarif:a", "-f", "json:a"], "name the same file"),
                      (["-f", "sarif:"], "name the file after the colon"),
                      (["-f", "yaml"], "'yaml' is not one of")):
        proc = _run("check", KIMI, *args, cwd=tmp_path)
        assert proc.returncode == 2 and why in proc.stderr, (args, proc.stderr)
    # --output names the file of the one format given without one
    proc = _run("check", KIMI, "-f", "github", "-f", "sarif:s.sarif", "-o", "g.txt", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == "" and (tmp_path / "g.txt").read_text().startswith("::error ")
    assert json.loads((tmp_path / "s.sarif").read_text())["runs"][0]["results"]
    assert "cfglint: 2 finding(s)" in proc.stderr   # every report in a file: the summary on standard error


def test_statistics_counts_findings_per_rule():
    proc = _run("check", "examples/submissions", "--statistics")
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [f"{GOLDEN['COV001']}  COV001      not-checked (note)",
                                        f"{GOLDEN['ENV001']}  ENV001      engine-variable (warning)",
                                        " 4  RED001  [*] unredacted-host-path (error)",
                                        " 2  FLG001      unknown-flag (warning)",
                                        " 2  TOP003      multi-node-placement (error)"]
    assert f"cfglint: {sum(GOLDEN.values())} finding(s)" in proc.stderr
    rows = json.loads(_run("check", "examples/submissions", "--statistics", "-f", "json").stdout)
    assert rows[2] == {"rule": "RED001", "name": "unredacted-host-path", "level": "error", "count": 4, "fixable": 4,
                       "unsafe_fixable": 0}
    assert {r["rule"]: r["count"] for r in rows} == GOLDEN
    assert _run("check", "examples/submissions", "--statistics", "-f", "sarif").returncode == 2


def _shards(n: int, target: str, cwd: Path, tmp_path: Path, *more: str) -> list[Path]:
    parts = []
    for i in range(1, n + 1):
        part = tmp_path / f"part{i}.sarif"
        proc = _run("check", target, "--shard", f"{i}/{n}", "-f", f"sarif:{part}", *more, cwd=cwd)
        assert proc.returncode in (0, 1), proc.stderr
        parts.append(part)
    return parts


@pytest.mark.parametrize("n", [1, 3, 7])
def test_merged_shards_are_byte_for_byte_one_run(tmp_path, n):
    one = _run("check", "examples/submissions", "-f", "sarif").stdout
    parts = _shards(n, "examples/submissions", ROOT, tmp_path)
    runs = [json.loads(p.read_text())["runs"][0] for p in parts]
    assert sum(len(r["results"]) for r in runs) == len(json.loads(one)["runs"][0]["results"])
    if n > 1:   # each part holds some of the submissions, none all of them
        assert all(0 < len(r["results"]) < sum(GOLDEN.values()) for r in runs)
    merged = _run("merge", *map(str, parts))
    assert merged.returncode == 0, merged.stderr
    assert merged.stdout == one
    # the parts are the same on every run: the split depends only on the tree
    (tmp_path / "again").mkdir()
    again = _shards(n, "examples/submissions", ROOT, tmp_path / "again")
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in parts]


def test_merged_shards_past_the_limit_keep_what_one_run_keeps(tmp_path, monkeypatch):
    """Past GitHub's limit (made 30 here) a run keeps errors, then warnings, then notes, and says
    how many it left out; the merge of parts that are each under the limit keeps the same
    results and says the same (issue 25's cap, issue 24's merge)."""
    from click.testing import CliRunner

    from cfglint.cli import main
    from cfglint.output import report
    from cfglint.output.merge import merge

    monkeypatch.setattr(report, "MAX_RESULTS", 30)
    monkeypatch.chdir(ROOT)

    def sarif(*more: str) -> str:
        got = CliRunner().invoke(main, ["check", "examples/submissions", "-f", "sarif", *more])
        assert got.exit_code in (0, 1), got.output
        return got.stdout

    one = sarif()
    run = json.loads(one)["runs"][0]
    assert len(run["results"]) == 30 and run["properties"]["resultsLeftOut"] == sum(GOLDEN.values()) - 30
    assert run["properties"]["resultsLeftOutByLevel"] == {"note": sum(GOLDEN.values()) - 30}
    parts = [sarif("--shard", f"{i}/4") for i in range(1, 5)]
    assert all("resultsLeftOut" not in p for p in parts)
    assert merge([(f"part{i}", p) for i, p in enumerate(parts)]) == one


def test_merged_shards_of_loose_files_are_one_run(tmp_path):
    # the shared corpus: launch files in directories without a manifest (SUB004 once per directory)
    corpus = shared("corpus")
    one = _run("check", corpus.name, "--no-config", "-f", "sarif", cwd=corpus.parent).stdout
    parts = _shards(4, corpus.name, corpus.parent, tmp_path, "--no-config")
    assert _run("merge", *map(str, parts)).stdout == one


def test_merge_refuses_what_is_not_a_part_of_one_run(tmp_path):
    good = _shards(2, "examples/submissions", ROOT, tmp_path)
    (tmp_path / "x.json").write_text("[]")
    proc = _run("merge", str(good[0]), str(tmp_path / "x.json"))
    assert proc.returncode == 2 and "not a SARIF 2.1.0 log of one cfglint run" in proc.stderr
    other = json.loads(good[1].read_text())
    other["runs"][0]["tool"]["driver"]["version"] = "0.0.0"
    (tmp_path / "other.sarif").write_text(json.dumps(other))
    proc = _run("merge", str(good[0]), str(tmp_path / "other.sarif"))
    assert proc.returncode == 2 and "another cfglint version" in proc.stderr
    assert _run("check", "examples/submissions", "--shard", "4/3").returncode == 2


def test_markdown_escapes_input_and_stays_under_the_summary_limit():
    from cfglint.checks import all_rules

    rules = all_rules()
    hostile = Finding("RED001", "path '[x](https://evil) <img src=x> | *b* `c`'", Span("a|b.sh", 1, 1, 1, 2),
                      level="error", fix="<host-path>")
    text = markdown([hostile], rules, 1, 1, "error")
    row = text.splitlines()[-1]
    assert row.count(" | ") == 3    # four cells: the | of the input is escaped
    assert "\\[x\\]\\(https://evil\\)" in row and "\\<img" in row and "\\*b\\*" in row and "\\`c\\`" in row
    many = [Finding("COV001", "x" * 900, Span(f"s{i}.sh", 1, 1, 1, 2), level="note") for i in range(3000)]
    text = markdown(many, rules, 3000, 0, "error")
    assert len(text.encode()) < MAX_BYTES and "more finding(s) not shown" in text
