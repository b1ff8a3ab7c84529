"""Regressions from trying to break cfglint: hostile or unusual input gives a clear finding or
none, never a traceback, a hang, or a false positive."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import copy_submission, lint, only, position, replace_once, shared

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
KIMI_1P1D = "nvidia/kimi-k3/gb300-dynamo-sglang-1p1d-hicache-mooncake"
CFGLINT = Path(sys.executable).parent / "cfglint"


@pytest.mark.parametrize("value", ["²", "--8", "8.5"])
def test_odd_numbers_are_not_a_crash(tmp_path, value):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", f"--tp-size={value}")
    assert not any("internal error" in f[4] for f in lint(d))


def test_non_utf8_file_name_in_every_format(tmp_path):
    bad = os.fsdecode(b"bad\xff.sh")
    (tmp_path / bad).write_text("sglang serve --model-path /home/a/b\n")
    for fmt in ("text", "json", "sarif", "github"):
        out = tmp_path / f"out.{fmt}"
        proc = subprocess.run([str(CFGLINT), "check", bad, "-f", fmt, "-o", str(out)], cwd=tmp_path,
                              capture_output=True, text=True)
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr
        if fmt in ("json", "sarif"):
            json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("tp", ['"$TP"', "${TP:-8}", '"$(nproc)"', "<tp>"])
def test_values_not_known_statically_are_not_guessed(tmp_path, tp):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", f"--tp-size {tp}")
    assert only(lint(d), "TOP001") == []


@pytest.mark.parametrize("loop", ["for i in $(seq 2); do", "for i in {0..1}; do", "for ((i=0; i<2; i++)); do",
                                  'if [ -n "$X" ]; then'])
def test_commands_run_an_unknown_number_of_times_are_not_counted(tmp_path, loop):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", "instances: 1", "instances: 2")
    replace_once(d / "submission.yaml", "accelerators_used: 8", "accelerators_used: 16")
    replace_once(d / "submission.yaml", "accelerators_total: 8", "accelerators_total: 16")
    text = (d / "run.sh").read_text()
    end = "fi" if loop.startswith("if") else "done"
    (d / "run.sh").write_text(f"{loop}\n{text.rstrip()} &\n{end}\n")
    assert only(lint(d), "TOP001") == []


def test_a_literal_loop_is_counted(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text(f"for i in 0 1; do\n{text.rstrip()} &\ndone\n")
    found = only(lint(d), "TOP001")
    assert len(found) == 1 and "the launch starts 2 server instance(s)" in found[0][4]


def test_help_is_not_a_server_and_wrappers_are_unwrapped(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run.sh").write_text("sglang serve --help || true\n" +
                              text.replace("docker run", "numactl --interleave=all timeout 3600 docker run -itd"))
    assert lint(d) == []


def test_placeholder_with_a_space_is_a_word(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--model-path moonshotai/Kimi-K3", "--model-path <model path>")
    assert lint(d) == []


def test_args_file_tabs_quotes_and_several_flags_per_line(tmp_path):
    d = copy_submission(KIMI_1P1D, tmp_path)
    replace_once(d / "decode.args", "--tensor-parallel-size 8", "--trust-remote-code --tensor-parallel-size\t8")
    replace_once(d / "decode.args", "--reasoning-parser kimi_k3", '--reasoning-parser "kimi_k3"')
    assert lint(d) == []
    line = replace_once(d / "decode.args", "--tensor-parallel-size\t8", "--tensor-parallel-size\t4")
    found = only(lint(d), "TOP001")
    assert len(found) == 1 and found[0][1:4] == ("decode.args", line, 44)


def test_vllm_underscore_flags(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve m --tensor_parallel_size 8 --reasoning_parser kimi-k3\n")
    found = lint(script)
    assert [f[0] for f in found] == ["PRS001"] and found[0][3] == 58


@pytest.mark.parametrize("line,col", [("docker run -v/home/alice/m:/models img", 14),
                                      ("echo ok >/scratch/alice/log", 10),
                                      ("X=file:///home/alice/k3", 10)])
def test_red001_more_shapes(tmp_path, line, col):
    script = tmp_path / "run.sh"
    script.write_text(line + "\n")
    assert [(f[0], f[3]) for f in lint(script)] == [("RED001", col)]


def test_red001_urls_and_redacted_paths_are_fine(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("curl http://localhost:2379/home/x tcp://*:20081 -v <host-path>/hf:/root/.cache\n")
    assert lint(script) == []


def test_unlisted_file_inside_a_submission_is_still_checked(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    (d / "extra.sh").write_text("ls /home/alice/x\n")
    result = [(f.rule_id, Path(f.span.path).name) for f in __import__("cfglint.lint", fromlist=["x"]).lint_paths([str(d / "extra.sh")]).findings]
    assert result == [("RED001", "extra.sh")]


def test_quoted_equals_flag_value_position(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", '"--tp-size=4"')
    found = only(lint(d), "TOP001")
    assert found[0][3] == 68


def test_schema_message_for_a_bad_speculative_block(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", "speculative_decoding: null",
                 "speculative_decoding:\n  algorithm: eagle\n  draft_tokens: 2")
    found = only(lint(d), "SUB001")
    assert len(found) == 1 and "'eagle' is not one of" in found[0][4]


def test_100_mb_file_is_refused_by_size_and_the_limit_is_configurable(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    with open(d / "run.sh", "r+b") as fh:  # sparse: 100 MB on paper, no disk used
        fh.truncate(100 * 1024 * 1024)
    io = only(lint(d), "IO001")
    assert len(io) == 1 and "over the 10485760-byte limit" in io[0][4]
    (d / "run.sh").write_text("sglang serve --tp-size 8 --model-path m\n" + "#" * 2000 + "\n")
    proc = subprocess.run([str(CFGLINT), "check", str(d), "--max-file-size", "1000"], capture_output=True, text=True)
    assert "over the 1000-byte limit" in proc.stdout and proc.returncode == 1


def test_empty_files(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    (d / "run.sh").write_text("")
    assert only(lint(d), "TOP001") == [] and only(lint(d), "IO001") == []
    (d / "submission.yaml").write_text("")
    assert [f[4] for f in lint(d)] == ["submission.yaml is empty"]


def test_symlink_loop_and_link_outside_the_submission(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    os.remove(d / "run.sh")
    os.symlink(d / "run.sh", d / "run.sh")
    io = only(lint(d), "IO001") + only(lint(d), "SUB002")
    assert len(io) == 1
    os.remove(d / "run.sh")
    (tmp_path / "secret.sh").write_text("echo hi\n")
    os.symlink(tmp_path / "secret.sh", d / "run.sh")
    found = only(lint(d), "SUB002")
    assert len(found) == 1 and "outside the submission directory" in found[0][4]


def test_shell_constructs_are_parsed_not_run(tmp_path):
    marker = tmp_path / "executed"
    script = tmp_path / "serve.sh"
    script.write_text(
        f"touch {marker}\n"
        "cat > /tmp/cfg.yaml <<EOF\nmodel: $(rm -rf /)\nEOF\n"
        "launch() { sglang serve --tp-size 8 --reasoning-parser kimi-k3 \"$@\"; }\n"
        "if [[ -n \"$X\" ]]; then launch --port $(( 30000 + 1 )); fi\n"
        "echo `date` \"unterminated\n")
    found = lint(script)
    assert not marker.exists()
    assert ("PRS001", "serve.sh", 5) in [(f[0], f[1], f[2]) for f in found]  # found inside the function


def test_one_megabyte_line(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("sglang serve --model-path m " + "--served-model-name x " * 50_000 + "--host 10.1.1.1\n")
    found = lint(script)
    assert [(f[0], f[3]) for f in found] == [("RED003", 1_100_036)]  # same value repeated: no FLG003


def test_yaml_tags_are_never_constructed(tmp_path):
    marker = tmp_path / "constructed"
    d = copy_submission("nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d", tmp_path)
    text = (d / "gen_config.yaml").read_text()
    (d / "gen_config.yaml").write_text(
        text + f"evil: !!python/object/apply:os.system ['touch {marker}']\nother: !custom {{a: 1}}\n")
    found = lint(d)
    assert not marker.exists()
    assert {f[0] for f in found} - {"FLG001"} == {"SCH001", "IO001"}   # FLG001: the published warning (tests/golden)
    tags = [(f[1], f[2], f[3]) for f in found if f[0] == "IO001"]
    lines = text.count("\n")
    assert tags == [("gen_config.yaml", lines + 1, 7), ("gen_config.yaml", lines + 2, 8)]


def test_characters_beyond_the_bmp_keep_positions(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("sglang serve --served-model-name 😀򔔄 --reasoning-parser kimi-k3\n")
    assert [(f[0], f[3]) for f in lint(script)] == [("PRS001", 56)]  # columns count code points


@pytest.mark.parametrize("manifest", ["# cfglint: disable-file=SUB001 -- wip\n", "model: [\n", "- a\n- b\n",
                                      "!!python/object:os.system x\n"])
def test_an_unusable_manifest_does_not_hide_its_submissions_files(tmp_path, manifest):
    """An emptied, broken or non-mapping submission.yaml (its own finding possibly suppressed):
    the submission's launch files are still linted, each on its own, so the secret in run.sh is
    reported in a directory run as in a pre-commit run that names the file."""
    d = copy_submission(KIMI_B300, tmp_path)
    token = "sk-proj-" + "Zz09" * 8
    with open(d / "run.sh", "a", encoding="utf-8") as fh:
        fh.write(f"export OPENAI_API_KEY={token}\n")
    (d / "submission.yaml").write_text(manifest, encoding="utf-8")
    for target in (d, d / "run.sh"):
        found = [f for f in lint(target) if f[0] == "RED002"]
        assert [(Path(f[1]).name, f[2], f[3]) for f in found] == [("run.sh", 8, 23)], target
    proc = subprocess.run([str(CFGLINT), "check", str(d), "--no-config"], capture_output=True, text=True)
    assert proc.returncode == 1 and token not in proc.stdout and "SUB003" not in proc.stdout


def test_a_long_command_chain_is_read_and_a_too_deep_one_cannot_be_silenced(tmp_path):
    """1,000 '&&' before the launch (the parser's walker ran out of Python frames and the file
    was an IO001 'crashed (status 0)'): now read, every check runs. A chain too deep to read is an
    IO001 saying so, and an inline 'disable-file=IO001' cannot hide it (SUP001)."""
    d = copy_submission(KIMI_B300, tmp_path)
    key = "Plain-Api-Key-Value-" + "7" * 10
    body = (d / "run.sh").read_text(encoding="utf-8")
    (d / "run.sh").write_text(" && ".join(["true"] * 1000) + "\n" + body.replace("--tp-size 8", "--tp-size 4")
                              + f"python -m sglang.launch_server --model-path moonshotai/Kimi-K3 --api-key \\\n  {key}\n",
                              encoding="utf-8")
    found = lint(d)
    assert {"TOP002", "RED002"} <= {f[0] for f in found} and not any(f[0] == "IO001" for f in found)
    (d / "run.sh").write_text("# cfglint: disable-file=IO001 -- parser limitation\n"
                              + " && ".join(["true"] * 70_000) + "\n" + body, encoding="utf-8")
    found = lint(d)
    io = [f for f in found if f[0] == "IO001"]
    assert [(Path(f[1]).name, f[2]) for f in io] == [("run.sh", 1)] and "nest too deeply" in io[0][4]
    assert [(f[0], f[2], f[3]) for f in found if f[0] == "SUP001"] == [("SUP001", 1, 1)]


def test_a_count_too_large_to_reason_about_is_a_schema_error(tmp_path):
    """Counts of 10**18 or more were read as unknown and every topology check stopped without a
    word; the manifest schema bounds each count (2**20) so they are SUB001 at the value."""
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", "accelerators_used: 8", "accelerators_used: 1000000000000000000")
    found = [f for f in lint(d) if f[0] == "SUB001"]
    text = (d / "submission.yaml").read_text(encoding="utf-8")
    line = text[:text.index("1000000000000000000")].count("\n") + 1
    assert [(f[2], "greater than the maximum of 1048576" in f[4]) for f in found] == [(line, True)]


# -- values assigned in branches (read/shell/walker.py branches, values.py merge) ---------------
KSERVE_TEMPLATE = "corpus/042-kserve-llmisvcconfig-config-llm-template"
ACCESS_LOG_IF = ('              ACCESS_LOG_ARGS="--disable-access-log-for-endpoints /health,/metrics,/ping"\n'
                 '            fi\n')


@pytest.mark.parametrize("again", ['ACCESS_LOG_ARGS="--bogus-flag 1"', 'ACCESS_LOG_ARGS="$ACCESS_LOG_ARGS --bogus-flag 1"'])
def test_a_value_set_again_after_the_branches_that_set_it_is_the_one_read(tmp_path, again):
    # corpus 042 sets ACCESS_LOG_ARGS before an if and again inside it; set once more after the fi,
    # the branches' two values still stood for it: the new value's flags were read nowhere, in silence
    text = next(shared(KSERVE_TEMPLATE).glob("*.yaml")).read_text(encoding="utf-8")
    assert text.count(ACCESS_LOG_IF) == 1
    path = tmp_path / "config-llm-template.yaml"
    path.write_text(text.replace(ACCESS_LOG_IF, ACCESS_LOG_IF + "            " + again + "\n"), encoding="utf-8")
    (f,) = only(lint(path), "FLG001")
    assert "has no flag --bogus-flag" in f[4] and f[2:4] == position(path.read_text(encoding="utf-8"), "--bogus-flag")


def test_an_array_extended_in_twenty_branches_in_a_row_is_not_two_to_the_twenty_arrays(tmp_path):
    # corpus 095's TRACE_ARGS+=(...) in an if, written 20 times with an else each: every if / else
    # doubled the values TRACE_ARGS may hold (2^20 arrays: 22 s and 5 GB; 22 of them never ended).
    # Past MAX_ALTERNATIVES values the array is not known statically, and COV001 says so.
    import resource

    src = shared("corpus/095-dynamo-sglang-agg-router/agg_router.sh").read_text(encoding="utf-8")
    block = "    TRACE_ARGS+=(--enable-trace --otlp-traces-endpoint localhost:4317)\nfi\n"
    assert src.count(block) == 1
    more = "".join(f'if [ -n "$X{i}" ]; then TRACE_ARGS+=(--enable-trace); else TRACE_ARGS+=(--page-size {i}); fi\n'
                   for i in range(20))
    script = tmp_path / "agg_router.sh"
    script.write_text(src.replace(block, block + more), encoding="utf-8")

    def limit():  # 2 GiB of address space: what a pre-commit hook may take, and far under 5 GB
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    proc = subprocess.run([sys.executable, "-m", "cfglint", "check", "--no-config", "-j", "1", str(script)],
                          capture_output=True, text=True, timeout=120, preexec_fn=limit,
                          env=dict(os.environ, CFGLINT_NO_FORK="1"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stdout
    assert 'the arguments "${TRACE_ARGS[@]}" adds (python3 -m dynamo.sglang): they are not known statically' in proc.stdout
