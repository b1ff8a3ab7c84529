"""Word values, evaluated statically: quotes, variables assigned earlier, parameter defaults,
positional arguments of a function call, arrays and their splices, field splitting, each
character with the span it is written at; whatever is not known statically is marked so."""

from __future__ import annotations

import re

from ...model import Span
from .positions import _Piece, _span_of, _starts
from .script import Exports, ShellScript, Word

MISSING = object()   # a name the script has not assigned (a state of :meth:`Values.state`)


class Frame(dict):
    """The journal of one branch: name -> its state before the branch changed it; ``appended``:
    the names it extends (``X+=...``), which a loop extends an unknown number of times;
    ``options``: the body of a script's option-parsing loop (``while [[ $# -gt 0 ]]``)."""

    def __init__(self, options: bool = False):
        super().__init__()
        self.appended: set[str] = set()
        self.options = options

_ESCAPED = re.compile(r"\\(.)", re.S)
_BODY_SPECIAL = re.compile(r"[\\$`]")   # what an unquoted heredoc's text treats specially (values.body_value)
# a value that is a script argument ($2, ${1}): what an argument-parsing loop (while [[ $# -gt 0 ]];
# case $1 in --model-path) MODEL="$2" ...) sets when the script is called with that option
_POSITIONAL = re.compile(r"\$(?:\d|\{\d+\})")
# every word of it a script argument ($1, "$@", ${2}, "$*"): what an option-parsing loop collects
# for the engine (``*) EXTRA_ARGS+=("$1")``, ``--) ARGS=("$@")``) from the caller's command line
_ARGUMENT_WORD = re.compile(r"\$(?:\d|\{\d+\}|@|\*|\{[@*]\})")

ARGUMENT_TYPES = ("word", "number", "raw_string", "string", "concatenation", "simple_expansion", "expansion",
                  "ansi_c_string", "command_substitution", "arithmetic_expansion", "process_substitution")
DEFAULT_OPERATORS = (":-", "-", ":=", "=")
MAX_CALL_DEPTH = 8
MAX_EVALS = 64
MAX_CALLS = 512          # function calls followed per file (a call tree can grow exponentially)
UNROLL_TOTAL = 64        # literal for-loop iterations read one by one per file (walker.unroll)
MAX_WORDS = 4096         # words an array may hold, pieces a value may hold: beyond, not static
# values a name assigned in branches may hold, and pieces / words they hold together: beyond, not
# static (each if / else that extends a value doubles them: 20 in a row were 2^20 arrays, 5 GB)
MAX_ALTERNATIVES = 64
MAX_CHARS = 1 << 16      # characters a value may hold: beyond, not static
MAX_FILE_WORDS = 1 << 18  # words spliced or split out of variables per file: beyond, not static
# characters expansions may add to a file's words (beyond what the file itself holds): a 60 KB
# value used 10 000 times would otherwise be 600 MB for every rule to read; beyond, not static
MAX_FILE_CHARS = 1 << 22


