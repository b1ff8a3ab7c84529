"""Issue 10, kind 6: ``--fix`` integrity.

Fixes edit the exact bytes the lint read: a byte-order mark, CR LF or lone CR line breaks and
non-ASCII text before a span do not move it; overlapping fixes are merged or skipped with a
note; a file that changed since it was read is not written; the CLI never shows a traceback.
Every example of the issue is a test below (reproduced on main first), on a published
submission changed in one place, asserting the exact bytes of the fixed file.
"""

from __future__ import annotations

import codecs
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint.cli import main
from cfglint.edit.fix import apply_fixes
from cfglint.lint import lint_paths
from cfglint.model import Finding, Span
from support import EXAMPLES, LINEAR_AT_10X, copy_submission, examples, lint, only, position, replace_once

# Kimi K3 on GB300, SGLang TP8 with DSPARK: a 20-line launch script, one command
KIMI = "artificial-analysis/kimi-k3/gb300-sglang-tp8-nnodes2-dspark7"
BOM = codecs.BOM_UTF8


def _fix(d: Path) -> tuple[int, str, list[dict]]:
    """Run ``cfglint check D --fix -f json`` in process: (exit code, everything it printed, the
    findings it reports after fixing)."""
    result = CliRunner().invoke(main, ["check", str(d), "--fix", "--no-config", "-f", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output, json.loads(result.stdout)["findings"]


def _edit(path: Path, edit) -> bytes:
    """Rewrite ``path``'s bytes with ``edit``; returns the new bytes."""
    data = edit(path.read_bytes())
    path.write_bytes(data)
    return data


# -- the issue's four examples ------------------------------------------------------------------

def test_issue_example_two_fixes_on_one_line(tmp_path):
    """Issue 10.6 example 1: 'cp /home/10.0.0.1/x .' became 'cp <host-path>x .' (RED003 replaced
    the address first, then RED001 replaced as many characters of the new line as the old path
    had). The path's fix contains the address's: it is applied once and covers both."""
    d = copy_submission(KIMI, tmp_path)
    before = _edit(d / "run.sh", lambda b: b.replace(b"sglang serve", b"cp /home/10.0.0.1/x .\nsglang serve", 1))
    found = [(f[0], f[2], f[3]) for f in lint(d) if f[0] in ("RED001", "RED003")]
    assert found == [("RED001", 2, 4), ("RED003", 2, 10)]
    code, out, _ = _fix(d)
    assert "fixed 2 finding(s)" in out and code == 0
    assert (d / "run.sh").read_bytes() == before.replace(b"cp /home/10.0.0.1/x .", b"cp <host-path> .")
    assert [f for f in lint(d) if f[0].startswith("RED")] == []


def test_issue_example_bom_does_not_shift_the_fix(tmp_path):
    """Issue 10.6 example 2: with a UTF-8 byte-order mark, a path on line 1 was replaced one
    character early ('cd<host-path>k'). The mark is not part of line 1 (positions) and stays."""
    d = copy_submission(KIMI, tmp_path)
    before = _edit(d / "run.sh", lambda b: BOM + b"cd /home/alice/work\n" + b)
    assert only(lint(d), "RED001") == [("RED001", "run.sh", 1, 4, only(lint(d), "RED001")[0][4])]
    code, out, _ = _fix(d)
    assert "fixed 1 finding(s)" in out and code == 0
    assert (d / "run.sh").read_bytes() == BOM + b"cd <host-path>\n" + before[len(BOM) + len(b"cd /home/alice/work\n"):]


def test_issue_example_lone_cr_between_lines(tmp_path):
    """Issue 10.6 example 3: 'export A=1<CR>cp /home/alice/x .' – the loader counted the lone CR
    as a line break, the fixer did not, so the next line became 'exp<host-path>' and the path
    stayed. Both now count it (textfile.py), and the CR stays where it was."""
    d = copy_submission(KIMI, tmp_path)
    before = _edit(d / "run.sh", lambda b: b.replace(b"sglang serve", b"export A=1\rcp /home/alice/x .\nsglang serve", 1))
    assert [f[2:4] for f in only(lint(d), "RED001")] == [(3, 4)]
    code, out, _ = _fix(d)
    assert "fixed 1 finding(s)" in out and code == 0
    assert (d / "run.sh").read_bytes() == before.replace(b"\rcp /home/alice/x .\n", b"\rcp <host-path> .\n")
    assert only(lint(d), "RED001") == []


def test_issue_example_cr_only_file(tmp_path):
    """Issue 10.6 example 4: a file with only CR line breaks crashed --fix with an IndexError
    traceback (the fixer saw one line, the finding was on line 5)."""
    d = copy_submission(KIMI, tmp_path)
    before = _edit(d / "run.sh", lambda b: b.replace(b"/models/Kimi-K3 ", b"/home/alice/Kimi-K3 ", 1).replace(b"\n", b"\r"))
    assert [f[2:4] for f in only(lint(d), "RED001")] == [(5, 16)]
    code, out, _ = _fix(d)
    assert "Traceback" not in out and "fixed 1 finding(s)" in out and code == 0
    assert (d / "run.sh").read_bytes() == before.replace(b"/home/alice/Kimi-K3 ", b"<host-path> ")


def test_fix_after_crlf_and_non_ascii_on_the_same_line(tmp_path):
    """CR LF line breaks and wide characters before a path on its line: code-point columns
    become the right bytes (the em dash of line 1 is 3 bytes, the emoji 4)."""
    d = copy_submission(KIMI, tmp_path)
    before = _edit(d / "run.sh", lambda b: b.replace(b"/models/Kimi-K3 ", "/home/ä😀/Kimi-K3 ".encode(), 1)
                   .replace(b"--host 0.0.0.0", "--host 0.0.0.0 # → 10.1.2.3".encode()).replace(b"\n", b"\r\n"))
    _fix(d)
    assert (d / "run.sh").read_bytes() == before.replace("/home/ä😀/Kimi-K3 ".encode(), b"<host-path> ") \
        .replace(b"10.1.2.3", b"<head-ip>")


# -- positions: one definition of lines and columns ---------------------------------------------

def test_yaml_positions_do_not_count_unicode_line_separators(tmp_path):
    """PyYAML counts U+2028 (and U+0085, U+2029) as line breaks, so a YAML position after one was
    a line too low (and a fix there would edit the wrong line); positions now come from the
    marks' character offsets, by the lines every other position uses."""
    d = copy_submission("recipes/vllm-gpt-oss-120b-b200-tp1-config", tmp_path)
    replace_once(d / "submission.yaml", "submitter: vLLM project", 'submitter: "vLLM\u2028project"')
    replace_once(d / "submission.yaml", "accelerators_per_instance: 1", "accelerators_per_instance: one")
    text = (d / "submission.yaml").read_text(encoding="utf-8")
    found = [f for f in only(lint(d), "SUB001") if "accelerators_per_instance" in f[4]]
    assert [f[1:4] for f in found] == [("submission.yaml", *position(text, "one"))]


def test_sarif_declares_the_line_breaks_it_counts(tmp_path):
    """A lone CR ends a line for cfglint; SARIF's default is CR LF and LF only, so the run says so."""
    d = copy_submission(KIMI, tmp_path)
    _edit(d / "run.sh", lambda b: b.replace(b"sglang serve", b"export A=1\rcp /home/alice/x .\nsglang serve", 1))
    out = CliRunner().invoke(main, ["check", str(d), "--no-config", "-f", "sarif"]).output
    run = json.loads(out)["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints" and set(run["newlineSequences"]) == {"\r\n", "\n", "\r"}
    region = [r for r in run["results"] if r["ruleId"] == "RED001"][0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (3, 4, 4 + len("/home/alice/x"))


# -- overlaps and stale files -------------------------------------------------------------------

def _findings_at(d: Path, rule: str) -> tuple[dict, list[Finding]]:
    result = lint_paths([str(d)])
    return result.files, [f for f in result.findings if f.rule_id == rule]


def test_overlapping_fixes_with_other_replacements_are_skipped_with_a_note(tmp_path):
    """Two fixes whose spans overlap without one containing the other, and replace the text
    differently, have no right order: neither is applied, each gets a note naming the other."""
    d = copy_submission(KIMI, tmp_path)
    # (a word after the path: a span ending just before the backslash-newline is no whole word)
    before = _edit(d / "run.sh", lambda b: b.replace(b"/models/Kimi-K3 ", b"/home/alice/Kimi-K3 --x ", 1))
    files, (f,) = _findings_at(d, "RED001")
    s = f.span
    other = Finding("HW001", "test", Span(s.path, s.line, s.col + 6, s.line, s.end_col + 1), fix="marlin")
    done = apply_fixes([f, other], files)
    assert done.fixed == 0 and done.files == [] and (d / "run.sh").read_bytes() == before
    assert [n.split(": ", 2)[1:] for n in done.notes] == [
        ["RED001 not fixed", f"its span overlaps the fix of HW001 at {other.span}, which replaces it differently"],
        ["HW001 not fixed", f"its span overlaps the fix of RED001 at {s}, which replaces it differently"]]


def test_overlapping_fixes_with_the_same_replacement_are_merged(tmp_path):
    """Spans that overlap and are replaced by the same text become one edit of their union."""
    d = copy_submission(KIMI, tmp_path)
    before = _edit(d / "run.sh", lambda b: b.replace(b"/models/Kimi-K3 ", b"/home/alice/Kimi-K3 --x ", 1))
    files, (f,) = _findings_at(d, "RED001")
    s = f.span
    longer = Finding("RED001", "test", Span(s.path, s.line, s.col + 6, s.line, s.end_col + 2), fix="<host-path>")
    done = apply_fixes([f, longer, f], files)
    assert (done.fixed, done.edits, done.notes) == (3, 1, [])
    assert (d / "run.sh").read_bytes() == before.replace(b"/home/alice/Kimi-K3 -", b"<host-path>")


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path):
    """The fixer compares the file's bytes with the bytes the lint read: an editor (or another
    process) that saved it in between keeps its version."""
    d = copy_submission(KIMI, tmp_path)
    _edit(d / "run.sh", lambda b: b.replace(b"/models/Kimi-K3 ", b"/home/alice/Kimi-K3 ", 1))
    files, found = _findings_at(d, "RED001")
    newer = _edit(d / "run.sh", lambda b: b"# edited\n" + b)
    done = apply_fixes(found, files)
    assert (d / "run.sh").read_bytes() == newer and done.fixed == 0
    assert done.notes == [f"{found[0].span}: RED001 not fixed: the file changed since cfglint read it"]


def test_a_span_outside_its_line_is_not_applied(tmp_path):
    """A span past the end of its line (or on no line) is a rule's bug: noted, never written."""
    d = copy_submission(KIMI, tmp_path)
    before = _edit(d / "run.sh", lambda b: b.replace(b"/models/Kimi-K3 ", b"/home/alice/Kimi-K3 ", 1))
    files, _ = _findings_at(d, "RED001")
    display = next(p for p in files if p.endswith("run.sh"))
    bad = [Finding("RED001", "t", Span(display, 2, 10, 2, 40), fix="x"),
           Finding("RED001", "t", Span(display, 99, 1, 99, 2), fix="x")]
    done = apply_fixes(bad, files)
    assert done.fixed == 0 and len(done.notes) == 2 and (d / "run.sh").read_bytes() == before


def test_fix_cost_is_linear_in_the_fixes_on_one_line(tmp_path):
    """Many fixes on one long non-ASCII line: 10x the fixes costs about 10x the time (each span's
    byte offset goes on from the previous one, instead of encoding the line up to it again)."""
    import gc
    import time

    from cfglint.read.textfile import read_text

    def run(k: int) -> float:
        path = tmp_path / f"run{k}.sh"
        path.write_text("echo é " + " ".join(f"/home/u{i}/x" for i in range(k)) + "\n", encoding="utf-8")
        tf = read_text(str(path), "run.sh")
        found = [Finding("RED001", "p", Span("run.sh", 1, m.start() + 1, 1, m.end() + 1), fix="<host-path>")
                 for m in re.finditer(r"/home/\S+", tf.text)]
        gc.disable()
        try:
            t = time.perf_counter()
            done = apply_fixes(found, {"run.sh": tf})
            spent = time.perf_counter() - t
        finally:
            gc.enable()
        assert done.fixed == k and path.read_text(encoding="utf-8").count("<host-path>") == k
        return spent

    small = min(run(1_000) for _ in range(5))
    large = min(run(10_000) for _ in range(5))
    assert large <= LINEAR_AT_10X * small + 0.05, (small, large)


# -- property: only the fixed spans change --------------------------------------------------------

FRAGMENTS = [" /home/alice/x ", " 10.0.0.1 ", "/home/10.0.0.1/x", " --host 192.168.1.7 ", "\r", "\r\n", "\n",
             "é", "日本", "😀", "\u2028", "\ufeff", " cp /scratch/u/10.1.2.3:/home/b . ", "#", '"']
ENDINGS = {"lf": lambda t: t, "crlf": lambda t: t.replace("\n", "\r\n"), "cr": lambda t: t.replace("\n", "\r"),
           "mixed": lambda t: "".join(c + ("\r\n" if i % 3 == 0 else "\r" if i % 3 == 1 else "")
                                      for i, c in enumerate(t.split("\n"))).rstrip("\r\n") + "\n"}
N = examples(25, 100)


def _byte_span(data: bytes, line: int, col: int, end_col: int) -> tuple[int, int]:
    """Byte offsets of a single-line span, computed independently of cfglint: lines end at CR LF,
    LF or CR; columns count code points after the byte-order mark."""
    bom = len(BOM) if data.startswith(BOM) else 0
    pieces = re.split(r"(\r\n|\r|\n)", data[bom:].decode("utf-8"))
    lines, breaks = pieces[0::2], pieces[1::2]
    at = bom + sum(len(lines[i].encode()) + len(breaks[i].encode()) for i in range(line - 1))
    text = lines[line - 1]
    return at + len(text[:col - 1].encode()), at + len(text[:end_col - 1].encode())


TARGETS = [(KIMI, "run.sh"),   # a launch script
           ("nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1",
            "decode.args"),   # worker argument files that publish two host paths (fixed too)
           ("recipes/vllm-gpt-oss-120b-b200-tp1-config", "GPT-OSS_Blackwell.yaml")]   # an engine YAML


def _regions(data: bytes, found: list[Finding], name: str) -> list[list]:
    """The byte regions of ``name`` that fixes may replace (overlapping spans joined), each with
    the replacements its fixes offer."""
    spans = sorted((*_byte_span(data, f.span.line, f.span.col, f.span.end_col), f.fix)
                   for f in found if Path(f.span.path).name == name)
    regions: list[list] = []
    for start, end, fix in spans:
        if regions and start < regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], end)
            regions[-1][2].add(fix)
        else:
            regions.append([start, end, {fix}])
    return regions


@settings(max_examples=N, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(target=st.sampled_from(TARGETS), ending=st.sampled_from(sorted(ENDINGS)), bom=st.booleans(),
       inserts=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(FRAGMENTS)), min_size=1, max_size=8))
