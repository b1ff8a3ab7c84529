"""Kubernetes manifests: workload objects become engine launches, with positions.

A manifest file holds one or more YAML documents (``kubectl apply -f``, ``helm template``
output with its ``# Source:`` comments). Each object with ``apiVersion`` and ``kind`` is read;
the pod templates of the workload kinds below become :class:`~cfglint.read.shell.Command` s, one per
container that runs a command, which the one extraction path (:mod:`cfglint.deploy.extract`) turns into
engine processes exactly as it does a shell launch:

- Deployment, StatefulSet, ReplicaSet: ``spec.replicas`` pods of ``spec.template``
  (Kubernetes API reference, apps/v1);
- Job: ``spec.parallelism`` pods; Pod: one pod (``spec`` is the pod spec);
- LeaderWorkerSet (leaderworkerset.x-k8s.io/v1): ``spec.replicas`` groups of
  ``spec.leaderWorkerTemplate.size`` pods, the leader from ``leaderTemplate`` (or, without one,
  ``workerTemplate``), the others from ``workerTemplate``; LWS sets ``LWS_LEADER_ADDRESS``,
  ``LWS_GROUP_SIZE`` and ``LWS_WORKER_INDEX`` (0 for the leader) in every container
  (kubernetes-sigs/lws pkg/utils/pod/pod_utils.go, docs site "Reference: environment variables");
- DisaggregatedSet (disaggregatedset.x-k8s.io v1alpha1 / v1): ``spec.roles[]``, each a named
  role (prefill, decode) with ``replicas`` LWS groups of its ``leaderWorkerTemplate``
  (v1: under the role's ``spec``), times ``spec.slices`` (kubernetes-sigs/lws
  api/disaggregatedset/v1);
- RoleBasedGroup (sgl-project/rbg workloads.x-k8s.io v1alpha1 / v1alpha2): ``spec.roles[]``,
  each a named role with ``replicas`` instances of its pod template (leader/worker pattern:
  ``size`` pods per instance); roles built from template references or patches are a note;
- kthena ModelServing (workload.serving.volcano.sh/v1alpha1): ``replicas`` serving groups of
  ``template.roles[]``, each role ``replicas`` instances of an entry pod and ``workerReplicas``
  worker pods;
- AIBrix StormService (orchestration.aibrix.ai/v1alpha1): ``replicas`` role sets of
  ``template.spec.roles[]``, each role ``replicas`` instances of ``podGroupSize`` pods;
- DynamoGraphDeployment (nvidia.com v1alpha1 ``spec.services``, v1beta1 ``spec.components``):
  each worker's main container, ``replicas`` instances of ``multinode.nodeCount`` pods, with the
  multi-node flags the operator adds to SGLang workers (:func:`_dynamo_multinode`).

A container's argv is ``command`` + ``args`` with Kubernetes' ``$(VAR)`` references expanded
from the container's ``env`` (``$$`` escapes, an undefined reference stays as written;
Kubernetes API reference, Container.args). Without ``command`` the image's entrypoint runs
``args`` (the launchers' image table decides which). ``bash -c SCRIPT`` / ``sh -c SCRIPT`` is
read by the shell parser; every word keeps the position of its characters in the YAML scalar
(plain, quoted or block scalar), so findings point at the exact column in the manifest.

Kinds that are recognised but not modelled (other serving operators' custom resources,
kustomize overlays) are listed in :data:`NOT_MODELLED`; COV001 reports them as not checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...model import Finding, Located, Span, parse_int
from ..shell import Command, Word
from ..yamlsrc import YMap, YNode, YScalar, YSeq

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
# kinds recognised but not modelled: what they are, for the COV001 note
NOT_MODELLED = {
    "DynamoGraphDeployment": "NVIDIA Dynamo DynamoGraphDeployment (an apiVersion other than nvidia.com/v1alpha1, v1beta1)",
    "LLMInferenceService": "KServe LLMInferenceService",
    "VLLMRuntime": "vLLM production-stack VLLMRuntime",
    "InferenceService": "KServe InferenceService",
    "Kustomization": "kustomize overlay (its patches change objects defined elsewhere)",
    "CronJob": "CronJob",
    "DaemonSet": "DaemonSet",
}
MODELLED = ("Deployment", "StatefulSet", "ReplicaSet", "Job", "Pod", "LeaderWorkerSet", "DisaggregatedSet",
            "DynamoGraphDeployment", "RoleBasedGroup", "ModelServing", "StormService")
MAX_OBJECTS = 256      # Kubernetes objects read per file
MAX_CONTAINERS = 64    # containers turned into commands per file
MAX_EXPANDED = 65_536  # characters a $(VAR) expansion may make: each value may use earlier ones twice,
                       # doubling per entry (a 1 KB manifest asked for gigabytes); longer stays as written


@dataclass(slots=True)
class PodGroup:
    """One pod template of a workload and how many pods run it.

    ``replicas``: groups (Deployment replicas, LWS replicas, DisaggregatedSet role replicas x
    slices); ``size``: pods per group (LWS size; None: 1); ``part``: "leader" / "worker" for an
    LWS template (the worker template stands for ``size - 1`` pods, or ``size`` pods when it is
    also the leader's: ``part`` "all"); ``role``: the DisaggregatedSet role name."""

    kind: str
    name: str
    kind_span: Span
    spec: YMap                     # the pod spec (containers, volumes, hostIPC, nodeSelector ...)
    replicas: Located | None = None
    size: Located | None = None
    part: str | None = None
    role: Located | None = None
    containers: list | None = None     # the containers, when not spec.containers (Dynamo v1alpha1 mainContainer)
    gpu_limit: Located | None = None   # GPUs per pod given outside the container (Dynamo v1alpha1 resources.limits.gpu)
    operator: str | None = None        # "dynamo": the operator adds the multi-node flags itself

    def pods_per_instance(self) -> int:
        """Pods one instance of the engine spans: the LWS group size, else 1."""
        n = parse_int(self.size.value) if self.size is not None else None
        return n if n and n > 0 else 1


@dataclass(slots=True)
class Container:
    """A container of a pod template that runs a command: its node, image and GPU resources
    (resource name -> (limit, request), each with its span)."""

    group: PodGroup
    node: YMap
    name: str
    image: Located | None
    gpus: dict[str, tuple[Located | None, Located | None]] = field(default_factory=dict)
    entrypoint: bool = False       # no ``command``: the image's entrypoint runs ``args``


@dataclass(slots=True)
class Manifest:
    """What a manifest file holds: its objects (node, kind), the commands of its containers
    (with the role each is for), the kinds not modelled (kind, span) and load findings."""

    objects: list[YMap] = field(default_factory=list)
    commands: list[tuple[Command, str | None]] = field(default_factory=list)
    not_modelled: list[tuple[str, Span]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def is_object(node: YNode | None) -> bool:
    """A Kubernetes object: a mapping with string ``apiVersion`` and ``kind``."""
    return isinstance(node, YMap) and isinstance(_value(node.get("apiVersion")), str) \
        and isinstance(_value(node.get("kind")), str)


def _value(node: YNode | None):
    return node.value if isinstance(node, YScalar) else None


def _map(node: YNode | None, *path: str) -> YMap | None:
    for key in path:
        node = node.get(key) if isinstance(node, YMap) else None
    return node if isinstance(node, YMap) else None


def _located(node: YNode | None) -> Located | None:
    return Located(node.value, node.span) if isinstance(node, YScalar) and node.value is not None else None


def _templates(obj: YMap, notes: list[tuple[str, Span]] | None = None) -> list[PodGroup] | None:
    """The pod templates of a workload object, or None when its kind is not modelled; parts
    of it that are not modelled are appended to ``notes`` (what, span)."""
    kind = _value(obj.get("kind"))
    name = _value(_map(obj, "metadata").get("name")) if _map(obj, "metadata") else None
    name = name if isinstance(name, str) else ""
    kspan = obj.get("kind").span  # type: ignore[union-attr]
    if kind not in MODELLED:
        return None
    spec = _map(obj, "spec")
    if spec is None:
        return []
    if kind in ("Deployment", "StatefulSet", "ReplicaSet"):
        pod = _map(spec, "template", "spec")
        return [PodGroup(kind, name, kspan, pod, _located(spec.get("replicas")))] if pod else []
    if kind == "Job":
        pod = _map(spec, "template", "spec")
        return [PodGroup(kind, name, kspan, pod, _located(spec.get("parallelism")))] if pod else []
    if kind == "Pod":
        return [PodGroup(kind, name, kspan, spec)]
    if kind == "LeaderWorkerSet":
        return _lws(kind, name, kspan, spec, _located(spec.get("replicas")), None)
    if kind == "DynamoGraphDeployment":
        return _dynamo(obj, name, kspan, spec)
    if kind == "RoleBasedGroup":
        return _rbg(name, kspan, spec, notes)
    if kind == "ModelServing":
        return _kthena(name, kspan, spec)
    if kind == "StormService":
        return _storm(name, kspan, spec)
    if kind == "DisaggregatedSet":
        out: list[PodGroup] = []
        roles = spec.get("roles")
        slices = _located(spec.get("slices"))
        for role in roles.items if isinstance(roles, YSeq) else []:
            if not isinstance(role, YMap):
                continue
            body = _map(role, "spec") or role      # v1: under spec; v1alpha1: on the role
            replicas = _located(body.get("replicas"))
            n, k = (parse_int(replicas.value) if replicas else 1), (parse_int(slices.value) if slices else 1)
            if replicas is not None and slices is not None and n is not None and k is not None:
                replicas = Located(n * k, replicas.span)
            rname = role.get("name")
            out += _lws(kind, name, kspan, body, replicas, _located(rname))
        return out
    return None


def _role_in_name(*names: Located | None) -> Located | None:
    """prefill / decode from the first of ``names`` (role, component type or name) that holds
    one of the words (``VllmPrefillWorker``, ``decode``), at its span; None otherwise."""
    for loc in names:
        if loc is not None and isinstance(loc.value, str):
            low = loc.value.lower()
            for role in ("prefill", "decode"):
                if role in low:
                    return Located(role, loc.span)
    return None


def _dynamo(obj: YMap, name: str, kspan: Span, spec: YMap) -> list[PodGroup] | None:
    """A Dynamo DynamoGraphDeployment: v1alpha1 ``spec.services`` (name -> componentType,
    subComponentType, replicas, resources.limits.gpu, multinode.nodeCount,
    extraPodSpec.mainContainer) or v1beta1 ``spec.components`` (name, type, replicas,
    multinode.nodeCount, podTemplate). Sources: ai-dynamo/dynamo
    deploy/operator/api/v1alpha1/dynamocomponentdeployment_types.go and
    deploy/operator/api/v1beta1/dynamographdeployment_types.go; the shapes of
    examples/backends/sglang/deploy/disagg-multinode.yaml and v1beta1/disagg-multinode.yaml."""
    version = str(_value(obj.get("apiVersion")))
    out: list[PodGroup] = []
    if version.endswith("/v1alpha1"):
        services = spec.get("services")
        for key, svc in services.items if isinstance(services, YMap) else []:
            if not isinstance(svc, YMap):
                continue
            pod = _map(svc, "extraPodSpec")
            main = _map(pod, "mainContainer") if pod else None
            if main is None:
                continue
            gpu = _map(svc, "resources", "limits")
            role = _role_in_name(_located(svc.get("subComponentType")), _located(svc.get("componentType")),
                                Located(key.value, key.span) if isinstance(key.value, str) else None)
            out.append(PodGroup("DynamoGraphDeployment", str(key.value), kspan, pod, _located(svc.get("replicas")),
                                _located(_map(svc, "multinode").get("nodeCount")) if _map(svc, "multinode") else None,
                                "all", role, containers=[main],
                                gpu_limit=_located(gpu.get("gpu")) if gpu else None, operator="dynamo"))
        return out
    if version.endswith("/v1beta1"):
        comps = spec.get("components")
        for comp in comps.items if isinstance(comps, YSeq) else []:
            pod = _map(comp, "podTemplate", "spec") if isinstance(comp, YMap) else None
            if pod is None:
                continue
            assert isinstance(comp, YMap)
            cname = _located(comp.get("name"))
            role = _role_in_name(_located(comp.get("type")), cname)
            out.append(PodGroup("DynamoGraphDeployment", str(cname.value) if cname else "", kspan, pod,
                                _located(comp.get("replicas")),
                                _located(_map(comp, "multinode").get("nodeCount")) if _map(comp, "multinode") else None,
                                "all", role, operator="dynamo"))
        return out
    return None


def _rbg(name: str, kspan: Span, spec: YMap, notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
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
        rname = _located(role.get("name"))
        lwp, alone = _map(role, "leaderWorkerPattern"), _map(role, "standalonePattern")
        if lwp is not None:
            pod, size = _map(lwp, "template", "spec"), _located(lwp.get("size"))
        elif alone is not None:
            pod, size = _map(alone, "template", "spec"), None
        else:
            lws = _map(role, "leaderWorkerSet")
            pod, size = _map(role, "template", "spec"), _located(lws.get("size")) if lws else None
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
                            _located(role.get("replicas")), size if n and n > 1 else None,
                            "all" if n and n > 1 else None, _role_in_name(rname)))
    return out


def _storm(name: str, kspan: Span, spec: YMap) -> list[PodGroup]:
    """An AIBrix StormService (orchestration.aibrix.ai/v1alpha1): ``spec.replicas`` role sets,
    each with ``template.spec.roles[]``; a role runs ``replicas`` instances of ``podGroupSize``
    pods (default 1) of its pod ``template``. Source: vllm-project/aibrix
    api/orchestration/v1alpha1/roleset_types.go (RoleSpec: Name, Replicas, PodGroupSize,
    Template) and samples/disaggregation/vllm/1p1d.yaml @ b6fc67fadff95f1e8f0dd1cc095552d43a943698."""
    out: list[PodGroup] = []
    sets = _located(spec.get("replicas"))
    g = parse_int(sets.value) if sets is not None else 1
    roles = _map(spec, "template", "spec").get("roles") if _map(spec, "template", "spec") else None
    for role in roles.items if isinstance(roles, YSeq) else []:
        pod = _map(role, "template", "spec") if isinstance(role, YMap) else None
        if pod is None:
            continue
        assert isinstance(role, YMap)
        rname = _located(role.get("name"))
        reps = _located(role.get("replicas"))
        r = parse_int(reps.value) if reps is not None else 1
        total = Located(r * g, (reps or sets).span) if r is not None and g is not None and (reps or sets) else reps
        size = _located(role.get("podGroupSize"))
        n = parse_int(size.value) if size is not None else None
        out.append(PodGroup("StormService", str(rname.value) if rname else name, kspan, pod, total,
                            size if n and n > 1 else None, "all" if n and n > 1 else None, _role_in_name(rname)))
    return out


def _kthena(name: str, kspan: Span, spec: YMap) -> list[PodGroup]:
    """A kthena ModelServing (workload.serving.volcano.sh/v1alpha1): ``spec.replicas`` serving
    groups, each with ``template.roles[]``; a role runs ``replicas`` instances of one entry pod
    (``entryTemplate``) and ``workerReplicas`` worker pods (``workerTemplate``). Source:
    volcano-sh/kthena pkg/apis/workload/v1alpha1/model_serving_types.go @
    e3c9ee2d213e41125bb7da19830255944926d035 (ModelServingSpec.Replicas, Role.Replicas,
    EntryTemplate, WorkerReplicas, WorkerTemplate)."""
    out: list[PodGroup] = []
    groups = _located(spec.get("replicas"))
    g = parse_int(groups.value) if groups is not None else 1
    roles = _map(spec, "template").get("roles") if _map(spec, "template") else None
    for role in roles.items if isinstance(roles, YSeq) else []:
        if not isinstance(role, YMap):
            continue
        rname = _located(role.get("name"))
        reps = _located(role.get("replicas"))
        r = parse_int(reps.value) if reps is not None else 1
        total = Located(r * g, (reps or groups).span) if r is not None and g is not None and (reps or groups) else reps
        workers = _located(role.get("workerReplicas"))
        w = parse_int(workers.value) if workers is not None else 0
        size = Located(w + 1, workers.span) if workers is not None and w is not None and w > 0 else None
        entry, worker = _map(role, "entryTemplate", "spec"), _map(role, "workerTemplate", "spec")
        rn = str(rname.value) if rname else name
        if entry is not None:
            out.append(PodGroup("ModelServing", rn, kspan, entry, total, size, "leader" if size else None,
                                _role_in_name(rname)))
        if worker is not None and size is not None:
            out.append(PodGroup("ModelServing", rn, kspan, worker, total, size, "worker", _role_in_name(rname)))
    return out


def _lws(kind: str, name: str, kspan: Span, spec: YMap, replicas: Located | None,
         role: Located | None) -> list[PodGroup]:
    lwt = _map(spec, "leaderWorkerTemplate")
    if lwt is None:
        return []
    size = _located(lwt.get("size"))
    leader = _map(lwt, "leaderTemplate", "spec")
    worker = _map(lwt, "workerTemplate", "spec")
    out = []
    if leader is not None:
        out.append(PodGroup(kind, name, kspan, leader, replicas, size, "leader", role))
    if worker is not None:
        out.append(PodGroup(kind, name, kspan, worker, replicas, size, "worker" if leader is not None else "all", role))
    return out


# ---------------------------------------------------------------------------------------
# characters of a YAML scalar -> their positions in the file

def scalar_positions(node: YScalar, lines: list[str]) -> list[tuple[int, int]] | None:
    """(line, column) of each character of a string scalar's value in the file (``lines``:
    the file's lines), or None when they cannot be placed one by one (escapes, a folded scalar
    whose text differs from its source). Handles plain and quoted scalars on one line, literal
    block scalars (``|``), and folded, multi-line plain and multi-line quoted scalars (without
    escapes) whose lines are their source lines without indentation, joined as YAML folds them."""
    value = node.text
    s = node.span
    if s.line < 1 or s.end_line > len(lines) + 1:
        return None
    if s.line == s.end_line:
        src = lines[s.line - 1][s.col - 1:s.end_col - 1]
        if src == value:
            return [(s.line, s.col + i) for i in range(len(value))]
        if len(src) >= 2 and src[0] in "'\"" and src[-1] == src[0] and src[1:-1] == value:
            return [(s.line, s.col + 1 + i) for i in range(len(value))]
        return None
    first = lines[s.line - 1][s.col - 1:]
    block = first[:1] in ("|", ">")
    pieces: list[tuple[int, int, str]] = []   # (line, col, text) of each source line's content
    quote = first[:1] if first[:1] in ("'", '"') else ""
    if not block:
        head = first.rstrip()
        # a quoted scalar over several lines folds like a plain one; escapes ('' or \) are not placed
        pieces.append((s.line, s.col + len(quote), head[len(quote):]))
    for ln in range(s.line + 1, min(s.end_line, len(lines)) + 1):
        text = lines[ln - 1]
        if ln == s.end_line:
            text = text[:s.end_col - 1]
            if quote:
                if not text.endswith(quote):
                    return None
                text = text[:-1]
        stripped = text.lstrip(" \t")
        pieces.append((ln, len(text) - len(stripped) + 1, stripped))
    if quote and any(("\\" in t) if quote == '"' else ("''" in t) for _ln, _c, t in pieces):
        return None
    out: list[tuple[int, int]] = []
    pos = 0
    if first[:1] == "|":
        # literal: each value line is a source line without the block's indentation
        indent = min((c for _ln, c, t in pieces if t.strip()), default=1)
        for ln, _c, _t in pieces:
            raw = lines[ln - 1]
            content = raw[indent - 1:] if len(raw) >= indent - 1 else ""
            if pos >= len(value):
                break
            end = value.find("\n", pos)
            line_value = value[pos:] if end < 0 else value[pos:end]
            if not content.startswith(line_value):
                return None
            out += [(ln, indent + i) for i in range(len(line_value))]
            pos += len(line_value)
            if end >= 0:
                out.append((ln, indent + len(line_value)))
                pos += 1
        return out if len(out) == len(value) else None
    # folded or multi-line plain: each non-empty source line's text in order, joined by breaks
    last = (s.line, s.col)
    for ln, c, t in pieces:
        t = t.rstrip()
        if not t:
            continue
        while pos < len(value) and value[pos] in " \n":
            out.append(last)
            pos += 1
        if not value.startswith(t, pos):
            return None
        out += [(ln, c + i) for i in range(len(t))]
        pos += len(t)
        last = (ln, c + len(t))
    while pos < len(value) and value[pos] in " \n":
        out.append(last)
        pos += 1
    return out if len(out) == len(value) else None


def _span_of(where: list[tuple[int, int]], a: int, b: int, path: str, fallback: Span) -> Span:
    if not where or a >= len(where) or b <= a:
        return fallback
    (l1, c1), (l2, c2) = where[a], where[b - 1]
    return Span(path, l1, c1, l2, c2 + 1)


# ---------------------------------------------------------------------------------------
# $(VAR) references

_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


@dataclass(slots=True)
class _Env:
    """A container's environment: name -> (static text or None, where it is written, the
    positions of its characters or None)."""

    values: dict[str, tuple[str | None, Span, list[tuple[int, int]] | None]] = field(default_factory=dict)


def _expand(text: str, where: list[tuple[int, int]] | None, span: Span, env: _Env,
            shell: bool) -> tuple[str, list[tuple[int, int]] | None, bool]:
    """``text`` with Kubernetes' ``$(VAR)`` references expanded from ``env``: (text, positions
    of its characters, static). A reference to a value known only at run time stays unknown:
    in a shell script it becomes ``${VAR}`` (the same length: the shell sees a variable it
    cannot know), in an argument the word is not static. ``$$`` is one ``$``. A text that would
    grow past :data:`MAX_EXPANDED` characters is returned as written, not static."""
    if "$" not in text:
        return text, where, True
    out: list[str] = []
    pos_out: list[tuple[int, int]] | None = [] if where is not None else None
    static = True
    i = 0
    size = len(text)
    for m in _REF.finditer(text):
        out.append(text[i:m.start()])
        if pos_out is not None and where is not None:
            pos_out += where[i:m.start()]
        i = m.end()
        ref_pos = where[m.start():m.end()] if where is not None else None
        if m.group(0) == "$$":
            rep, rep_pos = "$", (ref_pos[:1] if ref_pos else None)
        else:
            name = m.group(1)
            got = env.values.get(name)
            if got is None:  # undefined: kept as written
                rep, rep_pos = m.group(0), ref_pos
                static = static and shell
            elif got[0] is None:
                rep, rep_pos = ("${" + name + "}", ref_pos) if shell else (m.group(0), ref_pos)
                static = static and shell
            else:
                rep = got[0]
                size += len(rep)
                if size > MAX_EXPANDED:   # not expanded: the text as written, a value not known
                    return text, where, False
                at = got[2] if got[2] is not None and len(got[2]) == len(rep) else None
                rep_pos = at if at is not None else ([ref_pos[0]] * len(rep) if ref_pos else None)
        out.append(rep)
        if pos_out is not None:
            if rep_pos is None or len(rep_pos) != len(rep):
                pos_out = None
            else:
                pos_out += rep_pos
    out.append(text[i:])
    if pos_out is not None and where is not None:
        pos_out += where[i:]
    return "".join(out), pos_out, static


# the shell sees the container's environment: $NAME / ${NAME} of a static value
_SHELL_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_]))")


