"""Inline suppressions: ``# cfglint: disable=ID[,ID] -- reason`` on a finding's line or the line
before it, and ``# cfglint: disable-file=ID[,ID] -- reason`` anywhere in a file. IDs may be
rule families (``RED``). Works in shell, worker argument files and YAML (all use ``#``).

Suppressed findings stay in the result (SARIF reports them with ``suppressions``); a
directive that silences nothing is itself a finding (SUP001), and so is one without a reason
when the configuration requires reasons (SUP002). A leaked secret (RED002) and an unreadable
file (IO001 error) are never silenced inline (:func:`unsuppressible`): the directive sits in the
contributor's own file; such a directive is a SUP001 that says so (a false positive is ignored
in the repository's root configuration instead).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Finding, Span, rule_matches
from ..read.textfile import TextFile

UNSUPPRESSIBLE = frozenset({"RED002"})
REFUSED_WHY = {
    "RED002": "RED002 (a leaked secret) cannot be suppressed inline: rotate the secret and remove it; for a "
              "false positive, ignore RED002 for this file in the repository's root configuration "
              "(per-file-ignores)",
    "IO001": "IO001 (a file, or part of one, cfglint could not read, so nothing in it was checked) cannot be "
             "suppressed inline: make the file parse; to accept it unread, ignore IO001 for this file in the "
             "repository's root configuration (per-file-ignores)",
}


def unsuppressible(f: Finding) -> bool:
    """A finding no inline directive may silence, because the directive sits in the file a
    contributor controls: a leaked secret (RED002), and a file cfglint could not read (IO001 at
    level error: a directive beside a parser crash would otherwise hide every check of the file)."""
    return f.rule_id in UNSUPPRESSIBLE or (f.rule_id == "IO001" and f.level in (None, "error"))

# '# cfglint: disable=ID[,ID] [-- reason]' up to the end of the line. The head is a regular
# expression; the rest is split by hand: one pattern with three overlapping runs of '\s'
# (ids, padding, end) backtracked for minutes on a directive followed by 2 000 spaces and a word.
_HEAD = re.compile(r"#\s*cfglint:\s*(disable|disable-file)\s*=")
_IDS = re.compile(r"[A-Za-z0-9_,\s]+")


def parse_directive(line: str) -> tuple[str, str, str, int] | None:
    """(kind, ids text, reason, start column offset) of the first directive in ``line``, or
    None: after ``=`` come rule ids (letters, digits, '_', ',', blanks), then optionally
    ``--`` and a reason, to the end of the line. Linear in the line's length."""
    for m in _HEAD.finditer(line):
        ids, sep, reason = line[m.end():].partition("--")
        if _IDS.fullmatch(ids):
            return m.group(1), ids, reason.strip() if sep else "", m.start()
    return None


@dataclass(slots=True)
class Directive:
    ids: list[str]
    reason: str
    span: Span
    whole_file: bool
    used: bool = False
    refused: str = ""  # the rule id of a finding it tried to silence and may not
    lines: tuple[int, ...] = field(default=())
    command: tuple[int, int] | None = None   # (first, last) lines of the command it precedes
    id_spans: dict[str, Span] = field(default_factory=dict)   # each id (upper-cased): where it is written
    used_ids: set[str] = field(default_factory=set)   # the ids through which it silenced a finding


def directives(tf: TextFile) -> list[Directive]:
    """Every suppression comment of a file."""
    out = []
    for lineno, line in enumerate(tf.lines, start=1):
        if "cfglint:" not in line:
            continue
        parsed = parse_directive(line)
        if parsed is None:
            continue
        kind, id_text, reason, start = parsed
        ids: list[str] = []
        id_spans: dict[str, Span] = {}
        at = line.index("=", start) + 1   # where id_text starts: just past the head's '='
        for item in id_text.split(","):
            name = item.strip()
            if name:
                col = at + item.index(name) + 1
                ids.append(name.upper())
                id_spans.setdefault(name.upper(), Span(tf.display, lineno, col, lineno, col + len(name)))
            at += len(item) + 1
        span = Span(tf.display, lineno, start + 1, lineno, len(line) + 1)
        whole = kind == "disable-file"
        out.append(Directive(ids, reason, span, whole, lines=(lineno, lineno + 1), id_spans=id_spans))
    return out


def _patterns(rule_id: str) -> list[str]:
    """The directive ids that cover ``rule_id`` (model.rule_matches): itself and each prefix
    that does not end in a digit (``RED`` and ``R`` cover ``RED001``, ``RED00`` does not)."""
    return [rule_id] + [rule_id[:k] for k in range(1, len(rule_id)) if not rule_id[k - 1].isdigit()]


