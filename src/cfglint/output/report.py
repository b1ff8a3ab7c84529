"""Report: one finding model, four formats (text, json, github, sarif); the formats of other CI
systems (gitlab, junit, rdjson) are in :mod:`cfglint.output.ciformats`.

SARIF 2.1.0 for GitHub code scanning: relative URIs against ``%SRCROOT%`` (the working
directory), ``columnKind: unicodeCodePoints``, ``newlineSequences`` CR LF, LF and CR (the
line breaks every position counts, textfile.py), every rule with its metadata.

Every string that can come from a linted file (file names, messages and related messages that
quote values, suppression reasons, echoed source lines) is passed through
:func:`cfglint.output.neutral.neutralize` here, in every format, so no output can drive a terminal or
run a GitHub Actions workflow command; SARIF messages also get their brackets escaped
(:func:`cfglint.output.neutral.sarif_message`). SARIF URIs are percent-encoded instead, and the
fingerprints hash the original text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping
from urllib.parse import quote

from .. import __version__
from ..model import Finding
from ..read.textfile import NEWLINE_SEQUENCES
from .neutral import neutralize, neutralize_at, sarif_message

if TYPE_CHECKING:  # the rules are only passed in: importing checks here would load the whole pipeline
    from ..checks import Rule

INFO_URI = "https://github.com/cfglint/cfglint"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
MAX_RESULTS = 25_000  # GitHub code scanning accepts at most this many results per run


def _line_text(sources: dict[str, list[str]], f: Finding) -> str | None:
    lines = sources.get(f.span.path)
    if not lines or not (1 <= f.span.line <= len(lines)):
        return None
    return lines[f.span.line - 1]


def _pad(prefix: str) -> str:
    """Blank space as wide as ``prefix`` on a terminal: tabs kept, wide (CJK) characters doubled."""
    import unicodedata

    return "".join("\t" if c == "\t" else ("  " if unicodedata.east_asian_width(c) in "WF" else " ")
                   for c in prefix)


def text(findings: list[Finding], sources: dict[str, list[str]], summary: str) -> str:
    """``path:line:col: ID [level] message`` followed by the offending line and a caret."""
    out = []
    for f in findings:
        if f.suppressed:
            continue
        s = f.span
        out.append(f"{neutralize(s.path)}:{s.line}:{s.col}: {f.rule_id} [{f.level}] {neutralize(f.message)}")
        line = _line_text(sources, f)
        if line is not None and len(line) <= 400:
            # the caret is placed on the neutralized line: an escape (\x1b) is as wide as it is shown
            start = min(max(s.col - 1, 0), len(line))
            end = min(max(s.end_col - 1, start), len(line)) if s.end_line == s.line else len(line)
            shown, start, end = neutralize_at(line, start, end)
            out.append(f"    {shown}")
            out.append("    " + _pad(shown[:start]) + "^" * max(1, end - start))
    out.append(summary)
    return "\n".join(out) + "\n"


def as_json(findings: list[Finding], exit_code: int, baselined: int | None = None) -> str:
    """The ``--format json`` report (schemas/cfglint-output.schema.json); ``baselined``: with
    ``--baseline``, how many findings the baseline hid (key ``baselined``, absent otherwise)."""
    extra = {} if baselined is None else {"baselined": baselined}
    return json.dumps({
        "version": __version__,
        "exit_code": exit_code,
        **extra,
        "findings": [{
            "rule": f.rule_id, "level": f.level, "message": neutralize(f.message),
            "path": neutralize(f.span.path), "line": f.span.line, "column": f.span.col,
            "end_line": f.span.end_line, "end_column": f.span.end_col,
            "related": [{"path": neutralize(s.path), "line": s.line, "column": s.col, "message": neutralize(m)}
                        for s, m in f.related],
            "fix": f.fix,  # a replacement cfglint chose (<host-path>, <head-ip>, marlin), never input
            "suppressed": None if f.suppressed is None else neutralize(f.suppressed),
        } for f in findings],
    }, indent=2) + "\n"


def _escape_gh(value: str, prop: bool = False) -> str:
    """GitHub's escaping of a workflow command's message (``%``, CR, LF) and, with ``prop``, of a
    property value (also ``:`` and ``,``), applied after :func:`neutralize` (a property, a file
    name, keeps a leading ``::``: written ``%3A%3A``, it cannot start a command)."""
    value = neutralize(value, keep_newlines=True, line_start=not prop).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands (``::error file=...,line=...::message``)."""
    kind = {"error": "error", "warning": "warning", "note": "notice"}
    out = []
    for f in findings:
        if f.suppressed:
            continue
        s = f.span
        props = f"file={_escape_gh(s.path, True)},line={s.line},col={s.col}"
        if s.end_line == s.line:
            props += f",endColumn={s.end_col}"
        else:
            props += f",endLine={s.end_line}"
        props += f",title={_escape_gh(f.rule_id, True)}"
        out.append(f"::{kind[f.level]} {props}::{_escape_gh(f.rule_id + ' ' + f.message)}")
    return "\n".join(out) + ("\n" if out else "")


