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
