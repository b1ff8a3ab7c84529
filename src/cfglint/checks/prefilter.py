"""Prefilters of the redaction rules (RED001, RED002, RED003): what a text (or a line) must
contain for a scan to find anything in it, so that most files and lines are not scanned at all.
Each is no narrower than the scan it guards (tests/test_redaction_prefilter.py): it only ever
proves that a pattern cannot match or a name cannot occur; everything it does not rule out is
scanned exactly as before."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache


@lru_cache(maxsize=64)
def _multiline(pattern: re.Pattern) -> re.Pattern:
    return re.compile(pattern.pattern, pattern.flags | re.MULTILINE)


def _anywhere(pattern: re.Pattern, text: str) -> bool:
    """Whether ``pattern`` may match in some line of ``text``: it matches the whole text with ^
    and $ at line ends (a match inside one line is a match of the whole text; one across lines
    only makes this True without a line match, which the line scan then finds not)."""
    return _multiline(pattern).search(text) is not None


_EXACT_LIMIT = 64   # strings a part of a pattern may spell out before it counts as "any text"
_CLASS_LIMIT = 8    # characters of a class [...] spelled out one by one


def _required(pattern: str, flags: int = 0) -> tuple[frozenset[str], bool] | None:
    """(literals, ignore case) such that every match of ``pattern`` contains one of the literals
    (compared ignoring case when the pattern ignores case anywhere), or None when no such set is
    known (then nothing is ruled out). From the parse of Python's own ``re`` (``re._parser``):
    a construct it does not know makes the answer None, never a guess."""
    try:
        from re import _constants as c, _parser
        parsed = _parser.parse(pattern, flags)
    except Exception:
        return None
    icase = [False]
    ops = {"LITERAL", "IN", "MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT", "SUBPATTERN", "ATOMIC_GROUP",
           "BRANCH", "AT", "ASSERT", "ASSERT_NOT"}

    def best(candidates: list[frozenset[str]]) -> frozenset[str] | None:
        good = [s for s in candidates if s and "" not in s]
        return max(good, key=lambda s: (min(map(len, s)), -len(s))) if good else None

    def item(op, av, fl) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        """(exact: every string the item can match, if few; required: a literal set)"""
        name = str(op)
        if name not in ops:
            return None, None
        if fl & re.IGNORECASE and name in ("LITERAL", "IN"):
            icase[0] = True
        if op is c.LITERAL:
            return frozenset((chr(av),)), None
        if op is c.IN:
            chars: set[str] = set()
            for o, a in av:
                if o is c.LITERAL:
                    chars.add(chr(a))
                elif o is c.RANGE and a[1] - a[0] < _CLASS_LIMIT:
                    chars.update(chr(x) for x in range(a[0], a[1] + 1))
                else:
                    return None, None   # a negated class, a category (\d, \s), a wide range
            return (frozenset(chars), None) if 0 < len(chars) <= _CLASS_LIMIT else (None, None)
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            return frozenset(("",)), None   # matches no text: contributes nothing
        if op is c.SUBPATTERN:
            _group, add, remove, sub = av
            return seq(sub, (fl | add) & ~remove)
        if op is c.ATOMIC_GROUP:
            return seq(av, fl)
        if op is c.BRANCH:
            parts = [seq(b, fl) for b in av[1]]
            exact = frozenset().union(*(e for e, _ in parts)) if all(e is not None for e, _ in parts) else None
            reqs = [best([r] + ([e] if e is not None else [])) if r is not None else best([e] if e is not None else [])
                    for e, r in parts]
            req = frozenset().union(*reqs) if reqs and all(r is not None for r in reqs) else None
            return (exact if exact is not None and len(exact) <= _EXACT_LIMIT else None), req
        lo, hi, sub = av   # a repeat
        e, r = seq(sub, fl)
        if lo < 1:
            return None, None
        exact = None
        if e is not None and lo == hi and len(e) ** lo <= _EXACT_LIMIT:
            exact = frozenset([""])
            for _ in range(lo):
                exact = frozenset(a + b for a in exact for b in e)
        return exact, best([x for x in (r, e) if x is not None])

    def seq(items, fl) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        candidates: list[frozenset[str]] = []
        run: frozenset[str] | None = frozenset([""])
        whole = True
        for op, av in items:
            e, r = item(op, av, fl)
            if r is not None:
                candidates.append(r)
            if e is not None and run is not None and len(run) * len(e) <= _EXACT_LIMIT:
                run = frozenset(a + b for a in run for b in e)
                continue
            whole = False
            if run is not None:
                candidates.append(run)
            run = e if e is not None else frozenset([""])
        candidates.append(run)
        return (run if whole else None), best(candidates)

    try:
        exact, req = seq(list(parsed), parsed.state.flags)
    except Exception:
        return None
    found = best([x for x in (req, exact) if x is not None])
    return (found, icase[0]) if found is not None else None


@lru_cache(maxsize=256)
def _literal_test(pattern: str, flags: int):
    """A function of a text that is False only when ``pattern`` (with ``flags``) matches nowhere
    in it (:func:`_required`); None when nothing can be ruled out."""
    req = _required(pattern, flags)
    if req is None:
        return None
    literals, icase = req
    if icase:
        search = re.compile("|".join(re.escape(s) for s in sorted(literals)), re.IGNORECASE).search
        return lambda text: search(text) is not None
    ordered = tuple(sorted(literals))
    return lambda text: any(s in text for s in ordered)


def may_match(pattern: re.Pattern, text: str) -> bool:
    """Whether ``pattern`` may match in some line of ``text``: False only when it cannot (a
    literal every match holds is not in the text, or :func:`_anywhere` finds no match)."""
    test = _literal_test(pattern.pattern, pattern.flags) if isinstance(pattern.pattern, str) else None
    if test is not None and not test(text):
        return False
    return _anywhere(pattern, text)


@lru_cache(maxsize=64)
def _alternation(literals: frozenset[str]) -> re.Pattern:
    return re.compile("|".join(re.escape(s) for s in sorted(literals, key=lambda s: (-len(s), s))))


def lines_holding(text: str, literals) -> set[int] | None:
    """1-based numbers of the lines of ``text`` (split at '\\n') that contain one of ``literals``;
    None when that cannot be told this way (a literal is empty or holds a line break): then
    every line may. One scan of the text: an occurrence that overlaps a match found lies on
    that match's line (no literal crosses a line end)."""
    if any(not s or "\n" in s for s in literals):
        return None
    if not literals:
        return set()
    return lines_of(text, _alternation(frozenset(literals)).finditer(text))


def lines_of(text: str, matches) -> set[int]:
    """1-based numbers of the lines of ``text`` (split at '\\n') where ``matches`` (of a scan of
    ``text``) start."""
    out: set[int] = set()
    starts: list[int] | None = None
    for m in matches:
        if starts is None:
            starts = [0] + [b.end() for b in _BREAK.finditer(text)]
        out.add(bisect_right(starts, m.start()))
    return out


_BREAK = re.compile("\n")
