"""NVIDIA Dynamo's DynamoGraphDeployment (nvidia.com v1alpha1 ``spec.services``, v1beta1
``spec.components``): each worker's main container, ``replicas`` instances of
``multinode.nodeCount`` pods, with the multi-node flags the operator adds to SGLang workers
(:func:`multinode_flags`)."""

from __future__ import annotations

from ....model import Located, Span, parse_int
from ...shell import Command, Word
from ...yamlsrc import YMap, YSeq
from ..command import is_script
from ..model import PodGroup
from ..nodes import located, map_at, scalar_value
from .roles import role_in_name


def graph_deployment(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                     notes: list[tuple[str, Span]] | None) -> list[PodGroup] | None:
    """A Dynamo DynamoGraphDeployment: v1alpha1 ``spec.services`` (name -> componentType,
    subComponentType, replicas, resources.limits.gpu, multinode.nodeCount,
    extraPodSpec.mainContainer) or v1beta1 ``spec.components`` (name, type, replicas,
    multinode.nodeCount, podTemplate). A v1alpha1 graph's ``spec.envs`` and a service's ``envs``
    are the environment of the service's containers, before their own ``env`` (``PodGroup.env``).
    Sources: ai-dynamo/dynamo deploy/operator/api/v1alpha1/dynamocomponentdeployment_types.go,
    deploy/cloud/operator/api/v1alpha1/dynamographdeployment_types.go @
    039eb630ece354bf2208c1cb1c7140f4f1b041f5 (DynamoGraphDeploymentSpec.Envs) and
    deploy/operator/api/v1beta1/dynamographdeployment_types.go; the shapes of
    examples/backends/sglang/deploy/disagg-multinode.yaml and v1beta1/disagg-multinode.yaml."""
    version = str(scalar_value(obj.get("apiVersion")))
    out: list[PodGroup] = []
    if version.endswith("/v1alpha1"):
        services = spec.get("services")
        # "Envs are environment variables applied to all services in the graph unless overridden by
        # service-specific configuration" (v1alpha1 dynamographdeployment_types.go, DynamoGraphDeploymentSpec.Envs);
        # a service's own envs (DynamoComponentDeploymentSharedSpec.Envs) come after them
        shared = _env_items(spec.get("envs"))
        for key, svc in services.items if isinstance(services, YMap) else []:
            if not isinstance(svc, YMap):
                continue
            pod = map_at(svc, "extraPodSpec")
            main = map_at(pod, "mainContainer") if pod else None
            if main is None:
                continue
            gpu = map_at(svc, "resources", "limits")
            role = role_in_name(located(svc.get("subComponentType")), located(svc.get("componentType")),
                               Located(key.value, key.span) if isinstance(key.value, str) else None)
            out.append(PodGroup("DynamoGraphDeployment", str(key.value), kspan, pod, located(svc.get("replicas")),
                                located(map_at(svc, "multinode").get("nodeCount")) if map_at(svc, "multinode") else None,
                                "all", role, containers=[main],
                                gpu_limit=located(gpu.get("gpu")) if gpu else None, gpu_key="gpu", operator="dynamo",
                                env=shared + _env_items(svc.get("envs")) or None))
        return out
    if version.endswith("/v1beta1"):
        comps = spec.get("components")
        for comp in comps.items if isinstance(comps, YSeq) else []:
            pod = map_at(comp, "podTemplate", "spec") if isinstance(comp, YMap) else None
            if pod is None:
                continue
            assert isinstance(comp, YMap)
            cname = located(comp.get("name"))
            role = role_in_name(located(comp.get("type")), cname)
            out.append(PodGroup("DynamoGraphDeployment", str(cname.value) if cname else "", kspan, pod,
                                located(comp.get("replicas")),
                                located(map_at(comp, "multinode").get("nodeCount")) if map_at(comp, "multinode") else None,
                                "all", role, operator="dynamo"))
        return out
    return None


def _env_items(node) -> list[YMap]:
    """The name / value items of an ``envs`` list (others are left out)."""
    return [item for item in node.items if isinstance(item, YMap)] if isinstance(node, YSeq) else []


def multinode_flags(cmd: Command, g: PodGroup) -> None:
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
    script = next((i for i in range(len(texts)) if is_script(texts, i)), None)
    extra = ["--dist-init-addr", "<leader-address>:<sglang-port>", "--nnodes", str(n), "--node-rank", rank]
    if script is not None:  # bash -c "... python3 -m dynamo.sglang ...": appended to the script
        w = cmd.words[script]
        add = " " + " ".join(extra)
        where = (w.where or []) + [(at.line, at.col)] * len(add) if w.where is not None else None
        cmd.words[script] = Word(w.text + add, w.raw + add, w.span, w.static, where)
        return
    cmd.words += [Word(t, t, at) for t in extra]