def _shell_env(text: str, where: list[tuple[int, int]] | None, env: _Env) -> tuple[str, list[tuple[int, int]] | None]:
    """A ``bash -c`` script with ``$NAME`` / ``${NAME}`` of the container's static environment
    written out (each character of a value at the reference's place): the shell parser knows
    only what the script assigns, and these come from the pod."""
    if where is None or "$" not in text:
        return text, where
    out: list[str] = []
    pos: list[tuple[int, int]] = []
    i = 0
    for m in _SHELL_REF.finditer(text):
        name = m.group(1) or m.group(2)
        got = env.values.get(name)
        if got is None or got[0] is None or re.search(r"[\s'\"$`\\;&|<>(){}]", got[0]) and not _PLACEHOLDER.match(got[0]):
            continue
        out.append(text[i:m.start()])
        pos += where[i:m.start()]
        out.append(got[0])
        pos += [where[m.start()]] * len(got[0])
        i = m.end()
    out.append(text[i:])
    pos += where[i:]
    return "".join(out), pos


_PLACEHOLDER = re.compile(r"^<[a-z0-9][a-z0-9.-]*>$")  # <1..3>, <leader-address>


# ---------------------------------------------------------------------------------------

SHELLS = ("bash", "sh", "dash", "zsh")
SCRIPT_FLAGS = ("-c", "-lc", "-ec", "-xc", "-exc", "-cx", "-ce")


