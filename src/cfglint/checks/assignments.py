"""Settings of given names in one line of text: ``NAME=value``, ``--flag value``, ``key: value``
(RED002's credential flags and variables, RED003's address flags and variables)."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=8)
def _assignments(names: frozenset[str]) -> re.Pattern:
    """``NAME=value``, ``--flag value``, ``key: value`` for the given names only, so one match
    cannot swallow the next (``export HF_TOKEN=...``)."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?P<name>{alternatives})(?P<sep>[= ]+|:\s*)(?P<q>['\"]?)(?P<value>(?!-)[^\s'\"]+)")


def assignments(line: str, names: set[str]):
    """Matches of :func:`_assignments` in ``line``. Flags take ``--flag value`` or
    ``--flag=value``; variables and keys only ``NAME=value`` / ``key: value``, so prose such
    as "the hostname below" is not an assignment."""
    if not names:
        return
    for m in _assignments(frozenset(names)).finditer(line):
        if m.group("name").startswith("-") or m.group("sep").strip():
            yield m


