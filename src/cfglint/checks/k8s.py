"""K8S001-K8S003: what a Kubernetes workload gives the engine it runs (GPUs, node pinning,
shared memory, multi-node wiring) against what the engine and the submission need.

The workloads are read by :mod:`cfglint.read.k8s`; each engine process started by a container
carries that container as ``Process.pod`` (its pod template, replicas, LWS group size and GPU
resources), so these rules see the engine's settings and its pod together.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..model import Finding, Located, Span, parse_int
from ..read.quantity import device_count, parse_quantity, value_problem
from ..read.yamlsrc import YMap, YScalar, YSeq
from .base import Context, here, rule
from .containers import MIN_SHM_BYTES, container_shm
from .image import MARKERS
from .topology import equals, gpus_per_instance, node_group

if TYPE_CHECKING:   # cfglint.read.k8s is imported only by a run that reads a Kubernetes manifest
    from ..read.k8s.model import Container

# node labels that name the GPU product of a node (an accelerator resource's own label, such as
# GKE's TPU label, is its node_label in rules/accelerators.yaml resources)
PRODUCT_LABELS = ("nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "amd.com/gpu.product-name",
                  "node.kubernetes.io/instance-gpu")
_TOPOLOGY = re.compile(r"^\d{1,4}(x\d{1,4}){1,2}$")   # a TPU slice shape: 4x4, 2x2x1
# the setting and flag that name a multi-node instance's rendezvous (rules/engines.yaml settings)
RENDEZVOUS = {"sglang": ("dist_init_addr", "--dist-init-addr"), "vllm": ("master_addr", "--master-addr")}


def _engines_in_pods(ctx: Context):
    """(process, container) for each engine process a Kubernetes container starts."""
    for p in ctx.deployment.engine_processes():
        if p.pod is not None:   # set only by cfglint.read.k8s, to the k8s.Container that starts it
            yield p, p.pod


# extended resources of accelerators whose count K8S001 does not weigh (NPUs and others; the
# counted ones, GPUs and Google Cloud TPU chips, are rules/accelerators.yaml resources): Huawei
# Ascend device plugin (huawei.com/Ascend910, huawei.com/Ascend310P ...), Intel Gaudi
# (habana.ai/gaudi), AWS Neuron (aws.amazon.com/neuron, neuroncore)
OTHER_ACCELERATORS = re.compile(r"^(huawei\.com/[Aa]scend\S*|habana\.ai/gaudi|aws\.amazon\.com/neuron\S*)$")


def _other_accelerators(c: Container) -> Located | None:
    """The first non-GPU accelerator resource the container asks for (its key), or None."""
    res = c.node.get("resources")
    for part in ("limits", "requests"):
        m = res.get(part) if isinstance(res, YMap) else None
        for k, _v in m.items if isinstance(m, YMap) else []:
            if isinstance(k.value, str) and OTHER_ACCELERATORS.match(k.value):
                return Located(k.value, k.span)
    return None


def _units(entry: dict, n: int) -> str:
    """``n`` units of a device resource: "16 TPU chips", "1 GPU"."""
    unit = str(entry.get("unit") or "GPU")
    return f"{n} {unit}{'s' if n != 1 else ''}"


def _selected(spec: YMap, label: str | None) -> Located | None:
    """The value the pod spec's nodeSelector gives node label ``label``, or None."""
    sel = spec.get("nodeSelector")
    v = sel.get(label) if isinstance(sel, YMap) and label else None
    return Located(str(v.value), v.span) if isinstance(v, YScalar) and v.value is not None else None


def slice_chips(topology: str) -> int | None:
    """The chips of a TPU slice shape (``4x4``: 16, ``2x2x1``: 4), None when it is not one."""
    if not _TOPOLOGY.match(topology.strip()):
        return None
    n = 1
    for part in topology.strip().split("x"):
        n *= int(part)
    return n


