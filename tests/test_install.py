"""The built wheel works on its own: rules/ and schemas/ ship inside it (hatchling
force-include maps them to cfglint/rules and cfglint/schemas), and an installed cfglint, run
outside the source tree, reports exactly what the source checkout reports.

One wheel and one virtualenv per module; dependencies come from PyPI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "submissions"
PIP_ENV = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")


def _run(cmd: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=PIP_ENV, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, ROOT], cwd=dist)
    (whl,) = dist.glob("cfglint_serving-*.whl")
    return whl


@pytest.fixture(scope="module")
def installed_cfglint(wheel, tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", venv], cwd=venv)
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel], cwd=venv)
    return venv / "bin" / "cfglint"


def test_wheel_ships_rules_and_schemas(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"cfglint/rules/{p.name}" for p in (ROOT / "rules").iterdir() if p.is_file()}
    expected |= {f"cfglint/schemas/{p.name}" for p in (ROOT / "schemas").iterdir() if p.is_file()}
    assert expected and expected <= names, sorted(expected - names)


def _findings(cfglint: Path, cwd: Path) -> list[tuple]:
    proc = subprocess.run([str(cfglint), "check", str(EXAMPLES), "--format", "json"], cwd=cwd,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), f"{cfglint} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    report = json.loads(proc.stdout)
    assert report["exit_code"] == proc.returncode
    return [(f["rule"], f["level"], f["path"], f["line"], f["column"], f["end_line"], f["end_column"], f["message"])
            for f in report["findings"]]


def test_installed_wheel_matches_source_tree(installed_cfglint, cfglint_exe, tmp_path):
    # The installed package, not the checkout, must be what runs.
    venv_python = installed_cfglint.parent / "python"
    where = _run([venv_python, "-c", "import cfglint; print(cfglint.__file__)"], cwd=tmp_path)
    package = Path(where.stdout.strip()).resolve().parent
    assert not package.is_relative_to(ROOT), package
    assert (package / "rules").is_dir() and (package / "schemas").is_dir(), sorted(p.name for p in package.iterdir())
    # Same absolute path argument and working directory, so the reported paths are comparable.
    installed = _findings(installed_cfglint, tmp_path)
    source = _findings(cfglint_exe, tmp_path)
    assert installed == source
