"""vLLM facts beyond the serve flags, read from one release's sources: the reasoning and
tool-call parser registries, the environment variables of ``vllm/envs.py``, the value checks of
the config classes (``if <fields>: raise``) and the options the release's parser names in its
own error handling."""

from __future__ import annotations

import ast
import re

from .static.astutil import literal
from .static.namespace import build_namespace

__all__ = ["parser_registries", "env_vars", "value_checks", "explicit_removals", "MANAGERS"]

MANAGERS = {"ReasoningParserManager": "reasoning", "ToolParserManager": "tool"}
_REG_DIRS = {
    "reasoning": ["vllm/reasoning", "vllm/entrypoints/openai/reasoning_parsers", "vllm/parser"],
    "tool": ["vllm/tool_parsers", "vllm/entrypoints/openai/tool_parsers", "vllm/parser"],
}


def _str_names(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def parser_registries(tree) -> dict:
    """Names registered with ``ReasoningParserManager`` / ``ToolParserManager``: decorators,
    direct calls and the lazy-registration tables (``_..._TO_REGISTER`` dicts)."""
    found = {"reasoning": {}, "tool": {}}
    files = set()
    for dirs in _REG_DIRS.values():
        for d in dirs:
            files.update(tree.files(d))
    for rel in sorted(files):
        t = tree.parse_file(rel)
        if t is None:
            continue
        for node in ast.walk(t):
            if isinstance(node, ast.ClassDef):
                for dec in node.decorator_list:
                    if isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.func.attr == "register_module" \
                            and isinstance(dec.func.value, ast.Name) and dec.func.value.id in MANAGERS:
                        names = _str_names(dec.args[0]) if dec.args else []
                        for k in dec.keywords:
                            if k.arg == "name":
                                names = _str_names(k.value)
                        if not dec.args and not any(k.arg == "name" for k in dec.keywords):
                            names = [node.name]
                        for n in names:
                            found[MANAGERS[dec.func.value.id]].setdefault(n, f"{rel}:{dec.lineno}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("register_lazy_module", "register_module") \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in MANAGERS:
                names = _str_names(node.args[0]) if node.args else []
                for k in node.keywords:
                    if k.arg == "name":
                        names = _str_names(k.value)
                for n in names:
                    found[MANAGERS[node.func.value.id]].setdefault(n, f"{rel}:{node.lineno}")
        for st in t.body:
            tgt = None
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                tgt, val = st.targets[0].id, st.value
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                tgt, val = st.target.id, st.value
            if tgt and re.match(r"_?[A-Z_]*PARSERS?_TO_REGISTER$", tgt) and isinstance(val, ast.Dict):
                kind = "reasoning" if "REASONING" in tgt else "tool" if "TOOL" in tgt else None
                if kind:
                    for k in val.keys:
                        if isinstance(k, ast.Constant) and isinstance(k.value, str):
                            found[kind].setdefault(k.value, f"{rel}:{k.lineno}")
    return found


def _literal(node):
    return literal(node)


def _env_from_lambda(body):
    """(default, type) of the lambda that reads one variable in ``vllm/envs.py``."""
    getenv = None
    for n in ast.walk(body):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("getenv", "get") \
                and ast.unparse(n.func.value) in ("os", "os.environ"):
            getenv = n
            break
    default = _literal(getenv.args[1]) if getenv is not None and len(getenv.args) > 1 else None
    typ = "str"
    outer = body
    while isinstance(outer, ast.Call) and isinstance(outer.func, ast.Name) and outer.func.id in ("bool", "int", "float", "str"):
        if typ == "str" or outer.func.id == "bool":
            typ = outer.func.id
        if outer.func.id == "bool":
            break
        outer = outer.args[0] if outer.args else None
    if isinstance(body, ast.Compare) and any(isinstance(o, (ast.In, ast.Eq, ast.NotIn, ast.NotEq)) for o in body.ops):
        typ = "bool"
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Name):
        fn = body.func.id
        if fn == "maybe_convert_int":
            typ = "int"
        elif fn == "maybe_convert_bool":
            typ = "bool"
        elif "json" in fn:
            typ = "json"
    return default, typ


def env_vars(tree) -> dict:
    """Every key of ``vllm/envs.py``'s ``environment_variables``: type and default read from the
    lambda or ``env_with_choices(...)``, the ``TYPE_CHECKING`` declared type and default."""
    mod = "vllm.envs"
    t = tree.parse(mod)
    if t is None:
        return {}
    rel = tree.relpath(mod)
    declared = {}
    for st in t.body:
        if isinstance(st, ast.If) and ast.unparse(st.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for d in st.body:
                if isinstance(d, ast.AnnAssign) and isinstance(d.target, ast.Name):
                    declared[d.target.id] = (ast.unparse(d.annotation), d.value)
    out = {}
    for st in t.body:
        val = None
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == "environment_variables":
            val = st.value
        elif isinstance(st, ast.Assign) and any(isinstance(x, ast.Name) and x.id == "environment_variables" for x in st.targets):
            val = st.value
        if not isinstance(val, ast.Dict):
            continue
        for k, v in zip(val.keys, val.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                continue
            rec = {"type": None, "default": None, "source": f"{rel}:{k.lineno}"}
            choices = None
            if isinstance(v, ast.Lambda):
                rec["default"], rec["type"] = _env_from_lambda(v.body)
            elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id.startswith("env_") \
                    and "choices" in v.func.id:
                args = v.args
                rec["default"] = _literal(args[1]) if len(args) > 1 else None
                choices = _literal(args[2]) if len(args) > 2 else None
                for kw in v.keywords:
                    if kw.arg == "choices":
                        choices = _literal(kw.value)
                    if kw.arg == "default":
                        rec["default"] = _literal(kw.value)
                rec["type"] = "list" if ("list" in v.func.id or "set" in v.func.id) else "str"
            if k.value in declared:
                ann, dv = declared[k.value]
                rec["declared_type"] = ann
                dl = _literal(dv) if dv is not None else None
                if dl is not None or (dv is not None and isinstance(dv, ast.Constant)):
                    rec["declared_default"] = dl
                if rec["type"] in (None, "str"):
                    base = ann.replace("Optional[", "").replace(" | None", "").rstrip("]")
                    if base in ("int", "float", "bool"):
                        rec["type"] = base
            if isinstance(choices, (list, tuple)):
                rec["choices"] = [c for c in choices if isinstance(c, (str, int, float, bool))]
            if not isinstance(rec["default"], (str, int, float, bool, type(None))):
                rec["default"] = None
            out[k.value] = rec
    return dict(sorted(out.items()))


_CHECK_METHODS = re.compile(r"^(__post_init__|_?verify\w*|_?validate\w*|_?check\w*|verify_args|_verify_args)$")
_CHECK_CLASSES = ("SchedulerConfig", "CacheConfig", "ParallelConfig", "ModelConfig", "LoRAConfig",
                  "SpeculativeConfig", "MultiModalConfig", "LoadConfig", "StructuredOutputsConfig",
                  "ObservabilityConfig", "DecodingConfig", "EngineArgs", "AsyncEngineArgs", "FrontendArgs",
                  "BaseFrontendArgs", "EPLBConfig", "KernelConfig", "AttentionConfig", "OffloadConfig",
                  "PoolerConfig", "CompilationConfig")
_ALLOWED_CALLS = {"len", "isinstance"}


def _simple_condition(node, params, consts):
    """A condition built only from fields (self.x / args.x), parameters, constants and operators."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in _ALLOWED_CALLS):
                return False
        elif isinstance(n, ast.Name):
            if n.id in ("self", "args", "cls", "None", "True", "False", "len", "isinstance", "int", "str", "float",
                        "dict", "list", "bool") or n.id in params or n.id in consts:
                continue
            return False
        elif isinstance(n, (ast.Lambda, ast.Subscript, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.Await,
                            ast.JoinedStr)):
            return False
    return True


def _norm_condition(node):
    return " ".join(re.sub(r"\b(self|args)\.", "", ast.unparse(node)).split())


def _cond_fields(node):
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ("self", "args"):
            out.append(n.attr)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) and isinstance(n.value.value, ast.Name) \
                and n.value.value.id in ("self", "args"):
            out.append(f"{n.value.attr}.{n.attr}")
    return list(dict.fromkeys(out))


def value_checks(tree, flags) -> list:
    """Checks that raise on flag values alone (no device, no model files): ``if <fields /
    constants>: raise`` in the config classes' ``__post_init__`` / ``verify*`` / ``validate*``
    methods, in ``EngineArgs`` and in ``validate_parsed_serve_args``."""
    by_field = {}
    for k, f in flags.items():
        if f.get("field"):
            by_field.setdefault(f["field"], k)
        by_field.setdefault("*." + (f.get("dest") or k[2:].replace("-", "_")), k)
    mods = []
    if tree.has("vllm.config") and not tree.is_package("vllm.config"):
        mods.append("vllm.config")
    else:
        mods.extend(tree.module_of(rel) for rel in tree.files("vllm/config"))
    # the server's own argument checks (validate_parsed_serve_args) live in a cli_args module that
    # moved: entrypoints/openai (to 0.28), entrypoints/launchers (0.29-0.32), entrypoints/common
    mods += ["vllm.engine.arg_utils", "vllm.entrypoints.openai.cli_args", "vllm.entrypoints.launchers.cli_args",
             "vllm.entrypoints.common.cli_args"]
    out = []
    for mod in mods:
        t = tree.parse(mod)
        if t is None:
            continue
        rel = tree.relpath(mod)
        consts = {n for n in _module_names(tree, mod, build_namespace, set()) if n.isupper()}
        units = []
        for st in t.body:
            if isinstance(st, ast.ClassDef) and st.name in _CHECK_CLASSES:
                units.extend((st.name, m) for m in st.body if isinstance(m, ast.FunctionDef) and _CHECK_METHODS.match(m.name))
            elif isinstance(st, ast.FunctionDef) and st.name.startswith("validate_parsed_serve_args"):
                units.append((None, st))
        for cname, fn in units:
            params = {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self", "cls"}
            assigned = {t.id for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                        for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
            params -= assigned
            for n, guards in _ifs_with_guards(fn.body, []):
                raises = [b for b in n.body if isinstance(b, ast.Raise)]
                if not raises or not _simple_condition(n.test, params, consts):
                    continue
                fields = _cond_fields(n.test)
                if not fields:
                    continue
                exc = raises[0].exc
                ename = ast.unparse(exc.func) if isinstance(exc, ast.Call) else (ast.unparse(exc) if exc is not None else None)
                fl = []
                for fld in fields:
                    key = f"{cname}.{fld}" if cname and cname not in ("EngineArgs", "AsyncEngineArgs") else None
                    k = (by_field.get(key) if key else None) or by_field.get("*." + fld.split(".")[-1])
                    if k and k not in fl:
                        fl.append(k)
                rec = {"where": f"{cname}.{fn.name}" if cname else fn.name,
                       "source": f"{rel}:{n.lineno}",
                       "condition": _norm_condition(n.test),
                       "raises": ename, "fields": fields, "flags": fl,
                       "inputs": sorted(p for p in params - {"args"}
                                        if re.search(r"\b%s\b" % re.escape(p), ast.unparse(n.test)))}
                if guards:
                    rec["only_when"] = [
                        (("not (" + _norm_condition(g[1]) + ")") if g[0] else _norm_condition(g[1]))
                        if _simple_condition(g[1], params, consts) else "(a condition this extractor does not evaluate)"
                        for g in guards]
                out.append(rec)
    return out


def _module_names(tree, mod, build_namespace, seen) -> set:
    """Names bound at the top level of ``mod``, star imports included."""
    if mod in seen or not tree.has(mod):
        return set()
    seen.add(mod)
    ns = build_namespace(mod, tree.parse(mod), tree.resolve_from)
    names = set(ns.bindings)
    for star in ns.stars:
        names |= {n for n in _module_names(tree, star, build_namespace, seen) if not n.startswith("_")}
    return names


def _ifs_with_guards(body, guards):
    for st in body:
        if isinstance(st, ast.If):
            yield st, list(guards)
            yield from _ifs_with_guards(st.body, guards + [(False, st.test)])
            yield from _ifs_with_guards(st.orelse, guards + [(True, st.test)])
        elif isinstance(st, (ast.For, ast.While, ast.With, ast.Try)):
            loop = [(False, ast.Name(id="<loop>"))] if isinstance(st, (ast.For, ast.While)) else []
            yield from _ifs_with_guards(st.body, guards + loop)
            if isinstance(st, ast.Try):
                for h in st.handlers:
                    yield from _ifs_with_guards(h.body, guards + [(False, ast.Name(id="<except>"))])
            if hasattr(st, "orelse"):
                yield from _ifs_with_guards(st.orelse, guards)


def explicit_removals(tree, flags) -> dict:
    """Options the release's parser names in its own error handling (a hint for ``--task``)."""
    out = {}
    mod = "vllm.utils.argparse_utils"
    t = tree.parse(mod)
    if t is None:
        return out
    rel = tree.relpath(mod)
    for n in ast.walk(t):
        if isinstance(n, ast.FunctionDef) and n.name == "error":
            txt = ast.unparse(n)
            for m in re.finditer(r"\(\^\|\\\\s\)(--[a-z][a-z0-9-]+)", txt):
                flag = m.group(1)
                if flag in flags:
                    continue
                hinted = sorted({x for x in re.findall(r"--[a-z][a-z0-9-]+", txt) if x in flags})
                out[flag] = {"message": "rejected (unrecognized); the parser's error adds a hint naming " + ", ".join(hinted),
                             "source": f"{rel}:{n.lineno}"}
    return out