def _slice_findings(ctx: Context, c: Container, res: str, entry: dict, loc: Located, per_pod: int, pods: int,
                    need: int):
    """K8S001 on a slice-placed resource (rules/accelerators.yaml resources topology_label):
    the slice topology the node selector asks for against the chips the pods of one instance
    ask for. A group of several pods (an LWS group, one pod per TPU VM) fills one slice; a
    lone pod cannot ask for more chips than its slice has. A slice of the engine's ``need``
    chips is right: then the per-pod count is what is wrong, and the count finding says so."""
    topo = _selected(c.group.spec, entry.get("topology_label"))
    chips = slice_chips(topo.value) if topo is not None else None
    if topo is not None and chips is None:
        ctx.not_checked("TPU slice topology (K8S001)", f"{entry['topology_label']}: {topo.value} is not a slice "
                                                       "shape (AxB or AxBxC)", topo.span)
        return
    asked = per_pod * pods
    if chips is None or asked == chips or chips == need or (pods == 1 and per_pod <= chips):
        return
    product = _selected(c.group.spec, entry.get("node_label"))
    found = product_accelerator(ctx.kb, product.value) if product is not None else None
    shapes = [t for t in (found or {}).get("topologies") or [] if slice_chips(str(t)) == asked]
    label = "multinode.nodeCount" if c.group.operator == "dynamo" else f"{c.group.kind} size"
    group = (f"the {c.group.kind}'s group of {pods} pods ({label}, {here(c.group.size.span)}) x {res}: {per_pod} "
             f"({here(loc.span)}) asks for {asked}" if pods > 1 and c.group.size is not None else
             f"the pod asks for {res}: {per_pod} ({here(loc.span)})")
    fix = (f"use a {asked}-chip topology ({' / '.join(map(str, shapes))}{' for ' + found['name'] if found else ''})"
           if shapes else f"use a topology of {asked} chips")
    yield Finding("K8S001", f"{entry['topology_label']}: {topo.value} is a slice of {_units(entry, chips)} but "
                            f"{group}: the pods of one instance do not fit one slice; {fix}",
                  topo.span, related=[(loc.span, f"{res}: {per_pod}")])


@rule("K8S001", "gpu-resources-mismatch", "error",
      "GPUs (TPU chips) per pod x pods per group do not match the engine's TP x PP (x DP) or the TPU slice "
      "topology, or GPU limits and requests differ.",
      "A pod gets the accelerator devices its container asks for (resources.limits of nvidia.com/gpu, "
      "amd.com/gpu, or google.com/tpu chips on GKE: rules/accelerators.yaml resources); "
      "an engine instance spans the pods of one group (a LeaderWorkerSet group of `size` pods, one "
      "pod otherwise) and needs TP x PP (x replica DP) GPUs; engines a container starts side by side "
      "share its GPUs. Fewer GPUs and the engine fails at "
      "start (too few devices for its ranks); more and they sit idle, and the published system "
      "is not what ran. For extended resources such as GPUs Kubernetes takes the limit as the "
      "request, and a request that differs from the limit is refused. On GKE a TPU pod is placed on "
      "a slice by its node selector (cloud.google.com/gke-tpu-accelerator, cloud.google.com/gke-tpu-topology "
      "AxB[xC]: A x B [x C] chips), one pod per TPU VM; the pods of one instance (an LWS group) "
      "fill one slice, so their chips must add up to the topology's, and a lone pod cannot ask for "
      "more chips than its slice has.",
      ("https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/ (GPUs are specified in limits; "
       "requests, if given, must equal limits)",
       "https://docs.cloud.google.com/kubernetes-engine/docs/how-to/tpus-autopilot (TPU version and topology in "
       "nodeSelector, the chips in resources; each TPU pod on a node of its own)",
       "https://docs.cloud.google.com/tpu/docs/v5e (slice shapes and their chips), rules/accelerators.yaml "
       "(resources; TPU generations: gke_accelerator, chips_per_host, topologies)",
       "https://lws.sigs.k8s.io/docs/ (LeaderWorkerSet: leaderWorkerTemplate.size pods per group)",
       "rules/engines.yaml (TP / PP / DP flags; what one instance uses: src/cfglint/checks/topology.py)"))
