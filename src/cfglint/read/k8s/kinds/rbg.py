"""SGLang's RoleBasedGroup (sgl-project/rbg workloads.x-k8s.io v1alpha1 / v1alpha2):
``spec.roles[]``, each a named role with ``replicas`` instances of its pod template
(leader/worker pattern: ``size`` pods per instance); roles built from template references or
patches are a note."""

from __future__ import annotations

from ....model import Span, parse_int
from ...yamlsrc import YMap, YSeq
from ..model import PodGroup
from ..nodes import located, map_at
from .roles import role_in_name


def role_based_group(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                     notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """An SGLang RoleBasedGroup: ``spec.roles[]``, each ``replicas`` instances of a pod template
    (v1alpha1 ``template``, with ``leaderWorkerSet.size`` pods per instance when set; v1alpha2
    ``standalonePattern.template`` or ``leaderWorkerPattern`` with ``size`` and ``template``).
    A role whose pods come from a ``templateRef`` / template patches or a
    ``customComponentsPattern`` is not modelled (a note). Sources: sgl-project/rbg
    api/workloads/v1alpha1/rolebasedgroup_types.go @ a3273799212cdfdc5229274631560b26e6a9ffd5
    (RoleSpec: Template, LeaderWorkerSet) and api/workloads/v1alpha2/rolebasedgroup_types.go
    @ 415f58690576b51c169caa431d02d2ba65490e40."""
    out: list[PodGroup] = []
    roles = spec.get("roles")
    for role in roles.items if isinstance(roles, YSeq) else []:
        if not isinstance(role, YMap):
            continue
        rname = located(role.get("name"))
        lwp, alone = map_at(role, "leaderWorkerPattern"), map_at(role, "standalonePattern")
        if lwp is not None:
            pod, size = map_at(lwp, "template", "spec"), located(lwp.get("size"))
        elif alone is not None:
            pod, size = map_at(alone, "template", "spec"), None
        else:
            lws = map_at(role, "leaderWorkerSet")
            pod, size = map_at(role, "template", "spec"), located(lws.get("size")) if lws else None
            if lws is not None and (lws.get("patchLeaderTemplate") is not None or lws.get("patchWorkerTemplate") is not None):
                pod = None
        if pod is None:
            if notes is not None:
                at = rname.span if rname else role.span
                notes.append((f"RoleBasedGroup role {rname.value if rname else '?'} (a template reference, template "
                              f"patches or custom components)", at))
            continue
        n = parse_int(size.value) if size is not None else None
        out.append(PodGroup("RoleBasedGroup", str(rname.value) if rname else name, kspan, pod,
                            located(role.get("replicas")), size if n and n > 1 else None,
                            "all" if n and n > 1 else None, role_in_name(rname)))
    return out
