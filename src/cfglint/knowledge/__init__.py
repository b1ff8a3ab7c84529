"""The knowledge base: data files under ``rules/`` (accelerators, models, engines, parsers,
kernels, paths), loaded once and on first use.

Every entry carries a ``source``. Lookups return None for what the knowledge base does not
know; rules then stay silent rather than guess.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..model import quote
from ..read.safeio import ReadError, read_bytes
from . import kbcache
from .hfconfig import FIELDS as CONFIG_FIELDS
from .hfconfig import facts as config_facts


@lru_cache(maxsize=None)
def data_dir(name: str) -> Path:
    """Directory of bundled data (``rules`` or ``schemas``): inside the installed package, or
    at the repository root when running from a source checkout."""
    here = Path(__file__).resolve().parent.parent   # the cfglint package
    for candidate in (here / name, here.parent.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"cfglint data directory {name!r} not found next to {here}")


def _parse(raw: bytes) -> Any:
    return yaml.load(raw.decode("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}


class _Bundled:
    """The bundled knowledge files of one ``rules`` directory (``*.yaml``, ``flags/*.yaml``), read
    and hashed once; parsed from the knowledge cache (:mod:`cfglint.knowledge.kbcache`) when it holds an
    entry for exactly these contents, else from YAML (and then stored in the cache)."""

    def __init__(self, rules: Path):
        paths = sorted([*rules.glob("*.yaml"), *rules.glob("flags/*.yaml")])
        self.paths = {p.relative_to(rules).as_posix(): str(p) for p in paths}
        self._raw: dict[str, bytes] = {}
        self.key = kbcache.key("bundled", [[name, digest] for name, digest in kbcache.digests(self.paths).items()])
        parts = kbcache.read(self.key)
        if parts is None and kbcache.directory() is not None:  # a miss: parse them all once, store them
            parts = kbcache.store(self.key, {name: _parse(self.raw(name)) for name in self.paths})
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
        if text is not None:
            try:
                return kbcache.decode(text)
            except ValueError:
                pass  # cannot happen for an entry whose checksum matched; parse the file then
        raw = self.raw(name)
        return _parse(raw) if raw is not None else {}


@lru_cache(maxsize=4)
def _bundled(rules: str) -> _Bundled:
    return _Bundled(Path(rules))


def _load(name: str) -> Any:
    """Data of the bundled knowledge file ``rules/<name>`` (``flags/vllm.yaml``), {} if missing."""
    return _bundled(str(data_dir("rules"))).load(name)


def _shared(name: str) -> Any:
    """:func:`_load`'s data decoded once per process, for readers that never change it."""
    return _bundled(str(data_dir("rules"))).shared(name)


bundled_data = _load   # public name, for the other readers of rules/ (rule pages: examples.yaml)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


class KnowledgeError(Exception):
    """A user knowledge file cannot be read or has the wrong shape."""


def _user_file(path: str) -> dict:
    """A user knowledge file, read through :func:`cfglint.read.safeio.read_bytes` (a regular file of
    at most 10 MiB: a FIFO or device is never opened) and parsed with a safe loader. Raises
    KnowledgeError with a one-line reason that never quotes the file's content."""
    from ..read.paths import printable

    shown = printable(path)
    try:
        raw = read_bytes(path)
        raw.decode("utf-8")  # only to refuse invalid UTF-8 (below), cached or not
        # a file read and checked before, against the same bundled knowledge, by the same cfglint
        key = kbcache.key("user", _bundled(str(data_dir("rules"))).key, kbcache.sha256(raw).hexdigest())
        cached = (kbcache.read(key) or {}).get("data")
        if cached is not None:
            try:
                return kbcache.decode(cached)
            except ValueError:
                pass
        data = _parse(raw)
    except ReadError as err:
        raise KnowledgeError(f"cannot read knowledge file {shown}: {err}") from None
    except UnicodeDecodeError as err:
        raise KnowledgeError(f"cannot read knowledge file {shown}: invalid UTF-8 at byte offset {err.start}") from None
    except RecursionError:
        raise KnowledgeError(f"cannot read knowledge file {shown}: YAML nesting is too deep") from None
    except yaml.YAMLError:
        raise KnowledgeError(f"cannot read knowledge file {_syntax_error(raw, shown)}") from None
    if not isinstance(data, dict):
        raise KnowledgeError(f"{shown}:1:1: a knowledge file is a mapping with any of {', '.join(SECTIONS)}")
    unknown = _unknown_key(data)
    if unknown is not None:
        keys, key, valid, where = unknown
        line, col = _key_position(raw, keys) or (1, 1)
        import difflib

        close = difflib.get_close_matches(str(key), valid, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else "valid keys: " + ", ".join(valid[:20]) + \
            (", ..." if len(valid) > 20 else "")
        raise KnowledgeError(f"{shown}:{line}:{col}: unknown key {quote(str(key))} in {where}; {hint}"
                             + (f" (a knowledge file is a mapping with any of {', '.join(SECTIONS)})"
                                if len(keys) == 1 else ""))
    problem, keys = _shape_problem_at(data) or _type_problem_at(data) or (None, ())
    if problem:
        line, col = (_key_position(raw, keys) if keys else None) or (1, 1)
        raise KnowledgeError(f"{shown}:{line}:{col}: {problem} (see the bundled rules/*.yaml for the shape)")
    kbcache.store(key, {"data": data})
    return data


SECTIONS = ("accelerators", "models", "parsers", "paths")
# Entry fields cfglint reads that no bundled entry happens to use (so _bundled_kinds lacks them)
READ_ONLY_FIELDS = {"model": ("thinking_default",)}


def _fields(kind: str) -> list[str]:
    """The fields an entry of ``kind`` (accelerator, model, parser, host_prefix) may have: those
    the bundled entries use, and :data:`READ_ONLY_FIELDS`."""
    names = {p.split(".")[1].split("[")[0] for p in _bundled_kinds() if p.startswith(kind + ".")}
    return sorted(names | set(READ_ONLY_FIELDS.get(kind, ())))


def _unknown_key(data: dict) -> tuple[tuple, Any, list[str], str] | None:
    """The first key of a user knowledge file that cfglint does not read (a misspelled section,
    field, parser kind or engine): (path of keys and list indexes to it, the key, the valid keys
    there, where it is in words); None when every key is known. Values of the wrong type, and
    a mapping that holds itself through a YAML alias, are left to :func:`_shape_problem` and
    :func:`_type_problem`."""
    def keys(value: Any, *holders: Any) -> list:
        """The keys of ``value`` when it is a mapping that is none of ``holders`` (an alias loop)."""
        return list(value) if isinstance(value, dict) and not any(value is h for h in holders) else []

    def items(value: Any, *holders: Any) -> list:
        return [(k, value[k]) for k in keys(value, *holders)]

    for key in keys(data):
        if key not in SECTIONS:
            return (key,), key, list(SECTIONS), "the top level"
    accs = data.get("accelerators")
    for name, entry in items(accs, data):
        for key in keys(entry, data, accs):
            if key not in _fields("accelerator"):
                return ("accelerators", name, key), key, _fields("accelerator"), f"accelerator {quote(str(name))}"
    models = data.get("models")
    for i, entry in enumerate(models if isinstance(models, list) else []):
        for key in keys(entry, data):
            if key not in _fields("model"):
                what = f"model {quote(entry.get('id'))}" if isinstance(entry.get("id"), str) else f"models[{i}]"
                return ("models", i, key), key, _fields("model"), what
    parsers = data.get("parsers")
    engines = sorted((_load("parsers.yaml") or {}).get("parsers") or {})
    for engine, kinds in items(parsers, data):
        if engine not in engines:
            return ("parsers", engine), engine, engines, "parsers (an engine name)"
        for kind, names in items(kinds, data, parsers):
            if kind not in ("reasoning", "tool_call"):
                return ("parsers", engine, kind), kind, ["reasoning", "tool_call"], f"parsers.{engine}"
            for name, entry in items(names, data, parsers, kinds):
                for key in keys(entry, data, parsers, kinds, names):
                    if key not in _fields("parser"):
                        return (("parsers", engine, kind, name, key), key, _fields("parser"),
                                f"parser {engine} {kind} {quote(str(name))}")
    paths = data.get("paths")
    for key in keys(paths, data):
        if key != "host_prefixes":
            return ("paths", key), key, ["host_prefixes"], "paths"
    prefixes = paths.get("host_prefixes") if isinstance(paths, dict) else None
    for i, entry in enumerate(prefixes if isinstance(prefixes, list) else []):
        for key in keys(entry, data, paths):
            if key not in _fields("host_prefix"):
                return ("paths", "host_prefixes", i, key), key, _fields("host_prefix"), f"paths.host_prefixes[{i}]"
    return None


def _key_position(raw: bytes, keys: tuple) -> tuple[int, int] | None:
    """1-based (line, column) of the mapping key (or list item) at the end of ``keys`` (keys and
    list indexes from the document's root) in the YAML text ``raw``; None when it cannot be found (a merge
    key, an alias on the way). Composes the node graph only: aliases are not expanded."""
    from ..read.yamlsrc import _CLoader

    try:
        node = yaml.compose(raw.decode("utf-8"), Loader=_CLoader or yaml.SafeLoader)
    except Exception:  # noqa: BLE001 - it parsed a moment ago; any doubt: no position
        return None
    for depth, part in enumerate(keys):
        last = depth == len(keys) - 1
        if isinstance(node, yaml.MappingNode):
            match = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(part)]
            if not match:
                return None
            k, node = match[-1]   # the last duplicate wins, as in the data
            if last:
                return k.start_mark.line + 1, k.start_mark.column + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
            if last:   # a list item: where it starts
                return node.start_mark.line + 1, node.start_mark.column + 1
        else:
            return None
    return None


def _syntax_error(raw: bytes, shown: str) -> str:
    """``FILE:LINE:COL: YAML syntax error: ...`` for a knowledge file that does not parse, in the
    plain words of :mod:`cfglint.read.yamlmsg` (from the pure-Python parser, whose positions and
    messages cfglint explains; libyaml words its errors differently)."""
    from ..read.yamlsrc import YamlError, parse_yaml

    try:
        parse_yaml(raw.decode("utf-8").replace("\r\n", "\n"), shown, c_loader=False)
    except YamlError as err:
        where = f"{shown}:{err.span.line}:{err.span.col}" if err.span else f"{shown}:1:1"
        return f"{where}: {err}"
    except Exception:  # noqa: BLE001 - nesting too deep and the like: no position
        pass
    return f"{shown}:1:1: YAML syntax error"


def _shape_problem(data: dict) -> str | None:
    """What is wrong with a user knowledge file's shape, or None."""
    found = _shape_problem_at(data)
    return found[0] if found else None


def _shape_problem_at(data: dict) -> tuple[str, tuple] | None:
    """:func:`_shape_problem`'s problem and the key path of what it is about."""
    accs = data.get("accelerators", {})
    if not isinstance(accs, dict) or not all(isinstance(v, dict) for v in accs.values()):
        return "accelerators must map a name to {vendor, arch, per_node, source, ...}", ("accelerators",)
    models = data.get("models", [])
    if not isinstance(models, list) or not all(isinstance(m, dict) and isinstance(m.get("id"), str) for m in models):
        bad = next((i for i, m in enumerate(models) if not isinstance(m, dict) or not isinstance(m.get("id"), str)), None) \
            if isinstance(models, list) else None
        return "models must be a list of {id, family, moe, source, ...}", ("models",) if bad is None else ("models", bad)
    for i, m in enumerate(models):
        if not isinstance(m.get("aliases") or [], list) or not all(isinstance(a, str) for a in m.get("aliases") or []):
            return f"models: {m['id']}: aliases must be a list of repo ids", ("models", i, "aliases")
        if m.get("base") is not None and not isinstance(m.get("base"), str):
            return f"models: {m['id']}: base must be a repo id", ("models", i, "base")
        for key in ("num_attention_heads", "num_key_value_heads", "num_hidden_layers", "hidden_size",
                    "max_position_embeddings", "n_routed_experts", "num_experts_per_tok", "head_dim"):
            value = m.get(key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value <= 0):
                return f"models: {m['id']}: {key} must be a positive integer", ("models", i, key)
        for key in ("moe", "mla"):
            if m.get(key) is not None and not isinstance(m.get(key), bool):
                return f"models: {m['id']}: {key} must be true or false", ("models", i, key)
        if m.get("quantization") is not None and not isinstance(m.get("quantization"), dict):
            return f"models: {m['id']}: quantization must be {{method, weight_block_size}} or null", ("models", i, "quantization")
    parsers = data.get("parsers", {})
    if not isinstance(parsers, dict) or not all(
            isinstance(kinds, dict) and all(k in ("reasoning", "tool_call") and isinstance(names, dict)
                                            for k, names in kinds.items()) for kinds in parsers.values()):
        return "parsers must map an engine to {reasoning: {name: {...}}, tool_call: {name: {...}}}", ("parsers",)
    paths = data.get("paths", {})
    prefixes = paths.get("host_prefixes", []) if isinstance(paths, dict) else None
    if not isinstance(prefixes, list) or not all(isinstance(p, dict) and isinstance(p.get("prefix"), str) for p in prefixes):
        return "paths.host_prefixes must be a list of {prefix, why}", ("paths",)
    return None


MAX_KNOWLEDGE_DEPTH = 32  # the bundled entries nest 4 deep


def _kind(value: Any) -> str:
    return {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict"}.get(type(value), "other")


def _walk_kinds(value: Any, path: str, out: dict[str, set[str]], stack: tuple = ()) -> str | None:
    """Record ``path -> kinds`` of every value below ``value`` into ``out``; returns a problem
    for a structure that refers to itself (a YAML alias inside its own anchor) or nests too deep."""
    if value is None:
        return None
    out.setdefault(path, set()).add(_kind(value))
    if isinstance(value, (dict, list)):
        if any(value is s for s in stack):
            return f"{path}: a YAML alias refers to the node that holds it"
        if len(stack) >= MAX_KNOWLEDGE_DEPTH:
            return f"{path}: nested more than {MAX_KNOWLEDGE_DEPTH} levels deep"
        items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
        for key, item in items:
            sub = f"{path}[]" if key is None else f"{path}.{key}"
            problem = _walk_kinds(item, sub, out, stack + (value,))
            if problem:
                return problem
    return None


def _entries(data: dict) -> list[tuple[str, str, Any]]:
    """(kind of entry, its name for messages, entry) of a knowledge file's sections."""
    out = [("accelerator", f"accelerators: {name}", e) for name, e in (data.get("accelerators") or {}).items()]
    out += [("model", f"models: {m.get('id')}", m) for m in (data.get("models") or [])]
    for engine, kinds in (data.get("parsers") or {}).items():
        for kind, names in (kinds or {}).items():
            if kind in ("reasoning", "tool_call"):
                out += [("parser", f"parsers: {engine}: {kind}: {name}", e) for name, e in (names or {}).items()]
    out += [("host_prefix", f"paths: host_prefixes[{i}]", p)
            for i, p in enumerate(((data.get("paths") or {}).get("host_prefixes") or []))]
    return out


@lru_cache(maxsize=1)
def _bundled_kinds() -> dict[str, set[str]]:
    """The kinds of value (str, int, list, ...) each field of the bundled entries holds: the
    types a user knowledge file's entries must use for the same fields."""
    models = list((_load("models.yaml") or {}).get("models") or [])
    for name in ("model_configs.yaml", "model_configs_extra.yaml"):
        models += [e for e in ((_load(name) or {}).get("models") or {}).values() if isinstance(e, dict)]
    data = {"accelerators": (_load("accelerators.yaml") or {}).get("accelerators") or {}, "models": models,
            "parsers": {e: {k: v for k, v in kinds.items() if k in ("reasoning", "tool_call")}
                        for e, kinds in ((_load("parsers.yaml") or {}).get("parsers") or {}).items()},
            "paths": {"host_prefixes": (_load("paths.yaml") or {}).get("host_prefixes") or []}}
    out: dict[str, set[str]] = {}
    for kind, _, entry in _entries(data):
        _walk_kinds(entry, kind, out)
    return out


_KIND_WORDS = {"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
               "list": "a list", "dict": "a mapping"}


def _type_problem(data: dict) -> str | None:
    """What in a user knowledge file's entries has another type than the same field of the
    bundled entries (``aliases`` a list of strings, ``per_node`` an integer, ...), refers to
    itself through a YAML alias, or nests too deep; None when nothing. Null is always allowed,
    an integer where the bundled data has numbers; fields the bundled data lacks are not
    checked."""
    found = _type_problem_at(data)
    return found[0] if found else None


def _entry_keys(data: dict) -> list[tuple]:
    """The key path (keys and list indexes) of each entry :func:`_entries` lists, in its order."""
    out: list[tuple] = [("accelerators", name) for name in (data.get("accelerators") or {})]
    out += [("models", i) for i, _ in enumerate(data.get("models") or [])]
    for engine, kinds in (data.get("parsers") or {}).items():
        for kind, names in (kinds or {}).items():
            if kind in ("reasoning", "tool_call"):
                out += [("parsers", engine, kind, name) for name in (names or {})]
    out += [("paths", "host_prefixes", i) for i, _ in enumerate(((data.get("paths") or {}).get("host_prefixes") or []))]
    return out


def _type_problem_at(data: dict) -> tuple[str, tuple] | None:
    """:func:`_type_problem`'s problem and the key path of the field it is about (the entry's,
    for a problem with the entry as a whole)."""
    known = _bundled_kinds()
    for (kind, name, entry), at in zip(_entries(data), _entry_keys(data)):
        seen: dict[str, set[str]] = {}
        problem = _walk_kinds(entry, kind, seen)
        if problem:
            return f"{name}: {problem.split(': ', 1)[1]}", at
        for path, kinds in seen.items():
            allowed = known.get(path)
            if allowed is None:
                continue
            bad = kinds - allowed - ({"int"} if "float" in allowed else set())
            if bad:
                field = path.split(".", 1)[1] if "." in path else "the entry"
                want = " or ".join(_KIND_WORDS.get(k, k) for k in sorted(allowed))
                keys = at + tuple(part for part in field.replace("[]", "").split(".")) if "." in path else at
                return f"{name}: {field} must be {want}", keys
    return None


class Knowledge:
    """Facts cfglint checks against. Construct once (see :func:`knowledge`).

    ``extra`` are the user's own knowledge files (``cfglint check --knowledge FILE``): their
    accelerators and models are added or replace bundled ones by name / id, their parser
    names are added to the engine's registry, their host path prefixes are added.
    Raises KnowledgeError for an unreadable or malformed file.
    """

    def __init__(self, extra: tuple[str, ...] = (), private_ranges: tuple[str, ...] | None = None):
        self.extra = [_user_file(p) for p in extra]
        self.private_ranges = private_ranges  # the configuration's private-ranges (CIDR), None: the bundled list

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
        secrets = _load("secrets.yaml")
        if self.private_ranges is not None:
            secrets.setdefault("addresses", {})["private"] = list(self.private_ranges)
        return secrets

    @cached_property
    def kernels(self) -> dict:
        return _load("kernels.yaml")

    @cached_property
    def weight_formats(self) -> dict[str, float]:
        """Bytes per parameter by weight format name (``NVFP4`` -> 0.5625), scales included:
        rules/models.yaml ``weight_formats`` (MEM001). Entries without a positive number are left out."""
        table = (_load("models.yaml") or {}).get("weight_formats") or {}
        out: dict[str, float] = {}
        for name, entry in table.items() if isinstance(table, dict) else ():
            value = entry.get("bytes") if isinstance(entry, dict) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
                out[str(name).upper()] = float(value)
        return out

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

    @cached_property
    def _by_name(self) -> dict[str, list[dict]]:
        """Curated entries by repo name without the org (``deepseek-r1``), for org mirrors."""
        table: dict[str, list[dict]] = {}
        for key, entry in self._models.items():
            bucket = table.setdefault(key.rsplit("/", 1)[-1], [])
            if entry not in bucket:
                bucket.append(entry)
        return table

    @cached_property
    def model_configs(self) -> dict[str, dict]:
        """Config facts by lower-cased repo id: rules/model_configs.yaml (generated from
        aiconfigurator-core), then rules/model_configs_extra.yaml (hand-transcribed) for ids the
        first lacks. (A user's knowledge file states config facts on its model entries directly;
        entry values win over these.)"""
        table: dict[str, dict] = {}
        for name in ("model_configs.yaml", "model_configs_extra.yaml"):
            for repo_id, entry in ((_load(name) or {}).get("models") or {}).items():
                if isinstance(entry, dict):
                    table.setdefault(str(repo_id).lower(), dict(entry, config_id=str(repo_id)))
        return table

    def _config_for(self, *ids: str | None) -> dict:
        for repo_id in ids:
            if isinstance(repo_id, str) and repo_id.lower() in self.model_configs:
                return self.model_configs[repo_id.lower()]
        return {}

    def _curated(self, model_id: str, bare: bool = False) -> tuple[dict | None, str]:
        """(curated entry, how it was found) for an id or an org mirror of it (``bare``: also
        for a repo name without org); (None, '') when nothing matches."""
        key = model_id.lower()
        if key in self._models:
            entry = self._models[key]
            return entry, ("exact" if entry["id"].lower() == key else "alias")
        name = key.rsplit("/", 1)[-1]
        if _REPO_ID.fullmatch(key) or (bare and "/" not in key):
            found = self._by_name.get(name) or []
            if len(found) == 1:
                return found[0], "mirror"
        return None, ""

    def _resolve(self, model_id: str) -> tuple[dict | None, dict, list[str], str | None]:
        """(curated entry or None, config facts, resolution steps, precision the id's suffix implies)."""
        steps: list[str] = []
        entry, how = self._curated(model_id)
        precision = None
        current = model_id
        for _ in range(4):   # e.g. -Instruct-FP8-dynamic: a few suffixes at most
            if entry is not None:
                break
            stripped, implied = strip_quant_suffix(current)
            if stripped is None:
                break
            precision = precision or implied
            steps.append(f"{current} -> {stripped} (quantized re-upload suffix, {implied or 'precision unknown'})")
            current = stripped
            entry, how = self._curated(current)
        if entry is not None and how == "mirror":
            steps.append(f"{current} -> {entry['id']} (same repo name under another org)")
        elif entry is not None and how == "alias":
            steps.append(f"{current} -> {entry['id']} (alias listed in rules/models.yaml)")
        # the most specific published config: the id itself, then its curated entry, aliases, base
        config = self._config_for(model_id, current)
        if not config and entry is not None:
            config = self._config_for(entry["id"], *(entry.get("aliases") or []), entry.get("base"))
        if entry is None and config:
            steps = [f"{model_id}: config.json facts only ({config.get('source')})"]
        return entry, config, steps, precision

    def model(self, model_id: str | None) -> dict | None:
        """Entry for a Hugging Face repo id, flat: the curated fields of rules/models.yaml (family,
        moe, checkpoint_precision, reasoning, tool_call_format, source, ...) merged with the
        config.json facts of rules/model_configs.yaml / model_configs_extra.yaml (num_attention_heads,
        num_key_value_heads, max_position_embeddings, quantization, ...; curated values win).

        Resolves, case-insensitively: ids and aliases; quantized re-uploads (``-FP8``,
        ``-FP8-dynamic``, ``-NVFP4``, ``-FP4``, ``-MXFP4``, ``-AWQ``, ``-GPTQ-Int4``, ``-W4A16``,
        ``-quantized.w4a16``, ...; see :func:`strip_quant_suffix`); org mirrors (``unsloth/X``,
        ``RedHatAI/X``, ``nvidia/X`` for a curated ``<org>/X`` when exactly one has that name);
        curated ``base:`` links (a fine-tune inherits its base's facts it does not state).
        The entry's ``id`` is the curated id; ``requested_id`` is what was asked, ``resolved_from``
        lists the steps taken (empty for a direct hit), and ``checkpoint_precision`` is the
        precision the requested id's suffix or its own quantization_config implies, else the
        curated one. An id with only config facts (no curated entry) is returned with
        ``curated: False``. None when nothing matches."""
        if not isinstance(model_id, str) or not model_id.strip() or len(model_id) > 300:
            return None   # Hub ids are at most 96 characters per part; longer text is not an id
        model_id = _strip_hub_prefix(model_id.strip())
        key = model_id.lower()
        if key not in self._resolved:
            entry, config, steps, precision = self._resolve(model_id)
            self._resolved[key] = self._flat(model_id, entry, config, steps, precision)
        result = self._resolved[key]
        return dict(result) if result is not None else None   # callers may not change the cache

    @cached_property
    def _resolved(self) -> dict[str, dict | None]:
        return {}

    def _flat(self, model_id: str, entry: dict | None, config: dict, steps: list[str],
              precision: str | None) -> dict | None:
        if entry is None and not config:
            return None
        out: dict = {}
        base = self._models.get(str((entry or {}).get("base") or "").lower())
        base_config = self._config_for(base["id"], *(base.get("aliases") or [])) if base else {}
        for facts in (base_config, config):
            for key in CONFIG_FIELDS:
                if facts.get(key) is not None or key not in out:
                    out[key] = facts.get(key)
        used = config or base_config
        out["config_source"] = used.get("source")
        out["config_url"] = used.get("config_url")
        if base:
            out.update({k: v for k, v in base.items()
                        if k not in ("id", "aliases", "source", "note", "base", "draft_models", "related")})
            steps = [*steps, f"{entry['id']} -> {base['id']} (fine-tune of; facts it does not state are the base's)"]
        if entry is not None:
            out.update({k: v for k, v in entry.items() if v is not None or k not in out})
            out["curated"] = True
        else:
            experts = config.get("n_routed_experts")
            out.update(id=config.get("config_id", model_id), curated=False, family=None,
                       moe=(experts > 1) if isinstance(experts, int) else None, source=config.get("source"))
        own = used if used.get("config_id", "").lower() == model_id.lower() else None
        if precision is None:
            _, precision = strip_quant_suffix(model_id)
        if (own is None or out.get("quantization") is None) and precision is not None \
                and _precision_of(out.get("quantization")) != precision:
            # the facts are the base's (or the config read lacks it): say what the name implies
            out["quantization"] = None if precision in ("BF16", "FP16") else {
                "method": precision.lower(), "weight_block_size": None,
                "inferred_from": f"repo name suffix of {model_id}"}
        if precision is None and own is not None and entry is not None and own.get("config_id", "").lower() != entry["id"].lower():
            precision = _precision_of(own.get("quantization"))
        if precision is not None:
            out["checkpoint_precision"] = precision
        elif out.get("checkpoint_precision") is None:
            out["checkpoint_precision"] = _precision_of(out.get("quantization"))
        out["requested_id"] = model_id
        out["resolved_from"] = steps
        return out

    def model_from_config(self, path: str, root: str, max_bytes: int = 1 << 20) -> dict | None:
        """Entry for a local model directory named in a launch (``--model-path ./models/foo``),
        read from its ``config.json`` when that file exists at lint time INSIDE ``root`` (the
        linted tree): a relative ``path`` is taken from ``root``; a path, or a symlink, that leads
        outside ``root`` is refused; files over ``max_bytes`` and unparsable JSON are refused;
        nothing is ever downloaded. The entry has the flat shape of :meth:`model`, with the
        config facts of the local file (they win over a curated entry found by the directory's
        name) and ``config_source`` naming the file. None when refused or absent."""
        if not isinstance(path, str) or not path.strip() or not isinstance(root, str) or len(path) > 4096:
            return None
        try:
            top = Path(root).resolve(strict=True)
            target = Path(path) if os.path.isabs(path) else Path(root) / path
            config_path = target / "config.json" if not target.name.endswith(".json") else target
            real = config_path.resolve(strict=True)
            real.relative_to(top)                       # the file itself lies inside the tree
            Path(os.path.abspath(config_path)).relative_to(Path(os.path.abspath(root)))  # and so does the name
            config = json.loads(read_bytes(str(real), max_bytes, within=str(top)).decode("utf-8"))
        except (OSError, ValueError, RecursionError, ReadError):
            return None
        facts = config_facts(config)
        if facts is None:
            return None
        name = config_path.parent.name
        entry, how = self._curated(name, bare=True) if name else (None, "")
        if entry is None:
            stripped, _ = strip_quant_suffix(name)
            entry, how = self._curated(stripped, bare=True) if stripped else (None, "")
        curated = self.model(entry["id"]) if entry else None
        out = dict(curated or {"id": path, "family": None, "curated": False,
                               "moe": bool(facts.get("n_routed_experts")) if facts.get("n_routed_experts") else None})
        out.update({k: v for k, v in facts.items()})
        out["config_source"] = f"local config.json: {os.path.relpath(real, top)}"
        out["config_url"] = None
        out["source"] = out.get("source") or out["config_source"]
        out["requested_id"] = path
        out["resolved_from"] = [f"{path}: local config.json"] + (
            [f"directory name {name} -> {entry['id']} ({how})"] if entry else [])
        if facts.get("quantization"):
            out["checkpoint_precision"] = _precision_of(facts["quantization"]) or out.get("checkpoint_precision")
        return out

    def accelerator(self, name: str | None) -> dict | None:
        """Entry for an accelerator name as written in a manifest (``B300``, ``RTX 6000D``)."""
        if not isinstance(name, str):
            return None
        return self._accelerators.get(_norm(name))

    def accelerator_names(self) -> list[str]:
        """Canonical accelerator names, sorted."""
        return sorted({e["name"] for e in self._accelerators.values()})


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


_REPO_ID = re.compile(r"[a-z0-9][a-z0-9_.-]*/[a-z0-9_.-]+")   # org/name, lower-cased; not a path
_HUB_PREFIX = re.compile(r"^(?:https?://)?(?:www\.)?(?:huggingface\.co|hf\.co)/", re.I)


def _strip_hub_prefix(model_id: str) -> str:
    return _HUB_PREFIX.sub("", model_id).rstrip("/")


# Quantized re-upload suffixes (at the end of the repo name) and the checkpoint precision each
# implies. Names as published by NVIDIA ModelOpt (-FP8, -FP4, -NVFP4), RedHatAI / neuralmagic
# llm-compressor (-FP8-dynamic, -quantized.w4a16, -W8A8), Qwen (-FP8, -AWQ, -GPTQ-Int4/Int8),
# unsloth (-bnb-4bit, -GGUF) and others.
_QUANT_SUFFIXES: tuple[tuple[str, str | None], ...] = (
    (r"fp8(?:[-_.](?:dynamic|static|block|blockwise|e4m3|kv|per[-_]?tensor|per[-_]?channel|perchannel|pertensor|hf|torchao))*", "FP8"),
    (r"w8a8[-_.]fp8", "FP8"),
    (r"nvfp4(?:[-_.](?:dynamic|static|kv|fp8kv|v\d+))*", "NVFP4"),
    (r"mxfp4(?:[-_.](?:moe|dynamic))*", "MXFP4"),
    (r"fp4", "FP4"),
    (r"awq(?:[-_.]int4)?", "INT4"),
    (r"gptq(?:[-_.]int4)?", "INT4"),
    (r"gptq[-_.]int8", "INT8"),
    (r"int4(?:[-_.]awq)?", "INT4"),
    (r"int8", "INT8"),
    (r"(?:quantized[-_.])?w4a16(?:[-_.]g\d+)?", "INT4"),
    (r"(?:quantized[-_.])?w8a16", "INT8"),
    (r"(?:quantized[-_.])?w8a8", "INT8"),
    (r"(?:quantized[-_.])?w4a8", "INT4"),
    (r"(?:unsloth[-_.])?bnb[-_.]4bit", "NF4"),
    (r"gguf", "GGUF"),
    (r"(?:mlx[-_.])?4[-_]?bit", "INT4"),
    (r"(?:mlx[-_.])?8[-_]?bit", "INT8"),
    (r"bf16", "BF16"),
    (r"fp16", "FP16"),
)


# every name a suffix above matches contains one of these (lower-cased): a name with none of them
# is answered without compiling the patterns (tests/test_knowledge.py checks each pattern's matches)
_QUANT_TOKENS = ("fp8", "fp4", "awq", "gptq", "int4", "int8", "w4a16", "w8a16", "w8a8", "w4a8", "bnb", "gguf",
                 "bit", "bf16", "fp16")


@lru_cache(maxsize=1)
def _quant_res() -> list[tuple[re.Pattern, str | None]]:
    """:data:`_QUANT_SUFFIXES` compiled on first use (20 patterns; a run that names no model needs none)."""
    return [(re.compile(r"^(?P<base>.+?)[-_.](?:" + pat + r")$", re.I), prec) for pat, prec in _QUANT_SUFFIXES]


def strip_quant_suffix(model_id: str) -> tuple[str | None, str | None]:
    """(``model_id`` without one quantized re-upload suffix, the precision it implies), or
    (None, None) when the name has no such suffix. ``nvidia/DeepSeek-R1-FP4`` ->
    (``nvidia/DeepSeek-R1``, ``FP4``); ``RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic`` ->
    (``RedHatAI/Llama-3.3-70B-Instruct``, ``FP8``)."""
    if not isinstance(model_id, str):
        return None, None
    org, slash, name = model_id.rpartition("/")
    low = name.lower()
    if not any(token in low for token in _QUANT_TOKENS):
        return None, None
    for pattern, precision in _quant_res():
        m = pattern.match(name)
        if m:
            if precision == "FP4" and org.lower() == "nvidia":
                precision = "NVFP4"   # NVIDIA's -FP4 re-uploads are ModelOpt NVFP4 checkpoints
            return org + slash + m.group("base"), precision
    return None, None


_METHOD_PRECISION = {"fp8": "FP8", "nvfp4": "NVFP4", "mxfp4": "MXFP4", "w4a16_nvfp4": "NVFP4",
                     "awq": "INT4", "gptq": "INT4", "fbgemm_fp8": "FP8", "modelopt_fp4": "NVFP4"}


def _precision_of(quantization: Any) -> str | None:
    """Checkpoint precision a normalized ``quantization`` {method, ...} names, or None."""
    if not isinstance(quantization, dict):
        return None
    return _METHOD_PRECISION.get(str(quantization.get("method") or "").lower())


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


def _registries() -> dict[str, FlagRegistry]:
    out: dict[str, FlagRegistry] = {}
    sg = _shared("flags/sglang.yaml")
    if sg:
        out["sglang"] = FlagRegistry("sglang", sg.get("flags"), sg.get("source", ""), sg.get("removed_flags"),
                                     sg.get("did_you_mean"), allow_abbrev=True)
        out["sglang"].versions = [str(v) for v in sg.get("versions") or []]
    vl = _shared("flags/vllm.yaml")
    if vl:
        out["vllm"] = FlagRegistry("vllm", vl.get("flags"), vl.get("source", ""), vl.get("removed_flags"),
                                   vl.get("did_you_mean"), allow_abbrev=bool(vl.get("abbreviations")),
                                   underscores=bool(vl.get("underscore_equivalent")))
        out["vllm"].versions = [str(vl["version"])] if vl.get("version") else []
    tr = _shared("flags/trtllm.yaml")
    if tr:
        out["trtllm"] = FlagRegistry("trtllm", tr.get("flags"), tr.get("source", ""), tr.get("removed_flags"),
                                     tr.get("did_you_mean"))
        if tr.get("disaggregated_flags"):
            out["trtllm.disaggregated"] = FlagRegistry("trtllm.disaggregated", tr.get("disaggregated_flags"),
                                                       tr.get("source", ""))
    dy = _shared("flags/dynamo.yaml")
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
def knowledge(extra: tuple[str, ...] = (), private_ranges: tuple[str, ...] | None = None) -> Knowledge:
    """The knowledge base, bundled data plus the user's files ``extra`` and the configuration's
    ``private_ranges`` (CIDR networks RED003 reports; None: rules/secrets.yaml's), cached per set."""
    return Knowledge(extra, private_ranges)


ENGINE_LABELS = {"sglang": "SGLang", "vllm": "vLLM", "trtllm": "TensorRT-LLM", "dynamo": "NVIDIA Dynamo"}


def coverage() -> dict:
    """What the bundled knowledge covers, so a report can say what it was checked against
    (``cfglint --version``, SARIF ``tool.driver.properties``).

    Returns ``{"knowledge_date": "YYYY-MM-DD" or None, "engines": {engine: [release, ...]}}``:
    ``knowledge_date`` from rules/about.yaml (the day the facts were last read from their
    sources); per engine of rules/flags/<engine>.yaml (``sglang``, ``vllm``, ``trtllm``,
    ``dynamo``, in file-name order) the releases its flag list was read from: its ``versions``
    list, else its ``version``, else its ``release_line`` (a line such as ``1.2-1.3`` when no
    single release was read). An engine with none of them, or a value of the wrong type, is
    left out; nothing is raised for the bundled data.
    """
    about = _load("about.yaml")
    date = about.get("knowledge_date") if isinstance(about, dict) else None
    engines: dict[str, list[str]] = {}
    names = sorted(n for n in _bundled(str(data_dir("rules"))).paths if n.startswith("flags/"))
    for name in names:
        data = _shared(name)
        if not isinstance(data, dict):
            continue
        found = data.get("versions") or data.get("version") or data.get("release_line")
        releases = found if isinstance(found, list) else [found] if found else []
        if releases and all(isinstance(r, (str, int, float)) for r in releases):
            engines[str(data.get("engine") or Path(name).stem)] = [str(r) for r in releases]
    return {"knowledge_date": str(date) if date else None, "engines": engines}


def coverage_line() -> str:
    """:func:`coverage` in one line: ``knowledge 2026-12-01; engine flags: SGLang 0.5.17, 0.5.23; vLLM 0.33.0; ...``."""
    cov = coverage()
    engines = "; ".join(f"{ENGINE_LABELS.get(e, e)} {', '.join(v)}" for e, v in cov["engines"].items())
    return f"knowledge {cov['knowledge_date'] or 'undated'}; engine flags: {engines or 'none'}"
