"""Discover: which submissions and loose files a run lints.

A submission is a directory holding ``submission.yaml``. A file passed on the command line
belongs to the nearest ancestor directory that holds one; a file outside any submission is
linted on its own. Directories are walked for submissions only (hidden directories,
``node_modules`` and virtual environments are skipped; symlinked directories are not followed).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

MANIFEST = "submission.yaml"
SKIP_DIRS = {"node_modules", "__pycache__", "venv", ".venv", "site-packages"}
LOOSE_SUFFIXES = (".sh", ".bash", ".args", ".yaml", ".yml")


@dataclass(slots=True)
class Targets:
    submissions: list[str] = field(default_factory=list)   # directories, in order
    loose_files: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)        # paths that do not exist
    named_in_submissions: list[str] = field(default_factory=list)  # files given inside a submission


def _submission_of(path: str) -> str | None:
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.isfile(os.path.join(d, MANIFEST)):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def discover(paths: list[str]) -> Targets:
    """Resolve command-line paths to submissions and loose files (deduplicated, sorted)."""
    subs: set[str] = set()
    loose: set[str] = set()
    targets = Targets()
    for path in paths:
        if not os.path.lexists(path):
            targets.missing.append(path)
        elif os.path.isdir(path):
            for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS)
                if MANIFEST in filenames:
                    subs.add(os.path.abspath(dirpath))
        else:
            sub = _submission_of(path)
            if sub is not None:
                subs.add(sub)
                targets.named_in_submissions.append(os.path.abspath(path))
            else:
                loose.add(os.path.abspath(path))
    targets.submissions = sorted(subs)
    targets.loose_files = sorted(loose)
    return targets


def printable(path: str) -> str:
    """A path as text: bytes that are not UTF-8 (surrogate-escaped by the OS layer) become U+FFFD."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def display_path(path: str, base: str | None = None) -> str:
    """``path`` relative to ``base`` (default: the working directory) when inside it, with
    forward slashes; otherwise absolute."""
    base = os.path.abspath(base or os.getcwd())
    ap = os.path.abspath(path)
    try:
        rel = os.path.relpath(ap, base)
    except ValueError:
        return printable(ap)
    if rel.startswith(".."):
        return printable(ap.replace(os.sep, "/"))
    return printable(rel.replace(os.sep, "/"))
