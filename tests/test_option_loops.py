"""A script's option-parsing loop (``while [[ $# -gt 0 ]]; do case $1 in ... *) EXTRA+=("$1")``):
what it collects from the caller's command line for the engine is the caller's, and the script
run as published (with no arguments) adds none of it; the set -u idiom ``${ARR[@]+"${ARR[@]}"}``
splices the array. Real corpus files (073, 088), each changed in one place."""

from __future__ import annotations

from cfglint.lint import lint_paths
from support import SHARED, shared

AGG = "corpus/073-dynamo-sglang-agg/agg.sh"
ANTHROPIC = "corpus/088-trtllm-serve-anthropic-compat/serve.sh"


def _lint(path):
    return lint_paths([str(path)]).findings


def _notes(findings) -> list[str]:
    return [m for f in findings if f.rule_id == "COV001" for _s, m in f.related]


def _changed(tmp_path, rel: str, old: str, new: str):
    src = SHARED / rel
    text = src.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    out = tmp_path / src.name
    out.write_text(text.replace(old, new), encoding="utf-8")
    return out


def test_options_the_loop_forwards_from_the_caller_add_nothing_as_published():
    # 073: `*) EXTRA_ARGS+=("$1")` forwards the caller's unknown options to dynamo.sglang; run as
    # published the array is empty (was COV001 'the arguments "${EXTRA_ARGS[@]}" adds ...')
    shared("corpus")
    findings = _lint(SHARED / AGG)
    assert not any("EXTRA_ARGS" in n for n in _notes(findings)), _notes(findings)
    assert findings == []


def test_a_literal_the_loop_adds_is_still_read(tmp_path):
    # the catch-all adds a flag of its own besides the caller's: on some runs the launch has it
    path = _changed(tmp_path, AGG, 'EXTRA_ARGS+=("$1")', 'EXTRA_ARGS+=("--bogus-flag")')
    findings = _lint(path)
    assert any("EXTRA_ARGS" in n and "not known statically" in n for n in _notes(findings)), _notes(findings)


def test_a_value_from_outside_the_script_in_the_loop_stays_unknown(tmp_path):
    # a value that is not the caller's option (a file read at run time) is not the caller's either
    path = _changed(tmp_path, AGG, 'EXTRA_ARGS+=("$1")', 'EXTRA_ARGS+=("$(cat extra.txt)")')
    assert any("EXTRA_ARGS" in n for n in _notes(_lint(path)))


def test_an_array_the_script_fills_outside_the_loop_is_checked(tmp_path):
    # control: the same array given a mistyped flag before the loop is the script's own: FLG001
    path = _changed(tmp_path, AGG, "EXTRA_ARGS=()\n", "EXTRA_ARGS=(--page-sizee 32)\n")
    (flg,) = [f for f in _lint(path) if f.rule_id == "FLG001"]
    assert "--page-sizee" in flg.message and flg.span.line == 22


def test_the_set_u_idiom_for_an_array_that_may_be_empty_splices_it(tmp_path):
    # 088: trtllm-serve ... "${EXTRA_SERVE_ARGS[@]+"${EXTRA_SERVE_ARGS[@]}"}": as published the
    # array is empty (the loop's `--) EXTRA_SERVE_ARGS=("$@")` and `EXTRA_SERVE_ARGS+=("$1")` are the
    # caller's); was COV001 'the arguments ... adds (trtllm-serve): they are not known statically'
    shared("corpus")
    assert not any("EXTRA_SERVE_ARGS" in n for n in _notes(_lint(SHARED / ANTHROPIC)))
    # the array given a mistyped flag where the script sets it: the flag reaches trtllm-serve
    path = _changed(tmp_path, ANTHROPIC, "EXTRA_SERVE_ARGS=()\n", "EXTRA_SERVE_ARGS=(--max_batch_sizee 8)\n")
    flg = [f for f in _lint(path) if f.rule_id == "FLG001" and "--max_batch_sizee" in f.message]
    assert flg and all(f.span.line == 34 for f in flg)


def test_an_empty_alternate_of_an_array_adds_nothing(tmp_path):
    # ${ARR[@]+} unquoted is nothing whether the array is empty or not (bash drops the empty
    # alternate); was COV001 'the arguments ${EXTRA_SERVE_ARGS[@]+} adds ...: not known statically'
    shared("corpus")
    idiom = '"${EXTRA_SERVE_ARGS[@]+"${EXTRA_SERVE_ARGS[@]}"}"'
    path = _changed(tmp_path, ANTHROPIC, idiom, "${EXTRA_SERVE_ARGS[@]+}")
    assert not any("EXTRA_SERVE_ARGS" in n for n in _notes(_lint(path)))
    # the array set as well (a second change): still nothing of it reaches trtllm-serve
    text = path.read_text(encoding="utf-8").replace("EXTRA_SERVE_ARGS=()\n", "EXTRA_SERVE_ARGS=(--max_batch_sizee 8)\n")
    path.write_text(text, encoding="utf-8")
    found = _lint(path)
    assert "--max_batch_sizee 8" in text and not any("EXTRA_SERVE_ARGS" in n for n in _notes(found))
    assert not any("--max_batch_sizee" in f.message for f in found)
    # quoted, a set array gives one empty word, which is not read: the note stays
    path.write_text(text.replace("${EXTRA_SERVE_ARGS[@]+}", '"${EXTRA_SERVE_ARGS[@]+}"'), encoding="utf-8")
    assert any('"${EXTRA_SERVE_ARGS[@]+}"' in n for n in _notes(_lint(path)))
