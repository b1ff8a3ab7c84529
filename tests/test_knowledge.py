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
