"""Messages in plain words (issue 13): YAML syntax errors say what is wrong on the line and how
to fix it, never PyYAML's parser terms; a value that should be null says to write `null`; one
wrong role name is one finding; a misspelled key in a --knowledge file names the key, its
place and the closest valid key. Each from a real published configuration changed in one place."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, copy_submission, lint, only, position, replace_once

DSV4_DYNAMO = "nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d"     # ctx_config.yaml: TensorRT-LLM engine YAML
QWEN_DISAGG = "recipes/dynamo-trtllm-qwen3-0.6b-disagg-1p1d"       # submission.yaml with prefill/decode roles
EAGLE = "artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle"
CFGLINT = str(Path(sys.executable).parent / "cfglint")
# PyYAML's parser words that must not reach a user
INTERNALS = ("<block", "<scalar>", "expected <", "mapping values are not allowed", "could not find expected",
             "while parsing", "while scanning", "cannot start any token", "but found")


@pytest.mark.parametrize("old,new,at,words", [
    # a key indented one space less than its siblings (line 18: '  dtype: fp8' of kv_cache_config)
    ("  dtype: fp8", " dtype: fp8", (18, 2),
     "this line's indentation (1 space) matches neither the line above (line 17, 2 spaces) nor the mapping that "
     "holds it (line 1, keys at 0 spaces); indent it exactly like the keys it belongs with"),
    # one space more than its siblings: read as the rest of the value above
    ("  free_gpu_memory_fraction: 0.6", "   free_gpu_memory_fraction: 0.6", (17, 28),
     "this line is indented more (3 spaces) than line 16 (2 spaces), so YAML reads it as the rest of line 16's "
     "value and its ':' is out of place; indent it like its sibling keys"),
    ("  backend: NIXL", "\tbackend: NIXL", (27, 1), "a tab character: YAML indents with spaces only; replace the tab"),
    ("max_batch_size: 128", "max_batch_size: [128", (2, 15),
     "the list opened with '[' at line 1, column 17 is not closed before this; close it with ']'"),
    ("  backend: NIXL", '  backend "NIXL"', (28, 3),
     "line 27 ('backend \"NIXL\"') has no ': ' after its key; write 'key: value'"),
    ("  - 0.45", "  -0.45", (24, 3), "'-0.45' on line 23 is neither a key nor a list item: a list item needs a "
                                    "space after '-' ('- 0.45')"),
    ("  backend: NIXL", "  backend: 'NIXL'x", (27, 18), "unexpected text after the value on this line (a quoted "
                                                        "value ends at its closing quote); quote the whole value"),
    ("  backend: NIXL", "  backend: @NIXL", (27, 12), "a plain value cannot start with '@' (it is reserved in "
                                                      "YAML); quote the value"),
    ("  backend: NIXL", '  backend: "NIXL', (42, 1), 'the quoted value that starts at line 27, column 12 is never '
                                                     'closed; add the closing " where the value ends'),
    ("  backend: NIXL", "  backend: NIXL: UCX", (27, 16), "a second ': ' on this line: a value that contains ': ' "
                                                          "must be quoted"),
])
def test_yaml_syntax_errors_in_plain_words_at_pyyamls_position(tmp_path, old, new, at, words):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    replace_once(d / "ctx_config.yaml", old, new)
    io = only(lint(d), "IO001")
    assert [(f[1], f[2], f[3]) for f in io] == [("ctx_config.yaml", *at)]
    assert f"YAML syntax error: {words}" in io[0][4]
    assert not any(w in io[0][4] for w in INTERNALS), io[0][4]


def test_yaml_syntax_error_control_and_a_role_key(tmp_path):
    d = copy_submission(QWEN_DISAGG, tmp_path)
    assert only(lint(d), "IO001") == []                       # as published: parses
    line = replace_once(d / "submission.yaml", "    instances: 1\n    accelerators_per_instance: 1\n    tp: 1\n"
                        "  - name: decode", "    instances: 1\n    accelerators_per_instance: 1\n   tp: 1\n"
                        "  - name: decode")
    io = only(lint(d), "IO001")
    assert [(f[1], f[2], f[3]) for f in io] == [("submission.yaml", line + 2, 4)]
    assert f"this line's indentation (3 spaces) matches neither the line above (line {line + 1}, 4 spaces) nor the " \
           "mapping that holds it (line 13, keys at 2 spaces); indent it exactly like the keys it belongs with" \
           in io[0][4]


def test_configuration_file_syntax_error_in_plain_words(tmp_path):
    d = copy_submission(QWEN_DISAGG, tmp_path)
    (tmp_path / ".cfglint.yaml").write_text("select: [TOP]\nlevels:\n  TOP001: warning\n TOP002: note\n")
    proc = subprocess.run([CFGLINT, "check", str(d)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("cfglint: error: ") and ".cfglint.yaml:4:2: YAML syntax error: this line's " \
        "indentation (1 space) matches neither the line above (line 3, 2 spaces)" in proc.stderr
    assert not any(w in proc.stderr for w in INTERNALS)


@pytest.mark.parametrize("value,words", [
    ("None", "'None' is text, not YAML's null (YAML writes no value as null or ~); write `null`, or a mapping "
             "with algorithm and draft_tokens"),
    ("3", "'3' is a whole number here; write `null`, or a mapping with algorithm and draft_tokens"),
    ("[MTP, 3]", "a list is not allowed here; write `null`, or a mapping with algorithm and draft_tokens"),
])
def test_a_value_of_no_allowed_shape_says_what_to_write(tmp_path, value, words):
    d = copy_submission(QWEN_DISAGG, tmp_path)
    line = replace_once(d / "submission.yaml", "speculative_decoding: null", f"speculative_decoding: {value}")
    found = [f for f in lint(d) if f[0] != "COV001"]
    assert found == [("SUB001", "submission.yaml", line, 23, f"speculative_decoding: {words}")]


def test_the_null_control_and_a_wrong_type_inside_the_mapping(tmp_path):
    d = copy_submission(QWEN_DISAGG, tmp_path)
    assert only(lint(d), "SUB001") == []                      # speculative_decoding: null, as published
    line = replace_once(d / "submission.yaml", "speculative_decoding: null",
                        "speculative_decoding: {algorithm: MTP, draft_tokens: three}")
    assert only(lint(d), "SUB001") == [("SUB001", "submission.yaml", line, 54,
                                        "speculative_decoding/draft_tokens: 'three' is not of type 'integer'; write a whole number")]


@pytest.mark.parametrize("old,new,col,right", [
    ("  - name: prefill", "  - name: prefil", 11, "prefill"),            # the role's name
    ("    role: prefill", "    role: prefil", 11, "prefill"),            # a config file's role
    ("    role: decode", "    role: Decode", 11, "decode"),
])
def test_one_wrong_role_name_is_one_finding(tmp_path, old, new, col, right):
    d = copy_submission(QWEN_DISAGG, tmp_path)
    assert [f for f in lint(d) if f[0] != "COV001"] == []       # as published: clean
    line = replace_once(d / "submission.yaml", old, new)
    found = [f for f in lint(d) if f[0] != "COV001"]
    assert len(found) == 1, found
    assert found[0][:4] == ("SUB001", "submission.yaml", line, col)
    assert f"is not one of the allowed values; did you mean '{right}'?" in found[0][4]


def test_role_names_are_the_schemas():
    from cfglint.checks.topology import ROLE_NAMES

    schema = json.loads((ROOT / "schemas" / "submission.schema.json").read_text(encoding="utf-8"))
    assert list(ROLE_NAMES) == schema["$defs"]["role"]["properties"]["name"]["enum"]


def test_a_launch_role_the_manifest_lacks_is_still_top001(tmp_path):
    """A correctly spelled role the manifest does not declare still gets its TOP001."""
    d = copy_submission(QWEN_DISAGG, tmp_path)
    replace_once(d / "submission.yaml", "    role: decode", "    role: prefill")
    replace_once(d / "submission.yaml", "  - name: prefill\n    instances: 1\n    accelerators_per_instance: 1\n"
                 "    tp: 1\n", "")
    replace_once(d / "submission.yaml", "accelerators_used: 2", "accelerators_used: 1")
    top = only(lint(d), "TOP001")
    assert any("the manifest declares no role named prefill (roles: decode)" in f[4] for f in top), top


def _knowledge(tmp_path, text):
    d = copy_submission(EAGLE, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: LAB-GPU")
    (tmp_path / "lab.yaml").write_text(text, encoding="utf-8")
    return subprocess.run([CFGLINT, "check", str(d), "--no-cache", "--knowledge", "lab.yaml", "-f", "json"],
                          cwd=tmp_path, capture_output=True, text=True)


GOOD = ("accelerators:\n  LAB-GPU: {vendor: NVIDIA, arch: sm90, per_node: 8, memory_gib: 141, source: 'our lab'}\n"
        "models:\n  - id: lab/Model-7B\n    family: llama\n    num_attention_heads: 32\n    source: 'our card'\n"
        "parsers:\n  sglang:\n    reasoning:\n      lab_r1: {families: null, source: 'our fork'}\n"
        "paths:\n  host_prefixes:\n    - {prefix: /opt/site/, why: site install}\n")


@pytest.mark.parametrize("old,new,key,words", [
    ("per_node: 8", "per_nod: 8", "per_nod", "unknown key 'per_nod' in accelerator 'LAB-GPU'; did you mean 'per_node'?"),
    ("models:", "modles:", "modles", "unknown key 'modles' in the top level; did you mean 'models'?"),
    ("num_attention_heads", "num_attention_head", "num_attention_head",
     "unknown key 'num_attention_head' in model 'lab/Model-7B'; did you mean 'num_attention_heads'?"),
    ("    reasoning:", "    reasonning:", "reasonning",
     "unknown key 'reasonning' in parsers.sglang; did you mean 'reasoning'?"),
    ("{families: null", "{familes: null", "familes",
     "unknown key 'familes' in parser sglang reasoning 'lab_r1'; did you mean 'families'?"),
    ("  sglang:", "  sglng:", "sglng", "unknown key 'sglng' in parsers (an engine name); did you mean 'sglang'?"),
    ("why: site", "reason: site", "reason", "unknown key 'reason' in paths.host_prefixes[0]; valid keys: prefix, why"),
])
def test_a_misspelled_knowledge_key_names_the_key_its_place_and_the_right_one(tmp_path, old, new, key, words):
    assert GOOD.count(old) == 1
    text = GOOD.replace(old, new)
    line, col = position(text, key + ":")
    proc = _knowledge(tmp_path, text)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr == f"cfglint: error: lab.yaml:{line}:{col}: {words}" + (
        " (a knowledge file is a mapping with any of accelerators, models, parsers, paths)\n"
        if "top level" in words else "\n")


def test_the_correctly_spelled_knowledge_file_is_read(tmp_path):
    proc = _knowledge(tmp_path, GOOD)
    assert proc.returncode in (0, 1) and proc.stderr == "", proc.stderr
    assert "SUB001" not in {f["rule"] for f in json.loads(proc.stdout)["findings"]}   # LAB-GPU is known now


def test_a_knowledge_file_syntax_error_is_in_plain_words_with_its_place(tmp_path):
    proc = _knowledge(tmp_path, GOOD.replace("    family: llama", "   family: llama"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("cfglint: error: cannot read knowledge file lab.yaml:5:4: YAML syntax error: "
                                  "this line's indentation (3 spaces) does not match the list above (line 4")
    assert not any(w in proc.stderr for w in INTERNALS)


@pytest.mark.parametrize("key,value", [
    ("accelerators_used: 2", 10**18), ("accelerators_used: 2", 10**30), ("  accelerators_total: 8", 10**18),
    ("    accelerators_per_instance: 1\n    tp: 1\n  - name: decode", 10**18),
    ("accelerators_used: 2", 2**20 + 1), ("  accelerators_total: 8", 2**20 + 1), ("accelerators_used: 2", 0),
    ("  accelerators_total: 8", -1), ("    instances: 1\n    accelerators_per_instance: 1\n    tp: 1\n  - name: decode", 0),
])
def test_a_manifest_count_out_of_range_is_one_sub001(tmp_path, key, value):
    """A count past the schema's range (10**18 and more included) is reported at the value by SUB001,
    never silently unknown, and once: the sums and comparisons with it are not repeated as TOP001."""
    d = copy_submission(QWEN_DISAGG, tmp_path)
    name = key.split(":")[0].strip()
    line = replace_once(d / "submission.yaml", key, key.replace(key.split("\n")[0].split(": ")[1], str(value), 1))
    found = [f for f in lint(d) if f[0] != "COV001"]
    assert [(f[0], f[1], f[2]) for f in found] == [("SUB001", "submission.yaml", line)]
    limit = "greater than the maximum of 1048576" if value > 1 else "less than the minimum of 1"
    assert f"{name}: {value} is {limit}" in found[0][4]


def test_a_count_in_range_that_disagrees_is_still_top001(tmp_path):
    d = copy_submission(QWEN_DISAGG, tmp_path)
    line = replace_once(d / "submission.yaml", "accelerators_used: 2", "accelerators_used: 3")
    assert [f[:3] for f in lint(d) if f[0] != "COV001"] == [("TOP001", "submission.yaml", line)]


@pytest.mark.parametrize("args,files", [
    (["check", "s", "--select", "RED\n001"], {}),
    (["check", "s", "--knowledge", "k.yaml"], {"k.yaml": 'models:\n  - {id: x, "fa\\nmily": llama}\n'}),
    (["check", "s"], {".cfglint.yaml": '"sel\\nect": [RED]\n'}),
    (["check", "s"], {".cfglint.yaml": "select: [RED]\n  ignore: [TOP]\n"}),
    (["docs", "/proc/x\ny"], {}),
])
def test_a_line_feed_in_input_never_splits_an_error_line(tmp_path, args, files):
    copy_submission(QWEN_DISAGG, tmp_path).rename(tmp_path / "s")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    proc = subprocess.run([CFGLINT, *args], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and proc.stderr.startswith("cfglint: error: "), \
        proc.stderr


NULL = "the value is null (an empty value, ~ and null are YAML's null)"


@pytest.mark.parametrize("written", ["", " ~", " null", " Null"])
def test_a_null_value_is_called_null_and_says_what_to_write(tmp_path, written):
    d = copy_submission(QWEN_DISAGG, tmp_path)
    line = replace_once(d / "submission.yaml", "  accelerator: H100", f"  accelerator:{written}")
    col = 16 if written else 15   # an empty value is placed at the end of its ':'
    assert only(lint(d), "SUB001") == [("SUB001", "submission.yaml", line, col, f"system/accelerator: {NULL}; write a string")]


@pytest.mark.parametrize("old,new,col,words", [
    # a type and an enum broken by one value: one finding, with the values allowed there
    ("precision: BF16", "precision: null", 12,
     f"precision: {NULL}; write one of BF16, FP16, FP8, INT8, INT4, FP4, MXFP4, NVFP4, W4A8, W4A16"),
    ("precision: BF16", "precision: 16", 12,
     "precision: '16' is a whole number here, not one of the allowed values; write one of BF16, FP16, FP8, INT8, INT4, "
     "FP4, MXFP4, NVFP4, W4A8, W4A16"),
    ("precision: BF16", "precision: true", 12,
     "precision: 'true' is true or false here, not one of the allowed values; write one of BF16, FP16, FP8, INT8, INT4, "
     "FP4, MXFP4, NVFP4, W4A8, W4A16"),
    # two enums on one value (every role name; a disaggregated deployment's): the names both allow
    ("  - name: prefill", "  - name: ~", 11, f"serving/roles/0/name: {NULL}; write one of prefill, decode"),
    ("  - name: prefill", "  - name: server", 11,
     "serving/roles/0/name: 'server' is not one of the allowed values; write one of prefill, decode"),
    ("  name: trtllm", "  name:", 8, f"engine/name: {NULL}; write one of sglang, vllm, trtllm"),
    ("schema_version: 1", "schema_version: null", 17, f"schema_version: {NULL}; write 1"),
    ("schema_version: 1", "schema_version: 2", 17, "schema_version: '2' is a whole number here, not one of the allowed "
                                                   "values; write 1"),
])
def test_one_finding_per_value_with_the_allowed_values(tmp_path, old, new, col, words):
    d = copy_submission(QWEN_DISAGG, tmp_path)
    assert only(lint(d), "SUB001") == []                      # the control: as published
    line = replace_once(d / "submission.yaml", old, new)
    assert only(lint(d), "SUB001") == [("SUB001", "submission.yaml", line, col, words)]


@pytest.mark.parametrize("old,new,at,words", [
    ("arch: sm90", "arch: 90", "arch: 90", "accelerators: LAB-GPU: arch must be a string"),
    ("    family: llama", "    family: llama\n    moe: 'yes'", "moe: 'yes'", "models: lab/Model-7B: moe must be true or false"),
    ("    num_attention_heads: 32", "    num_attention_heads: many", "num_attention_heads: many",
     "models: lab/Model-7B: num_attention_heads must be a positive integer"),
    ("  - id: lab/Model-7B", "  - lab/Model-7B\n  - id: lab/Model-7B", "lab/Model-7B\n",
     "models must be a list of {id, family, moe, source, ...}"),
])
def test_a_knowledge_value_of_the_wrong_type_names_its_place(tmp_path, old, new, at, words):
    assert GOOD.count(old) == 1
    text = GOOD.replace(old, new)
    line, col = position(text, at)
    proc = _knowledge(tmp_path, text)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"cfglint: error: lab.yaml:{line}:{col}: {words} (see the bundled rules/*.yaml"), \
        proc.stderr


def test_no_yaml_error_of_a_changed_published_config_shows_parser_internals():
    """Real engine YAML and manifests, each changed in one place (a character added or removed,
    a line re-indented): every syntax error is in plain words, with a position."""
    import random

    from cfglint.read.yamlsrc import YamlError, parse_yaml

    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples" / "submissions").rglob("*.yaml"))]
    rnd = random.Random(13)
    marks = [" ", "\t", ":", "-", "[", "]", "{", "}", "'", '"', "#", "&", "*", "!", "|", ">", "%", "@", "`", ",", "?",
             "\n", "\n  ", "- "]
    errors = 0
    for _ in range(3000):
        text = rnd.choice(texts)
        i = rnd.randrange(len(text))
        how = rnd.random()
        if how < 0.4:
            text = text[:i] + rnd.choice(marks) + text[i:]
        elif how < 0.7:
            text = text[:i] + text[i + 1:]
        else:
            lines = text.split("\n")
            k = rnd.randrange(len(lines))
            lines[k] = " " * rnd.randint(0, 6) + lines[k].lstrip()
            text = "\n".join(lines)
        try:
            parse_yaml(text, "x.yaml")
        except YamlError as err:
            errors += 1
            message = str(err)
            assert not any(w in message for w in INTERNALS + ("but got", "<document", "<stream", "<flow")), message
            assert err.span is not None or "syntax error" not in message, message
    assert errors > 500


def test_a_percent_sign_at_the_start_of_a_line(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    line = replace_once(d / "ctx_config.yaml", "max_num_tokens: 8192", "%max_num_tokens: 8192")
    io = only(lint(d), "IO001")
    assert [(f[1], f[2]) for f in io] == [("ctx_config.yaml", line)]
    assert "a line that starts with '%' is a YAML directive (%YAML, %TAG); quote a value" in io[0][4]
