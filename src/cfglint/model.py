"""Shared data model: source spans, located values and findings.

A :class:`Span` is 1-based; ``col`` and ``end_col`` count Unicode code points and ``end_col``
is exclusive (the column just past the last character), as in SARIF regions with
``columnKind: unicodeCodePoints``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Span:
    """A region of one file: start and end line/column, 1-based, end column exclusive."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Located:
    """A value (int, str, bool, ...) together with the span of the text it came from."""

    value: Any
    span: Span


LEVELS = ("note", "warning", "error")


def rule_matches(rule_id: str, patterns: list[str]) -> bool:
    """True when ``rule_id`` is one of ``patterns`` or in one of their families (``RED`` covers
    ``RED001``; ``RED001`` covers only itself)."""
    return any(rule_id == p or (rule_id.startswith(p) and not p[-1:].isdigit()) for p in patterns)


def level_rank(level: str) -> int:
    """Order of severity: note < warning < error. Raises ValueError for an unknown level."""
    return LEVELS.index(level)


@dataclass(slots=True)
class Finding:
    """One problem: which rule, where, what; ``related`` points at the other side of a mismatch."""

    rule_id: str
    message: str
    span: Span
    level: str | None = None  # None: the rule's default level
    related: list[tuple[Span, str]] = field(default_factory=list)
    fix: str | None = None  # replacement text for ``span`` when the fix is mechanical
    suppressed: str | None = None  # the justification, when an inline directive silences it
    secret: bool = False  # the span holds a credential: no output may show its text
    internal: bool = False  # cfglint failed on this unit: never filtered by configuration

    def sort_key(self) -> tuple:
        s = self.span
        return (s.path, s.line, s.col, self.rule_id, self.message)
