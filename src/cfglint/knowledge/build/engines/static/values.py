"""The values the static evaluator computes with.

Known Python values (None, bool, int, float, str, list, tuple, dict) stand for themselves. The
classes here stand for what is not a plain value: something the evaluator cannot know
(:class:`Unknown`), an object from outside the release (:class:`External`: builtins, the
standard library, third-party packages), references into the release (:class:`ModuleRef`,
:class:`ClassRef`, :class:`FunctionRef`, :class:`BoundMethod`), objects the interpreted code makes
(:class:`Instance`, :class:`EnumMember`), the result of a call that was not evaluated
(:class:`Partial`) and a value read from, or decided by, an environment variable
(:class:`Tainted`).
"""

from __future__ import annotations

import ast

__all__ = ["Unknown", "UNKNOWN", "MISSING", "External", "ModuleRef", "ClassRef", "FunctionRef",
           "BoundMethod", "BuiltinMethod", "Instance", "EnumMember", "Partial", "SuperProxy",
           "Tainted", "OrderedSet", "DerivedClass", "Record", "RuntimeValues", "untaint", "deep_untaint", "taint", "is_opaque"]


class Unknown:
    """A value the evaluator cannot know; ``why`` says what it was, for notes."""

    __slots__ = ("why",)

    def __init__(self, why: str = ""):
        self.why = why

    def __repr__(self):
        return f"Unknown({self.why})"


UNKNOWN = Unknown()
MISSING = Unknown("MISSING")       # a dataclass / pydantic field without a default


class External:
    """An object from outside the release, known by its dotted name (``argparse.SUPPRESS``,
    ``builtins.int``, ``torch.cuda.is_available``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    @property
    def last(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    def __repr__(self):
        return f"External({self.name})"

    def __eq__(self, other):
        return isinstance(other, External) and other.name == self.name

    def __hash__(self):
        return hash(("External", self.name))


class ModuleRef:
    """A module of the release."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"ModuleRef({self.name})"

    def __eq__(self, other):
        return isinstance(other, ModuleRef) and other.name == self.name

    def __hash__(self):
        return hash(("ModuleRef", self.name))


class ClassRef:
    """A class statement of the release (``module`` is the dotted module it is defined in)."""

    __slots__ = ("module", "node")

    def __init__(self, module: str, node: ast.ClassDef):
        self.module, self.node = module, node

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.node.name}"

    def __repr__(self):
        return f"ClassRef({self.qualname})"

    def __eq__(self, other):
        return isinstance(other, ClassRef) and other.node is self.node

    def __hash__(self):
        return hash(id(self.node))


class FunctionRef:
    """A function statement of the release; ``cls`` is the class whose body defines it (a
    method), ``closure`` the enclosing function's locals for a nested function."""

    __slots__ = ("module", "node", "cls", "closure")

    def __init__(self, module: str, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
                 cls: ClassRef | None = None, closure: dict | None = None):
        self.module, self.node, self.cls, self.closure = module, node, cls, closure

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<lambda>")

    @property
    def qualname(self) -> str:
        return f"{self.cls.name}.{self.name}" if self.cls is not None else self.name

    def decorators(self) -> list[str]:
        """Last names of the decorators (``staticmethod``, ``classmethod``, ``property`` ...)."""
        out = []
        for d in getattr(self.node, "decorator_list", []):
            d = d.func if isinstance(d, ast.Call) else d
            if isinstance(d, ast.Name):
                out.append(d.id)
            elif isinstance(d, ast.Attribute):
                out.append(d.attr)
        return out

    def __repr__(self):
        return f"FunctionRef({self.module}.{self.qualname})"

    def __eq__(self, other):
        return isinstance(other, FunctionRef) and other.node is self.node

    def __hash__(self):
        return hash(id(self.node))


class BoundMethod:
    """A method bound to an instance, or a classmethod bound to its class."""

    __slots__ = ("func", "obj")

    def __init__(self, func: FunctionRef, obj):
        self.func, self.obj = func, obj

    def __repr__(self):
        return f"BoundMethod({self.func!r} of {self.obj!r})"


class BuiltinMethod:
    """A method of a plain value (``"x".lower``, ``d.items``, ``lst.append``)."""

    __slots__ = ("obj", "name")

    def __init__(self, obj, name: str):
        self.obj, self.name = obj, name


class Instance:
    """An instance of a class of the release, with the attributes the code set on it; ``args``
    and ``kwargs`` are what the constructor was called with, ``node`` the call."""

    __slots__ = ("cls", "attrs", "args", "kwargs", "node")

    def __init__(self, cls: ClassRef, args=(), kwargs=None, node: ast.Call | None = None):
        self.cls, self.attrs = cls, {}
        self.args, self.kwargs, self.node = list(args), dict(kwargs or {}), node

    def __repr__(self):
        return f"Instance({self.cls.name})"


