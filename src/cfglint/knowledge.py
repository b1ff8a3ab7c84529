"""The knowledge base: data files under ``rules/`` (accelerators, models, engines, parsers,
kernels, paths), loaded once and on first use.

Every entry carries a ``source``. Lookups return None for what the knowledge base does not
know; rules then stay silent rather than guess.
"""

from __future__ import annotations

import re
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import yaml


def data_dir(name: str) -> Path:
    """Directory of bundled data (``rules`` or ``schemas``): inside the installed package, or
    at the repository root when running from a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / name, here.parent.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"cfglint data directory {name!r} not found next to {here}")


def _load(name: str) -> Any:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    path = data_dir("rules") / name
    if not path.exists():
        return {}
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=loader) or {}


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


class KnowledgeError(Exception):
    """A user knowledge file cannot be read or has the wrong shape."""


def _user_file(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh) or {}
    except (OSError, yaml.YAMLError) as err:
        raise KnowledgeError(f"cannot read knowledge file {path}: {err}") from None
    if not isinstance(data, dict) or set(data) - {"accelerators", "models", "parsers", "paths"}:
        raise KnowledgeError(f"{path}: a knowledge file is a mapping with any of accelerators, models, parsers, paths")
    problem = _shape_problem(data)
    if problem:
        raise KnowledgeError(f"{path}: {problem} (see the bundled rules/*.yaml for the shape)")
    return data


def _shape_problem(data: dict) -> str | None:
    """What is wrong with a user knowledge file's shape, or None."""
    accs = data.get("accelerators", {})
    if not isinstance(accs, dict) or not all(isinstance(v, dict) for v in accs.values()):
        return "accelerators must map a name to {vendor, arch, per_node, source, ...}"
    models = data.get("models", [])
    if not isinstance(models, list) or not all(isinstance(m, dict) and isinstance(m.get("id"), str) for m in models):
        return "models must be a list of {id, family, moe, source, ...}"
    parsers = data.get("parsers", {})
    if not isinstance(parsers, dict) or not all(
            isinstance(kinds, dict) and all(k in ("reasoning", "tool_call") and isinstance(names, dict)
                                            for k, names in kinds.items()) for kinds in parsers.values()):
        return "parsers must map an engine to {reasoning: {name: {...}}, tool_call: {name: {...}}}"
    paths = data.get("paths", {})
    prefixes = paths.get("host_prefixes", []) if isinstance(paths, dict) else None
    if not isinstance(prefixes, list) or not all(isinstance(p, dict) and isinstance(p.get("prefix"), str) for p in prefixes):
        return "paths.host_prefixes must be a list of {prefix, why}"
    return None


