"""Shared fixtures: the project root and the cfglint console script of the running venv."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def cfglint_exe() -> Path:
    """``cfglint`` installed next to the interpreter running the tests (``pip install -e .``)."""
    exe = Path(sys.executable).parent / "cfglint"
    if not exe.exists():
        pytest.fail(f"{exe} not found: install the project into this venv first (pip install -e '.[test]')")
    return exe


@pytest.fixture(scope="session", autouse=True)
def knowledge_cache_dir(tmp_path_factory):
    """The knowledge cache (cfglint.kbcache) of every test, in-process and in subprocesses, lives
    in a per-session temporary directory, never in the user's ~/.cache."""
    import os

    where = tmp_path_factory.mktemp("cfglint-cache")
    where.chmod(0o700)
    old = os.environ.get("CFGLINT_CACHE_DIR")
    os.environ["CFGLINT_CACHE_DIR"] = str(where)
    yield where
    if old is None:
        os.environ.pop("CFGLINT_CACHE_DIR", None)
    else:
        os.environ["CFGLINT_CACHE_DIR"] = old
