"""Kubernetes quantities and counts as the API server reads them (a break-it round's findings):
GPU counts written as quantities (``1000m``, ``1k``, ``"1e9"``), fractional or negative device
counts, counts beyond int32 or below their minimum (replicas, LWS size, RayCluster worker
replicas), a RoleBasedGroup part patch that is not a mapping, and a docker ``--shm-size`` docker
cannot read. Each case is a real file changed in one place, with its control."""

from __future__ import annotations

from cfglint.lint import lint_paths
from cfglint.read.quantity import device_count, parse_quantity
from support import changed_copy, findings_of, copy_submission, lint, only, replace_once, shared

VLLM_DEPLOYMENT = "corpus/035-pstack-vllm-gpu-deployment/gpu-deployment.yaml"
LWS_TPU = "corpus/049-lws-tpu-lws/lws.yaml"
RAY_FLEET = "corpus/019-aibrix-distributed-fleet-two-node/fleet-two-node.yaml"
RBG_LEADER_WORKER = "corpus/002-rbg-inference-agg-leader-worker/agg-leader-worker.yaml"
KIMI_DCP8 = "artificial-analysis/kimi-k3/b300-sglang-tp8-dcp8"
GPU_LIMIT = "          resources:\n            limits:\n              nvidia.com/gpu: 1\n"


_changed, _findings = changed_copy, findings_of


def _notes(path) -> list[str]:
    return [m for f in lint_paths([str(path)]).findings if f.rule_id == "COV001" for _s, m in f.related]


def _gpu_limit(tmp_path, value: str):
    return _changed(tmp_path, VLLM_DEPLOYMENT, GPU_LIMIT, GPU_LIMIT.replace("gpu: 1\n", f"gpu: {value}\n"))


def test_quantities_read_as_apimachinery_reads_them():
    # kubernetes/apimachinery pkg/api/resource/quantity.go: decimal SI, binary SI, exponents
    assert [parse_quantity(v) for v in ("1000m", "1k", "1e9", "1E", "64Gi", "1.5", ".5", "+3", 2)] == \
        [1, 1000, 10 ** 9, 10 ** 18, 1 << 36, 1.5, 0.5, 3, 2]
    assert [parse_quantity(v) for v in ("abc", "1.5x", "", "k", "1e", True, None)] == [None] * 7
    assert [device_count(v) for v in ("1000m", "4.5", "1500m", "-4", "0.1m")] == [1, None, None, None, None]


def test_a_gpu_count_of_1000m_is_one_gpu(tmp_path):
    # 1000m = 1 (request 1 equals it): was COV001 "nvidia.com/gpu: 1000m is not a number"
    findings = _findings(_gpu_limit(tmp_path, "1000m"))
    assert not [f for f in findings if f[0] in ("K8S001", "K8S004", "COV001")], findings


def test_a_gpu_count_of_1k_is_a_thousand_gpus(tmp_path):
    findings = _findings(_gpu_limit(tmp_path, "1k"))
    msgs = [f[3] for f in findings if f[0] == "K8S001"]
    assert any(m.startswith("nvidia.com/gpu: 1k (1000) gives the engine 1000 GPUs but it runs TP 1") for m in msgs), msgs
    assert any("request 1 differs from its limit 1k" in m for m in msgs), msgs
    (tmp_path / "e").mkdir()
    msgs = [f[3] for f in _findings(_gpu_limit(tmp_path / "e", '"1e9"')) if f[0] == "K8S001"]
    assert any("1000000000 GPUs" in m for m in msgs), msgs


def test_a_fractional_gpu_count_is_refused(tmp_path):
    for value in ("4.5", "1500m"):
        (tmp_path / value).mkdir()
        path = _gpu_limit(tmp_path / value, value)
        findings = _findings(path)
        (k8s004,) = [f for f in findings if f[0] == "K8S004"]
        assert k8s004[1] == 144 and k8s004[2] == "error"
        assert f"limits['nvidia.com/gpu']: {value} must be an integer" in k8s004[3] and "use 4 or 5" in k8s004[3] \
            if value == "4.5" else "use 1 or 2" in k8s004[3]
        assert not [f for f in findings if f[0] == "K8S001"]   # no GPU count made up from it
        assert any(f"nvidia.com/gpu: {value} is not a whole number of devices" in n for n in _notes(path))


def test_a_negative_gpu_count_is_refused_not_counted(tmp_path):
    findings = _findings(_gpu_limit(tmp_path, "-4"))
    (k8s004,) = [f for f in findings if f[0] == "K8S004"]
    assert "-4 must be greater than or equal to 0" in k8s004[3]
    assert not [f for f in findings if f[0] == "K8S001"], findings   # was "gives the engine -4 GPUs"


def test_a_gpu_count_control(tmp_path):
    findings = _findings(_gpu_limit(tmp_path, "1"))
    assert not [f for f in findings if f[0] in ("K8S001", "K8S004", "COV001")], findings


