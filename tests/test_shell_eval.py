"""The static shell evaluator (src/cfglint/read/shell/): launches built the way people write them.

Each construct is built from a real published recipe (examples/submissions/recipes/) rewritten
into that construct, with a passing control (the rewritten recipe, correct) and a failing case
(a bogus flag or a wrong value inside the construct) reported at the line:col where the wrong
text is written. Nothing is executed: what the evaluator cannot know is reported by COV001.
"""

from __future__ import annotations

from pathlib import Path

from support import copy_submission, lint, only

from cfglint.read.shell.parse import parse_here as _parse_shell

SGLANG = "recipes/sglang-deepseek-v3.2-h200-tp8-dp8-parsers"
SGLANG_MTP = "recipes/sglang-deepseek-v3.2-exp-h200-tp8-dp8-mtp"
VLLM_GLM = "recipes/vllm-glm-5.1-fp8-h200-tp8-mtp3"
TRTLLM = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"
DYNAMO = "recipes/dynamo-trtllm-qwen3-0.6b-disagg-1p1d"

# the published SGLang command (recipes/sglang-deepseek-v3.2-h200-tp8-dp8-parsers/run.sh), its words
LAUNCH = "python3 -m sglang.launch_server"
MODEL = "--model-path deepseek-ai/DeepSeek-V3.2 --trust-remote-code"
PARALLEL = "--tp-size 8 --dp-size 8 --enable-dp-attention"
PARSERS = "--tool-call-parser deepseekv32 --reasoning-parser deepseek-v3"


def _write(tmp_path: Path, rel: str, name: str, text: str) -> Path:
    d = copy_submission(rel, tmp_path)
    (d / name).write_text(text, encoding="utf-8")
    return d


