"""The long-lived shell parse worker (src/cfglint/read/shell/worker.py): one worker per process for
many files, a crash in it costs only the file being parsed (IO001) and the next file starts a
new worker, a forked process never shares its parent's worker, and the worker exits when its
parent closes it or goes away.

The crash is made by monkeypatching ``parse.parse_bounded`` (what the worker calls per request)
before the worker is forked: production code has no crash hook.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from cfglint.lint import lint_paths
from cfglint.read import shell
from cfglint.read.shell import parse as in_process
from cfglint.read.shell import worker as shellworker

from support import copy_submission, position, replace_once

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
MARKER = "# cfglint-test: the parser worker dies on this file\n"
SCRIPT = "sglang serve --model-path moonshotai/Kimi-K3 --tp-size 8\n"


@pytest.fixture(autouse=True)
def fresh_worker(monkeypatch):
    """Each test starts without a worker and leaves none (a patched one must not outlive it)."""
    monkeypatch.delenv("CFGLINT_NO_FORK", raising=False)
    shellworker.close()
    yield
    shellworker.close()


@pytest.fixture
def forks(monkeypatch):
    """The number of os.fork calls made in this process during the test."""
    count = [0]
    real = os.fork

    def counting():
        count[0] += 1
        return real()

    monkeypatch.setattr(os, "fork", counting)
    return count


def _crash_on_marker(monkeypatch, how):
    real = in_process.parse_bounded

    def parse(text, path):
        if MARKER in text:
            how()
        return real(text, path)

    monkeypatch.setattr(in_process, "parse_bounded", parse)


def _segfault():
    import faulthandler

    faulthandler.disable()   # pytest's traceback dump would only add noise
    os.kill(os.getpid(), signal.SIGSEGV)


def _findings(root: Path):
    return [(f.rule_id, Path(f.span.path).relative_to(root).parts[0], Path(f.span.path).name,
             f.span.line, f.span.col, f.message) for f in lint_paths([str(root)]).findings if f.rule_id != "COV001"]


def _two_submissions(tmp_path: Path, marker: bool) -> tuple[Path, int, int]:
    """a/: the published submission, with the crash marker when ``marker``; b/: the same with
    --tp-size 4 on 8 GPUs (TOP002). Returns the root and the (line, col) of b's '4'."""
    a = copy_submission(KIMI_B300, tmp_path / "a")
    if marker:
        (a / "run.sh").write_text(MARKER + (a / "run.sh").read_text(encoding="utf-8"), encoding="utf-8")
    b = copy_submission(KIMI_B300, tmp_path / "b")
    replace_once(b / "run.sh", "--tp-size 8", "--tp-size 4")
    line, col = position((b / "run.sh").read_text(encoding="utf-8"), "--tp-size 4")
    return tmp_path, line, col + len("--tp-size ")


@pytest.mark.parametrize("how", [_segfault, lambda: os._exit(3), lambda: os.kill(os.getpid(), signal.SIGKILL)],
                         ids=["SIGSEGV", "exit", "SIGKILL"])
def test_a_worker_crash_is_io001_on_that_file_and_the_next_file_is_still_checked(tmp_path, monkeypatch, forks, how):
    _crash_on_marker(monkeypatch, how)
    root, line, col = _two_submissions(tmp_path, marker=True)
    found = _findings(root)
    io = [f for f in found if f[0] == "IO001"]
    assert [(f[1], f[2], f[3], f[4]) for f in io] == [("a", "run.sh", 1, 1)]
    assert "cannot parse" in io[0][5] and "the shell parser crashed (status" in io[0][5]
    top = [f for f in found if f[0] == "TOP002"]
    assert [(f[1], f[2], f[3], f[4]) for f in top] == [("b", "run.sh", line, col)]
    assert "8" in top[0][5] and "4" in top[0][5]
    assert forks[0] == 2   # the first worker, and one started after the crash for b's file


def test_control_without_the_marker_one_worker_and_no_io001(tmp_path, monkeypatch, forks):
    _crash_on_marker(monkeypatch, _segfault)
    root, line, col = _two_submissions(tmp_path, marker=False)
    found = _findings(root)
    assert not [f for f in found if f[0] == "IO001"]
    assert [(f[0], f[1], f[3], f[4]) for f in found if f[0] == "TOP002"] == [("TOP002", "b", line, col)]
    assert forks[0] == 1