def _artifact(path: str) -> dict:
    """SARIF artifactLocation: relative to %SRCROOT% (percent-encoded), or a file:// URI for a
    file outside the working directory."""
    p = Path(path)
    if p.is_absolute():
        return {"uri": p.as_uri()}
    return {"uri": quote(p.as_posix(), safe="/"), "uriBaseId": "%SRCROOT%"}


def _region(span) -> dict:
    return {"startLine": span.line, "startColumn": span.col, "endLine": span.end_line, "endColumn": span.end_col}


def sarif(findings: list[Finding], rules: dict[str, Rule], sources: dict[str, list[str]], exit_code: int,
          fixes: Mapping[int, object] | None = None) -> str:
    """The SARIF 2.1.0 log of a run, as ``json.dumps(log, indent=2)`` writes it (one string:
    :func:`sarif_parts` joined)."""
    return "".join(sarif_parts(findings, rules, sources, exit_code, fixes))


def _sarif_fix(fix) -> dict:
    """A SARIF ``fix`` of a :class:`cfglint.edit.fix.FindingFix` (``fix.edits``, ``.path``,
    ``.description``, ``.safe``): the same replacements --fix makes, ``properties.safe`` False
    for a fix made only with --unsafe-fixes."""
    return {
        "description": {"text": sarif_message(fix.description)},
        "artifactChanges": [{
            "artifactLocation": _artifact(fix.path),
            "replacements": [{"deletedRegion": _region(e.span), "insertedContent": {"text": e.text}}
                             for e in fix.edits]}],
        "properties": {"safe": fix.safe},
    }


