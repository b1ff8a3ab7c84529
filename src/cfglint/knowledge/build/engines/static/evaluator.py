"""Expressions: what an expression of the release evaluates to, statically.

:class:`Evaluator` resolves names across the package tree (imports, relative imports, star
imports, submodules, ``TYPE_CHECKING``-only names for annotations), evaluates operators,
f-strings, comprehensions, subscripts (typing values included), attribute access and the
builtins and standard-library calls whose result follows from their arguments (``list``,
``sorted``, ``dict``, ``len``, ``typing.get_args``, ``copy.deepcopy``, ``itertools.permutations``
...). A call it cannot evaluate gives a :class:`~.values.Partial`; a name it cannot resolve an
:class:`~.values.Unknown`. Reads of ``os.environ`` return their default, marked
:class:`~.values.Tainted` with the variable's name, and are logged in :attr:`Evaluator.env_reads`.

Calls into the release's own functions and classes are the :mod:`.interpreter`'s business; this
class only knows their references.
"""

from __future__ import annotations

import ast

from .builtins import BuiltinsMixin, deep_copy
from .classes import ClassesMixin
from .frame import Frame
from .namespace import build_namespace
from .source import SourceTree
from .typeforms import TUnion, is_typeish, is_typing, make_generic
from .values import (BoundMethod, BuiltinMethod, ClassRef, DerivedClass, EnumMember, External,
                     FunctionRef, Instance, ModuleRef, OrderedSet, Partial, Record, RuntimeValues, SuperProxy, Tainted,
                     Unknown,
                     is_opaque, taint, untaint)

__all__ = ["Evaluator", "Frame", "external", "deep_copy", "SUPPRESS", "STDLIB_CONSTANTS"]

BUILTIN_NAMES = frozenset({
    "int", "float", "str", "bool", "dict", "list", "tuple", "set", "frozenset", "bytes", "object", "type",
    "complex", "callable", "len", "sorted", "range", "zip", "enumerate", "getattr", "hasattr", "setattr",
    "isinstance", "issubclass", "any", "all", "print", "super", "iter", "next", "max", "min", "repr", "abs",
    "round", "sum", "map", "filter", "reversed", "open", "id", "hash", "vars", "Exception", "ValueError",
    "TypeError", "RuntimeError", "KeyError", "AssertionError", "NotImplementedError", "ImportError",
    "AttributeError", "NotImplemented", "Ellipsis", "property", "staticmethod", "classmethod"})
_STR_METHODS = frozenset({"replace", "lower", "upper", "strip", "lstrip", "rstrip", "split", "rsplit", "join",
                          "startswith", "endswith", "format", "removeprefix", "removesuffix", "title",
                          "capitalize", "partition", "rpartition", "count", "find", "isdigit", "isupper",
                          "islower", "splitlines", "casefold", "zfill"})
_DICT_METHODS = frozenset({"items", "keys", "values", "get", "pop", "update", "copy", "setdefault"})
_LIST_METHODS = frozenset({"append", "extend", "copy", "index", "insert", "remove", "pop", "count", "sort",
                           "reverse", "add", "discard", "union", "difference", "intersection", "issubset"})
_MAX_ITEMS = 5000
SUPPRESS = "==SUPPRESS=="


# constants of the standard library whose value the evaluator uses as such
STDLIB_CONSTANTS = {"argparse.SUPPRESS": "==SUPPRESS==", "argparse.ZERO_OR_MORE": "*", "argparse.ONE_OR_MORE": "+",
                    "argparse.OPTIONAL": "?"}


def external(name: str):
    """The value of a name from outside the release: a known standard-library constant, else
    an :class:`~.values.External`."""
    return STDLIB_CONSTANTS.get(name, External(name)) if name in STDLIB_CONSTANTS else External(name)


class _Undecided(Exception):
    pass


