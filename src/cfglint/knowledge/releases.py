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

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from . import versions

ENGINE_LABELS = {"sglang": "SGLang", "vllm": "vLLM", "trtllm": "TensorRT-LLM", "dynamo": "NVIDIA Dynamo",
                 "sglang-router": "sglang-router"}


@dataclass(frozen=True)
class Resolution:
    """Which release read stands for a launch's ``version``.

    ``release`` is a release of the data or None; ``how``: ``exact``; ``line`` (another patch of
    the same release line was read: ``0.9.1`` -> ``0.9.2``); ``newer`` / ``older`` (beyond the
    releases read); ``unread`` (inside the range but its line was not read); ``unavailable`` (the
    registry has no usable package of it); ``unknown`` (no version given, or no release number);
    ``bundled`` (no version of its own given, and the image or manifest names a release of the engine
    whose images ship it, sglang-router in SGLang's: which of its releases that is, no source says).
    ``note`` says it in words for COV001 and messages."""

    version: str | None
    release: str | None
    how: str
    note: str


def attr(entry: dict, name: str, release: str | None, releases: list[str], default: Any = None) -> Any:
    """The value of ``name`` of a compiled fact at ``release`` (None: the newest release's)."""
    if release is not None:
        by = (entry.get("by_release") or {}).get(name)
        if by:
            order = releases if isinstance(releases, tuple) else tuple(releases)
            for rng, value in by.items():
                if release in _expanded(rng, order):
                    return value
    return entry.get(name, default)


def _expanded(rng: str, releases: tuple[str, ...]) -> frozenset[str]:
    key = (rng, releases)
    hit = _RANGES.get(key)
    if hit is None:
        hit = _RANGES[key] = frozenset(versions.expand(rng, list(releases)))
    return hit


_RANGES: dict[tuple, frozenset[str]] = {}


class _LazyOptions(dict):
    """``option -> releases`` filled on first look-up of each option."""

    def __init__(self, owner: "EngineReleases", launcher: str, memo: dict):
        super().__init__()
        self.owner, self.launcher, self.memo = owner, launcher, memo

    def get(self, option, default=None):
        if option not in self.memo:
            self.memo[option] = self.owner._option_held(self.launcher, option)
        return self.memo[option] or default


