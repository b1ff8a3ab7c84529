"""RED001: host-specific absolute paths must be published as ``<host-path>``; the container
mount targets (shell mount options, Kubernetes ``mountPath``) a path may lie under instead."""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache

from ..model import Finding, Span
from ..read.shell import ShellScript
from ..read.yamlsrc import YMap, YScalar, nodes
from . import prefilter
from .base import Context, rule

# An absolute path starts at a '/' that does not continue a word, a placeholder, a variable
# or a relative path, and runs to whitespace, a quote, a separator or a closing bracket.
# A ${...} expansion inside the path belongs to it (its '}' and ':-' do not end the path).
_PATH = re.compile(r"/+[A-Za-z0-9_.@+~-](?:\$\{[^{}\s'\"]*\}|[^\s'\"`,;:)}\]|<>])*")
_BEFORE_OK = set(" \t=\"'(:[{,>")
_PLACEHOLDER_BEFORE = re.compile(r"<[^<>\s]+>$")
_SHORT_OPTION_BEFORE = re.compile(r"(^|\s)-[A-Za-z]$")   # -v/home/alice:/models
_DEFAULT_BEFORE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=+?]$")   # ${MODEL:-/scratch/...}
# how far before a path the patterns above look: a copy of (or a search over) the whole line
# before each path made a long line of paths quadratic (100 KB of 'x/a ' took 43 s)
_LOOKBEHIND = 256


def _mount_pairs(value: str, entry: dict) -> list[tuple[str, str]]:
    """(source, target) pairs of one mount option value, per the entry's form (rules/paths.yaml)."""
    pairs = []
    if entry.get("form") == "keys":
        kv = dict(p.split("=", 1) for p in value.split(",") if "=" in p)
        dst = next((kv[k] for k in entry.get("target_keys") or [] if kv.get(k)), None)
        if dst:
            pairs.append((kv.get("src") or kv.get("source") or "", dst))
        return pairs
    for item in value.split(",") if entry.get("list") else [value]:
        parts = item.split(":")
        if len(parts) >= 2 and parts[1]:
            pairs.append((parts[0], parts[1]))
    return pairs


def mounts(ctx: Context) -> dict[str, tuple[list[str], list[str]]]:
    """Per shell file: (targets, sources) of the container mounts its commands declare
    (docker/podman -v and --mount, srun --container-mounts, apptainer --bind; rules/paths.yaml
    mounts), as normalized absolute paths."""
    table = [e for e in ctx.kb.paths.get("mounts") or [] if isinstance(e, dict)]
    out: dict[str, tuple[list[str], list[str]]] = {}
    for display, script, _role, _args in ctx.sub.launches:
        if not isinstance(script, ShellScript):
            continue
        targets, sources = [], []
        for cmd in script.commands:
            tokens = [t.strip("\"'") for w in cmd.words for t in w.text.split()]
            names = [posixpath.basename(t) for t in tokens]
            for entry in table:
                start = next((i for i, n in enumerate(names) if n in (entry.get("commands") or [])), None)
                if start is None:
                    continue
                options = entry.get("options") or []
                for i in range(start + 1, len(tokens)):
                    tok, value = tokens[i], None
                    if tok in options and i + 1 < len(tokens):
                        value = tokens[i + 1]
                    else:
                        for o in options:
                            if tok.startswith(o + "=") or (len(o) == 2 and tok.startswith(o) and tok[2:3] in ("/", "$")):
                                value = tok[len(o) + (1 if tok.startswith(o + "=") else 0):]
                    if not value:
                        continue
                    for src, dst in _mount_pairs(value.strip("\"'"), entry):
                        if dst.startswith("/"):
                            targets.append(posixpath.normpath(dst))
                        if src.startswith("/"):
                            sources.append(posixpath.normpath(src))
        variables = ctx.kb.paths.get("mount_variables") or {}
        suffixes = tuple(str(s) for s in variables.get("suffixes") or [])
        tf = next((t for t in ctx.sub.texts if t.display == display), None)
        if suffixes and tf is not None:
            for m in _MOUNT_VARIABLE.finditer(tf.text):
                if m.group("name").upper().endswith(suffixes):
                    for src, dst in _mount_pairs(m.group("value").strip("\"'"), variables):
                        if dst.startswith("/"):
                            targets.append(posixpath.normpath(dst))
                        if src.startswith("/"):
                            sources.append(posixpath.normpath(src))
        if targets:
            out[display] = (targets, sources)
    return out


