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

import json
import os

from ..knowledge.kbcache import sha256
from ..model import Finding
from ..read.safeio import ReadError, atomic_write, read_bytes


def fingerprint(f: Finding, sources: dict[str, list[str]], relative_to: str | None = None) -> str:
    """Rule, path and stripped line text, hashed; ``:1`` keeps GitHub's hash format. The path is
    as displayed, or relative to ``relative_to`` (a baseline's directory) when given. A finding
    that stands for a whole unchecked file (:attr:`Finding.covers`) hashes the file's digest too:
    its content is what the baseline accepted. For many findings use :class:`Fingerprints`."""
    return Fingerprints(sources, relative_to)(f)


class Fingerprints:
    """:func:`fingerprint` of the findings of one run: each (rule, file, line) is hashed once and
    each path made relative once, so N findings on one long line cost one pass over the line
    per rule, not N (each finding hashed its whole line: 4x the findings on one line took ~10x
    the time in SARIF and baselines)."""

    __slots__ = ("sources", "relative_to", "_paths", "_done")

    def __init__(self, sources: dict[str, list[str]], relative_to: str | None = None):
        self.sources = sources
        self.relative_to = relative_to
        self._paths: dict[str, str] = {}
        self._done: dict[tuple, str] = {}

    def __call__(self, f: Finding) -> str:
        s = f.span
        key = (f.rule_id, s.path, s.line, f.covers)
        got = self._done.get(key)
        if got is None:
            lines = self.sources.get(s.path) or []
            text = lines[s.line - 1].strip() if 1 <= s.line <= len(lines) else ""
            whole = f"{f.rule_id}\0{self.path(s.path)}\0{text}" + (f"\0{f.covers}" if f.covers else "")
            got = self._done[key] = sha256(whole.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ":1"
        return got

    def path(self, shown: str) -> str:
        """A displayed path as fingerprints name it: relative to ``relative_to`` when given."""
        got = self._paths.get(shown)
        if got is None:
            got = shown
            if self.relative_to is not None:
                got = os.path.relpath(os.path.abspath(shown), self.relative_to).replace(os.sep, "/")
            self._paths[shown] = got
        return got


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
    fingerprint_of = Fingerprints(sources, relative_to)
    return [f for f in findings if f.secret or fingerprint_of(f) not in known]


def write(path: str, findings: list[Finding], sources: dict[str, list[str]]) -> None:
    """Write the fingerprints (with rule and place, for people) of the findings a baseline may
    hold (:func:`recordable`: no credential) to ``path``, atomically and never through a symbolic
    link (:func:`cfglint.read.safeio.atomic_write`). Raises OSError."""
    rel = base_dir(path)
    fingerprint_of = Fingerprints(sources, rel)
    entries = sorted({(fingerprint_of(f), f.rule_id, fingerprint_of.path(f.span.path))
                      for f in findings if recordable(f)})
    atomic_write(path, json.dumps({"cfglint-baseline": 1, "findings": [{"fingerprint": h, "rule": r, "path": p}
                                                                        for h, r, p in entries]}, indent=2) + "\n")


def read(path: str) -> set[str]:
    """Fingerprints of a baseline file (a regular file of at most 10 MiB, read through
    :func:`cfglint.read.safeio.read_bytes`: a FIFO or device is never opened). Raises ValueError with
    a one-line reason for anything that is not a baseline written by :func:`write`."""
    try:
        data = json.loads(read_bytes(path).decode("utf-8"))
    except ReadError as err:
        raise ValueError(str(err)) from None
    except UnicodeDecodeError as err:
        raise ValueError(f"not UTF-8 (byte offset {err.start})") from None
    except RecursionError:
        raise ValueError("JSON nesting is too deep") from None
    if not isinstance(data, dict) or data.get("cfglint-baseline") != 1:
        raise ValueError("not a cfglint baseline (written by --write-baseline)")
    entries = data.get("findings", [])
    if not isinstance(entries, list):
        raise ValueError("'findings' must be a list of {fingerprint, rule, path}")
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("fingerprint"), str):
            raise ValueError(f"findings[{i}] must be {{fingerprint, rule, path}} with a string fingerprint")
    return {e["fingerprint"] for e in entries}
