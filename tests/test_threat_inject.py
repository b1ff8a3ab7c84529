"""Issue 10, kind 3 (output injection): nothing a linted file holds becomes a GitHub Actions
workflow command, a terminal control sequence or a SARIF link in any output format, and the
text format's caret still points at the right characters.

Each example of the issue is a published submission changed in one place and linted through the
command line in all four formats; the property at the end inserts random text made of those
sequences into a published submission's launch file, manifest and file names.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint.checks import all_rules
from cfglint.cli import main
from cfglint.lint import lint_paths
from cfglint.output import report
from cfglint.output.markdown import markdown
from cfglint.output.neutral import neutralize, neutralize_at, sarif_message
from support import EXAMPLES, copy_submission, examples, replace_once

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit", "rdjson", "markdown")

# what the runner reads as a command: '::' first after blanks (.NET TrimStart: Unicode white
# space), or '##[' anywhere in the line; the Azure Pipelines agent: '##vso[' anywhere in the line
AZURE = re.compile(r"##vso\[", re.I)
COMMAND_LINE = re.compile(r"^\s*::")
OWN_COMMAND = re.compile(r"^::(error|warning|notice) file=[^:]*,title=[A-Z0-9]+::(?P<message>.*)$")
# C0 controls but tab and newline, DEL, C1 controls (NEL U+0085, CSI U+009B), bidi marks, embeddings,
# overrides and isolates, line and paragraph separators: written here, not imported, so the test
# states the promise on its own
UNSAFE_BUT_NEWLINE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            if k != "newlineSequences":  # SARIF run property: the line breaks cfglint counts, its own
                yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def assert_safe(fmt: str, body: str) -> None:
    """No workflow command and no control character from input in ``body`` (one format's output):
    every line, and for JSON and SARIF every decoded string too (a consumer prints them)."""
    assert not UNSAFE_BUT_NEWLINE.search(body), f"{fmt}: control character {UNSAFE_BUT_NEWLINE.search(body).group(0)!r}"
    for line in body.splitlines():
        assert "##[" not in line and not AZURE.search(line), f"{fmt}: {line!r}"
        own = OWN_COMMAND.match(line) if fmt == "github" else None
        if own:  # cfglint's own annotation: its message carries no newline, no command
            assert "\n" not in own["message"] and "\r" not in own["message"]
            continue
        assert not COMMAND_LINE.match(line), f"{fmt}: {line!r}"
    if fmt in ("json", "sarif", "gitlab", "rdjson"):
        for s in _strings(json.loads(body)):
            assert "##[" not in s and not AZURE.search(s) and not UNSAFE_BUT_NEWLINE.search(s), f"{fmt}: {s!r}"
            assert not any(COMMAND_LINE.match(part) for part in s.split("\n")), f"{fmt}: {s!r}"
    if fmt == "sarif":
        for run in json.loads(body)["runs"]:
            for result in run["results"]:
                texts = [result["message"]["text"]] + [r["message"]["text"] for r in result.get("relatedLocations", [])]
                for t in texts:  # every bracket escaped, and no backslash of the input cancels it
                    assert not re.search(r"(?<!\\)[\[\]]|\\\\[\[\]]", t), t


def run_all(d: Path, monkeypatch, target: str = ".") -> dict[str, str]:
    """Every format's output (stdout and stderr) for ``target``, linted from ``d``."""
    monkeypatch.chdir(d)
    runner = CliRunner()
    out = {}
    for fmt in FORMATS:
        res = runner.invoke(main, ["check", "--no-config", "-f", fmt, target])
        assert res.exit_code in (0, 1), res.output
        out[fmt] = res.output
        assert_safe(fmt, res.stdout)
    return out


def carets_under(text_out: str, needle_line_part: str) -> list[str]:
    """What each caret line under a shown line containing ``needle_line_part`` points at (ASCII
    lines: one column per character)."""
    lines = text_out.splitlines()
    out = []
    for shown, caret in zip(lines, lines[1:]):
        if shown.startswith("    ") and needle_line_part in shown and caret.strip(" ").startswith("^"):
            start = caret.index("^")
            out.append(shown[start: start + caret.count("^")])
    return out


def test_issue10_file_name_with_newline_then_add_mask(tmp_path, monkeypatch):
    # issue example: "a file name ... with a newline followed by ::add-mask::" (already one line on
    # main: discover.printable escapes the newline of a shown path; kept as a guard, in every format)
    d = copy_submission(KIMI_B300, tmp_path)
    (d / "x\n::add-mask::pwn.sh").write_text((d / "run.sh").read_text())
    out = run_all(d, monkeypatch)
    assert "SUB003" in out["text"] and "x\\n::add-mask::pwn.sh" in out["text"]


def test_issue10_file_name_that_starts_with_a_workflow_command(tmp_path, monkeypatch):
    # the text format starts each finding with its path: linted from the submission directory,
    # a file named '::error::pwn.sh' made that line a workflow command (reproduced on main)
    d = copy_submission(KIMI_B300, tmp_path)
    (d / "::error::pwn.sh").write_text((d / "run.sh").read_text())
    out = run_all(d, monkeypatch)
    assert "\n\\x3a:error::pwn.sh:1:1: SUB003 [warning]" in "\n" + out["text"]
    assert '"path": "\\\\x3a:error::pwn.sh"' in out["json"]
    assert "::warning file=%3A%3Aerror%3A%3Apwn.sh," in out["github"]  # GitHub's escaping: still the file's name


def test_issue10_yaml_string_with_newline_then_error(tmp_path, monkeypatch):
    # issue example: "a YAML string with a newline followed by ::error"
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "submission.yaml", "model: moonshotai/Kimi-K3", 'model: "moonshotai/Kimi-K3\\n::error::pwned"')
    out = run_all(d, monkeypatch)
    messages = [f["message"] for f in json.loads(out["json"])["findings"] if "pwned" in f["message"]]
    assert {"SUB001", "TOP002"} <= {f["rule"] for f in json.loads(out["json"])["findings"] if "pwned" in f["message"]}
    assert all("Kimi-K3\\n::error::pwned" in m and "\n" not in m for m in messages)
    assert "SUB001 model: 'moonshotai/Kimi-K3\\n::error::pwned'" in out["github"]


