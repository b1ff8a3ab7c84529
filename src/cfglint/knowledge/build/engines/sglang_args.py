"""SGLang's CLI arguments: the interpreter as ``ServerArgs.add_cli_args`` / ``RouterArgs.add_cli_args``
need it, the dataclass-generated arguments (``add_cli_args_from_dataclass``, 0.5.14+), and the
flag record each argparse argument gives.

``add_cli_args_from_dataclass(parser, cls)`` turns fields annotated ``A[T, "help"]`` /
``A[T, Arg(...)]`` into arguments: ``Optional`` unwrapped, ``Literal`` gives choices, ``List[X]``
``nargs="+"``, ``bool`` ``store_true``, an ``Arg(type_parser=..)`` wins, a field without default
is required. :class:`DataclassCli` applies those rules statically to the release's fields.
"""

from __future__ import annotations

import ast
import re

from .static.argparse_model import Action, ArgParser
from .static.astutil import dotted, short, unparse
from .static.evaluator import SUPPRESS, Frame
from .static.interpreter import Interpreter
from .static.typeforms import TAnnotated, TGeneric, TLiteral, TUnion, strip_annotated
from .static.values import MISSING, ClassRef, EnumMember, External, FunctionRef, Instance, Unknown, is_opaque, untaint

__all__ = ["SglangInterpreter", "DataclassCli", "collect_flags", "flag_record", "type_kind", "plain",
           "env_names_in", "REPLACE_RE"]

TYPE_FN_MAP = {
    "str": "str", "int": "int", "float": "float", "bool": "bool", "nullable_str": "str",
    "human_readable_int": "int", "loads": "json", "json_list_type": "json", "parse_cuda_graph_config_arg": "json",
    "str2bool": "bool_value", "parse_positive_int": "int", "parse_cuda_graph_backend_arg": "str",
}
_DEPRECATION_RE = re.compile(
    r"^\W*deprecat|\[deprecated\]|\(deprecated|deprecated alias|alias \(deprecated|"
    r"(?:^|[.!?]\s+)(?:this (?:flag|option|argument) is |note: )?deprecated\b|--[a-z0-9\-]+ is deprecated|"
    r"deprecated and will be removed|will be deprecated|deprecated in favou?r",
    re.I,
)
REPLACE_RE = re.compile(
    r"(?:use|Use|replaced by|alias for|Alias for|favou?r of|set|Set)\s+[`'\"]?(--[A-Za-z0-9][A-Za-z0-9_\-{},]*"
    r"(?:=[A-Za-z0-9_<>{},\-]+| <[A-Za-z\-]+>)?)"
)


def plain(v):
    """An evaluated value as JSON-able data (enum members by value; unknowns None)."""
    v = untaint(v)[0]
    if isinstance(v, EnumMember):
        return plain(v.value)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(plain(k)): plain(x) for k, x in v.items()}
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return None


class SglangInterpreter(Interpreter):
    """The evaluator for SGLang's argument code: f-string parts it cannot evaluate become
    ``{...}`` (help texts stay readable), ``ServerArgs.<field>`` gives the field default, and
    ``add_cli_args_from_dataclass`` is :class:`DataclassCli`."""

    fstring_hole = "{...}"

    def __init__(self, tree):
        super().__init__(tree)
        self.field_defaults: dict[int, dict] = {}      # id(class node) -> {field: default}
        self.dataclass_cli = None

    def class_attribute(self, cls, attr):
        d = self.field_defaults.get(id(cls.node))
        if d is not None and attr in d:
            return d[attr]
        return super().class_attribute(cls, attr)

    def hook_call(self, f, args, kwargs, frame, node):
        name = f.name if isinstance(f, (FunctionRef, External)) else ""
        if name.rsplit(".", 1)[-1] == "add_cli_args_from_dataclass":
            if self.dataclass_cli is not None and args and isinstance(untaint(args[0])[0], ArgParser):
                self.dataclass_cli.register_all(untaint(args[0])[0], kwargs)
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.endswith("declared_default") \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            for d in self.field_defaults.values():
                if node.args[0].value in d:
                    return d[node.args[0].value]
        return NotImplemented


