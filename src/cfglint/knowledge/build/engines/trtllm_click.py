"""``trtllm-serve``'s click commands, read statically from ``tensorrt_llm/commands/serve.py``:
each command's ``@click.option`` / ``@click.argument`` decorators (also those applied by a
decorator helper of the same module) with their option strings, types, ``click.Choice``
values, defaults, flags and deprecations, and the group that dispatches the sub-commands.

Keyword values are evaluated with the shared static evaluator (a choice list built at import
time from a registry, a default read from a pydantic model's ``model_fields``); what a command's
body does with a parameter (``json.loads`` of it, a deprecation warning, a refusal of two
parameters together, a removal message) is read from its syntax.
"""

from __future__ import annotations

import ast
import re

from .static.astutil import dotted, keyword, literal, short, strings_in, unparse
from .static.evaluator import Frame
from .static.values import EnumMember, untaint

__all__ = ["extract_commands", "plain", "is_literal"]

_NO = object()


def plain(v, default=_NO):
    """A JSON-able value, else ``default`` (``_NO``: not known)."""
    v = untaint(v)[0]
    if isinstance(v, EnumMember):
        return plain(v.value, default)
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        out = [plain(x, _NO) for x in v]
        return default if any(x is _NO for x in out) else out
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            px = plain(x, _NO)
            if not isinstance(k, str) or px is _NO:
                return default
            out[k] = px
        return out
    return default


def _value(ev, module, node):
    return ev.eval(node, Frame(module)) if node is not None else None


def is_literal(node) -> bool:
    """Whether ``node`` is a literal expression (:func:`ast.literal_eval` accepts it)."""
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return False


def _choice_info(ev, module, tnode):
    """(type, choices, choices expression, choice aliases) of a click ``type=``."""
    if tnode is None:
        return None, None, None, None
    if isinstance(tnode, ast.Name):
        return {"str": "str", "int": "int", "float": "float", "bool": "bool"}.get(tnode.id, tnode.id), None, None, None
    dn = dotted(tnode)
    if dn:
        base = dn.split(".")[-1]
        return {"STRING": "str", "INT": "int", "FLOAT": "float", "BOOL": "bool", "UUID": "str"}.get(base, base), None, None, None
    if isinstance(tnode, ast.Call):
        fn = (dotted(tnode.func) or "").split(".")[-1]
        if fn in ("Choice", "ChoiceWithAlias") or fn.endswith("Choice"):
            arg = tnode.args[0] if tnode.args else keyword(tnode, "choices")
            aliases = None
            if fn == "ChoiceWithAlias":
                an = tnode.args[1] if len(tnode.args) > 1 else keyword(tnode, "aliases")
                av = plain(_value(ev, module, an), None) if an is not None else None
                aliases = av if isinstance(av, dict) else None
            if arg is not None and is_literal(arg):
                choices = list(literal(arg) or [])
                if aliases:
                    choices += [a for a in aliases if a not in choices]
                return "str", choices, None, aliases
            resolved = None
            if arg is not None:
                it = ev.iterate(_value(ev, module, arg))
                vals = [plain(x, _NO) for x in it] if it is not None else None
                resolved = vals if vals is not None and _NO not in vals else None
            return "str", resolved, unparse(arg), aliases
        if fn in ("Path", "File"):
            return "path" if fn == "Path" else "file", None, None, None
        if fn == "IntRange":
            return "int", None, None, None
        if fn == "FloatRange":
            return "float", None, None, None
        return fn, None, None, None
    return unparse(tnode), None, None, None


def _collect_option_calls(fn_node, module_funcs, depth=0):
    """click.option / click.argument decorators of a command function, including those a
    decorator helper defined in the same module applies."""
    opts = []
    for d in fn_node.decorator_list:
        target = None
        if isinstance(d, ast.Call):
            dn = dotted(d.func) or ""
            last = dn.split(".")[-1]
            if last in ("option", "argument", "Option", "Argument") and (dn.startswith("click") or dn == last):
                opts.append(d)
                continue
            target = module_funcs.get(last) if depth < 3 else None
        elif isinstance(d, ast.Name):
            target = module_funcs.get(d.id) if depth < 3 else None
        if target is not None:
            opts += [n for n in ast.walk(target) if isinstance(n, ast.Call)
                     and (dotted(n.func) or "") in ("click.option", "click.argument")]
    return opts


