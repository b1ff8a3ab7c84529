"""The kernel matrix compiled from the engines' released source (rules/releases/<engine>-kernels.yaml):
each miss of issue 22 as a failing launch built from a published submission changed in one place,
with a passing control on a GPU (or release) where it works; every generated row cites a file of
its release; a re-run of the generator on the cached trees gives the shipped files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from cfglint.knowledge import versions

from support import ROOT, copy_submission, lint, only, replace_once

# the engine build cache, as the build command finds it (the release trees the generator reads)
CACHE = Path(os.environ.get("CFGLINT_BUILD_CACHE") or Path.home() / ".cache" / "cfglint-build")

VLLM_GPTOSS = "recipes/vllm-gpt-oss-120b-b200-tp1-config"       # vllm serve openai/gpt-oss-120b, B200, no version
VLLM_GLM = "recipes/vllm-glm-5.1-fp8-h200-tp8-mtp3"             # vllm serve zai-org/GLM-5.1-FP8 --tensor-parallel-size 8, H200
SGL_DSV4 = "artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle"   # SGLang 0.5.11, H200, --tp 8


def _messages(findings, rule_id):
    return [f[4] for f in only(findings, rule_id)]


def _version(d: Path, before: str, after: str) -> None:
    replace_once(d / "submission.yaml", before, after)


# --- HW004: quantization below its minimum capability ------------------------------------------

def test_awq_on_v100_is_below_its_minimum_capability(tmp_path):
    # vLLM: AWQ's get_min_capability is 75 (Turing); V100 is sm70
    d = copy_submission(VLLM_GLM, tmp_path / "bad")
    replace_once(d / "run.sh",
                 "vllm serve zai-org/GLM-5.1-FP8", "vllm serve Qwen/Qwen3-32B-AWQ")
    good = copy_submission(VLLM_GLM, tmp_path / "good")
    replace_once(next(good.glob("*.sh")), "vllm serve zai-org/GLM-5.1-FP8", "vllm serve Qwen/Qwen3-32B-AWQ")
    assert _messages(lint(good), "HW004") == []          # H200, as published with an AWQ checkpoint
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: V100")
    (msg,) = _messages(lint(d), "HW004")
    assert msg.startswith("awq needs compute capability 7.5 or newer in vLLM 0.33.0, but V100 is sm70")
    assert "serve a checkpoint in a method vLLM 0.33.0 runs on sm70 (" in msg and "gptq" in msg
    assert "vLLM 0.33.0" in msg and "checked as the newest" in msg          # no version declared: the newest, said
    assert "vllm/model_executor/layers/quantization/auto_awq.py" in msg


def test_a_declared_release_cfglint_did_not_read_is_named_beside_the_one_that_stands_for_it(tmp_path):
    # vLLM 0.10.1 is not among the releases read: its line's 0.10.2 stands for it. FLG001 said so;
    # HW004 said only "in vLLM 0.10.2", as if that were the release the manifest declares
    d = copy_submission(VLLM_GLM, tmp_path)
    text = (d / "submission.yaml").read_text()
    (d / "submission.yaml").write_text(text.replace("accelerator: H200", "accelerator: V100").replace(
        "engine:\n  name: vllm\n", 'engine:\n  name: vllm\n  version: "0.10.1"\n'))
    (msg,) = _messages(lint(d), "HW004")
    assert msg.startswith("fp8 needs compute capability 8.0 or newer in vLLM 0.10.2, but V100 is sm70")
    assert msg.endswith("the launch runs vLLM 0.10.1, which cfglint did not read; 0.10.2, of its release line, "
                        "stands for it")
    _version(d, 'version: "0.10.1"', 'version: "0.10.2"')   # a release read: named alone
    (msg,) = _messages(lint(d), "HW004")
    assert "in vLLM 0.10.2, but V100" in msg and "did not read" not in msg and "0.10.1" not in msg


def test_gpt_oss_mxfp4_on_t4(tmp_path):
    d = copy_submission(VLLM_GPTOSS, tmp_path)
    assert _messages(lint(d), "HW004") == []              # B200 as published
    replace_once(d / "submission.yaml", "accelerator: B200", "accelerator: T4")
    (msg,) = _messages(lint(d), "HW004")
    assert msg.startswith("mxfp4 needs compute capability 8.0 or newer in vLLM 0.33.0, but T4 is sm75")
    assert "or use a GPU of sm80 or newer" in msg          # the fix: what runs on sm75, or a newer GPU
    assert "mxfp4 is read from the checkpoint's quantization_config (quant_method mxfp4)" in msg
    assert "T4 is sm75" in msg and "vllm/model_executor/layers/quantization/mxfp4.py" in msg


def test_gpt_oss_mxfp4_on_a10_is_fine(tmp_path):
    d = copy_submission(VLLM_GPTOSS, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: B200", "accelerator: A10")   # sm86 >= 80
    assert _messages(lint(d), "HW004") == []


def test_fp8_checkpoint_in_old_sglang_on_rtx3090_has_no_fallback(tmp_path):
    # SGLang before 0.5.1 has no Marlin FP8 fallback (can_auto_enable_marlin_fp8); FP8 kernels need sm89
    d = copy_submission(SGL_DSV4, tmp_path)
    run = d / "run.sh"
    replace_once(run, "--model-path deepseek-ai/DeepSeek-V4-Pro", "--model-path deepseek-ai/DeepSeek-V3")
    _version(d, 'version: "0.5.11 DSv4"', 'version: "0.4.9"')
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: RTX-4090")
    assert _messages(lint(d), "HW004") == []              # sm89: FP8 tensor cores
    replace_once(d / "submission.yaml", "accelerator: RTX-4090", "accelerator: RTX-3090")
    (msg,) = _messages(lint(d), "HW004")
    assert "FP8" in msg and "RTX-3090 (sm86)" in msg and "need compute capability 8.9" in msg
    assert "SGLang 0.4.9 has no weight-only Marlin fallback" in msg and "0.5.1.post3" in msg
    _version(d, 'version: "0.4.9"', 'version: "0.5.9"')   # the control: a release with the fallback
    assert _messages(lint(d), "HW004") == []


def test_glm45_air_fp8_tp8_on_rtx3090_marlin_shards(tmp_path):
    # https://github.com/zai-org/GLM-4.5/issues/94: "size_n = 2736 is not divisible by tile_n_size = 64"
    d = copy_submission(VLLM_GLM, tmp_path)
    run = next(d.glob("*.sh"))
    replace_once(run, "vllm serve zai-org/GLM-5.1-FP8", "vllm serve zai-org/GLM-4.5-Air-FP8")
    text = (d / "submission.yaml").read_text()
    (d / "submission.yaml").write_text(text.replace("accelerator: H200", "accelerator: RTX-3090").replace(
        "engine:\n  name: vllm\n", 'engine:\n  name: vllm\n  version: "0.11.0"\n'))
    (msg,) = _messages(lint(d), "HW004")
    assert "Marlin fallback" in msg and "multiple of 64" in msg
    assert "2 x intermediate_size 10944 / TP 8 = 2736 per shard" in msg and "TP 1, 2 fits" in msg
    assert "vLLM 0.11.0" in msg and "vllm/model_executor/layers/quantization/fp8.py" in msg
    replace_once(run, "--tensor-parallel-size 8", "--tensor-parallel-size 2")
    assert _messages(lint(d), "HW004") == []              # 10944 and 1408 x 2 / 2 are multiples of 64
    replace_once(run, "--tensor-parallel-size 2", "--tensor-parallel-size 8")
    replace_once(d / "submission.yaml", "accelerator: RTX-3090", "accelerator: RTX-4090")
    assert _messages(lint(d), "HW004") == []              # sm89 runs FP8 natively: no Marlin


# --- HW002: backend flags whose kernels the GPU does not have ----------------------------------

def test_prefill_trtllm_mha_on_gb10(tmp_path):
    d = copy_submission(SGL_DSV4, tmp_path)
    run = d / "run.sh"
    replace_once(run, "--model-path deepseek-ai/DeepSeek-V4-Pro", "--model-path Qwen/Qwen3-32B")
    replace_once(run, "--moe-runner-backend marlin", "--prefill-attention-backend trtllm_mha")
    _version(d, 'version: "0.5.11 DSv4"', 'version: "0.5.9"')
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: B200")
    assert _messages(lint(d), "HW002") == []              # sm100: the kernels exist
    replace_once(d / "submission.yaml", "accelerator: B200", "accelerator: GB10")
    (msg,) = _messages(lint(d), "HW002")
    assert msg.startswith("trtllm_mha on GB10 (sm121")
    assert "SGLang 0.5.9 refuses it at start-up: 'TRTLLM MHA backend is only supported on Blackwell GPUs (SM100)" in msg
    assert "sglang/srt/server_args.py:" in msg
    assert "no start-up check refuses it on sm121 in" in msg and msg.endswith("0.5.23")   # newer releases take sm12x


def test_trtllm_mla_prefill_on_rtx_pro_6000(tmp_path):
    d = copy_submission(SGL_DSV4, tmp_path)
    run = d / "run.sh"
    replace_once(run, "--moe-runner-backend marlin", "--moe-runner-backend marlin --prefill-attention-backend trtllm_mla")
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: B200")
    assert _messages(lint(d), "HW002") == []
    replace_once(d / "submission.yaml", "accelerator: B200", "accelerator: RTX-PRO-6000")
    (msg,) = _messages(lint(d), "HW002")
    assert "trtllm_mla on RTX-PRO-6000 (sm120" in msg and "exist only for SM100/SM103" in msg
    assert "--prefill-attention-backend flashinfer" in msg


def test_decode_trtllm_mla_on_rtx_pro_6000_is_accepted(tmp_path):
    d = copy_submission(SGL_DSV4, tmp_path)
    replace_once(d / "run.sh", "--moe-runner-backend marlin", "--moe-runner-backend marlin --decode-attention-backend trtllm_mla")
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: RTX-PRO-6000")
    assert _messages(lint(d), "HW002") == []              # is_blackwell_supported covers SM12x; decode runs on xqa


def test_trtllm_mla_on_hopper_cites_the_release(tmp_path):
    d = copy_submission(SGL_DSV4, tmp_path)
    replace_once(d / "run.sh", "--moe-runner-backend marlin", "--moe-runner-backend marlin --attention-backend trtllm_mla")
    (msg,) = _messages(lint(d), "HW002")
    # "0.5.11 DSv4" is a build, not the release: checked as the newest, and the message says so
    assert "SGLang 0.5.23 ('0.5.11 DSv4' is a build of SGLang 0.5.11" in msg and "checked as the newest" in msg
    assert "only supported on Blackwell GPUs (SM100/SM12x)" in msg and "sglang/srt/arg_groups/overrides.py:" in msg


def test_vllm_attention_backend_capability(tmp_path):
    d = copy_submission(VLLM_GPTOSS, tmp_path)
    replace_once(d / "launch_server.sh", "--tensor-parallel-size 1 &", "--tensor-parallel-size 1 --attention-backend FLASHINFER_MLA &")
    found = _messages(lint(d), "HW002")
    assert found == []                                    # B200 is sm100: FLASHINFER_MLA's capability family
    replace_once(d / "submission.yaml", "accelerator: B200", "accelerator: H100")
    (msg,) = _messages(lint(d), "HW002")
    assert "FLASHINFER_MLA on H100 (sm90" in msg and "compute capability major in {10.x}" in msg
    assert "vllm/v1/attention/backends/mla/flashinfer_mla.py" in msg


def test_vllm_attention_backend_kv_cache_dtype(tmp_path):
    # FLASH_ATTN takes an FP8 KV cache, FLEX_ATTENTION does not (supported_kv_cache_dtypes)
    d = copy_submission(VLLM_GPTOSS, tmp_path)
    launch = d / "launch_server.sh"
    replace_once(launch, "--tensor-parallel-size 1 &", "--tensor-parallel-size 1 --attention-backend FLASH_ATTN --kv-cache-dtype fp8 &")
    assert _messages(lint(d), "HW002") == []
    replace_once(launch, "--attention-backend FLASH_ATTN", "--attention-backend FLEX_ATTENTION")
    (msg,) = _messages(lint(d), "HW002")
    assert msg.startswith("--kv-cache-dtype fp8 with --attention-backend FLEX_ATTENTION: vLLM 0.33.0")
    assert "takes auto, float16, bfloat16" in msg and "vllm/v1/attention/backends/flex_attention.py" in msg


# --- HW005: backends that lack what the model needs ----------------------------------------------

def test_gpt_oss_with_flashinfer_in_sglang(tmp_path):
    d = copy_submission(SGL_DSV4, tmp_path)
    run = d / "run.sh"
    replace_once(run, "--model-path deepseek-ai/DeepSeek-V4-Pro", "--model-path openai/gpt-oss-120b")
    replace_once(run, "--moe-runner-backend marlin", "--attention-backend triton")
    assert _messages(lint(d), "HW005") == []              # triton has sinks and sliding windows
    replace_once(run, "--attention-backend triton", "--attention-backend flashinfer")
    (msg,) = _messages(lint(d), "HW005")
    assert msg.startswith("flashinfer for openai/gpt-oss-120b (GptOssForCausalLM): SGLang 0.5.23 (")
    assert "requires one of triton, trtllm_mha, fa3, fa4" in msg and "GptOssForCausalLM requires one of" in msg
    assert "sglang/srt/arg_groups/model_hook.py:" in msg


def test_gpt_oss_without_sinks_in_vllm(tmp_path):
    d = copy_submission(VLLM_GPTOSS, tmp_path)
    launch = d / "launch_server.sh"
    replace_once(launch, "--tensor-parallel-size 1 &", "--tensor-parallel-size 1 --attention-backend TRITON_ATTN &")
    assert _messages(lint(d), "HW005") == []
    replace_once(launch, "--attention-backend TRITON_ATTN", "--attention-backend FLEX_ATTENTION")
    (msg,) = _messages(lint(d), "HW005")
    assert "FLEX_ATTENTION for openai/gpt-oss-120b (gpt_oss, attention sinks" in msg and "has no attention sinks" in msg
    assert "TRITON_ATTN" in msg.split("backends with sinks:")[1]


# --- the generated data --------------------------------------------------------------------------

def _shipped(engine: str) -> dict:
    return yaml.safe_load((ROOT / "rules" / "releases" / f"{engine}-kernels.yaml").read_text(encoding="utf-8"))


def _rows(data: dict):
    for section, value in data.items():
        if section in ("engine", "releases"):
            continue
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, fact in items:
            yield section, key, fact


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_every_row_cites_a_file_of_its_release(engine):
    data = _shipped(engine)
    rels = data["releases"]
    if not all((CACHE / engine / r).is_dir() for r in rels):
        pytest.skip(f"the {engine} source trees are not in the build cache {CACHE}")
    n = 0
    for section, key, fact in _rows(data):
        held = versions.expand(fact["in"], rels)
        assert held, (section, key)
        for attr in ("source", "compute_capability_source", "sinks_source"):
            src = fact.get(attr)
            if not src or "<module>" in src:
                continue
            path, _, line = src.partition(":")
            newest = CACHE / engine / held[-1] / path
            assert newest.is_file(), (section, key, attr, src, held[-1])
            if line:   # a cited line is in the newest release's file
                assert int(line) <= len(newest.read_text(encoding="utf-8", errors="replace").splitlines())
            n += 1
    assert n > 50


def test_the_matrix_holds_the_issue_facts():
    v, s = _shipped("vllm"), _shipped("sglang")
    assert v["quantization"]["awq"]["min_capability"] == 75
    assert v["quantization"]["mxfp4"]["min_capability"] == 80
    assert v["quantization"]["fp8"]["by_release"]["min_capability"] == {"0.6.2..0.13.0": 80}
    assert v["attention_backends"]["FLEX_ATTENTION"]["sinks"] == "no"
    assert v["attention_backends"]["TRITON_ATTN"]["sinks"] == "yes"
    assert [m["min_thread_n"] for m in v["marlin"]] == [64]
    assert {f["below_capability"] for f in v["fp8_marlin"]} == {89}
    gptoss = [f for f in s["model_backends"] if "GptOssForCausalLM" in f["architectures"]]
    assert gptoss and all("flashinfer" not in f["attention_backends"] for f in gptoss)
    assert any("TRTLLM MHA" in g["message"] and g["condition"]["and"][-1] == {"not": {"arch": [10]}}
               for g in s["guards"] if isinstance(g["condition"], dict) and "and" in g["condition"])
    assert s["fp8_marlin"][0]["in"].startswith("0.5.1.post3")


@pytest.mark.skipif(os.environ.get("CFGLINT_SKIP_BUILD") == "1", reason="CFGLINT_SKIP_BUILD=1")
@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_rerun_on_the_cached_trees_gives_the_shipped_file(engine):
    from cfglint.knowledge.build.kernels import build

    data = _shipped(engine)
    if not all((CACHE / engine / r).is_dir() for r in data["releases"]):
        pytest.skip(f"the {engine} source trees are not in the build cache {CACHE}")
    text, missing = build(engine, CACHE)
    assert missing == []
    assert text == (ROOT / "rules" / "releases" / f"{engine}-kernels.yaml").read_text(encoding="utf-8")


def test_amd_takes_the_methods_of_vllms_rocm_platform(tmp_path):
    d = copy_submission(VLLM_GPTOSS, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: B200", "accelerator: MI355X")
    assert _messages(lint(d), "HW004") == []              # mxfp4 is in supported_quantization of the ROCm platform
    replace_once(d / "launch_server.sh", "--tensor-parallel-size 1 &", "--tensor-parallel-size 1 --quantization experts_int8 &")
    (msg,) = _messages(lint(d), "HW004")
    assert msg.startswith("experts_int8 does not run on MI355X (gfx950) in vLLM 0.33.0: its ROCm platform takes only")
    assert "serve a checkpoint in one of those. experts_int8 is read from --quantization" in msg and "mxfp4" in msg and "vllm/platforms/rocm.py:" in msg


# --- vLLM on Ascend NPUs: the vllm-ascend plugin's quantization methods ---------------------------

def test_the_ascend_plugin_method_is_a_quantization_choice_on_ascend(tmp_path):
    # ../shared/corpus 067 (kthena, pods asking for huawei.com/ascend-1980) runs --quantization
    # ascend: the method vllm-ascend registers (was a false FLG002 against upstream vLLM's list)
    from cfglint.lint import lint_paths
    from support import shared

    src = shared("corpus") / "067-kthena-expected-disaggregated-model-serving" / "disaggregated-model-serving.yaml"
    text = src.read_text(encoding="utf-8")

    def flg002(body: str) -> list[str]:
        path = tmp_path / "disaggregated-model-serving.yaml"
        path.write_text(body, encoding="utf-8")
        return [f.message for f in lint_paths([str(path)]).findings if f.rule_id == "FLG002"]

    assert [f for f in lint_paths([str(src)]).findings if f.rule_id == "FLG002"] == []
    (bad, _) = flg002(text.replace("- ascend\n", "- ascendd\n", 2))    # a typo: both roles
    assert "--quantization: 'ascendd' is not one of" in bad
    assert "on Ascend (the container asks for huawei.com/ascend-1980) the vllm-ascend plugin adds ascend, " \
           "compressed-tensors" in bad and "rules/releases/vllm-ascend-kernels.yaml" in bad
    # the same launch on NVIDIA GPUs: upstream vLLM has no method 'ascend'
    on_gpu = flg002(text.replace("huawei.com/ascend-1980", "nvidia.com/gpu"))
    assert len(on_gpu) == 2 and all("'ascend' is not one of" in m and "vllm-ascend" not in m for m in on_gpu)


def test_the_ascend_rows_cite_the_plugin_source():
    data = _shipped("vllm-ascend")
    assert data["engine"] == "vllm-ascend" and data["releases"][0] == "0.9.1"
    assert data["quantization"]["ascend"]["in"] == f"0.9.1..{data['releases'][-1]}"
    assert all(f["source"].startswith("vllm_ascend/") for f in data["quantization"].values())
    assert all(f["source"].startswith("vllm_ascend/platform.py:") for f in data["platform_quantization"])


@pytest.mark.skipif(os.environ.get("CFGLINT_SKIP_BUILD") == "1", reason="CFGLINT_SKIP_BUILD=1")
def test_rerun_of_the_ascend_plugin_gives_the_shipped_file():
    from cfglint.knowledge.build.kernels import build

    data = _shipped("vllm-ascend")
    if not all((CACHE / "vllm" / f"ascend-{r}").is_dir() for r in data["releases"]):
        pytest.skip(f"the vllm-ascend wheels are not in the build cache {CACHE}")
    text, missing = build("vllm-ascend", CACHE, download=False)
    assert missing == []
    assert text == (ROOT / "rules" / "releases" / "vllm-ascend-kernels.yaml").read_text(encoding="utf-8")