# ---------------------------------------------------------------------------------------------
# dataclass fields -> arguments
# ---------------------------------------------------------------------------------------------

class DataclassCli:
    """``add_cli_args_from_dataclass`` of one release, over ``fields`` (``FieldDef`` list)."""

    def __init__(self, ev: SglangInterpreter, fields, server_args: ClassRef):
        self.ev, self.fields = ev, fields
        self.defaults = {f.name: self.field_default(f) for f in fields}
        ev.field_defaults[id(server_args.node)] = {k: v for k, v in self.defaults.items() if v is not _NO_DEFAULT}
        ev.dataclass_cli = self

    def field_default(self, f):
        if f.value is None:
            return _NO_DEFAULT
        v = self.ev.field_default(f.value, Frame(f.owner.module))
        return Unknown("field()") if v is MISSING else v

    def register_all(self, parser: ArgParser, kwargs):
        only = untaint(kwargs.get("fields"))[0]
        only = only if isinstance(only, (list, tuple)) else None
        for f in self.fields:
            if only is None or f.name in only:
                self.register(parser, f)

    def meta(self, f):
        """(inner type, Arg keyword values, their nodes) of a field's ``A[T, ...]`` annotation;
        None when the field has no CLI metadata."""
        t = untaint(self.ev.annotation(f.annotation, None, module=f.owner.module))[0]
        if not isinstance(t, TAnnotated):
            return None
        inner, metas = strip_annotated(t)
        ann = f.annotation
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            ann = ast.parse(ann.value, mode="eval").body
        for m in metas:
            m = untaint(m)[0]
            if isinstance(m, Instance) and m.cls.name == "Arg" and isinstance(m.node, ast.Call):
                meta, nodes = {}, {}
                frame = Frame(f.owner.module)
                for k in m.node.keywords:
                    if k.arg:
                        meta[k.arg] = self.ev.eval(k.value, frame)
                        nodes[k.arg] = k.value
                return inner, meta, nodes, ann
            if isinstance(m, str):
                return inner, {"help": m}, {"help": None}, ann
        return None

    def register(self, parser, f):
        got = self.meta(f)
        if got is None:
            return
        inner, meta, mnodes, _ = got
        meta = {k: untaint(v)[0] for k, v in meta.items()}
        if meta.get("no_cli") is True:
            return
        cli_name = meta.get("cli_name") if isinstance(meta.get("cli_name"), str) else "--" + f.name.replace("_", "-")
        aliases = meta.get("aliases") if isinstance(meta.get("aliases"), (list, tuple)) else []
        names = [cli_name] + list(aliases)
        default = self.defaults.get(f.name, _NO_DEFAULT)
        nodes = {}
        kw = {"help": meta.get("help", "")}
        if f.name != cli_name.lstrip("-").replace("-", "_"):
            kw["dest"] = f.name
        if default is not _NO_DEFAULT:
            kw["default"] = default
            nodes["default"] = f.value
        kw["_env"] = env_names_in(f.value) if f.value is not None else []

        def add():
            act = Action(names, kw, nodes, set(), self.ev.where(f.owner.module, f.node), False, None,
                         self.ev.call_stack(), raw=dict(kw))
            act.origin = "dataclass:" + f.owner.name
            parser.actions.append(act)

        if "action" in mnodes and meta.get("action") is not None:
            kw["action"] = meta["action"]
            nodes["action"] = mnodes["action"]
            ak = meta.get("action_kwargs")
            if isinstance(ak, dict):
                for k2, v2 in ak.items():
                    kw[k2] = untaint(v2)[0]
                    nodes[k2] = None
            add()
            return
        kind, payload = type_kind(self.ev, inner, f.owner.module)
        if kind == "optional":
            kind, payload = type_kind(self.ev, payload, f.owner.module)
        tp = meta.get("type_parser")
        has_tp = "type_parser" in mnodes and tp is not None
        if has_tp:
            kw["type"] = tp
            nodes["type"] = mnodes["type_parser"]

        def set_choices(val, node):
            kw["choices"] = val
            nodes["choices"] = node

        if kind == "literal":
            lits = payload or []
            if "choices" in mnodes and meta.get("choices"):
                set_choices(meta["choices"], mnodes["choices"])
            else:
                set_choices(list(lits), None)
            if not has_tp:
                t0 = type(plain(lits[0])).__name__ if lits else "str"
                kw["type"] = External("builtins." + (t0 if t0 in ("int", "float", "str") else "str"))
                nodes["type"] = None
            if meta.get("const") is not None:
                kw["const"] = meta["const"]
            add()
            return
        if kind == "list" and not has_tp:
            ek, _ = type_kind(self.ev, payload, f.owner.module) if payload is not None else ("str", None)
            kw["type"] = External("builtins." + _scalar_of(ek))
            nodes["type"] = None
            kw["nargs"] = meta.get("nargs") or "+"
            nodes["nargs"] = None
            if meta.get("choices"):
                set_choices(meta["choices"], mnodes.get("choices"))
            add()
            return
        if kind == "bool":
            kw["action"] = "store_true"
            nodes["action"] = None
            kw.pop("type", None)
            nodes.pop("type", None)
            add()
            return
        if not has_tp:
            kw["type"] = External("builtins." + _scalar_of(kind))
            nodes["type"] = None
        if meta.get("choices"):
            set_choices(meta["choices"], mnodes.get("choices"))
        if meta.get("nargs"):
            kw["nargs"] = meta["nargs"]
            nodes["nargs"] = None
        if meta.get("const") is not None:
            kw["const"] = meta["const"]
        req = meta.get("required")
        if req is True or (req is None and default is _NO_DEFAULT):
            kw["required"] = True
        add()


