"""Issue 10, kind 4 (bounded cost): a contributor's file must not make cfglint slow. Each test
lints input x and input 10x in the same run and asserts the time ratio is at most RATIO
(linear: 10; a quadratic path gives up to 100). Times are the best of BEST runs, in CPU time of
this process (:func:`time.process_time`, with the shell parsed here rather than in its worker):
the time waited for a core while other tests run beside this one (CI runs two at once on two
cores) is not work, and made a 10x run look 14x once (so RATIO is tests/support.py
LINEAR_AT_10X); sizes are chosen so the 10x run takes well under a second on two cores.

The families reproduce the issue's examples (a comment of 'x/a x/a ...', a long line with one
non-ASCII character, many unknown flags) and the other superlinear paths found with cProfile
(many exports x many commands, help text x address flags, nested YAML flow collections, one
long value expanded many times).
"""

from __future__ import annotations

import gc
import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint.lint import MAX_WORD, lint_paths
from support import EXAMPLES, LINEAR_AT_10X, copy_submission, examples, shared

KIMI = "artificial-analysis/kimi-k3/b300-sglang-tp8"
TRT = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"
RUN = "docker run --gpus all lmsysorg/sglang:kimi-k3 sglang serve --model-path moonshotai/Kimi-K3 --tp-size 8"
RATIO = LINEAR_AT_10X
BEST = 3
FLOOR = 0.25  # seconds: below it a run is the fixed cost of a lint plus scheduler noise (a 0.1 s floor
# failed under load once the shell parser stopped forking per file and the small runs got faster)


