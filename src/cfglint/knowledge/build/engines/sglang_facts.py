"""SGLang facts beyond the flag list, read from one release's sources: environment variables
(``sglang/srt/environ.py`` ``Envs`` plus direct reads), the reasoning and tool-call parser
registries, the value checks of the argument-handling code (and the flag pairs it refuses
together), deprecation notices and the accepted ``--speculative-algorithm`` names."""

from __future__ import annotations

import ast
import re

from .sglang_args import REPLACE_RE, plain
from .static.astutil import dotted, short
from .static.evaluator import Frame
from .static.values import ClassRef, External, FunctionRef, Instance, Partial, Unknown, untaint

__all__ = ["extract_envs", "extract_parsers", "extract_checks", "exclusive_from_checks",
           "extract_deprecation_notices", "extract_removed", "speculative_algorithm_names", "line_of"]

ENV_CLASS_TYPES = {"EnvBool": "bool", "EnvInt": "int", "EnvFloat": "float", "EnvStr": "str", "EnvTuple": "tuple",
                   "EnvJSON": "json", "EnvList": "list", "EnvPath": "str"}
_ENV_NAME_RE = re.compile(r"^(SGLANG|SGL)_[A-Z0-9_]+$")
_ENV_FUNCS = {"get_bool_env_var": "bool", "get_int_env_var": "int", "get_float_env_var": "float",
              "get_str_env_var": "str"}
_ENV_LITERAL_RE = re.compile(r"[\"']SGL(?:ANG)?_[A-Z0-9_]+[\"']")


def line_of(ev, module, node) -> str:
    return f"{ev.tree.relpath(module)}:{getattr(node, 'lineno', 0)}"


def _value(ev, node, module):
    return untaint(ev.eval(node, Frame(module)))[0]


def _class_node(ev, module, name):
    b = ev.namespace(module).bindings.get(name)
    return b.node if b is not None and b.kind == "class" else None


# ---------------------------------------------------------------------------------------------
# environment variables
# ---------------------------------------------------------------------------------------------

def extract_envs(ev) -> dict:
    """``Envs`` class attributes (type from ``EnvBool`` / ``EnvInt`` ..., default, deprecated
    aliases), the deprecation registries and helpers, the ``SGL_*`` prefix rule, and every
    ``SGLANG_*`` / ``SGL_*`` variable read directly under ``sglang/``."""
    tree = ev.tree
    out, deprecated = {}, {}
    envmod = "sglang.srt.environ"
    if tree.has(envmod):
        envs_cls = _class_node(ev, envmod, "Envs")
        if envs_cls is not None:
            for st in envs_cls.body:
                if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                        and isinstance(st.value, ast.Call)):
                    continue
                name = st.targets[0].id
                cls_name = (dotted(st.value.func) or "").split(".")[-1]
                tp = None
                for k, v in ENV_CLASS_TYPES.items():
                    if cls_name.startswith(k):
                        tp = v
                if tp is None:
                    node = _class_node(ev, envmod, cls_name)
                    if node is not None:
                        for b in node.bases:
                            bn = (dotted(b) or "").split(".")[-1]
                            if bn in ENV_CLASS_TYPES:
                                tp = ENV_CLASS_TYPES[bn]
                if tp is None:
                    continue
                rec = {"type": tp, "default": None, "source": line_of(ev, envmod, st), "kind": cls_name}
                if st.value.args:
                    dv = _value(ev, st.value.args[0], envmod)
                    if isinstance(dv, (Unknown, FunctionRef, External, ClassRef, Partial)):
                        rec["default_dynamic"] = True
                    else:
                        rec["default"] = plain(dv)
                for kw in st.value.keywords:
                    if kw.arg == "default":
                        dv = _value(ev, kw.value, envmod)
                        rec["default"] = plain(dv) if not isinstance(dv, Unknown) else None
                    if kw.arg in ("deprecated_name", "alias", "aliases"):
                        dn = _value(ev, kw.value, envmod)
                        if isinstance(dn, str):
                            rec["deprecated_alias"] = [dn]
                        elif isinstance(dn, (list, tuple)):
                            rec["deprecated_alias"] = [x for x in dn if isinstance(x, str)]
                out[name] = rec
        for name, rec in list(out.items()):
            for dn in rec.get("deprecated_alias", []):
                deprecated.setdefault(dn, {"replacement": name, "source": rec["source"]})
        _deprecated_registry(ev, envmod, deprecated)
        envtree = tree.parse(envmod)
        for sub in ast.walk(envtree):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
                fn = sub.func.id
                if fn not in ("_print_deprecated_env", "_warn_deprecated_env_to_cli_flag"):
                    continue
                args = [_value(ev, a, envmod) for a in sub.args]
                if fn == "_print_deprecated_env" and args and isinstance(args[0], str):
                    deprecated[args[0]] = {"replacement": args[1] if len(args) > 1 and isinstance(args[1], str) else None,
                                           "source": line_of(ev, envmod, sub)}
                elif fn == "_warn_deprecated_env_to_cli_flag" and args and isinstance(args[0], str):
                    flag = None
                    if len(args) > 1 and isinstance(args[1], str):
                        m = re.search(r"(--[a-z0-9][a-z0-9\-]*)", args[1])
                        flag = m.group(1) if m else None
                    deprecated[args[0]] = {"replacement_flag": flag, "source": line_of(ev, envmod, sub)}
        if re.search(r"startswith\(\s*[\"']SGL_[\"']\s*\)", tree.module_text(envmod)):
            out["SGL_*"] = {"type": None, "default": None, "source": tree.relpath(envmod), "kind": "prefix rule",
                            "deprecated": {"replacement": "SGLANG_*"}}
    for name, rec in scan_env_reads(tree).items():
        if name not in out:
            out[name] = rec
        else:
            out[name].setdefault("also_read_directly", rec["source"])
    for name, d in deprecated.items():
        e = out.setdefault(name, {"type": None, "default": None, "source": d["source"], "kind": "deprecated"})
        e["deprecated"] = {k: v for k, v in d.items() if k != "source" and v is not None} or True
        e["deprecated_source"] = d["source"]
    return {k: out[k] for k in sorted(out)}


