"""Shell launch files with positions, parsed by tree-sitter-bash and never executed.

:mod:`.script` (what a read script is), :mod:`.native` (the tree-sitter parser), :mod:`.positions`
(byte offsets to spans), :mod:`.values` and :mod:`.walker` (the static evaluator), :mod:`.text`
(prose regions), :mod:`.parse` (one file in this process), :mod:`.worker` (the parse worker
process); :func:`parse_shell` picks the worker or this process.

Published launch files use word placeholders (``<host-path>``, ``<model-path>``,
``<head-ip>``, ``<0..1>``) that bash would read as redirections. They are masked with
same-length text before parsing, so every byte offset stays true, and words are read back from
the original text.

Only what can be known statically is resolved, by a small evaluator that never runs anything:
quotes; ``VAR=value`` / ``export`` / ``VAR+=more`` assignments made earlier in the file
(``"$MODEL_PATH"``); parameter defaults (``${VAR:-x}``, ``${VAR-x}``, ``${VAR:=x}``,
``: "${VAR:=x}"``: the default when VAR is not assigned earlier in the file); bash arrays
(``cmd=(...)``, ``cmd+=(...)``, run or spliced as ``"${cmd[@]}"``); a command kept in a string
and run as ``$CMD`` (split on whitespace as bash does) or ``eval "$CMD"`` (re-parsed, quotes
respected); functions called later (the body runs at each call, ``"$@"`` / ``$1`` bound to the
call's words); ``for x in 1 2 3; do ... done`` with a literal list (each command inside runs
once per item); and files written by a heredoc (``cat <<EOF > extra.yaml``, ``tee f <<EOF``),
kept in :attr:`ShellScript.files` with the body's position in the script (an unquoted
delimiter's body expanded as bash does, with the values assigned before it: a value put in keeps
the place of its ``$VAR`` in the body).

A word that comes from a variable keeps the span where its text is written (the literal in the
assignment), so findings point at it. Anything else (``$(...)``, ``$1`` at top level, a variable
never assigned or assigned inside a branch or a non-literal loop) keeps its source text and is
marked not static. A name the branches of an ``if`` / ``case`` / loop assign differently holds
their values as alternatives (values.py ``Values.merge``): spliced or split, the words of each
come out ``conditional`` (present on some runs only); quoted, the word carries them as
``choices``. An ``eval`` string's Go template actions are masked (gotemplate.py).
"""

from __future__ import annotations

import os

from .parse import parse_bounded
from .script import Command, Exports, ExportView, Overlay, ParserCrash, ShellScript, WrittenFile, Word  # noqa: F401


def parse_shell(text: str, path: str) -> ShellScript:
    """Parse a launch script. Never raises for bad input: syntax errors land in ``errors``.

    The native tree-sitter parser runs in a child process where the platform has fork: under
    fuzzing it crashed the whole process (SIGSEGV) on rare inputs, and one bad file must not
    take a pre-commit run down. The child is one long-lived worker per process, started by the
    first parse and restarted after a crash (shellworker.py). Raises ParserCrash when the
    worker dies on this input. Without fork, or with ``CFGLINT_NO_FORK`` set, it parses here.
    """
    if not _forks():
        return parse_bounded(text, path)
    from .worker import parse

    return parse(text, path)


def _forks() -> bool:
    return hasattr(os, "fork") and not os.environ.get("CFGLINT_NO_FORK")


def prestart_parser() -> None:
    """Start this process's parse worker now, if :func:`parse_shell` will use one: its import of
    tree-sitter then runs beside whatever the caller does before the first parse (on the
    one-submission path, reading the manifest and the knowledge). Never raises: a worker that
    cannot start is started (and reported) by the first parse."""
    if _forks():
        from .worker import prestart

        prestart()
