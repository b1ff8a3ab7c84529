"""Which parts of a shell launch file are text for a reader, not input to a program.

``echo`` / ``printf`` arguments and ``cat <<EOF`` bodies that go to the terminal (usage and help
text), comments and ``case`` patterns (a script's own option parsing, ``--host) HOST=$2``) never
reach an engine, its environment or a configuration file. The text rules (RED002 / RED003) read
``--flag value`` and ``NAME=value`` shapes line by line; in these regions such a shape is prose
(``echo "  --host HOST  bind address"``), not a setting.

What writes to a file or another program is not text: ``echo ... > args.txt``,
``cat > cfg.yaml <<EOF``, ``cat <<EOF | kubectl apply -f -``, ``printf ... | tee out``.
"""

from __future__ import annotations

import bisect

from ...model import Span

TEXT_COMMANDS = ("echo", "printf", "cat")
# redirections that still end on the terminal (or nowhere)
_SCREEN = ("/dev/stdout", "/dev/stderr", "/dev/null", "/dev/tty", "&1", "&2", "1", "2")


def text_regions(root, pos) -> list[Span]:
    """Spans of ``root`` (a tree-sitter-bash tree) that are text for a reader; ``pos`` turns a
    node into a :class:`Span` (shell._Positions). Iterative: deep trees do not recurse."""
    out: list[Span] = []
    stack = [root]
    while stack:
        node = stack.pop()
        t = node.type
        if t == "comment":
            out.append(pos.span(node))
            continue
        if t == "case_item":
            for child in node.children:
                if child.type == ")":
                    break
                out.append(pos.span(child))
        elif t == "command" and _to_screen(node):
            name = node.child_by_field_name("name")
            out.extend(pos.span(c) for c in node.named_children if c != name and c.type != "variable_assignment")
            parent = node.parent
            if parent is not None and parent.type == "redirected_statement":
                for redirect in parent.children:
                    if redirect.type == "heredoc_redirect":
                        out.extend(pos.span(c) for c in redirect.children if c.type == "heredoc_body")
        stack.extend(node.children)
    return out


def _src(node) -> str:
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


def _to_screen(command) -> bool:
    """An echo / printf (or cat with a here-document) whose output reaches only the terminal."""
    name = command.child_by_field_name("name")
    if name is None or _src(name) not in TEXT_COMMANDS:
        return False
    stmt = command.parent if command.parent is not None and command.parent.type == "redirected_statement" else command
    if _src(name) == "cat" and not any(c.type == "heredoc_redirect" for c in (stmt.children if stmt is not command else [])):
        return False  # cat FILE: its arguments are files, not text
    if stmt is not command:
        todo = list(stmt.children)
        while todo:
            n = todo.pop()
            if n.type in ("file_redirect", "herestring_redirect"):
                dest = n.child_by_field_name("destination") or (n.named_children[-1] if n.named_children else None)
                text = _src(dest) if dest is not None else ""
                op = _src(n.children[0]) if n.children else ""
                if n.type == "herestring_redirect" or not (text in _SCREEN or (op.endswith("&") and text.isdigit())):
                    return False
            elif n.type != "heredoc_body":
                todo.extend(n.children)
    up = stmt.parent
    if up is not None and up.type == "pipeline":
        piped = [c for c in up.children if c.is_named]
        if piped and piped[-1] != stmt:
            return False  # feeds another program
    return True


class Regions:
    """Spans as sorted, disjoint intervals of (line, col): :meth:`holds` is a binary search, so
    checking every match of a long file against every echo / comment in it stays linear-log
    (a loop over all regions per match was quadratic)."""

    def __init__(self, spans: list[Span]):
        merged: list[list[tuple[int, int]]] = []
        for a, b in sorted(((s.line, s.col), (s.end_line, s.end_col)) for s in spans):
            if b <= a:
                continue
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        self.starts = [a for a, _ in merged]
        self.ends = [b for _, b in merged]

    def holds(self, line: int, col: int) -> bool:
        """Whether 1-based (line, col) falls in one of the regions."""
        i = bisect.bisect_right(self.starts, (line, col)) - 1
        return i >= 0 and (line, col) < self.ends[i]

    def __bool__(self) -> bool:
        return bool(self.starts)


def inside(regions: Regions | list[Span], line: int, col: int) -> bool:
    """Whether 1-based (line, col) falls in one of ``regions`` (a :class:`Regions`, or a list
    of spans: then linear in their number)."""
    if isinstance(regions, Regions):
        return regions.holds(line, col)
    for s in regions:
        if (s.line, s.col) <= (line, col) < (s.end_line, s.end_col):
            return True
    return False
