"""Issue 10, kinds 5 (symbolic links and paths) and 8 (errors): cfglint never reads or writes
through a link that leaves the submission or the working tree, writes its outputs atomically,
and answers every broken input (FIFO, device, deep nesting, malformed baseline, odd path) with
exit 2 and one line, or an IO001 finding for a submission's file: never a traceback, never a
hang, never a lost finding.

Each test built from an example of the issue says which one in its docstring."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint.cli import main
from support import EXAMPLES, copy_submission, examples, replace_once

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
CFGLINT = Path(sys.executable).parent / "cfglint"
SENTINEL = "SENTINEL-outside-7f3a9c"
# the published run.sh changed in one place: a host path holding the sentinel (RED001, fixable)
HOST_MODEL = f"/home/alice/{SENTINEL}/Kimi-K3"
EXAMPLES_N = examples(25, 60)


def cli(*args: str, cwd: Path | None = None, command: str = "check") -> tuple[int, str]:
    """Run ``cfglint check ARGS`` (or another ``command``) in this process: (exit code, stdout +
    stderr). A Python exception inside cfglint fails the test (it would be a traceback)."""
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, [command, *args])
    finally:
        os.chdir(old)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"cfglint raised {type(result.exception).__name__}") from result.exception
    return result.exit_code, result.output


def docs(*args: str, cwd: Path) -> tuple[int, str]:
    """``cfglint docs ARGS`` in this process, as :func:`cli` runs ``check``."""
    return cli(*args, cwd=cwd, command="docs")


def run(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """``cfglint check ARGS`` as a separate process (a hang shows as TimeoutExpired)."""
    return subprocess.run([str(CFGLINT), "check", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


@contextlib.contextmanager
def no_hang(seconds: int = 20):
    """Fail (instead of hanging the test run) when the block takes over ``seconds``."""
    def expired(signum, frame):
        raise AssertionError(f"cfglint hung for {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def json_of(out: str) -> dict:
    """The JSON report in ``out`` (stdout and stderr together)."""
    return json.loads(out[out.index("{"): out.rindex("}") + 1])


def one_line_error(proc_or_output: str) -> str:
    lines = [line for line in proc_or_output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("cfglint: error: "), proc_or_output[:300]
    assert "Traceback" not in proc_or_output
    return lines[0]


def snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def repo_with_outside(tmp_path: Path) -> tuple[Path, Path]:
    """A git working tree holding the published Kimi K3 submission, and a directory outside it
    holding a copy of that run.sh with a host path (the sentinel) instead of the model id."""
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / ".git").mkdir(parents=True)
    outside.mkdir()
    copy_submission(KIMI_B300, repo / "submissions")
    text = (EXAMPLES / KIMI_B300 / "run.sh").read_text(encoding="utf-8")
    assert text.count("moonshotai/Kimi-K3") == 1
    (outside / "run.sh").write_text(text.replace("moonshotai/Kimi-K3", HOST_MODEL), encoding="utf-8")
    manifest = (EXAMPLES / KIMI_B300 / "submission.yaml").read_text(encoding="utf-8")
    assert manifest.count("model: moonshotai/Kimi-K3") == 1
    (outside / "submission.yaml").write_text(manifest.replace("model: moonshotai/Kimi-K3", f"model: {SENTINEL}/x"),
                                             encoding="utf-8")
    return repo, outside


# ---- kind 5: links ------------------------------------------------------------------------------

def test_issue10_kind5_manifest_symlinked_out_of_the_repository_is_not_read_nor_fixed(tmp_path):
    """Issue 10, kind 5: 'a submission.yaml that is a symlink out of the repository is read (its
    content echoed in messages) and --fix writes through it'."""
    repo, outside = repo_with_outside(tmp_path)
    sub = repo / "submissions" / KIMI_B300
    (outside / "submission.yaml").write_text((outside / "submission.yaml").read_text() + f"notes: {HOST_MODEL}\n")
    os.remove(sub / "submission.yaml")
    os.symlink(outside / "submission.yaml", sub / "submission.yaml")
    before = snapshot(outside / "submission.yaml")
    for fmt in ("text", "json", "github", "sarif"):
        code, out = cli("submissions", "--fix", "-f", fmt, cwd=repo)
        assert code == 1 and SENTINEL not in out
        assert "submission.yaml" in out and "symbolic link that leads outside the submission directory" in out
    assert snapshot(outside / "submission.yaml") == before
    code, out = cli("submissions", "-f", "json", cwd=repo)
    found = json_of(out)["findings"]
    io = [f for f in found if f["rule"] == "IO001"]
    assert [(f["path"], f["line"], f["column"]) for f in io] == [(f"submissions/{KIMI_B300}/submission.yaml", 1, 1)]