def test_many_files_in_one_run_use_one_worker(tmp_path, monkeypatch, forks):
    for i in range(12):
        copy_submission(KIMI_B300, tmp_path / f"c{i}")
    parsed = []
    real = shellworker.parse

    def counting(text, path):
        parsed.append((path, shellworker.worker_pid()))
        return real(text, path)

    monkeypatch.setattr(shellworker, "parse", counting)
    lint_paths([str(tmp_path)])
    pid = shellworker.worker_pid()
    assert pid is not None and pid != os.getpid()
    assert len({p for p, _ in parsed}) >= 12
    assert forks[0] == 1
    assert {w for _, w in parsed[1:]} == {pid}   # every request after the first went to it


def test_a_forked_process_does_not_use_its_parents_worker():
    assert shell.parse_shell(SCRIPT, "x.sh").commands
    parent_worker = shellworker.worker_pid()
    read_fd, write_fd = os.pipe()
    go_r, go_w = os.pipe()
    child = os.fork()
    if child == 0:  # the child: report its own worker, then wait until told to leave
        try:
            os.close(read_fd)
            os.close(go_w)
            inherited = shellworker.worker_pid()
            words = [w.text for w in shell.parse_shell(SCRIPT, "x.sh").commands[0].words]
            os.write(write_fd, json.dumps([inherited, shellworker.worker_pid(), words]).encode())
            os.close(write_fd)
            os.read(go_r, 1)
            shellworker.close()
        finally:
            os._exit(0)
    os.close(write_fd)
    os.close(go_r)
    try:
        with os.fdopen(read_fd, "rb") as inp:
            inherited, own, words = json.loads(inp.read())
        assert inherited is None and own is not None and own != parent_worker
        assert words[:3] == ["sglang", "serve", "--model-path"]
        # the parent's worker still serves the parent ...
        assert shell.parse_shell(SCRIPT, "x.sh").commands and shellworker.worker_pid() == parent_worker
        # ... and exits on EOF when the parent closes it although the child still lives: the
        # child holds no copy of its request pipe
        status = shellworker.close()
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    finally:
        os.close(go_w)
        os.waitpid(child, 0)


def test_a_worker_owned_by_another_process_id_is_not_used():
    """Where at-fork handlers did not run: the owner's process id decides."""
    r, w = os.pipe()
    fake = shellworker._Worker(os.getpid(), w, r)
    fake.owner = os.getpid() + 1
    shellworker._worker = fake
    assert shell.parse_shell(SCRIPT, "x.sh").commands
    assert shellworker.worker_pid() not in (None, os.getpid())
    assert (fake.requests, fake.answers) == (-1, -1)   # our copies of its pipes are closed


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"   # exited, not reaped by init yet
    except FileNotFoundError:
        return True


def test_the_worker_exits_when_its_parent_closes_it():
    assert shell.parse_shell(SCRIPT, "x.sh").commands
    pid = shellworker.worker_pid()
    status = shellworker.close()
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0   # on EOF, not killed
    assert shellworker.worker_pid() is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert shell.parse_shell(SCRIPT, "x.sh").commands and shellworker.worker_pid() not in (None, pid)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_worker_exits_when_its_parent_goes_away():
    read_fd, write_fd = os.pipe()
    child = os.fork()
    if child == 0:  # starts a worker, then dies without closing it
        try:
            os.close(read_fd)
            shell.parse_shell(SCRIPT, "x.sh")
            os.write(write_fd, str(shellworker.worker_pid()).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as inp:
        worker = int(inp.read())
    os.waitpid(child, 0)
    deadline = time.monotonic() + 10
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _gone(worker)


def test_a_worker_that_died_between_files_does_not_cost_the_next_file():
    assert shell.parse_shell(SCRIPT, "x.sh").commands
    pid = shellworker.worker_pid()
    os.kill(pid, signal.SIGKILL)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)   # dead, left for parse_shell to notice and reap
    script = shell.parse_shell(SCRIPT, "x.sh")
    assert [w.text for w in script.commands[0].words][-1] == "8"
    assert shellworker.worker_pid() not in (None, pid)