def check_gpu_resources(ctx: Context):
    per_container: dict[int, tuple[Container, list]] = {}
    for p, c in _engines_in_pods(ctx):
        per_container.setdefault(id(c.node), (c, []))[1].append(p)
    for c, procs in per_container.values():
        for res, (lim, req) in c.gpus.items():
            # compared as quantities (1000m is 1); a value the API server refuses is K8S004's
            if lim is not None and req is not None and device_count(lim.value) is not None \
                    and device_count(req.value) is not None and device_count(req.value) != device_count(lim.value):
                yield Finding("K8S001", f"{res} request {req.value} differs from its limit {lim.value} "
                                        f"({here(lim.span)}): Kubernetes refuses a GPU request that is not equal "
                                        f"to the limit; set both to {lim.value} or give only the limit",
                              req.span, related=[(lim.span, f"limit {lim.value}")])
        pods, nodes_of = _pods_of_instance(c, procs)
        # every engine the container starts shares its GPUs: one instance spread over the
        # group's pods, or several servers side by side in one pod
        needs = []
        for p in procs:
            if node_group(p) is None and pods > 1 and c.group.part in ("worker",):
                continue  # an LWS worker that joins the leader's engine some other way (Ray)
            got = gpus_per_instance(p)
            if got is None:
                needs = None
                break
            needs.append(got)
        if not needs:
            continue
        bad_size = c.group.size_problem()
        if bad_size is not None:
            ctx.not_checked("GPUs per pod (K8S001)", f"{bad_size[0]}: the pods per group are not known, so "
                                                     "the GPUs of one instance are not checked", bad_size[1])
            continue
        need = sum(n for n, _a, _h in needs)
        how = " + ".join(h for _n, _a, h in needs)
        related = [(a.span, h) for _n, a, h in needs if a is not None]
        count = c.gpu_count()
        where = f"{c.group.kind} {c.group.name}".strip()
        engines = "an engine that needs" if len(needs) == 1 else f"{len(needs)} engines that need"
        if count is None and c.group.gpus_elsewhere:
            ctx.not_checked("GPUs per pod (K8S001)", f"the {c.group.kind}'s pods get their GPUs from "
                                                     f"{c.group.gpus_elsewhere}, not from this file",
                            c.group.kind_span)
            continue
        other = _other_accelerators(c) if count is None else None
        if other is not None:
            ctx.not_checked("GPUs per pod (K8S001)", f"container {c.name or '?'} asks for {other.value}, an "
                                                     "accelerator whose count is not weighed (not a resource of "
                                                     "rules/accelerators.yaml): its count against TP x PP is not "
                                                     "checked", other.span)
            continue
        if count is None:
            if need >= 1:
                name = c.node.get("name")
                n = need // pods if need % pods == 0 else need
                add = f"resources.limits {c.group.gpu_key}: {n} to the service" if c.group.gpu_key else \
                    f"resources.limits nvidia.com/gpu: {n}"
                yield Finding("K8S001", f"container {c.name or '?'} of {where} runs {engines} {need} GPU"
                                        f"{'s' if need != 1 else ''} ({how}) but asks for none: add {add}",
                              name.span if isinstance(name, YScalar) else c.node.span, related=related)
            continue
        res, loc = count
        shown = c.written(res)
        per_pod = device_count(loc.value)
        if per_pod is None:
            bad = value_problem(res, loc.value) if parse_quantity(loc.value) is not None else None
            ctx.not_checked("GPUs per pod (K8S001)", f"{shown}: {loc.value} is not a whole number of devices the API server "
                                                     "accepts (K8S004 says why): the GPUs per pod are not known" if bad
                            else f"{shown}: {loc.value} is not a number", loc.span)
            continue
        entry = ctx.kb.device_resources.get(res) or {}
        if entry.get("topology_label"):
            yield from _slice_findings(ctx, c, res, entry, loc, per_pod, pods, need)
        if per_pod * pods == need:
            continue
        label = "multinode.nodeCount" if c.group.operator == "dynamo" else f"{c.group.kind} size"
        pods_text = f" x {pods} pods per group ({label}, {here(c.group.size.span)})" \
            if pods > 1 and c.group.size is not None else f" x {pods} pods ({nodes_of})" if nodes_of else ""
        right = f"{need // pods}" if need % pods == 0 else None
        fix = f"; set {shown}: {right}" if right is not None else ""
        topo = _selected(c.group.spec, entry.get("topology_label"))
        chips = slice_chips(topo.value) if topo is not None else None
        if chips == per_pod * pods:
            # the pods fill the slice the node selector asks for: the launch is what does not match it
            fix = (f"; the {topo.value} slice ({entry['topology_label']}, {here(topo.span)}) has {chips} chips: "
                   f"make TP x PP {chips}" + (f" (or set {shown}: {right} on a slice of {need} chips)" if right else ""))
        runs = f"it runs {equals(how, need)}" if len(needs) == 1 else f"its {len(needs)} engines run {equals(how, need)}"
        written = f"{loc.value} ({per_pod})" if str(loc.value).strip() != str(per_pod) else str(per_pod)   # 1k (1000)
        yield Finding("K8S001", f"{shown}: {written}{pods_text} gives the engine{'s' if len(needs) > 1 else ''} "
                                f"{_units(entry, per_pod * pods)} but {runs}{fix}",
                      loc.span, related=related)


