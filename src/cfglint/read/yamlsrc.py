"""YAML with positions: every mapping key, value and sequence item keeps its span.

Parsing composes PyYAML nodes (no object is ever constructed from a tag, so no code runs),
then converts them to :class:`YMap` / :class:`YSeq` / :class:`YScalar`. Scalars are resolved
with the YAML 1.1 rules PyYAML applies (``yes`` is a bool, ``1.10`` a float); the original
text is kept so messages can point out such pitfalls.

Aliases (``*name``) stay shared: the node an alias names is converted once and every alias
to it is that same object, with the span of the anchor's definition (where the value is
written). Merge keys (``<<: *defaults``, ``<<: [*a, *b]``) are applied as the safe loaders
apply them (https://yaml.org/type/merge.html; PyYAML ``SafeConstructor.flatten_mapping`` up to
6.0.3): a key written in the mapping wins over a merged one, of the mappings of one ``<<`` list
the earlier wins, and of two ``<<`` keys the later (PyYAML 6.0.4 lets the later mapping of a
list win for keys longer than one character, yaml/pyyaml#953, a regression against the spec);
merged
pairs are the anchor's own nodes (their spans point into its definition) and
:attr:`YMap.merges` keeps each ``<<`` key. A document whose aliases would expand to more than
MAX_NODES nodes or MAX_EXPANDED_CHARS characters of scalars (what a loader builds: "billion
laughs") is refused with a :class:`YamlError`, so nothing downstream walks an unbounded tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator

import yaml

from ..model import Span
from .textfile import LineIndex

MAX_NODES = 200_000               # nodes a document may expand to through aliases ("billion laughs")
MAX_EXPANDED_CHARS = 20_000_000   # characters of scalars it may expand to (one 10 KB string, 2000 aliases)
MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlError(Exception):
    """The YAML text cannot be parsed; ``span`` locates the problem when known."""

    def __init__(self, message: str, span: Span | None = None):
        super().__init__(message)
        self.span = span


class _TooLarge(YamlError):
    """A document that expands past MAX_NODES / the characters' bound: decided on libyaml's tree
    as on the pure-Python loader's (they are the same tree, see :func:`_parse_c`)."""


@dataclass(slots=True)
class YScalar:
    value: Any
    text: str
    span: Span
    tag: str = ""


# Bits of :attr:`YSeq.holds` / :attr:`YMap.holds`: what the tree below a collection holds
HOLDS_DUPLICATES = 1      # a mapping with a duplicate key
HOLDS_FOREIGN_TAGS = 2    # a node with a tag a safe loader cannot construct (:func:`foreign_tags`)
HOLDS_MERGES = 4          # a mapping with a merge key '<<'
HOLDS_ANY = -1            # not known (a tree not built by this module): any of them


@dataclass(slots=True)
class YSeq:
    items: list["YNode"]
    span: Span
    tag: str = ""
    # set when the tree is built (never changed after): the expanded (nodes, characters) of
    # :func:`expanded_size` with nodes capped at MAX_NODES + 1, and the HOLDS_* bits of what the
    # tree below holds; None / HOLDS_ANY for a node built elsewhere
    expanded: tuple[int, int] | None = field(default=None, repr=False, compare=False)
    holds: int = field(default=HOLDS_ANY, repr=False, compare=False)


@dataclass(slots=True)
class YMap:
    items: list[tuple[YScalar, "YNode"]]
    span: Span
    duplicates: list[tuple[YScalar, YScalar]] = field(default_factory=list)  # (first, repeated)
    tag: str = ""
    # merge keys applied to ``items``: (the ``<<`` key as written, a mapping merged in), in
    # source order; the merged pairs that win are in ``items`` (the anchor's own nodes)
    merges: list[tuple[YScalar, "YMap"]] = field(default_factory=list)
    expanded: tuple[int, int] | None = field(default=None, repr=False, compare=False)   # as YSeq's
    holds: int = field(default=HOLDS_ANY, repr=False, compare=False)

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

_STANDARD = {
    "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp",
}
# The safe loader's constructor, used only to turn the text of an int, float, bool or null
# scalar into its value. Its construct_* methods are called directly, never construct_object:
# that one records every node it builds in ``constructed_objects`` (and a failed one in
# ``recursive_objects``) until the document is done, which for a module-level constructor is
# never (460 MB at 11,000 submissions).
_constructor = yaml.constructor.SafeConstructor()
_CONSTRUCT = {tag: _constructor.yaml_constructors[tag]
              for tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
                          "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null")}


