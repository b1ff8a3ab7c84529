"""Static reading helpers of the kernel-matrix build: parse a release's Python files (never import
them), find classes and their literal returns, and turn capability / backend tests into the
condition trees of :mod:`cfglint.knowledge.kernelmatrix`."""

from __future__ import annotations

import ast
from pathlib import Path


def parse(path: Path) -> ast.Module | None:
    """The module AST of ``path``, None when it does not parse (a file of another Python)."""
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError):
        return None


def py_files(root: Path, *rels: str) -> list[Path]:
    """The .py files under each ``root/rel`` (a file or a directory), sorted, existing ones only."""
    out: list[Path] = []
    for rel in rels:
        p = root / rel
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            out.extend(sorted(p.rglob("*.py")))
    return out


def string(node) -> str | None:
    """The text of a str constant, or of an f-string with its placeholders as ``{...}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = string(node.left), string(node.right)
        return a + b if a is not None and b is not None else None
    return None


def literal(node):
    """A literal int / str / bool / list / tuple of those, or None."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def methods(cls: ast.ClassDef) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def body_without_doc(fn: ast.FunctionDef) -> list[ast.stmt]:
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return body


def single_return(fn: ast.FunctionDef):
    """The expression of a method whose body (docstring aside) is one ``return EXPR``, else None."""
    body = body_without_doc(fn)
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


def last_return(fn: ast.FunctionDef):
    """The expression of the last top-level ``return`` of a method (the default branch after
    platform guards), else None."""
    body = body_without_doc(fn)
    if body and isinstance(body[-1], ast.Return) and body[-1].value is not None:
        return body[-1].value
    return None


def first_doc_line(fn: ast.FunctionDef) -> str | None:
    doc = ast.get_docstring(fn)
    return doc.strip().splitlines()[0] if doc else None


def message(node) -> str | None:
    """The message of a ``raise X("...")`` / assert: its first string argument."""
    if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
        return string(node.exc.args[0])
    if isinstance(node, ast.Assert) and node.msg is not None:
        return string(node.msg)
    return None


def attr_tail(node) -> str | None:
    """``self.x`` / ``view.x`` / ``resolved_view(a).x`` -> ``x``; a bare name -> the name."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None
