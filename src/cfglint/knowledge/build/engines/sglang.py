"""SGLang: what ``python -m sglang.launch_server`` / ``sglang serve`` accepts in one release, and
the sglang-router launchers, read from the release's ``sglang/`` (``sglang_router/``) sources.

``extract(source_root, version)`` interprets ``ServerArgs.add_cli_args(parser)``
(``sglang/srt/server_args.py``) with the shared static evaluator: explicit ``add_argument``
calls (every release), the dataclass fields turned into arguments by
``add_cli_args_from_dataclass`` (0.5.14+; fields in ``arg_groups/fields/*.py`` from 0.5.20) and
the helpers that receive the parser. ``extract_router(source_root, version)`` does the same for
``sglang_router.launch_router`` / ``launch_server`` (``RouterArgs.add_cli_args``). Nothing of
SGLang is imported or run.

Record::

    {"engine": "sglang", "version": ...,
     "launchers": {"launch_server": {"source": [files], "source_sha256": {file: sha256},
                                     "parser": "argparse", "allow_abbrev": true, "mechanism": ...,
                                     "flags": {...}}},
     "removed": {flag: {message, source, registered}}, "env": {VAR: {type, default, source, kind, ...}},
     "parsers": {"reasoning": [...], "tool": [...], "sources": {...}},
     "exclusive": [{"flags": [a, b], "source": ...}], "checks": [{source, function, kind, ...}]}

Each flag (keyed by its first long option string): ``aliases``, ``negation``, ``type`` (bool /
int / float / str / json / list with ``item_type``), ``choices``, ``default``, ``nargs``,
``deprecated`` (with ``replacement``), ``env``, ``hidden``, and ``dest``, ``source``
(file:line), ``origin`` (``dataclass:<Class>`` or ``<file>:<function>``) plus, where they apply,
``action``, ``human_readable``, ``value_optional``, ``required``, ``choices_conditional`` (values
added only under a condition), ``choices_unresolved``, ``default_expr``, ``type_fn``,
``accepted_values`` (``--speculative-algorithm``), ``deprecation_notice``.
"""

from __future__ import annotations

import ast
import hashlib

from .sglang_args import DataclassCli, SglangInterpreter, collect_flags
from .sglang_facts import (apply_notices, exclusive_from_checks, extract_checks, extract_deprecation_notices,
                           extract_envs, extract_parsers, extract_removed, speculative_algorithm_names)
from .static.argparse_model import ArgParser
from .static.classes import FieldDef
from .static.source import SourceTree
from .static.values import ClassRef, FunctionRef, untaint

__all__ = ["extract", "extract_router"]

_BASE_KEYS = ("aliases", "negation", "type", "choices", "default", "nargs", "deprecated", "env", "hidden")
_ARGS_PARAM_NAMES = ("server_args", "args", "cfg", "sa", "self", "view", "config")


def _ordered(flags: dict) -> dict:
    out = {}
    for k, r in flags.items():
        base = {x: r.pop(x) for x in _BASE_KEYS}
        out[k] = {**base, **{x: r[x] for x in sorted(r)}}
    return out