def _param_uses(fn_node):
    """What the command's body does with its parameters: JSON-parsed ones, deprecation
    messages, parameter pairs refused together, removal messages."""
    json_params, deprecated, exclusive, removed = set(), {}, [], {}
    params = {a.arg for a in fn_node.args.args + fn_node.args.kwonlyargs}
    for n in ast.walk(fn_node):
        if isinstance(n, ast.Call):
            dn = dotted(n.func) or ""
            if dn in ("json.loads", "yaml.safe_load", "ast.literal_eval") and n.args and isinstance(n.args[0], ast.Name) \
                    and n.args[0].id in params:
                json_params.add(n.args[0].id)
        if isinstance(n, ast.If):
            test_names = {x.id for x in ast.walk(n.test) if isinstance(x, ast.Name) and x.id in params}
            body_str = " ".join(s for st in n.body for s in strings_in(st))
            raises = any(isinstance(x, ast.Raise) for st in n.body for x in ast.walk(st))
            low = body_str.lower()
            if test_names and "deprecat" in low:
                for p in test_names:
                    deprecated.setdefault(p, short(body_str))
            if isinstance(n.test, ast.BoolOp) and isinstance(n.test.op, ast.And) and raises:
                names = []
                for v in n.test.values:
                    nm = [x.id for x in ast.walk(v) if isinstance(x, ast.Name) and x.id in params]
                    if nm:
                        names.append(nm[0])
                if len(names) >= 2 and ("both" in low or "cannot" in low or "exclusive" in low or "together" in low):
                    exclusive.append(names[:2])
            if test_names and raises and ("removed" in low or "no longer supported" in low):
                for p in test_names:
                    removed.setdefault(p, short(body_str))
    return json_params, deprecated, exclusive, removed


def _known(ev, module, node):
    """(True, value) when ``node`` evaluates to plain data, else (False, None)."""
    v = plain(_value(ev, module, node), _NO)
    return (False, None) if v is _NO else (True, v)


def _click_command(ev, module, fn_node, module_funcs):
    opts = _collect_option_calls(fn_node, module_funcs)
    json_params, dep_body, excl, removed = _param_uses(fn_node)
    flags, positionals, dest_to_flag = {}, [], {}
    for call in opts:
        kind = (dotted(call.func) or "").split(".")[-1].lower()
        strs = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if kind == "argument":
            req = keyword(call, "required")
            positionals.append({"name": strs[0] if strs else None,
                                "type": _choice_info(ev, module, keyword(call, "type"))[0] or "str",
                                "required": req is None or literal(req) is not False,
                                "nargs": literal(keyword(call, "nargs"))})
            continue
        decls = [s for s in strs if s.startswith("-") or "/" in s]
        dest = next((s for s in reversed(strs) if not s.startswith("-") and "/" not in s), None)
        primary_list, negation = [], []
        for s in decls:
            if "/" in s:
                on, off = [x.strip() for x in s.split("/", 1)]
                primary_list.extend(x for x in on.split(";") if x)
                if off:
                    negation.append(off)
            else:
                primary_list.append(s)
        long_opts = [s for s in primary_list if s.startswith("--")]
        primary = long_opts[0] if long_opts else (primary_list[0] if primary_list else None)
        if primary is None:
            continue
        aliases = [s for s in primary_list if s != primary]
        if dest is None:
            dest = primary.lstrip("-").replace("-", "_")
        is_flag_node = keyword(call, "is_flag")
        is_flag = bool(literal(is_flag_node)) if is_flag_node is not None else bool(negation)
        typ, choices, choices_src, choice_aliases = _choice_info(ev, module, keyword(call, "type"))
        if is_flag:
            typ = "bool"
        multiple = bool(literal(keyword(call, "multiple"))) if keyword(call, "multiple") is not None else False
        nargs = literal(keyword(call, "nargs"))
        dnode = keyword(call, "default")
        if typ is None:
            ok, dv = _known(ev, module, dnode) if dnode is not None else (False, None)
            typ = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(dv), "str") if ok and dv is not None else "str"
        item_type = None
        if multiple or (isinstance(nargs, int) and nargs not in (1, None)) or nargs == -1:
            item_type, typ = typ, "list"
        if dest in json_params and typ == "str":
            typ = "json"
        default, default_expr = None, None
        if dnode is not None:
            if is_literal(dnode):
                default = literal(dnode)
            else:
                default_expr = unparse(dnode)
                ok, dv = _known(ev, module, dnode)
                if ok:
                    default = dv
        elif is_flag:
            default = False
        env = []
        evn = keyword(call, "envvar")
        if evn is not None:
            ok, v = _known(ev, module, evn)
            if ok:
                env = [v] if isinstance(v, str) else list(v or [])
        hidden = bool(literal(keyword(call, "hidden"))) if keyword(call, "hidden") is not None else False
        deprecated = None
        dk = keyword(call, "deprecated")
        if dk is not None:
            ok, v = _known(ev, module, dk)
            if ok and v:
                deprecated = short(v) if isinstance(v, str) else "deprecated"
        if deprecated is None and dest in dep_body:
            deprecated = dep_body[dest]
        if deprecated is None:
            hnode = keyword(call, "help")
            helps = " ".join(strings_in(hnode))
            if re.search(r"\bdeprecated\b", helps, re.I) or re.search(r"['\"]deprecated['\"]", unparse(hnode) or ""):
                deprecated = "marked deprecated in help"
        entry = {"aliases": aliases, "negation": negation, "type": typ, "choices": choices, "default": default,
                 "nargs": nargs, "deprecated": deprecated, "env": env, "hidden": hidden, "dest": dest,
                 "is_flag": is_flag, "multiple": multiple, "line": call.lineno}
        if item_type:
            entry["item_type"] = item_type
        if choices_src:
            entry["choices_expr"] = choices_src
        if choice_aliases:
            entry["choice_aliases"] = choice_aliases
        if default_expr:
            entry["default_expr"] = default_expr
        if keyword(call, "required") is not None and literal(keyword(call, "required")) is True:
            entry["required"] = True
        flags[primary] = entry
        dest_to_flag[dest] = primary
    return {"flags": flags, "positionals": positionals,
            "exclusive": [[dest_to_flag.get(a, a), dest_to_flag.get(b, b)] for a, b in excl],
            "removed": {dest_to_flag.get(k, k): v for k, v in removed.items()}}


