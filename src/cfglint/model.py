"""Shared data model: source spans, located values and findings.

A :class:`Span` is 1-based; ``col`` and ``end_col`` count Unicode code points and ``end_col``
is exclusive (the column just past the last character), as in SARIF regions with
``columnKind: unicodeCodePoints``. Lines end at CR LF, LF or a lone CR; a UTF-8 byte-order mark
is not part of line 1 (textfile.py holds this one definition; ``--fix`` maps spans to bytes by it).
"""

from __future__ import annotations

import itertools
import re
import reprlib
from dataclasses import dataclass, field
from typing import Any


# A run's containers (a submission, its deployment, a parsed script, a lint result): compared by
# identity, with object's repr. dataclass generates no __eq__ / __repr__ for them: each generated
# method is compiled at import, ~4% of a one-submission run for these classes together.
record = dataclass(slots=True, eq=False, repr=False)


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
    # a structural fix (--fix): move the YAML key at key path ``move[0]`` to key path ``move[1]``
    # of the same file (a TensorRT-LLM key renamed into another section)
    move: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    # whether the fix (``fix`` or ``move``) keeps what the launch does: False (an unsafe fix) when it
    # changes the engine's behaviour or needs a person's review; --fix applies those only with
    # --unsafe-fixes (README, "Fixes"; each rule's choice is documented with the rule)
    fix_safe: bool = True
    # the SHA-256 (hex) of the bytes of the file this finding stands for when it says the file
    # was left unchecked (IO001: binary, not UTF-8, YAML that does not parse): fingerprints and
    # baselines cover it, so a baseline entry stops matching once the file's content changes
    covers: str | None = None

    def sort_key(self) -> tuple:
        s = self.span
        return (s.path, s.line, s.col, self.rule_id, self.message)


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace the text of ``span`` (end exclusive) by ``text``; an empty span inserts ``text``
    at its start. The one shape of an edit that ``--fix``, ``--diff``, SARIF ``fixes`` and editor
    code actions share (:func:`cfglint.edit.fix.fix_of` makes them)."""

    span: Span
    text: str


# Counts, sizes and lengths cfglint reasons about fit in 18 decimal digits (below 2**63). A longer
# digit string is not a usable number: converting it could fail (Python refuses more than 4300
# digits), overflow a float, or make a loop over it run for ever. It counts as unknown.
MAX_INT_DIGITS = 18
_INT_TEXT = re.compile(r"-?[0-9]+")   # ASCII digits only: str.isdigit() accepts '²'


def parse_int(value: Any, signed: bool = True) -> int | None:
    """``value`` as an integer: an int (not bool) or the text of one (ASCII digits, a minus sign when
    ``signed``), at most MAX_INT_DIGITS digits; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 10 ** MAX_INT_DIGITS else None
    if not isinstance(value, str):
        return None
    t = value.strip()
    if not _INT_TEXT.fullmatch(t) or (not signed and t[0] == "-"):
        return None
    if len(t.lstrip("-")) > MAX_INT_DIGITS:
        return None
    return int(t)


class _ShortRepr(reprlib.Repr):
    """reprlib's bounded repr, also for subclasses of str / list / dict / tuple / int (reprlib
    picks its method by the exact type name and would call a subclass's own ``__repr__``)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother, self.maxlong = 3, 80, 80, 40
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = self.maxfrozenset = 5

    def repr1(self, x: Any, level: int) -> str:
        if not isinstance(x, bool):
            for base in (str, list, tuple, dict, int):
                if isinstance(x, base):
                    return getattr(self, "repr_" + base.__name__)(x, level)
        return super().repr1(x, level)

    def repr_str(self, x: str, level: int) -> str:
        if len(x) <= self.maxstring:
            return repr(str(x))
        return repr(str(x[:60]))[:-1] + f"...({len(x)} characters)" + repr(str(x[:60]))[-1]

    def repr_dict(self, x: dict, level: int) -> str:   # in insertion order, as written (reprlib sorts)
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        items = [f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}" for k, v in itertools.islice(x.items(), self.maxdict)]
        return "{" + ", ".join(items) + (", ..." if len(x) > self.maxdict else "") + "}"


_SHORT = _ShortRepr()


def quote(value: Any) -> str:
    """``repr(value)`` bounded: a string longer than 80 characters shows its first 60 and its
    length, a list or mapping its first 5 items, 3 levels deep; the cost is bounded too. Schema
    messages quote with it (a YAML alias can make one value 10**5 copies of a 10 KB string);
    every message leaving cfglint is bounded again by ``lint._clip``."""
    return _SHORT.repr(value)
