"""NVIDIA Dynamo: what each ``python -m dynamo.<x>`` launcher accepts in one release, read from
the ``ai-dynamo`` wheel's ``dynamo/`` sources and the parser names found in the
``ai-dynamo-runtime`` library (``runtime_scan.json``, written by the fetch step with
:mod:`.dynamo_runtime`).

``extract(source_root, version)`` runs each launcher's ``dynamo/<x>/__main__.py`` as
``__main__`` with the shared static evaluator (the environment empty, every read of it tracked,
so a flag whose default comes from ``DYN_*`` lists that variable), and reads the refusals of
flag pairs, the argv rewrites of legacy flags and the ``DYN_*`` variables the Python sources
read. Nothing of Dynamo is imported or run.

Record::

    {"engine": "dynamo", "version": ...,
     "launchers": {"frontend" | "sglang" | "vllm" | "trtllm" | "router" | "mocker":
                   {"source": [files], "flags": {...}, "parsers": [...], "engine_flags": [...],
                    "engine_parser_flags": {...}, "conditional_parsers": [...],
                    "mutually_exclusive_groups": [...]}},
     "removed": {flag: {rewritten_to, source}}, "env": {DYN_X: {type, default, flags | sources, ...}},
     "parsers": {"reasoning": [...], "tool": [...]}, "parsers_source": [notes],
     "exclusive": [[flag, flag]], "conflicts": [{flags, action, source, launchers}]}

Only ``DYN_*`` names the Python sources read (or that back a flag) are kept: the compiled
library's strings are not a reliable list of names (Rust string literals run together).
"""

from __future__ import annotations

import ast
import json
import re

from .static.evaluator import SUPPRESS
from .static.interpreter import Interpreter, argparse_relevant_names
from .static.source import SourceTree
from .dynamo_facts import LAUNCHERS, scan_conflicts, scan_env, scan_removed
from .static.values import (ClassRef, DerivedClass, EnumMember, External, FunctionRef, Instance, RuntimeValues,
                            Unknown, untaint)

__all__ = ["extract", "LAUNCHERS", "RUNTIME_SCAN_FILE"]

RUNTIME_SCAN_FILE = "runtime_scan.json"
DYN_RE = re.compile(r"\bDYN_[A-Z0-9_]*[A-Z0-9]\b")


class DynamoInterpreter(Interpreter):
    """The evaluator for Dynamo's launchers: the environment decides conditions (as an unset
    variable), the runtime's ``get_*_parser_names()`` are run-time values."""

    env_decides = True
    fstring_hole = "{?}"

    def hook_call(self, f, args, kwargs, frame, node):
        if isinstance(f, External) and "_core." in f.name and f.last.startswith("get_") and f.last.endswith("_names"):
            kind = "tool" if "tool" in f.last else ("reasoning" if "reasoning" in f.last else f.last)
            return RuntimeValues(kind, f.name)
        return NotImplemented


# ---------------------------------------------------------------------------------------- types
def _action_kind(ev, action):
    """('bool'|'store'|'count'|'append'|'version'|'help'|'const'|'custom', negatable, deprecated)"""
    action = untaint(action)[0]
    if action is None:
        return "store", False, False
    if isinstance(action, str):
        return {"store_true": "bool", "store_false": "bool", "count": "count", "append": "append",
                "version": "version", "help": "help", "store_const": "const", "append_const": "const",
                "extend": "append", "store": "store"}.get(action, "custom"), False, False
    names, cur, depth = [], action, 0
    while cur is not None and depth < 10:
        depth += 1
        if isinstance(cur, DerivedClass):
            names.append(str(cur.name))
            cur = untaint(cur.bases[0])[0] if cur.bases else None
        elif isinstance(cur, ClassRef):
            names.append(cur.name)
            cur = next((b for b in ev.bases(cur) if isinstance(b, (ClassRef, External))), None)
        elif isinstance(cur, External):
            names.append(cur.last)
            cur = None
        else:
            cur = None
    deprecated = any("deprecat" in n.lower() for n in names)
    if "BooleanOptionalAction" in names:
        return "bool", True, deprecated
    if any(n in ("_StoreTrueAction", "_StoreFalseAction") for n in names):
        return "bool", False, deprecated
    if "_AppendAction" in names or "_ExtendAction" in names:
        return "append", False, deprecated
    if "_StoreConstAction" in names:
        return "const", False, deprecated
    return "custom", False, deprecated


