"""The pinned inputs of the engine knowledge: ``rules/releases/inputs.yaml``, one entry per
published package file, and the releases they make.

A *release* is what one record describes: a package of an engine at one version (``vllm``
0.33.0, ``sglang-router`` 0.3.2), with its companion packages of the same version
(``ai-dynamo-runtime`` beside ``ai-dynamo``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ...bundled import data_dir

__all__ = ["Pin", "Release", "Package", "PACKAGES", "ENGINES", "load_pins", "releases", "select", "version_key"]

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_FIELDS = ("engine", "package", "version", "kind", "file", "sha256", "bytes")


@dataclass(frozen=True)
class Package:
    """How the compiler treats a package: its engine, the directory its files go to under
    ``<cache>/<engine>/`` (``{version}`` replaced), the package directory that must be there, the
    extractor (``module:function`` in this package; None for a companion read with its main
    package) and the main package it accompanies."""

    engine: str
    directory: str
    source_dir: str
    extractor: str | None
    companion_of: str | None = None


PACKAGES = {
    "vllm": Package("vllm", "{version}", "vllm", "vllm:extract"),
    "sglang": Package("sglang", "{version}", "sglang", "sglang:extract"),
    "sglang-router": Package("sglang", "router-{version}", "sglang_router", "sglang:extract_router"),
    "ai-dynamo": Package("dynamo", "{version}", "dynamo", "dynamo:extract"),
    "ai-dynamo-runtime": Package("dynamo", "{version}", "dynamo", None, companion_of="ai-dynamo"),
    "tensorrt-llm": Package("trtllm", "{version}", "tensorrt_llm", "trtllm:extract"),
    # vLLM's Ascend platform plugin: read by the kernels target only (its quantization methods)
    "vllm-ascend": Package("vllm", "ascend-{version}", "vllm_ascend", None),
}
ENGINES = ("vllm", "sglang", "dynamo", "trtllm")


@dataclass(frozen=True)
class Pin:
    """One entry of inputs.yaml."""

    engine: str
    package: str
    version: str
    kind: str
    file: str
    sha256: str
    bytes: int
    why: str | None = None
    unavailable: str | None = None

    def record(self) -> dict:
        """The entry as a record's ``input`` item."""
        out = {k: getattr(self, k) for k in ("package", "version", "kind", "file", "sha256", "bytes")}
        if self.unavailable:
            out["unavailable"] = self.unavailable
        return out


@dataclass
class Release:
    engine: str
    package: str
    version: str
    pins: list[Pin] = field(default_factory=list)

    @property
    def main(self) -> Pin:
        return self.pins[0]

    @property
    def unavailable(self) -> str | None:
        return self.main.unavailable

    @property
    def directory(self) -> str:
        return PACKAGES[self.package].directory.format(version=self.version)

    @property
    def label(self) -> str:
        return f"{self.package}=={self.version}"


def default_path() -> Path:
    return data_dir("rules") / "releases" / "inputs.yaml"


def load_pins(path: Path | None = None) -> list[Pin]:
    """The entries of inputs.yaml. Raises ValueError naming the entry that is malformed."""
    path = path or default_path()
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of entries")
    pins, seen = [], set()
    for i, e in enumerate(data, 1):
        where = f"{path.name} entry {i}"
        if not isinstance(e, dict):
            raise ValueError(f"{where}: not a mapping")
        missing = [k for k in _FIELDS if k not in e]
        extra = sorted(set(e) - set(_FIELDS) - {"why", "unavailable"})
        if missing or extra:
            raise ValueError(f"{where}: missing {missing} / unknown {extra}")
        if e["package"] not in PACKAGES or PACKAGES[e["package"]].engine != e["engine"]:
            raise ValueError(f"{where}: package {e['package']!r} is not a package of engine {e['engine']!r}")
        if e["kind"] not in ("sdist", "wheel") or not _SHA256.match(str(e["sha256"])) or not isinstance(e["bytes"], int):
            raise ValueError(f"{where}: kind must be sdist|wheel, sha256 64 hex digits, bytes an integer")
        key = (e["package"], str(e["version"]))
        if key in seen:
            raise ValueError(f"{where}: {e['package']}=={e['version']} pinned twice")
        seen.add(key)
        pins.append(Pin(e["engine"], e["package"], str(e["version"]), e["kind"], e["file"], e["sha256"], e["bytes"],
                        e.get("why"), e.get("unavailable")))
    return pins


def releases(pins: list[Pin]) -> list[Release]:
    """The releases the pins make, in file order; a companion joins the release of its main
    package at the same version (ValueError when there is none)."""
    out: dict[tuple, Release] = {}
    for p in pins:
        if PACKAGES[p.package].companion_of is None:
            out[(p.package, p.version)] = Release(p.engine, p.package, p.version, [p])
    for p in pins:
        main = PACKAGES[p.package].companion_of
        if main is not None:
            rel = out.get((main, p.version))
            if rel is None:
                raise ValueError(f"{p.package}=={p.version} is pinned without {main}=={p.version}")
            rel.pins.append(p)
    return list(out.values())


def select(all_releases: list[Release], specs: list[str]) -> list[Release]:
    """The releases named by ``ENGINE`` / ``ENGINE==VERSION`` / ``PACKAGE==VERSION`` (all when
    ``specs`` is empty). Raises ValueError for a spec that names nothing pinned."""
    if not specs:
        return list(all_releases)
    chosen = []
    for spec in specs:
        name, _, version = spec.partition("==")
        hits = [r for r in all_releases if (r.engine == name or r.package == name) and (not version or r.version == version)]
        if not hits:
            raise ValueError(f"{spec}: no such pinned release (see rules/releases/inputs.yaml)")
        chosen += [r for r in hits if r not in chosen]
    return chosen


def version_key(v: str):
    """A sort key of a release version (0.5.9 < 0.5.10 < 0.5.10.post1; rc before the final)."""
    out = []
    for part in re.split(r"[.]", v):
        m = re.match(r"(\d+)(.*)", part)
        out.append((int(m.group(1)), m.group(2)) if m else (-1, part))
    return out
