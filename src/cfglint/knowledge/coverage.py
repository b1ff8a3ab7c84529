"""What the bundled knowledge covers: its date and the engine releases whose flag lists it holds
(``cfglint --version``, SARIF ``tool.driver.properties``)."""

from __future__ import annotations

from pathlib import Path

from .bundled import current, load, shared
from .releases import ENGINE_LABELS




def coverage() -> dict:
    """What the bundled knowledge covers, so a report can say what it was checked against
    (``cfglint --version``, SARIF ``tool.driver.properties``).

    Returns ``{"knowledge_date": "YYYY-MM-DD" or None, "engines": {engine: [release, ...]}}``:
    ``knowledge_date`` from rules/about.yaml (the day the facts were last read from their
    sources); per engine of rules/flags/<engine>.yaml (``sglang``, ``vllm``, ``trtllm``,
    ``dynamo``, in file-name order) the releases its flag list was read from: its ``versions``
    list, else its ``version``, else its ``release_line`` (a line such as ``1.2-1.3`` when no
    single release was read). An engine with none of them, or a value of the wrong type, is
    left out; nothing is raised for the bundled data.
    """
    about = load("about.yaml")
    date = about.get("knowledge_date") if isinstance(about, dict) else None
    engines: dict[str, list[str]] = {}
    names = sorted(n for n in current().paths if n.startswith("flags/"))
    for name in names:
        data = shared(name)
        if not isinstance(data, dict):
            continue
        found = data.get("versions") or data.get("version") or data.get("release_line")
        releases = found if isinstance(found, list) else [found] if found else []
        if releases and all(isinstance(r, (str, int, float)) for r in releases):
            engines[str(data.get("engine") or Path(name).stem)] = [str(r) for r in releases]
    return {"knowledge_date": str(date) if date else None, "engines": engines}


def coverage_line() -> str:
    """:func:`coverage` in one line: ``knowledge 2026-12-01; engine flags: SGLang 0.5.17, 0.5.23; vLLM 0.33.0; ...``."""
    cov = coverage()
    engines = "; ".join(f"{ENGINE_LABELS.get(e, e)} {', '.join(v)}" for e, v in cov["engines"].items())
    return f"knowledge {cov['knowledge_date'] or 'undated'}; engine flags: {engines or 'none'}"