def test_issue10_kind5_symlinked_file_named_on_the_command_line_is_not_read_nor_fixed(tmp_path):
    """Issue 10, kind 5: 'a symlinked file named on the command line is read and fixed'."""
    repo, outside = repo_with_outside(tmp_path)
    os.symlink(outside / "run.sh", repo / "serve.sh")
    before = snapshot(outside / "run.sh")
    code, out = cli("serve.sh", "--fix", cwd=repo)
    assert SENTINEL not in out and code == 1
    assert "serve.sh:1:1: IO001" in out and "symbolic link that leads outside the working tree" in out
    assert snapshot(outside / "run.sh") == before
    # the same without a git working tree: the directory named on the command line is the limit
    shutil.rmtree(repo / ".git")
    code, out = cli("serve.sh", "--fix", cwd=repo)
    assert SENTINEL not in out and "leads outside the linted directory" in out
    assert snapshot(outside / "run.sh") == before


def test_issue10_kind5_launch_file_named_in_the_manifest_linked_out_is_not_read(tmp_path):
    """Issue 10, kind 5 (a file of the submission that is a link out): never read, reported."""
    repo, outside = repo_with_outside(tmp_path)
    sub = repo / "submissions" / KIMI_B300
    os.remove(sub / "run.sh")
    os.symlink(outside / "run.sh", sub / "run.sh")
    before = snapshot(outside / "run.sh")
    code, out = cli(str(sub / "run.sh"), str(sub), "--fix", cwd=repo)
    assert SENTINEL not in out and code == 1
    assert snapshot(outside / "run.sh") == before


def test_issue10_kind5_submission_directory_linked_out_of_the_working_tree_is_not_read(tmp_path):
    """Issue 10, kind 5: a committed directory link that leaves the working tree."""
    repo, outside = repo_with_outside(tmp_path)
    shutil.copy(EXAMPLES / KIMI_B300 / "submission.yaml", outside / "submission.yaml")
    os.symlink(outside, repo / "submissions" / "linked")
    code, out = cli("submissions/linked", cwd=repo)
    assert SENTINEL not in out and code == 1
    assert "submissions/linked/submission.yaml:1:1: IO001" in out and "leads outside the working tree" in out


@pytest.mark.parametrize("option", ["-o", "--write-baseline"])
def test_issue10_kind5_output_and_baseline_do_not_overwrite_the_target_of_a_committed_symlink(tmp_path, option):
    """Issue 10, kind 5: '-o and --write-baseline overwrite the target of a committed symlink'."""
    repo, outside = repo_with_outside(tmp_path)
    victim = outside / "victim.txt"
    victim.write_text("precious\n")
    os.symlink(victim, repo / "report.sarif")
    before = snapshot(victim)
    code, out = cli("submissions", option, "report.sarif", cwd=repo)
    assert code == 2 and "is a symbolic link" in one_line_error(out)
    assert snapshot(victim) == before and (repo / "report.sarif").is_symlink()
    # a committed directory link that leaves the working tree
    os.symlink(outside, repo / "reports")
    code, out = cli("submissions", option, "reports/new/cfglint.json", cwd=repo)
    assert code == 2 and "leaves the working tree" in one_line_error(out)
    assert sorted(p.name for p in outside.iterdir()) == ["run.sh", "submission.yaml", "victim.txt"]


