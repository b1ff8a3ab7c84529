"""Statements and calls: runs the release's functions abstractly, to see what parsers they build
and what values they compute, without importing or executing anything.

Semantics, where they differ from Python's:

- a function of the release is entered only when :meth:`Interpreter.should_enter` says so
  (by default: it receives a parser, it is small, or its name is in :attr:`relevant_names`);
  otherwise the call gives a :class:`~.values.Partial`;
- a condition that cannot be decided runs both branches (``unknown_depth`` counts them; a
  ``return`` / ``raise`` / ``break`` inside does not leave the function, and every return value
  is collected); a loop over an unknown iterable runs its body once with an unknown target;
- the environment is empty: ``os.environ.get("X", d)`` gives ``d`` marked with ``X``, and so
  does a function whose control flow depended on it;
- a class of the release called gives an :class:`~.values.Instance` after running its
  ``__init__`` (a dataclass without one takes its arguments as attributes);
- nothing outside the release is run: such calls give :class:`~.values.Partial`, except the
  builtins the evaluator knows and ``argparse`` (see :mod:`.argparse_model`).

Engines subclass :class:`Interpreter` and override :meth:`should_enter`, :meth:`hook_call` and
:meth:`class_attribute` to model what their release means by a call.
"""

from __future__ import annotations

import ast

from .argparse_model import ArgGroup, ArgParser, Subparsers, parser_method
from .evaluator import Evaluator, Frame
from .values import (BoundMethod, BuiltinMethod, ClassRef, External, FunctionRef, Instance, ModuleRef, Partial,
                     SuperProxy, Tainted, Unknown, taint, untaint)

__all__ = ["Interpreter", "argparse_relevant_names", "ARGPARSE_WORDS"]

