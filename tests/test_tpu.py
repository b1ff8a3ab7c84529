"""Google Cloud TPUs on GKE: a pod's google.com/tpu chips are counted like GPUs (K8S001, the
accelerator resource table of rules/accelerators.yaml), the slice topology its node selector asks
for is weighed against the chips of one instance, the TPU generation label names an accelerator
(K8S002) and a declared TPU generation gives MEM001 its HBM per chip.

Every case is the published LeaderWorkerSet of vLLM on TPU v5e (kubernetes-sigs/lws
docs/examples/vllm/TPU/lws.yaml, corpus 049: 4 pods per group x google.com/tpu 4, topology 4x4,
--tensor-parallel-size=16) changed in one place."""

from __future__ import annotations

from pathlib import Path

from cfglint.knowledge import knowledge
from cfglint.lint import lint_paths

from support import shared

TPU = "049-lws-tpu-lws/lws.yaml"
CHIPS = 'google.com/tpu: "4"'             # the leader's is the first of two
TOPOLOGY = "cloud.google.com/gke-tpu-topology: 4x4"   # the leader's is the first of two
TP = "--tensor-parallel-size=16"


def _copy(tmp_path: Path, old: str | None = None, new: str | None = None, name: str = "lws.yaml") -> Path:
    """The corpus file copied to ``tmp_path``, its first ``old`` replaced by ``new``."""
    text = shared("corpus").joinpath(TPU).read_text(encoding="utf-8")
    if old is not None:
        assert old in text, old
        text = text.replace(old, new, 1)
    out = tmp_path / name
    out.write_text(text, encoding="utf-8")
    return out


def _lint(path: Path) -> list[tuple]:
    return [(f.rule_id, f.level, f.span.line, f.span.col, f.message) for f in lint_paths([str(path)]).findings]


def _rules(found: list[tuple], rule: str) -> list[tuple]:
    return [f for f in found if f[0] == rule]


def _line(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1) if needle in line)


def test_the_published_tpu_group_is_counted_and_matches(tmp_path):
    path = _copy(tmp_path)
    found = _lint(path)
    assert not _rules(found, "K8S001"), found
    # the count is weighed now: no note says it is not; the file is no longer COV001-only
    assert not [f for f in found if f[0] == "COV001" and "google.com/tpu" in f[4]], found
    assert not (found and all(f[0] == "COV001" for f in found)), found
    # the vLLM TPU image's flags are vLLM's: none is reported
    assert not [f for f in found if f[0].startswith("FLG")], found


def test_tp_smaller_than_the_groups_chips_is_k8s001_with_the_right_tp(tmp_path):
    path = _copy(tmp_path, TP, "--tensor-parallel-size=8")
    k = _rules(_lint(path), "K8S001")
    assert len(k) == 1, k
    rule, level, line, _col, msg = k[0]
    assert (level, line) == ("error", _line(path, CHIPS))
    assert "google.com/tpu: 4 x 4 pods per group (LeaderWorkerSet size" in msg, msg
    assert "gives the engine 16 TPU chips but it runs TP 8" in msg, msg
    assert "the 4x4 slice" in msg and "make TP x PP 16" in msg, msg


def test_a_slice_smaller_than_the_group_is_k8s001_at_the_topology(tmp_path):
    path = _copy(tmp_path, TOPOLOGY, "cloud.google.com/gke-tpu-topology: 2x4")
    k = _rules(_lint(path), "K8S001")
    assert len(k) == 1, k
    _rule, level, line, col, msg = k[0]
    assert (level, line) == ("error", _line(path, "gke-tpu-topology: 2x4"))
    assert col == path.read_text(encoding="utf-8").split("\n")[line - 1].index("2x4") + 1
    assert "2x4 is a slice of 8 TPU chips" in msg and "group of 4 pods" in msg and "asks for 16" in msg, msg
    # the right value comes from the v5e entry's topologies (rules/accelerators.yaml)
    assert "use a 16-chip topology (4x4 for TPU-v5e)" in msg, msg


def test_more_chips_per_pod_than_the_launch_uses_is_k8s001_on_the_count(tmp_path):
    path = _copy(tmp_path, CHIPS, 'google.com/tpu: "8"')
    k = _rules(_lint(path), "K8S001")
    # the 4x4 slice holds the engine's 16 chips: the per-pod count is what is wrong, said once
    assert len(k) == 1, k
    assert k[0][2] == _line(path, 'google.com/tpu: "8"')
    assert "google.com/tpu: 8 x 4 pods per group" in k[0][4] and "32 TPU chips but it runs TP 16" in k[0][4], k
    assert k[0][4].endswith("set google.com/tpu: 4"), k


def test_a_topology_that_is_no_slice_shape_is_a_note(tmp_path):
    path = _copy(tmp_path, TOPOLOGY, "cloud.google.com/gke-tpu-topology: four-by-four")
    found = lint_paths([str(path)]).findings
    assert not [f for f in found if f.rule_id == "K8S001"]
    notes = [m for f in found if f.rule_id == "COV001" for _s, m in f.related]
    assert any("TPU slice topology (K8S001)" in m and "four-by-four" in m for m in notes), notes