def _callable_type(fv):
    """The parsed type of a ``type=`` callable, from its name or its body: (type, nullable)."""
    fv = untaint(fv)[0]
    if isinstance(fv, External):
        if fv.name == "builtins.int":
            return "int", False
        if fv.name == "builtins.float":
            return "float", False
        if fv.name == "builtins.bool":
            return "bool", False
        if fv.last in ("loads", "load") and "json" in fv.name:
            return "json", False
        return "str", False
    if isinstance(fv, FunctionRef) and not isinstance(fv.node, ast.Lambda):
        return _func_return_type(fv.node)
    return "str", False


def _annotation_type(ann):
    """Type from a return annotation: dict -> json, Optional[X] -> (X, nullable)."""
    if ann is None:
        return None, False
    txt = ast.unparse(ann)
    nullable = "Optional" in txt or "None" in txt
    core = txt.replace("Optional[", "").replace("typing.", "")
    for prefix, t in (("dict", "json"), ("Dict", "json"), ("list", "list"), ("List", "list"),
                      ("float", "float"), ("int", "int"), ("bool", "bool"), ("str", "str"),
                      ("Path", "str"), ("pathlib.Path", "str")):
        if core.startswith(prefix):
            return t, nullable
    return None, nullable


def _returns_none(node):
    return any(isinstance(sub, ast.Return) and (sub.value is None or (isinstance(sub.value, ast.Constant)
                                                                      and sub.value.value is None))
               for sub in ast.walk(node))


def _func_return_type(node):
    at, an = _annotation_type(getattr(node, "returns", None))
    if at is not None and at != "str":
        return at, an or _returns_none(node)
    kinds, nullable = set(), False
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            nm = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else "")
            full = ast.unparse(f)
            if ("json" in full and nm in ("loads", "load", "decode")) or full.endswith("json.Decoder") \
                    or (nm == "decode" and "DECODER" in full.upper()) or "safe_load" in full:
                kinds.add("json")
    for sub in ast.walk(node):
        if isinstance(sub, ast.Return):
            v = sub.value
            if v is None or (isinstance(v, ast.Constant) and v.value is None):
                nullable = True
                continue
            if isinstance(v, ast.Call):
                fn = ast.unparse(v.func)
                if fn == "int":
                    kinds.add("int")
                elif fn == "float":
                    kinds.add("float")
                elif fn == "bool" or "parse_bool" in fn or fn.endswith("_bool"):
                    kinds.add("bool")
                elif fn == "str":
                    kinds.add("str")
                elif fn in ("list", "tuple") or fn.endswith("split"):
                    kinds.add("list")
                elif "json" in fn or "decode" in fn or "to_builtins" in fn:
                    kinds.add("json")
            elif isinstance(v, ast.Constant) and isinstance(v.value, bool):
                kinds.add("bool")
            elif isinstance(v, (ast.List, ast.ListComp)):
                kinds.add("list")
            elif isinstance(v, ast.Dict):
                kinds.add("json")
    for k in ("json", "float", "int", "bool", "list"):
        if k in kinds:
            return k, nullable
    return "str", nullable


def _plain(v):
    """JSON-able literal of a default / choice value, else None."""
    v = untaint(v)[0]
    if v is None or isinstance(v, (bool, int, float, str)):
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            return str(v)
        return v
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(_plain(k)): _plain(x) for k, x in v.items()}
    if isinstance(v, EnumMember):
        return _plain(v.value)
    return None


def _deprecation_note(help_text):
    if not isinstance(help_text, str):
        return None
    m = re.search(r"[^.\n]*deprecat[^.\n]*", help_text, re.I)
    return m.group(0).strip()[:160] if m else None


def _is_suppress(v):
    return v == SUPPRESS


