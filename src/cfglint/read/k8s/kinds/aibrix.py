"""AIBrix's StormService (orchestration.aibrix.ai/v1alpha1): ``replicas`` role sets of
``template.spec.roles[]``, each role ``replicas`` instances of ``podGroupSize`` pods."""

from __future__ import annotations

from ....model import Located, Span, parse_int
from ...yamlsrc import YMap, YSeq
from ..model import PodGroup
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
        out.append(PodGroup("StormService", str(rname.value) if rname else name, kspan, pod, total,
                            size if n and n > 1 else None, "all" if n and n > 1 else None, role_in_name(rname)))
    return out
