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


def _fix(d, *more):
    # the published submission declares no engine version: a move is an unsafe fix there (SCH001)
    return CliRunner().invoke(main, ["check", str(d), "--fix", "--unsafe-fixes", "--no-config", *more],
                              catch_exceptions=False)


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


def test_a_move_is_unsafe_unless_the_release_is_known_to_have_the_new_key(tmp_path):
    # no engine.version and an image without a release tag: --fix alone leaves the key, says so
    d = copy_submission(REL, tmp_path)
    cfg = d / "gen_config.yaml"
    replace_once(cfg, "enable_autotuner: false\n", "autotuner_enabled: false\n")
    text = cfg.read_text()
    r = CliRunner().invoke(main, ["check", str(d), "--fix", "--no-config"], catch_exceptions=False)
    assert "fixed 0 finding(s); 1 more with --unsafe-fixes" in r.stderr and cfg.read_text() == text
    assert "0 fixable with --fix (1 more with --unsafe-fixes)" in r.stdout
    # the manifest declares TensorRT-LLM 1.2.0, after the rename (1.0): the move is safe
    replace_once(d / "submission.yaml", "  name: trtllm\n", "  name: trtllm\n  version: 1.2.0\n")
    r = CliRunner().invoke(main, ["check", str(d), "--fix", "--no-config", "--show-fixes"], catch_exceptions=False)
    assert "fixed 1 finding(s)" in r.stderr and "enable_autotuner: false" in cfg.read_text()
    assert f"gen_config.yaml:{text.splitlines().index('autotuner_enabled: false') + 1}:1: SCH001 " \
           "autotuner_enabled -> enable_autotuner" in r.stderr
    # a release before the rename: unsafe again
    cfg.write_text(text)
    replace_once(d / "submission.yaml", "version: 1.2.0", "version: 0.21.0")
    r = CliRunner().invoke(main, ["check", str(d), "--fix", "--no-config"], catch_exceptions=False)
    assert "1 more with --unsafe-fixes" in r.stderr and cfg.read_text() == text


def test_the_move_is_the_same_edit_in_sarif_diff_and_fix(tmp_path):
    """fix_of gives the edit of one finding; SARIF shows it, --diff prints it, --fix writes it:
    the SARIF replacements applied to the file give the bytes --fix writes."""
    import json

    from cfglint.edit.fix import apply_text_edits
    from cfglint.model import Span, TextEdit

    d = copy_submission(REL, tmp_path)
    cfg = d / "ctx_config.yaml"
    replace_once(cfg, IN_SECTION, OLD_SPELLING)
    before = cfg.read_text()
    sarif = CliRunner().invoke(main, ["check", str(d), "--no-config", "-f", "sarif"], catch_exceptions=False).stdout
    (result,) = [r for r in json.loads(sarif)["runs"][0]["results"] if r["ruleId"] == "SCH001"]
    (fix,) = result["fixes"]
    assert fix["description"]["text"] == "Move kv_cache_dtype to kv_cache_config.dtype" and fix["properties"] == {"safe": False}
    edits = [TextEdit(Span("ctx_config.yaml", r["deletedRegion"]["startLine"], r["deletedRegion"]["startColumn"],
                           r["deletedRegion"]["endLine"], r["deletedRegion"]["endColumn"]), r["insertedContent"]["text"])
             for change in fix["artifactChanges"] for r in change["replacements"]]
    diff = CliRunner().invoke(main, ["check", str(d), "--no-config", "--diff", "--unsafe-fixes"], catch_exceptions=False)
    assert diff.exit_code == 1 and cfg.read_text() == before          # --diff writes nothing
    assert "-kv_cache_dtype: fp8   # set for the FP8 KV cache" in diff.stdout
    _fix(d)
    assert apply_text_edits(before, edits) == cfg.read_text() != before
