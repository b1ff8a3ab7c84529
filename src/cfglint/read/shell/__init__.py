"""Shell launch files with positions, parsed by tree-sitter-bash and never executed.

Published launch files use word placeholders (``<host-path>``, ``<model-path>``,
``<head-ip>``, ``<0..1>``) that bash would read as redirections. They are masked with
same-length text before parsing, so every byte offset stays true, and words are read back from
the original text.

Only what can be known statically is resolved, by a small evaluator that never runs anything:
quotes; ``VAR=value`` / ``export`` / ``VAR+=more`` assignments made earlier in the file
(``"$MODEL_PATH"``); parameter defaults (``${VAR:-x}``, ``${VAR-x}``, ``${VAR:=x}``,
``: "${VAR:=x}"``: the default when VAR is not assigned earlier in the file); bash arrays
(``cmd=(...)``, ``cmd+=(...)``, run or spliced as ``"${cmd[@]}"``); a command kept in a string
and run as ``$CMD`` (split on whitespace as bash does) or ``eval "$CMD"`` (re-parsed, quotes
respected); functions called later (the body runs at each call, ``"$@"`` / ``$1`` bound to the
call's words); ``for x in 1 2 3; do ... done`` with a literal list (each command inside runs
once per item); and files written by a heredoc (``cat <<EOF > extra.yaml``, ``tee f <<EOF``),
kept in :attr:`ShellScript.files` with the body's position in the script.

A word that comes from a variable keeps the span where its text is written (the literal in the
assignment), so findings point at it. Anything else (``$(...)``, ``$1`` at top level, a variable
never assigned or assigned inside a branch or a non-literal loop) keeps its source text and is
marked not static.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from functools import lru_cache

from ...model import Located, Span, record

# <host-path>, <0..1>, <model path>: not a heredoc (<<), here-string or process substitution <(
PLACEHOLDER = re.compile(rb"(?<![<$])<([A-Za-z0-9][A-Za-z0-9_.:/+ -]*)>")
_ESCAPED = re.compile(r"\\(.)", re.S)
_ASTRAL = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")


@dataclass(slots=True)
class Word:
    """One shell word: ``text`` is its static value, ``raw`` the source text."""

    text: str
    raw: str
    span: Span
    static: bool = True
    # (line, column) of each character of ``text`` when it comes from a source that is not
    # shell (a Kubernetes manifest's YAML scalar): a ``bash -c`` string inside is placed by it
    where: list[tuple[int, int]] | None = None


class Exports:
    """The variables a script has exported so far, as a log that every command's view shares:
    a copy of the whole environment per command made a script of many ``export`` lines and
    many commands quadratic (in time and in the pickled parse)."""

    def __init__(self):
        self.history: dict[str, tuple[list[int], list[Word]]] = {}  # name -> (versions, values)
        self.order: list[str] = []                                 # names, first export first
        self.version = 0

    def __setitem__(self, name: str, word: Word) -> None:
        self.version += 1
        versions, values = self.history.setdefault(name, ([], []))
        if not versions:
            self.order.append(name)
        versions.append(self.version)
        values.append(word)

    def snapshot(self) -> ExportView:
        """The exported variables as they are now; O(1)."""
        return ExportView(self, self.version, len(self.order))


class ExportView(Mapping):
    """A read-only view of :class:`Exports` at one moment; lookups are a binary search."""

    __slots__ = ("log", "version", "count")

    def __init__(self, log: Exports, version: int, count: int):
        self.log, self.version, self.count = log, version, count

    def __getitem__(self, name: str) -> Word:
        versions, values = self.log.history.get(name, ((), ()))
        i = bisect.bisect_right(versions, self.version) - 1
        if i < 0:
            raise KeyError(name)
        return values[i]

    def __iter__(self):
        return iter(self.log.order[: self.count])

    def __len__(self) -> int:
        return self.count

    def __reduce__(self):
        return ExportView, (self.log, self.version, self.count)


class Overlay(MutableMapping):
    """A mapping over read-only ``bases`` (the first that has a key wins) with its own changes
    (set, delete, clear) kept apart: O(1) to make however large the bases are, so giving each
    command its environment costs nothing per inherited variable."""

    def __init__(self, *bases: Mapping):
        self.bases = [b for b in bases if b is not None]
        self.local: dict = {}
        self.hidden: set = set()

    def __getitem__(self, key):
        if key in self.local:
            return self.local[key]
        if key not in self.hidden:
            for base in self.bases:
                if key in base:
                    return base[key]
        raise KeyError(key)

    def __setitem__(self, key, value) -> None:
        self.local[key] = value

    def __delitem__(self, key) -> None:
        if key not in self:
            raise KeyError(key)
        self.local.pop(key, None)
        self.hidden.add(key)

    def clear(self) -> None:
        self.bases, self.local, self.hidden = [], {}, set()

    def __iter__(self):
        seen = set(self.local)
        yield from self.local
        for base in self.bases:
            for key in base:
                if key not in seen and key not in self.hidden:
                    seen.add(key)
                    yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)


@record
class Command:
    """A simple command: argv words, prefix assignments, exported environment, loop count."""

    words: list[Word]
    assignments: dict[str, Word]
    exported: Mapping[str, Word]   # a dict, or an ExportView shared with the other commands
    span: Span
    repeat: Located | None = None  # number of literal loop iterations, with the loop's span
    certain: bool = True           # False: runs an unknown number of times (branch, loop, function)
    origin: object = None          # the Kubernetes container it comes from (cfglint.read.k8s.model.Container)


@record
class WrittenFile:
    """A file the script writes from a heredoc: ``path`` as the script names it (static text,
    or None when the path is not known statically), the body's text and the (1-based) line
    where it starts in the script; ``static`` is False when an unquoted heredoc expands
    something not known statically (``$VAR``, ``$(...)``) inside the body."""

    path: str | None
    text: str
    line: int
    span: Span          # the destination word (or the command when unknown)
    static: bool = True


@record
class ShellScript:
    commands: list[Command] = field(default_factory=list)
    errors: list[Span] = field(default_factory=list)
    text: list[Span] = field(default_factory=list)  # text for a reader (echo/help/comments): shelltext.py
    files: list[WrittenFile] = field(default_factory=list)


@lru_cache(maxsize=1)
def _language():
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Language(tree_sitter_bash.language())


def _parser():
    """A fresh parser per file: a reused tree_sitter.Parser crashed (SIGSEGV) under fuzzing."""
    import tree_sitter

    return tree_sitter.Parser(_language())


class _CharIndex:
    """Byte offset -> code-point offset in UTF-8 ``data``, in O(log k) per query (k: the number
    of multi-byte characters): decoding ``data[:byte]`` per word made a long line with one
    non-ASCII character quadratic (a 400 KB line took 24 s)."""

    _MULTI = re.compile(rb"[\xc0-\xff][\x80-\xbf]*")

    def __init__(self, data: bytes):
        self.ends: list[int] = []    # byte offset just past each multi-byte character
        self.saved: list[int] = []   # bytes beyond one per character, up to and including it
        saved = 0
        if not data.isascii():
            for m in self._MULTI.finditer(data):
                saved += m.end() - m.start() - 1
                self.ends.append(m.end())
                self.saved.append(saved)

    def char(self, byte: int) -> int:
        """The code-point offset of byte offset ``byte``, a character boundary (the parser's
        offsets always are)."""
        i = bisect.bisect_right(self.ends, byte) - 1
        return byte - (self.saved[i] if i >= 0 else 0)


class _Positions:
    """Byte offsets to 1-based (line, code-point column)."""

    def __init__(self, data: bytes, path: str):
        self.data = data
        self.path = path
        self.starts = [0]
        i = data.find(b"\n")
        while i != -1:
            self.starts.append(i + 1)
            i = data.find(b"\n", i + 1)
        self.index = _CharIndex(data)

    def point(self, row: int, col_bytes: int) -> tuple[int, int]:
        start = self.starts[row] if row < len(self.starts) else len(self.data)
        if not self.index.ends:  # all ASCII: the byte column is the column
            return row + 1, col_bytes + 1
        return row + 1, self.index.char(start + col_bytes) - self.index.char(start) + 1

    def span(self, node) -> Span:
        """The span of a tree-sitter node."""
        l1, c1 = self.point(*node.start_point)
        l2, c2 = self.point(*node.end_point)
        return Span(self.path, l1, c1, l2, c2)


class ParserCrash(Exception):
    """The native shell parser died on this input (it ran in a child process), or the input
    cannot be read (commands nested too deeply)."""


def parse_shell(text: str, path: str) -> ShellScript:
    """Parse a launch script. Never raises for bad input: syntax errors land in ``errors``.

    The native tree-sitter parser runs in a child process where the platform has fork: under
    fuzzing it crashed the whole process (SIGSEGV) on rare inputs, and one bad file must not
    take a pre-commit run down. The child is one long-lived worker per process, started by the
    first parse and restarted after a crash (shellworker.py). Raises ParserCrash when the
    worker dies on this input. Without fork, or with ``CFGLINT_NO_FORK`` set, it parses here.
    """
    if not _forks():
        return _parse_bounded(text, path)
    from .worker import parse

    return parse(text, path)


def _forks() -> bool:
    return hasattr(os, "fork") and not os.environ.get("CFGLINT_NO_FORK")


def prestart_parser() -> None:
    """Start this process's parse worker now, if :func:`parse_shell` will use one: its import of
    tree-sitter then runs beside whatever the caller does before the first parse (on the
    one-submission path, reading the manifest and the knowledge). Never raises: a worker that
    cannot start is started (and reported) by the first parse."""
    if _forks():
        from .worker import prestart

        prestart()


# Python frames the walker may nest in the parser child: a command list such as 'a && b && ...'
# is a tree one level deeper per command (45,000 commands parsed in about 2 s when measured)
CHILD_RECURSION_LIMIT = 50_000


def _parse_bounded(text: str, path: str) -> ShellScript:
    try:
        return _parse_shell(text, path)
    except RecursionError:
        raise ParserCrash("its commands nest too deeply to read (a chain of thousands of '&&', '|' or "
                          "nested blocks); split it into shorter commands") from None


def _parse_shell(text: str, path: str) -> ShellScript:
    data = text.encode("utf-8")
    masked = PLACEHOLDER.sub(lambda m: b"_" + m.group(1).replace(b" ", b"_") + b"_", data)
    # code points beyond the BMP became 4 ASCII bytes: the native parser crashed on some of them,
    # and no shell syntax depends on them (byte offsets, and so positions, are unchanged)
    masked = _ASTRAL.sub(b"____", masked)
    tree = _parser().parse(masked)
    walker = _Walker(data, _Positions(data, path))
    walker.visit(tree.root_node, 1, None)
    walker.finish()
    from .text import text_regions
    walker.script.text = text_regions(tree.root_node, walker.pos)
    return walker.script


@record
class _Piece:
    """A run of a static value's characters written together at ``span`` (char i of ``text``
    at column ``span.col + i`` when :attr:`exact`)."""

    text: str
    span: Span
    static: bool = True

    @property
    def exact(self) -> bool:
        s = self.span
        return s.line == s.end_line and s.end_col - s.col == len(self.text)


def _starts(pieces: list[_Piece]) -> list[int]:
    out, off = [], 0
    for p in pieces:
        out.append(off)
        off += len(p.text)
    return out


def _locate(pieces: list[_Piece], k: int, starts: list[int] | None = None) -> tuple[_Piece, int]:
    starts = starts if starts is not None else _starts(pieces)
    i = bisect.bisect_right(starts, k) - 1
    while i > 0 and not pieces[i].text:
        i -= 1  # an empty piece holds no character
    i = max(i, 0)
    p = pieces[i]
    if k - starts[i] < len(p.text):
        return p, k - starts[i]
    return p, max(len(p.text) - 1, 0)


def _span_of(pieces: list[_Piece], a: int, b: int, starts: list[int] | None = None) -> Span:
    """The span of characters ``[a, b)`` of the concatenated ``pieces`` (``starts``: their
    offsets, from :func:`_starts`, when the caller asks many times)."""
    starts = starts if starts is not None else _starts(pieces)
    first, i = _locate(pieces, a, starts)
    last, j = _locate(pieces, max(b - 1, a), starts)
    s1 = first.span
    if first is last or b <= a:
        if first.exact:
            return Span(s1.path, s1.line, s1.col + i, s1.line, s1.col + max(j + 1, i))
        return s1
    s2 = last.span
    start = (s1.line, s1.col + i) if first.exact else (s1.line, s1.col)
    end = (s2.line, s2.col + j + 1) if last.exact else (s2.end_line, s2.end_col)
    if s1.path == s2.path and s1.line == s2.end_line and start < end:
        return Span(s1.path, start[0], start[1], end[0], end[1])
    if first.exact:
        return Span(s1.path, s1.line, s1.col + i, s1.line, s1.end_col)
    return s1


class _MappedPositions:
    """Positions for text assembled from pieces (``eval "$CMD"``): each character maps back to
    where it is written in the script."""

    def __init__(self, text: str, pieces: list[_Piece], path: str):
        self.text = text
        self.pieces = pieces
        self.path = path
        self.index = _CharIndex(text.encode("utf-8"))
        self.starts = _starts(pieces)

    def _char(self, byte: int) -> int:
        return self.index.char(byte)

    def span(self, node) -> Span:
        return _span_of(self.pieces, self._char(node.start_byte), self._char(node.end_byte), self.starts)


ARGUMENT_TYPES = ("word", "number", "raw_string", "string", "concatenation", "simple_expansion", "expansion",
                  "ansi_c_string", "command_substitution", "arithmetic_expansion", "process_substitution")
DEFAULT_OPERATORS = (":-", "-", ":=", "=")
MAX_CALL_DEPTH = 8
MAX_EVALS = 64
MAX_CALLS = 512          # function calls followed per file (a call tree can grow exponentially)
MAX_WORDS = 4096         # words an array may hold, pieces a value may hold: beyond, not static
MAX_CHARS = 1 << 16      # characters a value may hold: beyond, not static
MAX_FILE_WORDS = 1 << 18  # words spliced or split out of variables per file: beyond, not static
# characters expansions may add to a file's words (beyond what the file itself holds): a 60 KB
# value used 10 000 times would otherwise be 600 MB for every rule to read; beyond, not static
MAX_FILE_CHARS = 1 << 22


class _Walker:
    def __init__(self, data: bytes, pos, parent: _Walker | None = None):
        self.data = data
        self.pos = pos
        if parent is None:
            self.script = ShellScript()
            self.vars: dict[str, list[_Piece]] = {}
            self.arrays: dict[str, list[Word] | None] = {}   # None: not known statically
            self.exported = Exports()
            self.functions: dict[str, object] = {}
            self.called: set[str] = set()
            self.args: list[Word] | None = None                # positional args inside a function call
            self.depth = 0
            self.budget = [MAX_EVALS, MAX_CALLS, MAX_FILE_WORDS, MAX_FILE_CHARS]
        else:
            for name in ("script", "vars", "arrays", "exported", "functions", "called", "args", "depth", "budget"):
                setattr(self, name, getattr(parent, name))

    def src(self, node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    # -- values ------------------------------------------------------------------------
    def unknown(self, node) -> list[_Piece]:
        return [_Piece(self.src(node), self.pos.span(node), False)]

    def pieces(self, node) -> list[_Piece]:
        """The value of one word node as pieces (variables, defaults and positionals resolved)."""
        t = node.type
        if t in ("word", "number"):
            return [_Piece(_ESCAPED.sub(r"\1", self.src(node)), self.pos.span(node))]
        if t == "raw_string":
            sp = self.pos.span(node)
            if sp.line == sp.end_line:
                sp = Span(sp.path, sp.line, sp.col + 1, sp.line, sp.end_col - 1)
            return [_Piece(self.src(node)[1:-1], sp)]
        if t in ("string", "concatenation"):
            out: list[_Piece] = []
            prev = node.start_byte + 1 if t == "string" else None
            for child in node.children:
                if prev is not None and child.start_byte > prev:
                    # text tree-sitter leaves between the children of a "..." string (newlines, spaces)
                    out.append(_Piece(self.data[prev:child.start_byte].decode("utf-8", "replace"), self.pos.span(node)))
                if prev is not None:
                    prev = max(prev, child.end_byte)
                if t == "string" and child.type == '"':
                    continue
                if child.type == "string_content":
                    out.append(_Piece(self.src(child), self.pos.span(child)))
                else:
                    out.extend(self.pieces(child))
            return out or [_Piece("", self.pos.span(node))]
        if t == "simple_expansion":
            return self.lookup(self.src(node)[1:], node)
        if t == "expansion":
            return self.expansion(node)
        return self.unknown(node)

    def lookup(self, name: str, node) -> list[_Piece]:
        if name.isdigit() or name in ("@", "*", "#"):
            args = self.args
            if args is None or name == "*" or (name == "@" and len(args) != 1):
                if args is not None and name == "#":
                    return [_Piece(str(len(args)), self.pos.span(node))]
                return self.unknown(node)
            if name == "#":
                return [_Piece(str(len(args)), self.pos.span(node))]
            i = 0 if name == "@" else int(name) - 1
            if i < 0 or i >= len(args) or not args[i].static:
                return self.unknown(node)
            return [_Piece(args[i].text, args[i].span)]
        if name in self.vars:
            value = self.vars[name]
            return list(value) if all(p.static for p in value) else self.unknown(node)
        arr = self.arrays.get(name)
        if arr:  # $arr is ${arr[0]}
            w = arr[0]
            return [_Piece(w.text, w.span)] if w.static else self.unknown(node)
        return self.unknown(node)

    def assigned(self, name: str) -> bool:
        if name.isdigit():
            return self.args is not None and 1 <= int(name) <= len(self.args)
        return name in self.vars or name in self.arrays

    def expansion(self, node) -> list[_Piece]:
        """``${X}``, ``${X:-d}``, ``${X-d}``, ``${X:=d}``, ``${X=d}``, ``${arr[i]}``; any other
        operator is not evaluated."""
        kids = node.children[1:-1]
        if not kids:
            return self.unknown(node)
        first = kids[0]
        if first.type in ("variable_name", "special_variable_name"):
            name = self.src(first)
            if len(kids) == 1:
                return self.lookup(name, node)
            op = self.src(kids[1])
            if op not in DEFAULT_OPERATORS:
                return self.unknown(node)
            if self.assigned(name):
                value = self.lookup(name, node)
                if not (op.startswith(":") and all(p.static for p in value) and not "".join(p.text for p in value)):
                    return value
            if name.isdigit() and self.args is None:
                return self.unknown(node)  # a script argument: known only at run time
            default: list[_Piece] = []
            for child in kids[2:]:
                default.extend(self.pieces(child))
            if not default:
                sp = self.pos.span(kids[1])
                default = [_Piece("", Span(sp.path, sp.end_line, sp.end_col, sp.end_line, sp.end_col))]
            if op in (":=", "=") and not name.isdigit():
                self.vars[name] = list(default)
            return default
        if first.type == "subscript" and len(kids) == 1:
            name_node = first.child_by_field_name("name")
            index = first.child_by_field_name("index")
            if name_node is None or index is None:
                return self.unknown(node)
            name, idx = self.src(name_node), self.src(index)
            arr = self.arrays.get(name)
            if arr is None and name in self.vars and idx in ("0", "@", "*"):
                return self.lookup(name, node)
            if arr is None:
                return self.unknown(node)
            if idx in ("@", "*"):
                out: list[_Piece] = []
                for k, w in enumerate(arr):
                    if not w.static:
                        return self.unknown(node)
                    if k:
                        out.append(_Piece(" ", w.span))
                    out.append(_Piece(w.text, w.span))
                return out or [_Piece("", self.pos.span(node))]
            if idx.isdigit() and int(idx) < len(arr) and arr[int(idx)].static:
                w = arr[int(idx)]
                return [_Piece(w.text, w.span)]
        return self.unknown(node)

    # -- words -------------------------------------------------------------------------
    def word(self, node) -> Word:
        """One word; when its whole text comes from one place elsewhere (a variable's literal,
        a default) its span is that place."""
        pieces = self.pieces(node)
        raw, span = self.src(node), self.pos.span(node)
        if not self.spend(sum(len(p.text) for p in pieces) - len(raw)):
            return Word(raw, raw, span, False)
        text = "".join(p.text for p in pieces)
        static = all(p.static for p in pieces)
        solid = [p for p in pieces if p.text]
        if static and len(solid) == 1 and len(pieces) == len(solid) and solid[0].span != span \
                and node.type in ("string", "simple_expansion", "expansion"):
            span, raw = solid[0].span, solid[0].text
        return Word(text, raw, span, static)

    def splice(self, node) -> list[Word] | None:
        """``"$@"`` in a function, ``"${arr[@]}"``: the words it stands for, or None."""
        if node.type == "simple_expansion" and self.src(node) == "$@" and self.args is not None:
            return list(self.args)
        if node.type == "expansion":
            kids = node.children[1:-1]
            if len(kids) == 1 and kids[0].type == "special_variable_name" and self.src(kids[0]) == "@" \
                    and self.args is not None:
                return list(self.args)
            if len(kids) == 1 and kids[0].type == "subscript":
                name_node = kids[0].child_by_field_name("name")
                index = kids[0].child_by_field_name("index")
                if name_node is not None and index is not None and self.src(index) == "@":
                    arr = self.arrays.get(self.src(name_node))
                    if arr is not None:
                        return list(arr)
        return None

    def spend(self, chars: int) -> bool:
        """Take ``chars`` characters of expanded text from the file's budget (MAX_FILE_CHARS);
        False, taking nothing, when it does not hold them."""
        if chars <= 0:
            return True
        if chars > self.budget[3]:
            return False
        self.budget[3] -= chars
        return True

    def fields(self, pieces: list[_Piece]) -> list[Word]:
        """Bash field splitting of a static value on whitespace."""
        text = "".join(p.text for p in pieces)
        starts = _starts(pieces)
        return [Word(m.group(0), m.group(0), _span_of(pieces, m.start(), m.end(), starts))
                for m in re.finditer(r"\S+", text)]

    def expand(self, node) -> list[Word]:
        """The words one argument node becomes: arrays and ``"$@"`` splice, an unquoted
        ``$VAR`` splits on whitespace, anything else is one word."""
        inner, quoted = node, False
        if node.type == "string":
            kids = [c for c in node.children if c.type != '"']
            if len(kids) == 1 and kids[0].type in ("expansion", "simple_expansion"):
                inner, quoted = kids[0], True
        if inner.type in ("expansion", "simple_expansion"):
            spliced = self.splice(inner)
            if spliced is not None and len(spliced) <= self.budget[2] and \
                    self.spend(sum(len(w.text) for w in spliced)):
                self.budget[2] -= len(spliced)
                return spliced
            if spliced is not None:
                return [Word(self.src(node), self.src(node), self.pos.span(node), False)]
            if not quoted:
                pieces = self.pieces(inner)
                chars = sum(len(p.text) for p in pieces)
                if all(p.static for p in pieces) and self.budget[2] > 0 and self.spend(chars):
                    words = self.fields(pieces)
                    self.budget[2] -= max(len(words), 1)
                    return words
                raw = self.src(node)
                text = "".join(p.text for p in pieces) if self.spend(chars - len(raw)) else raw
                return [Word(text, raw, self.pos.span(node), False)]
        return [self.word(node)]

    # -- statements --------------------------------------------------------------------
    def visit(self, node, repeat: int, loop_span: Span | None, certain: bool = True) -> None:
        """``repeat``: how many times a literal loop runs what is inside; ``certain``: False
        inside branches, non-literal loops, uncalled functions and ``||`` alternatives, where
        how often a command runs (and which value an assignment leaves) cannot be known."""
        t = node.type
        if t == "ERROR" or node.is_missing:
            self.script.errors.append(self.pos.span(node))
        if t == "command":
            self.command(node, repeat, loop_span, certain)
            return
        if t == "variable_assignment":
            self.assign(node, export=False, certain=certain)
            return
        if t == "declaration_command":
            export = self.src(node).startswith(("export", "declare -x"))
            for child in node.named_children:
                if child.type == "variable_assignment":
                    self.assign(child, export=export, certain=certain)
            return
        if t == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                self.functions[self.src(name)] = body
            return
        if t == "redirected_statement":
            self.heredoc(node)
        if t == "for_statement":
            values = node.children_by_field_name("value")
            body = node.child_by_field_name("body")
            literal = bool(values) and all(v.type in ("word", "number", "raw_string") for v in values)
            count = repeat * len(values) if literal else repeat
            inner_span = self.pos.span(node) if literal else loop_span
            for child in node.children:
                if body is not None and child == body:
                    self.visit(child, count, inner_span, certain and literal)
                elif child.type not in ("word", "number", "raw_string", "variable_name"):
                    self.visit(child, repeat, loop_span, certain)
            return
        if t in ("heredoc_body", "comment"):
            return
        if t in ("if_statement", "case_statement", "while_statement", "c_style_for_statement",
                 "until_statement"):
            certain = False
        elif t == "list" and any(c.type == "||" for c in node.children):
            certain = False
        for child in node.children:
            self.visit(child, repeat, loop_span, certain)

    def finish(self) -> None:
        """Functions never called: their commands, as run an unknown number of times."""
        for name, body in list(self.functions.items()):
            if name not in self.called:
                self.called.add(name)
                self.visit(body, 1, None, False)

    def assign(self, node, export: bool, certain: bool = True) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return
        name = self.src(name_node)
        if name_node.type == "subscript":
            return  # arr[3]=x: not followed
        append = any(c.type == "+=" for c in node.children)
        if value_node is not None and value_node.type == "array":
            words: list[Word] = []
            for child in value_node.named_children:
                if child.type != "comment":
                    words.extend(self.expand(child))
            old = self.arrays.get(name, [])
            if append and name not in self.arrays and name in self.vars:
                old = [self.word_of(name, node)]
            if not certain or (append and old is None) or len(old or []) + len(words) > MAX_WORDS:
                self.arrays[name] = None
            else:
                self.arrays[name] = (old + words) if append else words
            self.vars.pop(name, None)
            return
        if value_node is not None:
            value = self.pieces(value_node)
        else:
            end = self.pos.span(node)
            value = [_Piece("", Span(end.path, end.end_line, end.end_col, end.end_line, end.end_col))]
        if append:
            old = self.vars.get(name)
            if old is None and name in self.arrays:  # arr+=x appends to element 0; not followed
                self.arrays[name] = None
                return
            value = (old or []) + value
        if not certain or len(value) > MAX_WORDS or sum(len(p.text) for p in value) > MAX_CHARS:
            span = self.pos.span(value_node if value_node is not None else node)
            value = [_Piece(self.src(value_node) if value_node is not None else "", span, False)]
        self.vars[name] = value
        self.arrays.pop(name, None)
        if export:
            self.exported[name] = self.word_of(name, value_node or node)

    def word_of(self, name: str, node) -> Word:
        value = self.vars.get(name) or [_Piece("", self.pos.span(node))]
        text = "".join(p.text for p in value)
        static = all(p.static for p in value)
        solid = [p for p in value if p.text]
        if static and len(solid) == 1:
            return Word(text, solid[0].text, solid[0].span, True)
        return Word(text, self.src(node), self.pos.span(node), static)

    def heredoc(self, node) -> None:
        """``cat <<EOF > f``, ``cat > f <<'EOF'``, ``tee f <<EOF``: the file ``f`` and its text."""
        body_cmd = node.child_by_field_name("body")
        heredoc = dest = None
        stack = list(node.children)
        while stack:
            c = stack.pop(0)
            if c.type == "heredoc_redirect":
                heredoc = c
                stack.extend(c.children)
            elif c.type == "file_redirect" and dest is None:
                op = c.children[0].type if c.children else ""
                target = c.child_by_field_name("destination")
                if op in (">", ">>", ">|") and target is not None:
                    dest = target
        if heredoc is None or body_cmd is None or body_cmd.type != "command":
            return
        name = body_cmd.child_by_field_name("name")
        program = self.src(name) if name is not None else ""
        if program == "tee" or program.endswith("/tee"):
            args = [c for c in body_cmd.children_by_field_name("argument") if not self.src(c).startswith("-")]
            dest = args[0] if args else dest
        elif program not in ("cat", "/bin/cat", "/usr/bin/cat"):
            return
        body = next((c for c in heredoc.children if c.type == "heredoc_body"), None)
        start = next((c for c in heredoc.children if c.type == "heredoc_start"), None)
        if body is None or start is None or dest is None:
            return
        quoted = any(q in self.src(start) for q in "'\"\\")
        text = self.src(body)
        static = quoted or not re.search(r"[$`]", text)
        target = self.word(dest)
        line = self.pos.span(body).line
        self.script.files.append(WrittenFile(target.text if target.static else None, text, line,
                                             target.span, static))

    def command(self, node, repeat: int, loop_span: Span | None, certain: bool = True) -> None:
        words: list[Word] = []
        assignments: dict[str, Word] = {}
        name_node = node.child_by_field_name("name")
        if name_node is not None and self.src(name_node) == "eval":
            if self.eval(node, repeat, loop_span, certain):
                return
        for child in node.children:
            if child.type == "variable_assignment":
                n = child.child_by_field_name("name")
                v = child.child_by_field_name("value")
                if n is not None and v is not None:
                    assignments[self.src(n)] = self.word(v)
            elif child.type == "command_name":
                words.extend(self.expand(child.named_children[0] if child.named_children else child))
            elif child.type in ARGUMENT_TYPES:
                words.extend(self.expand(child))
            elif child.type == "ERROR":
                self.script.errors.append(self.pos.span(child))
        if not words:
            return
        head = words[0].text if words[0].static else None
        if head == "shift" and self.args is not None:
            n = int(words[1].text) if len(words) > 1 and words[1].text.isdigit() else 1
            self.args = self.args[n:]
            return
        if head in self.functions and self.depth < MAX_CALL_DEPTH and self.budget[1] > 0:
            self.budget[1] -= 1
            self.called.add(head)
            saved = self.args
            self.args, self.depth = words[1:], self.depth + 1
            try:
                self.visit(self.functions[head], repeat, loop_span, certain)
            finally:
                self.args, self.depth = saved, self.depth - 1
            return
        rep = Located(repeat, loop_span) if loop_span is not None and repeat > 1 else None
        self.script.commands.append(
            Command(words, assignments, self.exported.snapshot(), self.pos.span(node), rep, certain))

    def eval(self, node, repeat: int, loop_span: Span | None, certain: bool) -> bool:
        """``eval "$CMD"``: the arguments joined with spaces and read again as shell, every
        character at the place it is written. False when a part is not known statically."""
        pieces: list[_Piece] = []
        for child in node.children_by_field_name("argument"):
            if pieces:
                pieces.append(_Piece(" ", pieces[-1].span))
            pieces.extend(self.pieces(child))
        if not pieces or not all(p.static for p in pieces) or self.budget[0] <= 0:
            return False
        text = "".join(p.text for p in pieces)
        if not self.spend(len(text)):
            return False
        self.budget[0] -= 1
        data = text.encode("utf-8")
        masked = _ASTRAL.sub(b"____", PLACEHOLDER.sub(lambda m: b"_" + m.group(1).replace(b" ", b"_") + b"_", data))
        tree = _parser().parse(masked)
        sub = _Walker(data, _MappedPositions(text, pieces, self.pos.path), parent=self)
        errors = len(self.script.errors)
        sub.visit(tree.root_node, repeat, loop_span, certain)
        del self.script.errors[errors:]  # a string that is no shell: its words stay unrecognised
        self.args, self.depth = sub.args, sub.depth
        return True
