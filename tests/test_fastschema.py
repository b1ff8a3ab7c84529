"""The fast yes/no check (jsonschema-rs, src/cfglint/schema/fastschema.py) against jsonschema on real
documents and on real documents changed value by value: a "valid" from the fast check must
always be jsonschema's verdict too (else a finding would be lost), and a "not valid" only
costs time. Plus the guards: unknown keywords, Python's regular expressions, nesting depth."""

from __future__ import annotations

import math
import subprocess
import sys
from functools import lru_cache

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import EXAMPLES, ROOT, copy_submission, examples, lint, only

from cfglint.read.yamlsrc import YamlError, parse_yaml, parse_yaml_all, to_python
from cfglint.schema import fastschema, k8sschema, validation

SCHEMAS = ["submission.schema.json", "trtllm-llm-api.schema.json", "trtllm-disagg-server.schema.json"]


def _slow_valid(compiled, data) -> bool:
    return next(iter(compiled.iter_errors(data)), None) is None


@lru_cache(maxsize=None)
def _documents() -> tuple:
    """Every YAML document of the bundled examples as plain data, with its file."""
    out = []
    for path in sorted(EXAMPLES.rglob("*.y*ml")):
        try:
            roots = parse_yaml_all(path.read_text(encoding="utf-8"), str(path))
        except (YamlError, UnicodeDecodeError):
            continue
        out.extend((str(path.relative_to(EXAMPLES)), to_python(r)) for r in roots if r is not None)
    return tuple(out)


@lru_cache(maxsize=None)
def _k8s_pairs() -> tuple:
    """(kind, fast validator, jsonschema validator, data) for every example object of a validated kind."""
    return tuple((where, k8sschema._fast_validator(*ak), k8sschema._validator(*ak), data)
                 for where, data in _documents() if isinstance(data, dict)
                 for ak in [(data.get("apiVersion"), data.get("kind"))] if ak in k8sschema.SCHEMAS)


def test_every_bundled_schema_has_a_fast_check():
    for name in SCHEMAS:
        assert validation.fast_validator(name) is not None, name
    for ak in k8sschema.SCHEMAS:
        assert k8sschema._fast_validator(*ak) is not None, ak


def test_fast_and_slow_agree_on_every_example_document():
    docs = _documents()
    assert len(docs) > 120
    agreed = valid = 0
    for name in SCHEMAS:
        fast, slow = validation.fast_validator(name), validation.validator(name)
        for where, data in docs:
            f, s = fastschema.passes(fast, data), _slow_valid(slow, data)
            assert f == s, (name, where, f, s)
            agreed += 1
            valid += f
    k8s = list(_k8s_pairs())
    assert len(k8s) >= 8
    for where, fast, slow, data in k8s:
        assert fastschema.passes(fast, data) == _slow_valid(slow, data) is True, where
    assert valid >= 60 and agreed - valid >= 60   # both verdicts are exercised