def _at(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """(line, col) of ``needle``'s ``occurrence``-th appearance in ``text``."""
    at = -1
    for _ in range(occurrence):
        at = text.index(needle, at + 1)
    return text[:at].count("\n") + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def _flg001(findings, name: str) -> list[tuple[str, int, int]]:
    return [(f[1], f[2], f[3]) for f in only(findings, "FLG001") if name in f[4]]


def _sglang(tmp_path: Path, script: str) -> list:
    return lint(_write(tmp_path, SGLANG, "run.sh", script))


def _cov(tmp_path: Path, rel: str, name: str, script: str) -> str:
    findings = lint(_write(tmp_path, rel, name, script), coverage=True)
    notes = only(findings, "COV001")
    return notes[0][4] if notes else ""


def test_published_recipe_is_clean(tmp_path):
    script = f"{LAUNCH} \\\n  {MODEL} \\\n  {PARALLEL} \\\n  {PARSERS}\n"
    assert _sglang(tmp_path, script) == []


# -- 1. bash arrays -------------------------------------------------------------------------
ARRAY = f"cmd=({LAUNCH}\n  {MODEL}\n  {PARALLEL})\ncmd+=({PARSERS})\n\"${{cmd[@]}}\"\n"


def test_array_command_control(tmp_path):
    assert _sglang(tmp_path, ARRAY) == []


def test_array_command_bogus_flag_inside_array(tmp_path):
    script = ARRAY.replace("--tp-size 8", "--tp-sizee 8")
    assert _flg001(_sglang(tmp_path, script), "--tp-sizee") == [("run.sh", *_at(script, "--tp-sizee"))]


def test_array_append_bogus_flag(tmp_path):
    script = ARRAY.replace("cmd+=(", "cmd+=(--tp-sizee 8 ")
    assert _flg001(_sglang(tmp_path, script), "--tp-sizee") == [("run.sh", 4, 7)]


def test_array_spliced_into_command_line_wrong_tp(tmp_path):
    script = f"CMD_ARGS=(--tp-size 4 --dp-size 8)\n{LAUNCH} {MODEL} \"${{CMD_ARGS[@]}}\" --enable-dp-attention {PARSERS}\n"
    top = only(_sglang(tmp_path, script), "TOP002")
    assert [(f[1], f[2], f[3]) for f in top] == [("run.sh", 1, 21)] and "TP 4" in top[0][4]


def test_array_spliced_control(tmp_path):
    script = f"CMD_ARGS=(--tp-size 8 --dp-size 8)\n{LAUNCH} {MODEL} \"${{CMD_ARGS[@]}}\" --enable-dp-attention {PARSERS}\n"
    assert _sglang(tmp_path, script) == []


def test_array_appended_in_a_branch_has_its_flags_checked(tmp_path):
    # every assignment of EXTRA is literal (() before the if, += inside it): its flags are read, their
    # presence conditional (issue 23: was COV001 "not known statically")
    script = (f"EXTRA=()\nif [ -n \"$DEBUG\" ]; then\n  EXTRA+=(--log-level debug)\nfi\n"
              f"{LAUNCH} {MODEL} {PARALLEL} {PARSERS} \"${{EXTRA[@]}}\"\n")
    assert "EXTRA" not in _cov(tmp_path, SGLANG, "run.sh", script)
    bad = script.replace("--log-level debug", "--log-levell debug")
    assert _flg001(_sglang(tmp_path / "bad", bad), "--log-levell") == [("run.sh", *_at(bad, "--log-levell"))]


def test_array_appended_in_a_branch_from_an_argument_is_not_checked(tmp_path):
    # the control: a piece that is really unknown (a script argument appended in the branch) stays in COV001
    script = (f"EXTRA=()\nif [ -n \"$DEBUG\" ]; then\n  EXTRA+=(\"$1\")\nfi\n"
              f"{LAUNCH} {MODEL} {PARALLEL} {PARSERS} \"${{EXTRA[@]}}\"\n")
    note = _cov(tmp_path, SGLANG, "run.sh", script)
    assert 'the arguments "$1" adds' in note and "not known statically" in note and "run.sh:3" in note


# -- 2. a command kept in a string ----------------------------------------------------------
STRING = f"CMD=\"{LAUNCH} {MODEL}\"\nCMD+=\" {PARALLEL}\"\nCMD=\"$CMD {PARSERS}\"\n"


def test_string_command_control(tmp_path):
    for run in ("$CMD", "${CMD}", "eval \"$CMD\""):
        assert _sglang(tmp_path / run.replace("$", "").replace('"', "").replace(" ", ""), STRING + run + "\n") == []


def test_string_command_bogus_flag_in_append(tmp_path):
    for run in ("$CMD", "${CMD}", "eval \"$CMD\""):
        script = STRING.replace("--tp-size 8", "--tp-sizee 8") + run + "\n"
        where = _flg001(_sglang(tmp_path / run.replace("$", "").replace('"', "").replace(" ", ""), script), "--tp-sizee")
        assert where == [("run.sh", *_at(script, "--tp-sizee"))], run


def test_eval_respects_quotes_inside_the_string(tmp_path):
    # eval reads the quotes: 'deepseek-v3x' is one word, its position is where it is written
    script = STRING.replace("--reasoning-parser deepseek-v3", "--reasoning-parser 'deepseek-v3x'") + "eval \"$CMD\"\n"
    prs = only(_sglang(tmp_path, script), "PRS001")
    assert [(f[1], f[2], f[3]) for f in prs] == [("run.sh", *_at(script, "'deepseek-v3x'"))]
    assert "deepseek-v3x" in prs[0][4]


def test_unquoted_string_splits_on_whitespace_only(tmp_path):
    # without eval, bash does not read quotes inside the value: 'a b' is two words
    script = _parse_shell("CMD=\"vllm serve m --served-model-name 'a b'\"\n$CMD\n", "run.sh")
    assert [w.text for w in script.commands[0].words][-2:] == ["'a", "b'"]


def test_string_from_command_output_is_not_checked(tmp_path):
    script = f"CMD=\"$(cat cmd.txt)\"\n$CMD\n{LAUNCH} {MODEL} {PARALLEL} {PARSERS} $(cat extra.txt)\n"
    note = _cov(tmp_path, SGLANG, "run.sh", script)
    assert "$(cat extra.txt)" in note and "run.sh:3" in note


# -- 3. python3 -m "$WORKER_MODULE" -----------------------------------------------------------
def _dynamo(tmp_path: Path, assignment: str, change: tuple[str, str] | None = None) -> tuple[Path, str]:
    d = copy_submission(DYNAMO, tmp_path)
    text = (d / "disagg.sh").read_text()
    text = text.replace('set -- "${REMAINING_ARGS[@]}"', assignment, 1)
    if change:
        text = text.replace(change[0], change[1], 1)
    (d / "disagg.sh").write_text(text)
    return d, text


def test_worker_module_from_variable_is_recognised(tmp_path):
    d, _ = _dynamo(tmp_path, "WORKER_MODULE=dynamo.trtllm")
    findings = lint(d, coverage=True)
    # the module is known, and TRACE_ARGS is () or, in the if, literal words: its flag is checked
    # (issue 23; was COV001 "not known statically"): nothing is left unchecked
    assert findings == []


def test_worker_module_from_variable_bogus_flag(tmp_path):
    d, text = _dynamo(tmp_path, "WORKER_MODULE=dynamo.trtllm",
                      ("--disaggregation-mode prefill", "--disaggregation-modee prefill"))
    assert _flg001(lint(d), "--disaggregation-modee") == [("disagg.sh", *_at(text, "--disaggregation-modee"))]


def test_worker_module_unset_stays_not_checked(tmp_path):
    d, _ = _dynamo(tmp_path, "true")
    note = only(lint(d, coverage=True), "COV001")[0][4]
    assert "python3 -m $WORKER_MODULE" in note


# -- 4. functions that hold the launch --------------------------------------------------------
FUNCTION = f"launch() {{\n  {LAUNCH} {MODEL} \"$@\"\n}}\n\nlaunch {PARALLEL} {PARSERS}\n"


def test_function_control(tmp_path):
    assert _sglang(tmp_path, FUNCTION) == []


def test_function_bogus_flag_at_call_site(tmp_path):
    script = FUNCTION.replace("launch --tp-size", "launch --tp-sizee")
    assert _flg001(_sglang(tmp_path, script), "--tp-sizee") == [("run.sh", 5, 8)]


def test_function_bogus_flag_in_body(tmp_path):
    script = FUNCTION.replace("--trust-remote-code", "--trust-remote-codee")
    assert _flg001(_sglang(tmp_path, script), "--trust-remote-codee") == [("run.sh", *_at(script, "--trust-remote-codee"))]


def test_function_positional_args_wrong_tp(tmp_path):
    script = f"serve() {{\n  {LAUNCH} {MODEL} --tp-size \"$1\" --dp-size \"$2\" --enable-dp-attention {PARSERS}\n}}\nserve 4 8\n"
    top = only(_sglang(tmp_path, script), "TOP002")
    assert [(f[1], f[2], f[3]) for f in top] == [("run.sh", 4, 7)]
    assert _sglang(tmp_path / "ok", script.replace("serve 4 8", "serve 8 8")) == []


def test_top_level_positional_is_not_checked(tmp_path):
    script = f"{LAUNCH} {MODEL} --tp-size \"$1\" --dp-size 8 --enable-dp-attention {PARSERS}\n"
    note = _cov(tmp_path, SGLANG, "run.sh", script)
    assert "checks that use tp" in note and "run.sh:1" in note


# -- 5. parameter expansion with defaults ----------------------------------------------------
def test_default_value_wrong_tp(tmp_path):
    for form in ("${TP:-4}", "${TP-4}", "${TP:=4}"):
        script = f"{LAUNCH} {MODEL} --tp-size {form} --dp-size 8 --enable-dp-attention {PARSERS}\n"
        top = only(_sglang(tmp_path / str(len(form)) / form[4:6].replace("-", "d").replace(":", "c"), script), "TOP002")
        assert [(f[1], f[2], f[3]) for f in top] == [("run.sh", *_at(script, "4"))], form


def test_colon_assign_default_then_used(tmp_path):
    script = f": \"${{TP:=4}}\"\n{LAUNCH} {MODEL} --tp-size \"$TP\" --dp-size 8 --enable-dp-attention {PARSERS}\n"
    top = only(_sglang(tmp_path, script), "TOP002")
    assert [(f[1], f[2], f[3]) for f in top] == [("run.sh", *_at(script, "4"))]


def test_default_controls(tmp_path):
    good = f"{LAUNCH} {MODEL} --tp-size ${{TP:-8}} --dp-size 8 --enable-dp-attention {PARSERS}\n"
    assert _sglang(tmp_path / "a", good) == []
    # assigned earlier in the file: the assignment wins over the default
    assigned = "TP=8\n" + good.replace("${TP:-8}", "${TP:-4}")
    assert _sglang(tmp_path / "b", assigned) == []


def test_default_draft_number_given_as_draft_model_path(tmp_path):
    d = copy_submission(SGLANG_MTP, tmp_path)
    text = (d / "run.sh").read_text()
    script = ": \"${DRAFT:=4}\"\n" + text.rstrip("\n") + " --speculative-draft-model-path \"$DRAFT\"\n"
    (d / "run.sh").write_text(script)
    flg = only(lint(d), "FLG002")
    assert [(f[1], f[2], f[3]) for f in flg] == [("run.sh", *_at(script, "4"))]
    assert "bare number" in flg[0][4] and "--speculative-draft-model-path" in flg[0][4] and "type str" in flg[0][4]
    (d / "run.sh").write_text(script.replace("DRAFT:=4", "DRAFT:=deepseek-ai/DeepSeek-V3.2-Exp"))
    assert only(lint(d), "FLG002") == []


def test_variable_assigned_in_a_branch_is_not_guessed(tmp_path):
    script = (f"if [ -n \"$BIG\" ]; then\n  TP=8\nelse\n  TP=4\nfi\n"
              f"{LAUNCH} {MODEL} --tp-size \"$TP\" --dp-size 8 --enable-dp-attention {PARSERS}\n")
    findings = _sglang(tmp_path, script)
    assert only(findings, "TOP002") == []
    note = _cov(tmp_path / "cov", SGLANG, "run.sh", script)
    assert "checks that use tp" in note


# -- 6. engine YAML written by a heredoc -----------------------------------------------------
def test_heredoc_config_is_read_with_script_positions(tmp_path):
    d = copy_submission(TRTLLM, tmp_path)
    text = (d / "run.sh").read_text()
    assert lint(d) == []
    bad = text.replace("moe_config:\n    backend: CUTLASS", "moe_config:\n    backend: CUTLASSS", 1)
    (d / "run.sh").write_text(bad)
    found = [f for f in lint(d) if "CUTLASSS" in f[4]]
    assert found and all((f[1], f[2], f[3]) == ("run.sh", *_at(bad, "CUTLASSS")) for f in found)


def test_heredoc_forms(tmp_path):
    d = copy_submission(TRTLLM, tmp_path)
    text = (d / "run.sh").read_text()
    for i, head in enumerate(("cat > ${EXTRA_LLM_API_FILE} << 'EOF'", "tee ${EXTRA_LLM_API_FILE} <<EOF >/dev/null")):
        form = text.replace("cat << EOF > ${EXTRA_LLM_API_FILE}", head, 1)
        form = form.replace("moe_config:\n    backend: CUTLASS", "moe_config:\n    backend: CUTLASSS", 1)
        (d / "run.sh").write_text(form)
        found = [f for f in lint(d) if "CUTLASSS" in f[4]]
        assert found and {(f[1], f[2], f[3]) for f in found} == {("run.sh", *_at(form, "CUTLASSS"))}, head


def test_heredoc_attention_dp_is_a_setting(tmp_path):
    # the heredoc's enable_attention_dp makes this an attention-DP launch: declared false, it disagrees
    d = copy_submission(TRTLLM, tmp_path)
    text = (d / "submission.yaml").read_text()
    (d / "submission.yaml").write_text(text.replace("attention_dp: true", "attention_dp: false", 1))
    script = (d / "run.sh").read_text()
    found = [f for f in lint(d) if f[1] == "run.sh" and "attention" in f[4].lower()]
    assert found and found[0][2:4] == _at(script, "true")


def test_heredoc_with_run_time_values_is_not_checked(tmp_path):
    d = copy_submission(TRTLLM, tmp_path)
    text = (d / "run.sh").read_text().replace("stream_interval: 10", "stream_interval: $INTERVAL", 1)
    (d / "run.sh").write_text(text)
    note = only(lint(d, coverage=True), "COV001")[0][4]
    assert "/tmp/config.yml" in note and "heredoc" in note


# -- 7. YAML typed by its use ----------------------------------------------------------------
def test_standalone_yaml_of_unknown_kind_says_so(tmp_path):
    (tmp_path / "serve.yaml").write_text("tensor-parallel-sizee: 8\n")
    findings = lint(tmp_path / "serve.yaml", coverage=True)
    assert [(f[0], f[1], f[2], f[3]) for f in findings] == [("COV001", "serve.yaml", 1, 1)]
    assert "only its YAML syntax was checked" in findings[0][4]
    (tmp_path / "serve.yaml").write_text("tensor-parallel-size: 8\n")
    assert "only its YAML syntax" not in " ".join(f[4] for f in lint(tmp_path / "serve.yaml", coverage=True))


# -- positions and isolation -----------------------------------------------------------------
def test_word_from_variable_points_at_the_literal():
    script = _parse_shell("TP=\"8\"\nvllm serve m --tensor-parallel-size \"$TP\"\n", "run.sh")
    word = script.commands[0].words[-1]
    assert (word.text, word.span.line, word.span.col, word.span.end_col) == ("8", 1, 5, 6)


def test_recursive_function_does_not_hang():
    script = _parse_shell("f() { f \"$@\"; }\nf x\n", "run.sh")
    assert all(c.words[0].text == "f" for c in script.commands)


def test_exponential_constructs_stay_bounded():
    import time

    doubling = "a=(x)\n" + "a=(\"${a[@]}\" \"${a[@]}\")\n" * 40 + "\"${a[@]}\"\n"
    calls = "f0() { vllm serve m; }\n" + "".join(f"f{i}() {{ f{i-1}; f{i-1}; f{i-1}; }}\n" for i in range(1, 8)) + "f7\n"
    strings = "s=x\n" + "s=\"$s$s\"\n" * 40 + "$s\n"
    start = time.monotonic()
    for text in (doubling, calls, strings):
        script = _parse_shell(text, "run.sh")
        assert sum(len(c.words) for c in script.commands) <= 1 << 16
    assert time.monotonic() - start < 20


def test_heredoc_yaml_problems_at_script_lines(tmp_path):
    d = copy_submission(TRTLLM, tmp_path)
    text = (d / "run.sh").read_text()
    dup = text.replace("stream_interval: 10", "stream_interval: 10\nstream_interval: 20", 1)
    (d / "run.sh").write_text(dup)
    io = only(lint(d), "IO001")
    assert [(f[1], f[2], f[3]) for f in io] == [("run.sh", *_at(dup, "stream_interval: 20"))] and "duplicate key" in io[0][4]
    bad = text.replace("stream_interval: 10", "stream_interval: [10", 1)
    (d / "run.sh").write_text(bad)
    io = only(lint(d), "IO001")
    assert len(io) == 1 and io[0][1] == "run.sh" and _at(bad, "stream_interval") [0] <= io[0][2] <= _at(bad, "EOF\n\ntrtllm")[0]


def test_unresolved_command_variables_are_not_checked(tmp_path):
    cases = {
        "$CMD": "CMD=\"$(cat cmd.txt)\"\n$CMD\n",
        "eval \"$CMD\"": "CMD=\"$(cat cmd.txt)\"\neval \"$CMD\"\n",
        "\"${cmd[@]}\"": f"if [ -n \"$X\" ]; then\n  cmd=({LAUNCH} {MODEL})\nfi\n\"${{cmd[@]}}\"\n",
    }
    for i, (shown, script) in enumerate(cases.items()):
        note = _cov(tmp_path / str(i), SGLANG, "run.sh", script)
        assert f"launcher '{shown}' not recognised" in note and "shell variable" in note, note
        line = script.count("\n")
        assert f"run.sh:{line}" in note



def test_many_uses_of_a_long_value_stay_fast():
    import time

    value = " ".join(f"w{i}" for i in range(4000))
    text = f"s=\"{value}\"\n" + "echo $s\n" * 400
    start = time.monotonic()
    script = _parse_shell(text, "run.sh")
    assert time.monotonic() - start < 20
    assert script.commands[0].words[1].span.col == 4  # w0, where it is written


def test_string_command_wrong_tp_at_the_literal(tmp_path):
    for run in ("$CMD", "eval \"$CMD\""):
        script = STRING.replace("--tp-size 8", "--tp-size 4") + run + "\n"
        top = only(_sglang(tmp_path / run[:4].strip('"$ '), script), "TOP002")
        assert [(f[1], f[2], f[3]) for f in top] == [("run.sh", *_at(script, "4"))], run


def test_variable_value_reported_where_it_is_written(tmp_path):
    script = f"TP=4\n{LAUNCH} {MODEL} --tp-size \"$TP\" --dp-size 8 --enable-dp-attention {PARSERS}\n"
    top = only(_sglang(tmp_path, script), "TOP002")
    assert [(f[1], f[2], f[3]) for f in top] == [("run.sh", 1, 4)] and "TP 4" in top[0][4]
