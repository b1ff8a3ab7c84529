"""Issue 11 (speed): RED001, RED002 and RED003 scan only what can hold a finding. Every
prefilter (checks/prefilter.py, and the key and path ones in checks/secrets.py and
checks/host_paths.py) must be no narrower than the scan it guards: a pattern it rules
out of a text has no match in it, a line it leaves out has no assignment, credential key, IPv4
address or host path. Checked part by part on the bundled patterns, on tricky patterns (case
folding, scoped flags, branches, back references), on every published example and on generated
hostile texts; and end to end: the findings with every prefilter switched off (the full scan)
are the findings with them on.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint.checks import addresses as A
from cfglint.checks import host_paths as H
from cfglint.checks import prefilter as P
from cfglint.checks import secrets as S
from cfglint.knowledge import knowledge
from cfglint.lint import lint_paths

from support import EXAMPLES, copy_submission, examples

SG = "recipes/sglang-deepseek-v3.2-h200-tp8-dp8-parsers"          # run.sh: one python3 -m sglang.launch_server
TRT = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"           # run.sh + config.yml (engine YAML)

KB = knowledge()
TOKENS = [re.compile(t["pattern"]) for t in KB.secrets["tokens"]]
SHAPES = [re.compile(t["pattern"]) for t in KB.secrets["shapes"]]
KEYS = S._key_names(KB.secrets["assignments"]["keys"])
CREDENTIAL_NAMES = set(KB.secrets["assignments"]["flags"]) | set(KB.secrets["assignments"]["env"])
ADDRESS_NAMES = set(KB.secrets["addresses"]["flags"]) | set(KB.secrets["addresses"]["env"])
PATH_LITERALS = H._path_literals(tuple(e["prefix"] for e in KB.paths["host_prefixes"]),
                                 tuple(e["component"] for e in KB.paths["host_components"]))


def _example_texts() -> list[str]:
    out = []
    for p in sorted(EXAMPLES.rglob("*")):
        if p.is_file():
            try:
                out.append(p.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, OSError):
                continue
    return out


TEXTS = _example_texts()

# pieces of hostile text: credentials and their look-alikes, names, paths, addresses, case
# folds outside ASCII (KELVIN SIGN folds to k, LONG S to s, dotted I lowers to two characters),
# quotes, continuations and line ends
PIECES = ["hf_" + "Qm7Zt2Lx9Wv4Rk8Bn3Jp6Yc1Hd5Gs0Fa", "nvapi-" + "a" * 40, "ghp_" + "b" * 36, "github_pat_" + "c" * 40,
          "sk-proj-" + "d" * 32, "AKIA" + "E" * 16, "AIza" + "f" * 35, "-----BEGIN PRIVATE KEY-----",
          "https://user:pw123@host/", "Authorization: Bearer abc", "AUTHORIZATION=basic xyz", "authoriza\u017fion: token q",
          "\u212aey", "curl ", "-u ", "--user=", "alice:s3cret", "--api-key ", "--api-key=", "--token", "api_key: ",
          "Api-Key=", "password", "PASSWORD", "pass\u0130word", "client_secret", "x_api_key", "secretName: ", "token: ",
          "max-num-tokens: 8", "HF_TOKEN=", "export ", "docker -e ", "--host ", "--host=", "hostname: ", "MASTER_ADDR=",
          "--dist-init-addr ", "10.1.2.3", "192.168.0.1:5000", "172.16.9.9", "100.64.0.1", "1.2.3.4.5", "node-7.internal",
          "/home/alice", "/scratch/x", "/cm/shared/m", "/Users/bob", "/a/../home/c", "//home/d", "file:///lustre/e",
          "/mnt/data", "-v", "/mnt:/mnt", "<host-path>", "${HOME}", "$HF_TOKEN", "xxx", "changeme", "echo ", "# ",
          "'", '"', " ", "\t", "=", ":", ",", "\\\n", "\n", "\r\n", "\u2028", "\u0085", "\u0130", "\u017f", "\u212a"]
hostile = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=40).map("".join)


def _sound(pattern: re.Pattern, text: str) -> None:
    if pattern.search(text) is not None or P._anywhere(pattern, text):
        assert P.may_match(pattern, text), (pattern.pattern, text)


def test_every_bundled_token_and_shape_pattern_has_a_literal_prefilter():
    """Not vacuous: each pattern of rules/secrets.yaml gets a literal test, and it rules out a
    text without the literal."""
    for p in TOKENS + SHAPES:
        assert P._required(p.pattern, p.flags) is not None, p.pattern
        assert not P.may_match(p, "python3 -m sglang.launch_server --model-path /models/x --tp 8\n")


def test_prefilter_keeps_every_pattern_that_matches_in_the_examples():
    for text in TEXTS:
        for p in TOKENS + SHAPES:
            _sound(p, text)


@settings(max_examples=examples(60, 400), deadline=None)
@given(st.data())
def test_prefilter_keeps_every_generated_match_of_the_bundled_patterns(data):
    p = data.draw(st.sampled_from(TOKENS + SHAPES))
    text = data.draw(st.from_regex(p))
    assert p.search(text) is not None
    _sound(p, text)


@settings(max_examples=examples(60, 400), deadline=None)
@given(hostile)
def test_prefilter_keeps_every_match_in_hostile_text(text):
    for p in TOKENS + SHAPES:
        _sound(p, text)


TRICKY = [r"(?i)\bauthorization\s*[:=]", r"(?i)kelvin", r"(?i)password", r"x(?i:bc)d", r"(?i)[ab]c",
          r"(?:ab|cd)+e", r"a{0}bc", r"(ab)\1", r"(?=abc)\w+", r"[^a]bc", r"(?x) a b c", r"(?a)(?i)k",
          r"ab|", r"(?:ab)?c", r"a*", r"[kK]elvin", "\u212a", r"(?s)a.b", r"(?>abc)d", r"a++b", r"\bgh[pousr]_\w{3}",
          r"(?:-u|--user|-U)(?:\s+|=)x", r"(?P<q>['\"]?)k(?P=q)", r"(?:a|b|c|d|e|f|g|h|i)(?:j|k|l|m|n|o|p|q)z",
          r"[0-9]{2}x", r"a{2,5}b", r"(?:xy){2}", r"-----BEGIN (?:RSA |EC )?KEY", r"\d+", r"(?i)s\u0130"]


@settings(max_examples=examples(80, 600), deadline=None)
@given(st.data())
def test_prefilter_is_sound_on_tricky_patterns(data):
    p = re.compile(data.draw(st.sampled_from(TRICKY)))
    text = data.draw(st.one_of(st.from_regex(p), hostile,
                               st.sampled_from(["KELVIN", "\u212aelvin", "pa\u017f\u017fword", "AUTHORIZATION=",
                                                "xBCd", "S\u0130", "s\u0131", "abab", "ab"])))
    _sound(p, text)


@settings(max_examples=examples(60, 400), deadline=None)
@given(hostile, st.sets(st.sampled_from(sorted(CREDENTIAL_NAMES | ADDRESS_NAMES) + ["a", "\u0130", "x\ny"]), max_size=4))
def test_lines_holding_names_are_the_lines_that_hold_them(text, names):
    lines = P.lines_holding(text, names)
    if lines is None:
        assert any("\n" in n or not n for n in names)
        return
    assert lines == {i for i, line in enumerate(text.split("\n"), start=1) if any(n in line for n in names)}


# a key table whose suffixes are no names (the bundled one repeats them): a key such as
# deploy_pat: or my-pass: is found only through its suffix
OTHER_KEYS = ({"token", "hf"}, ("pat", "pass"))


def _key_sound(text: str, keys=KEYS) -> None:
    names, suffixes = keys
    lines = S._key_lines(text, names, suffixes)
    for i, line in enumerate(text.split("\n"), start=1):
        if list(S._key_matches(line, names, suffixes)):
            assert lines is None or i in lines, (i, line)


def test_key_lines_keep_every_credential_key_in_the_examples():
    for text in TEXTS:
        _key_sound(text)


@settings(max_examples=examples(80, 600), deadline=None)
@given(hostile)
def test_key_lines_keep_every_credential_key_in_hostile_text(text):
    _key_sound(text)
    _key_sound(text, OTHER_KEYS)


_KEY_ASSIGNMENT = st.tuples(st.sampled_from(["", " ", "\n", "x", ".", "\u0130", "\u212a", "'"]),
                           st.sampled_from(["deploy_PAT", "my-pass", "Pa_T", "a.b.pass", "hf", "HF", "x", "\u0130pat"]),
                           st.sampled_from([": ", "=", ":\t", ":", " = "]),
                           st.sampled_from(["v4lue", "'q w'", '"z"', "", "$X", "\n"])).map("".join)


@settings(max_examples=examples(80, 600), deadline=None)
@given(st.lists(_KEY_ASSIGNMENT, max_size=8).map("".join))
def test_key_lines_keep_keys_found_by_their_suffix(text):
    _key_sound(text, OTHER_KEYS)


def test_lowering_a_text_makes_no_line_break():
    """_key_lines counts lines in the lowered text: no character lowers to or from '\\n'."""
    for c in map(chr, range(0x110000)):
        assert ("\n" in c.lower()) == (c == "\n")


@settings(max_examples=examples(80, 600), deadline=None)
@given(st.lists(st.sampled_from(["1", "10", "192", "168", "255", "256", ".", "..", "\n", " ", "x", "0"]), max_size=40).map("".join))
def test_one_ipv4_scan_of_a_text_finds_every_line_with_an_address(text):
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    from bisect import bisect_right
    found = {bisect_right(starts, m.start()) for m in A._IPV4.finditer(text)}
    for i, line in enumerate(text.split("\n"), start=1):
        if A._IPV4.search(line):
            assert i in found, (i, line)


def test_host_path_literals_cover_the_bundled_prefixes():
    assert PATH_LITERALS is not None and "/home" in PATH_LITERALS and "/cm" in PATH_LITERALS
    assert H._path_literals(("",), ()) is None and H._path_literals(("/",), ()) is None
    assert H._path_literals((), ("a/b",)) is None


def _full_scan(monkeypatch) -> None:
    """Every prefilter off: each text pattern is searched, every line scanned."""
    monkeypatch.setattr(P, "_literal_test", lambda pattern, flags: None)
    monkeypatch.setattr(P, "lines_holding", lambda text, literals: None)
    monkeypatch.setattr(S, "_key_lines", lambda text, names, suffixes: None)
    monkeypatch.setattr(H, "_path_literals", lambda prefixes, components: None)


def _red(paths: list[str]) -> list[tuple]:
    return [(f.rule_id, f.span.path, f.span.line, f.span.col, f.span.end_line, f.span.end_col, f.message, f.fix)
            for f in lint_paths(paths).findings if f.rule_id.startswith("RED")]


def test_examples_give_the_same_findings_with_every_prefilter_off(monkeypatch):
    fast = _red([str(EXAMPLES)])
    _full_scan(monkeypatch)
    assert _red([str(EXAMPLES)]) == fast


@pytest.fixture(scope="module")
def hostile_subs(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    return copy_submission(SG, root / "sg"), copy_submission(TRT, root / "trt")


@settings(max_examples=examples(25, 200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hostile, hostile)
def test_hostile_texts_give_the_same_findings_with_every_prefilter_off(hostile_subs, monkeypatch, shell, yaml_text):
    sg, trt = hostile_subs
    (sg / "run.sh").write_text((EXAMPLES / SG / "run.sh").read_text(encoding="utf-8") + shell + "\n", encoding="utf-8")
    (trt / "config.yml").write_text((EXAMPLES / TRT / "config.yml").read_text(encoding="utf-8") + "\n" + yaml_text + "\n",
                                    encoding="utf-8")
    (trt / "run.sh").write_text(yaml_text + "\n", encoding="utf-8")
    paths = [str(sg), str(trt)]
    fast = _red(paths)
    with monkeypatch.context() as m:
        _full_scan(m)
        assert _red(paths) == fast
