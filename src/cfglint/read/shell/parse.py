"""One launch script parsed and evaluated in this process (the worker process calls this)."""

from __future__ import annotations

from .native import tree_of
from .positions import _Positions
from .script import ParserCrash, ShellScript
from .text import text_regions
from .walker import Walker

# Python frames the walker may nest in the parser child: a command list such as 'a && b && ...'
# is a tree one level deeper per command (45,000 commands parsed in about 2 s when measured)
CHILD_RECURSION_LIMIT = 50_000


def parse_bounded(text: str, path: str) -> ShellScript:
    """:func:`parse_here`, with a script nested too deeply for the walker as ParserCrash."""
    try:
        return parse_here(text, path)
    except RecursionError:
        raise ParserCrash("its commands nest too deeply to read (a chain of thousands of '&&', '|' or "
                          "nested blocks); split it into shorter commands") from None


def parse_here(text: str, path: str) -> ShellScript:
    """Parse and evaluate ``text`` (the file ``path``) in this process."""
    data = text.encode("utf-8")
    tree = tree_of(data)
    walker = Walker(data, _Positions(data, path))
    walker.visit(tree.root_node, 1, None)
    walker.finish()
    walker.script.text = text_regions(tree.root_node, walker.pos)
    return walker.script
