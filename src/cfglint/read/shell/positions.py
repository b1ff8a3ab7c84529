"""Where each byte of a parsed text is: tree-sitter's (row, byte column) as cfglint's 1-based
(line, character column) spans, and spans of values assembled from pieces written in several
places (a variable's literal, a default, the parts of an ``eval`` string)."""

from __future__ import annotations

import bisect
import re

from ...model import Span, record


class _CharIndex:
    """Byte offset -> code-point offset in UTF-8 ``data``, in O(log k) per query (k: the number
    of multi-byte characters): decoding ``data[:byte]`` per word made a long line with one
    non-ASCII character quadratic (a 400 KB line took 24 s)."""

    _MULTI = re.compile(rb"[\xc0-\xff][\x80-\xbf]*")

    def __init__(self, data: bytes):
        self.ends: list[int] = []    # byte offset just past each multi-byte character
        self.saved: list[int] = []   # bytes beyond one per character, up to and including it
        saved = 0
        if not data.isascii():
            for m in self._MULTI.finditer(data):
                saved += m.end() - m.start() - 1
                self.ends.append(m.end())
                self.saved.append(saved)

    def char(self, byte: int) -> int:
        """The code-point offset of byte offset ``byte``, a character boundary (the parser's
        offsets always are)."""
        i = bisect.bisect_right(self.ends, byte) - 1
        return byte - (self.saved[i] if i >= 0 else 0)


class _Positions:
    """Byte offsets to 1-based (line, code-point column)."""

    def __init__(self, data: bytes, path: str):
        self.data = data
        self.path = path
        self.starts = [0]
        i = data.find(b"\n")
        while i != -1:
            self.starts.append(i + 1)
            i = data.find(b"\n", i + 1)
        self.index = _CharIndex(data)

    def point(self, row: int, col_bytes: int) -> tuple[int, int]:
        start = self.starts[row] if row < len(self.starts) else len(self.data)
        if not self.index.ends:  # all ASCII: the byte column is the column
            return row + 1, col_bytes + 1
        return row + 1, self.index.char(start + col_bytes) - self.index.char(start) + 1

    def span(self, node) -> Span:
        """The span of a tree-sitter node."""
        l1, c1 = self.point(*node.start_point)
        l2, c2 = self.point(*node.end_point)
        return Span(self.path, l1, c1, l2, c2)


@record
class _Piece:
    """A run of a static value's characters written together at ``span`` (char i of ``text``
    at column ``span.col + i`` when :attr:`exact`)."""

    text: str
    span: Span
    static: bool = True
    conditional: bool = False   # present on some runs only (see Word.conditional)

    @property
    def exact(self) -> bool:
        s = self.span
        return s.line == s.end_line and s.end_col - s.col == len(self.text)


def _starts(pieces: list[_Piece]) -> list[int]:
    out, off = [], 0
    for p in pieces:
        out.append(off)
        off += len(p.text)
    return out


def _locate(pieces: list[_Piece], k: int, starts: list[int] | None = None) -> tuple[_Piece, int]:
    starts = starts if starts is not None else _starts(pieces)
    i = bisect.bisect_right(starts, k) - 1
    while i > 0 and not pieces[i].text:
        i -= 1  # an empty piece holds no character
    i = max(i, 0)
    p = pieces[i]
    if k - starts[i] < len(p.text):
        return p, k - starts[i]
    return p, max(len(p.text) - 1, 0)


def _span_of(pieces: list[_Piece], a: int, b: int, starts: list[int] | None = None) -> Span:
    """The span of characters ``[a, b)`` of the concatenated ``pieces`` (``starts``: their
    offsets, from :func:`_starts`, when the caller asks many times)."""
    starts = starts if starts is not None else _starts(pieces)
    first, i = _locate(pieces, a, starts)
    last, j = _locate(pieces, max(b - 1, a), starts)
    s1 = first.span
    if first is last or b <= a:
        if first.exact:
            return Span(s1.path, s1.line, s1.col + i, s1.line, s1.col + max(j + 1, i))
        return s1
    s2 = last.span
    start = (s1.line, s1.col + i) if first.exact else (s1.line, s1.col)
    end = (s2.line, s2.col + j + 1) if last.exact else (s2.end_line, s2.end_col)
    if s1.path == s2.path and s1.line == s2.end_line and start < end:
        return Span(s1.path, start[0], start[1], end[0], end[1])
    if first.exact:
        return Span(s1.path, s1.line, s1.col + i, s1.line, s1.end_col)
    return s1


class _MappedPositions:
    """Positions for text assembled from pieces (``eval "$CMD"``): each character maps back to
    where it is written in the script."""

    def __init__(self, text: str, pieces: list[_Piece], path: str, opaque: bytes | None = None,
                 conditional: bytes | None = None):
        self.text = text
        self.pieces = pieces
        self.path = path
        self.index = _CharIndex(text.encode("utf-8"))
        self.starts = _starts(pieces)
        # per byte of the text: 1 where a value known only at render time is (a Go template action),
        # 1 where what is written is present on some runs only (a conditional piece, a template block)
        self.opaque = opaque
        self.conditional = conditional

    def marks(self, a: int, b: int) -> tuple[bool, bool]:
        """(conditional, opaque) of the bytes ``[a, b)`` of the text."""
        cond = self.conditional is not None and 1 in self.conditional[a:max(b, a + 1)]
        opaque = self.opaque is not None and 1 in self.opaque[a:max(b, a + 1)]
        return cond, opaque

    def _char(self, byte: int) -> int:
        return self.index.char(byte)

    def span(self, node) -> Span:
        return _span_of(self.pieces, self._char(node.start_byte), self._char(node.end_byte), self.starts)


class PlacedText:
    """Spans inside a text that comes from elsewhere (a ``bash -c`` string of a Kubernetes
    manifest) placed in its file: ``where`` holds the (line, column) of each character of
    ``text`` (:attr:`Word.where`); a span that cannot be placed is ``fallback``."""

    def __init__(self, text: str, where: list[tuple[int, int]], fallback: Span):
        self.where = where
        self.fallback = fallback
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def _at(self, line: int, col: int) -> int:
        if not 1 <= line <= len(self.starts):
            return -1
        return self.starts[line - 1] + col - 1

    def span(self, sp: Span) -> Span:
        """``sp`` (1-based lines and columns of the text, end exclusive) in the file."""
        a, b = self._at(sp.line, sp.col), self._at(sp.end_line, sp.end_col)
        if not 0 <= a < len(self.where) or b <= a:
            return self.fallback
        b = min(b, len(self.where))
        (l1, c1), (l2, c2) = self.where[a], self.where[b - 1]
        return Span(self.fallback.path, l1, c1, l2, c2 + 1)
