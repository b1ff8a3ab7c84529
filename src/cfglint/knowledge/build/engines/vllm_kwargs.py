"""vLLM's ``get_kwargs(Config)``, statically: the argparse keyword arguments each release line
derives from a config dataclass's fields (type hints to ``type=``, ``choices=``, ``nargs=``,
``action=``), re-implemented per the behaviours the release's own ``vllm/engine/arg_utils.py``
shows (:class:`KwFeatures`, read from its text).

The values are the evaluator's (:mod:`.static.values`); the markers ``_field`` / ``_src`` /
``_dataclass`` ride along in the dict so that :mod:`.vllm` can say which field a flag comes from.
"""

from __future__ import annotations

import re

from .static.classes import ClassesMixin
from .static.evaluator import Frame
from .static.typeforms import TAnnotated, TGeneric, TLiteral, TUnion, type_key
from .static.values import MISSING, ClassRef, EnumMember, External, Partial, Unknown, untaint

__all__ = ["KwFeatures", "compute_kwargs"]

_B = {"int": "builtins.int", "float": "builtins.float", "str": "builtins.str", "bool": "builtins.bool",
      "dict": "builtins.dict", "list": "builtins.list", "tuple": "builtins.tuple", "set": "builtins.set"}


class KwFeatures:
    """Which behaviours this release's ``get_kwargs`` has, read from its source text."""

    def __init__(self, tree):
        src = tree.module_text("vllm.engine.arg_utils")
        self.src = src
        self.nested_v0 = "def get_kwargs(cls: type[Any]) -> Dict[str, Any]" in src and "is_optional(field.type)" in src
        self.annotated = "origin is Annotated" in src
        self.dataclass_json = "is_dataclass(th)" in src
        self.metavar_when_str = bool(re.search(r"""["']metavar["'] if contains_type\(type_hints, str\)""", src))
        self.set_collection = "contains_type(type_hints, set)" in src
        self.bool_str_none = "type_hints == {bool, str, type(None)}" in src
        self.dict_union_str = "union_dict_and_str" in src and "kwargs[name][\"type\"] = union_dict_and_str" in src
        self.dict_subclass = "is_dict_subclass(th)" in src
        self.human_readable = set()
        m = re.search(r"elif contains_type\(type_hints, int\):(.*?)elif contains_type\(type_hints, float\)", src, re.S)
        if m:
            self.human_readable = set(re.findall(r"""["']([a-z_]+)["']""", m.group(1))) - {"type", "help"}
        # EnableDisableAction: --enable-x <-> --disable-x pairing of BooleanOptionalAction
        text = tree.module_text("vllm.utils.argparse_utils") or tree.module_text("vllm.utils")
        self.enable_disable = "class EnableDisableAction" in text and \
            'register("action", BooleanOptionalAction, EnableDisableAction)' in text


def flatten_hints(ev: ClassesMixin, t, feats: KwFeatures, module: str) -> list:
    """``get_type_hints()`` of a field as vLLM flattens it: union members, ``Annotated`` unwrapped
    (when the release does that), forward references resolved, duplicates dropped."""
    out = []

    def add(x):
        if isinstance(x, str):
            x = ev.resolve_forward(x, module) if _is_expr(x) else External("builtins.str")
            x = untaint(x)[0]
        if isinstance(x, TAnnotated):
            if feats.annotated:
                add(x.inner)
            else:
                out.append(External("typing.Annotated"))
            return
        if isinstance(x, TUnion):
            for m in x.members:
                add(m)
            return
        out.append(x)

    add(t)
    res, seen = [], set()
    for x in out:
        k = type_key(x)
        if k not in seen:
            seen.add(k)
            res.append(x)
    return res


def _is_expr(s):
    import ast
    try:
        ast.parse(s, mode="eval")
        return True
    except SyntaxError:
        return False


def is_type(th, name):
    """vLLM's ``is_type(type_hint, X)``: ``th`` is X or ``get_origin(th)`` is X."""
    if name == "Literal":
        return isinstance(th, TLiteral)
    if isinstance(th, External) and th.name == _B[name]:
        return True
    return isinstance(th, TGeneric) and th.origin == name


def contains(ths, name):
    return any(is_type(t, name) for t in ths)


def get_t(ths, name):
    return next((t for t in ths if is_type(t, name)), None)


def is_not_builtin(th):
    if th is None:
        return False
    if isinstance(th, External):
        return not th.name.startswith("builtins.")
    if isinstance(th, TGeneric):
        return th.origin not in ("list", "dict", "tuple", "set", "frozenset", "type")
    return True    # vLLM classes, Literal (typing module) ...


def is_dict_subclass_hint(th, ev):
    if not isinstance(th, ClassRef):
        return False
    names = ev.external_bases(th)
    if any(n.endswith("TypedDict") for n in names):
        return False
    return any(n in ("builtins.dict", "typing.Dict") or n.endswith(".UserDict") for n in names)