def test_issue10_echoed_line_starting_with_set_output(tmp_path, monkeypatch):
    # issue example: "a line ::set-output ..." echoed by the text format
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "docker run", "::set-output name=x::/home/alice/m\ndocker run")
    out = run_all(d, monkeypatch)
    assert "    \\x3a:set-output name=x::/home/alice/m\n" in out["text"]
    assert carets_under(out["text"], "set-output") == ["/home/alice/m"]


def test_issue10_group_command_in_the_middle_of_a_line(tmp_path, monkeypatch):
    # issue example: "a ##[...] sequence anywhere"
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4 # ##[group]x /home/alice/m")
    out = run_all(d, monkeypatch)
    assert "--tp-size 4 # ##\\x5bgroup]x" in out["text"]
    assert set(carets_under(out["text"], "group")) == {"4", "/home/alice/m"}  # TOP001/TOP002, RED001


def test_azure_pipelines_logging_command_in_the_middle_of_a_line(tmp_path, monkeypatch):
    # the Azure Pipelines agent runs '##vso[' anywhere in a line of a step's output (pre-commit in an
    # Azure pipeline prints the hook's output there): a comment beside a flag set a pipeline variable
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size 4 # ##vso[task.setvariable variable=PATH]/tmp/x /home/alice/m")
    out = run_all(d, monkeypatch)
    assert "--tp-size 4 # ##vso\\x5btask.setvariable" in out["text"]
    assert set(carets_under(out["text"], "setvariable")) == {"4", "/home/alice/m"}  # TOP001/TOP002, RED001


