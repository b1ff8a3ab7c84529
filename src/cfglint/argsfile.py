"""Worker argument files (``*.args``): the flag lists launchers render for a worker.

Format, as published: ``#`` starts a comment line; ``NAME=value`` is an environment variable;
any other line holds one argument and, after the first run of blanks, its value exactly as
rendered (``--kv-events-config {'publisher': 'zmq', ...}`` stays one value). The result is a
:class:`~cfglint.shell.Command` so the engine adapters read it like a shell command.
"""

from __future__ import annotations

import re

from .model import Span
from .shell import Command, Word

_ENV = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


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
        start = len(line) - len(line.lstrip()) + 1
        m = _ENV.match(stripped)
        if m:
            vcol = start + len(m.group(1)) + 1
            env[m.group(1)] = Word(m.group(2), m.group(2), Span(path, lineno, vcol, lineno, vcol + len(m.group(2))))
            continue
        head, _, rest = stripped.partition(" ")
        span = Span(path, lineno, start, lineno, start + len(head))
        first = first or span
        words.append(Word(head, head, span))
        rest_stripped = rest.strip()
        if rest_stripped:
            vcol = start + len(stripped) - len(rest.lstrip())
            words.append(Word(rest_stripped, rest_stripped,
                              Span(path, lineno, vcol, lineno, vcol + len(rest_stripped))))
    return Command(words=words, assignments=env, exported={},
                   span=first or Span(path, 1, 1, 1, 1))
