"""``--jobs N``: units linted in worker processes give the same report, byte for byte, as one
process; a worker that dies is an IO001 on its unit; a run keeps only the source lines its
findings point at."""

from __future__ import annotations

import faulthandler
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cfglint import lint
from cfglint.checks import all_rules
from cfglint.lint import MIN_POOL_UNITS, SourceLines, lint_paths
from cfglint.output import report

from support import EXAMPLES, copy_submission, replace_once

KIMI = "artificial-analysis/kimi-k3/b300-sglang-tp8"
GLM_EAGLE = "nvidia/glm-5.2/gb300-sglang-2x4-tp8-eagle6-maxreq16"
CRASHES = "recipes/vllm-deepseek-v3.2-h20-tp8-parsers"
FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit", "rdjson", "markdown")

pytestmark = pytest.mark.skipif(not lint._can_fork(), reason="worker processes are forked (Linux)")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Published submissions plus every kind of unit the run orders by its own state: an
    unlisted engine config and an unlisted launch file (SUB003), a directory of files in no
    submission (SUB004, and a non-serving script that still leaks a host path), a loose file
    given on its own, a link to an orphan given as a loose file (the same file twice), a
    credential (masked in messages and in the lines kept)."""
    root = tmp_path_factory.mktemp("jobs")
    subs = root / "subs"
    for d in sorted((EXAMPLES / "recipes").iterdir()):
        copy_submission(f"recipes/{d.name}", subs)
    copy_submission(KIMI, subs)
    glm = copy_submission(GLM_EAGLE, subs)
    replace_once(glm / "submission.yaml", "  configs: [ifb_config.yaml]\n", "")
    kimi2 = subs / "kimi2"
    shutil.copytree(EXAMPLES / KIMI, kimi2)
    run = (kimi2 / "run.sh").read_text()
    (kimi2 / "run_v2.sh").write_text(run.replace("--shm-size 32g", "--shm-size 32g -v /home/alice/hf:/root/.cache"))
    (kimi2 / "run.sh").write_text("export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n" + run)
    orphans = subs / "orphans"
    orphans.mkdir()
    (orphans / "run.sh").write_text(run)
    (orphans / "tools.sh").write_text("#!/bin/bash\ncp /home/alice/weights/config.json .\n")
    extra = root / "extra"
    extra.mkdir()
    (extra / "loose.sh").write_text(run.replace("--shm-size 32g", "--shm-size 32g -v /home/bob/w:/w"))
    os.symlink(orphans / "tools.sh", extra / "alias.sh")
    return root


def _paths(corpus: Path) -> list[str]:
    named = next((corpus / "subs" / "recipes").iterdir())
    return [str(corpus / "subs"), str(corpus / "extra" / "loose.sh"), str(corpus / "extra" / "alias.sh"),
            str(named), str(next(p for p in sorted(named.iterdir()) if p.name != "submission.yaml"))]


def _reports(result) -> dict[str, str]:
    """The four formats, as ``cfglint check`` writes them."""
    summary = report.summarize(result.findings, result.units)
    return {"text": report.text(result.findings, result.sources, summary),
            "json": report.as_json(result.findings, 1),
            "github": report.github(result.findings),
            "sarif": report.sarif(result.findings, all_rules(), result.sources, 1)}


@pytest.fixture
def crashing(monkeypatch, tmp_path):
    """One unit raises inside the lint (an IO001 internal error); every unit's process id is
    written to ``tmp_path`` (which processes linted them)."""
    real = lint._lint_unit

    def lint_unit(sub, kb, require_reason):
        (tmp_path / f"pid-{os.getpid()}").touch()
        if sub.display.endswith(CRASHES):
            raise RuntimeError("boom in a rule")
        return real(sub, kb, require_reason)

    monkeypatch.setattr(lint, "_lint_unit", lint_unit)
    return lambda: {int(p.name[4:]) for p in tmp_path.glob("pid-*")}


def test_a_large_run_with_one_job_lints_in_one_worker_with_the_same_report(corpus, crashing, monkeypatch):
    # from SEPARATE_UNITS units --jobs 1 lints in one worker process (the run's own process then
    # keeps only the results: flat memory); the report is that of the in-process run
    monkeypatch.chdir(corpus)
    paths = _paths(corpus)
    inprocess = lint_paths(paths, jobs=1)
    assert crashing() == {os.getpid()}
    monkeypatch.setattr(lint, "SEPARATE_UNITS", MIN_POOL_UNITS)
    separate = lint_paths(paths, jobs=1)
    assert len(crashing() - {os.getpid()}) == 1, "one worker process, not the run's own"
    assert inprocess.units == separate.units >= MIN_POOL_UNITS
    assert _reports(inprocess) == _reports(separate)


def test_workers_give_the_same_report_as_one_process_in_every_format(corpus, crashing, monkeypatch):
    monkeypatch.chdir(corpus)
    paths = _paths(corpus)
    one = lint_paths(paths, jobs=1)
    assert crashing() == {os.getpid()}
    many = lint_paths(paths, jobs=3)
    workers = crashing() - {os.getpid()}
    assert len(workers) >= 2, "the units were not linted in worker processes"
    assert one.units == many.units >= MIN_POOL_UNITS
    assert _reports(one) == _reports(many)
    ids = {f.rule_id for f in one.findings}
    assert {"SUB003", "SUB004", "RED001", "RED002", "IO001"} <= ids, ids
    crash = [f for f in one.findings if f.rule_id == "IO001" and f.internal]
    assert len(crash) == 1 and "RuntimeError: boom in a rule" in crash[0].message
    assert crash[0].span.path.endswith(CRASHES + "/submission.yaml")
    # one SUB004 for the directory; the orphan linted first through its link is not linted again
    assert sum(f.rule_id == "SUB004" for f in one.findings) == 1
    assert sum(f.rule_id == "RED001" and "/home/alice/weights" in f.message for f in one.findings) == 1
    assert any(f.span.path.endswith("loose.sh") for f in one.findings)


def test_cli_jobs_output_is_byte_identical(corpus, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CFGLINT_JOBS"}
    outs = {}
    for jobs in ("1", "3"):
        for fmt in FORMATS:
            proc = subprocess.run([sys.executable, "-m", "cfglint", "check", "--no-config", "-f", fmt, "--jobs", jobs,
                                   *[os.path.relpath(p, corpus) for p in _paths(corpus)]],
                                  cwd=corpus, capture_output=True, text=True, env=env, timeout=600)
            assert proc.returncode == 1, proc.stderr
            outs[jobs, fmt] = proc.stdout
    for fmt in FORMATS:
        assert outs["1", fmt] == outs["3", fmt], fmt
    assert "SUB003" in outs["1", "text"] and "SUB004" in outs["1", "text"]


def test_a_dead_worker_is_an_io001_on_its_unit_and_the_run_goes_on(corpus, monkeypatch):
    monkeypatch.chdir(corpus)
    parent = os.getpid()
    real = lint._lint_unit

    def lint_unit(sub, kb, require_reason):
        if sub.display.endswith(CRASHES):
            if os.getpid() != parent:
                faulthandler.disable()   # pytest's: no stack dump from the worker
                os.kill(os.getpid(), signal.SIGSEGV)   # a native crash, in a worker
            raise RuntimeError("stand-in")
        return real(sub, kb, require_reason)

    monkeypatch.setattr(lint, "_lint_unit", lint_unit)
    paths = _paths(corpus)
    one = lint_paths(paths, jobs=1)
    many = lint_paths(paths, jobs=2)
    dead = [f for f in many.findings if f.rule_id == "IO001" and f.internal]
    assert len(dead) == 1 and dead[0].span.path.endswith(CRASHES + "/submission.yaml")
    assert "the worker process checking it died (killed by signal SIGSEGV)" in dead[0].message
    assert dead[0].level == "error"

    def others(result):
        return [(f.rule_id, f.span, f.message) for f in result.findings if not f.internal]

    assert others(one) == others(many) and one.units == many.units


def test_sources_keep_only_the_lines_findings_point_at(corpus, monkeypatch):
    monkeypatch.chdir(corpus)
    paths = _paths(corpus)
    sparse = lint_paths(paths, jobs=1)
    monkeypatch.setattr(lint, "_needed_lines", lambda tf, findings, whole, first: tf.lines)
    full = lint_paths(paths, jobs=1)
    assert _reports(sparse) == _reports(full)   # every line a report shows or hashes is kept
    # every file a finding is placed in (a related span, such as SUB003's manifest file list
    # placed after the manifest's unit, shows no line in any format)
    pointed = {f.span.path for f in sparse.findings}
    assert pointed & set(full.sources) <= set(sparse.sources)
    assert len(sparse.sources) < len(full.sources)   # files no finding points into are not kept at all
    kept = sum(len(v.kept) for v in sparse.sources.values() if isinstance(v, SourceLines))
    assert kept < sum(map(len, full.sources.values())) / 5
    for path, lines in sparse.sources.items():
        assert path not in full.sources or len(lines) == len(full.sources[path])
    secret = next(f for f in sparse.findings if f.rule_id == "RED002")
    line = sparse.sources[secret.span.path][secret.span.line - 1]
    assert "hf_AbCd" not in line and line == full.sources[secret.span.path][secret.span.line - 1]


def test_fixable_files_keep_every_line_for_fix(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    replace_once(d / "run.sh", "--shm-size 32g", "--shm-size 32g -v /home/alice/hf:/root/.cache")
    result = lint_paths([str(d)])
    fixed = next(f for f in result.findings if f.fix is not None)
    assert isinstance(result.sources[fixed.span.path], list)
    assert result.sources[fixed.span.path] == result.files[fixed.span.path].lines


@pytest.mark.parametrize("value", ["0", "-2"])
def test_jobs_below_one_is_a_usage_error(value, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "cfglint", "check", "--jobs", value, str(EXAMPLES / KIMI)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "--jobs must be at least 1" in proc.stderr and "Traceback" not in proc.stderr


def test_jobs_config_key(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    cfg = tmp_path / "cfg.yaml"
    outs = []
    for text in ("jobs: 2\n", "jobs: 0\n", "jobs: many\n"):
        cfg.write_text(text)
        outs.append(subprocess.run([sys.executable, "-m", "cfglint", "check", "--config", str(cfg), str(d)],
                                   capture_output=True, text=True, timeout=120))
    assert outs[0].returncode in (0, 1) and "Traceback" not in outs[0].stderr
    for proc in outs[1:]:
        assert proc.returncode == 2 and "1:1: 'jobs' must be a positive number of worker processes" in proc.stderr


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (Linux /proc), transitively."""
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = {int(k) for k in (task / "children").read_text().split()}
            except OSError:
                continue
            todo += sorted(kids - out)
            out |= kids
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"   # a zombie has ended (in a container nobody may reap it)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
def test_killing_a_jobs_run_leaves_no_worker_running(tmp_path):
    """SIGKILL (or SIGTERM) to a --jobs run must not leave its pool workers and their shell
    parse workers waiting forever (they held the caller's stdout open, so a caller reading the
    output hung): each worker dies with the run."""
    import time

    for i in range(40):
        copy_submission(GLM_EAGLE, tmp_path / "subs" / f"s{i:02d}")
    proc = subprocess.Popen([sys.executable, "-m", "cfglint", "check", "--no-config", "--jobs", "2",
                             str(tmp_path / "subs")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: set[int] = set()
    deadline = time.monotonic() + 60
    while len(seen) < 2 and proc.poll() is None and time.monotonic() < deadline:
        seen |= _descendants(proc.pid)
        time.sleep(0.02)
    assert len(seen) >= 2, "the run started no worker processes"
    seen |= _descendants(proc.pid)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = sorted(p for p in seen if _alive(p))
    for p in left:   # do not leave them to the next test
        os.kill(p, signal.SIGKILL)
    assert not left, f"worker processes still running after the run was killed: {left}"


def test_no_pool_inside_a_daemonic_process_or_with_cfglint_no_fork(monkeypatch):
    """lint_paths(jobs=2) inside a multiprocessing pool's worker (which may not have children)
    and with CFGLINT_NO_FORK set runs everything in the calling process."""
    import multiprocessing

    assert lint._can_fork()
    monkeypatch.setenv("CFGLINT_NO_FORK", "1")
    assert not lint._can_fork()
    monkeypatch.delenv("CFGLINT_NO_FORK")
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(lint._can_fork) is False


@pytest.mark.parametrize("text,expected", [("max 100000\n", None), ("150000 100000\n", 2), ("200000 100000", 2),
                                           ("50000 100000", 1), ("garbage", None)])
def test_cgroup_cpu_quota_caps_the_default_jobs(tmp_path, text, expected):
    f = tmp_path / "cpu.max"
    f.write_text(text)
    assert lint._cgroup_cpu_quota(str(f)) == expected
    assert lint._cgroup_cpu_quota(str(tmp_path / "missing")) is None
