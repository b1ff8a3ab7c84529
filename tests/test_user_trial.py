"""What a new user's trial found (their own launches, run as they would): each case built from a
real published recipe changed in one place, with its correct control."""

from __future__ import annotations

from pathlib import Path

from cfglint.lint import lint_paths

from support import copy_submission, lint, only, replace_once, shared

DSV32_VLLM = "recipes/vllm-deepseek-v3.2-h20-tp8-parsers"


def test_single_dash_inline_value_is_a_flag_with_its_value(tmp_path):
    # argparse splits '-tp=4' like '--tensor-parallel-size=4'; it was read as an unknown flag and TP 1
    d = copy_submission(DSV32_VLLM, tmp_path)
    line = replace_once(d / "run.sh", "--tensor-parallel-size 8", "-tp=4")
    found = lint(d)
    assert only(found, "FLG001") == []
    top = only(found, "TOP001")
    assert [(f[1], f[2], f[3]) for f in top] == [("run.sh", line, 8)] and "TP 4" in top[0][4]
    control = copy_submission(DSV32_VLLM, tmp_path / "control")
    replace_once(control / "run.sh", "--tensor-parallel-size 8", "-tp=8")
    assert lint(control) == []


def test_vllm_openai_image_entrypoint_is_the_server(tmp_path):
    # docker run IMAGE --flags: the image's ENTRYPOINT is vLLM's OpenAI server
    d = copy_submission(DSV32_VLLM, tmp_path)
    replace_once(d / "run.sh", "vllm serve deepseek-ai/DeepSeek-V3.2",
                 "docker run --gpus all --ipc=host vllm/vllm-openai:v0.33.0 deepseek-ai/DeepSeek-V3.2")
    assert lint(d) == []
    line = replace_once(d / "run.sh", "--tensor-parallel-size 8", "--tensor-parallel-size 8 --tensor-paralel 8")
    found = only(lint(d), "FLG001")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", line, 29)] and "--tensor-paralel" in found[0][4]


def test_a_leaking_script_outside_submissions_is_reported_in_a_directory_run(tmp_path):
    # pre-commit, given the file, reports the host path: a directory run must too (no SUB004: it serves nothing)
    (tmp_path / "download.sh").write_text("huggingface-cli download Qwen/Qwen3-8B --local-dir /home/alice/models/q\n")
    (tmp_path / "clean.sh").write_text("echo ready\n")
    by_dir = [(f.rule_id, Path(f.span.path).name, f.span.line, f.span.col) for f in lint_paths([str(tmp_path)]).findings]
    by_file = [(f.rule_id, Path(f.span.path).name, f.span.line, f.span.col)
               for f in lint_paths([str(tmp_path / "download.sh")]).findings]
    assert by_dir == by_file == [("RED001", "download.sh", 1, 52)]


def test_a_flag_of_other_releases_is_an_error_at_the_release_the_launch_runs(tmp_path):
    # issue example: --enable-reasoning, deprecated in vLLM 0.9.0 and removed after: fine on 0.8.5
    # (read as 0.8.5.post1, the 0.8 line's release cfglint holds), an error naming the releases on 0.33.0
    d = copy_submission(DSV32_VLLM, tmp_path)
    replace_once(d / "submission.yaml", "  name: vllm\n", "  name: vllm\n  version: \"0.8.5\"\n")
    line = replace_once(d / "run.sh", "--enable-auto-tool-choice", "--enable-auto-tool-choice --enable-reasoning")
    assert [f for f in only(lint(d), "FLG001") if f[2] == line] == []
    replace_once(d / "submission.yaml", "version: \"0.8.5\"", "version: \"0.33.0\"")
    flg = [f for f in lint_paths([str(d)]).findings if f.rule_id == "FLG001" and f.span.line == line]
    assert [(f.level, f.span.col) for f in flg] == [("error", 30)]
    assert "vLLM 0.33.0 (the manifest's engine version) has no --enable-reasoning; removed in 0.10.0" in flg[0].message
    # a release newer than the data: an unknown flag is a warning, and COV001 says why
    replace_once(d / "submission.yaml", "version: \"0.33.0\"", "version: \"0.40.0\"")
    replace_once(d / "run.sh", "--enable-reasoning", "--enable-reasoning-v9")
    found = lint(d, coverage=True)
    flg = [f for f in lint_paths([str(d)]).findings if f.rule_id == "FLG001" and f.span.line == line]
    assert [f.level for f in flg] == ["warning"] and "in no release cfglint holds" in flg[0].message
    assert "vLLM 0.40.0 is newer than the releases cfglint holds (0.6.2-0.33.0)" in only(found, "COV001")[0][4]


