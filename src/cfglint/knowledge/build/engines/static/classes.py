"""Classes of the release: method resolution order, attributes, enums, and the fields of
dataclasses, pydantic models and msgspec structs with their defaults.

A mixin of :class:`~.evaluator.Evaluator` (class facts need expression evaluation and the
evaluator needs class attributes).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .astutil import dotted
from .frame import Frame
from .typeforms import BUILTIN_TYPES, TGeneric
from .values import (MISSING, ClassRef, EnumMember, External, FunctionRef, Instance, OrderedSet, Partial, Record,
                     Unknown, untaint)

__all__ = ["ClassesMixin", "FieldDef", "class_body"]

FIELD_CALLS = frozenset({"field", "Field", "PydanticField"})
_ENUM_BASES = ("Enum", "StrEnum", "IntEnum", "Flag", "IntFlag")


@dataclass(frozen=True)
class FieldDef:
    """One field of a dataclass-like class: its annotation and assigned value (None when it has
    no default), and the class whose body declares it."""

    name: str
    annotation: ast.AST
    value: ast.AST | None
    owner: ClassRef
    node: ast.AnnAssign


def class_body(body):
    """The statements of a class body that run: ``if TYPE_CHECKING:`` gives its ``else``
    branch, any other ``if`` both branches."""
    for st in body:
        if isinstance(st, ast.If):
            t = st.test
            if (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
                    isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"):
                yield from class_body(st.orelse)
                continue
            yield from class_body(st.body)
            yield from class_body(st.orelse)
        else:
            yield st


def _setter_of(st) -> bool:
    return any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter") for d in st.decorator_list)


class ClassesMixin:
    dataclass_decorators: frozenset

    def __init__(self):
        self._own: dict[int, dict] = {}
        self._own_values: dict[tuple, object] = {}
        self._mro: dict[int, list] = {}
        self._enum: dict[int, bool] = {}
        self._members: dict[int, list] = {}

    # -- the class body --------------------------------------------------------------------------
    def own_bindings(self, cls: ClassRef) -> dict:
        """name -> the statement of ``cls``'s own body that binds it (the last one)."""
        key = id(cls.node)
        b = self._own.get(key)
        if b is None:
            b = {}
            for st in class_body(cls.node.body):
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                    b[st.target.id] = st
                elif isinstance(st, ast.Assign):
                    for t in st.targets:
                        if isinstance(t, ast.Name):
                            b[t.id] = st
                elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if not (_setter_of(st) and st.name in b):
                        b[st.name] = st
                elif isinstance(st, ast.ClassDef):
                    b[st.name] = st
            self._own[key] = b
        return b

    def class_binds(self, cls: ClassRef, name: str) -> bool:
        return name in self.own_bindings(cls)

    def class_binds_any(self, cls: ClassRef, name: str) -> bool:
        """Whether ``cls`` or a base class of the release binds ``name``."""
        return any(self.class_binds(c, name) for c in self.mro(cls))

    def own_class_attr(self, cls: ClassRef, name: str):
        """The value ``cls``'s own body gives ``name``."""
        key = (id(cls.node), name)
        if key in self._own_values:
            return self._own_values[key]
        self._own_values[key] = Unknown(f"recursive {cls.name}.{name}")
        st = self.own_bindings(cls).get(name)
        if isinstance(st, ast.AnnAssign):
            v = Unknown(f"no default {cls.name}.{name}") if st.value is None else \
                self.field_default(st.value, Frame(cls.module, class_scope=cls))
        elif isinstance(st, ast.Assign):
            if self.is_enum(cls):
                v = next((m for m in self.enum_members(cls) if m.name == name), None)
                if v is None:
                    v = self.eval(st.value, Frame(cls.module, class_scope=cls))
            else:
                v = self.eval(st.value, Frame(cls.module, class_scope=cls))
                if isinstance(v, Instance) and self.class_binds_any(v.cls, "__set_name__"):
                    # a descriptor learns its attribute name when the class is created
                    self.call(self.instance_attr(v, "__set_name__"), [cls, name], {}, None, None)
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            v = FunctionRef(cls.module, st, cls)
        elif isinstance(st, ast.ClassDef):
            v = ClassRef(cls.module, st)
        else:
            v = Unknown(f"{cls.name}.{name}")
        self._own_values[key] = v
        return v

    def class_attr(self, cls: ClassRef, attr: str):
        """``attr`` looked up on ``cls`` along its method resolution order (methods unbound)."""
        for c in self.mro(cls):
            if self.class_binds(c, attr):
                return self.own_class_attr(c, attr)
        if attr == "__name__":
            return cls.name
        if attr == "model_fields":
            return self.model_fields(cls)
        ext = self.external_bases(cls)
        if ext:
            return External(f"{ext[0]}.{attr}")
        return Unknown(f"class attr {cls.name}.{attr}")

    # -- inheritance -----------------------------------------------------------------------------
    def bases(self, cls: ClassRef) -> list:
        out = []
        for b in cls.node.bases:
            v = untaint(self.eval(b, Frame(cls.module)))[0]
            out.append(v)
        return out

    def mro(self, cls: ClassRef) -> list[ClassRef]:
        """``cls`` and its base classes defined in the release, nearest first."""
        key = id(cls.node)
        if key in self._mro:
            return self._mro[key]
        self._mro[key] = [cls]
        out, todo, seen = [], [cls], set()
        while todo:
            c = todo.pop(0)
            if id(c.node) in seen:
                continue
            seen.add(id(c.node))
            out.append(c)
            for bv in self.bases(c):
                if isinstance(bv, TGeneric):
                    bv = bv.origin
                if isinstance(bv, ClassRef):
                    todo.append(bv)
        self._mro[key] = out
        return out

    def external_bases(self, cls: ClassRef) -> list[str]:
        """Dotted names of the base classes from outside the release, along the MRO."""
        out = []
        for c in self.mro(cls):
            for bv in self.bases(c):
                if isinstance(bv, TGeneric) and isinstance(bv.origin, str):
                    bv = External(BUILTIN_TYPES.get(bv.origin, bv.origin))
                elif isinstance(bv, TGeneric) and isinstance(bv.origin, External):
                    bv = bv.origin
                if isinstance(bv, External):
                    out.append(bv.name)
        return out

    def base_names(self, cls: ClassRef) -> list[str]:
        """Last names of every base along the MRO, from the release or not."""
        names = [c.name for c in self.mro(cls)]
        return names + [n.rsplit(".", 1)[-1] for n in self.external_bases(cls)]

    # -- enums -------------------------------------------------------------------------------------
    def is_enum(self, cls: ClassRef) -> bool:
        key = id(cls.node)
        if key not in self._enum:
            self._enum[key] = False
            self._enum[key] = any(n.startswith("enum.") or n.endswith("Enum") or n.rsplit(".", 1)[-1] in _ENUM_BASES
                                  for n in self.external_bases(cls))
        return self._enum[key]

    def enum_members(self, cls: ClassRef) -> list[EnumMember]:
        """The members of an enum class in definition order (``auto()`` numbered from 1, powers
        of two for a ``Flag``, the lower-cased name for a ``StrEnum``; a tuple value gives its first element when the
        class defines ``__new__``)."""
        key = id(cls.node)
        if key in self._members:
            return self._members[key]
        self._members[key] = []
        ext = self.external_bases(cls)
        str_enum = any(n.endswith("StrEnum") for n in ext)
        flag = any(n.rsplit(".", 1)[-1] in ("Flag", "IntFlag") for n in ext)
        custom_new = any(self.class_binds(c, "__new__") for c in self.mro(cls))
        out, auto_i = [], 0
        for st in cls.node.body:
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
                continue
            name = st.targets[0].id
            if name.startswith("_"):
                continue
            v = untaint(self.eval(st.value, Frame(cls.module, class_scope=cls)))[0]
            if isinstance(v, (FunctionRef, ClassRef)):
                continue
            if isinstance(v, Partial) and v.func_name.endswith("auto"):
                auto_i += 1
                v = name.lower() if str_enum else (1 << (auto_i - 1) if flag else auto_i)
            elif isinstance(v, tuple) and v and custom_new:
                v = v[0]
            out.append(EnumMember(cls, name, v))
        self._members[key] = out
        return out

    # -- dataclass-like fields ------------------------------------------------------------------
    def is_dataclass(self, cls: ClassRef) -> bool:
        for d in cls.node.decorator_list:
            v = untaint(self.eval(d.func if isinstance(d, ast.Call) else d, Frame(cls.module)))[0]
            name = v.name if isinstance(v, (External, FunctionRef)) else (dotted(d.func if isinstance(d, ast.Call) else d) or "")
            last = name.rsplit(".", 1)[-1]
            if last in self.dataclass_decorators or name.endswith("dataclass"):
                return True
        return False

    def dataclass_fields(self, cls: ClassRef, bases: str = "dataclass") -> list[FieldDef]:
        """The fields of ``cls`` in declaration order, base classes first (a field redeclared
        later keeps its first position and takes the later declaration). ``bases``:
        ``"dataclass"`` counts only dataclass bases (as ``dataclasses.fields`` does), ``"all"``
        every base class of the release, ``"none"`` the class's own body only. ``ClassVar`` and
        ``InitVar`` annotations are not fields."""
        chain = [cls] if bases == "none" else list(reversed(self.mro(cls)))
        fields, order = {}, []
        for c in chain:
            if c is not cls and c != cls and bases == "dataclass" and not self.is_dataclass(c):
                continue
            for st in class_body(c.node.body):
                if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
                    continue
                if _is_classvar(st.annotation):
                    continue
                name = st.target.id
                if name not in fields:
                    order.append(name)
                fields[name] = FieldDef(name, st.annotation, st.value, c, st)
        return [fields[n] for n in order]

    def field_default(self, value_node: ast.AST, frame):
        """The default a field's assigned expression gives: ``field(default=..)`` /
        ``Field(..)`` / ``default_factory`` results, or the expression's value; :data:`MISSING`
        for a field call without one."""
        if isinstance(value_node, ast.Call):
            f = untaint(self.eval(value_node.func, frame))[0]
            fname = f.name if isinstance(f, (External, FunctionRef)) else (dotted(value_node.func) or "")
            last = fname.rsplit(".", 1)[-1]
            if last in FIELD_CALLS and not isinstance(f, ClassRef):
                kw = {k.arg: k.value for k in value_node.keywords if k.arg}
                if "default" in kw:
                    d = kw["default"]
                    return MISSING if isinstance(d, ast.Constant) and d.value is Ellipsis else self.eval(d, frame)
                if value_node.args and last != "field":
                    a0 = value_node.args[0]
                    return MISSING if isinstance(a0, ast.Constant) and a0.value is Ellipsis else self.eval(a0, frame)
                if "default_factory" in kw:
                    return self.factory_value(kw["default_factory"], frame)
                return MISSING
        return self.eval(value_node, frame)

    def factory_value(self, node: ast.AST, frame):
        """What calling a ``default_factory`` gives."""
        if isinstance(node, ast.Lambda):
            return self.eval(node.body, frame)
        f = untaint(self.eval(node, frame))[0]
        if isinstance(f, External) and f.name in ("builtins.list", "builtins.dict", "builtins.set", "builtins.tuple"):
            return {"builtins.list": [], "builtins.dict": {}, "builtins.set": OrderedSet(),
                    "builtins.tuple": []}[f.name]
        if isinstance(f, ClassRef):
            return Instance(f)
        if isinstance(f, FunctionRef):
            r = self.call(f, [], {}, frame, None)
            return r if not isinstance(untaint(r)[0], Partial) else Unknown("factory")
        return Unknown("factory")

    def annotation(self, ann: ast.AST, owner: ClassRef | None, module: str | None = None):
        """The typing value of an annotation (a string annotation is parsed first)."""
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return Unknown("annotation")
        mod = owner.module if owner is not None else module
        return self.eval(ann, Frame(mod, class_scope=owner))

    def resolve_forward(self, text: str, module: str):
        """A forward reference (a type named in a string) resolved in ``module``."""
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            return Unknown("forward reference")
        return self.eval(node, Frame(module))

    def model_fields(self, cls: ClassRef) -> dict:
        """``Model.model_fields`` of a pydantic model: field name -> a record with ``default``."""
        out = {}
        for f in self.dataclass_fields(cls, bases="all"):
            d = None if f.value is None else self.field_default(f.value, Frame(f.owner.module, class_scope=f.owner))
            out[f.name] = Record("FieldInfo", {"default": None if d is MISSING else d})
        return out

    def field_docstrings(self, classes) -> dict[str, str]:
        """``{"Class.field": docstring}``: the string statement right after a field."""
        out = {}
        for cls in classes:
            for c in self.mro(cls):
                body = list(class_body(c.node.body))
                for a, b in zip(body, body[1:]):
                    if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name) and isinstance(b, ast.Expr) \
                            and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str):
                        out.setdefault(f"{c.name}.{a.target.id}", b.value.value)
        return out

    def defines(self, module: str, name: str):
        """The class ``name`` as the ``class`` statement of ``module`` (even when the module
        rebinds the name later), else None."""
        tree = self.tree.parse(module)
        found = None
        if tree is not None:
            for st in tree.body:
                if isinstance(st, ast.ClassDef) and st.name == name:
                    found = ClassRef(module, st)
        return found


def _is_classvar(ann) -> bool:
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return ann.value.startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar"))
    head = ann.value if isinstance(ann, ast.Subscript) else ann
    d = dotted(head) or ""
    return d.rsplit(".", 1)[-1] in ("ClassVar", "InitVar")

