"""An unquoted heredoc's ``$VAR`` / ``${VAR:-default}`` read with the values the script assigns
before it (read/shell/values.py ``body_value``), findings on a value put in placed on its ``$VAR``.

Built from the published recipe trtllm-gpt-oss-120b-b200-dep8-throughput: its run.sh writes the
engine's extra options with ``cat << EOF > ${EXTRA_LLM_API_FILE}`` (``moe_config: backend: CUTLASS``,
``cuda_graph_config: max_batch_size: 720``). Each test copies it, changes it in one place (a value
written through a variable: the assignment and the ``$VAR`` are that one change), and lints the copy.
"""

from __future__ import annotations

from pathlib import Path

from support import copy_submission, lint, only, position

from cfglint.load.submission import load_loose_file

GPT_OSS = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"
HEAD = "cat << EOF > ${EXTRA_LLM_API_FILE}\n"
BACKEND = "    backend: CUTLASS\n"


def _set(assignment: str) -> tuple[str, str]:
    """The change that puts ``assignment`` on the blank line before the heredoc (no line moves)."""
    return "\n\n" + HEAD, f"\n{assignment}\n" + HEAD


def _recipe(tmp_path: Path, *changes: tuple[str, str]) -> tuple[Path, str]:
    d = copy_submission(GPT_OSS, tmp_path)
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    run.write_text(text, encoding="utf-8")
    return d, text


def _lint(d: Path) -> list[tuple]:
    """Every finding on the copy ``d``, its path taken out of the messages (copies compare equal)."""
    return [(*f[:4], f[4].replace(str(d), "<copy>")) for f in lint(d, coverage=True)]


def _published(tmp_path: Path) -> list[tuple]:
    return _lint(copy_submission(GPT_OSS, tmp_path / "published"))


def test_a_value_the_script_sets_is_read_where_the_heredoc_expands_it(tmp_path):
    d, text = _recipe(tmp_path / "v", ("  max_batch_size: 720\n", "  max_batch_size: $MAX_BS\n"),
                      _set("MAX_BS=720"))
    # before: COV001 "settings in /tmp/config.yml: ... a heredoc that expands shell values known only at run time"
    assert _lint(d) == _published(tmp_path)
    sub = load_loose_file(str(d / "run.sh"))
    (cfg,) = sub.configs
    value = cfg.root.get("cuda_graph_config").get("max_batch_size")
    line, col = position(text, "$MAX_BS")
    assert (value.value, value.span.line, value.span.col, value.span.end_col) == (720, line, col, col + len("$MAX_BS"))
    # the other values keep their own places in the body
    assert (cfg.root.key("stream_interval").span.line, cfg.root.key("stream_interval").span.col) == \
        position(text, "stream_interval")


def test_a_bad_value_through_a_variable_is_reported_at_the_expansion(tmp_path):
    d, text = _recipe(tmp_path, (BACKEND, "    backend: $MOE\n"), _set("MOE=CUTLAS"))
    (sch,) = only(lint(d), "SCH001")
    assert sch[1:4] == ("run.sh", *position(text, "$MOE"))
    assert "moe_config/backend: 'CUTLAS' is not one of the allowed values; did you mean 'CUTLASS'?" in sch[4]


def test_the_right_value_through_a_variable_is_clean(tmp_path):
    d, _ = _recipe(tmp_path, (BACKEND, "    backend: $MOE\n"), _set("MOE=CUTLASS"))
    assert _lint(d) == _published(tmp_path)


def test_a_default_is_read_as_in_a_command_word(tmp_path):
    d, text = _recipe(tmp_path, (BACKEND, "    backend: ${MOE_BACKEND:-CUTLAS}\n"))
    (sch,) = only(lint(d), "SCH001")
    assert sch[1:4] == ("run.sh", *position(text, "${MOE_BACKEND")) and "'CUTLAS'" in sch[4]


def test_a_value_the_script_sets_wins_over_the_default(tmp_path):
    d, _ = _recipe(tmp_path, (BACKEND, "    backend: ${MOE:-CUTLAS}\n"), _set("MOE=CUTLASS"))
    assert _lint(d) == _published(tmp_path)