def _items(seq: YNode | None, lines: list[str]) -> list[tuple[YScalar, str, list[tuple[int, int]] | None]]:
    """(node, text, positions of its characters or None) of each scalar of a command / args list."""
    out = []
    for item in seq.items if isinstance(seq, YSeq) else []:
        if not isinstance(item, YScalar):
            continue
        text = item.text
        where = scalar_positions(item, lines) if text else None
        out.append((item, text, where if where is not None and len(where) == len(text) else None))
    return out


def _env(container: YMap, group: PodGroup, lines: list[str]) -> _Env:
    env = _Env()
    size = group.size
    if group.kind in ("LeaderWorkerSet", "DisaggregatedSet") or (group.kind == "RoleBasedGroup" and group.size is not None):
        # the leader's address is wired by LWS: a placeholder stands for it (a value known to be set)
        env.values["LWS_LEADER_ADDRESS"] = ("<leader-address>", group.kind_span, None)
        env.values["LWS_NAME"] = (None, group.kind_span, None)
        n = parse_int(size.value) if size is not None else 1
        n = n if n and n > 0 else 1
        at = size.span if size is not None else group.kind_span
        env.values["LWS_GROUP_SIZE"] = (str(n), at, None)
        if group.part == "leader":
            index = "0"
        elif group.part == "worker":
            index = "1" if n == 2 else f"<1..{n - 1}>"
        else:
            index = "0" if n == 1 else f"<0..{n - 1}>"
        env.values["LWS_WORKER_INDEX"] = (index, at, None)
    items = container.get("env")
    for item in items.items if isinstance(items, YSeq) else []:
        if not isinstance(item, YMap):
            continue
        name = _value(item.get("name"))
        if not isinstance(name, str):
            continue
        value = item.get("value")
        if isinstance(value, YScalar) and value.value is not None:
            text = value.text if isinstance(value.value, str) else str(value.value)
            where = scalar_positions(value, lines) if isinstance(value.value, str) else None
            # a value may itself use $(VAR) of variables defined before it
            text, where, static = _expand(text, where, value.span, env, shell=False)
            env.values[name] = (text if static else None, value.span, where)
        else:  # valueFrom (fieldRef, secretKeyRef ...): known at run time
            key = item.get("name")
            env.values[name] = (None, key.span if key is not None else item.span, None)
    return env


