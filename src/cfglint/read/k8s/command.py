"""A container -> the :class:`~cfglint.read.shell.Command` it runs: ``command`` + ``args``
with ``$(VAR)`` expanded, each word at the positions of its characters in the manifest. Without
``command`` the image's entrypoint runs ``args`` (the launchers' image table decides which);
``bash -c SCRIPT`` / ``sh -c SCRIPT`` is read by the shell parser."""

from __future__ import annotations

from ..shell import Command, Word
from ..yamlsrc import YNode, YScalar, YSeq
from .env import container_env, expand, shell_env
from .model import Container
from .positions import scalar_positions, span_of

SHELLS = ("bash", "sh", "dash", "zsh")
SCRIPT_FLAGS = ("-c", "-lc", "-ec", "-xc", "-exc", "-cx", "-ce")


def is_script(texts: list[str], i: int) -> bool:
    """Word ``i`` of an argv (``texts``) is the script of ``bash -c`` / ``sh -c`` and the like."""
    return i >= 2 and texts[i - 1] in SCRIPT_FLAGS and texts[i - 2].rsplit("/", 1)[-1] in SHELLS


def _items(seq: YNode | None, lines: list[str]) -> list[tuple[YScalar, str, list[tuple[int, int]] | None]]:
    """(node, text, positions of its characters or None) of each scalar of a command / args list."""
    out = []
    for item in seq.items if isinstance(seq, YSeq) else []:
        if not isinstance(item, YScalar):
            continue
        text = item.text
        where = scalar_positions(item, lines) if text else None
        out.append((item, text, where if where is not None and len(where) == len(text) else None))
    return out


def container_command(c: Container, lines: list[str], display: str) -> Command | None:
    """The container's argv as a :class:`Command`: words with the positions of their
    characters, ``$(VAR)`` expanded, the environment as its assignments; None for a container
    that sets neither ``command`` nor ``args``."""
    node = c.node
    if node.get("command") is None and node.get("args") is None:
        return None
    env = container_env(node, c.group, lines)
    words: list[Word] = []
    items = _items(node.get("command"), lines) + _items(node.get("args"), lines)
    texts = [t for _n, t, _w in items]
    for i, (item, text, where) in enumerate(items):
        shell = is_script(texts, i)
        text2, where2, static = expand(text, where, item.span, env, shell)
        if shell:
            text2, where2 = shell_env(text2, where2, env)
        span = span_of(where2, 0, len(text2), display, item.span) if where2 else item.span
        # where []: the characters cannot be placed one by one (escapes): a script inside is
        # placed at the whole scalar
        words.append(Word(text2, text2, span, static, where2 if where2 is not None else []))
    if not words:
        return None
    assignments: dict[str, Word] = {}
    for name, (value, span, where) in env.values.items():
        # a static value keeps the positions of its characters in the manifest (where its text is
        # read further: the Dynamo SDK's DYN_DEPLOYMENT_CONFIG, cfglint.deploy.graphs)
        w = Word(value if value is not None else f"$({name})", value if value is not None else f"$({name})",
                 span, value is not None, where if value is not None and where is not None
                 and len(where) == len(value) else None)
        assignments[name] = w
    first = node.get("command") or node.get("args")
    return Command(words, {}, assignments, first.span if first is not None else node.span)
