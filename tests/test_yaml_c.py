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

from cfglint.lint import lint_paths
from cfglint.read import yamlsrc
from cfglint.read.textfile import LineIndex, read_text
from cfglint.read.yamlsrc import YamlError, YMap, YScalar, YSeq, parse_yaml
from support import copy_submission, examples, lint, only, position, replace_once

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
    # pieces of texts where libyaml and the pure-Python loader differ (screened by _C_UNSAFE)
    "a?b", "? b", "v1?a=1", "!'", "|#", ">2#", "|-#", ": ,", ": }", ": ]", ":\n,", "{a: , b: 1}", "[a: ]",
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


# Texts libyaml reads otherwise than the pure-Python loader (found by a breaker), one class a group;
# yamlsrc._C_UNSAFE sends each to the pure-Python loader.
BREAKERS = {
    # libyaml takes a '?' inside a plain scalar in a flow collection; the pure-Python parser refuses it
    "question_mark": ["u: {x: http://h:8000/v1?a=1}\n", "[a?b]\n", "[a? b]\n", "a: [x ?y]\n", "a: {x?: 1}\n",
                      "note_list: [is this tp8? yes]\n", "{? : 1}\n", "[? ]\n"],
    # libyaml takes a block scalar header followed directly by '#'
    "block_header_comment": ["a: |#\n  x\n", "a: >#\n  x\n", "a: |-#\n  x\n", "a: >2#\n  x\n"],
    # libyaml takes tag characters the pure-Python scanner refuses
    "tag": ["a: !'!str x\n"],
    # an empty value in a flow collection: libyaml places it at the next token, PyYAML after the ':'
    "empty_flow_value": ["{a: , b: 1}\n", "system: {accelerator: , x: 1}\n", "[a: ]\n", "[a: , b]\n", "{a: }\n",
                         "{a : , b: 1}\n", "{a: # c\n , b: 1}\n", "{a:\n, b: 1}\n", "{a: \n}\n", "[a:\n]\n",
                         "[{a: }]\n", "{a: [b], c: }\n", '{"a": }\n', "[a: b, c: ]\n"],
}


@needs_libyaml
@pytest.mark.parametrize("text", [t for texts in BREAKERS.values() for t in texts])
def test_breaker_texts_go_to_the_pure_python_loader_with_its_tree_or_error(text):
    assert yamlsrc._parse_c(text, "f.yaml") == (False, None)
    assert_same(text)
    # libyaml alone composes each, into another tree or where the pure-Python loader fails: the
    # screen is what keeps the two paths alike
    c_tree = yamlsrc._finish(list(yaml.compose_all(text, Loader=yamlsrc._CLoader)), text, "f.yaml")
    assert outcome(text, False) != ("tree", shape(c_tree))


@needs_libyaml
@pytest.mark.parametrize("text", ["{a, b: 1}\n", "{a}\n", "[a: 1]\n", "[: 1]\n", "{: 1}\n", "- [ , ]\n", "{a:}\n",
                                  "{a: &x , b: 1}\n", "[a: &x ]\n", "a:\nb: 1\n", "a: [b, c]#x\n", "a: 'x'#\n"])
def test_near_breakers_libyaml_reads_alike_give_the_same_tree_or_error(text):
    assert_same(text)


def _safe_load_error(path: Path) -> tuple[int, int, str]:
    """(line, column, problem) of the error yaml.safe_load (what the engines call) raises for ``path``."""
    with pytest.raises(yaml.MarkedYAMLError) as err:
        yaml.safe_load(path.read_text(encoding="utf-8"))
    mark = err.value.problem_mark
    return mark.line + 1, mark.column + 1, err.value.problem


def test_question_mark_in_a_flow_list_of_a_manifest_is_io001_where_safe_load_fails(tmp_path):
    d = copy_submission("artificial-analysis/kimi-k3/b300-sglang-tp8", tmp_path)
    manifest = d / "submission.yaml"
    assert only(lint(d), "IO001") == []
    manifest.write_text(manifest.read_text(encoding="utf-8") + "note_list: [is this tp8? yes]\n", encoding="utf-8")
    line, col, problem = _safe_load_error(manifest)
    assert problem == "expected ',' or ']', but got '?'"
    [(_, name, got_line, got_col, msg)] = only(lint(d), "IO001")
    assert (name, got_line, got_col) == ("submission.yaml", line, col)
    opened = position(manifest.read_text(encoding="utf-8"), "[is this")   # the error in plain words
    assert f"the list opened with '[' at line {opened[0]}, column {opened[1]} is not closed before this" in msg
    assert (line, col) == position(manifest.read_text(encoding="utf-8"), "? yes")
    assert only(lint(d), "SUB001") == []  # not read as an unknown field 'note_list'


