"""The pre-commit hook (.pre-commit-hooks.yaml), run for real with ``pre-commit try-repo``.

pre-commit clones this repository (HEAD plus uncommitted changes to tracked files), builds a
virtualenv for the hook and pip-installs the project into it from PyPI: this proves the hook
definition, the wheel's data files and the console script together.

try-repo always builds the hook environment in a throwaway store of its own (so each run
installs it again; pip's cache keeps that to seconds). PRE_COMMIT_HOME still points at a
per-session temporary directory so that nothing touches or reads the user's pre-commit cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SUBMISSION = ROOT / "examples" / "submissions" / "artificial-analysis" / "kimi-k3" / "b300-sglang-tp8"
TARGET = Path("submissions", "aa", "kimi-k3", "b300-sglang-tp8")


@pytest.fixture(scope="module")
def precommit_env(tmp_path_factory) -> dict[str, str]:
    if not (ROOT / ".git").exists():
        pytest.fail(f"{ROOT} is not a git repository: pre-commit try-repo needs one")
    env = dict(os.environ)
    for var in [v for v in env if v.startswith("GIT_") or v.startswith("PRE_COMMIT")]:
        del env[var]
    env.update(PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")),
               PRE_COMMIT_COLOR="never", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    return env


def _git(repo: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True, timeout=60)


@pytest.fixture
def submissions_repo(tmp_path, precommit_env) -> Path:
    """A submissions repository with one real submission, staged."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, precommit_env, "init", "-q")
    _git(repo, precommit_env, "config", "user.name", "cfglint tests")
    _git(repo, precommit_env, "config", "user.email", "tests@cfglint.invalid")
    shutil.copytree(SUBMISSION, repo / TARGET)
    _git(repo, precommit_env, "add", "-A")
    return repo


def try_repo(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "cfglint", "--all-files", "--color", "never"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    print(proc.stdout, proc.stderr, sep="\n")
    return proc


def test_hook_passes_on_a_clean_submission(submissions_repo, precommit_env):
    proc = try_repo(submissions_repo, precommit_env)
    assert proc.returncode == 0, f"pre-commit exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "cfglint" in proc.stdout and "Passed" in proc.stdout, proc.stdout


def test_hook_fails_on_a_topology_mismatch(submissions_repo, precommit_env):
    run_sh = submissions_repo / TARGET / "run.sh"
    text = run_sh.read_text(encoding="utf-8")
    assert "--tp-size 8" in text
    run_sh.write_text(text.replace("--tp-size 8", "--tp-size 4"), encoding="utf-8")
    _git(submissions_repo, precommit_env, "add", "-A")
    proc = try_repo(submissions_repo, precommit_env)
    assert proc.returncode == 1, f"pre-commit exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "TOP001" in proc.stdout, proc.stdout
    assert f"{TARGET.as_posix()}/run.sh:" in proc.stdout, proc.stdout


# -- issue 25, item 1: file names that read as options -------------------------------------------

HF = "hf_" + "Qm7Zt2Lx9Wv4Rk8Bn3Jp6Yc1Hd5Gs0Fa"   # a Hugging Face token's shape (RED002)
CFGLINT = Path(sys.executable).parent / "cfglint"


@pytest.fixture
def injection_repo(submissions_repo, precommit_env) -> Path:
    """The submissions repository with a leaked token in its launch (RED002), an attacker's
    configuration x.yaml that ignores every rule, and two staged files whose names read as
    options: ``--config=x.yaml`` (x.yaml as the root configuration) and ``-ovictim.sh`` (the
    report written over the tracked victim.sh)."""
    repo = submissions_repo
    run_sh = repo / TARGET / "run.sh"
    text = run_sh.read_text(encoding="utf-8")
    assert text.count("--tp-size 8") == 1
    run_sh.write_text(text.replace("--tp-size 8", f"--tp-size 8 --hf-token {HF}"), encoding="utf-8")
    (repo / "x.yaml").write_text("ignore: [RED, TOP, IO, SUB, COV, PRS, FLG]\n", encoding="utf-8")
    (repo / "--config=x.yaml").write_text("a: 1\n", encoding="utf-8")
    (repo / "-ovictim.sh").write_text("echo hello\n", encoding="utf-8")
    (repo / "victim.sh").write_text("echo precious\n", encoding="utf-8")
    _git(repo, precommit_env, "add", "-A", "--", ".")
    return repo


def test_issue25_file_names_that_read_as_options_stay_file_names(injection_repo, precommit_env):
    """Issue 25, item 1: the hook ran `cfglint check --config=x.yaml -ovictim.sh ...` (pre-commit
    appends the staged names to the entry), so x.yaml became the root configuration (RED002
    gone, exit 0) and the report overwrote victim.sh. The hook's `args: ["--"]` ends the options:
    run with the hook definition as pre-commit really runs it, both names are files."""
    proc = try_repo(injection_repo, precommit_env)
    assert (injection_repo / "victim.sh").read_text(encoding="utf-8") == "echo precious\n"
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{TARGET.as_posix()}/run.sh:" in proc.stdout and "RED002 [error]" in proc.stdout
    assert HF[3:] not in proc.stdout + proc.stderr
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]
    assert hook["entry"] == "cfglint check" and hook["args"] == ["--"]


def _local_hook_config(repo: Path, args: list[str]) -> None:
    """A .pre-commit-config.yaml with the hook of .pre-commit-hooks.yaml as a local hook of this
    environment's cfglint (entry and files as the manifest has them) and the user's own ``args``
    (which replace the manifest's, as in any repository that sets them)."""
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]
    entry = hook["entry"].replace("cfglint", str(CFGLINT), 1)
    local = {"id": "cfglint", "name": "cfglint", "entry": entry, "language": "system",
             "files": hook["files"], "require_serial": True, "args": args}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}),
                                                   encoding="utf-8")


@pytest.mark.parametrize("args, code", [
    (["--fail-level", "error"], 2),          # the user's args without `--`: the name is refused
    (["--fail-level", "error", "--"], 1),    # ending them with `--`, as the README says: linted
])
def test_issue25_hook_with_the_users_own_args(injection_repo, precommit_env, args, code):
    """A repository that sets its own `args:` replaces the hook's `--`. pre-commit then runs
    `cfglint check --fail-level error --config=x.yaml -ovictim.sh ...`: cfglint refuses an
    argument that reads as an option and names an existing file (exit 2, one line), so neither
    the configuration nor the report can be redirected; args ending with `--` lint the files."""
    _local_hook_config(injection_repo, args)
    _git(injection_repo, precommit_env, "add", "-A", "--", ".")
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                          cwd=injection_repo, env=precommit_env, capture_output=True, text=True, timeout=600)
    print(proc.stdout, proc.stderr, sep="\n")
    assert proc.returncode == 1, proc.stdout + proc.stderr   # pre-commit's own code: the hook failed
    assert (injection_repo / "victim.sh").read_text(encoding="utf-8") == "echo precious\n"
    assert HF[3:] not in proc.stdout + proc.stderr
    if code == 2:
        errors = [line for line in proc.stdout.splitlines() if line.startswith("cfglint: error:")]
        assert errors == ["cfglint: error: '--config=x.yaml' is an option and also the name of a file: put `--` "
                          "before file names (cfglint check [OPTIONS] -- PATH ...) so that a file name is never "
                          "read as an option"], proc.stdout
        assert "- exit code: 2" in proc.stdout and "RED002" not in proc.stdout
    else:
        assert "- exit code: 1" in proc.stdout and "RED002 [error]" in proc.stdout
