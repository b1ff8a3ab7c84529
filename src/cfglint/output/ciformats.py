"""The report formats of CI systems other than GitHub: GitLab Code Quality, JUnit XML, reviewdog's
rdjson. Each takes the findings :mod:`cfglint.output.report` takes (credentials already masked by
:func:`cfglint.output.masking.mask_result`, every message already cut to ``lint.MAX_MESSAGE``
characters) and passes every string that can come from a linted file (file names, messages,
related messages) through :func:`cfglint.output.neutral.neutralize_strict` (reviewdog's messages
through :func:`cfglint.output.neutral.markdown_message`), so no output can drive a terminal or a CI
runner, and any input gives a well-formed document. Findings silenced in source are left out
(none of these formats has a place for them), as in the text and github formats.

- :func:`gitlab`: the Code Quality report GitLab reads from ``artifacts:reports:codequality``
  (https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format): a JSON array
  of issues, each valid against GitLab's own schema for them
  (``app/validators/json_schemas/codeclimate.json`` in GitLab's repository). GitLab keeps one
  issue per ``fingerprint`` and stops reading the report at the first issue its schema rejects.
- :func:`junit`: JUnit XML, valid against the Jenkins xUnit plugin's ``junit-10.xsd``, for
  GitLab's ``artifacts:reports:junit``, Jenkins' ``junit`` step and Azure Pipelines'
  ``PublishTestResults``.
- :func:`rdjson`: reviewdog's Diagnostic Result JSON (``reviewdog -f=rdjson``), valid against
  ``proto/rdf/jsonschema/DiagnosticResult.json`` of the reviewdog repository; columns are
  UTF-8 byte counts, as that format defines them.

Positions are the json format's (1-based line and column, end exclusive), columns in Unicode
code points, except rdjson's.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from .. import __version__
from ..model import Finding, level_rank
from .neutral import markdown_message, neutralize_strict

if TYPE_CHECKING:
    from ..checks import Rule

INFO_URI = "https://github.com/cfglint/cfglint"

# cfglint level -> GitLab Code Quality severity (info, minor, major, critical, blocker); a published
# credential (RED002, Finding.secret) is critical
GITLAB_SEVERITY = {"error": "major", "warning": "minor", "note": "info"}
RDJSON_SEVERITY = {"error": "ERROR", "warning": "WARNING", "note": "INFO"}


def _active(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if not f.suppressed]


def _is_security(rules: dict[str, Rule], rule_id: str) -> bool:
    r = rules.get(rule_id)
    return r is not None and "security" in r.tags


def issue_fingerprints(findings: list[Finding], sources: dict[str, list[str]]) -> list[str]:
    """One fingerprint per finding, unique within the run and stable across runs: the SARIF
    line hash (:func:`cfglint.policy.baseline.fingerprint`: rule, path and the text of the finding's
    line, not its number) with the finding's rank among those that share it (0 for the first),
    hashed to 32 hex digits. A finding keeps its fingerprint when lines are added above it."""
    from ..policy.baseline import Fingerprints

    fingerprint = Fingerprints(sources)
    seen: dict[str, int] = {}
    out = []
    for f in findings:
        base = fingerprint(f)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(hashlib.sha256(f"{base}\0{n}".encode()).hexdigest()[:32])
    return out


def gitlab(findings: list[Finding], rules: dict[str, Rule], sources: dict[str, list[str]]) -> str:
    """GitLab Code Quality report: ``[{"type": "issue", "check_name", "description",
    "categories", "severity", "fingerprint", "location": {"path", "positions": {"begin":
    {"line", "column"}, "end": {...}}}}]`` (Code Climate's issue, the fields GitLab reads and
    the ones its spec requires). ``path`` is as displayed: relative to the working directory,
    which must be the repository's top for GitLab to link the file."""
    from .ruledocs import DOCS_URI

    active = _active(findings)
    issues = []
    for f, fp in zip(active, issue_fingerprints(active, sources)):
        s = f.span
        security = _is_security(rules, f.rule_id)
        issues.append({
            "type": "issue",
            "check_name": f.rule_id,
            "description": neutralize_strict(f"{f.rule_id} {f.message}"),
            "content": {"body": f"See {DOCS_URI.format(id=f.rule_id)}"},
            "categories": ["Security"] if security else ["Bug Risk"],
            "severity": "critical" if f.secret and f.level == "error" else GITLAB_SEVERITY[f.level],
            "fingerprint": fp,
            "location": {"path": neutralize_strict(s.path), "positions": {
                "begin": {"line": s.line, "column": s.col},
                "end": {"line": s.end_line, "column": s.end_col}}},
        })
    return json.dumps(issues, indent=2) + "\n"


def _byte_column(sources: dict[str, list[str]], path: str, line: int, col: int) -> int:
    """``col`` (1-based, in code points) of ``line`` as reviewdog counts it: 1 + the UTF-8 bytes
    before it. Where the line's text is not at hand, ``col`` itself (right for ASCII)."""
    lines = sources.get(path)
    if not lines or not 1 <= line <= len(lines) or col < 1:
        return col
    text = lines[line - 1]
    if col - 1 > len(text):
        return col
    before = text[: col - 1]
    try:
        size = len(before.encode("utf-8", "surrogateescape"))   # a byte that was not UTF-8: one byte
    except UnicodeEncodeError:
        size = len(before.encode("utf-8", "surrogatepass"))
    return size + 1