def test_fix_changes_only_the_fixed_spans(tmp_path_factory, target, ending, bom, inserts):
    """After --fix, every byte outside the spans the findings' fixes name is unchanged, each such
    span is its fix's replacement (or, with a note, unchanged), re-linting finds nothing to fix
    on a replaced span, a second --fix changes nothing, and nothing shows a traceback."""
    rel, name = target
    d = tmp_path_factory.mktemp("fix") / "s"
    shutil.copytree(EXAMPLES / rel, d)
    text = ENDINGS[ending]((d / name).read_text(encoding="utf-8"))
    for where, fragment in inserts:
        at = int(where * len(text))
        text = text[:at] + fragment + text[at:]
    (d / name).write_bytes((BOM if bom else b"") + text.encode("utf-8"))
    before = {p.name: p.read_bytes() for p in d.iterdir()}

    # the spans the fixes may replace, from the findings, before anything is applied
    found = [f for f in lint_paths([str(d)]).findings if f.fix is not None and not f.suppressed]
    assert all(f.span.line == f.span.end_line for f in found)
    code, out, reported = _fix(d)
    assert code in (0, 1) and "Traceback" not in out
    after = {p.name: p.read_bytes() for p in d.iterdir()}
    assert sorted(after) == sorted(before)

    # what --fix reports is the files linted again after fixing
    left = [f for f in reported if f["fix"] is not None and not f["suppressed"]]
    kept = 0
    for file, old in before.items():
        # each region is its old bytes or one of its fixes' replacements; every other byte is the same
        regions = _regions(old, found, file)
        pattern, at = b"", 0
        for start, end, fixes in regions:
            options = [re.escape(old[start:end])] + [re.escape(f.encode()) for f in sorted(fixes)]
            pattern += re.escape(old[at:start]) + b"(" + b"|".join(options) + b")"
            at = end
        match = re.fullmatch(pattern + re.escape(old[at:]), after[file], re.S)
        assert match is not None, file
        replaced = [(match.start(i + 1), match.end(i + 1)) for i, (start, end, _) in enumerate(regions)
                    if match.group(i + 1) != old[start:end]]
        kept += len(regions) - len(replaced)
        # re-linting finds nothing left to fix on a replaced span
        for f in left:
            if Path(f["path"]).name == file:
                s, e = _byte_span(after[file], f["line"], f["column"], f["end_column"])
                assert not any(s < re_ and rs < e for rs, re_ in replaced), f["rule"]
    # a fix not applied, and a finding still to fix, each come with a note
    assert kept <= out.count("not fixed") and len(left) <= out.count("not fixed")
    _fix(d)
    assert {p.name: p.read_bytes() for p in d.iterdir()} == after


