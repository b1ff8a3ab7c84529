"""Kubernetes manifests: multi-document YAML, workloads as engine launches (positions inside YAML
scalars, $(VAR) expansion, bash -c scripts), K8S001-K8S003. Every case is one of the catalog's
deployments (examples/submissions/catalog/) changed in one place, with its unchanged control."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfglint.lint import lint_paths

from support import copy_submission, lint, only, position, replace_once

SINGLE = "catalog/deepseek-v4-flash/rtx6000d-sglang-tp4-marlin"
LWS = "catalog/deepseek-v4-flash/rtx6000d-sglang-lws-tp8-pp2"
PD = "catalog/glm-5.2/rtx6000d-sglang-pd-tp8-pp2-ep8-hicache"


def _replace_first(path: Path, old: str, new: str) -> tuple[int, int]:
    """Replace the first occurrence of ``old``; (line, col) of the replacement."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    at = position(text, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return at


# -- the examples themselves ---------------------------------------------------------------
def test_catalog_examples_have_no_k8s_or_topology_findings(tmp_path):
    for rel in (SINGLE, LWS, PD):
        found = lint(copy_submission(rel, tmp_path))
        assert [f for f in found if f[0].startswith(("K8S", "TOP", "IO", "SUB", "FLG", "HW"))] == [], (rel, found)