class EngineReleases:
    """The compiled releases of one engine (the data of ``rules/releases/<engine>.yaml``)."""

    def __init__(self, engine: str, data: dict, label: str | None = None, line_parts: int = 2, sections=None):
        self.engine = engine
        # section name -> its data (``env``, ``checks`` live in files of their own, read on first use)
        self._sections = sections or (lambda name: {})
        self.line_parts = line_parts   # how many numbers name a release line (SGLang 0.5.17: 3; vLLM 0.9: 2)
        self.label = label or engine
        self.data = data if isinstance(data, dict) else {}
        self.releases: list[str] = [str(r) for r in self.data.get("releases") or []]
        self.unavailable: dict[str, str] = {str(k): str(v) for k, v in (self.data.get("unavailable") or {}).items()}

    # -- which release --------------------------------------------------------------
    @cached_property
    def _order(self) -> tuple[str, ...]:
        return tuple(self.releases)

    def holds(self, entry: dict, release: str) -> bool:
        """Whether the fact ``entry`` (with an ``in`` range) holds in ``release``."""
        return release in _expanded(str(entry.get("in") or ""), self._order)

    def in_releases(self, entry: dict) -> list[str]:
        """The releases the fact ``entry`` holds in, oldest first."""
        rng = str(entry.get("in") or "")
        memo = self._in
        if rng not in memo:
            held = _expanded(rng, self._order)
            memo[rng] = [r for r in self.releases if r in held]
        return memo[rng]

    @cached_property
    def _in(self) -> dict[str, list[str]]:
        return {}

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
        return attr(spec, name, release, self._order, default)

    def flag_entries(self, launcher: str, release: str | None) -> "CompiledFlags":
        """``{flag: entry}`` of ``launcher`` at ``release`` (attributes as that release reads
        them, plus ``releases``: the releases that have the flag), or, with ``release`` None,
        across every release read (attributes of the newest that has the flag, with every
        spelling and choice any release accepts). A mapping whose entries are made on look-up;
        :meth:`CompiledFlags.spellings` and :meth:`CompiledFlags.booleans` answer for all
        flags without making them."""
        key = (launcher, release)
        memo = self._flags
        if key not in memo:
            memo[key] = CompiledFlags(self, (self.launcher(launcher) or {}).get("flags") or {}, release, launcher)
        return memo[key]

    @cached_property
    def _flags(self) -> dict:
        return {}

    def choice_releases(self, launcher: str, flag: str, value: str) -> list[str]:
        """The releases, oldest first, whose ``launcher`` has ``flag`` (its primary name) and
        accepts ``value`` for it: one of its choices there, or any value where it lists none
        (SGLang's --moe-runner-backend takes ``marlin`` from 0.5.12.post1)."""
        out = []
        for r in self.releases:
            entries = self.flag_entries(launcher, r)
            if flag in entries:
                choices = entries[flag].get("choices")
                if not choices or value in [str(c) for c in choices]:
                    out.append(r)
        return out

    def newest_has(self, launcher: str, flag: str, option: str) -> bool:
        """Whether the newest release has ``flag`` and ``option`` is one of its spellings there
        (a flag's attributes in the data are the newest release's when it holds)."""
        entry = ((self.launcher(launcher) or {}).get("flags") or {}).get(flag)
        if not isinstance(entry, dict) or not self.releases or not self.holds(entry, self.releases[-1]):
            return False
        return option == flag or option in (entry.get("aliases") or ()) or option in (entry.get("negation") or ())

    def option_releases(self, launcher: str, option: str) -> list[str]:
        """The releases whose ``launcher`` has ``option`` as a flag, alias or negation (an
        option may be one flag's name in some releases and another's alias in others:
        ``--tp-size`` is SGLang's flag through 0.5.13, an alias of --tensor-parallel-size after)."""
        held = self._options(launcher).get(option) or ()
        return [r for r in self.releases if r in held]

    def _options(self, launcher: str) -> dict[str, set[str]]:
        """Option string -> releases, computed per option on demand (see :meth:`option_releases`)."""
        memo = self._option_index.setdefault(launcher, {})
        return _LazyOptions(self, launcher, memo)

    def _spellings(self, launcher: str) -> dict[str, list[str]]:
        """Option string -> the flags that have it as name, alias or negation in some release."""
        memo = self._spelling_index
        if launcher not in memo:
            index: dict[str, list[str]] = {}
            for flag, entry in ((self.launcher(launcher) or {}).get("flags") or {}).items():
                if not isinstance(entry, dict):
                    continue
                index.setdefault(flag, []).append(flag)
                by = entry.get("by_release") or {}
                for name in ("aliases", "negation"):
                    for v in entry.get(name) or []:
                        index.setdefault(v, []).append(flag)
                    for values in (by.get(name) or {}).values():
                        for v in values or []:
                            index.setdefault(v, []).append(flag)
            memo[launcher] = index
        return memo[launcher]

    @cached_property
    def _spelling_index(self) -> dict:
        return {}

    def _option_held(self, launcher: str, option: str) -> set[str]:
        flags = (self.launcher(launcher) or {}).get("flags") or {}
        out: set[str] = set()
        for flag in dict.fromkeys(self._spellings(launcher).get(option) or ()):
            entry = flags[flag]
            held = set(self.in_releases(entry))
            if flag == option:
                out |= held
                continue
            by = entry.get("by_release") or {}
            for name in ("aliases", "negation"):
                covered: set[str] = set()
                for rng, values in (by.get(name) or {}).items():
                    rs = held & _expanded(rng, self._order)
                    covered |= rs
                    if option in (values or []):
                        out |= rs
                if option in (entry.get(name) or []):
                    out |= held - covered
        return out

    @cached_property
    def _option_index(self) -> dict:
        return {}

    # -- the rest -------------------------------------------------------------------
    def parsers(self, kind: str) -> "_Parsers":
        """Parser name -> the releases whose ``kind`` registry (reasoning, tool) has it (a
        mapping whose values are expanded on look-up)."""
        return _Parsers((self.data.get("parsers") or {}).get(kind) or {}, self)

    def section(self, name: str) -> Any:
        """A section of the data: in the main file, or in ``<engine>-<name>.yaml`` (env, checks)."""
        if name in self.data:
            return self.data[name]
        memo = self._section_memo
        if name not in memo:
            part = self._sections(name)
            memo[name] = part.get(name) if isinstance(part, dict) else None
        return memo[name]

    @cached_property
    def _section_memo(self) -> dict:
        return {}

    def env(self) -> dict[str, dict]:
        """The engine's environment variables (``<engine>-env.yaml``), decoded on first use."""
        memo = self._section_memo
        if "_env" not in memo:
            memo["_env"] = {k: v for k, v in (self.section("env") or {}).items() if isinstance(v, dict)}
        return memo["_env"]

    def reads(self, name: str, release: str | None) -> bool | None:
        """Whether ``release`` reads the environment variable ``name`` (``<engine>-env.yaml``, as
        ENV001 judges it); None when ``release`` is None (not known, or not a release read)."""
        if release is None:
            return None
        entry = self.env().get(name)
        return entry is not None and release in self.in_releases(entry)

    def listed(self, section: str, release: str | None) -> list[dict]:
        """``exclusive`` / ``checks`` / ``removed`` facts that hold in ``release`` (None: all); one
        list per (section, release), shared by every launch that asks (callers do not change it)."""
        memo = self.__dict__.setdefault("_listed", {})
        key = (section, release)
        if key not in memo:
            facts = self.section(section) or []
            if isinstance(facts, dict):
                facts = [dict(v, name=k) for k, v in facts.items() if isinstance(v, dict)]
            memo[key] = [f for f in facts if isinstance(f, dict) and (release is None or self.holds(f, release))]
        return memo[key]

    def span(self) -> str:
        """``first-last`` of the releases read."""
        return f"{self.releases[0]}-{self.releases[-1]}" if self.releases else "none"