def test_tpu_pods_are_not_asked_for_nccl_shared_memory_and_gpu_pods_still_are(tmp_path):
    # without the /dev/shm mount (leader only): TPU chips are not NCCL GPUs (rules/accelerators.yaml nccl_shm)
    mount = "            volumeMounts:\n              - mountPath: /dev/shm\n                name: dshm\n        volumes:"
    bare = _copy(tmp_path, mount, "        volumes:", name="bare.yaml")
    assert not _rules(_lint(bare), "K8S003")
    gpu = tmp_path / "gpu.yaml"
    gpu.write_text(bare.read_text(encoding="utf-8").replace(CHIPS, 'nvidia.com/gpu: "4"', 1), encoding="utf-8")
    k = _rules(_lint(gpu), "K8S003")
    assert len(k) == 1 and "default 64 MiB /dev/shm" in k[0][4], k


def _submission(tmp_path: Path, lws: Path, accelerator: str = "TPU-v5e") -> Path:
    """A submission manifest (ours, not a corpus file) declaring the published system."""
    (tmp_path / "submission.yaml").write_text(
        "schema_version: 1\nsubmitter: test\nmodel: meta-llama/Llama-3.3-70B-Instruct\nprecision: BF16\n"
        f"system:\n  accelerator: {accelerator}\n  accelerators_total: 32\nengine:\n  name: vllm\n"
        "serving:\n  mode: aggregated\n  roles:\n  - name: server\n    instances: 2\n    accelerators_per_instance: 16\n"
        f"    tp: 16\naccelerators_used: 32\nfiles:\n  deploy:\n  - {lws.name}\n", encoding="utf-8")
    return tmp_path


def test_mem001_weighs_the_weights_against_the_tpu_chips_hbm(tmp_path):
    # Llama-3.3-70B in BF16 (~141 GB) over 16 v5e chips of 16 GB: fits
    ok = tmp_path / "ok"
    ok.mkdir()
    sub = _submission(ok, _copy(ok))
    assert not _rules(_lint(sub), "MEM001")
    assert not [f for f in lint_paths([str(sub)]).findings for _s, m in f.related
                if "MEM001" in m and "not" in m]
    # over 4 chips: ~33 GiB per chip, more than a v5e chip holds
    bad = tmp_path / "bad"
    bad.mkdir()
    sub = _submission(bad, _copy(bad, TP, "--tensor-parallel-size=4"))
    m = _rules(_lint(sub), "MEM001")
    assert len(m) == 1, m
    # per chip, as TPU HBM is counted (was "per GPU"), and the fix names chips
    assert "per chip at TP 4 but TPU-v5e leaves" in m[0][4] and "x 16.0 GiB" in m[0][4], m
    assert "more chips per instance (TP " in m[0][4], m


def test_explain_counts_tpu_chips_and_gpu_pods_count_gpus(tmp_path):
    from cfglint.output.explain import as_text, explain, report
    from cfglint.deploy.extract import extract
    from cfglint.load.submission import load_loose_file

    texts = {}
    gpu = _copy(tmp_path, name="gpu.yaml")
    gpu.write_text(gpu.read_text(encoding="utf-8").replace(CHIPS, 'nvidia.com/gpu: "4"'), encoding="utf-8")  # both pods
    for name, path in (("tpu", _copy(tmp_path)), ("gpu", gpu)):
        sub = load_loose_file(str(path))
        dep = extract(knowledge(), sub.manifest, sub.launches, sub.configs)
        doc = explain(sub, dep, knowledge(), str)
        texts[name] = (doc["topology"]["device"], as_text(report([doc])))
    device, text = texts["tpu"]
    assert device == "TPU chip" and "16 TPU chip(s) per instance (TP 16)" in text and "GPU(s)" not in text
    device, text = texts["gpu"]
    assert device == "GPU" and "16 GPU(s) per instance (TP 16)" in text


def test_the_tpu_generation_label_names_the_accelerator(tmp_path):
    same = tmp_path / "same"
    same.mkdir()
    assert not _rules(_lint(_submission(same, _copy(same))), "K8S002")
    other = tmp_path / "other"
    other.mkdir()
    k = _rules(_lint(_submission(other, _copy(other), accelerator="TPU-v6e")), "K8S002")
    assert k and all("tpu-v5-lite-podslice pins the pods to TPU-v5e nodes but the submission declares TPU-v6e"
                     in f[4] for f in k), k


def test_the_gke_label_values_resolve_to_their_generations():
    kb = knowledge()
    for generation in ("TPU-v4", "TPU-v5e", "TPU-v5p", "TPU-v6e"):
        entry = kb.accelerator(generation)
        assert entry["vendor"] == "Google" and entry.get("source"), generation
        for label in entry["gke_accelerator"]:
            assert kb.accelerator(label)["name"] == generation, label
        assert entry["per_node"] == max(entry["chips_per_host"].values()), generation
    assert kb.device_resources["google.com/tpu"]["topology_label"] == "cloud.google.com/gke-tpu-topology"
