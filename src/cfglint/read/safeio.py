"""Every file cfglint reads or writes goes through here: no link out of the linted tree is
followed, no FIFO or device is opened, every write is atomic.

Reading (:func:`read_bytes`): the path's real location (symbolic links resolved) must stay
inside ``within`` (a submission's directory, or the linted tree: the git working tree holding the
path, else the working directory or the directory named on the command line; see
:func:`linted_root`); it must be a regular
file (checked with ``stat`` before opening, so a FIFO never blocks and a device is never opened,
and again with ``fstat`` on the open descriptor); it is opened with ``O_NOFOLLOW | O_NONBLOCK``
and at most ``max_bytes`` + 1 bytes are read. A link that stays inside may be read.

Overlay (:func:`workspace`): inside such a block the text of an editor's unsaved buffer, or of
standard input (``cfglint check - --stdin-filename F``), takes the place of a file on disk for
every reader: :func:`read_bytes` returns it for a path whose real location is the buffer's, and
:func:`lexists` / :func:`isfile` count it as a file. Only paths inside the block's root (the
editor's workspace folder, the linted tree) can be overlaid, and every read of linted input
(``within`` given) must then lie inside that root: the language server never reads a
submission's file outside its workspace.

Writing (:func:`atomic_write`): the report (``-o``), a baseline (``--write-baseline``) and fixed
files (``--fix``) are written to a temporary file in the target's directory, then renamed over
the target (``os.replace``): a reader never sees half a file, and a symbolic link or hard link at
the target is replaced, never written through. A target that is a symbolic link, a directory or
not a regular file is refused, and so is a target whose directory is reached through a link that
leaves the tree it lies in (the git working tree, else the working directory): no directory is
created through one either (:func:`make_dirs`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import re
import stat
from typing import Iterable, Iterator

MAX_BYTES = 10 * 1024 * 1024  # a launch file, engine YAML or knowledge file is a few KiB


class ReadError(Exception):
    """The file is not read; ``str(err)`` says why in words fit for an IO001 finding or a
    one-line command-line error."""


# While a :func:`resolving` block runs: directory as named -> its real path (os.path.realpath)
_dirs: dict[str, str] | None = None
MAX_DIRS = 4096   # directories remembered in one block; past it the memo starts again (memory stays flat)


@contextlib.contextmanager
def resolving() -> Iterator[None]:
    """A block (loading one submission) in which :func:`real_path` resolves each directory once:
    a path's directories are taken as resolved at their first lookup in the block, its last
    name is checked again (``lstat``) at every lookup. Nested blocks share the outer one's memo;
    it is dropped when the outer block ends."""
    global _dirs
    if _dirs is not None:
        yield
        return
    _dirs = {}
    try:
        yield
    finally:
        _dirs = None


def real_path(path: str, directory: bool = False) -> str:
    """``os.path.realpath(path)`` (same answer). Inside a :func:`resolving` block, for an
    absolute normalized POSIX path, the real path of its directory is remembered (and of the
    path itself with ``directory``): the path's last name is looked at with ``lstat``, a link
    there is resolved by ``os.path.realpath``. Raises ValueError as ``os.path.realpath`` does."""
    memo = _dirs
    if memo is None or os.name != "posix" or not path.startswith("/") or path.startswith("//") \
            or path == "/" or path != posixpath.normpath(path):
        return os.path.realpath(path)
    if directory:
        got = memo.get(path)
        if got is None:
            got = _resolved(path, memo)
            _remember(memo, path, got)
        return got
    return _resolved(path, memo)


def _remember(memo: dict[str, str], path: str, real: str) -> None:
    if len(memo) >= MAX_DIRS:
        memo.clear()
    memo[path] = real


def _resolved(path: str, memo: dict[str, str]) -> str:
    """os.path.realpath of ``path`` (absolute, normalized, not ``/``) from the remembered real
    path of its directory: that joined with the last name when this is no link (realpath keeps a
    missing name as it is), else os.path.realpath of the whole path."""
    parent, name = path.rsplit("/", 1)
    if not parent:
        real_parent = "/"
    else:
        real_parent = memo.get(parent)
        if real_parent is None:
            real_parent = _resolved(parent, memo)
            _remember(memo, parent, real_parent)
    candidate = posixpath.join(real_parent, name)
    try:
        st = os.lstat(candidate)
    except OSError:   # missing, or below a link loop: os.path.realpath keeps the name as it is
        return candidate
    return os.path.realpath(path) if stat.S_ISLNK(st.st_mode) else candidate


def _real(path: str, directory: bool = False) -> str:
    """:func:`real_path` that raises ReadError (not ValueError) for a NUL byte or a lone
    surrogate in the path."""
    try:
        os.fsencode(path)
        if "\x00" in path:
            raise ValueError("NUL")
        return real_path(path, directory)
    except ValueError:
        raise ReadError("the path contains a NUL byte or an invalid character") from None


def inside(path: str, root: str) -> bool:
    """Whether real path ``path`` is ``root`` or below it (both already resolved)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def git_top(path: str) -> str | None:
    """The top directory of the git working tree holding ``path`` (found by its ``.git`` entry,
    walking up the path's names without resolving links), or None outside one."""
    try:
        d = os.path.abspath(path)
    except ValueError:
        return None
    if not os.path.isdir(d):
        d = os.path.dirname(d)
    while True:
        if os.path.lexists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def linted_root(path: str, fallback: str | None = None) -> str:
    """The tree a path named on the command line may read in: the git working tree holding it;
    outside one, the working directory when the path lies in it (by name), else ``fallback`` (the
    submission the path belongs to) or, without one, the path itself when it is a directory or
    its directory when it is a file."""
    top = git_top(path)
    if top is not None:
        return top
    a = os.path.abspath(path)
    cwd = os.getcwd()
    if inside(a, cwd):
        return cwd
    if fallback is not None:
        return fallback
    return a if os.path.isdir(a) else os.path.dirname(a)