def sarif_parts(findings: list[Finding], rules: dict[str, Rule], sources: dict[str, list[str]],
                exit_code: int, fixes: Mapping[int, object] | None = None) -> Iterator[str]:
    """The text of :func:`sarif` in pieces (the log around the results, then one piece per
    result), made as they are consumed: a writer holds one result's text at a time, not the
    whole report (10 MB for 11,000 submissions) in several copies. ``fixes``: the fix of each
    finding, by ``id(finding)`` (:func:`cfglint.edit.fix.fixes_of`), written as the result's
    ``fixes``; without it no result has one."""
    rule_ids = list(rules)
    driver_rules = []
    from ..knowledge import coverage
    from ..policy.baseline import Fingerprints  # SARIF only
    from .ruledocs import DOCS_URI, render

    covered = coverage()  # what the knowledge covers, for tool.driver.properties

    for r in rules.values():
        page = render(r)   # help.text is the page as plain text, help.markdown the Markdown page
        entry = {
            "id": r.id,
            "name": "".join(part.capitalize() for part in r.name.split("-")),
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.explanation},
            "help": {"text": render(r, markdown=False), "markdown": page},
            "helpUri": DOCS_URI.format(id=r.id),
            "defaultConfiguration": {"level": r.level},
            "properties": {"tags": list(r.tags) + ["configuration"]},
        }
        if "security" in r.tags:  # GitHub code scanning ranks security alerts by this score
            entry["properties"]["security-severity"] = r.security_severity
        driver_rules.append(entry)
    shown, left_out = capped(findings)
    fingerprint = Fingerprints(sources)

    def result_of(f: Finding) -> str:
        result = {
            "ruleId": f.rule_id,
            "level": f.level,
            "message": {"text": sarif_message(f.message)},
            "locations": [{"physicalLocation": {
                "artifactLocation": _artifact(f.span.path),
                "region": _region(f.span)}}],
            "partialFingerprints": {"primaryLocationLineHash": fingerprint(f)},
        }
        if f.rule_id in rule_ids:
            result["ruleIndex"] = rule_ids.index(f.rule_id)
        if f.related:
            result["relatedLocations"] = [{
                "id": i + 1,
                "physicalLocation": {"artifactLocation": _artifact(s.path), "region": _region(s)},
                "message": {"text": sarif_message(m)}} for i, (s, m) in enumerate(f.related)]
        if f.suppressed:
            result["suppressions"] = [{"kind": "inSource", "justification": sarif_message(f.suppressed)}]
        fix = fixes.get(id(f)) if fixes else None
        if fix is not None:
            result["fixes"] = [_sarif_fix(fix)]
        return _in_results(result)

    log = {
        "version": "2.1.0",
        "$schema": SARIF_SCHEMA,
        "runs": [{
            "tool": {"driver": {"name": "cfglint", "version": __version__, "semanticVersion": __version__,
                                "informationUri": INFO_URI, "rules": driver_rules,
                                # what the knowledge covers (cfglint --version): its date, each engine's flag releases
                                "properties": {"knowledgeDate": covered["knowledge_date"],
                                               "engineFlagReleases": covered["engines"]}}},
            "automationDetails": {"id": "cfglint/"},
            "columnKind": "unicodeCodePoints",
            "newlineSequences": list(NEWLINE_SEQUENCES),   # a lone CR ends a line too (textfile.py)
            "invocations": [invocation(exit_code, left_out)],
            **run_properties(left_out),
            "results": _RESULTS_SLOT,
        }],
    }
    head, tail = json.dumps(log, indent=2).split(json.dumps(_RESULTS_SLOT), 1)
    if not shown:
        yield head + "[]" + tail + "\n"
        return
    yield head + "[\n"
    for i, f in enumerate(shown):
        yield (",\n" if i else "") + result_of(f)
    yield "\n      ]" + tail + "\n"


def invocation(exit_code: int, left_out: dict[str, int] | None = None) -> dict:
    """The SARIF invocation of a run that exited ``exit_code`` and left results out past
    :data:`MAX_RESULTS` (``left_out``: how many per level, of :func:`capped`), saying so."""
    return {"executionSuccessful": exit_code in (0, 1), "exitCode": exit_code,
            **({"toolExecutionNotifications": [{"level": "warning", "message": {
                "text": left_out_text(left_out)}}]} if left_out else {})}


def run_properties(left_out: dict[str, int] | None) -> dict:
    """The run's ``properties`` member when results were left out (how many, and per level)."""
    return {"properties": {"resultsLeftOut": sum(left_out.values()), "resultsLeftOutByLevel": left_out}} \
        if left_out else {}


def capped(findings: list[Finding], limit: int | None = None) -> tuple[list[Finding], dict[str, int]]:
    """The findings a SARIF run keeps under GitHub's limit of ``limit`` results, in their order,
    and how many it leaves out per level (only levels with any). What is kept first: credentials
    (RED002), then errors, warnings and notes, findings silenced in source last; in path order
    within each. A file's leaked secret is never pushed out by many findings in another.
    ``limit``: MAX_RESULTS when None."""
    return cap(findings, lambda f: (bool(f.suppressed), f.secret, f.level or "error"), limit)


