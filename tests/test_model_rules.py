"""Rules that use model and hardware knowledge (TOP004 KV heads and FP8 block shards, MEM002,
PRS002 formats, PRS004, HW001 for NVFP4 DeepSeek-R1 builds, HW002 FP8 KV cache, TOP002 EP
and precision), each on a published submission changed in one place, with its control.

A test whose model fact is not in the knowledge base yet skips and names the missing fact;
it never passes without checking."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cfglint.knowledge import knowledge
from cfglint.lint import lint_paths
from support import copy_submission, lint, only, replace_once, shared

DSV32_VLLM = "recipes/vllm-deepseek-v3.2-h20-tp8-parsers"
DSV4_H200 = "artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle"
QWEN35_VLLM = "recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep"
GLM51_VLLM = "recipes/vllm-glm-5.1-fp8-h200-tp8-mtp3"
KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"


def need(model_id: str, *keys: str) -> dict:
    """The knowledge-base entry of ``model_id``; skips the test while a fact it uses is missing."""
    entry = knowledge().model(model_id)
    if entry is None:
        pytest.skip(f"{model_id} is not in the knowledge base yet")
    for key in keys:
        if entry.get(key) is None:
            pytest.skip(f"the knowledge base has no {key} for {model_id} yet")
    return entry


# -- TOP004: FP8 block shards and KV heads --------------------------------------------------
def test_top004_fp8_block_shard_under_vllm_dp_without_ep(tmp_path):
    entry = need("deepseek-ai/DeepSeek-V3.2", "moe_intermediate_size", "quantization")
    assert entry["moe_intermediate_size"] == 2048 and entry["quantization"]["weight_block_size"] == [128, 128]
    d = copy_submission(DSV32_VLLM, tmp_path)
    line = replace_once(d / "run.sh", "--tensor-parallel-size 8 \\", "--tensor-parallel-size 8 --data-parallel-size 4 \\")
    found = only(lint(d), "TOP004")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 27)]
    msg = found[0][4]
    assert "MoE TP 32 (TP 8 x DP 4)" in msg and "2048-wide moe_intermediate_size" in msg
    assert "64-wide shards, not a multiple of its FP8 block 128" in msg
    assert "use MoE TP 16" in msg and "--enable-expert-parallel" in msg


def test_top004_fp8_block_shard_fixed_by_expert_parallel(tmp_path):
    need("deepseek-ai/DeepSeek-V3.2", "moe_intermediate_size", "quantization")
    d = copy_submission(DSV32_VLLM, tmp_path)
    replace_once(d / "run.sh", "--tensor-parallel-size 8 \\",
                 "--tensor-parallel-size 8 --data-parallel-size 4 --enable-expert-parallel \\")
    assert only(lint(d), "TOP004") == []
    assert only(lint(copy_submission(DSV32_VLLM, tmp_path / "unchanged")), "TOP004") == []


def test_top004_fp8_block_shard_sglang_tp16(tmp_path):
    # GLM-5.1-FP8: moe_intermediate_size 2048, block 128 -> TP 32 gives 64-wide shards; --ep-size fixes it
    need("zai-org/GLM-5.1-FP8", "moe_intermediate_size", "quantization")
    d = copy_submission(GLM51_VLLM, tmp_path)
    line = replace_once(d / "run.sh", "--tensor-parallel-size 8", "--tensor-parallel-size 32")
    found = only(lint(d), "TOP004")
    assert [(f[2], f[3]) for f in found] == [(line, 29)]
    assert "MoE TP 32 (TP 32) cuts the 2048-wide" in found[0][4] and "use MoE TP 16" in found[0][4]


def test_top004_kv_heads_must_split_evenly(tmp_path):
    # Qwen3-Coder-480B: 96 query heads, 8 KV heads. TP 12 divides 96 but neither divides 8 nor
    # is a multiple of it. (Two edits: no published configuration serves a model whose KV heads
    # a power-of-two TP can split unevenly.)
    entry = need("Qwen/Qwen3-Coder-480B-A35B-Instruct", "num_attention_heads", "num_key_value_heads")
    assert (entry["num_attention_heads"], entry["num_key_value_heads"]) == (96, 8)
    d = copy_submission(DSV32_VLLM, tmp_path)
    replace_once(d / "run.sh", "vllm serve deepseek-ai/DeepSeek-V3.2", "vllm serve Qwen/Qwen3-Coder-480B-A35B-Instruct")
    line = replace_once(d / "run.sh", "--tensor-parallel-size 8", "--tensor-parallel-size 12")
    found = only(lint(d), "TOP004")
    assert [(f[2], f[3]) for f in found] == [(line, 27)]
    assert "attention TP 12 neither divides nor is a multiple of the 8 KV heads" in found[0][4]
    assert "use TP 1 / 2 / 4 / 8" in found[0][4]
    replace_once(d / "run.sh", "--tensor-parallel-size 12", "--tensor-parallel-size 8")
    assert only(lint(d), "TOP004") == []


# -- MEM002 ----------------------------------------------------------------------------------
def test_mem002_sglang_context_above_model(tmp_path):
    entry = need("deepseek-ai/DeepSeek-V4-Pro", "max_position_embeddings")
    assert entry["max_position_embeddings"] == 1048576
    d = copy_submission(DSV4_H200, tmp_path)
    assert only(lint(d), "MEM002") == []  # the published 393216 fits
    line = replace_once(d / "run.sh", "--context-length 393216", "--context-length 2097152")
    found = only(lint(d), "MEM002")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 29)]
    msg = found[0][4]
    assert "--context-length 2097152 is longer than the 1048576 tokens deepseek-ai/DeepSeek-V4-Pro supports" in msg
    assert "SGLang refuses to start" in msg and "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in msg


def test_mem002_sglang_override_variable(tmp_path):
    need("deepseek-ai/DeepSeek-V4-Pro", "max_position_embeddings")
    d = copy_submission(DSV4_H200, tmp_path)
    replace_once(d / "run.sh", "--context-length 393216", "--context-length 2097152")
    replace_once(d / "run.sh", "docker run --gpus all", "docker run -e SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 --gpus all")
    # the variable only silences SGLang's check (issue 23): a warning at it, not the error
    (f,) = [f for f in lint_paths([str(d)]).findings if f.rule_id == "MEM002"]
    assert f.level == "warning" and "only silences the engine's check" in f.message
    assert "--json-model-override-args" in f.message


def test_mem002_vllm_yarn_limit(tmp_path):
    # DeepSeek-V3.2: yarn factor 40 over original 4096 = 163840 (= max_position_embeddings)
    need("deepseek-ai/DeepSeek-V3.2", "max_position_embeddings", "rope_scaling")
    d = copy_submission(DSV32_VLLM, tmp_path)
    line = replace_once(d / "run.sh", "--tensor-parallel-size 8 \\", "--tensor-parallel-size 8 --max-model-len 200k \\")
    found = only(lint(d), "MEM002")
    assert [(f[2], f[3]) for f in found] == [(line, 45)]
    assert "--max-model-len 200k is longer than the 163840 tokens" in found[0][4]
    assert "yarn scaling: original_max_position_embeddings 4096 x 40" in found[0][4] and "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1" in found[0][4]
    replace_once(d / "run.sh", "--max-model-len 200k", "--max-model-len 160k")
    assert only(lint(d), "MEM002") == []


def test_mem002_vllm_override_is_checked_against_the_overridden_config(tmp_path):
    need("deepseek-ai/DeepSeek-V3.2", "max_position_embeddings")
    d = copy_submission(DSV32_VLLM, tmp_path)
    # the override replaces max_position_embeddings, and the yarn scaling stays: 4096 x 40 still
    replace_once(d / "run.sh", "--tensor-parallel-size 8 \\",
                 "--tensor-parallel-size 8 --max-model-len 200k --hf-overrides '{\"rope_scaling\": null, "
                 "\"max_position_embeddings\": 262144}' \\")
    found = lint(d, coverage=True)
    assert only(found, "MEM002") == []
    assert not any("(MEM002)" in f[4] for f in only(found, "COV001"))
    # an override that is not JSON is not checked, and COV001 says so
    replace_once(d / "run.sh", "\"max_position_embeddings\": 262144}'", "\"max_position_embeddings\": 262144'")
    found = lint(d, coverage=True)
    assert only(found, "MEM002") == []
    assert any("context length against the model (MEM002)" in f[4] and "not JSON" in f[4] for f in only(found, "COV001"))


# -- PRS002 by format ------------------------------------------------------------------------
def test_prs002_generic_tool_parser_for_deepseek(tmp_path):
    entry = need("deepseek-ai/DeepSeek-V3.2", "tool_call_format")
    d = copy_submission(DSV32_VLLM, tmp_path)
    assert only(lint(d), "PRS002") == []  # the recipe's deepseek_v32 parses V3.2's tool calls
    line = replace_once(d / "run.sh", "--tool-call-parser deepseek_v32", "--tool-call-parser hermes")
    found = only(lint(d), "PRS002")
    assert [(f[2], f[3]) for f in found] == [(line, 23)]
    want = entry["tool_call_format"] if isinstance(entry["tool_call_format"], list) else [entry["tool_call_format"]]
    assert "tool-call parser 'hermes' (--tool-call-parser) parses hermes markup" in found[0][4]
    assert f"deepseek-ai/DeepSeek-V3.2 emits {' / '.join(want)}" in found[0][4]
    assert "vLLM parsers for it: deepseek_v32" in found[0][4]


def test_prs002_hermes_for_qwen3_coder(tmp_path):
    need("Qwen/Qwen3-Coder-480B-A35B-Instruct", "tool_call_format")
    d = copy_submission(DSV32_VLLM, tmp_path)
    # the vLLM Qwen3-Coder launch with the common mistake: hermes instead of qwen3_coder
    (d / "run.sh").write_text("vllm serve Qwen/Qwen3-Coder-480B-A35B-Instruct \\\n  --tensor-parallel-size 8 \\\n"
                              "  --enable-auto-tool-choice --tool-call-parser hermes\n")
    replace_once(d / "submission.yaml", "model: deepseek-ai/DeepSeek-V3.2", "model: Qwen/Qwen3-Coder-480B-A35B-Instruct")
    found = only(lint(d), "PRS002")
    assert [(f[2], f[3]) for f in found] == [(3, 48)]
    assert "parses hermes markup" in found[0][4] and "qwen3_coder" in found[0][4]


# -- PRS004 ----------------------------------------------------------------------------------
def test_prs004_auto_tool_choice_without_parser(tmp_path):
    d = copy_submission(GLM51_VLLM, tmp_path)
    assert only(lint(d), "PRS004") == []
    replace_once(d / "run.sh", "     --tool-call-parser glm47 \\\n", "")
    found = only(lint(d), "PRS004")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", 6, 6)]
    assert "--enable-auto-tool-choice without --tool-call-parser: vLLM refuses to start" in found[0][4]
    # one finding for the one mistake: vLLM's own compiled check (FLG005) said it again at the same
    # flag; PRS004 says it with the parser to add, at FLG005's level (an error where the declared
    # release refuses it, a warning where the release is not declared and the newest is assumed)
    def at_the_flag():
        return [(f.rule_id, f.level or "warning") for f in lint_paths([str(d)]).findings
                if (f.span.path.endswith("run.sh"), f.span.line, f.span.col) == (True, 6, 6)]

    assert at_the_flag() == [("PRS004", "warning")]         # the release is not declared
    replace_once(d / "submission.yaml", "  name: vllm\n", '  name: vllm\n  version: "0.19.1"\n')
    assert at_the_flag() == [("PRS004", "error")]           # vLLM 0.19.1 refuses it (cli_args.py)


def test_prs004_reasoning_model_without_reasoning_parser(tmp_path):
    # DeepSeek-R1-0528 always reasons; the DeepSeek-V4-Pro H200 launch sets no --reasoning-parser
    entry = need("nvidia/DeepSeek-R1-0528-FP4", "reasoning", "reasoning_format")
    assert entry["reasoning"] == "always"
    d = copy_submission(DSV4_H200, tmp_path)
    replace_once(d / "run.sh", "--model-path deepseek-ai/DeepSeek-V4-Pro", "--model-path nvidia/DeepSeek-R1-0528-FP4")
    found = only(lint(d), "PRS004")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", 4, 3)]
    assert "deepseek-ai/DeepSeek-R1-0528 always reasons but the SGLang launch has no reasoning parser" in found[0][4]
    assert "add --reasoning-parser deepseek-r1" in found[0][4]
    replace_once(d / "run.sh", "--tp 8 ", "--tp 8 --reasoning-parser deepseek-r1 ")
    assert only(lint(d), "PRS004") == []


def test_prs004_gpt_oss_on_trtllm_needs_no_parser():
    # trtllm-serve splits gpt-oss harmony channels itself: the published recipe sets no parser
    from support import EXAMPLES
    found = lint(EXAMPLES / "recipes" / "trtllm-gpt-oss-120b-b200-dep8-throughput", coverage=True)
    assert need("openai/gpt-oss-120b", "reasoning")["reasoning"] == "always"
    assert only(found, "PRS004") == [] and not any("PRS004" in f[4] for f in found)


def test_prs002_family_fallback_without_format_data(tmp_path):
    entry = need("mistralai/Mixtral-8x7B-Instruct-v0.1", "family")
    assert entry.get("tool_call_format") is None  # no format data: families are compared
    d = copy_submission(DSV32_VLLM, tmp_path)
    replace_once(d / "run.sh", "vllm serve deepseek-ai/DeepSeek-V3.2", "vllm serve mistralai/Mixtral-8x7B-Instruct-v0.1")
    line = replace_once(d / "run.sh", "--tool-call-parser deepseek_v32", "--tool-call-parser llama3_json")
    found = sorted(only(lint(d), "PRS002"))
    # the tool parser, and the recipe's deepseek_v3 reasoning parser (two lines below) as well
    assert [(f[2], f[3]) for f in found] == [(line, 23), (line + 2, 23)]
    assert "is for llama models, but the model mistralai/Mixtral-8x7B-Instruct-v0.1 is mistral" in found[0][4]
    assert "vLLM parsers for mistral: mistral" in found[0][4]


# -- HW001 with the MoE runner flag absent -----------------------------------------------------
@pytest.mark.parametrize("checkpoint", ["nvidia/DeepSeek-R1-FP4", "nvidia/DeepSeek-R1-0528-FP4"])
def test_hw001_nvfp4_deepseek_r1_on_rtx6000d_without_runner(tmp_path, checkpoint):
    entry = need(checkpoint, "moe", "checkpoint_precision")
    assert entry["moe"] is True and "FP4" in entry["checkpoint_precision"].upper()
    d = copy_submission(DSV4_H200, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: RTX-6000D")
    replace_once(d / "run.sh", "--model-path deepseek-ai/DeepSeek-V4-Pro", f"--model-path {checkpoint}")
    assert only(lint(d), "HW001") == []  # the published launch sets --moe-runner-backend marlin
    replace_once(d / "run.sh", "--moe-runner-backend marlin ", "")
    found = only(lint(d), "HW001")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", 4, 3)]
    assert f"MoE model {entry['id']} runs on RTX-6000D" in found[0][4]
    assert "without --moe-runner-backend" in found[0][4] and "add --moe-runner-backend marlin" in found[0][4]


# -- HW002: FP8 E4M3 KV cache below sm89 ------------------------------------------------------
def test_hw002_fp8_kv_cache_on_a100(tmp_path):
    # the vLLM DeepSeek-V3.2 launch with an FP8 KV cache: fine on H20 (sm90), not on A100 (sm80)
    d = copy_submission(DSV32_VLLM, tmp_path)
    line = replace_once(d / "run.sh", "--tensor-parallel-size 8 \\", "--tensor-parallel-size 8 --kv-cache-dtype fp8 \\")
    assert only(lint(d), "HW002") == []
    replace_once(d / "submission.yaml", "accelerator: H20", "accelerator: A100")
    found = only(lint(d), "HW002")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 46)]
    assert "fp8 on A100 (sm80" in found[0][4] and "fp8e4nv not supported in this architecture" in found[0][4]
    assert "use --kv-cache-dtype fp8_e5m2" in found[0][4]
    replace_once(d / "run.sh", "--kv-cache-dtype fp8 ", "--kv-cache-dtype fp8_e5m2 ")
    assert only(lint(d), "HW002") == []


# -- TOP002: EP implied by vLLM, precision against the checkpoint -------------------------------
def test_top002_vllm_expert_parallel_is_tp_times_dp(tmp_path):
    d = copy_submission(QWEN35_VLLM, tmp_path)
    assert only(lint(d), "TOP002") == []  # ep: 8 = TP 1 x DP 8 with --enable-expert-parallel
    line = replace_once(d / "submission.yaml", "    ep: 8", "    ep: 4")
    found = only(lint(d), "TOP002")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", 3, 3)]
    assert f"server runs EP 8 but the manifest declares ep: 4 (submission.yaml:{line})" in found[0][4].replace(str(d) + "/", "")


def test_top002_vllm_without_expert_parallel_has_no_ep(tmp_path):
    d = copy_submission(QWEN35_VLLM, tmp_path)
    replace_once(d / "run.sh", "  --enable-expert-parallel \\\n", "")
    found = only(lint(d), "TOP002")
    assert len(found) == 1 and found[0][1] == "run.sh" and "runs EP 1 but the manifest declares ep: 8" in found[0][4]


def test_top002_fp8_checkpoint_declared_bf16(tmp_path):
    entry = need("Qwen/Qwen3.5-397B-A17B-FP8", "checkpoint_precision")
    assert entry["checkpoint_precision"] == "FP8"
    d = copy_submission(QWEN35_VLLM, tmp_path)
    line = replace_once(d / "submission.yaml", "precision: FP8", "precision: BF16")
    found = only(lint(d), "TOP002")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", 1, 12)]
    assert "serves the FP8 checkpoint Qwen/Qwen3.5-397B-A17B-FP8 without --quantization" in found[0][4]
    assert f"declares precision: BF16 ({d / 'submission.yaml'}:{line})" in found[0][4]
    # quantized at load time: --quantization decides what is served, not the checkpoint
    replace_once(d / "run.sh", "-dp 8 \\", "-dp 8 --quantization fp8 \\")
    assert not any("serves the FP8 checkpoint" in f[4] for f in only(lint(d), "TOP002"))
    replace_once(d / "submission.yaml", "precision: BF16", "precision: FP8")
    assert only(lint(d), "TOP002") == []


def test_hw002_sglang_fa3_on_blackwell(tmp_path):
    d = copy_submission(DSV4_H200, tmp_path)
    line = replace_once(d / "run.sh", "--moe-runner-backend marlin", "--moe-runner-backend marlin --attention-backend fa3")
    assert only(lint(d), "HW002") == []  # H200 (sm90) has FlashAttention 3
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: B200")
    found = only(lint(d), "HW002")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 53)]
    assert "fa3 on B200 (sm100" in found[0][4] and "requires SM>=80 and SM<=90" in found[0][4]
    assert "use --attention-backend flashinfer" in found[0][4]


def test_mem002_trtllm_max_seq_len_is_lowered(tmp_path):
    need("deepseek-ai/DeepSeek-V4-Pro", "max_position_embeddings", "rope_scaling")
    d = copy_submission("nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d", tmp_path)
    assert only(lint(d), "MEM002") == []
    line = replace_once(d / "gen_config.yaml", "max_seq_len: 131072", "max_seq_len: 2097152")
    found = only(lint(d), "MEM002")
    assert [(f[1], f[2], f[3]) for f in found] == [("gen_config.yaml", line, 14)]
    assert "max_seq_len 2097152 is longer than the 1048576 tokens deepseek-ai/DeepSeek-V4-Pro supports" in found[0][4]
    assert "TensorRT-LLM silently lowers max_seq_len" in found[0][4] and "TLLM_ALLOW_LONG_MAX_MODEL_LEN=1" in found[0][4]


def test_top004_vllm_dcp_needs_tp_above_kv_heads(tmp_path):
    entry = need("Qwen/Qwen3.5-397B-A17B-FP8", "num_attention_heads", "num_key_value_heads")
    assert (entry["num_key_value_heads"], entry.get("mla")) == (2, False)
    d = copy_submission(QWEN35_VLLM, tmp_path)
    line = replace_once(d / "run.sh", "  -dp 8 \\", "  -dp 8 -dcp 2 \\")
    found = only(lint(d), "TOP004")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 14)]
    assert "decode context parallel size 2 needs TP above the 2 KV heads (TP 1)" in found[0][4]
    assert "vLLM refuses to start" in found[0][4]


def test_mem002_vllm_exported_override(tmp_path):
    need("deepseek-ai/DeepSeek-V3.2", "max_position_embeddings")
    d = copy_submission(DSV32_VLLM, tmp_path)
    replace_once(d / "run.sh", "--tensor-parallel-size 8 \\", "--tensor-parallel-size 8 --max-model-len 200k \\")
    assert len(only(lint(d), "MEM002")) == 1
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text("export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n" + text)
    # the exported variable is read, and only silences vLLM's check (issue 23): a warning at it
    (f,) = [f for f in lint_paths([str(d)]).findings if f.rule_id == "MEM002"]
    assert f.level == "warning" and (f.span.line, f.span.col) == (1, 38)


def test_hw001_vllm_without_moe_backend(tmp_path):
    entry = need("nvidia/DeepSeek-R1-FP4", "moe", "checkpoint_precision")
    d = copy_submission(DSV32_VLLM, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: H20", "accelerator: RTX-6000D")
    line = replace_once(d / "run.sh", "vllm serve deepseek-ai/DeepSeek-V3.2", "vllm serve nvidia/DeepSeek-R1-FP4")
    found = only(lint(d), "HW001")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 3)]
    assert f"MoE model {entry['id']} runs on RTX-6000D" in found[0][4] and "add --moe-backend marlin" in found[0][4]
    replace_once(d / "run.sh", "--tensor-parallel-size 8 \\", "--tensor-parallel-size 8 --moe-backend marlin \\")
    assert only(lint(d), "HW001") == []


# -- Qwen2.5-VL, from the corpus (rules/model_configs_extra.yaml) -----------------------------
QWEN25VL_AIBRIX = "020-aibrix-vllm-qwen-vl/qwen-vl.yaml"        # serves /models/Qwen2.5-VL-7B-Instruct/
QWEN25VL_EPD = "112-vllm-disagg-encoder-1e1p1d/disagg_1e1p1d_example.sh"   # MODEL=Qwen/Qwen2.5-VL-3B-Instruct


def corpus_copy(rel: str, tmp_path) -> Path:
    """A copy of the corpus file ``rel`` in tmp_path (the corpus is read in place, never edited)."""
    dst = tmp_path / rel.rsplit("/", 1)[-1]
    shutil.copyfile(shared("corpus") / rel, dst)
    return dst


def model_gaps(findings) -> list[str]:
    return [f[4] for f in only(findings, "COV001")
            if "not in the knowledge base" in f[4] or "the knowledge base has no" in f[4]]


def test_mem002_qwen25_vl_7b_context_of_a_model_named_by_its_directory(tmp_path):
    entry = need("Qwen/Qwen2.5-VL-7B-Instruct", "max_position_embeddings")
    assert entry["max_position_embeddings"] == 128000 and entry["rope_scaling"]["type"] == "mrope"
    f = corpus_copy(QWEN25VL_AIBRIX, tmp_path)
    found = lint(f, coverage=True)
    assert model_gaps(found) == [] and only(found, "MEM002") == []   # as published: --max-model-len 32000 fits
    line = replace_once(f, '"32000"', '"128001"')
    found = only(lint(f), "MEM002")
    assert [(f_[2], f_[3]) for f_ in found] == [(line, 16)]
    assert "--max-model-len 128001 is longer than the 128000 tokens Qwen/Qwen2.5-VL-7B-Instruct supports" in found[0][4]
    assert "named by the directory /models/Qwen2.5-VL-7B-Instruct/" in found[0][4]
    replace_once(f, '"128001"', '"128000"')
    assert only(lint(f), "MEM002") == []


DECODE_PORT = '--port "$DECODE_PORT" \\'


def test_mem002_qwen25_vl_3b_context_on_the_decode_worker(tmp_path):
    need("Qwen/Qwen2.5-VL-3B-Instruct", "max_position_embeddings")
    f = corpus_copy(QWEN25VL_EPD, tmp_path)
    found = lint(f, coverage=True)
    assert model_gaps(found) == [] and only(found, "MEM002") == []
    line = replace_once(f, DECODE_PORT, DECODE_PORT + "\n    --max-model-len 131072 \\")
    found = only(lint(f), "MEM002")
    assert [(f_[2], f_[3]) for f_ in found] == [(line + 1, 21)]
    assert "--max-model-len 131072 is longer than the 128000 tokens Qwen/Qwen2.5-VL-3B-Instruct supports" in found[0][4]
    replace_once(f, "--max-model-len 131072", "--max-model-len 128000")
    assert only(lint(f), "MEM002") == []


def test_top004_qwen25_vl_3b_heads_split_over_tp(tmp_path):
    entry = need("Qwen/Qwen2.5-VL-3B-Instruct", "num_attention_heads", "num_key_value_heads")
    assert (entry["num_attention_heads"], entry["num_key_value_heads"]) == (16, 2)
    f = corpus_copy(QWEN25VL_EPD, tmp_path)
    assert only(lint(f), "TOP004") == []
    line = replace_once(f, DECODE_PORT, DECODE_PORT + "\n    --tensor-parallel-size 3 \\")
    found = only(lint(f), "TOP004")
    assert [(f_[2], f_[3]) for f_ in found] == [(line + 1, 28)]
    assert "attention TP 3 does not divide the 16 attention heads of Qwen/Qwen2.5-VL-3B-Instruct" in found[0][4]
    assert "use TP 1 / 2 / 4 / 8" in found[0][4]
    replace_once(f, "--tensor-parallel-size 3", "--tensor-parallel-size 2")
    assert only(lint(f), "TOP004") == []


def test_qwen_vl_entries_are_curated_with_their_config_facts():
    kb = knowledge()
    for repo, heads, kv, context in (("Qwen/Qwen2.5-VL-3B-Instruct", 16, 2, 128000), ("Qwen/Qwen2.5-VL-7B-Instruct", 28, 4, 128000),
                                     ("Qwen/Qwen2.5-VL-32B-Instruct", 40, 8, 128000), ("Qwen/Qwen2.5-VL-72B-Instruct", 64, 8, 128000),
                                     ("Qwen/Qwen2-VL-2B-Instruct", 12, 2, 32768), ("Qwen/Qwen2-VL-7B-Instruct", 28, 4, 32768),
                                     ("Qwen/Qwen2-VL-72B-Instruct", 64, 8, 32768)):
        e = kb.model(repo)
        assert e["curated"] and e["family"] == "qwen" and e["moe"] is False, repo
        assert (e["num_attention_heads"], e["num_key_value_heads"], e["max_position_embeddings"]) == (heads, kv, context), repo
        assert e["config_url"] == f"https://huggingface.co/{repo}/blob/main/config.json"
    assert kb.model("Qwen/Qwen2.5-VL-7B-Instruct-AWQ")["id"] == "Qwen/Qwen2.5-VL-7B-Instruct"   # quantized re-upload
    assert kb.model("Qwen/Qwen2.5-VL-7B-Instruct-AWQ")["checkpoint_precision"] == "INT4"
