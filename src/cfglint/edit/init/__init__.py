"""``cfglint init PATH``: derive a submission manifest (``submission.yaml``) from its launch files.

The launch files are read by cfglint's own pipeline (:mod:`cfglint.load.submission` parses them with
positions, :mod:`cfglint.deploy.extract` turns them into one :class:`~cfglint.deploy.extract.Deployment`);
the manifest fields that deployment determines are the *derivable* ones (:data:`.fields.DERIVABLE`).
Everything else (who submits, on which system) cannot be read from a launch: a new manifest
holds ``null`` there with a comment saying what to fill in, so ``cfglint check`` (SUB001) fails
until it is filled in.

Kubernetes manifests (YAML holding objects with ``apiVersion`` and ``kind``) are read as ``cfglint
check`` reads them (:mod:`cfglint.read.k8s`): their containers are launches, listed under ``files.deploy``.

:mod:`.launchfiles` classifies and loads the files; :mod:`.derive` derives the fields (with
:mod:`.version`, :mod:`.checkpoint`, :mod:`.roles`, :mod:`.speculative`, :mod:`.filelists`);
:mod:`.scaffold` writes a new manifest, :mod:`.update` updates an existing one (:mod:`.agree`:
which declared values already agree, :mod:`.change`: what it changes). This module is the command:
:func:`run`, :func:`write`, :func:`diff`, :func:`summary`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ...knowledge import Knowledge
from ...load.discover import MANIFEST
from ...read.paths import display_path
from .change import Change
from .derive import derive
from .errors import InitError
from .fields import REQUIRED_WHEN_MISSING, TO_FILL, Derived
from .scaffold import new_manifest
from .update import update_text


@dataclass(slots=True)
class InitResult:
    """What :func:`run` did or would do: the manifest path, its text before (None: no manifest)
    and after, the changes (an update) and the derivation."""

    path: str
    before: str | None
    after: str
    changes: list[Change]
    derived: Derived

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _manifest_dir(path: str) -> str:
    return os.path.abspath(path) if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))


def read_manifest(root: str, max_bytes: int | None = None) -> tuple[str | None, dict]:
    """The text of ``root``/submission.yaml and its data (None, {} when there is none). Read
    through safeio (no link out of ``root``); raises InitError when it cannot be read or is
    not a YAML mapping."""
    from ...read.textfile import MAX_BYTES, ReadError, read_text
    from ...read.yamlsrc import YamlError, parse_yaml, to_python

    path = os.path.join(root, MANIFEST)
    if not os.path.lexists(path):
        return None, {}
    try:
        tf = read_text(path, display_path(path), max_bytes or MAX_BYTES, root, f"the directory {display_path(root)}")
    except ReadError as err:
        raise InitError(f"cannot read {display_path(path)}: {err}") from None
    try:
        node = parse_yaml(tf.text, tf.display)
    except YamlError as err:
        raise InitError(f"{display_path(path)} is not valid YAML: {err}") from None
    data = to_python(node) if node is not None else None
    if not isinstance(data, dict):
        raise InitError(f"{display_path(path)} is not a YAML mapping; fix or remove it, then run cfglint init again")
    return tf.text, data


def run(path: str, kb: Knowledge, max_bytes: int | None = None) -> InitResult:
    """Derive the manifest of the submission at ``path`` and compute the new text of its
    ``submission.yaml`` (nothing is written: see :func:`write`). Raises InitError."""
    root = _manifest_dir(path)
    if not os.path.lexists(path):
        raise InitError(f"no such file or directory: {path}")
    from ...read.safeio import git_top, inside

    top = git_top(root)
    if top is not None and not inside(os.path.realpath(root), os.path.realpath(top)):
        raise InitError(f"{display_path(root)} is reached through a symbolic link that leads outside the working "
                        "tree; cfglint does not follow links out of it")
    target = os.path.join(root, MANIFEST)
    if os.path.islink(target):
        raise InitError(f"{display_path(target)} is a symbolic link; cfglint does not write through links "
                        "(run init on the directory of the file it points to, or remove the link)")
    before, existing = read_manifest(root, max_bytes)
    d = derive(path, kb, existing, max_bytes)
    if before is None:
        return InitResult(os.path.join(root, MANIFEST), None, _read_back(new_manifest(d), d), [], d)
    after, changes = update_text(before, d, kb)
    return InitResult(os.path.join(root, MANIFEST), before, _read_back(after, d) if changes else after, changes, d)


def _read_back(text: str, d) -> str:
    """``text``, once cfglint's own reader (a YAML 1.1 loader, as ``cfglint check`` and the engines
    read it) gives back every file name it lists as derived: a name written so that it reads
    back as another would name a file that is not there, and hide the one that is. Raises
    InitError when one does not (the writer quotes such names; this is the last word)."""
    from ...read.yamlsrc import YamlError, parse_yaml, to_python

    try:
        data = to_python(parse_yaml(text, MANIFEST))
    except YamlError as err:
        raise InitError(f"the {MANIFEST} written would not parse ({err}); please report this") from None
    files = data.get("files") if isinstance(data, dict) else None
    for key, items in d.manifest.get("files", {}).items():
        listed = files.get(key) if isinstance(files, dict) else None
        names = {i["path"] if isinstance(i, dict) else i for i in listed or [] if isinstance(i, (str, dict))}
        for item in items:
            name = item["path"] if isinstance(item, dict) else item
            if name not in names:
                from ...read.paths import printable

                raise InitError(f"cannot list the file name '{printable(name)}' in {MANIFEST}: it would read back as "
                                f"another name; rename the file")
    return text


def write(result: InitResult) -> None:
    """Write the new manifest through safeio (atomic; never through a symbolic link; never into
    a directory reached through a link out of the git working tree). Raises OSError."""
    from ...read.safeio import atomic_write

    atomic_write(result.path, result.after)


def diff(result: InitResult) -> str:
    """A unified diff of the manifest before and after (empty when nothing changes)."""
    import difflib

    shown = display_path(result.path)
    return "".join(difflib.unified_diff((result.before or "").splitlines(keepends=True),
                                        result.after.splitlines(keepends=True),
                                        fromfile=shown if result.before is not None else "/dev/null", tofile=shown))


def summary(result: InitResult) -> list[str]:
    """Lines for standard error: what changed (or what a new manifest holds), what to fill in."""
    shown = display_path(result.path)
    d = result.derived
    lines: list[str] = []
    if result.before is None:
        got = [f for f in ("model", "precision", "accelerators_used") if f in d.manifest]
        roles = ", ".join(f"{r['name']}" + (f" x{r['instances']}" if "instances" in r else "")
                          + (f" ({r['accelerators_per_instance']} accelerators)" if "accelerators_per_instance" in r else "")
                          for r in d.manifest["serving"]["roles"])
        lines.append(f"{shown}: new manifest: engine {d.manifest['engine']['name']}"
                     + (f" with {d.manifest['engine']['orchestrator']}" if "orchestrator" in d.manifest["engine"] else "")
                     + f", {d.manifest['serving']['mode']}: {roles}"
                     + (f"; derived {', '.join(got)}" if got else ""))
        fill = list(TO_FILL) + [f for f in d.missing if f in REQUIRED_WHEN_MISSING or f.endswith(
            (".instances", ".accelerators_per_instance", ".tp"))]
        lines.append(f"{shown}: fill in: {', '.join(fill)}")
    elif not result.changes:
        lines.append(f"{shown}: the derivable fields agree with the launch files; nothing to change")
    else:
        lines += [f"{shown}: {c}" for c in result.changes]
    for p in d.parsers:
        lines.append(f"{shown}: the launch sets a {p} (no manifest field; PRS001/PRS002 check it in the launch)")
    for s in d.skipped:
        lines.append(f"{shown}: not listed: {s} (a YAML file that is not an engine config)")
    for p in d.problems:
        lines.append(f"warning: {p}")
    return lines
