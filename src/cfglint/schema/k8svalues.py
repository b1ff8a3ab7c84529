"""K8S004 value rules a workload's JSON Schema does not state: the API server's checks of a
container's resource quantities (:mod:`cfglint.read.quantity`): a value that is not a quantity,
a negative one, a fraction of an extended resource (``nvidia.com/gpu: 4.5``, ``1500m``); and of an
``emptyDir`` volume's ``sizeLimit``, a quantity too (kubernetes/kubernetes
pkg/apis/core/validation/validation.go @ 000f26050b9b ``validateEmptyDirVolumeSource``: not below
0), which a pod's ``/dev/shm`` is sized with (``15Gi0``, ``15 Gi``, ``15g``: no quantity)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Finding
from ..read.quantity import value_problem
from ..read.yamlsrc import YMap, YNode, YScalar, YSeq

RULE_ID = "K8S004"
MAX_NODES = 100_000   # nodes walked per object (a hostile manifest may hold millions)
# a value filled in at deploy time (envsubst, Helm / Jinja, a <placeholder>): not judged here
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{.*?\}\}|<[^<>\s][^<>]*>")


def _containers(root: YNode, keys: tuple[str, ...] = ("containers", "initContainers")) -> Iterator[tuple[str, YMap]]:
    """(kubectl path, container) of every item of a ``containers`` / ``initContainers`` list (or
    of the lists named ``keys``) in the object, wherever its pod templates are embedded."""
    stack: list[tuple[str, YNode]] = [("", root)]
    seen: set[int] = set()
    while stack and len(seen) < MAX_NODES:
        path, n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, YMap):
            for k, v in reversed(n.items):
                key = str(k.value)
                sub = f"{path}.{key}" if path else key
                if key in keys and isinstance(v, YSeq):
                    for i, c in enumerate(v.items):
                        if isinstance(c, YMap):
                            yield f"{sub}[{i}]", c
                stack.append((sub, v))
        elif isinstance(n, YSeq):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(n.items))))


def resource_findings(root: YNode, kind: str) -> list[Finding]:
    """K8S004 findings of the resource values of every container of the object ``root`` (of
    ``kind``), each at its value: what the API server says and the right form."""
    out: list[Finding] = []
    done: set[int] = set()
    for path, c in _containers(root):
        res = c.get("resources")
        if not isinstance(res, YMap) or id(res) in done:
            continue
        done.add(id(res))
        for part in ("limits", "requests"):
            values = res.get(part)
            for k, v in values.items if isinstance(values, YMap) else []:
                if not isinstance(k.value, str) or not isinstance(v, YScalar) or v.value is None \
                        or isinstance(v.value, bool) or not isinstance(v.value, (str, int, float)):
                    continue   # not a scalar quantity: the schema's type error says so
                if isinstance(v.value, str) and _PLACEHOLDER.search(v.value):
                    continue
                written = v.value if isinstance(v.value, str) else (v.text or v.value)   # a number as its digits
                why = value_problem(k.value, written)
                if why is not None:
                    out.append(Finding(RULE_ID, f"the {kind}'s {path}.resources.{part}[{k.value!r}]: {why}", v.span))
    for path, vol in _containers(root, ("volumes",)):
        ed = vol.get("emptyDir")
        v = ed.get("sizeLimit") if isinstance(ed, YMap) else None
        if not isinstance(v, YScalar) or v.value is None or isinstance(v.value, bool) \
                or not isinstance(v.value, (str, int, float)) or isinstance(v.value, str) and _PLACEHOLDER.search(v.value):
            continue
        why = value_problem("sizeLimit", v.value if isinstance(v.value, str) else (v.text or v.value))
        if why is not None:
            out.append(Finding(RULE_ID, f"the {kind}'s {path}.emptyDir.sizeLimit: {why}", v.span))
    return out