# workloads whose replicas are all alike: with an engine's --nnodes N, N of them are the nodes of one instance
_REPLICATED = ("StatefulSet", "Deployment", "ReplicaSet")


def _pods_of_instance(c: Container, procs: list) -> tuple[int, str | None]:
    """(pods one engine instance of container ``c`` spans, how that is known when it is not the
    group's size): a StatefulSet / Deployment whose engine runs --nnodes N over its replicas
    (replicas a multiple of N; SGLang and vLLM multi-node launches, one per pod, the node rank
    from the pod) spans N pods; else the group's pods_per_instance."""
    pods = c.group.pods_per_instance()
    if pods > 1 or c.group.kind not in _REPLICATED:
        return pods, None
    replicas = parse_int(c.group.replicas.value) if c.group.replicas is not None else 1
    for p in procs:
        nn = p.settings.get("nnodes")
        n = parse_int(nn.value) if nn is not None and "nnodes" not in p.unknown else None
        if n and n > 1 and replicas and replicas % n == 0:
            return n, f"--nnodes {n} over the {c.group.kind}'s {replicas} replicas, {here(nn.span)}"
    return pods, None


def _product_values(spec: YMap, labels: tuple[str, ...]) -> list[tuple[str, Located]]:
    """(label, value) of every accelerator-product node label among ``labels`` the pod spec
    requires: nodeSelector and required node affinity (matchExpressions with operator In)."""
    out: list[tuple[str, Located]] = []
    sel = spec.get("nodeSelector")
    if isinstance(sel, YMap):
        for k, v in sel.items:
            if k.value in labels and isinstance(v, YScalar) and v.value is not None:
                out.append((k.value, Located(str(v.value), v.span)))
    aff = spec.get("affinity")
    na = aff.get("nodeAffinity") if isinstance(aff, YMap) else None
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(na, YMap) else None
    terms = req.get("nodeSelectorTerms") if isinstance(req, YMap) else None
    for term in terms.items if isinstance(terms, YSeq) else []:
        exprs = term.get("matchExpressions") if isinstance(term, YMap) else None
        for e in exprs.items if isinstance(exprs, YSeq) else []:
            if not isinstance(e, YMap) or not isinstance(e.get("key"), YScalar):
                continue
            key, op, values = e.get("key").value, e.get("operator"), e.get("values")
            if key in labels and isinstance(op, YScalar) and op.value == "In" and isinstance(values, YSeq):
                out += [(key, Located(str(v.value), v.span)) for v in values.items
                        if isinstance(v, YScalar) and v.value is not None]
    return out


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def product_accelerator(kb, value: str) -> dict | None:
    """The knowledge base's accelerator a GPU product label value names (``NVIDIA-H100-80GB-HBM3``,
    ``nvidia-h100-80gb``, ``NVIDIA-RTX-PRO-6000D``): the one whose name or alias, without
    punctuation, is the longest found in the value; None when none is."""
    text = _norm(value)
    best, size = None, 0
    for name in kb.accelerator_names():
        entry = kb.accelerator(name)
        for alias in [name, *(entry.get("aliases") or [])]:
            a = _norm(alias)
            if a and a in text and len(a) > size:
                best, size = entry, len(a)
    return best