@pytest.mark.parametrize("sequence, shown", [
    ("\x1b]52;c;cHduZWQ=\x07", "\\x1b]52;c;cHduZWQ=\\x07"),   # OSC 52: write the reader's clipboard
    ("\x1b[2J\x1b]0;title\x07", "\\x1b[2J\\x1b]0;title\\x07"),  # clear screen, set window title
    ("\x9b31m", "\\x9b31m"),                                   # C1 CSI (U+009B), one character
    ("a\u2028::error::b", "a\\u2028::error::b"),              # LINE SEPARATOR
    ("a\u0085::error::b", "a\\x85::error::b"),                 # NEXT LINE (C1 NEL)
    ("\u202eevil\u202c \u2066x\u2069", "\\u202eevil\\u202c \\u2066x\\u2069"),  # bidi overrides and isolates
    ("\x08\x7f\x01\x1b", "\\x08\\x7f\\x01\\x1b"),                 # backspace, DEL, SOH, a lone ESC
])
def test_issue10_terminal_sequences_are_shown_escaped_and_the_caret_stays_right(tmp_path, monkeypatch, sequence, shown):
    # issue example: "ESC, OSC 52 clipboard writes, C0/C1, U+2028/U+0085 in file content reach the terminal"
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "# Kimi K3", f"# {sequence} see /home/alice/models\n# Kimi K3")
    out = run_all(d, monkeypatch)
    assert f"    # {shown} see /home/alice/models\n" in out["text"]
    assert carets_under(out["text"], "see /home/alice/models") == ["/home/alice/models"]
    red = [f for f in json.loads(out["json"])["findings"] if f["rule"] == "RED001"]
    assert [(f["line"], f["column"]) for f in red] == [(1, len(f"# {sequence} see ") + 1)]  # columns of the file


def test_issue10_sarif_message_cannot_carry_a_markdown_link(tmp_path, monkeypatch):
    # issue example: "SARIF messages carry unescaped Markdown links from input"
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--reasoning-parser kimi_k3", "--reasoning-parser '[click](https://evil.example/x)'")
    out = run_all(d, monkeypatch)
    sarif = json.loads(out["sarif"])
    texts = [r["message"]["text"] for r in sarif["runs"][0]["results"] if r["ruleId"] == "PRS001"]
    assert texts and all("\\[click\\](https://evil.example/x)" in t for t in texts)
    # other formats are not rendered as Markdown: the value is quoted as written
    assert "'[click](https://evil.example/x)'" in out["text"]


def test_issue10_suppression_reason_is_neutralized(tmp_path, monkeypatch):
    # the reason of an inline directive is input too, and JSON and SARIF print it
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "# Kimi K3", "# cfglint: disable=RED001 -- ##[group] \x1b[2J ok\n# /home/alice/models\n# Kimi K3")
    out = run_all(d, monkeypatch)
    assert [f["suppressed"] for f in json.loads(out["json"])["findings"] if f["rule"] == "RED001"] == ["##\\x5bgroup] \\x1b[2J ok"]


def test_github_format_follows_githubs_escaping_after_neutralizing():
    from cfglint.model import Finding, Span

    f = Finding("PRS001", "parser 'a%0A::error::x' \x1b[2J ##[group]\nline two\r",
                Span("sub/a,b:c.sh", 1, 1, 1, 2), level="error")
    [line] = report.github([f]).splitlines()
    assert line == ("::error file=sub/a%2Cb%3Ac.sh,line=1,col=1,endColumn=2,title=PRS001::PRS001 "
                    "parser 'a%250A::error::x' \\x1b[2J ##\\x5bgroup]%0Aline two%0D")