def _deprecated_registry(ev, envmod, deprecated):
    """0.5.2x: ``_DEPRECATED_ENVS = {"OLD": _DeprecatedEnv(replacement=.., note=..)}``."""
    reg = untaint(ev.global_value(envmod, "_DEPRECATED_ENVS"))[0]
    b = ev.namespace(envmod).bindings.get("_DEPRECATED_ENVS")
    if not isinstance(reg, dict) or b is None:
        return
    for k, v in reg.items():
        if not isinstance(k, str):
            continue
        d = {"source": line_of(ev, envmod, b.node)}
        v = untaint(v)[0]
        call = v.node if isinstance(v, (Instance, Partial)) else None
        if isinstance(call, ast.Call):
            for kw in call.keywords:
                val = _value(ev, kw.value, envmod)
                if kw.arg == "replacement" and isinstance(val, str):
                    d["replacement"] = val
                elif kw.arg == "note" and isinstance(val, str):
                    m = re.search(r"(--[a-z0-9][a-z0-9\-]*)", val)
                    if m:
                        d["replacement_flag"] = m.group(1)
                elif kw.arg == "transform":
                    d["value_transformed"] = True
            for a in call.args[:1]:
                val = _value(ev, a, envmod)
                if isinstance(val, str):
                    d["replacement"] = val
        deprecated[k] = d


def scan_env_reads(tree) -> dict:
    """``SGLANG_*`` / ``SGL_*`` variables read directly (``get_*_env_var``, ``os.getenv``,
    ``os.environ.get`` / ``[..]`` / ``in``) anywhere under ``sglang/`` (tests left out)."""
    out = {}
    for rel in tree.files("sglang"):
        folder = rel.rsplit("/", 1)[0]
        if folder.startswith("sglang/test") or "/test" in folder:
            continue
        text = tree.text(rel)
        if not text or not _ENV_LITERAL_RE.search(text):
            continue
        t = tree.parse_file(rel)
        if t is None:
            continue
        for sub in ast.walk(t):
            name = tp = default = None
            if isinstance(sub, ast.Call):
                fname = dotted(sub.func) or ""
                last = fname.split(".")[-1]
                if sub.args and isinstance(sub.args[0], ast.Constant) and isinstance(sub.args[0].value, str):
                    if last in _ENV_FUNCS:
                        name, tp = sub.args[0].value, _ENV_FUNCS[last]
                    elif fname in ("os.getenv", "getenv", "os.environ.get", "environ.get"):
                        name, tp = sub.args[0].value, "str"
                    if name and len(sub.args) > 1:
                        try:
                            default = ast.literal_eval(sub.args[1])
                        except (ValueError, SyntaxError, TypeError):
                            default = None
                    if name and tp == "bool" and len(sub.args) == 1:
                        default = "false"
            elif isinstance(sub, ast.Subscript) and (dotted(sub.value) or "") in ("os.environ", "environ"):
                if isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, str) and isinstance(sub.ctx, ast.Load):
                    name, tp = sub.slice.value, "str"
            elif isinstance(sub, ast.Compare) and len(sub.ops) == 1 and isinstance(sub.ops[0], (ast.In, ast.NotIn)):
                if (dotted(sub.comparators[0]) or "") in ("os.environ", "environ") and isinstance(sub.left, ast.Constant) \
                        and isinstance(sub.left.value, str):
                    name, tp = sub.left.value, "presence"
            if name and _ENV_NAME_RE.match(name) and name not in out:
                out[name] = {"type": tp, "default": default, "source": f"{rel}:{sub.lineno}", "kind": "direct read"}
    return out