class Evaluator(ClassesMixin, BuiltinsMixin):
    """Evaluates expressions of one release's source tree.

    Options an engine sets: ``argv`` (the value of ``sys.argv``, None for unknown),
    ``env_decides`` (whether a condition on an environment variable is decided with the
    variable unset, or left undecided), ``fstring_hole`` (the text put for an f-string part
    that cannot be evaluated; None makes the whole string unknown) and
    ``dataclass_decorators`` (decorator names that make a class a dataclass, beyond
    ``dataclass``).
    """

    argv: list | None = None
    env_decides: bool = False
    fstring_hole: str | None = None
    dataclass_decorators: frozenset = frozenset({"dataclass"})

    def __init__(self, tree: SourceTree):
        self.tree = tree
        self._namespaces: dict = {}
        self._globals: dict = {}
        self.overlays: dict[str, dict] = {}          # module -> names assigned by run code
        self.env_reads: list[tuple] = []              # (name, default, "file:line", how)
        self.env_writes: list[tuple] = []             # (name, "file:line")
        self.notes: list[str] = []
        # id(value) -> (value, [{"values": [...], "source": "file:line"}]): elements added to a
        # value under a condition that was not decided
        self.conditional_additions: dict[int, tuple] = {}
        ClassesMixin.__init__(self)

    # -- names -------------------------------------------------------------------------------
    def namespace(self, module: str):
        ns = self._namespaces.get(module)
        if ns is None:
            ns = build_namespace(module, self.tree.parse(module), self.tree.resolve_from)
            self._namespaces[module] = ns
        return ns

    def where(self, module: str, node) -> str:
        return f"{self.tree.relpath(module)}:{getattr(node, 'lineno', 0)}"

    def global_value(self, module: str, name: str):
        """The value ``name`` has at the top level of ``module`` (a submodule when the module
        binds no such name)."""
        ov = self.overlays.get(module)
        if ov is not None and name in ov:
            return ov[name]
        key = (module, name)
        if key in self._globals:
            return self._globals[key]
        self._globals[key] = Unknown(f"recursive {module}.{name}")
        val = self._resolve_global(module, name)
        self._globals[key] = val
        return val

    def _resolve_global(self, module, name):
        ns = self.namespace(module)
        b = ns.bindings.get(name)
        if b is not None:
            val = self.binding_value(module, b)
            muts = ns.mutations.get(name)
            if muts:
                val = self._apply_mutations(module, name, val, muts)
            return val
        for star in ns.stars:
            if self.tree.has(star):
                sns = self.namespace(star)
                if not name.startswith("_") and (name in sns.bindings or any(
                        self.tree.has(s) and name in self.namespace(s).bindings for s in sns.stars)):
                    return self.global_value(star, name)
        if self.tree.has(f"{module}.{name}"):
            return ModuleRef(f"{module}.{name}")
        tb = ns.typecheck.get(name)
        if tb is not None and tb.kind != "expr":      # a name imported for annotations only
            return self.binding_value(module, tb)
        if name in BUILTIN_NAMES or name in ("None", "True", "False"):
            return {"None": None, "True": True, "False": False}.get(name, External(f"builtins.{name}"))
        return Unknown(f"name {name} in {module}")

    def binding_value(self, module, b):
        if b.kind == "class":
            return ClassRef(module, b.node)
        if b.kind == "func":
            return FunctionRef(module, b.node)
        if b.kind == "module":
            return ModuleRef(b.src) if self.tree.has(b.src) else External(b.src)
        if b.kind == "import":
            return self.import_value(b.src, b.name)
        val = self.eval(b.node, Frame(module))
        if b.index is not None:
            v, envs = untaint(val)
            it = self.iterate(v)
            val = taint(it[b.index], envs) if it is not None and b.index < len(it) else Unknown("unpack")
        return val

    def import_value(self, src: str, name: str):
        """The value of ``from src import name``."""
        if self.tree.has(src):
            ns = self.namespace(src)
            if name in ns.bindings or name in ns.typecheck or ns.stars:
                v = self.global_value(src, name)
                if not (isinstance(v, Unknown) and self.tree.has(f"{src}.{name}")):
                    return v
            if self.tree.has(f"{src}.{name}"):
                return ModuleRef(f"{src}.{name}")
            return external(f"{src}.{name}")
        if self.tree.has(f"{src}.{name}"):
            return ModuleRef(f"{src}.{name}")
        return external(f"{src}.{name}")

    def module_attr(self, module: str, attr: str):
        return self.global_value(module, attr)

    def _apply_mutations(self, module, name, val, muts):
        for m in muts:
            v, _ = untaint(val)
            if m.conditional and self._is_removal(m.stmt):
                continue           # an element removed only under some condition may still be there
            before = list(v) if isinstance(v, (list, dict, tuple)) else None
            frame = Frame(module, locals={name: val})
            try:
                self.exec_mutation(m.stmt, frame)
            except Exception:      # a statement the evaluator cannot follow leaves the value as it was
                continue
            val = frame.locals.get(name, val)
            v, _ = untaint(val)
            if m.conditional and before is not None and isinstance(v, (list, dict)):
                added = [x for x in (list(v) if isinstance(v, list) else list(v.keys())) if x not in before]
                if added:
                    self.note_conditional(v, added, self.where(module, m.stmt))
        return val

    @staticmethod
    def _is_removal(stmt):
        if isinstance(stmt, ast.Delete):
            return True
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute):
            return stmt.value.func.attr in ("remove", "discard", "pop")
        return isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Sub)

    def note_conditional(self, container, added, where):
        from .values import deep_untaint
        rec = self.conditional_additions.setdefault(id(container), (container, []))
        rec[1].append({"values": [deep_untaint(x)[0] for x in added], "source": where})

    def exec_mutation(self, stmt, frame):
        """Run one in-place change of a module-level value (the interpreter runs statements;
        plain evaluation understands method calls, ``+=`` and item assignment)."""
        if isinstance(stmt, ast.Expr):
            self.eval(stmt.value, frame)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            cur = frame.locals[stmt.target.id]
            frame.locals[stmt.target.id] = self.augment(stmt.op, cur, self.eval(stmt.value, frame))
        elif isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Subscript):
                    base, _ = untaint(self.eval(t.value, frame))
                    key, _ = untaint(self.eval(t.slice, frame))
                    if isinstance(base, dict) and not is_opaque(key):
                        try:
                            base[key] = self.eval(stmt.value, frame)
                        except TypeError:
                            pass

    def augment(self, op, cur, val):
        """``cur <op>= val``: lists extend in place, anything else is rebound to ``cur <op> val``."""
        c, envs = untaint(cur)
        if isinstance(op, ast.Add) and isinstance(c, list):
            it = self.iterate(untaint(val)[0])
            if it is not None:
                c.extend(it)
                return cur
        if isinstance(op, ast.BitOr) and isinstance(c, dict) and isinstance(untaint(val)[0], dict):
            c.update(untaint(val)[0])
            return cur
        return self.binop(op, cur, val)

    def lookup(self, name: str, frame: Frame):
        if frame.locals is not None:
            if name in frame.locals:
                return frame.locals[name]
            if frame.func is not None and frame.func.closure and name in frame.func.closure:
                return frame.func.closure[name]
        if frame.class_scope is not None and self.class_binds(frame.class_scope, name):
            return self.own_class_attr(frame.class_scope, name)
        return self.global_value(frame.module, name)

    # -- expressions ---------------------------------------------------------------------------
    def eval(self, node, frame: Frame):
        if node is None:
            return None
        try:
            m = getattr(self, "_e_" + type(node).__name__, None)
            return m(node, frame) if m is not None else Unknown(type(node).__name__)
        except RecursionError:
            return Unknown("recursion")

    def _e_Constant(self, n, frame):
        return n.value

    def _e_Name(self, n, frame):
        return self.lookup(n.id, frame)

    def _elements(self, elts, frame):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v, envs = untaint(self.eval(e.value, frame))
                it = self.iterate(v)
                if it is None:
                    out.append(Unknown("starred"))
                else:
                    out.extend(taint(x, envs) for x in it)
            else:
                out.append(self.eval(e, frame))
        return out

    def _e_List(self, n, frame):
        return self._elements(n.elts, frame)

    def _e_Tuple(self, n, frame):
        return tuple(self._elements(n.elts, frame))

    def _e_Set(self, n, frame):
        return OrderedSet(self._elements(n.elts, frame))

    def _e_Dict(self, n, frame):
        d = {}
        for k, v in zip(n.keys, n.values):
            if k is None:
                sub = untaint(self.eval(v, frame))[0]
                if isinstance(sub, dict):
                    d.update(sub)
                continue
            kk = untaint(self.eval(k, frame))[0]
            try:
                d[kk] = self.eval(v, frame)
            except TypeError:
                pass
        return d

    def _e_JoinedStr(self, n, frame):
        parts, envs = [], set()
        for v in n.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
                continue
            x, e = untaint(self.eval(v.value, frame))
            envs |= e
            if isinstance(x, EnumMember):
                x = x.value
            text = None
            if x is None or isinstance(x, (str, int, float, bool)):
                spec = None
                if v.format_spec is not None:
                    spec = self._e_JoinedStr(v.format_spec, frame)
                    spec = untaint(spec)[0]
                try:
                    if v.conversion == ord("r"):
                        x = repr(x)
                    elif v.conversion == ord("s"):
                        x = str(x)
                    text = format(x, spec) if isinstance(spec, str) else (str(x) if spec is None else None)
                except (ValueError, TypeError):
                    text = None
            if text is None:
                if self.fstring_hole is None:
                    return Unknown("f-string")
                text = self.fstring_hole
            parts.append(text)
        return taint("".join(parts), envs)

    def _e_FormattedValue(self, n, frame):
        return self.eval(n.value, frame)

    def _e_UnaryOp(self, n, frame):
        v, envs = untaint(self.eval(n.operand, frame))
        if isinstance(n.op, ast.Not):
            t = self.decide(taint(v, envs))
            r = Unknown("not") if t is None else (not t)
        elif isinstance(n.op, ast.USub) and isinstance(v, (int, float)) and not isinstance(v, bool):
            r = -v
        elif isinstance(n.op, ast.UAdd) and isinstance(v, (int, float)):
            r = v
        elif isinstance(n.op, ast.Invert) and isinstance(v, int):
            r = ~v
        else:
            r = Unknown("unary")
        return taint(r, envs)

    def _e_BoolOp(self, n, frame):
        is_and = isinstance(n.op, ast.And)
        envs, last, undecided = set(), None, False
        for e in n.values:
            v = self.eval(e, frame)
            envs |= untaint(v)[1]
            t = self.decide(v)
            last = v
            if t is None:
                if not is_and:
                    return taint(Unknown("or"), envs)
                undecided = True
                continue
            if is_and and t is False:
                return taint(untaint(v)[0], envs)
            if not is_and and t is True:
                return taint(untaint(v)[0], envs)
        if undecided:
            return taint(Unknown("and"), envs)
        return taint(untaint(last)[0], envs)

    def _e_Compare(self, n, frame):
        left = self.eval(n.left, frame)
        envs, result = set(), True
        for op, comp in zip(n.ops, n.comparators):
            right = self.eval(comp, frame)
            lv, e1 = untaint(left)
            rv, e2 = untaint(right)
            envs |= e1 | e2
            r = self.compare(op, lv, rv, frame, n, envs)
            if r is None:
                return taint(Unknown("compare"), envs)
            if not r:
                result = False
            left = right
        return taint(result, envs)

    def compare(self, op, lv, rv, frame, node, envs):
        """One comparison of plain values: True / False, None when it cannot be decided."""
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(rv, External) and rv.name == "os.environ":
            name = self.log_env(lv, None, frame, node, "in")
            if name:
                envs.add(name)
            return isinstance(op, ast.NotIn)
        if isinstance(lv, (Unknown, Partial)) or isinstance(rv, (Unknown, Partial)):
            return None
        if isinstance(op, (ast.Is, ast.IsNot)):
            if lv is None or rv is None:
                other = rv if lv is None else lv
                if other is None:
                    same = True
                elif is_opaque(other) and not isinstance(other, (External, FunctionRef, ModuleRef, BoundMethod)):
                    return None
                else:
                    same = False
                return same if isinstance(op, ast.Is) else not same
            if isinstance(lv, bool) or isinstance(rv, bool) or isinstance(lv, EnumMember) or isinstance(rv, EnumMember):
                same = lv is rv or (type(lv) is type(rv) and lv == rv)
                return same if isinstance(op, ast.Is) else not same
            if isinstance(lv, External) and isinstance(rv, External):
                same = lv.name == rv.name
                return same if isinstance(op, ast.Is) else not same
            return None
        if isinstance(lv, External) or isinstance(rv, External):
            if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(lv, External) and isinstance(rv, External):
                same = lv.name == rv.name
                return same if isinstance(op, ast.Eq) else not same
            return None
        if is_opaque(lv) or is_opaque(rv):
            return None
        if isinstance(op, (ast.In, ast.NotIn)):
            if not isinstance(rv, (list, tuple, dict, str, set, frozenset)):
                return None
            if isinstance(rv, (list, tuple)) and any(is_opaque(untaint(x)[0]) for x in rv):
                if lv not in [untaint(x)[0] for x in rv]:
                    return None
            try:
                inside = lv in rv if not isinstance(rv, (list, tuple)) else lv in [untaint(x)[0] for x in rv]
            except TypeError:
                return None
            return inside if isinstance(op, ast.In) else not inside
        try:
            if isinstance(op, ast.Eq):
                return lv == rv
            if isinstance(op, ast.NotEq):
                return lv != rv
            ok = (int, float, tuple, str)
            if isinstance(lv, ok) and isinstance(rv, ok):
                return {ast.Lt: lambda: lv < rv, ast.LtE: lambda: lv <= rv, ast.Gt: lambda: lv > rv,
                        ast.GtE: lambda: lv >= rv}[type(op)]()
        except (TypeError, KeyError):
            return None
        return None

    def _e_BinOp(self, n, frame):
        return self.binop(n.op, self.eval(n.left, frame), self.eval(n.right, frame))

    def binop(self, op, a, b):
        av, e1 = untaint(a)
        bv, e2 = untaint(b)
        return taint(self._binop(op, av, bv), e1 | e2)

    def _binop(self, op, a, b):
        num = (int, float)
        try:
            if isinstance(op, ast.BitOr):
                if isinstance(a, OrderedSet) and isinstance(b, (list, tuple)):
                    return OrderedSet(list(a) + list(b))
                if isinstance(a, dict) and isinstance(b, dict):
                    return {**a, **b}
                if type(a) is int and type(b) is int:
                    return a | b
                if is_typeish(a) or is_typeish(b):
                    return TUnion([a, b])
            elif isinstance(op, ast.Add):
                if isinstance(a, list) and isinstance(b, Unknown):
                    return a + [Unknown("partial")]
                if isinstance(b, list) and isinstance(a, Unknown):
                    return [Unknown("partial")] + b
                if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
                    return type(a)(list(a) + list(b)) if type(a) is type(b) else list(a) + list(b)
                if isinstance(a, str) and isinstance(b, str):
                    return a + b
                if isinstance(a, num) and isinstance(b, num):
                    return a + b
            elif isinstance(op, ast.Sub):
                if isinstance(a, num) and isinstance(b, num):
                    return a - b
                if isinstance(a, OrderedSet) and isinstance(b, (list, tuple)):
                    return OrderedSet(x for x in a if x not in b)
            elif isinstance(op, ast.Mult):
                if isinstance(a, num) and isinstance(b, num):
                    return a * b
                if isinstance(a, (str, list)) and isinstance(b, int) and 0 <= b < 1000:
                    return a * b
            elif isinstance(op, ast.Div) and isinstance(a, num) and isinstance(b, num) and b:
                return a / b
            elif isinstance(op, ast.FloorDiv) and isinstance(a, num) and isinstance(b, num) and b:
                return a // b
            elif isinstance(op, ast.Mod):
                if isinstance(a, num) and isinstance(b, num) and b:
                    return a % b
                if isinstance(a, str) and not is_opaque(b) and not (isinstance(b, tuple) and any(map(is_opaque, b))):
                    return a % b
            elif isinstance(op, ast.Pow) and isinstance(a, num) and isinstance(b, num) and abs(b) < 100:
                return a ** b
            elif isinstance(op, ast.LShift) and isinstance(a, int) and isinstance(b, int) and 0 <= b < 100:
                return a << b
            elif isinstance(op, ast.BitAnd) and isinstance(a, int) and isinstance(b, int):
                return a & b
        except (TypeError, ValueError, OverflowError, ZeroDivisionError):
            return Unknown("binop")
        return Unknown("binop")

    def _e_IfExp(self, n, frame):
        test = self.eval(n.test, frame)
        envs = untaint(test)[1]
        t = self.decide(test)
        if t is True:
            return taint(self.eval(n.body, frame), envs)
        if t is False:
            return taint(self.eval(n.orelse, frame), envs)
        a, b = untaint(self.eval(n.body, frame))[0], untaint(self.eval(n.orelse, frame))[0]
        if not is_opaque(a) and type(a) is type(b):
            try:
                if a == b:
                    return taint(a, envs)
            except Exception:
                pass
        return taint(Unknown("ifexp"), envs)

    def _e_Attribute(self, n, frame):
        return self.getattr(self.eval(n.value, frame), n.attr, frame, n)

    def getattr(self, base, attr: str, frame: Frame | None = None, node=None):
        b, envs = untaint(base)
        return taint(self._getattr(b, attr, frame, node), envs)

    def _getattr(self, base, attr, frame, node):
        if isinstance(base, RuntimeValues):
            return base
        if isinstance(base, ModuleRef):
            return self.module_attr(base.name, attr)
        if isinstance(base, External):
            name = f"{base.name}.{attr}"
            if name == "sys.argv" and self.argv is not None:
                return list(self.argv)
            if attr == "TYPE_CHECKING" and base.name in ("typing", "typing_extensions"):
                return False
            return external(name)
        if isinstance(base, ClassRef):
            return self.class_attribute(base, attr)
        if isinstance(base, Instance):
            return self.instance_attr(base, attr)
        if isinstance(base, SuperProxy):
            return self.super_attr(base, attr)
        if isinstance(base, EnumMember):
            if attr == "value":
                return base.value
            if attr == "name":
                return base.name
            return self.getattr(base.cls, attr)
        if isinstance(base, Record):
            return base.attrs.get(attr, Unknown(f"{base.kind}.{attr}"))
        if isinstance(base, str) and attr in _STR_METHODS:
            return BuiltinMethod(base, attr)
        if isinstance(base, dict) and attr in _DICT_METHODS:
            return BuiltinMethod(base, attr)
        if isinstance(base, (list, tuple)) and attr in _LIST_METHODS:
            return BuiltinMethod(base, attr)
        if isinstance(base, (FunctionRef, ClassRef)) and attr == "__name__":
            return base.name
        return Unknown(f"attr {attr}")

    def class_attribute(self, cls: ClassRef, attr: str):
        """``Cls.attr``: a classmethod comes bound to the class."""
        v = self.class_attr(cls, attr)
        if isinstance(v, FunctionRef) and "classmethod" in v.decorators():
            return BoundMethod(v, cls)
        return v

    def instance_attr(self, inst: Instance, attr: str):
        if attr in inst.attrs:
            return inst.attrs[attr]
        if attr == "__class__":
            return inst.cls
        v = self.class_attr(inst.cls, attr)
        if isinstance(v, FunctionRef):
            decos = v.decorators()
            if "staticmethod" in decos:
                return v
            if "classmethod" in decos:
                return BoundMethod(v, inst.cls)
            if "property" in decos or "cached_property" in decos:
                return self.call(BoundMethod(v, inst), [], {}, None, None)
            return BoundMethod(v, inst)
        return v

    def super_attr(self, proxy: SuperProxy, attr: str):
        owner = proxy.obj.cls if isinstance(proxy.obj, Instance) else proxy.obj
        mro = self.mro(owner) if isinstance(owner, ClassRef) else [proxy.cls]
        names = [c.qualname for c in mro]
        start = names.index(proxy.cls.qualname) + 1 if proxy.cls.qualname in names else 1
        for c in mro[start:]:
            if self.class_binds(c, attr):
                v = self.own_class_attr(c, attr)
                if isinstance(v, FunctionRef):
                    decos = v.decorators()
                    if "staticmethod" in decos:
                        return v
                    if "classmethod" in decos:
                        return BoundMethod(v, owner)
                    return BoundMethod(v, proxy.obj)
                return v
        return Unknown(f"super().{attr}")

    def _e_Subscript(self, n, frame):
        base, envs = untaint(self.eval(n.value, frame))
        sl = n.slice
        if is_typing(base):
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            return make_generic(base, [self.type_arg(e, frame) for e in elts])
        key, e2 = untaint(self.eval(sl, frame))
        envs |= e2
        if isinstance(base, External) and base.name == "os.environ":
            name = self.log_env(key, None, frame, n, "subscript")
            return Tainted(Unknown("environment"), {name} if name else envs)
        if isinstance(base, (dict, list, tuple, str)) and not is_opaque(key):
            try:
                if isinstance(base, dict) and key not in base:
                    return taint(Unknown("subscript"), envs)
                return taint(base[key], envs)
            except (KeyError, IndexError, TypeError, ValueError):
                pass
        return taint(Unknown("subscript"), envs)

    def type_arg(self, e, frame):
        """A typing argument: a string stays text (a ``Literal`` value or a forward reference)."""
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return e.value
        if isinstance(e, ast.List):
            return [self.type_arg(x, frame) for x in e.elts]
        return self.eval(e, frame)

    def _e_Slice(self, n, frame):
        parts = [untaint(self.eval(x, frame))[0] if x is not None else None for x in (n.lower, n.upper, n.step)]
        if any(not (p is None or isinstance(p, int)) for p in parts):
            return Unknown("slice")
        return slice(*parts)

    def _e_Starred(self, n, frame):
        return self.eval(n.value, frame)

    def _e_Await(self, n, frame):
        return self.eval(n.value, frame)

    def _e_Yield(self, n, frame):
        if n.value is not None:
            self.eval(n.value, frame)
        return Unknown("yield")

    _e_YieldFrom = _e_Yield

    def _e_NamedExpr(self, n, frame):
        v = self.eval(n.value, frame)
        if frame.locals is not None and isinstance(n.target, ast.Name):
            frame.locals[n.target.id] = v
        return v

    def _e_Lambda(self, n, frame):
        return FunctionRef(frame.module, n, None, dict(frame.locals) if frame.locals is not None else None)

    def _e_Call(self, n, frame):
        f = self.eval(n.func, frame)
        args = []
        for a in n.args:
            if isinstance(a, ast.Starred):
                v, envs = untaint(self.eval(a.value, frame))
                it = self.iterate(v)
                args.extend([taint(x, envs) for x in it] if it is not None else [Unknown("*args")])
            else:
                args.append(self.eval(a, frame))
        kwargs = {}
        for k in n.keywords:
            v = self.eval(k.value, frame)
            if k.arg is None:
                d = untaint(v)[0]
                if isinstance(d, dict):
                    kwargs.update({kk: vv for kk, vv in d.items() if isinstance(kk, str)})
            else:
                kwargs[k.arg] = v
        return self.call(f, args, kwargs, frame, n)

    # -- comprehensions ------------------------------------------------------------------------
    def _comp(self, n, frame, emit):
        def rec(i, fr):
            if i == len(n.generators):
                return emit(fr)
            g = n.generators[i]
            v, envs = untaint(self.eval(g.iter, fr))
            it = self.iterate(v)
            if it is None:
                raise _Undecided()
            out = []
            for x in it[:_MAX_ITEMS]:
                fr2 = Frame(fr.module, dict(fr.locals or {}), fr.func, fr.self_obj, fr.bound_cls, fr.class_scope)
                if not self.bind_target(g.target, taint(x, envs), fr2.locals):
                    raise _Undecided()
                keep = True
                for cond in g.ifs:
                    t = self.decide(self.eval(cond, fr2))
                    if t is None:
                        raise _Undecided()
                    if not t:
                        keep = False
                        break
                if keep:
                    out.extend(rec(i + 1, fr2))
            return out
        try:
            return rec(0, frame)
        except _Undecided:
            return None

    def _e_ListComp(self, n, frame):
        r = self._comp(n, frame, lambda fr: [self.eval(n.elt, fr)])
        return Unknown("comprehension") if r is None else r

    _e_GeneratorExp = _e_ListComp

    def _e_SetComp(self, n, frame):
        r = self._comp(n, frame, lambda fr: [self.eval(n.elt, fr)])
        return Unknown("comprehension") if r is None else OrderedSet(r)

    def _e_DictComp(self, n, frame):
        r = self._comp(n, frame, lambda fr: [(self.eval(n.key, fr), self.eval(n.value, fr))])
        if r is None:
            return Unknown("comprehension")
        try:
            return {untaint(k)[0]: v for k, v in r}
        except TypeError:
            return Unknown("dictcomp")

    def bind_target(self, target, value, store: dict) -> bool:
        """Bind a for/comprehension target (a name or a tuple of names) in ``store``."""
        if isinstance(target, ast.Name):
            store[target.id] = value
            return True
        if isinstance(target, (ast.Tuple, ast.List)):
            v, envs = untaint(value)
            if isinstance(v, EnumMember) or not isinstance(v, (list, tuple)) or len(v) != len(target.elts):
                return False
            return all(self.bind_target(t, taint(x, envs), store) for t, x in zip(target.elts, v))
        return False

    # -- truth and iteration ---------------------------------------------------------------------
    def truth(self, v):
        """Python truth of a value: True / False, None when it cannot be known."""
        v = untaint(v)[0]
        if isinstance(v, (Unknown, Partial, External, BuiltinMethod, RuntimeValues)):
            return None
        if isinstance(v, (ClassRef, ModuleRef, FunctionRef, BoundMethod, Instance, EnumMember, DerivedClass,
                          Record, SuperProxy)):
            return True
        try:
            return bool(v)
        except Exception:
            return None

    def decide(self, v):
        """The truth of a condition: like :meth:`truth`, but a value that depends on an
        environment variable is undecided unless :attr:`env_decides`."""
        if isinstance(v, Tainted) and not self.env_decides:
            return None
        return self.truth(v)

    def iterate(self, v):
        """The elements iterating ``v`` gives (a dict its keys, an enum class its members), None
        when unknown."""
        v = untaint(v)[0]
        if isinstance(v, (list, tuple)):
            return list(v)
        if isinstance(v, dict):
            return list(v.keys())
        if isinstance(v, str):
            return list(v)
        if isinstance(v, range):
            return list(v)[:_MAX_ITEMS]
        if isinstance(v, ClassRef) and self.is_enum(v):
            return self.enum_members(v)
        return None

    # -- the environment -------------------------------------------------------------------------
    def log_env(self, name, default, frame, node, how):
        n = untaint(name)[0]
        if isinstance(n, str):
            from .values import deep_untaint
            self.env_reads.append((n, deep_untaint(default)[0], self.where(frame.module, node) if frame else "?", how))
            return n
        return None

    # -- calls -------------------------------------------------------------------------------------
    def call(self, f, args, kwargs, frame, node):
        """The value of ``f(*args, **kwargs)``; the interpreter adds calls into the release."""
        f, fenvs = untaint(f)
        if isinstance(f, RuntimeValues):
            return f
        if isinstance(f, BuiltinMethod):
            return self.call_method(f.obj, f.name, args, kwargs, frame, node)
        if isinstance(f, External):
            return self.call_external(f, args, kwargs, frame, node)
        if isinstance(f, ClassRef):
            if self.is_enum(f) and args:
                v = untaint(args[0])[0]
                for m in self.enum_members(f):
                    if m.value == v or (isinstance(v, EnumMember) and v == m):
                        return m
                return Unknown("enum value")
            return Instance(f, args, kwargs, node)
        if isinstance(f, (FunctionRef, BoundMethod)):
            return Partial(f, args, kwargs, node)
        return Unknown("call")