class _Overlay:
    """The buffers of a :func:`workspace` block: real path -> bytes, all inside ``root``."""

    __slots__ = ("root", "buffers", "confine")

    def __init__(self, root: str, buffers: dict[str, bytes], confine: bool):
        self.root = root
        self.buffers = buffers
        self.confine = confine


_overlay: _Overlay | None = None


@contextlib.contextmanager
def workspace(root: str, buffers: "dict[str, bytes] | None" = None, confine: bool = True) -> Iterator[None]:
    """A block in which reads see ``buffers`` (path -> bytes: an editor's unsaved buffers,
    standard input) in place of the files at those paths, and in which (``confine``) every read
    of linted input (:func:`read_bytes` with ``within``) must really lie inside directory ``root``.

    A buffer's path is taken by its real location (links resolved, as :func:`read_bytes`
    resolves it); a buffer outside ``root`` is ignored (never read). Blocks do not nest: an
    inner block replaces the outer one until it ends. The bytes are used as given (a file of
    more than the reader's ``max_bytes`` is refused as on disk)."""
    global _overlay
    real_root = os.path.realpath(root)
    kept: dict[str, bytes] = {}
    for path, data in (buffers or {}).items():
        try:
            real = _real(os.path.abspath(path))
        except ReadError:
            continue
        if inside(real, real_root):
            kept[real] = data
    outer = _overlay
    _overlay = _Overlay(real_root, kept, confine)
    try:
        yield
    finally:
        _overlay = outer


def _buffer(path: str) -> bytes | None:
    """The overlaid bytes of ``path`` in the current :func:`workspace` block, or None."""
    ov = _overlay
    if ov is None or not ov.buffers:
        return None
    try:
        return ov.buffers.get(_real(os.path.abspath(path)))
    except (ReadError, ValueError):
        return None


def lexists(path: str) -> bool:
    """``os.path.lexists``, also true for a path overlaid by the current :func:`workspace` block
    (a buffer not saved to disk yet)."""
    return _buffer(path) is not None or os.path.lexists(path)


def isfile(path: str) -> bool:
    """``os.path.isfile``, also true for a path overlaid by the current :func:`workspace` block."""
    return _buffer(path) is not None or os.path.isfile(path)


def read_bytes(path: str, max_bytes: int = MAX_BYTES, within: str | None = None,
               within_name: str | None = None, partial: bool = False) -> bytes:
    """The bytes of regular file ``path`` (at most ``max_bytes``; with ``partial``, a longer
    file is no error: its first ``max_bytes`` + 1 bytes are returned).

    ``within``: a directory the file's real path must stay inside (``within_name`` is how
    messages name it). Raises ReadError: a link leading outside ``within``, a directory, a FIFO,
    socket or device, a file over ``max_bytes``, a missing or unreadable file, a NUL byte in the
    path, a file outside the :func:`workspace` root. Never blocks on a FIFO and never opens a
    device. In a :func:`workspace` block an overlaid path returns its buffer."""
    real = _real(path)
    if within is not None:
        root = _real(within, directory=True)
        if not inside(real, root):
            where = within_name or "the linted tree"
            how = "is a symbolic link" if os.path.islink(path) else "is reached through a symbolic link"
            raise ReadError(f"it {how} that leads outside {where}; cfglint does not follow links out "
                            f"of the submission or the working tree")
    ov = _overlay
    if ov is not None:
        if ov.confine and within is not None and not inside(real, ov.root):
            raise ReadError("it lies outside the workspace; the language server reads no file outside it")
        data = ov.buffers.get(real)
        if data is not None:   # an unsaved buffer or standard input, in place of the file
            if len(data) > max_bytes and not partial:
                raise ReadError(f"file is {len(data)} bytes, over the {max_bytes}-byte limit")
            return data[:max_bytes + 1] if partial else data
    try:
        st = os.stat(real)
        _check_regular(st.st_mode, max_bytes, 0 if partial else st.st_size)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | \
            getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(real, flags)
        try:
            st = os.fstat(fd)
            _check_regular(st.st_mode, max_bytes, 0 if partial else st.st_size)
            chunks, size = [], 0
            while size <= max_bytes:
                chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(fd)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise ReadError("it is a symbolic link loop, or changed into a link while being read") from None
        raise ReadError(f"cannot read file: {err.strerror or err}") from None
    data = b"".join(chunks)
    if len(data) > max_bytes and not partial:
        raise ReadError(f"file grew over the {max_bytes}-byte limit while being read")
    return data


