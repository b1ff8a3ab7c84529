"""One launcher's command-line flags as data (``rules/flags/<engine>.yaml``): primary names,
aliases, negations, abbreviations, removed flags and known slips."""

from __future__ import annotations

import bisect
import re
from functools import cached_property

from .bundled import shared


_OPT_LEVEL = re.compile(r"-O\d")  # vLLM -O3


class FlagRegistry:
    """One launcher's command-line flags (rules/flags/<engine>.yaml): names, aliases, types,
    choices, removed flags and known slips."""

    def __init__(self, name: str, flags: dict, source: str, removed: dict | None = None,
                 did_you_mean: dict | None = None, allow_abbrev: bool = False, underscores: bool = False,
                 dynamic_prefix: str | None = None):
        self.name, self.flags, self.source = name, flags or {}, source
        self.removed, self.did_you_mean = removed or {}, did_you_mean or {}
        self.allow_abbrev, self.underscores = allow_abbrev, underscores
        self.dynamic_prefix = dynamic_prefix  # e.g. dynamo.trtllm --trtllm.<group>.<key>
        self.versions: list[str] = []          # releases whose parsers the data was read from
        self.compiled = False                   # built from rules/releases/ (each flag knows its releases)
        self.primary: dict[str, str] = {}
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


def registries() -> dict[str, FlagRegistry]:
    out: dict[str, FlagRegistry] = {}
    sg = shared("flags/sglang.yaml")
    if sg:
        out["sglang"] = FlagRegistry("sglang", sg.get("flags"), sg.get("source", ""), sg.get("removed_flags"),
                                     sg.get("did_you_mean"), allow_abbrev=True)
        out["sglang"].versions = [str(v) for v in sg.get("versions") or []]
    vl = shared("flags/vllm.yaml")
    if vl:
        out["vllm"] = FlagRegistry("vllm", vl.get("flags"), vl.get("source", ""), vl.get("removed_flags"),
                                   vl.get("did_you_mean"), allow_abbrev=bool(vl.get("abbreviations")),
                                   underscores=bool(vl.get("underscore_equivalent")))
        out["vllm"].versions = [str(vl["version"])] if vl.get("version") else []
    tr = shared("flags/trtllm.yaml")
    if tr:
        out["trtllm"] = FlagRegistry("trtllm", tr.get("flags"), tr.get("source", ""), tr.get("removed_flags"),
                                     tr.get("did_you_mean"))
        if tr.get("disaggregated_flags"):
            out["trtllm.disaggregated"] = FlagRegistry("trtllm.disaggregated", tr.get("disaggregated_flags"),
                                                       tr.get("source", ""))
    dy = shared("flags/dynamo.yaml")
    for part in ("frontend", "trtllm", "sglang", "vllm"):
        entry = dy.get(part) if isinstance(dy, dict) else None
        if isinstance(entry, dict) and entry.get("flags") is not None:
            # argparse prefix matching: on for frontend / trtllm / sglang, off for dynamo.vllm (dynamo.yaml notes)
            out[f"dynamo.{part}"] = FlagRegistry(f"dynamo.{part}", entry.get("flags"),
                                                 entry.get("source", dy.get("source", "")),
                                                 allow_abbrev=part != "vllm",
                                                 dynamic_prefix=entry.get("dynamic_flag_prefix"))
    return out


# what a hand-written entry of rules/flags/<engine>.yaml adds to a compiled flag: facts no package
# states (measured notes, published values, the settings a deprecated flag stands for)
OVERLAY_KEYS = ("sets", "published_values", "note", "warn_deprecated", "replacement", "known_values",
                "human_readable")


def compiled_registry(name: str, entries: dict[str, dict], settings: dict, hand: FlagRegistry | None,
                      releases: list[str], source: str) -> FlagRegistry:
    """A launcher's registry from compiled flags (``entries``: :meth:`EngineReleases.flag_entries`
    at one release or across all), with the hand file's overlays, removed flags and slips.
    ``settings``: the launcher's compiled settings (``allow_abbrev``, ``underscore_equivalent``);
    ``releases``: the releases the registry stands for."""
    flags: dict[str, dict] = {}
    for flag, entry in entries.items():
        merged = dict(entry)
        extra = (hand.flags.get(flag) or {}) if hand is not None else {}
        for key in OVERLAY_KEYS:
            if key in extra and merged.get(key) in (None, [], ""):
                merged[key] = extra[key]
        flags[flag] = merged
    if hand is not None and len(releases) != 1:
        # a flag the hand file holds that no release read has: seen in a build after the newest
        # release (its entry says where); known when the release is not, never at a release read
        for flag, extra in hand.flags.items():
            if flag not in flags and not any(flag in (e.get("aliases") or []) for e in flags.values()):
                flags[flag] = dict(extra or {}, releases=[], unreleased=True)
    abbrev = settings.get("allow_abbrev")
    underscores = settings.get("underscore_equivalent")
    reg = FlagRegistry(name, flags, source,
                       removed=hand.removed if hand is not None else None,
                       did_you_mean=hand.did_you_mean if hand is not None else None,
                       allow_abbrev=bool(abbrev) if abbrev is not None else bool(hand and hand.allow_abbrev),
                       underscores=bool(underscores) if underscores is not None else bool(hand and hand.underscores),
                       dynamic_prefix=hand.dynamic_prefix if hand is not None else None)
    reg.versions = list(releases)
    reg.compiled = True
    return reg
