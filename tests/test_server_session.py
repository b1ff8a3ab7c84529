"""The language server's parts without the protocol: positions in each encoding, a crash that
becomes an IO001 on the document, the session's diagnostics equal to cfglint check's findings on
the bundled examples, hover texts built from the flag registries, and `cfglint check` never
importing the server's libraries."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from cfglint.knowledge import knowledge
from cfglint.knowledge.flaghelp import flag_help
from cfglint.lint import lint_paths
from cfglint.server import positions
from cfglint.server.session import Session
from support import EXAMPLES, ROOT

KIMI_DYNAMO = "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"


@pytest.mark.parametrize("encoding, want", [("utf-16", 7), ("utf-8", 10), ("utf-32", 6)])
def test_positions_count_code_units_of_the_encoding(encoding, want):
    lines = ["# 🚀 é /home/x", "next"]
    col = lines[0].index("/home") + 1                      # 1-based code points: 7 (6 before it)
    assert positions.to_lsp(lines, 1, col, encoding) == (0, want)
    assert positions.from_lsp(lines, 0, want, encoding) == (1, col)
    assert positions.to_lsp(lines, 1, col, encoding, bom=True)[1] == want + (3 if encoding == "utf-8" else 1)
    data = ("\ufeff" + "\r\n".join(lines)).encode()
    assert positions.byte_offset_to_lsp(data, data.index(b"next"), encoding) == (1, 0)
    assert positions.split_lines("\ufeffa\r\nb\rc\nd") == ["a", "b", "c", "d"]


def _session_on(tmp_path, rel):
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLES / rel, ws / "sub")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return ws, Session([str(ws)])


def test_session_diagnostics_are_check_findings_of_the_whole_submission(tmp_path):
    ws, session = _session_on(tmp_path, KIMI_DYNAMO)
    launch = ws / "sub" / "decode.args"
    session.put(str(launch), launch.read_text(), 1)
    published = session.lint(str(launch))
    cwd = os.getcwd()
    try:
        os.chdir(ws)
        want = [f for f in lint_paths([str(launch)]).findings if not f.suppressed]
    finally:
        os.chdir(cwd)
    got = sorted((os.path.relpath(p, ws), d["code"], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1,
                  d["message"]) for p, ds in published.items() for d in ds)
    assert got == sorted((f.span.path, f.rule_id, f.span.line, f.span.col, f.message) for f in want)
    assert {"RED001"} <= {d["code"] for d in published[str(launch)]}
    assert str(ws / "sub" / "submission.yaml") in published      # every file of the unit is published


def test_a_crash_is_an_io001_on_the_document_and_the_next_lint_works(tmp_path, monkeypatch):
    ws, session = _session_on(tmp_path, "artificial-analysis/kimi-k3/b300-sglang-tp8")
    run = ws / "sub" / "run.sh"
    session.put(str(run), run.read_text() + "# /home/alice/x\n", 1)

    def boom(*_args, **_kwargs):
        raise RuntimeError("a bug")

    import cfglint.lint

    monkeypatch.setattr(cfglint.lint, "lint_paths", boom)
    (crash,) = session.lint(str(run))[str(run)]
    assert crash["code"] == "IO001" and "internal error while checking sub/run.sh: RuntimeError: a bug" in crash["message"]
    monkeypatch.undo()
    assert [d["code"] for d in session.lint(str(run))[str(run)]] == ["RED001"]


def test_nothing_outside_the_workspace_is_linted(tmp_path):
    ws, session = _session_on(tmp_path, "artificial-analysis/kimi-k3/b300-sglang-tp8")
    outside = tmp_path / "elsewhere.sh"
    outside.write_text("sglang serve --model-path /home/bob/m\n")
    session.put(str(outside), outside.read_text(), 1)
    assert session.lint(str(outside)) == {} and session.hover(str(outside), 0, 20) is None


def test_flag_help_shows_type_choices_default_and_releases_from_the_registries():
    regs = knowledge().flag_registries
    sg = flag_help(regs["sglang"], "--moe-runner-backend")
    # across every release held: the choices of each, the releases that have the flag, its file
    assert "Choices: `auto`" in sg and "`marlin`" in sg and "Only in 0.5.20..0.5.23: `flashinfer_megamoe`" in sg
    assert "Only in 0.5.12.post1..0.5.23: `marlin`" in sg
    assert "Accepted by SGLang 0.5.1.post3..0.5.23" in sg
    assert "Source: sglang/srt/arg_groups/fields/exec_.py in the released package (rules/releases/sglang.yaml)" in sg
    # at one release: that release's choices only
    at = flag_help(knowledge().registry("sglang", "0.5.11"), "--moe-runner-backend")
    assert "`aiter`" in at and "`marlin`" not in at and "Only in" not in at
    vl = flag_help(regs["vllm"], "--tensor_parallel_size", "--tensor_parallel_size")
    assert vl.startswith("**--tensor-parallel-size** (written `--tensor_parallel_size`): vLLM flag")
    assert "Accepted by vLLM 0.6.2..0.33.0" in vl
    tr = flag_help(regs["trtllm"], "--port")
    assert "Default: `8000`" in tr and "Accepted by trtllm-serve 1.2-1.3" in tr
    dy = flag_help(regs["dynamo.frontend"], "--namespace")
    assert "`DYN_NAMESPACE`" in dy and "Accepted by Dynamo frontend 0.5.1..1.6.1" in dy
    # a flag of older releases: where it was, and at a release without it, what replaces it
    old = flag_help(regs["sglang"], "--enable-ep-moe")
    assert "Accepted by SGLang 0.4.0.post2..0.5.3.post3\n" in old and "Replacement: `--ep-size`" in old
    gone = flag_help(knowledge().registry("sglang", "0.5.17"), "--enable-ep-moe")
    assert "removed from SGLang; use `--ep-size <same value as --tp-size>`" in gone
    assert flag_help(regs["sglang"], "--no-such-flag-at-all") is None


def test_check_never_imports_the_server_libraries(tmp_path):
    probe = ("import sys\nfrom click.testing import CliRunner\nfrom cfglint.cli import main\n"
             f"CliRunner().invoke(main, ['check', '--no-config', {str(EXAMPLES / KIMI_DYNAMO)!r}])\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'cattrs')"
             " or m.startswith('cfglint.server')))\n")
    out = subprocess.run([sys.executable, "-c", probe], env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
