"""Issue 11 (load stage): what the loader once found by walking every parsed tree again
(expanded size, duplicate keys, foreign tags, merge keys) is recorded as the tree is built; the
recorded answers must equal the walks' on the real YAML files under examples/ and on
alias-heavy documents, and the findings must stay the same."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cfglint.load import submission as load
from cfglint.read import yamlsrc
from cfglint.read.textfile import LineIndex, read_text
from cfglint.read.yamlsrc import (HOLDS_DUPLICATES, HOLDS_FOREIGN_TAGS, HOLDS_MERGES, MAX_NODES, YMap, YScalar,
                                  expanded_size, holds, nodes, parse_yaml, parse_yaml_all)
from cfglint.schema.validation import MAX_MEMO_NODES

ROOT = Path(__file__).resolve().parents[1]
YAML_FILES = sorted(p for p in (ROOT / "examples").rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
LIMITS = [1, 2, 7, MAX_MEMO_NODES + 1, MAX_NODES, MAX_NODES + 1, MAX_NODES + 2, 10 ** 12]


def _walked_holds(root) -> int:
    """The HOLDS_* bits found by the walks the loader ran before."""
    bits = 0
    if yamlsrc.foreign_tags(root):
        bits |= HOLDS_FOREIGN_TAGS
    for n in nodes(root):
        if isinstance(n, YMap):
            bits |= (HOLDS_DUPLICATES if n.duplicates else 0) | (HOLDS_MERGES if n.merges else 0)
    return bits


def _assert_recorded_is_walked(root) -> None:
    for n in nodes(root):
        if isinstance(n, YScalar):
            continue
        assert n.expanded is not None and n.holds != yamlsrc.HOLDS_ANY
        for limit in LIMITS:
            assert expanded_size(n, limit) == yamlsrc._walked_size(n, limit), (n.span, limit)
        assert holds(n) == _walked_holds(n), n.span


def test_examples_recorded_sizes_and_holds_equal_the_walks():
    assert len(YAML_FILES) > 40
    seen = 0
    for p in YAML_FILES:
        text = read_text(str(p), str(p)).text
        for root in parse_yaml_all(text, str(p), keep_empty=True):
            _assert_recorded_is_walked(root)
            assert holds(root) == _walked_holds(root)
            seen += 1
    assert seen > 40


ALIASED = """\
base: &base {a: 1, b: [x, y, &s "long string"], c: !custom z}
more: &more
  <<: *base
  d: [*s, *s, *s]
  a: 2
  a: 3
list: &l [*base, *more, *base, *more]
again: [*l, *l, *l, {<<: [*more, *base], e: !!python/name:os.system x}]
"""


def laughs(levels: int, fanout: int = 10) -> str:
    lines = ["l0: &l0 [lol]"] + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fanout)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("c_loader", [True, False])
def test_alias_heavy_document_recorded_equals_walked(c_loader):
    root = parse_yaml(ALIASED, "f.yaml", c_loader=c_loader)
    _assert_recorded_is_walked(root)
    assert holds(root) == HOLDS_DUPLICATES | HOLDS_FOREIGN_TAGS | HOLDS_MERGES
    # a subtree holding none of them says so: its walks are skipped
    assert holds(root.get("base").get("b")) == 0
    assert holds(root.get("base")) == HOLDS_FOREIGN_TAGS


@pytest.mark.parametrize("levels", [4, 5, 6, 9])
def test_alias_bomb_sizes_past_the_cap_are_walked_again(levels):
    """A tree expanding past MAX_NODES (built by _convert, before parse_yaml refuses it): the
    recorded count is capped, so a larger limit is answered by the walk, a smaller one exactly."""
    text = laughs(levels)
    doc = yaml.compose(text, Loader=yaml.SafeLoader)
    root, size = yamlsrc._convert(doc, "f.yaml", LineIndex(text))
    assert size == root.expanded == yamlsrc._walked_size(root, MAX_NODES + 1)
    _assert_recorded_is_walked(root)
    if levels >= 6:
        assert root.expanded[0] == MAX_NODES + 1
        assert expanded_size(root, 10 ** 12)[0] > MAX_NODES + 1


def test_tree_built_elsewhere_is_walked():
    node = YMap([(YScalar("a", "a", load._file_span("x")), YScalar(1, "1", load._file_span("x")))],
                load._file_span("x"))
    assert node.expanded is None and holds(node) == yamlsrc.HOLDS_ANY
    assert expanded_size(node) == (3, 2)


def _with_walks(text: str):
    """The findings and merge notes of one document, by the three walks (as before) and by
    load._report."""
    out = []
    for how in ("walks", "report"):
        sub = load.Submission(root=".", display=".")
        root = parse_yaml(text, "f.yaml")
        if how == "walks":
            load._report_duplicates(root, sub)
            load._report_tags(root, "f.yaml", sub)
            load._note_merges(root, sub)
        else:
            load._report(root, "f.yaml", sub)
        out.append(([(f.rule_id, f.message, f.span, f.related) for f in sub.findings], sub.merged_at))
    return out


@pytest.mark.parametrize("text", [ALIASED, "a: 1\na: 2\n", "a: !x 1\n", "!!python/name:os.system x\n",
                                  "a: &a {b: 1}\nc: {<<: *a}\n", "- 1\n- !!binary aGk=\n", "a: 1\n", "x\n"])
def test_report_gives_the_findings_of_the_three_walks(text):
    walks, report = _with_walks(text)
    assert walks == report


def test_report_on_examples_gives_the_findings_of_the_three_walks():
    for p in YAML_FILES:
        text = read_text(str(p), str(p)).text
        try:
            parse_yaml(text, "f.yaml")
        except yamlsrc.YamlError:
            continue
        walks, report = _with_walks(text)
        assert walks == report, p