_NO_DEFAULT = Unknown("no default")


def type_kind(ev, t, module):
    """(kind, payload) of a typing value: ``optional`` (payload: the inner type), ``literal``
    (the values), ``list`` (the element type), ``union``, ``bool`` / ``int`` / ``float`` /
    ``str``, ``none`` or ``other``."""
    t = untaint(t)[0]
    if isinstance(t, str):
        t = untaint(ev.resolve_forward(t, module))[0]
    if t is None:
        return ("none", None)
    if isinstance(t, TAnnotated):
        return type_kind(ev, strip_annotated(t)[0], module)
    if isinstance(t, TUnion):
        non_none = [m for m in t.members if m is not None]
        if len(non_none) == 1 and len(t.members) > 1:
            return ("optional", non_none[0])
        return ("union", non_none)
    if isinstance(t, TLiteral):
        return ("literal", list(t.values))
    if isinstance(t, TGeneric):
        if t.origin == "list":
            return ("list", t.args[0] if t.args else None)
        return ("other", t.origin if isinstance(t.origin, str) else None)
    if isinstance(t, External):
        if t.name in ("builtins.bool", "builtins.int", "builtins.float", "builtins.str"):
            return (t.last, None)
        if t.name in ("builtins.list", "typing.List"):
            return ("list", None)
        return ("other", t.last)
    return ("other", None)


def _scalar_of(kind):
    return kind if kind in ("str", "int", "float") else "str"


def env_names_in(node):
    """Environment variables an argument default is read from: ``os.getenv("X")`` /
    ``os.environ.get("X")`` / ``os.environ["X"]`` / ``get_*_env_var("X")`` / ``envs.SGLANG_X``."""
    names = []
    if node is None:
        return names
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and sub.args and isinstance(sub.args[0], ast.Constant) and isinstance(sub.args[0].value, str):
            fn = dotted(sub.func) or ""
            if fn in ("os.getenv", "getenv", "os.environ.get", "environ.get") or fn.split(".")[-1].endswith("_env_var"):
                names.append(sub.args[0].value)
        elif isinstance(sub, ast.Subscript) and (dotted(sub.value) or "") in ("os.environ", "environ"):
            if isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, str):
                names.append(sub.slice.value)
        elif isinstance(sub, ast.Attribute) and re.fullmatch(r"SGL(ANG)?_[A-Z0-9_]+", sub.attr):
            names.append(sub.attr)
    return names


# ---------------------------------------------------------------------------------------------
# argparse argument -> flag record
# ---------------------------------------------------------------------------------------------

