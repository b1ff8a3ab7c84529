"""Issue 23: an engine ``--config`` YAML linted on its own (no submission, no launch naming it) is
read as the config of the engine whose flags (nearly) all its keys are, and checked against that
engine's flags at the newest release cfglint holds (the release is not known, as for a launch
that declares none).

Real files, read in place: the vLLM recipes ../shared/corpus/044..048 (vllm-project/recipes
@ 8959cf64, `vllm serve --config FILE`) and the Dynamo SGLang worker config 094
(ai-dynamo/dynamo examples/backends/sglang/launch/config.yaml). Each failing case is a copy
changed in one place, written to tmp_path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cfglint.knowledge import knowledge
from cfglint.knowledge.configkeys import config_engine
from cfglint.lint import lint_paths
from support import shared

RECIPES = ["044-recipes-llama-llama3-3-blackwell/Llama3.3_Blackwell.yaml",
           "045-recipes-llama-llama3-3-hopper/Llama3.3_Hopper.yaml",
           "046-recipes-llama-llama4-hopper/Llama4_Hopper.yaml",
           "047-recipes-openai-gpt-oss-eagle3-hopper/GPT-OSS_EAGLE3_Hopper.yaml",
           "048-recipes-openai-gpt-oss-hopper/GPT-OSS_Hopper.yaml"]
BLACKWELL = RECIPES[0]
SGLANG_CONFIG = "094-dynamo-sglang-config-yaml/config.yaml"


def _corpus(rel: str) -> Path:
    return shared("corpus") / rel


def _lint(path: Path) -> list[tuple]:
    return [(f.rule_id, f.level, f.span.line, f.span.col, f.message) for f in lint_paths([str(path)]).findings]


def _copy(tmp_path: Path, rel: str, old: str, new: str) -> Path:
    text = _corpus(rel).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    out = tmp_path / Path(rel).name
    out.write_text(text.replace(old, new), encoding="utf-8")
    return out


@pytest.mark.parametrize("rel", RECIPES, ids=lambda r: r.split("-")[0])
def test_a_vllm_recipe_config_is_typed_as_vllm_and_passes(rel):
    import yaml

    keys = list(yaml.safe_load(_corpus(rel).read_text(encoding="utf-8")))
    assert config_engine(keys, knowledge()).engine == "vllm"
    assert _lint(_corpus(rel)) == []    # every key a vLLM 0.33.0 flag, every value of its type


def test_a_misspelled_key_of_the_vllm_recipe_is_flg001_at_its_line(tmp_path):
    path = _copy(tmp_path, BLACKWELL, "async-scheduling: true", "async-schedulng: true")
    found = _lint(path)
    assert [(f[0], f[1], f[2], f[3]) for f in found] == [("FLG001", "error", 3, 1)]
    assert "vLLM has no flag --async-schedulng" in found[0][4] and "did you mean --async-scheduling" in found[0][4]


def test_a_wrong_choice_in_the_vllm_recipe_is_flg002_at_the_value(tmp_path):
    path = _copy(tmp_path, BLACKWELL, "kv-cache-dtype: fp8", "kv-cache-dtype: fp9")
    found = _lint(path)
    assert [(f[0], f[2], f[3]) for f in found] == [("FLG002", 1, 17)] and "'fp9' is not one of" in found[0][4]


def test_a_word_for_a_flag_without_value_is_flg002(tmp_path):
    # vLLM passes `async-scheduling: "yes"` as `--async-scheduling yes`: argparse refuses the extra word
    path = _copy(tmp_path, BLACKWELL, "async-scheduling: true", 'async-scheduling: "yes"')
    found = _lint(path)
    assert [(f[0], f[1], f[2]) for f in found] == [("FLG002", "error", 3)] and "takes no value" in found[0][4]


def test_a_yaml_true_for_a_flag_that_takes_a_number_is_flg002(tmp_path):
    # vLLM passes `max-num-batched-tokens: true` as the bare flag: "expected one argument"
    path = _copy(tmp_path, BLACKWELL, "max-num-batched-tokens: 8192", "max-num-batched-tokens: true")
    found = [f for f in _lint(path) if f[0] == "FLG002"]
    assert [(f[1], f[2], f[3]) for f in found] == [("error", 5, 25)] and "expected one argument" in found[0][4]


def test_underscore_and_dotted_keys_are_the_flags_vllm_reads(tmp_path):
    # FlexibleArgumentParser: `_` for `-` before the first `.`; a dotted key merges into its JSON flag
    path = _copy(tmp_path, BLACKWELL, "max-num-batched-tokens: 8192",
                 "max_num_batched_tokens: 8192\ncompilation-config.cudagraph_mode: FULL")
    assert _lint(path) == []


def test_a_repeated_key_with_the_same_value_is_a_warning_and_another_value_an_error(tmp_path):
    # yaml.safe_load (vLLM's load_config_file) keeps the last value: the same value changes nothing
    same = _copy(tmp_path, BLACKWELL, "max-num-batched-tokens: 8192", "max-num-batched-tokens: 8192\nasync-scheduling: true")
    found = _lint(same)
    assert [(f[0], f[1], f[2]) for f in found] == [("IO001", "warning", 6)] and "same value" in found[0][4]
    other = _copy(tmp_path, BLACKWELL, "max-num-batched-tokens: 8192", "max-num-batched-tokens: 8192\nmax-num-batched-tokens: 4096")
    found = _lint(other)
    assert ("IO001", "error", 6) in [(f[0], f[1], f[2]) for f in found]
    assert ("FLG003", "error", 6) in [(f[0], f[1], f[2]) for f in found]


def test_a_repeated_key_outside_an_engine_config_stays_an_error(tmp_path):
    path = tmp_path / "tool.yaml"
    path.write_text("name: a\nname: a\n", encoding="utf-8")
    assert [(f[0], f[1], f[2]) for f in _lint(path)] == [("IO001", "error", 2)]


def test_the_dynamo_sglang_config_is_typed_as_sglang(tmp_path):
    assert _lint(_corpus(SGLANG_CONFIG)) == []
    path = _copy(tmp_path, SGLANG_CONFIG, "page-size: 16", "page-sise: 16")
    found = _lint(path)
    assert [(f[0], f[2], f[3]) for f in found] == [("FLG001", 3, 1)] and "SGLang has no flag --page-sise" in found[0][4]


def test_keys_both_engines_have_alike_are_a_note_not_a_guess(tmp_path):
    path = tmp_path / "serve.yaml"
    path.write_text("trust-remote-code: true\nserved-model-name: m\n", encoding="utf-8")
    found = _lint(path)
    assert [(f[0], f[2]) for f in found] == [("COV001", 1)]
    assert "flags of SGLang's and vLLM's --config files alike" in found[0][4]


def test_trtllm_llm_api_yaml_is_not_taken_for_a_vllm_config():
    # the LLM API's keys are snake_case, which vLLM also accepts: a TensorRT-LLM file stays TensorRT-LLM's
    keys = ["tensor_parallel_size", "moe_expert_parallel_size", "enable_attention_dp", "kv_cache_config"]
    assert config_engine(keys, knowledge()).engine is None


def test_a_tensorrt_llm_llm_api_yaml_on_its_own_gets_its_cross_field_checks(tmp_path):
    # corpus 079 (TensorRT-LLM's curated DeepSeek-R1 latency config): read as the worker that loads
    # it, so EP against TP and the speculative token budget are checked, as inside a submission
    # (was: SCH001 only, and a real mistake passed in silence; found by a new-user trial)
    from cfglint.lint import lint_paths
    from support import shared

    src = shared("corpus") / "079-trtllm-curated-deepseek-r1-latency" / "deepseek-r1-latency.yaml"
    assert [f for f in lint_paths([str(src)]).findings if f.level in ("error", "warning")] == []
    text = src.read_text(encoding="utf-8")
    bad = tmp_path / "deepseek-r1-latency.yaml"
    bad.write_text(text.replace("moe_expert_parallel_size: 2", "moe_expert_parallel_size: 3")
                   .replace("max_num_tokens: 32768", "max_num_tokens: 8"), encoding="utf-8")
    found = {(f.rule_id, f.span.line): f.message for f in lint_paths([str(bad)]).findings}
    assert found[("TOP004", 3)] == "MoE EP 3 does not divide TP 8"
    assert found[("SPEC003", 4)].startswith("max_num_tokens 8 < max_batch_size 4 x (3 draft + 1) = 16")
    assert not [k for k in found if k[0] == "COV001"]      # no flags given: no note about trtllm-serve's flags
