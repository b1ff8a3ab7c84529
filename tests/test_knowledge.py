"""The knowledge base: every fact names its source, and the names the published
configurations use are known."""

from __future__ import annotations

import glob

import yaml

from cfglint.knowledge import data_dir, knowledge

from support import EXAMPLES


def test_every_accelerator_model_and_parser_names_its_source():
    kb = knowledge()
    rules = data_dir("rules")
    accs = yaml.safe_load((rules / "accelerators.yaml").read_text())["accelerators"]
    assert accs and all(str(e.get("source", "")).strip() for e in accs.values())
    models = yaml.safe_load((rules / "models.yaml").read_text())["models"]
    assert models and all(str(m.get("source", "")).strip() for m in models)
    count = 0
    for engine in ("sglang", "vllm", "trtllm", "dynamo"):
        for kind in ("reasoning", "tool_call"):
            for name, entry in kb.parser_registry(engine, kind).items():
                assert str(entry.get("source", "")).strip(), (engine, kind, name)
                count += 1
    assert count > 100
    for name in ("engines.yaml", "kernels.yaml", "paths.yaml"):
        assert "source" in (rules / name).read_text()
    for entry in yaml.safe_load((rules / "kernels.yaml").read_text()).get("known_bad") or []:
        assert str(entry.get("source", "")).strip(), entry
    for name, registry in kb.flag_registries.items():
        assert registry.source.strip() and len(registry.flags) > 5, name
    assert set(kb.flag_registries) >= {"sglang", "vllm", "trtllm", "trtllm.disaggregated", "dynamo.frontend",
                                       "dynamo.trtllm", "dynamo.sglang"}


def test_published_systems_and_models_are_known():
    kb = knowledge()
    for path in glob.glob(str(EXAMPLES / "*" / "*" / "*" / "submission.yaml")):
        manifest = yaml.safe_load(open(path, encoding="utf-8"))
        assert kb.accelerator(manifest["system"]["accelerator"]) is not None, path
        assert kb.model(manifest["model"]) is not None, path
    assert kb.accelerator("RTX 6000D")["arch"] == "sm120"
    assert kb.accelerator("RTX PRO 6000")["arch"] == "sm120"
    assert kb.accelerator("GB300")["per_node"] == 4


