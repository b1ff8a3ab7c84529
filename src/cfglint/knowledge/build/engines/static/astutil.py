"""Small helpers on Python syntax trees."""

from __future__ import annotations

import ast

__all__ = ["dotted", "last_name", "unparse", "literal", "const_str", "short", "keyword", "strings_in"]


def dotted(node: ast.AST | None) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def last_name(node: ast.AST | None) -> str:
    """The last component of a dotted name (``c`` of ``a.b.c``), "" for anything else."""
    d = dotted(node)
    return d.rsplit(".", 1)[-1] if d else ""


def unparse(node: ast.AST | None) -> str | None:
    """Source text of ``node`` (normalised by :func:`ast.unparse`), None for None."""
    if node is None:
        return None
    try:
        return ast.unparse(node)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None


_NOTHING = object()


def literal(node: ast.AST | None, default=None):
    """The value of a literal expression made JSON-able (sets sorted, tuples as lists), else
    ``default``."""
    if node is None:
        return default
    try:
        v = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return default
    return _jsonable_literal(v, default)


def _jsonable_literal(v, default):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (set, frozenset)):
        return sorted((_jsonable_literal(x, default) for x in v), key=repr)
    if isinstance(v, (list, tuple)):
        return [_jsonable_literal(x, default) for x in v]
    if isinstance(v, dict):
        if all(isinstance(k, str) for k in v):
            return {k: _jsonable_literal(x, default) for k, x in v.items()}
        return default
    return default


def const_str(node: ast.AST | None) -> str | None:
    """The string of a string constant, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def keyword(call: ast.Call, name: str) -> ast.AST | None:
    """The value node of keyword argument ``name`` of ``call``, else None."""
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def strings_in(node: ast.AST | None) -> list[str]:
    """Every string constant below ``node`` (f-string constant parts included), in order."""
    if node is None:
        return []
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def short(text, limit: int = 160) -> str | None:
    """``text`` with runs of whitespace collapsed, cut to ``limit`` characters ("..." marks a cut)."""
    if text is None:
        return None
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."