def test_r1_reasoning_parser_on_qwen3_is_a_warning_with_the_reason(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2 --reasoning-parser deepseek_r1\n")
    found = [f for f in lint_paths([str(script)]).findings if f.rule_id == "PRS002"]
    assert [(f.level, f.span.line, f.span.col) for f in found] == [("warning", 1, 71)]
    assert "enable_thinking" in found[0].message and "qwen3" in found[0].message
    script.write_text("vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2 --reasoning-parser qwen3\n")
    assert [f for f in lint_paths([str(script)]).findings if f.level != "note"] == []
    # a model of another markup altogether stays an error
    script.write_text("vllm serve openai/gpt-oss-120b --reasoning-parser deepseek_r1\n")
    assert [f.level for f in lint_paths([str(script)]).findings if f.rule_id == "PRS002"] == ["error"]


def test_a_launch_linted_alone_says_its_config_beside_it_was_not_read(tmp_path):
    (tmp_path / "run.sh").write_text("trtllm-serve openai/gpt-oss-120b --extra_llm_api_options cfg.yaml\n")
    (tmp_path / "cfg.yaml").write_text("tensor_parallel_size: 8\n")
    notes = [f for f in lint_paths([str(tmp_path / "run.sh")]).findings if f.rule_id == "COV001"]
    assert len(notes) == 1 and "list both in a submission.yaml" in notes[0].message
    (tmp_path / "cfg.yaml").unlink()
    notes = [f for f in lint_paths([str(tmp_path / "run.sh")]).findings if f.rule_id == "COV001"]
    assert len(notes) == 1 and "referenced but not published" in notes[0].message


RBG_SGLANG = "recipes/rbg-sglang-qwen3-32b-pd-1p1d"   # lmsysorg/sglang:v0.5.3.post3, Qwen3-32B (hermes tool calls)
PREFILL = "--model-path /models/Qwen3-32B/ --enable-metrics --disaggregation-mode prefill"


def test_the_parsers_a_mismatch_names_are_ones_the_release_has(tmp_path):
    # SGLang 0.5.3.post3 (the image tag) registers qwen and qwen25 for hermes markup; its 'hermes'
    # parser is added in 0.5.9, so naming it sent the user to a parser the release refuses
    d = copy_submission(RBG_SGLANG, tmp_path)
    line = replace_once(d / "sglang-pd.yaml", PREFILL, PREFILL + " --tool-call-parser llama3")
    (f,) = only(lint(d), "PRS002")
    assert f[2] == line and f[4].endswith("SGLang parsers for it: qwen, qwen25")
    # at 0.5.9, which has it, hermes is named too
    replace_once(d / "sglang-pd.yaml", "lmsysorg/sglang:v0.5.3.post3", "lmsysorg/sglang:v0.5.9")
    (g,) = only(lint(d), "PRS002")
    assert g[4].endswith("SGLang parsers for it: hermes, qwen, qwen25")
    control = copy_submission(RBG_SGLANG, tmp_path / "control")
    replace_once(control / "sglang-pd.yaml", PREFILL, PREFILL + " --tool-call-parser qwen25")
    assert only(lint(control), "PRS002") == []


def test_a_reasoning_parser_on_a_model_that_does_not_reason_says_to_remove_it(tmp_path):
    # corpus 055 (AIBrix) serves Qwen2.5-7B-Instruct, which does not reason; a deepseek-r1 parser
    # was answered with "SGLang parsers for qwen: qwen3-thinking", a parser for a thinking model
    src = shared("corpus") / "055-aibrix-sglang-replica" / "replica.yaml"
    text = src.read_text(encoding="utf-8")
    model = "--model-path /models/Qwen2.5-7B-Instruct \\\n"
    path = tmp_path / "replica.yaml"
    path.write_text(text.replace(model, model + " " * 24 + "--reasoning-parser deepseek-r1 \\\n", 1), encoding="utf-8")
    (f,) = [f for f in lint_paths([str(path)]).findings if f.rule_id == "PRS002"]
    assert (f.span.line, f.span.col) == (46, 44)
    assert "Qwen/Qwen2.5-7B-Instruct does not reason" in f.message and f.message.endswith("remove --reasoning-parser")
    assert "qwen3-thinking" not in f.message
    path.write_text(text, encoding="utf-8")
    assert [f for f in lint_paths([str(path)]).findings if f.rule_id == "PRS002"] == []


def test_a_variable_no_release_reads_set_for_two_workers_is_named_once_in_the_note(tmp_path):
    # corpus 107 (Dynamo SGLang GB200): prefill (line 90) and decode (line 147) both set
    # SGLANG_DECODE_BOOTSTRAP_TIMEOUT, which no SGLang release cfglint holds reads; the note listed
    # it twice ("SGLANG_DECODE_BOOTSTRAP_TIMEOUT, SGLANG_DECODE_BOOTSTRAP_TIMEOUT")
    src = shared("corpus") / "107-dynamo-sglang-gb200-fp4-disagg-1k1k-low-latency" / "1k1k-low-latency.sh"
    text = src.read_text(encoding="utf-8")

    def gap(body: str) -> str:
        path = tmp_path / "1k1k-low-latency.sh"
        path.write_text(body, encoding="utf-8")
        (note,) = [f for f in lint_paths([str(path)]).findings if f.rule_id == "COV001"]
        (entry,) = [m for _s, m in note.related if m.startswith("engine variables (ENV001)")]
        return entry

    assert gap(text).startswith("engine variables (ENV001): SGLANG_DECODE_BOOTSTRAP_TIMEOUT: read by no SGLang release")
    # the decode worker's one renamed: two names, each once
    lines = text.split("\n")
    assert lines[146].strip() == "SGLANG_DECODE_BOOTSTRAP_TIMEOUT=1000 \\"
    lines[146] = lines[146].replace("SGLANG_DECODE_BOOTSTRAP_TIMEOUT", "SGLANG_DECODE_BOOTSTRAP_TIMEOUT_S")
    assert gap("\n".join(lines)).startswith(
        "engine variables (ENV001): SGLANG_DECODE_BOOTSTRAP_TIMEOUT, SGLANG_DECODE_BOOTSTRAP_TIMEOUT_S: read by no")


def test_prs002_names_the_served_checkpoint_and_its_base(tmp_path):
    # the recipe serves zai-org/GLM-5.1-FP8, whose formats are zai-org/GLM-5.1's: the message names
    # what the launch serves, then the model it is a checkpoint of (was the base alone)
    from support import copy_submission, lint, only, replace_once

    d = copy_submission("recipes/vllm-glm-5.1-fp8-h200-tp8-mtp3", tmp_path)
    assert only(lint(d), "PRS002") == []
    replace_once(d / "run.sh", "--tool-call-parser glm47", "--tool-call-parser hermes")
    (f,) = only(lint(d), "PRS002")
    assert "but the model zai-org/GLM-5.1-FP8 (a checkpoint of zai-org/GLM-5.1) emits glm47" in f[4]
