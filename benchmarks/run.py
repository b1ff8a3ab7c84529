#!/usr/bin/env python3
"""cfglint against check-jsonschema on corpora built from the bundled examples:

One command, from the repository root, in the environment cfglint is installed in:

    .venv/bin/pip install -e '.[bench]'          # cfglint and check-jsonschema
    .venv/bin/python benchmarks/run.py           # sizes 550 2750 11000, 3 repetitions: several minutes
    .venv/bin/python benchmarks/run.py --sizes 550 --reps 1    # a quicker look
    .venv/bin/python benchmarks/run.py --fast    # smoke check: one tiny corpus, one repetition
    .venv/bin/python benchmarks/run.py --help    # --sizes, --reps, --work DIR (keep the corpora), --json FILE

For each size N it copies examples/submissions into a corpus of N submissions (whole copies of
the 55 examples, then the first ones of one more copy), then runs, in the same run and
alternating, repetition by repetition:

- ``cfglint check --format sarif`` on the corpus with the default ``--jobs`` (the CPUs it may use),
- the same with ``--jobs 1`` (one process, or from 1,000 submissions one worker beside it),
- ``check-jsonschema --schemafile schemas/submission.schema.json`` on only the corpus's
  manifests (as few invocations as the system's argument-size limit allows; their times summed).

It prints the medians as a Markdown table (for the README's speed section): wall time of each,
the ratio cfglint / check-jsonschema, time per submission, and peak memory. Peak memory is the
``ru_maxrss`` that ``os.wait4`` returns for the command: the largest resident set of any one
process of it (the command itself or a worker it waited for), not their sum. A last row is the
one-submission case (one example directory against its one manifest, the pre-commit case).

cfglint runs with a knowledge cache of this run's own (``CFGLINT_CACHE_DIR``: a temporary
directory, warmed by one run on one example and removed at the end), so a warm cache is measured
and whatever earlier runs left in ~/.cache/cfglint does not change the numbers.

Outputs go to /dev/null; exit statuses other than 0 and 1 (1: findings / invalid) stop the run.
Standard library only, plus the two tools it runs. Nothing here is a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "submissions"
SCHEMA = ROOT / "schemas" / "submission.schema.json"
MANIFEST = "submission.yaml"
DEFAULT_SIZES = (550, 2750, 11000)


def example_submissions() -> list[Path]:
    """The bundled example submissions (directories holding a manifest), relative, sorted."""
    return sorted(p.parent.relative_to(EXAMPLES) for p in EXAMPLES.rglob(MANIFEST))


def build_corpus(target: Path, n: int) -> list[Path]:
    """Copy the examples into ``target`` until it holds ``n`` submissions: copy0001/<example>...
    Returns the manifests (relative to ``target``), in order."""
    examples = example_submissions()
    manifests = []
    for i in range(n):
        copy, rel = divmod(i, len(examples))
        dest = Path(f"copy{copy + 1:04d}") / examples[rel]
        shutil.copytree(EXAMPLES / examples[rel], target / dest, symlinks=True)
        manifests.append(dest / MANIFEST)
    return manifests


def run(cmd: list[str], cwd: Path, env: dict) -> tuple[float, int]:
    """Run ``cmd``; (wall seconds, peak RSS in KiB: ru_maxrss of os.wait4, the largest of the
    process and its waited-for descendants). Raises RuntimeError on an exit status above 1."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd[:4])} ... exited with {proc.returncode}: "
                           f"{err.decode(errors='replace')[-2000:]}")
    return wall, usage.ru_maxrss


def chunks(args: list[str], fixed: list[str], env: dict) -> list[list[str]]:
    """``args`` split so each command line (with ``fixed`` and the environment) stays under
    the system's argument-size limit (ARG_MAX, with room to spare)."""
    try:
        limit = os.sysconf("SC_ARG_MAX")
    except (ValueError, OSError, AttributeError):
        limit = 131072
    room = limit // 2 - sum(len(k) + len(v) + 2 for k, v in env.items()) - sum(len(a) + 1 for a in fixed)
    out: list[list[str]] = [[]]
    used = 0
    for a in args:
        cost = len(os.fsencode(a)) + 1 + 8   # the string, its NUL, its pointer
        if out[-1] and used + cost > room:
            out.append([])
            used = 0
        out[-1].append(a)
        used += cost
    return out