def cap(items: list, facts, limit: int | None = None) -> tuple[list, dict[str, int]]:
    """:func:`capped` over any items (findings, or SARIF results when parts are merged):
    ``facts(item)`` gives (silenced in source, holds a credential, level)."""
    limit = MAX_RESULTS if limit is None else limit
    if len(items) <= limit:
        return items, {}
    from ..model import level_rank

    of = [facts(x) for x in items]

    def rank(i: int) -> tuple:
        quiet, secret, level = of[i]
        return (quiet, not secret, -level_rank(level), i)

    kept = set(sorted(range(len(items)), key=rank)[:limit])
    left_out: dict[str, int] = {}
    for i in range(len(items)):
        if i not in kept:
            left_out[of[i][2]] = left_out.get(of[i][2], 0) + 1
    order = ("error", "warning", "note")
    return [x for i, x in enumerate(items) if i in kept], dict(sorted(left_out.items(), key=lambda kv: order.index(kv[0])))


def left_out_text(left_out: dict[str, int]) -> str:
    """What a SARIF report says (a notification, the summary) about the results it left out."""
    limit = MAX_RESULTS
    levels = ", ".join(f"{n} {level}(s)" for level, n in left_out.items())
    return (f"the SARIF report left out {sum(left_out.values())} results past GitHub's limit of {limit} per run: "
            f"{levels}; credentials and errors were kept first (another format shows every finding)")


# SARIF is written as json.dumps(log, indent=2) writes it, but each result is turned into text as
# it is made and the texts are put into the log's place for them: a run's dicts of every result,
# and the encoder's pieces of all of them at once, took about 5x the report's size
# (a 9 MB report for 11,000 submissions). The place is a string no other value of the log holds
# (the results, the only values taken from input, come after it).
_RESULTS_SLOT = "\x00results\x00"
_RESULT_INDENT = " " * 8   # runs[] -> run{} -> results[] -> result: four levels of indent=2


def _in_results(result: dict) -> str:
    """``result`` as json.dumps(log, indent=2) writes it at its place in ``runs[0].results``."""
    return "\n".join(_RESULT_INDENT + line for line in json.dumps(result, indent=2).split("\n"))


def summarize(findings: Iterable[Finding], n_units: int, baselined: int | None = None,
              unsafe_fixes: bool = False, left_out: dict[str, int] | None = None) -> str:
    """The one-line summary of a run: findings by level, submissions and files linted, how many
    findings a suppression comment silenced, (``baselined``, with ``--baseline``) how many
    the baseline hid and (``left_out``, of :func:`capped`) how many a SARIF report left out,
    then how many ``--fix`` can fix (:func:`fixable`; with ``unsafe_fixes``, the unsafe ones
    count as fixable)."""
    findings = list(findings)
    quiet = sum(1 for f in findings if f.suppressed)
    notes = [f"{quiet} suppressed in source"] if quiet else []
    if baselined is not None:
        notes.append(f"{baselined} finding{'' if baselined == 1 else 's'} hidden by the baseline")
    if left_out:
        notes.append(left_out_text(left_out))
    tail = f" ({'; '.join(notes)})" if notes else ""
    findings = [f for f in findings if not f.suppressed]
    if not findings:
        return f"cfglint: no findings in {n_units} submission(s) / file(s){tail}"
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.level] = counts.get(f.level, 0) + 1
    parts = ", ".join(f"{counts[k]} {k}(s)" for k in ("error", "warning", "note") if k in counts)
    safe, unsafe = fixable(findings)
    fix = ""
    if unsafe_fixes and safe + unsafe:
        fix = f"; {safe + unsafe} fixable with --fix --unsafe-fixes"
    elif safe or unsafe:
        fix = f"; {safe} fixable with --fix" + (f" ({unsafe} more with --unsafe-fixes)" if unsafe else "")
    return f"cfglint: {len(findings)} finding(s) ({parts}) in {n_units} submission(s) / file(s){tail}{fix}"


def fixable(findings: Iterable[Finding]) -> tuple[int, int]:
    """(safe, unsafe): how many active findings carry a fix (a replacement or a key move) that
    ``--fix`` makes, and how many one it makes only with ``--unsafe-fixes``."""
    safe = unsafe = 0
    for f in findings:
        if not f.suppressed and (f.fix is not None or f.move is not None):
            if f.fix_safe:
                safe += 1
            else:
                unsafe += 1
    return safe, unsafe
