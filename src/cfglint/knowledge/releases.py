"""Engine releases as compiled data (``rules/releases/<engine>.yaml``, written by
``python -m cfglint.knowledge.build engines`` from the engines' published packages): what each
release's launchers accept, its environment variables, parser registries, refused flag pairs and
value checks, each with the releases it holds in (:mod:`.versions` ranges).

:class:`EngineReleases` answers for one engine; :meth:`EngineReleases.resolve` maps the release a
launch runs (any version text) to a release the data was read from, or says why none applies;
:meth:`EngineReleases.registry` gives a launcher's :class:`~.flagregistry.FlagRegistry` at a
release, or across every release read (each flag then knows the releases that have it).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from . import versions

ENGINE_LABELS = {"sglang": "SGLang", "vllm": "vLLM", "trtllm": "TensorRT-LLM", "dynamo": "NVIDIA Dynamo"}


@dataclass(frozen=True)
class Resolution:
    """Which release read stands for a launch's ``version``.

    ``release`` is a release of the data or None; ``how``: ``exact``; ``line`` (another patch of
    the same release line was read: ``0.9.1`` -> ``0.9.2``); ``newer`` / ``older`` (beyond the
    releases read); ``unread`` (inside the range but its line was not read); ``unavailable`` (the
    registry has no usable package of it); ``unknown`` (no version given, or no release number).
    ``note`` says it in words for COV001 and messages."""

    version: str | None
    release: str | None
    how: str
    note: str


def attr(entry: dict, name: str, release: str | None, releases: list[str], default: Any = None) -> Any:
    """The value of ``name`` of a compiled fact at ``release`` (None: the newest release's)."""
    if release is not None:
        for rng, value in ((entry.get("by_release") or {}).get(name) or {}).items():
            if release in _expanded(rng, tuple(releases)):
                return value
    return entry.get(name, default)


def _expanded(rng: str, releases: tuple[str, ...]) -> frozenset[str]:
    key = (rng, releases)
    hit = _RANGES.get(key)
    if hit is None:
        hit = _RANGES[key] = frozenset(versions.expand(rng, list(releases)))
    return hit


_RANGES: dict[tuple, frozenset[str]] = {}


class EngineReleases:
    """The compiled releases of one engine (the data of ``rules/releases/<engine>.yaml``)."""

    def __init__(self, engine: str, data: dict, label: str | None = None, line_parts: int = 2):
        self.engine = engine
        self.line_parts = line_parts   # how many numbers name a release line (SGLang 0.5.17: 3; vLLM 0.9: 2)
        self.label = label or engine
        self.data = data if isinstance(data, dict) else {}
        self.releases: list[str] = [str(r) for r in self.data.get("releases") or []]
        self.unavailable: dict[str, str] = {str(k): str(v) for k, v in (self.data.get("unavailable") or {}).items()}

    # -- which release --------------------------------------------------------------
    def holds(self, entry: dict, release: str) -> bool:
        """Whether the fact ``entry`` (with an ``in`` range) holds in ``release``."""
        return release in _expanded(str(entry.get("in") or ""), tuple(self.releases))

    def in_releases(self, entry: dict) -> list[str]:
        return [r for r in self.releases if self.holds(entry, r)]

    def resolve(self, version: str | None) -> Resolution:
        """The release read that stands for ``version`` (see :class:`Resolution`)."""
        if not self.releases:
            return Resolution(version, None, "unknown", f"cfglint holds no release data of {self.label}")
        first, last = self.releases[0], self.releases[-1]
        found = versions.leading(version) if version else None
        key = versions.parse(found) if found else None
        if key is None:
            what = f"'{version}' names no {self.label} release" if version else \
                f"the {self.label} release is not declared (no version in the manifest, no release in the image tag, no pinned package)"
            return Resolution(version, None, "unknown", what)
        rest = version.strip().lstrip("vV")[len(found):].strip(" -_+") if version else ""
        if rest:   # "0.5.11 DSv4", "1.5.0.dev20260816": a build from that release's line, not the release
            return Resolution(version, None, "build", f"'{version}' is a build of {self.label} {found}, not the release")
        if found in self.releases:
            return Resolution(version, found, "exact", f"{self.label} {found}")
        if found in self.unavailable:
            return Resolution(version, None, "unavailable",
                              f"{self.label} {found} is not on the package registry ({self.unavailable[found]})")
        line = versions.line(found, self.line_parts)
        same = [r for r in self.releases if versions.line(r, self.line_parts) == line]
        if same:
            pick = max(same, key=lambda r: versions.parse(r))
            return Resolution(version, pick, "line", f"{self.label} {found} was not read; the flags of {pick} "
                                                     f"(the {line} line) stand for it")
        if key > versions.parse(last):
            return Resolution(version, None, "newer", f"{self.label} {found} is newer than the releases cfglint "
                                                      f"holds ({first}-{last})")
        if key < versions.parse(first):
            return Resolution(version, None, "older", f"{self.label} {found} is older than the releases cfglint "
                                                      f"holds ({first}-{last})")
        return Resolution(version, None, "unread", f"{self.label} {found}'s release line was not read "
                                                   f"({first}-{last} hold no {line} release)")

    # -- launchers ------------------------------------------------------------------
    def launchers(self) -> list[str]:
        return sorted(self.data.get("launchers") or {})

    def launcher(self, name: str) -> dict | None:
        spec = (self.data.get("launchers") or {}).get(name)
        return spec if isinstance(spec, dict) else None

    def setting(self, launcher: str, name: str, release: str | None, default: Any = None) -> Any:
        spec = self.launcher(launcher) or {}
        return attr(spec, name, release, self.releases, default)

    def flag_entries(self, launcher: str, release: str | None) -> dict[str, dict]:
        """``{flag: entry}`` of ``launcher`` at ``release`` (attributes as that release reads
        them, plus ``releases``: the releases that have the flag), or, with ``release`` None,
        of every release read (attributes of the newest that has the flag)."""
        key = (launcher, release)
        memo = self._flags
        if key not in memo:
            out: dict[str, dict] = {}
            for flag, entry in ((self.launcher(launcher) or {}).get("flags") or {}).items():
                if not isinstance(entry, dict) or (release is not None and not self.holds(entry, release)):
                    continue
                names = set(entry) | set(entry.get("by_release") or {})
                view = {n: attr(entry, n, release, self.releases) for n in names if n not in ("in", "by_release")}
                view["releases"] = self.in_releases(entry)
                if release is None:   # across releases: every spelling and choice any release accepts
                    for n in ("aliases", "negation", "choices"):
                        values = [*(entry.get(n) or []), *(v for by in ((entry.get("by_release") or {}).get(n) or {}).values()
                                                           for v in (by or []))]
                        if values and (n != "choices" or entry.get("choices")):
                            view[n] = list(dict.fromkeys(values))
                out[flag] = view
            memo[key] = out
        return memo[key]

    @cached_property
    def _flags(self) -> dict:
        return {}

    def option_releases(self, launcher: str, option: str) -> list[str]:
        """The releases whose ``launcher`` has ``option`` as a flag, alias or negation (an
        option may be one flag's name in some releases and another's alias in others:
        ``--tp-size`` is SGLang's flag through 0.5.13, an alias of --tensor-parallel-size after)."""
        held = self._options(launcher).get(option) or ()
        return [r for r in self.releases if r in held]

    def _options(self, launcher: str) -> dict[str, set[str]]:
        memo = self._option_index
        if launcher not in memo:
            index: dict[str, set[str]] = {}
            for flag, entry in ((self.launcher(launcher) or {}).get("flags") or {}).items():
                if not isinstance(entry, dict):
                    continue
                held = set(self.in_releases(entry))
                index.setdefault(flag, set()).update(held)
                for name in ("aliases", "negation"):
                    covered: set[str] = set()
                    for rng, values in ((entry.get("by_release") or {}).get(name) or {}).items():
                        rs = held & _expanded(rng, tuple(self.releases))
                        covered |= rs
                        for v in values or []:
                            index.setdefault(v, set()).update(rs)
                    for v in entry.get(name) or []:
                        index.setdefault(v, set()).update(held - covered)
            memo[launcher] = index
        return memo[launcher]

    @cached_property
    def _option_index(self) -> dict:
        return {}

    # -- the rest -------------------------------------------------------------------
    def parsers(self, kind: str) -> dict[str, list[str]]:
        """Parser name -> the releases whose ``kind`` registry (reasoning, tool) has it."""
        table = (self.data.get("parsers") or {}).get(kind) or {}
        return {str(name): versions.expand(rng, self.releases) for name, rng in table.items()}

    def env(self) -> dict[str, dict]:
        return {k: v for k, v in (self.data.get("env") or {}).items() if isinstance(v, dict)}

    def listed(self, section: str, release: str | None) -> list[dict]:
        """``exclusive`` / ``checks`` / ``removed`` facts that hold in ``release`` (None: all)."""
        facts = self.data.get(section) or []
        if isinstance(facts, dict):
            facts = [dict(v, name=k) for k, v in facts.items() if isinstance(v, dict)]
        return [f for f in facts if isinstance(f, dict) and (release is None or self.holds(f, release))]

    def span(self) -> str:
        """``first-last`` of the releases read."""
        return f"{self.releases[0]}-{self.releases[-1]}" if self.releases else "none"