# ---------------------------------------------------------------------------------------------
# parser registries
# ---------------------------------------------------------------------------------------------

def _class_attr_keys(ev, modules, clsname, attr):
    for mn in modules:
        if not ev.tree.has(mn):
            continue
        c = untaint(ev.global_value(mn, clsname))[0]
        if isinstance(c, ClassRef):
            st = ev.own_bindings(c).get(attr)
            if not isinstance(st, (ast.Assign, ast.AnnAssign)) or st.value is None:
                continue
            v = _value(ev, st.value, c.module)
            where = line_of(ev, c.module, st.value)
            if isinstance(v, dict):
                return [plain(k) for k in v.keys()], where
            it = ev.iterate(v)
            if it is not None:
                return [plain(k) for k in it], where
            return None, where
    return None, None


def _names_list(ev, module, sym):
    if not ev.tree.has(module):
        return None
    it = ev.iterate(ev.global_value(module, sym))
    return [plain(x) for x in it] if it is not None else None


def extract_parsers(ev) -> dict:
    """Reasoning parsers (keys of ``ReasoningParser.DetectorMap``) and tool-call parsers (keys of
    ``FunctionCallParser.ToolCallParserEnum``), cross-checked with the names modules of 0.5.21+."""
    out = {"sources": {}}
    for kind, modules, cls, attr, names_module, names_sym in (
            ("reasoning", ["sglang.srt.parser.reasoning_parser", "sglang.srt.reasoning_parser"], "ReasoningParser",
             "DetectorMap", "sglang.srt.parser.reasoning_parser_names", "REASONING_PARSER_NAMES"),
            ("tool", ["sglang.srt.function_call.function_call_parser", "sglang.srt.function_call_parser"],
             "FunctionCallParser", "ToolCallParserEnum", "sglang.srt.function_call.parser_names", "TOOL_CALL_PARSER_NAMES")):
        keys, where = _class_attr_keys(ev, modules, cls, attr)
        names = _names_list(ev, names_module, names_sym)
        names_where = f"{ev.tree.relpath(names_module)} {names_sym}" if names is not None else None
        out[kind] = keys if keys is not None else names
        out["sources"][kind] = where or names_where
        if names is not None and keys is not None and set(names) != set(keys):
            out[f"{kind}_names_list"] = names
            out["sources"][f"{kind}_names_list"] = names_where
    out["sources"] = {k: out["sources"][k] for k in ("reasoning", "tool", "reasoning_names_list", "tool_names_list")
                      if k in out["sources"]}
    order = ["reasoning", "tool", "sources", "reasoning_names_list", "tool_names_list"]
    return {k: out[k] for k in order if k in out}


# ---------------------------------------------------------------------------------------------
# value checks
# ---------------------------------------------------------------------------------------------

_PURE_CALLS = {"len", "isinstance", "int", "float", "str", "any", "all", "min", "max", "bool", "set", "list", "sorted", "abs"}
_GPU_HINT = re.compile(r"cuda|gpu|device_capability|is_sm|is_hip|is_npu|is_cpu|is_xpu|torch|get_device|_is_|platform|"
                       r"envs\.|get_bool_env|os\.environ|model_config|hf_config|get_config|memory", re.I)