def test_neutralize_positions_and_readable_forms():
    assert neutralize("::set-output name=a::b") == "\\x3a:set-output name=a::b"
    assert neutralize(" \t::error::x") == " \t\\x3a:error::x"
    assert neutralize("a ::b ###[c") == "a ::b ###\\x5bc"
    assert neutralize("plain text") == "plain text"
    line = "\x1b[31m##[x] v"
    shown, at_v, end = neutralize_at(line, line.index("v"), len(line))
    assert shown[at_v] == "v" and end == len(shown)
    assert sarif_message("\\[a](b) ![i](u)") == "\\x5c\\[a\\](b) !\\[i\\](u)"


# ---------------------------------------------------------------- the property

PIECES = ["::set-output name=x::y", "::error::", "::add-mask::", "::stop-commands::t", "##[group]", "##[", "#", "[",
          "##vso[task.setvariable variable=x]y", "##VSO[", "vso",
          ":", "::", "\x1b]52;c;aGk=\x07", "\x1b[2J", "\x1b", "\x9b31m", "\x07", "\x08", "\x7f", "\u2028", "\u2029",
          "\u0085", "\u202a", "\u202e", "\u2066", "\u2069", "\u200f", "\u061c", "\n", "\r", "\t", " ", "\xa0",
          "[a](https://e.x)", "![i](https://e.x/i.png)", "\\[b]", "%0A", "%", ",", "模", "/home/alice/m"]
RANDOM = st.lists(st.one_of(st.sampled_from(PIECES),
                            st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                                    max_size=4)),
                  min_size=1, max_size=8).map("".join)


def _file_name(text: str) -> str:
    name = text.replace("/", "_").replace("\x00", "")[:60] + ".sh"
    return name if name not in (".sh",) else "x.sh"


def _check_carets(text_out: str, result) -> int:
    """Each caret line points, in the line shown above it, at the neutralized text of the finding's
    span (independent of how the caret was computed: walk the shown line along the padding).
    Returns how many carets were checked."""
    lines, checked = text_out.split("\n"), 0
    by_header = {}
    for f in result.findings:
        if not f.suppressed:
            by_header.setdefault(f"{neutralize(f.span.path)}:{f.span.line}:{f.span.col}: {f.rule_id} ", f)
    for i, line in enumerate(lines[:-2]):
        f = next((f for h, f in by_header.items() if line.startswith(h)), None)
        if f is None or not lines[i + 1].startswith("    ") or "^" not in lines[i + 2]:
            continue
        src = result.sources[f.span.path][f.span.line - 1]
        shown, caret = lines[i + 1][4:], lines[i + 2][4:]
        pad, k = caret[: caret.index("^")], 0
        while pad:
            c = shown[k]
            step = "\t" if c == "\t" else ("  " if unicodedata.east_asian_width(c) in "WF" else " ")
            assert pad.startswith(step), (shown, caret)
            pad, k = pad[len(step):], k + 1
        start = min(f.span.col - 1, len(src))
        end = min(max(f.span.end_col - 1, start), len(src)) if f.span.end_line == f.span.line else len(src)
        want = neutralize(src)
        # the span's characters, neutralized in their line, are exactly what the caret underlines
        _, a, b = neutralize_at(src, start, end)
        assert shown == want and k == a and caret.count("^") == max(1, b - a)
        # and a person reading the escapes gets the span's own text back
        unescaped = re.sub(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|n|r)",
                           lambda m: {"n": "\n", "r": "\r"}.get(m.group(1)) or chr(int(m.group(1)[1:], 16)),
                           shown[k: k + b - a])
        assert "\\" in src or unescaped == src[start:end]
        checked += 1
    return checked