class EnumMember:
    """A member of an enum class of the release."""

    __slots__ = ("cls", "name", "value")

    def __init__(self, cls: ClassRef, name: str, value):
        self.cls, self.name, self.value = cls, name, value

    def __repr__(self):
        return f"{self.cls.name}.{self.name}"

    def __eq__(self, other):
        return isinstance(other, EnumMember) and other.cls == self.cls and other.name == self.name

    def __hash__(self):
        return hash(("EnumMember", self.cls, self.name))


class Partial:
    """The result of a call the evaluator did not evaluate: ``func`` (an :class:`External`, a
    :class:`FunctionRef` ...) with its evaluated arguments. Engines read it to recognise helpers
    such as ``optional_type(int)``."""

    __slots__ = ("func", "args", "kwargs", "node")

    def __init__(self, func, args=(), kwargs=None, node: ast.Call | None = None):
        self.func, self.args, self.kwargs, self.node = func, list(args), dict(kwargs or {}), node

    @property
    def func_name(self) -> str:
        f = self.func
        if isinstance(f, External):
            return f.name
        if isinstance(f, (FunctionRef, ClassRef)):
            return f.name
        return ""

    def __repr__(self):
        return f"Partial({self.func!r}, {self.args!r})"


class SuperProxy:
    """``super()`` inside a method of ``cls``: attribute look-up continues after ``cls`` in the
    method resolution order of ``obj`` (an :class:`Instance`, or a class in a classmethod)."""

    __slots__ = ("cls", "obj")

    def __init__(self, cls: ClassRef, obj):
        self.cls, self.obj = cls, obj


class DerivedClass:
    """A class made at run time by ``type(name, bases, namespace)``."""

    __slots__ = ("name", "bases")

    def __init__(self, name, bases):
        self.name, self.bases = name, list(bases)

    def __repr__(self):
        return f"DerivedClass({self.name})"


class Record:
    """An object known only by some of its attributes (a pydantic ``FieldInfo`` in
    ``Model.model_fields``)."""

    __slots__ = ("kind", "attrs")

    def __init__(self, kind: str, attrs: dict):
        self.kind, self.attrs = kind, dict(attrs)

    def __repr__(self):
        return f"Record({self.kind})"


class RuntimeValues:
    """A collection only known when the release runs (the names in a parser registry that
    plug-ins or a compiled library fill): ``kind`` says which; attribute access, calls and
    ``list()`` / ``sorted()`` of it give it back."""

    __slots__ = ("kind", "source")

    def __init__(self, kind: str, source: str = ""):
        self.kind, self.source = kind, source

    def __repr__(self):
        return f"RuntimeValues({self.kind})"


class Tainted:
    """A value that came, by data or by control flow, from the environment variables in ``envs``
    (the environment is modelled as empty: a read gives its default)."""

    __slots__ = ("value", "envs")

    def __init__(self, value, envs):
        if isinstance(value, Tainted):
            envs = set(envs) | value.envs
            value = value.value
        self.value = value
        self.envs = frozenset(envs)

    def __repr__(self):
        return f"Tainted({self.value!r}, {sorted(self.envs)})"


class OrderedSet(list):
    """A set, kept in insertion order so that what is derived from it is deterministic."""

    def __init__(self, items=()):
        super().__init__()
        for x in items:
            self.add(x)

    def add(self, x):
        try:
            if x in self:
                return
        except Exception:      # an element whose comparison fails: keep it
            pass
        self.append(x)


def untaint(v):
    """(value, environment variables it depends on)."""
    envs = set()
    while isinstance(v, Tainted):
        envs |= v.envs
        v = v.value
    return v, envs


def deep_untaint(v, envs: set | None = None):
    """``v`` with taint removed inside lists, tuples and dicts too; the variables are added to
    ``envs``. Returns (value, envs)."""
    if envs is None:
        envs = set()
    v, e = untaint(v)
    envs |= e
    if isinstance(v, OrderedSet):
        return OrderedSet(deep_untaint(x, envs)[0] for x in v), envs
    if isinstance(v, list):
        return [deep_untaint(x, envs)[0] for x in v], envs
    if isinstance(v, tuple):
        return tuple(deep_untaint(x, envs)[0] for x in v), envs
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            try:
                out[deep_untaint(k, envs)[0]] = deep_untaint(x, envs)[0]
            except TypeError:
                pass
        return out, envs
    return v, envs


def taint(value, envs):
    """``value`` marked with ``envs`` (unchanged when there are none)."""
    return Tainted(value, envs) if envs else value


def is_opaque(v) -> bool:
    """True for values that are not plain data and cannot be compared meaningfully."""
    return isinstance(v, (Unknown, External, Partial, FunctionRef, ModuleRef, BoundMethod, BuiltinMethod,
                          SuperProxy, RuntimeValues))
