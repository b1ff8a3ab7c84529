"""A pod template patched by an operator: a strategic merge of two YAML mappings, with positions.

Operators that build a pod from a shared template and a per-role patch (RoleBasedGroup
``roleTemplates`` + ``templateRef.patch``) apply it as Kubernetes' strategic merge patch does
for a pod spec: mappings merge key by key, the lists the pod API merges by a key
(``containers``, ``initContainers``, ``volumes``, ``env``, ``ports`` by ``name``,
``volumeMounts`` by ``mountPath``) merge item by item, any other value of the patch replaces
the template's. Source: Kubernetes API reference, PodSpec / Container ``patchMergeKey``
markers (k8s.io/api core/v1 types.go); sgl-project/rbg
api/workloads/v1alpha2/rolebasedgroup_types.go @ 993491fba9bfdf377d3cd18c8833da20ce0ec87b
(TemplateRef.Patch: "a strategic merge patch applied to the referenced RoleTemplate").

The merged nodes are the template's and the patch's own nodes (each keeps its span): a finding
on a merged container points at the line that set the value.
"""

from __future__ import annotations

from ..yamlsrc import YMap, YNode, YScalar, YSeq

# list field -> the key its items merge by (k8s.io/api core/v1 patchMergeKey)
MERGE_KEYS = {"containers": "name", "initContainers": "name", "volumes": "name", "env": "name",
              "ports": "containerPort", "volumeMounts": "mountPath", "imagePullSecrets": "name"}
MAX_DEPTH = 32


def strategic_merge(base: YNode | None, patch: YNode | None, field: str = "", depth: int = 0) -> YNode | None:
    """``patch`` merged onto ``base`` (either may be None: the other is the result). Never
    changes either tree; the result shares their nodes."""
    if patch is None:
        return base
    if base is None or depth > MAX_DEPTH:
        return patch
    if isinstance(base, YMap) and isinstance(patch, YMap):
        items: list[tuple[YScalar, YNode]] = []
        done: set = set()
        for k, v in base.items:
            if k.value in done:
                continue
            done.add(k.value)
            p = patch.get(k.value) if isinstance(k.value, str) else None
            key = patch.key(k.value) if p is not None else k
            items.append((key or k, strategic_merge(base.get(k.value), p, str(k.value), depth + 1)))
        for k, v in patch.items:
            if k.value not in done:
                done.add(k.value)
                items.append((k, patch.get(k.value)))
        return YMap(items, patch.span)
    by = MERGE_KEYS.get(field)
    if by and isinstance(base, YSeq) and isinstance(patch, YSeq):
        def key_of(item: YNode):
            got = item.get(by) if isinstance(item, YMap) else None
            return got.value if isinstance(got, YScalar) else None
        patched = {key_of(i): i for i in patch.items if key_of(i) is not None}
        out: list[YNode] = []
        used: set = set()
        for item in base.items:
            k = key_of(item)
            if k is not None and k in patched:
                out.append(strategic_merge(item, patched[k], "", depth + 1))   # type: ignore[arg-type]
                used.add(k)
            else:
                out.append(item)
        out += [i for i in patch.items if key_of(i) is None or key_of(i) not in used]
        return YSeq(out, patch.span)
    return patch
