"""Regressions from attacking the features of the model-rules / launchers / defaults-coverage
merges with hostile input: each gives a clear finding or none, never an internal error (IO001
'cfglint internal error'), a hang, an unbounded message or a leaked secret."""

from __future__ import annotations

import json
import signal

import pytest

from support import copy_submission, lint, only, replace_once

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
BIG = "9" * 5000   # more digits than Python converts (4300)


def _too_slow(*_):
    raise AssertionError("lint took over 60 s")


def _internal(findings):
    return [f for f in findings if "internal error" in f[4]]


@pytest.mark.parametrize("where,old,new", [
    ("run.sh", "--tp-size 8", f"--tp-size {BIG}"),
    ("run.sh", "--tp-size 8", f"--tp-size 8 --dp-size {BIG}"),
    ("run.sh", "--tp-size 8", f"--tp-size 8 --context-length {BIG}"),
    ("run.sh", "--tp-size 8", f"--tp-size 8 --context-length {'9' * 400}k"),
    ("submission.yaml", "tp: 8", f"tp: {BIG}"),
    ("submission.yaml", "accelerators_total: 8", f"accelerators_total: {BIG}"),
    ("run.sh", "lmsysorg/sglang:kimi-k3", f"lmsysorg/sglang:v0.{BIG}"),
])
def test_numbers_too_long_to_convert_are_not_a_crash(tmp_path, where, old, new):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / where, old, new)
    assert _internal(lint(d)) == []


def _local_config(tmp_path, **fields):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--model-path moonshotai/Kimi-K3", "--model-path ./models/Kimi-K3")
    config = {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168,
              "num_attention_heads": 64, "num_key_value_heads": 64, "max_position_embeddings": 4096}
    config.update(fields)
    (d / "models" / "Kimi-K3").mkdir(parents=True)
    (d / "models" / "Kimi-K3" / "config.json").write_text(json.dumps(config))
    return d


@pytest.mark.parametrize("factor", [float("inf"), float("nan"), -2])
def test_rope_factor_that_is_no_number_is_not_a_crash(tmp_path, factor):
    d = _local_config(tmp_path, rope_scaling={"rope_type": "dynamic", "factor": factor})
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 8 --context-length 100000")
    findings = lint(d, coverage=True)
    assert _internal(findings) == [] and only(findings, "MEM002") == []
    assert any("rope_scaling.factor" in f[4] for f in only(findings, "COV001"))


def test_rope_factor_control_still_finds_too_long_context(tmp_path):
    d = _local_config(tmp_path, rope_scaling={"rope_type": "dynamic", "factor": 2})
    line = replace_once(d / "run.sh", "--tp-size 8", "--tp-size 8 --context-length 100000")
    [(_, name, at, _col, msg)] = only(lint(d), "MEM002")
    assert (name, at) == ("run.sh", line) and "8192" in msg


