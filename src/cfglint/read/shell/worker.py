"""One long-lived child process that parses shell text for this process (used by
:func:`cfglint.read.shell.parse_shell`).

Why a child: tree-sitter is native code, and under fuzzing it crashed (SIGSEGV) on rare inputs;
one bad file must cost that file (an IO001 finding), never the run. Why one child for many files:
a fork per file imported tree-sitter again (~12 ms) and paid a fork, about half of a large run's
time. The worker is forked lazily by the first parse, imports tree-sitter once, and then parses
one request at a time, each with a fresh ``tree_sitter.Parser`` (see :func:`.native.tree_of`) and with
``parse.CHILD_RECURSION_LIMIT`` Python frames allowed.

Protocol, over two pipes: a request is an 8-byte little-endian length and the pickle of
``(text, path)``; the answer is an 8-byte length and the pickle of the ``ShellScript`` or of the
``ParserCrash`` (a chain too deep to read). Sizes are bounded: a request at most
:data:`MAX_REQUEST` bytes (files are already capped by ``max-file-size``), an answer at most
:data:`ANSWER_BASE` + :data:`ANSWER_PER_BYTE` x the request's size (the evaluator's per-file
budgets bound what a file expands to; the worst measured was ~60 bytes of answer per byte).

Failures: when the worker dies during a request (a native crash, a kill, an unexpected error,
which makes it exit), the answer pipe reaches EOF and that file gets ``ParserCrash`` with the
worker's wait status, as the fork per file did; the next request starts a new worker. A worker
found dead between requests is restarted without blaming the next file.

Lifetime: the worker reads its requests until EOF, so it exits when its parent closes the pipe
(:func:`close`, run at exit) or goes away. Ctrl-C is left to the parent. A process forked from
the parent does not share the parent's worker: the worker is owned by the process id that
started it, and a fork's child forgets it (closing its copies of the pipes, so the parent's
worker still sees EOF when the parent goes) and starts its own on its first parse. A
multiprocessing child reaps its worker when it finishes (its atexit handlers do not run).
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
import time

MAX_REQUEST = 1 << 31                 # bytes of one pickled (text, path): far above max-file-size
ANSWER_BASE = 128 << 20               # bytes an answer may hold whatever the request ...
ANSWER_PER_BYTE = 64                  # ... plus this many per byte of the request
_HEADER = 8
_SIGKILL = 9   # fixed by POSIX; importing the signal module for it costs ~2 ms at every exit
_CLOSE_GRACE = 2.0                    # seconds an idle worker gets to exit on EOF before a kill


class _Worker:
    __slots__ = ("pid", "owner", "requests", "answers")

    def __init__(self, pid: int, requests: int, answers: int):
        self.pid = pid                # the worker's process id
        self.owner = os.getpid()      # the process that started it and alone may use it
        self.requests = requests      # write end of the request pipe
        self.answers = answers        # read end of the answer pipe


_worker: _Worker | None = None
_lock = threading.Lock()
_exit_hooks_for: int | None = None    # the process id whose exit handlers are registered


def parse(text: str, path: str):
    """The ``ShellScript`` of ``text`` (shown as ``path``), parsed in the worker.

    Raises ``ParserCrash`` when the worker dies on this input (or cannot be started), when
    the chain of commands is too deep to read, or when the request or answer is too large.
    """
    from .script import ParserCrash

    request = pickle.dumps((text, path), protocol=pickle.HIGHEST_PROTOCOL)
    if len(request) > MAX_REQUEST:
        raise ParserCrash(f"it is too large for the shell parser ({len(request)} bytes)")
    with _lock:
        worker = _live_worker()
        try:
            try:
                _send(worker.requests, request)
            except OSError:
                # the worker was gone before it read this request: not this file's doing
                _discard(worker)
                worker = _live_worker()
                _send(worker.requests, request)
            answer = _receive(worker.answers, ANSWER_BASE + ANSWER_PER_BYTE * len(request))
        except OSError:
            answer = None
        except BaseException:
            _discard(worker)   # an interrupted exchange leaves the pipes out of step
            raise
        if answer is None:     # EOF: the worker died on this request
            status = _discard(worker)
            raise ParserCrash(f"the shell parser crashed (status {status}); please report this file")
        if isinstance(answer, int):
            _discard(worker)
            raise ParserCrash(f"the shell parser's answer is too large ({answer} bytes)")
    result = _loads(answer)
    if isinstance(result, ParserCrash):
        raise result
    return result


def prestart() -> None:
    """Start this process's worker if it has none (:func:`cfglint.read.shell.prestart_parser`); never raises."""
    with _lock:
        try:
            _live_worker()
        except Exception:  # ParserCrash (fork failed): the first parse says so on its file
            pass


