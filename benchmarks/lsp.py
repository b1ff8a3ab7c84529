#!/usr/bin/env python3
"""Latency of ``cfglint server``'s diagnostics, as an editor sees it: the time from a
``textDocument/didChange`` to the ``textDocument/publishDiagnostics`` of that version, after
warm-up (the first lint imports the rules and reads the knowledge; an editor pays that once per
session). The target is 100 ms for a typical submission.

One command, from the repository root, in the environment cfglint is installed in with its
``server`` extra:

    .venv/bin/pip install -e '.[server]'
    .venv/bin/python benchmarks/lsp.py                      # the default submissions, 30 changes each
    .venv/bin/python benchmarks/lsp.py --changes 5 --warmup 1 --submission recipes/vllm-gpt-oss-120b-b200-tp1-config
    .venv/bin/python benchmarks/lsp.py --json out.json

For each submission (a directory under examples/submissions) it copies the submission into a
temporary git working tree (the workspace folder), starts ``python -m cfglint server`` with
pygls' LSP client over standard input and output, opens the submission's first launch file,
then changes it ``--warmup`` + ``--changes`` times (a flag's value toggled, so every lint has
work to do) and records each change's round trip. It prints per submission the median, the
90th percentile and the largest time of the measured changes, with the files the unit holds and
the diagnostics published, as a Markdown table. The server runs with a knowledge cache of this
run's own (``CFGLINT_CACHE_DIR``, removed at the end). Nothing here is a timed test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "submissions"
# an aggregated launch script, and a disaggregated Dynamo submission of worker argument files
DEFAULT = ("artificial-analysis/kimi-k3/b300-sglang-tp8",
           "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1")
TARGET_MS = 100


def _first_launch(sub: Path) -> Path:
    manifest = yaml.safe_load((sub / "submission.yaml").read_text(encoding="utf-8"))
    first = (manifest.get("files") or {}).get("launch", [None])[0]
    first = first["path"] if isinstance(first, dict) else first
    return sub / first


def _variant(text: str, i: int) -> str:
    """The launch text with one comment line changed: every change is a new text to lint."""
    return text + f"# change {i}\n"


async def measure(rel: str, warmup: int, changes: int, env: dict) -> dict:
    work = Path(tempfile.mkdtemp(prefix="cfglint-lsp-bench-"))
    try:
        ws = work / "ws"
        shutil.copytree(EXAMPLES / rel, ws / "sub")
        subprocess.run(["git", "init", "-q", str(ws)], check=True)
        launch = _first_launch(ws / "sub")
        text = launch.read_text(encoding="utf-8")
        client = LanguageClient("cfglint-bench", "1")
        published: dict[str, tuple[int | None, int, float]] = {}
        arrived = asyncio.Event()

        @client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: t.PublishDiagnosticsParams):
            published[params.uri] = (params.version, len(params.diagnostics), time.perf_counter())
            arrived.set()

        await client.start_io(sys.executable, "-m", "cfglint", "server", env=env)
        await client.initialize_async(t.InitializeParams(
            capabilities=t.ClientCapabilities(), root_uri=ws.as_uri(),
            workspace_folders=[t.WorkspaceFolder(uri=ws.as_uri(), name="ws")]))
        client.initialized(t.InitializedParams())
        uri = launch.as_uri()

        async def round_trip(action, version: int) -> float:
            start = time.perf_counter()
            action()
            while published.get(uri, (None,))[0] != version:
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), 60)
            return (published[uri][2] - start) * 1000

        first = await round_trip(lambda: client.text_document_did_open(t.DidOpenTextDocumentParams(
            t.TextDocumentItem(uri=uri, language_id="shellscript", version=1, text=text))), 1)
        times = []
        for i in range(warmup + changes):
            version = i + 2
            ms = await round_trip(lambda: client.text_document_did_change(t.DidChangeTextDocumentParams(
                t.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [t.TextDocumentContentChangeWholeDocument(text=_variant(text, i))])), version)
            if i >= warmup:
                times.append(ms)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        times.sort()
        return {"submission": rel, "files": sum(1 for p in (ws / "sub").iterdir() if p.is_file()),
                "diagnostics": published[uri][1], "first_ms": first, "median_ms": statistics.median(times),
                "p90_ms": times[min(len(times) - 1, int(0.9 * len(times)))], "max_ms": times[-1], "changes": len(times)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--submission", action="append", help="a directory under examples/submissions (repeatable)")
    ap.add_argument("--warmup", type=int, default=5, help="changes linted before measuring (default 5)")
    ap.add_argument("--changes", type=int, default=30, help="changes measured (default 30)")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    if args.changes < 1 or args.warmup < 0:
        ap.error("--changes must be at least 1 and --warmup at least 0")
    cache = tempfile.mkdtemp(prefix="cfglint-lsp-cache-")
    env = dict(os.environ, CFGLINT_CACHE_DIR=os.path.join(cache, "c"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    try:
        rows = [asyncio.run(measure(rel, args.warmup, args.changes, env)) for rel in args.submission or DEFAULT]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"cfglint server: didChange -> publishDiagnostics, after {args.warmup} warm-up change(s); target {TARGET_MS} ms\n")
    print("| submission | files | diagnostics | first lint (open) | median | p90 | max |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['submission']} | {r['files']} | {r['diagnostics']} | {r['first_ms']:.0f} ms | {r['median_ms']:.1f} ms "
              f"| {r['p90_ms']:.1f} ms | {r['max_ms']:.1f} ms |")
    if args.json:
        Path(args.json).write_text(json.dumps({"target_ms": TARGET_MS, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
