"""Kubernetes manifests: workload objects become engine launches, with positions.

A manifest file holds one or more YAML documents (``kubectl apply -f``, ``helm template``
output with its ``# Source:`` comments). Each object with ``apiVersion`` and ``kind`` is read;
the pod templates of the workload kinds (:mod:`.kinds`) become :class:`~cfglint.read.shell.Command` s,
one per container that runs a command (:mod:`.command`), which the one extraction path
(:mod:`cfglint.deploy.extract`) turns into engine processes exactly as it does a shell launch.
Every word keeps the position of its characters in the YAML scalar (:mod:`.positions`), so
findings point at the exact column in the manifest; ``$(VAR)`` references are expanded from the
container's environment (:mod:`.env`). What reading makes is in :mod:`.model`.

The entry points: :func:`is_object` (is a document a Kubernetes object) and :func:`read_manifest`.
"""

from __future__ import annotations

from ...model import Located, parse_int
from ..shell import Command
from ..yamlsrc import YMap, YNode, YSeq
from .command import container_command
from .kinds import MODELLED, NOT_MODELLED, OPERATOR_FLAGS, PRESETS, templates
from .model import Container, Manifest
from .nodes import is_object, located, map_at, scalar_value

__all__ = ["Manifest", "is_object", "meant_as_object", "read_manifest"]

# the accelerator device resources when the caller names none (the knowledge base's table,
# rules/accelerators.yaml resources, is what a run passes: cfglint.load.submission)
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
MAX_OBJECTS = 256      # Kubernetes objects read per file
MAX_CONTAINERS = 64    # containers turned into commands per file


def meant_as_object(node: YNode | None) -> bool:
    """A mapping of a workload ``kind`` cfglint reads (a RoleBasedGroup, a Deployment) whose
    ``apiVersion`` is missing or not a string (``apiVersion: 7``): an object the API server
    refuses (K8S004), not an engine config or another tool's YAML (a Helm Chart.yaml has no kind)."""
    return isinstance(node, YMap) and not is_object(node) and scalar_value(node.get("kind")) in (*MODELLED, *NOT_MODELLED)


def _gpus(container: YMap, devices: tuple[str, ...]) -> dict[str, tuple[Located | None, Located | None]]:
    """(limit, request) of each accelerator device resource in ``devices`` the container names."""
    out: dict[str, tuple[Located | None, Located | None]] = {}
    limits = map_at(container, "resources", "limits")
    requests = map_at(container, "resources", "requests")
    for res in devices:
        lim = located(limits.get(res)) if limits else None
        req = located(requests.get(res)) if requests else None
        if lim is not None or req is not None:
            out[res] = (lim, req)
    return out


def read_manifest(docs: list[YNode], lines: list[str], display: str,
                  devices: tuple[str, ...] = GPU_RESOURCES) -> Manifest:
    """The Kubernetes objects among ``docs`` (the documents of one file, ``lines`` its lines)
    and the commands their containers run, each with the role it is for (a DisaggregatedSet
    role's name; None otherwise) and its :class:`Container` as ``command.origin``. ``devices``:
    the extended resources that are accelerator devices (``Container.gpus``)."""
    out = Manifest()
    containers = 0
    stack = list(docs)
    seen = 0
    while stack:
        doc = stack.pop(0)
        if not is_object(doc):
            if meant_as_object(doc):
                out.objects.append(doc)   # meant as one (K8S004: the API server refuses it), runs nothing
            continue
        seen += 1
        if seen > MAX_OBJECTS:
            break
        assert isinstance(doc, YMap)
        kind = scalar_value(doc.get("kind"))
        items = doc.get("items")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(items, YSeq):
            stack[:0] = list(items.items)
            continue
        out.objects.append(doc)
        groups = templates(doc, out.not_modelled)
        if groups is None:
            if kind in NOT_MODELLED:
                out.not_modelled.append((kind, doc.get("kind").span))  # type: ignore[union-attr]
            continue
        for g in groups:
            cs = g.spec.get("containers")
            listed = g.containers if g.containers is not None else (cs.items if isinstance(cs, YSeq) else [])
            for cnode in listed:
                if not isinstance(cnode, YMap) or containers >= MAX_CONTAINERS:
                    continue
                containers += 1
                cname = scalar_value(cnode.get("name"))
                c = Container(g, cnode, cname if isinstance(cname, str) else "", located(cnode.get("image")), _gpus(cnode, devices))
                c.entrypoint = cnode.get("command") is None
                if g.gpu_limit is not None and not c.gpus:
                    c.gpus["nvidia.com/gpu"] = (g.gpu_limit, None)
                cmd = container_command(c, lines, display)
                if g.operator in PRESETS and (cmd is None or c.node.get("command") is None):
                    cmd = PRESETS[g.operator](c, lines, display, cmd) or cmd
                if cmd is not None and g.operator in OPERATOR_FLAGS:
                    OPERATOR_FLAGS[g.operator](cmd, g)
                if cmd is None and c.image is not None:
                    cmd = Command([], {}, {}, cnode.span)   # the image's entrypoint with no arguments
                if cmd is None:
                    continue
                cmd.origin = c
                if g.replicas is not None:
                    n = parse_int(g.replicas.value)
                    if n is not None and n != 1:
                        cmd.repeat = Located(n, g.replicas.span)
                out.commands.append((cmd, g.role.value if g.role is not None and isinstance(g.role.value, str) else None))
    return out