def worker_pid() -> int | None:
    """The process id of this process's live worker, or None (for tests and diagnostics)."""
    w = _worker
    return w.pid if w is not None and w.owner == os.getpid() else None


def close(kill: bool = False) -> int | None:
    """Close this process's worker: it exits on EOF (killed if it has not within
    ``_CLOSE_GRACE`` seconds) and is reaped; returns its wait status (0: it exited on EOF), or
    None when this process has no worker. The next parse starts a new one. ``kill``: kill it
    at once instead (it holds nothing to flush; for a process about to end)."""
    global _worker
    with _lock:
        w, _worker = _worker, None
        if w is None or w.owner != os.getpid():
            if w is not None:
                _close_fds(w)
            return None
        _close_fds(w)
        if kill:
            return _kill_and_reap(w.pid)
        deadline = time.monotonic() + _CLOSE_GRACE
        delay = 0.0005
        while True:
            try:
                pid, status = os.waitpid(w.pid, os.WNOHANG)
            except ChildProcessError:
                return None
            if pid:
                return status
            if time.monotonic() > deadline:
                return _kill_and_reap(w.pid)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)


# ---------------------------------------------------------------------------------------
# parent side

def _live_worker() -> _Worker:
    """This process's worker, started now if there is none, it has exited, or it belongs to
    the process this one was forked from."""
    global _worker
    w = _worker
    if w is not None and w.owner != os.getpid():
        _close_fds(w)          # the parent's: leave it running, drop our copies of its pipes
        w = _worker = None
    if w is not None:
        try:
            done, _ = os.waitpid(w.pid, os.WNOHANG)
        except ChildProcessError:
            done = w.pid
        if done:
            _close_fds(w)
            w = _worker = None
    if w is None:
        w = _worker = _start()
    return w


def _start() -> _Worker:
    from .script import ParserCrash

    _register_exit_hooks()
    fds: list[int] = []
    try:
        req_r, req_w = os.pipe()
        fds += (req_r, req_w)
        ans_r, ans_w = os.pipe()
        fds += (ans_r, ans_w)
        pid = os.fork()
    except OSError as err:
        for fd in fds:
            os.close(fd)
        raise ParserCrash(f"the shell parser could not be started ({err.strerror or err})") from None
    if pid == 0:
        try:
            _serve(req_r, ans_w)
        finally:
            os._exit(0)
    os.close(req_r)
    os.close(ans_w)
    return _Worker(pid, req_w, ans_r)


def _send(fd: int, data: bytes) -> None:
    _write_all(fd, len(data).to_bytes(_HEADER, "little"))
    _write_all(fd, data)


def _receive(fd: int, limit: int) -> bytes | int | None:
    """The answer's bytes; None at EOF (the worker died); its announced size when over ``limit``."""
    head = _read_exactly(fd, _HEADER)
    if head is None:
        return None
    size = int.from_bytes(head, "little")
    if size > limit:
        return size
    return _read_exactly(fd, size)


