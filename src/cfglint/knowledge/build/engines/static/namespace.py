"""A module's top-level names, as runtime Python binds them, read from its syntax tree.

Rules (what an import of the module would do, decided without running it):

- a later unconditional binding replaces an earlier one;
- ``if TYPE_CHECKING:`` is false at run time: its ``else`` branch binds, and the names bound
  only in its body are kept apart (:attr:`Namespace.typecheck`) for annotations that name them;
  ``if not TYPE_CHECKING:`` binds its body;
- any other ``if`` binds a name from its body, else from its ``else``, only when no earlier
  statement bound it (the condition is not decided here); the same holds for ``except``
  handlers (the ``try`` body is taken as succeeding);
- ``from m import *`` makes the public names of ``m`` visible (looked up when used);
- statements after a binding that change the value in place (``X.append(..)``, ``X += [..]``,
  ``X["k"] = v``) are kept, in order, as :attr:`Namespace.mutations`, each marked conditional
  when it sits under an ``if`` or ``except``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

__all__ = ["Binding", "Mutation", "Namespace", "build_namespace", "is_type_checking"]

MUTATING_METHODS = frozenset({"append", "extend", "add", "update", "remove", "discard", "insert", "setdefault"})


@dataclass(frozen=True)
class Binding:
    """How a top-level name is bound: ``kind`` is ``expr`` (``node`` is the assigned
    expression; ``index`` picks an element of a tuple assignment), ``class``, ``func``,
    ``import`` (``from src import name``) or ``module`` (``import src``)."""

    kind: str
    node: ast.AST | None = None
    src: str | None = None
    name: str | None = None
    index: int | None = None


@dataclass(frozen=True)
class Mutation:
    """A top-level statement that changes a bound value in place."""

    stmt: ast.stmt
    conditional: bool


@dataclass
class Namespace:
    module: str
    bindings: dict[str, Binding] = field(default_factory=dict)
    typecheck: dict[str, Binding] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)
    mutations: dict[str, list[Mutation]] = field(default_factory=dict)


def is_type_checking(test: ast.AST) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def build_namespace(module: str, tree: ast.Module | None, resolve_from) -> Namespace:
    """The :class:`Namespace` of ``module`` (``tree`` its syntax tree; ``resolve_from(module,
    level, target)`` gives the absolute name of a relative import)."""
    ns = Namespace(module)
    if tree is not None:
        _Builder(ns, resolve_from).walk(tree.body, conditional=False, into=ns.bindings)
    return ns


class _Builder:
    def __init__(self, ns: Namespace, resolve_from):
        self.ns, self.resolve_from = ns, resolve_from

    def put(self, into, name, binding, conditional):
        if conditional and name in into:
            return
        into[name] = binding
        if not conditional and into is self.ns.bindings:
            self.ns.mutations.pop(name, None)

    def mutate(self, name, stmt, conditional):
        self.ns.mutations.setdefault(name, []).append(Mutation(stmt, conditional))

    def walk(self, body, conditional, into):
        for st in body:
            self.statement(st, conditional, into)

    def statement(self, st, conditional, into):
        if isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    self.put(into, a.asname, Binding("module", src=a.name), conditional)
                else:
                    top = a.name.split(".")[0]
                    self.put(into, top, Binding("module", src=top), conditional)
        elif isinstance(st, ast.ImportFrom):
            src = self.resolve_from(self.ns.module, st.level, st.module)
            for a in st.names:
                if a.name == "*":
                    if src not in self.ns.stars:
                        self.ns.stars.append(src)
                else:
                    self.put(into, a.asname or a.name, Binding("import", src=src, name=a.name), conditional)
        elif isinstance(st, ast.ClassDef):
            self.put(into, st.name, Binding("class", st), conditional)
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.put(into, st.name, Binding("func", st), conditional)
        elif isinstance(st, ast.Assign):
            for t in st.targets:
                self.target(t, st.value, st, conditional, into)
        elif isinstance(st, ast.AnnAssign):
            if isinstance(st.target, ast.Name) and st.value is not None:
                self.put(into, st.target.id, Binding("expr", st.value), conditional)
        elif type(st).__name__ == "TypeAlias":
            self.put(into, st.name.id, Binding("expr", st.value), conditional)
        elif isinstance(st, ast.AugAssign):
            if isinstance(st.target, ast.Name):
                self.mutate(st.target.id, st, conditional)
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            f = st.value.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr in MUTATING_METHODS:
                self.mutate(f.value.id, st, conditional)
        elif isinstance(st, ast.Delete):
            for t in st.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    self.mutate(t.value.id, st, conditional)
        elif isinstance(st, ast.If):
            t = st.test
            if is_type_checking(t):
                self.walk(st.orelse, conditional, into)
                self.walk(st.body, False, self.ns.typecheck)
            elif isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not) and is_type_checking(t.operand):
                self.walk(st.body, conditional, into)
            else:
                self.walk(st.body, True, into)
                self.walk(st.orelse, True, into)
        elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
            self.walk(st.body, conditional, into)
            for h in st.handlers:
                self.walk(h.body, True, into)
            self.walk(st.orelse, conditional, into)
            self.walk(st.finalbody, conditional, into)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            self.walk(st.body, conditional, into)

    def target(self, t, value, st, conditional, into):
        if isinstance(t, ast.Name):
            self.put(into, t.id, Binding("expr", value), conditional)
        elif isinstance(t, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in t.elts):
            for i, e in enumerate(t.elts):
                if isinstance(e, ast.Name):
                    self.put(into, e.id, Binding("expr", value, index=i), conditional)
        elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
            self.mutate(t.value.id, st, conditional)