@pytest.mark.parametrize("option", ["-o", "--write-baseline"])
def test_issue25_outputs_do_not_go_through_a_directory_link_outside_a_git_tree(tmp_path, option):
    """Issue 25, item 6: with no git working tree (a submission tarball unpacked in the working
    directory), -o and --write-baseline wrote through a linked directory (reports -> outside)."""
    repo, outside = repo_with_outside(tmp_path)
    shutil.rmtree(repo / ".git")
    os.symlink(outside, repo / "reports")
    listed = sorted(outside.rglob("*"))
    for target in ("reports/cfglint.json", "reports/new/cfglint.json"):
        code, out = cli("submissions", option, target, "-f", "json", cwd=repo)
        assert code == 2 and one_line_error(out) == (
            f"cfglint: error: cannot write {target}: its directory is reached through a symbolic link that leaves "
            "the working directory; cfglint does not write through links")
    assert sorted(outside.rglob("*")) == listed
    # the control: a real directory in the tree, and a place named outside the working directory
    (repo / "out").mkdir()
    assert cli("submissions", option, "out/cfglint.json", cwd=repo)[0] == 0 and (repo / "out" / "cfglint.json").is_file()
    assert cli("submissions", option, str(outside / "mine.json"), cwd=repo)[0] == 0


@pytest.mark.parametrize("git", [True, False])
def test_issue25_docs_creates_no_directory_through_a_link(tmp_path, git):
    """Issue 25, item 12: `cfglint docs DIR` created DIR's missing directories through a link
    out of the tree (docs -> outside) before refusing to write the pages."""
    repo, outside = repo_with_outside(tmp_path)
    if not git:
        shutil.rmtree(repo / ".git")
    os.symlink(outside, repo / "docs")
    listed = sorted(outside.rglob("*"))
    code, out = docs("docs/new/rules", cwd=repo)
    assert code == 2 and "cannot write rule pages into docs/new/rules: its directory is reached through a symbolic " \
        "link that leaves the working" in one_line_error(out)
    assert sorted(outside.rglob("*")) == listed
    assert docs("rules", cwd=repo)[0] == 0 and (repo / "rules" / "RED002.md").is_file()   # the control


@pytest.mark.parametrize("name", [".cfglint.yaml", "pyproject.toml"])
def test_configuration_linked_out_of_the_working_tree_is_not_read(tmp_path, name):
    """Kind 5: a contributor's configuration link out of the tree is refused, not read."""
    repo, outside = repo_with_outside(tmp_path)
    (outside / name).write_text(f"[tool.cfglint]\n{SENTINEL} = 1\n" if name.endswith("toml") else f"{SENTINEL}: 1\n")
    os.symlink(outside / name, repo / name)
    code, out = cli("submissions", cwd=repo)
    assert code == 2 and "symbolic link that leads outside the working tree" in one_line_error(out)
    assert SENTINEL not in out


@pytest.mark.parametrize("entry", ["../outside/k.yaml", "linked.yaml", "{outside}/k.yaml"])
def test_configuration_knowledge_file_out_of_the_working_tree_is_not_read(tmp_path, entry):
    """Kind 5: a knowledge file the configuration names must lie inside the working tree."""
    repo, outside = repo_with_outside(tmp_path)
    (outside / "k.yaml").write_text(f"models: [{{id: {SENTINEL}, family: [x]}}]\n")
    os.symlink(outside / "k.yaml", repo / "linked.yaml")
    (repo / ".cfglint.yaml").write_text(f"knowledge: ['{entry.format(outside=outside)}']\n")
    code, out = cli("submissions", cwd=repo)
    assert code == 2 and "lies outside the working tree" in one_line_error(out) and SENTINEL not in out
    (repo / "k.yaml").write_text("models: [{id: lab/model, family: kimi}]\n")
    (repo / ".cfglint.yaml").write_text("knowledge: [k.yaml]\n")
    assert cli("submissions", cwd=repo)[0] == 0


def test_output_to_a_device_or_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    for target in (str(tmp_path / "pipe"), os.devnull):
        code, out = cli(str(EXAMPLES / KIMI_B300), "-o", target)
        assert code == 2 and "not a regular file" in one_line_error(out)


def test_links_that_stay_inside_are_read(tmp_path):
    """A link inside the submission (manifest and launch file) is followed: same findings as
    without the links."""
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4")
    want = cli(str(d), "-f", "json")
    os.rename(d / "submission.yaml", d / "manifest.yaml")
    os.symlink("manifest.yaml", d / "submission.yaml")
    os.rename(d / "run.sh", d / "real-run.sh")
    os.symlink("real-run.sh", d / "run.sh")
    got = cli(str(d), "-f", "json")
    rules = lambda r: sorted(f["rule"] for f in json_of(r[1])["findings"])  # noqa: E731
    assert want[0] == got[0] == 1 and rules(want) == rules(got) and "TOP001" in rules(got)
    assert "IO001" not in rules(got)


