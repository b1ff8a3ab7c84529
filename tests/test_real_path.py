"""Issue 11 (load stage): safeio.real_path inside a resolving() block (each directory resolved
once while a submission loads) gives exactly os.path.realpath, links and loops included, so the
rule that no link out of the tree is followed is checked on the same real paths."""

from __future__ import annotations

import os

import pytest

from cfglint.read import safeio
from cfglint.read.safeio import real_path, resolving


def _layout(tmp_path):
    outside = tmp_path / "outside"
    sub = tmp_path / "repo" / "sub"
    (sub / "dir").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.sh").write_text("x")
    (sub / "run.sh").write_text("x")
    (sub / "dir" / "a.yaml").write_text("x")
    os.symlink(outside / "secret.sh", sub / "out.sh")            # a file link out
    os.symlink(outside, sub / "outdir")                          # a directory link out
    os.symlink("run.sh", sub / "in.sh")                          # a link inside
    os.symlink("dir", sub / "indir")                             # a directory link inside
    os.symlink("loop", sub / "loop")                             # a loop
    os.symlink("missing", sub / "dangling")                      # a dangling link
    os.symlink("../../outside", sub / "dir" / "up")              # a relative link out
    os.symlink("loop/../run.sh", sub / "viloop")                 # through a loop
    names = ["run.sh", "out.sh", "in.sh", "loop", "dangling", "nothere", "dir", "dir/a.yaml", "outdir",
             "outdir/secret.sh", "indir/a.yaml", "indir/../run.sh", "dir/up/secret.sh", "dir/up", "loop/x",
             "dangling/x", "run.sh/x", "viloop", "viloop/x", "./run.sh", "dir//a.yaml", "dir/"]
    return sub, [str(sub) + "/" + n for n in names]


def test_real_path_is_realpath_inside_and_outside_a_block(tmp_path):
    sub, paths = _layout(tmp_path)
    expected = [os.path.realpath(p) for p in paths]
    assert sum(not safeio.inside(r, os.path.realpath(sub)) for r in expected) >= 4  # links out
    assert [real_path(p) for p in paths] == expected
    with resolving():
        for _ in range(2):   # the second time from the memo
            assert [real_path(p) for p in paths] == expected
            assert [real_path(p, directory=True) for p in paths] == expected
            assert real_path(str(sub), directory=True) == os.path.realpath(sub)
        assert safeio._dirs
    assert safeio._dirs is None   # nothing kept after the block


def test_a_link_made_after_a_block_is_seen_by_the_next(tmp_path):
    """The memo lives for one block (one submission's load): a directory replaced by a link out
    afterwards is resolved again by the next load."""
    sub, _ = _layout(tmp_path)
    target = sub / "moved"
    target.mkdir()
    (target / "f.sh").write_text("x")
    with resolving():
        assert real_path(str(target / "f.sh")) == os.path.realpath(target / "f.sh")
    (target / "f.sh").unlink()
    target.rmdir()
    os.symlink(tmp_path / "outside", target)
    with resolving():
        got = real_path(str(target / "secret.sh"))
    assert got == os.path.realpath(target / "secret.sh") == str((tmp_path / "outside" / "secret.sh").resolve())


def test_memo_stays_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(safeio, "MAX_DIRS", 5)
    d = tmp_path
    for i in range(12):
        d = d / f"d{i}"
    d.mkdir(parents=True)
    with resolving():
        assert real_path(str(d / "f")) == os.path.realpath(d / "f")
        assert len(safeio._dirs) <= 5


@pytest.mark.parametrize("bad", ["/a/\x00b", "/a/\ud800b"])
def test_bad_names_raise_as_realpath_does(bad):
    with resolving():
        with pytest.raises(ValueError):
            real_path(bad)
        with pytest.raises(safeio.ReadError):
            safeio._real(bad)
