"""ruamel.yaml round-trip editing, shared by ``cfglint init`` (the manifest) and ``--fix``
(structural fixes of engine YAML): comments, key order, quoting and flow style stay as the
author wrote them. ruamel.yaml is imported only when a file is edited: ``cfglint check``
without ``--fix`` never loads it.
"""

from __future__ import annotations

import functools
import io


def rt_yaml(width: int = 4096, mapping: int = 2, sequence: int = 4, offset: int = 2):
    """A ruamel.yaml round-trip loader/dumper: quotes kept, ``null`` written as ``null``,
    ``width`` columns before a long scalar is folded, block indents ``mapping`` / ``sequence``
    with the dash at ``offset``."""
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = width
    y.indent(mapping=mapping, sequence=sequence, offset=offset)
    y.representer.add_representer(type(None), lambda r, d: r.represent_scalar("tag:yaml.org,2002:null", "null"))
    return y


def dump(y, data) -> str:
    """``data`` written by ``y`` as text."""
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


def style_of(text: str):
    """The ruamel.yaml settings (width, indents) that write ``text`` back most nearly as it is
    (ruamel.yaml keeps comments, order and quoting, not the indentation or line width)."""
    from collections import Counter

    from ruamel.yaml.util import load_yaml_guess_indent

    try:
        _, ind, bsi = load_yaml_guess_indent(text)
    except Exception:   # noqa: BLE001 - the guess is only a hint
        ind, bsi = 4, 2
    best = None
    for width in (4096, 100, 80, 120):
        for mapping in (2, 4):
            for sequence, offset in dict.fromkeys(((ind or 2, bsi or 0), (2, 0), (4, 2))):
                if offset >= sequence and sequence:
                    continue
                y = rt_yaml(width, mapping, sequence, offset)
                out = dump(y, y.load(text))
                # lines only one side has (a multiset difference: linear, where a diff per setting
                # tried was quadratic in long lists)
                a, b = Counter(text.splitlines()), Counter(out.splitlines())
                n = 0 if out == text else sum(((a - b) + (b - a)).values())
                if best is None or n < best[0]:
                    best = (n, (width, mapping, sequence, offset), out)
                if n == 0:
                    return best[1], out
    return best[1], best[2]


def keep_unchanged(original: str, noop: str, new: str) -> str:
    """``new`` with every hunk that only re-flows text (it appears alike in ``noop``, the
    document written back without changes) put back as the author wrote it."""
    import difflib

    a = original.splitlines(keepends=True)
    noise = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, noop.splitlines(keepends=True), autojunk=False).get_opcodes():
        if tag != "equal":
            noise[(i1, i2)] = noop.splitlines(keepends=True)[j1:j2]
    b = new.splitlines(keepends=True)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal" and noise.get((i1, i2)) == b[j1:j2]:
            out += a[i1:i2]
        else:
            out += b[j1:j2]
    return "".join(out)




def reads_back(value: str) -> bool:
    """Whether ``value``, written by :func:`rt_yaml` as it chooses, reads back as the same string
    with a YAML 1.1 loader (PyYAML's safe loader, which cfglint and the engines use). ruamel.yaml
    writes YAML 1.2: a file name holding U+0085 goes into a single-quoted scalar where YAML 1.1
    reads a line break (``run\\x85x.sh`` reads back as ``run x.sh``), and ``yes`` stays plain where
    YAML 1.1 reads a boolean."""
    import yaml

    if any(c in value for c in _BREAKS):
        return False   # written raw, a line break some reader folds (YAML 1.1: NEL, LS, PS)
    if value.isascii() and value.isprintable() and _resolver().resolve(yaml.ScalarNode, value, (True, False)) == _STR:
        return True   # plain or quoted, YAML 1.1 reads printable ASCII text that resolves to a string as written
    try:
        return yaml.safe_load(dump(rt_yaml(), [value])) == [value]
    except yaml.YAMLError:
        return False


@functools.lru_cache(maxsize=1)
def _resolver():
    """PyYAML's implicit resolver (YAML 1.1), made at the first use."""
    import yaml

    return yaml.resolver.Resolver()


_STR = "tag:yaml.org,2002:str"
_BREAKS = ("\x85", "\u2028", "\u2029")


def read_back_safe(data):
    """``data`` (a string, or ruamel.yaml / plain mappings and lists of them, changed in place)
    with every string that would not :func:`reads_back` as itself made a double-quoted scalar,
    whose escapes (``\\N``, ``\\L``, ``\\uDC80``) every YAML loader reads alike (a string with a
    style of its own is checked written in that style)."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(data, str):
        if isinstance(data, DoubleQuotedScalarString) or reads_back(data):
            return data
        return DoubleQuotedScalarString(data)
    if isinstance(data, dict):
        for k in list(data):
            data[k] = read_back_safe(data[k])
    elif isinstance(data, list):
        for i, v in enumerate(data):
            data[i] = read_back_safe(v)
    return data
