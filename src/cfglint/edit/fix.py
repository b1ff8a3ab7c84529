"""``--fix``: apply mechanical fixes (a finding's ``fix`` text replaces its span) in place.

Fixes are edits of the bytes the lint read (:attr:`TextFile.data`): a span's line and columns
become byte offsets by the one definition of lines and columns (textfile.py), so a byte-order
mark, CR LF, lone CR line breaks and non-ASCII text before a span cannot move it. Only the
spans' bytes change: comments, quoting, indentation, line breaks and every other byte stay as
they were. A span that holds part of a line break, or of a shell expansion, bracket or quote,
is not fixed.

Overlapping fixes on one file are resolved before any is applied: the same edit found twice is
made once; a fix whose span contains the others' spans is applied and covers them (``cp
/home/10.0.0.1/x .``: the path becomes ``<host-path>``, the address inside it goes with it);
fixes with the same replacement whose spans overlap become one edit of their union; any other
overlap (different replacements of the same text, a partial overlap) is not applied, with a
note. A file whose bytes changed since the lint read them is not written, with a note.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..model import Finding
from ..read.safeio import ReadError, atomic_write, read_bytes
from ..read.textfile import ByteMap, TextFile
from ..read.wordparts import whole_word_part


def _whole(text: str) -> bool:
    """Whether ``text`` (the characters a fix replaces) holds whole shell words' parts: no
    expansion, bracket or quote opened or closed outside it (``${X`` without its ``}``)."""
    pairs = (("${", "}"), ("$(", ")"), ("[", "]"))
    if any(text.count(o) != text.count(c) for o, c in pairs):
        return False
    return text.count('"') % 2 == 0 and text.count("'") % 2 == 0 and text.count("`") % 2 == 0


@dataclass(slots=True)
class Edit:
    """Replace bytes [start, end) of one file by ``text``, for ``findings``."""

    start: int
    end: int
    text: str
    findings: list[Finding]


@dataclass(slots=True)
class FixReport:
    """What ``--fix`` did: ``fixed`` findings (a finding whose span a bigger fix replaced
    counts), ``edits`` replacements made, ``files`` written, and one ``notes`` line per fix not
    applied (``path:line:col: RULE not fixed: why``; no text of the file is quoted)."""

    fixed: int = 0
    edits: int = 0
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _note(f: Finding, why: str) -> str:
    return f"{f.span}: {f.rule_id} not fixed: {why}"


def _plan(fs: list[Finding], tf: TextFile, notes: list[str]) -> list[Edit]:
    """The edits of one file's fixes: positions checked, overlaps resolved, sorted by offset,
    none overlapping another."""
    where = ByteMap(tf)
    edits: list[Edit] = []
    for f in sorted(fs, key=lambda f: (f.span.line, f.span.col)):
        s = f.span
        if s.line != s.end_line:
            notes.append(_note(f, "the span runs over several lines"))
            continue
        at = where.byte_range(s.line, s.col, s.end_col)
        if at is None or at[0] == at[1]:
            notes.append(_note(f, "the span is not inside one line of the file as read"))
            continue
        if not _whole(tf.data[at[0]:at[1]].decode("utf-8", "replace")):
            notes.append(_note(f, "the replacement would cut a shell expansion, bracket or quote in two"))
            continue
        if not whole_word_part(where.lines[s.line - 1], s.col - 1, s.end_col - 1):
            notes.append(_note(f, "the span is part of a longer shell word (quoted parts, a backslash-newline)"))
            continue
        edits.append(Edit(at[0], at[1], f.fix or "", [f]))
    edits.sort(key=lambda e: (e.start, -e.end))
    groups: list[list[Edit]] = []   # runs of edits that overlap one another
    reach = -1                       # the end of the last run
    for e in edits:
        if e.start < reach:
            groups[-1].append(e)
        else:
            groups.append([e])
        reach = max(reach, e.end)
    out = []
    for group in groups:
        start, end = group[0].start, max(e.end for e in group)
        found = [f for e in group for f in e.findings]
        outer = {e.text for e in group if (e.start, e.end) == (start, end)}
        texts = {e.text for e in group}
        if len(outer) == 1 or (not outer and len(texts) == 1):
            if _whole(tf.data[start:end].decode("utf-8", "replace")):
                out.append(Edit(start, end, (outer or texts).pop(), found))
            else:
                notes += [_note(f, "its span and the overlapping ones together would cut a shell expansion, "
                                   "bracket or quote in two") for f in found]
            continue
        for f in found:
            others = sorted({f"{o.rule_id} at {o.span}" for o in found[:4] if o is not f})
            more = f" and {len(found) - 4} more" if len(found) > 4 else ""
            notes.append(_note(f, f"its span overlaps the fix of {', '.join(others[:3])}{more}, "
                                  "which replaces it differently"))
    return out


def _active_per_file(findings: list[Finding], files: dict, attr: str) -> dict[str, list[Finding]]:
    """Active (not suppressed) findings that carry ``attr`` (``fix`` or ``move``), per file the lint read."""
    per_file: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if getattr(f, attr) is not None and not f.suppressed and f.span.path in files:
            per_file[f.span.path].append(f)
    return per_file


def apply_fixes(findings: list[Finding], files: dict[str, TextFile]) -> FixReport:
    """Apply the fixes of active (not suppressed) findings to the files they are in. ``files``
    maps a display path to the file as the lint read it (:attr:`LintResult.files`). A file is
    written only when its bytes on disk are still the bytes the lint read (a file gone or
    unreadable since counts as changed). Raises OSError when a file cannot be written."""
    per_file = _active_per_file(findings, files, "fix")
    report = FixReport()
    for display, fs in per_file.items():
        tf = files[display]
        edits = _plan(fs, tf, report.notes)
        if not edits:
            continue
        try:  # safeio: no FIFO, no device; a file grown past what was read is changed too
            current = read_bytes(tf.path, len(tf.data))
        except ReadError:
            current = None   # gone, unreadable or grown since: changed
        if current != tf.data:
            report.notes += [_note(f, "the file changed since cfglint read it") for e in edits for f in e.findings]
            continue
        parts, at = [], 0
        for e in edits:
            parts += [tf.data[at:e.start], e.text.encode("utf-8")]
            at = e.end
        parts.append(tf.data[at:])
        atomic_write(tf.path, b"".join(parts))  # temp file + rename; never through a symbolic link
        report.files.append(display)
        report.edits += len(edits)
        report.fixed += sum(len(e.findings) for e in edits)
    return report


def apply_moves(findings: list[Finding], files: dict[str, TextFile], skip: set[str] = frozenset()) -> FixReport:
    """Apply the structural fixes of active findings (:attr:`Finding.move`: a YAML key moved to
    another key path of its file, e.g. TensorRT-LLM's ``kv_cache_dtype`` to
    ``kv_cache_config.dtype``), through ruamel.yaml's round-trip mode: the value moves with its
    own comments, every other line stays as written (:mod:`cfglint.edit.roundtrip`). Files in
    ``skip`` (text fixes were just written to them: run ``--fix`` again) and files whose bytes
    changed since the lint read them are not written, with a note; so are a move whose target
    is already set or lies under a value that is not a mapping, and files with anchors, aliases
    or merge keys (a moved key could be shared). Raises OSError when a file cannot be written."""
    per_file = _active_per_file(findings, files, "move")
    report = FixReport()
    for display, fs in per_file.items():
        tf = files[display]
        if display in skip:
            report.notes += [_note(f, "its file had other fixes in this run; run --fix again") for f in fs]
            continue
        try:
            current = read_bytes(tf.path, len(tf.data))
        except ReadError:
            current = None
        if current != tf.data:
            report.notes += [_note(f, "the file changed since cfglint read it") for f in fs]
            continue
        if tf.had_crlf or tf.data.startswith(b"\xef\xbb\xbf") or any(c in tf.text for c in "&*<"):
            report.notes += [_note(f, "the file has CR LF line ends, a byte-order mark, or YAML anchors, aliases "
                                      "or merge keys; move the key by hand") for f in fs]
            continue
        new, moved = _moved_text(tf.text, fs, report.notes)
        if not moved:
            continue
        atomic_write(tf.path, new)
        report.files.append(display)
        report.edits += len(moved)
        report.fixed += len(moved)
    return report


def _moved_text(text: str, fs: list[Finding], notes: list[str]) -> tuple[str, list[Finding]]:
    """``text`` with the moves of ``fs`` made (round-trip), and the findings whose move was made."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    from .roundtrip import dump, keep_unchanged, rt_yaml, style_of

    try:
        style, noop = style_of(text)
        y = rt_yaml(*style)
        doc = y.load(text)
    except (YAMLError, ValueError, RecursionError):
        notes += [_note(f, "ruamel.yaml cannot read the file back") for f in fs]
        return text, []
    moved = []
    for f in sorted(fs, key=lambda f: (f.span.line, f.span.col)):
        old, new = f.move
        parent = doc
        for k in old[:-1]:
            parent = parent.get(k) if isinstance(parent, dict) else None
        if not isinstance(parent, dict) or old[-1] not in parent:
            notes.append(_note(f, "the key is not where the finding says"))
            continue
        target = doc
        for k in new[:-1]:
            if isinstance(target, dict) and k not in target:
                target[k] = CommentedMap()
            target = target.get(k) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            notes.append(_note(f, f"{'.'.join(new[:-1])} is not a mapping; move the key by hand"))
            continue
        if new[-1] in target:
            notes.append(_note(f, f"{'.'.join(new)} is set already; remove {'.'.join(old)} by hand"))
            continue
        comment = parent.ca.items.pop(old[-1], None)   # the key's end-of-line comment moves with it
        if target is parent:   # a rename in place: the key keeps its position
            at = list(parent).index(old[-1])
            parent.insert(at, new[-1], parent.pop(old[-1]))
        else:
            target[new[-1]] = parent.pop(old[-1])
        if comment is not None:
            target.ca.items[new[-1]] = comment
        moved.append(f)
    if not moved:
        return text, []
    return keep_unchanged(text, noop, dump(y, doc)), moved