def test_replicas_beyond_int32_are_refused(tmp_path):
    path = _changed(tmp_path, VLLM_DEPLOYMENT, "  replicas: 2\n", f"  replicas: {10 ** 30}\n")
    (k8s004,) = [f for f in _findings(path) if f[0] == "K8S004"]
    assert k8s004[1] == 6 and "spec.replicas" in k8s004[3] and "exceeds the int32 maximum 2147483647" in k8s004[3]
    (tmp_path / "c").mkdir()
    control = _changed(tmp_path / "c", VLLM_DEPLOYMENT, "  replicas: 2\n", "  replicas: 2147483647\n")
    assert not [f for f in _findings(control) if f[0] == "K8S004"]


def test_an_lws_size_beyond_int32_or_below_one_is_refused_and_not_taken_as_one(tmp_path):
    for value, says in ((str(10 ** 30), "exceeds the int32 maximum 2147483647"), ("0", "must be at least 1"),
                        ("-4", "must be at least 1")):
        (tmp_path / value).mkdir()
        path = _changed(tmp_path / value, LWS_TPU, "    size: 4\n", f"    size: {value}\n")
        findings = _findings(path)
        (k8s004,) = [f for f in findings if f[0] == "K8S004"]
        assert k8s004[1] == 13 and f"spec.leaderWorkerTemplate.size: {value} {says}" in k8s004[3], k8s004
        assert not [f for f in findings if f[0] == "K8S001"], findings   # no GPUs of a made-up group of 1 pod
        assert any("GPUs per pod (K8S001): LeaderWorkerSet size" in n and "the pods per group are not known" in n
                   for n in _notes(path)), _notes(path)


def test_an_lws_size_control(tmp_path):
    findings = _findings(_changed(tmp_path, LWS_TPU, "    size: 4\n", "    size: 4\n"))
    assert not [f for f in findings if f[0] == "K8S004"]
    assert not any("pods per group are not known" in n for n in _notes(shared(LWS_TPU)))


def test_ray_worker_replicas_beyond_int32_are_refused_and_not_taken_as_one(tmp_path):
    old = "        - groupName: small-group\n          replicas: 1\n"
    path = _changed(tmp_path, RAY_FLEET, old, old.replace("replicas: 1", f"replicas: {10 ** 30}"))
    findings = _findings(path)
    assert any(f[0] == "K8S004" and f[1] == 110 and "workerGroupSpecs[0].replicas" in f[3]
               and "exceeds the int32 maximum" in f[3] for f in findings), findings
    assert not [f for f in findings if f[0] == "K8S001"], findings
    assert any("workerGroupSpecs replicas" in n and "the pods per group are not known" in n for n in _notes(path))
    assert not any("workerGroupSpecs replicas" in n for n in _notes(shared(RAY_FLEET)))


LEADER_WORKER_PATCHES = """        leaderTemplatePatch:
          metadata:
            labels:
              role: leader
        workerTemplatePatch:
          metadata:
            labels:
              role: worker"""


def test_a_worker_template_patch_that_is_not_a_mapping_says_so(tmp_path):
    # the leader patch changes the pod spec, the worker patch is a scalar: the worker pods were
    # dropped with no note
    new = "        leaderTemplatePatch:\n          spec:\n            hostIPC: true\n        workerTemplatePatch: hello"
    notes = _notes(_changed(tmp_path, RBG_LEADER_WORKER, LEADER_WORKER_PATCHES, new))
    assert any("RoleBasedGroup role backend worker pods (its workerTemplatePatch is not a mapping)" in n
               for n in notes), notes
    (tmp_path / "c").mkdir()
    control = "        leaderTemplatePatch:\n          spec:\n            hostIPC: true\n        workerTemplatePatch:\n" \
              "          metadata:\n            labels:\n              role: worker"
    assert not any("not a mapping" in n for n in _notes(_changed(tmp_path / "c", RBG_LEADER_WORKER,
                                                                 LEADER_WORKER_PATCHES, control)))


def test_a_docker_shm_size_docker_cannot_read_is_a_finding(tmp_path):
    for value, says in (("32x", "the unit 'x' is not one docker reads"), ("-1g", "the size is negative"),
                        ("9" * 25 + "g", "beyond what docker holds")):
        d = copy_submission(KIMI_DCP8, tmp_path / value[:8])
        replace_once(d / "run.sh", "--shm-size 32g", f"--shm-size {value}")
        (k8s003,) = only(lint(d), "K8S003")
        assert says in k8s003[4] and "docker refuses to start the container" in k8s003[4], k8s003
    control = copy_submission(KIMI_DCP8, tmp_path / "control")
    replace_once(control / "run.sh", "--shm-size 32g", "--shm-size 1GiB")   # go-units reads 1GiB: 1 GiB
    assert only(lint(control), "K8S003") == []
