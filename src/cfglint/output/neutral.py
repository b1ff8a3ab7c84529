"""One place that makes text from linted files safe to print: every string that came from input
(file names, messages quoting values, related messages, suppression reasons, echoed source
lines) passes through :func:`neutralize` in :mod:`cfglint.output.report` before any output format
writes it.

What a contributor's file could otherwise do through cfglint's output:

- drive the reader's terminal: C0 and C1 control characters (ESC of colour, title and OSC 52
  clipboard sequences, the one-byte C1 CSI U+009B, BEL, CR, backspace), DEL;
- split or hide a report line: newline, CR, U+0085 NEXT LINE, U+2028/U+2029 line and paragraph
  separators;
- reorder what the reader sees (Trojan Source): the bidirectional controls U+202A-U+202E,
  U+2066-U+2069, U+200E/U+200F and U+061C;
- run GitHub Actions workflow commands when the output is shown in a workflow log (pre-commit
  prints the hook's output there): the runner reads a line whose first non-blank characters are
  ``::`` as a command (``::add-mask::``, ``::set-output``, ``::error``, ``::stop-commands::``) and
  ``##[`` anywhere in a line as a command in the older syntax (``##[group]``, ``##[set-output``);
- run Azure Pipelines logging commands: the agent reads ``##vso[`` anywhere in a line, of
  stdout or stderr, as a command (``##vso[task.setvariable variable=X]value``,
  ``##vso[task.prependpath]``; azure-pipelines-agent src/Microsoft.VisualStudio.Services.Agent/
  Command.cs ``TryParse``: ``message.IndexOf(LoggingCommandPrefix)``, ``"##vso["``), and the line is
  not shown in the log.

Each such character is written as its Python-style escape, which a person reads and no
terminal or runner acts on: ``\\x1b``, ``\\x9b``, ``\\n``, ``\\r``, ``\\u2028``, ``\\u202e``. To break
a workflow command, the first colon of a leading ``::`` becomes ``\\x3a`` (``\\x3a:set-output``) and
the bracket of ``##[`` or ``##vso[`` (in any case) becomes ``\\x5b`` (``##\\x5bgroup]``,
``##vso\\x5btask.setvariable``); the rest of the text is unchanged. A
tab is kept (it is whitespace, and the text format aligns its caret under tabs).

:func:`neutralize_at` gives, with the neutralized text, where original positions landed in it,
so a caret under an echoed line still points at the right characters. :func:`sarif_message`
additionally escapes ``[`` and ``]`` as SARIF 2.1.0 section 3.11.6 asks of plain-text messages, so a
value from input cannot form an embedded link (``[text](https://...)``) or a Markdown image in a
SARIF viewer.

:func:`neutralize_strict` is :func:`neutralize` for the formats other programs parse strictly
(JUnit XML, GitLab Code Quality JSON, reviewdog's rdjson, :mod:`cfglint.output.ciformats`): it also
escapes what XML 1.0 does not allow anywhere in a document (U+FFFE, U+FFFF), so any text makes
a well-formed document. A lone surrogate (U+D800-U+DFFF, from a YAML ``"\\uD800"`` escape) is
escaped by :func:`neutralize` itself: no UTF-8 output (a terminal, a file) can hold one.
:func:`markdown_message` is that, with ``[``, ``]`` and ``<`` escaped for a reader that
renders the message as Markdown (reviewdog posts it as a pull-request comment): input can form
no link, image or HTML tag.
"""

from __future__ import annotations

import re
from bisect import bisect_left

# characters escaped wherever they occur, as the inside of a regular expression's character class
# (tab, U+0009, is kept); lone surrogates too: a YAML "\uD800" escape makes one, and no output
# can encode it as UTF-8
UNSAFE_CHARS = r"\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"


# the '[' of a runner's command anywhere in a line: GitHub's older '##[', Azure Pipelines' '##vso['
_COMMAND_BRACKET = r"(?:(?<=##)|(?<=##[vV][sS][oO]))\["


def _planner(unsafe: str, line_start: str) -> re.Pattern:
    """One match per character to escape: an ``unsafe`` character, the '[' of '##[', or (a match
    of the blanks just before it) the first ':' of a '::' that starts a line (``line_start``) after
    blanks that are not themselves unsafe."""
    return re.compile(r"(?P<c>" + unsafe + r")|" + _COMMAND_BRACKET + "|" + line_start +
                      r"(?P<lead>(?:(?!" + unsafe + r")[^\S\n\r])*)(?=::)")