# ---------------------------------------------------------------------------------------- flags
def _flag_entry(ev, act, runtime):
    kw = act.kwargs
    opts = act.option_strings
    longs = [o for o in opts if o.startswith("--")]
    primary = longs[0] if longs else opts[0]
    action = kw.get("action")
    akind, negatable, dep_cls = _action_kind(ev, action)
    nargs = _plain(kw.get("nargs"))
    nullable = False
    if akind == "bool":
        t = "bool"
    elif akind == "count":
        t = "int"
    elif akind == "append":
        t = "list"
    elif akind == "const":
        t = "const"
    elif akind in ("version", "help"):
        t = akind
    else:
        t, nullable = _callable_type(kw.get("type")) if kw.get("type") is not None else ("str", False)
        if nargs in ("*", "+") or (isinstance(nargs, int) and nargs > 1):
            t = "list"
    choices = untaint(kw.get("choices"))[0]
    choices_out = choices_from = None
    if isinstance(choices, RuntimeValues):
        choices_from = "runtime:%s (%s)" % (choices.kind, choices.source)
        names = (runtime or {}).get("parsers", {}).get(choices.kind)
        choices_out = sorted(names) if names else None
    elif isinstance(choices, (list, tuple)):
        choices_out = None if any(isinstance(untaint(c)[0], Unknown) for c in choices) else [_plain(c) for c in choices]
    help_text = kw.get("help")
    hidden = _is_suppress(help_text)
    deprecated = None
    dep_kw = untaint(kw.get("deprecated"))[0]
    if isinstance(dep_kw, Instance):
        repl = _plain(dep_kw.attrs.get("replacement"))
        rem = _plain(dep_kw.attrs.get("remove_in"))
        deprecated = "%s is deprecated%s%s" % (primary, " and will be removed in %s" % rem if rem else "",
                                               "; use %s" % repl if repl else "")
    elif dep_kw is True:
        deprecated = "%s is deprecated" % primary
    if deprecated is None:
        note = _deprecation_note(help_text)
        if note:
            deprecated = note
        elif dep_cls:
            a = untaint(action)[0]
            deprecated = "deprecated (action %s)" % (getattr(a, "name", None) or "?")
    envs = sorted(e for e in act.envs if isinstance(e, str))
    if isinstance(help_text, str) and not hidden:
        for m in DYN_RE.findall(help_text):
            if m not in envs:
                envs.append(m)
    dest = kw.get("dest")
    if not isinstance(dest, str):
        dest = primary.lstrip("-").replace("-", "_")
    default = untaint(kw.get("default"))[0]
    entry = {
        "aliases": [o for o in opts if o != primary],
        "negation": ["--no-" + o[2:] for o in longs] if negatable else [],
        "type": t,
        "choices": choices_out,
        "default": None if _is_suppress(default) else _plain(default),
        "nargs": nargs,
        "deprecated": deprecated,
        "env": envs,
        "hidden": hidden,
        "dest": dest,
        "source": act.where,
    }
    if nullable:
        entry["nullable"] = True
    if choices_from:
        entry["choices_from"] = choices_from
    if kw.get("required") is True:
        entry["required"] = True
    if act.conditional:
        entry["conditional"] = True
    return primary, entry


def _engine_of(call):
    return {"vllm": "vllm", "sglang": "sglang", "tensorrt_llm": "trtllm"}.get(call.split(".")[0], call.split(".")[0])


def _engine_refs(p, with_conditional=True):
    out = []
    for e in p.external_calls:
        if e["call"].rsplit(".", 1)[-1] != "add_cli_args":
            continue
        r = {"engine": _engine_of(e["call"]), "via": e["call"], "source": e["where"]}
        if with_conditional:
            r["conditional"] = e["conditional"]
        out.append(r)
    return out


def _run_launcher(tree, name, runtime, relevant):
    mod = "dynamo.%s.__main__" % name
    if not tree.has(mod):
        return None
    ev = DynamoInterpreter(tree)
    ev.relevant_names = relevant
    ev.run_module(mod, as_main=True)
    parsed = [p for p in ev.parsers if p.parsed]
    main = [p for p in parsed if not p.conditional and p.actions]
    out = {"source": [], "flags": {}, "parsers": []}
    files = set()
    for p in ev.parsers:
        refs = _engine_refs(p)
        if not p.parsed and not refs:
            continue
        abbrev = p.kwargs.get("allow_abbrev", True)
        info = {"created": p.where, "function": p.function, "kind": p.kind,
                "parsed_by": [w for _, w, _ in p.parsed], "conditional": bool(p.conditional),
                "allow_abbrev": abbrev if isinstance(abbrev, bool) else None, "n_flags": len(p.actions)}
        if refs:
            info["engine_flags"] = refs
        out["parsers"].append(info)
    engine_parser_flags = {}
    for p in parsed:
        if p.conditional:
            continue
        secondary = main and p is not main[0]
        for act in p.actions:
            if not act.option_strings:
                continue
            primary, entry = _flag_entry(ev, act, runtime)
            if entry["type"] in ("help", "version"):
                continue
            if _engine_refs(p) and secondary:
                # added by Dynamo to the engine's own parser (compatibility shims, often only
                # when the installed engine lacks the flag)
                entry["parser"] = p.function
                engine_parser_flags.setdefault(primary, entry)
                continue
            if secondary:
                entry["parser"] = p.function
            files.update(tree.relpath(f.module) for f in act.stack)
            files.add(act.file)
            if primary not in out["flags"]:
                out["flags"][primary] = entry
    cond = []
    for p in parsed:
        if not p.conditional:
            continue
        flags = {}
        for act in p.actions:
            if act.option_strings:
                primary, entry = _flag_entry(ev, act, runtime)
                if entry["type"] not in ("help", "version"):
                    flags[primary] = entry
        cond.append({"parser": p.where, "flags": dict(sorted(flags.items())),
                     "engine_flags": _engine_refs(p, with_conditional=False)})
    if cond:
        out["conditional_parsers"] = cond
    eng = [r for p in parsed if not p.conditional for r in _engine_refs(p, with_conditional=False)]
    if eng:
        out["engine_flags"] = eng
    if engine_parser_flags:
        out["engine_parser_flags"] = dict(sorted(engine_parser_flags.items()))
    out["source"] = sorted(files)
    out["flags"] = dict(sorted(out["flags"].items()))
    mutex = []
    for p in parsed:
        for grp in p.mutex_groups:
            names = [a.option_strings[0] for a in grp if a.option_strings]
            if len(names) > 1:
                mutex.append(names)
    if mutex:
        out["mutually_exclusive_groups"] = mutex
    return out