def container_command(c: Container, lines: list[str], display: str) -> Command | None:
    """The container's argv as a :class:`Command`: words with the positions of their
    characters, ``$(VAR)`` expanded, the environment as its assignments; None for a container
    that sets neither ``command`` nor ``args``."""
    node = c.node
    if node.get("command") is None and node.get("args") is None:
        return None
    env = _env(node, c.group, lines)
    words: list[Word] = []
    items = _items(node.get("command"), lines) + _items(node.get("args"), lines)
    texts = [t for _n, t, _w in items]
    for i, (item, text, where) in enumerate(items):
        shell = i >= 2 and texts[i - 1] in SCRIPT_FLAGS and texts[i - 2].rsplit("/", 1)[-1] in SHELLS
        text2, where2, static = _expand(text, where, item.span, env, shell)
        if shell:
            text2, where2 = _shell_env(text2, where2, env)
        span = _span_of(where2, 0, len(text2), display, item.span) if where2 else item.span
        # where []: the characters cannot be placed one by one (escapes): a script inside is
        # placed at the whole scalar
        words.append(Word(text2, text2, span, static, where2 if where2 is not None else []))
    if not words:
        return None
    assignments: dict[str, Word] = {}
    for name, (value, span, where) in env.values.items():
        w = Word(value if value is not None else f"$({name})", value if value is not None else f"$({name})",
                 span, value is not None)
        assignments[name] = w
    first = node.get("command") or node.get("args")
    return Command(words, {}, assignments, first.span if first is not None else node.span)


