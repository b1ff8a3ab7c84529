"""Baselines: record today's findings, then report only new ones.

A finding is identified by its rule, file and the text of its line (not the line number), so
a baseline survives unrelated lines moving: the same key as SARIF's
``partialFingerprints.primaryLocationLineHash``.
"""

from __future__ import annotations

import hashlib
import json

from .model import Finding


def fingerprint(f: Finding, sources: dict[str, list[str]]) -> str:
    """Rule, path and stripped line text, hashed; ``:1`` keeps GitHub's hash format."""
    lines = sources.get(f.span.path) or []
    text = lines[f.span.line - 1].strip() if 1 <= f.span.line <= len(lines) else ""
    return hashlib.sha256(f"{f.rule_id}\0{f.span.path}\0{text}".encode()).hexdigest()[:32] + ":1"


def write(path: str, findings: list[Finding], sources: dict[str, list[str]]) -> None:
    """Write the active findings' fingerprints (with rule and place, for people) to ``path``.
    Raises OSError."""
    entries = sorted({(fingerprint(f, sources), f.rule_id, f.span.path) for f in findings if not f.suppressed})
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"cfglint-baseline": 1, "findings": [{"fingerprint": h, "rule": r, "path": p} for h, r, p in entries]},
                  fh, indent=2)
        fh.write("\n")


def read(path: str) -> set[str]:
    """Fingerprints of a baseline file. Raises OSError or ValueError."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict) or data.get("cfglint-baseline") != 1:
        raise ValueError("not a cfglint baseline (written by --write-baseline)")
    return {e["fingerprint"] for e in data.get("findings", []) if isinstance(e, dict) and "fingerprint" in e}