@settings(max_examples=examples(20, 100), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(in_line=RANDOM, in_file=RANDOM, in_name=RANDOM, in_model=RANDOM, where=st.floats(0, 1))
def test_property_no_workflow_command_or_control_character_from_input(tmp_path_factory, in_line, in_file, in_name,
                                                                      in_model, where):
    base = tmp_path_factory.mktemp("inject")
    d = base / "sub"
    shutil.copytree(EXAMPLES / KIMI_B300, d)
    run = d / "run.sh"
    text = run.read_text()
    text = text.replace("--tp-size 8", f"--tp-size 4 # {in_line} /home/alice/m {in_line}", 1)
    at = int(where * len(text))
    run.write_text(text[:at] + in_file + text[at:], encoding="utf-8")
    (d / _file_name(in_name)).write_text(text, encoding="utf-8")
    manifest = d / "submission.yaml"
    manifest.write_text(manifest.read_text().replace("model: moonshotai/Kimi-K3",
                                                     "model: " + json.dumps("moonshotai/Kimi-K3" + in_model), 1))
    cwd = os.getcwd()
    os.chdir(d)  # paths shown relative: a file name starts the text format's lines
    try:
        result = lint_paths(["."])
        bodies = {
            "text": report.text(result.findings, result.sources, report.summarize(result.findings, result.units)),
            "json": report.as_json(result.findings, 1),
            "github": report.github(result.findings),
            "sarif": report.sarif(result.findings, all_rules(), result.sources, 1),
            "markdown": markdown(result.findings, all_rules(), result.units, 1, "error"),
        }
    finally:
        os.chdir(cwd)
    assert result.findings
    for fmt, body in bodies.items():
        assert_safe(fmt, body)
    assert _check_carets(bodies["text"], result) >= 1
    shutil.rmtree(base, ignore_errors=True)


def test_standard_error_quotes_input_neutralized(tmp_path, monkeypatch):
    """Diagnostics on standard error quote input too (a contributor's configuration value, a file
    name pre-commit passes): they go through the same neutralizing step as the reports."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".cfglint.yaml").write_text('select: ["##[group]x\\e[2J"]\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert "##[" not in result.stderr and "\x1b" not in result.stderr and "##\\x5b" in result.stderr
    (tmp_path / ".cfglint.yaml").write_text('"\\n::error::KEY\\e[31m": 1\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "'\\n\\x3a:error::KEY" not in result.stderr
    assert "\\n::error::KEY\\x1b" in result.stderr, result.stderr
    (tmp_path / ".cfglint.yaml").unlink()
    result = CliRunner().invoke(main, ["check", "##[group]x", "\x1b]52;c;cHduZWQ=\x07"])
    assert result.exit_code == 2
    assert "##[" not in result.stderr and "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert not any(line.lstrip().startswith("::") for line in result.stderr.splitlines())


# -- issue 25, item 1: file names that read as options ----------------------------------------

# options of `check` a file name could be read as, each with what it would do
OPTION_NAMES = ["--config=", "-o", "--output=", "--write-baseline=", "--baseline=", "--knowledge=", "-f", "--format=",
                "--fix", "--no-config", "--ignore=", "--select=", "-j", "--fail-level="]
_NAME_TAIL = st.text(alphabet="abcxyz._-=/", max_size=12).filter(lambda t: "/" not in t and t not in (".", ".."))


@settings(max_examples=examples(25, 100), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(option=st.sampled_from(OPTION_NAMES), tail=_NAME_TAIL, ending=st.sampled_from([".yaml", ".sh", ".env", ""]))
def test_property_a_file_name_is_never_read_as_an_option(tmp_path_factory, option, tail, ending):
    """For any file name that starts like an option of `check`, given as a tool gives it (pre-commit
    appends the staged names): before `--` it is refused with one line and exit 2, nothing is
    written; after `--` it is a file, linted as one (exit 0 or 1), and nothing is written
    either. Issue 25: `--config=x.yaml` became the root configuration, `-ovictim.sh` the report."""
    name = option + tail + ending
    d = tmp_path_factory.mktemp("names")
    (d / ".git").mkdir()
    shutil.copytree(EXAMPLES / KIMI_B300, d / "sub")
    (d / "x.yaml").write_text("ignore: [RED, TOP]\n", encoding="utf-8")
    (d / name).write_text("a: 1\n", encoding="utf-8")
    before = sorted(p.name for p in d.iterdir())
    old = os.getcwd()
    os.chdir(d)
    try:
        refused = CliRunner().invoke(main, ["check", "sub", name])
        linted = CliRunner().invoke(main, ["check", "sub", "--", name])
    finally:
        os.chdir(old)
    for res in (refused, linted):
        assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    lines = [line for line in refused.output.splitlines() if line.strip()]
    assert refused.exit_code == 2 and len(lines) == 1, refused.output
    assert lines[0].startswith("cfglint: error: '") and "put `--` before file names" in lines[0]
    assert linted.exit_code in (0, 1), linted.output
    assert sorted(p.name for p in d.iterdir()) == before


# -- issue 25, item 9: init writes file names that read back as themselves -----------------------

def _init_and_check(d: Path) -> tuple[list, list]:
    """``cfglint init D`` then ``cfglint check D -f json``: (the manifest's files.launch as a
    YAML 1.1 loader reads it, the findings' (rule, file name) for SUB002 / SUB003)."""
    import yaml

    res = CliRunner().invoke(main, ["init", str(d)])
    assert res.exit_code == 0, res.output
    launch = yaml.safe_load((d / "submission.yaml").read_text(encoding="utf-8"))["files"]["launch"]
    res = CliRunner().invoke(main, ["check", str(d), "-f", "json"])
    assert res.exception is None or isinstance(res.exception, SystemExit)
    found = json.loads(res.stdout)["findings"]
    return launch, [(f["rule"], f["path"]) for f in found if f["rule"] in ("SUB002", "SUB003")]


@pytest.mark.parametrize("name", ["run\u0085x.sh", "a\u2028b.sh", "a\u2029b.sh", "z\udcff.sh", "a\x1bb.sh"])
def test_issue25_init_writes_a_file_name_that_reads_back_as_itself(tmp_path, name):
    """Issue 25, item 9: `cfglint init` wrote `run<U+0085>x.sh` in a single-quoted scalar, where
    YAML 1.1 (PyYAML, what cfglint and the engines read) takes U+0085 for a line break: it read
    back as 'run x.sh' (SUB002: not there, SUB003: run<U+0085>x.sh not listed). Names that would
    not read back are written double-quoted with escapes."""
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(EXAMPLES / KIMI_B300 / "run.sh", d / name)
    launch, wrong = _init_and_check(d)
    assert launch == [name] and wrong == []
    # an update adds a second one the same way
    shutil.copy(EXAMPLES / KIMI_B300 / "run.sh", d / ("b" + name))
    launch, wrong = _init_and_check(d)
    assert sorted(launch) == sorted([name, "b" + name]) and wrong == []


_NAME = st.text(alphabet="ab -_.:#'\"\\&*!?%@`[]{},|>\u0085\u2028\u2029\x1b\x7f\u00e9\u202e\udcff\t",
                min_size=1, max_size=10).filter(lambda n: n.strip(" .") != "" and not n.startswith("."))


@settings(max_examples=examples(20, 80), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(names=st.lists(_NAME, min_size=1, max_size=3, unique=True))
def test_property_init_lists_every_file_name_as_it_is(tmp_path_factory, names):
    """For any launch file names (YAML indicators, quotes, line breaks YAML 1.1 knows, controls,
    a byte that is not UTF-8): init lists each, a YAML 1.1 loader reads each back as itself, and
    check finds every listed file there and no file unlisted."""
    d = tmp_path_factory.mktemp("names") / "sub"
    d.mkdir()
    for n in names:
        shutil.copy(EXAMPLES / KIMI_B300 / "run.sh", d / f"{n}.sh")
    launch, wrong = _init_and_check(d)
    assert sorted(launch) == sorted(f"{n}.sh" for n in names) and wrong == []
