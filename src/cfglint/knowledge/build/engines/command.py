"""``python -m cfglint.knowledge.build engines [ENGINE[==VERSION] ...]``: extract the pinned engine
releases (all of them, or those named), write one JSON record per release, then compile every
engine's records into the data cfglint ships (``rules/releases/<engine>.yaml`` and its
``-env`` / ``-checks`` parts, :mod:`.merge`; the sglang-router releases, a series of their own,
into ``rules/releases/sglang-router.yaml``).

Each record is the engine extractor's dict plus ``package`` and ``input`` (the pins it was read
from); a release the registry does not publish with source (``unavailable:`` in
rules/releases/inputs.yaml) gets a record saying so and nothing else. Records go to
``<records>/<engine>/<release directory>.json`` (default ``<cache>/records``), written with
sorted-free, fixed key order and a trailing newline, so a re-run on the same inputs gives the same
bytes.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from .fetch import FetchError, cache_root, ensure_release
from .pins import PACKAGES, Release, default_path, load_pins, releases, select, version_key

__all__ = ["main", "compile_engine", "compile_series", "extract_release", "write_record", "load_records", "SERIES"]

# the package whose releases are an engine's release list (sglang-router is a series of its own,
# and ai-dynamo-runtime is read together with ai-dynamo)
MAIN_PACKAGE = {"vllm": "vllm", "sglang": "sglang", "dynamo": "ai-dynamo", "trtllm": "tensorrt-llm"}
# the series compiled into files of their own: name (rules/releases/<name>.yaml) -> (engine, package).
# sglang-router's releases are not SGLang's (the router has its own version numbers, and the SGLang
# images install it unpinned), so its launchers' flags are their own file, sglang-router.yaml
SERIES = {**{e: (e, p) for e, p in MAIN_PACKAGE.items()}, "sglang-router": ("sglang", "sglang-router")}


def extract_release(release: Release, cache: Path | None = None, local: Path | None = None,
                    download: bool = True) -> dict:
    """The record of one release (FetchError when its inputs cannot be had; an unavailable
    release gives a record with ``unavailable``)."""
    inputs = [p.record() for p in release.pins]
    if release.unavailable:
        return {"engine": release.engine, "package": release.package, "version": release.version,
                "unavailable": release.unavailable, "input": inputs}
    root, inputs = ensure_release(release, cache, local, download)
    module, func = PACKAGES[release.package].extractor.split(":")
    extract = getattr(importlib.import_module(f"{__package__}.{module}"), func)
    record = extract(root, release.version)
    record["engine"] = release.engine
    return {"engine": release.engine, "package": release.package, "version": release.version,
            **{k: v for k, v in record.items() if k not in ("engine", "version")}, "input": inputs}


def record_text(record: dict) -> str:
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


def write_record(record: dict, release: Release, records_dir: Path) -> Path:
    path = records_dir / release.engine / f"{release.directory}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record_text(record), encoding="utf-8")
    return path


def load_records(records_dir: Path, engine: str) -> list[dict]:
    """Every record of ``engine`` in ``records_dir``, ordered by package then version."""
    out = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((records_dir / engine).glob("*.json"))]
    return sorted(out, key=lambda r: (r.get("package", ""), version_key(r.get("version", ""))))


def series_of(engine: str, packages=None) -> list[str]:
    """The series (:data:`SERIES` names) of ``engine``, or of it only those of ``packages``."""
    return [name for name, (e, p) in SERIES.items() if e == engine and (packages is None or p in packages)]


def compile_engine(engine: str, records_dir: Path, out_dir: Path, packages=None) -> int:
    """Write every series of ``engine`` (:data:`SERIES`; only those of ``packages`` when given):
    :func:`compile_series` of each; 0 when all were written or had nothing to write."""
    return max((compile_series(name, records_dir, out_dir) for name in series_of(engine, packages)), default=0)


def compile_series(name: str, records_dir: Path, out_dir: Path) -> int:
    """Write ``out_dir/<name>.yaml`` (and its parts) from the records of every release of the
    series ``name`` pinned in inputs.yaml (its package's releases with source); 0 when written
    or when no pinned release has source (TensorRT-LLM on PyPI: said, nothing written), 1 when a
    pinned release has no record yet (the data would leave it out)."""
    from .merge import write

    engine, package = SERIES[name]
    pinned = [r.version for r in releases(load_pins()) if r.engine == engine
              and r.package == package and not r.unavailable]
    if not pinned:
        print(f"{name}: no pinned release has source on the registry; {name}.yaml not written")
        return 0
    held = {rec["version"]: rec for rec in load_records(records_dir, engine)
            if rec.get("package") == package and not rec.get("unavailable")}
    missing = [v for v in pinned if v not in held]
    if missing:
        print(f"{name}: error: no record of {', '.join(missing)} in {records_dir / engine}; extract them first "
              f"(python -m cfglint.knowledge.build engines {package})", file=sys.stderr)
        return 1
    paths = write(name, {v: held[v] for v in pinned}, out_dir)
    print(f"{name}: {len(pinned)} releases -> {', '.join(str(p) for p in paths)}")
    return 0


def _summary(record: dict) -> str:
    if record.get("unavailable"):
        return "unavailable on the registry"
    counts = {k: len(v["flags"]) for k, v in record.get("launchers", {}).items() if isinstance(v, dict) and "flags" in v}
    return ", ".join(f"{k} {n} flags" for k, n in counts.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cfglint.knowledge.build engines",
                                 description="Extract the pinned engine releases (rules/releases/inputs.yaml) "
                                             "into per-release JSON records.")
    ap.add_argument("releases", nargs="*", metavar="ENGINE[==VERSION]",
                    help="vllm, sglang, dynamo, trtllm (or a package: sglang-router), optionally ==VERSION; default: all")
    ap.add_argument("--cache", type=Path, help="cache directory (default: $CFGLINT_BUILD_CACHE, else ~/.cache/cfglint-build)")
    ap.add_argument("--records", type=Path, help="where the records go (default: <cache>/records)")
    ap.add_argument("--from", dest="local", type=Path, metavar="PATH",
                    help="a local archive or extracted directory for the one release named")
    ap.add_argument("--no-download", action="store_true", help="use cached trees only")
    ap.add_argument("--list", action="store_true", help="list the pinned releases and exit")
    ap.add_argument("--out", type=Path, help="where the compiled data goes (default: rules/releases of the checkout)")
    ap.add_argument("--no-compile", action="store_true", help="write the records only")
    args = ap.parse_args(argv)
    try:
        chosen = select(releases(load_pins()), args.releases)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.list:
        for r in chosen:
            state = f"unavailable: {r.unavailable}" if r.unavailable else " + ".join(f"{p.kind} {p.file}" for p in r.pins)
            print(f"{r.engine:7} {r.label:28} {state}")
        return 0
    if args.local is not None and len(chosen) != 1:
        print("error: --from needs exactly one release (ENGINE==VERSION)", file=sys.stderr)
        return 2
    cache = args.cache or cache_root()
    records_dir = args.records or cache / "records"
    failed = 0
    for r in chosen:
        if PACKAGES[r.package].extractor is None and PACKAGES[r.package].companion_of is None:
            continue   # a package only the kernels target reads (vllm-ascend)
        try:
            record = extract_release(r, cache, args.local, download=not args.no_download)
        except (FetchError, RuntimeError, OSError) as e:
            print(f"{r.label}: error: {e}", file=sys.stderr)
            failed += 1
            continue
        path = write_record(record, r, records_dir)
        print(f"{r.label}: {_summary(record)} -> {path}")
    if not args.no_compile:
        out_dir = args.out or default_path().parent
        for engine in dict.fromkeys(r.engine for r in chosen):
            # the series of the packages chosen: `engines sglang` writes sglang.yaml and
            # sglang-router.yaml, `engines sglang-router` the router's alone
            failed += compile_engine(engine, records_dir, out_dir, {r.package for r in chosen if r.engine == engine})
    return 1 if failed else 0
