"""A container's environment and Kubernetes' ``$(VAR)`` references.

A container's argv is ``command`` + ``args`` with ``$(VAR)`` references expanded from the
container's ``env`` (``$$`` escapes, an undefined reference stays as written; Kubernetes API
reference, Container.args). A ``bash -c`` script also sees the static values as ``$NAME``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...model import Span, parse_int
from ..yamlsrc import YMap, YScalar, YSeq
from .model import PodGroup
from .nodes import scalar_value
from .positions import scalar_positions

MAX_EXPANDED = 65_536  # characters a $(VAR) expansion may make: each value may use earlier ones twice,
                       # doubling per entry (a 1 KB manifest asked for gigabytes); longer stays as written

_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


@dataclass(slots=True)
class Env:
    """A container's environment: name -> (static text or None, where it is written, the
    positions of its characters or None)."""

    values: dict[str, tuple[str | None, Span, list[tuple[int, int]] | None]] = field(default_factory=dict)


def expand(text: str, where: list[tuple[int, int]] | None, span: Span, env: Env,
           shell: bool) -> tuple[str, list[tuple[int, int]] | None, bool]:
    """``text`` with Kubernetes' ``$(VAR)`` references expanded from ``env``: (text, positions
    of its characters, static). A reference to a value known only at run time stays unknown:
    in a shell script it becomes ``${VAR}`` (the same length: the shell sees a variable it
    cannot know), in an argument the word is not static. ``$$`` is one ``$``. A text that would
    grow past :data:`MAX_EXPANDED` characters is returned as written, not static."""
    if "$" not in text:
        return text, where, True
    out: list[str] = []
    pos_out: list[tuple[int, int]] | None = [] if where is not None else None
    static = True
    i = 0
    size = len(text)
    for m in _REF.finditer(text):
        out.append(text[i:m.start()])
        if pos_out is not None and where is not None:
            pos_out += where[i:m.start()]
        i = m.end()
        ref_pos = where[m.start():m.end()] if where is not None else None
        if m.group(0) == "$$":
            rep, rep_pos = "$", (ref_pos[:1] if ref_pos else None)
        else:
            name = m.group(1)
            got = env.values.get(name)
            if got is None:  # undefined: kept as written
                rep, rep_pos = m.group(0), ref_pos
                static = static and shell
            elif got[0] is None:
                rep, rep_pos = ("${" + name + "}", ref_pos) if shell else (m.group(0), ref_pos)
                static = static and shell
            else:
                rep = got[0]
                size += len(rep)
                if size > MAX_EXPANDED:   # not expanded: the text as written, a value not known
                    return text, where, False
                at = got[2] if got[2] is not None and len(got[2]) == len(rep) else None
                rep_pos = at if at is not None else ([ref_pos[0]] * len(rep) if ref_pos else None)
        out.append(rep)
        if pos_out is not None:
            if rep_pos is None or len(rep_pos) != len(rep):
                pos_out = None
            else:
                pos_out += rep_pos
    out.append(text[i:])
    if pos_out is not None and where is not None:
        pos_out += where[i:]
    return "".join(out), pos_out, static


# the shell sees the container's environment: $NAME / ${NAME} of a static value
_SHELL_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_]))")


def shell_env(text: str, where: list[tuple[int, int]] | None, env: Env) -> tuple[str, list[tuple[int, int]] | None]:
    """A ``bash -c`` script with ``$NAME`` / ``${NAME}`` of the container's static environment
    written out (each character of a value at the reference's place): the shell parser knows
    only what the script assigns, and these come from the pod."""
    if where is None or "$" not in text:
        return text, where
    out: list[str] = []
    pos: list[tuple[int, int]] = []
    i = 0
    for m in _SHELL_REF.finditer(text):
        name = m.group(1) or m.group(2)
        got = env.values.get(name)
        if got is None or got[0] is None or re.search(r"[\s'\"$`\\;&|<>(){}]", got[0]) \
                and not _PLACEHOLDER.match(got[0]) and name not in COMMAND_VARS:
            continue
        out.append(text[i:m.start()])
        pos += where[i:m.start()]
        out.append(got[0])
        pos += [where[m.start()]] * len(got[0])
        i = m.end()
    out.append(text[i:])
    pos += where[i:]
    return "".join(out), pos


_PLACEHOLDER = re.compile(r"^<[a-z0-9][a-z0-9.-]*>$")  # <1..3>, <leader-address>
# kinds whose pods KubeRay's operator makes (AIBrix's RayClusterFleet holds a KubeRay RayClusterSpec)
RAY_KINDS = ("RayCluster", "RayService", "RayJob", "RayClusterFleet")
# variables that hold a command (words and all) the operator writes: spliced into a script as text,
# as the shell then runs them (eval "$X", or $X split into its words)
COMMAND_VARS = frozenset({"KUBERAY_GEN_RAY_START_CMD"})


def container_env(container: YMap, group: PodGroup, lines: list[str]) -> Env:
    """The environment of ``container`` (a container node of ``group``'s pod template, ``lines``
    the file's lines): the variables LWS sets in a leader/worker group, those the operator sets
    in every container (``group.env``), then its ``env``."""
    env = Env()
    size = group.size
    if group.kind in RAY_KINDS:
        # the KubeRay operator sets KUBERAY_GEN_RAY_START_CMD to the `ray start ...` command it generates
        # from rayStartParams (ray-project/kuberay ray-operator/controllers/ray/common/pod.go; its tests
        # assert the value contains "ray start"): `eval "$KUBERAY_GEN_RAY_START_CMD"` starts a Ray node,
        # no engine; its generated options are not known here
        env.values["KUBERAY_GEN_RAY_START_CMD"] = ("ray start", group.kind_span, None)
    if group.kind in ("LeaderWorkerSet", "DisaggregatedSet") or (group.kind == "RoleBasedGroup" and group.size is not None):
        # the leader's address is wired by LWS: a placeholder stands for it (a value known to be set)
        env.values["LWS_LEADER_ADDRESS"] = ("<leader-address>", group.kind_span, None)
        env.values["LWS_NAME"] = (None, group.kind_span, None)
        n = parse_int(size.value) if size is not None else 1
        n = n if n and n > 0 else 1
        at = size.span if size is not None else group.kind_span
        env.values["LWS_GROUP_SIZE"] = (str(n), at, None)
        if group.part == "leader":
            index = "0"
        elif group.part == "worker":
            index = "1" if n == 2 else f"<1..{n - 1}>"
        else:
            index = "0" if n == 1 else f"<0..{n - 1}>"
        env.values["LWS_WORKER_INDEX"] = (index, at, None)
        if group.kind == "RoleBasedGroup":
            # v1alpha2's own names for the same values (sgl-project/rbg docs, v1alpha1 -> v1alpha2
            # migration: LWS_LEADER_ADDRESS -> RBG_LWP_LEADER_ADDRESS, LWS_WORKER_INDEX ->
            # RBG_LWP_WORKER_INDEX, LWS_GROUP_SIZE -> RBG_LWP_GROUP_SIZE; the leader is index 0)
            for lws, rbg in (("LEADER_ADDRESS", "LEADER_ADDRESS"), ("GROUP_SIZE", "GROUP_SIZE"),
                             ("WORKER_INDEX", "WORKER_INDEX")):
                env.values["RBG_LWP_" + rbg] = env.values["LWS_" + lws]
    items = container.get("env")
    for item in list(group.env or []) + (items.items if isinstance(items, YSeq) else []):
        if not isinstance(item, YMap):
            continue
        name = scalar_value(item.get("name"))
        if not isinstance(name, str):
            continue
        value = item.get("value")
        if isinstance(value, YScalar) and value.value is not None:
            text = value.text if isinstance(value.value, str) else str(value.value)
            where = scalar_positions(value, lines) if isinstance(value.value, str) else None
            # a value may itself use $(VAR) of variables defined before it
            text, where, static = expand(text, where, value.span, env, shell=False)
            env.values[name] = (text if static else None, value.span, where)
        else:  # valueFrom (fieldRef, secretKeyRef ...): known at run time
            key = item.get("name")
            env.values[name] = (None, key.span if key is not None else item.span, None)
    return env