@rule("K8S002", "gpu-product-mismatch", "error",
      "The node selector or affinity pins the pods to another GPU product than the declared accelerator or the image's vendor.",
      "A workload pinned to nodes by their GPU product label (nvidia.com/gpu.product from GPU "
      "feature discovery, cloud.google.com/gke-accelerator on GKE) runs on that product. When it "
      "is not the submission's system/accelerator, the benchmark ran on other hardware than the "
      "one published; when the image is built for another vendor (a ROCm image on NVIDIA nodes, "
      "a CUDA image on AMD), the engine cannot start; a GPU resource of another vendor "
      "(amd.com/gpu on an NVIDIA system) is never scheduled.",
      ("https://github.com/NVIDIA/k8s-device-plugin (GPU feature discovery labels: nvidia.com/gpu.product)",
       "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus (node label cloud.google.com/gke-accelerator)",
       "rules/accelerators.yaml (names, aliases, vendor)", "src/cfglint/checks/image.py (image vendor markers)"))
def check_gpu_product(ctx: Context):
    name, acc, decl = ctx.accelerator() if ctx.sub.has_manifest else (None, None, None)
    seen: set[int] = set()
    for p, c in _engines_in_pods(ctx):
        if id(c.group.spec) in seen:
            continue
        seen.add(id(c.group.spec))
        image_vendor = next((v for pattern, v in MARKERS if c.image and pattern.search(str(c.image.value))), None)
        for res, (lim, req) in c.gpus.items():
            loc = lim or req
            entry = ctx.kb.device_resources.get(res) or {}
            vendor = entry.get("vendor")
            if acc and decl and vendor and acc.get("vendor") and vendor != acc.get("vendor") and loc:
                want = next((r for r, e in ctx.kb.device_resources.items() if e.get("vendor") == acc.get("vendor")), None)
                yield Finding("K8S002", f"the container asks for {res} ({vendor} {entry.get('unit') or 'GPU'}s) but the "
                                        f"system is {name} ({acc.get('vendor')}, {here(decl.span)})"
                                        + (f": use {want}" if want else ""),
                              loc.span, related=[(decl.span, f"accelerator: {name}")])
        labels = PRODUCT_LABELS + tuple(e["node_label"] for e in ctx.kb.device_resources.values() if e.get("node_label"))
        for label, value in _product_values(c.group.spec, labels):
            found = product_accelerator(ctx.kb, value.value)
            if found is None:
                ctx.not_checked("GPU product of the node selector (K8S002)",
                                f"{label}: {value.value} names no accelerator in the knowledge base", value.span)
                continue
            if acc is not None and decl is not None and found["name"] != acc["name"]:
                yield Finding("K8S002", f"{label}: {value.value} pins the pods to {found['name']} nodes but the "
                                        f"submission declares {name} ({here(decl.span)})",
                              value.span, related=[(decl.span, f"accelerator: {name}")])
            elif image_vendor and found.get("vendor") and image_vendor != found.get("vendor") and c.image:
                yield Finding("K8S002", f"{label}: {value.value} pins the pods to {found['name']} "
                                        f"({found.get('vendor')}) nodes but image {c.image.value} is built for "
                                        f"{image_vendor} accelerators ({here(c.image.span)})",
                              value.span, related=[(c.image.span, f"image built for {image_vendor}")])