def _gpus(container: YMap) -> dict[str, tuple[Located | None, Located | None]]:
    out: dict[str, tuple[Located | None, Located | None]] = {}
    limits = _map(container, "resources", "limits")
    requests = _map(container, "resources", "requests")
    for res in GPU_RESOURCES:
        lim = _located(limits.get(res)) if limits else None
        req = _located(requests.get(res)) if requests else None
        if lim is not None or req is not None:
            out[res] = (lim, req)
    return out


def read_manifest(docs: list[YNode], lines: list[str], display: str) -> Manifest:
    """The Kubernetes objects among ``docs`` (the documents of one file, ``lines`` its lines)
    and the commands their containers run, each with the role it is for (a DisaggregatedSet
    role's name; None otherwise) and its :class:`Container` as ``command.origin``."""
    out = Manifest()
    containers = 0
    stack = list(docs)
    seen = 0
    while stack:
        doc = stack.pop(0)
        if not is_object(doc):
            continue
        seen += 1
        if seen > MAX_OBJECTS:
            break
        assert isinstance(doc, YMap)
        kind = _value(doc.get("kind"))
        items = doc.get("items")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(items, YSeq):
            stack[:0] = list(items.items)
            continue
        out.objects.append(doc)
        groups = _templates(doc, out.not_modelled)
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
                cname = _value(cnode.get("name"))
                c = Container(g, cnode, cname if isinstance(cname, str) else "", _located(cnode.get("image")), _gpus(cnode))
                c.entrypoint = cnode.get("command") is None
                if g.gpu_limit is not None and not c.gpus:
                    c.gpus["nvidia.com/gpu"] = (g.gpu_limit, None)
                cmd = container_command(c, lines, display)
                if cmd is not None and g.operator == "dynamo":
                    _dynamo_multinode(cmd, g)
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


