"""File names as text: every path a message shows goes through :func:`printable` (no control
character of a file name reaches a terminal or a report) and :func:`display_path` (relative to
the working directory when inside it)."""

from __future__ import annotations

import os
import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(path: str) -> str:
    """A path as text: bytes that are not UTF-8 (surrogate-escaped by the OS layer) become U+FFFD;
    control characters (a newline, ESC of a terminal colour sequence) are written as escapes
    (``\\n``, ``\\x1b``), so a file name cannot split a report line or drive the terminal."""
    try:
        text = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a lone surrogate no file name can hold (from a YAML "\uD800" escape)
        text = re.sub("[\ud800-\udfff]", "\ufffd", path)
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


def display_path(path: str, base: str | None = None) -> str:
    """``path`` relative to ``base`` (default: the working directory) when inside it, with
    forward slashes; otherwise absolute."""
    base = os.path.abspath(base or os.getcwd())
    ap = os.path.abspath(path)
    try:
        rel = os.path.relpath(ap, base)
    except ValueError:
        return printable(ap)
    if rel.startswith(".."):
        return printable(ap.replace(os.sep, "/"))
    return printable(rel.replace(os.sep, "/"))