def _action_name(action, node):
    action = untaint(action)[0]
    if isinstance(action, str):
        return action
    if isinstance(action, ClassRef):
        return action.name
    if isinstance(action, External):
        return action.last
    if node is not None:
        return (dotted(node) or "?").split(".")[-1]
    return None


def _action_info(ev, action) -> dict:
    """What an action class of the release implies: a BooleanOptionalAction base, its nargs."""
    info = {}
    if not isinstance(action, ClassRef):
        return info
    bases = [untaint(b)[0] for b in ev.bases(action)]
    base_names = [b.last if isinstance(b, External) else b.name if isinstance(b, ClassRef) else "" for b in bases]
    if "BooleanOptionalAction" in base_names:
        info["boolean_optional"] = True
    for st in action.node.body:
        if isinstance(st, ast.FunctionDef) and st.name == "__init__":
            a = st.args
            names = [x.arg for x in a.args]
            off = len(names) - len(a.defaults)
            for i, d in enumerate(a.defaults):
                if names[off + i] == "nargs":
                    info["nargs_default"] = untaint(ev.eval(d, Frame(action.module)))[0]
            for k, d in zip(a.kwonlyargs, a.kw_defaults):
                if k.arg == "nargs" and d is not None:
                    info["nargs_default"] = untaint(ev.eval(d, Frame(action.module)))[0]
            for sub in ast.walk(st):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "__init__":
                    for kw in sub.keywords:
                        if kw.arg == "nargs" and isinstance(kw.value, ast.Constant):
                            info["nargs_default"] = kw.value.value
    if not info:
        for b in bases:
            if isinstance(b, ClassRef):
                return _action_info(ev, b)
    return info


def _choice_values(ev, ch):
    """The choices as a list, None when they cannot all be known."""
    ch = untaint(ch)[0]
    if ch is None or isinstance(ch, Unknown):
        return None
    it = ev.iterate(ch)
    if it is None:
        return None
    vals = [untaint(x)[0] for x in it]
    if any(is_opaque(x) for x in vals):
        return None
    return [plain(x) for x in vals]