def apply(findings: list[Finding], texts: list[TextFile], require_reason: bool = False,
          commands: dict[str, list[tuple[int, int]]] | None = None) -> list[Finding]:
    """Mark findings silenced by a directive (``Finding.suppressed`` = the reason); returns the
    new SUP001 / SUP002 findings about the directives themselves.

    ``commands``: per shell file, the (first, last) lines of each command. A comment cannot
    sit inside a backslash-continued command, so a directive on the line before a command
    covers all of its lines, as ShellCheck's directives do.
    """
    by_file = {tf.display: directives(tf) for tf in texts}
    lines_of = {tf.display: tf.lines for tf in texts}
    # per file, the directives that may silence a finding, indexed by (pattern, where): where is
    # a line, a command's (first, last) lines or None (whole file). Each finding looks up only
    # the patterns that cover its rule: a loop over every directive per finding, and over every
    # command per directive, made many directives and findings quadratic.
    index: dict[str, dict[tuple, list[Directive]]] = {}
    covering: dict[str, dict[int, list[tuple[int, int]]]] = {}
    for path, ds in by_file.items():
        text = lines_of[path]
        next_code = [0] * (len(text) + 2)   # first line >= i that is neither blank nor a comment
        nxt = len(text) + 1
        for i in range(len(text), 0, -1):
            line = text[i - 1]
            if line.strip() and not line.lstrip().startswith("#"):
                nxt = i
            next_code[i] = nxt
        ends: dict[int, int] = {}
        for first, last in (commands or {}).get(path, []):
            ends[first] = max(ends.get(first, first), last)
        at: dict[tuple, list[Directive]] = {}
        ranges: set[tuple[int, int]] = set()
        for d in ds:
            wheres: list = [None] if d.whole_file else list(d.lines)
            if not d.whole_file:
                # the next command, past blank and comment lines, as ShellCheck's directives
                n = d.lines[0] + 1
                target = next_code[n] if n <= len(text) else n
                if target in ends:
                    d.command = (target, ends[target])
                    wheres.append(d.command)
                    ranges.add(d.command)
            for pattern in d.ids:
                for where in wheres:
                    at.setdefault((pattern, where), []).append(d)   # in file order: the first wins
        cover: dict[int, list[tuple[int, int]]] = {}
        for first, last in ranges:
            for line in range(first, last + 1):
                cover.setdefault(line, []).append((first, last))
        index[path], covering[path] = at, cover
    order = {id(d): i for ds in by_file.values() for i, d in enumerate(ds)}
    refused: set[tuple] = set()
    for f in findings:
        at = index.get(f.span.path)
        if not at:
            continue
        line = f.span.line
        wheres = [None, line, *covering[f.span.path].get(line, ())]
        keys = [(pattern, where) for pattern in _patterns(f.rule_id) for where in wheres if (pattern, where) in at]
        if unsuppressible(f):
            for key in keys:  # every directive that would silence it says it cannot (once per key)
                if (f.span.path, key) not in refused:
                    refused.add((f.span.path, key))
                    for d in at[key]:
                        d.refused = d.refused or f.rule_id
            continue
        if keys:
            d = min((at[key][0] for key in keys), key=lambda d: order[id(d)])
            f.suppressed = d.reason or "suppressed in source"
            d.used = True
            d.used_ids.update(key[0] for key in keys if any(x is d for x in at[key]))
    from ..checks import all_rules

    known = list(all_rules())
    extra = []
    for ds in by_file.values():
        for d in ds:
            unknown = [i for i in d.ids if not any(rule_matches(k, [i]) for k in known)]
            if unknown:
                extra.append(Finding("SUP001", f"this suppression names unknown rule(s) {', '.join(unknown)}; "
                                               f"see 'cfglint rules'", d.span))
            elif d.refused:
                extra.append(Finding("SUP001", REFUSED_WHY[d.refused], d.span))
            elif not d.used:
                extra.append(Finding("SUP001", f"this suppression of {', '.join(d.ids)} silences nothing; remove it",
                                     d.span))
            if d.used and not d.refused:
                # several rules named, some silencing something: each one that silences nothing
                # is a finding at its own place in the comment
                for i in dict.fromkeys(d.ids):
                    if i not in d.used_ids and i not in unknown:
                        others = [k for k in dict.fromkeys(d.ids) if k in d.used_ids]
                        extra.append(Finding("SUP001", f"{i} in this suppression silences nothing here "
                                                       f"({', '.join(others)} {'does' if len(others) == 1 else 'do'}); "
                                                       f"remove {i} from the list",
                                             d.id_spans[i]))
            if require_reason and not d.reason:
                extra.append(Finding("SUP002", "a suppression needs a reason: '# cfglint: disable=ID -- why'", d.span))
    return extra