def _check_regular(mode: int, max_bytes: int, size: int) -> None:
    if stat.S_ISDIR(mode):
        raise ReadError("is a directory, expected a file")
    if not stat.S_ISREG(mode):
        raise ReadError("not a regular file (FIFO, socket or device); it is not read")
    if size > max_bytes:
        raise ReadError(f"file is {size} bytes, over the {max_bytes}-byte limit")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse(path: str, code: int, why: str) -> OSError:
    return OSError(code, why, path)


def writable_place(directory: str, named: str | None = None) -> None:
    """Raise OSError (ELOOP, a one-line ``strerror``) when ``directory``, where cfglint is to write
    or create directories, is reached through a symbolic link that leaves the tree it lies in:
    the git working tree holding it; outside one, the working directory when ``directory`` lies
    in it by name (a submission tarball unpacked there may hold a link such as ``reports ->
    /etc``). The first existing directory on the way is what is resolved. A place named outside
    both is the user's own choice. ``named``: the path the error names (default ``directory``)."""
    d = os.path.abspath(directory)
    top, tree = git_top(d), "the working tree"
    if top is None:
        top, tree = os.getcwd(), "the working directory"
        if not inside(d, top):
            return
    existing = d
    while not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    if not inside(os.path.realpath(existing), os.path.realpath(top)):
        raise _refuse(named or directory, errno.ELOOP, f"its directory is reached through a symbolic link that "
                                                       f"leaves {tree}; cfglint does not write through links")


def make_dirs(directory: str, named: str | None = None) -> None:
    """``os.makedirs(directory, exist_ok=True)`` once :func:`writable_place` allows it: no
    directory is created through a link out of the tree. Raises OSError."""
    writable_place(directory, named)
    os.makedirs(directory, exist_ok=True)


def atomic_write(path: str, data: str | bytes | Iterable[str], make_parents: bool = False,
                 mode: int | None = None) -> None:
    """Replace (or create) regular file ``path`` with ``data`` atomically: a temporary file in
    the same directory, given the old file's permission bits (a new file: 0666 less the
    umask; ``mode``: these bits instead), then ``os.replace``. Text (a string, or pieces of one
    written as they come) is written as UTF-8 (a lone surrogate, which UTF-8 cannot
    hold, becomes U+FFFD). ``make_parents``: create missing directories first.

    Raises OSError (``strerror`` a one-line reason): ``path`` is a symbolic link, a directory or
    not a regular file; its directory is reached through a link leaving the git working tree
    that holds it, or outside one the working directory (:func:`writable_place`); or the write
    fails. The temporary file never outlives a failure."""
    if isinstance(data, str):
        data = _SURROGATE.sub("\ufffd", data).encode("utf-8")
    pieces = [data] if isinstance(data, bytes) else \
        (_SURROGATE.sub("\ufffd", piece).encode("utf-8") for piece in data)
    try:
        os.fsencode(path)
    except ValueError:
        raise _refuse(path, errno.EINVAL, "the path contains an invalid character") from None
    if "\x00" in path:
        raise _refuse(path, errno.EINVAL, "the path contains a NUL byte")
    target = os.path.abspath(path)
    parent = os.path.dirname(target)
    if make_parents:
        make_dirs(parent, path)
    else:
        writable_place(parent, path)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        pass
    else:
        if stat.S_ISLNK(st.st_mode):
            raise _refuse(path, errno.ELOOP, "is a symbolic link; cfglint does not write through links "
                                              "(write to the file itself, or remove the link)")
        if stat.S_ISDIR(st.st_mode):
            raise _refuse(path, errno.EISDIR, "is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, errno.EINVAL, "is not a regular file (FIFO, socket or device)")
        if mode is None:
            mode = stat.S_IMODE(st.st_mode)
    if mode is None:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    import tempfile  # only for writing; a lint run that writes nothing need not import it

    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            for piece in pieces:
                fh.write(piece)   # no fsync: the rename is what readers see; durability over a crash is not promised
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
