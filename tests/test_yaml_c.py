"""Issue 11 (YAML part): YAML composed by libyaml (PyYAML's C binding) gives exactly the tree,
spans and errors of PyYAML's pure-Python loader, and resolving scalars keeps no state.

The property tests compare ``parse_yaml(text, path)`` (libyaml where it applies) with
``parse_yaml(text, path, c_loader=False)`` (the pure-Python loader, as before) on the real YAML
files under examples/ changed in a few places (YAML indicators, anchors, aliases, merge keys,
tags, tabs, byte-order marks, every line break YAML 1.1 knows: CR LF, lone CR, U+0085, U+2028,
U+2029; characters outside the BMP) and on short texts built from the same pieces: every node
(value, text, tag, span), duplicate key, merge key and shared alias must be the same, or the
same YamlError (message and span) must be raised.
"""

from __future__ import annotations

import gc
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint import yamlsrc
from cfglint.lint import lint_paths
from cfglint.textfile import LineIndex, read_text
from cfglint.yamlsrc import YamlError, YMap, YScalar, YSeq, parse_yaml
from support import copy_submission, examples

ROOT = Path(__file__).resolve().parents[1]
YAML_FILES = sorted(p for p in (ROOT / "examples").rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
TEXTS = [read_text(str(p), str(p)).text for p in YAML_FILES]
N = examples(25, 100)
PROPERTY = settings(max_examples=N, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
needs_libyaml = pytest.mark.skipif(yamlsrc._CLoader is None, reason="PyYAML without libyaml")

BREAKS = ["\n", "\r\n", "\r", "\x85", "\u2028", "\u2029"]
PIECES = BREAKS + [
    " ", "  ", "\t", "\ufeff", "\xa0", "é", "\U0001F600", "\U00010348", "\u200b", "\x7f",
    "- ", "-", ": ", ":", "? ", "?", ",", "[", "]", "{", "}", "#", " # c", "&a ", "&b ", "*a", "*b",
    "<<: *a", "<<: [*a, *b]", "<<", "!!str ", "!!int ", "!!float ", "!!bool ", "!!null ", "!!binary ",
    "!!timestamp ", "!!python/name:os.system ", "!x ", "!<tag:x> ", "'", "''", '"', "\\", '\\"', "\\x85",
    "\\u2028", "\\N", "|", "|-", "|+", ">", ">-", "|2", "---", "...", "--- ", "%YAML 1.1", "%TAG ! tag:x,1:",
    "@", "`", "%", "0x1F", "0o17", "017", "1_000", "1:30", "-.inf", ".nan", ".NaN", "1e3", "1.10", "~", "null",
    "yes", "No", "on", "OFF", "y", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-13-45", "key", "k",
    "value", "a b", "a: b", "x: 1", "y: [1, 2]", "z: {p: q}",
]
piece = st.sampled_from(PIECES)


def shape(root) -> list:
    """The tree as plain data, each distinct node once in first-visit order (children named by
    their index, so shared aliases must be shared alike); floats by repr (NaN != NaN)."""
    index: dict[int, int] = {}
    out: list = []

    def ref(n) -> int:
        if id(n) not in index:
            index[id(n)] = len(out)
            out.append(None)
            out[index[id(n)]] = describe(n)
        return index[id(n)]

    def describe(n):
        s = n.span
        where = (s.path, s.line, s.col, s.end_line, s.end_col)
        if isinstance(n, YScalar):
            v = n.value
            return ("S", n.tag, n.text, type(v).__name__, repr(v) if isinstance(v, float) else v, where)
        if isinstance(n, YSeq):
            return ("Q", n.tag, where, [ref(c) for c in n.items])
        assert isinstance(n, YMap)
        return ("M", n.tag, where, [(ref(k), ref(v)) for k, v in n.items],
                [(ref(a), ref(b)) for a, b in n.duplicates], [(ref(k), ref(m)) for k, m in n.merges])

    if root is not None:
        ref(root)
    return out


def outcome(text: str, c_loader: bool):
    try:
        return "tree", shape(parse_yaml(text, "f.yaml", c_loader=c_loader))
    except YamlError as err:
        s = err.span
        return "error", str(err), s and (s.line, s.col, s.end_line, s.end_col)


def assert_same(text: str) -> None:
    pure = outcome(text, False)
    assert outcome(text, True) == pure, repr(text[:400])
    assert_sizes(text)


def assert_sizes(text: str) -> None:
    """The expanded size counted while converting is :func:`expanded_size` of the tree."""
    try:
        docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
        if len(docs) != 1:
            return
        root, size = yamlsrc._convert(docs[0], "f.yaml", LineIndex(text))
    except (yaml.YAMLError, YamlError, RecursionError):
        return
    assert size == yamlsrc.expanded_size(root), repr(text[:400])


def laughs(levels: int, fanout: int = 10) -> str:
    lines = ["l0: &l0 [lol]"] + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fanout)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@st.composite
def mutated_example(draw) -> str:
    """A real example YAML file, its line breaks possibly rewritten, changed in 1-6 places."""
    text = draw(st.sampled_from(TEXTS))
    brk = draw(st.sampled_from(BREAKS))
    if brk != "\n" and draw(st.booleans()):
        text = text.replace("\n", brk)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "replace", "delete", "line"]))
        if op == "insert":
            text = text[:at] + draw(piece) + text[at:]
        elif op == "replace":
            text = text[:at] + draw(piece) + text[at + draw(st.integers(1, 8)):]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)):]
        else:  # a whole line of pieces at the start of the line holding ``at``
            start = text.rfind("\n", 0, at) + 1
            line = "".join(draw(st.lists(piece, min_size=1, max_size=6)))
            text = text[:start] + line + "\n" + text[start:]
    return text


