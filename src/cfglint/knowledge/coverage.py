"""What the bundled knowledge covers: its date and the engine releases whose flag lists it holds
(``cfglint --version``, SARIF ``tool.driver.properties``)."""

from __future__ import annotations

from pathlib import Path

from .bundled import current, load, shared
from .releases import ENGINE_LABELS

# the parts of an engine's compiled data (rules/releases/<engine>-env.yaml ...): not release lists
PARTS = ("-env", "-checks", "-kernels")



def coverage() -> dict:
    """What the bundled knowledge covers, so a report can say what it was checked against
    (``cfglint --version``, SARIF ``tool.driver.properties``).

    Returns ``{"knowledge_date": "YYYY-MM-DD" or None, "engines": {engine: [release, ...]}}``:
    ``knowledge_date`` from rules/about.yaml (the day the facts were last read from their
    sources); per engine, in name order, the releases whose flags it holds: every release of
    rules/releases/<engine>.yaml (compiled from the engines' packages), else the hand-written
    rules/flags/<engine>.yaml's ``versions``, ``version`` or ``release_line`` (``1.2-1.3``). An
    engine with none of them, or a value of the wrong type, is left out; nothing is raised for
    the bundled data.
    """
    about = load("about.yaml")
    date = about.get("knowledge_date") if isinstance(about, dict) else None
    engines: dict[str, list[str]] = {}
    names = sorted(n for n in current().paths
                   if (n.startswith("flags/") or n.startswith("releases/"))
                   and not Path(n).stem.endswith(PARTS) and Path(n).stem != "inputs")
    for name in names:
        data = shared(name)
        if not isinstance(data, dict):
            continue
        engine = str(data.get("engine") or Path(name).stem)
        if name.startswith("flags/") and engine in engines:
            continue   # compiled releases stand for the engine
        found = data.get("releases") if name.startswith("releases/") else \
            (data.get("versions") or data.get("version") or data.get("release_line"))
        releases = found if isinstance(found, list) else [found] if found else []
        if releases and all(isinstance(r, (str, int, float)) for r in releases):
            engines[engine] = [str(r) for r in releases]
    return {"knowledge_date": str(date) if date else None, "engines": dict(sorted(engines.items()))}


def coverage_line() -> str:
    """:func:`coverage` in one line: ``knowledge 2026-12-01; engine flags: NVIDIA Dynamo 0.4.1-1.6.1
    (13 releases); SGLang ...``: a compiled engine as its first and last release and how many."""
    cov = coverage()
    parts = []
    for e, v in cov["engines"].items():
        shown = f"{v[0]}-{v[-1]} ({len(v)} releases)" if len(v) > 3 else ", ".join(v)
        parts.append(f"{ENGINE_LABELS.get(e, e)} {shown}")
    return f"knowledge {cov['knowledge_date'] or 'undated'}; engine flags: {'; '.join(parts) or 'none'}"
