"""``cfglint merge``: the SARIF reports of the parts of a sharded run (``--shard i/N``) as the
one report a single run writes.

A single run sorts its findings by path, line, column, rule and message and writes each once
(:func:`cfglint.output.report.sarif_parts`); the parts of a run hold disjoint groups of units
(:func:`cfglint.load.discover.shard`), so their results, put together, sorted by the same key
and written once each, are the single run's results. The exit code is the highest of the
parts' (a run fails when one of its parts does). The log around the results is the first
part's, which every part must share (the same cfglint, knowledge and rules). With every
result under GitHub's limit of :data:`~cfglint.output.report.MAX_RESULTS` in each part, the
merged report is byte for byte the single run's; past it, the merged run keeps what a single run
keeps (report.capped: credentials, then errors) of what the parts hold, and says how many each
part and the merge left out.
"""

from __future__ import annotations

import json
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from .report import cap, invocation, run_properties


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


def _left_out(run: dict) -> dict[str, int]:
    """How many results a part left out past the limit, per level (its run properties)."""
    by_level = (run.get("properties") or {}).get("resultsLeftOutByLevel") if isinstance(run.get("properties"), dict) else None
    if not isinstance(by_level, dict):
        return {}
    return {str(k): v for k, v in by_level.items() if k in _LEVELS and isinstance(v, int) and not isinstance(v, bool) and v > 0}


_LEVELS = ("error", "warning", "note")


def _facts(result: dict) -> tuple[bool, bool, str]:
    """What decides whether a result is kept past the limit (report.capped): silenced in source,
    a credential (RED002), its level."""
    level = result.get("level")
    return bool(result.get("suppressions")), result.get("ruleId") == "RED002", level if level in _LEVELS else "error"


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
    results, seen, left_out, code = [], set(), {}, 0
    for log in logs:
        run = log["runs"][0]
        for level, n in _left_out(run).items():
            left_out[level] = left_out.get(level, 0) + n
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
    results, more = cap(results, _facts)
    for level, n in more.items():
        left_out[level] = left_out.get(level, 0) + n
    left_out = {level: left_out[level] for level in _LEVELS if left_out.get(level)}
    out = logs[0]
    run: dict = {}
    for key, value in out["runs"][0].items():   # the members in the order a single run writes them
        if key == "properties":
            continue
        if key == "invocations":
            run["invocations"] = [invocation(code, left_out)]
            run.update(run_properties(left_out))
        elif key == "results":
            run["results"] = results
        else:
            run[key] = value
    out["runs"][0] = run
    return json.dumps(out, indent=2) + "\n"


__all__ = ["MergeError", "merge"]