# ---------------------------------------------------------------------------------------- extract
def load_runtime_scan(root):
    """The parser names the fetch step read from the runtime library, None when absent."""
    from pathlib import Path
    p = Path(root) / RUNTIME_SCAN_FILE
    if p.is_file():
        data = json.loads(p.read_text(encoding="utf-8"))
        return {k: data.get(k) for k in ("parsers", "parsers_source")}
    return None


def extract(source_root, version: str) -> dict:
    """The record of the Dynamo release whose ``dynamo/`` sources are under ``source_root``
    (with ``runtime_scan.json`` beside them for the parser names).

    Raises RuntimeError when no launcher is found."""
    tree = SourceTree(source_root)
    runtime = load_runtime_scan(source_root)
    relevant = argparse_relevant_names(tree, "dynamo")
    launchers = {}
    for name in LAUNCHERS:
        res = _run_launcher(tree, name, runtime, relevant)
        if res is not None:
            launchers[name] = res
    if not launchers:
        raise RuntimeError(f"no dynamo.<launcher>.__main__ under {source_root}")
    removed = scan_removed(tree)
    for old, info in removed.items():
        pkg = info["source"].split("/")[1]
        if pkg not in launchers or old.startswith("--no-") and ("--" + old[5:]) in removed:
            continue
        fl = launchers[pkg]["flags"]
        if old in fl:
            continue
        neg = "--no-" + old[2:]
        fl[old] = {"aliases": [], "negation": [neg] if neg in removed else [], "type": "bool",
                   "choices": None, "default": None, "nargs": None,
                   "deprecated": "rewritten before parsing to %s" % " ".join(info["rewritten_to"]),
                   "env": [], "hidden": False, "dest": None, "source": info["source"],
                   "rewritten_to": info["rewritten_to"]}
        launchers[pkg]["flags"] = dict(sorted(fl.items()))
    env = {}
    for lname, launcher in launchers.items():
        for flag, e in launcher["flags"].items():
            for var in e["env"]:
                if var.startswith("DYN_"):
                    d = env.setdefault(var, {"type": e["type"], "default": e["default"], "flags": [], "source": e["source"]})
                    d["flags"].append("%s %s" % (lname, flag))
    for var, d in scan_env(tree).items():
        if var in env:
            env[var]["read_by_python"] = d["how"]
            continue
        if d["how"] == ["flag_env_var"]:
            continue
        env[var] = {"type": d["type"], "default": d["default"], "source": d["source"][0] if d["source"] else None,
                    "sources": d["source"], "how": d["how"]}
    for v in env.values():
        if "flags" in v:
            v["flags"] = sorted(set(v["flags"]))
    conflicts = scan_conflicts(tree)
    all_flags = {}
    for lname, launcher in launchers.items():
        for f in launcher["flags"]:
            all_flags.setdefault(f, []).append(lname)
    for c in conflicts:
        ls = set()
        for f in c["flags"]:
            ls.update(all_flags.get(f, []))
        src = c["source"]
        pkg = src.split("/")[1] if src.count("/") >= 2 else None
        c["launchers"] = [pkg] if pkg in launchers else sorted(ls)
    exclusive = sorted({tuple(c["flags"]) for c in conflicts if c["action"] == "refuse"})
    parsers = {"reasoning": None, "tool": None}
    if runtime and runtime.get("parsers"):
        for k in ("reasoning", "tool"):
            if runtime["parsers"].get(k):
                parsers[k] = sorted(runtime["parsers"][k])
    return {
        "engine": "dynamo",
        "version": version,
        "launchers": launchers,
        "removed": removed,
        "env": dict(sorted(env.items())),
        "parsers": parsers,
        "parsers_source": (runtime or {}).get("parsers_source"),
        "exclusive": [list(p) for p in exclusive],
        "conflicts": sorted(conflicts, key=lambda c: (c["flags"], c["source"])),
    }

