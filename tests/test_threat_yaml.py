"""Issue 10, kind 9 (YAML merge keys) and the YAML part of kind 4 (bounded cost): safe on
untrusted YAML.

Kind 9: ``<<: *defaults`` was read as a key named ``<<`` (FLG001 "SGLang has no flag --<<",
SCH001 "unknown field '<<'") and the merged values were never checked. Merge keys are applied as
safe loaders apply them (yaml.org/type/merge.html: written keys win, earlier mappings of a list
win); a merged value keeps the span where it is written (the anchor) and a finding there names
the ``<<`` as a related location.

Kind 4 (YAML): "an 11 KB manifest whose anchored 10 KB string expands into ``model:`` costs 55 s,
5.3 GB of memory and 1.8 GB of output (values are repr'd whole into messages)". Aliases stay
shared (walked once), expansion past a limit is an IO001, and messages quote values bounded.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint.checks import all_rules
from cfglint.lint import MAX_MESSAGE, lint_paths
from cfglint.output import report
from cfglint.read.yamlsrc import YamlError, YMap, parse_yaml
from support import EXAMPLES, LINEAR_AT_10X, copy_submission, examples, lint, only, position, replace_once

GLM_SGLANG = "nvidia/glm-5.2/gb300-sglang-2x4-tp8-dp8-maxreq1024"   # SGLang --config ifb_config.yaml
DYNAMO_TRTLLM = "recipes/dynamo-trtllm-qwen3-0.6b-disagg-1p1d"        # Dynamo + TensorRT-LLM engine YAML


def merge_rewrite(text: str, keys: list[str], anchors: int = 1) -> str:
    """``text`` (a YAML file whose top level is a block mapping) with the top-level entries
    ``keys`` moved, as written (comments and nested lines included), into anchored mappings
    merged where the first of them was: ``<<: &d0`` with one anchor, ``<<: [&d0 {...}, &d1 {...}]``
    (as a block sequence) with two. Every other line is unchanged."""
    if not text.endswith("\n"):
        text += "\n"
    root = parse_yaml(text, "x")
    assert isinstance(root, YMap)
    lines = [line + "\n" for line in text.split("\n")[:-1]]  # LF lines, as cfglint counts them
    starts = [k.span.line for k, _ in root.items]
    assert all(k.span.col == 1 for k, _ in root.items), "top-level keys must start at column 1"
    blocks = {k.value: (a, b) for (k, _), a, b in zip(root.items, starts, starts[1:] + [len(lines) + 1])}
    moved = [k for k in blocks if k in keys]
    groups = [moved[i::anchors] for i in range(anchors)]
    groups = [g for g in groups if g]
    merge: list[str] = ["<<:\n" if len(groups) > 1 else "<<: &d0\n"]
    for n, group in enumerate(groups):
        pad = "    " if len(groups) > 1 else "  "
        if len(groups) > 1:
            merge.append(f"  - &d{n}\n")
        for key in group:
            a, b = blocks[key]
            merge += [pad + line if line.strip() else line for line in lines[a - 1:b - 1]]
    out: list[str] = lines[:starts[0] - 1]
    for key, (a, b) in blocks.items():
        if key == moved[0]:
            out += merge
        if key not in moved:
            out += lines[a - 1:b - 1]
    return "".join(out)


def _findings(path: Path):
    return lint_paths([str(path)]).findings


def _rules_by_file(findings) -> Counter:
    return Counter((f.rule_id, Path(f.span.path).name) for f in findings)


# -- kind 9: merge keys -----------------------------------------------------------------------

def test_merge_key_in_sglang_config_is_no_flag_and_its_values_are_checked(tmp_path):
    """Issue 10 kind 9: ``<<: *defaults`` in an SGLang --config YAML was FLG001 'SGLang has no flag
    --<<' and the merged values were not seen. The real GLM-5.2 SGLang example with two of its keys
    moved into an anchored block gives exactly the findings of the unmodified example."""
    original = lint(copy_submission(GLM_SGLANG, tmp_path / "a"))
    sub = copy_submission(GLM_SGLANG, tmp_path / "b")
    cfg = sub / "ifb_config.yaml"
    cfg.write_text(merge_rewrite(cfg.read_text(), ["quantization", "reasoning-parser"]))
    assert "<<: &d0\n  quantization: modelopt_fp4\n  reasoning-parser: glm45\n" in cfg.read_text()
    merged = lint(sub)
    assert not [f for f in merged if "<<" in f[4]], merged
    assert Counter((r, name, msg) for r, name, _l, _c, msg in merged) == \
        Counter((r, name, msg) for r, name, _l, _c, msg in original)


def test_wrong_value_inside_the_anchor_is_reported_at_the_anchor_with_the_merge_key_related(tmp_path):
    """Issue 10 kind 9: a merged value is checked where it is written (the anchor's definition),
    and the finding names the ``<<`` that merges it."""
    sub = copy_submission(GLM_SGLANG, tmp_path)
    cfg = sub / "ifb_config.yaml"
    cfg.write_text(merge_rewrite(cfg.read_text(), ["quantization", "reasoning-parser"]))
    assert not only(lint(sub), "PRS001")  # control: the merged parser is right
    replace_once(cfg, "reasoning-parser: glm45", "reasoning-parser: glm4x")
    text = cfg.read_text()
    found = [f for f in _findings(sub) if f.rule_id == "PRS001"]
    assert len(found) == 1
    f = found[0]
    assert (Path(f.span.path).name, f.span.line, f.span.col) == ("ifb_config.yaml", *position(text, "glm4x"))
    assert "glm4x" in f.message and "glm45" in f.message
    assert [(s.line, s.col) for s, _ in f.related] == [position(text, "<<: &d0")]
    assert "'<<'" in f.related[0][1]


def test_quoted_merge_key_is_a_plain_key(tmp_path):
    """Only a plain ``<<`` is a merge key (its tag is !!merge); a quoted "<<" is an ordinary key,
    which SGLang's config reader passes on as the flag --<<."""
    sub = copy_submission(GLM_SGLANG, tmp_path)
    cfg = sub / "ifb_config.yaml"
    replace_once(cfg, "max-running-requests: 1024\n", 'max-running-requests: 1024\n"<<": {max-running-requests: 8}\n')
    found = only(lint(sub), "FLG001")
    assert [(f[1], f[2], f[3]) for f in found] == [("ifb_config.yaml", *position(cfg.read_text(), '"<<"'))]
    assert "--<<" in found[0][4]


def test_trtllm_engine_yaml_merge_list_earlier_mapping_wins_and_schema_sees_the_merge(tmp_path):
    """Issue 10 kind 9 in a Dynamo + TensorRT-LLM engine YAML: SCH001 said "unknown field '<<'"
    and checked nothing merged. ``<<: [*a, *b]``: the earlier mapping wins (yaml.org/type/merge.html),
    so a wrong backend in the later one is not what the engine reads; in the other order it is,
    and it is reported where it is written."""
    original = lint(copy_submission(DYNAMO_TRTLLM, tmp_path / "orig"))
    sub = copy_submission(DYNAMO_TRTLLM, tmp_path / "m")
    cfg = sub / "prefill.yaml"
    for line in ("max_num_tokens: 8192\n", "trust_remote_code: true\n", "backend: pytorch\n"):
        replace_once(cfg, line, "")
    base = cfg.read_text()
    a = "  - &a\n    backend: pytorch\n    max_num_tokens: 8192\n"
    b = "  - &b\n    trust_remote_code: true\n"
    wrong = "  - &b\n    backend: tensorrt\n    trust_remote_code: true\n"

    def write(*items: str) -> str:
        text = base.replace("tensor_parallel_size: 1\n", "tensor_parallel_size: 1\n<<:\n" + "".join(items), 1)
        cfg.write_text(text)
        return text

    write(a, b)
    assert Counter((r, n, m) for r, n, _l, _c, m in lint(sub)) == Counter((r, n, m) for r, n, _l, _c, m in original)
    write(a, wrong)  # the later mapping also sets backend: the earlier one (pytorch) wins
    assert not only(lint(sub), "SCH001")
    text = write(wrong, a)  # the other order: the wrong backend wins and is reported at its anchor
    found = only(lint(sub), "SCH001")
    assert [f[:4] for f in found] == [("SCH001", "prefill.yaml", *position(text, "tensorrt"))], found
    assert "'tensorrt'" in found[0][4] and "backend" in found[0][4]


def test_misspelled_key_inside_an_anchor_is_an_unknown_field_at_the_anchor(tmp_path):
    """SCH001 validates the merged mapping: a misspelled key written inside the anchored block is
    reported at that key, with the ``<<`` related."""
    sub = copy_submission(DYNAMO_TRTLLM, tmp_path)
    cfg = sub / "decode.yaml"
    cfg.write_text(merge_rewrite(cfg.read_text(), ["max_num_tokens", "backend"]))
    replace_once(cfg, "  max_num_tokens: 8192", "  max_num_token: 8192")
    text = cfg.read_text()
    found = [f for f in _findings(sub) if f.rule_id == "SCH001"]
    assert [(Path(f.span.path).name, f.span.line, f.span.col) for f in found] == \
        [("decode.yaml", *position(text, "max_num_token:"))]
    assert "unknown field 'max_num_token'" in found[0].message and "max_num_tokens" in found[0].message
    assert [(s.line, s.col) for s, _ in found[0].related] == [position(text, "<<: &d0")]


def test_merge_key_in_a_heredoc_engine_yaml_keeps_script_positions(tmp_path):
    """Issue 10 kind 9 in the YAML a launch script writes with a heredoc (the TensorRT-LLM
    gpt-oss recipe): the merged value is checked at its line in run.sh, the '<<' related."""
    rel = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"
    original = lint(copy_submission(rel, tmp_path / "orig"))
    sub = copy_submission(rel, tmp_path / "m")
    run = sub / "run.sh"
    replace_once(run, "moe_config:\n    backend: CUTLASS\n", "<<: &moe\n  moe_config:\n    backend: CUTLASS\n")
    assert Counter((r, n, m) for r, n, _l, _c, m in lint(sub)) == Counter((r, n, m) for r, n, _l, _c, m in original)
    replace_once(run, "    backend: CUTLASS\n", "    backend: CUTLASSX\n")
    text = run.read_text()
    found = [f for f in _findings(sub) if f.rule_id == "SCH001"]
    assert [(Path(f.span.path).name, f.span.line, f.span.col) for f in found] == [("run.sh", *position(text, "CUTLASSX"))]
    assert "'CUTLASSX'" in found[0].message and "'CUTLASS'" in found[0].message
    assert [(s.line, s.col) for s, _ in found[0].related] == [position(text, "<<: &moe")]


def test_manifest_merge_keys_are_validated_as_merged(tmp_path):
    """Issue 10 kind 9 in submission.yaml: SUB001 (the manifest schema) sees the merged roles. The
    decode role written as ``<<: *prefill`` plus its name gives the findings of the original (unmerged,
    it would lack instances and hold an unknown field '<<'); a wrong count inside the anchor is
    reported there."""
    original = lint(copy_submission(DYNAMO_TRTLLM, tmp_path / "orig"))
    sub = copy_submission(DYNAMO_TRTLLM, tmp_path / "m")
    manifest = sub / "submission.yaml"
    replace_once(manifest, "  - name: prefill\n", "  - &prefill\n    name: prefill\n")
    replace_once(manifest, "  - name: decode\n    instances: 1\n    accelerators_per_instance: 1\n    tp: 1\n",
                 "  - <<: *prefill\n    name: decode\n")
    assert Counter((r, n, m) for r, n, _l, _c, m in lint(sub)) == Counter((r, n, m) for r, n, _l, _c, m in original)
    replace_once(manifest, "    instances: 1\n", "    instances: one\n")
    text = manifest.read_text()
    found = only(lint(sub), "SUB001")
    # written once, reported once (at the first path that uses it), with the '<<' related
    assert [f[:4] for f in found] == [("SUB001", "submission.yaml", *position(text, "one"))]
    assert found[0][4].startswith("serving/roles/0/instances: 'one' is not of type 'integer'")
    related = [f.related for f in _findings(sub) if f.rule_id == "SUB001"][0]
    assert [(s.line, s.col) for s, _ in related] == [position(text, "<<: *prefill")]


def test_alias_used_many_times_is_one_schema_finding(tmp_path):
    """Issue 10 kind 4: a wrong role aliased 2000 times (16 KB of YAML) made 6000 SUB001 findings at
    the same place (700 KB of output); each error of the written node is reported once."""
    sub = copy_submission(DYNAMO_TRTLLM, tmp_path)
    manifest = sub / "submission.yaml"
    replace_once(manifest, "  - name: prefill\n    instances: 1\n", "  - &r\n    name: prefill\n    instances: one\n")
    replace_once(manifest, "  - name: decode\n", "".join("  - *r\n" for _ in range(2000)) + "  - name: decode\n")
    found = only(lint(sub), "SUB001")
    assert [f[:4] for f in found] == [("SUB001", "submission.yaml", *position(manifest.read_text(), "one"))]


def test_merge_of_a_scalar_is_refused_as_safe_loaders_refuse_it(tmp_path):
    """``<<: 8192`` makes yaml.safe_load raise 'expected a mapping or list of mappings for
    merging': the engine cannot start, so the file is IO001 at the value, never a traceback."""
    sub = copy_submission(GLM_SGLANG, tmp_path)
    cfg = sub / "ifb_config.yaml"
    replace_once(cfg, "chunked-prefill-size: 8192\n", "chunked-prefill-size: 8192\n<<: 8192\n")
    found = only(lint(sub), "IO001")
    assert [f[1:4] for f in found] == [("ifb_config.yaml", *position(cfg.read_text(), "8192\n", occurrence=2))]
    assert "merge key '<<'" in found[0][4] and "mapping" in found[0][4]


def test_recursive_alias_is_an_io_finding(tmp_path):
    """An alias inside the node it names (``&x {<<: *x}``, ``&l [*l]``): IO001, no traceback."""
    sub = copy_submission(GLM_SGLANG, tmp_path)
    cfg = sub / "ifb_config.yaml"
    for body in ("x: &x {a: 1, <<: *x}\n", "y: &l [1, *l]\n"):
        cfg.write_text(body + "tensor-parallel-size: 8\n")
        found = only(lint(sub), "IO001")
        assert [f[1:4] for f in found] == [("ifb_config.yaml", 1, 4)]
        assert "recursive" in found[0][4]


# -- kind 4 (YAML): bounded cost ---------------------------------------------------------------

def _anchored_manifest(dst: Path, size: int, aliases: int) -> Path:
    """The issue's input: the GLM-5.2 manifest whose model is an anchored string of ``size``
    characters (words, so no long-word clipping helps) and ``aliases`` aliases to it in fields
    the schema checks (precision, engine version, the config list, source)."""
    sub = copy_submission(GLM_SGLANG, dst)
    m = sub / "submission.yaml"
    big = ("Kimi K3 model " * (size // 14 + 1))[:size]
    replace_once(m, "model: nvidia/GLM-5.2-NVFP4", f'model: &m "{big}"')
    replace_once(m, "precision: NVFP4", "precision: [" + ", ".join(["*m"] * aliases) + "]")
    replace_once(m, '  version: "0.5.17"', "  version: *m")
    replace_once(m, "  configs: [ifb_config.yaml]", "  configs: [ifb_config.yaml, " + ", ".join(["*m"] * aliases) + "]")
    replace_once(m, "  restored: true", "  restored: *m\n  note: [" + ", ".join(["*m"] * aliases) + "]")
    return sub


def _cost(path: Path) -> tuple[float, int]:
    """(seconds, bytes of output in every format) of linting ``path``; the time is the best of 3."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        result = lint_paths([str(path)])
        best = min(best, time.perf_counter() - t)
    f, src = result.findings, result.sources
    size = sum(len(out) for out in (report.text(f, src, report.summarize(f, result.units)), report.as_json(f, 1),
                                    report.github(f), report.sarif(f, all_rules(), src, 1)))
    return best, size


def test_anchored_string_expanding_into_model_costs_linear_time_and_bounded_output(tmp_path):
    """Issue 10 kind 4: "an 11 KB manifest whose anchored 10 KB string expands into model: costs
    55 s, 5.3 GB of memory and 1.8 GB of output". 10x the aliases, and 10x the string, cost at most
    LINEAR_AT_10X times the time (linear, not quadratic), and the output stays under 100 KB in all four formats together."""
    base = _cost(copy_submission(GLM_SGLANG, tmp_path / "base"))[1]  # SARIF alone holds ~130 KB of rule metadata
    t1, out1 = _cost(_anchored_manifest(tmp_path / "x", 10_000, 50))
    t10, out10 = _cost(_anchored_manifest(tmp_path / "aliases", 10_000, 500))
    t10s, out10s = _cost(_anchored_manifest(tmp_path / "string", 100_000, 50))
    assert t10 <= LINEAR_AT_10X * t1 and t10s <= LINEAR_AT_10X * t1, (t1, t10, t10s)
    assert max(out1, out10, out10s) - base < 100_000, (base, out1, out10, out10s)
    found = _findings(tmp_path / "aliases" / GLM_SGLANG)
    precision = [f for f in found if f.rule_id == "SUB001" and f.message.startswith("precision:")]
    assert precision and all(len(f.message) < 1_000 for f in precision)  # still checked, quoted bounded
    assert all(len(f.message) <= MAX_MESSAGE + 50 for f in found)  # a value written unquoted: cut


def _laughs(levels: int, fanout: int = 10) -> str:
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * fanout) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_billion_laughs_in_engine_yaml_and_manifest_is_one_io_finding(tmp_path):
    """Issue 10 kind 4: nested aliases (10**9 and 10**90 copies from 10 and 90 lines) are refused
    with one IO001, in time proportional to the text (ratio of 10x the lines <= LINEAR_AT_10X)."""
    def bomb(name: str, levels: int, file: str) -> Path:
        sub = copy_submission(GLM_SGLANG, tmp_path / name)
        path = sub / file
        path.write_text(path.read_text() + _laughs(levels))
        return sub

    base = _cost(copy_submission(GLM_SGLANG, tmp_path / "base"))[1]
    t1, out1 = _cost(bomb("small", 9, "ifb_config.yaml"))
    t10, out10 = _cost(bomb("large", 90, "ifb_config.yaml"))
    assert t10 <= LINEAR_AT_10X * t1, (t1, t10)
    assert out10 - base < 100_000, (base, out10)
    for name, levels, file in (("small", 9, "ifb_config.yaml"), ("large", 90, "ifb_config.yaml"),
                               ("manifest", 9, "submission.yaml")):
        sub = bomb(name, levels, file) if name == "manifest" else tmp_path / name / GLM_SGLANG
        io = only(lint(sub), "IO001")
        first_key = "chunked-prefill-size" if file == "ifb_config.yaml" else "schema_version"
        assert [f[1:4] for f in io] == [(file, *position((sub / file).read_text(), first_key))], io
        assert "expand" in io[0][4]


def test_merge_key_chain_is_not_exponential():
    """The merge-key DoS of PyYAML (yaml/pyyaml#916: each level merges 8 mappings that merge the
    level below): merged keys are applied once per mapping, so it stays small and is accepted."""
    levels = ["n0: &n0 {k0: 0, k1: 1, k2: 2, k3: 3, k4: 4, k5: 5, k6: 6, k7: 7}"]
    for i in range(1, 12):
        levels += [f"a{i}_{j}: &a{i}_{j} {{<<: *n{i - 1}}}" for j in range(8)]
        levels.append(f"n{i}: &n{i} {{<<: [" + ", ".join(f"*a{i}_{j}" for j in range(8)) + "]}")
    text = "\n".join(levels) + "\n"
    t = time.perf_counter()
    root = parse_yaml(text, "x")
    assert time.perf_counter() - t < 2
    assert isinstance(root, YMap) and len(root.get("n11").items) == 8


def test_alias_limits_are_io_findings_not_errors():
    """parse_yaml raises YamlError (IO001 for the file) for an expansion past the limits."""
    try:
        parse_yaml(_laughs(9), "x")
    except YamlError as err:
        assert "expand" in str(err) and err.span is not None
    else:
        raise AssertionError("an alias bomb was accepted")


# -- property: merge keys change nothing -------------------------------------------------------

def _rewritable() -> list[tuple[str, str, list[str]]]:
    """(submission dir relative to examples/submissions, YAML file in it, its top-level keys) for
    every published manifest and engine YAML with a block mapping at the top."""
    out = []
    for path in sorted(EXAMPLES.rglob("*.y*ml")):
        sub = next((p for p in path.parents if (p / "submission.yaml").is_file()), None)
        if sub is None:
            continue
        try:
            root = parse_yaml(path.read_text(encoding="utf-8"), "x")
        except YamlError:
            continue
        if not isinstance(root, YMap) or not root.items or root.duplicates or \
                any(k.span.col != 1 or not isinstance(k.value, str) for k, _ in root.items):
            continue
        out.append((str(sub.relative_to(EXAMPLES)), str(path.relative_to(sub)), [k.value for k, _ in root.items]))
    return out


REWRITABLE = _rewritable()
_ORIGINAL: dict[str, Counter] = {}


def _original(rel: str) -> Counter:
    if rel not in _ORIGINAL:
        with tempfile.TemporaryDirectory() as tmp:
            _ORIGINAL[rel] = _rules_by_file(_findings(copy_submission(rel, Path(tmp))))
    return _ORIGINAL[rel]


@settings(max_examples=examples(25, 100), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_property_keys_moved_into_anchor_and_merge_give_the_same_findings(data):
    """Any real example YAML (manifest or engine config) with random top-level keys moved into
    one or two anchored mappings merged with ``<<`` gives the same findings (rule, file)."""
    rel, name, keys = data.draw(st.sampled_from(REWRITABLE), label="file")
    moved = data.draw(st.lists(st.sampled_from(keys), min_size=1, unique=True), label="moved")
    anchors = data.draw(st.integers(1, 2), label="anchors")
    with tempfile.TemporaryDirectory() as tmp:
        sub = copy_submission(rel, Path(tmp))
        path = sub / name
        rewritten = merge_rewrite(path.read_text(encoding="utf-8"), moved, anchors)
        assert re.search(r"^<<:", rewritten, re.M)
        path.write_text(rewritten, encoding="utf-8")
        assert _rules_by_file(_findings(sub)) == _original(rel), rewritten


def test_property_examples_cover_manifests_and_engine_yaml():
    """The property draws from both kinds of YAML (else it would prove less than it says)."""
    names = {Path(name).name for _, name, _ in REWRITABLE}
    assert "submission.yaml" in names and len(names - {"submission.yaml"}) >= 5
    assert json.dumps(REWRITABLE)  # plain data


def test_messages_clip_long_quoted_values_only():
    """The one place messages are bounded (lint._clip, applied to every message and related
    message): a quoted value over 200 characters keeps its start and its length; the apostrophe of
    "SGLang's" and the text between two short quoted values are not values."""
    from cfglint.lint import _clip

    value = "Kimi K3 model " * 100
    clipped = _clip(f"model: '{value}' is not in the knowledge base")
    assert clipped == f"model: '{value[:60]}...({len(value)} characters)' is not in the knowledge base"
    between = "SGLang's 'marlinn' is not one of " + "a, " * 100 + "; did you mean 'marlin'?"
    assert _clip(between) == between
    assert len(_clip("x " * 10_000)) <= MAX_MESSAGE + 50