class _Parsers:
    """A parser table: ``name -> releases``, each range expanded when asked."""

    def __init__(self, table: dict, owner: EngineReleases):
        self.table, self.owner = table, owner

    def __bool__(self) -> bool:
        return bool(self.table)

    def get(self, name, default=None):
        rng = self.table.get(name)
        return self.owner.in_releases({"in": rng}) if rng is not None else default

    def values(self):
        return (self.get(n) for n in self.table)


class CompiledFlags(Mapping):
    """A launcher's compiled flags at one release (or across all): entries made when looked up."""

    def __init__(self, owner: EngineReleases, raw: dict, release: str | None, launcher: str = ""):
        self.owner, self.raw, self.release, self.launcher = owner, raw, release, launcher
        order = owner._order
        self.names = [f for f, e in raw.items() if isinstance(e, dict)
                      and (release is None or release in _expanded(str(e.get("in") or ""), order))]
        self.made: dict[str, dict] = {}

    def _at(self, entry: dict, name: str):
        """``name`` at the release (union of every release's list for spellings and choices)."""
        base = entry.get(name)
        by = (entry.get("by_release") or {}).get(name)
        if not by:
            return base
        if self.release is None:
            if name in ("aliases", "negation") or (name == "choices" and base):
                return list(dict.fromkeys([*(base or []), *(v for vs in by.values() for v in (vs or []))]))
            return base
        order = self.owner._order
        for rng, value in by.items():
            if self.release in _expanded(rng, order):
                return value
        return base

    def __getitem__(self, flag: str) -> dict:
        if flag not in self.made:
            entry = self.raw.get(flag)
            if not isinstance(entry, dict) or (self.release is not None and flag not in self._names):
                raise KeyError(flag)
            view = {n: v for n, v in entry.items() if n != "in" and n != "by_release"}
            for n in entry.get("by_release") or ():
                view[n] = self._at(entry, n)
            view["releases"] = self.owner.in_releases(entry)
            if self.release is None and (entry.get("by_release") or {}).get("choices"):
                view["choices_only_in"] = self._choices_only_in(entry, view["releases"])
            self.made[flag] = view
        return self.made[flag]

    def _choices_only_in(self, entry: dict, held: list[str]) -> dict[str, list[str]]:
        """Range text -> the choices only those of the flag's releases accept (the others accept
        every choice of the newest): ``{"0.5.23": ["flashinfer_megamoe"]}``."""
        order = self.owner._order
        at: dict[str, set[str]] = {}
        covered: set[str] = set()
        for rng, values in (entry["by_release"]["choices"] or {}).items():
            rs = set(held) & _expanded(rng, order)
            covered |= rs
            for v in values or ():
                at.setdefault(v, set()).update(rs)
        for v in entry.get("choices") or ():
            at.setdefault(v, set()).update(set(held) - covered)
        grouped: dict[str, list[str]] = {}
        for v, rs in at.items():
            if rs != set(held):
                grouped.setdefault(versions.ranges([r for r in held if r in rs], self.owner.releases), []).append(v)
        return grouped

    @cached_property
    def _names(self) -> frozenset[str]:
        return frozenset(self.names)

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, flag) -> bool:
        return flag in self._names

    def spellings(self) -> dict[str, str]:
        """Option string -> flag, for every spelling (name, alias, negation) at the release."""
        out: dict[str, str] = {}
        for flag in self.names:
            entry = self.raw[flag]
            out.setdefault(flag, flag)
            for n in ("aliases", "negation"):
                for o in self._at(entry, n) or ():
                    out.setdefault(o, flag)
        return out

    def booleans(self) -> frozenset[str]:
        """Option strings of flags that take no value (type bool) at the release."""
        return frozenset(o for flag in self.names if self._at(self.raw[flag], "type") == "bool"
                         for o in (flag, *(self._at(self.raw[flag], "aliases") or ()),
                                   *(self._at(self.raw[flag], "negation") or ())))