def _dynamo_multinode(cmd: Command, g: PodGroup) -> None:
    """The flags the Dynamo operator adds to a multi-node SGLang worker (``multinode.nodeCount``
    above 1): ``--dist-init-addr <leader>:<port> --nnodes N --node-rank <rank>``, placed after
    the ``dynamo.sglang`` command (ai-dynamo/dynamo
    deploy/cloud/operator/internal/dynamo/backend_sglang.go, SGLangBackend.getMultinodeFlags and
    injectFlagsIntoPythonCommand). They are modelled, with the span of ``nodeCount``, so the
    launch is checked as the operator runs it, not reported as missing its wiring."""
    n = parse_int(g.size.value) if g.size is not None else None
    texts = [w.text for w in cmd.words]
    if not n or n <= 1 or g.size is None or "dynamo.sglang" not in " ".join(texts) or "--nnodes" in texts:
        return
    at = g.size.span
    rank = "0" if n == 1 else f"<0..{n - 1}>"
    script = next((i for i, w in enumerate(cmd.words) if i >= 2 and texts[i - 1] in SCRIPT_FLAGS
                   and texts[i - 2].rsplit("/", 1)[-1] in SHELLS), None)
    extra = ["--dist-init-addr", "<leader-address>:<sglang-port>", "--nnodes", str(n), "--node-rank", rank]
    if script is not None:  # bash -c "... python3 -m dynamo.sglang ...": appended to the script
        w = cmd.words[script]
        add = " " + " ".join(extra)
        where = (w.where or []) + [(at.line, at.col)] * len(add) if w.where is not None else None
        cmd.words[script] = Word(w.text + add, w.raw + add, w.span, w.static, where)
        return
    cmd.words += [Word(t, t, at) for t in extra]
