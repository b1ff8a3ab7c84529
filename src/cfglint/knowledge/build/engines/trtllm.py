"""TensorRT-LLM: what a launch can say to one release, read from the release's ``tensorrt_llm/``
sources (a wheel or sdist from NVIDIA's index, or a source tree: PyPI's ``tensorrt-llm`` files
are placeholders without source, see rules/releases/inputs.yaml).

``extract(source_root, version)`` reads, with the shared static evaluator and nothing imported
or run:

- ``launchers.serve`` / ``launchers.serve.<sub-command>``: the click options of ``trtllm-serve``
  (:mod:`.trtllm_click`), ``launchers._group`` its sub-commands and default command;
- ``launchers.trtllm-llmapi-launch``: the bash wrapper (no options; the environment it reads and
  exports);
- ``llm_args`` / ``disagg_config``: the YAML schemas (:mod:`.trtllm_llmargs`);
- ``env``: ``TRTLLM_*`` / ``TLLM_*`` variables the Python tree reads (type guessed from the read
  site, default, up to 8 sources);
- ``parsers``: the reasoning and tool-call parser registries;
- ``removed`` / ``exclusive``: what ``trtllm-serve``'s commands refuse.
"""

from __future__ import annotations

import ast
import re

from .static.astutil import dotted, keyword, literal, unparse
from .static.evaluator import Frame
from .static.interpreter import Interpreter
from .static.source import SourceTree
from .static.values import EnumMember, untaint
from .trtllm_click import extract_commands
from .trtllm_llmargs import LLM_ARGS_PY, collect_classes, extract_disagg, extract_llm_args

__all__ = ["extract", "SERVE_PY", "LAUNCH_SH"]

ENV_RE = re.compile(r"^(TRTLLM|TLLM)_[A-Z0-9_]+$")
SERVE_PY = "tensorrt_llm/commands/serve.py"
LAUNCH_SH = "tensorrt_llm/llmapi/trtllm-llmapi-launch"
REASONING_PY = "tensorrt_llm/llmapi/reasoning_parser.py"
TOOL_FACTORY_PY = "tensorrt_llm/serve/tool_parser/tool_parser_factory.py"
LOGGER_PY = "tensorrt_llm/logger.py"


# --------------------------------------------------------------------------------------------
# parser registries
# --------------------------------------------------------------------------------------------

