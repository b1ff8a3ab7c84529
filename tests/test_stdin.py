"""``cfglint check - --stdin-filename PATH``: standard input is linted as that file of its
submission (the submission's other files from disk), in every format, exactly as the same text
saved at PATH is linted."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from support import ROOT, copy_submission

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit", "rdjson")


def _cfglint(args: list[str], cwd, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), CFGLINT_NO_FORK="1")
    return subprocess.run([sys.executable, "-m", "cfglint", "check", "--no-config", *args], cwd=cwd, env=env,
                          input=stdin if stdin is not None else b"", capture_output=True, timeout=120)


def _edited(d) -> tuple[bytes, bytes]:
    """run.sh as published, and with TP 4 instead of 8 (TOP001 / TOP002 against the manifest on
    disk) and a host path in a non-ASCII comment (RED001 after a character outside ASCII)."""
    old = (d / "run.sh").read_bytes()
    assert old.count(b"--tp-size 8") == 1
    new = old.replace(b"--tp-size 8", b"--tp-size 4") + "# modèle: /home/alice/models\n".encode()
    return old, new


@pytest.mark.parametrize("fmt", FORMATS)
def test_stdin_is_linted_as_the_named_file_of_its_submission(tmp_path, fmt):
    d = copy_submission(KIMI_B300, tmp_path)
    rel = f"{KIMI_B300}/run.sh"
    old, new = _edited(d)
    piped = _cfglint(["-", "--stdin-filename", rel, "-f", fmt], tmp_path, new)
    assert (d / "run.sh").read_bytes() == old          # nothing written
    (d / "run.sh").write_bytes(new)
    saved = _cfglint([rel, "-f", fmt], tmp_path)
    assert piped.returncode == saved.returncode == 1, piped.stderr
    assert piped.stdout == saved.stdout and piped.stderr == saved.stderr
    if fmt == "text":
        out = piped.stdout.decode()
        # the manifest came from disk (the declared TP), the launch from standard input
        last = new.count(b"\n")
        assert f"{rel}:4:" in out and "TOP002" in out and "submission.yaml" in out
        assert f"{rel}:{last}:11: RED001" in out


def test_stdin_equal_to_the_file_gives_the_files_findings(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    rel = f"{KIMI_B300}/run.sh"
    piped = _cfglint(["-", "--stdin-filename", rel, "-f", "json"], tmp_path, (d / "run.sh").read_bytes())
    assert piped.stdout == _cfglint([rel, "-f", "json"], tmp_path).stdout


def test_stdin_file_that_is_not_on_disk_is_linted_on_its_own(tmp_path):
    piped = _cfglint(["-", "--stdin-filename", "new/serve.sh"], tmp_path,
                     b"python3 -m sglang.launch_server --model-path /home/bob/ckpt --tpsize 8\n")
    out = piped.stdout.decode()
    assert piped.returncode == 1
    assert "new/serve.sh:1:46: RED001" in out and "new/serve.sh:1:61: FLG001" in out
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("args, says", [
    (["-"], "name the file it stands for with --stdin-filename"),
    (["x.sh", "--stdin-filename", "y.sh"], "pass '-' among the PATHS"),
    (["-", "--stdin-filename", "y.sh", "--fix"], "cannot write standard input back"),
])
def test_stdin_usage_errors_exit_2(tmp_path, args, says):
    (tmp_path / "x.sh").write_text("echo\n")
    got = _cfglint(args, tmp_path, b"sglang serve --tp 8\n")
    assert got.returncode == 2 and says in got.stderr.decode() and got.stdout == b""