class Values:
    """The evaluator's state (variables, arrays, exports, functions, positional arguments, budgets)
    and what it makes of one word node: its static value as pieces, and the words it expands to."""

    def __init__(self, data: bytes, pos, parent: Values | None = None):
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
            self.budget = [MAX_EVALS, MAX_CALLS, MAX_FILE_WORDS, MAX_FILE_CHARS, UNROLL_TOTAL]
            # a name assigned differently in the branches of an if / case / loop, every value known:
            # ("var", [pieces of each value]) or ("arr", [words of each value])
            self.alts: dict[str, tuple[str, list]] = {}
            # one journal per branch being read: name -> its state before the branch changed it
            self.frames: list[Frame] = []
            self.loops: list[Frame] = []   # the frames of loop bodies being read
        else:
            for name in ("script", "vars", "arrays", "exported", "functions", "called", "args", "depth", "budget",
                         "alts", "frames", "loops"):
                setattr(self, name, getattr(parent, name))
        self.unfold = False   # an eval string being read: a branch-assigned value unfolds (see lookup)

    def src(self, node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    # -- branch state ------------------------------------------------------------------
    def state(self, name: str) -> tuple:
        return self.vars.get(name, MISSING), self.arrays.get(name, MISSING), self.alts.get(name, MISSING)

    def restore(self, name: str, st: tuple) -> None:
        for table, value in zip((self.vars, self.arrays, self.alts), st):
            if value is MISSING:
                table.pop(name, None)
            else:
                table[name] = value

    def touch(self, name: str) -> None:
        """Before ``name`` changes: its state is kept in the journal of the branch being read."""
        if self.frames:
            self.frames[-1].setdefault(name, self.state(name))

    def merge(self, name: str, states: list[tuple]) -> tuple:
        """The state of ``name`` after branches that leave it in one of ``states``: that value when
        all agree; their alternatives when every one is known; else not known statically."""
        options: list[tuple[str, object]] = []
        for v, arr, alt in states:
            if alt is not MISSING:
                options.extend((alt[0], o) for o in alt[1])
            elif v is not MISSING:
                options.append(("var", v))
            elif arr is not MISSING:
                options.append(("arr", arr))
            else:
                options.append(("absent", None))   # set by the environment, or not at all
        # a script argument overriding a literal default (MODEL=x, then MODEL="$2" in the option
        # loop) is read as ${MODEL:-x} is: the script run as published, with its default
        given = [o for k, o in options if k == "var" and o and all(not p.static and _POSITIONAL.fullmatch(p.text) for p in o)]
        if given and any(k == "var" and o and all(p.static for p in o) for k, o in options):
            options = [(k, o) for k, o in options if not any(o is g for g in given)]
        kinds = {k for k, _ in options}
        # a string's value may hold parts not known statically ("ray start --address=$HEAD"): as a
        # command string each is still read; split into words (union) it is not known
        known = len(kinds) == 1 and "absent" not in kinds and all(o is not None for _k, o in options) and \
            not any(frame.appended & {name} for frame in self.loops)
        if not known:
            return self.not_known(name, options)
        kind = options[0][0]
        unique: dict[object, object] = {}
        for _k, o in options:
            key = tuple((p.text, p.static) for p in o) if kind == "var" else tuple((w.text, w.static) for w in o)
            unique.setdefault(key, o)
        values = list(unique.values())
        if len(values) == 1:
            return (values[0], MISSING, MISSING) if kind == "var" else (MISSING, values[0], MISSING)
        if not bounded(values):
            return self.not_known(name, [(kind, o) for o in values])
        return MISSING, MISSING, (kind, values)

    @staticmethod
    def not_known(name: str, options: list[tuple[str, object]]) -> tuple:
        """The state of a name whose value after branches is not known statically: an array not
        known, or a string standing for ``$NAME`` at the first place a branch sets it."""
        if any(k == "arr" for k, _o in options):
            return MISSING, None, MISSING
        span = next((o[0].span for k, o in options if k == "var" and o), None)
        if span is None:
            return MISSING, None, MISSING
        return [_Piece("$" + name, span, False)], MISSING, MISSING

    def union(self, name: str, split: bool) -> list[Word] | None:
        """The words of every value a branch-assigned ``name`` may hold, each conditional (a
        string's values split on whitespace when ``split``), or None when it holds none such."""
        alt = self.alts.get(name)
        if alt is None or (alt[0] == "var") != split:
            return None
        if split and not all(p.static for option in alt[1] for p in option):
            return None
        if split and _one_word_each(alt[1]):
            return None   # one word of several values (--config $YAML): a value not known, not words to add
        out: list[Word] = []
        for option in alt[1]:
            words = self.fields(option) if split else list(option)
            out.extend(Word(w.text, w.raw, w.span, w.static, w.where, True, w.choices) for w in words)
        if len(out) > self.budget[2] or not self.spend(sum(len(w.text) for w in out)):
            return None
        self.budget[2] -= len(out)
        return out

    def marks(self, a: int, b: int) -> tuple[bool, bool]:
        """(conditional, opaque) of bytes ``[a, b)`` of the text read (an eval string's)."""
        marks = getattr(self.pos, "marks", None)
        return marks(a, b) if marks is not None else (False, False)

    def lines(self, text: str, span: Span, start: int) -> list[_Piece]:
        """The text of a string written over several lines, one piece per line, each placed exactly
        (an eval string's words then point at their own line, not at the string's first)."""
        if span.line == span.end_line or "\n" not in text:
            return [self.leaf(text, span, start, start + len(text.encode("utf-8")))]
        out: list[_Piece] = []
        line, col, offset = span.line, span.col, start
        for segment in text.splitlines(keepends=True):
            n = len(segment.encode("utf-8"))
            out.append(self.leaf(segment, Span(span.path, line, col, line, col + len(segment)), offset, offset + n))
            offset += n
            line, col = line + 1, 1
        return out

    def leaf(self, text: str, span: Span, a: int, b: int) -> _Piece:
        cond, opaque = self.marks(a, b)
        return _Piece(text, span, not opaque, cond)

    # -- values ------------------------------------------------------------------------
    def unknown(self, node) -> list[_Piece]:
        return [_Piece(self.src(node), self.pos.span(node), False)]

    def pieces(self, node) -> list[_Piece]:
        """The value of one word node as pieces (variables, defaults and positionals resolved)."""
        t = node.type
        # a variable_name among a value's words is text: tree-sitter-bash reads the default of
        # ${M:-deepseek-ai/x} as the name 'deepseek' then the word '-ai/x' (a `$name` is a
        # simple_expansion, never a bare variable_name)
        if t in ("word", "number", "variable_name"):
            return [self.leaf(_ESCAPED.sub(r"\1", self.src(node)), self.pos.span(node), node.start_byte, node.end_byte)]
        if t == "raw_string":
            sp = self.pos.span(node)
            if sp.line == sp.end_line:
                sp = Span(sp.path, sp.line, sp.col + 1, sp.line, sp.end_col - 1)
            return [self.leaf(self.src(node)[1:-1], sp, node.start_byte, node.end_byte)]
        if t in ("string", "concatenation"):
            out: list[_Piece] = []
            prev = node.start_byte + 1 if t == "string" else None
            for child in node.children:
                if prev is not None and child.start_byte > prev:
                    # text tree-sitter leaves between the children of a "..." string (newlines, spaces)
                    out.append(self.leaf(self.data[prev:child.start_byte].decode("utf-8", "replace"), self.pos.span(node),
                                         prev, child.start_byte))
                if prev is not None:
                    prev = max(prev, child.end_byte)
                if t == "string" and child.type == '"':
                    continue
                if child.type == "string_content":
                    out.extend(self.lines(self.src(child), self.pos.span(child), child.start_byte))
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
        if name in self.alts:
            return self.unfolded(name, node) if self.unfold else self.unknown(node)
        if name in self.vars:
            value = self.vars[name]
            return list(value) if all(p.static for p in value) else self.unknown(node)
        arr = self.arrays.get(name)
        if arr:  # $arr is ${arr[0]}
            w = arr[0]
            return [_Piece(w.text, w.span)] if w.static else self.unknown(node)
        return self.unknown(node)

    def unfolded(self, name: str, node) -> list[_Piece]:
        """An eval string's ``$NAME`` of a name assigned differently in branches: the text of
        every value it may hold, one after another, each piece conditional (eval reads them all;
        none is certain)."""
        out: list[_Piece] = []
        kind, options = self.alts[name]
        if kind == "var" and _one_word_each(options):
            return self.unknown(node)   # one word of several values: a value not known, not words to add
        for option in options:
            parts = option if kind == "var" else [_Piece(w.text, w.span, w.static) for w in option]
            for p in parts:
                if out:
                    out.append(_Piece(" ", p.span, True, True))
                out.append(_Piece(p.text, p.span, p.static, True))
        return out or self.unknown(node)

    def assigned(self, name: str) -> bool:
        if name.isdigit():
            return self.args is not None and 1 <= int(name) <= len(self.args)
        return name in self.vars or name in self.arrays or name in self.alts

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
                # ${X-} / ${X:-}: X from the environment, else nothing; the file does not set X,
                # so what it holds is known only at run time (not the empty string)
                default = self.unknown(node)
            if op in (":=", "=") and not name.isdigit():
                self.touch(name)
                self.vars[name] = list(default)
            return default
        if first.type == "subscript" and len(kids) == 1:
            name_node = first.child_by_field_name("name")
            index = first.child_by_field_name("index")
            if name_node is None or index is None:
                return self.unknown(node)
            name, idx = self.src(name_node), self.src(index)
            if self.unfold and idx in ("@", "*") and self.alts.get(name, ("",))[0] == "arr":
                return self.unfolded(name, node)
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

    # -- heredoc bodies ----------------------------------------------------------------
    def body_value(self, body, prefix: str = "") -> tuple[str, list[int], None] | tuple[None, None, tuple[str, Span]]:
        """The text an unquoted heredoc's ``body`` node writes, as bash expands it: ``$X``,
        ``${X}``, ``${X:-d}`` of a value known statically put in, ``\\$``, ``\\```, ``\\\\`` and
        ``\\<newline>`` unescaped, any other character as written; ``prefix`` (the first line's
        indentation, which the parser leaves out of the node) first. Returns (the text, the offset in
        ``prefix`` + the body of each of its characters, None): a value put in stands on the
        expansion it replaces (its first character on the ``$``, its last on the expansion's last).
        For the first expansion known only at run time (``$(...)``, a backquote, a name the script
        does not set before the heredoc and no default): (None, None, (it as written, its span))."""
        out: list[str] = []
        origin: list[int] = list(range(len(prefix)))
        out.append(prefix)
        base = body.start_byte

        done = [base, len(prefix)]   # (byte, its character offset): children come in order

        def at(byte: int) -> int:
            if byte != done[0]:
                done[:] = [byte, done[1] + len(self.data[done[0]:byte].decode("utf-8", "replace"))]
            return done[1]

        def literal(a: int, b: int):
            seg, o = self.data[a:b].decode("utf-8", "replace"), at(a)
            last = 0   # characters of seg before it are written out
            for m in _BODY_SPECIAL.finditer(seg):
                i = m.start()
                if i < last:
                    continue   # the character a backslash before it escapes
                out.append(seg[last:i])
                origin.extend(range(o + last, o + i))
                ch, nxt = seg[i], seg[i + 1:i + 2]
                if ch == "\\":
                    if nxt and nxt in "$`\\\n":
                        if nxt != "\n":   # a backslash-newline joins the lines
                            out.append(nxt)
                            origin.append(o + i + 1)
                        last = i + 2
                        continue
                elif ch == "`" or (nxt and (nxt.isalnum() or nxt in "_{(@*#?!$-")):
                    start = a + len(seg[:i].encode("utf-8"))
                    end = self.data.find(b"`", start + 1) + 1 if ch == "`" else start + 2
                    end = end if end > start else start + 1
                    return self.data[start:end].decode("utf-8", "replace"), self.pos.span(_Spot(body, self.data, start, end))
                out.append(ch)
                origin.append(o + i)
                last = i + 1
            out.append(seg[last:])
            origin.extend(range(o + last, o + len(seg)))
            return None

        prev = base
        for child in body.children:
            if child.type == "heredoc_content":
                continue
            dynamic = literal(prev, child.start_byte)
            if dynamic is not None:
                return None, None, dynamic
            prev = child.end_byte
            pieces = self.pieces(child) if child.type in ("simple_expansion", "expansion") else self.unknown(child)
            value = "".join(p.text for p in pieces)
            o1, o2 = at(child.start_byte), at(child.end_byte)
            if not all(p.static for p in pieces) or not self.spend(len(value) - (o2 - o1)):
                return None, None, (self.src(child), self.pos.span(child))
            out.append(value)
            where = [min(o1 + k, o2 - 1) for k in range(len(value))]
            if len(where) > 1:
                where[-1] = o2 - 1
            origin += where
        dynamic = literal(prev, body.end_byte)
        if dynamic is not None:
            return None, None, dynamic
        return "".join(out), origin, None

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
        choices = None
        name = _plain_name(self, node)
        if not static and name is not None and self.alts.get(name, ("",))[0] == "var":
            choices = [Word("".join(p.text for p in o), raw, span, all(p.static for p in o)) for o in self.alts[name][1]]
        return Word(text, raw, span, static, None, any(p.conditional for p in pieces), choices)

    def splice(self, node, quoted: bool = True) -> list[Word] | None:
        """``"$@"`` in a function, ``"${arr[@]}"``: the words it stands for, or None (``quoted``:
        the expansion is inside double quotes)."""
        if node.type == "simple_expansion" and self.src(node) == "$@" and self.args is not None:
            return list(self.args)
        if node.type == "expansion":
            kids = node.children[1:-1]
            if len(kids) == 1 and kids[0].type == "special_variable_name" and self.src(kids[0]) == "@" \
                    and self.args is not None:
                return list(self.args)
            if kids and kids[0].type == "subscript":
                name_node = kids[0].child_by_field_name("name")
                index = kids[0].child_by_field_name("index")
                if name_node is None or index is None or self.src(index) != "@":
                    return None
                arr = self.arrays.get(self.src(name_node))
                if arr is None:
                    return None
                if len(kids) == 1:
                    return list(arr)
                # ${ARR[@]+"${ARR[@]}"} (the idiom for an array that may be empty under set -u):
                # nothing when the array is empty, else the alternate word, here the array itself
                if self.src(kids[1]) == "+" and len(kids) in (2, 3) and not arr:
                    return []
                if self.src(kids[1]) == "+" and len(kids) == 2 and not quoted:
                    return []   # ${ARR[@]+}: an empty alternate, which bash drops unquoted
                if self.src(kids[1]) == "+" and len(kids) == 3:
                    alt = kids[2]
                    inner = [c for c in alt.children if c.type != '"'] if alt.type == "string" else [alt]
                    if len(inner) == 1 and inner[0].type == "expansion":
                        return self.splice(inner[0])
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
        marked = any(p.conditional for p in pieces)
        return [Word(m.group(0), m.group(0), _span_of(pieces, m.start(), m.end(), starts),
                     conditional=marked and _conditional(pieces, starts, m.start(), m.end()))
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
            spliced = self.splice(inner, quoted)
            if spliced is not None and len(spliced) <= self.budget[2] and \
                    self.spend(sum(len(w.text) for w in spliced)):
                self.budget[2] -= len(spliced)
                return spliced
            if spliced is not None:
                return [Word(self.src(node), self.src(node), self.pos.span(node), False)]
            name = _plain_name(self, inner) if not quoted else _splice_name(self, inner)
            united = self.union(name, not quoted) if name is not None else None
            if united is not None:
                return united
            if not quoted:
                pieces = self.pieces(inner)
                chars = sum(len(p.text) for p in pieces)
                if all(p.static for p in pieces) and self.budget[2] > 0 and self.spend(chars):
                    words = self.fields(pieces)
                    self.budget[2] -= max(len(words), 1)
                    return words
                raw = self.src(node)
                text = "".join(p.text for p in pieces) if self.spend(chars - len(raw)) else raw
                return [Word(text, raw, self.pos.span(node), False, None, any(p.conditional for p in pieces))]
        return [self.word(node)]


def bounded(values: list[list]) -> bool:
    """Whether the values a name may hold after branches are few and small enough to read
    (MAX_ALTERNATIVES values, MAX_WORDS pieces or words in all)."""
    return len(values) <= MAX_ALTERNATIVES and sum(len(v) for v in values) <= MAX_WORDS


def _one_word_each(options: list[list[_Piece]]) -> bool:
    """Whether every value is one word (no white space inside once its parts are joined)."""
    return all(len("".join(p.text for p in o).split()) == 1 for o in options)


def _plain_name(values: Values, node) -> str | None:
    """NAME of ``$NAME`` / ``${NAME}`` (or of ``"$NAME"``), else None."""
    if node.type == "string":
        kids = [c for c in node.children if c.type != '"']
        if len(kids) != 1:
            return None
        node = kids[0]
    if node.type == "simple_expansion":
        name = values.src(node)[1:]
        return name if name and (name[0].isalpha() or name[0] == "_") else None
    if node.type == "expansion":
        kids = node.children[1:-1]
        if len(kids) == 1 and kids[0].type == "variable_name":
            return values.src(kids[0])
    return None


def _splice_name(values: Values, node) -> str | None:
    """NAME of ``${NAME[@]}``, else None."""
    if node.type != "expansion":
        return None
    kids = node.children[1:-1]
    if len(kids) == 1 and kids[0].type == "subscript":
        name_node = kids[0].child_by_field_name("name")
        index = kids[0].child_by_field_name("index")
        if name_node is not None and index is not None and values.src(index) == "@":
            return values.src(name_node)
    return None


def _conditional(pieces: list[_Piece], starts: list[int], a: int, b: int) -> bool:
    """Whether a character of ``[a, b)`` of the joined ``pieces`` comes from a conditional piece."""
    for p, s in zip(pieces, starts):
        if p.conditional and s < b and s + len(p.text) > a:
            return True
    return False


class _Spot:
    """Bytes ``[a, b)`` of the text a heredoc ``body`` node is in, as a node for the positions
    (its byte offsets and its (row, byte column) points)."""

    def __init__(self, body, data: bytes, a: int, b: int):
        self.start_byte, self.end_byte = a, b
        self.start_point, self.end_point = _point(body, data, a), _point(body, data, b)


def _point(body, data: bytes, byte: int) -> tuple[int, int]:
    row, col = body.start_point
    newline = data.rfind(b"\n", body.start_byte, byte)
    if newline < 0:
        return row, col + byte - body.start_byte
    return row + data.count(b"\n", body.start_byte, byte), byte - newline - 1