# NAME=value / NAME="value" at the start of a line or after export (a mount-list variable)
_MOUNT_VARIABLE = re.compile(r"^[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>\"[^\"\n]*\"|'[^'\n]*'|\S+)",
                             re.M)


def k8s_container_paths(ctx: Context) -> set[tuple[str, int, int]]:
    """(file, line, column) of every Kubernetes ``volumeMounts[].mountPath`` value: a path inside
    the container, not the node's (a hostPath volume's ``path`` is the node's, and is checked)."""
    out: set[tuple[str, int, int]] = set()
    for display, obj in ctx.sub.k8s_objects:
        for n in nodes(obj):
            mount = n.get("mountPath") if isinstance(n, YMap) else None
            if isinstance(mount, YScalar) and isinstance(mount.value, str):
                quoted = 1 if mount.text != mount.value or mount.span.end_col - mount.span.col != len(mount.text) else 0
                out.add((display, mount.span.line, mount.span.col + quoted))
    return out


# KServe mounts the model its storage initializer fetched at /mnt/models in the serving
# container (kserve/kserve pkg/constants/constants.go DefaultModelLocalMountPath, @ aaac4e294dae)
KSERVE_MODEL_MOUNT = "/mnt/models"


def k8s_mounts(ctx: Context) -> dict[str, tuple[list[str], list[str]]]:
    """Per manifest file: (targets, sources) of its containers' mounts: every
    ``volumeMounts[].mountPath`` (and KServe's model mount in a serving.kserve.io object) is a
    path inside the container, every hostPath volume's ``path`` the node's."""
    out: dict[str, tuple[list[str], list[str]]] = {}
    for display, obj in ctx.sub.k8s_objects:
        targets, sources = out.setdefault(display, ([], []))
        api = obj.get("apiVersion")
        if isinstance(api, YScalar) and str(api.value).startswith("serving.kserve.io/"):
            targets.append(KSERVE_MODEL_MOUNT)
        for n in nodes(obj):
            if not isinstance(n, YMap):
                continue
            mount = n.get("mountPath")
            if isinstance(mount, YScalar) and isinstance(mount.value, str) and mount.value.startswith("/") \
                    and posixpath.normpath(mount.value) != "/":
                targets.append(posixpath.normpath(mount.value))
            host = n.get("hostPath")
            path = host.get("path") if isinstance(host, YMap) else None
            if isinstance(path, YScalar) and isinstance(path.value, str) and path.value.startswith("/"):
                sources.append(posixpath.normpath(path.value))
    return out


@lru_cache(maxsize=8)
def _path_literals(prefixes: tuple, components: tuple) -> frozenset[str] | None:
    """What a line must hold for RED001 to find a path in it: '/' and the first name of a host
    prefix ('/scratch' of '/scratch', '/cm' of '/cm/shared/'), or '/' and a host component. A
    finding's normalized path starts with a prefix (or is it) or has the component as a name,
    and every name of a normalized path is a name of the path as written, after a '/'. None
    when a prefix or component does not have that form (nothing is ruled out then)."""
    out = set()
    for p in prefixes:
        if not isinstance(p, str) or not p.startswith("/") or not p[1:].split("/")[0]:
            return None
        out.add("/" + p[1:].split("/")[0])
    for c in components:
        if not isinstance(c, str) or not c or "/" in c:
            return None
        out.add("/" + c)
    return frozenset(out)


class _Placeholders:
    """``placeholders`` of rules/paths.yaml: which written paths stand for the reader's own."""

    def __init__(self, data):
        data = data if isinstance(data, dict) else {}
        self.sequences = [[str(n) for n in s] for s in data.get("sequences") or [] if isinstance(s, list) and s]
        self.names = [re.compile(str(n)) for n in data.get("names") or []]

    def holds(self, path: str, after: str) -> bool:
        """``path`` (normalized, absolute) is a placeholder, or goes on into one (``after``, the
        character written right after it, is ``<``)."""
        if after == "<":
            return True
        parts = path.split("/")[1:]
        if any(rx.search(p) for p in parts for rx in self.names):
            return True
        return any(parts[i:i + len(seq)] == seq for seq in self.sequences for i in range(len(parts)))


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