def _shell(n: int, family: str) -> str:
    """run.sh of the KIMI submission for one input family at size ``n``."""
    if family == "comment_paths":       # issue: 100 KB comment 'x/a x/a ...' (RED001), 43 s
        return "# " + "x/a " * n + "\n" + RUN + "\n"
    if family == "non_ascii_line":      # issue: 400 KB line, one non-ASCII character, many words, 24 s
        return RUN + " é " + "word " * n + "\n"
    if family == "unknown_flags":       # issue: FLG001 close-match search per unknown flag
        return RUN + " \\\n" + "".join(f"  --unknown-flag-{i} 1 \\\n" for i in range(n)) + "  --tp-size 8\n"
    if family == "exports_commands":    # each command copied the whole exported environment
        return "".join(f"export V{i}=x{i}\necho {i}\n" for i in range(n)) + RUN + "\n"
    if family == "exports_launches":    # ... and each process built it again
        return "".join(f"export V{i}=x{i}\n" for i in range(n)) + (RUN + " &\n") * (n // 10)
    if family == "help_and_hosts":      # RED002/RED003 checked every match against every echo
        return "".join(f"echo --host h{i}\n--host int{i} \\\n" for i in range(n)) + RUN + "\n"
    if family == "expanded_value":      # one 60 KB value written once, expanded n times
        return "V=/home/" + "a" * 60000 + "\n" + RUN + " " + "--model-path $V --tp-size $V " * n + "\n"
    if family == "suppressions":        # every directive x every command, every finding x every directive
        return "# cfglint: disable=FLG001 -- why\n" * n + RUN + " \\\n" + \
            "".join(f"  --unknown-{i} 1 /home/a/{i} \\\n" for i in range(n)) + "  --tp-size 8\n"
    raise KeyError(family)


def _lint_shell(tmp_path: Path, family: str, n: int):
    d = copy_submission(KIMI, tmp_path / f"{family}-{n}")
    (d / "run.sh").write_text(_shell(n, family), encoding="utf-8")
    return d


def _lint_yaml(tmp_path: Path, family: str, n: int):
    d = copy_submission(TRT, tmp_path / f"{family}-{n}")
    if family == "yaml_flow_nesting":   # PyYAML's scanner walks every open flow level per token
        text = "a: " + "[" * n + "]" * n + "\n"
    elif family == "yaml_many_keys":
        text = "".join(f"unknown_key_{i}: /home/u/{i}\n" for i in range(n))
    else:
        raise KeyError(family)
    (d / "config.yml").write_text(text, encoding="utf-8")
    return d


def _best(d: Path) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(BEST):
        gc.collect()  # start each run from the same heap: no collection debt from the last one
        gc.disable()  # and time the code, not the collector's passes over the test process's heap
        try:
            t = _clock()
            result = lint_paths([str(d)])
            best = min(best, _clock() - t)
        finally:
            gc.enable()
    return best, result


_clock = time.process_time


@pytest.fixture(scope="module", autouse=True)
def _warm(tmp_path_factory):
    """Parse shell in this process, whose CPU time :data:`_clock` counts; load the knowledge base
    and import every rule before timing anything."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CFGLINT_NO_FORK", "1")
        lint_paths([str(copy_submission(KIMI, tmp_path_factory.mktemp("warm")))])
        yield


def _ratio(tmp_path, make, family: str, x: int) -> tuple[float, float, object]:
    small, _ = _best(make(tmp_path, family, x))
    large, result = _best(make(tmp_path, family, 10 * x))
    return small, large, result


# (family, x): sizes where the 10x run takes a few tenths of a second after the fix, and where
# the quadratic paths of main took 2-40 s
SHELL_FAMILIES = [
    ("comment_paths", 2500),       # 10 KB -> 100 KB, the size
    ("non_ascii_line", 1000),      # 5 KB -> 50 KB (the issue: 400 KB, 24 s; see also the column test below)
    ("exports_commands", 500),
    ("exports_launches", 300),
    ("help_and_hosts", 100),
    ("expanded_value", 200),
    ("suppressions", 150),
]


@pytest.mark.parametrize("family,x", SHELL_FAMILIES, ids=[f for f, _ in SHELL_FAMILIES])
def test_ten_times_the_shell_input_costs_linear_time(tmp_path, family, x):
    small, large, result = _ratio(tmp_path, _lint_shell, family, x)
    assert large <= RATIO * max(small, FLOOR), f"{family}: x={x} took {small:.3f}s, 10x took {large:.3f}s"
    assert not any("internal error" in f.message for f in result.findings)


YAML_FAMILIES = [("yaml_flow_nesting", 200), ("yaml_many_keys", 60)]


@pytest.mark.parametrize("family,x", YAML_FAMILIES, ids=[f for f, _ in YAML_FAMILIES])
def test_ten_times_the_yaml_input_costs_linear_time(tmp_path, family, x):
    small, large, result = _ratio(tmp_path, _lint_yaml, family, x)
    assert large <= RATIO * max(small, FLOOR), f"{family}: x={x} took {small:.3f}s, 10x took {large:.3f}s"
    assert not any("internal error" in f.message for f in result.findings)


@pytest.mark.parametrize("prefix", ["é ", ""], ids=["one-non-ascii", "ascii"])
def test_columns_on_a_long_line_with_one_non_ascii_character_cost_linear_time(prefix):
    """Issue example: a 400 KB line with one non-ASCII character and many words took 24 s (800 KB:
    over 2 minutes): each word's column decoded the line from its start. Here: the columns of
    the same number of words spread over a 40 KB and a 400 KB line cost the same (a cost per
    word that grows with the line's length is the quadratic path)."""
    from cfglint.read.shell.positions import _Positions

    times = []
    for n in (20_000, 200_000):
        data = (prefix + "w " * n).encode("utf-8")
        first = len(prefix.encode("utf-8"))
        offsets = [first + 2 * (i * n // 20_000) for i in range(20_000)]  # 20 000 words, start to end
        best = float("inf")
        for _ in range(4):
            pos = _Positions(data, "run.sh")
            t = _clock()
            cols = [pos.point(0, b)[1] for b in offsets]
            best = min(best, _clock() - t)
        assert cols[-1] == len(prefix) + offsets[-1] - first + 1  # code-point columns, 1-based
        times.append(best)
    assert times[1] <= 3 * times[0], times


def test_unknown_flags_get_a_close_match_search_each_up_to_a_bound(tmp_path, monkeypatch):
    """Issue example: FLG001's close-match search ran difflib against every flag the launcher
    has, per unknown flag (20 000 unknown flags: over 30 s; linear, but about 40 times the
    cost of a known flag). Now guessed once per name, for at most MAX_SUGGESTIONS names.
    Counted, not timed: 2 000 distinct unknown flags (each written twice) get a finding each
    and at most MAX_SUGGESTIONS searches; a repeated name is not searched again."""
    import difflib

    from cfglint.checks.flags import MAX_SUGGESTIONS
    from cfglint.deploy.extract import MISTYPED_SEARCHES

    names = []
    real = difflib.get_close_matches
    monkeypatch.setattr(difflib, "get_close_matches",
                        lambda word, *a, **k: (names.append(word), real(word, *a, **k))[1])
    n = 2000
    _, result = _best(_write(copy_submission(KIMI, tmp_path / "unknown"),
                             RUN + "".join(f" --unknown-flag-{i % n} 1" for i in range(2 * n)) + "\n"))
    assert len([f for f in result.findings if f.rule_id == "FLG001"]) == 2 * n
    searched = [w for w in names if "unknown-flag" in w]
    # each of the BEST runs, its own bounds: FLG001's suggestions and the mistyped-setting search
    assert len(searched) == BEST * (MAX_SUGGESTIONS + MISTYPED_SEARCHES), len(searched)
    assert len(set(searched)) == max(MAX_SUGGESTIONS, MISTYPED_SEARCHES)


def _write(d: Path, run: str) -> Path:
    (d / "run.sh").write_text(run, encoding="utf-8")
    return d


def test_deep_flow_yaml_is_refused_with_a_reason_not_parsed(tmp_path):
    """2 000 nested '[' took 17 s in PyYAML's scanner and ended in a recursion error."""
    d = _lint_yaml(tmp_path, "yaml_flow_nesting", 2000)
    io = [f for f in lint_paths([str(d)]).findings if f.rule_id == "IO001" and f.span.path.endswith("config.yml")]
    assert len(io) == 1 and "nested deeper than 64 levels" in io[0].message


def test_unknown_flags_past_the_budget_still_get_a_finding_each(tmp_path):
    """The close-match guess is bounded (checks/flags.py MAX_SUGGESTIONS); the findings are not."""
    from cfglint.checks.flags import MAX_SUGGESTIONS

    d = copy_submission(KIMI, tmp_path)
    n = MAX_SUGGESTIONS + 20
    # --tp-sizes is one letter from --tp-size: guessed while the budget lasts
    flags = "".join(f" --unknown-flag-{i} 1" for i in range(MAX_SUGGESTIONS)) + " --tp-sizes 8" + \
        "".join(f" --other-flag-{i} 1" for i in range(19))
    (d / "run.sh").write_text(RUN + flags + "\n", encoding="utf-8")
    flg = [f for f in lint_paths([str(d)]).findings if f.rule_id == "FLG001"]
    assert len(flg) == n
    late = next(f for f in flg if "--tp-sizes" in f.message)
    assert "did you mean" not in late.message  # past the budget: no guess, still reported
    (d / "run.sh").write_text(RUN + " --tp-sizes 8\n", encoding="utf-8")
    one = [f for f in lint_paths([str(d)]).findings if f.rule_id == "FLG001"]
    assert len(one) == 1 and "did you mean --tp-size" in one[0].message


def test_a_value_expanded_many_times_is_not_copied_into_every_word(tmp_path):
    """One 60 KB value used 2 000 times: past the expansion budget (read/shell/values.py MAX_FILE_CHARS)
    the words are not static, so the findings and their messages stay few and short."""
    result = lint_paths([str(_lint_shell(tmp_path, "expanded_value", 2000))])
    assert sum(len(f.message) for f in result.findings) < 200_000
    assert all(len(f.message) < 20_000 for f in result.findings)


def test_the_coverage_note_lists_a_bounded_number_of_gaps(tmp_path):
    """COV001 spelled out every gap: each unknown flag of a release cfglint has no flag list for
    is one gap, and 20 000 of them made one megabyte message."""
    from cfglint.checks.coverage import MAX_LISTED

    d = copy_submission(KIMI, tmp_path)
    (d / "submission.yaml").write_text((d / "submission.yaml").read_text().replace('version: "kimi-k3"', 'version: "0.0.1"'))
    (d / "run.sh").write_text(RUN + "".join(f" --unknown-{i} 1" for i in range(300)) + "\n", encoding="utf-8")
    cov = [f for f in lint_paths([str(d)]).findings if f.rule_id == "COV001"]
    assert len(cov) == 1
    assert cov[0].message.startswith("not checked (301)")
    assert cov[0].message.count("flag names of SGLang 0.0.1") <= MAX_LISTED  # the rest: related locations
    assert len(cov[0].related) > MAX_LISTED


# -- property: cost and output grow linearly over generated families ----------------------
UNITS = {
    "path_word": "x/a ",
    "non_ascii": "é ",
    "word": "w ",
    "unknown_flag": "--no-such-flag-{i} 1 ",
    "host_flag": "--host int{i} ",
    "private_ip": "10.0.{j}.1 ",
    "host_path": "/home/u{i}/m ",
}
LINES = {
    "export": "export V{i}=/scratch/{i}\n",
    "echo": "echo --host h{i}\n",
    "comment": "# see /home/a/{i}\n",
    "launch": RUN + " &\n",
}
MAX_MESSAGE = 10 * MAX_WORD + 8_000  # the longest message a finding may carry (COV001: 50 gaps)


def _generated(units: list[str], lines: list[str], n: int) -> str:
    line = " ".join(UNITS[u].format(i=i, j=i % 250) for i in range(n) for u in units)
    body = "".join(LINES[k].format(i=i) for i in range(n) for k in lines)
    return body + RUN + " " + line + "\n"


@settings(max_examples=int(os.environ.get("CFGLINT_COST_EXAMPLES", examples(6, 20))),
          deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(units=st.lists(st.sampled_from(sorted(UNITS)), min_size=1, max_size=3, unique=True),
       lines=st.lists(st.sampled_from(sorted(LINES)), max_size=2, unique=True),
       n=st.integers(10, 30))
def test_property_generated_families_cost_and_output_grow_linearly(tmp_path_factory, units, lines, n):
    """For any mix of line content and line kinds: 10x the input gives at most ~12x the time
    and the output, and no message exceeds MAX_MESSAGE characters."""
    d = copy_submission(KIMI, tmp_path_factory.mktemp("gen"))
    out = []
    for size in (n, 10 * n):
        (d / "run.sh").write_text(_generated(units, lines, size), encoding="utf-8")
        t, result = _best(d)
        messages = [f.message for f in result.findings] + [text for f in result.findings for _, text in f.related]
        assert all(len(m) <= MAX_MESSAGE for m in messages)
        assert not any("internal error" in m for m in messages)
        out.append((t, sum(map(len, messages))))
    (small, small_chars), (large, large_chars) = out
    # a floor of 50 ms: below it the time is the fixed cost of a lint (parser child, knowledge)
    assert large <= RATIO * max(small, 0.05), (units, lines, n, small, large)
    # output size is counted, not timed: no margin for a loaded machine
    assert large_chars <= 12 * small_chars + 20_000, (units, lines, n, small_chars, large_chars)


def test_a_suppression_comment_padded_with_blanks_is_read_in_linear_time(tmp_path):
    """'# cfglint: disable=A' + 2 000 blanks + a word backtracked for about two minutes (one
    pattern with three overlapping runs of blanks); suppress.parse_directive is linear."""
    from cfglint.policy.suppress import parse_directive

    times = []
    for n in (20_000, 200_000):
        t = _clock()
        assert parse_directive("# cfglint: disable=RED001" + " " * n + "!") is None  # '!' is no rule id
        assert parse_directive("# cfglint: disable=RED001" + " " * n + "x")[1].split() == ["RED001", "x"]
        times.append(_clock() - t)
    assert times[1] <= RATIO * max(times[0], 1e-3)
    assert parse_directive("x  # cfglint: disable=RED001, flg -- a reason  ") == ("disable", "RED001, flg ", "a reason", 3)


@pytest.mark.parametrize("n", [100, 1000])
def test_fingerprints_hash_each_line_once_however_many_findings_it_holds(tmp_path, monkeypatch, n):
    """Issue 25, item 4: each finding hashed its whole source line for its SARIF line hash, its
    baseline entry and its GitLab fingerprint, so N findings on one long line cost N passes over
    it (4x the findings ~10x the time). Counted, not timed: the characters hashed for N findings
    on a line of N host paths stay within a few passes over the line per output, whatever N."""
    from cfglint.checks import all_rules
    from cfglint.model import Finding, Span
    from cfglint.output import ciformats, report
    from cfglint.policy import baseline

    words = [f"/home/u{i}/x" for i in range(n)]
    line = "echo " + " ".join(words)
    found, at = [], len("echo ") + 1
    for w in words:
        found.append(Finding("RED001", "p", Span("run.sh", 1, at, 1, at + len(w)), level="error", fix="<host-path>"))
        at += len(w) + 1
    sources = {"run.sh": [line]}
    hashed = []
    real = baseline.sha256
    monkeypatch.setattr(baseline, "sha256", lambda data=b"": (hashed.append(len(data)), real(data))[1])
    log = json.loads(report.sarif(found, all_rules(), sources, 1))
    assert len({r["partialFingerprints"]["primaryLocationLineHash"] for r in log["runs"][0]["results"]}) == 1
    baseline.write(str(tmp_path / "b.json"), found, sources)
    assert baseline.new_findings(found, baseline.read(str(tmp_path / "b.json")), sources, str(tmp_path)) == []
    ciformats.gitlab(found, all_rules(), sources)
    assert sum(hashed) <= 8 * len(line), (n, sum(hashed), len(line))


def _stream(n: int) -> str:
    """A YAML stream of ``n`` documents of 22 nodes each (kubectl / helm template output)."""
    return "".join(f"---\nitems: [{', '.join(['1'] * 20)}]\n" for _ in range(n))



def _spy_on_loaders(monkeypatch) -> list:
    """The YAML loaders yaml.compose_all is called with, as a list that fills as they are; the
    node limit lowered to 20000 so the pure-Python pass a test makes stays short."""
    import yaml

    from cfglint.read import yamlsrc

    monkeypatch.setattr(yamlsrc, "MAX_NODES", 20_000)
    loaders: list = []
    real = yaml.compose_all
    monkeypatch.setattr(yaml, "compose_all", lambda text, Loader: (loaders.append(Loader), real(text, Loader=Loader))[1])
    return loaders


def test_a_yaml_stream_past_the_node_limit_is_refused_in_one_pass(monkeypatch):
    """Issue 25, item 10: a stream libyaml composed but whose documents together pass the node
    limit was handed to the pure-Python loader, which composed all of it again (~7x slower) to
    raise the same error: 10x the input took ~60x the time. libyaml's composition decides it:
    the pure-Python loader is not run, and the error is the same, at the same document."""
    from cfglint.read import yamlsrc

    loaders = _spy_on_loaders(monkeypatch)
    text = _stream(yamlsrc.MAX_NODES // 22 + 100)
    with pytest.raises(yamlsrc.YamlError) as c_err:
        yamlsrc.parse_yaml_all(text, "k8s.yaml")
    assert loaders == [yamlsrc._CLoader]
    with pytest.raises(yamlsrc.YamlError) as py_err:
        yamlsrc.parse_yaml_all(text, "k8s.yaml", c_loader=False)
    assert (str(c_err.value), c_err.value.span) == (str(py_err.value), py_err.value.span)
    assert "expand to more than 20000 nodes" in str(c_err.value)


def test_ten_times_a_yaml_stream_past_the_node_limit_costs_linear_time(monkeypatch):
    """Item 10 timed, as the README promises (linear: at most RATIO for 10x): 1x is under the node limit (made
    50,000 here to keep the run short), 10x is past it."""
    from cfglint.read import yamlsrc

    monkeypatch.setattr(yamlsrc, "MAX_NODES", 50_000)
    times = []
    for n in (500, 5000):
        text, best = _stream(n), float("inf")
        for _ in range(BEST):
            gc.collect()
            gc.disable()   # as in _best: the collector's passes over the test process's heap are not the parser's work
            t = _clock()
            try:
                yamlsrc.parse_yaml_all(text, "k8s.yaml")
            except yamlsrc.YamlError:
                assert n == 5000
            finally:
                best = min(best, _clock() - t)
                gc.enable()
        times.append(best)
    assert times[1] <= RATIO * max(times[0], 0.05), times


# Go template blocks of a KServe LLMInferenceServiceConfig's eval string (corpus 042), nested or
# left open n deep: each block's close copied its text and re-read every action of the blocks
# inside it, so 20,000 nested {{ if }} (412 KB) took 218 s. The 10x run here took 8-19 s before the fix.
KSERVE_TP = ("{{- if and .Spec.Parallelism .Spec.Parallelism.Tensor }} --tensor-parallel-size "
             "{{ .Spec.Parallelism.Tensor }}{{- end }}")
GO_TEMPLATE_FAMILIES = {   # family: (where in 042, what n makes of it)
    "nested_flag_blocks": (KSERVE_TP, lambda n: "{{ if .A }}" * n + " --bogus-flag 2 " + "{{ end }}" * n),
    "nested_value_blocks": (KSERVE_TP, lambda n: "{{ if .A }}" * n + " 5 " + "{{ end }}" * n),
    "open_blocks": (KSERVE_TP, lambda n: "{{ if .A }} -x " * n),
}


@pytest.mark.parametrize("family", sorted(GO_TEMPLATE_FAMILIES))
def test_ten_times_the_go_template_blocks_cost_linear_time(tmp_path, family):
    text = next(shared("corpus/042-kserve-llmisvcconfig-config-llm-template").glob("*.yaml")).read_text(encoding="utf-8")
    where, grow = GO_TEMPLATE_FAMILIES[family]
    assert text.count(where) == 1

    def make(tmp_path, family, n):
        path = tmp_path / f"{family}-{n}" / "config-llm-template.yaml"
        path.parent.mkdir(parents=True)
        path.write_text(text.replace(where, grow(n)), encoding="utf-8")
        return path

    small, large, result = _ratio(tmp_path, make, family, 600)
    assert large <= RATIO * max(small, FLOOR), f"{family}: x=600 took {small:.3f}s, 10x took {large:.3f}s"
    assert not any("internal error" in f.message for f in result.findings)
    if family == "nested_flag_blocks":   # a flag 6,000 blocks deep is still read, where it is written
        (flg,) = [f for f in result.findings if f.rule_id == "FLG001"]
        assert "--bogus-flag" in flg.message and flg.span.line == 172


def test_go_template_actions_never_closed_are_searched_once():
    """``}}`` then n ``{{`` with no ``}}`` after them: the action pattern searched from every ``{{``
    to the end of the text (20,000 took 7 s); the masking stops at the first ``{{`` no ``}}`` follows."""
    from cfglint.read.shell.gotemplate import mask

    def best(n):
        data = b"vllm serve m }} " + b"{{ " * n
        times = []
        for _ in range(BEST):
            t = _clock()
            assert mask(data)[0] == data   # no action: nothing masked
            times.append(_clock() - t)
        return min(times)

    small, large = best(2000), best(20000)
    assert large <= RATIO * max(small, 0.01), f"2,000 took {small:.4f}s, 20,000 took {large:.4f}s"


def test_one_yaml_document_past_the_node_limit_is_refused_in_one_pass(monkeypatch):
    """As for a stream (above), for one document past the limit on its own: a 200,000-key engine
    YAML (3.7 MB, under the 10 MiB file limit) was composed by libyaml, refused, then composed
    again by the pure-Python loader (parse_yaml_all, which loads every YAML file) to raise the
    same error: 16 s, 4.7 s now. And the error no longer calls a file with no alias an alias bomb."""
    from cfglint.read import yamlsrc

    loaders = _spy_on_loaders(monkeypatch)
    config = (EXAMPLES / TRT / "config.yml").read_text(encoding="utf-8")
    text = config + "".join(f"unknown_key_{i}: {i}\n" for i in range(10_001))
    with pytest.raises(yamlsrc.YamlError) as c_err:
        yamlsrc.parse_yaml_all(text, "config.yml")
    assert loaders == [yamlsrc._CLoader]
    with pytest.raises(yamlsrc.YamlError) as py_err:
        yamlsrc.parse_yaml_all(text, "config.yml", c_loader=False)
    assert (str(c_err.value), c_err.value.span) == (str(py_err.value), py_err.value.span)
    assert "holds more than 20000 nodes" in str(c_err.value) and "alias" not in str(c_err.value)
    # the control: the published file itself parses on libyaml's pass alone
    loaders.clear()
    assert yamlsrc.parse_yaml_all(config, "config.yml") != [] and loaders == [yamlsrc._CLoader]