_VIEW_FUNCS = re.compile(r"(^|_)(resolved|resolving)(_view)?$|^_resolved$|view_of$|^resolved_view$|^resolving_view$")


def _is_view_call(node, selfnames):
    """``self._resolved()`` / ``resolved_view(self)`` / ``resolving_view(server_args)``: a
    read-only view of the same arguments; attributes on it are field reads."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if not _VIEW_FUNCS.search((dotted(f) or "").split(".")[-1]):
        return False
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in selfnames:
        return True
    return any(isinstance(a, ast.Name) and a.id in selfnames for a in node.args)


class _PureCheck(ast.NodeVisitor):
    """Is an expression a function of argument fields (self.x, server_args.x, view.x) and
    constants only?"""

    def __init__(self, selfnames, fieldnames, consts):
        self.selfnames, self.fields, self.consts = selfnames, fieldnames, consts
        self.ok, self.used = True, []

    def visit_Attribute(self, node):
        base = node.value
        if (isinstance(base, ast.Name) and base.id in self.selfnames) or _is_view_call(base, self.selfnames):
            if node.attr in self.fields:
                self.used.append(node.attr)
            else:
                self.ok = False
            return
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.consts or node.id in ("None", "True", "False"):
            return
        self.ok = False

    def visit_Call(self, node):
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id in _PURE_CALLS:
            for a in node.args:
                self.visit(a)
            return
        if isinstance(fn, ast.Attribute) and fn.attr in ("startswith", "endswith", "lower", "upper", "split", "keys",
                                                          "values", "strip"):
            self.visit(fn.value)
            for a in node.args:
                self.visit(a)
            return
        self.ok = False

    def visit_Lambda(self, node):
        self.ok = False

    def generic_visit(self, node):
        if isinstance(node, (ast.NamedExpr, ast.Await, ast.Yield, ast.Subscript)):
            self.ok = False
            return
        super().generic_visit(node)


def _field_to_flag(name, flagmap):
    return flagmap.get(name, "--" + name.replace("_", "-"))


def _self_to_flags(expr, selfnames, dest_to_flag):
    if isinstance(selfnames, str):
        selfnames = {selfnames}
    alt = "|".join(sorted((re.escape(n) for n in selfnames), key=len, reverse=True))
    rep = lambda m: _field_to_flag(m.group(2), dest_to_flag)  # noqa: E731
    expr = re.sub(r"\b(" + alt + r")\._?resolv\w*\(\)\.([A-Za-z_][A-Za-z0-9_]*)", rep, expr)
    expr = re.sub(r"\b\w*resolv\w*\((?:" + alt + r")\)\.([A-Za-z_][A-Za-z0-9_]*)",
                  lambda m: _field_to_flag(m.group(1), dest_to_flag), expr)
    return re.sub(r"\b(" + alt + r")\.([A-Za-z_][A-Za-z0-9_]*)", rep, expr)


def extract_checks(ev, field_names, dest_to_flag, funcs) -> list:
    """Asserts and raises that depend only on argument values (no GPU, model config or env).

    ``funcs``: (module, FunctionDef, name of the argument record). A check inside a helper is
    reported with the condition under which the caller invokes it (one level:
    ``if cond: self._helper()``)."""
    checks, seen, by_name = [], set(), {}
    for mod, fdef, _ in funcs:
        by_name.setdefault(fdef.name, []).append((mod, fdef))

    def make_pure(mod, selfnames):
        consts = set(ev.namespace(mod).bindings)

        def pure(expr):
            pc = _PureCheck(selfnames, field_names, consts)
            pc.visit(expr)
            return pc.ok and bool(pc.used), pc.used
        return pure

    def collect_aliases(fdef, selfname):
        names = {selfname}
        for st in ast.walk(fdef):
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                if _is_view_call(st.value, names) or (isinstance(st.value, ast.Name) and st.value.id in names):
                    names.add(st.targets[0].id)
        return names

    guards = {}
    for mod, fdef, selfname in funcs:
        selfnames = collect_aliases(fdef, selfname)
        pure = make_pure(mod, selfnames)

        def gwalk(body, conds, mod=mod, selfnames=selfnames, pure=pure):
            for st in body:
                if isinstance(st, ast.If):
                    ok, used = pure(st.test)
                    gwalk(st.body, conds + [(st.test, ok, used, False)])
                    gwalk(st.orelse, conds + [(st.test, ok, used, True)])
                elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and conds:
                    f = st.value.func
                    callee = None
                    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in selfnames:
                        callee = f.attr
                    elif isinstance(f, ast.Name) and st.value.args and isinstance(st.value.args[0], ast.Name) \
                            and st.value.args[0].id in selfnames:
                        callee = f.id
                    if callee and callee in by_name and all(ok for _, ok, _, _ in conds):
                        guards.setdefault(callee, []).append((conds, selfnames, line_of(ev, mod, st)))
        gwalk(fdef.body, [])

    def cond_text(conds):
        parts, used = [], []
        for t, _ok, u, negated in conds:
            used += u
            txt = ast.unparse(t)
            parts.append(("not (" + txt + ")") if negated else txt)
        return parts, used

    for mod, fdef, selfname in funcs:
        selfnames = collect_aliases(fdef, selfname)
        pure = make_pure(mod, selfnames)
        g = guards.get(fdef.name)
        guard_parts, guard_used, guard_src = [], [], None
        selfnames_for_text = selfnames
        if g and len(g) == 1:
            gconds, gself, guard_src = g[0]
            guard_parts, guard_used = cond_text(gconds)
            selfnames_for_text = selfnames | gself

        def emit(st, test, conds, kind, mod=mod, fdef=fdef, pure=pure, guard_parts=guard_parts,
                 guard_used=guard_used, guard_src=guard_src, selfnames_for_text=selfnames_for_text):
            if any(not ok for _, ok, _, _ in conds):
                return
            parts, used = cond_text(conds)
            parts, used = guard_parts + parts, guard_used + used
            if kind == "assert":
                ok, u = pure(test)
                if not ok:
                    return
                used += u
                requires = ast.unparse(test)
            else:
                if not conds:
                    return
                requires = None
                exc = st.exc
                en = dotted(exc.func) if isinstance(exc, ast.Call) else dotted(exc)
                if en and en.split(".")[-1] not in ("ValueError", "AssertionError", "RuntimeError", "TypeError", "Exception"):
                    return
            when = " and ".join(parts) if parts else None
            if _GPU_HINT.search((when or "") + "|" + (requires or "")):
                return
            key = (mod, st.lineno)
            if key in seen:
                return
            seen.add(key)
            c = {"source": line_of(ev, mod, st), "function": fdef.name, "kind": kind}
            if kind == "assert":
                c["when"] = _self_to_flags(when, selfnames_for_text, dest_to_flag) if when else None
                c["requires"] = _self_to_flags(requires, selfnames_for_text, dest_to_flag)
            else:
                c["refuses"] = _self_to_flags(when, selfnames_for_text, dest_to_flag)
            c["flags"] = [_field_to_flag(u, dest_to_flag) for u in dict.fromkeys(used)]
            if guard_src and guard_parts:
                c["guard_source"] = guard_src
            checks.append(c)

        def walk(body, conds, pure=pure, emit=emit):
            for st in body:
                if isinstance(st, ast.If):
                    ok, used = pure(st.test)
                    walk(st.body, conds + [(st.test, ok, used, False)])
                    walk(st.orelse, conds + [(st.test, ok, used, True)])
                elif isinstance(st, ast.Assert):
                    emit(st, st.test, conds, "assert")
                elif isinstance(st, ast.Raise):
                    emit(st, None, conds, "raise")
                elif isinstance(st, (ast.With, ast.Try)):
                    walk(st.body, conds)
        walk(fdef.body, [])
    checks.sort(key=lambda c: (c["source"].split(":")[0], int(c["source"].split(":")[1])))
    return checks


def exclusive_from_checks(checks) -> list:
    """Pairs of flags refused together: ``if a and b: raise`` or ``assert not (a and b)``."""
    pairs = []
    for c in checks:
        expr = c.get("refuses") or None
        if expr is None and c.get("requires", "") and c["requires"].startswith("not ("):
            expr = c["requires"][5:-1]
        if not expr:
            continue
        flags = []
        for p in (p.strip() for p in expr.split(" and ")):
            m = re.fullmatch(r"(--[a-z0-9\-]+)(?: is not None)?", p)
            if not m:
                flags = None
                break
            flags.append(m.group(1))
        if flags and len(flags) == 2:
            pairs.append({"flags": flags, "source": c["source"]})
    return pairs


# ---------------------------------------------------------------------------------------------
# deprecations and the speculative algorithm names
# ---------------------------------------------------------------------------------------------

_WARN_CALLS = ("print_deprecated_warning", "warning", "warn", "warning_once", "info", "_print_deprecated_env")
_REMOVED_RE = re.compile(r"\b(has been|was|is|are|been) removed\b|\bno longer (supported|accepted|exists)\b", re.I)


def extract_deprecation_notices(ev, funcs, field_names) -> dict:
    """``if self.<field>: ... warn("... deprecated ...")`` / ``raise ...("... removed ...")`` in the
    argument-handling code: field -> {message, source, kind}."""
    notices = {}
    for mod, fdef, selfname in funcs:
        for sub in ast.walk(fdef):
            if not isinstance(sub, ast.If):
                continue
            t = sub.test
            field = None
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == selfname:
                field = t.attr
            elif isinstance(t, ast.Compare) and isinstance(t.left, ast.Attribute) and isinstance(t.left.value, ast.Name) \
                    and t.left.value.id == selfname and len(t.ops) == 1 and isinstance(t.ops[0], ast.IsNot):
                field = t.left.attr
            if field is None or field not in field_names:
                continue
            for st in sub.body:
                call = kind = None
                if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                    if (dotted(st.value.func) or "").split(".")[-1] in _WARN_CALLS:
                        call, kind = st.value, "warns"
                elif isinstance(st, ast.Raise) and isinstance(st.exc, ast.Call):
                    call, kind = st.exc, "raises"
                if call is None or not call.args:
                    continue
                v = _value(ev, call.args[0], mod)
                if not isinstance(v, str):
                    continue
                if kind == "warns" and not re.search(r"deprecat", v, re.I):
                    continue
                if kind == "raises" and not (re.search(r"deprecat", v, re.I) or _REMOVED_RE.search(v)):
                    continue
                notices.setdefault(field, {"message": short(v, 220), "source": line_of(ev, mod, st), "kind": kind})
                break
    return notices


def extract_removed(flags, notices, dest_to_flag) -> dict:
    """Flags the release reports itself as removed: a registered flag whose handler raises with a
    'deprecated' / 'removed' message (accepted by argparse, refused at start-up)."""
    removed = {}
    for field, n in notices.items():
        if n["kind"] != "raises":
            continue
        flag = dest_to_flag.get(field, "--" + field.replace("_", "-"))
        removed[flag] = {"message": n["message"], "source": n["source"], "registered": flag in flags}
    return removed


def apply_notices(flags, notices, dest_to_flag):
    """Mark the flags the deprecation notices name."""
    for field, n in notices.items():
        flag = dest_to_flag.get(field)
        if flag is None:
            flag = next((k for k, r in flags.items() if (r.get("dest") or k.lstrip("-").replace("-", "_")) == field), None)
        if flag in flags:
            r = flags[flag]
            r["deprecation_notice"] = {"message": n["message"], "source": n["source"], "kind": n["kind"]}
            if not r.get("deprecated"):
                r["deprecated"] = n["message"]
            m = REPLACE_RE.search(n["message"])
            if m and "replacement" not in r:
                r["replacement"] = m.group(1).rstrip(".,;)`'")


def speculative_algorithm_names(ev):
    """``--speculative-algorithm`` without argparse choices: the value is checked later by
    ``SpeculativeAlgorithm.from_string`` (member names, upper-cased, plus reserved aliases)."""
    mod = "sglang.srt.speculative.spec_info"
    if not ev.tree.has(mod):
        return None
    node = _class_node(ev, mod, "SpeculativeAlgorithm")
    if node is None:
        return None
    cls = ClassRef(mod, node)
    names = [m.name for m in ev.enum_members(cls)]
    srcs = [line_of(ev, mod, node)]
    for fn in node.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == "from_string":
            for sub in ast.walk(fn):
                if isinstance(sub, ast.Dict):
                    for k in sub.keys:
                        if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.upper() not in names:
                            names.append(k.value.upper())
    it = ev.iterate(ev.global_value(mod, "_RESERVED_ALIASES"))
    if it is not None:
        names += [x for x in (untaint(y)[0] for y in it) if isinstance(x, str) and x not in names]
        srcs.append("_RESERVED_ALIASES")
    return {"values": names, "source": ", ".join(srcs), "case_insensitive": True}