# Tags a safe loader (PyYAML SafeLoader, ruamel "safe", the engines' yaml.safe_load) constructs;
# any other tag makes such a loader refuse the document ("could not determine a constructor").
SAFE_TAGS = _STANDARD | {
    "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map", "tag:yaml.org,2002:binary",
    "tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs", "tag:yaml.org,2002:set",
    "tag:yaml.org,2002:merge",
}


_SAFE_OR_UNTAGGED = SAFE_TAGS | {""}


def holds(root: "YNode | None") -> int:
    """The HOLDS_* bits of what the tree ``root`` holds (duplicate keys, foreign tags, merge
    keys), recorded when this module built it (HOLDS_ANY, every bit, for a tree built elsewhere):
    a walk looking for what a tree does not hold need not run."""
    if root is None:
        return 0
    if isinstance(root, YScalar):
        return HOLDS_FOREIGN_TAGS if root.tag not in _SAFE_OR_UNTAGGED else 0
    return root.holds


def written_tag(tag: str) -> str:
    """A resolved tag as YAML source writes it: ``tag:yaml.org,2002:python/name:x`` -> ``!!python/name:x``."""
    return "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag


def foreign_tags(node: "YNode | None") -> list[tuple[str, Span]]:
    """Every node whose tag a safe YAML loader cannot construct (``!!python/object/apply:...``,
    ``!!python/name:...``, application tags such as ``!custom``), as (tag as written, span of
    the tag), in document order. Such nodes are kept as plain data here, never constructed."""
    out: list[tuple[str, Span]] = []
    for n in nodes(node):
        if n.tag and n.tag not in SAFE_TAGS:
            shown = written_tag(n.tag)
            s = n.span
            out.append((shown, Span(s.path, s.line, s.col, s.line, s.col + len(shown))))
    return out


def _children(n: "YNode") -> list["YNode"]:
    """Every node directly below ``n`` in document order: sequence items; a mapping's keys and
    values, the keys of its merge keys and the mappings they merge, and its duplicate keys."""
    if isinstance(n, YSeq):
        return n.items
    if isinstance(n, YMap):
        out: list[YNode] = []
        for mkey, source in n.merges:
            out += (mkey, source)
        for k, v in n.items:
            out += (k, v)
        for first, again in n.duplicates:
            out += (first, again)
        return out
    return []


def nodes(root: "YNode | None") -> Iterator["YNode"]:
    """Every distinct node of the tree once, parents before children, in document order; a
    node shared by aliases (or merged into several mappings) is visited once, so a walk costs
    the size of the document, never the size of its expansion."""
    if root is None:
        return
    seen: set[int] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        stack.extend(reversed(_children(n)))


def _span(node: yaml.Node, path: str, lines: LineIndex) -> Span:
    """The node's span from its marks' character offsets, by cfglint's one definition of lines
    (textfile.py): PyYAML also counts U+0085, U+2028 and U+2029 as line breaks (YAML 1.1), so
    its own line and column numbers drift from every other position after one of them."""
    return Span(path, *lines.position(node.start_mark.index), *lines.position(node.end_mark.index))


def _scalar(node: yaml.ScalarNode, path: str, lines: LineIndex) -> YScalar:
    """An int, float, bool or null scalar gets its value as the safe loader constructs it;
    any other (strings, timestamps, other tags) keeps its text; a value the constructor
    refuses (``!!int abc``) keeps its text too."""
    value: Any = node.value
    construct = _CONSTRUCT.get(node.tag)
    if construct is not None:
        try:
            value = construct(_constructor, node)
        except Exception:  # a malformed value such as !!int abc: keep the text
            value = node.value
    return YScalar(value, node.value, _span(node, path, lines), node.tag)


def _hashable(k: YScalar) -> Any:
    return k.value if isinstance(k.value, (str, int, float, bool, type(None))) else k.text


class _TooDeep(Exception):
    """A document composed by libyaml nests deeper than :data:`C_MAX_DEPTH` collections."""


