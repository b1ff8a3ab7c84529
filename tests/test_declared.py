"""TOP002: manifest values against the launch, on published submissions changed in one place."""

from __future__ import annotations

from support import copy_submission, lint, only, replace_once

KIMI_DCP = "artificial-analysis/kimi-k3/b300-sglang-tp8-dcp8"
DSV4_DYNAMO = "nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d"
GLM_EAGLE = "nvidia/glm-5.2/b300-sglang-tp8-dp8-eagle3-maxreq256"
GPTOSS_TP1 = "nvidia/gpt-oss-120b/b200-trtllm-tp1-eagle3"


def test_top002_dcp(tmp_path):
    d = copy_submission(KIMI_DCP, tmp_path)
    line = replace_once(d / "run.sh", "--dcp-size 8", "--dcp-size 4")
    found = only(lint(d), "TOP002")
    assert [(f[1], f[2]) for f in found] == [("run.sh", line)]
    assert "server runs DCP 4 but the manifest declares dcp: 8" in found[0][4]


def test_top002_trtllm_attention_dp_degree(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    line = replace_once(d / "gen_config.yaml", "enable_attention_dp: true", "enable_attention_dp: false")
    found = sorted(only(lint(d), "TOP002"), key=lambda f: f[4])
    assert [(f[1], f[2]) for f in found] == [("gen_config.yaml", line)] * 2
    assert "decode runs DP 1 but the manifest declares dp: 8" in found[0][4]
    assert "decode runs attention DP false but the manifest declares attention_dp: true" in found[1][4]


def test_top002_sglang_dp_attention_off(tmp_path):
    d = copy_submission(GLM_EAGLE, tmp_path)
    replace_once(d / "ifb_config.yaml", "data-parallel-size: 8", "data-parallel-size: 4")
    found = only(lint(d), "TOP002")
    assert len(found) == 1 and "server runs DP 4 but the manifest declares dp: 8" in found[0][4]


def test_top002_model_and_precision(tmp_path):
    d = copy_submission(GLM_EAGLE, tmp_path)
    replace_once(d / "run.sh", "--model-path nvidia/GLM-5.2-NVFP4", "--model-path zai-org/GLM-4.7")
    replace_once(d / "ifb_config.yaml", "quantization: modelopt_fp4", "quantization: fp8")
    found = sorted(f[4] for f in only(lint(d), "TOP002"))
    assert found[0].startswith("--quantization fp8 serves FP8 weights but the manifest declares precision: NVFP4")
    assert found[1].startswith("the launch serves zai-org/GLM-4.7 but the manifest declares model: nvidia/GLM-5.2-NVFP4")


def test_top002_model_alias_is_the_same_model(tmp_path):
    d = copy_submission(GPTOSS_TP1, tmp_path)
    assert only(lint(d), "TOP002") == []
    replace_once(d / "submission.yaml", "model: openai/gpt-oss-120b", "model: openai/gpt-oss-20b")
    found = only(lint(d), "TOP002")
    assert len(found) == 1 and found[0][1] == "run.sh"


def test_top002_image_version(tmp_path):
    d = copy_submission("artificial-analysis/kimi-k3/b300-sglang-tp8", tmp_path)
    replace_once(d / "run.sh", "lmsysorg/sglang:kimi-k3", "lmsysorg/sglang:v0.5.16-cu130")
    replace_once(d / "submission.yaml", 'version: "kimi-k3"', 'version: "0.5.17"')
    found = only(lint(d), "TOP002")
    assert len(found) == 1 and "is version 0.5.16 but the manifest declares engine version 0.5.17" in found[0][4]