_PLAN = _planner("[" + UNSAFE_CHARS + "]", r"\A")
# for GitHub workflow command messages, whose newlines GitHub's own escaping (%0A) carries: a '::'
# after a newline is broken too
_PLAN_LINES = _planner("[" + UNSAFE_CHARS.replace(r"\x0a-\x1f", r"\x0b\x0c\x0e-\x1f") + "]", r"(?:\A|(?<=[\n\r]))")
# no '::' rule, for a text whose colons are escaped anyway (a workflow command's property); the
# 'lead' group never matches
_PLAN_INNER = re.compile(r"(?P<c>[" + UNSAFE_CHARS + r"])|" + _COMMAND_BRACKET + r"(?P<lead>(?!))?")
_SHORT = {"\n": "\\n", "\r": "\\r"}


def _escape(c: str) -> str:
    if c in _SHORT:
        return _SHORT[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def _plan(text: str, plan: re.Pattern = _PLAN) -> list[int]:
    """Indices of the characters of ``text`` to write as escapes, ascending."""
    return [m.end() if m.group("lead") is not None else m.start() for m in plan.finditer(text)]


def neutralize(text: str, keep_newlines: bool = False, line_start: bool = True) -> str:
    """``text`` with every character a terminal or a GitHub Actions runner would act on written
    as a visible escape (see the module docstring). Text without such characters is returned
    unchanged. ``keep_newlines`` keeps LF and CR, for a caller that escapes them its own way
    (a GitHub workflow command's message: ``%0A``, ``%0D``). ``line_start=False`` leaves a
    leading ``::`` alone, for a text that never starts a line and whose colons are escaped
    anyway (a workflow command's ``file=`` property: the file name stays the file's)."""
    if not line_start:
        return _apply(text, _plan(text, _PLAN_INNER), ())[0]
    if keep_newlines:
        return _apply(text, _plan(text, _PLAN_LINES), ())[0]
    return neutralize_at(text)[0]


def neutralize_at(text: str, *positions: int) -> tuple[str, ...]:
    """``(neutralized, p1', p2', ...)``: the neutralized text and, for each 0-based index ``p``
    into ``text`` (0 <= p <= len(text)), the index in the neutralized text where the character
    at ``p`` (or the end, for ``len(text)``) begins."""
    return _apply(text, _plan(text), positions)


def _apply(text: str, plan: list[int], positions: tuple[int, ...]) -> tuple[str, ...]:
    if not plan:
        return (text, *positions)
    pieces, extra, last = [], [], 0
    grown = 0
    for i in plan:
        pieces.append(text[last:i])
        esc = _escape(text[i])
        pieces.append(esc)
        grown += len(esc) - 1
        extra.append((i, grown))
        last = i + 1
    pieces.append(text[last:])
    at = [i for i, _ in extra]
    moved = [p + (extra[k - 1][1] if (k := bisect_left(at, p)) else 0) for p in positions]
    return ("".join(pieces), *moved)


def sarif_message(text: str) -> str:
    """:func:`neutralize`, then ``[`` and ``]`` escaped with a backslash (SARIF 2.1.0 section
    3.11.6: literal brackets in a plain-text message), so input cannot form an embedded link
    or image. A backslash of the input just before a bracket is written ``\\x5c``, so no input
    backslash can cancel the escape."""
    return _BRACKET.sub(r"\\\1", _BACKSLASH_BRACKET.sub(r"\\x5c", neutralize(text)))


_BACKSLASH_BRACKET = re.compile(r"\\(?=[\[\]])")
_BRACKET = re.compile(r"([\[\]])")


# characters XML 1.0 allows nowhere (section 2.2, Char) that neutralize() leaves alone: the
# non-characters U+FFFE and U+FFFF, and surrogates (never a character on their own)
_STRICT = re.compile("[\ud800-\udfff\ufffe\uffff]")


def neutralize_strict(text: str) -> str:
    """:func:`neutralize`, then U+FFFE, U+FFFF and every lone surrogate written as its escape
    (``\\ufffe``, ``\\udc80``): text that XML 1.0 accepts in element content and attribute values
    (after the usual ``&`` ``<`` ``>`` ``"`` escaping an XML writer does) and that encodes as UTF-8."""
    return _STRICT.sub(lambda m: _escape(m.group(0)), neutralize(text))


def markdown_message(text: str) -> str:
    """:func:`neutralize_strict`, then ``[``, ``]`` and ``<`` escaped with a backslash (CommonMark
    backslash escapes), so input forms no link, image or raw HTML where the message is rendered
    as Markdown; an input backslash just before one of them is written ``\\x5c``."""
    return _MD_SPECIAL.sub(r"\\\1", _MD_BACKSLASH.sub(r"\\x5c", neutralize_strict(text)))


_MD_BACKSLASH = re.compile(r"\\(?=[\[\]<])")
_MD_SPECIAL = re.compile(r"([\[\]<])")


__all__ = ["UNSAFE_CHARS", "markdown_message", "neutralize", "neutralize_at", "neutralize_strict", "sarif_message"]
