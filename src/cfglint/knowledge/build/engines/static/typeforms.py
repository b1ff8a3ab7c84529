"""Typing values: what an annotation evaluates to.

``Literal["a", "b"]`` is a :class:`TLiteral`, ``Optional[X]`` / ``Union[..]`` / ``X | Y`` a
:class:`TUnion` (None for ``NoneType``), ``Annotated[T, meta..]`` (and pydantic's
``SkipValidation[T]``) a :class:`TAnnotated`, and any other subscripted type (``list[int]``,
``dict[str, Any]``, ``MyConfig[T]``) a :class:`TGeneric`. A plain type is the value the
evaluator gives its name: an :class:`~.values.External` (``builtins.int``) or a
:class:`~.values.ClassRef`. A string argument is a forward reference, kept as text (inside
``Literal`` it is a value).
"""

from __future__ import annotations

from .values import ClassRef, EnumMember, External

__all__ = ["TLiteral", "TUnion", "TGeneric", "TAnnotated", "is_typing", "is_typeish", "make_generic",
           "type_key", "literal_values", "strip_annotated", "union_members", "BUILTIN_TYPES"]

BUILTIN_TYPES = {"int": "builtins.int", "float": "builtins.float", "str": "builtins.str", "bool": "builtins.bool",
                 "dict": "builtins.dict", "list": "builtins.list", "tuple": "builtins.tuple", "set": "builtins.set"}


class TLiteral:
    """``Literal[...]``, nested literals and unions of literals flattened, duplicates dropped."""

    def __init__(self, values):
        flat = []
        for v in values:
            if isinstance(v, TLiteral):
                flat.extend(v.values)
            elif isinstance(v, TUnion) and all(isinstance(m, TLiteral) for m in v.members):
                for m in v.members:
                    flat.extend(m.values)
            else:
                flat.append(v)
        seen, out = set(), []
        for v in flat:
            k = (type(v).__name__, repr(v))
            if k not in seen:
                seen.add(k)
                out.append(v)
        self.values = out

    def __repr__(self):
        return f"Literal{self.values}"


class TGeneric:
    """A subscripted type; ``origin`` is a short name for builtin and typing containers
    (``list``, ``dict``, ``tuple``, ``set``, ``frozenset``, ``type``, ``Mapping``, ``Sequence``,
    ``ClassVar`` ...) or the :class:`ClassRef` / :class:`External` subscripted."""

    def __init__(self, origin, args):
        self.origin, self.args = origin, list(args)

    def __repr__(self):
        return f"{self.origin}{self.args}"


class TUnion:
    def __init__(self, members):
        flat = []
        for m in members:
            if isinstance(m, TUnion):
                flat.extend(m.members)
            else:
                flat.append(m)
        self.members = flat

    def __repr__(self):
        return f"Union{self.members}"


class TAnnotated:
    def __init__(self, inner, meta):
        self.inner, self.meta = inner, list(meta)

    def __repr__(self):
        return f"Annotated[{self.inner!r}, {self.meta!r}]"


_TYPING_GENERIC = {"SkipValidation", "Literal", "Optional", "Union", "Annotated", "List", "Dict", "Tuple", "Set",
                   "FrozenSet", "Type", "Callable", "Sequence", "Mapping", "Iterable", "ClassVar",
                   "InitVar", "Final", "Any", "TypeAlias", "Required", "NotRequired", "Deque",
                   "DefaultDict", "MutableMapping", "MutableSequence", "Collection", "Hashable"}
_CONTAINERS = {"List": "list", "list": "list", "Dict": "dict", "dict": "dict", "Tuple": "tuple",
               "tuple": "tuple", "Set": "set", "set": "set", "FrozenSet": "frozenset", "frozenset": "frozenset",
               "Type": "type", "type": "type", "Mapping": "Mapping", "Sequence": "Sequence",
               "DefaultDict": "dict", "MutableMapping": "MutableMapping"}


def is_typing(v) -> bool:
    """Whether subscripting ``v`` makes a typing value (``List[..]``, ``Literal[..]``, a user
    generic ``MyConfig[T]``) rather than indexing a value."""
    if isinstance(v, External):
        if v.name.startswith(("typing.", "typing_extensions.", "collections.abc.", "dataclasses.InitVar")):
            return True
        if v.name in ("builtins.list", "builtins.dict", "builtins.tuple", "builtins.set",
                      "builtins.frozenset", "builtins.type"):
            return True
        return v.last in _TYPING_GENERIC
    return isinstance(v, ClassRef)


def is_typeish(v) -> bool:
    """Whether ``v`` can be a member of a ``X | Y`` union."""
    return isinstance(v, (External, ClassRef, TLiteral, TGeneric, TUnion, TAnnotated)) or v is None


def make_generic(base, args):
    """``base[args]`` as a typing value."""
    if isinstance(base, ClassRef):
        return TGeneric(base, args)
    last = base.last
    if last == "Literal":
        return TLiteral(args)
    if last == "Optional":
        return TUnion([args[0], None]) if args else TUnion([None])
    if last == "Union":
        return TUnion(args)
    if last == "Annotated":
        return TAnnotated(args[0] if args else None, args[1:])
    if last == "SkipValidation":          # pydantic: Annotated[T, SkipValidation()]
        return TAnnotated(args[0] if args else None, [])
    if last in ("ClassVar", "Final", "InitVar", "Required", "NotRequired"):
        return TGeneric(last, args)
    return TGeneric(_CONTAINERS.get(last, base.name), args)


def type_key(x) -> str:
    """A stable text key of a typing value (for de-duplication and comparisons)."""
    if x is None:
        return "None"
    if isinstance(x, External):
        return x.name
    if isinstance(x, ClassRef):
        return x.qualname
    if isinstance(x, TLiteral):
        return "Literal" + repr(x.values)
    if isinstance(x, TGeneric):
        origin = x.origin if isinstance(x.origin, str) else type_key(x.origin)
        return f"{origin}[{','.join(type_key(a) for a in x.args)}]"
    return repr(x)


def strip_annotated(t):
    """(inner type, metadata list) of an ``Annotated`` value; other values come back unchanged
    with no metadata. Nested ``Annotated`` is flattened."""
    meta = []
    while isinstance(t, TAnnotated):
        meta = list(t.meta) + meta
        t = t.inner
    return t, meta


def union_members(t) -> list:
    """The members of a union (``Optional[X]`` gives ``[X, None]``), ``[t]`` for anything else."""
    return list(t.members) if isinstance(t, TUnion) else [t]


def literal_values(t) -> list:
    """The values of a ``Literal`` (enum members by their value)."""
    return [v.value if isinstance(v, EnumMember) else v for v in t.values] if isinstance(t, TLiteral) else []
