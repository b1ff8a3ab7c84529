"""The core workload kinds (Kubernetes API reference, apps/v1 and batch/v1): Deployment,
StatefulSet, ReplicaSet (``spec.replicas`` pods of ``spec.template``), Job (``spec.parallelism``
pods) and Pod (one pod; ``spec`` is the pod spec)."""

from __future__ import annotations

from ....model import Span
from ...yamlsrc import YMap
from ..model import PodGroup
from ..nodes import located, map_at


def replicated(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
               notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """A Deployment, StatefulSet or ReplicaSet: ``spec.replicas`` pods of ``spec.template``."""
    pod = map_at(spec, "template", "spec")
    return [PodGroup(kind, name, kspan, pod, located(spec.get("replicas")))] if pod else []


def job(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
        notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """A Job: ``spec.parallelism`` pods of ``spec.template``."""
    pod = map_at(spec, "template", "spec")
    return [PodGroup(kind, name, kspan, pod, located(spec.get("parallelism")))] if pod else []


def pod(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
        notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """A Pod: one pod, ``spec`` its pod spec."""
    return [PodGroup(kind, name, kspan, spec)]
