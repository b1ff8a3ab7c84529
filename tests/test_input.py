"""Bad input: a clear IO001 / SUB001 / SUB002 finding at the right place, never a traceback,
and the other files of the run are still checked."""

from __future__ import annotations

import os

import pytest

from support import copy_submission, lint, only, replace_once

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
DSV4_DYNAMO = "nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d"


def test_yaml_syntax_error_is_io001_with_position_and_other_files_still_checked(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    replace_once(d / "ctx_config.yaml", "max_batch_size: 128", "max_batch_size: [128")
    replace_once(d / "gen_config.yaml", "tensor_parallel_size: 8", "tensor_parallel_size: 16")
    found = lint(d)
    io = only(found, "IO001")
    assert len(io) == 1 and io[0][1] == "ctx_config.yaml" and "YAML syntax error" in io[0][4]
    assert [f[1] for f in only(found, "TOP001")] == ["gen_config.yaml"]


def test_duplicate_yaml_key(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    text = (d / "gen_config.yaml").read_text()
    (d / "gen_config.yaml").write_text(text + "max_batch_size: 1\n")
    io = only(lint(d), "IO001")
    assert len(io) == 1 and "duplicate key 'max_batch_size' (first at line" in io[0][4]
    assert io[0][2] == len(text.splitlines()) + 1 and io[0][3] == 1


def test_binary_and_bad_encoding_files(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    (d / "run.sh").write_bytes(b"sglang serve \x00\x01\x02")
    io = only(lint(d), "IO001")
    assert len(io) == 1 and "binary file (NUL byte at offset 13)" in io[0][4]
    (d / "run.sh").write_bytes("sglang serve --tp 8\n".encode("utf-16"))
    assert "UTF-16" in only(lint(d), "IO001")[0][4]
    (d / "run.sh").write_bytes(b"sglang serve --tp \xff\n")
    assert "invalid UTF-8 at line 1" in only(lint(d), "IO001")[0][4]


def test_crlf_line_ends_keep_positions(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    line = replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4")
    (d / "run.sh").write_bytes((d / "run.sh").read_bytes().replace(b"\n", b"\r\n"))
    found = only(lint(d), "TOP001")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 67)]
    # and bash would not continue those lines: backslash + CR (ShellCheck SC1017)
    crlf = only(lint(d), "IO001")
    assert [(f[1], f[2], f[3]) for f in crlf] == [("run.sh", 2, 64)] and "SC1017" in crlf[0][4]


def test_manifest_schema_errors_point_at_the_value(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    line = replace_once(d / "submission.yaml", "accelerators_per_instance: 8", "accelerators_per_instance: eight")
    found = only(lint(d), "SUB001")
    assert [(f[1], f[2], f[3]) for f in found] == [("submission.yaml", line, 32)]
    assert "'eight' is not of type 'integer'" in found[0][4]


def test_manifest_unknown_field_and_unquoted_version(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", 'version: "kimi-k3"', "version: 1.10\n  flavour: x")
    found = only(lint(d), "SUB001")
    messages = " | ".join(f[4] for f in found)
    assert "unknown field 'flavour'" in messages
    assert "YAML read `1.10` as float; quote it" in messages


def test_missing_file_and_file_outside_the_submission(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    os.remove(d / "run.sh")
    found = only(lint(d), "SUB002")
    assert len(found) == 1 and "'run.sh' does not exist" in found[0][4]
    replace_once(d / "submission.yaml", "- run.sh", "- ../../../../etc/passwd")
    found = only(lint(d), "SUB002")
    assert len(found) == 1 and "outside the submission directory" in found[0][4]


@pytest.mark.parametrize("make,message", [(os.mkdir, "is a directory"), (os.mkfifo, "not a regular file")])
def test_not_a_regular_file_where_a_file_is_expected(tmp_path, make, message):
    d = copy_submission(KIMI_B300, tmp_path)
    os.remove(d / "run.sh")
    make(d / "run.sh")
    io = only(lint(d), "IO001")
    assert len(io) == 1 and message in io[0][4]


def test_alias_bomb_and_deep_nesting(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8))
    (d / "gen_config.yaml").write_text(bomb)
    (d / "ctx_config.yaml").write_text("a: " + "[" * 10000 + "]" * 10000 + "\n")
    io = only(lint(d), "IO001")
    assert sorted(f[1] for f in io) == ["ctx_config.yaml", "gen_config.yaml"]
    assert any("alias bomb" in f[4] for f in io) and any("too deep" in f[4] for f in io)


def test_shell_syntax_error_is_a_warning_and_the_rest_is_read(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text(text.replace("--tp-size 8", "--tp-size 4") + 'echo "unterminated\n')
    found = lint(d)
    assert [f[0] for f in found if f[0] == "IO001"] == ["IO001"]
    assert len(only(found, "TOP001")) == 1


def test_loose_launch_file_without_manifest(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("sglang serve --model-path /home/bob/Kimi-K3 --tp 8 --reasoning-parser kimi-k3\n")
    found = lint(script)
    assert sorted(f[0] for f in found) == ["PRS001", "RED001"]


def test_loose_yaml_that_is_not_an_engine_config_gets_only_a_syntax_check(tmp_path):
    workflow = tmp_path / "ci.yml"
    workflow.write_text("jobs:\n  lint:\n    steps:\n      - run: ls /home/runner/work\n")
    assert lint(workflow) == []
    workflow.write_text("jobs: [\n")
    assert [f[0] for f in lint(workflow)] == ["IO001"]
    engine = tmp_path / "gen_config.yaml"
    engine.write_text("tensor_parallel_size: 8\nspeculative_config:\n  decoding_type: Eagle3\n"
                      "  max_draft_len: 3\n  speculative_model: /home/bob/draft\n")
    assert [(f[0], f[2], f[3]) for f in lint(engine)] == [("RED001", 5, 22)]
    engine.write_text("tensor_parallel_size: 8\nspeculative_config:\n  speculative_model: /home/bob/draft\n")
    assert [(f[0], f[2]) for f in lint(engine)] == [("SCH001", 2), ("RED001", 3)]  # decoding_type is required


def test_absolute_path_in_the_manifest_is_refused(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", "- run.sh", "- /etc/passwd")
    found = only(lint(d), "SUB002")
    assert len(found) == 1 and "'/etc/passwd' is outside the submission directory" in found[0][4]


def test_unreadable_file(tmp_path, monkeypatch):
    # root reads through chmod 000, so the denial is simulated where cfglint opens the file
    # (every read goes through cfglint.read.safeio.read_bytes, which opens with os.open)
    from cfglint.read import safeio

    d = copy_submission(KIMI_B300, tmp_path)
    real_open = safeio.os.open

    def deny(path, *args, **kwargs):
        if str(path).endswith("run.sh"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(safeio.os, "open", deny)
    io = only(lint(d), "IO001")
    assert len(io) == 1 and "cannot read file: Permission denied" in io[0][4]
