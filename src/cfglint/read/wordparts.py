"""Whether a span of a line is all of the word it is part of, as a shell (or a YAML scalar) reads
it: what ``--fix`` may replace.

The shell joins into one word what is written as adjacent parts: ``"/home/"'alice'/x`` is
``/home/alice/x``, and a backslash-newline inside a word (``/home/alice/m\\`` then ``odel`` on
the next line) is removed. A rule's pattern stops at a quote or a line end, so its span can be
the first part of such a word only: replacing that part leaves the rest (the user name stays),
and replacing a span that ends in the backslash drops the continuation (one command becomes
two). :func:`whole_word_part` tells them apart on the line and the line before it.
"""

from __future__ import annotations

# what ends a value where the rules' patterns stop (a path, an address, a flag value): blanks,
# the separators of shell and YAML flow collections; a quote, '$', '`' or '\' goes on with the word
_ENDS = frozenset(" \t,;:)}]|<>&")
_GOES_ON = frozenset("\"'`$\\")
# what may come before a quoted part that starts a value: blanks, separators, an option's '='
_STARTS = frozenset(" \t,;:({[|<>&=")


def open_quote(line: str, at: int) -> str | None:
    """The quote (``'`` or ``"``) a shell (or YAML) reading ``line`` from its start is inside of at
    offset ``at``, or None: single quotes take everything to the next ``'`` (YAML's ``''`` is a
    close and an open), a backslash escapes the next character outside them."""
    quote, i = None, 0
    while i < at:
        c = line[i]
        if quote == "'":
            if c == "'":
                quote = None
        elif c == "\\":
            i += 1
        elif quote == '"':
            if c == '"':
                quote = None
        elif c in "'\"":
            quote = c
        i += 1
    return quote


def continued_into(prev: str) -> bool:
    """Whether a word that starts a line goes on from ``prev``, the line before it: ``prev`` ends
    in a backslash-newline (an odd run of backslashes) that a blank or separator does not come
    right before, so the shell joins the end of ``prev`` and the start of this line into one
    word (``/home/\\`` then ``alice``). A line of only a backslash is taken as joined (the word
    may start further up)."""
    run = len(prev) - len(prev.rstrip("\\"))
    if run % 2 == 0:
        return False
    return run > 1 or run == len(prev) or prev[-2] not in _ENDS   # a longer odd run ends an escaped backslash, part of the word


def whole_word_part(line: str, start: int, end: int, prev: str = "") -> bool:
    """Whether replacing ``line[start:end]`` (0-based, end exclusive) replaces all that a shell
    reads as this part of its word: no backslash inside it (an escape, or a line continued
    inside the word); what follows does not go on with the word: the end of the line, a blank
    or separator (:data:`_ENDS`), or the quote that closes a part opened before ``start``
    followed by one of those (a quote, ``$``, backtick or backslash right after it, or right
    after its closing quote, starts another part of the same word); and a quote that opens
    right before it opens the value, after a blank or separator (:data:`_STARTS`), not a later
    part of a word (``/home/'alice'``); and at the start of the line, the word does not go on
    from ``prev``, the line before (:func:`continued_into`)."""
    if start >= end or "\\" in line[start:end]:
        return False
    if start == 0 and continued_into(prev):
        return False
    if start > 0 and line[start - 1] in "\"'":
        opened = open_quote(line, start) == line[start - 1] and open_quote(line, start - 1) is None
        if opened and start > 1 and line[start - 2] not in _STARTS:
            return False
        if opened and start == 1 and continued_into(prev):
            return False   # the quoted part opens the line, and the word goes on from the line before
        if not opened and line[start - 1] != open_quote(line, start):
            return False   # a part closed right before: the span goes on with the word it ends
    if end >= len(line):
        return True
    nxt = line[end]
    if nxt not in "\"'":
        return nxt not in _GOES_ON
    if open_quote(line, start) != nxt:
        return False
    after = line[end + 1:end + 2]
    return after == "" or after in _ENDS