def _discard(w: _Worker) -> int:
    """Drop worker ``w`` (kill it if it still runs) and return its wait status."""
    global _worker
    if _worker is w:
        _worker = None
    _close_fds(w)
    return _kill_and_reap(w.pid)


def _kill_and_reap(pid: int) -> int:
    """Reap worker ``pid``, killed first if it still runs; its wait status (0 if another part of
    the program reaped it: then it is not signalled, its process id may be reused)."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        os.kill(pid, _SIGKILL)   # a worker already exiting keeps its own status
        return os.waitpid(pid, 0)[1]
    except (ChildProcessError, ProcessLookupError):
        return 0


def _close_fds(w: _Worker) -> None:
    for fd in (w.requests, w.answers):
        try:
            os.close(fd)
        except OSError:
            pass
    w.requests = w.answers = -1


def _after_fork_in_child() -> None:
    """A forked child does not share its parent's worker (nor its lock, possibly held)."""
    global _worker, _lock, _exit_hooks_for
    w, _worker = _worker, None
    if w is not None:
        _close_fds(w)
    _lock = threading.Lock()
    _exit_hooks_for = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _register_exit_hooks() -> None:
    """Reap the worker when this process exits: atexit, and in a multiprocessing child (which
    leaves by os._exit) a multiprocessing finalizer."""
    global _exit_hooks_for
    if _exit_hooks_for == os.getpid():
        return
    _exit_hooks_for = os.getpid()
    import atexit

    atexit.unregister(close)
    atexit.register(close)
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.parent_process() is not None:
        from multiprocessing import util

        util.Finalize(None, close, exitpriority=0)


def _loads(answer: bytes):
    """Unpickle an answer without collector passes over the objects being made (none of them
    is garbage yet)."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(answer)
    finally:
        if enabled:
            gc.enable()


# ---------------------------------------------------------------------------------------
# worker side

def _serve(requests: int, answers: int) -> None:
    """The worker's loop: never returns into the caller's code (the caller exits)."""
    import gc
    import signal

    from . import parse as here
    from .native import language
    from .script import ParserCrash

    gc.freeze()  # the parent's objects are never collected (or finalized) here
    # no automatic collections: a parse builds a large tree with few cycles, and the collector's
    # passes over it took ~45% of a big file's time; each request's cycles are collected after it
    gc.disable()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's; we end on EOF
    # hold none of the parent's files, pipes or sockets open beyond stdin, stdout and stderr
    keep = sorted({0, 1, 2, requests, answers})
    top = os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1 << 16
    for lo, hi in zip(keep, keep[1:] + [max(top, keep[-1] + 1)]):
        os.closerange(lo + 1, hi)
    sys.setrecursionlimit(here.CHILD_RECURSION_LIMIT)
    language()  # tree-sitter is imported once, here
    served = 0
    while True:
        head = _read_exactly(requests, _HEADER)
        if head is None:
            return  # the parent closed the pipe or went away
        size = int.from_bytes(head, "little")
        if size > MAX_REQUEST:
            return
        body = _read_exactly(requests, size)
        if body is None:
            return
        text, path = pickle.loads(body)
        try:
            result = here.parse_bounded(text, path)
        except ParserCrash as err:
            result = err
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            _send(answers, data)
        except OSError:
            return
        del result, text, body, data   # freed while the parent reads the answer
        served += 1
        gc.collect(1 if served % 256 else 2)   # what is left: this request's cycles, and few others


# ---------------------------------------------------------------------------------------
# both sides

def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exactly(fd: int, size: int) -> bytes | None:
    """``size`` bytes from ``fd``, or None at EOF before them."""
    if size <= 65536:
        first = os.read(fd, size)
        if len(first) == size:
            return first
        buf = bytearray(first)
        while len(buf) < size:
            chunk = os.read(fd, size - len(buf))
            if not chunk:
                return None
            buf += chunk
        return bytes(buf)
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        n = os.readv(fd, [view[got:]])
        if not n:
            return None
        got += n
    return buf