def test_an_interrupted_exchange_is_not_read_by_the_next_file(monkeypatch):
    """Ctrl-C while waiting for an answer: the answer left in the pipe must not become the next
    file's parse."""
    assert shell.parse_shell("echo first\n", "a.sh").commands
    real = shellworker._receive
    calls = []

    def interrupted(fd, limit):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(fd, limit)

    monkeypatch.setattr(shellworker, "_receive", interrupted)
    with pytest.raises(KeyboardInterrupt):
        shell.parse_shell("echo stale\n", "b.sh")
    script = shell.parse_shell("echo fresh\n", "c.sh")
    assert [w.text for w in script.commands[0].words] == ["echo", "fresh"]
    assert script.commands[0].span.path == "c.sh"


def test_an_answer_over_the_bound_is_a_parser_crash_and_the_worker_is_replaced(monkeypatch):
    assert shell.parse_shell(SCRIPT, "x.sh").commands
    pid = shellworker.worker_pid()
    monkeypatch.setattr(shellworker, "ANSWER_BASE", 0)
    monkeypatch.setattr(shellworker, "ANSWER_PER_BYTE", 1)
    with pytest.raises(shell.ParserCrash, match="answer is too large"):
        shell.parse_shell(SCRIPT, "x.sh")
    monkeypatch.undo()
    assert shell.parse_shell(SCRIPT, "x.sh").commands and shellworker.worker_pid() not in (None, pid)


def test_a_chain_too_deep_is_a_parser_crash_and_the_worker_lives_on():
    """The RecursionError -> ParserCrash mapping is kept in the worker, with the raised limit
    (1,000 '&&' are read), and the worker is not replaced."""
    assert len(shell.parse_shell(" && ".join(["true"] * 1000) + "\n", "x.sh").commands) == 1000
    pid = shellworker.worker_pid()
    with pytest.raises(shell.ParserCrash, match="nest too deeply"):
        shell.parse_shell(" && ".join(["true"] * 70_000) + "\n", "x.sh")
    assert shell.parse_shell(SCRIPT, "x.sh").commands and shellworker.worker_pid() == pid


def test_without_fork_the_parse_runs_here(monkeypatch, forks):
    monkeypatch.setenv("CFGLINT_NO_FORK", "1")
    assert [w.text for w in shell.parse_shell(SCRIPT, "x.sh").commands[0].words][:2] == ["sglang", "serve"]
    assert forks[0] == 0 and shellworker.worker_pid() is None


def _parse_in_pool(text: str):
    words = [w.text for w in shell.parse_shell(text, "x.sh").commands[0].words]
    return os.getpid(), shellworker.worker_pid(), words


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_forked_pool_processes_each_use_their_own_worker_and_reap_it():
    """--jobs style: a pool of forked processes; each has its own worker, none uses the
    parent's, and every worker is gone (reaped, not a zombie) once the pool has shut down."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    assert shell.parse_shell(SCRIPT, "x.sh").commands
    parent_worker = shellworker.worker_pid()
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        results = list(pool.map(_parse_in_pool, [SCRIPT] * 8))
    assert all(words[:2] == ["sglang", "serve"] for _, _, words in results)
    by_process = {}
    for proc, worker, _ in results:
        by_process.setdefault(proc, set()).add(worker)
    assert all(len(workers) == 1 for workers in by_process.values())   # one worker per process
    workers = set().union(*by_process.values())
    assert parent_worker not in workers and None not in workers and len(workers) == len(by_process)
    assert [w for w in workers if Path(f"/proc/{w}").exists()] == []
    assert shellworker.worker_pid() == parent_worker and shell.parse_shell(SCRIPT, "x.sh").commands


def test_a_request_the_worker_never_read_is_sent_again_to_a_new_worker():
    """A broken request pipe (the worker gone before it read the request): the file is parsed
    by a new worker, not reported as a crash."""
    assert shell.parse_shell(SCRIPT, "x.sh").commands
    worker = shellworker._worker
    old = worker.pid
    r, w = os.pipe()
    os.close(r)
    os.close(worker.requests)
    worker.requests = w   # writing to it fails with EPIPE
    script = shell.parse_shell(SCRIPT, "x.sh")
    assert [w.text for w in script.commands[0].words][-1] == "8"
    assert shellworker.worker_pid() not in (None, old)
    with pytest.raises(ChildProcessError):
        os.waitpid(old, os.WNOHANG)   # the old worker was reaped
