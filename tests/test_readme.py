"""The README says what is true: its rules table lists every registered rule (and nothing else),
it names the Python the package requires, its test command is the one CI runs, every `cfglint`
command it shows is one the CLI accepts, and its adoption snippets (pre-commit, GitHub Actions,
GitLab CI) are valid for the tools that read them."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest
import yaml

from cfglint.checks import all_rules
from cfglint.cli import FORMATS, main
from support import DEEP

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
README = (ROOT / "README.md").read_text()
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
# output formats another change adds; a README command naming one is checked once cli.FORMATS has it
LATER_FORMATS = {"gitlab", "junit", "rdjson"}


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else len(README)]


def _blocks(text: str, lang: str | None = None) -> list[str]:
    return [body for kind, body in BLOCK.findall(text) if lang is None or kind == lang]


def test_rules_table_lists_every_registered_rule():
    rows = re.findall(r"^\| ([A-Z][A-Z0-9]*\d{3}) \| ([a-z0-9-]+) \| .+\|$", _section("Rules"), re.M)
    ids = [r for r, _ in rows]
    assert len(ids) == len(set(ids)), sorted(r for r in ids if ids.count(r) > 1)
    registered = all_rules()
    assert set(ids) == set(registered), (f"missing rows: {sorted(set(registered) - set(ids))}; "
                                         f"rows for no rule: {sorted(set(ids) - set(registered))}")
    assert {"RED002", "RED003"} <= set(ids)
    for rule_id, name in rows:
        assert registered[rule_id].name == name, (rule_id, name, registered[rule_id].name)


def test_readme_names_the_required_python():
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    version = re.fullmatch(r">=\s*(\d+\.\d+)", requires).group(1)
    assert f"Python {version} or newer" in _section("Set up")


def test_test_command_is_the_one_ci_runs_and_needs_node():
    setup = _section("Set up")
    (command,) = [b.strip() for b in _blocks(setup, "sh") if "pytest" in b]
    assert command.startswith("npm ci ")
    assert command in (ROOT / ".ci" / "run").read_text()
    assert "Node.js" in setup and "npm" in setup
    # the durations are measured figures, each with the seconds it was measured at (issue 26)
    assert re.search(r"about \d+ minutes on 2 cores \(\d+ s, \d{4}-\d\d-\d\d\)", setup)
    assert re.search(r"about \d+ minutes: [\d,]+ s\s+in CI on 2 cores", setup)


def _cfglint_commands() -> list[list[str]]:
    """Every `cfglint ...` command in the README's sh and yaml code blocks (also after `&&` and as
    a YAML list item), as argument lists; comments, `|| ...` tails and pipes into other programs dropped."""
    out = []
    for body in _blocks(README, "sh") + _blocks(README, "yaml"):
        for line in body.splitlines():
            for segment in re.split(r"&&|\|\|?|;", line):
                m = re.match(r"^\s*(?:-\s+)?(?:\S*/)?cfglint\s+(.*)$", segment)
                if m:
                    out.append(shlex.split(m.group(1), comments=True))
    return out


def _cli_error(args: list[str]) -> str | None:
    """Why the CLI refuses ``cfglint ARGS`` (an unknown command or option, a wrong choice or
    number), or None when it accepts them. Only parses: nothing runs."""
    parent = click.Context(main, info_name="cfglint")
    cmd = main.get_command(parent, args[0]) if args else None
    if cmd is None:
        return f"no command {args[:1]}"
    try:
        cmd.make_context(args[0], list(args[1:]), parent=parent)
    except click.ClickException as err:
        return err.format_message()
    return None


def test_readme_cfglint_commands_are_valid_cli():
    # the control: what the CLI refuses is seen as refused
    assert _cli_error(["check", "--format", "yaml"]) and _cli_error(["check", "--no-such-option"])
    assert _cli_error(["lint", "."]) and _cli_error(["check", "--jobs", "two"])
    commands = _cfglint_commands()
    assert len(commands) >= 8, commands
    assert ["check", "submissions", "--format", "gitlab", "-o", "gl-code-quality-report.json"] in commands
    waiting = []
    for args in commands:
        fmt = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--format", "-f")), None)
        if fmt in LATER_FORMATS and fmt not in FORMATS:
            waiting.append(args)
            continue
        error = _cli_error(args)
        assert error is None, f"README command `cfglint {shlex.join(args)}` is not valid: {error}"
    assert len(waiting) <= 1, waiting   # only the GitLab job's --format gitlab, until that format is merged


def test_precommit_snippet_is_a_valid_config(tmp_path):
    (snippet,) = [b for b in _blocks(_section("Install and adopt"), "yaml") if "repos:" in b]
    cfg = tmp_path / ".pre-commit-config.yaml"
    cfg.write_text(snippet)
    pre_commit = [sys.executable, "-m", "pre_commit"]
    for cmd in (["validate-config", str(cfg)], ["validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")]):
        proc = subprocess.run(pre_commit + cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    hook_ids = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert {h["id"] for r in yaml.safe_load(snippet)["repos"] for h in r["hooks"]} <= hook_ids


def test_github_actions_snippet_passes_actionlint(tmp_path):
    adopt = _section("Install and adopt")
    (snippet,) = [b for b in _blocks(adopt, "yaml") if "uses: cfglint/cfglint@" in b]
    # the commented inputs too: every input the README shows must be one action.yml has
    snippet = re.sub(r"^(\s+)# ([a-z-]+: )", r"\1\2", snippet, flags=re.M)
    snippet = re.sub(r"cfglint/cfglint@\S+", "./", snippet)
    spec = yaml.safe_load(snippet)
    workflow = {"name": "readme", "on": "pull_request", "permissions": spec["permissions"],
                "jobs": {"cfglint": {"runs-on": "ubuntu-latest", "steps": spec["steps"]}}}
    assert set(spec["steps"][1]["with"]) == {"paths", "args", "fail-level", "upload-sarif"}
    (tmp_path / ".git").mkdir()
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    (tmp_path / ".github" / "workflows" / "readme.yml").write_text(yaml.safe_dump(workflow, sort_keys=False))
    exe = shutil.which("actionlint", path=str(BIN))
    assert exe, "actionlint not installed: pip install -e '.[test]'"
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run([exe, "-oneline", "-no-color", ".github/workflows/readme.yml"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # every input and output of the action is documented
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    for name in [*action["inputs"], *action["outputs"]]:
        assert f"`{name}`" in adopt or f"{name}:" in adopt, name


def test_every_gitlab_job_pins_cfglint_and_stops_on_exit_2():
    # every GitLab job the README shows (Install and adopt, Output formats): cfglint installed at a
    # commit, and each `cfglint check` before the last lets only exit 1 (findings) through, never
    # exit 2 (a usage or configuration error), which `|| true` would hide
    jobs = [yaml.safe_load(b)["cfglint"] for b in _blocks(README, "yaml") if "\n  script:\n" in b]
    assert len(jobs) == 2, jobs
    for job in jobs:
        install, *checks = job["script"]
        assert install == 'pip install "git+https://github.com/cfglint/cfglint@<commit sha>"', install
        assert len(checks) >= 2 and all(c.startswith("cfglint check ") for c in checks), checks
        for check in checks[:-1]:
            assert check.endswith(" || test $? -eq 1"), check
        assert "||" not in checks[-1], checks[-1]
    # no install of cfglint anywhere in the README at a branch or without a commit
    installs = re.findall(r"git\+https://github\.com/cfglint/cfglint(?:@<commit sha>|[^\s\"']*)", README)
    assert len(installs) >= 3 and set(installs) == {"git+https://github.com/cfglint/cfglint@<commit sha>"}, installs


def test_gitlab_snippet_keeps_the_report_and_fails_on_findings():
    (snippet,) = [b for b in _blocks(_section("Install and adopt"), "yaml") if "codequality" in b]
    job = yaml.safe_load(snippet)["cfglint"]
    assert job["artifacts"] == {"when": "always", "reports": {"codequality": "gl-code-quality-report.json"}}
    report, last = job["script"][-2:]
    assert "--format gitlab -o gl-code-quality-report.json" in report and report.endswith("|| test $? -eq 1")
    assert last.startswith("cfglint check ") and "||" not in last


MULTITOOL = ROOT / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"


def test_sarif_validation_by_hand_works(tmp_path):
    # the README's command, run as written (bash, in a directory with the checkout's node_modules
    # and a cfglint.sarif): the bundled findings pass; a report breaking a GitHub ingestion rule
    # (Gh, the kind a shell would cut off at the ';') and a SARIF spec rule does not
    if not MULTITOOL.is_file():
        message = f"SARIF Multitool not found at {MULTITOOL}: run `npm ci` (see .ci/run)"
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(message)
        pytest.skip(message)
    (block,) = [b for b in _blocks(_section("Output formats"), "sh") if "Sarif.Multitool" in b]
    sarif = subprocess.run([str(BIN / "cfglint"), "check", "--format", "sarif", "--",
                            str(ROOT / "examples/submissions/nvidia/kimi-k3"), str(ROOT / "examples/submissions/recipes")],
                           capture_output=True, text=True, timeout=300)
    assert sarif.returncode == 1 and '"ruleId": "RED001"' in sarif.stdout, sarif.stderr
    log = json.loads(sarif.stdout)
    broken = json.loads(sarif.stdout)
    del broken["runs"][0]["tool"]["driver"]["rules"][0]["shortDescription"]        # GH2012
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0   # JSON1008
    printed = {}
    for name, report in (("valid", log), ("broken", broken)):
        work = tmp_path / name
        work.mkdir()
        (work / "node_modules").symlink_to(ROOT / "node_modules")
        (work / "cfglint.sarif").write_text(json.dumps(report), encoding="utf-8")
        proc = subprocess.run(["bash", "-eo", "pipefail", "-c", block], cwd=work, capture_output=True, text=True,
                              timeout=300, env=dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1"))
        assert proc.returncode == 0 and "Analysis completed successfully" in proc.stdout, proc.stdout + proc.stderr
        printed[name] = re.findall(r"cfglint\.sarif\(\d+,\d+\): (error|warning) (\w+):", proc.stdout)
    assert printed["valid"] == []
    assert {rule for _, rule in printed["broken"]} >= {"GH2012", "JSON1008"}, printed["broken"]


def _install_block() -> str:
    (block,) = [b for b in _blocks(_section("Install and adopt"), "sh") if "pipx install" in b]
    return block


def test_install_needs_nothing_a_fresh_machine_lacks():
    # pip in a virtualenv first (Python has both); pipx only after saying how to get it
    lines = [line for line in _install_block().splitlines() if line.strip()]
    assert lines[0].startswith("python3 -m venv ") and " pipx" not in lines[0], lines[0]
    first_pipx = next(n for n, line in enumerate(lines) if line.startswith("pipx "))
    assert any("python3 -m pip install --user pipx" in line for line in lines[:first_pipx]), lines


@pytest.mark.skipif(not DEEP, reason="deep run only (CI=true or CFGLINT_DEEP=1): a virtualenv and a build, ~30 s")
def test_pip_install_into_a_virtualenv_works(tmp_path):
    # the README's first install line as written, with this checkout for the repository at a commit
    # and a home of its own: a `cfglint` that runs
    line = _install_block().splitlines()[0]
    url = '"git+https://github.com/cfglint/cfglint@<commit sha>"'
    assert url in line
    env = dict(os.environ, HOME=str(tmp_path), PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    proc = subprocess.run(["bash", "-eo", "pipefail", "-c", line.replace(url, shlex.quote(str(ROOT)))], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    version = subprocess.run([str(tmp_path / ".venvs" / "cfglint" / "bin" / "cfglint"), "--version"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=60)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert version.returncode == 0 and version.stdout.startswith(f"cfglint {project['version']} ({project['name']})"), \
        version


def test_the_statistics_and_summary_shown_are_what_the_examples_give():
    """The README's `--statistics` block and the example summary line are the real output on
    the bundled examples (a new true finding in the golden file changes them: keep them true)."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "cfglint", "check", "examples/submissions", "--statistics"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1
    assert proc.stdout.strip() in README, proc.stdout
    summary = proc.stderr.strip().splitlines()[-1]
    assert summary in README, summary