def _registry_names(tree, factory_cls, decorator_names):
    """Names registered in a factory: the keys of ``<Factory>.parsers`` (a dict literal),
    ``@register_x("name")`` decorators and ``<Factory>.parsers["name"] = X`` assignments."""
    names = []
    if tree is None:
        return names
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef) and n.name == factory_cls:
            for st in n.body:
                tgt = val = None
                if isinstance(st, ast.Assign) and len(st.targets) == 1:
                    tgt, val = st.targets[0], st.value
                elif isinstance(st, ast.AnnAssign):
                    tgt, val = st.target, st.value
                if isinstance(tgt, ast.Name) and tgt.id == "parsers" and isinstance(val, ast.Dict):
                    names += [k.value for k in val.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
                    break
            break
    for n in ast.walk(tree):
        if isinstance(n, (ast.ClassDef, ast.FunctionDef)):
            for d in n.decorator_list:
                if isinstance(d, ast.Call) and (dotted(d.func) or "").split(".")[-1] in decorator_names:
                    for a in d.args:
                        if isinstance(a, ast.Constant) and isinstance(a.value, str):
                            names.append(a.value)
                        elif isinstance(a, (ast.List, ast.Tuple)):
                            names += [e.value for e in a.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            t = n.targets[0]
            if isinstance(t, ast.Subscript) and (dotted(t.value) or "").endswith(factory_cls + ".parsers") \
                    and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
                names.append(t.slice.value)
    return list(dict.fromkeys(names))


def extract_parsers(tree):
    out = {"reasoning": None, "tool": None, "source": {}}
    rt = tree.parse_file(REASONING_PY)
    if rt is not None:
        out["reasoning"] = _registry_names(rt, "ReasoningParserFactory", {"register_reasoning_parser", "register"})
        out["source"]["reasoning"] = REASONING_PY
    for cand in (TOOL_FACTORY_PY, "tensorrt_llm/serve/tool_parser/__init__.py"):
        names = _registry_names(tree.parse_file(cand), "ToolParserFactory", {"register_tool_parser", "register"})
        if names:
            out["tool"] = names
            out["source"]["tool"] = cand
            break
    return out


# --------------------------------------------------------------------------------------------
# environment variables
# --------------------------------------------------------------------------------------------

_ENV_CALLS = {"os.environ.get", "os.getenv", "environ.get", "getenv", "os.environ.setdefault", "os.environ.pop"}
_ENV_HELPERS = {"get_env_bool", "get_env_int", "get_env_float", "get_env_str", "str2bool_env", "getenv_bool",
                "get_env", "_get_env", "env_flag", "get_bool_env", "get_int_env", "_env_bool", "_get_bool_env",
                "_get_int_env", "get_env_var"}


_READS_ENV = re.compile(r"environ|getenv|" + "|".join(sorted(_ENV_HELPERS)))


def _env_type_from_parent(parents, node):
    p, prev, hops = parents.get(node), node, 0
    while p is not None and hops < 4:
        if isinstance(p, ast.Call):
            fn = (dotted(p.func) or "").split(".")[-1]
            if fn == "int":
                return "int"
            if fn == "float":
                return "float"
            if fn in ("bool", "str2bool", "strtobool", "_str_to_bool", "str_to_bool", "_parse_bool"):
                return "bool"
            if fn not in ("lower", "strip", "upper") and hops > 0:
                break
        if isinstance(p, ast.Compare):
            vals = [c.value for side in p.comparators + [p.left] if side is not prev
                    for c in ast.walk(side) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
            if vals and all(v.lower() in ("1", "0", "true", "false", "yes", "no", "on", "off", "y", "n") for v in vals):
                return "bool"
            if vals:
                return "str"
        prev, p, hops = p, parents.get(p), hops + 1
    return None


def extract_env(ev):
    """``TRTLLM_*`` / ``TLLM_*`` variables read anywhere in ``tensorrt_llm/`` (the name may be a
    constant or a class attribute, evaluated statically)."""
    tree = ev.tree
    out = {}
    for rel in sorted(tree.files("tensorrt_llm")):
        if not _READS_ENV.search(tree.text(rel) or ""):
            continue
        t = tree.parse_file(rel)
        if t is None:
            continue
        module = tree.module_of(rel)
        parents = {}
        for n in ast.walk(t):
            for c in ast.iter_child_nodes(n):
                parents[c] = n
        for n in ast.walk(t):
            name_node = default_node = how = None
            has_default = False
            if isinstance(n, ast.Call):
                dn = dotted(n.func) or ""
                last = dn.split(".")[-1]
                if (dn in _ENV_CALLS or last in _ENV_HELPERS) and n.args:
                    name_node, how = n.args[0], (last if last in _ENV_HELPERS else dn)
                    default_node = n.args[1] if len(n.args) > 1 else keyword(n, "default")
                    has_default = default_node is not None
            elif isinstance(n, ast.Subscript) and dotted(n.value) in ("os.environ", "environ") and isinstance(n.ctx, ast.Load):
                name_node, how = n.slice, "os.environ[]"
            elif isinstance(n, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn)) for o in n.ops) \
                    and any(dotted(c) in ("os.environ", "environ") for c in n.comparators):
                name_node, how = n.left, "in os.environ"
            if name_node is None:
                continue
            name = _env_name(ev, module, name_node)
            if not name or not ENV_RE.match(name):
                continue
            default = None
            if has_default:
                v = literal(default_node, _MISS)
                default = v if v is not _MISS else unparse(default_node)
            if how in ("get_env_bool", "getenv_bool", "get_bool_env", "_env_bool", "_get_bool_env", "env_flag"):
                typ = "bool"
            elif how in ("get_env_int", "get_int_env", "_get_int_env"):
                typ = "int"
            elif how == "in os.environ":
                typ = "presence"
            else:
                typ = _env_type_from_parent(parents, n)
                if typ is None and has_default:
                    typ = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(default))
                    if isinstance(default, str) and default in ("0", "1") and typ == "str":
                        typ = "bool"
            e = out.setdefault(name, {"type": None, "default": None, "sources": []})
            loc = f"{rel}:{n.lineno}"
            if len(e["sources"]) < 8 and loc not in e["sources"]:
                e["sources"].append(loc)
            if e["type"] in (None, "presence", "str") and typ is not None and not (e["type"] == "str" and typ == "presence"):
                e["type"] = typ
            if e["default"] is None and has_default:
                e["default"] = default
    for e in out.values():
        e["source"] = e["sources"][0] if e["sources"] else None
        if e["type"] is None:
            e["type"] = "str"      # read raw, no conversion seen at the read site
    return dict(sorted(out.items()))


