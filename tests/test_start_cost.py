"""What a one-submission run no longer pays for must stay exact: PyYAML's reader class seeded
from an equivalent pattern, SHA-256 without hashlib, the quantized-suffix pre-filter, and the
command that ends without tearing the interpreter down (src/cfglint/__init__.py, knowledge/kbcache.py,
knowledge/modelids.py, cli.run). Speed itself is measured by benchmarks/run.py, not here."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfglint.knowledge import modelids
from cfglint.knowledge import kbcache
from cfglint.read import shell
from cfglint.read.shell import worker as shellworker

from support import EXAMPLES

PYYAML_NON_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"


def _python(code: str, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, **kw)


def test_the_seeded_class_matches_exactly_the_code_points_pyyamls_matches():
    ours = re.compile("[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]")
    theirs = re.compile(PYYAML_NON_PRINTABLE)
    text = "".join(map(chr, range(0x110000)))
    assert [m.start() for m in ours.finditer(text)] == [m.start() for m in theirs.finditer(text)]
    assert len(ours.findall(text)) == 29 + 6 + 26 + 2048 + 2   # C0 less tab/LF/CR, DEL-0x84, 0x86-0x9f, surrogates, FFFE/F


def test_importing_cfglint_first_gives_pyyaml_the_seeded_class():
    out = _python("import cfglint, yaml; print(yaml.reader.Reader.NON_PRINTABLE.pattern.encode('unicode_escape').decode())")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
    # and PyYAML still refuses a control character, at the same place, as without the seed
    probe = ("import yaml\ntry:\n    yaml.safe_load('a: b\\x07c')\nexcept yaml.YAMLError as e:\n"
             "    print(type(e).__name__, e.position, e.character)")
    seeded, plain = _python("import cfglint\n" + probe), _python(probe)
    assert seeded.stdout == plain.stdout == "ReaderError 4 7\n", seeded.stderr + plain.stderr


def test_sha256_without_hashlib_gives_hashlibs_digests():
    for data in (b"", b"abc", bytes(range(256)) * 300):
        assert kbcache.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    h = kbcache.sha256()
    h.update(b"ab")
    h.update(b"c")
    assert h.hexdigest() == hashlib.sha256(b"abc").hexdigest()


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_every_quantized_suffix_passes_the_pre_filter(data):
    for suffix, _precision in modelids._QUANT_SUFFIXES:
        tail = data.draw(st.from_regex(re.compile(suffix, re.I), fullmatch=True).filter(lambda s: "\n" not in s))
        name = "org/Model-7B-" + tail
        assert any(t in ("Model-7B-" + tail).lower() for t in modelids._QUANT_TOKENS), (suffix, tail)
        assert modelids.strip_quant_suffix(name)[0] is not None, (suffix, tail)


def test_a_name_without_a_quantized_suffix_compiles_no_pattern():
    modelids._quant_res.cache_clear()
    assert modelids.strip_quant_suffix("deepseek-ai/DeepSeek-V4-Pro") == (None, None)
    assert modelids._quant_res.cache_info().misses == 0
    assert modelids.strip_quant_suffix("nvidia/DeepSeek-R1-FP4") == ("nvidia/DeepSeek-R1", "NVFP4")


def _run_module(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cfglint", *args], capture_output=True, text=True, timeout=300)


def test_the_command_ends_with_mains_exit_code_and_all_its_output():
    from click.testing import CliRunner

    from cfglint.cli import main

    one = str(EXAMPLES / "artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle")
    for args, code in ((["check", "--no-config", "--format", "json", str(EXAMPLES)], 1),
                       (["check", "--no-config", one], 0),
                       (["check", "--no-config", "--fail-level", "nope", one], 2),
                       (["rules"], 0)):
        ran = _run_module(*args)
        inproc = CliRunner().invoke(main, args)
        assert ran.returncode == code == inproc.exit_code, (args, ran.stderr)
        assert ran.stdout == inproc.stdout, args
        assert ran.stderr.splitlines()[-1:] == inproc.stderr.splitlines()[-1:], args   # usage names the program
        assert ran.stdout if code != 2 else "Invalid value for '--fail-level'" in ran.stderr


def test_the_command_leaves_no_parse_worker_behind():
    # a shell submission starts the worker; the command reaps it before it ends (by os._exit,
    # so the probe reports through stderr at the moment of reaping)
    probe = ("import os, sys\n"
             "from cfglint.read.shell import worker as shellworker\n"
             "_reap = shellworker._kill_and_reap\n"
             "def reap(pid):\n"
             "    status = _reap(pid)\n"
             "    os.write(2, f'reaped {pid} {status}\\n'.encode())\n"
             "    return status\n"
             "shellworker._kill_and_reap = reap\n"
             "sys.argv = ['cfglint', 'check', '--no-config', sys.argv[1]]\n"
             "from cfglint.cli import run\n"
             "run()\n")
    one = str(EXAMPLES / "artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle")
    out = subprocess.run([sys.executable, "-c", probe, one], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    line = [ln for ln in out.stderr.splitlines() if ln.startswith("reaped ")]
    assert len(line) == 1, out.stderr
    pid, status = map(int, line[0].split()[1:])
    assert _gone(status)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def _gone(status: int) -> bool:
    """Killed, or (its pipe closed first) already exited on EOF: either way reaped."""
    return (os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9) or (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)


def test_close_with_kill_reaps_the_worker_at_once():
    assert shell.parse_shell("echo hi\n", "x.sh").commands
    pid = shellworker.worker_pid()
    status = shellworker.close(kill=True)
    assert _gone(status)
    assert shellworker.worker_pid() is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
