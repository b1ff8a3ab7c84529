"""Baselines: record today's findings, then report only new ones.

A finding is identified by its rule, file and the text of its line (not the line number), so
a baseline survives unrelated lines moving: the same key as SARIF's
``partialFingerprints.primaryLocationLineHash``. The line text is the masked one (redact.py):
neither a baseline nor a fingerprint is made from a credential.

A credential (RED002, ``Finding.secret``) is never accepted by a baseline: ``write`` leaves it
out and :func:`new_findings` never hides it. Its line is masked with ``*`` of the same length,
so a fingerprint could not tell a new credential from a baselined one of the same length; and a
published credential must be revoked, not recorded.
"""

from __future__ import annotations

import hashlib
import json
import os

from .model import Finding


def fingerprint(f: Finding, sources: dict[str, list[str]], relative_to: str | None = None) -> str:
    """Rule, path and stripped line text, hashed; ``:1`` keeps GitHub's hash format. The path is
    as displayed, or relative to ``relative_to`` (a baseline's directory) when given."""
    lines = sources.get(f.span.path) or []
    text = lines[f.span.line - 1].strip() if 1 <= f.span.line <= len(lines) else ""
    path = f.span.path
    if relative_to is not None:
        path = os.path.relpath(os.path.abspath(path), relative_to).replace(os.sep, "/")
    return hashlib.sha256(f"{f.rule_id}\0{path}\0{text}".encode()).hexdigest()[:32] + ":1"


def base_dir(baseline_path: str) -> str:
    """Paths in a baseline are relative to its own directory."""
    return os.path.dirname(os.path.abspath(baseline_path))


def recordable(f: Finding) -> bool:
    """Whether a baseline may hold ``f``: an active finding that is not a credential."""
    return not f.suppressed and not f.secret


def new_findings(findings: list[Finding], known: set[str], sources: dict[str, list[str]],
                 relative_to: str) -> list[Finding]:
    """``findings`` without those a baseline (``known`` fingerprints, paths relative to
    ``relative_to``) records; a credential (RED002) is always kept."""
    return [f for f in findings if f.secret or fingerprint(f, sources, relative_to) not in known]


def write(path: str, findings: list[Finding], sources: dict[str, list[str]]) -> None:
    """Write the fingerprints (with rule and place, for people) of the findings a baseline may
    hold (:func:`recordable`: no credential) to ``path``. Raises OSError."""
    rel = base_dir(path)
    entries = sorted({(fingerprint(f, sources, rel), f.rule_id,
                       os.path.relpath(os.path.abspath(f.span.path), rel).replace(os.sep, "/"))
                      for f in findings if recordable(f)})
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
