"""Reading a file as text, safely: size limit, binary and encoding checks.

Every failure is a :class:`ReadError` with a message fit for an IO001 finding; nothing here
raises anything else for bad input.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from .safeio import MAX_BYTES, ReadError, read_bytes

NUL = b"\x00"


@dataclass(slots=True)
class TextFile:
    """A file's decoded text. ``display`` is the path shown in findings."""

    path: str
    display: str
    text: str
    had_crlf: bool = False  # the file used CRLF line ends (text has LF)

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")


def read_text(path: str, display: str, max_bytes: int = MAX_BYTES, within: str | None = None,
              within_name: str | None = None) -> TextFile:
    """Read ``path`` as UTF-8 (a UTF-8 BOM is dropped, CRLF becomes LF), through
    :func:`cfglint.safeio.read_bytes`: its real path must stay inside ``within`` when given.

    Raises ReadError for: a link leading outside ``within``, a directory, a FIFO, socket or
    device, a missing or unreadable file, a file over ``max_bytes``, NUL bytes (binary),
    UTF-16/32 byte-order marks, invalid UTF-8.
    """
    data = read_bytes(path, max_bytes, within, within_name)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise ReadError("file is UTF-16/UTF-32 encoded; save it as UTF-8")
    if NUL in data:
        raise ReadError(f"binary file (NUL byte at offset {data.index(NUL)})")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ReadError(f"invalid UTF-8 at line {line} (byte offset {err.start}); save it as UTF-8") from None
    crlf = "\r\n" in text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return TextFile(path=path, display=display, text=text, had_crlf=crlf)