# -- issue 25, item 5: a fix covers the whole shell word, or is not offered -----------------------

def _logical_lines(text: str) -> list[str]:
    """The commands' lines as bash joins them (a backslash-newline removed), blank ones left out."""
    return [line for line in text.replace("\\\n", "").split("\n") if line.strip()]


@pytest.mark.parametrize("word, fixed", [
    ("\"/home/\"'alice'/x", None),          # quoted parts: the user name would stay
    ("/home/alice/m\\\nodel", None),        # a backslash-newline inside the word: it would be dropped
    ("'/home/alice'\"/x\"", None),
    ("\"/home/alice/x\"", "\"<host-path>\""),   # the control: one quoted part, replaced inside its quotes
    ("/home/alice/x", "<host-path>"),
])
def test_issue25_a_fix_never_cuts_a_shell_word(tmp_path, word, fixed):
    """Issue 25, item 5: a span across a backslash-newline lost the continuation (one command
    became two); a path in quoted parts was replaced only in its first part (the user name
    stayed, and re-linting no longer reported it). Such a finding keeps no fix and says why;
    --fix leaves the file as it was and the finding is still reported."""
    d = copy_submission(KIMI, tmp_path)
    run = d / "run.sh"
    before = _edit(run, lambda b: b.replace(b"--model-path /models/Kimi-K3 \\",
                                            b"--model-path /models/Kimi-K3 --download-dir " + word.encode() + b" \\", 1))
    red = [f for f in lint_paths([str(d)]).findings if f.rule_id == "RED001"]
    assert len(red) == 1
    code, out, after = _fix(d)
    if fixed is None:
        assert red[0].fix is None and "no --fix: the value goes on past it in the same shell word" in red[0].message
        assert run.read_bytes() == before and "fixed" not in out
        assert [f["rule"] for f in after if f["rule"] == "RED001"] == ["RED001"]
    else:
        assert red[0].fix == "<host-path>"
        assert run.read_bytes() == before.replace(word.encode(), fixed.encode())
        assert not [f for f in after if f["rule"] == "RED001"]
    assert len(_logical_lines(run.read_text(encoding="utf-8"))) == len(_logical_lines(before.decode("utf-8")))