def test_fix_skips_a_link_inside_with_a_note_and_writes_real_files_atomically(tmp_path):
    """--fix never writes through a link (even one that stays inside); a real file is replaced
    atomically: same permission bits, no temporary file left, other bytes unchanged."""
    real = tmp_path / "real.sh"
    real.write_text("#!/bin/sh\nsglang serve --model-path /home/alice/m --tp-size 8  # keep\n")
    os.chmod(real, 0o751)
    os.symlink("real.sh", tmp_path / "link.sh")
    before = snapshot(real)
    code, out = cli(str(tmp_path / "link.sh"), "--fix")
    assert "link.sh:1:1: IO001 [warning] not fixed: " in out and "is a symbolic link" in out
    assert snapshot(real) == before
    code, out = cli(str(real), "--fix")
    assert real.read_text() == "#!/bin/sh\nsglang serve --model-path <host-path> --tp-size 8  # keep\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.sh", "real.sh"]


# ---- kind 8: errors -----------------------------------------------------------------------------

def test_issue10_kind8_lone_surrogate_in_a_manifest_path_with_output_file(tmp_path):
    """Issue 10, kind 8: 'a lone surrogate in a manifest path with -o' gave a traceback."""
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", "  - run.sh\n", '  - run.sh\n  - "x\\uDC80.sh"\n  - "y\\uD800.sh"\n')
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4")
    for fmt in ("text", "json", "sarif", "github"):
        out = tmp_path / f"report.{fmt}"
        code, msg = cli(str(d), "-f", fmt, "-o", str(out))
        assert code == 1 and "Traceback" not in msg
        body = out.read_text(encoding="utf-8")           # valid UTF-8
        assert "TOP001" in body and body.count("SUB002") >= 2 and "internal error" not in body
        if fmt in ("json", "sarif"):
            json.loads(body)


def test_issue10_kind8_nul_byte_in_a_manifest_path_keeps_every_other_finding(tmp_path):
    """Issue 10, kind 8: 'a NUL byte in a manifest path turns into an internal error that drops
    every other finding'."""
    d = copy_submission(KIMI_B300, tmp_path)
    line = replace_once(d / "submission.yaml", "  - run.sh\n", '  - run.sh\n  - "x\\0.sh"\n') + 1
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4")
    code, out = cli(str(d), "-f", "json")
    found = json_of(out)["findings"]
    assert code == 1 and not any("internal error" in f["message"] for f in found)
    sub002 = [f for f in found if f["rule"] == "SUB002"]
    assert [(f["line"], f["column"]) for f in sub002] == [(line, 5)]
    assert "NUL byte" in sub002[0]["message"] and "\x00" not in sub002[0]["message"]
    assert "TOP001" in {f["rule"] for f in found}


def test_issue10_kind8_deeply_nested_pyproject(tmp_path):
    """Issue 10, kind 8: 'a deeply nested pyproject.toml' gave a traceback with exit 1."""
    d = copy_submission(KIMI_B300, tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.cfglint]\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    code, out = cli(str(d))
    assert code == 2 and "nesting is too deep" in one_line_error(out)


@pytest.mark.parametrize("device", ["/dev/urandom", "/dev/zero"])
def test_issue10_kind8_device_as_knowledge_file(tmp_path, device):
    """Issue 10, kind 8: '--knowledge /dev/urandom' gave a traceback."""
    with no_hang():
        code, out = cli(str(EXAMPLES / KIMI_B300), "--knowledge", device)
    assert code == 2 and "not a regular file" in one_line_error(out)


def test_issue10_kind8_deep_knowledge_yaml(tmp_path):
    """Issue 10, kind 8: 'a deep knowledge YAML' gave a traceback."""
    for text in ("models: " + "[" * 5000 + "]" * 5000, "models:\n" + "".join("  " * i + "- a:\n" for i in range(3000))):
        (tmp_path / "k.yaml").write_text(text)
        code, out = cli(str(EXAMPLES / KIMI_B300), "--knowledge", str(tmp_path / "k.yaml"))
        assert code == 2 and "k.yaml" in one_line_error(out)


