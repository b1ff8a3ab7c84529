"""The kubernetes-sigs/lws kinds: LeaderWorkerSet and DisaggregatedSet (roles of LWS groups).

- LeaderWorkerSet (leaderworkerset.x-k8s.io/v1): ``spec.replicas`` groups of
  ``spec.leaderWorkerTemplate.size`` pods, the leader from ``leaderTemplate`` (or, without one,
  ``workerTemplate``), the others from ``workerTemplate``; LWS sets ``LWS_LEADER_ADDRESS``,
  ``LWS_GROUP_SIZE`` and ``LWS_WORKER_INDEX`` (0 for the leader) in every container
  (kubernetes-sigs/lws pkg/utils/pod/pod_utils.go, docs site "Reference: environment variables";
  :func:`cfglint.read.k8s.env.container_env`);
- DisaggregatedSet (disaggregatedset.x-k8s.io v1alpha1 / v1): ``spec.roles[]``, each a named
  role (prefill, decode) with ``replicas`` LWS groups of its ``leaderWorkerTemplate``
  (v1: under the role's ``spec``), times ``spec.slices`` (kubernetes-sigs/lws
  api/disaggregatedset/v1).
"""

from __future__ import annotations

from ....model import Located, Span, parse_int
from ...yamlsrc import YMap, YSeq
from ..model import PodGroup
from ..nodes import located, map_at


def leader_worker_set(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                      notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """A LeaderWorkerSet: ``spec.replicas`` groups of its ``leaderWorkerTemplate``."""
    return _groups(kind, name, kspan, spec, located(spec.get("replicas")), None)


def disaggregated_set(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                      notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """A DisaggregatedSet: each role's LWS groups, ``replicas`` x ``spec.slices`` of them."""
    out: list[PodGroup] = []
    roles = spec.get("roles")
    slices = located(spec.get("slices"))
    for role in roles.items if isinstance(roles, YSeq) else []:
        if not isinstance(role, YMap):
            continue
        body = map_at(role, "spec") or role      # v1: under spec; v1alpha1: on the role
        replicas = located(body.get("replicas"))
        n, k = (parse_int(replicas.value) if replicas else 1), (parse_int(slices.value) if slices else 1)
        if replicas is not None and slices is not None and n is not None and k is not None:
            replicas = Located(n * k, replicas.span)
        rname = role.get("name")
        out += _groups(kind, name, kspan, body, replicas, located(rname))
    return out


def _groups(kind: str, name: str, kspan: Span, spec: YMap, replicas: Located | None,
               role: Located | None) -> list[PodGroup]:
    """The leader and worker pod templates of ``spec.leaderWorkerTemplate`` (``[]`` without one)."""
    lwt = map_at(spec, "leaderWorkerTemplate")
    if lwt is None:
        return []
    size = located(lwt.get("size"))
    leader = map_at(lwt, "leaderTemplate", "spec")
    worker = map_at(lwt, "workerTemplate", "spec")
    out = []
    if leader is not None:
        out.append(PodGroup(kind, name, kspan, leader, replicas, size, "leader", role))
    if worker is not None:
        out.append(PodGroup(kind, name, kspan, worker, replicas, size, "worker" if leader is not None else "all", role))
    return out
