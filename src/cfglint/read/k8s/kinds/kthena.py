"""kthena's ModelServing (workload.serving.volcano.sh/v1alpha1): ``replicas`` serving groups of
``template.roles[]``, each role ``replicas`` instances of an entry pod and ``workerReplicas``
worker pods."""

from __future__ import annotations

from ....model import Located, Span, parse_int
from ...yamlsrc import YMap, YSeq
from ..model import PodGroup, count_problem
from ..nodes import located, map_at
from .roles import role_in_name


def model_serving(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                  notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """A kthena ModelServing (workload.serving.volcano.sh/v1alpha1): ``spec.replicas`` serving
    groups, each with ``template.roles[]``; a role runs ``replicas`` instances of one entry pod
    (``entryTemplate``) and ``workerReplicas`` worker pods (``workerTemplate``). Source:
    volcano-sh/kthena pkg/apis/workload/v1alpha1/model_serving_types.go @
    e3c9ee2d213e41125bb7da19830255944926d035 (ModelServingSpec.Replicas, Role.Replicas,
    EntryTemplate, WorkerReplicas, WorkerTemplate)."""
    out: list[PodGroup] = []
    groups = located(spec.get("replicas"))
    g = parse_int(groups.value) if groups is not None else 1
    roles = map_at(spec, "template").get("roles") if map_at(spec, "template") else None
    for role in roles.items if isinstance(roles, YSeq) else []:
        if not isinstance(role, YMap):
            continue
        rname = located(role.get("name"))
        reps = located(role.get("replicas"))
        r = parse_int(reps.value) if reps is not None else 1
        total = Located(r * g, (reps or groups).span) if r is not None and g is not None and (reps or groups) else reps
        workers = located(role.get("workerReplicas"))
        why = count_problem(workers, "workerReplicas")   # int32, at least 0 (K8S004 reports it)
        w = parse_int(workers.value) if workers is not None and why is None else 0
        size = Located(w + 1, workers.span) if workers is not None and w is not None and (w > 0 or why) else None
        bad = (why, workers.span) if why is not None and workers is not None else None
        entry, worker = map_at(role, "entryTemplate", "spec"), map_at(role, "workerTemplate", "spec")
        rn = str(rname.value) if rname else name
        if entry is not None:
            out.append(PodGroup("ModelServing", rn, kspan, entry, total, size, "leader" if size else None,
                                role_in_name(rname), bad_count=bad))
        if worker is not None and size is not None:
            out.append(PodGroup("ModelServing", rn, kspan, worker, total, size, "worker", role_in_name(rname),
                                bad_count=bad))
    return out