ARGPARSE_WORDS = frozenset({"add_argument", "add_argument_group", "add_mutually_exclusive_group", "parse_args",
                            "parse_known_args", "add_cli_args", "add_arguments", "ArgumentParser",
                            "FlexibleArgumentParser", "add_parser", "add_subparsers"})


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Raise(Exception):
    pass


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Interpreter(Evaluator):
    max_depth = 40
    max_steps = 200000
    max_loop = 1000
    small_function = 40           # statements: a function this small is entered by default

    def __init__(self, tree):
        super().__init__(tree)
        self.stack: list[Frame] = []
        self.parsers: list[ArgParser] = []
        self.relevant_names: frozenset = frozenset()
        self.steps = 0
        self._small: dict[int, bool] = {}
        self._class_sets: dict = {}

    # -- policy (engines override) -------------------------------------------------------------
    def should_enter(self, func: FunctionRef, args, kwargs, bound=None) -> bool:
        """Whether to run ``func`` for this call rather than leave its result unknown (``bound``
        is the instance or class a method is bound to)."""
        return self.has_parser_arg(args, kwargs) or func.name in self.relevant_names or self.is_small(func)

    def hook_call(self, f, args, kwargs, frame, node):
        """An engine's meaning for a call; :data:`NotImplemented` leaves it to the interpreter."""
        return NotImplemented

    def should_init(self, cls: ClassRef) -> bool:
        """Whether instantiating ``cls`` runs its ``__init__``."""
        return True

    # -- helpers -------------------------------------------------------------------------------
    def is_small(self, func: FunctionRef) -> bool:
        key = id(func.node)
        r = self._small.get(key)
        if r is None:
            r = sum(1 for x in ast.walk(func.node) if isinstance(x, ast.stmt)) <= self.small_function
            self._small[key] = r
        return r

    @staticmethod
    def has_parser_arg(args, kwargs) -> bool:
        return any(isinstance(untaint(a)[0], (ArgParser, ArgGroup)) for a in list(args) + list(kwargs.values()))

    def in_unknown(self) -> bool:
        return any(f.unknown_depth > 0 for f in self.stack)

    def call_stack(self) -> list[FunctionRef]:
        return [f.func for f in self.stack if f.func is not None]

    def new_parser(self, kind, kwargs, frame, node, name=None, parent=None) -> ArgParser:
        plain = {k: untaint(v)[0] for k, v in kwargs.items()}
        if name is None and isinstance(plain.get("prog"), str):
            name = plain["prog"]
        func = self.stack[-1].func if self.stack and self.stack[-1].func is not None else None
        p = ArgParser(len(self.parsers), kind, plain, self.where(frame.module, node), self.in_unknown(),
                      func.qualname if func is not None else "<module>", frame.module, name, parent)
        self.parsers.append(p)
        return p

    def is_parser_class(self, cls: ClassRef) -> bool:
        return cls.name in ("ArgumentParser", "FlexibleArgumentParser") or any(
            n.endswith("argparse.ArgumentParser") for n in self.external_bases(cls))

    # -- running code --------------------------------------------------------------------------
    def run_module(self, module: str, as_main: bool = True):
        """Run the top-level statements of ``module`` (as ``__main__`` by default)."""
        tree = self.tree.parse(module)
        if tree is None:
            return
        self.overlays.setdefault(module, {})["__name__"] = "__main__" if as_main else module
        frame = Frame(module)
        self.stack.append(frame)
        try:
            self.exec_body(tree.body, frame)
        except (_Return, _Raise, _Break, _Continue):
            pass
        finally:
            self.stack.pop()

    def invoke(self, func: FunctionRef, args, kwargs, self_obj=None):
        """Run ``func`` with the arguments (``self_obj`` first, for a bound method)."""
        if not isinstance(func, FunctionRef):
            return Unknown("not a function of the release")
        if self.steps > self.max_steps or len(self.stack) > self.max_depth:
            return Unknown("too deep")
        self.steps += 1
        if sum(1 for fr in self.stack if fr.func is not None and fr.func.node is func.node) > 2:
            return Unknown("recursion")
        if isinstance(func.node, ast.Lambda):
            local = self.bind_args(func, args, dict(kwargs), self_obj)
            frame = Frame(func.module, local, func)
            self.stack.append(frame)
            try:
                return self.eval(func.node.body, frame)
            finally:
                self.stack.pop()
        local = self.bind_args(func, args, dict(kwargs), self_obj)
        bound_cls = self_obj.cls if isinstance(self_obj, Instance) else (self_obj if isinstance(self_obj, ClassRef) else None)
        frame = Frame(func.module, local, func, self_obj, bound_cls)
        self.stack.append(frame)
        try:
            self.exec_body(func.node.body, frame)
            result = None
            if frame.returns:
                result = frame.returns[0] if len(frame.returns) == 1 else Unknown("several returns")
        except _Return as r:
            result = r.value if not frame.returns else Unknown("several returns")
        except (_Raise, _Break, _Continue):
            result = Unknown("raised")
        finally:
            self.stack.pop()
        return taint(result, frame.ctrl)

    def bind_args(self, func: FunctionRef, args, kwargs, self_obj=None) -> dict:
        a = func.node.args
        local = {}
        params = list(a.posonlyargs) + list(a.args)
        args = list(args)
        if self_obj is not None:
            args = [self_obj] + args
        defaults = list(a.defaults)
        off = len(params) - len(defaults)
        dframe = Frame(func.module)
        for i, p in enumerate(params):
            if i < len(args):
                local[p.arg] = args[i]
            elif p.arg in kwargs:
                local[p.arg] = kwargs.pop(p.arg)
            elif i >= off:
                local[p.arg] = self.eval(defaults[i - off], dframe)
            else:
                local[p.arg] = Unknown(f"argument {p.arg}")
        if a.vararg is not None:
            local[a.vararg.arg] = tuple(args[len(params):])
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.arg in kwargs:
                local[p.arg] = kwargs.pop(p.arg)
            else:
                local[p.arg] = self.eval(d, dframe) if d is not None else Unknown(f"argument {p.arg}")
        if a.kwarg is not None:
            local[a.kwarg.arg] = dict(kwargs)
        return local

    # -- calls ---------------------------------------------------------------------------------
    def call(self, f, args, kwargs, frame, node):
        f, fenvs = untaint(f)
        r = self.hook_call(f, args, kwargs, frame, node)
        if r is not NotImplemented:
            return r
        if isinstance(f, BuiltinMethod) and isinstance(f.obj, (ArgParser, ArgGroup, Subparsers)):
            return parser_method(self, f.obj, f.name, args, kwargs, frame, node)
        if isinstance(f, BoundMethod):
            if self.should_enter(f.func, args, kwargs, bound=f.obj):
                return self.invoke(f.func, args, kwargs, self_obj=f.obj)
            return Partial(f, args, kwargs, node)
        if isinstance(f, FunctionRef):
            if isinstance(f.node, ast.Lambda) or self.should_enter(f, args, kwargs):
                return self.invoke(f, args, kwargs)
            return Partial(f, args, kwargs, node)
        if isinstance(f, ClassRef):
            return self.instantiate(f, args, kwargs, frame, node)
        if isinstance(f, External):
            return self.call_out(f, args, kwargs, frame, node)
        return super().call(f, args, kwargs, frame, node)

    def instantiate(self, cls: ClassRef, args, kwargs, frame, node):
        if self.is_enum(cls):
            return super().call(cls, args, kwargs, frame, node)
        if self.is_parser_class(cls):
            return self.new_parser(cls.qualname, kwargs, frame, node)
        inst = Instance(cls, args, kwargs, node)
        init = self.class_attr(cls, "__init__")
        if isinstance(init, FunctionRef) and self.should_init(cls):
            self.invoke(init, args, kwargs, self_obj=inst)
        elif not isinstance(init, FunctionRef):
            names = [f.name for f in self.dataclass_fields(cls, bases="all")]
            for n, v in zip(names, args):
                inst.attrs[n] = v
            inst.attrs.update(kwargs)
        return inst

    def call_out(self, f: External, args, kwargs, frame, node):
        """A call of something outside the release."""
        name, last = f.name, f.last
        if name == "builtins.super":
            if len(args) >= 2:
                c, o = untaint(args[0])[0], untaint(args[1])[0]
                return SuperProxy(c, o) if isinstance(c, ClassRef) else Unknown("super")
            fr = frame if frame is not None and frame.func is not None else None
            if fr is not None and fr.func.cls is not None and fr.self_obj is not None:
                return SuperProxy(fr.func.cls, fr.self_obj)
            return Unknown("super")
        if last.endswith("ArgumentParser"):
            return self.new_parser(name, kwargs, frame, node)
        targets = [untaint(a)[0] for a in list(args) + list(kwargs.values())]
        parsers = [t.parser if isinstance(t, ArgGroup) else t for t in targets if isinstance(t, (ArgParser, ArgGroup))]
        if parsers:
            from .values import deep_untaint
            from .astutil import dotted
            parsers[0].external_calls.append({
                "call": name, "text": (dotted(node.func) if isinstance(node, ast.Call) else None) or name,
                "where": self.where(frame.module, node) if frame else "?",
                "kwargs": {k: deep_untaint(v)[0] for k, v in kwargs.items()}, "conditional": self.in_unknown()})
            self.notes.append(f"external call {name}(parser) at {self.where(frame.module, node) if frame else '?'}")
            if last == "add_cli_args":
                return parsers[0]
        return super().call(f, args, kwargs, frame, node)

    def _getattr(self, base, attr, frame, node):
        if isinstance(base, (ArgParser, ArgGroup, Subparsers)):
            attrs = getattr(base, "attrs", {})
            return attrs[attr] if attr in attrs else BuiltinMethod(base, attr)
        return super()._getattr(base, attr, frame, node)

    # -- statements ----------------------------------------------------------------------------
    def exec_body(self, body, frame):
        for st in body:
            self.exec_stmt(st, frame)

    def exec_stmt(self, st, frame):
        t = type(st)
        if t is ast.Expr:
            self.eval(st.value, frame)
        elif t is ast.Assign:
            v = self.eval(st.value, frame)
            for tg in st.targets:
                self.assign(tg, v, frame)
        elif t is ast.AnnAssign:
            if st.value is not None:
                self.assign(st.target, self.eval(st.value, frame), frame)
        elif t is ast.AugAssign:
            self.exec_augassign(st, frame)
        elif t is ast.Delete:
            for tg in st.targets:
                if isinstance(tg, ast.Subscript):
                    base = untaint(self.eval(tg.value, frame))[0]
                    key = untaint(self.eval(tg.slice, frame))[0]
                    if isinstance(base, dict):
                        try:
                            base.pop(key, None)
                        except TypeError:
                            pass
        elif t is ast.If:
            self.exec_if(st, frame)
        elif t in (ast.For, ast.AsyncFor):
            self.exec_for(st, frame)
        elif t is ast.While:
            self.undecided([st.body], frame)
        elif t in (ast.With, ast.AsyncWith):
            for item in st.items:
                self.eval(item.context_expr, frame)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, Unknown("with"), frame)
            self.exec_body(st.body, frame)
        elif t is ast.Try or t.__name__ == "TryStar":
            self.exec_try(st, frame)
        elif t is ast.Return:
            v = self.eval(st.value, frame) if st.value is not None else None
            if frame.ctrl:
                v = Tainted(v, frame.ctrl)
            if frame.unknown_depth > 0:
                if frame.returns is None:
                    frame.returns = []
                frame.returns.append(v)
                return
            raise _Return(v)
        elif t is ast.Raise:
            if frame.unknown_depth == 0:
                raise _Raise()
        elif t is ast.Break:
            if frame.unknown_depth == 0:
                raise _Break()
        elif t is ast.Continue:
            if frame.unknown_depth == 0:
                raise _Continue()
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            closure = frame.locals if frame.locals is not None else None
            cls = frame.func.cls if frame.func is not None else None
            self.assign(ast.Name(id=st.name), FunctionRef(frame.module, st, None if closure is not None else cls,
                                                          closure), frame)
        elif t is ast.ClassDef:
            self.assign(ast.Name(id=st.name), ClassRef(frame.module, st), frame)
        elif t is ast.Import:
            for a in st.names:
                if a.asname:
                    v = ModuleRef(a.name) if self.tree.has(a.name) else External(a.name)
                    self.assign(ast.Name(id=a.asname), v, frame)
                else:
                    top = a.name.split(".")[0]
                    self.assign(ast.Name(id=top), ModuleRef(top) if self.tree.has(top) else External(top), frame)
        elif t is ast.ImportFrom:
            src = self.tree.resolve_from(frame.module, st.level, st.module)
            for a in st.names:
                if a.name == "*":
                    continue
                self.assign(ast.Name(id=a.asname or a.name), self.import_value(src, a.name), frame)
        elif t.__name__ == "Match":
            self.undecided([c.body for c in st.cases], frame)

    def exec_augassign(self, st, frame):
        cur = self.eval(st.target, frame)
        val = self.eval(st.value, frame)
        new = self.augment(st.op, cur, val)
        if isinstance(untaint(cur)[0], str) and isinstance(untaint(new)[0], Unknown):
            return      # text extended with something unknown: keep the known part
        self.assign(st.target, new, frame)

    def exec_if(self, st, frame):
        test = self.eval(st.test, frame)
        envs = untaint(test)[1]
        if envs:
            frame.ctrl |= envs
        tv = self.decide(test)
        if tv is True:
            self.exec_body(st.body, frame)
        elif tv is False:
            self.exec_body(st.orelse, frame)
        else:
            self.notes.append(f"undecided condition at {self.where(frame.module, st)}: {ast.unparse(st.test)[:80]}")
            self.undecided([st.body, st.orelse], frame)

    def undecided(self, bodies, frame):
        frame.unknown_depth += 1
        try:
            for body in bodies:
                try:
                    self.exec_body(body, frame)
                except (_Raise, _Break, _Continue):
                    pass
        finally:
            frame.unknown_depth -= 1

    def exec_for(self, st, frame):
        v, envs = untaint(self.eval(st.iter, frame))
        it = self.iterate(v)
        if it is None:
            self.notes.append(f"unknown loop at {self.where(frame.module, st)}")
            self.assign(st.target, Unknown("loop"), frame)
            self.undecided([st.body], frame)
            return
        broke = False
        for x in it[: self.max_loop]:
            self.assign(st.target, taint(x, envs), frame)
            try:
                self.exec_body(st.body, frame)
            except _Continue:
                continue
            except _Break:
                broke = True
                break
        if not broke:
            self.exec_body(st.orelse, frame)

    def exec_try(self, st, frame):
        try:
            self.exec_body(st.body, frame)
        except _Raise:
            for h in st.handlers:
                if h.name:
                    self.assign(ast.Name(id=h.name), Unknown("exception"), frame)
                try:
                    self.exec_body(h.body, frame)
                except _Raise:
                    pass
                break
        else:
            self.exec_body(st.orelse, frame)
        finally:
            self.exec_body(st.finalbody, frame)

    def assign(self, target, value, frame):
        if isinstance(target, ast.Name):
            if frame.locals is not None:
                frame.locals[target.id] = value
            else:
                self.overlays.setdefault(frame.module, {})[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            v, envs = untaint(value)
            elts = target.elts
            star = next((i for i, e in enumerate(elts) if isinstance(e, ast.Starred)), None)
            if isinstance(v, (list, tuple)) and star is None and len(v) == len(elts):
                for t, x in zip(elts, v):
                    self.assign(t, taint(x, envs), frame)
            elif isinstance(v, (list, tuple)) and star is not None and len(v) >= len(elts) - 1:
                after = len(elts) - star - 1
                for t, x in zip(elts[:star], v[:star]):
                    self.assign(t, taint(x, envs), frame)
                self.assign(elts[star].value, list(v[star:len(v) - after]), frame)
                for t, x in zip(elts[star + 1:], v[len(v) - after:]):
                    self.assign(t, taint(x, envs), frame)
            else:
                for t in elts:
                    self.assign(t.value if isinstance(t, ast.Starred) else t, Unknown("unpack"), frame)
        elif isinstance(target, ast.Attribute):
            obj = untaint(self.eval(target.value, frame))[0]
            if isinstance(obj, Instance):
                obj.attrs[target.attr] = value
            elif isinstance(obj, ArgParser):
                obj.attrs[target.attr] = value
            elif isinstance(obj, ClassRef):
                self.own_bindings(obj)[target.attr] = None
                self._own_values[(id(obj.node), target.attr)] = value
        elif isinstance(target, ast.Subscript):
            obj = untaint(self.eval(target.value, frame))[0]
            key = untaint(self.eval(target.slice, frame))[0]
            if isinstance(obj, External) and obj.name == "os.environ":
                if isinstance(key, str):
                    self.env_writes.append((key, self.where(frame.module, target)))
            elif isinstance(obj, dict) and not isinstance(key, Unknown):
                try:
                    obj[key] = value
                except TypeError:
                    pass
            elif isinstance(obj, list) and isinstance(key, int):
                try:
                    obj[key] = value
                except IndexError:
                    pass
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value, frame)

    def exec_mutation(self, stmt, frame):
        self.stack.append(frame)
        try:
            self.exec_stmt(stmt, frame)
        except (_Return, _Raise, _Break, _Continue):
            pass
        finally:
            self.stack.pop()


def argparse_relevant_names(tree, package: str, skip=("tests", "planner", "profiler")) -> frozenset:
    """Names of the functions and methods of ``package`` that call argparse (by name), directly
    or through other such functions: worth entering whatever their size."""
    defs: dict[str, set] = {}
    for rel in tree.files(package.replace(".", "/"), ".py", skip_dirs=tuple(skip)):
        t = tree.parse_file(rel)
        if t is None:
            continue
        for node in ast.walk(t):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                called = set()
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Call):
                        f = sub.func
                        if isinstance(f, ast.Attribute):
                            called.add(f.attr)
                        elif isinstance(f, ast.Name):
                            called.add(f.id)
                defs.setdefault(node.name, set()).update(called)
    relevant = {n for n, called in defs.items() if called & ARGPARSE_WORDS} | set(ARGPARSE_WORDS)
    changed = True
    while changed:
        changed = False
        for n, called in defs.items():
            if n not in relevant and called & relevant:
                relevant.add(n)
                changed = True
    return frozenset(relevant)
