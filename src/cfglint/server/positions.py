"""Positions between cfglint and an editor. cfglint's spans are 1-based lines and code-point
columns of the file without its byte-order mark (:mod:`cfglint.read.textfile`); an LSP position
is a 0-based line and a 0-based column counted in the code units of the negotiated position
encoding: UTF-16 by default (a character outside the Basic Multilingual Plane is two), else
UTF-8 bytes or UTF-32 code points. Lines break at CR LF, LF and a lone CR in both. A BOM that an
editor keeps in its buffer is a character of line 0 for the editor, not for cfglint."""

from __future__ import annotations

import re

UTF16, UTF8, UTF32 = "utf-16", "utf-8", "utf-32"
_BREAK = re.compile(r"\r\n|\r|\n")
BOM = "\ufeff"


def units(text: str, encoding: str = UTF16) -> int:
    """The length of ``text`` in code units of ``encoding``."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as cfglint and LSP count them (a BOM dropped from line 1)."""
    return _BREAK.split(text[1:] if text.startswith(BOM) else text)


def to_lsp(lines: list[str], line: int, col: int, encoding: str = UTF16, bom: bool = False) -> tuple[int, int]:
    """The LSP position of 1-based (``line``, code-point ``col``) in a file of ``lines``; a column
    past the line's end counts one unit per missing character; ``bom``: the editor's line 0 starts
    with a byte-order mark."""
    i = max(line - 1, 0)
    text = lines[i] if i < len(lines) else ""
    k = max(col - 1, 0)
    char = units(text[:k], encoding) + max(k - len(text), 0)
    if i == 0 and bom:
        char += units(BOM, encoding)
    return i, char


def from_lsp(lines: list[str], line0: int, char: int, encoding: str = UTF16, bom: bool = False) -> tuple[int, int]:
    """The 1-based (line, code-point column) of an LSP position (inverse of :func:`to_lsp`; a
    position inside a character's code units is that character's)."""
    text = lines[line0] if 0 <= line0 < len(lines) else ""
    if line0 == 0 and bom:
        char -= units(BOM, encoding)
    if encoding == UTF32 or text.isascii():
        return line0 + 1, max(char, 0) + 1
    at = 0
    for k, c in enumerate(text):
        width = units(c, encoding)
        if at + width > char:
            return line0 + 1, k + 1
        at += width
    return line0 + 1, len(text) + 1 + max(char - at, 0)


def byte_offset_to_lsp(data: bytes, offset: int, encoding: str = UTF16) -> tuple[int, int]:
    """The LSP position of byte ``offset`` of a file's bytes (:attr:`TextFile.data`, a BOM
    included as the editor's first character)."""
    prefix = data[:offset].decode("utf-8", "replace")
    lines = _BREAK.split(prefix)
    return len(lines) - 1, units(lines[-1], encoding)