def compute_kwargs(ev, feats: KwFeatures, cls: ClassRef) -> dict:
    """``get_kwargs(cls)``: {field: {kwarg: value}}, with ``_field`` / ``_src`` markers."""
    out = {}
    for f in ev.dataclass_fields(cls, bases="dataclass"):
        owner = f.owner
        t = untaint(ev.annotation(f.annotation, owner))[0]
        if f.value is None:
            default = MISSING
        else:
            default = ev.field_default(f.value, Frame(owner.module, class_scope=owner))
        kw = {"default": default, "help": "", "_field": f"{owner.name}.{f.name}",
              "_src": f"{ev.tree.relpath(owner.module)}:{getattr(f.value, 'lineno', None) or f.annotation.lineno}"}
        if feats.nested_v0:
            out[f.name] = _kwargs_v0(t, kw)
            continue
        ths = flatten_hints(ev, t, feats, owner.module) if feats.annotated else _flatten_v1(t)
        if feats.dict_subclass:
            ths = [External("builtins.dict") if is_dict_subclass_hint(th, ev) else th for th in ths]
        has_none = any(th is None for th in ths)
        dc = next((th for th in ths if isinstance(th, ClassRef) and ev.is_dataclass(th)), None) \
            if feats.dataclass_json else None
        if dc is not None:
            kw["type"] = External("parse_dataclass")
            kw["_dataclass"] = dc.name
        elif feats.bool_str_none and _is_bool_str_none(ths):
            kw["type"] = External("builtins.str")
            kw["nargs"] = "?"
            kw["const"] = True
        elif contains(ths, "bool"):
            kw["action"] = External("argparse.BooleanOptionalAction")
        elif contains(ths, "Literal"):
            kw.update(_literal_kwargs(ths, feats))
        elif contains(ths, "tuple"):
            kw.update(_collection_kwargs(ths, "tuple"))
        elif contains(ths, "list"):
            kw.update(_collection_kwargs(ths, "list"))
        elif feats.set_collection and contains(ths, "set"):
            kw.update(_collection_kwargs(ths, "set"))
        elif contains(ths, "int"):
            kw["type"] = External("builtins.int")
            if f.name in feats.human_readable:
                kw["type"] = External("human_readable_int")
        elif contains(ths, "float"):
            kw["type"] = External("builtins.float")
        elif contains(ths, "dict") and feats.dataclass_json and (
                contains(ths, "str") or any(is_not_builtin(th) for th in ths)):
            kw["type"] = External("union_dict_and_str")
        elif contains(ths, "dict"):
            kw["type"] = External("json.loads") if feats.dataclass_json else \
                Partial(External("optional_type"), [External("json.loads")])
        elif contains(ths, "str") or any(is_not_builtin(th) for th in ths):
            kw["type"] = External("builtins.str")
        else:
            kw["type"] = Unknown(f"unsupported {ths}")
        if isinstance(kw.get("type"), TLiteral):     # list[Literal[...]]
            kw.update(_literal_kwargs([kw["type"]], feats))
        if has_none and not contains(ths, "bool"):
            kw["type"] = Partial(External("optional_type"), [kw.get("type")])
            if kw.get("choices"):
                kw["choices"] = list(kw["choices"]) + [None]
        out[f.name] = kw
    return out


def _flatten_v1(t):
    return list(t.members) if isinstance(t, TUnion) else [t]


def _is_bool_str_none(ths):
    return sorted(type_key(t) for t in ths) == sorted(["builtins.bool", "builtins.str", "None"])


def _literal_kwargs(ths, feats):
    lit = get_t(ths, "Literal")
    vals = [v.value if isinstance(v, EnumMember) else v for v in lit.values]
    try:
        svals = sorted(vals)
    except TypeError:
        svals = vals
    typ = type(vals[0]).__name__ if vals else "str"
    key = "metavar" if (feats.metavar_when_str and contains(ths, "str")) else "choices"
    return {"type": External(f"builtins.{typ}"), key: svals}


def _collection_kwargs(ths, kind):
    t = get_t(ths, kind)
    args = list(t.args) if isinstance(t, TGeneric) else []
    elem = args[0] if args else External("builtins.str")
    if isinstance(elem, TUnion):
        elem = External("builtins.str")
    if kind == "tuple" and args and not any(a is Ellipsis for a in args):
        nargs = len(args)
    else:
        nargs = "+"
    return {"type": elem, "nargs": nargs}


def _kwargs_v0(t, kw):
    """0.8.4's nested get_kwargs: bools get no type; Optional -> nullable_str; str in Union -> str."""
    members = _flatten_v1(t)
    if isinstance(t, External) and t.name == "builtins.bool":
        return kw
    if any(m is None for m in members):
        kw["type"] = External("nullable_str")
        return kw
    if any(isinstance(m, External) and m.name == "builtins.str" for m in members):
        kw["type"] = External("builtins.str")
        return kw
    kw["type"] = t
    return kw