def _convert(root: yaml.Node, path: str, lines: LineIndex,
             max_depth: int | None = None, written: list[int] | None = None) -> tuple[YNode, tuple[int, int]]:
    """The positioned tree of a composed document: each YAML node converted once (aliases
    share it), merge keys applied; with its :func:`expanded_size` (and in ``written``, when
    given, the number of nodes written in the text, aliases not copied out), counted as the tree is
    built (children before parents) and kept on each collection (``expanded``), as are the
    HOLDS_* bits of what lies below it (``holds``, see :func:`holds`). Raises YamlError for a merge key whose value is not a
    mapping or a list of mappings, and for an alias inside the node it names; _TooDeep when
    collections nest deeper than ``max_depth``."""
    done: dict[int, YNode] = {}
    open_nodes: set[int] = set()
    keys = [0]   # mapping keys written (each converted where it is, never shared)
    limit = MAX_NODES + 1

    def measure(out: YSeq | YMap) -> None:
        """Set ``out.expanded`` and ``out.holds`` from its children's (converted before it)."""
        holds = HOLDS_FOREIGN_TAGS if out.tag not in _SAFE_OR_UNTAGGED else 0
        if isinstance(out, YMap):
            below: list[YNode] = [x for k, v in out.items for x in (k, v)]
            if out.duplicates:
                holds |= HOLDS_DUPLICATES
            if out.merges:   # a merged mapping's pairs that lose are in no ``items``
                holds |= HOLDS_MERGES
                for _, source in out.merges:
                    holds |= source.holds
        else:
            below = out.items
        count, chars = 1, 0
        for c in below:
            if c.__class__ is YScalar:
                count, chars = count + 1, chars + len(c.text)  # type: ignore[union-attr]
                if c.tag not in _SAFE_OR_UNTAGGED:
                    holds |= HOLDS_FOREIGN_TAGS
            else:
                cn, cc = c.expanded  # type: ignore[union-attr,misc]
                count, chars = count + cn, chars + cc
                holds |= c.holds  # type: ignore[union-attr]
        out.expanded = (min(count, limit), min(chars, 1 << 62))
        out.holds = holds

    def conv(node: yaml.Node) -> YNode:
        got = done.get(id(node))
        if got is not None:
            return got
        if id(node) in open_nodes:
            raise YamlError("YAML alias inside the node it names (a recursive structure): no configuration "
                            "can be built from it", _span(node, path, lines))
        if isinstance(node, yaml.ScalarNode):
            out: YNode = _scalar(node, path, lines)
        else:
            open_nodes.add(id(node))
            if max_depth is not None and len(open_nodes) > max_depth:
                raise _TooDeep
            if isinstance(node, yaml.SequenceNode):
                out = YSeq([conv(n) for n in node.value], _span(node, path, lines), node.tag)
            else:
                out = mapping(node)
            measure(out)
            open_nodes.discard(id(node))
        done[id(node)] = out
        return out

    def mapping(node: yaml.MappingNode) -> YMap:
        ymap = YMap([], _span(node, path, lines), tag=node.tag)
        merged: list[tuple[YScalar, YNode]] = []   # pairs merged in, the winner of a key last
        seen: dict[Any, YScalar] = {}
        keys[0] += len(node.value)
        for knode, vnode in node.value:
            if not isinstance(knode, yaml.ScalarNode):
                k = YScalar(None, "<complex key>", _span(knode, path, lines))
            elif knode.tag == MERGE_TAG:
                mkey = _scalar(knode, path, lines)
                if isinstance(vnode, yaml.MappingNode):
                    sources = [vnode]
                elif isinstance(vnode, yaml.SequenceNode) and all(isinstance(n, yaml.MappingNode) for n in vnode.value):
                    sources = list(reversed(vnode.value))  # the first mapping of the list wins
                else:
                    raise YamlError("the merge key '<<' needs a mapping or a list of mappings (such as *defaults "
                                    "or [*a, *b]); safe loaders refuse this file with 'expected a mapping or "
                                    "list of mappings for merging'", _span(vnode, path, lines))
                for source in sources:
                    ysource = conv(source)
                    assert isinstance(ysource, YMap)
                    ymap.merges.append((mkey, ysource))
                    merged.extend(ysource.items)
                continue
            else:
                k = _scalar(knode, path, lines)
            hk = _hashable(k)
            if hk in seen:
                ymap.duplicates.append((seen[hk], k))
            seen[hk] = k
            ymap.items.append((k, conv(vnode)))
        if merged:
            # a key written in the mapping wins; of merged pairs, the last in ``merged`` wins, at
            # the place of its first appearance (as a dict built from them keeps it)
            winners: dict[Any, tuple[YScalar, YNode]] = {}
            for k, v in merged:
                if _hashable(k) not in seen:
                    winners[_hashable(k)] = (k, v)
            ymap.items[:0] = list(winners.values())
        return ymap

    top = conv(root)
    size = top.expanded if not isinstance(top, YScalar) else (1, len(top.text))
    if written is not None:
        written.append(len(done) + keys[0])
    return top, size  # type: ignore[return-value]


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


