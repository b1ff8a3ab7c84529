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
