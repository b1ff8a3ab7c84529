"""Issue 23 section 3: every serving resource kind of ../shared/corpus modelled. Each kind is
read from a real corpus file in place (the deployment it gives: GPUs, TP, PP, DP, the launch
flags), a bogus flag injected into its container's arguments is reported, and a copy changed
in one place (in tmp_path, never in the corpus) fails the check it should.

Kinds: KServe LLMInferenceService (the preset launch, parallelism, worker and prefill pods),
LLMInferenceServiceConfig, ClusterServingRuntime; AIBrix RayClusterFleet; RoleBasedGroup role
templates with patches and v1alpha2 leader/worker wiring (RBG_LWP_*); objects that start nothing
(Service, PersistentVolume, PodMonitor) get no COV001 gap.
"""

from __future__ import annotations

from pathlib import Path

from cfglint.lint import lint_paths, lint_unit_deployment
from cfglint.load.submission import load_loose_file
from support import shared


def _corpus(rel: str) -> Path:
    return shared("corpus") / rel


def _deployment(path: Path):
    _findings, dep = lint_unit_deployment(load_loose_file(str(path)))
    return dep


def _shape(path: Path) -> list[tuple]:
    """(launcher, role, TP, DP, DP local, GPUs per pod, pods per instance, instances) of each
    engine process a file starts."""
    out = []
    for p in _deployment(path).engine_processes():
        s = {k: v.value for k, v in p.settings.items()}
        c = p.pod
        gpus = next((lim.value if lim is not None else req.value for lim, req in c.gpus.values()), None) if c else None
        out.append((p.launcher, p.role.value if p.role else None, s.get("tp"), s.get("dp"), s.get("dp_local"),
                    str(gpus) if gpus is not None else None, c.group.pods_per_instance() if c else None,
                    c.group.replicas.value if c and c.group.replicas is not None else None))
    return out


def _changed(rel: str, old: str, new: str, tmp_path: Path, count: int = 1) -> Path:
    """A copy of a corpus file with ``old`` replaced by ``new`` (``count`` times, which must be
    every occurrence), written to ``tmp_path`` under the file's name."""
    src = _corpus(rel)
    text = src.read_text(encoding="utf-8")
    assert text.count(old) == count, (old, text.count(old))
    out = tmp_path / src.name
    out.write_text(text.replace(old, new), encoding="utf-8")
    return out


def _lint(path: Path) -> list[tuple]:
    return [(f.rule_id, f.level, f.span.line, f.span.col, f.message) for f in lint_paths([str(path)]).findings]


def _at(path: Path, needle: str) -> list[tuple[int, int]]:
    """(line, column) of every occurrence of ``needle`` in a file."""
    return [(n, line.index(needle) + 1) for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1)
            if needle in line]


def _bogus(path: Path) -> list[tuple[int, int]]:
    """Where the FLG001 findings about --cfglint-bogus are."""
    return [(f[2], f[3]) for f in _rules(_lint(path), "FLG001") if "--cfglint-bogus" in f[4]]


def _rules(found: list[tuple], rule: str) -> list[tuple]:
    return [f for f in found if f[0] == rule]


def _gaps(path: Path) -> list[str]:
    return [m for f in lint_paths([str(path)]).findings if f.rule_id == "COV001" for _s, m in f.related]


# -- KServe LLMInferenceService --------------------------------------------------------------
LLMISVC_DP = "038-kserve-dp-ep-deepseek-r1-pd-p-deepep-ht-d-pplx/llm-inference-service-dp-ep-deepseek-r1-pd-gpu-p-deepep-ht-d-pplx.yaml"
LLMISVC_TP = "041-kserve-agentic-tool-calling-nemotron-3-ultra-pd/nemotron-3-ultra-pd.yaml"
LLMISVC_ONE = "036-kserve-single-node-gpu-qwen2-7b-gpu/llm-inference-service-qwen2-7b-gpu.yaml"


def test_llm_inference_service_data_parallel_over_a_leader_and_a_worker_pod_per_role():
    # parallelism data 16, dataLocal 8, tensor 1: 2 pods of 8 GPUs per instance (leader + worker),
    # for decode (spec) and for prefill; the worker pod is headless and starts at DP rank 8
    shape = _shape(_corpus(LLMISVC_DP))
    assert shape == [("vllm serve", "decode", 1, 16, 8, "8", 2, 1), ("vllm serve", "decode", 1, 16, 8, "8", 2, 1),
                     ("vllm serve", "prefill", 1, 16, 8, "8", 2, 1), ("vllm serve", "prefill", 1, 16, 8, "8", 2, 1)]
    starts = [(p.settings["dp_start_rank"].value, "headless" in p.settings) for p in _deployment(_corpus(LLMISVC_DP)).engine_processes()]
    assert starts == [(0, False), (8, True), (0, False), (8, True)]
    assert not _rules(_lint(_corpus(LLMISVC_DP)), "K8S001")


