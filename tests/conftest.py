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
