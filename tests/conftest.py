"""Shared fixtures: the project root and the cfglint console script of the running venv."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
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


# The knowledge cache (cfglint.knowledge.kbcache) of every test, in-process and in every cfglint the tests
# start (their environments are copies of os.environ, some made when a test module is imported),
# lives in a temporary directory of this session, never in the user's ~/.cache.
_CACHE_DIR = tempfile.mkdtemp(prefix="cfglint-test-cache-")   # mode 0700
os.environ["CFGLINT_CACHE_DIR"] = _CACHE_DIR


# The user's Hugging Face cache (cfglint.knowledge.hfcache) is never read by the tests: what a
# developer has downloaded must not change a finding. Tests of the reader pass their own cache.
os.environ["HF_HUB_CACHE"] = os.path.join(_CACHE_DIR, "no-hf-cache")


@pytest.fixture(scope="session", autouse=True)
def knowledge_cache_dir():
    yield Path(_CACHE_DIR)
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)
