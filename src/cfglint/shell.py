"""Shell launch files with positions, parsed by tree-sitter-bash and never executed.

Published launch files use word placeholders (``<host-path>``, ``<model-path>``,
``<head-ip>``, ``<0..1>``) that bash would read as redirections. They are masked with
same-length text before parsing, so every byte offset stays true, and words are read back from
the original text.

Only what can be known statically is resolved: quotes, ``VAR=value`` / ``export`` assignments
made earlier in the file (``"$MODEL_PATH"``), and ``for x in 1 2 3; do ... done`` with a
literal list (each command inside runs once per item). Anything else (``$(...)``, ``$1``,
a loop variable) keeps its source text and is marked not static.
"""

from __future__ import annotations

import os
import pickle
import re
from dataclasses import dataclass, field
from functools import lru_cache

from .model import Located, Span

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


@dataclass(slots=True)
class Command:
    """A simple command: argv words, prefix assignments, exported environment, loop count."""

    words: list[Word]
    assignments: dict[str, Word]
    exported: dict[str, Word]
    span: Span
    repeat: Located | None = None  # number of literal loop iterations, with the loop's span
    certain: bool = True           # False: runs an unknown number of times (branch, loop, function)


@dataclass(slots=True)
class ShellScript:
    commands: list[Command] = field(default_factory=list)
    errors: list[Span] = field(default_factory=list)
    text: list[Span] = field(default_factory=list)  # text for a reader (echo/help/comments): shelltext.py


@lru_cache(maxsize=1)
def _language():
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Language(tree_sitter_bash.language())


def _parser():
    """A fresh parser per file: a reused tree_sitter.Parser crashed (SIGSEGV) under fuzzing."""
    import tree_sitter

    return tree_sitter.Parser(_language())


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
        self.ascii_rows: dict[int, bool] = {}

    def point(self, row: int, col_bytes: int) -> tuple[int, int]:
        start = self.starts[row] if row < len(self.starts) else len(self.data)
        ascii_line = self.ascii_rows.get(row)
        if ascii_line is None:
            end = self.starts[row + 1] if row + 1 < len(self.starts) else len(self.data)
            ascii_line = self.ascii_rows[row] = self.data[start:end].isascii()
        if ascii_line:  # the usual case: O(1) per word, even on a 1 MB line
            return row + 1, col_bytes + 1
        return row + 1, len(self.data[start:start + col_bytes].decode("utf-8", "replace")) + 1

    def span(self, node) -> Span:
        l1, c1 = self.point(*node.start_point)
        l2, c2 = self.point(*node.end_point)
        return Span(self.path, l1, c1, l2, c2)


class ParserCrash(Exception):
    """The native shell parser died on this input (it ran in a child process)."""


def parse_shell(text: str, path: str) -> ShellScript:
    """Parse a launch script. Never raises for bad input: syntax errors land in ``errors``.

    The native tree-sitter parser runs in a forked child where the platform has fork: under
    fuzzing it crashed the whole process (SIGSEGV) on rare inputs, and one bad file must not
    take a pre-commit run down. Raises ParserCrash when the child dies.
    """
    if not hasattr(os, "fork") or os.environ.get("CFGLINT_NO_FORK"):
        return _parse_shell(text, path)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: parse, send the result, leave without running any cleanup
        try:
            os.close(read_fd)
            data = pickle.dumps(_parse_shell(text, path))
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as inp:
        data = inp.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        raise ParserCrash(f"the shell parser crashed (status {status})")
    return pickle.loads(data)


def _parse_shell(text: str, path: str) -> ShellScript:
    data = text.encode("utf-8")
    masked = PLACEHOLDER.sub(lambda m: b"_" + m.group(1).replace(b" ", b"_") + b"_", data)
    # code points beyond the BMP became 4 ASCII bytes: the native parser crashed on some of them,
    # and no shell syntax depends on them (byte offsets, and so positions, are unchanged)
    masked = _ASTRAL.sub(b"____", masked)
    tree = _parser().parse(masked)
    walker = _Walker(data, _Positions(data, path))
    walker.visit(tree.root_node, 1, None)
    from .shelltext import text_regions
    walker.script.text = text_regions(tree.root_node, walker.pos)
    return walker.script