@pytest.mark.parametrize("prev, joined", [
    ("  --download-dir /home/\\", True),    # the word goes on at the start of the next line
    ("  --download-dir /home/ \\", False),  # a blank before the backslash-newline ends the word
    ("  --x a\\\\\\", True),              # an escaped backslash, then the continuation
    ("  --x a\\\\", False),                 # an escaped backslash only: the line ends there
    ("\\", True), ("", False), ("  --tp-size 8", False),
])
def test_a_word_at_the_start_of_a_line_may_go_on_from_the_line_before(prev, joined):
    """Found by the property below on CI: '/home/\\' then '/home/' on the next line is one word,
    /home//home/; the second line's path started at column 1, looked whole on its line, and its
    fix left the first part in place."""
    from cfglint.read.wordparts import continued_into, whole_word_part

    assert continued_into(prev) is joined
    assert whole_word_part("/home/ \\", 0, 6, prev) is not joined
    assert whole_word_part("'/home/alice' \\", 1, 12, prev) is not joined


_PARTS = st.lists(st.sampled_from(["/home/", "alice", "'alice'", '"alice"', "'/home/alice'", '"/home/alice"', "/x",
                                   "'/x'", '"/x"', "\\\n", "$'b'"]), min_size=1, max_size=5)


@settings(max_examples=N, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(parts=_PARTS)
def test_property_a_fix_replaces_a_whole_shell_word_or_nothing(tmp_path_factory, parts):
    """For a value written in any mix of plain and quoted parts and backslash-newlines, starting
    with a host path: after --fix the value, as the shell reads it, is the old one or exactly
    <host-path>, and the commands are the same commands (none split in two)."""
    import shlex

    word = "/home/" + "".join(parts)
    d = tmp_path_factory.mktemp("words") / "s"
    shutil.copytree(EXAMPLES / KIMI, d)
    run = d / "run.sh"
    before = _edit(run, lambda b: b.replace(b"--model-path /models/Kimi-K3 \\",
                                            b"--model-path /models/Kimi-K3 --download-dir " + word.encode() + b" \\", 1))

    def value(text: str) -> str:
        words = shlex.split(text.replace("\\\n", "").replace("$'", "'"), comments=True)
        return words[words.index("--download-dir") + 1]

    code, out, _ = _fix(d)
    assert code in (0, 1) and "Traceback" not in out
    after = run.read_text(encoding="utf-8")
    assert value(after) in (value(before.decode("utf-8")), "<host-path>"), (word, after)
    assert len(_logical_lines(after)) == len(_logical_lines(before.decode("utf-8")))
