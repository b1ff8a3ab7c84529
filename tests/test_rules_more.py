"""TOP003, TOP004, SPEC002, SPEC003, DIS001, HW003 on published submissions changed in one
place, with the negative controls the rules must not trip on."""

from __future__ import annotations

from support import copy_submission, lint, only, replace_once

KIMI_NNODES = "artificial-analysis/kimi-k3/gb300-sglang-tp8-nnodes2"
GPTOSS_TP4 = "nvidia/gpt-oss-120b/b200-dynamo-trtllm-1p1d-tp4-eagle3"
GLM_GB300_EAGLE = "nvidia/glm-5.2/gb300-sglang-2x4-tp8-eagle6-maxreq16"
GLM_B300_EAGLE = "nvidia/glm-5.2/glm-5-2-sglang-ifb-tp8-eagle-low-latency-b300-v1"
GLM_DP8 = "nvidia/glm-5.2/b300-sglang-tp8-dp8-eagle3-maxreq256"
DSV4_DYNAMO = "nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d"
KIMI_NIXL = "nvidia/kimi-k3/gb300-dynamo-sglang-2p1d-hicache-nixl"
DSV4_MI355X = "artificial-analysis/deepseek-v4-pro/mi355x-sglang-tp8-a"


def test_top003_nnodes_without_rank_and_address(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "  --node-rank <0..1> \\\n", "")
    found = only(lint(d), "TOP003")
    assert [(f[2], f[3]) for f in found] == [(7, 12)]
    # what to add on each node, not only what is missing
    assert found[0][4] == ("--nnodes 2 without --node-rank: the nodes cannot find each other; add --node-rank 0 on the "
                           "head node and --node-rank 1 on the other node")
    replace_once(d / "run.sh", "  --dist-init-addr <head-ip>:20000 \\\n", "")
    replace_once(d / "run.sh", "  --nnodes 2 \\\n", "  --nnodes 4 \\\n")
    (found,) = only(lint(d), "TOP003")
    assert found[4] == ("--nnodes 4 without --node-rank and --dist-init-addr: the nodes cannot find each other; add "
                        "--node-rank 0 on the head node and --node-rank 1 ... 3 on the other nodes (one rank each), and "
                        "--dist-init-addr <head-ip>:<port> on every node (the head node's address)")


def test_top003_more_per_node_than_a_node_holds(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "  --nnodes 2 \\\n", "")
    found = only(lint(d), "TOP003")
    assert len(found) == 1 and "puts 8 accelerators on each of 1 node(s)" in found[0][4]
    assert "add --nnodes 2" in found[0][4]


def test_top003_colocated_workers_share_a_gpu(tmp_path):
    d = copy_submission(GPTOSS_TP4, tmp_path)
    line = replace_once(d / "run.sh", "CUDA_VISIBLE_DEVICES=1,2,3,4 mpirun", "CUDA_VISIBLE_DEVICES=0,1,2,3 mpirun")
    found = only(lint(d), "TOP003")
    assert [(f[2], f[3]) for f in found] == [(line, 22)] and "GPU 0 is given to two workers" in found[0][4]


def test_top003_mpirun_ranks_vs_devices(tmp_path):
    d = copy_submission(GPTOSS_TP4, tmp_path)
    replace_once(d / "run.sh", "CUDA_VISIBLE_DEVICES=1,2,3,4 mpirun", "CUDA_VISIBLE_DEVICES=1,2,3 mpirun")
    found = only(lint(d), "TOP003")
    assert len(found) == 1 and "lists 3 GPU(s) but the worker runs mpirun -n 4 = 4" in found[0][4]


def test_top004_ep_must_divide_tp(tmp_path):
    d = copy_submission(KIMI_NIXL, tmp_path)
    line = replace_once(d / "prefill.args", "--tensor-parallel-size 8", "--tensor-parallel-size 8\n--ep-size 3")
    found = only(lint(d), "TOP004")
    assert [(f[1], f[2] ) for f in found] == [("prefill.args", line + 1)] and "EP 3 does not divide TP 8" in found[0][4]