_MISS = object()


def _env_name(ev, module, node):
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    v = untaint(ev.eval(node, Frame(module)))[0]
    if isinstance(v, EnumMember) and isinstance(v.value, str):
        v = v.value            # a str-enum member
    if isinstance(v, str):
        return v
    last = (dotted(node) or "").split(".")[-1]
    return last if ENV_RE.match(last) else None


def extract_launch_script(tree):
    src = tree.text(LAUNCH_SH)
    if src is None:
        return None
    reads = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", src))
    exports = set(re.findall(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=", src, re.M))
    opts = sorted(set(re.findall(r"^\s*(--[a-z][a-z0-9-]*)\)", src, re.M)))
    return {"source": LAUNCH_SH, "flags": {o: {"type": "str"} for o in opts},
            "passes_through": "runs its arguments (\"$@\") as the task command on MPI rank 0; others run the MPI worker",
            "env_read": sorted(v for v in reads if v.isupper() and v not in exports),
            "env_exported": sorted(exports)}


def _version_from_tree(tree):
    m = re.search(r"__version__\s*=\s*['\"]([^'\"]+)['\"]", tree.text("tensorrt_llm/version.py") or "")
    return m.group(1) if m else None


def _choices_source(expr, parsers):
    if "severity_map" in expr:
        return "tensorrt_llm.logger.severity_map keys (" + LOGGER_PY + ")"
    if "ReasoningParserFactory" in expr:
        return "ReasoningParserFactory.parsers keys (" + REASONING_PY + ")"
    if "ToolParserFactory" in expr:
        return "ToolParserFactory.parsers keys (" + (parsers["source"].get("tool") or TOOL_FACTORY_PY) + ")"
    return None


def extract(source_root, version: str) -> dict:
    """The record of the TensorRT-LLM release whose ``tensorrt_llm/`` sources are under
    ``source_root``."""
    tree = SourceTree(source_root)
    ev = Interpreter(tree)
    classes, enums = collect_classes(ev)
    parsers = extract_parsers(tree)
    serve = extract_commands(ev, tree.module_of(SERVE_PY)) if tree.has(tree.module_of(SERVE_PY)) else None
    launchers, exclusive, removed = {}, [], {}
    if serve:
        single = not serve["group"] and len(serve["commands"]) == 1
        for name, cmd in sorted(serve["commands"].items()):
            lid = "serve" if (name == "serve" or single) else "serve." + name
            flags = {}
            for fl, e in cmd["flags"].items():
                if e.get("choices_expr"):
                    e = dict(e, choices_source=_choices_source(e["choices_expr"], parsers))
                flags[fl] = e
            launchers[lid] = {"source": SERVE_PY, "command": name, "function": cmd["function"],
                              "positionals": cmd["positionals"], "flags": dict(sorted(flags.items()))}
            exclusive += cmd["exclusive"]
            removed.update(cmd["removed"])
        launchers["_group"] = {"source": SERVE_PY, "subcommands": dict(sorted(serve["group"].items())),
                               "default_command": serve["default_command"]}
    ls = extract_launch_script(tree)
    if ls:
        launchers["trtllm-llmapi-launch"] = ls
    llm = extract_llm_args(tree, classes, enums)
    if llm is not None:
        launchers["llm_args"] = {"source": LLM_ARGS_PY,
                                 "note": "YAML keys of --config/--extra_llm_api_options; see top-level 'llm_args'"}
    return {
        "engine": "trtllm",
        "version": version,
        "version_in_tree": _version_from_tree(tree),
        "launchers": launchers,
        "removed": dict(sorted(removed.items())),
        "env": extract_env(ev),
        "parsers": {"reasoning": parsers.get("reasoning"), "tool": parsers.get("tool"), "source": parsers.get("source")},
        "exclusive": exclusive,
        "llm_args": llm,
        "disagg_config": extract_disagg(ev),
        "checks": [],
    }
