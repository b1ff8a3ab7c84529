"""SGLang's RoleBasedGroup (sgl-project/rbg workloads.x-k8s.io v1alpha1 / v1alpha2):
``spec.roles[]``, each a named role with ``replicas`` instances of its pod template
(leader/worker pattern: ``size`` pods per instance). A role's pods may come from a shared
``spec.roleTemplates[]`` entry named by ``templateRef``, patched per role (v1alpha2
``templateRef.patch``, v1alpha1 ``templatePatch``) and per part (v1alpha2
``leaderTemplatePatch`` / ``workerTemplatePatch``, v1alpha1 ``leaderWorkerSet.patchLeaderTemplate``
/ ``patchWorkerTemplate``): the pods are the strategic merge of those (:mod:`..merge`)."""

from __future__ import annotations

from ....model import Span, parse_int
from ...yamlsrc import YMap, YNode, YSeq
from ..merge import strategic_merge
from ..model import PodGroup, count_problem
from ..nodes import located, map_at, scalar_value
from .roles import role_in_name


def _role_templates(spec: YMap) -> dict[str, YNode]:
    """``spec.roleTemplates[]``: name -> its pod ``template``."""
    out: dict[str, YNode] = {}
    items = spec.get("roleTemplates")
    for t in items.items if isinstance(items, YSeq) else []:
        name = scalar_value(t.get("name")) if isinstance(t, YMap) else None
        if isinstance(name, str) and isinstance(t.get("template"), YMap):   # type: ignore[union-attr]
            out[name] = t.get("template")   # type: ignore[union-attr]
    return out


def role_based_group(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                     notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """An SGLang RoleBasedGroup: ``spec.roles[]``, each ``replicas`` instances of a pod template
    (v1alpha1 ``template`` or ``templateRef`` + ``templatePatch``, with ``leaderWorkerSet.size``
    pods per instance when set; v1alpha2 ``standalonePattern`` or ``leaderWorkerPattern`` with
    ``size``, each with ``template`` or ``templateRef`` {name, patch}). A leader/worker role whose
    leader and worker patches differ is two pod templates (leader, workers). A role whose
    template reference names no ``roleTemplates`` entry, or a ``customComponentsPattern``, is not
    modelled (a note). Sources: sgl-project/rbg api/workloads/v1alpha1/rolebasedgroup_types.go
    @ a3273799212cdfdc5229274631560b26e6a9ffd5 (RoleSpec: Template, TemplateRef, TemplatePatch,
    LeaderWorkerSet) and api/workloads/v1alpha2/rolebasedgroup_types.go
    @ 993491fba9bfdf377d3cd18c8833da20ce0ec87b (RoleTemplate, TemplateRef{Name, Patch},
    StandalonePattern, LeaderWorkerPattern{Size, Template, TemplateRef, LeaderTemplatePatch,
    WorkerTemplatePatch})."""
    out: list[PodGroup] = []
    shared = _role_templates(spec)
    roles = spec.get("roles")
    for role in roles.items if isinstance(roles, YSeq) else []:
        if not isinstance(role, YMap):
            continue
        rname = located(role.get("name"))
        lwp, alone = map_at(role, "leaderWorkerPattern"), map_at(role, "standalonePattern")
        lead_patch = work_patch = None
        patch_keys = ("", "")
        if lwp is not None:
            body, size = lwp, located(lwp.get("size"))
            lead_patch, work_patch = lwp.get("leaderTemplatePatch"), lwp.get("workerTemplatePatch")
            patch_keys = ("leaderTemplatePatch", "workerTemplatePatch")
        elif alone is not None:
            body, size = alone, None
        else:
            lws = map_at(role, "leaderWorkerSet")
            body, size = role, located(lws.get("size")) if lws else None
            if lws is not None:
                lead_patch, work_patch = lws.get("patchLeaderTemplate"), lws.get("patchWorkerTemplate")
                patch_keys = ("patchLeaderTemplate", "patchWorkerTemplate")
        template: YNode | None = body.get("template")
        ref = map_at(body, "templateRef")
        why = "a template reference to no spec.roleTemplates entry, or custom components"
        patch = None
        if ref is not None:
            ref_name = scalar_value(ref.get("name"))
            base = shared.get(ref_name) if isinstance(ref_name, str) else None
            patch = ref.get("patch") if ref.get("patch") is not None else body.get("templatePatch")
            template = strategic_merge(base, patch) if base is not None else None
        elif body is role and role.get("templatePatch") is not None:
            patch = role.get("templatePatch")
            template = strategic_merge(template, patch)
        if patch is not None and not isinstance(patch, YMap):   # the operator's strategic merge refuses it
            template, why = None, "its template patch is not a mapping"
        pod = map_at(template, "spec")
        if pod is None:
            if notes is not None:
                at = rname.span if rname else role.span
                notes.append((f"RoleBasedGroup role {rname.value if rname else '?'} ({why})", at))
            continue
        n = parse_int(size.value) if size is not None else None
        multi = bool(n and n > 1)
        rn = str(rname.value) if rname else name
        why = count_problem(size, f"RoleBasedGroup role {rn} size", 1)
        bad = (why, size.span) if why is not None and size is not None else None
        parts = [(pod, "all" if multi else None)]
        # a part's patch that is not a mapping: the operator's strategic merge refuses it, and
        # that part's pods are not known (a note, never dropped quietly)
        broken = {part for part, p in (("leader", lead_patch), ("worker", work_patch)) if p is not None and not isinstance(p, YMap)}
        for part, key in zip(("leader", "worker"), patch_keys):
            if part in broken and notes is not None:
                at = (lwp if lwp is not None else map_at(role, "leaderWorkerSet")).get(key)  # type: ignore[union-attr]
                notes.append((f"RoleBasedGroup role {rn} {part} pods (its {key} is not a mapping)",
                              at.span if at is not None else role.span))
        # patches that change only metadata (labels) leave one pod template for the whole group
        if multi and (broken or any(isinstance(p, YMap) and p.get("spec") is not None for p in (lead_patch, work_patch))):
            lead = map_at(strategic_merge(template, lead_patch), "spec") if "leader" not in broken else None
            work = map_at(strategic_merge(template, work_patch), "spec") if "worker" not in broken else None
            parts = [(p, part) for p, part in ((lead, "leader"), (work, "worker")) if p is not None]
        elif "leader" in broken:   # one pod per instance: the leader's, from the broken patch
            parts = []
        for p, part in parts:
            out.append(PodGroup("RoleBasedGroup", rn, kspan, p, located(role.get("replicas")), size if multi else None,
                                part, role_in_name(rname), bad_count=bad))
    return out
