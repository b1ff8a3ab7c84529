"""Test helpers: copy a published submission, change it in one place, lint it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from cfglint.lint import lint_paths

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "submissions"
# other people's files (published schemas, real public launches), beside the repository, never in it
SHARED = ROOT.parent / "shared"

# Deep runs (CI, or CFGLINT_DEEP=1 on a developer's machine) give the property tests and the fuzz
# test many more examples; a developer's default run keeps them small enough to run often.
def _on(name: str) -> bool:
    """An environment switch: set and not empty, 0, false or no."""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


DEEP = _on("CI") or _on("CFGLINT_DEEP")


# Cost-growth tests (tests/test_threat_*.py) lint input x and input 10x and compare CPU times.
# A linear path costs about 10x, a quadratic one about 100x; the bound sits below their geometric
# mean (31.6x), so a linear path passes on a loaded 2-core CI machine (a CI run measured 15.1x
# for the linear masking path against a bound of 12x) and a quadratic one still fails.
LINEAR_AT_10X = 30


def examples(quick: int, deep: int) -> int:
    """Hypothesis ``max_examples`` for a property: ``deep`` in a deep run (:data:`DEEP`), else ``quick``."""
    return deep if DEEP else quick


def copy_submission(rel: str, tmp_path: Path) -> Path:
    """Copy examples/submissions/<rel> to tmp_path/<rel>; returns the copy's directory."""
    dst = tmp_path / rel
    shutil.copytree(EXAMPLES / rel, dst)
    return dst


def replace_once(path: Path, old: str, new: str) -> int:
    """Replace the only occurrence of ``old`` in ``path``; returns its 1-based line number."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    return line


def changed_copy(tmp_path: Path, rel: str, old: str, new: str) -> Path:
    """A copy of the shared file ``rel`` (see :func:`shared`) in ``tmp_path``, its only ``old``
    replaced by ``new`` (the copy as it is when they are equal): a real file changed in one place."""
    src = shared(rel)
    out = tmp_path / src.name
    out.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    if old != new:
        replace_once(out, old, new)
    return out


def findings_of(path) -> list[tuple]:
    """(rule, line, level, message) of every finding cfglint reports on the file ``path``."""
    from cfglint.lint import lint_paths

    return [(f.rule_id, f.span.line, f.level, f.message) for f in lint_paths([str(path)]).findings]


def position(text: str, needle: str, occurrence: int = 1, after: bool = False) -> tuple[int, int]:
    """1-based (line, column) of ``needle``'s ``occurrence``-th appearance in ``text``: of its first
    character, or with ``after`` of the character just past it."""
    at = -1
    for _ in range(occurrence):
        at = text.index(needle, at + 1)
    if after:
        at += len(needle)
    return text[:at].count("\n") + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def lint(path: Path, coverage: bool = False):
    """Findings for one directory, as (rule, file name, line, col, message) tuples; the COV001
    coverage note only with ``coverage`` (tests/test_coverage.py asserts it)."""
    result = lint_paths([str(path)])
    return [(f.rule_id, Path(f.span.path).name, f.span.line, f.span.col, f.message) for f in result.findings
            if coverage or f.rule_id != "COV001"]


def only(findings, rule_id):
    return [f for f in findings if f[0] == rule_id]


def shared(rel: str) -> Path:
    """``../shared/<rel>`` (third-party files the tests read where they are); the calling test is
    skipped, saying so, when that directory is absent (a clone without ../shared)."""
    import pytest

    path = SHARED / rel
    if not path.exists():
        pytest.skip(f"{path} is absent: these third-party files are read from ../shared, never copied "
                    f"into the repository (a clone without ../shared skips this test)")
    return path

