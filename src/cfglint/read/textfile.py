"""Reading a file as text, safely: size limit, binary and encoding checks.

Every failure is a :class:`ReadError` with a message fit for an IO001 finding; nothing here
raises anything else for bad input.

Lines and columns, one definition for the whole program (loader, parsers, rules, reports and
``--fix``): a line ends at CR LF, LF or a lone CR (:data:`NEWLINE_SEQUENCES`, the line breaks of
Python's universal newlines, of YAML and of most editors; SARIF output declares them in
``run.newlineSequences``). A UTF-8 byte-order mark is not part of line 1. Lines and columns are
1-based; a column counts Unicode code points from the start of its line (SARIF
``columnKind: unicodeCodePoints``). U+0085, U+2028, U+2029, form feed and vertical tab are
characters inside a line, not line breaks. :attr:`TextFile.text` holds the file with every line
break written as LF, so ``text.split("\n")`` gives the lines; :class:`LineIndex` turns character
offsets into positions and back, :class:`ByteMap` positions into byte offsets of the file as read.
"""

from __future__ import annotations

import bisect
import codecs
import re

from ..model import record
from .safeio import MAX_BYTES, ReadError, read_bytes

NUL = b"\x00"


# The line breaks, longest first (CR LF is one break, not two). SARIF's default is CR LF and LF only.
NEWLINE_SEQUENCES = ("\r\n", "\n", "\r")
_BREAK = re.compile(r"\r\n|\r|\n")
_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")   # a CR or LF byte is never part of a multi-byte UTF-8 character


def normalize_newlines(text: str) -> str:
    """``text`` with every line break (CR LF, lone CR) written as LF."""
    return _BREAK.sub("\n", text) if "\r" in text else text


class LineIndex:
    """1-based (line, code-point column) of a character offset in a text whose lines end with
    LF (:attr:`TextFile.text`, a heredoc body), and back. Building it is linear, each lookup
    logarithmic (lines) or constant."""

    __slots__ = ("starts", "length")

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.length = len(text)

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of the character at ``offset`` (clamped to the text)."""
        offset = max(0, min(offset, self.length))
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def offset(self, line: int, col: int) -> int | None:
        """Character offset of (line, column), or None when the position is not in the text; the
        column just past a line's last character (its line break) is in it."""
        if not 1 <= line <= len(self.starts) or col < 1:
            return None
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else self.length
        return start + col - 1 if start + col - 1 <= end else None


@record
class TextFile:
    """A file's decoded text. ``display`` is the path shown in findings; ``data`` the bytes as
    read (byte-order mark and line breaks included): ``--fix`` edits those and nothing else."""

    path: str
    display: str
    text: str
    had_crlf: bool = False  # the file used CRLF line ends (text has LF)
    data: bytes = b""
    # the bytes are no UTF-8 text (binary, UTF-16/32, invalid UTF-8) and ``text`` was decoded
    # leniently (:func:`lenient_text`) for the credential scan only: no other rule reads it
    lossy: bool = False

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")



class ByteMap:
    """Positions of a :class:`TextFile` (line, code-point columns) as byte offsets in the bytes
    it was read from (:attr:`TextFile.data`), by the definition of lines above. Built once per
    file in linear time."""

    __slots__ = ("starts", "lines", "_last")

    def __init__(self, tf: TextFile):
        bom = len(codecs.BOM_UTF8) if tf.data.startswith(codecs.BOM_UTF8) else 0
        self.starts = [bom] + [m.end() for m in _BREAK_BYTES.finditer(tf.data, bom)]
        self.lines = tf.lines
        if len(self.starts) != len(self.lines):   # data and text disagree: no position maps
            self.starts, self.lines = [], []
        self._last = (0, 1, 0)   # (line, column, byte offset) of the last lookup

    def byte_range(self, line: int, col: int, end_col: int) -> tuple[int, int] | None:
        """Byte offsets [start, end) of columns ``col`` up to ``end_col`` (exclusive) of
        ``line``, or None when they are not inside that line (its line break excluded).
        Lookups in (line, column) order go on from the last one: many spans on one long line
        cost one pass over it, not one pass each."""
        if not 1 <= line <= len(self.lines) or not 1 <= col <= end_col:
            return None
        text = self.lines[line - 1]
        if end_col - 1 > len(text):
            return None
        at_line, at_col, at = self._last
        if at_line != line or at_col > col:
            at_col, at = 1, self.starts[line - 1]
        first = at + len(text[at_col - 1:col - 1].encode("utf-8"))
        self._last = (line, col, first)
        return first, first + len(text[col - 1:end_col - 1].encode("utf-8"))


class NotText(ReadError):
    """The file was read, but its bytes are no UTF-8 text: :attr:`file` holds them, with a text
    decoded leniently for the credential scan (:attr:`TextFile.lossy`)."""

    def __init__(self, message: str, file: TextFile):
        super().__init__(message)
        self.file = file


_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
              (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))   # UTF-32 LE starts like UTF-16 LE


def lenient_text(data: bytes) -> str:
    """The text of bytes that are no UTF-8 text, as well as it can be read: UTF-16 / UTF-32 by
    their byte-order mark, else UTF-8 with each byte that is not part of a character (and each
    NUL) as U+FFFD; line breaks as LF. A token format written in it keeps its characters."""
    for bom, codec in _WIDE_BOMS:
        if data.startswith(bom):
            text = data.decode(codec, "replace")
            break
    else:
        text = data.decode("utf-8-sig", "replace")
    return normalize_newlines(text.replace("\x00", "\ufffd"))


def read_text(path: str, display: str, max_bytes: int = MAX_BYTES, within: str | None = None,
              within_name: str | None = None) -> TextFile:
    """Read ``path`` as UTF-8 (a UTF-8 BOM is dropped, CRLF becomes LF), through
    :func:`cfglint.read.safeio.read_bytes`: its real path must stay inside ``within`` when given.

    Raises ReadError for: a link leading outside ``within``, a directory, a FIFO, socket or
    device, a missing or unreadable file, a file over ``max_bytes``; :class:`NotText` (a
    ReadError carrying the bytes read) for NUL bytes (binary), UTF-16/32 byte-order marks,
    invalid UTF-8.
    """
    data = read_bytes(path, max_bytes, within, within_name)

    def not_text(why: str) -> NotText:
        return NotText(why, TextFile(path=path, display=display, text=lenient_text(data), data=data, lossy=True))

    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise not_text("file is UTF-16/UTF-32 encoded; save it as UTF-8")
    if NUL in data:
        raise not_text(f"binary file (NUL byte at offset {data.index(NUL)})")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise not_text(f"invalid UTF-8 at line {line} (byte offset {err.start}); save it as UTF-8") from None
    crlf = "\r\n" in text
    return TextFile(path=path, display=display, text=normalize_newlines(text), had_crlf=crlf, data=data)
