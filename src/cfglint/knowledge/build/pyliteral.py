"""A static reader of Python modules that build tables of literals (lists of ``dict(...)``,
loops that copy and rename them): the module's statements are walked as an AST and only a
small, side-effect-free subset is evaluated; nothing is imported or executed.

Supported, at module level: assignments to names and to subscripts (``x["k"] = v``),
``x.append(v)`` / ``x.extend(v)`` / ``x.update(v)`` calls, ``for`` loops over lists or tuples
(with tuple targets, ``if`` / ``continue`` / ``break`` inside), ``if`` on comparisons; in
expressions: constants, lists, tuples, dicts, ``dict(k=v)``, ``deepcopy(x)`` / ``copy(x)``,
names bound earlier, subscripts, f-strings, ``str.format``, ``+`` / ``*`` / ``-`` / ``//`` on
numbers and strings, ``%``, ``==`` / ``!=`` / ``in`` / ``not in`` / ``is None``, ``and`` / ``or`` / ``not``,
``a if c else b``, one-loop list comprehensions over a list or a bounded ``range(n)``. Imports, function and class definitions are skipped. Anything else raises
:class:`Unsupported` (with the line), so a new construct in a new release is an error of the
generator, never a silently wrong table.
"""

from __future__ import annotations

import ast
import copy
import operator
from typing import Any


class Unsupported(ValueError):
    """A statement or expression outside the supported subset (message names the line)."""


class _Continue(Exception):
    pass


class _Break(Exception):
    pass


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Div: operator.truediv, ast.Mod: operator.mod}
MAX_RANGE = 100_000   # range(n) in a comprehension: a table of layers, not a loop to run
_CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.In: lambda a, b: a in b,
           ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not,
           ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}


def class_defaults(tree: ast.Module, class_name: str) -> dict[str, Any]:
    """``{field: default}`` of the annotated fields of ``class_name`` whose default is a literal
    (``n_head: int = 32``); fields without a literal default are left out."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            out = {}
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                    try:
                        out[stmt.target.id] = ast.literal_eval(stmt.value)
                    except ValueError:
                        continue
            return out
    raise Unsupported(f"class {class_name} not found")


def run_module(tree: ast.Module, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The names the module binds at top level, evaluated in the supported subset; top-level
    assignments to a name in ``skip`` (an index the caller does not need) are not evaluated.
    Raises :class:`Unsupported`."""
    env: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) and t.id in skip for t in stmt.targets):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue   # a docstring
        _exec(stmt, env)
    return env


def _exec(stmt: ast.stmt, env: dict) -> None:
    if isinstance(stmt, ast.Assign):
        value = _eval(stmt.value, env)
        for target in stmt.targets:
            _assign(target, value, env)
    elif isinstance(stmt, ast.Expr):
        _eval(stmt.value, env, statement=True)
    elif isinstance(stmt, ast.For):
        if stmt.orelse:
            raise Unsupported(f"line {stmt.lineno}: for ... else")
        for item in list(_eval(stmt.iter, env)):
            _assign(stmt.target, item, env)
            try:
                for inner in stmt.body:
                    _exec(inner, env)
            except _Continue:
                continue
            except _Break:
                break
    elif isinstance(stmt, ast.If):
        for inner in (stmt.body if _eval(stmt.test, env) else stmt.orelse):
            _exec(inner, env)
    elif isinstance(stmt, ast.Continue):
        raise _Continue
    elif isinstance(stmt, ast.Break):
        raise _Break
    elif isinstance(stmt, ast.Pass):
        return
    else:
        raise Unsupported(f"line {stmt.lineno}: {type(stmt).__name__} statement")


def _assign(target: ast.expr, value: Any, env: dict) -> None:
    if isinstance(target, ast.Name):
        env[target.id] = value
    elif isinstance(target, ast.Tuple):
        values = list(value)
        if len(values) != len(target.elts):
            raise Unsupported(f"line {target.lineno}: unpacking {len(values)} values into {len(target.elts)}")
        for t, v in zip(target.elts, values):
            _assign(t, v, env)
    elif isinstance(target, ast.Subscript):
        container = _eval(target.value, env)
        container[_eval(target.slice, env)] = value
    else:
        raise Unsupported(f"line {target.lineno}: assignment to {type(target).__name__}")