def expanded_size(root: YNode | None, limit: int = MAX_NODES + 1) -> tuple[int, int]:
    """(nodes, characters of scalar text) a loader builds from ``root``, every alias copied out
    and merged pairs counted where they are merged; nodes capped at ``limit`` (a document of 30
    lines can expand to 10**9 nodes). The size counted when the tree was built (``expanded``,
    nodes capped at MAX_NODES + 1) when that answers it, else a walk, linear in the number of
    distinct nodes."""
    if root is None:
        return 0, 0
    known = root.expanded if not isinstance(root, YScalar) else None
    if known is not None and limit >= 1 and (known[0] <= MAX_NODES or limit <= MAX_NODES + 1):
        return min(known[0], limit), known[1]
    return _walked_size(root, limit)


def _walked_size(root: YNode, limit: int) -> tuple[int, int]:
    """:func:`expanded_size` by a walk of the tree."""
    sizes: dict[int, tuple[int, int]] = {}
    stack: list[tuple[YNode, bool]] = [(root, False)]
    while stack:  # post-order over distinct nodes: children before parents
        n, expanded = stack.pop()
        if id(n) in sizes:
            continue
        below = [x for k, v in n.items for x in (k, v)] if isinstance(n, YMap) else \
            n.items if isinstance(n, YSeq) else []
        if not expanded:
            stack.append((n, True))
            stack.extend((c, False) for c in below if id(c) not in sizes)
            continue
        count, chars = 1, len(n.text) if isinstance(n, YScalar) else 0
        for c in below:
            cn, cc = sizes[id(c)]
            count, chars = min(count + cn, limit), min(chars + cc, 1 << 62)
        sizes[id(n)] = (count, chars)
    return sizes[id(root)]


# libyaml through PyYAML's binding (composes about 7x faster than the pure-Python loader);
# None where PyYAML was built without it.
_CLoader = getattr(yaml, "CSafeLoader", None) if getattr(yaml, "__with_libyaml__", False) else None
# Characters on which libyaml and PyYAML's pure-Python scanner disagree, checked against each
# other (tests/test_yaml_c.py): a tab, which libyaml takes as a separator in places (``a:\t1``,
# ``a: 1\t``) where the pure-Python scanner refuses it ("found character '\t' that cannot
# start any token"); a byte-order mark, which libyaml skips at the start of any line and does
# not count in its marks at the start of the text (the pure-Python scanner only skips it at
# offset 0 and counts it); a '?' (libyaml takes one inside a plain scalar in a flow collection,
# ``{u: http://h/v1?a=1}``, ``[a? b]``, where the pure-Python parser says "expected ',' or '}',
# but got '?'"; with '?' as a key indicator the empty key is placed elsewhere, ``{? : 1}``); a
# '!' (libyaml takes tag characters the pure-Python scanner refuses, ``!'!str x``); a block
# scalar header followed directly by '#' (``a: |#``, ``>2#``: libyaml takes it, the pure-Python
# scanner says "expected chomping or indentation indicators"); a ':' followed by nothing but
# white space and line breaks before ',', '}', ']' or a comment (an empty value in a flow
# collection, ``{a: , b: 1}``, ``[a: ]``: libyaml places the empty scalar at the next token,
# PyYAML at the end of the ':'; a block ``key: # note`` is screened too, conservatively).
# None occurs in the examples. Texts holding one are parsed by
# the pure-Python loader. Linear: no run is scanned twice (possessive quantifiers).
_C_UNSAFE = re.compile(r"[\t\ufeff?!]|[|>][-+0-9]*+#|:\s*+[,}\]#]")
# Collections nested deeper than this in a document libyaml composed: parsed again by the
# pure-Python loader, whose recursion gives up (RecursionError, "nesting is too deep") at a
# depth libyaml (limit 1000) accepts. No configuration nests so deep.
C_MAX_DEPTH = 100


