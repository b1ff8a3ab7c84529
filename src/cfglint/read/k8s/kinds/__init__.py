"""The workload kinds: an object's pod templates (:class:`~cfglint.read.k8s.model.PodGroup`),
one module per operator family, dispatched by ``kind`` from :data:`READERS`.

- Deployment, StatefulSet, ReplicaSet, Job, Pod (:mod:`.core`, Kubernetes apps/v1, batch/v1, v1);
- LeaderWorkerSet, DisaggregatedSet (:mod:`.lws`, kubernetes-sigs/lws);
- DynamoGraphDeployment (:mod:`.dynamo`, NVIDIA Dynamo nvidia.com v1alpha1 / v1beta1; the
  multi-node flags its operator adds are :data:`OPERATOR_FLAGS`);
- RoleBasedGroup (:mod:`.rbg`, sgl-project/rbg workloads.x-k8s.io v1alpha1 / v1alpha2);
- ModelServing (:mod:`.kthena`, kthena workload.serving.volcano.sh/v1alpha1);
- StormService, RayClusterFleet (:mod:`.aibrix`, AIBrix orchestration.aibrix.ai/v1alpha1);
- LLMInferenceService, LLMInferenceServiceConfig, ServingRuntime, ClusterServingRuntime
  (:mod:`.kserve`, KServe serving.kserve.io; an LLMInferenceService container without a command
  runs its preset's vLLM launch: :data:`PRESETS`).

A new kind is a module here (a reader with the signature of :data:`KindReader`) and an entry
of :data:`READERS`. Kinds that are recognised but not modelled (other serving operators'
custom resources, kustomize overlays) are listed in :data:`NOT_MODELLED`; COV001 reports them
as not checked.
"""

from __future__ import annotations

from typing import Callable

from ....model import Span
from ...shell import Command
from ...yamlsrc import YMap
from ..model import PodGroup
from ..nodes import map_at, scalar_value
from . import aibrix, core, dynamo, kserve, kthena, lws, rbg

# (kind, metadata.name, span of kind, object, spec, notes) -> the pod templates, or None when
# the object is not modelled after all (a Dynamo apiVersion not read); parts of it that are
# not modelled are appended to notes (what, span)
KindReader = Callable[[str, str, Span, YMap, YMap, list[tuple[str, Span]] | None], list[PodGroup] | None]

READERS: dict[str, KindReader] = {
    "Deployment": core.replicated,
    "StatefulSet": core.replicated,
    "ReplicaSet": core.replicated,
    "Job": core.job,
    "Pod": core.pod,
    "LeaderWorkerSet": lws.leader_worker_set,
    "DisaggregatedSet": lws.disaggregated_set,
    "DynamoGraphDeployment": dynamo.graph_deployment,
    "RoleBasedGroup": rbg.role_based_group,
    "ModelServing": kthena.model_serving,
    "StormService": aibrix.storm_service,
    "RayClusterFleet": aibrix.ray_cluster_fleet,
    "LLMInferenceService": kserve.llm_inference_service,
    "LLMInferenceServiceConfig": kserve.llm_inference_service,
    "ServingRuntime": kserve.serving_runtime,
    "ClusterServingRuntime": kserve.serving_runtime,
}
MODELLED = tuple(READERS)
# PodGroup.operator -> what the operator adds to the command of a container it runs
OPERATOR_FLAGS: dict[str, Callable[[Command, PodGroup], None]] = {"dynamo": dynamo.multinode_flags}
# PodGroup.operator -> the launch the operator runs in a container that sets no command
# (container, file lines, display path, the container's args as a command or None)
PRESETS = {"kserve": kserve.preset_command}
# kinds recognised but not modelled: what they are, for the COV001 note
NOT_MODELLED = {
    "DynamoGraphDeployment": "NVIDIA Dynamo DynamoGraphDeployment (an apiVersion other than nvidia.com/v1alpha1, v1beta1)",
    "VLLMRuntime": "vLLM production-stack VLLMRuntime",
    "InferenceService": "KServe InferenceService",
    "Kustomization": "kustomize overlay (its patches change objects defined elsewhere)",
    "CronJob": "CronJob",
    "DaemonSet": "DaemonSet",
}


def templates(obj: YMap, notes: list[tuple[str, Span]] | None = None) -> list[PodGroup] | None:
    """The pod templates of a workload object, or None when its kind is not modelled; parts
    of it that are not modelled are appended to ``notes`` (what, span)."""
    kind = scalar_value(obj.get("kind"))
    name = scalar_value(map_at(obj, "metadata").get("name")) if map_at(obj, "metadata") else None
    name = name if isinstance(name, str) else ""
    kspan = obj.get("kind").span  # type: ignore[union-attr]
    if kind not in READERS:
        return None
    spec = map_at(obj, "spec")
    if spec is None:
        return []
    return READERS[kind](kind, name, kspan, obj, spec, notes)