@pytest.mark.parametrize("option", ["--knowledge", "--baseline", "--config"])
def test_issue10_kind8_fifo_does_not_hang(tmp_path, option):
    """Issue 10, kind 8: 'a FIFO as a knowledge file hangs' (also as baseline and config)."""
    os.mkfifo(tmp_path / "pipe.yaml")
    if option == "--knowledge":  # the issue's example, as a separate process
        proc = run(str(EXAMPLES / KIMI_B300), option, "pipe.yaml", cwd=tmp_path, timeout=30)
        assert proc.returncode == 2 and "not a regular file" in one_line_error(proc.stderr)
        return
    with no_hang():
        code, out = cli(str(EXAMPLES / KIMI_B300), option, str(tmp_path / "pipe.yaml"))
    assert code == 2 and "not a regular file" in one_line_error(out)


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "gitlab", "junit", "rdjson"])
def test_issue25_kind11_a_fifo_found_by_discovery_is_a_finding(tmp_path, fmt):
    """Issue 25, item 11: a FIFO in a submission that its manifest does not name (`.env`,
    `extra.sh`), or among loose files, was skipped with no finding. Each is an IO001 at the
    file, in every format, and the run does not block on it."""
    d = copy_submission(KIMI_B300, tmp_path / "repo")
    (tmp_path / "repo" / ".git").mkdir()
    os.mkfifo(d / ".env")
    os.mkfifo(d / "extra.sh")
    (tmp_path / "repo" / "loose").mkdir()
    os.mkfifo(tmp_path / "repo" / "loose" / "x.yaml")
    with no_hang():
        code, out = cli(".", "-f", fmt, cwd=tmp_path / "repo")
    assert code == 1
    with no_hang():
        found = json_of(cli(".", "-f", "json", cwd=tmp_path / "repo")[1])["findings"]
    where = sorted((f["path"], f["line"], f["column"]) for f in found if f["rule"] == "IO001")
    rel = d.relative_to(tmp_path / "repo").as_posix()
    assert where == sorted([("loose/x.yaml", 1, 1), (f"{rel}/.env", 1, 1), (f"{rel}/extra.sh", 1, 1)])
    for path, *_ in where:
        assert path in out, (fmt, path)


def test_fifo_or_device_link_in_a_submission_is_an_io_finding(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    os.remove(d / "run.sh")
    os.mkfifo(d / "run.sh")
    with no_hang():
        code, out = cli(str(d), "--fix")
    assert code == 1 and "IO001" in out and "not a regular file" in out


FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit", "rdjson")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full (a device whose writes fail with ENOSPC)")
# (a clean run in the github format writes nothing: there is no report to lose)
@pytest.mark.parametrize("args", [[f, "-f", fmt] for f in ("clean", "findings") for fmt in FORMATS
                                  if (f, fmt) != ("clean", "github")]
                         + [["rules"], ["docs"], ["rule", "RED002"], ["--version"]],
                         ids=lambda a: "-".join(a))
