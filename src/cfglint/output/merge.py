"""``cfglint merge``: the SARIF reports of the parts of a sharded run (``--shard i/N``) as the
one report a single run writes.

A single run sorts its findings by path, line, column, rule and message and writes each once
(:func:`cfglint.output.report.sarif_parts`); the parts of a run hold disjoint groups of units
(:func:`cfglint.load.discover.shard`), so their results, put together, sorted by the same key
and written once each, are the single run's results. The exit code is the highest of the
parts' (a run fails when one of its parts does). The log around the results is the first
part's, which every part must share (the same cfglint, knowledge and rules). With every
result under GitHub's limit of :data:`~cfglint.output.report.MAX_RESULTS` in each part, the
merged report is byte for byte the single run's.
"""

from __future__ import annotations

import json
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from .report import MAX_RESULTS, invocation


class MergeError(ValueError):
    """The reports cannot be merged; ``str(err)`` says why, naming the report."""


def _key(result: dict) -> tuple:
    """The single run's sort key (Finding.sort_key) of a SARIF result: path, line, column,
    rule, message."""
    loc = ((result.get("locations") or [{}])[0].get("physicalLocation") or {})
    art, region = loc.get("artifactLocation") or {}, loc.get("region") or {}
    uri = str(art.get("uri", ""))
    path = url2pathname(urlparse(uri).path) if uri.startswith("file:") else unquote(uri)
    return (path, region.get("startLine", 0), region.get("startColumn", 0), str(result.get("ruleId", "")),
            str((result.get("message") or {}).get("text", "")))


def _dropped(run: dict) -> int:
    """How many results a part left out beyond the limit (its tool execution notification)."""
    for inv in run.get("invocations") or []:
        for note in inv.get("toolExecutionNotifications") or []:
            text = str((note.get("message") or {}).get("text", ""))
            head = text.split(" ", 1)[0]
            if "beyond GitHub's limit" in text and head.isdigit():
                return int(head)
    return 0


def merge(reports: list[tuple[str, str]]) -> str:
    """The merged SARIF text of ``reports`` ((name, SARIF text) per part, as cfglint wrote
    them), in the form :func:`cfglint.output.report.sarif` writes. Raises MergeError for a
    report that is not a cfglint SARIF log of one run, or that another cfglint (version,
    knowledge, rules) wrote."""
    if not reports:
        raise MergeError("no report to merge")
    logs, tool = [], None
    for name, text in reports:
        try:
            log = json.loads(text)
        except ValueError as err:
            raise MergeError(f"{name}: not JSON ({err})") from None
        runs = log.get("runs") if isinstance(log, dict) else None
        if not isinstance(runs, list) or log.get("version") != "2.1.0" or len(runs) != 1 \
                or not isinstance(runs[0], dict) or not isinstance(runs[0].get("tool"), dict) \
                or (runs[0]["tool"].get("driver") or {}).get("name") != "cfglint":
            raise MergeError(f"{name}: not a SARIF 2.1.0 log of one cfglint run")
        here = json.dumps(runs[0].get("tool"), sort_keys=True)
        if tool is not None and here != tool:
            raise MergeError(f"{name}: written by another cfglint version, knowledge or rule set than "
                             f"{reports[0][0]}; merge the parts of one run")
        tool = here
        logs.append(log)
    results, seen, dropped, code = [], set(), 0, 0
    for log in logs:
        run = log["runs"][0]
        dropped += _dropped(run)
        for inv in run.get("invocations") or []:
            if isinstance(inv.get("exitCode"), int):
                code = max(code, inv["exitCode"])
        found = run.get("results") or []
        if not isinstance(found, list) or not all(isinstance(r, dict) for r in found):
            raise MergeError("a report's results are not a list of SARIF results")
        for r in found:
            ident = json.dumps(r, sort_keys=True)
            if ident not in seen:   # a finding two parts both report (a nested configuration above both)
                seen.add(ident)
                results.append(r)
    try:
        results.sort(key=_key)
    except (AttributeError, TypeError, IndexError):
        raise MergeError("a result has no location in the form cfglint writes") from None
    dropped += max(0, len(results) - MAX_RESULTS)
    out = logs[0]
    out["runs"][0]["invocations"] = [invocation(code, dropped)]
    out["runs"][0]["results"] = results[:MAX_RESULTS]
    return json.dumps(out, indent=2) + "\n"


__all__ = ["MergeError", "merge"]