@pytest.mark.parametrize("field", ["num_attention_heads", "intermediate_size", "moe_intermediate_size", "max_position_embeddings"])
def test_config_ints_beyond_any_model_are_unknown(tmp_path, field):
    fields = {"intermediate_size": 18432, "moe_intermediate_size": 2048,
              "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}
    d = _local_config(tmp_path, **(fields | {field: 10 ** 400}))
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 8 --context-length 100000")
    assert _internal(lint(d)) == []


@pytest.mark.parametrize("launch", [
    "sglang serve --model-path moonshotai/Kimi-K3 --tp-size 8 --nnodes 1000000000 --node-rank {r} "
    "--dist-init-addr 10.0.0.1:5000",
    "vllm serve moonshotai/Kimi-K3 --data-parallel-size 1000000000000 --data-parallel-rank {r} "
    "--data-parallel-address 10.0.0.1",
    "vllm serve moonshotai/Kimi-K3 --data-parallel-size 1000000001 --data-parallel-size-local 1000000000 "
    "--data-parallel-start-rank {r} --data-parallel-address 10.0.0.1",
])
def test_absurd_rank_counts_do_not_hang(tmp_path, launch):
    d = copy_submission(KIMI_B300, tmp_path)
    (d / "run.sh").write_text(launch.format(r=0) + "\n" + launch.format(r=1) + "\n")
    signal.signal(signal.SIGALRM, _too_slow)
    signal.alarm(60)
    try:
        assert _internal(lint(d)) == []
    finally:
        signal.alarm(0)


def test_nnodes_control_still_counts_missing_ranks(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    one = "sglang serve --model-path moonshotai/Kimi-K3 --tp-size 8 --nnodes 3 --node-rank {r} --dist-init-addr 10.0.0.1:5000\n"
    (d / "run.sh").write_text(one.format(r=0) + one.format(r=1))
    assert any("never launched" in f[4] for f in only(lint(d), "TOP003"))


def test_messages_do_not_echo_a_huge_value(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", "model: moonshotai/Kimi-K3", "model: org/" + "a" * 1_000_000)
    findings = lint(d, coverage=True)
    assert {"TOP002", "COV001"} <= {f[0] for f in findings}
    assert all(len(f[4]) < 2000 for f in findings)
    assert any("1000004 characters" in f[4] for f in only(findings, "TOP002"))


def test_syntax_error_inside_bash_c_string_is_reported(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text("bash -c 'sglang serve --model-path moonshotai/Kimi-K3 --tp-size 8 \"'\n" + text)
    [(_, name, line, col, msg)] = only(lint(d), "IO001")
    assert (name, line, col) == ("run.sh", 1, 67) and "bash -c string" in msg


def test_bash_c_string_control_gives_no_syntax_warning(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text("bash -c 'sglang serve --model-path moonshotai/Kimi-K3 --tp-size 8'\n" + text)
    assert only(lint(d), "IO001") == []


def test_multi_line_double_quoted_bash_c_string_keeps_its_newlines(tmp_path):
    # vLLM's disaggregated_prefill.sh waits with `timeout 1200 bash -c "<newline> until ...; do<newline> sleep 1
    # <newline> done"`: the newlines inside "..." end its commands (they were dropped, so `done` became
    # an argument of sleep and the string a syntax error)
    d = copy_submission(KIMI_B300, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text('timeout 1200 bash -c "\n  until curl -s localhost:30000/health > /dev/null; do\n'
                              '    sleep 1\n  done" && echo up\n' + text)
    assert only(lint(d), "IO001") == []
    (d / "run.sh").write_text('bash -c "\n  sglang serve --model-path moonshotai/Kimi-K3 --tp-size 4\n"\n' + text)
    found = only(lint(d), "TOP001")  # a second instance, at TP 4, read from line 2 of the string
    assert (2, 58) in [f[2:4] for f in found] and only(lint(d), "IO001") == []


@pytest.mark.parametrize("name", ["bad\nname.sh", "ctl\x1b[31mred.sh"])
def test_file_names_with_control_characters_stay_on_one_line(tmp_path, name):
    d = copy_submission(KIMI_B300, tmp_path)
    (d / name).write_text((d / "run.sh").read_text())
    [(_, shown, *_rest, msg)] = only(lint(d), "SUB003")
    assert "\n" not in shown + msg and "\x1b" not in shown + msg
    assert ("bad\\nname.sh" if "\n" in name else "ctl\\x1b[31mred.sh") in shown


def test_terminal_escapes_in_a_linted_line_do_not_reach_the_text_report(tmp_path):
    from cfglint.lint import lint_paths
    from cfglint.output.report import text

    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4 # \x1b]0;title\x07\x1b[2J")
    result = lint_paths([str(d)])
    report = text(result.findings, result.sources, "")
    assert "TOP002" in report and "\x1b" not in report and "\x07" not in report


def test_bash_c_string_with_run_time_values_is_read(tmp_path):
    # TensorRT-LLM's multi-node slurm example: srun ... bash -c "<newline> $PROLOGUE <newline> trtllm-serve $MODEL ..."
    # was not read at all (a string with a run-time value gave no commands); now its launch is checked
    # and the unknown parts are named in COV001
    d = copy_submission(KIMI_B300, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text('srun --mpi=pmix bash -c "\n  $PROLOGUE\n'
                              '  sglang serve --model-path $MODEL --tp-size 8 --tp-sise 8\n"\n' + text)
    found = lint(d, coverage=True)
    assert [(f[0], f[2]) for f in only(found, "FLG001")] == [("FLG001", 3)] and "--tp-sise" in only(found, "FLG001")[0][4]
    note = only(found, "COV001")[0][4]
    assert "$PROLOGUE" in note and "model" in note
