"""Inline suppressions: ``# cfglint: disable=ID[,ID] -- reason`` on a finding's line or the line
before it, and ``# cfglint: disable-file=ID[,ID] -- reason`` anywhere in a file. IDs may be
rule families (``RED``). Works in shell, worker argument files and YAML (all use ``#``).

Suppressed findings stay in the result (SARIF reports them with ``suppressions``); a
directive that silences nothing is itself a finding (SUP001), and so is one without a reason
when the configuration requires reasons (SUP002). A leaked secret (RED002) is never silenced
inline: the directive sits in the contributor's own file, and a secret once committed must be
rotated, so such a directive is a SUP001 that says so (a false positive is ignored in the
repository's root configuration instead).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .model import Finding, Span, rule_matches
from .textfile import TextFile

UNSUPPRESSIBLE = frozenset({"RED002"})

DIRECTIVE = re.compile(r"#\s*cfglint:\s*(disable|disable-file)\s*=\s*([A-Za-z0-9_,\s]+?)\s*(?:--\s*(.*?))?\s*$")


@dataclass(slots=True)
class Directive:
    ids: list[str]
    reason: str
    span: Span
    whole_file: bool
    used: bool = False
    refused: bool = False
    lines: tuple[int, ...] = field(default=())


def directives(tf: TextFile) -> list[Directive]:
    """Every suppression comment of a file."""
    out = []
    for lineno, line in enumerate(tf.lines, start=1):
        if "cfglint:" not in line:
            continue
        m = DIRECTIVE.search(line)
        if not m:
            continue
        ids = [i.strip().upper() for i in m.group(2).split(",") if i.strip()]
        span = Span(tf.display, lineno, m.start() + 1, lineno, m.end() + 1)
        whole = m.group(1) == "disable-file"
        out.append(Directive(ids, (m.group(3) or "").strip(), span, whole, lines=(lineno, lineno + 1)))
    return out


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
    for path, ds in by_file.items():
        text = lines_of[path]
        for d in ds:
            # the next command, past blank and comment lines, as ShellCheck's directives
            nxt = d.lines[0] + 1
            while nxt <= len(text) and (not text[nxt - 1].strip() or text[nxt - 1].lstrip().startswith("#")):
                nxt += 1
            for first, last in (commands or {}).get(path, []):
                if first == nxt:
                    d.lines = tuple(sorted(set(d.lines) | set(range(first, last + 1))))
    for f in findings:
        for d in by_file.get(f.span.path, []):
            if rule_matches(f.rule_id, d.ids) and (d.whole_file or f.span.line in d.lines):
                if f.rule_id in UNSUPPRESSIBLE:
                    d.refused = True
                    continue
                f.suppressed = d.reason or "suppressed in source"
                d.used = True
                break
    from .checks import all_rules

    known = list(all_rules())
    extra = []
    for ds in by_file.values():
        for d in ds:
            unknown = [i for i in d.ids if not any(rule_matches(k, [i]) for k in known)]
            if unknown:
                extra.append(Finding("SUP001", f"this suppression names unknown rule(s) {', '.join(unknown)}; "
                                               f"see 'cfglint rules'", d.span))
            elif d.refused:
                extra.append(Finding("SUP001", "RED002 (a leaked secret) cannot be suppressed inline: rotate the "
                                               "secret and remove it; for a false positive, ignore RED002 for this "
                                               "file in the repository's root configuration (per-file-ignores)",
                                     d.span))
            elif not d.used:
                extra.append(Finding("SUP001", f"this suppression of {', '.join(d.ids)} silences nothing; remove it",
                                     d.span))
            if require_reason and not d.reason:
                extra.append(Finding("SUP002", "a suppression needs a reason: '# cfglint: disable=ID -- why'", d.span))
    return extra