def test_top004_trtllm_moe_tp_times_ep(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    replace_once(d / "gen_config.yaml", "moe_expert_parallel_size: 8", "moe_expert_parallel_size: 4\nmoe_tensor_parallel_size: 4")
    found = only(lint(d), "TOP004")
    assert len(found) == 1 and "4 x moe_expert_parallel_size 4 = 16 but tensor_parallel_size is 8" in found[0][4]


def test_spec002_topk1_draft_is_steps_plus_one_negative_control():
    # steps 5 / topk 1 / draft 6 as published: right, no finding
    from support import EXAMPLES
    assert only(lint(EXAMPLES / GLM_B300_EAGLE), "SPEC002") == []


def test_spec002_topk1_draft_not_steps_plus_one(tmp_path):
    d = copy_submission(GLM_GB300_EAGLE, tmp_path)
    line = replace_once(d / "ifb_config.yaml", "speculative-num-steps: 5", "speculative-num-steps: 3")
    found = only(lint(d), "SPEC002")
    assert len(found) == 1 and found[0][2] == line - 1
    assert "runs --speculative-num-steps 3 + 1 = 4 draft tokens, not 6" in found[0][4]


def test_spec002_draft_exceeds_tree(tmp_path):
    d = copy_submission(GLM_GB300_EAGLE, tmp_path)
    replace_once(d / "ifb_config.yaml", "speculative-eagle-topk: 1", "speculative-eagle-topk: 2")
    # 2 steps at top-k 2 hold 2 + 1 x 4 candidates and the root: 7 >= the 6 draft tokens (issue 23);
    # 1 step holds 2 and the root: 3
    replace_once(d / "ifb_config.yaml", "speculative-num-steps: 5", "speculative-num-steps: 2")
    assert only(lint(d), "SPEC002") == []
    replace_once(d / "ifb_config.yaml", "speculative-num-steps: 2", "speculative-num-steps: 1")
    found = only(lint(d), "SPEC002")
    assert len(found) == 1 and "6 draft tokens exceed what 1 steps at top-k 2 can produce: the draft tree has " \
        "top-k + (steps - 1) x top-k^2 = 2 candidates plus its root, 3" in found[0][4]


def test_spec002_prefill_and_decode_draft_alike(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    text = (d / "gen_config.yaml").read_text()
    (d / "gen_config.yaml").write_text(text.replace("num_nextn_predict_layers: 3", "num_nextn_predict_layers: 2"))
    found = only(lint(d), "SPEC002")
    assert len(found) == 1 and "decode runs MTP num_nextn_predict_layers 2 but prefill runs MTP num_nextn_predict_layers 3" in found[0][4]


def test_spec003_token_budget(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    line = replace_once(d / "gen_config.yaml", "max_num_tokens: 1152", "max_num_tokens: 1151")
    found = only(lint(d), "SPEC003")
    assert [(f[1], f[2]) for f in found] == [("gen_config.yaml", line)]
    assert "max_num_tokens 1151 < max_batch_size 288 x (3 draft + 1) = 1152" in found[0][4]


GPTOSS_DEP8 = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"
EAGLE3 = ("speculative_config:\n  decoding_type: Eagle3\n  max_draft_len: 3\n"
          "  speculative_model: nvidia/gpt-oss-120b-Eagle3-v3\n")


def _dep8_eagle3(tmp_path):
    """TensorRT-LLM's gpt-oss DEP8 recipe (trtllm-serve --max_batch_size 720 --max_num_tokens 16384)
    with an Eagle3 draft of 3 tokens in its extra_llm_api_options heredoc (as the published
    b200-trtllm-tp1-eagle3 writes it): 720 x (3 + 1) = 2880 tokens fit 16384."""
    d = copy_submission(GPTOSS_DEP8, tmp_path)
    replace_once(d / "run.sh", "num_postprocess_workers: 4\n", "num_postprocess_workers: 4\n" + EAGLE3)
    return d


def test_spec003_reads_the_trtllm_serve_command_line(tmp_path):
    d = _dep8_eagle3(tmp_path)
    assert only(lint(d), "SPEC003") == []
    line = replace_once(d / "run.sh", "--max_num_tokens 16384", "--max_num_tokens 2048")
    found = only(lint(d), "SPEC003")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 22)]
    assert found[0][4].startswith("max_num_tokens 2048 < max_batch_size 720 x (3 draft + 1) = 2880")


def test_spec003_the_extra_yaml_wins_over_the_command_line(tmp_path):
    # trtllm-serve merges the extra YAML over its CLI values (tensorrt_llm/commands/serve.py serve:
    # update_llm_args_with_extra_dict; rules/engines.yaml trtllm settings)
    d = _dep8_eagle3(tmp_path)
    replace_once(d / "run.sh", "--max_num_tokens 16384", "--max_num_tokens 2048")
    replace_once(d / "run.sh", "stream_interval: 10\n", "stream_interval: 10\nmax_num_tokens: 4096\n")
    assert only(lint(d), "SPEC003") == []      # 4096 is in effect, not the CLI's 2048
    line = replace_once(d / "run.sh", "max_num_tokens: 4096\n", "max_num_tokens: 2000\n")
    found = only(lint(d), "SPEC003")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 17)]   # the YAML's value, not the CLI's
    assert found[0][4].startswith("max_num_tokens 2000 < max_batch_size 720 x (3 draft + 1) = 2880")


