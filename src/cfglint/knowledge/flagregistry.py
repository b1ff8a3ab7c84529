"""One launcher's command-line flags as data (``rules/flags/<engine>.yaml``): primary names,
aliases, negations, abbreviations, removed flags and known slips."""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from functools import cached_property

from .bundled import shared


_OPT_LEVEL = re.compile(r"-O\d")  # vLLM -O3


class FlagRegistry:
    """One launcher's command-line flags (rules/flags/<engine>.yaml): names, aliases, types,
    choices, removed flags and known slips."""

    def __init__(self, name: str, flags, source: str, removed: dict | None = None,
                 did_you_mean: dict | None = None, allow_abbrev: bool = False, underscores: bool = False,
                 dynamic_prefix: str | None = None, primary: dict[str, str] | None = None):
        self.name, self.flags, self.source = name, flags or {}, source
        self.removed, self.did_you_mean = removed or {}, did_you_mean or {}
        self.allow_abbrev, self.underscores = allow_abbrev, underscores
        self.dynamic_prefix = dynamic_prefix  # e.g. dynamo.trtllm --trtllm.<group>.<key>
        self.versions: list[str] = []          # releases whose parsers the data was read from
        self.compiled = False                   # built from rules/releases/ (each flag knows its releases)
        if primary is not None:   # given by the caller (compiled flags: made without reading every entry)
            self.primary = primary
            return
        self.primary = {}
        for flag, entry in self.flags.items():
            entry = entry or {}
            for option in [flag, *(entry.get("aliases") or []), *(entry.get("negation") or [])]:
                self.primary.setdefault(option, flag)

    @cached_property
    def implied(self) -> dict[str, dict]:
        """Option string -> the settings it stands for (a flag entry's ``sets``: Dynamo's
        deprecated ``--is-prefill-worker`` is ``disaggregation_mode: prefill``); aliases included,
        negations not."""
        return {o: e["sets"] for flag, e in self.flags.items() if isinstance((e or {}).get("sets"), dict)
                for o in [flag, *((e or {}).get("aliases") or [])] if not o.startswith("--no-")}

    @cached_property
    def no_value_options(self) -> frozenset[str]:
        """Option strings of boolean flags (they take no value), aliases and negations included."""
        return frozenset(o for flag, e in self.flags.items() if (e or {}).get("type") == "bool"
                         for o in [flag, *((e or {}).get("aliases") or []), *((e or {}).get("negation") or [])])

    def find(self, option: str) -> str | None:
        """The primary name of ``option`` (alias, negation, unique abbreviation), or None."""
        if self.dynamic_prefix and option.startswith(self.dynamic_prefix):
            return option
        if self.underscores and option.startswith("--"):
            head, dot, rest = option[2:].partition(".")  # vLLM: --speculative_config.num_tokens
            option = "--" + head.replace("_", "-") + dot + rest
        if option in self.primary:
            return self.primary[option]
        head = option.split(".", 1)[0]
        if head != option and (self.flags.get(self.primary.get(head, "")) or {}).get("type") == "json":
            return self.primary[head]  # vLLM: --speculative-config.num_speculative_tokens 3
        if _OPT_LEVEL.fullmatch(option) and "-O" in self.primary:
            return self.primary["-O"]
        if self.allow_abbrev and option.startswith("--"):
            matches = self._completions(option, limit=2)
            if len(matches) == 1:
                return matches.pop()
        return None

    @cached_property
    def _sorted_options(self) -> list[str]:
        return sorted(self.primary)

    def _completions(self, prefix: str, limit: int | None = None) -> set[str]:
        """Primary names of the options that start with ``prefix`` (at most ``limit`` of them):
        a binary search in the sorted option names (a scan of all of them per flag made many
        flags slow)."""
        names = self._sorted_options
        i = bisect.bisect_left(names, prefix)
        out: set[str] = set()
        while i < len(names) and names[i].startswith(prefix) and (limit is None or len(out) < limit):
            out.add(self.primary[names[i]])
            i += 1
        return out

    def ambiguous(self, option: str) -> list[str]:
        if not self.allow_abbrev or not option.startswith("--"):
            return []
        return sorted(self._completions(option))


# registry name -> the hand-written file that holds it (rules/flags/<file>.yaml)
HAND_FILES = {"sglang": "sglang", "vllm": "vllm", "trtllm": "trtllm", "trtllm.disaggregated": "trtllm",
              "dynamo.frontend": "dynamo", "dynamo.trtllm": "dynamo", "dynamo.sglang": "dynamo", "dynamo.vllm": "dynamo",
              "dynamo.sdk_vllm": "dynamo"}


