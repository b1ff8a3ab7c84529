"""Characters of a YAML scalar -> their (line, column) in the file, so a word of a command
found inside a scalar (plain, quoted or block) is reported at its exact column."""

from __future__ import annotations

from ...model import Span
from ..yamlsrc import YScalar


def scalar_positions(node: YScalar, lines: list[str]) -> list[tuple[int, int]] | None:
    """(line, column) of each character of a string scalar's value in the file (``lines``:
    the file's lines), or None when they cannot be placed one by one (escapes, a folded scalar
    whose text differs from its source). Handles plain and quoted scalars on one line, literal
    block scalars (``|``), and folded, multi-line plain and multi-line quoted scalars (without
    escapes) whose lines are their source lines without indentation, joined as YAML folds them."""
    value = node.text
    s = node.span
    if s.line < 1 or s.end_line > len(lines) + 1:
        return None
    if s.line == s.end_line:
        src = lines[s.line - 1][s.col - 1:s.end_col - 1]
        if src == value:
            return [(s.line, s.col + i) for i in range(len(value))]
        if len(src) >= 2 and src[0] in "'\"" and src[-1] == src[0] and src[1:-1] == value:
            return [(s.line, s.col + 1 + i) for i in range(len(value))]
        return None
    first = lines[s.line - 1][s.col - 1:]
    block = first[:1] in ("|", ">")
    pieces: list[tuple[int, int, str]] = []   # (line, col, text) of each source line's content
    quote = first[:1] if first[:1] in ("'", '"') else ""
    if not block:
        head = first.rstrip()
        # a quoted scalar over several lines folds like a plain one; escapes ('' or \) are not placed
        pieces.append((s.line, s.col + len(quote), head[len(quote):]))
    for ln in range(s.line + 1, min(s.end_line, len(lines)) + 1):
        text = lines[ln - 1]
        if ln == s.end_line:
            text = text[:s.end_col - 1]
            if quote:
                if not text.endswith(quote):
                    return None
                text = text[:-1]
        stripped = text.lstrip(" \t")
        pieces.append((ln, len(text) - len(stripped) + 1, stripped))
    if quote and any(("\\" in t) if quote == '"' else ("''" in t) for _ln, _c, t in pieces):
        return None
    out: list[tuple[int, int]] = []
    pos = 0
    if first[:1] == "|":
        # literal: each value line is a source line without the block's indentation
        indent = min((c for _ln, c, t in pieces if t.strip()), default=1)
        for ln, _c, _t in pieces:
            raw = lines[ln - 1]
            content = raw[indent - 1:] if len(raw) >= indent - 1 else ""
            if pos >= len(value):
                break
            end = value.find("\n", pos)
            line_value = value[pos:] if end < 0 else value[pos:end]
            if not content.startswith(line_value):
                return None
            out += [(ln, indent + i) for i in range(len(line_value))]
            pos += len(line_value)
            if end >= 0:
                out.append((ln, indent + len(line_value)))
                pos += 1
        return out if len(out) == len(value) else None
    # folded or multi-line plain: each non-empty source line's text in order, joined by breaks
    last = (s.line, s.col)
    for ln, c, t in pieces:
        t = t.rstrip()
        if not t:
            continue
        while pos < len(value) and value[pos] in " \n":
            out.append(last)
            pos += 1
        if not value.startswith(t, pos):
            return None
        out += [(ln, c + i) for i in range(len(t))]
        pos += len(t)
        last = (ln, c + len(t))
    while pos < len(value) and value[pos] in " \n":
        out.append(last)
        pos += 1
    return out if len(out) == len(value) else None


def span_of(where: list[tuple[int, int]], a: int, b: int, path: str, fallback: Span) -> Span:
    """The span in ``path`` of characters ``a`` to ``b`` (exclusive) of a text whose characters
    are at ``where``; ``fallback`` when they cannot be placed."""
    if not where or a >= len(where) or b <= a:
        return fallback
    (l1, c1), (l2, c2) = where[a], where[b - 1]
    return Span(path, l1, c1, l2, c2 + 1)