def test_a_value_assigned_after_the_heredoc_is_not_used(tmp_path):
    # bash expands the body when the heredoc runs: MOE is not set yet, the file holds what the environment gives
    d, text = _recipe(tmp_path, (BACKEND, "    backend: $MOE\n"), ("EOF\n", "EOF\nMOE=CUTLAS\n"))
    findings = lint(d, coverage=True)
    assert only(findings, "SCH001") == []
    line = position(text, "$MOE")[0]
    assert "settings in /tmp/config.yml (trtllm-serve): the script writes it with a heredoc that expands shell " \
           f"values known only at run time (line {line}: $MOE)" in only(findings, "COV001")[0][4]


def test_a_command_substitution_stays_not_known_with_its_place(tmp_path):
    d, text = _recipe(tmp_path, ("stream_interval: 10\n", "stream_interval: $(nproc)\n"))
    findings = lint(d, coverage=True)
    line = position(text, "$(nproc)")[0]
    assert [f[0] for f in findings] == ["COV001"]
    assert f"heredoc that expands shell values known only at run time (line {line}: $(nproc))" in findings[0][4]


def test_a_quoted_delimiter_expands_nothing(tmp_path):
    # <<'EOF': the file holds the text $MOE, whatever MOE is
    d, text = _recipe(tmp_path, (BACKEND, "    backend: $MOE\n"),
                      (HEAD, "MOE=CUTLASS\n" + HEAD.replace("<< EOF", "<< 'EOF'")))
    (sch,) = only(lint(d), "SCH001")
    assert sch[1:4] == ("run.sh", *position(text, "$MOE")) and "'$MOE' is not one of the allowed values" in sch[4]


def test_an_escaped_dollar_is_written_as_it_is(tmp_path):
    d, text = _recipe(tmp_path, (BACKEND, "    backend: \\$MOE\n"), _set("MOE=CUTLASS"))
    (sch,) = only(lint(d), "SCH001")
    assert sch[1:4] == ("run.sh", *position(text, "$MOE")) and "'$MOE' is not one of the allowed values" in sch[4]


def test_a_value_set_differently_in_branches_is_not_known(tmp_path):
    d, text = _recipe(tmp_path, (BACKEND, "    backend: $MOE\n"),
                      (HEAD, 'if [ -n "$FAST" ]; then MOE=TRTLLM; else MOE=CUTLASS; fi\n' + HEAD))
    findings = lint(d, coverage=True)
    line = position(text, "$MOE")[0]
    assert [f[0] for f in findings] == ["COV001"] and f"(line {line}: $MOE)" in findings[0][4]


def _dash(tmp_path: Path, old: str, new: str, before: str = "") -> tuple[Path, str]:
    """The recipe's heredoc written ``<<-`` with every body line (and the delimiter) indented by one
    tab, ``old`` replaced by ``new`` in it, ``before`` put before it."""
    d = copy_submission(GPT_OSS, tmp_path)
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    a = text.index(HEAD)
    b = text.index("\nEOF\n", a) + 1
    head, *body = text[a:b].replace(old, new).split("\n")[:-1]
    text = text[:a] + before + "\n".join([head.replace("<< EOF", "<<- EOF")] + ["\t" + line for line in body]) + \
        "\n\tEOF\n" + text[b + len("EOF\n"):]
    run.write_text(text, encoding="utf-8")
    return d, text


def test_a_dash_heredoc_strips_the_tabs_before_the_value_is_put_in(tmp_path):
    d, text = _dash(tmp_path, "backend: CUTLASS", "backend: $MOE", "MOE=CUTLAS\n")
    (sch,) = only(lint(d), "SCH001")
    line, col = position(text, "$MOE")
    assert sch[1:4] == ("run.sh", line, col) and text.split("\n")[line - 1].startswith("\t    backend")
    assert "did you mean 'CUTLASS'?" in sch[4]
    control, _ = _dash(tmp_path / "control", "backend: CUTLASS", "backend: $MOE", "MOE=CUTLASS\n")
    assert [f[:2] for f in _lint(control)] == [f[:2] for f in _published(tmp_path)]