def find_tool(name: str) -> str | None:
    """``name`` next to this Python (its virtual environment) or on PATH."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)


def measure(label: str, cmds: list[list[str]], cwd: Path, env: dict) -> tuple[float, int]:
    """One repetition of a tool: its command lines run one after the other; times summed,
    peak RSS the largest."""
    total, peak = 0.0, 0
    for cmd in cmds:
        wall, rss = run(cmd, cwd, env)
        total += wall
        peak = max(peak, rss)
    return total, peak


def bench(tools: dict[str, list[list[str]]], cwd: Path, env: dict, reps: int) -> dict[str, dict]:
    """Each tool ``reps`` times, alternating (tool order rotated each repetition); medians."""
    times: dict[str, list[float]] = {k: [] for k in tools}
    rss: dict[str, list[int]] = {k: [] for k in tools}
    names = list(tools)
    for rep in range(reps):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for name in order:
            wall, peak = measure(name, tools[name], cwd, env)
            times[name].append(wall)
            rss[name].append(peak)
            print(f"  {name}: {wall:.2f} s, {peak / 1024:.0f} MiB", file=sys.stderr, flush=True)
    return {k: {"seconds": statistics.median(times[k]), "all_seconds": times[k],
                "peak_rss_mib": max(rss[k]) / 1024} for k in tools}


def fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.2f} s" if x < 10 else f"{x:.1f} s"


def fmt_ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a is not None and b else "-"


def fmt_per(x: float | None, n: int) -> str:
    return f"{x / n * 1000:.1f} ms" if x is not None else "-"


def fmt_mib(x: float | None) -> str:
    return f"{x:.0f} MiB" if x is not None else "-"


def table(rows: list[dict], jobs: int) -> str:
    """The Markdown table of the results (one row per size, the one-submission case last)."""
    head = ["submissions", f"cfglint (--jobs {jobs})", "cfglint (--jobs 1)", "check-jsonschema",
            f"ratio (--jobs {jobs})", "ratio (--jobs 1)", f"per submission (--jobs {jobs} / 1)",
            f"peak RSS cfglint (--jobs {jobs} / 1)", "peak RSS check-jsonschema"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        par, one, cjs = (r["results"].get(k, {}) for k in ("cfglint", "cfglint-jobs1", "check-jsonschema"))
        p, o, c = par.get("seconds"), one.get("seconds"), cjs.get("seconds")
        label = f"{r['size']:,}" if r["size"] > 1 else "1 (one directory / one manifest)"
        out.append("| " + " | ".join([
            label, fmt_s(p), fmt_s(o), fmt_s(c), fmt_ratio(p, c), fmt_ratio(o, c),
            f"{fmt_per(p, r['size'])} / {fmt_per(o, r['size'])}",
            f"{fmt_mib(par.get('peak_rss_mib'))} / {fmt_mib(one.get('peak_rss_mib'))}",
            fmt_mib(cjs.get("peak_rss_mib"))]) + " |")
    return "\n".join(out)


def cpus() -> int:
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=None,
                    help=f"corpus sizes in submissions (default {' '.join(map(str, DEFAULT_SIZES))})")
    ap.add_argument("--reps", type=int, default=None, help="repetitions per tool and size (default 3; medians)")
    ap.add_argument("--fast", action="store_true", help="smoke check: --sizes 12 --reps 1 --single-reps 1 unless given")
    ap.add_argument("--cfglint", default=None, help="the cfglint command (default: next to this Python, or PATH)")
    ap.add_argument("--check-jsonschema", dest="cjs", default=None,
                    help="the check-jsonschema command (default: next to this Python, or PATH)")
    ap.add_argument("--no-check-jsonschema", action="store_true", help="run cfglint only")
    ap.add_argument("--no-single", action="store_true", help="skip the one-submission case")
    ap.add_argument("--single-reps", type=int, default=None,
                    help="repetitions of the one-submission case (default: 5, or --reps when larger)")
    ap.add_argument("--work", type=Path, default=None,
                    help="build the corpora here and keep them (default: a temporary directory, removed)")
    ap.add_argument("--json", type=Path, default=None, help="also write the raw results (JSON) to this file")
    args = ap.parse_args(argv)
    sizes = args.sizes or ([12] if args.fast else list(DEFAULT_SIZES))
    reps = args.reps or (1 if args.fast else 3)
    if any(n < 1 for n in sizes) or reps < 1 or (args.single_reps is not None and args.single_reps < 1):
        ap.error("sizes and --reps must be positive")
    cfglint = [args.cfglint] if args.cfglint else (
        [find_tool("cfglint")] if find_tool("cfglint") else [sys.executable, "-m", "cfglint"])
    cjs = None if args.no_check_jsonschema else (args.cjs or find_tool("check-jsonschema"))
    if not args.no_check_jsonschema and cjs is None:
        print("check-jsonschema not found (pip install -e '.[bench]'): cfglint only", file=sys.stderr)
    # the .pyc files are written once (a session may forbid it, and then every start recompiles)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "CFGLINT_NO_CACHE")}
    # a knowledge cache of this run alone (mode 0700, outside any checkout), warmed below: what
    # earlier runs left in ~/.cache/cfglint (the memo of documents that passed) does not count
    cache = tempfile.mkdtemp(prefix="cfglint-bench-cache-")
    env["CFGLINT_CACHE_DIR"] = cache
    jobs = cpus()
    work = args.work or Path(tempfile.mkdtemp(prefix="cfglint-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    try:
        one = example_submissions()[0]
        # warm-up (the knowledge cache), and a check that the command is cfglint: exit 1 counts as
        # "findings" below, and a Python without cfglint installed exits 1 as well
        warm = subprocess.run([*cfglint, "check", "--no-config", "--format", "json", str(EXAMPLES / one)], env=env,
                              cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if warm.returncode not in (0, 1) or not warm.stdout.lstrip().startswith("{"):
            ap.error(f"{' '.join(cfglint)} does not run cfglint (exit {warm.returncode}: "
                     f"{warm.stderr.strip()[-200:]}); run this script with the Python cfglint is installed in "
                     "(.venv/bin/python benchmarks/run.py) or give --cfglint")
        for n in sizes:
            corpus = work / f"corpus-{n}"
            if corpus.exists():
                shutil.rmtree(corpus)
            print(f"building {n} submissions in {corpus}", file=sys.stderr, flush=True)
            manifests = build_corpus(corpus, n)
            tools = {"cfglint": [[*cfglint, "check", "--no-config", "--format", "sarif", "."]],
                     "cfglint-jobs1": [[*cfglint, "check", "--no-config", "--format", "sarif", "--jobs", "1", "."]]}
            if cjs:
                fixed = [cjs, "--schemafile", str(SCHEMA)]
                tools["check-jsonschema"] = [fixed + part for part in chunks([str(m) for m in manifests], fixed, env)]
            print(f"size {n}: {reps} repetition(s)", file=sys.stderr, flush=True)
            rows.append({"size": n, "manifests": len(manifests), "invocations": {k: len(v) for k, v in tools.items()},
                         "results": bench(tools, corpus, env, reps)})
            if args.work is None:
                shutil.rmtree(corpus)
        if not args.no_single:
            d = EXAMPLES / one
            tools = {"cfglint": [[*cfglint, "check", "--no-config", "--format", "sarif", str(d)]],
                     "cfglint-jobs1": [[*cfglint, "check", "--no-config", "--format", "sarif", "--jobs", "1", str(d)]]}
            if cjs:
                tools["check-jsonschema"] = [[cjs, "--schemafile", str(SCHEMA), str(d / MANIFEST)]]
            single = args.single_reps or (1 if args.fast else max(reps, 5))
            print(f"one submission ({one}): {single} repetition(s)", file=sys.stderr, flush=True)
            rows.append({"size": 1, "manifests": 1, "invocations": {k: 1 for k in tools},
                         "results": bench(tools, work, env, single)})
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"cfglint vs check-jsonschema: {platform.python_implementation()} {platform.python_version()}, "
          f"{jobs} usable CPU(s) (cfglint's default --jobs), {reps} repetition(s), medians; "
          f"{len(example_submissions())} bundled examples copied; peak RSS = ru_maxrss of os.wait4 "
          f"(the largest single process of the command, workers included), not a sum.")
    print()
    print(table(rows, jobs))
    if args.json:
        args.json.write_text(json.dumps({"cpus": jobs, "reps": reps, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