def test_odd_tag_and_block_header_comment_in_engine_configs_are_io001_where_safe_load_fails(tmp_path):
    d = copy_submission("nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d", tmp_path)
    assert only(lint(d), "IO001") == []
    replace_once(d / "ctx_config.yaml", "max_batch_size: 128", "max_batch_size: !'!int 128")
    replace_once(d / "gen_config.yaml", "moe_config:\n", "moe_config: |#\n")
    ctx, gen = _safe_load_error(d / "ctx_config.yaml"), _safe_load_error(d / "gen_config.yaml")
    assert "expected '!'" in ctx[2] and "expected chomping or indentation indicators" in gen[2]
    found = sorted(only(lint(d), "IO001"))
    assert [(f[1], f[2], f[3]) for f in found] == [("ctx_config.yaml", ctx[0], ctx[1]), ("gen_config.yaml", gen[0], gen[1])]
    # the pure-Python parser's errors, in plain words (cfglint.read.yamlmsg)
    assert "'!' starts a YAML tag (!name) here, and this one is malformed" in found[0][4]
    assert "'|' and '>' start a block of text: only '-', '+', a digit, or a space and a comment may" in found[1][4]


def test_empty_value_in_a_flow_mapping_of_a_manifest_is_placed_as_the_pure_python_loader_places_it(tmp_path):
    d = copy_submission("nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d", tmp_path)
    manifest = d / "submission.yaml"
    replace_once(manifest, "system:\n  accelerator: GB300\n  accelerators_total: 72\n  accelerators_per_node: 4\n",
                 "system: {accelerator: GB300, accelerators_total: 72, accelerators_per_node: 4}\n")
    assert only(lint(d), "SUB001") == []  # the control: the same manifest in flow style
    replace_once(manifest, "{accelerator: GB300,", "{accelerator: ,")
    # PyYAML (yaml.safe_load's parser) puts the empty value at the end of the ':' token
    expected = position(manifest.read_text(encoding="utf-8"), "accelerator:", after=True)
    found = only(lint(d), "SUB001")
    assert [(f[1], f[2], f[3]) for f in found] == [("submission.yaml", *expected)] == [("submission.yaml", 5, 22)]
    assert "system/accelerator: the value is null" in found[0][4]


@needs_libyaml
def test_every_example_yaml_file_is_composed_by_libyaml_with_the_same_tree():
    assert len(YAML_FILES) > 50
    for path, text in zip(YAML_FILES, TEXTS):
        if len(list(yaml.compose_all(text, Loader=yaml.SafeLoader))) > 1:
            # a Kubernetes manifest of several documents: read by parse_yaml_all
            done, _ = yamlsrc._parse_c_all(text, str(path))
            assert done, path
            assert outcome_all(text, True) == outcome_all(text, False), path
            continue
        done, _ = yamlsrc._parse_c(text, str(path))
        assert done, path
        assert_same(text)


def outcome_all(text: str, c_loader: bool):
    try:
        return "trees", [shape(d) for d in yamlsrc.parse_yaml_all(text, "f.yaml", c_loader=c_loader, keep_empty=True)]
    except YamlError as err:
        s = err.span
        return "error", str(err), s and (s.line, s.col, s.end_line, s.end_col)


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
    from cfglint.checks import engine_schema
    from cfglint.output import ruledocs
    engine_schema.renamed_keys.cache_clear()
    engine_schema.removed_values.cache_clear()
    ruledocs.examples.cache_clear()
    for path, got in ((engine_schema.data_dir("schemas") / "trtllm-renamed-keys.yaml", engine_schema.renamed_keys()),
                      (engine_schema.data_dir("schemas") / "trtllm-removed-values.yaml", engine_schema.removed_values()),
                      (engine_schema.data_dir("rules") / "examples.yaml", ruledocs.examples())):
        with open(path, encoding="utf-8") as fh:
            assert got == yaml.safe_load(fh) and got, path