def test_dis001_transfer_backends_differ(tmp_path):
    d = copy_submission(KIMI_NIXL, tmp_path)
    line = replace_once(d / "decode.args", "--disaggregation-transfer-backend nixl", "--disaggregation-transfer-backend mooncake")
    found = only(lint(d), "DIS001")
    assert [(f[1], f[2]) for f in found] == [("decode.args", line)] and "prefill uses nixl" in found[0][4]


def test_dis001_trtllm_role_without_cache_transceiver(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    text = (d / "ctx_config.yaml").read_text()
    start = text.index("cache_transceiver_config:")
    end = text.index("scheduler_config:")
    (d / "ctx_config.yaml").write_text(text[:start] + text[end:])
    found = only(lint(d), "DIS001")
    assert len(found) == 1 and found[0][1] == "ctx_config.yaml" and "no cache_transceiver_config" in found[0][4]


def test_hw003_rocm_image_on_nvidia(tmp_path):
    d = copy_submission(DSV4_MI355X, tmp_path)
    assert only(lint(d), "HW003") == []
    replace_once(d / "submission.yaml", "accelerator: MI355X", "accelerator: B200")
    found = only(lint(d), "HW003")
    assert len(found) == 1 and found[0][2] == 26 and "built for AMD accelerators but the system is B200" in found[0][4]


def test_hw002_blackwell_only_attention_backend_on_hopper(tmp_path):
    d = copy_submission("artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle", tmp_path)
    line = replace_once(d / "run.sh", "--moe-runner-backend marlin", "--moe-runner-backend marlin --attention-backend trtllm_mla")
    found = only(lint(d), "HW002")
    assert [(f[1], f[2]) for f in found] == [("run.sh", line)]
    assert "trtllm_mla on H200 (sm90" in found[0][4] and "only supported on Blackwell" in found[0][4]
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: B200")
    assert only(lint(d), "HW002") == []


def test_spec002_eagle_steps3_topk1_draft4_is_right():
    # the negative control: SGLang's DeepSeek-V3.2 MTP recipe, EAGLE 3 steps / topk 1 / 4 draft tokens
    from support import EXAMPLES
    rel = EXAMPLES / "recipes" / "sglang-deepseek-v3.2-exp-h200-tp8-dp8-mtp"
    text = (rel / "run.sh").read_text()
    assert "--speculative-num-steps 3" in text and "--speculative-eagle-topk 1" in text
    assert "--speculative-num-draft-tokens 4" in text
    assert lint(rel) == []


def test_top004_tp_must_divide_attention_heads(tmp_path):
    d = copy_submission("artificial-analysis/kimi-k3/b300-sglang-tp8", tmp_path)  # Kimi K3: 96 heads
    line = replace_once(d / "run.sh", "--tp-size 8", "--tp-size 5")
    found = only(lint(d), "TOP004")
    assert [(f[2], f[3]) for f in found] == [(line, 67)]
    assert "attention TP 5 does not divide the 96 attention heads of moonshotai/Kimi-K3" in found[0][4]


def test_hw002_trtllm_gen_moe_outside_blackwell(tmp_path):
    d = copy_submission("nvidia/gpt-oss-120b/b200-trtllm-tp1-eagle3", tmp_path)  # moe_config.backend: TRTLLM
    assert only(lint(d), "HW002") == []
    replace_once(d / "submission.yaml", "accelerator: B200", "accelerator: H200")
    found = only(lint(d), "HW002")
    assert len(found) == 1 and found[0][1] == "extra_llm_api_options.yaml" and "SM100 or SM103" in found[0][4]
