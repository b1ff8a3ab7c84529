"""Statements, walked in order: assignments and exports, commands (with their prefix
assignments and the environment they see), function definitions and calls, literal ``for``
loops, branches (what runs in them is not certain), heredocs that write files, and ``eval`` of a
static string, read again as shell with every character at the place it is written."""

from __future__ import annotations

import re

from ...model import Located, Span
from . import gotemplate
from .native import tree_of
from .positions import _MappedPositions, _Piece
from .script import Command, Redirect, WrittenFile, Word
from .values import (ARGUMENT_TYPES, MAX_CALL_DEPTH, MAX_CHARS, MAX_WORDS, _ARGUMENT_WORD, Frame, Values, _plain_name,
                     bounded)

BRANCH_DEPTH = 32   # branches nested deeper are read as before: what they assign is not known statically
# a literal `for` loop of at most UNROLL values is read once per value, its variable bound to it
# (`for i in {0..3}; do CUDA_VISIBLE_DEVICES=$i ... --data-parallel-rank $i`), at most UNROLL_TOTAL
# iterations per file (values.UNROLL_TOTAL, a budget shared with eval'd strings and function calls;
# nested loops multiply); beyond, the body is read once, $i not known
UNROLL = 16


class Walker(Values):
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
            self.heredoc(node, certain)
        if t == "for_statement":
            values = node.children_by_field_name("value")
            body = node.child_by_field_name("body")
            if self.unroll(node, values, body, repeat, loop_span, certain):
                return
            var = node.child_by_field_name("variable")
            if var is not None:   # read once for all its values: the loop variable is not known
                name = self.src(var)
                self.touch(name)
                self.vars[name] = [_Piece("$" + name, self.pos.span(var), False)]
                self.arrays.pop(name, None)
            literal = bool(values) and all(v.type in ("word", "number", "raw_string") for v in values)
            count = repeat * len(values) if literal else repeat
            inner_span = self.pos.span(node) if literal else loop_span
            for child in node.children:
                if body is not None and child == body:
                    if literal:
                        self.visit(child, count, inner_span, certain)
                    else:   # runs any number of times, none included
                        self.branches([[child]], False, count, inner_span, loop=True)
                elif child.type not in ("word", "number", "raw_string", "variable_name"):
                    self.visit(child, repeat, loop_span, certain)
            return
        if t in ("heredoc_body", "comment"):
            return
        if t == "if_statement":
            self.if_statement(node, repeat, loop_span)
            return
        if t == "case_statement":
            items = [c for c in node.children if c.type == "case_item"]
            for child in node.children:
                if child.type != "case_item":
                    self.visit(child, repeat, loop_span, False)
            exhaustive = any(self.src(c) == "*" for item in items for c in item.children[:1])
            self.branches([[item] for item in items], exhaustive, repeat, loop_span)
            return
        if t in ("while_statement", "c_style_for_statement", "until_statement") or (
                t == "list" and any(c.type == "||" for c in node.children)):
            self.branches([list(node.children)], False, repeat, loop_span, loop=t != "list",
                          options=self.option_loop(node))
            return
        for child in node.children:
            self.visit(child, repeat, loop_span, certain)

    def loop_items(self, values) -> list[tuple[str, Span]] | None:
        """The values of a literal ``for`` list, each with its span (a numeric brace range
        ``{0..3}`` expanded, each value placed on the range), or None when any is not literal or
        there are more than UNROLL."""
        out: list[tuple[str, Span]] = []
        for v in values:
            if v.type in ("word", "number"):
                out.append((self.src(v), self.pos.span(v)))
            elif v.type == "raw_string":
                out.append((self.src(v)[1:-1], self.pos.span(v)))
            elif v.type == "brace_expression":
                nums = [c for c in v.children if c.type == "number"]
                if len(nums) != 2 or len(v.children) != 5:
                    return None
                try:
                    a, b = int(self.src(nums[0])), int(self.src(nums[1]))
                except ValueError:
                    return None
                if abs(b - a) >= UNROLL:
                    return None
                step = 1 if b >= a else -1
                out.extend((str(i), self.pos.span(v)) for i in range(a, b + step, step))
            else:
                return None
            if len(out) > UNROLL:
                return None
        return out or None

    def unroll(self, node, values, body, repeat: int, loop_span: Span | None, certain: bool) -> bool:
        """Read a literal ``for`` loop once per value with its variable bound to the value
        (bash leaves it at the last); False when it is not such a loop or the budget is spent."""
        var = node.child_by_field_name("variable")
        if body is None or var is None:
            return False
        items = self.loop_items(values)
        if items is None or len(items) > self.budget[4]:
            return False
        self.budget[4] -= len(items)
        name = self.src(var)
        for child in node.children:
            if child == body:
                for text, span in items:
                    self.touch(name)
                    self.vars[name] = [_Piece(text, span)]
                    self.arrays.pop(name, None)
                    self.visit(child, repeat, loop_span, certain)
            elif child.type not in ("word", "number", "raw_string", "variable_name", "brace_expression"):
                self.visit(child, repeat, loop_span, certain)
        return True

    def if_statement(self, node, repeat: int, loop_span: Span | None) -> None:
        """The condition, then each branch (then, elif, else) from the state before the if; after
        it, a name the branches assign differently holds one of their values (or its old one,
        when no else branch is there)."""
        then_body: list = []
        clauses: list[list] = []
        in_body = False
        for child in node.children:
            t = child.type
            if t in ("if", "fi"):
                continue
            if t == "then" and not in_body:
                in_body = True
            elif t in ("elif_clause", "else_clause"):
                clauses.append([child])
            elif in_body:
                then_body.append(child)
            else:
                self.visit(child, repeat, loop_span, False)   # the condition: always runs
        groups = [then_body, *clauses]
        exhaustive = any(g[0].type == "else_clause" for g in groups if g)
        self.branches(groups, exhaustive, repeat, loop_span)

    def option_loop(self, node) -> bool:
        """Whether ``node`` is a script's option-parsing loop: a ``while`` / ``until`` whose condition
        reads the script's arguments (``[[ $# -gt 0 ]]``, ``[ -n "$1" ]``). Run as published, with no
        arguments, its body does not run. In a function called with arguments (``parse_args --tp 8``)
        the loop reads those, which are written in the script: not an option loop of the caller's."""
        if node.type not in ("while_statement", "until_statement") or self.args:
            return False
        cond = node.child_by_field_name("condition")
        text = self.src(cond) if cond is not None else ""
        return "$#" in text or "${#" not in text and ("$1" in text or "${1" in text)

    def branches(self, groups: list[list], exhaustive: bool, repeat: int, loop_span: Span | None,
                 loop: bool = False, options: bool = False) -> None:
        """Read each group of statements as one branch of a choice: each starts from the state
        before it; after them, every name a branch changed holds what :meth:`Values.merge` makes
        of the branches' values (and of the one before, unless the branches are ``exhaustive``).
        Commands in a branch run an unknown number of times; a name a ``loop`` body extends is
        not known statically after it."""
        if len(self.frames) >= BRANCH_DEPTH:
            for group in groups:
                for child in group:
                    self.visit(child, repeat, loop_span, False)
            return
        outcomes: list[dict[str, tuple]] = []
        names: dict[str, None] = {}
        for group in groups:
            self.frames.append(Frame(options))
            if loop:
                self.loops.append(self.frames[-1])
            try:
                for child in group:
                    self.visit(child, repeat, loop_span, False)
            finally:
                journal = self.frames.pop()
                if loop:
                    self.loops.pop()
                if self.frames:
                    self.frames[-1].appended |= journal.appended
            outcomes.append({n: self.state(n) for n in journal})
            for n, before in journal.items():
                self.restore(n, before)
            names.update(dict.fromkeys(journal))
        for n in names:
            before = self.state(n)
            states = ([] if exhaustive and outcomes else [before]) + [o.get(n, before) for o in outcomes]
            self.touch(n)
            if loop:
                self.loops.append(journal)
            try:
                merged = self.merge(n, states)
            finally:
                if loop:
                    self.loops.pop()
            self.restore(n, merged)

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
        if value_node is not None and value_node.type == "array" and self.loops and self.loops[-1].options \
                and self.caller_words(value_node):
            return   # the caller's options, collected for the engine: none when run as published
        certain = certain or bool(self.frames)   # in a branch: certain until the branch ends (branches)
        self.touch(name)
        if append and self.frames:
            self.frames[-1].appended.add(name)
        if append and name in self.alts:   # X+=more of a branch-assigned X: each of its values, extended
            self.append_alternatives(name, node, value_node)
            return
        if name in self.alts:
            kind, options = self.alts.pop(name)
            if not export:   # X="$X more" of a branch-assigned X: the assignment read once per value
                self.assign_alternatives(name, node, kind, options, certain)
                return
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
            word = self.word_of(name, value_node or node)
            if self.frames:   # exported on some runs only: the environment it leaves is not known statically
                word = Word(word.text, word.raw, word.span, False)
            self.exported[name] = word

    def caller_words(self, array) -> bool:
        """Whether every element of the array literal ``array`` is one of the script's arguments
        (``"$1"``, ``"$@"``, ``${2}``): in an option-parsing loop, options the caller passes on."""
        items = [c for c in array.named_children if c.type != "comment"]
        return bool(items) and all(_ARGUMENT_WORD.fullmatch(self.src(c).strip('"')) for c in items)

    def assign_alternatives(self, name: str, node, kind: str, options: list, certain: bool) -> None:
        """``X="$X more"`` / ``X=("${X[@]}" more)`` (or any new value) of a name the branches
        before gave several values: the assignment read with ``X`` holding each of them; what
        :meth:`Values.merge` makes of the results is its value after it."""
        states = []
        for option in options:
            if kind == "var":
                self.vars[name] = option
                self.arrays.pop(name, None)
            else:
                self.arrays[name] = option
                self.vars.pop(name, None)
            self.assign(node, export=False, certain=certain)
            states.append(self.state(name))
            self.alts.pop(name, None)
        self.restore(name, self.merge(name, states))

    def append_alternatives(self, name: str, node, value_node) -> None:
        kind, options = self.alts.pop(name)
        if value_node is not None and value_node.type == "array" and kind == "arr":
            words: list[Word] = []
            for child in value_node.named_children:
                if child.type != "comment":
                    words.extend(self.expand(child))
            extended = [o + words for o in options]
            if bounded(extended):
                self.alts[name] = (kind, extended)
                return
        elif value_node is not None and value_node.type != "array" and kind == "var":
            value = self.pieces(value_node)
            extended = [o + value for o in options]
            if all(p.static for p in value) and bounded(extended):
                self.alts[name] = (kind, extended)
                return
            # not known statically: the value as written (too many values: the first one's place)
            where = value_node if not all(p.static for p in value) else node
            self.vars[name] = [_Piece(self.src(where), self.pos.span(where), False)]
            return
        self.arrays[name] = None

    def word_of(self, name: str, node) -> Word:
        value = self.vars.get(name) or [_Piece("", self.pos.span(node))]
        text = "".join(p.text for p in value)
        static = all(p.static for p in value)
        solid = [p for p in value if p.text]
        if static and len(solid) == 1:
            return Word(text, solid[0].text, solid[0].span, True)
        return Word(text, self.src(node), self.pos.span(node), static)

    def heredoc(self, node, certain: bool = True) -> None:
        """``cat <<EOF > f``, ``cat > f <<'EOF'``, ``tee f <<EOF``: the file ``f`` and its text
        (``certain``: False when it is written on some runs only); any other output written to a
        file (``echo x >> f``) is kept as a :class:`Redirect`."""
        body_cmd = node.child_by_field_name("body")
        heredoc = dest = None
        op = ""
        redirects = []
        stack = list(node.children)
        while stack:
            c = stack.pop(0)
            if c.type == "heredoc_redirect":
                heredoc = c
                stack.extend(c.children)
            elif c.type == "file_redirect":
                first = c.children[0].type if c.children else ""
                target = c.child_by_field_name("destination")
                if first in (">", ">>", ">|", "&>", "&>>") and target is not None:
                    redirects.append((first, target, c))
                    if dest is None and first in (">", ">>", ">|"):
                        dest, op = target, first
        if heredoc is None or body_cmd is None or body_cmd.type != "command":
            self.record_redirects(redirects)
            return
        name = body_cmd.child_by_field_name("name")
        program = self.src(name) if name is not None else ""
        if program == "tee" or program.endswith("/tee"):
            args = [c for c in body_cmd.children_by_field_name("argument") if not self.src(c).startswith("-")]
            dest = args[0] if args else dest
            op = ">>" if any(self.src(c) in ("-a", "--append") for c in body_cmd.children_by_field_name("argument")) \
                else ">"
        elif program not in ("cat", "/bin/cat", "/usr/bin/cat"):
            self.record_redirects(redirects)
            return
        body = next((c for c in heredoc.children if c.type == "heredoc_body"), None)
        start = next((c for c in heredoc.children if c.type == "heredoc_start"), None)
        if body is None or start is None or dest is None:
            self.record_redirects(redirects)
            return
        quoted = any(q in self.src(start) for q in "'\"\\")
        text = self.src(body)
        line_start = self.data.rfind(b"\n", 0, body.start_byte) + 1
        indent = self.data[line_start:body.start_byte]
        prefix = ""
        if indent and not indent.strip(b" \t"):
            # the parser starts the body at its first line's first word: that line's indentation is
            # the body's too
            prefix = indent.decode("utf-8", "replace")
            text = prefix + text
        # an unquoted delimiter: the body's $X / ${X:-d} expanded with the values assigned so far
        expanded, origin, dynamic = (None, None, None) if quoted or not re.search(r"[$`\\]", text) else \
            self.body_value(body, prefix)
        target = self.word(dest)
        line = self.pos.span(body).line
        strip_tabs = any(c.type == "<<-" for c in heredoc.children)
        self.script.files.append(WrittenFile(target.text if target.static else None, text, line,
                                             target.span, dynamic is None, len(self.script.commands), op == ">>",
                                             strip_tabs, certain=certain, expanded=expanded, origin=origin,
                                             dynamic=dynamic))

    def record_redirects(self, found: list) -> None:
        """Output redirected to files (operator, destination node, redirect node), as :class:`Redirect`."""
        for op, target, node in found:
            word = self.word(target)
            self.script.redirects.append(Redirect(word.text if word.static else None, op,
                                                  len(self.script.commands), self.pos.span(node)))

    def command(self, node, repeat: int, loop_span: Span | None, certain: bool = True) -> None:
        words: list[Word] = []
        assignments: dict[str, Word] = {}
        name_node = node.child_by_field_name("name")
        if name_node is not None and self.src(name_node) == "eval":
            if self.eval(node, repeat, loop_span, certain):
                return
        head = name_node.named_children[0] if name_node is not None and name_node.named_children else None
        held = _plain_name(self, head) if head is not None else None
        if held is not None and self.alts.get(held, ("",))[0] == "var":
            # $CMD of a command string the branches set differently: each of its commands, on some runs
            kept = self.alts.pop(held)
            try:
                for option in kept[1]:
                    self.vars[held] = option
                    self.command(node, repeat, loop_span, False)
            finally:
                self.vars.pop(held, None)
                self.alts[held] = kept
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
        self.unfold = True
        try:
            for child in node.children_by_field_name("argument"):
                if pieces:
                    pieces.append(_Piece(" ", pieces[-1].span))
                pieces.extend(self.pieces(child))
        finally:
            self.unfold = False
        if not pieces or self.budget[0] <= 0 or not any(p.static and p.text.strip() for p in pieces):
            return False   # nothing known to read again (eval "$CMD" of a CMD known only at run time)
        text = "".join(p.text for p in pieces)
        if not self.spend(len(text)):
            return False
        self.budget[0] -= 1
        data = text.encode("utf-8")
        # a part not known statically keeps its source text ($VAR, $@, $(...)), which the string read
        # again sees as the same unknown value; Go template actions are masked (gotemplate.py)
        masked = gotemplate.mask(data)
        opaque = conditional = None
        if masked is not None:
            parsed, opaque, conditional = masked
        else:
            parsed = data
        if any(p.conditional for p in pieces):
            conditional = conditional if conditional is not None else bytearray(len(data))
            offset = 0
            for p in pieces:
                n = len(p.text.encode("utf-8"))
                if p.conditional:
                    conditional[offset:offset + n] = b"\x01" * n
                offset += n
        tree = tree_of(parsed)
        sub = Walker(data, _MappedPositions(text, pieces, self.pos.path, opaque, conditional), parent=self)
        errors = len(self.script.errors)
        sub.visit(tree.root_node, repeat, loop_span, certain)
        del self.script.errors[errors:]  # a string that is no shell: its words stay unrecognised
        self.args, self.depth = sub.args, sub.depth
        return True
