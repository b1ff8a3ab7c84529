"""COV001 names why a model-dependent check could not run, by its cause: a KServe runtime's
/mnt/models (the model is the InferenceService's, not in the file), a placeholder path, a model
the knowledge base lacks; and a script-argument override of a literal default is read as the
default, as ${MODEL:-x} is. Real corpus files, changed in one place."""

from __future__ import annotations

from cfglint.lint import lint_paths
from support import SHARED, shared


def _parts(path) -> list[str]:
    return [m for f in lint_paths([str(path)]).findings if f.rule_id == "COV001" for _s, m in f.related]


def test_a_kserve_runtime_serves_the_model_of_the_inference_service_using_it(tmp_path):
    shared("corpus")
    src = SHARED / "corpus/043-kserve-runtimes-kserve-vllmserver/kserve-vllmserver.yaml"
    parts = _parts(src)
    assert any("the ClusterServingRuntime serves /mnt/models, where KServe puts the model of the InferenceService "
               "that uses it" in p for p in parts)
    assert not any("'/mnt/models' is not in the knowledge base" in p for p in parts)
    # the same launch outside KServe (a shell script): a model directory cfglint does not know
    run = tmp_path / "run.sh"
    run.write_text("vllm serve /mnt/models --tensor-parallel-size 2\n", encoding="utf-8")
    assert any("model '/mnt/models' is not in the knowledge base" in p for p in _parts(run))


def test_a_placeholder_model_path_is_named_a_placeholder(tmp_path):
    shared("corpus")
    src = next((SHARED / "corpus").glob("033-*/*.yaml"))
    parts = _parts(src)
    assert any("the model '/var/mdl/YOUR-MODEL-PATH' is a placeholder the reader fills in" in p for p in parts)
    changed = tmp_path / src.name
    changed.write_text(src.read_text(encoding="utf-8").replace("/var/mdl/YOUR-MODEL-PATH", "/var/mdl/llama-local"),
                       encoding="utf-8")
    assert any("model '/var/mdl/llama-local' is not in the knowledge base" in p for p in _parts(changed))


def test_an_option_loop_override_keeps_the_scripts_default_model(tmp_path):
    # corpus 073: MODEL="Qwen/Qwen3-0.6B", then `--model-path) MODEL="$2"` in the option loop: the
    # script as published serves its default (was "checks that use model: ... known only at run time")
    shared("corpus")
    src = SHARED / "corpus/073-dynamo-sglang-agg/agg.sh"
    parts = _parts(src)
    assert not any(p.startswith("checks that use model") for p in parts)
    text = src.read_text(encoding="utf-8")
    bad = tmp_path / "agg.sh"    # the default removed: the model is only the script argument
    bad.write_text(text.replace('MODEL="Qwen/Qwen3-0.6B"\n', "", 1), encoding="utf-8")
    assert any(p.startswith("checks that use model") for p in _parts(bad))


def test_deepseek_r1_weights_do_not_fit_eight_h100s(tmp_path):
    # DeepSeek-R1 (685B with its MTP module, FP8) needs ~685 GB of weights: 8 x H200 (141 GB) hold
    # them, 8 x H100 (80 GB) do not (was: COV001 "no parameter count" for the most served model)
    from support import copy_submission, lint, only, replace_once

    d = copy_submission("recipes/vllm-glm-5.1-fp8-h200-tp8-mtp3", tmp_path)
    replace_once(d / "submission.yaml", "model: zai-org/GLM-5.1-FP8", "model: deepseek-ai/DeepSeek-R1")
    replace_once(d / "run.sh", "vllm serve zai-org/GLM-5.1-FP8", "vllm serve deepseek-ai/DeepSeek-R1")
    assert only(lint(d), "MEM001") == []                                   # H200, as published
    assert not any("parameter" in m and "DeepSeek-R1" in m for m in _parts(d))
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: H100")
    (msg,) = [f[4] for f in only(lint(d), "MEM001")]
    assert "deepseek-ai/DeepSeek-R1 (FP8" in msg and "need ~79.7 GiB per GPU at TP 8 but H100 leaves 73.6 GiB" in msg


def test_a_local_directory_named_for_no_checkpoint_says_so(tmp_path):
    # corpus 053: --model-path /models/Qwen3 (a family, not a checkpoint; its PVC is not in the file)
    shared("corpus")
    src = next((SHARED / "corpus").glob("053-*/*.yaml"))
    parts = [p for p in _parts(src) if p.startswith("model-dependent checks")]
    assert parts and all("'/models/Qwen3' is not in the knowledge base: it is a local directory named for no "
                         "checkpoint cfglint holds" in p for p in parts)
    # the directory named after its checkpoint: read as that model, no gap
    changed = tmp_path / src.name
    text = src.read_text(encoding="utf-8")
    assert text.count("- /models/Qwen3\n") == 2
    changed.write_text(text.replace("- /models/Qwen3\n", "- /models/Qwen3-8B\n"), encoding="utf-8")
    assert not any(p.startswith("model-dependent checks") for p in _parts(changed))


def test_an_llm_config_container_with_no_command_takes_the_presets_command(tmp_path):
    # corpus 071: the KServe LLMInferenceServiceConfig's main containers set no command; KServe merges
    # them over the well-known presets (and spec.baseRefs), whose command is not in the file
    shared("corpus")
    src = next((SHARED / "corpus").glob("071-*/*.yaml"))
    parts = [p for p in _parts(src) if p.startswith("every launch check for container main")]
    assert len(parts) == 2 and all("it sets no command, so it starts no engine launch of its own: KServe merges it "
                                   "over the LLMInferenceServiceConfig presets" in p for p in parts)
    # the decode container given its own command: read as the launch it is (its flags checked)
    text = src.read_text(encoding="utf-8")
    old = "      - name: main\n        image: ghcr.io/llm-d/llm-d-cuda:v0.9.0\n"
    assert text.count(old) == 1
    changed = tmp_path / src.name
    changed.write_text(text.replace(old, old + "        command: [vllm, serve, /mnt/models, --bogus-flag]\n"),
                       encoding="utf-8")
    findings = lint_paths([str(changed)]).findings
    assert any(f.rule_id == "FLG001" and "--bogus-flag" in f.message for f in findings)
    assert len([p for p in _parts(changed) if "it sets no command" in p]) == 1   # the prefill one