class _Walker:
    def __init__(self, data: bytes, pos: _Positions):
        self.data = data
        self.pos = pos
        self.script = ShellScript()
        self.variables: dict[str, Word] = {}
        self.exported: dict[str, Word] = {}

    def src(self, node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    # -- words -------------------------------------------------------------------------
    def word(self, node) -> Word:
        text, static = self.value(node)
        return Word(text, self.src(node), self.pos.span(node), static)

    def value(self, node) -> tuple[str, bool]:
        t = node.type
        if t in ("word", "number"):
            return _ESCAPED.sub(r"\1", self.src(node)), True
        if t == "raw_string":
            return self.src(node)[1:-1], True
        if t in ("simple_expansion", "expansion"):
            name = self.src(node).lstrip("$").strip("{}")
            if name in self.variables and self.variables[name].static:
                return self.variables[name].text, True
            return self.src(node), False
        if t in ("string", "concatenation"):
            parts, static = [], True
            children = node.children
            if t == "string":
                children = [c for c in children if c.type != '"']
            for child in children:
                if child.type == "string_content":
                    parts.append(self.src(child))
                    continue
                v, s = self.value(child)
                parts.append(v)
                static = static and s
            return "".join(parts), static
        return self.src(node), False

    # -- statements --------------------------------------------------------------------
    def visit(self, node, repeat: int, loop_span: Span | None, certain: bool = True) -> None:
        """``repeat``: how many times a literal loop runs what is inside; ``certain``: False
        inside branches, non-literal loops, functions and ``||`` alternatives, where how often
        a command runs cannot be known statically."""
        t = node.type
        if t == "ERROR" or node.is_missing:
            self.script.errors.append(self.pos.span(node))
        if t == "command":
            self.command(node, repeat, loop_span, certain)
            return
        if t == "variable_assignment":
            self.assign(node, export=False)
            return
        if t == "declaration_command":
            export = self.src(node).startswith(("export", "declare -x"))
            for child in node.named_children:
                if child.type == "variable_assignment":
                    self.assign(child, export=export)
            return
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
                 "function_definition", "until_statement"):
            certain = False
        elif t == "list" and any(c.type == "||" for c in node.children):
            certain = False
        for child in node.children:
            self.visit(child, repeat, loop_span, certain)

    def assign(self, node, export: bool) -> Word | None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        if name_node is None:
            return None
        name = self.src(name_node)
        if value_node is not None:
            w = self.word(value_node)
        else:
            end = self.pos.span(node)
            w = Word("", "", Span(end.path, end.end_line, end.end_col, end.end_line, end.end_col))
        self.variables[name] = w
        if export:
            self.exported[name] = w
        return w

    def command(self, node, repeat: int, loop_span: Span | None, certain: bool = True) -> None:
        words: list[Word] = []
        assignments: dict[str, Word] = {}
        for child in node.children:
            if child.type == "variable_assignment":
                name_node = child.child_by_field_name("name")
                value_node = child.child_by_field_name("value")
                if name_node is not None and value_node is not None:
                    assignments[self.src(name_node)] = self.word(value_node)
            elif child.type == "command_name":
                words.append(self.word(child.named_children[0] if child.named_children else child))
            elif child.type in ("word", "number", "raw_string", "string", "concatenation",
                                "simple_expansion", "expansion", "ansi_c_string",
                                "command_substitution", "arithmetic_expansion", "process_substitution"):
                words.append(self.word(child))
            elif child.type == "ERROR":
                self.script.errors.append(self.pos.span(child))
        if not words:
            return
        rep = Located(repeat, loop_span) if loop_span is not None and repeat > 1 else None
        self.script.commands.append(
            Command(words, assignments, dict(self.exported), self.pos.span(node), rep, certain))