def flag_record(ev, act: Action, key: str) -> dict:
    """The record of one argument (its first long option string is ``key``)."""
    kw, nodes = act.kwargs, act.nodes
    opts = act.option_strings
    action_name = _action_name(kw.get("action"), nodes.get("action"))
    rec = {"aliases": [o for o in opts if o != key], "negation": [], "type": None, "choices": None,
           "default": None, "nargs": None, "deprecated": None, "env": [], "hidden": False}
    nargs = kw.get("nargs")
    if "nargs" in kw and isinstance(nargs, Unknown):
        nargs = None
    help_v = kw.get("help")
    help_s = help_v if isinstance(help_v, str) else None
    if help_v == SUPPRESS:
        rec["hidden"] = True
        help_s = None
    zero_arg = bool_opt = action_deprecated = False
    if action_name in ("store_true", "store_false", "store_const", "count", "help", "version"):
        zero_arg = True
    elif action_name == "BooleanOptionalAction":
        zero_arg = bool_opt = True
    elif action_name and action_name not in ("store", "append", "extend"):
        info = _action_info(ev, untaint(kw.get("action"))[0])
        if info.get("boolean_optional"):
            zero_arg = bool_opt = True
        if "nargs" in kw:
            zero_arg = nargs == 0
        elif info.get("nargs_default", None) == 0:
            zero_arg = True
        action_deprecated = "deprecat" in action_name.lower()
    if bool_opt:
        rec["negation"] = ["--no-" + o[2:] for o in opts if o.startswith("--")]
    tname = None
    if "type" in nodes:
        tv = untaint(kw.get("type"))[0]
        if isinstance(tv, External):
            tfun = tv.last
        elif isinstance(tv, FunctionRef) and isinstance(tv.node, ast.Lambda):
            tfun = "lambda"
        elif isinstance(tv, (FunctionRef, ClassRef)):
            tfun = tv.name
        else:
            tfun = (dotted(nodes["type"]) or "?").split(".")[-1] if nodes.get("type") is not None else "?"
        tname = TYPE_FN_MAP.get(tfun)
        if tname is None:
            tname = "str"
            rec["type_fn"] = tfun
        if tfun == "human_readable_int":
            rec["human_readable"] = True
        if tname == "bool_value":
            tname = "bool"
            rec["takes_value"] = True
    if zero_arg:
        rec["type"] = "bool"
    elif nargs in ("+", "*") or (isinstance(nargs, int) and not isinstance(nargs, bool) and nargs > 1):
        rec["type"] = "list"
        rec["item_type"] = tname or "str"
        rec["nargs"] = nargs
    else:
        rec["type"] = tname or "str"
        if nargs == "?":
            rec["nargs"] = "?"
            rec["value_optional"] = True
        elif nargs is not None:
            rec["nargs"] = nargs
    if "choices" in nodes:
        vals = _choice_values(ev, act.raw.get("choices"))
        rec["choices"] = vals
        if vals is None:
            rec["choices_unresolved"] = True
    if "default" in nodes:
        d = untaint(act.raw.get("default"))[0]
        if d == SUPPRESS:
            rec["default_suppressed"] = True
        elif is_opaque(d) or isinstance(d, (Instance, ClassRef)):
            expr = unparse(nodes.get("default"))
            if expr and len(expr) <= 80:
                rec["default_expr"] = expr
        else:
            rec["default"] = plain(d)
            if untaint(act.raw.get("default"))[1]:      # computed from the environment (unset here)
                expr = unparse(nodes.get("default"))
                if expr and len(expr) <= 80:
                    rec["default_expr"] = expr
    elif action_name == "store_true":
        rec["default"] = False
    elif action_name == "store_false":
        rec["default"] = True
    if kw.get("required") is True:
        rec["required"] = True
    rec["dest"] = kw["dest"] if isinstance(kw.get("dest"), str) else key.lstrip("-").replace("-", "_")
    new_flag = kw.get("new_flag")
    if action_deprecated or (help_s and _DEPRECATION_RE.search(help_s)):
        if action_name == "DeprecatedAction":
            msg = "accepted and ignored (warns)"
            rec["deprecated"] = short(f"{msg}: {help_s}" if help_s else msg, 240)
        else:
            rec["deprecated"] = short(help_s, 240) if help_s else "deprecated"
        if isinstance(new_flag, str):
            rec["replacement"] = new_flag
        elif help_s:
            m = REPLACE_RE.search(help_s)
            if m:
                rec["replacement"] = m.group(1).rstrip(".,;)")
    if action_name and action_name != "store":
        rec["action"] = action_name
    cond = ev.conditional_additions.get(id(act.raw.get("choices"))) if "choices" in act.raw else None
    if cond is not None:
        rec["choices_conditional"] = cond[1]
    env = kw["_env"] if "_env" in kw else env_names_in(nodes.get("default"))
    if env:
        rec["env"] = sorted(set(env))
    rec["source"] = act.where
    rec["origin"] = origin_of(ev, act)
    return rec


def origin_of(ev, act) -> str:
    if getattr(act, "origin", None):
        return act.origin
    funcs = [f for f in act.stack if not isinstance(f.node, ast.Lambda)]
    if not funcs:
        return act.file
    f = funcs[-1]
    name = f.qualname if len(funcs) == 1 else f.name
    return f"{ev.tree.relpath(f.module)}:{name}"


def collect_flags(ev, parsers) -> tuple[dict, list]:
    """Flag records of the arguments of ``parsers`` in registration order (a repeated option
    string keeps the first registration and lists the others), and the mutually exclusive
    groups as lists of keys."""
    flags, groups = {}, []
    for p in parsers:
        for act in p.actions:
            opts = act.option_strings
            if not opts:
                continue
            longs = [o for o in opts if o.startswith("--")]
            key = longs[0] if longs else opts[0]
            rec = flag_record(ev, act, key)
            if key in flags:
                flags[key].setdefault("duplicate_registrations", []).append(rec["source"])
                continue
            flags[key] = rec
        for g in p.mutex_groups:
            keys = []
            for act in g:
                longs = [o for o in act.option_strings if o.startswith("--")]
                if act.option_strings:
                    keys.append(longs[0] if longs else act.option_strings[0])
            if len(keys) >= 2:
                groups.append(keys)
    return flags, groups