def server_args_fields(ev, sa: ClassRef) -> list[FieldDef]:
    """The fields of ``ServerArgs``: in-tree base classes first, its own body, and (0.5.2x) the
    namespace classes gathered by ``collect_input_fields(_INPUT_NAMESPACES)``, in the order of
    ``field_order.POSITIONAL_FIELD_ORDER``."""
    fields = []
    for b in ev.bases(sa):
        if isinstance(b, ClassRef):
            fields += server_args_fields(ev, b)
    fields += _own_fields(ev, sa)
    sources = None
    for st in ev.tree.parse(sa.module).body:
        if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call):
            fn = st.value.func
            if (fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")) == "collect_input_fields" and st.value.args:
                sources = untaint(ev.eval(st.value.args[0], _frame(sa.module)))[0]
    if isinstance(sources, list):
        ns_fields = []
        for c in sources:
            c = untaint(c)[0]
            if isinstance(c, ClassRef):
                ns_fields += _own_fields(ev, c)
        order = None
        if ev.tree.has("sglang.srt.arg_groups.field_order"):
            order = untaint(ev.global_value("sglang.srt.arg_groups.field_order", "POSITIONAL_FIELD_ORDER"))[0]
        byname = {f.name: f for f in ns_fields}
        if isinstance(order, (list, tuple)):
            names = [untaint(n)[0] for n in order]
            ns_fields = [byname[n] for n in names if n in byname] + [f for f in ns_fields if f.name not in set(names)]
        own = {f.name for f in fields}
        fields = [f for f in ns_fields if f.name not in own] + fields
    return fields


def _frame(module):
    from .static.evaluator import Frame
    return Frame(module)


def _own_fields(ev, cls):
    return ev.dataclass_fields(cls, bases="none")


def _check_functions(ev, mod, sa):
    funcs = [(mod, st, "self") for st in sa.node.body if isinstance(st, ast.FunctionDef) and (
        st.name.startswith("_handle") or st.name.startswith("_validate") or st.name in ("__post_init__", "check_server_args", "_check"))]
    for rel in ev.tree.files("sglang/srt/arg_groups"):
        if rel.count("/") != 3 or rel.rsplit("/", 1)[1].startswith("__"):
            continue
        m2 = ev.tree.module_of(rel)
        t = ev.tree.parse(m2)
        if t is None:
            continue
        for st in t.body:
            cands = [st] if isinstance(st, ast.FunctionDef) else (
                [x for x in st.body if isinstance(x, ast.FunctionDef)] if isinstance(st, ast.ClassDef) else [])
            for fdef in cands:
                params = [a.arg for a in fdef.args.args]
                if params and params[0] == "self" and len(params) > 1 and params[1] in _ARGS_PARAM_NAMES:
                    funcs.append((m2, fdef, params[1]))
                elif params and params[0] in _ARGS_PARAM_NAMES and params[0] != "self":
                    funcs.append((m2, fdef, params[0]))
    return funcs


def _mechanism(flags) -> str:
    dc = any((r.get("origin") or "").startswith("dataclass:") for r in flags.values())
    ex = any(not (r.get("origin") or "").startswith("dataclass:") for r in flags.values())
    parts = []
    if dc:
        parts.append("dataclass fields with A[T, Arg(...)] metadata -> add_cli_args_from_dataclass")
    if ex:
        parts.append("explicit parser.add_argument calls")
    return "; ".join(parts)


def extract(source_root, version: str) -> dict:
    """The record of the SGLang release whose ``sglang/`` sources are under ``source_root``.

    Raises RuntimeError when the tree has no ``ServerArgs.add_cli_args``."""
    tree = SourceTree(source_root)
    ev = SglangInterpreter(tree)
    mod = "sglang.srt.server_args"
    sa = ev.defines(mod, "ServerArgs") if tree.has(mod) else None
    if sa is None:
        raise RuntimeError(f"sglang/srt/server_args.py with class ServerArgs not found under {source_root}")
    fields = server_args_fields(ev, sa)
    dc = DataclassCli(ev, fields, sa)
    add = next((FunctionRef(mod, st, sa) for st in sa.node.body
                if isinstance(st, ast.FunctionDef) and st.name == "add_cli_args"), None)
    if add is None:
        raise RuntimeError("ServerArgs.add_cli_args not found")
    parser = ArgParser(0, "argparse.ArgumentParser", {}, f"{tree.relpath(mod)}:0", False, "<entry>", mod)
    ev.parsers.append(parser)
    ev.invoke(add, [parser], {})
    flags, groups = collect_flags(ev, ev.parsers)
    flags = _ordered(flags)
    dest_to_flag = {}
    for k, r in flags.items():
        d = r.get("dest") or k.lstrip("-").replace("-", "_")
        if d not in dest_to_flag and not r.get("deprecated"):
            dest_to_flag[d] = k
    field_names = {f.name for f in dc.fields}
    funcs = _check_functions(ev, mod, sa)
    checks = extract_checks(ev, field_names, dest_to_flag, funcs)
    exclusive = exclusive_from_checks(checks)
    exclusive += [{"flags": g, "source": "argparse mutually exclusive group"} for g in groups]
    notices = extract_deprecation_notices(ev, funcs, field_names)
    apply_notices(flags, notices, dest_to_flag)
    removed = extract_removed(flags, notices, dest_to_flag)
    spec = flags.get("--speculative-algorithm")
    if spec is not None and spec.get("choices") is None:
        acc = speculative_algorithm_names(ev)
        if acc:
            spec["accepted_values"] = acc["values"]
            spec["accepted_values_source"] = acc["source"]
    rel = tree.relpath(mod)
    return {
        "engine": "sglang",
        "version": version,
        "launchers": {
            "launch_server": {
                "source": [rel] + sorted({tree.relpath(f.owner.module) for f in dc.fields if f.owner.module != mod}),
                "source_sha256": {rel: hashlib.sha256((tree.root / rel).read_bytes()).hexdigest()},
                "parser": "argparse",
                "allow_abbrev": True,
                "mechanism": _mechanism(flags),
                "flags": flags,
            }
        },
        "removed": removed,
        "env": extract_envs(ev),
        "parsers": extract_parsers(ev),
        "exclusive": exclusive,
        "checks": checks,
    }


def _parser_building_functions(tree, module):
    """Top-level functions of ``module`` that create an ``argparse.ArgumentParser``."""
    out = []
    for st in tree.parse(module).body:
        if isinstance(st, ast.FunctionDef):
            for sub in ast.walk(st):
                if isinstance(sub, ast.Call):
                    f = sub.func
                    if (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")) == "ArgumentParser":
                        out.append(st)
                        break
    return out


def extract_router(source_root, version: str) -> dict:
    """The record of an sglang-router release: ``python -m sglang_router.launch_router``
    (``RouterArgs.add_cli_args``) and ``python -m sglang_router.launch_server`` (the installed
    sglang's ``ServerArgs.add_cli_args`` plus ``RouterArgs.add_cli_args(use_router_prefix=True)``).

    Raises RuntimeError when neither launcher is in the tree."""
    tree = SourceTree(source_root)
    ev = SglangInterpreter(tree)
    for mn in ("sglang_router.router_args", "sglang_router.launch_router"):
        if tree.has(mn):
            c = ev.defines(mn, "RouterArgs")
            if c is not None:
                ev.field_defaults[id(c.node)] = {f.name: ev.field_default(f.value, _frame(mn))
                                                 for f in _own_fields(ev, c) if f.value is not None}
    launchers = {}
    for mn, lid in (("sglang_router.launch_router", "router"), ("sglang_router.launch_server", "router.launch_server")):
        if not tree.has(mn):
            continue
        funcs = _parser_building_functions(tree, mn)
        if not funcs:
            continue
        start = len(ev.parsers)
        for fdef in funcs:
            ev.invoke(FunctionRef(mn, fdef), [], {})
        parsers = ev.parsers[start:]
        flags, _ = collect_flags(ev, parsers)
        flags = _ordered(flags)
        rec = {"source": sorted({tree.relpath(mn)} | {r["source"].split(":")[0] for r in flags.values()}),
               "parser": "argparse", "allow_abbrev": True, "flags": flags}
        includes = []
        for p in parsers:
            for c in p.external_calls:
                if "add_cli_args" in c["text"]:
                    inc = {"call": c["text"], "source": c["where"]}
                    if "ServerArgs" in c["text"]:
                        inc["note"] = "ServerArgs.add_cli_args of the installed sglang release (not part of this package)"
                    includes.append(inc)
        if includes:
            rec["includes"] = includes
        launchers[lid] = rec
    if not launchers:
        raise RuntimeError(f"sglang_router launchers not found under {source_root}")
    return {"engine": "sglang-router", "version": version, "launchers": launchers}