# -- multi-document YAML -------------------------------------------------------------------
def test_helm_template_output_with_several_documents_is_read_with_exact_positions(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    manifest = sub / "deployment.yaml"
    helm = ("---\n# Source: deepseek/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n"
            "  name: deepseek\nspec:\n  ports:\n    - port: 30000\n---\n# Source: deepseek/templates/deployment.yaml\n")
    manifest.write_text(helm + manifest.read_text(encoding="utf-8"), encoding="utf-8")
    assert lint(sub) == []  # no IO001 "expected one YAML document"
    line, col = _replace_first(manifest, "- marlin", "- flashinfer_cutlass")
    hw = only(lint(sub), "HW001")
    assert [(f[1], f[2], f[3]) for f in hw] == [("deployment.yaml", line, col + 2)]
    assert "flashinfer_cutlass" in hw[0][4]


def test_an_engine_config_with_several_documents_is_still_io001(tmp_path):
    sub = copy_submission("recipes/vllm-gpt-oss-120b-b200-tp1-config", tmp_path)
    config = next(p for p in sub.iterdir() if p.suffix in (".yaml", ".yml") and p.name != "submission.yaml")
    text = config.read_text(encoding="utf-8")
    config.write_text(text + ("" if text.endswith("\n") else "\n") + "---\nmax-num-seqs: 8\n", encoding="utf-8")
    io = only(lint(sub), "IO001")
    assert io and "expected one YAML document, found 2" in io[0][4]


def test_a_manifest_outside_any_submission_is_linted_on_its_own(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    (sub / "submission.yaml").unlink()
    line, col = _replace_first(sub / "deployment.yaml", "- --moe-runner-backend", "- --moe-runner-backnd")
    found = lint(sub)
    assert any(f[0] == "SUB004" and f[1] == "deployment.yaml" for f in found)
    flg = only(found, "FLG001")
    assert [(f[1], f[2], f[3]) for f in flg] == [("deployment.yaml", line, col + 2)]


# -- containers as launches ----------------------------------------------------------------
def test_a_flag_inside_a_bash_c_block_scalar_is_placed_at_its_column(tmp_path):
    sub = copy_submission(PD, tmp_path)
    line, col = _replace_first(sub / "disaggregatedset.yaml", "--hicache-size 100", "--hicache-sise 100")
    flg = only(lint(sub), "FLG001")
    assert [(f[1], f[2], f[3]) for f in flg] == [("disaggregatedset.yaml", line, col)]
    assert "--hicache-sise" in flg[0][4]


def test_k8s_variable_expansion_carries_the_group_size_into_nnodes(tmp_path):
    # $(LWS_GROUP_SIZE) is the LWS size: 3 pods x 8 GPUs for an engine of TP 8 x PP 2
    sub = copy_submission(LWS, tmp_path)
    line = replace_once(sub / "lws.yaml", "    size: 2\n", "    size: 3\n")
    k = only(lint(sub), "K8S001")
    assert len(k) == 2 and {f[1] for f in k} == {"lws.yaml"}
    assert all(f[4].startswith("nvidia.com/gpu: 8 x 3 pods per group (LeaderWorkerSet size, ")
               and f[4].split(" gives")[0].endswith(f"lws.yaml:{line})") for f in k)
    assert all("TP 8 x PP 2 = 16" in f[4] for f in k)


def test_lws_replicas_are_instances(tmp_path):
    sub = copy_submission(LWS, tmp_path)
    replace_once(sub / "lws.yaml", "  replicas: 1\n", "  replicas: 2\n")
    top = only(lint(sub), "TOP001")
    assert len(top) == 1 and top[0][1] == "submission.yaml" and "starts 2 server instance(s)" in top[0][4]


def test_disaggregatedset_role_replicas_are_the_xpyd_shape(tmp_path):
    sub = copy_submission(PD, tmp_path)
    line = replace_once(sub / "disaggregatedset.yaml", "        replicas: 2\n", "        replicas: 3\n")
    top = only(lint(sub), "TOP001")
    assert len(top) == 1 and "3 prefill instance(s)" in top[0][4] and "instances: 2" in top[0][4]
    full = [f for f in lint_paths([str(sub)]).findings if f.rule_id == "TOP001"]
    # the manifest's count is where it is reported: the related location is the other side, the replicas
    assert [(s.line, s.col, text) for s, text in full[0].related] == [(line, 19, "replicas: 3")]
    assert f"(replicas: 3 at {full[0].related[0][0].path}:{line})" in top[0][4]


# -- K8S001 --------------------------------------------------------------------------------
def test_k8s001_gpu_limit_below_tp(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    text = (sub / "deployment.yaml").read_text(encoding="utf-8")
    line, col = position(text, "nvidia.com/gpu: 4")
    replace_once(sub / "deployment.yaml", "nvidia.com/gpu: 4", "nvidia.com/gpu: 2")
    k = only(lint(sub), "K8S001")
    assert [(f[1], f[2], f[3]) for f in k] == [("deployment.yaml", line, col + len("nvidia.com/gpu: "))]
    assert "gives the engine 2 GPUs but it runs TP 4; set nvidia.com/gpu: 4" in k[0][4]


def test_k8s001_request_differs_from_limit(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    replace_once(sub / "deployment.yaml", "            limits:\n              nvidia.com/gpu: 4\n",
                 "            limits:\n              nvidia.com/gpu: 4\n            requests:\n              nvidia.com/gpu: 2\n")
    k = only(lint(sub), "K8S001")
    assert len(k) == 1 and "request 2 differs from its limit 4" in k[0][4]


# -- K8S002 --------------------------------------------------------------------------------
def test_k8s002_node_selector_on_another_gpu_product(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    line, col = _replace_first(sub / "deployment.yaml", "NVIDIA-RTX-PRO-6000D", "NVIDIA-H100-80GB-HBM3")
    k = only(lint(sub), "K8S002")
    assert [(f[1], f[2], f[3]) for f in k] == [("deployment.yaml", line, col)]
    assert "pins the pods to H100 nodes but the submission declares RTX-6000D" in k[0][4]


def test_k8s002_node_affinity_on_another_gpu_product(tmp_path):
    sub = copy_submission(PD, tmp_path)
    line, col = _replace_first(sub / "disaggregatedset.yaml", "[NVIDIA-RTX-PRO-6000D]", "[NVIDIA-B200]")
    k = only(lint(sub), "K8S002")
    assert (k[0][1], k[0][2], k[0][3]) == ("disaggregatedset.yaml", line, col + 1)
    assert "B200" in k[0][4]


def test_k8s002_amd_resource_on_an_nvidia_system(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    replace_once(sub / "deployment.yaml", "nvidia.com/gpu: 4", "amd.com/gpu: 4")
    k = only(lint(sub), "K8S002")
    assert len(k) == 1 and "amd.com/gpu (AMD GPUs) but the system is RTX-6000D" in k[0][4]


# -- K8S003 --------------------------------------------------------------------------------
def test_k8s003_multi_gpu_pod_without_shared_memory(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    replace_once(sub / "deployment.yaml", "            - name: shm\n              mountPath: /dev/shm\n", "")
    text = (sub / "deployment.yaml").read_text(encoding="utf-8")
    k = only(lint(sub), "K8S003")
    assert [(f[1], f[2], f[3]) for f in k] == [("deployment.yaml", *position(text, "sglang\n"))]
    assert "default 64 MiB /dev/shm" in k[0][4]


def test_k8s003_host_ipc_is_enough(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    replace_once(sub / "deployment.yaml", "            - name: shm\n              mountPath: /dev/shm\n", "")
    replace_once(sub / "deployment.yaml", "    spec:\n      nodeSelector:\n", "    spec:\n      hostIPC: true\n      nodeSelector:\n")
    assert only(lint(sub), "K8S003") == []


def test_k8s003_fixed_rendezvous_address_in_a_group(tmp_path):
    sub = copy_submission(LWS, tmp_path)
    line, col = _replace_first(sub / "lws.yaml", "$(LWS_LEADER_ADDRESS):20000", "leader-0.svc:20000")
    k = only(lint(sub), "K8S003")
    assert [(f[1], f[2], f[3]) for f in k] == [("lws.yaml", line, col)]
    assert "fixed address" in k[0][4]


def test_k8s003_group_without_nnodes(tmp_path):
    sub = copy_submission(LWS, tmp_path)
    for _ in range(2):
        _replace_first(sub / "lws.yaml", "              - --nnodes\n              - $(LWS_GROUP_SIZE)\n", "")
    k = only(lint(sub), "K8S003")
    assert k and all("without --nnodes 2" in f[4] for f in k)


# -- RED001 and platform paths -------------------------------------------------------------
def test_gke_driver_host_path_is_standard_but_a_home_directory_is_not(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    replace_once(sub / "deployment.yaml", "path: /root/.cache ", "path: /home/kubernetes/bin/nvidia ")
    assert only(lint(sub), "RED001") == []
    replace_once(sub / "deployment.yaml", "path: /home/kubernetes/bin/nvidia ", "path: /home/alice/.cache ")
    red = only(lint(sub), "RED001")
    assert len(red) == 1 and "/home/alice/.cache" in red[0][4]


# -- kinds not modelled --------------------------------------------------------------------
def test_a_recognised_kind_that_is_not_modelled_is_a_partial_note(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    manifest = sub / "deployment.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "---\napiVersion: serving.kserve.io/v1beta1\n"
                        "kind: InferenceService\nmetadata:\n  name: x\nspec: {}\n", encoding="utf-8")
    cov = only(lint(sub, coverage=True), "COV001")
    assert cov and "InferenceService is recognised but not modelled (partial)" in cov[0][4]


def test_a_kustomize_overlay_is_a_partial_note(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    (sub / "kustomization.yaml").write_text("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                            "resources: [deployment.yaml]\n", encoding="utf-8")
    replace_once(sub / "submission.yaml", "  - deployment.yaml\n", "  - deployment.yaml\n  - kustomization.yaml\n")
    cov = only(lint(sub, coverage=True), "COV001")
    assert cov and "kind Kustomization is recognised but not modelled (partial)" in cov[0][4]


# -- Dynamo DynamoGraphDeployment ----------------------------------------------------------
DGD = "recipes/dynamo-sglang-qwen3-0.6b-disagg-multinode"
DGD_BETA = "recipes/dynamo-sglang-qwen3-0.6b-disagg-multinode-v1beta1"


def test_dynamo_graph_deployments_lint_clean_with_the_operators_multinode_flags(tmp_path):
    # the operator adds --dist-init-addr / --nnodes / --node-rank to multi-node SGLang workers:
    # modelled, so no TOP003 / K8S003 for wiring the published manifest leaves to it
    for rel in (DGD, DGD_BETA):
        assert lint(copy_submission(rel, tmp_path)) == [], rel


def test_dynamo_v1alpha1_node_count_times_gpus_against_tp(tmp_path):
    sub = copy_submission(DGD, tmp_path)
    text = (sub / "disagg-multinode.yaml").read_text(encoding="utf-8")
    line, col = position(text, 'gpu: "4"')
    _replace_first(sub / "disagg-multinode.yaml", "nodeCount: 2", "nodeCount: 3")
    k = only(lint(sub), "K8S001")
    assert [(f[1], f[2], f[3]) for f in k] == [("disagg-multinode.yaml", line, col + len("gpu: "))]
    assert "x 3 pods per group (multinode.nodeCount" in k[0][4] and "TP 8" in k[0][4]


def test_dynamo_v1beta1_gpu_limit_against_tp(tmp_path):
    sub = copy_submission(DGD_BETA, tmp_path)
    line, col = _replace_first(sub / "disagg-multinode.yaml", 'nvidia.com/gpu: "4"', 'nvidia.com/gpu: "2"')
    k = only(lint(sub), "K8S001")
    assert [(f[1], f[2], f[3]) for f in k] == [("disagg-multinode.yaml", line, col + len("nvidia.com/gpu: "))]
    assert "gives the engine 4 GPUs but it runs TP 8" in k[0][4]


def test_dynamo_roles_come_from_the_component_type(tmp_path):
    sub = copy_submission(DGD_BETA, tmp_path)
    replace_once(sub / "submission.yaml", "  - name: decode\n    instances: 1", "  - name: decode\n    instances: 2")
    top = only(lint(sub), "TOP001")
    assert any("1 decode instance(s)" in f[4] and "instances: 2" in f[4] for f in top)


def test_a_kubernetes_secret_name_is_not_a_credential(tmp_path):
    sub = copy_submission(DGD, tmp_path)
    assert only(lint(sub), "RED002") == []
    _replace_first(sub / "disagg-multinode.yaml", "envFromSecret: hf-token-secret", "hf_token: hf_abcdefghijklmnopqrstuvwxyz0123")
    assert len(only(lint(sub), "RED002")) == 1


# -- deprecated but accepted flags ---------------------------------------------------------
def test_dynamo_is_prefill_worker_is_a_deprecation_warning_with_its_replacement(tmp_path):
    sub = copy_submission("recipes/vllm-gpt-oss-120b-b200-tp1-config", tmp_path)
    line = replace_once(sub / "launch_server.sh", "vllm serve openai/gpt-oss-120b \\",
                        "python3 -m dynamo.vllm --model openai/gpt-oss-120b --is-prefill-worker \\")
    text = (sub / "launch_server.sh").read_text(encoding="utf-8")
    result = lint_paths([str(sub)])
    flg = [f for f in result.findings if f.rule_id == "FLG001"]
    assert [(f.span.line, f.span.col, f.level) for f in flg] == [(line, position(text, "--is-prefill-worker")[1], "warning")]
    # one finding: the newest release (1.6.1) no longer has it (Dynamo 0.4.1..1.3.1 deprecated it) and its replacement
    assert "0.4.1..1.3.1 (removed in 1.4.2)" in flg[0].message and "use --disaggregation-mode prefill" in flg[0].message
    replace_once(sub / "launch_server.sh", "python3 -m dynamo.vllm", "pip install ai-dynamo==1.3.1\npython3 -m dynamo.vllm")
    flg = [f for f in lint_paths([str(sub)]).findings if f.rule_id == "FLG001"]
    assert [f.level for f in flg] == ["warning"] and "deprecated" in flg[0].message   # 1.3.1: accepted, deprecated


def test_dynamo_disaggregation_mode_is_the_replacement(tmp_path):
    sub = copy_submission("recipes/vllm-gpt-oss-120b-b200-tp1-config", tmp_path)
    replace_once(sub / "launch_server.sh", "vllm serve openai/gpt-oss-120b \\",
                 "python3 -m dynamo.vllm --model openai/gpt-oss-120b --disaggregation-mode prefill \\")
    assert only(lint(sub), "FLG001") == []


def test_a_container_mount_path_is_not_a_host_path_but_its_host_path_source_is(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    replace_once(sub / "deployment.yaml", "mountPath: /root/.cache", "mountPath: /mnt/cache")
    assert only(lint(sub), "RED001") == []  # /mnt/cache inside the container
    line, col = _replace_first(sub / "deployment.yaml", "path: /root/.cache ", "path: /mnt/cache ")
    red = only(lint(sub), "RED001")
    assert [(f[1], f[2], f[3]) for f in red] == [("deployment.yaml", line, col + len("path: "))]


# -- SGLang RoleBasedGroup -----------------------------------------------------------------
RBG = "recipes/rbg-sglang-qwen3-32b-pd-1p1d"


def test_role_based_group_roles_are_launches(tmp_path):
    sub = copy_submission(RBG, tmp_path)
    assert lint(sub) == []
    text = (sub / "sglang-pd.yaml").read_text(encoding="utf-8")
    gpu = position(text, 'nvidia.com/gpu: "2"')
    tp = position(text, "--tp-size 2 \n", after=False)
    _replace_first(sub / "sglang-pd.yaml", "--tp-size 2 \n", "--tp-size 4 \n")
    found = lint(sub)
    k = only(found, "K8S001")
    assert [(f[1], f[2], f[3]) for f in k] == [("sglang-pd.yaml", gpu[0], gpu[1] + len('nvidia.com/gpu: '))]
    top = only(found, "TOP001")
    assert [(f[2], f[3]) for f in top] == [(tp[0], tp[1] + len("--tp-size "))] and "prefill instance uses 4" in top[0][4]


def test_a_role_from_a_template_reference_is_a_partial_note(tmp_path):
    sub = copy_submission(RBG, tmp_path)
    path = sub / "sglang-pd.yaml"
    text = path.read_text(encoding="utf-8")
    at = text.index("  - name: decode\n")
    head, tail = text[:at], text[at:]
    # the decode role's pods from a role template (v1alpha2 standalonePattern.templateRef)
    tail = tail.replace("    template:\n", "    standalonePattern:\n      templateRef: {name: inference-base}\n    unused:\n", 1)
    path.write_text(head + tail, encoding="utf-8")
    cov = only(lint(sub, coverage=True), "COV001")
    assert cov and "RoleBasedGroup role decode" in cov[0][4] and "not modelled (partial)" in cov[0][4]


def test_malformed_kubernetes_objects_give_findings_not_tracebacks(tmp_path):
    # every field of the catalog Deployment given the wrong shape, one document each
    sub = copy_submission(SINGLE, tmp_path)
    bad = ["apiVersion: v1\nkind: List\nitems: notalist\n",
           "apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: abc\n  template:\n    spec:\n      containers: notalist\n",
           "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: [1]\n"
           "        image: {a: 1}\n        command: {a: b}\n        args: [1, null, '$(', '$(X', '$$(Y)']\n"
           "        env: [1, {name: 3}, {value: x}, {name: A, value: {b: 1}}]\n"
           "        resources: {limits: {nvidia.com/gpu: -4}, requests: {nvidia.com/gpu: [1]}}\n      - notamap\n",
           "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nspec:\n  leaderWorkerTemplate:\n    size: -3\n"
           "    workerTemplate: {spec: {volumes: {}, containers: [{command: [bash, -c, 'python3 -m sglang.launch_server $(('], "
           "volumeMounts: [{mountPath: 5}]}]}}\n",
           "apiVersion: disaggregatedset.x-k8s.io/v1\nkind: DisaggregatedSet\nspec:\n  slices: x\n  roles: [1, {name: [x]}, "
           "{spec: {replicas: 2, leaderWorkerTemplate: 5}}]\n",
           "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nspec:\n  services: [1]\n",
           "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nspec:\n  components: {a: 1}\n",
           "apiVersion: workloads.x-k8s.io/v1alpha2\nkind: RoleBasedGroup\nspec:\n  roles: [{name: x, leaderWorkerPattern: "
           "{size: 1e9, template: 3}}]\n",
           "- a list\n", "kind: NoApiVersion\n"]
    manifest = sub / "deployment.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "".join("---\n" + d for d in bad), encoding="utf-8")
    result = lint_paths([str(sub)])
    assert not any("internal error" in f.message for f in result.findings), [f.message for f in result.findings]


def test_k8s001_engines_side_by_side_in_one_pod_share_its_gpus(tmp_path):
    sub = copy_submission(RBG, tmp_path)
    text = (sub / "sglang-pd.yaml").read_text(encoding="utf-8")
    gpu = position(text, 'nvidia.com/gpu: "2"')
    _replace_first(sub / "sglang-pd.yaml", "--tp-size 2 \n", "--tp-size 2 & python3 -m sglang.launch_server "
                   "--model-path /models/Qwen3-32B/ --disaggregation-mode prefill --port 8001 --tp-size 2 \n")
    k = only(lint(sub), "K8S001")
    assert [(f[2], f[3]) for f in k] == [(gpu[0], gpu[1] + len('nvidia.com/gpu: '))]
    assert "its 2 engines run TP 2 + TP 2 = 4; set nvidia.com/gpu: 4" in k[0][4]


def test_an_unlisted_manifest_in_a_submission_is_sub003_naming_files_deploy(tmp_path):
    sub = copy_submission(SINGLE, tmp_path)
    replace_once(sub / "submission.yaml", "  deploy:\n  - deployment.yaml\n", "  launch: []\n")
    sub3 = only(lint(sub), "SUB003")
    assert [(f[1], f[2], f[3]) for f in sub3] == [("deployment.yaml", 1, 1)] and "files.deploy" in sub3[0][4]


# -- kthena ModelServing -------------------------------------------------------------------
KTHENA = "recipes/kthena-vllm-llama-3.1-405b-multinode"


def test_kthena_model_serving_entry_and_worker_pods_form_one_instance(tmp_path):
    # vLLM TP8 x PP2 over Ray: one entry pod + workerReplicas 1, 8 GPUs each
    sub = copy_submission(KTHENA, tmp_path)
    assert lint(sub) == []
    text = (sub / "multi-node.yaml").read_text(encoding="utf-8")
    gpu = position(text, 'nvidia.com/gpu: "8"')
    line = replace_once(sub / "multi-node.yaml", "workerReplicas: 1", "workerReplicas: 2")
    k = only(lint(sub), "K8S001")
    assert [(f[2], f[3]) for f in k] == [(gpu[0], gpu[1] + len('nvidia.com/gpu: '))]
    assert f"x 3 pods per group (ModelServing size, multi-node.yaml:{line})".split(", ")[0] in k[0][4]
    assert "TP 8 x PP 2 = 16" in k[0][4]


def test_kthena_role_replicas_times_serving_groups_are_instances(tmp_path):
    sub = copy_submission(KTHENA, tmp_path)
    replace_once(sub / "multi-node.yaml", "  replicas: 1  # inferGroup replicas", "  replicas: 2  # inferGroup replicas")
    top = only(lint(sub), "TOP001")
    assert any("starts 4 server instance(s)" in f[4] for f in top)


# -- AIBrix StormService -------------------------------------------------------------------
STORM = "recipes/aibrix-vllm-qwen3-8b-1p1d-nixl"


def test_stormservice_roles_are_launches(tmp_path):
    sub = copy_submission(STORM, tmp_path)
    assert lint(sub) == []
    line, col = _replace_first(sub / "1p1d.yaml", "nvidia.com/gpu: 1", "nvidia.com/gpu: 2")
    k = only(lint(sub), "K8S001")
    assert [(f[2], f[3]) for f in k] == [(line, col + len("nvidia.com/gpu: "))]
    assert "gives the engine 2 GPUs but it runs TP 1" in k[0][4]


def test_stormservice_role_replicas_are_instances(tmp_path):
    sub = copy_submission(STORM, tmp_path)
    _replace_first(sub / "1p1d.yaml", "        - name: prefill\n          replicas: 1\n",
                   "        - name: prefill\n          replicas: 2\n")
    top = only(lint(sub), "TOP001")
    assert any("starts 2 prefill instance(s)" in f[4] for f in top)


def test_k8s003_group_without_a_rendezvous_address(tmp_path):
    sub = copy_submission(LWS, tmp_path)
    text = (sub / "lws.yaml").read_text(encoding="utf-8")
    nnodes = position(text, "$(LWS_GROUP_SIZE)")
    _replace_first(sub / "lws.yaml", "              - --dist-init-addr\n              - $(LWS_LEADER_ADDRESS):20000\n", "")
    k = only(lint(sub), "K8S003")
    assert [(f[2], f[3]) for f in k] == [nnodes] and "without --dist-init-addr" in k[0][4]


KIMI_LWS = "catalog/kimi-k3/rtx6000d-sglang-lws-tp8-pp4-marlin"


def test_catalog_kimi_lws_over_four_nodes_needs_marlin_on_every_node(tmp_path):
    # the catalog: "A Marlin MoE path is required on sm120" for the MXFP4 experts
    sub = copy_submission(KIMI_LWS, tmp_path)
    assert [f for f in lint(sub) if f[0] in ("HW001", "TOP001", "TOP003", "K8S001", "K8S003")] == []
    line, col = _replace_first(sub / "lws.yaml", "- marlin", "- flashinfer_mxfp4")
    hw = only(lint(sub), "HW001")
    assert [(f[1], f[2], f[3]) for f in hw] == [("lws.yaml", line, col + 2)] and "use --moe-runner-backend marlin" in hw[0][4]


def test_catalog_kimi_lws_size_is_the_pipeline_depth(tmp_path):
    sub = copy_submission(KIMI_LWS, tmp_path)
    replace_once(sub / "lws.yaml", "    size: 4\n", "    size: 2\n")
    k = only(lint(sub), "K8S001")
    assert k and all("x 2 pods per group" in f[4] and "TP 8 x PP 4 = 32" in f[4] for f in k)


@pytest.mark.parametrize("quote", ['"', "'"])
def test_a_flag_on_the_second_line_of_a_quoted_sh_c_string_is_placed_at_its_column(tmp_path, quote):
    # LWS's own vLLM example writes its command as one quoted string over two lines
    sub = copy_submission(LWS, tmp_path)
    path = sub / "lws.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("            command:\n              - python3\n")
    end = text.index('              - "30000"\n', start) + len('              - "30000"\n')
    second = ("--nnodes $(LWS_GROUP_SIZE) --node-rank $(LWS_WORKER_INDEX) --dist-init-addr "
              "$(LWS_LEADER_ADDRESS):20000 --host 0.0.0.0 --port 30000 --mem-fraction-statik 0.8")
    block = ("            command:\n              - sh\n              - -c\n"
             f"              - {quote}python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash"
             " --tp-size 8 --pp-size 2\n"
             f"                 {second}{quote}\n")
    path.write_text(text[:start] + block + text[end:], encoding="utf-8")
    line = text[:start].count("\n") + 5
    col = 18 + second.index("--mem-fraction-statik")
    flg = [f for f in only(lint(sub), "FLG001") if "--mem-fraction-statik" in f[4]]
    assert [(f[1], f[2], f[3]) for f in flg] == [("lws.yaml", line, col)]


def test_env_values_that_double_at_each_entry_stay_as_written_past_the_bound(tmp_path):
    # A1 = $(A0)$(A0), A2 = $(A1)$(A1), ...: 40 entries of a 2 KB manifest would expand to
    # 16 x 2**39 characters; past MAX_EXPANDED a value is kept as written (not known)
    from cfglint.read.k8s.env import MAX_EXPANDED

    env = "".join(f'    - {{name: A{i}, value: "$(A{i - 1})$(A{i - 1})"}}\n' for i in range(1, 40))
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n"
        "    image: vllm/vllm-openai:v0.10.1\n"
        "    command: [vllm, serve, m, --tensor-parallel-size, $(A39)]\n"
        '    env:\n    - {name: A0, value: "xxxxxxxxxxxxxxxx"}\n' + env, encoding="utf-8")
    result = lint_paths([str(tmp_path / "pod.yaml")])
    assert MAX_EXPANDED < 16 * 2 ** 39
    assert not [f for f in result.findings if f.rule_id == "IO001"]
    cov = [f for f in result.findings if f.rule_id == "COV001"]
    assert cov and "checks that use tp (vllm serve): its value is a shell variable" in cov[0].message   # said, not guessed


def test_a_lone_surrogate_from_a_yaml_escape_is_written_as_an_escape_in_text_output(tmp_path, cfglint_exe):
    import subprocess

    (tmp_path / "pod.yaml").write_text(
        'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n'
        '    image: vllm/vllm-openai:v0.10.1\n    command: ["vllm", "serve", "m", "--x\\uD800"]\n', encoding="utf-8")
    for fmt in ("text", "github"):
        out = subprocess.run([str(cfglint_exe), "check", "-f", fmt, "pod.yaml"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
        assert "--x\\ud800" in out.stdout, fmt
