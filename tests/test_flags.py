"""FLG001 / FLG002 / FLG003 on published submissions changed in one place."""

from __future__ import annotations

from support import copy_submission, lint, only, replace_once

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
KIMI_1P1D = "nvidia/kimi-k3/gb300-dynamo-sglang-1p1d-hicache-mooncake"
GLM_EAGLE = "nvidia/glm-5.2/b300-sglang-tp8-dp8-eagle3-maxreq256"
DSV4_H200 = "artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle"


def test_flg001_underscore_spelling(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    line = replace_once(d / "run.sh", "--enable-metrics", "--enable_metrics")
    found = only(lint(d), "FLG001")
    assert [(f[2], f[3]) for f in found] == [(line, 27)]
    assert "SGLang has no flag --enable_metrics: did you mean --enable-metrics?" in found[0][4]


def test_flg001_another_engines_flag(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--enable-cache-report", "--enable-reasoning")
    found = only(lint(d), "FLG001")
    assert len(found) == 1 and "did you mean --reasoning-parser?" in found[0][4] and "vLLM" in found[0][4]


def test_flg001_misspelled_flag_in_an_args_file(tmp_path):
    d = copy_submission(KIMI_1P1D, tmp_path)
    line = replace_once(d / "decode.args", "--mem-fraction-static 0.85", "--mem-fraction-statc 0.85")
    found = only(lint(d), "FLG001")
    assert [(f[1], f[2], f[3]) for f in found] == [("decode.args", line, 1)]
    assert "did you mean --mem-fraction-static?" in found[0][4]


def test_flg001_config_yaml_key(tmp_path):
    d = copy_submission(GLM_EAGLE, tmp_path)
    line = replace_once(d / "ifb_config.yaml", "max-running-requests: 256", "max-runing-requests: 256")
    found = only(lint(d), "FLG001")
    assert [(f[1], f[2], f[3]) for f in found] == [("ifb_config.yaml", line, 1)]
    assert "key 'max-runing-requests' of" in found[0][4] and "did you mean --max-running-requests?" in found[0][4]


def test_flg001_abbreviation_tp_is_accepted():
    from support import EXAMPLES
    assert only(lint(EXAMPLES / DSV4_H200), "FLG001") == []  # --tp 8: a unique prefix of --tp-size


def test_flg002_invalid_choice(tmp_path):
    d = copy_submission(DSV4_H200, tmp_path)
    line = replace_once(d / "run.sh", "--moe-runner-backend marlin", "--moe-runner-backend marlinn")
    found = only(lint(d), "FLG002")
    assert [(f[2], f[3]) for f in found] == [(line, 26)] and "did you mean 'marlin'?" in found[0][4]


def test_flg002_not_a_number(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--mem-fraction-static 0.85", "--mem-fraction-static 85%")
    found = only(lint(d), "FLG002")
    assert len(found) == 1 and "'85%' is not a number" in found[0][4]


def test_flg003_repeated_flag(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--max-running-requests 256", "--max-running-requests 256 --max-running-requests 128")
    found = only(lint(d), "FLG003")
    assert len(found) == 1 and "is 128 here but 256" in found[0][4] and "the last one wins" in found[0][4]


def test_flg003_command_line_vs_config(tmp_path):
    d = copy_submission(GLM_EAGLE, tmp_path)
    line = replace_once(d / "run.sh", "--enable-cache-report", "--enable-cache-report --mem-fraction-static 0.9")
    found = only(lint(d), "FLG003")
    assert [(f[1], f[2]) for f in found] == [("run.sh", line)]
    assert "--mem-fraction-static is 0.9 here but 0.85" in found[0][4] and "the command line wins" in found[0][4]


def test_flg001_vllm_and_dynamo_registries(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(
        "vllm serve m --tensor_parallel_size 2 --max-model-len auto -O3 --speculative-config.num_speculative_tokens 3\n"
        "vllm serve m --enable-reasoning --reasoning-parser deepseek_r1\n"
        "python3 -m dynamo.trtllm --model-path m --trtllm.kv_cache_config.dtype fp8 --extra-engine-arg x.yaml\n"
        "trtllm-serve m --tp_size 2 --tool-parser deepseek_v4\n")
    found = [(f[0], f[2], f[4]) for f in lint(script)]
    # line 1: underscores, 'auto', -O3, dotted JSON keys are all vLLM's; line 3: --extra-engine-arg is a
    # unique abbreviation dynamo.trtllm's argparse accepts, --trtllm.* its dynamic prefix
    assert [(r, line) for r, line, _ in found] == [("FLG001", 2), ("FLG001", 4)]
    # no release declared: the newest (0.33.0) is assumed, which no longer has --enable-reasoning
    assert found[0][2].startswith("--enable-reasoning is a vLLM flag of 0.7.3..0.9.2 (removed in 0.10.0)")
    assert found[0][2].endswith("use --reasoning-parser <name> alone (--enable-reasoning was deprecated in vLLM 0.9.0 and removed)")
    assert found[1][2].startswith("trtllm-serve has no flag --tool-parser: did you mean --tool_parser?")


def test_flg001_flag_missing_from_the_declared_engine_version(tmp_path):
    # GLM-5.2 on SGLang 0.5.17; --prefill-decode-interval exists from 0.5.19 (rules/releases/sglang.yaml)
    d = copy_submission(GLM_EAGLE, tmp_path)
    line = replace_once(d / "run.sh", "--enable-cache-report", "--enable-cache-report --prefill-decode-interval 4")
    found = only(lint(d), "FLG001")
    assert [(f[1], f[2]) for f in found] == [("run.sh", line)]
    assert "SGLang 0.5.17 (the manifest's engine version) has no --prefill-decode-interval; added in 0.5.19" in found[0][4]
    replace_once(d / "submission.yaml", 'version: "0.5.17"', 'version: "0.5.23"')
    # 0.5.23 has --prefill-decode-interval, but dropped the published --cuda-graph-max-bs key
    found = only(lint(d), "FLG001")
    assert [(f[1], f[2]) for f in found] == [("ifb_config.yaml", 8)]
    assert "SGLang 0.5.23 (the manifest's engine version) has no --cuda-graph-max-bs" in found[0][4]