def _error(err: Exception, text: str, path: str) -> YamlError:
    """The YamlError for an exception of the pure-Python loader."""
    if isinstance(err, yaml.MarkedYAMLError):
        mark = err.problem_mark or err.context_mark
        span = None
        if mark:
            line, col = LineIndex(text).position(mark.index)
            span = Span(path, line, col, line, col + 1)
        from .yamlmsg import explain

        return YamlError(f"YAML syntax error: {explain(err, text)}", span)
    if isinstance(err, yaml.YAMLError):
        return YamlError(f"YAML error: {' '.join(str(err).split())}")  # one line
    return YamlError("YAML nesting is too deep to parse")  # RecursionError


def _finish(docs: list[yaml.Node], text: str, path: str, max_depth: int | None = None) -> YNode | None:
    """The one document of ``docs`` converted and checked for alias bombs (see parse_yaml)."""
    if not docs:
        return None
    if len(docs) > 1:
        raise YamlError(f"expected one YAML document, found {len(docs)}", _span(docs[1], path, LineIndex(text)))
    return _finish_one(docs[0], text, path, LineIndex(text), max_depth)[0]


def _finish_one(doc: yaml.Node, text: str, path: str, lines: LineIndex,
                max_depth: int | None = None) -> tuple[YNode, int]:
    """One composed document converted and checked for alias bombs, with the number of nodes
    it expands to."""
    try:
        nodes: list[int] = []
        root, (count, chars) = _convert(doc, path, lines, max_depth, nodes)
    except RecursionError:
        if max_depth is not None:  # libyaml's tree: the pure-Python loader decides
            raise _TooDeep from None
        raise YamlError("YAML nesting is too deep to parse") from None
    max_chars = max(MAX_EXPANDED_CHARS, 2 * len(text))
    if nodes[0] > MAX_NODES:   # large as written: no alias needed
        raise _TooLarge(f"this YAML document holds more than {MAX_NODES} nodes ({nodes[0]} written): too large "
                        f"to check; no engine configuration or manifest is this large", root.span)
    if count > MAX_NODES or chars > max_chars:
        raise _TooLarge(f"YAML aliases expand this document to more than {MAX_NODES} nodes or {max_chars} "
                        f"characters (an alias bomb?): safe loaders build every copy; write the values out "
                        f"or use fewer aliases", root.span)
    return root, count


def _parse_c(text: str, path: str) -> tuple[bool, YNode | None]:
    """(True, tree) when libyaml composes ``text`` into at most one document the pure-Python
    loader composes identically; (False, None) when the pure-Python loader must decide: no
    libyaml, a text :data:`_C_UNSAFE` matches, any error (its message and position are the
    pure-Python parser's), several documents, nesting deeper than :data:`C_MAX_DEPTH`.
    libyaml's marks count characters as the pure-Python ones do (the binding hands it the
    text as UTF-8 and its index advances one per character: non-BMP characters, CR LF, lone
    CR, U+0085, U+2028/9 included), so spans are the same."""
    if _CLoader is None or _C_UNSAFE.search(text):
        return False, None
    try:
        docs = list(yaml.compose_all(text, Loader=_CLoader))
    except Exception:  # noqa: BLE001 - YAMLError, or text libyaml cannot take (a lone surrogate)
        return False, None
    if len(docs) > 1:
        return False, None
    try:
        return True, _finish(docs, text, path, C_MAX_DEPTH)
    except _TooDeep:
        return False, None


def _parse_c_all(text: str, path: str) -> tuple[bool, list[YNode]]:
    """(True, documents) when libyaml composes every document of ``text`` as the pure-Python
    loader does (the conditions of :func:`_parse_c`, for any number of documents); (False, [])
    when the pure-Python loader must decide. Raises YamlError when together they expand to more
    than MAX_NODES nodes."""
    if _CLoader is None or _C_UNSAFE.search(text):
        return False, []
    try:
        docs = list(yaml.compose_all(text, Loader=_CLoader))
    except Exception:  # noqa: BLE001 - as in _parse_c: the pure-Python loader gives the error
        return False, []
    lines = LineIndex(text)
    out: list[YNode] = []
    total = 0
    for doc in docs:
        try:
            root, count = _finish_one(doc, text, path, lines, C_MAX_DEPTH)
        except _TooLarge:
            # one document past the limit: decided here too (a 200,000-key mapping took 16 s, the
            # pure-Python loader composing it again to raise the same error)
            raise
        except (_TooDeep, YamlError):
            return False, []
        total += count
        if total > MAX_NODES:
            # decided here: the pure-Python loader composes these documents alike (the text is
            # one libyaml reads as it does) and refuses the stream at the same document. Handing
            # it the stream instead cost a second, ~7x slower pass over all of it (10x the input:
            # ~60x the time)
            raise _stream_too_large(root)
        out.append(root)
    return True, out


