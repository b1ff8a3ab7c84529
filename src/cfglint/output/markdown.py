"""``--format markdown``: the report as one Markdown document, written for GitHub's job summary
(``$GITHUB_STEP_SUMMARY``, which the Action fills) and for pull-request comments.

The document: a heading, the run's summary line, a table of findings per rule (each rule linked
to its page, with how many ``--fix`` fixes), then every finding as a row (level, rule,
``path:line:col``, message). Findings silenced in source are left out, as in the text format
(the summary counts them).

Every text from a linted file (paths, messages) passes :func:`cell`: neutralized like the other
formats (no control character, no workflow command; credentials were masked before), then
each character Markdown or a table gives a meaning to is backslash-escaped (CommonMark: any ASCII
punctuation may be), so input forms no link, image, HTML tag, emphasis or extra table column.

Bounded: the document stops before :data:`MAX_BYTES` (GitHub refuses a job summary over 1 MiB
per step) with a line saying how many findings it leaves out; the SARIF report and the
annotations carry them all.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..model import Finding
from .neutral import neutralize_strict
from .report import fixable, summarize
from .ruledocs import DOCS_URI

MAX_BYTES = 1_000_000   # GitHub: "$GITHUB_STEP_SUMMARY upload aborted, supports content up to a size of 1024k"
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~&])")


def cell(text: str) -> str:
    """``text`` from input as the content of a Markdown table cell: neutralized
    (:func:`neutralize_strict`), every character Markdown or a table reads escaped."""
    return _SPECIAL.sub(r"\\\1", neutralize_strict(text))


def markdown(findings: Iterable[Finding], rules: dict, n_units: int, exit_code: int, fail_level: str,
             baselined: int | None = None, unsafe_fixes: bool = False) -> str:
    """The Markdown report of a run (see the module docstring); ``rules``: id -> Rule (names)."""
    findings = list(findings)
    active = [f for f in findings if not f.suppressed]
    head = ["## cfglint", "", cell(summarize(findings, n_units, baselined, unsafe_fixes).removeprefix("cfglint: ")),
            "", f"Exit code {exit_code} (fail level: {fail_level}).", ""]
    if active:
        counts: dict[str, list[Finding]] = {}
        for f in active:
            counts.setdefault(f.rule_id, []).append(f)
        head += ["| rule | name | findings | fix |", "|---|---|---:|---|"]
        for rule_id, fs in sorted(counts.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            name = rules[rule_id].name if rule_id in rules else ""
            safe, unsafe = fixable(fs)
            fix = f"{safe} with --fix" if safe else ""
            fix += (", " if fix and unsafe else "") + (f"{unsafe} with --unsafe-fixes" if unsafe else "")
            head.append(f"| {_rule_link(rule_id, rules)} | {name} | {len(fs)} | {cell(fix)} |")
        head += ["", "| level | rule | location | message |", "|---|---|---|---|"]
    out = "\n".join(head) + "\n"
    size = len(out.encode("utf-8"))
    for i, f in enumerate(active):
        s = f.span
        row = f"| {f.level} | {_rule_link(f.rule_id, rules)} | {cell(f'{s.path}:{s.line}:{s.col}')} | {cell(f.message)} |\n"
        grown = size + len(row.encode("utf-8"))
        if grown > MAX_BYTES - 400:
            left = len(active) - i
            out += (f"\n{left} more finding(s) not shown: a job summary holds at most 1 MiB; the SARIF report and "
                    f"`cfglint check` list them all.\n")
            break
        out += row
        size = grown
    return out


def _rule_link(rule_id: str, rules: dict) -> str:
    return f"[{rule_id}]({DOCS_URI.format(id=rule_id)})" if rule_id in rules else cell(rule_id)


__all__ = ["MAX_BYTES", "cell", "markdown"]