def _eval(node: ast.expr, env: dict, statement: bool = False) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        if node.id in ("None", "True", "False"):
            return {"None": None, "True": True, "False": False}[node.id]
        raise Unsupported(f"line {node.lineno}: name {node.id} not bound to a literal")
    if isinstance(node, ast.List):
        return [_eval(e, env) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_eval(e, env) for e in node.elts)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Unsupported(f"line {node.lineno}: ** in a dict literal")
        return {_eval(k, env): _eval(v, env) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue) and v.format_spec is None and v.conversion == -1:
                parts.append(str(_eval(v.value, env)))
            else:
                raise Unsupported(f"line {node.lineno}: f-string with a conversion or format spec")
        return "".join(parts)
    if isinstance(node, ast.Subscript):
        return _eval(node.value, env)[_eval(node.slice, env)]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _eval(node.operand, env)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, env)
    if isinstance(node, ast.BoolOp):
        values = [_eval(v, env) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, env)
            if type(op) not in _CMPOPS or not _CMPOPS[type(op)](left, right):
                if type(op) not in _CMPOPS:
                    raise Unsupported(f"line {node.lineno}: comparison {type(op).__name__}")
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body, env) if _eval(node.test, env) else _eval(node.orelse, env)
    if isinstance(node, ast.ListComp):
        return _listcomp(node, env)
    if isinstance(node, ast.Call):
        return _call(node, env, statement)
    raise Unsupported(f"line {node.lineno}: {type(node).__name__} expression")


def _listcomp(node: ast.ListComp, env: dict) -> list:
    if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async:
        raise Unsupported(f"line {node.lineno}: comprehension with several loops or conditions")
    gen = node.generators[0]
    it = gen.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords:
        bounds = [_eval(a, env) for a in it.args]
        if not all(isinstance(b, int) for b in bounds) or not 1 <= len(bounds) <= 3:
            raise Unsupported(f"line {node.lineno}: range() of non-integers")
        items = range(*bounds)
        if len(items) > MAX_RANGE:
            raise Unsupported(f"line {node.lineno}: range of {len(items)} items")
    else:
        items = list(_eval(it, env))
    out = []
    for item in items:
        inner = dict(env)
        _assign(gen.target, item, inner)
        out.append(_eval(node.elt, inner))
    return out


def _call(node: ast.Call, env: dict, statement: bool) -> Any:
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise Unsupported(f"line {node.lineno}: *args / **kwargs")
    args = [_eval(a, env) for a in node.args]
    kwargs = {k.arg: _eval(k.value, env) for k in node.keywords}
    func = node.func
    if isinstance(func, ast.Name):
        if func.id == "dict" and not args:
            return kwargs
        if func.id in ("deepcopy", "copy") and len(args) == 1 and not kwargs:
            return copy.deepcopy(args[0])
        if func.id in ("list", "tuple") and len(args) == 1 and not kwargs:
            return list(args[0]) if func.id == "list" else tuple(args[0])
        raise Unsupported(f"line {node.lineno}: call of {func.id}")
    if isinstance(func, ast.Attribute):
        obj = _eval(func.value, env)
        name = func.attr
        if isinstance(obj, str) and name in ("format", "lower", "upper", "replace") and not kwargs:
            return getattr(obj, name)(*args)
        if isinstance(obj, list) and name in ("append", "extend") and statement and len(args) == 1 and not kwargs:
            getattr(obj, name)(args[0])
            return None
        if isinstance(obj, dict) and name == "update" and statement and len(args) <= 1:
            obj.update(*args, **kwargs)
            return None
        if isinstance(obj, dict) and name in ("get", "copy") and not kwargs:
            return copy.deepcopy(getattr(obj, name)(*args))
        raise Unsupported(f"line {node.lineno}: method {name} of {type(obj).__name__}")
    raise Unsupported(f"line {node.lineno}: call of {type(func).__name__}")
