"""COV001 not-checked: one note per submission naming each check that could not run and why,
built from a real published submission changed in one place; the unchanged one has no note."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from cfglint.cli import main
from cfglint.lint import lint_paths

from support import copy_submission, lint, only, replace_once

KIMI = "artificial-analysis/kimi-k3/b300-sglang-tp8"
GLM_EAGLE = "nvidia/glm-5.2/gb300-sglang-2x4-tp8-eagle6-maxreq16"


def _note(d: Path):
    """The single COV001 finding of the run (the full Finding, related spans included)."""
    notes = [f for f in lint_paths([str(d)]).findings if f.rule_id == "COV001"]
    assert len(notes) == 1, [f.message for f in notes]
    return notes[0]


def test_clean_published_submission_has_no_note(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    assert only(lint(d, coverage=True), "COV001") == []


def test_unknown_model(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    line = replace_once(d / "submission.yaml", "model: moonshotai/Kimi-K3", "model: acme/Kimi-K3-Internal")
    note = _note(d)
    assert (Path(note.span.path).name, note.span.line, note.span.col) == ("submission.yaml", 1, 1)
    assert "model 'acme/Kimi-K3-Internal' is not in the knowledge base" in note.message
    assert "attention heads" in note.message and "--knowledge" in note.message
    assert [(Path(s.path).name, s.line, s.col) for s, _ in note.related] == [("submission.yaml", line, 8)]


def test_unknown_accelerator(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    line = replace_once(d / "submission.yaml", "accelerator: B300", "accelerator: X9000")
    note = _note(d)
    assert "accelerator 'X9000' is not in the knowledge base" in note.message
    assert "hardware checks" in note.message
    assert [(Path(s.path).name, s.line, s.col) for s, _ in note.related] == [("submission.yaml", line, 16)]


def test_launch_file_with_no_recognised_launch(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    replace_once(d / "run.sh", "lmsysorg/sglang:kimi-k3 sglang serve", "lmsysorg/sglang:kimi-k3 acme-serve")
    note = _note(d)
    # the gap is the launch: named as the file (no launch recognised in it) or as its command
    assert "every launch check for" in note.message and "recognised" in note.message
    assert "known launchers: sglang serve" in note.message  # the known launchers are named
    assert [Path(s.path).name for s, _ in note.related] == ["run.sh"]


def test_value_from_a_shell_variable(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    line = replace_once(d / "run.sh", "--tp-size 8", '--tp-size "$TP"')
    note = _note(d)
    assert "checks that use tp (sglang serve): its value is a shell variable or command output" in note.message
    assert [(Path(s.path).name, s.line, s.col) for s, _ in note.related] == [("run.sh", line, 67)]


def test_unpublished_engine_config(tmp_path):
    d = copy_submission(GLM_EAGLE, tmp_path)
    line = replace_once(d / "run.sh", "--config ifb_config.yaml", "--config ifb_config_v2.yaml")
    note = _note(d)
    assert "settings in ifb_config_v2.yaml" in note.message
    assert "the engine config is referenced but not published" in note.message
    assert [(Path(s.path).name, s.line, s.col) for s, _ in note.related] == [("run.sh", line, 10)]


def test_fail_level_note_fails_on_the_note(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", '--tp-size "$TP"')
    assert [f[0] for f in lint(d, coverage=True)] == ["COV001"]  # the note is the only finding
    runner = CliRunner()
    assert runner.invoke(main, ["check", str(d), "--no-config"]).exit_code == 0
    failed = runner.invoke(main, ["check", str(d), "--no-config", "--fail-level", "note"])
    assert failed.exit_code == 1, failed.output
    assert "COV001 [note]" in failed.output
    clean = copy_submission(KIMI, tmp_path / "clean")
    assert runner.invoke(main, ["check", str(clean), "--no-config", "--fail-level", "note"]).exit_code == 0
