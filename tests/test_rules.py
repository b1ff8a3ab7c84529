"""Each rule against real published submissions changed in one place: it fires at the right
line and column, and the unchanged submission stays clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfglint.lint import lint_paths
from support import EXAMPLES, copy_submission, lint, only, replace_once

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
KIMI_DSPARK = "artificial-analysis/kimi-k3/b300-sglang-tp8-dspark7"
DSV4_H200 = "artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle"
DSV4_MI355X = "artificial-analysis/deepseek-v4-pro/mi355x-sglang-tp8-a"
DSV4_DYNAMO = "nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d"
DSV4_0813 = "nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p01"
GPTOSS_1P3D = "nvidia/gpt-oss-120b/b200-dynamo-trtllm-1p3d-eagle3"
GPTOSS_TP1 = "nvidia/gpt-oss-120b/b200-trtllm-tp1-eagle3"
GLM_EAGLE = "nvidia/glm-5.2/b300-sglang-tp8-dp8-eagle3-maxreq256"
KIMI_PP2 = "nvidia/kimi-k3/gb300-dynamo-sglang-2p1d-matched-pp2-mooncake"


@pytest.mark.parametrize("rel", [KIMI_B300, KIMI_DSPARK, DSV4_H200, DSV4_0813, GPTOSS_1P3D, GPTOSS_TP1, GLM_EAGLE,
                                 KIMI_PP2])
def test_unchanged_published_submissions_are_clean(rel):
    assert lint(EXAMPLES / rel) == []


@pytest.mark.parametrize("rel,kind", [(DSV4_MI355X, "ENV001"), (DSV4_DYNAMO, "FLG001")])
def test_published_submissions_of_an_undeclared_release_get_warnings_only(rel, kind):
    # their release is not declared and their flags or variables are of older releases only
    # (tests/golden/examples.yaml says why each is true): warnings, nothing else
    found = lint_paths([str(EXAMPLES / rel)]).findings
    assert {f.rule_id for f in found if f.rule_id != "COV001"} == {kind}
    assert {f.level for f in found if f.rule_id != "COV001"} == {"warning"}


# -- TOP001 ------------------------------------------------------------------------------
def test_top001_launch_tp_disagrees_with_accelerators_per_instance(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    line = replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4")
    found = only(lint(d), "TOP001")
    assert len(found) == 1
    rule, name, fline, col, msg = found[0]
    assert (name, fline, col) == ("run.sh", line, 67)
    assert "uses 4 accelerators (TP 4)" in msg and "accelerators_per_instance: 8" in msg


def test_top001_accelerators_used_is_not_the_sum_of_roles(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    line = replace_once(d / "submission.yaml", "accelerators_used: 8", "accelerators_used: 16")
    found = only(lint(d), "TOP001")
    assert [(f[1], f[2], f[3]) for f in found] == [("submission.yaml", line, 20)] * 2
    messages = sorted(f[4] for f in found)
    assert "1 x 8 (server) = 8" in messages[0]
    assert "exceeds the system's accelerators_total: 8" in messages[1]


def test_top001_used_exceeds_total(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", "accelerators_total: 8", "accelerators_total: 4")
    found = only(lint(d), "TOP001")
    assert len(found) == 1 and "exceeds the system's accelerators_total: 4" in found[0][4]


def test_top001_server_config_instances_disagree(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    line = replace_once(d / "server_config.yaml", "num_instances: 6", "num_instances: 5")
    found = only(lint(d), "TOP001")
    assert [(f[1], f[2], f[3]) for f in found] == [("server_config.yaml", line, 18)]
    assert "num_instances: 5 prefill" in found[0][4] and "instances: 6" in found[0][4]


def test_top001_gen_config_tp_disagrees(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    line = replace_once(d / "gen_config.yaml", "tensor_parallel_size: 8", "tensor_parallel_size: 16")
    found = only(lint(d), "TOP001")
    assert [(f[1], f[2]) for f in found] == [("gen_config.yaml", line)]
    assert "decode instance uses 16 accelerators" in found[0][4]


def test_top001_for_loop_instances(tmp_path):
    d = copy_submission(GPTOSS_1P3D, tmp_path)
    replace_once(d / "run.sh", "for g in 1 2 3; do", "for g in 1 2; do")
    found = only(lint(d), "TOP001")
    assert len(found) == 1 and "the launch starts 2 decode instance(s)" in found[0][4]
    assert found[0][1] == "submission.yaml"


def test_top001_pipeline_parallel_counts(tmp_path):
    d = copy_submission(KIMI_PP2, tmp_path)
    replace_once(d / "decode.args", "--pipeline-parallel-size 2", "--pipeline-parallel-size 1")
    found = only(lint(d), "TOP001")
    assert len(found) == 1 and "decode instance uses 4 accelerators (TP 4)" in found[0][4]
    assert found[0][1] == "decode.args"


def test_top001_attention_dp_adds_no_accelerators(tmp_path):
    # GLM-5.2 TP8 + DP8 attention on 8 GPUs is right; without DP attention DP8 means 8 replicas.
    d = copy_submission(GLM_EAGLE, tmp_path)
    replace_once(d / "ifb_config.yaml", "enable-dp-attention: true", "enable-dp-attention: false")
    found = only(lint(d), "TOP001")
    assert len(found) == 1 and "uses 64 accelerators (TP 8 x DP 8 replicas)" in found[0][4]
    assert "add --enable-dp-attention" in found[0][4]


# -- SPEC001 -----------------------------------------------------------------------------
def test_spec001_dspark_block_size_vs_declared(tmp_path):
    d = copy_submission(KIMI_DSPARK, tmp_path)
    line = replace_once(d / "run.sh", "--speculative-dspark-block-size 7", "--speculative-dspark-block-size 6")
    found = only(lint(d), "SPEC001")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 37)]
    assert "DSPARK block size 6" in found[0][4] and "draft_tokens: 7" in found[0][4]


def test_spec001_trtllm_dspark_block_size_vs_max_draft_len(tmp_path):
    d = copy_submission(DSV4_0813, tmp_path)
    line = replace_once(d / "gen_config.yaml", "block_size: 6", "block_size: 7")
    found = only(lint(d), "SPEC001")
    assert [(f[1], f[2], f[3]) for f in found] == [("gen_config.yaml", line, 15)]
    assert "block_size 7 disagrees with max_draft_len 6" in found[0][4]


def test_spec001_mtp_layers_vs_declared(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    line = replace_once(d / "ctx_config.yaml", "num_nextn_predict_layers: 3", "num_nextn_predict_layers: 2")
    found = only(lint(d), "SPEC001")
    assert [(f[1], f[2]) for f in found] == [("ctx_config.yaml", line)]
    assert "MTP num_nextn_predict_layers 2" in found[0][4]


def test_spec001_eagle3_max_draft_len(tmp_path):
    d = copy_submission(GPTOSS_TP1, tmp_path)
    line = replace_once(d / "extra_llm_api_options.yaml", "max_draft_len: 3", "max_draft_len: 4")
    found = only(lint(d), "SPEC001")
    assert [(f[1], f[2], f[3]) for f in found] == [("extra_llm_api_options.yaml", line, 18)]


def test_spec001_sglang_config_yaml_draft_tokens(tmp_path):
    d = copy_submission(GLM_EAGLE, tmp_path)
    line = replace_once(d / "ifb_config.yaml", "speculative-num-draft-tokens: 3", "speculative-num-draft-tokens: 4")
    found = only(lint(d), "SPEC001")
    assert [(f[1], f[2], f[3]) for f in found] == [("ifb_config.yaml", line, 31)]


def test_spec001_launch_speculates_but_manifest_declares_none(tmp_path):
    d = copy_submission(KIMI_DSPARK, tmp_path)
    text = (d / "submission.yaml").read_text()
    start = text.index("speculative_decoding:")
    end = text.index("accelerators_used:")
    (d / "submission.yaml").write_text(text[:start] + "speculative_decoding: null\n" + text[end:])
    found = only(lint(d), "SPEC001")
    assert len(found) == 1 and "declares no speculative decoding" in found[0][4]


# -- HW001 -------------------------------------------------------------------------------
def test_hw001_marlin_on_sm120_is_clean(tmp_path):
    d = copy_submission(DSV4_H200, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: RTX-6000D")
    assert only(lint(d), "HW001") == []


def test_hw001_flashinfer_cutlass_on_sm120(tmp_path):
    d = copy_submission(DSV4_H200, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: RTX-6000D")
    line = replace_once(d / "run.sh", "--moe-runner-backend marlin", "--moe-runner-backend flashinfer_cutlass")
    found = only(lint(d), "HW001")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 26)]
    assert "silently computes wrong answers" in found[0][4] and "use --moe-runner-backend marlin" in found[0][4]


def test_hw001_default_runner_on_sm120(tmp_path):
    d = copy_submission(DSV4_H200, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: RTX PRO 6000")
    replace_once(d / "run.sh", "--moe-runner-backend marlin ", "")
    found = only(lint(d), "HW001")
    assert len(found) == 1 and found[0][1:3] == ("run.sh", 4)
    assert "without --moe-runner-backend" in found[0][4] and "does not fit" in found[0][4]


def test_hw001_not_on_hopper(tmp_path):
    d = copy_submission(DSV4_H200, tmp_path)
    replace_once(d / "run.sh", "--moe-runner-backend marlin", "--moe-runner-backend flashinfer_cutlass")
    assert only(lint(d), "HW001") == []


DSV4_FLASH_RTX = "catalog/deepseek-v4-flash/rtx6000d-sglang-tp4-marlin"


def _sm120_at(tmp_path, tag: str, runner: str | None):
    """The catalog's NVFP4 DeepSeek V4 Flash on 4 x RTX 6000D (marlin), its image tagged ``tag``
    and its runner ``runner`` (None: the two lines of --moe-runner-backend dropped)."""
    d = copy_submission(DSV4_FLASH_RTX, tmp_path)
    replace_once(d / "deployment.yaml", "lmsysorg/sglang:latest", f"lmsysorg/sglang:{tag}")
    old = "            - --moe-runner-backend\n            - marlin\n"
    line = replace_once(d / "deployment.yaml", old, "" if runner is None else old.replace("marlin", runner))
    return d, line + 1


def test_hw001_names_the_release_marlin_needs_and_offers_no_fix_before_it(tmp_path):
    # SGLang 0.5.9 (the image tag) has no --moe-runner-backend marlin (rules/releases/sglang.yaml:
    # from 0.5.12.post1); writing it would stop the launch (FLG002), so no fix is offered
    d, line = _sm120_at(tmp_path, "v0.5.9", "flashinfer_cutlass")
    (f,) = [f for f in lint_paths([str(d)]).findings if f.rule_id == "HW001"]
    assert (Path(f.span.path).name, f.span.line, f.span.col) == ("deployment.yaml", line, 15)
    assert "silently computes wrong answers" in f.message
    assert f.message.endswith("use --moe-runner-backend marlin, which SGLang 0.5.9 (the image tag) does not "
                              "accept: marlin needs SGLang 0.5.12.post1 or later")
    assert f.fix is None
    assert only(lint(d), "FLG002") == []


def test_hw001_offers_marlin_where_the_release_accepts_it(tmp_path):
    # the control: the same launch on the first release that accepts marlin
    d, line = _sm120_at(tmp_path, "v0.5.12.post1", "flashinfer_cutlass")
    (f,) = [f for f in lint_paths([str(d)]).findings if f.rule_id == "HW001"]
    assert (Path(f.span.path).name, f.span.line, f.span.col) == ("deployment.yaml", line, 15)
    assert f.message.endswith("; use --moe-runner-backend marlin") and (f.fix, f.fix_safe) == ("marlin", False)


def test_hw001_without_a_runner_on_a_release_without_marlin(tmp_path):
    d, _ = _sm120_at(tmp_path, "v0.5.9", None)
    (f,) = only(lint(d), "HW001")
    assert f[1:4] == ("deployment.yaml", 26, 15)   # the command: python3 -m sglang.launch_server
    assert f[4].endswith("; add --moe-runner-backend marlin, which SGLang 0.5.9 (the image tag) does not accept: "
                         "marlin needs SGLang 0.5.12.post1 or later")
    d, _ = _sm120_at(tmp_path / "control", "v0.5.12.post1", None)
    (f,) = only(lint(d), "HW001")
    assert f[4].endswith("; add --moe-runner-backend marlin")


def test_hw001_reads_the_declared_release(tmp_path):
    # the repro's release comes from the manifest: engine.version 0.5.9 (no image tag)
    d = copy_submission(DSV4_FLASH_RTX, tmp_path)
    replace_once(d / "submission.yaml", "  name: sglang\n", "  name: sglang\n  version: \"0.5.9\"\n")
    flg = only(lint(d), "FLG002")
    assert len(flg) == 1 and "'marlin' is not one of" in flg[0][4]   # the published marlin, on 0.5.9
    assert only(lint(d), "HW001") == []                               # HW001 asks for no other runner
    replace_once(d / "deployment.yaml", "            - marlin\n", "            - flashinfer_cutlass\n")
    (f,) = [f for f in lint_paths([str(d)]).findings if f.rule_id == "HW001"]
    assert "which SGLang 0.5.9 (the manifest's engine version) does not accept: marlin needs SGLang " \
           "0.5.12.post1 or later" in f.message and f.fix is None


# -- PRS001 / PRS002 ---------------------------------------------------------------------
def test_prs001_dynamo_spelling_in_sglang(tmp_path):
    d = copy_submission(DSV4_MI355X, tmp_path)
    line = replace_once(d / "run.sh", "--reasoning-parser deepseek-v4", "--reasoning-parser deepseek_v4")
    found = only(lint(d), "PRS001")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 24)]
    assert "did you mean 'deepseek-v4'" in found[0][4]
    assert "Dynamo" in found[0][4]


def test_prs003_sglang_spelling_in_dynamo_env(tmp_path):
    d = copy_submission(GPTOSS_1P3D, tmp_path)
    line = replace_once(d / "run.sh", "DYN_REASONING_PARSER=gpt_oss", "DYN_REASONING_PARSER=gpt-oss")
    found = lint(d)
    assert [(f[0], f[1], f[2], f[3]) for f in found] == [("PRS003", "run.sh", line, 29)]
    assert "Dynamo has no reasoning parser 'gpt-oss'" in found[0][4] and "falls back to 'basic'" in found[0][4]
    assert "did you mean 'gpt_oss'?" in found[0][4] and "SGLang's spelling" in found[0][4]


def test_prs001_dynamo_tool_parser(tmp_path):
    d = copy_submission(GPTOSS_1P3D, tmp_path)
    line = replace_once(d / "run.sh", "DYN_TOOL_CALL_PARSER=harmony", "DYN_TOOL_CALL_PARSER=harmonie")
    found = lint(d)
    assert [(f[0], f[2], f[3]) for f in found] == [("PRS001", line, 29)] and "did you mean 'harmony'?" in found[0][4]


def test_prs002_parser_for_another_family(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    line = replace_once(d / "run.sh", "--tool-call-parser kimi_k3", "--tool-call-parser glm47")
    found = only(lint(d), "PRS002")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 51)]
    # Kimi K3's tool-call format is known, so the formats are compared (families only when it is not)
    assert "parses glm47 markup" in found[0][4] and "moonshotai/Kimi-K3 emits kimi_k3" in found[0][4]
    assert "SGLang parsers for it: kimi_k3" in found[0][4]
    assert only(lint(d), "PRS001") == []


# -- RED001 ------------------------------------------------------------------------------
def test_red001_home_path_in_docker_mount(tmp_path):
    d = copy_submission(DSV4_H200, tmp_path)
    line = replace_once(d / "run.sh", "-v path/to/huggingface:", "-v /home/alice/hf:")
    found = only(lint(d), "RED001")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 6)]
    assert "'/home/alice/hf'" in found[0][4]


def test_red001_container_paths_are_fine(tmp_path):
    d = copy_submission(DSV4_H200, tmp_path)
    replace_once(d / "run.sh", "-v path/to/huggingface:", "-v /models/hf:")
    assert only(lint(d), "RED001") == []


def test_spec001_declared_but_not_launched(tmp_path):
    d = copy_submission(KIMI_DSPARK, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text(text[: text.index(" \\\n    --speculative-algorithm")] + "\n")
    found = only(lint(d), "SPEC001")
    assert [(f[1], f[4]) for f in found] == [
        ("submission.yaml", "the manifest declares DSPARK with 7 draft tokens, but no launched worker enables speculative decoding")]


def test_spec001_dspark_declared_eagle_launched(tmp_path):
    d = copy_submission(GLM_EAGLE, tmp_path)
    replace_once(d / "submission.yaml", "algorithm: EAGLE", "algorithm: DSPARK")
    found = only(lint(d), "SPEC001")
    assert len(found) == 1 and "runs EAGLE speculative decoding, but the manifest declares DSPARK" in found[0][4]
    assert found[0][1] == "ifb_config.yaml"


def test_unknown_accelerator_is_a_warning_with_a_suggestion(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: B300", "accelerator: B3OO")
    found = only(lint(d), "SUB001")
    assert len(found) == 1 and "did you mean 'B300'?" in found[0][4]
