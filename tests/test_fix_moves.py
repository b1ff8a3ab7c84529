"""--fix, structural: a TensorRT-LLM key renamed or moved into another section (SCH001, with
schemas/trtllm-renamed-keys.yaml) is moved to its new key path, through ruamel.yaml's
round-trip mode (src/cfglint/edit/fix.py apply_moves). Built from the published DeepSeek V4 Pro
6p1d configuration, changed in one place."""

from __future__ import annotations

import re

import yaml
from click.testing import CliRunner

from cfglint.cli import main
from support import copy_submission, lint, only, replace_once

REL = "nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d"
IN_SECTION = "kv_cache_config:\n  enable_block_reuse: true\n  free_gpu_memory_fraction: 0.6\n  dtype: fp8\n"
OLD_SPELLING = "kv_cache_dtype: fp8   # set for the FP8 KV cache\nkv_cache_config:\n  enable_block_reuse: true\n" \
               "  free_gpu_memory_fraction: 0.6\n"


def _fix(d):
    return CliRunner().invoke(main, ["check", str(d), "--fix", "--no-config"], catch_exceptions=False)


def test_renamed_key_is_moved_into_its_section(tmp_path):
    d = copy_submission(REL, tmp_path)
    cfg = d / "ctx_config.yaml"
    published = yaml.safe_load(cfg.read_text())
    line = replace_once(cfg, IN_SECTION, OLD_SPELLING)
    found = only(lint(d), "SCH001")
    assert [(f[1], f[2], f[3]) for f in found] == [("ctx_config.yaml", line, 1)]
    assert "kv_cache_dtype" in found[0][4] and "kv_cache_config.dtype" in found[0][4]
    before = cfg.read_text().splitlines()
    r = _fix(d)
    assert "fixed 1 finding(s)" in r.stderr
    assert only(lint(d), "SCH001") == []
    assert yaml.safe_load(cfg.read_text()) == published          # the same configuration as published
    after = cfg.read_text().splitlines()
    # every other line as it was: only the old key's line left, only the new line came, with its comment
    assert [x for x in before if x not in after] == ["kv_cache_dtype: fp8   # set for the FP8 KV cache"]
    new = [x for x in after if x not in before]
    assert len(new) == 1 and re.fullmatch(r"  dtype: fp8 +# set for the FP8 KV cache", new[0]), new


def test_renamed_key_in_place_keeps_its_position(tmp_path):
    d = copy_submission(REL, tmp_path)
    cfg = d / "gen_config.yaml"
    text = cfg.read_text()
    line = replace_once(cfg, "enable_autotuner: false\n", "autotuner_enabled: false\n")
    assert [(f[1], f[2]) for f in only(lint(d), "SCH001")] == [("gen_config.yaml", line)]
    _fix(d)
    assert cfg.read_text() == text                                 # byte for byte the published file


def test_control_the_published_configuration_has_nothing_to_move(tmp_path):
    d = copy_submission(REL, tmp_path)
    texts = {p: p.read_bytes() for p in d.iterdir()}
    r = _fix(d)
    assert "fixed" not in r.stderr and all(p.read_bytes() == t for p, t in texts.items())


def test_a_move_onto_a_key_that_is_set_is_not_made(tmp_path):
    d = copy_submission(REL, tmp_path)
    cfg = d / "ctx_config.yaml"
    replace_once(cfg, "kv_cache_config:\n", "kv_cache_dtype: fp8\nkv_cache_config:\n")   # dtype is set in the section too
    text = cfg.read_text()
    r = _fix(d)
    assert "SCH001 not fixed: kv_cache_config.dtype is set already" in r.stderr
    assert cfg.read_text() == text and len(only(lint(d), "SCH001")) == 1


def test_anchors_are_left_alone(tmp_path):
    d = copy_submission(REL, tmp_path)
    cfg = d / "ctx_config.yaml"
    replace_once(cfg, IN_SECTION, OLD_SPELLING.replace("kv_cache_config:", "kv_cache_config: &kv"))
    text = cfg.read_text()
    assert "move the key by hand" in _fix(d).stderr and cfg.read_text() == text