def hand_registry(name: str) -> FlagRegistry | None:
    """The hand-written registry ``name`` of rules/flags/ (only its own file is read), or None."""
    data = shared(f"flags/{HAND_FILES[name]}.yaml") if name in HAND_FILES else None
    if not data:
        return None
    if name == "sglang":
        return FlagRegistry("sglang", data.get("flags"), data.get("source", ""), data.get("removed_flags"),
                            data.get("did_you_mean"), allow_abbrev=True)
    if name == "vllm":
        return FlagRegistry("vllm", data.get("flags"), data.get("source", ""), data.get("removed_flags"),
                            data.get("did_you_mean"), allow_abbrev=bool(data.get("abbreviations")),
                            underscores=bool(data.get("underscore_equivalent")))
    if name == "trtllm":
        return FlagRegistry("trtllm", data.get("flags"), data.get("source", ""), data.get("removed_flags"),
                            data.get("did_you_mean"))
    if name == "trtllm.disaggregated":
        return FlagRegistry(name, data.get("disaggregated_flags"), data.get("source", "")) \
            if data.get("disaggregated_flags") else None
    part = name.split(".", 1)[1]
    entry = data.get(part)
    if not isinstance(entry, dict) or entry.get("flags") is None:
        return None
    # argparse prefix matching: on for frontend / trtllm / sglang, off for dynamo.vllm (dynamo.yaml notes)
    return FlagRegistry(name, entry.get("flags"), entry.get("source", data.get("source", "")),
                        allow_abbrev=part != "vllm", dynamic_prefix=entry.get("dynamic_flag_prefix"))


def registries() -> dict[str, FlagRegistry]:
    """Every hand-written registry by name."""
    return {n: r for n in HAND_FILES if (r := hand_registry(n)) is not None}


# what a hand-written entry of rules/flags/<engine>.yaml adds to a compiled flag: facts no package
# states (measured notes, published values, the settings a deprecated flag stands for)
OVERLAY_KEYS = ("sets", "published_values", "note", "warn_deprecated", "replacement", "known_values",
                "human_readable")


class _Overlaid(Mapping):
    """Compiled flag entries with the hand file's overlays (:data:`OVERLAY_KEYS`) and the flags
    only the hand file knows (seen in builds after the newest release), made on look-up."""

    def __init__(self, compiled, hand: FlagRegistry | None, extra: dict[str, dict]):
        self.compiled, self.hand, self.extra, self.made = compiled, hand, extra, {}

    def __getitem__(self, flag: str) -> dict:
        if flag in self.extra:
            return self.extra[flag]
        if flag not in self.made:
            merged = dict(self.compiled[flag])
            over = (self.hand.flags.get(flag) or {}) if self.hand is not None else {}
            for key in OVERLAY_KEYS:
                if key in over and merged.get(key) in (None, [], ""):
                    merged[key] = over[key]
            self.made[flag] = merged
        return self.made[flag]

    def __iter__(self):
        yield from self.compiled
        yield from self.extra

    def __len__(self) -> int:
        return len(self.compiled) + len(self.extra)

    def __contains__(self, flag) -> bool:
        return flag in self.extra or flag in self.compiled


def compiled_registry(name: str, entries, settings: dict, hand: FlagRegistry | None,
                      releases: list[str], source: str) -> FlagRegistry:
    """A launcher's registry from compiled flags (``entries``: :meth:`EngineReleases.flag_entries`
    at one release or across all), with the hand file's overlays, removed flags and slips.
    ``settings``: the launcher's compiled settings (``allow_abbrev``, ``underscore_equivalent``);
    ``releases``: the releases the registry stands for. Entries are made when looked up."""
    primary = entries.spellings()
    extra: dict[str, dict] = {}
    if hand is not None and len(releases) != 1:
        # a flag the hand file holds that no release read has: seen in a build after the newest
        # release (its entry says where); known when the release is not, never at a release read
        for flag, over in hand.flags.items():
            if flag not in primary:
                extra[flag] = dict(over or {}, releases=[], unreleased=True)
                for option in [flag, *((over or {}).get("aliases") or []), *((over or {}).get("negation") or [])]:
                    primary.setdefault(option, flag)
    abbrev = settings.get("allow_abbrev")
    underscores = settings.get("underscore_equivalent")
    reg = FlagRegistry(name, _Overlaid(entries, hand, extra), source,
                       removed=hand.removed if hand is not None else None,
                       did_you_mean=hand.did_you_mean if hand is not None else None,
                       allow_abbrev=bool(abbrev) if abbrev is not None else bool(hand and hand.allow_abbrev),
                       underscores=bool(underscores) if underscores is not None else bool(hand and hand.underscores),
                       dynamic_prefix=hand.dynamic_prefix if hand is not None else None, primary=primary)
    reg.versions = list(releases)
    reg.compiled = True
    reg.__dict__["no_value_options"] = entries.booleans() | frozenset(
        o for flag, e in extra.items() if e.get("type") == "bool"
        for o in [flag, *(e.get("aliases") or []), *(e.get("negation") or [])])
    if hand is not None:   # what a deprecated flag stands for is the hand file's (``sets``)
        reg.__dict__["implied"] = {o: e["sets"] for flag, e in hand.flags.items() if isinstance((e or {}).get("sets"), dict)
                                   and flag in primary for o in [flag, *((e or {}).get("aliases") or [])]
                                   if not o.startswith("--no-")}
    return reg