def _rd_range(sources: dict[str, list[str]], span) -> dict:
    return {"start": {"line": span.line, "column": _byte_column(sources, span.path, span.line, span.col)},
            "end": {"line": span.end_line, "column": _byte_column(sources, span.path, span.end_line, span.end_col)}}


def rdjson(findings: list[Finding], sources: dict[str, list[str]]) -> str:
    """reviewdog Diagnostic Result: ``{"source": {"name", "url"}, "diagnostics": [{"message",
    "location": {"path", "range": {"start", "end"}}, "severity", "code": {"value", "url"},
    "suggestions", "related_locations"}]}``. A finding with a mechanical fix (the one
    ``cfglint check --fix`` applies) carries it as a suggestion replacing the finding's range;
    the end of a range is exclusive, as reviewdog's is."""
    from .ruledocs import DOCS_URI

    diagnostics = []
    for f in _active(findings):
        d = {
            "message": markdown_message(f.message),
            "location": {"path": neutralize_strict(f.span.path), "range": _rd_range(sources, f.span)},
            "severity": RDJSON_SEVERITY[f.level],
            "code": {"value": f.rule_id, "url": DOCS_URI.format(id=f.rule_id)},
        }
        if f.fix is not None:
            d["suggestions"] = [{"range": _rd_range(sources, f.span), "text": neutralize_strict(f.fix)}]
        if f.related:
            d["related_locations"] = [{"message": markdown_message(m), "location": {
                "path": neutralize_strict(s.path), "range": _rd_range(sources, s)}} for s, m in f.related]
        diagnostics.append(d)
    return json.dumps({"source": {"name": "cfglint", "url": INFO_URI}, "diagnostics": diagnostics}, indent=2) + "\n"


def junit(findings: list[Finding], n_units: int, fail_level: str) -> str:
    """JUnit XML: ``<testsuites>`` with one ``<testsuite>`` per file that has findings (its
    ``name`` and ``file`` the file's path), one ``<testcase>`` per finding (``classname`` the
    path, ``name`` ``RULE line:col``). A finding at or above ``fail_level`` (those that make
    cfglint exit 1) is a ``<failure>`` whose ``message`` is ``path:line:col: RULE [level]
    message`` and whose text adds the related places and the rule's page; a finding below it is
    a passed test with that text in ``<system-out>``, so the report fails exactly when the run
    does. A run without findings is one passed test, ``cfglint``, naming how many submissions
    and files it checked (Jenkins' ``junit`` step fails on a report with no test at all)."""
    import xml.etree.ElementTree as ET   # only this format needs XML

    from .ruledocs import DOCS_URI

    active = _active(findings)
    root = ET.Element("testsuites", name="cfglint")
    props = None
    by_path: dict[str, list[Finding]] = {}
    for f in active:
        by_path.setdefault(f.span.path, []).append(f)
    total = failed = 0
    if not by_path:
        suite = ET.SubElement(root, "testsuite", name="cfglint", tests="1", failures="0", errors="0",
                              skipped="0", time="0")
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="cfglint.version", value=__version__)
        case = ET.SubElement(suite, "testcase", name="cfglint", classname="cfglint", time="0")
        ET.SubElement(case, "system-out").text = f"no findings in {n_units} submission(s) / file(s)"
        total = 1
    for path, group in by_path.items():
        shown = neutralize_strict(path)
        n_failed = sum(1 for f in group if level_rank(f.level) >= level_rank(fail_level))
        suite = ET.SubElement(root, "testsuite", name=shown, tests=str(len(group)), failures=str(n_failed),
                              errors="0", skipped="0", time="0", file=shown)
        if props is None:
            props = ET.SubElement(suite, "properties")
            ET.SubElement(props, "property", name="cfglint.version", value=__version__)
        for f in group:
            s = f.span
            case = ET.SubElement(suite, "testcase", name=f"{f.rule_id} {s.line}:{s.col}", classname=shown, time="0")
            head = f"{shown}:{s.line}:{s.col}: {f.rule_id} [{f.level}] {neutralize_strict(f.message)}"
            body = [head] + [f"  {neutralize_strict(r.path)}:{r.line}:{r.col}: {neutralize_strict(m)}"
                             for r, m in f.related] + [f"  {DOCS_URI.format(id=f.rule_id)}"]
            if level_rank(f.level) >= level_rank(fail_level):
                fail = ET.SubElement(case, "failure", message=head, type=f.level)
                fail.text = "\n".join(body)
            else:
                ET.SubElement(case, "system-out").text = "\n".join(body)
        total += len(group)
        failed += n_failed
    root.set("tests", str(total))
    root.set("failures", str(failed))
    root.set("errors", "0")
    root.set("time", "0")
    ET.indent(root)
    # ASCII, every other character as a reference (&#233;): right whatever encoding standard output has
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="us-ascii").decode("ascii") + "\n"