# values a change may put anywhere: the types YAML gives, and strings regular expressions and
# JSON conversions disagree on
_ODD = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=2**53, max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, 1.0, -1.0, 8.0, 1e308]),
    st.text(max_size=12),
    st.sampled_from(["", " ", "\x1c", "\x1f", "\x85", "\u00a0", "\u3000", "a\n", "\n", "١٢", "8\n", "8 GiB",
                     "1 gib\n", "host:8000\n", "org/model\n", "\ud800", "True", "null", "0x10", "+1", "1e3"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, prefix + (i,))


def _changed(data, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        out = dict(data)
    else:
        out = list(data)
    out[head] = _changed(data[head], rest, value)
    return out


@lru_cache(maxsize=None)
def _targets() -> tuple:
    """(schema name, document) pairs the mutation test draws from: each document valid there."""
    out = []
    for where, data in _documents():
        if where.endswith("submission.yaml"):
            out.append(("submission.schema.json", data))
    for name in SCHEMAS[1:]:
        fast = validation.fast_validator(name)
        out.extend((name, data) for where, data in _documents()
                   if isinstance(data, dict) and fastschema.passes(fast, data))
    return tuple(out)


@settings(max_examples=examples(150, 3000), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_a_changed_document_the_fast_check_passes_is_valid(data):
    targets = _targets()
    name, doc = data.draw(st.sampled_from(targets))
    paths = list(_paths(doc))
    path = data.draw(st.sampled_from(paths))
    value = data.draw(_ODD)
    changed = _changed(doc, path, value)
    fast, slow = validation.fast_validator(name), validation.validator(name)
    if fastschema.passes(fast, changed):
        assert _slow_valid(slow, changed), (name, path, value)


@settings(max_examples=examples(40, 600), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_a_changed_kubernetes_object_the_fast_check_passes_is_valid(data):
    where, fast, slow, doc = data.draw(st.sampled_from(_k8s_pairs()))
    path = data.draw(st.sampled_from(list(_paths(doc))))
    value = data.draw(_ODD)
    changed = _changed(doc, path, value)
    if fastschema.passes(fast, changed):
        assert _slow_valid(slow, changed), (where, path, value)


def test_pattern_is_pythons_search():
    # Rust's \S matches U+001C, Python's does not; Python's $ matches before a last newline
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "pattern": "\\S"}
    fast, slow = fastschema.compile_schema(schema), jsonschema.Draft202012Validator(schema)
    for text, want in (("\x1c", False), ("\x1f ", False), (" a", True), ("", False)):
        assert fastschema.passes(fast, text) is want is _slow_valid(slow, text), repr(text)
    anchored = {"type": "string", "pattern": "^[a-z]+$"}
    assert fastschema.passes(fastschema.compile_schema(anchored), "abc\n") is True   # as re.search does


def test_a_keyword_outside_the_shared_set_leaves_the_schema_to_jsonschema():
    for extra in ({"format": "email"}, {"patternProperties": {"^a": {}}}, {"uniqueItems": True},
                  {"multipleOf": 3}, {"unevaluatedProperties": False}, {"pattern": "("}):
        schema = {"type": "object", "properties": {"a": {"type": "string", **extra}}}
        assert fastschema.supported(schema) is False, extra
        assert fastschema.compile_schema(schema) is None
    assert fastschema.supported({"type": "object", "properties": {"format": {"type": "string"}}})   # a property name


def test_data_json_cannot_hold_is_left_to_jsonschema():
    import datetime

    fast = validation.fast_validator("submission.schema.json")
    for odd in ({"model": datetime.date(2025, 1, 1)}, {1: "a"}, {"model": "\ud800"}, float("nan"), math.inf):
        assert fastschema.passes(fast, odd) is False


def test_infinite_and_nan_numbers_are_left_to_jsonschema():
    # jsonschema-rs 0.61 lets inf through a bound with no type beside it; jsonschema does not
    bound = {"maximum": 0}
    assert not _slow_valid(jsonschema.Draft202012Validator(bound), math.inf)
    for schema in (bound, {"not": {"type": "number"}}, {"properties": {"a": {"minimum": 1}}}):
        fast = fastschema.compile_schema(schema)
        for value in (math.inf, -math.inf, math.nan):
            assert fastschema.passes(fast, {"a": value} if "properties" in schema else value) is False, (schema, value)
    assert fastschema.passes(fastschema.compile_schema(bound), -1.5) is True


def test_a_ref_to_an_unknown_document_fails_compilation():
    schema = {"$ref": "https://example.invalid/x.json"}
    assert fastschema.compile_schema(schema) is None


def test_nesting_the_loader_accepts_is_far_below_what_the_fast_check_survives():
    deep_block = "".join(" " * i + "a:\n" for i in range(2000)) + " " * 2000 + "b: 1\n"
    deep_flow = "[" * 5000 + "]" * 5000
    for text in (deep_block, deep_flow):
        with pytest.raises(YamlError):
            parse_yaml(text, "deep.yaml")
    # 2,000 levels (several times what the loader accepts) in a child: a native crash fails the test
    code = ("import sys; sys.path.insert(0, 'src'); from cfglint.schema import fastschema\n"
            "v = fastschema.compile_schema({'items': {'$ref': '#'}})\n"
            "x = 1\nfor _ in range(2000): x = [x]\nprint(v.is_valid(x))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr[-500:]


def test_an_invalid_manifest_is_still_reported_in_full(tmp_path):
    # the fast check says "not valid"; jsonschema then finds, words and places every error
    sub = copy_submission("recipes/vllm-gpt-oss-120b-b200-tp1-config", tmp_path)
    manifest = sub / "submission.yaml"
    text = manifest.read_text(encoding="utf-8")
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith("model:"))
    manifest.write_text(text.replace(text.splitlines()[line - 1], "model: not a repo id", 1), encoding="utf-8")
    found = only(lint(sub), "SUB001")
    assert [f[1:4] for f in found] == [("submission.yaml", line, 8)], found
    assert "'not a repo id' does not match" in found[0][4]