def test_user_knowledge_file_adds_an_accelerator_and_a_parser(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from support import copy_submission, replace_once

    d = copy_submission("artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle", tmp_path)
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: LAB-GPU")
    replace_once(d / "run.sh", "--moe-runner-backend marlin", "--moe-runner-backend flashinfer_cutlass --reasoning-parser lab_r1")
    extra = tmp_path / "lab.yaml"
    extra.write_text("accelerators:\n  LAB-GPU: {vendor: NVIDIA, arch: sm120, per_node: 8, source: 'our lab'}\n"
                     "parsers:\n  sglang:\n    reasoning:\n      lab_r1: {families: null, source: 'our fork'}\n")
    exe = str(Path(sys.executable).parent / "cfglint")
    plain = subprocess.run([exe, "check", str(d), "-f", "json"], capture_output=True, text=True)
    rules = sorted(f["rule"] for f in __import__("json").loads(plain.stdout)["findings"])
    assert "SUB001" in rules and "PRS001" in rules and "HW001" not in rules
    mine = subprocess.run([exe, "check", str(d), "-f", "json", "--knowledge", str(extra)], capture_output=True, text=True)
    findings = __import__("json").loads(mine.stdout)["findings"]
    rules = sorted(f["rule"] for f in findings)
    # the lab's accelerator entry gives no memory size: MEM001 cannot weigh the weights, and says so
    assert rules == ["COV001", "HW001"]
    assert any("MEM001): the memory of LAB-GPU is not in the knowledge base" in f["message"] for f in findings)
    bad = subprocess.run([exe, "check", str(d), "--knowledge", str(tmp_path / "none.yaml")], capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read knowledge file" in bad.stderr


def _aic_wheel():
    import os
    from pathlib import Path
    candidates = [os.environ.get("CFGLINT_AIC_WHEEL", "")] + sorted(
        str(p) for p in Path("/tmp/aic").glob("aiconfigurator_core-0.12.0-*.whl"))
    return next((Path(c) for c in candidates if c and Path(c).is_file()), None)


def test_generated_model_configs_are_up_to_date():
    """rules/model_configs.yaml is exactly the model-configs generator's output on the pinned wheel."""
    from pathlib import Path

    import pytest

    from cfglint.knowledge.build import model_configs as gen
    wheel = _aic_wheel()
    if wheel is None:
        pytest.skip("aiconfigurator_core-0.12.0 wheel not available (set CFGLINT_AIC_WHEEL)")
    root = Path(__file__).resolve().parent.parent
    assert (root / "rules" / "model_configs.yaml").read_text(encoding="utf-8") == gen.generate(wheel)


def test_generated_model_configs_normalize_field_names():
    """Expert counts read under their different config names land in the same field."""
    data = yaml.safe_load((data_dir("rules") / "model_configs.yaml").read_text())["models"]
    assert len(data) >= 80
    assert data["mistralai/Mixtral-8x7B-v0.1"]["n_routed_experts"] == 8          # num_local_experts
    assert data["Qwen/Qwen3-235B-A22B"]["n_routed_experts"] == 128               # num_experts
    assert data["deepseek-ai/DeepSeek-V3"]["n_routed_experts"] == 256            # n_routed_experts
    assert data["deepseek-ai/DeepSeek-V3"]["mla"] is True
    assert data["deepseek-ai/DeepSeek-V3"]["quantization"] == {"method": "fp8", "weight_block_size": [128, 128]}
    assert data["nvidia/GLM-5-NVFP4"]["quantization"]["method"] == "nvfp4"       # hf_quant_config.json
    assert data["Qwen/Qwen3-VL-8B-Instruct"]["num_hidden_layers"] == 36          # text_config
    assert all(e["source"].startswith("aiconfigurator-core==0.12.0") and e["config_url"].endswith("/config.json")
               for e in data.values())


def test_at_least_80_curated_models_each_with_family_formats_and_source():
    models = yaml.safe_load((data_dir("rules") / "models.yaml").read_text())["models"]
    ids = [m["id"] for m in models]
    assert len(set(ids)) == len(ids) >= 80
    keys = [k.lower() for m in models for k in [m["id"], *(m.get("aliases") or [])]]
    assert len(keys) == len(set(keys)), "an id or alias names two entries"
    kb = knowledge()
    vllm_reasoning = set(kb.parser_registry("vllm", "reasoning"))
    vllm_tools = set(kb.parser_registry("vllm", "tool_call"))
    for m in models:
        assert str(m.get("source", "")).strip() and m.get("family") and isinstance(m.get("moe"), bool), m["id"]
        assert "checkpoint_precision" in m and m.get("reasoning", "x") in ("always", "optional", "none", None), m["id"]
        assert m.get("reasoning_format") is None or m["reasoning_format"] in vllm_reasoning, m["id"]
        assert m.get("tool_call_format") is None or set(m["tool_call_format"]) <= vllm_tools, m["id"]
        if m.get("reasoning_format") or m.get("tool_call_format"):
            assert str(m.get("format_source", "")).strip(), m["id"]
        assert m.get("base") is None or kb.model(m["base"]) is not None, m["id"]
    families = {m["family"] for m in models}
    assert families >= {"deepseek", "qwen", "llama", "mistral", "gemma", "phi", "glm", "kimi", "minimax", "gpt-oss",
                        "nemotron", "hunyuan", "ernie", "step"}


def test_curated_values_agree_with_the_published_config():
    """Where a curated entry states heads and a config.json gives them, they are the same number."""
    kb = knowledge()
    for m in yaml.safe_load((data_dir("rules") / "models.yaml").read_text())["models"]:
        config = kb._config_for(m["id"], *(m.get("aliases") or []))
        for key in ("num_attention_heads", "num_key_value_heads"):
            if m.get(key) is not None and config.get(key) is not None:
                assert m[key] == config[key], (m["id"], key)


def test_every_extra_config_names_where_it_was_read_and_what_it_lacks():
    data = yaml.safe_load((data_dir("rules") / "model_configs_extra.yaml").read_text())["models"]
    generated = yaml.safe_load((data_dir("rules") / "model_configs.yaml").read_text())["models"]
    assert data and not set(data) & set(generated)
    for repo_id, entry in data.items():
        assert entry["source"].strip() and entry["config_url"] == f"https://huggingface.co/{repo_id}/blob/main/config.json"
        assert isinstance(entry["unverified"], list)
        for field in entry["unverified"]:
            assert entry[field] is None, (repo_id, field)


def test_model_entries_are_flat_with_config_facts():
    kb = knowledge()
    e = kb.model("deepseek-ai/DeepSeek-V3")
    assert e["family"] == "deepseek" and e["num_attention_heads"] == 128 and e["mla"] is True
    assert e["max_position_embeddings"] == 163840 and e["quantization"]["method"] == "fp8"
    assert e["config_url"] == "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json"
    e = kb.model("meta-llama/Llama-3.3-70B-Instruct")                      # rules/model_configs_extra.yaml
    assert e["num_key_value_heads"] == 8 and e["rope_scaling"]["rope_type"] == "llama3"
    assert kb.model("qwen/qwen3-0.6b")["num_hidden_layers"] == 28         # case-insensitive
    assert kb.model("https://huggingface.co/Qwen/Qwen3-8B")["id"] == "Qwen/Qwen3-8B"


def test_derived_checkpoints_resolve_to_their_base_with_their_own_precision():
    kb = knowledge()
    e = kb.model("nvidia/DeepSeek-R1-FP4")                                 # NVIDIA ModelOpt FP4 re-upload
    assert e["id"] == "deepseek-ai/DeepSeek-R1" and e["checkpoint_precision"] in ("NVFP4", "FP4")
    assert e["requested_id"] == "nvidia/DeepSeek-R1-FP4" and len(e["resolved_from"]) == 2
    assert e["quantization"]["method"] == "nvfp4"                          # not the base's block FP8
    assert kb.model("deepseek-ai/DeepSeek-R1")["checkpoint_precision"] == "FP8"
    e = kb.model("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic")        # llm-compressor re-upload
    assert e["id"] == "meta-llama/Llama-3.1-8B-Instruct" and e["checkpoint_precision"] == "FP8"
    assert e["num_attention_heads"] == 32
    e = kb.model("neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w4a16")
    assert e["id"] == "meta-llama/Llama-3.1-70B-Instruct" and e["checkpoint_precision"] == "INT4"
    e = kb.model("unsloth/gpt-oss-20b")                                    # org mirror, no suffix
    assert e["id"] == "openai/gpt-oss-20b" and e["checkpoint_precision"] == "MXFP4"
    assert kb.model("Qwen/Qwen3-32B-AWQ")["checkpoint_precision"] == "INT4"
    assert kb.model("Qwen/Qwen3-235B-A22B-FP8")["checkpoint_precision"] == "FP8"   # curated alias, own config
    assert kb.model("Qwen/Qwen3-235B-A22B")["checkpoint_precision"] == "BF16"
    e = kb.model("deepseek-ai/DeepSeek-R1-Distill-Llama-70B")              # fine-tune with a curated base
    assert e["id"] == "deepseek-ai/DeepSeek-R1-Distill-Llama-70B" and e["reasoning_format"] == "deepseek_r1"
    assert e["num_hidden_layers"] == 80 and "meta-llama/Llama-3.3-70B-Instruct" in e["resolved_from"][-1]
    e = kb.model("Qwen/Qwen3-235B-A22B-Thinking-2507")
    assert e["reasoning"] == "always" and e["num_attention_heads"] == 64
    assert kb.model("nvidia/gpt-oss-120b-Eagle3-v3") is None               # a draft head is not its target
    assert kb.model("someone/unknown-model-FP8") is None
    assert kb.model("/models/Kimi-K3") is None                             # a path is not an org mirror
    assert kb.model("") is None and kb.model(None) is None


def test_local_model_directory_is_read_only_inside_the_linted_tree(tmp_path):
    import json
    import os

    kb = knowledge()
    tree = tmp_path / "sub"
    model_dir = tree / "models" / "Qwen3-32B-FP8"
    model_dir.mkdir(parents=True)
    (model_dir / "config.json").write_text(json.dumps({
        "model_type": "qwen3", "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 64,
        "max_position_embeddings": 40960, "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}))
    e = kb.model_from_config("models/Qwen3-32B-FP8", str(tree))
    assert e["num_attention_heads"] == 64 and e["max_position_embeddings"] == 40960
    assert e["id"] == "Qwen/Qwen3-32B" and e["family"] == "qwen" and e["checkpoint_precision"] == "FP8"
    assert e["config_source"] == "local config.json: " + os.path.join("models", "Qwen3-32B-FP8", "config.json")
    assert kb.model_from_config(str(model_dir), str(tree))["num_hidden_layers"] == 64      # absolute, inside
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "config.json").write_text(json.dumps({"num_attention_heads": 8}))
    assert kb.model_from_config(str(outside), str(tree)) is None                          # outside the tree
    assert kb.model_from_config("../elsewhere", str(tree)) is None
    (tree / "link").symlink_to(outside, target_is_directory=True)
    assert kb.model_from_config("link", str(tree)) is None                                # symlink out
    big = tree / "big"
    big.mkdir()
    (big / "config.json").write_text(" " * (2 << 20) + "{}")
    assert kb.model_from_config("big", str(tree)) is None                                 # size-bounded
    bad = tree / "bad"
    bad.mkdir()
    (bad / "config.json").write_text("{not json")
    assert kb.model_from_config("bad", str(tree)) is None
    assert kb.model_from_config("missing", str(tree)) is None


def test_user_knowledge_file_models_are_shape_checked(tmp_path):
    import pytest

    from cfglint.knowledge import Knowledge, KnowledgeError

    good = tmp_path / "good.yaml"
    good.write_text("models:\n  - {id: lab/Model-7B, family: llama, moe: false, num_attention_heads: 32,\n"
                    "     num_key_value_heads: 8, base: meta-llama/Llama-3.1-8B, source: 'our card'}\n")
    kb = Knowledge((str(good),))
    e = kb.model("lab/Model-7B-FP8")
    assert e["id"] == "lab/Model-7B" and e["checkpoint_precision"] == "FP8" and e["num_hidden_layers"] == 32
    for bad in ("models:\n  - {id: x/y, num_attention_heads: many}\n", "models:\n  - {id: x/y, moe: 'yes'}\n",
                "models:\n  - {id: x/y, aliases: x/z}\n", "models:\n  - {id: x/y, base: [a]}\n"):
        path = tmp_path / "bad.yaml"
        path.write_text(bad)
        with pytest.raises(KnowledgeError):
            Knowledge((str(path),))


def test_every_accelerator_has_arch_memory_per_node_and_source():
    accs = yaml.safe_load((data_dir("rules") / "accelerators.yaml").read_text())["accelerators"]
    for name, e in accs.items():
        assert e.get("arch") and isinstance(e.get("memory_gib"), (int, float)) and isinstance(e.get("per_node"), int), name
        assert str(e.get("source", "")).strip(), name
    kb = knowledge()
    for name, arch in [("A100 40GB", "sm80"), ("A10", "sm86"), ("A10G", "sm86"), ("L4", "sm89"), ("L40", "sm89"),
                       ("L40S", "sm89"), ("V100", "sm70"), ("T4", "sm75"), ("RTX 3090", "sm86"), ("RTX 4090", "sm89"),
                       ("RTX 5090", "sm120"), ("RTX A6000", "sm86"), ("RTX 6000 Ada", "sm89"), ("DGX Spark", "sm121"),
                       ("H20", "sm90"), ("H800", "sm90"), ("A800", "sm80"), ("MI250X", "gfx90a"), ("MI300A", "gfx942"),
                       ("MI325X", "gfx942"), ("Gaudi 2", "gaudi2"), ("Gaudi 3", "gaudi3")]:
        assert kb.accelerator(name)["arch"] == arch, name


def test_coverage_note_for_config_only_model_and_local_model_directory(tmp_path):
    """A model known only by its config.json is reported as lacking a curated entry; a local
    model directory inside the submission is read, and an absent one is reported unknown."""
    import json

    from support import copy_submission, lint, only, replace_once

    rel = "recipes/dynamo-trtllm-qwen3-0.6b-disagg-1p1d"
    control = copy_submission(rel, tmp_path / "control")
    # the recipe's note names only its `python3 -m "$WORKER_MODULE"` launches, not the model
    assert all("knowledge base" not in n[4] and "curated" not in n[4] for n in only(lint(control, coverage=True), "COV001"))

    d = copy_submission(rel, tmp_path / "config-only")
    replace_once(d / "submission.yaml", "model: Qwen/Qwen3-0.6B", "model: XiaomiMiMo/MiMo-7B-Base")
    notes = only(lint(d, coverage=True), "COV001")
    assert len(notes) == 1 and notes[0][1:4] == ("submission.yaml", 1, 1)
    assert "XiaomiMiMo/MiMo-7B-Base" in notes[0][4] and "no curated entry" in notes[0][4]

    d = copy_submission(rel, tmp_path / "local")
    replace_once(d / "submission.yaml", "model: Qwen/Qwen3-0.6B", "model: ./models/my-qwen-finetune")
    notes = only(lint(d, coverage=True), "COV001")
    assert len(notes) == 1 and "'./models/my-qwen-finetune' is not in the knowledge base" in notes[0][4]
    assert "$WORKER_MODULE" in notes[0][4]  # one note holds every gap of the submission
    # an absent directory named after a published model takes that model's facts (issue 22)
    replace_once(d / "submission.yaml", "model: ./models/my-qwen-finetune", "model: ./models/Qwen3-0.6B")
    assert all("Qwen3-0.6B" not in n[4] for n in only(lint(d, coverage=True), "COV001"))
    (d / "models" / "Qwen3-0.6B").mkdir(parents=True)
    (d / "models" / "Qwen3-0.6B" / "config.json").write_text(json.dumps(
        {"model_type": "qwen3", "num_attention_heads": 16, "num_key_value_heads": 8, "num_hidden_layers": 28}))
    assert all("Qwen3-0.6B" not in n[4] for n in only(lint(d, coverage=True), "COV001"))