def _shm(c: Container) -> tuple[bool, Located | None, Span | None]:
    """(shared memory is large or the host's, a too small size limit, where /dev/shm is mounted)."""
    spec = c.group.spec
    if c.group.operator == "dynamo":
        # the Dynamo operator mounts a tmpfs at /dev/shm itself (8Gi by default, spec sharedMemory):
        # ai-dynamo/dynamo deploy/operator/api/v1alpha1/dynamocomponentdeployment_types.go (SharedMemory)
        return True, None, None
    if c.group.operator == "kserve" and c.node.get("command") is None and c.name == "main":
        # the preset KServe merges into the main container mounts a memory emptyDir at /dev/shm
        # (kserve/kserve config/llmisvcconfig/config-llm-template.yaml @ aaac4e294dae: volume dshm,
        # medium Memory, sizeLimit 1Gi)
        return True, None, None
    if c.group.kind == "RayClusterFleet" and c.node.get("volumeMounts") is None:
        # KubeRay mounts a memory emptyDir at /dev/shm in the Ray container of every head and worker
        # pod (ray-project/kuberay ray-operator/controllers/ray/common/pod.go, addEmptyDir with
        # SharedMemoryVolumeName "shared-mem" at SharedMemoryVolumeMountPath "/dev/shm")
        return True, None, None
    ipc = spec.get("hostIPC")
    if isinstance(ipc, YScalar) and ipc.value is True:
        return True, None, None
    mounts = c.node.get("volumeMounts")
    vols = spec.get("volumes")
    for m in mounts.items if isinstance(mounts, YSeq) else []:
        if not isinstance(m, YMap) or not isinstance(m.get("mountPath"), YScalar):
            continue
        if str(m.get("mountPath").value).rstrip("/") != "/dev/shm":
            continue
        vname = m.get("name").value if isinstance(m.get("name"), YScalar) else None
        for v in vols.items if isinstance(vols, YSeq) else []:
            if not isinstance(v, YMap) or not isinstance(v.get("name"), YScalar) or v.get("name").value != vname:
                continue
            ed = v.get("emptyDir")
            if isinstance(v.get("hostPath"), YMap):
                return True, None, m.span
            if isinstance(ed, YMap):
                medium = ed.get("medium")
                if not (isinstance(medium, YScalar) and medium.value == "Memory"):
                    return True, None, m.span  # node disk: as large as the node's ephemeral storage
                limit = ed.get("sizeLimit")
                # read as the API server reads it (15g is no quantity: K8S004's, not 15 bytes)
                q = parse_quantity(limit.value) if isinstance(limit, YScalar) else None
                size = int(q) if q is not None and q >= 0 else None
                if isinstance(limit, YScalar) and size is not None and size < MIN_SHM_BYTES:
                    return False, Located(str(limit.value), limit.span), m.span
                return True, None, m.span
        return True, None, m.span  # another volume type (a PVC): not judged
    return False, None, None


@rule("K8S003", "deployment-hygiene", "warning",
      "A multi-GPU engine pod or docker / podman container without a large /dev/shm or the host's IPC, "
      "or a multi-node engine without the leader address wiring.",
      "Containers get a 64 MiB /dev/shm by default; NCCL and the engines' multi-process "
      "communication put their buffers there and fail or hang with more than one GPU unless the pod "
      "mounts an emptyDir with medium: Memory at /dev/shm (or uses hostIPC), or the `docker run` / "
      "`podman run` has --ipc=host or --shm-size of at least 1g (or binds a host /dev/shm with -v); a "
      "--shm-size docker cannot read (`32x`, `-1g`, beyond an int64 of bytes) makes it refuse to start the "
      "container. "
      "In a LeaderWorkerSet "
      "group every pod must reach the same rendezvous: the leader's address "
      "($(LWS_LEADER_ADDRESS) in --dist-init-addr) and a node rank from the pod's index "
      "($(LWS_WORKER_INDEX) in --node-rank); a fixed address or a missing rank makes the nodes of "
      "one instance never meet, or the instances of different groups join each other. Host paths a "
      "hostPath volume mounts are checked by RED001.",
      ("https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html (shared memory: "
       "Docker's 64 MiB default is too small; --shm-size=1g or --ipc=host)",
       "https://kubernetes.io/docs/concepts/storage/volumes/#emptydir (medium: Memory, sizeLimit)",
       "https://docs.vllm.ai/en/stable/deployment/docker.html ('You can either use the ipc=host flag or --shm-size "
       "flag to allow the container to access the host's shared memory. vLLM uses PyTorch, which uses shared "
       "memory to share data between processes under the hood, particularly for tensor parallel inference.')",
       "https://docs.sglang.ai/get_started/install.html (docker run --gpus all --shm-size 32g ... lmsysorg/sglang)",
       "https://docs.docker.com/reference/cli/docker/container/run/ (--ipc, --shm-size: 64m when not given)",
       "docker/go-units size.go @ 2bd057e7d15e (RAMInBytes, parseSize: the --shm-size values docker reads)",
       "https://lws.sigs.k8s.io/docs/ (LWS_LEADER_ADDRESS, LWS_WORKER_INDEX, LWS_GROUP_SIZE)",
       "sgl-project/sglang python/sglang/srt/server_args.py (--dist-init-addr, --nnodes, --node-rank)",
       "vllm-project/vllm vllm/engine/arg_utils.py (--nnodes, --node-rank, --master-addr) @ v0.33.0"))