def test_llm_inference_service_flags_in_vllm_additional_args_are_the_launchs(tmp_path):
    shape = _shape(_corpus(LLMISVC_TP))
    assert shape == [("vllm serve", "decode", 8, None, None, "8", 1, 1), ("vllm serve", "prefill", 8, None, None, "8", 1, 1)]
    bogus = _changed(LLMISVC_TP, "--enable-log-outputs\n", "--enable-log-outputs --cfglint-bogus\n", tmp_path, count=2)
    assert _bogus(bogus) == _at(bogus, "--cfglint-bogus")


def test_llm_inference_service_tp_above_the_gpus_of_its_pod_is_k8s001(tmp_path):
    bad = _changed(LLMISVC_TP, "--tensor-parallel-size=8", "--tensor-parallel-size=16", tmp_path, count=2)
    k = _rules(_lint(bad), "K8S001")
    assert len(k) == 2 and all("nvidia.com/gpu: 8" in f[4] and "16" in f[4] for f in k), k


def test_llm_inference_service_replicas_and_model_from_its_spec(tmp_path):
    assert _shape(_corpus(LLMISVC_ONE)) == [("vllm serve", None, None, None, None, "1", 1, 3)]
    p = _deployment(_corpus(LLMISVC_ONE)).engine_processes()[0]
    assert p.settings["model"].value == "Qwen/Qwen2.5-7B-Instruct"   # from model.uri hf://...
    # the container's args are the preset's $@: a bogus one is reported where it is written
    bogus = _changed(LLMISVC_ONE, "      - name: main\n", "      - name: main\n        args: [\"--cfglint-bogus\"]\n", tmp_path)
    assert _bogus(bogus) == _at(bogus, "--cfglint-bogus")


def test_llm_inference_service_config_is_a_kserve_kind_not_a_typo():
    found = _lint(_corpus("042-kserve-llmisvcconfig-config-llm-template/config-llm-template.yaml"))
    assert not _rules(found, "K8S004")   # was: "has no kind 'LLMInferenceServiceConfig'; did you mean ..."
    assert not _rules(found, "RED001")   # /mnt/models (KServe's model mount) and HOME=/home (a mountPath)
    gaps = _gaps(_corpus("042-kserve-llmisvcconfig-config-llm-template/config-llm-template.yaml"))
    assert not any("K8S004" in g for g in gaps)   # validated against its CRD (tests/test_k8s_schema.py)
    # the eval'd preset launch is read (Go template actions as render-time values); its model is the
    # LLMInferenceService's, at KServe's /mnt/models
    assert not any("not recognised" in g for g in gaps)
    assert any("the LLMInferenceServiceConfig serves /mnt/models" in g for g in gaps)


# -- KServe ClusterServingRuntime ------------------------------------------------------------
RUNTIME = "043-kserve-runtimes-kserve-vllmserver/kserve-vllmserver.yaml"


def test_cluster_serving_runtime_containers_are_launches_with_gpus_from_the_inference_service(tmp_path):
    assert _shape(_corpus(RUNTIME)) == [("python3 -m vllm.entrypoints.openai.api_server", None, None, None, None,
                                         None, 1, None)]
    found = _lint(_corpus(RUNTIME))
    assert not _rules(found, "K8S001") and not _rules(found, "RED001")
    assert any("GPUs per pod (K8S001)" in g and "InferenceService" in g for g in _gaps(_corpus(RUNTIME)))
    bogus = _changed(RUNTIME, '        - "--port=8080"\n', '        - "--port=8080"\n        - "--cfglint-bogus"\n', tmp_path)
    assert _bogus(bogus) == _at(bogus, "--cfglint-bogus")


# -- AIBrix RayClusterFleet ------------------------------------------------------------------
FLEET = "062-aibrix-distributed-fleet/fleet.yaml"
FLEET_TWO = "018-aibrix-deepseek-r1-deepseek-r1-huggingface/deepseek-r1-huggingface.yaml"


def test_ray_cluster_fleet_head_runs_the_engine(tmp_path):
    assert _shape(_corpus(FLEET)) == [("vllm serve", None, 2, None, None, "2", 1, 1)]
    found = _lint(_corpus(FLEET))
    assert not _rules(found, "K8S001") and not _rules(found, "K8S003")   # KubeRay mounts /dev/shm itself
    bad = _changed(FLEET, "nvidia.com/gpu: 2", "nvidia.com/gpu: 1", tmp_path, count=2)
    assert len(_rules(_lint(bad), "K8S001")) == 1
    bogus = _changed(FLEET, "--tensor-parallel-size 2 --distributed", "--tensor-parallel-size 2 --cfglint-bogus --distributed",
                     tmp_path)
    assert _bogus(bogus) == _at(bogus, "--cfglint-bogus")