@rule("RED001", "unredacted-host-path", "error",
      "A host-specific path is not redacted as <host-path>.",
      "Published configurations redact host-specific paths (home directories, shared and "
      "scratch file systems, site mounts) as <host-path>: they name users and sites, and they "
      "mean nothing on anyone else's machine. Container-standard paths (/models, /root/.cache, "
      "/opt, /usr, /tmp ...) stay as they are, and so does a path under a mount target the same "
      "file declares (docker run -v ${PWD}:/mnt ... --model-path /mnt/model is the container's "
      "/mnt); the mount's host source is still checked.",
      ("rules/paths.yaml (host prefixes; container mount options with the Docker, Podman, pyxis and Apptainer documentation)", "https://artificialanalysis.ai/benchmarks/hardware/configs: 'Host-specific paths are redacted as <host-path>.' (docs/sources.md)"),
      tags=("security",), security_severity="3.0")
def check_host_paths(ctx: Context):
    table = ctx.kb.paths
    prefixes = [(e["prefix"], e.get("why", "")) for e in table.get("host_prefixes") or []]
    components = [(e["component"], e.get("why", "")) for e in table.get("host_components") or []
                  if isinstance(e, dict) and e.get("component")]
    container = set(table.get("container_prefixes") or [])
    placeholder = _Placeholders(table.get("placeholders"))
    platform = [str(e["prefix"]) for e in table.get("platform_prefixes") or [] if isinstance(e, dict) and e.get("prefix")]
    # what the mounts and Kubernetes mount paths are is asked only of a path that is otherwise a
    # finding; only the lines that hold '/' and a host prefix's or component's first name
    # (_path_literals) can hold one
    mounted: list = []
    literals = _path_literals(tuple(p for p, _ in prefixes), tuple(c for c, _ in components))
    for tf in ctx.sub.texts:
        lines = tf.text.split("\n")
        todo = prefilter.lines_holding(tf.text, literals) if literals is not None else None
        for lineno in range(1, len(lines) + 1) if todo is None else sorted(todo):
            line = lines[lineno - 1]
            if "/" not in line:
                continue
            for m in _PATH.finditer(line):
                start = m.start()
                before = line[max(0, start - _LOOKBEHIND):start]  # '^' cannot match at a cut: -X$ is 2 long
                if before and before[-1] not in _BEFORE_OK and not _SHORT_OPTION_BEFORE.search(before) \
                        and not _DEFAULT_BEFORE.search(before):
                    continue
                if before.endswith(">") and _PLACEHOLDER_BEFORE.search(before):
                    continue  # <host-path>/hf-cache: already redacted
                path = m.group(0)
                if before.endswith(":") and path.startswith("//"):
                    if not before.endswith("file:"):
                        continue  # a URL (tcp://, http://host/...)
                    path = path[2:]
                    start += 2
                path = "/" + path.lstrip("/")
                start = m.end() - len(path)
                normalized = posixpath.normpath(path)
                if placeholder.holds(normalized, line[m.end():m.end() + 1]):
                    continue  # /path/to/model, /your/model/dir, /home/<user>/...: the reader's own path
                if any(normalized == p.rstrip("/") or normalized.startswith(p.rstrip("/") + "/") for p in platform):
                    continue  # a managed platform's node path (GKE's driver directory): the same everywhere
                why = next((w for p, w in prefixes if normalized.startswith(p) or normalized == p.rstrip("/")), None)
                parts = normalized.split("/")[1:]
                if why is None and "/" + parts[0] not in container:
                    why = next((w for c, w in components if c in parts[:-1]), None)
                if why is None:
                    continue
                if not mounted:
                    mounted[:] = [mounts(ctx), k8s_container_paths(ctx), k8s_mounts(ctx)]
                targets, sources = mounted[0].get(tf.display, ([], []))
                k8s_targets, k8s_sources = mounted[2].get(tf.display, ([], []))
                if k8s_targets and _under(normalized, k8s_targets) and not _under(normalized, k8s_sources):
                    continue  # under a Kubernetes container's mountPath: the container's own path
                if targets and _under(normalized, targets) and not _under(normalized, sources):
                    continue  # inside a container this file starts: -v ${PWD}:/mnt ... /mnt/model
                if (tf.display, lineno, start + 1) in mounted[1]:
                    continue  # a Kubernetes volumeMounts mountPath: the container's own path
                span = Span(tf.display, lineno, start + 1, lineno, start + 1 + len(path))
                # a fix replaces the whole path or is not offered: a path that goes on through a
                # shell expansion (/lustre/.../${DRAFT##*/}) would lose it, or its braces
                dynamic = "$" in path
                yield Finding("RED001",
                              f"host-specific path '{path}' is not redacted ({why}); publish it as <host-path>"
                              + (" (by hand: it holds a shell expansion)" if dynamic else ""),
                              span, fix=None if dynamic else "<host-path>")

