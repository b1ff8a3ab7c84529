"""Worker argument files (``*.args``): the flag lists launchers render for a worker.

Format, as published: ``#`` starts a comment line; ``NAME=value`` is an environment variable
(surrounding quotes removed); any other line holds arguments split by shell quoting rules
(``--trust-remote-code --tp 8`` is three words). A line whose quoting does not balance is a
value rendered as-is, e.g. ``--kv-events-config {'publisher': 'zmq', ...}``: its first word is
the flag and the rest of the line its value. The result is a :class:`~cfglint.read.shell.Command`
so the engine adapters read it like a shell command.
"""

from __future__ import annotations

import re

from ..model import Span
from .shell import Command, Word

_ENV = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def _unquote(value: str) -> tuple[str, int]:
    """Strip one pair of matching quotes; returns (value, offset of the value in the text)."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1], 1
    return value, 0


def _split(line: str) -> list[tuple[str, int, int]] | None:
    """Shell-like words of ``line`` as (text, start, end) offsets, or None if quotes do not balance."""
    words: list[tuple[str, int, int]] = []
    i, n = 0, len(line)
    while i < n:
        if line[i] in " \t":
            i += 1
            continue
        start, buf = i, []
        while i < n and line[i] not in " \t":
            c = line[i]
            if c in "'\"":
                close = line.find(c, i + 1)
                if close == -1:
                    return None
                buf.append(line[i + 1:close])
                i = close + 1
            elif c == "\\" and i + 1 < n:
                buf.append(line[i + 1])
                i += 2
            else:
                buf.append(c)
                i += 1
        words.append(("".join(buf), start, i))
    return words


def parse_args_file(text: str, path: str) -> Command:
    """Parse an argument file into one command without a program name (words are flags and
    values). Never raises."""
    words: list[Word] = []
    env: dict[str, Word] = {}
    first: Span | None = None
    for lineno, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        m = _ENV.match(stripped)
        if m:
            value, off = _unquote(m.group(2).strip())
            vcol = indent + len(m.group(1)) + 2 + off
            env[m.group(1)] = Word(value, m.group(2), Span(path, lineno, vcol, lineno, vcol + len(value)))
            continue
        parts = _split(line)
        if parts is None or (len(parts) > 2 and not parts[1][0].startswith("-")
                             and any(not p[0].startswith("-") for p in parts[2:])):
            # a value rendered as-is (Python dict, JSON with spaces): flag + rest of the line
            head = stripped.split(None, 1)[0]
            rest = stripped[len(head):].strip()
            parts = [(head, indent, indent + len(head))]
            if rest:
                rstart = line.index(rest, indent + len(head))
                parts.append((rest, rstart, rstart + len(rest)))
        for text_, start, end in parts:
            span = Span(path, lineno, start + 1, lineno, end + 1)
            first = first or span
            words.append(Word(text_, line[start:end], span))
    return Command(words=words, assignments=env, exported={},
                   span=first or Span(path, 1, 1, 1, 1))