def test_ray_cluster_fleet_model_has_its_curated_parser_facts(tmp_path):
    # Qwen/Qwen2.5-Coder-7B-Instruct (rules/models.yaml): no reasoning, hermes tool calls (vLLM's
    # tool_calling docs, 'Qwen Models': Qwen/Qwen2.5-*); the fleet as published has no parser gap
    assert not any("curated" in g or "PRS004" in g for g in _gaps(_corpus(FLEET)))
    flags = "--tensor-parallel-size 2 --distributed"
    good = _changed(FLEET, flags, "--tensor-parallel-size 2 --enable-auto-tool-choice --tool-call-parser hermes "
                    "--distributed", tmp_path)
    assert not _rules(_lint(good), "PRS002")
    bad = _changed(FLEET, flags, "--tensor-parallel-size 2 --enable-auto-tool-choice --tool-call-parser llama3_json "
                   "--distributed", tmp_path)
    (f,) = _rules(_lint(bad), "PRS002")
    assert (f[2], f[3]) == _at(bad, "llama3_json")[0] and "emits hermes" in f[4]


def test_ray_cluster_fleet_over_a_head_and_a_worker_is_one_instance(tmp_path):
    # TP 16 with 8 GPUs on the head and 8 on the one worker pod: 2 pods per instance
    assert _shape(_corpus(FLEET_TWO)) == [("vllm serve", None, 16, None, None, "8", 2, 1)]
    assert not _rules(_lint(_corpus(FLEET_TWO)), "K8S001")
    bad = _changed(FLEET_TWO, "--tensor-parallel-size 16", "--tensor-parallel-size 32", tmp_path)
    assert len(_rules(_lint(bad), "K8S001")) == 1


# -- RoleBasedGroup role templates and patches ------------------------------------------------
RBG_REF = "005-rbg-dynamo-agg/agg.yaml"
RBG_LWP = "002-rbg-inference-agg-leader-worker/agg-leader-worker.yaml"


def test_role_based_group_roles_from_a_template_and_its_patch(tmp_path):
    dep = _deployment(_corpus(RBG_REF))
    assert [(p.kind, p.launcher) for p in dep.processes] == [("frontend", "python3 -m dynamo.frontend"),
                                                             ("engine", "python3 -m dynamo.sglang")]
    p = dep.engine_processes()[0]
    assert p.env["NATS_SERVER"].value == "nats://nats:4222"          # from the role template
    assert p.pod.gpus["nvidia.com/gpu"][0].value == "1"               # from the role's patch
    assert not any("RoleBasedGroup role" in g for g in _gaps(_corpus(RBG_REF)))
    bad = _changed(RBG_REF, '- --tp-size\n                    - "1"', '- --tp-size\n                    - "2"', tmp_path)
    assert len(_rules(_lint(bad), "K8S001")) == 1
    bogus = _changed(RBG_REF, "                    - --trust-remote-code\n",
                     "                    - --trust-remote-code\n                    - --cfglint-bogus\n", tmp_path)
    assert _bogus(bogus) == _at(bogus, "--cfglint-bogus")


def test_role_based_group_v1alpha2_leader_worker_wiring_is_known(tmp_path):
    # $(RBG_LWP_LEADER_ADDRESS) / $(RBG_LWP_GROUP_SIZE) / $(RBG_LWP_WORKER_INDEX): set by RBG
    assert not any("known only at run time" in g for g in _gaps(_corpus(RBG_LWP)))
    p = _deployment(_corpus(RBG_LWP)).engine_processes()[0]
    assert (p.settings["nnodes"].value, p.settings["tp"].value) == (2, 2)
    assert not _rules(_lint(_corpus(RBG_LWP)), "K8S001")
    bad = _changed(RBG_LWP, '- --tp-size\n                  - "2"', '- --tp-size\n                  - "4"', tmp_path)
    assert len(_rules(_lint(bad), "K8S001")) == 1


# -- not serving objects -----------------------------------------------------------------------
def test_a_service_persistent_volume_or_pod_monitor_is_no_gap():
    gaps = _gaps(_corpus("021-aibrix-dynamo-qwen3-8b-round-robin-1p1d-tp2-vke/qwen3-8b-round-robin-1p1d-tp2-vke.yaml"))
    assert not any("no schema for" in g for g in gaps), gaps
    gaps = _gaps(_corpus("001-lws-tensorrt-llm-lws/lws.yaml"))
    assert not any("v1/Service" in g for g in gaps)


