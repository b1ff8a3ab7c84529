"""The bundled knowledge files (``rules/*.yaml``, ``rules/flags/*.yaml``): found, read and hashed once,
parsed from the knowledge cache when it holds exactly these contents."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..read.safeio import read_bytes
from . import kbcache


@lru_cache(maxsize=None)
def data_dir(name: str) -> Path:
    """Directory of bundled data (``rules`` or ``schemas``): inside the installed package, or
    at the repository root when running from a source checkout."""
    here = Path(__file__).resolve().parent.parent   # the cfglint package
    for candidate in (here / name, here.parent.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"cfglint data directory {name!r} not found next to {here}")


def parse_data(raw: bytes) -> Any:
    return yaml.load(raw.decode("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}


class _Bundled:
    """The bundled knowledge files of one ``rules`` directory (``*.yaml``, ``flags/*.yaml``), read
    and hashed once; parsed from the knowledge cache (:mod:`cfglint.knowledge.kbcache`) when it holds an
    entry for exactly these contents, else from YAML (and then stored in the cache)."""

    def __init__(self, rules: Path):
        paths = sorted([*rules.glob("*.yaml"), *rules.glob("flags/*.yaml"), *rules.glob("releases/*.yaml")])
        self.paths = {p.relative_to(rules).as_posix(): str(p) for p in paths}
        self._raw: dict[str, bytes] = {}
        self.key = kbcache.key("bundled", [[name, digest] for name, digest in kbcache.digests(self.paths).items()])
        parts = kbcache.read(self.key)
        if parts is None and kbcache.directory() is not None:  # a miss: parse them all once, store them
            parts = kbcache.store(self.key, {name: parse_data(self.raw(name)) for name in self.paths})
        self.parts = parts or {}  # no cache: each file is parsed when it is loaded, as it was before

    def raw(self, name: str) -> bytes | None:
        """The bytes of ``rules/<name>``, read on first use (None when there is no such file)."""
        if name not in self._raw:
            path = self.paths.get(name)
            if path is None:
                return None
            self._raw[name] = read_bytes(path)
        return self._raw[name]

    def shared(self, name: str) -> Any:
        """The data of ``rules/<name>`` decoded once per process and shared: for readers that never
        change it (the flag lists: flag checks and the coverage a report names)."""
        memo = self.__dict__.setdefault("_shared", {})
        if name not in memo:
            memo[name] = self.load(name)
        return memo[name]

    def load(self, name: str) -> Any:
        """The data of ``rules/<name>`` ({} when the file does not exist), new objects on every call
        (callers add the user's entries to them)."""
        text = self.parts.get(name)
        if text is None and name in self.parts:   # the part is damaged (its checksum): store the entry anew
            self.parts = kbcache.store(self.key, {n: parse_data(self.raw(n)) for n in self.paths}) or {}
            text = self.parts.get(name)
        if text is not None:
            try:
                return kbcache.decode(text)
            except ValueError:
                pass  # cannot happen for an entry whose checksum matched; parse the file then
        raw = self.raw(name)
        return parse_data(raw) if raw is not None else {}


@lru_cache(maxsize=4)
def bundle(rules: str) -> _Bundled:
    return _Bundled(Path(rules))


def current() -> _Bundled:
    """The bundled files of this cfglint (``rules/`` of :func:`data_dir`)."""
    return bundle(str(data_dir("rules")))


def load(name: str) -> Any:
    """Data of the bundled knowledge file ``rules/<name>`` (``flags/vllm.yaml``), {} if missing."""
    return current().load(name)


def shared(name: str) -> Any:
    """:func:`load`'s data decoded once per process, for readers that never change it."""
    return current().shared(name)


bundled_data = load   # public name, for the other readers of rules/ (rule pages: examples.yaml)
