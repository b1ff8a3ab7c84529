"""K8S004: Kubernetes workload objects against their API schemas (cfglint.schema.k8sschema)."""

from __future__ import annotations

from ..read.yamlsrc import YMap, YScalar
from .base import Context, rule


def _is_object(root) -> bool:
    """A YAML document that names an apiVersion or a kind: a Kubernetes object (an engine
    config never has either key)."""
    return isinstance(root, YMap) and any(isinstance(root.get(k), YScalar) for k in ("apiVersion", "kind"))


@rule(
    "K8S004", "invalid-workload", "error",
    "A Kubernetes workload object violates its API schema (unknown field, wrong type, missing required field).",
    "A manifest the API server refuses deploys nothing: `kubectl apply` (field validation Strict, its "
    "default since Kubernetes 1.27) stops at an unknown field such as `replica` for `replicas` or "
    "`volumeMount` for `volumeMounts`, a number where a string is required (an env `value: 1`, which "
    "must be quoted), a string where an integer is required (`containerPort: \"30000\"`), or a "
    "missing required field (a container's or volume's `name`). cfglint checks each object offline "
    "against the schema of its kind and reports every error at its key or value: Deployment, "
    "StatefulSet (apps/v1), Job (batch/v1) and Pod (v1) from the Kubernetes API (v1.37), and the "
    "serving CRDs LeaderWorkerSet (leaderworkerset.x-k8s.io/v1), DisaggregatedSet "
    "(disaggregatedset.x-k8s.io/v1), RoleBasedGroup (workloads.x-k8s.io v1alpha1, v1alpha2), "
    "DynamoGraphDeployment (nvidia.com/v1alpha1; its spec and service level accept fields newer "
    "than the CRD read), ModelServing (workload.serving.volcano.sh/v1alpha1), StormService and "
    "RayClusterFleet (orchestration.aibrix.ai/v1alpha1), LLMInferenceService and "
    "LLMInferenceServiceConfig (serving.kserve.io v1alpha1, v1alpha2), ServingRuntime and "
    "ClusterServingRuntime (serving.kserve.io/v1alpha1) and VLLMRuntime "
    "(production-stack.vllm.ai/v1alpha1); their pod templates are checked as Kubernetes pod "
    "templates. Workload API versions Kubernetes removed (apps/v1beta2 Deployment) are reported "
    "with the version to use. An object of another kind or version that runs containers "
    "(nvidia.com/v1beta1 DynamoGraphDeployment, KServe's v1beta1 InferenceService among them: no "
    "published schema of it was read) is reported as not checked (COV001), and so is a deploy-time placeholder (`${REPLICAS}`, "
    "`{{ .Values.port }}`, `<port>`) where the schema wants a number; an object that runs no "
    "container (a Service, ConfigMap, PersistentVolume, PodMonitor) is not a serving object: it is "
    "neither validated nor a note. Beyond the schema, a container's resource values are checked as the API "
    "server checks them: each must be a quantity (`1`, `500m`, `64Gi`, `1e9`), none negative, and an extended "
    "resource such as `nvidia.com/gpu` a whole number (`4.5` and `1500m` are refused); an integer field "
    "keeps the range of its int32 / int64 format (`replicas: 10000000000` is refused) and a LeaderWorkerSet's "
    "`size` is at least 1 (its webhook). Other value rules the schema does not state (CEL rules, name formats) "
    "are not checked.",
    ("kubernetes/kubernetes api/openapi-spec/swagger.json at v1.37.0 (via kubernetes-validate 1.37.0's JSON Schema "
     "conversion); schemas/k8s/core.json",
     "kubernetes-sigs/lws config/crd/bases (LeaderWorkerSet, DisaggregatedSet) at 060ab4da17ee",
     "sgl-project/rbg config/crd/bases/workloads.x-k8s.io_rolebasedgroups.yaml at 993491fba9bf",
     "ai-dynamo/dynamo deploy/cloud/operator/config/crd/bases/nvidia.com_dynamographdeployments.yaml at 8054f7080435",
     "volcano-sh/kthena charts/kthena/charts/workload/crds/workload.serving.volcano.sh_modelservings.yaml at 3cc057284c34",
     "vllm-project/aibrix config/crd/orchestration/orchestration.aibrix.ai_stormservices.yaml at e3e10f9e4aeb",
     "vllm-project/aibrix config/crd/orchestration/orchestration.aibrix.ai_rayclusterfleets.yaml at e3e10f9e4aeb",
     "kserve/kserve config/crd/full/llmisvc/serving.kserve.io_llminferenceservices.yaml at aaac4e294dae",
     "kserve/kserve config/crd/full/llmisvc/serving.kserve.io_llminferenceserviceconfigs.yaml at aaac4e294dae",
     "kserve/kserve config/crd/full/serving.kserve.io_servingruntimes.yaml and "
     "serving.kserve.io_clusterservingruntimes.yaml at aaac4e294dae",
     "vllm-project/production-stack operator/config/crd/bases/production-stack.vllm.ai_vllmruntimes.yaml at a6c01db05f65",
     "kubernetes.io/docs/reference/using-api/deprecation-guide/ (workload APIs removed in v1.16)",
     "kubernetes.io/docs/reference/using-api/api-concepts/#field-validation (Strict: unknown fields are errors)",
     "kubernetes/apimachinery pkg/api/resource/quantity.go and suffix.go @ eed236ceee2c (the quantity syntax)",
     "kubernetes/kubernetes pkg/apis/core/validation/validation.go @ 000f26050b9b (validateResourceRequirements, "
     "ValidateResourceQuantityValue: 'must be an integer' for an extended resource, 'must be greater than or equal to 0')",
     "kubernetes/kube-openapi pkg/validation/validate/validator.go @ d427ff9ee9ad (numberValidator: int32 / int64 "
     "format ranges)",
     "kubernetes-sigs/lws pkg/webhooks/leaderworkerset_webhook.go @ 060ab4da17ee ('size must be equal or greater than 1')"),
)
def invalid_workload(ctx: Context):
    """Every Kubernetes object among the unit's YAML configurations (listed in files.configs, or
    written by a launch script's heredoc) and its manifests' documents. A file the load stage already validated (it holds
    K8S004 findings, as SUB001 is produced for the manifest) is not validated again."""
    done = {f.span.path for f in ctx.sub.findings if f.rule_id == "K8S004"}
    objects = [(cfg.display, cfg.root) for cfg in ctx.sub.configs]   # a heredoc a script writes counts too
    # the documents of Kubernetes manifests, where the load stage keeps them apart from engine
    # configs ((display, root) pairs; absent where it does not)
    objects += list(getattr(ctx.sub, "k8s_objects", None) or [])
    for display, root in objects:
        if not _is_object(root) or display in done:
            continue
        from ..schema.k8sschema import validate_object   # only with an object to check: its import is ~3 ms

        result = validate_object(root, display)
        for nc in ([result.not_checked] if result.not_checked is not None else []) + result.partial:
            ctx.not_checked(nc.check, nc.why, nc.span)
        yield from result