# -- Helm chart templates ----------------------------------------------------------------------
HELM = "058-aibrix-templates-sglang-disaggregated/sglang-disaggregated.yaml"


def test_a_helm_chart_template_is_a_note_not_a_syntax_error(tmp_path):
    found = _lint(_corpus(HELM))
    assert not _rules(found, "IO001")
    assert any("Helm chart template" in g and "helm template" in g for g in _gaps(_corpus(HELM)))
    # the same file without its template actions, broken in one place, is a syntax error again
    text = _corpus(HELM).read_text(encoding="utf-8")
    plain = "\n".join(line for line in text.split("\n") if "{{" not in line)
    broken = tmp_path / "broken.yaml"
    broken.write_text(plain.replace("kind: StormService", "kind: StormService\n  - x: [", 1), encoding="utf-8")
    assert _rules(_lint(broken), "IO001")


# -- accelerators that are not GPUs, containers that start no known launch ----------------------
TPU = "049-lws-tpu-lws/lws.yaml"
TRITON = "001-lws-tensorrt-llm-lws/lws.yaml"


def test_a_tpu_pod_is_counted_and_the_same_pod_with_too_few_gpus_is_k8s001(tmp_path):
    # 4 TPU chips per pod x 4 pods for TP 16: counted as chips (tests/test_tpu.py), no note left
    assert not _rules(_lint(_corpus(TPU)), "K8S001")
    assert not any("google.com/tpu" in g for g in _gaps(_corpus(TPU)))
    gpus = _changed(TPU, 'google.com/tpu: "4"', 'nvidia.com/gpu: "2"', tmp_path, count=2)
    k = _rules(_lint(gpus), "K8S001")
    assert len(k) == 1 and "TP 16" in k[0][4], k


def test_a_container_given_gpus_that_runs_no_known_launcher_says_so(tmp_path):
    # Triton's TensorRT-LLM server.py leader: not a launcher cfglint reads, named in COV001
    gaps = _gaps(_corpus(TRITON))
    assert any("container leader of LeaderWorkerSet tensorrt" in g and "python3 ./server.py" in g for g in gaps), gaps
    # the worker pod joins the leader's engine: no note of its own
    assert not any("container worker of" in g for g in gaps)
    # the same container without GPUs is not a serving container: no note
    bare = _changed(TRITON, 'nvidia.com/gpu: "8"', 'cpu: "8"', tmp_path, count=_corpus(TRITON).read_text().count('nvidia.com/gpu: "8"'))
    assert not any("container leader" in g for g in _gaps(bare))


# -- vLLM workers that share a GPU by design ----------------------------------------------------
SHARED_GPU = "112-vllm-disagg-encoder-1e1p1d/disagg_1e1p1d_example.sh"


def test_vllm_workers_sharing_a_gpu_within_its_memory_are_not_top003(tmp_path):
    # the encoder (--gpu-memory-utilization 0.0) and the prefill worker (0.7) share GPU 2 on purpose
    assert not _rules(_lint(_corpus(SHARED_GPU)), "TOP003")
    # the encoder asking for half of the GPU too: 0.5 + 0.7 > 1, they do not fit
    bad = _changed(SHARED_GPU, "--gpu-memory-utilization 0.0", "--gpu-memory-utilization 0.5", tmp_path)
    top = _rules(_lint(bad), "TOP003")
    assert len(top) == 1 and "GPU 2 is given to two workers" in top[0][4], top


def test_kuberays_generated_ray_start_is_a_ray_node_not_an_unknown_launcher(tmp_path):
    # corpus 019 (AIBrix RayClusterFleet): `eval "$KUBERAY_GEN_RAY_START_CMD"` runs the `ray start`
    # KubeRay's operator generates (ray-project/kuberay ray-operator/controllers/ray/common/pod.go);
    # was COV001 "launcher '$KUBERAY_GEN_RAY_START_CMD' not recognised"
    src = _corpus("019-aibrix-distributed-fleet-two-node/fleet-two-node.yaml")
    assert not any("KUBERAY_GEN_RAY_START_CMD" in g for g in _gaps(src))
    # a variable the operator does not set: its command is not known, said so
    moved = tmp_path / "fleet.yaml"
    moved.write_text(src.read_text(encoding="utf-8").replace('eval "$KUBERAY_GEN_RAY_START_CMD"', 'eval "$RAY_CMD"', 1),
                     encoding="utf-8")
    assert any("launcher 'eval \"$RAY_CMD\"' not recognised" in g for g in _gaps(moved))
