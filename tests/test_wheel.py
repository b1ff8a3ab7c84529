"""The distribution as a user gets it: `python -m build` makes the sdist and, from the sdist, the
wheel (so the sdist is complete enough to build from); the wheel, installed in a fresh virtualenv
and run outside the source tree, finds its knowledge (rules/ and schemas/ ship inside it: hatchling
force-include maps them to cfglint/rules and cfglint/schemas) and reports on the bundled examples
exactly what the source checkout reports.

One build and one virtualenv per module (about 25 s on 2 cores: the build backend and the
dependencies come from PyPI; the quick run keeps it). The README's documented install, `pipx install`
from the repository, runs in the deep run only (about 25 s more: pipx fetches pip for its shared
environment and builds the package again).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from support import DEEP

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "submissions"
# without PYTHONPATH: the installed wheel must import itself, not a source tree the caller points at
PIP_ENV = {k: v for k, v in dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1").items()
           if k != "PYTHONPATH"}
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
STEM = f"{PROJECT['name'].replace('-', '_')}-{PROJECT['version']}"   # cfglint_serving-0.1.0


def _run(cmd: list, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=PIP_ENV, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """{"sdist": ..., "wheel": ...}: `python -m build` (sdist first, the wheel built from it)."""
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", out, ROOT], cwd=out)
    sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    assert [p.name for p in sdists] == [f"{STEM}.tar.gz"], sorted(p.name for p in out.iterdir())
    assert [p.name for p in wheels] == [f"{STEM}-py3-none-any.whl"], sorted(p.name for p in out.iterdir())
    return {"sdist": sdists[0], "wheel": wheels[0]}


@pytest.fixture(scope="module")
def venv(dists, tmp_path_factory) -> Path:
    """A fresh virtualenv with the built wheel (and its dependencies) installed; its bin directory."""
    env = tmp_path_factory.mktemp("venv")
    # no pip of its own (ensurepip takes seconds): this venv's pip installs into it
    _run([sys.executable, "-m", "venv", "--without-pip", env], cwd=env)
    _run([sys.executable, "-m", "pip", "--python", env / "bin" / "python", "install", "-q", "--no-compile",
          dists["wheel"]], cwd=env)
    return env / "bin"


def _data_files(*dirs: str) -> set[str]:
    return {p.relative_to(ROOT).as_posix() for d in dirs for p in (ROOT / d).rglob("*") if p.is_file()}


def test_wheel_metadata_names_the_distribution_and_the_command(dists):
    with zipfile.ZipFile(dists["wheel"]) as whl:
        meta = Parser().parsestr(whl.read(f"{STEM}.dist-info/METADATA").decode())
        entry_points = whl.read(f"{STEM}.dist-info/entry_points.txt").decode()
    assert meta["Name"] == "cfglint-serving"
    assert meta["Requires-Python"] == ">=3.11"
    assert "cfglint = cfglint.cli:run" in entry_points


def test_wheel_ships_rules_and_schemas(dists):
    names = set(zipfile.ZipFile(dists["wheel"]).namelist())
    expected = {f"cfglint/{p}" for p in _data_files("rules", "schemas")}
    assert any(p.startswith("cfglint/rules/flags/") for p in expected)
    assert expected <= names, sorted(expected - names)


def test_sdist_ships_sources_and_knowledge(dists):
    with tarfile.open(dists["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    expected = _data_files("rules", "schemas", "src/cfglint") | {"README.md", "pyproject.toml", "action.yml"}
    expected = {p for p in expected if "__pycache__" not in p}
    assert expected <= names, sorted(expected - names)


def test_installed_wheel_uses_its_own_knowledge(venv, tmp_path):
    # The installed package, not the checkout, runs and reads rules/ and schemas/ from inside itself.
    where = _run([venv / "python", "-c",
                  "import cfglint, cfglint.knowledge as k; print(cfglint.__file__); "
                  "print(k.data_dir('rules')); print(k.data_dir('schemas'))"], cwd=tmp_path)
    module, rules, schemas = (Path(line).resolve() for line in where.stdout.splitlines())
    package = module.parent
    assert not package.is_relative_to(ROOT), package
    assert rules == package / "rules" and schemas == package / "schemas", (rules, schemas)


def test_installed_version_names_the_same_knowledge(venv, cfglint_exe, tmp_path):
    installed = _run([venv / "cfglint", "--version"], cwd=tmp_path).stdout
    source = _run([cfglint_exe, "--version"], cwd=tmp_path).stdout
    assert installed == source
    assert installed.startswith(f"cfglint {PROJECT['version']} (cfglint-serving)\nknowledge 20"), installed


def _findings(cfglint: Path, cwd: Path, env: dict | None = None) -> list[tuple]:
    proc = subprocess.run([str(cfglint), "check", str(EXAMPLES), "--format", "json"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), f"{cfglint} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    report = json.loads(proc.stdout)
    assert report["exit_code"] == proc.returncode
    return [(f["rule"], f["level"], f["path"], f["line"], f["column"], f["end_line"], f["end_column"], f["message"])
            for f in report["findings"]]


def test_installed_wheel_lints_the_examples_as_the_source_tree_does(venv, cfglint_exe, tmp_path):
    # Same absolute path argument and working directory, so the reported paths are comparable.
    installed = _findings(venv / "cfglint", tmp_path, PIP_ENV)
    source = _findings(cfglint_exe, tmp_path)
    assert installed == source
    assert {f[0] for f in installed} >= {"RED001", "TOP003", "COV001"}  # the examples' known findings


@pytest.mark.skipif(not DEEP, reason="deep run only (CI=true or CFGLINT_DEEP=1): pipx install from the repository, ~25 s")
def test_pipx_installs_from_the_repository(cfglint_exe, tmp_path):
    """The README's install: `pipx install` of the repository gives a `cfglint` command that
    reports on the examples what the checkout reports."""
    home = tmp_path / "pipx"
    env = dict(PIP_ENV, PIPX_HOME=str(home / "home"), PIPX_BIN_DIR=str(home / "bin"), PIPX_MAN_DIR=str(home / "man"))
    proc = subprocess.run([sys.executable, "-m", "pipx", "install", str(ROOT)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "installed package cfglint-serving" in proc.stdout, proc.stdout
    cfglint = home / "bin" / "cfglint"
    assert _findings(cfglint, tmp_path) == _findings(cfglint_exe, tmp_path)
