"""YAML with positions: every mapping key, value and sequence item keeps its span.

Parsing composes PyYAML nodes (no object is ever constructed from a tag, so no code runs),
then converts them to :class:`YMap` / :class:`YSeq` / :class:`YScalar`. Scalars are resolved
with the YAML 1.1 rules PyYAML applies (``yes`` is a bool, ``1.10`` a float); the original
text is kept so messages can point out such pitfalls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator

import yaml

from .model import Span

MAX_NODES = 200_000  # alias expansion guard ("billion laughs")


class YamlError(Exception):
    """The YAML text cannot be parsed; ``span`` locates the problem when known."""

    def __init__(self, message: str, span: Span | None = None):
        super().__init__(message)
        self.span = span


@dataclass(slots=True)
class YScalar:
    value: Any
    text: str
    span: Span
    tag: str = ""


@dataclass(slots=True)
class YSeq:
    items: list["YNode"]
    span: Span
    tag: str = ""


@dataclass(slots=True)
class YMap:
    items: list[tuple[YScalar, "YNode"]]
    span: Span
    duplicates: list[tuple[YScalar, YScalar]] = field(default_factory=list)  # (first, repeated)
    tag: str = ""

    def get(self, key: str) -> "YNode | None":
        for k, v in reversed(self.items):  # the last one wins, as in every YAML loader
            if k.value == key:
                return v
        return None

    def key(self, key: str) -> YScalar | None:
        for k, _ in reversed(self.items):
            if k.value == key:
                return k
        return None


YNode = YScalar | YSeq | YMap

_constructor = yaml.SafeLoader("")  # used only to resolve the standard scalar tags
_STANDARD = {
    "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp",
}


# Tags a safe loader (PyYAML SafeLoader, ruamel "safe", the engines' yaml.safe_load) constructs;
# any other tag makes such a loader refuse the document ("could not determine a constructor").
SAFE_TAGS = _STANDARD | {
    "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map", "tag:yaml.org,2002:binary",
    "tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs", "tag:yaml.org,2002:set",
    "tag:yaml.org,2002:merge",
}


def written_tag(tag: str) -> str:
    """A resolved tag as YAML source writes it: ``tag:yaml.org,2002:python/name:x`` -> ``!!python/name:x``."""
    return "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag


def foreign_tags(node: "YNode | None") -> list[tuple[str, Span]]:
    """Every node whose tag a safe YAML loader cannot construct (``!!python/object/apply:...``,
    ``!!python/name:...``, application tags such as ``!custom``), as (tag as written, span of
    the tag), in document order. Such nodes are kept as plain data here, never constructed."""
    out: list[tuple[str, Span]] = []
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if n.tag and n.tag not in SAFE_TAGS:
            shown = written_tag(n.tag)
            s = n.span
            out.append((shown, Span(s.path, s.line, s.col, s.line, s.col + len(shown))))
        if isinstance(n, YSeq):
            stack.extend(reversed(n.items))
        elif isinstance(n, YMap):
            for k, v in reversed(n.items):
                stack.append(v)
                stack.append(k)
    return out


def _span(node: yaml.Node, path: str) -> Span:
    s, e = node.start_mark, node.end_mark
    return Span(path, s.line + 1, s.column + 1, e.line + 1, e.column + 1)


def _scalar(node: yaml.ScalarNode, path: str) -> YScalar:
    value: Any = node.value
    if node.tag in _STANDARD and node.tag != "tag:yaml.org,2002:str":
        try:
            value = _constructor.construct_object(node, deep=True)
        except Exception:  # a malformed timestamp or similar: keep the text
            value = node.value
        if node.tag == "tag:yaml.org,2002:timestamp":
            value = node.value
    return YScalar(value, node.value, _span(node, path), node.tag)


def _convert(root: yaml.Node, path: str) -> YNode:
    count = 0

    def conv(node: yaml.Node) -> YNode:
        nonlocal count
        count += 1
        if count > MAX_NODES:
            raise YamlError(f"YAML expands to more than {MAX_NODES} nodes (alias bomb?)", _span(root, path))
        if isinstance(node, yaml.ScalarNode):
            return _scalar(node, path)
        if isinstance(node, yaml.SequenceNode):
            return YSeq([conv(n) for n in node.value], _span(node, path), node.tag)
        ymap = YMap([], _span(node, path), tag=node.tag)
        seen: dict[Any, YScalar] = {}
        for knode, vnode in node.value:
            if not isinstance(knode, yaml.ScalarNode):
                k = YScalar(None, "<complex key>", _span(knode, path))
            else:
                k = _scalar(knode, path)
            hk = k.value if isinstance(k.value, (str, int, float, bool, type(None))) else k.text
            if hk in seen:
                ymap.duplicates.append((seen[hk], k))
            seen[hk] = k
            ymap.items.append((k, conv(vnode)))
        return ymap

    return conv(root)


MAX_FLOW_DEPTH = 64
_BRACKETS = re.compile(r"[\[\]{}]")


def flow_depth(text: str, limit: int) -> int:
    """How deep ``[`` / ``{`` nest in ``text``, counted over every bracket (quoted or not, so it
    can only overcount), stopping once past ``limit``. PyYAML's scanner keeps one pending key
    per open flow level and walks them all at every token: a line of 2 000 ``[`` took 17 s.
    Checked before parsing, a limit keeps that cost linear."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(text):
        if m.group(0) in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif depth:
            depth -= 1
    return deepest


def parse_yaml(text: str, path: str) -> YNode | None:
    """Parse one YAML document. Returns None for an empty document.

    Raises YamlError for syntax errors, several documents, nesting too deep (flow collections
    nested deeper than MAX_FLOW_DEPTH, see :func:`flow_depth`) or alias bombs.
    """
    depth = flow_depth(text, MAX_FLOW_DEPTH)
    if depth > MAX_FLOW_DEPTH:
        raise YamlError(f"YAML nesting is too deep to parse: flow collections ([...] or {{...}}) nested deeper "
                        f"than {MAX_FLOW_DEPTH} levels (no engine configuration nests so deep)")
    try:
        docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        span = Span(path, mark.line + 1, mark.column + 1, mark.line + 1, mark.column + 2) if mark else None
        problem = err.problem or err.context or "syntax error"
        raise YamlError(f"YAML syntax error: {problem}", span) from None
    except yaml.YAMLError as err:
        raise YamlError(f"YAML error: {err}") from None
    except RecursionError:
        raise YamlError("YAML nesting is too deep to parse") from None
    if not docs:
        return None
    if len(docs) > 1:
        raise YamlError(f"expected one YAML document, found {len(docs)}", _span(docs[1], path))
    try:
        return _convert(docs[0], path)
    except RecursionError:
        raise YamlError("YAML nesting is too deep to parse") from None


def to_python(node: YNode | None) -> Any:
    """Plain Python value of a node tree (dict / list / scalars), last duplicate key wins."""
    if node is None:
        return None
    if isinstance(node, YScalar):
        return node.value
    if isinstance(node, YSeq):
        return [to_python(n) for n in node.items]
    return {k.value if isinstance(k.value, (str, int, float, bool, type(None))) else k.text: to_python(v)
            for k, v in node.items}


def walk_path(node: YNode | None, path: tuple) -> YNode | None:
    """The node at ``path`` (keys and list indexes), or None."""
    for part in path:
        if isinstance(node, YMap) and isinstance(part, str):
            node = node.get(part)
        elif isinstance(node, YSeq) and isinstance(part, int) and 0 <= part < len(node.items):
            node = node.items[part]
        else:
            return None
    return node


def key_span(node: YNode | None, path: tuple) -> Span | None:
    """Span of the mapping key at the end of ``path`` (the value's parent key), or None."""
    if not path:
        return None
    parent = walk_path(node, path[:-1])
    if isinstance(parent, YMap) and isinstance(path[-1], str):
        k = parent.key(path[-1])
        return k.span if k else None
    return None


def iter_scalars(node: YNode | None) -> Iterator[YScalar]:
    """Every scalar (keys included) in document order."""
    if node is None:
        return
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, YScalar):
            yield n
        elif isinstance(n, YSeq):
            stack.extend(reversed(n.items))
        else:
            for k, v in reversed(n.items):
                stack.append(v)
                stack.append(k)
