"""AIBrix's StormService (orchestration.aibrix.ai/v1alpha1): ``replicas`` role sets of
``template.spec.roles[]``, each role ``replicas`` instances of ``podGroupSize`` pods; and its
RayClusterFleet: ``replicas`` Ray clusters, a head pod and worker pods each."""

from __future__ import annotations

from ....model import Located, Span, parse_int
from ...yamlsrc import YMap, YSeq
from ..model import PodGroup, count_problem
from ..nodes import located, map_at
from .roles import role_in_name


def storm_service(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                  notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """An AIBrix StormService (orchestration.aibrix.ai/v1alpha1): ``spec.replicas`` role sets,
    each with ``template.spec.roles[]``; a role runs ``replicas`` instances of ``podGroupSize``
    pods (default 1) of its pod ``template``. Source: vllm-project/aibrix
    api/orchestration/v1alpha1/roleset_types.go (RoleSpec: Name, Replicas, PodGroupSize,
    Template) and samples/disaggregation/vllm/1p1d.yaml @ b6fc67fadff95f1e8f0dd1cc095552d43a943698."""
    out: list[PodGroup] = []
    sets = located(spec.get("replicas"))
    g = parse_int(sets.value) if sets is not None else 1
    roles = map_at(spec, "template", "spec").get("roles") if map_at(spec, "template", "spec") else None
    for role in roles.items if isinstance(roles, YSeq) else []:
        pod = map_at(role, "template", "spec") if isinstance(role, YMap) else None
        if pod is None:
            continue
        assert isinstance(role, YMap)
        rname = located(role.get("name"))
        reps = located(role.get("replicas"))
        r = parse_int(reps.value) if reps is not None else 1
        total = Located(r * g, (reps or sets).span) if r is not None and g is not None and (reps or sets) else reps
        size = located(role.get("podGroupSize"))
        n = parse_int(size.value) if size is not None else None
        why = count_problem(size, "podGroupSize", 1)
        out.append(PodGroup("StormService", str(rname.value) if rname else name, kspan, pod, total,
                            size if n and n > 1 else None, "all" if n and n > 1 else None, role_in_name(rname),
                            bad_count=(why, size.span) if why is not None and size is not None else None))
    return out


def ray_cluster_fleet(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                      notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """An AIBrix RayClusterFleet (orchestration.aibrix.ai/v1alpha1): ``spec.replicas`` Ray
    clusters of ``template.spec`` (a KubeRay RayClusterSpec): one head pod
    (``headGroupSpec.template``) and ``replicas`` pods of each ``workerGroupSpecs[]`` template.
    An engine started on the head with the Ray executor spans the head and every worker pod:
    one instance of 1 + the workers' replicas pods (the head the leader, the Ray workers the
    rest). Sources: vllm-project/aibrix api/orchestration/v1alpha1/rayclusterfleet_types.go
    (RayClusterFleetSpec: Replicas, Template) @ e3e10f9e4aebe9aac5e7d992fb87d2648e01628b and
    ray-project/kuberay ray-operator/apis/ray/v1/raycluster_types.go (HeadGroupSpec.Template,
    WorkerGroupSpec.Replicas, WorkerGroupSpec.Template)."""
    cluster = map_at(spec, "template", "spec")
    if cluster is None:
        return []
    reps = located(spec.get("replicas"))
    head = map_at(cluster, "headGroupSpec", "template", "spec")
    workers: list[tuple[YMap, int, Located | None]] = []
    bad: tuple[str, Span] | None = None
    groups = cluster.get("workerGroupSpecs")
    for wg in groups.items if isinstance(groups, YSeq) else []:
        pod = map_at(wg, "template", "spec")
        if pod is None:
            continue
        assert isinstance(wg, YMap)
        n = located(wg.get("replicas"))
        why = count_problem(n, "workerGroupSpecs replicas")   # int32, at least 0 (K8S004 reports it)
        if why is not None and n is not None and bad is None:
            bad = (why, n.span)
        k = parse_int(n.value) if n is not None and why is None else 1
        workers.append((pod, k if k is not None else 1, n))
    pods = 1 + sum(k for _p, k, _n in workers)
    at = next((n for _p, _k, n in workers if n is not None), None)
    size = Located(pods, at.span) if (pods > 1 or bad) and at is not None else None
    out: list[PodGroup] = []
    if head is not None:
        out.append(PodGroup(kind, name, kspan, head, reps, size, "leader" if size else None, bad_count=bad))
    for pod, _k, _n in workers:
        if size is not None:
            out.append(PodGroup(kind, name, kspan, pod, reps, size, "worker", bad_count=bad))
    return out
