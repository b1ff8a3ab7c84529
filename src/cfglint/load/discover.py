"""Discover: which submissions and loose files a run lints.

A submission is a directory holding ``submission.yaml``. A file passed on the command line
belongs to the nearest ancestor directory that holds one; a file outside any submission is
linted on its own. Directories are walked for submissions only (hidden directories,
``node_modules`` and virtual environments are skipped; symlinked directories are not followed).
Each target gets the directory its files must really lie in (:attr:`Targets.roots`): links that
leave it are not followed when reading (:mod:`cfglint.read.safeio`).
"""

from __future__ import annotations

import os
import stat
from dataclasses import field

from ..model import record
from ..read.paths import display_path
from ..read.safeio import git_top, isfile, lexists, linted_root

MANIFEST = "submission.yaml"
SKIP_DIRS = {"node_modules", "__pycache__", "venv", ".venv", "site-packages"}
LOOSE_SUFFIXES = (".sh", ".bash", ".args", ".yaml", ".yml")


@record
class Targets:
    submissions: list[str] = field(default_factory=list)   # directories, in order
    loose_files: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)        # paths that do not exist
    named_in_submissions: list[str] = field(default_factory=list)  # files given inside a submission
    orphan_files: list[str] = field(default_factory=list)  # launch / YAML files in no submission (SUB004 candidates)
    # each submission directory and file above -> (directory its real path must stay inside, its name
    # for messages): the linted tree for submissions, loose and orphan files (safeio.linted_root),
    # the submission directory for files named inside one
    roots: dict[str, tuple[str, str]] = field(default_factory=dict)


def _lintable(name: str) -> bool:
    """A launch file, engine config or environment file by its name: not hidden, except ``.env``
    (the file ``docker run --env-file`` reads, where credentials are written)."""
    lower = name.lower()
    return lower == ".env" or (not name.startswith(".") and lower.endswith(LOOSE_SUFFIXES + (".env",)))


def serving_candidates(directory: str, recurse: bool = True) -> list[str]:
    """Files under ``directory`` that may be launch files or engine configs: ``*.sh``,
    ``*.bash``, ``*.args``, ``*.yaml``, ``*.yml``, and environment files ``.env`` / ``*.env``
    (not the manifest, not hidden, not symlinks;
    hidden directories, :data:`SKIP_DIRS` and directories holding their own ``submission.yaml``
    are not entered). Absolute paths, sorted. README, results (JSON, CSV, logs) are not candidates.
    A FIFO, socket or device with such a name is one too: reading it is refused with an IO001
    (safeio never opens it), so it is reported, not skipped in silence."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(directory, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS
                             and not os.path.isfile(os.path.join(dirpath, d, MANIFEST)))
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            if name != MANIFEST and _lintable(name) and _not_link_nor_dir(full):
                out.append(os.path.abspath(full))
        if not recurse:
            break
    return out


def _not_link_nor_dir(path: str) -> bool:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISLNK(mode) and not stat.S_ISDIR(mode)


def _submission_of(path: str) -> str | None:
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if isfile(os.path.join(d, MANIFEST)):   # safeio: an unsaved manifest in an editor counts
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def discover(paths: list[str]) -> Targets:
    """Resolve command-line paths to submissions and loose files (deduplicated, sorted).

    A directory is walked for submissions; a submission's subdirectories belong to it. Launch
    and YAML files in directories outside every submission become ``orphan_files`` (linted on
    their own; SUB004 when they turn out to be launch files or engine configs). A directory
    given inside a submission stands for that submission."""
    subs: set[str] = set()
    loose: set[str] = set()
    orphans: set[str] = set()
    targets = Targets()
    roots = targets.roots

    def tree(path: str, sub: str | None) -> tuple[str, str]:
        top = git_top(path)
        if top is not None:
            return top, "the working tree"
        root = linted_root(path, sub)
        return root, f"the linted directory {display_path(root)}"

    for path in paths:
        try:
            exists = "\x00" not in path and lexists(path)   # safeio: standard input or an unsaved buffer counts
        except ValueError:
            exists = False
        if not exists:
            targets.missing.append(path)
        elif os.path.isdir(path):
            inside = _submission_of(os.path.join(path, MANIFEST))  # the path's own submission, if any
            root = tree(path, inside)
            claimed = [inside] if inside is not None else []      # submissions found so far (top-down)
            for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS)
                here = os.path.abspath(dirpath)
                if MANIFEST in filenames:
                    subs.add(here)
                    claimed.append(here)
                    roots.setdefault(here, root)
                elif not any(here == c or here.startswith(c + os.sep) for c in claimed):
                    for f in serving_candidates(dirpath, recurse=False):
                        orphans.add(f)
                        roots.setdefault(f, root)
            if inside is not None:
                subs.add(inside)
                roots.setdefault(inside, root)
        else:
            sub = _submission_of(path)
            root = tree(path, sub)
            if sub is not None:
                subs.add(sub)
                roots.setdefault(sub, root)
                targets.named_in_submissions.append(os.path.abspath(path))
                roots[os.path.abspath(path)] = (sub, f"the submission directory {display_path(sub)}")
            else:
                loose.add(os.path.abspath(path))
                roots[os.path.abspath(path)] = root
    targets.submissions = sorted(subs)
    targets.loose_files = sorted(loose)
    targets.orphan_files = sorted(orphans - loose)
    return targets


def shard(targets: Targets, index: int, count: int) -> Targets:
    """The part ``index`` (1-based) of ``count`` of ``targets``, for a CI matrix that lints one
    part per job (``--shard i/N``): the units are grouped by what must be linted together (a
    submission with the files named inside it; loose and orphan files by their directory, whose
    SUB004 is reported once), the groups sorted by their path relative to the working directory
    and dealt out in turn, group ``k`` to part ``k mod count + 1``. The same tree gives the same
    parts on every machine; together the parts hold every unit once. Raises ValueError unless
    1 <= index <= count."""
    if not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: the part must be between 1 and {count}")
    subs = set(targets.submissions)

    def group(path: str, kind: str) -> str:
        if kind == "named":
            d = os.path.dirname(path)
            while d not in subs and os.path.dirname(d) != d:
                d = os.path.dirname(d)
            return d
        return path if kind == "sub" else os.path.dirname(path)

    members = [(p, k) for k, paths in (("sub", targets.submissions), ("named", targets.named_in_submissions),
                                        ("loose", targets.loose_files), ("orphan", targets.orphan_files))
               for p in paths]
    keys = sorted({display_path(group(p, k)) for p, k in members})
    mine = {key for i, key in enumerate(keys) if i % count == index - 1}
    keep = {(p, k) for p, k in members if display_path(group(p, k)) in mine}
    out = Targets(missing=list(targets.missing), roots=targets.roots)
    out.submissions = [p for p in targets.submissions if (p, "sub") in keep]
    out.named_in_submissions = [p for p in targets.named_in_submissions if (p, "named") in keep]
    out.loose_files = [p for p in targets.loose_files if (p, "loose") in keep]
    out.orphan_files = [p for p in targets.orphan_files if (p, "orphan") in keep]
    return out
