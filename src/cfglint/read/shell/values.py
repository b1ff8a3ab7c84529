"""Word values, evaluated statically: quotes, variables assigned earlier, parameter defaults,
positional arguments of a function call, arrays and their splices, field splitting, each
character with the span it is written at; whatever is not known statically is marked so."""

from __future__ import annotations

import re

from ...model import Span
from .positions import _Piece, _span_of, _starts
from .script import Exports, ShellScript, Word

_ESCAPED = re.compile(r"\\(.)", re.S)

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
        # a variable_name among a value's words is text: tree-sitter-bash reads the default of
        # ${M:-deepseek-ai/x} as the name 'deepseek' then the word '-ai/x' (a `$name` is a
        # simple_expansion, never a bare variable_name)
        if t in ("word", "number", "variable_name"):
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
                # ${X-} / ${X:-}: X from the environment, else nothing; the file does not set X,
                # so what it holds is known only at run time (not the empty string)
                default = self.unknown(node)
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
