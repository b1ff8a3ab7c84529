"""benchmarks/run.py works: a smoke run at a tiny size (cfglint, and check-jsonschema when it is
installed) prints the table the README shows, on a corpus of exactly the size asked for. Nothing
here measures or asserts a time."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "run.py"


def _module():
    spec = importlib.util.spec_from_file_location("bench_run", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_smoke_run_prints_the_table_for_a_corpus_of_the_size_asked(tmp_path):
    with_cjs = importlib.util.find_spec("check_jsonschema") is not None
    work, raw = tmp_path / "work", tmp_path / "raw.json"
    cmd = [sys.executable, str(SCRIPT), "--sizes", "7", "--reps", "1", "--single-reps", "1", "--work", str(work), "--json", str(raw)]
    if not with_cjs:
        cmd.append("--no-check-jsonschema")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    manifests = sorted((work / "corpus-7").rglob("submission.yaml"))
    assert len(manifests) == 7 and len({m.parent.name for m in manifests}) == 7
    lines = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    assert len(lines) == 4, proc.stdout   # header, separator, size 7, one submission
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    assert all(len(row) == 9 for row in cells)
    assert cells[0][0] == "submissions" and set(cells[1]) == {"---"}
    assert cells[2][0] == "7" and cells[3][0].startswith("1 (one directory")
    for row in cells[2:]:
        assert row[1].endswith(" s") and row[2].endswith(" s")   # both cfglint runs measured
        assert (row[3] != "-") == with_cjs and (row[4].endswith("x")) == with_cjs
        assert row[7].count("MiB") == 2
    assert "ru_maxrss" in proc.stdout
    data = json.loads(raw.read_text())
    assert [r["size"] for r in data["rows"]] == [7, 1] and data["rows"][0]["manifests"] == 7
    assert set(data["rows"][0]["results"]) == {"cfglint", "cfglint-jobs1"} | ({"check-jsonschema"} if with_cjs else set())


def test_corpus_copies_the_examples_past_one_copy_and_argument_lists_are_split(tmp_path):
    bench = _module()
    examples = bench.example_submissions()
    manifests = bench.build_corpus(tmp_path, len(examples) + 2)
    assert len(manifests) == len(set(manifests)) == len(examples) + 2
    assert all((tmp_path / m).is_file() for m in manifests)
    assert [m.parts[0] for m in manifests].count("copy0002") == 2
    args = [f"copy{i:04d}/{'x' * 200}/submission.yaml" for i in range(20000)]   # about 4.6 MB of arguments
    parts = bench.chunks(args, ["check-jsonschema", "--schemafile", "s.json"], {})
    assert [a for p in parts for a in p] == args and all(parts)
    assert len(parts) > 1


def test_a_command_that_is_not_cfglint_is_refused_not_measured(tmp_path):
    """A Python without cfglint (``python -m cfglint`` exits 1) used to be timed as a run with
    findings and printed as a plausible table."""
    fake = tmp_path / "not-cfglint"
    fake.write_text("#!/bin/sh\necho 'No module named cfglint' >&2\nexit 1\n")
    fake.chmod(0o755)
    proc = subprocess.run([sys.executable, str(SCRIPT), "--fast", "--no-check-jsonschema", "--cfglint", str(fake),
                           "--work", str(tmp_path / "w")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "does not run cfglint" in proc.stderr and "No module named cfglint" in proc.stderr
    assert "|" not in proc.stdout


def test_lsp_latency_benchmark_smoke_run(tmp_path):
    """benchmarks/lsp.py drives `cfglint server` and prints its table (no time is asserted)."""
    raw = tmp_path / "lsp.json"
    rel = "artificial-analysis/kimi-k3/b300-sglang-tp8"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "lsp.py"), "--submission", rel, "--warmup", "1",
                           "--changes", "2", "--json", str(raw)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith(f"| {rel} |")]
    assert len(rows) == 1 and rows[0].count(" ms |") == 4
    (row,) = json.loads(raw.read_text())["rows"]
    assert row["submission"] == rel and row["changes"] == 2 and row["files"] == 2
    assert 0 < row["median_ms"] <= row["max_ms"]
