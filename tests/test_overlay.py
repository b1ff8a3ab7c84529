"""read/safeio.py's overlay (the one place unsaved editor buffers and standard input reach the
readers): a buffer replaces its file for every reader, only inside the workspace root, and in a
confined block no linted file outside the root is read."""

from __future__ import annotations

import os

import pytest

from cfglint.lint import lint_paths
from cfglint.read import safeio
from support import copy_submission

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"


def test_a_buffer_replaces_its_file_for_the_whole_submission(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    run = d / "run.sh"
    on_disk = run.read_bytes()
    edited = on_disk.replace(b"--tp-size 8", b"--tp-size 4")
    before = {f.rule_id for f in lint_paths([str(run)]).findings}
    with safeio.workspace(str(tmp_path), {str(run): edited}):
        assert safeio.read_bytes(str(run), within=str(d)) == edited
        during = lint_paths([str(run)])
    assert {"TOP001", "TOP002"} <= {f.rule_id for f in during.findings} and not {"TOP001", "TOP002"} & before
    assert run.read_bytes() == on_disk and safeio.read_bytes(str(run)) == on_disk   # the block ended


def test_a_buffer_not_on_disk_exists_only_inside_the_block(tmp_path):
    path = str(tmp_path / "new.sh")
    with safeio.workspace(str(tmp_path), {path: b"sglang serve --tp 8\n"}):
        assert safeio.lexists(path) and safeio.isfile(path)
        assert safeio.read_bytes(path, within=str(tmp_path)) == b"sglang serve --tp 8\n"
    assert not safeio.lexists(path) and not safeio.isfile(path)


def test_buffers_outside_the_root_are_ignored_and_confined_reads_refused(tmp_path):
    inner, outer = tmp_path / "ws", tmp_path / "elsewhere"
    inner.mkdir()
    outer.mkdir()
    (outer / "run.sh").write_text("sglang serve\n")
    os.symlink(outer / "run.sh", inner / "link.sh")   # a link in the workspace leading out of it
    with safeio.workspace(str(inner), {str(outer / "run.sh"): b"other\n"}):
        assert safeio.read_bytes(str(outer / "run.sh")) == b"sglang serve\n"   # not overlaid
        for path in (outer / "run.sh", inner / "link.sh"):
            with pytest.raises(safeio.ReadError, match="outside the workspace"):
                safeio.read_bytes(str(path), within=str(tmp_path))
    with safeio.workspace(str(inner), confine=False):
        assert safeio.read_bytes(str(inner / "link.sh"), within=str(tmp_path)) == b"sglang serve\n"


def test_an_oversized_buffer_is_refused_as_a_file_is(tmp_path):
    path = str(tmp_path / "big.sh")
    with safeio.workspace(str(tmp_path), {path: b"x" * 11}):
        with pytest.raises(safeio.ReadError, match="11 bytes, over the 10-byte limit"):
            safeio.read_bytes(path, max_bytes=10)
        assert safeio.read_bytes(path, max_bytes=10, partial=True) == b"x" * 11
