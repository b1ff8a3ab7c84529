"""Launchers, wrappers and multi-node shapes, each built from a published submission changed in
one place: vLLM multi-node (--nnodes / --node-rank / --headless) and data parallel over nodes
(--data-parallel-size-local / --data-parallel-start-rank / --data-parallel-address), SGLang
--node-rank coverage, sglang_router, the wrappers (docker/podman run, srun, torchrun,
mpirun/mpiexec, env, nohup, bash -c) and unrecognised launchers (COV001)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfglint.lint import lint_paths

from support import copy_submission, lint, only, position, replace_once

KIMI_NNODES = "artificial-analysis/kimi-k3/gb300-sglang-tp8-nnodes2"
KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
VLLM_DSV32 = "recipes/vllm-deepseek-v3.2-h20-tp8-parsers"
VLLM_QWEN_DP8 = "recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep"
GPT_OSS_DYNAMO = "nvidia/gpt-oss-120b/b200-dynamo-trtllm-1p1d-tp4-eagle3"


def _manifest(d: Path, pairs: list[tuple[str, str]]) -> None:
    for old, new in pairs:
        replace_once(d / "submission.yaml", old, new)


# -- vLLM: TP x PP over two nodes (docs.vllm.ai "Running vLLM with MultiProcessing") ---------
VLLM_TP = "--tensor-parallel-size 8"
HEAD = "--tensor-parallel-size 8 --pipeline-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr <head-ip>"
WORKER = "--tensor-parallel-size 8 --pipeline-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr <head-ip> --headless"


def _vllm_two_nodes(tmp_path, worker: str | None = WORKER) -> Path:
    d = copy_submission(VLLM_DSV32, tmp_path)
    text = (d / "run.sh").read_text()
    head = text.replace(VLLM_TP, HEAD)
    (d / "run.sh").write_text(head.rstrip() + "\n" + (text.replace(VLLM_TP, worker) if worker else ""))
    _manifest(d, [("accelerators_total: 8", "accelerators_total: 16"),
                  ("accelerators_per_instance: 8", "accelerators_per_instance: 16"),
                  ("accelerators_used: 8", "accelerators_used: 16"), ("    tp: 8", "    tp: 8\n    pp: 2")])
    return d


def test_vllm_head_and_headless_node_are_one_instance(tmp_path):
    assert lint(_vllm_two_nodes(tmp_path)) == []


def test_vllm_duplicated_node_rank(tmp_path):
    d = _vllm_two_nodes(tmp_path, WORKER.replace("--node-rank 1", "--node-rank 0"))
    text = (d / "run.sh").read_text()
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003", "TOP003"]  # no TOP001: still one instance
    dup = [f for f in found if "duplicated node rank 0" in f[4]]
    assert len(dup) == 1 and dup[0][2:4] == position(text, "--node-rank ", 2, after=True)
    missing = [f for f in found if "node rank 1 of 2 never launched" in f[4]]
    assert len(missing) == 1 and missing[0][2:4] == position(text, "--nnodes ", 1, after=True)


def test_vllm_head_alone_is_a_per_node_template(tmp_path):
    # a page that shows the rank-0 command only (and says to run it with --node-rank 1 on the
    # other node) publishes a template, not a missing node
    assert lint(_vllm_two_nodes(tmp_path, worker=None)) == []


def test_vllm_three_nodes_with_two_launched_misses_a_rank(tmp_path):
    d = _vllm_two_nodes(tmp_path)
    text = (d / "run.sh").read_text().replace("--nnodes 2", "--nnodes 3").replace("--pipeline-parallel-size 2",
                                                                                "--pipeline-parallel-size 3")
    (d / "run.sh").write_text(text)
    _manifest(d, [("accelerators_total: 16", "accelerators_total: 24"),
                  ("accelerators_per_instance: 16", "accelerators_per_instance: 24"),
                  ("accelerators_used: 16", "accelerators_used: 24"), ("    pp: 2", "    pp: 3")])
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003"] and "node rank 2 of 3 never launched" in found[0][4]
    assert found[0][2:4] == position(text, "--nnodes ", after=True)


def test_vllm_nnodes_without_master_addr(tmp_path):
    d = _vllm_two_nodes(tmp_path, WORKER.replace(" --master-addr <head-ip>", ""))
    found = only(lint(d), "TOP003")
    assert len(found) == 1 and found[0][4] == ("--nnodes 2 without --master-addr: the nodes cannot find each other; add "
                                               "--master-addr <head-ip> on every node (the head node's address)")
    assert found[0][2:4] == position((d / "run.sh").read_text(), "--nnodes ", 2, after=True)


def test_vllm_nnodes_without_node_rank_says_the_other_nodes_are_headless(tmp_path):
    d = _vllm_two_nodes(tmp_path, worker=None)
    replace_once(d / "run.sh", " --node-rank 0", "")
    found = only(lint(d), "TOP003")
    assert [f[4] for f in found] == ["--nnodes 2 without --node-rank: the nodes cannot find each other; add --node-rank 0 "
                                     "on the head node and --node-rank 1 --headless on the other node"]


def test_vllm_tp_pp_on_one_node_that_is_too_small(tmp_path):
    d = _vllm_two_nodes(tmp_path, worker=None)
    replace_once(d / "run.sh", " --nnodes 2 --node-rank 0 --master-addr <head-ip>", "")
    found = only(lint(d), "TOP003")
    assert len(found) == 1 and "puts 16 accelerators on each of 1 node(s), but the manifest's " \
        "accelerators_per_node is 8; add --nnodes 2 with --node-rank, --master-addr" in found[0][4]


# -- vLLM: data parallel over two nodes (docs.vllm.ai data_parallel_deployment) ------------
def _vllm_dp_two_nodes(tmp_path, start: str = "8", address: str = "--data-parallel-address <head-ip> ") -> Path:
    d = copy_submission(VLLM_QWEN_DP8, tmp_path)
    text = (d / "run.sh").read_text()
    head = text.replace("-dp 8", f"-dp 16 --data-parallel-size-local 8 {address}--data-parallel-rpc-port 13345")
    worker = text.replace("-dp 8", f"-dp 16 --data-parallel-size-local 8 --data-parallel-start-rank {start} "
                                   "--data-parallel-address <head-ip> --data-parallel-rpc-port 13345 --headless")
    (d / "run.sh").write_text(head.rstrip() + "\n" + worker)
    _manifest(d, [("accelerators_total: 8", "accelerators_total: 16"),
                  ("accelerators_per_instance: 8", "accelerators_per_instance: 16"),
                  ("accelerators_used: 8", "accelerators_used: 16"), ("    dp: 8", "    dp: 16"), ("    ep: 8", "    ep: 16")])
    return d


def test_vllm_dp_over_two_nodes_is_one_instance(tmp_path):
    assert lint(_vllm_dp_two_nodes(tmp_path)) == []


def test_vllm_dp_start_rank_duplicated(tmp_path):
    d = _vllm_dp_two_nodes(tmp_path, start="0")
    text = (d / "run.sh").read_text()
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003", "TOP003"]
    dup = [f for f in found if "duplicated data-parallel rank 0..7" in f[4]]
    assert len(dup) == 1 and dup[0][2:4] == position(text, "--data-parallel-start-rank ", after=True)
    assert any("data-parallel rank 8..15 of 16 never launched" in f[4] for f in found)


def test_vllm_dp_over_nodes_without_address(tmp_path):
    d = _vllm_dp_two_nodes(tmp_path, address="")
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003"] and "without --data-parallel-address" in found[0][4]
    assert found[0][2:4] == position((d / "run.sh").read_text(), "--data-parallel-size-local ", after=True)


# -- SGLang: --node-rank must cover 0..nnodes-1 ----------------------------------------------
def _sglang_nodes(tmp_path, first: str, second: str) -> tuple[Path, str]:
    d = copy_submission(KIMI_NNODES, tmp_path)
    text = (d / "run.sh").read_text()
    out = text.replace("<0..1>", first).rstrip() + " &\n" + text.replace("<0..1>", second)
    (d / "run.sh").write_text(out)
    return d, out


def test_sglang_two_nodes_ranks_0_and_1_are_clean(tmp_path):
    d, _ = _sglang_nodes(tmp_path, "0", "1")
    assert lint(d) == []


def test_sglang_both_nodes_rank_0_is_duplicated_node_rank(tmp_path):
    d, text = _sglang_nodes(tmp_path, "0", "0")
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003", "TOP003"]  # not the misleading TOP001 "starts 2 instances"
    dup = [f for f in found if "duplicated node rank 0" in f[4]]
    assert len(dup) == 1 and dup[0][2:4] == position(text, "--node-rank ", 2, after=True) == (24, 15)
    assert "run.sh:8" in dup[0][4]


def test_sglang_rank_out_of_range(tmp_path):
    d, text = _sglang_nodes(tmp_path, "0", "2")
    found = only(lint(d), "TOP003")
    out = [f for f in found if "node rank 2 out of range" in f[4]]
    assert len(out) == 1 and out[0][2:4] == position(text, "--node-rank ", 2, after=True)
    assert any("node rank 1 of 2 never launched" in f[4] for f in found)


def test_sglang_published_range_placeholder_covers_every_rank(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    assert lint(d) == []
    replace_once(d / "run.sh", "<0..1>", "<0..0>")
    found = only(lint(d), "TOP003")
    assert len(found) == 1 and "node rank 1 of 2 never launched" in found[0][4] and found[0][2:4] == (7, 12)


def test_sglang_single_rank_0_launch_is_a_template(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "<0..1>", "0")
    assert lint(d) == []


# -- sglang_router -------------------------------------------------------------------------
B300_PREFIX = "docker run --gpus all --shm-size 32g --network host --ipc=host \\\n  lmsysorg/sglang:kimi-k3 sglang serve"


def _router(tmp_path, tp_dp: str) -> Path:
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", B300_PREFIX, "python3 -m sglang_router.launch_server --router-policy cache_aware \\\n ")
    replace_once(d / "run.sh", "--tp-size 8", tp_dp)
    return d


def test_sglang_router_launch_server_tp4_dp2_on_8_gpus(tmp_path):
    d = _router(tmp_path, "--tp-size 4 --dp-size 2")
    replace_once(d / "submission.yaml", "    tp: 8", "    tp: 4\n    dp: 2")
    found = lint(d)
    # the topology adds up; but each router worker holds all of Kimi K3 on 4 GPUs, which its
    # weights (2.8T parameters, MXFP4 experts) do not fit: a true MEM001, at the TP flag
    assert [f for f in found if f[0] != "MEM001"] == []
    assert [(f[1], f[2], f[3]) for f in only(found, "MEM001")] == [("run.sh", 4, 67)]
    assert "~372.7 GiB per GPU at TP 4" in only(found, "MEM001")[0][4]


def test_sglang_router_dp_workers_stay_on_one_node(tmp_path):
    d = _router(tmp_path, "--tp-size 8 --dp-size 2 --enable-dp-attention")
    replace_once(d / "submission.yaml", "    tp: 8", "    tp: 8\n    dp: 2")
    found = lint(d)
    top1 = only(found, "TOP001")
    # each router worker is its own server with dp_size 1: DP attention does not fold DP into TP here
    assert len(top1) == 1 and "uses 16 accelerators (TP 8 x DP 2 router workers)" in top1[0][4]
    assert top1[0][2:4] == position((d / "run.sh").read_text(), "--tp-size ", after=True) == (4, 67)
    top3 = only(found, "TOP003")
    assert len(top3) == 1 and "starts all --dp-size workers on this one node" in top3[0][4]
    assert "sglang_router.launch_router" in top3[0][4]


def test_sglang_launch_router_is_a_router_not_an_instance(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text(text + "python3 -m sglang_router.launch_router --worker-urls http://127.0.0.1:30000 "
                                     "--policy cache_aware &\n")
    # no instance, no TOP finding; its flags are the router's (rules/releases/sglang-router.yaml), all known
    assert lint(d, coverage=True) == []
    (d / "run.sh").write_text(text + "python3 -m sglang_router.launch_router --worker-urls http://127.0.0.1:30000 "
                                     "--polcy cache_aware &\n")
    found = lint(d, coverage=True)
    assert [f[0] for f in found] == ["FLG001"]
    assert found[0][4].startswith("sglang_router.launch_router has no flag --polcy: did you mean --policy? (in no "
                                  "sglang-router release cfglint holds, 0.0.11-0.3.2: the manifest's engine.version "
                                  "names SGLang kimi-k3; which sglang-router release that bundles")


# -- wrappers around a published launch ------------------------------------------------------
WRAPPED = {
    "podman": "podman run --rm -it --device nvidia.com/gpu=all --env-file ./env.list -e HF_TOKEN=<token> "
              "--ipc=host \\\n  lmsysorg/sglang:kimi-k3 sglang serve",
    # (--ipc=host: an 8-GPU container without the host's IPC or a large /dev/shm is K8S003's, issue 23)
    "docker-env": "docker run -d --gpus '\"device=0,1,2,3,4,5,6,7\"' --env NCCL_DEBUG=INFO -e HF_HOME=/hf --rm --ipc=host "
                  "\\\n  lmsysorg/sglang:kimi-k3 sglang serve",
    "srun": "srun -N 1 --ntasks-per-node=1 --gpus-per-node 8 --container-image lmsysorg/sglang:kimi-k3 "
            "--container-mounts <host-path>:/models --overlap -l \\\n  sglang serve",
    "torchrun": "torchrun --nnodes 1 --nproc_per_node=1 --rdzv-backend c10d -m \\\n  sglang.launch_server",
    "mpirun": "mpirun --allow-run-as-root -np 1 -N 1 -H node1:1 -x NCCL_DEBUG=INFO --map-by ppr:1:node "
              "--mca btl tcp,self \\\n  python3 -m sglang.launch_server",
    "mpiexec": "mpiexec -n 1 -ppn 1 -hosts node1 -genv NCCL_DEBUG INFO \\\n  python3 -m sglang.launch_server",
    "env-nohup": "env -u CUDA_VISIBLE_DEVICES -i PATH=/usr/bin SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION=4096 nohup timeout -k 5 3600 \\\n  sglang serve",
    "bash-c": "docker run --gpus all --ipc=host lmsysorg/sglang:kimi-k3 \\\n  bash -lc \"cd /sgl-workspace && sglang serve",
}


def _wrapped(tmp_path, shape: str) -> tuple[Path, str]:
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", B300_PREFIX, WRAPPED[shape])
    if shape == "bash-c":
        (d / "run.sh").write_text((d / "run.sh").read_text().rstrip() + '"\n')
    return d, (d / "run.sh").read_text()


@pytest.mark.parametrize("shape", sorted(WRAPPED))
def test_wrapped_launch_is_recognised_and_clean(tmp_path, shape):
    d, _ = _wrapped(tmp_path, shape)
    assert lint(d, coverage=True) == []


@pytest.mark.parametrize("shape", sorted(WRAPPED))
def test_wrapped_launch_flags_are_read(tmp_path, shape):
    d, _ = _wrapped(tmp_path, shape)
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4")
    text = (d / "run.sh").read_text()
    found = lint(d)
    # per-instance count, the declared tp, and Kimi K3's weights, which do not fit 4 B300s (MEM001)
    assert sorted(f[0] for f in found) == ["MEM001", "TOP001", "TOP002"]
    top1 = only(found, "TOP001")
    assert "uses 4 accelerators (TP 4)" in top1[0][4] and top1[0][2:4] == position(text, "--tp-size ", after=True)


def test_mpiexec_ranks_against_trtllm_tp(tmp_path):
    d = copy_submission(GPT_OSS_DYNAMO, tmp_path)
    replace_once(d / "run.sh", "mpirun --allow-run-as-root -n 4", "mpiexec -ppn 4 -genv NCCL_DEBUG INFO -np 4")
    assert lint(d) == []
    replace_once(d / "run.sh", "-np 4", "-np 2")
    text = (d / "run.sh").read_text()
    found = only(lint(d), "TOP003")
    # the decode engine YAML is not published: the ranks are what the worker runs, and they no
    # longer match its CUDA_VISIBLE_DEVICES
    assert len(found) == 1 and "lists 4 GPU(s) but the worker runs mpirun -n 2 = 2" in found[0][4]
    assert found[0][2:4] == position(text, "CUDA_VISIBLE_DEVICES=", 2, after=True)


# -- launches whose launcher is not recognised ---------------------------------------------
def _coverage(d: Path):
    return [f for f in lint_paths([str(d)]).findings if f.rule_id == "COV001"]


@pytest.mark.parametrize("launcher,shown", [("my-launcher serve", "my-launcher"),
                                            ("python3 -m sglang.launch_server_v2", "python3 -m sglang.launch_server_v2"),
                                            ("python3 serve_kimi.py", "python3 serve_kimi.py")])
def test_unrecognised_launcher_is_reported_not_dropped(tmp_path, launcher, shown):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", B300_PREFIX, launcher + " \\\n ")
    notes = _coverage(d)
    assert len(notes) == 1 and f"launcher '{shown}' not recognised" in notes[0].message
    spans = [(s.path.endswith("run.sh"), s.line, s.col) for s, text in notes[0].related if "not recognised" in text]
    assert spans == [(True, 2, 1)]


def test_engine_tools_are_not_unrecognised_launchers(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text(text + "python3 -m sglang.compile_deep_gemm --model-path moonshotai/Kimi-K3 --tp-size 8\n"
                                     "python3 -m sglang.bench_serving --backend sglang --num-prompts 100\n")
    assert _coverage(d) == []


def test_env_from_docker_e_and_env_u(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--ipc=host", "--ipc=host -e CUDA_VISIBLE_DEVICES=0,1,2,3")
    text = (d / "run.sh").read_text()
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003"] and "CUDA_VISIBLE_DEVICES=0,1,2,3 lists 4 GPU(s)" in found[0][4]
    assert found[0][2:4] == position(text, "CUDA_VISIBLE_DEVICES=", after=True)
    replace_once(d / "run.sh", "lmsysorg/sglang:kimi-k3 sglang serve",
                 "lmsysorg/sglang:kimi-k3 env -u CUDA_VISIBLE_DEVICES sglang serve")
    assert lint(d) == []  # env -u removed it before the server starts


def test_docker_gpus_fewer_than_the_worker_needs(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--gpus all", "--gpus '\"device=0,1,2,3\"'")
    text = (d / "run.sh").read_text()
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003"] and "gives the container 4 GPU(s) but the worker runs TP 8" in found[0][4]
    assert found[0][2:4] == position(text, "--gpus ", after=True)
    replace_once(d / "run.sh", "device=0,1,2,3", "device=0,1,2,3,4,5,6,7")
    assert lint(d) == []


def test_srun_nodes_against_nnodes(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "sglang serve", "srun -N 2 --ntasks-per-node 1 --container-image lmsysorg/sglang:kimi-k3 sglang serve")
    assert lint(d) == []
    replace_once(d / "run.sh", "srun -N 2", "srun -N 1")
    text = (d / "run.sh").read_text()
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003"] and "srun -N 1 starts the launch on 1 node(s) but the worker runs --nnodes 2" in found[0][4]
    assert found[0][2:4] == position(text, "srun -N ", after=True)


def _vllm_external_lb(tmp_path, ranks) -> tuple[Path, str]:
    """vLLM data parallel with external load balancing: one `vllm serve --data-parallel-rank R`
    per GPU (docs.vllm.ai data_parallel_deployment, 'External Load Balancing')."""
    d = copy_submission(VLLM_QWEN_DP8, tmp_path)
    text = (d / "run.sh").read_text()
    out = "".join(f"CUDA_VISIBLE_DEVICES={i} " + text.replace("-dp 8", f"-dp 8 --data-parallel-rank {r} --port {8000 + i}")
                  .rstrip() + " &\n" for i, r in enumerate(ranks))
    (d / "run.sh").write_text(out)
    return d, out


def test_vllm_external_lb_ranks_are_one_instance(tmp_path):
    d, _ = _vllm_external_lb(tmp_path, range(8))
    assert lint(d) == []


def test_vllm_external_lb_duplicated_rank(tmp_path):
    d, text = _vllm_external_lb(tmp_path, [0, 1, 2, 3, 4, 5, 6, 6])
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003", "TOP003"]
    dup = [f for f in found if "duplicated data-parallel rank 6" in f[4]]
    assert len(dup) == 1 and dup[0][2:4] == position(text, "--data-parallel-rank ", 8, after=True)
    assert any("data-parallel rank 7 of 8 never launched" in f[4] for f in found)


def test_cuda_visible_devices_of_one_node_of_a_multi_node_instance(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "sglang serve", "CUDA_VISIBLE_DEVICES=0,1,2,3 sglang serve")
    assert lint(d) == []  # TP 8 over --nnodes 2: 4 GPUs on each node
    replace_once(d / "run.sh", "CUDA_VISIBLE_DEVICES=0,1,2,3", "CUDA_VISIBLE_DEVICES=0,1")
    found = lint(d)
    assert [f[0] for f in found] == ["TOP003"] and "lists 2 GPU(s) but the worker runs TP 8 over 2 nodes = 4 " \
        "on this node" in found[0][4]
    assert found[0][2:4] == (2, 22)


def test_vllm_nodes_of_one_instance_disagree_on_tp(tmp_path):
    d = _vllm_two_nodes(tmp_path, WORKER.replace("--tensor-parallel-size 8", "--tensor-parallel-size 4"))
    text = (d / "run.sh").read_text()
    found = only(lint(d), "TOP003")
    assert len(found) == 1 and "TP 4 here but 8 on the first node of this instance" in found[0][4]
    assert found[0][2:4] == position(text, "--tensor-parallel-size ", 2, after=True)