class Knowledge:
    """Facts cfglint checks against. Construct once (see :func:`knowledge`).

    ``extra`` are the user's own knowledge files (``cfglint check --knowledge FILE``): their
    accelerators and models are added or replace bundled ones by name / id, their parser
    names are added to the engine's registry, their host path prefixes are added.
    Raises KnowledgeError for an unreadable or malformed file.
    """

    def __init__(self, extra: tuple[str, ...] = ()):
        self.extra = [_user_file(p) for p in extra]

    @cached_property
    def engines(self) -> dict:
        return _load("engines.yaml")

    @cached_property
    def parsers(self) -> dict:
        parsers = (_load("parsers.yaml") or {}).get("parsers", {})
        for data in self.extra:
            for engine, kinds in (data.get("parsers") or {}).items():
                for kind, names in (kinds or {}).items():
                    parsers.setdefault(engine, {}).setdefault(kind, {}).update(names or {})
        return parsers

    @cached_property
    def secrets(self) -> dict:
        return _load("secrets.yaml")

    @cached_property
    def kernels(self) -> dict:
        return _load("kernels.yaml")

    @cached_property
    def paths(self) -> dict:
        paths = _load("paths.yaml")
        for data in self.extra:
            paths.setdefault("host_prefixes", []).extend((data.get("paths") or {}).get("host_prefixes") or [])
        return paths

    @cached_property
    def _accelerators(self) -> dict[str, dict]:
        table: dict[str, dict] = {}
        entries = dict((_load("accelerators.yaml") or {}).get("accelerators") or {})
        for data in self.extra:
            entries.update(data.get("accelerators") or {})
        for name, entry in entries.items():
            entry = dict(entry, name=name)
            for alias in [name, *(entry.get("aliases") or [])]:
                table[_norm(alias)] = entry
        return table

    @cached_property
    def _models(self) -> dict[str, dict]:
        table: dict[str, dict] = {}
        models = list((_load("models.yaml") or {}).get("models") or [])
        for data in self.extra:
            models.extend(data.get("models") or [])
        for entry in models:
            for alias in [entry["id"], *(entry.get("aliases") or [])]:
                table[alias.lower()] = entry
        return table

    def accelerator(self, name: str | None) -> dict | None:
        """Entry for an accelerator name as written in a manifest (``B300``, ``RTX 6000D``)."""
        if not isinstance(name, str):
            return None
        return self._accelerators.get(_norm(name))

    def accelerator_names(self) -> list[str]:
        """Canonical accelerator names, sorted."""
        return sorted({e["name"] for e in self._accelerators.values()})

    def model(self, model_id: str | None) -> dict | None:
        """Entry for a Hugging Face id (case-insensitive, aliases included), or None."""
        if not isinstance(model_id, str):
            return None
        return self._models.get(model_id.strip().lower())

    @cached_property
    def flag_registries(self) -> dict[str, FlagRegistry]:
        """Flag registries by name: sglang, vllm, trtllm, trtllm.disaggregated, dynamo.frontend,
        dynamo.trtllm, dynamo.sglang, dynamo.vllm (those whose data file exists)."""
        return _registries()

    def parser_registry(self, engine: str, kind: str) -> dict[str, dict] | None:
        """Parser names of ``engine`` (sglang, vllm, trtllm, dynamo) for ``kind``
        (``reasoning`` or ``tool_call``), or None when the registry is not known."""
        entry = self.parsers.get(engine) or {}
        reg = entry.get(kind)
        return reg if isinstance(reg, dict) and reg else None


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
        if re.fullmatch(r"-O\d", option) and "-O" in self.primary:
            return self.primary["-O"]
        if self.allow_abbrev and option.startswith("--"):
            matches = {p for o, p in self.primary.items() if o.startswith(option)}
            if len(matches) == 1:
                return matches.pop()
        return None

    def ambiguous(self, option: str) -> list[str]:
        if not self.allow_abbrev or not option.startswith("--"):
            return []
        return sorted({p for o, p in self.primary.items() if o.startswith(option)})


def _registries() -> dict[str, FlagRegistry]:
    out: dict[str, FlagRegistry] = {}
    sg = _load("flags/sglang.yaml")
    if sg:
        out["sglang"] = FlagRegistry("sglang", sg.get("flags"), sg.get("source", ""), sg.get("removed_flags"),
                                     sg.get("did_you_mean"), allow_abbrev=True)
        out["sglang"].versions = [str(v) for v in sg.get("versions") or []]
    vl = _load("flags/vllm.yaml")
    if vl:
        out["vllm"] = FlagRegistry("vllm", vl.get("flags"), vl.get("source", ""), vl.get("removed_flags"),
                                   vl.get("did_you_mean"), allow_abbrev=bool(vl.get("abbreviations")),
                                   underscores=bool(vl.get("underscore_equivalent")))
    tr = _load("flags/trtllm.yaml")
    if tr:
        out["trtllm"] = FlagRegistry("trtllm", tr.get("flags"), tr.get("source", ""), tr.get("removed_flags"),
                                     tr.get("did_you_mean"))
        if tr.get("disaggregated_flags"):
            out["trtllm.disaggregated"] = FlagRegistry("trtllm.disaggregated", tr.get("disaggregated_flags"),
                                                       tr.get("source", ""))
    dy = _load("flags/dynamo.yaml")
    for part in ("frontend", "trtllm", "sglang", "vllm"):
        entry = dy.get(part) if isinstance(dy, dict) else None
        if isinstance(entry, dict) and entry.get("flags") is not None:
            # argparse prefix matching: on for frontend / trtllm / sglang, off for dynamo.vllm (dynamo.yaml notes)
            out[f"dynamo.{part}"] = FlagRegistry(f"dynamo.{part}", entry.get("flags"),
                                                 entry.get("source", dy.get("source", "")),
                                                 allow_abbrev=part != "vllm",
                                                 dynamic_prefix=entry.get("dynamic_flag_prefix"))
    return out


@lru_cache(maxsize=4)
def knowledge(extra: tuple[str, ...] = ()) -> Knowledge:
    """The knowledge base, bundled data plus the user's files ``extra`` (cached per set)."""
    return Knowledge(extra)
