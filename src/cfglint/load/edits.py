"""What a launch script does to an engine config it writes with a heredoc, after writing it.

A script often writes a template and fills it in place (AIBrix's TensorRT-LLM pods:
``cat > /tmp/ctx_config.yaml <<'EOF' ... free_gpu_memory_fraction: __GPU_MEM_FRACTION__ ...``
then ``sed -i "s/__GPU_MEM_FRACTION__/${GPU_MEM_FRACTION}/" /tmp/ctx_config.yaml``). Nothing is
run; an unquoted heredoc's text is taken as the walker expands it (read.shell ``WrittenFile.expanded``),
and a ``<<-`` heredoc's without each line's leading tabs, as bash writes it; the
later commands that name the file are read as follows:

- ``sed -i 's/PATTERN/REPLACEMENT/'`` (or ``g``; any delimiter; ``-e``, ``-E`` / ``-r`` allowed) whose
  pattern is literal text, optionally anchored with ``^`` / ``$`` (no other regex character, no
  backslash), run on every run (not in a branch or loop): applied to the text line by line as sed
  does, first match or every match (``g``), ``&`` in the replacement being the match. A
  replacement known statically (literal, or a shell / container value) is put in; one known only
  at run time leaves the values on the lines it changes not known (:attr:`Edited.unknown`).
- any other edit of the file (another sed script or option, ``awk``, ``perl``, ``yq``, ``tee``,
  ``cp`` / ``mv`` onto it, output redirected into it, a heredoc appended to it): its contents are
  not known statically (:attr:`Edited.opaque`).
- any other command that names it (``cat``, the engine's ``--config``) only reads it.

Bounded: at most :data:`MAX_SUBSTITUTIONS` substitutions per file, :data:`MAX_EDITED` characters of
text and :data:`MAX_UNKNOWN` values put in at run time; beyond, the file is not known. The
substitutions of all the files of one lint unit write at most :data:`MAX_WRITTEN` characters in
all (``budget``; each writes its file's whole text): sixteen ``s/a/&&&&/g`` make a million characters
of a four-line file, and 64 such files cost minutes; beyond, the later files are not known. Every
character of the edited text keeps the offset in the heredoc body it comes from
(:attr:`Edited.origin`): a value a substitution puts in is placed on the text it replaces, so a
finding on it points at the template's placeholder.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import field

from ..model import Span, record
from ..read.shell import Command, ShellScript, WrittenFile

MAX_SUBSTITUTIONS = 16      # sed substitutions applied to one written file; more: not known statically
MAX_EDITED = 1_000_000      # characters the edited text may grow to; longer: not known statically
MAX_UNKNOWN = 64            # values put in at run time per file; more: the whole file is not known
MAX_WRITTEN = 1_000_000     # characters the substitutions of one lint unit's files write in all (the work)

# programs that change a file they name (or may): what they leave is not known statically
EDITORS = frozenset({"awk", "gawk", "mawk", "nawk", "perl", "yq", "ed", "ex", "vi", "vim", "tee", "truncate",
                     "dd", "envsubst", "patch", "crudini", "jq"})
# programs whose last word is the file they write (cp SRC DEST)
COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "curl", "wget"})
_BRE = set(".[]*\\^$")
_ERE = _BRE | set("+?(){}|")


@record
class Substitution:
    """A ``sed -i s/PATTERN/REPLACEMENT/`` read: the literal pattern (``^`` / ``$`` anchors
    apart), the replacement (None: known only at run time), every match (``g``) or the first."""

    pattern: str
    replacement: str | None
    every: bool = False
    start: bool = False     # anchored at the line's start (^)
    end: bool = False       # anchored at the line's end ($)


@record
class Edited:
    """A written file's text once the script's later edits are applied (see the module)."""

    text: str
    origin: list[int] | None = None   # offset in the heredoc body of each character (None: unchanged)
    # the body ranges [start, end) whose value is known only at run time, with the command that
    # puts it there (its words as written) and where that command is
    unknown: list[tuple[int, int, str, Span]] = field(default_factory=list)
    # why the text is not known statically: what the script does to it, the command, where it is
    opaque: tuple[str, str, Span] | None = None


def _shown(cmd: Command, limit: int = 100) -> str:
    text = " ".join(w.raw for w in cmd.words)
    return text if len(text) <= limit else text[:limit].rstrip() + " ..."


def substitution(words: list, path: str) -> Substitution | None | bool:
    """``words`` (a ``sed`` command) as a :class:`Substitution` of the file ``path``; False when
    it does not edit the file in place (``sed`` without ``-i`` prints); None when it edits it in a way
    this module does not read."""
    in_place = extended = False
    script = None
    files: list[str] = []
    i = 1
    while i < len(words):
        w = words[i]
        if w.conditional or w.choices:
            return None   # a word present, or a value, on some runs only
        t = w.text if w.static else None
        if t is None:
            if script is None and i + 1 < len(words) and words[i + 1].static:
                script = w    # the script, known in part: its replacement may be a run-time value
                i += 1
                continue
            return None
        if t == "-i" or t == "--in-place":
            in_place = True
        elif t in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif t == "-e" and script is None and i + 1 < len(words):
            script = words[i + 1]
            i += 1
        elif t.startswith("-") and t != "-":
            return None   # -n, -z, -s, -i.bak, a cluster: not read (-i.bak also keeps a copy: still an edit)
        elif script is None:
            script = w
        else:
            files.append(t)
        i += 1
    if not in_place:
        return False
    if script is None or not files:
        return None
    if path not in [os.path.normpath(f) for f in files]:
        return False
    return _parse_s(script.text, script.static, extended)


def _parse_s(text: str, static: bool, extended: bool) -> Substitution | None:
    if len(text) < 4 or text[0] != "s" or text[1] in "\\\n" or text[1].isalnum():
        return None
    parts = text[2:].split(text[1])
    if len(parts) != 3 or parts[2] not in ("", "g"):
        return None
    pattern, replacement, flags = parts
    if "\n" in pattern + replacement:
        return None   # a line break not escaped: GNU sed stops with "unterminated `s' command"
    if not static and any(ch in pattern + flags for ch in "$`"):
        return None   # the pattern itself is known only at run time
    start = pattern.startswith("^")
    end = pattern.endswith("$") and len(pattern) > int(start)
    core = pattern[int(start):len(pattern) - int(end)]
    special = _ERE if extended else _BRE
    if any(ch in special for ch in core) or (not core and not (start or end)):
        return None   # a regular expression (or sed's "the last regex"): not read
    if static and "\\" in replacement:
        return None   # an escape (\n, \1): not read
    return Substitution(core, replacement if static else None, flags == "g", start, end)


def edited(wf: WrittenFile, script: ShellScript, path: str, budget: list[int] | None = None) -> Edited:
    """The text of ``wf`` (written to ``path``, normalised) after the commands of ``script``
    that follow it; see the module. ``budget``: the characters the substitutions may still write,
    shared by the files of one lint unit (spent here)."""
    budget = budget if budget is not None else [MAX_WRITTEN]
    out = Edited(wf.text) if wf.expanded is None else Edited(wf.expanded, list(wf.origin or ()))
    if wf.strip_tabs:
        out = _tabs_stripped(wf.text, out)
    for other in script.files:
        if other.after > wf.after and other.path is not None and os.path.normpath(other.path) == path and other.append:
            out.opaque = ("appends a heredoc to it", f"cat >> {other.path}", other.span)
            return out
    for r in script.redirects:
        if r.after > wf.after and r.path is not None and os.path.normpath(r.path) == path:
            out.opaque = ("writes into it at run time", f"{r.op} {r.path}", r.span)
            return out
    done = 0
    for cmd in script.commands[wf.after + 1:]:
        texts = [w.text for w in cmd.words if w.static]
        if not cmd.words or not any(os.path.normpath(t) == path or t.endswith("=" + path) for t in texts[1:]):
            continue
        program = os.path.basename(cmd.words[0].text) if cmd.words[0].static else ""
        if program == "sed":
            sub = substitution(cmd.words, path)
            if sub is False:
                continue
            if sub is not None and cmd.certain and done >= MAX_SUBSTITUTIONS:
                out.opaque = (f"edits it with more than {MAX_SUBSTITUTIONS} substitutions (more than cfglint reads)",
                              _shown(cmd), cmd.span)
                return out
            if sub is not None and cmd.certain:
                done += 1
                applied = _apply(out, sub, cmd, budget)
                if applied is None:
                    out.opaque = (f"edits it with substitutions that write more text than cfglint reads (over "
                                  f"{MAX_WRITTEN:,} characters, with those of the other configs the scripts "
                                  "write)", _shown(cmd), cmd.span)
                    return out
                if applied:
                    continue
        elif program in EDITORS or (program in COPIERS and cmd.words[-1].static
                                    and os.path.normpath(cmd.words[-1].text) == path):
            pass
        else:
            continue   # reads it (cat, grep, the engine's --config)
        out.opaque = ("edits it at run time" + ("" if cmd.certain else " on some runs"), _shown(cmd), cmd.span)
        return out
    return out


def _tabs_stripped(body: str, ed: Edited) -> Edited:
    """``ed`` (the text of the heredoc ``body``, expanded or not) as a ``<<-`` heredoc writes it:
    the leading tabs of every line of the body removed (bash manual, Here Documents: before any
    expansion, so a value put in keeps its tabs), each kept character with its offset in the body."""
    tabs: set[int] = set()
    pos = 0
    for line in body.split("\n"):
        tabs.update(range(pos, pos + len(line) - len(line.lstrip("\t"))))
        pos += len(line) + 1
    origin = ed.origin if ed.origin is not None else range(len(ed.text))
    kept = [k for k, o in enumerate(origin) if o not in tabs or ed.text[k] != "\t"]
    return Edited("".join(ed.text[k] for k in kept), [origin[k] for k in kept])


def _apply(out: Edited, sub: Substitution, cmd: Command, budget: list[int]) -> bool | None:
    """Apply ``sub`` to ``out`` line by line, spending ``budget`` by the characters it writes; False
    when a match falls on a value put in at run time, None when the text would grow past
    MAX_EDITED or the budget is spent."""
    origin = out.origin if out.origin is not None else list(range(len(out.text)))
    pieces: list[str] = []
    where: list[int] = []
    pos = 0
    text = out.text
    size = 0
    # the run-time values' body ranges, by start (disjoint: each is checked against the others
    # before it is added)
    ranges = sorted((u1, u2) for u1, u2, _w, _s in out.unknown)
    starts, ends = [r[0] for r in ranges], [r[1] for r in ranges]
    for line in text.split("\n"):
        matches = _matches(line, sub)
        last = 0
        for a in matches:
            b = a + len(sub.pattern)
            pieces.append(line[last:a])
            where += origin[pos + last:pos + a]
            o1 = origin[pos + a] if pos + a < len(origin) else (origin[-1] + 1 if origin else 0)
            o2 = origin[pos + b - 1] + 1 if b > a else o1
            if starts and _overlaps(starts, ends, o1, max(o2, o1 + 1)):
                return False   # it edits a value put in at run time: what it leaves is not known
            if sub.replacement is None:
                if len(out.unknown) >= MAX_UNKNOWN:
                    return False
                rep = line[a:b]           # kept as it is: the value is known only at run time
                out.unknown.append((o1, max(o2, o1 + 1), _shown(cmd), cmd.span))
                i = bisect.bisect_left(starts, o1)
                starts.insert(i, o1)
                ends.insert(i, max(o2, o1 + 1))
                rep_where = origin[pos + a:pos + b]
            else:
                rep = sub.replacement.replace("&", line[a:b])
                # the characters put in stand on the text they replace: the first on its first, the
                # last on its last (a span of the new value covers exactly the old one); a value of
                # one character stands on the first, where the replaced text starts
                if o2 > o1:
                    k = min(len(rep), o2 - o1)
                    rep_where = list(range(o1, o1 + k)) + [o2 - 1] * (len(rep) - k)
                    if len(rep_where) > 1:
                        rep_where[-1] = o2 - 1
                else:
                    rep_where = [o1] * len(rep)
            size += len(rep)
            if size > MAX_EDITED or size > budget[0]:
                budget[0] = max(budget[0] - size, 0)   # the work is done: spent all the same
                return None
            pieces.append(rep)
            where += rep_where
            last = b
        pieces.append(line[last:])
        where += origin[pos + last:pos + len(line)]
        pos += len(line)
        if pos < len(text):   # the line's break
            pieces.append("\n")
            where.append(origin[pos])
            pos += 1
        size += len(line) + 1
        if size > MAX_EDITED or size > budget[0]:
            budget[0] = max(budget[0] - size, 0)
            return None
    budget[0] -= size
    out.text = "".join(pieces)
    out.origin = where
    return True


def _overlaps(starts: list[int], ends: list[int], a: int, b: int) -> bool:
    """Whether [a, b) overlaps one of the disjoint ranges [starts[i], ends[i]) (sorted by start)."""
    i = bisect.bisect_left(starts, b) - 1
    return i >= 0 and ends[i] > a


def _matches(line: str, sub: Substitution) -> list[int]:
    """Where ``sub`` matches in ``line`` (start offsets, not overlapping; the first only unless ``every``)."""
    p = sub.pattern
    if sub.start and sub.end:
        return [0] if line == p else []
    if sub.start:
        return [0] if line.startswith(p) else []
    if sub.end:
        return [len(line) - len(p)] if line.endswith(p) else []
    out: list[int] = []
    i = line.find(p)
    while i >= 0:
        out.append(i)
        if not sub.every:
            break
        i = line.find(p, i + len(p))
    return out
