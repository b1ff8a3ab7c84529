"""A user's knowledge file (``--knowledge FILE``): read safely, and every unknown key or value of
the wrong type reported with its ``file:line:col`` and the closest valid key."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import yaml

from ..model import quote
from ..read.safeio import ReadError, read_bytes
from . import kbcache
from . import bundled
from .bundled import current, load


class KnowledgeError(Exception):
    """A user knowledge file cannot be read or has the wrong shape."""


def read_user_file(path: str) -> dict:
    """A user knowledge file, read through :func:`cfglint.read.safeio.read_bytes` (a regular file of
    at most 10 MiB: a FIFO or device is never opened) and parsed with a safe loader. Raises
    KnowledgeError with a one-line reason that never quotes the file's content."""
    from ..read.paths import printable

    shown = printable(path)
    try:
        raw = read_bytes(path)
        raw.decode("utf-8")  # only to refuse invalid UTF-8 (below), cached or not
        # a file read and checked before, against the same bundled knowledge, by the same cfglint
        key = kbcache.key("user", current().key, kbcache.sha256(raw).hexdigest())
        cached = (kbcache.read(key) or {}).get("data")
        if cached is not None:
            try:
                return kbcache.decode(cached)
            except ValueError:
                pass
        data = bundled.parse_data(raw)
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
    engines = sorted((load("parsers.yaml") or {}).get("parsers") or {})
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
    models = list((load("models.yaml") or {}).get("models") or [])
    for name in ("model_configs.yaml", "model_configs_litgpt.yaml", "model_configs_extra.yaml"):
        models += [e for e in ((load(name) or {}).get("models") or {}).values() if isinstance(e, dict)]
    data = {"accelerators": (load("accelerators.yaml") or {}).get("accelerators") or {}, "models": models,
            "parsers": {e: {k: v for k, v in kinds.items() if k in ("reasoning", "tool_call")}
                        for e, kinds in ((load("parsers.yaml") or {}).get("parsers") or {}).items()},
            "paths": {"host_prefixes": (load("paths.yaml") or {}).get("host_prefixes") or []}}
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