def test_issue25_kind8_a_report_that_cannot_be_written_is_exit_2_with_one_line(tmp_path, args):
    """Issue 25, item 8: a report that cannot be written (disk full: standard output on
    /dev/full) gave a traceback and exit 1, and a clean run exit 0 without its report. Now:
    exit 2 and one line, in every format and command."""
    if args[0] in ("clean", "findings"):
        d = copy_submission(KIMI_B300, tmp_path)
        if args[0] == "findings":
            replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4")
        args = ["check", str(d), *args[1:]]
    with open("/dev/full", "w") as full:   # the test opens the device; cfglint only inherits it
        proc = subprocess.run([str(CFGLINT), *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines[-1] == "cfglint: error: cannot write to standard output: No space left on device", proc.stderr
    assert len(lines) == 1, proc.stderr


@pytest.mark.parametrize("option", ["-o", "--write-baseline"])
@pytest.mark.parametrize("findings", [False, True])
def test_issue25_kind8_a_full_disk_under_an_output_file_is_exit_2_with_one_line(tmp_path, monkeypatch, option,
                                                                               findings):
    """Item 8 for -o and --write-baseline: the file's write fails with ENOSPC (simulated): one
    line, exit 2, clean run or not, and no temporary file left behind."""
    import errno

    import cfglint.read.safeio as safeio

    d = copy_submission(KIMI_B300, tmp_path / "s")
    if findings:
        replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4")
    real = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    monkeypatch.setattr(safeio.os, "fdopen", lambda fd, *a, **k: Full(real(fd, *a, **k)))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    for fmt in FORMATS if option == "-o" else ("text",):
        code, out = cli(str(d), option, str(out_dir / "report"), "-f", fmt)
        assert code == 2 and one_line_error(out) == (f"cfglint: error: cannot write {out_dir / 'report'}: "
                                                     "No space left on device"), fmt
    assert list(out_dir.iterdir()) == []


@pytest.mark.parametrize("content, why", [
    ('{"cfglint-baseline": 1, "findings": 5}', "'findings' must be a list"),
    ('{"cfglint-baseline": 1, "findings": [{"fingerprint": [1]}]}', "findings[0] must be"),
    ('{"cfglint-baseline": 1, "findings": ["x"]}', "findings[0] must be"),
    ("[" * 100_000 + "]" * 100_000, "nesting is too deep"),
    ("[1, 2]", "not a cfglint baseline"),
    ('{"cfglint-baseline": 1, "findings": [}', "Expecting value"),
    ("\udcff", "not UTF-8"),
])
def test_issue10_kind8_malformed_baseline(tmp_path, content, why):
    """Issue 10, kind 8: 'a malformed baseline' gave a traceback with exit 1."""
    (tmp_path / "b.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    code, out = cli(str(EXAMPLES / KIMI_B300), "--baseline", str(tmp_path / "b.json"))
    assert code == 2 and why in one_line_error(out)


@pytest.mark.parametrize("name, content, why", [
    (".cfglint.yaml", b"select: [\xff]\n", "invalid UTF-8"),
    # a YAML configuration nested too deep or an alias bomb were exit 2 already (yamlsrc): a
    # self-referencing alias is the cheap case left
    (".cfglint.yaml", b"select: &a [RED001, *a]\n", "YAML alias inside the node it names"),
    ("pyproject.toml", b"[tool.cfglint]\nselect = [\"\xff\"]\n", "invalid UTF-8"),
])
def test_broken_configuration_is_one_line(tmp_path, name, content, why):
    (tmp_path / name).write_bytes(content)
    d = copy_submission(KIMI_B300, tmp_path)
    code, out = cli(str(d))
    assert code == 2 and why in one_line_error(out)


def test_alias_bomb_and_huge_knowledge_files(tmp_path):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(20))
    (tmp_path / "bomb.yaml").write_text(bomb)
    start = time.monotonic()
    code, out = cli(str(EXAMPLES / KIMI_B300), "--knowledge", str(tmp_path / "bomb.yaml"))
    assert code == 2 and "a knowledge file is a mapping with any of" in one_line_error(out)
    assert time.monotonic() - start < 10
    (tmp_path / "self.yaml").write_text("models: &a [{id: x, aliases: *a}]\n")
    code, out = cli(str(EXAMPLES / KIMI_B300), "--knowledge", str(tmp_path / "self.yaml"))
    assert code == 2 and "aliases must be a list of repo ids" in one_line_error(out)
    with open(tmp_path / "huge.yaml", "wb") as fh:
        fh.truncate(11 * 1024 * 1024)
    code, out = cli(str(EXAMPLES / KIMI_B300), "--knowledge", str(tmp_path / "huge.yaml"))
    assert code == 2 and "over the 10485760-byte limit" in one_line_error(out)


@pytest.mark.parametrize("text, why", [
    ("accelerators: {B300: &a {vendor: NVIDIA, aliases: [*a]}}", "accelerators: B300: a YAML alias refers to the node that holds it"),
    ("accelerators: &a {B300: *a}", "accelerators: B300: a YAML alias refers"),
    ("parsers: &p {sglang: {reasoning: *p}}", "a YAML alias refers"),
    ("accelerators: {B300: {vendor: NVIDIA, per_node: [8]}}", "accelerators: B300: per_node must be an integer"),
    ("models: [{id: moonshotai/Kimi-K3, family: [kimi]}]", "models: moonshotai/Kimi-K3: family must be a string"),
    ("parsers: {sglang: {reasoning: {kimi_k3: [1]}}}", "parsers: sglang: reasoning: kimi_k3: the entry must be a mapping"),
    ("models: [{id: a/b, quantization: {method: [fp8]}}]", "models: a/b: quantization.method must be a string"),
])
def test_knowledge_entries_of_the_wrong_type_or_recursive_are_one_line(tmp_path, text, why):
    """A knowledge entry whose field has another type than the bundled entries' (or refers to
    itself through an alias) was an internal error on every submission, or a wrong message."""
    (tmp_path / "k.yaml").write_text(text + "\n")
    code, out = cli(str(EXAMPLES / KIMI_B300), "--knowledge", str(tmp_path / "k.yaml"))
    assert code == 2 and why in one_line_error(out)


def test_the_bundled_entries_pass_as_a_user_knowledge_file(tmp_path):
    """The type check is learnt from the bundled data: the bundled entries themselves pass."""
    import yaml

    from cfglint.knowledge import data_dir
    from cfglint.knowledge.userfile import read_user_file

    rules = data_dir("rules")
    data = {"accelerators": yaml.safe_load((rules / "accelerators.yaml").read_text())["accelerators"],
            "models": yaml.safe_load((rules / "models.yaml").read_text())["models"],
            "paths": {"host_prefixes": yaml.safe_load((rules / "paths.yaml").read_text())["host_prefixes"]}}
    (tmp_path / "k.yaml").write_text(yaml.safe_dump(data))
    assert read_user_file(str(tmp_path / "k.yaml")) == data


def test_paths_that_do_not_exist_and_directories_as_files(tmp_path):
    code, out = cli(str(tmp_path / "nope"))
    assert code == 2 and "no such file or directory" in out and "Traceback" not in out
    for option in ("-o", "--write-baseline", "--knowledge", "--baseline", "--config"):
        code, out = cli(str(EXAMPLES / KIMI_B300), option, str(tmp_path))
        assert code == 2 and "is a directory" in out and "Traceback" not in out


# ---- properties ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def serve_file(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("serve")
    (d / "serve.sh").write_text("sglang serve --model-path /home/alice/m --tp-size 8\n")
    return d / "serve.sh"


@settings(max_examples=EXAMPLES_N, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(max_size=2000) | st.text(max_size=500).map(lambda s: s.encode("utf-8", "surrogatepass")),
       where=st.sampled_from(["--knowledge", "--baseline", "--config yaml", "--config toml", "pyproject"]))
def test_property_random_bytes_as_knowledge_baseline_or_config(serve_file, data, where):
    """For any bytes as a knowledge, baseline or configuration file the CLI exits 0, 1 or 2 with
    no exception, within a time bound."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        shutil.copy(serve_file, tmp / "serve.sh")
        args = [str(tmp / "serve.sh")]
        if where == "pyproject":
            (tmp / "pyproject.toml").write_bytes(b"[tool.cfglint]\n" + data)
        else:
            option, _, kind = where.partition(" ")
            target = tmp / f"input.{kind or 'yaml'}"
            target.write_bytes(data)
            args += [option, str(target)]
        start = time.monotonic()
        code, out = cli(*args)
        assert code in (0, 1, 2) and "Traceback" not in out
        assert time.monotonic() - start < 20
        if code == 2:
            one_line_error(out)


LINK_NAMES = ["submission.yaml", "run.sh", "extra.sh", "loose.sh", "sub-dir"]
TARGETS = ["outside-manifest", "outside-run", "outside-dir", "inside-run", "dangling", "loop", "none", "fifo"]


@settings(max_examples=EXAMPLES_N, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(layout=st.fixed_dictionaries({name: st.sampled_from(TARGETS) for name in LINK_NAMES}),
       git=st.booleans(), name_links=st.booleans(), fmt=st.sampled_from(["text", "json", "sarif", "github"]))
def test_property_nothing_outside_the_root_is_read_or_written(layout, git, name_links, fmt):
    """For random layouts of links (in a submission, next to it, at the output paths), linting
    with --fix, -o and --write-baseline never shows the sentinel content of the files outside the
    root, never changes them, and never creates a file outside."""
    with tempfile.TemporaryDirectory() as tmp:
        repo, outside = repo_with_outside(Path(tmp))
        if not git:
            shutil.rmtree(repo / ".git")
        sub = repo / "submissions" / KIMI_B300
        replace_once(sub / "run.sh", "moonshotai/Kimi-K3", "/home/bob/models/Kimi-K3")  # something to fix
        (outside / "dir").mkdir()
        (outside / "dir" / "submission.yaml").write_text((outside / "submission.yaml").read_text())
        shutil.copy(outside / "run.sh", outside / "dir" / "run.sh")
        target_of = {"outside-manifest": outside / "submission.yaml", "outside-run": outside / "run.sh",
                     "outside-dir": outside / "dir", "inside-run": sub / "run.sh", "dangling": outside / "missing"}
        named = []
        for name, target in layout.items():
            where = repo / name if name in ("loose.sh", "sub-dir") else sub / name
            if target == "none":
                continue
            if where.exists() or where.is_symlink():
                if target == "inside-run" and name == "run.sh":
                    continue
                os.remove(where)
            if target == "fifo":   # issue 25, item 11: a FIFO where a launch file could be
                os.mkfifo(where)
                continue
            os.symlink(where if target == "loop" else target_of[target], where)
            named.append(str(where))
        for out_name in ("report.out", "base.json"):
            os.symlink(outside / "run.sh", repo / out_name)
        os.symlink(outside, repo / "reports")   # a committed (or unpacked) directory link out
        before = {p: snapshot(p) for p in outside.rglob("*") if p.is_file()}
        listed = sorted(outside.rglob("*"))
        args = [str(repo)] + (named if name_links else [])
        with no_hang():
            code, out = cli(*args, "--fix", "-f", fmt, cwd=repo)
        assert code in (0, 1) and SENTINEL not in out
        for name in ("extra.sh", "loose.sh"):   # found by discovery: a finding, never skipped in silence
            if layout[name] == "fifo" and fmt == "text":
                assert f"{name}:1:1: IO001 [error] cannot read " in out and "not a regular file" in out
        for option, name in (("-o", "report.out"), ("--write-baseline", "base.json")):
            code, out = cli(*args, option, name, cwd=repo)
            assert code == 2 and "Traceback" not in out and SENTINEL not in out
            assert out.strip().splitlines()[-1].startswith(f"cfglint: error: cannot write {name}: is a symbolic link")
        # issue 25, items 6 and 12: through the directory link, with or without a git working tree
        for option, name in (("-o", "reports/new/r.out"), ("--write-baseline", "reports/base.json")):
            code, out = cli(*args, option, name, cwd=repo)
            assert code == 2 and "Traceback" not in out and SENTINEL not in out
            assert out.strip().splitlines()[-1].startswith(f"cfglint: error: cannot write {name}: its directory is "
                                                           "reached through a symbolic link that leaves the working")
        code, out = docs("reports/rules", cwd=repo)
        assert code == 2 and "leaves the working" in one_line_error(out)
        after = {p: snapshot(p) for p in outside.rglob("*") if p.is_file()}
        assert after == before and sorted(outside.rglob("*")) == listed


def test_every_file_is_opened_through_safeio():
    """One choke point: outside cfglint/read/safeio.py, cfglint's code opens only its own bundled
    data (``data_dir(...)``) and the pipe of its shell parser. The knowledge generators
    (knowledge/build/, run by a developer on pinned inputs to write rules/ and schemas/) are no
    part of a lint run: no other module imports them."""
    import re

    src = Path(__file__).resolve().parents[1] / "src" / "cfglint"
    raw = re.compile(r"(?<![\w.])open\(|os\.open\(|\.read_text\(|\.read_bytes\(|\.write_text\(|\.write_bytes\(")
    build = src / "knowledge" / "build"
    offenders = []
    for path in sorted(src.rglob("*.py")):
        if build in path.parents:
            continue
        assert not re.search(r"^\s*(from|import) \S*\bbuild\b", path.read_text(encoding="utf-8"), re.M), \
            f"{path} imports a knowledge generator"
        if path.name == "safeio.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            bundled = "data_dir(" in line or (path.name == "knowledge.py" and line.strip() == 'with open(path, encoding="utf-8") as fh:')
            if raw.search(line) and not bundled:
                offenders.append(f"{path.relative_to(src)}:{n}: {line.strip()}")
    assert offenders == []
    assert raw.search('        with open(path, "w", encoding="utf-8", newline="") as fh:')  # what fix.py did


def test_docs_into_a_directory_that_cannot_be_made_is_exit_2(tmp_path):
    """'cfglint docs' where the directory cannot be created (under /proc, under a file): one line,
    exit 2, no traceback."""
    (tmp_path / "file").write_text("x", encoding="utf-8")
    for target in ("/proc/cfglint-docs", str(tmp_path / "file" / "docs")):
        proc = subprocess.run([str(CFGLINT), "docs", target], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.count("\n") == 1 and "cannot write" in proc.stderr, proc.stderr
