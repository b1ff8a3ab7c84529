"""ruamel.yaml round-trip editing, shared by ``cfglint init`` (the manifest) and ``--fix``
(structural fixes of engine YAML): comments, key order, quoting and flow style stay as the
author wrote them. ruamel.yaml is imported only when a file is edited: ``cfglint check``
without ``--fix`` never loads it.
"""

from __future__ import annotations

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