def check_pod_hygiene(ctx: Context):
    yield from container_shm(ctx)
    seen: set[int] = set()
    for p, c in _engines_in_pods(ctx):
        got = gpus_per_instance(p)
        count = c.gpu_count()
        per_pod = device_count(count[1].value) if count else None
        pods = c.group.pods_per_instance()
        gpus = per_pod if per_pod is not None else (got[0] // pods if got else None)
        nccl = count is None or bool((ctx.kb.device_resources.get(count[0]) or {}).get("nccl_shm"))
        if nccl and gpus is not None and gpus > 1 and id(c.node) not in seen:
            seen.add(id(c.node))
            ok, small, at = _shm(c)
            cname = c.node.get("name")
            span = cname.span if isinstance(cname, YScalar) else c.node.span
            if small is not None:
                yield Finding("K8S003", f"/dev/shm of container {c.name or '?'} is limited to {small.value}: an engine "
                                        f"on {gpus} GPUs needs more shared memory for NCCL (at least 1Gi); raise sizeLimit",
                              small.span)
            elif not ok:
                yield Finding("K8S003", f"container {c.name or '?'} runs an engine on {gpus} GPUs with the default "
                                        "64 MiB /dev/shm: mount an emptyDir with medium: Memory at /dev/shm (or set "
                                        "hostIPC: true)", span)
        if pods <= 1 or p.engine not in RENDEZVOUS:
            continue
        addr_key, addr_flag = RENDEZVOUS[p.engine]
        s = p.settings
        nn = parse_int(s["nnodes"].value) if "nnodes" in s else None
        if nn is None or nn <= 1:
            # vLLM may span the group's pods over Ray instead (no --nnodes); SGLang cannot
            if p.engine == "sglang" and "nnodes" not in p.unknown and got is not None:
                yield Finding("K8S003", f"{c.group.kind} {c.group.name} runs {pods} pods per group but the engine is "
                                        f"started without --nnodes {pods}: each pod would start an instance of its own; "
                                        f"add --nnodes $(LWS_GROUP_SIZE) --node-rank $(LWS_WORKER_INDEX) "
                                        f"--dist-init-addr $(LWS_LEADER_ADDRESS):<port>", p.span)
            continue
        addr = s.get(addr_key)
        if addr is None and addr_key not in p.unknown:
            yield Finding("K8S003", f"multi-node engine (--nnodes {nn}) in {c.group.kind} {c.group.name} without "
                                    f"{addr_flag}: add {addr_flag} $(LWS_LEADER_ADDRESS) so every pod "
                                    "of the group meets at its leader", s["nnodes"].span)
        elif addr is not None and "<leader-address>" not in str(addr.value):
            yield Finding("K8S003", f"{addr_flag} {addr.value} is a fixed address: every group of "
                                    f"{c.group.kind} {c.group.name} would meet there; use $(LWS_LEADER_ADDRESS)",
                          addr.span)
        if "node_rank" not in s and "node_rank" not in p.unknown:
            yield Finding("K8S003", f"multi-node engine (--nnodes {nn}) in {c.group.kind} {c.group.name} without "
                                    "--node-rank: add --node-rank $(LWS_WORKER_INDEX)", s["nnodes"].span)