def _stream_too_large(root: YNode) -> YamlError:
    """The error for a stream whose documents together expand past MAX_NODES, at the document
    that crosses it."""
    return YamlError(f"the documents of this YAML stream expand to more than {MAX_NODES} nodes "
                     f"(aliases copied out): too large to check", root.span)


def parse_yaml(text: str, path: str, c_loader: bool = True) -> YNode | None:
    """Parse one YAML document. Returns None for an empty document.

    Composed by libyaml when PyYAML has it and the text is one it reads as the pure-Python
    loader does (see :func:`_parse_c`), else (or with ``c_loader=False``) by the pure-Python
    loader: same tree, spans, errors and messages either way.

    Raises YamlError for syntax errors, several documents, nesting too deep (flow collections
    nested deeper than MAX_FLOW_DEPTH, see :func:`flow_depth`) or alias bombs.
    """
    _refuse_deep_flow(text)
    if c_loader:
        done, root = _parse_c(text, path)
        if done:
            return root
    try:
        docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError) as err:
        raise _error(err, text, path) from None
    return _finish(docs, text, path)


def _refuse_deep_flow(text: str) -> None:
    """Raise YamlError when flow collections nest deeper than MAX_FLOW_DEPTH (:func:`flow_depth`)."""
    if flow_depth(text, MAX_FLOW_DEPTH) > MAX_FLOW_DEPTH:
        raise YamlError(f"YAML nesting is too deep to parse: flow collections ([...] or {{...}}) nested deeper "
                        f"than {MAX_FLOW_DEPTH} levels (no engine configuration nests so deep)")


def parse_yaml_all(text: str, path: str, c_loader: bool = True, keep_empty: bool = False) -> list[YNode]:
    """Parse every document of a YAML stream (``---`` separated: Kubernetes manifests, the
    output of ``helm template`` with its ``# Source:`` comments), each node with its exact
    position in the whole text. Empty documents are left out (so ``[]`` for an empty text)
    unless ``keep_empty`` (then each is a null scalar, as a loader builds it).

    Composed by libyaml when it reads the text as the pure-Python loader does (see
    :func:`_parse_c_all`), else by the pure-Python loader: same trees either way. Each document is
    checked for alias bombs as :func:`parse_yaml` checks one, and all of them together may
    expand to at most MAX_NODES nodes. Raises YamlError as :func:`parse_yaml` does, except
    that several documents are no error.
    """
    _refuse_deep_flow(text)
    if c_loader:
        done, found = _parse_c_all(text, path)
        if done:
            return [d for d in found if keep_empty or not _empty(d)]
    try:
        docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError) as err:
        raise _error(err, text, path) from None
    lines = LineIndex(text)
    out: list[YNode] = []
    total = 0
    for doc in docs:
        try:
            root, count = _finish_one(doc, text, path, lines)
        except RecursionError:
            raise YamlError("YAML nesting is too deep to parse") from None
        total += count
        if total > MAX_NODES:
            raise _stream_too_large(root)
        if keep_empty or not _empty(root):
            out.append(root)
    return out


def _empty(node: YNode) -> bool:
    """An empty document (``---`` followed by nothing or by comments only)."""
    return isinstance(node, YScalar) and node.value is None and node.text == "" and not node.tag.startswith("!")


def to_python(node: YNode | None, _memo: dict | None = None) -> Any:
    """Plain Python value of a node tree (dict / list / scalars) as a safe loader builds it:
    last duplicate key wins, merge keys applied. A node shared by aliases becomes one shared
    object (do not mutate the result)."""
    if node is None:
        return None
    if isinstance(node, YScalar):
        return node.value
    memo = {} if _memo is None else _memo
    got = memo.get(id(node))
    if got is not None:
        return got
    if isinstance(node, YSeq):
        out: Any = [to_python(n, memo) for n in node.items]
    else:
        out = {_hashable(k): to_python(v, memo) for k, v in node.items}
    memo[id(node)] = out
    return out


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
    """Every distinct scalar (keys included) in document order, each once (see :func:`nodes`)."""
    for n in nodes(node):
        if isinstance(n, YScalar):
            yield n