def _command_name(fn_node):
    for d in fn_node.decorator_list:
        if isinstance(d, ast.Call):
            dn = dotted(d.func) or ""
            if dn.endswith(".command") or dn == "command" or dn.endswith(".group"):
                if d.args and isinstance(d.args[0], ast.Constant):
                    return d.args[0].value
                nm = keyword(d, "name")
                if isinstance(nm, ast.Constant):
                    return nm.value
                return fn_node.name.replace("_", "-")
        elif isinstance(d, ast.Attribute) and d.attr in ("command", "group"):
            return fn_node.name.replace("_", "-")
    return None


def _group_commands(tree, cmd_by_func):
    """{sub-command: function} from ``main = Group(commands={...})`` / ``main.add_command(f,
    'name')``, and the default command a ``Group.resolve_command`` falls back to."""
    out, default = {}, None
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            cm = keyword(n, "commands")
            if isinstance(cm, ast.Dict):
                for k, v in zip(cm.keys, cm.values):
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Name):
                        out[k.value] = v.id
            dn = dotted(n.func) or ""
            if dn.endswith(".add_command") and n.args and isinstance(n.args[0], ast.Name):
                name = None
                if len(n.args) > 1 and isinstance(n.args[1], ast.Constant):
                    name = n.args[1].value
                elif isinstance(keyword(n, "name"), ast.Constant):
                    name = keyword(n, "name").value
                fname = n.args[0].id
                out[name or cmd_by_func.get(fname, fname)] = fname
        if isinstance(n, ast.ClassDef) and any((dotted(b) or "").endswith("Group") for b in n.bases):
            for st in ast.walk(n):
                if isinstance(st, ast.Return) and isinstance(st.value, ast.Tuple) and st.value.elts:
                    e0 = st.value.elts[0]
                    if isinstance(e0, ast.Constant) and isinstance(e0.value, str):
                        default = e0.value
    return out, default


def extract_commands(ev, module: str):
    """{"commands": {name: {flags, positionals, exclusive, removed, function}}, "group": {...},
    "default_command": ...} of the click module ``module``; None when absent."""
    tree = ev.tree.parse(module)
    if tree is None:
        return None
    module_funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    cmds, cmd_by_func = {}, {}
    for n in tree.body:
        if isinstance(n, ast.FunctionDef):
            name = _command_name(n)
            if name:
                cmd_by_func[n.name] = name
                cmds[name] = _click_command(ev, module, n, module_funcs)
                cmds[name]["function"] = n.name
    group, default = _group_commands(tree, cmd_by_func)
    return {"commands": cmds, "group": group, "default_command": default}

