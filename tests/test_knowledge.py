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
    rules = sorted(f["rule"] for f in __import__("json").loads(mine.stdout)["findings"])
    assert rules == ["HW001"]
    bad = subprocess.run([exe, "check", str(d), "--knowledge", str(tmp_path / "none.yaml")], capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read knowledge file" in bad.stderr


def _aic_wheel():
    import os
    from pathlib import Path
    candidates = [os.environ.get("CFGLINT_AIC_WHEEL", "")] + sorted(
        str(p) for p in Path("/tmp/aic").glob("aiconfigurator_core-0.12.0-*.whl"))
    return next((Path(c) for c in candidates if c and Path(c).is_file()), None)


def test_generated_model_configs_are_up_to_date():
    """rules/model_configs.yaml is exactly tools/gen_model_configs.py's output on the pinned wheel."""
    import importlib.util
    from pathlib import Path

    import pytest
    wheel = _aic_wheel()
    if wheel is None:
        pytest.skip("aiconfigurator_core-0.12.0 wheel not available (set CFGLINT_AIC_WHEEL)")
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("gen_model_configs", root / "tools" / "gen_model_configs.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
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