small_text = st.lists(piece, min_size=0, max_size=30).map("".join)


@needs_libyaml
@PROPERTY
@given(mutated_example())
def test_property_changed_example_files_give_the_same_tree_or_error(text):
    assert_same(text)


@needs_libyaml
@PROPERTY
@given(small_text)
def test_property_short_texts_give_the_same_tree_or_error(text):
    assert_same(text)


@needs_libyaml
@pytest.mark.parametrize("text", [
    "a:\t1\nb: 2\n",                 # tab separators: libyaml takes them, the pure-Python scanner refuses
    "a: 1\t\n",
    "\ufeffa: 1\nb: 2\n",            # a leading BOM: libyaml's marks do not count it
    "a: 1\n\ufeffb: 2\n",            # a BOM at the start of a line: libyaml skips it
    "a: x\x85b: 1\n", "a: x\u2028b: 2\n", "a: 1\rb: 2\r", "a: 1\r\nb: 2\r\n", "a: 1\r\r\nb: 2\n",
    "a: \U0001F600x\nb: [1, 2]\n", "a: |\n  x\x85 y\n", "a: \"x\\\n  y\"\nb: >\n  p\n\n  q\n",
    "a: &x {p: 1}\nb:\n  <<: *x\n  q: 2\n", "a: &x [*x]\n", "a: 1\na: 2\n", "a: 1\n---\nb: 2\n",
    "a: [\n", "a: *nope\n", "a: !!int abc\nb: !!float .NaN\nc: !!bool maybe\n", "- " * 200 + "x\n",
    "".join(" " * i + "k:\n" for i in range(150)),
    laughs(4), laughs(6), laughs(9), laughs(40, 2), "a: &a {x: *b}\n",
    "d: &d {p: 1, q: [2, 3]}\ne: &e {q: 4, r: 5}\nf:\n  <<: [*d, *e]\n  p: 0\n  <<: {s: 6}\ng: [*d, *e]\n",
])
def test_known_differences_and_edges_give_the_same_tree_or_error(text):
    assert_same(text)


@needs_libyaml
def test_tabs_and_byte_order_marks_go_to_the_pure_python_loader_deep_nesting_too():
    for text in ("a:\t1\n", "\ufeffa: 1\n", "a: 1\n\ufeffb: 2\n"):
        assert yamlsrc._parse_c(text, "f.yaml") == (False, None)
    deep = "".join(" " * i + "k:\n" for i in range(yamlsrc.C_MAX_DEPTH + 5))
    assert yamlsrc._parse_c(deep, "f.yaml") == (False, None)
    assert yamlsrc._parse_c("a: x\u2028b: 1\n", "f.yaml")[0]


@needs_libyaml
def test_every_example_yaml_file_is_composed_by_libyaml_with_the_same_tree():
    assert len(YAML_FILES) > 50
    for path, text in zip(YAML_FILES, TEXTS):
        done, _ = yamlsrc._parse_c(text, str(path))
        assert done, path
        assert_same(text)


def test_without_libyaml_the_pure_python_loader_parses(monkeypatch):
    text = TEXTS[0]
    expected = shape(parse_yaml(text, "f.yaml", c_loader=False))
    monkeypatch.setattr(yamlsrc, "_CLoader", None)
    assert yamlsrc._parse_c(text, "f.yaml") == (False, None)
    assert shape(parse_yaml(text, "f.yaml")) == expected


def test_scalar_values_are_resolved_as_the_safe_loader_resolves_them():
    text = "a: 0x1F\nb: 1_000\nc: 1.10\nd: yes\ne: ~\nf: .inf\ng: 0o17\nh: 1:30\ni: -0.5e+3\n"
    got = {k.value: v.value for k, v in parse_yaml(text, "f.yaml").items}
    assert got == yaml.safe_load(text) == {"a": 31, "b": 1000, "c": 1.1, "d": True, "e": None, "f": math.inf,
                                           "g": "0o17", "h": 90, "i": -500.0}
    # timestamps and values the constructor refuses keep their text
    root = parse_yaml("g: 2001-12-14\nh: !!int abc\nk: !!bool maybe\n", "f.yaml")
    assert [v.value for _, v in root.items] == ["2001-12-14", "abc", "maybe"]


def test_linting_many_times_keeps_no_yaml_nodes(tmp_path):
    """The scalar constructor used to keep every node it built (``constructed_objects`` never
    cleared): memory grew with the corpus. After any number of runs no composed node is alive."""
    sub = copy_submission("recipes/dynamo-trtllm-qwen3-0.6b-disagg-1p1d", tmp_path)
    for _ in range(5):
        lint_paths([str(sub)])
    gc.collect()
    before = sum(isinstance(o, yaml.Node) for o in gc.get_objects())
    for _ in range(20):
        lint_paths([str(sub)])
    gc.collect()
    assert not yamlsrc._constructor.constructed_objects and not yamlsrc._constructor.recursive_objects
    assert sum(isinstance(o, yaml.Node) for o in gc.get_objects()) <= before == 0


def test_schema_and_rule_example_data_files_load_as_the_safe_loader_loads_them():
    from cfglint import ruledocs
    from cfglint.checks import engine_schema
    engine_schema.renamed_keys.cache_clear()
    engine_schema.removed_values.cache_clear()
    ruledocs.examples.cache_clear()
    for path, got in ((engine_schema.data_dir("schemas") / "trtllm-renamed-keys.yaml", engine_schema.renamed_keys()),
                      (engine_schema.data_dir("schemas") / "trtllm-removed-values.yaml", engine_schema.removed_values()),
                      (ruledocs.data_dir("rules") / "examples.yaml", ruledocs.examples())):
        with open(path, encoding="utf-8") as fh:
            assert got == yaml.safe_load(fh) and got, path
