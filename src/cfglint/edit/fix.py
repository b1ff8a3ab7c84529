"""Fixes: one edit per finding, shared by ``--fix``, ``--diff``, ``--show-fixes``, SARIF
``fixes`` and editor code actions.

The API:

- :func:`fix_of` (and :func:`fixes_of` for many findings): the edit of one finding, as
  :class:`FindingFix` (its :class:`~cfglint.model.TextEdit` replacements at positions of the
  file as the lint read it, whether the fix is safe, a description), or the reason it cannot be
  made. SARIF ``fixes[].artifactChanges[].replacements`` and an editor's code action are these
  edits; nothing else decides what a fix changes.
- :func:`plan`: every file's new bytes for a set of findings, made from those edits, nothing
  written (``--diff`` shows it, :func:`diff`); :func:`write` writes a plan (``--fix``).
- :func:`apply_fixes` / :func:`apply_moves`: plan and write the text fixes / key moves alone.

A text fix (``Finding.fix``) replaces its span by a fixed placeholder. Its span's line and
columns become byte offsets by the one definition of lines and columns (textfile.py), so a
byte-order mark, CR LF, lone CR line breaks and non-ASCII text before a span cannot move it;
only the spans' bytes change. A span that holds part of a line break, or of a shell expansion,
bracket or quote, is not fixed. Overlapping fixes on one file are resolved before any is
applied: the same edit found twice is made once; a fix whose span contains the others' spans
is applied and covers them (``cp /home/10.0.0.1/x .``: the path becomes ``<host-path>``, the
address inside it goes with it); fixes with the same replacement whose spans overlap become one
edit of their union; any other overlap (different replacements of the same text, a partial
overlap) is not applied, with a note.

A move (``Finding.move``) moves a YAML key to another key path through ruamel.yaml's round-trip
mode (:mod:`cfglint.edit.roundtrip`); its edits are the lines the move changes. All the moves of
one file are made in one round trip, which for one move is the finding's own edit.

Safe and unsafe: a fix whose ``Finding.fix_safe`` is False (it changes what the engine does, or
needs a person's review) is made only with ``unsafe=True`` (``--unsafe-fixes``). A file whose
bytes changed since the lint read them is not written, with a note.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from ..model import Finding, Span, TextEdit
from ..read.safeio import ReadError, atomic_write, read_bytes
from ..read.textfile import ByteMap, LineIndex, TextFile
from ..read.wordparts import whole_word_part


def _whole(text: str) -> bool:
    """Whether ``text`` (the characters a fix replaces) holds whole shell words' parts: no
    expansion, bracket or quote opened or closed outside it (``${X`` without its ``}``)."""
    pairs = (("${", "}"), ("$(", ")"), ("[", "]"))
    if any(text.count(o) != text.count(c) for o, c in pairs):
        return False
    return text.count('"') % 2 == 0 and text.count("'") % 2 == 0 and text.count("`") % 2 == 0


@dataclass(frozen=True, slots=True)
class FindingFix:
    """The fix of one finding: ``edits`` of the file ``path`` (the display path; positions of
    the file as read, end columns exclusive), ``safe`` (False: only with --unsafe-fixes) and a
    ``description`` that quotes no text of the file (``Replace with <host-path>``, ``Move
    kv_cache_dtype to kv_cache_config.dtype``)."""

    finding: Finding
    path: str
    edits: tuple[TextEdit, ...]
    safe: bool
    description: str


@dataclass(slots=True)
class FileChange:
    """A file as a plan would write it: ``new`` bytes (``tf.data`` are the bytes the lint read),
    the ``fixed`` findings (a finding whose span a bigger fix replaced counts) and how many
    replacements (``edits``) make the change."""

    display: str
    tf: TextFile
    new: bytes
    fixed: list[Finding]
    edits: int


@dataclass(slots=True)
class FixPlan:
    """What fixing would change: ``changes`` per file (in the order of the files' first
    finding), a ``notes`` line per fix that cannot be made (``path:line:col: RULE not fixed:
    why``; no text of the file is quoted) and the ``unsafe`` findings left out (their fix needs
    ``unsafe=True``)."""

    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unsafe: list[Finding] = field(default_factory=list)

    @property
    def fixed(self) -> list[Finding]:
        return [f for c in self.changes for f in c.fixed]


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


# -- one finding's edit -------------------------------------------------------------------------

def fix_of(f: Finding, tf: TextFile | None, where: ByteMap | None = None) -> FindingFix | str | None:
    """The fix of ``f`` in ``tf`` (the file as the lint read it; ``where``: its ByteMap, when
    the caller has one for many findings): a :class:`FindingFix`, the reason it cannot be made
    (a str), or None when ``f`` has no fix. Reads and writes nothing."""
    if f.move is not None:
        return _move_fix(f, tf)
    if f.fix is None:
        return None
    s = f.span
    if s.line != s.end_line:
        return "the span runs over several lines"
    if tf is not None:
        where = where or ByteMap(tf)
        at = where.byte_range(s.line, s.col, s.end_col)
        if at is None or at[0] == at[1]:
            return "the span is not inside one line of the file as read"
        if not _whole(tf.data[at[0]:at[1]].decode("utf-8", "replace")):
            return "the replacement would cut a shell expansion, bracket or quote in two"
        if not whole_word_part(where.lines[s.line - 1], s.col - 1, s.end_col - 1):
            return "the span is part of a longer shell word (quoted parts, a backslash-newline)"
    return FindingFix(f, s.path, (TextEdit(s, f.fix),), f.fix_safe, f"Replace with {f.fix}")


def fixes_of(findings: Iterable[Finding], files: dict[str, TextFile],
             hide: Callable[[str], str] | None = None) -> dict[int, FindingFix]:
    """:func:`fix_of` of every finding that has a fix that can be made, keyed by ``id(finding)``
    (SARIF and code actions look a finding up there); one ByteMap per file. ``hide`` (the
    run's masking) is applied to the text each edit inserts (a moved line is the file's text)."""
    maps: dict[str, ByteMap] = {}
    out: dict[int, FindingFix] = {}
    for f in findings:
        if f.fix is None and f.move is None:
            continue
        tf = files.get(f.span.path)
        if tf is not None and f.span.path not in maps:
            maps[f.span.path] = ByteMap(tf)
        got = fix_of(f, tf, maps.get(f.span.path))
        if isinstance(got, FindingFix):
            if hide is not None:
                got = replace(got, edits=tuple(TextEdit(e.span, hide(e.text)) for e in got.edits))
            out[id(f)] = got
    return out


def _move_refusal(tf: TextFile) -> str | None:
    """Why the keys of ``tf`` are not moved by a round trip, or None."""
    if tf.had_crlf or b"\r" in tf.data or tf.data.startswith(b"\xef\xbb\xbf") or any(c in tf.text for c in "&*<"):
        return ("the file has CR line ends, a byte-order mark, or YAML anchors, aliases or merge keys; "
                "move the key by hand")
    return None


def _move_fix(f: Finding, tf: TextFile | None) -> FindingFix | str:
    if tf is None:
        return "the file is not at hand"
    why = _move_refusal(tf)
    if why is not None:
        return why
    notes: list[str] = []
    new, moved = _moved_text(tf.text, [f], notes)
    if not moved:
        return notes[0].split(" not fixed: ", 1)[-1] if notes else "the key cannot be moved"
    old_path, new_path = f.move
    return FindingFix(f, f.span.path, tuple(line_edits(f.span.path, tf.text, new)), f.fix_safe,
                      f"Move {'.'.join(old_path)} to {'.'.join(new_path)}")


def line_edits(path: str, old: str, new: str) -> list[TextEdit]:
    """The edits that turn ``old`` into ``new`` (texts whose lines end with LF), whole lines at
    a time: each changed run of lines is replaced (or inserted before the line it precedes).
    :func:`apply_text_edits` of the result on ``old`` gives ``new``."""
    a, b = old.split("\n"), new.split("\n")
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 < len(a):   # the run ends before line i2 + 1: replace whole lines, their breaks included
            text = "".join(line + "\n" for line in b[j1:j2])
            out.append(TextEdit(Span(path, i1 + 1, 1, i2 + 1, 1), text))
        elif i1 < i2:     # the run reaches the end of the text
            out.append(TextEdit(Span(path, i1 + 1, 1, len(a), len(a[-1]) + 1), "\n".join(b[j1:j2])))
        else:             # lines added after the last one
            out.append(TextEdit(Span(path, len(a), len(a[-1]) + 1, len(a), len(a[-1]) + 1),
                                "".join("\n" + line for line in b[j1:j2])))
    return out


def apply_text_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """``text`` (lines ending with LF, as :attr:`TextFile.text`) with ``edits`` made; the edits
    must not overlap. Raises ValueError for an edit outside the text."""
    index = LineIndex(text)
    spans = []
    for e in edits:
        start, end = index.offset(e.span.line, e.span.col), index.offset(e.span.end_line, e.span.end_col)
        if start is None or end is None or end < start:
            raise ValueError(f"edit outside the text: {e.span}")
        spans.append((start, end, e.text))
    out, at = [], 0
    for start, end, new in sorted(spans, key=lambda x: (x[0], x[1])):
        if start < at:
            raise ValueError("edits overlap")
        out += [text[at:start], new]
        at = end
    out.append(text[at:])
    return "".join(out)


# -- a plan: the new bytes of every file --------------------------------------------------------

@dataclass(slots=True)
class _Edit:
    """Replace bytes [start, end) of one file by ``text``, for ``findings``."""

    start: int
    end: int
    text: str
    findings: list[Finding]


def _text_edits(fs: list[Finding], tf: TextFile, notes: list[str]) -> list[_Edit]:
    """The byte edits of one file's text fixes: positions checked, overlaps resolved, sorted by
    offset, none overlapping another."""
    where = ByteMap(tf)
    edits: list[_Edit] = []
    for f in sorted(fs, key=lambda f: (f.span.line, f.span.col)):
        got = fix_of(f, tf, where)
        if isinstance(got, str):
            notes.append(_note(f, got))
            continue
        (edit,) = got.edits
        s = edit.span
        start, end = where.byte_range(s.line, s.col, s.end_col)
        edits.append(_Edit(start, end, edit.text, [f]))
    edits.sort(key=lambda e: (e.start, -e.end))
    groups: list[list[_Edit]] = []   # runs of edits that overlap one another
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
                out.append(_Edit(start, end, (outer or texts).pop(), found))
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


def _active_per_file(findings: Iterable[Finding], files: dict, attr: str) -> dict[str, list[Finding]]:
    """Active (not suppressed) findings that carry ``attr`` (``fix`` or ``move``), per file the lint read."""
    per_file: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if getattr(f, attr) is not None and not f.suppressed and f.span.path in files:
            per_file[f.span.path].append(f)
    return per_file


def plan(findings: Iterable[Finding], files: dict[str, TextFile], unsafe: bool = False,
         text_fixes: bool = True, moves: bool = True) -> FixPlan:
    """The change fixing the active (not suppressed) findings would make to each file, made
    from their edits (:func:`fix_of`); nothing is read or written. ``files`` maps a display path
    to the file as the lint read it (:attr:`LintResult.files`). Unsafe fixes (``fix_safe``
    False) are left out, into ``unsafe``, unless ``unsafe``. The text fixes of a file are made
    first; a file that has them gets no move in the same plan (a note: run --fix again)."""
    findings = list(findings)
    out = FixPlan()
    wanted = []
    for f in findings:
        if (f.fix is not None or f.move is not None) and not f.suppressed and f.span.path in files:
            if f.fix_safe or unsafe:
                wanted.append(f)
            else:
                out.unsafe.append(f)
    changed: dict[str, FileChange] = {}
    if text_fixes:
        for display, fs in _active_per_file(wanted, files, "fix").items():
            tf = files[display]
            edits = _text_edits(fs, tf, out.notes)
            if not edits:
                continue
            parts, at = [], 0
            for e in edits:
                parts += [tf.data[at:e.start], e.text.encode("utf-8")]
                at = e.end
            parts.append(tf.data[at:])
            changed[display] = FileChange(display, tf, b"".join(parts), [f for e in edits for f in e.findings],
                                          len(edits))
    if moves:
        for display, fs in _active_per_file(wanted, files, "move").items():
            tf = files[display]
            if display in changed:
                out.notes += [_note(f, "its file had other fixes in this run; run --fix again") for f in fs]
                continue
            why = _move_refusal(tf)
            if why is not None:
                out.notes += [_note(f, why) for f in fs]
                continue
            new, moved = _moved_text(tf.text, fs, out.notes)
            if moved:
                changed[display] = FileChange(display, tf, new.encode("utf-8"), moved, len(moved))
    out.changes = sorted(changed.values(), key=lambda c: c.display)
    return out


def write(fix_plan: FixPlan) -> FixReport:
    """Write each file of ``fix_plan`` whose bytes on disk are still the bytes the lint read
    (a file gone, unreadable or grown since counts as changed: a note, not written), atomically
    and never through a symbolic link (safeio). Raises OSError when a file cannot be written."""
    report = FixReport(notes=list(fix_plan.notes))
    for change in fix_plan.changes:
        tf = change.tf
        try:  # safeio: no FIFO, no device; a file grown past what was read is changed too
            current = read_bytes(tf.path, len(tf.data))
        except ReadError:
            current = None
        if current != tf.data:
            report.notes += [_note(f, "the file changed since cfglint read it") for f in change.fixed]
            continue
        atomic_write(tf.path, change.new)  # temp file + rename; never through a symbolic link
        report.files.append(change.display)
        report.edits += change.edits
        report.fixed += len(change.fixed)
    return report


def apply_fixes(findings: list[Finding], files: dict[str, TextFile], unsafe: bool = False) -> FixReport:
    """Apply the text fixes of active (not suppressed) findings to the files they are in
    (:func:`plan` with text fixes only, then :func:`write`). Raises OSError when a file cannot
    be written."""
    return write(plan(findings, files, unsafe=unsafe, moves=False))


def apply_moves(findings: list[Finding], files: dict[str, TextFile], skip: set[str] = frozenset(),
                unsafe: bool = False) -> FixReport:
    """Apply the structural fixes of active findings (:attr:`Finding.move`: a YAML key moved to
    another key path of its file, e.g. TensorRT-LLM's ``kv_cache_dtype`` to
    ``kv_cache_config.dtype``), through ruamel.yaml's round-trip mode: the value moves with its
    own comments, every other line stays as written (:mod:`cfglint.edit.roundtrip`). Files in
    ``skip`` (text fixes were just written to them: run ``--fix`` again) and files whose bytes
    changed since the lint read them are not written, with a note; so are a move whose target
    is already set or lies under a value that is not a mapping, and files with anchors, aliases
    or merge keys (a moved key could be shared). Raises OSError when a file cannot be written."""
    kept = [f for f in findings if f.span.path not in skip]
    notes = [_note(f, "its file had other fixes in this run; run --fix again")
             for f in findings if f.move is not None and not f.suppressed and f.span.path in skip]
    done = write(plan(kept, files, unsafe=unsafe, text_fixes=False))
    done.notes = notes + done.notes
    return done


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


def planned_edits(findings: list[Finding], tf: TextFile) -> tuple[list[_Edit], list[str]]:
    """The byte edits of :attr:`TextFile.data` that ``--fix`` makes in ``tf`` for the active text
    fixes among ``findings`` (overlaps resolved as there), and a note per fix it would not make;
    nothing is written (an editor's code action applies them)."""
    notes: list[str] = []
    fs = [f for f in findings if f.fix is not None and not f.suppressed and f.span.path == tf.display]
    return _text_edits(fs, tf, notes), notes


def planned_move(findings: list[Finding], tf: TextFile) -> tuple[str | None, list[Finding], list[str]]:
    """The text ``--fix`` writes to ``tf`` for the active structural fixes among ``findings``
    (None when it writes nothing), the findings it fixes, and notes; nothing is written."""
    notes: list[str] = []
    fs = [f for f in findings if f.move is not None and not f.suppressed and f.span.path == tf.display]
    if not fs:
        return None, [], notes
    why = _move_refusal(tf)
    if why is not None:
        return None, [], [_note(f, why) for f in fs]
    new, moved = _moved_text(tf.text, fs, notes)
    return (new if moved else None), moved, notes


# -- showing a plan -----------------------------------------------------------------------------

def diff(fix_plan: FixPlan, hide: Callable[[str], str] = lambda s: s) -> str:
    """The unified diff of ``fix_plan`` (``--- path`` / ``+++ path``, three lines of context),
    file by file; every line passes ``hide`` (credentials as ``*``, the run's masking) and is
    neutralized like report text (no control character or workflow command from a file)."""
    from ..output.neutral import neutralize

    out: list[str] = []
    for change in fix_plan.changes:
        # lines with their ends, as diff(1) reads them: no line past the last newline, and a last
        # line without one marked as patch(1) expects
        old = change.tf.text.splitlines(keepends=True)
        new = _decoded(change).splitlines(keepends=True)
        shown = neutralize(change.display)
        for line in difflib.unified_diff(old, new, shown, shown, n=3):
            if line.startswith(("---", "+++", "@@")):
                out.append(line.rstrip("\n"))
                continue
            body = line[1:]
            out.append(neutralize(line[0] + hide(body.removesuffix("\n"))))
            if not body.endswith("\n"):
                out.append("\\ No newline at end of file")
    return "".join(line + "\n" for line in out)


def _decoded(change: FileChange) -> str:
    """The new bytes of ``change`` as text whose lines end with LF (as :attr:`TextFile.text`)."""
    from ..read.textfile import normalize_newlines

    return normalize_newlines(change.new.decode("utf-8-sig", "replace"))


def shown_fixes(fixed: Iterable[Finding], files: dict[str, TextFile],
                hide: Callable[[str], str] = lambda s: s) -> list[str]:
    """One line per fixed finding for ``--show-fixes``: ``path:line:col: RULE 'old' -> 'new'``
    (a move: ``old.key -> new.key``), old text through ``hide`` and bounded (model.quote)."""
    from ..model import quote
    from ..output.neutral import neutralize

    out = []
    lines_of: dict[str, list[str]] = {}
    for f in sorted(fixed, key=Finding.sort_key):
        if f.move is not None:
            change = f"{'.'.join(f.move[0])} -> {'.'.join(f.move[1])}"
        else:
            if f.span.path not in lines_of:
                tf = files.get(f.span.path)
                lines_of[f.span.path] = tf.lines if tf is not None else []
            lines = lines_of[f.span.path]
            s = f.span
            old = lines[s.line - 1][s.col - 1:s.end_col - 1] if 1 <= s.line <= len(lines) else ""
            change = f"{quote(hide(old))} -> {quote(f.fix)}"
        out.append(neutralize(f"{f.span}: {f.rule_id} {change}"))
    return out


__all__ = ["FileChange", "FindingFix", "FixPlan", "FixReport", "apply_fixes", "apply_moves", "apply_text_edits",
           "diff", "fix_of", "fixes_of", "line_edits", "plan", "planned_edits", "planned_move", "shown_fixes", "write"]
