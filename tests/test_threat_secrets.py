"""Issue 10, kinds 2 (secrets in messages) and 7 (baselines): no output format, no baseline
and no fingerprint ever shows a credential or any 8 characters of it.

Each test starts from a real published configuration in examples/submissions changed in one
place, runs the command line (click's CliRunner) in every format and checks the secret is
nowhere. Failure messages never print a secret.
"""

from __future__ import annotations

import codecs
import gc
import json
import re
import string
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cfglint.cli import main
from cfglint.lint import lint_paths
from cfglint.model import Finding, Span
from cfglint.output.masking import FRAGMENT, Redactor, mask_result
from cfglint.output.report import as_json

from support import LINEAR_AT_10X, copy_submission, examples, position, replace_once

SG = "recipes/sglang-deepseek-v3.2-h200-tp8-dp8-parsers"          # run.sh: one python3 -m sglang.launch_server
TRT = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"           # run.sh + config.yml (engine YAML)
KIMI_DOCKER = "artificial-analysis/kimi-k3/b300-sglang-tp8"         # run.sh: docker run ... sglang serve
K3 = "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"  # *.args
FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit", "rdjson", "markdown")

HF = "hf_" + "Qm7Zt2Lx9Wv4Rk8Bn3Jp6Yc1Hd5Gs0Fa"       # 37 characters, a Hugging Face token's shape
PW = "Wq8rT3nZp5Lk2Vx"                               # a password: no format, only its place says so


def outputs(target: Path) -> dict[str, str]:
    """Everything ``cfglint check target -f FMT`` prints (stdout and stderr), per format."""
    runner = CliRunner()
    out = {}
    for fmt in FORMATS:
        res = runner.invoke(main, ["check", str(target), "-f", fmt])
        assert res.exception is None or isinstance(res.exception, SystemExit), f"{fmt}: {type(res.exception)}"
        out[fmt] = res.output
    return out


def leaks(secret: str, text: str) -> bool:
    """Whether ``text`` holds ``secret`` or any FRAGMENT characters of it."""
    if len(secret) <= FRAGMENT:
        return secret in text
    return any(secret[i: i + FRAGMENT] in text for i in range(len(secret) - FRAGMENT + 1))


def assert_not_shown(text: str, *secrets: str, where: str = "") -> None:
    for k, secret in enumerate(secrets):
        shown = leaks(secret, text)   # a variable: pytest would print the call's arguments
        assert not shown, f"secret #{k} (or 8 characters of it) shows {where}"


def assert_hidden(target: Path, *secrets: str) -> dict[str, str]:
    out = outputs(target)
    for fmt, body in out.items():
        for k, secret in enumerate(secrets):
            shown = leaks(secret, body)   # a variable: pytest would print the call's arguments
            assert not shown, f"secret #{k} (or 8 characters of it) shows in the {fmt} output"
    return out


def findings(out: dict[str, str]) -> list[tuple]:
    """(rule, file name, line, column, message) from the json output."""
    return [(f["rule"], Path(f["path"]).name, f["line"], f["column"], f["message"])
            for f in json.loads(out["json"])["findings"]]


def at(path: Path, needle: str, occurrence: int = 1) -> tuple[str, int, int]:
    return (path.name, *position(path.read_text(), needle, occurrence))


# -- the issue's examples, each reproduced on main first ---------------------------------------

def test_issue_repeated_api_key_values_in_flg003(tmp_path):
    """Issue example: the values of a repeated --api-key were printed in full by FLG003."""
    d = copy_submission(SG, tmp_path)
    other = "Zr4Kp8Wn2Qx6Tm"
    replace_once(d / "run.sh", "--trust-remote-code", f"--trust-remote-code --api-key {PW} --api-key {other}")
    out = assert_hidden(d, PW, other)
    found = findings(out)
    run = d / "run.sh"
    assert [f[1:4] for f in found if f[0] == "RED002"] == [at(run, PW), at(run, other)]
    flg = [f for f in found if f[0] == "FLG003"]
    assert flg and flg[0][1:4] == at(run, "--api-key", 2) and "<secret>" in flg[0][4]


def test_issue_text_near_a_shell_syntax_error(tmp_path):
    """Issue example: the text near a shell syntax error (') hf_...') was quoted cut short, so
    masking the whole token did not hide it."""
    d = copy_submission(SG, tmp_path)
    run = d / "run.sh"
    run.write_text(run.read_text() + f"echo ) {HF}\n")
    out = assert_hidden(d, HF)
    found = findings(out)
    assert ("RED002", *at(run, HF)) in [f[:4] for f in found]
    io = [f for f in found if f[0] == "IO001"]
    assert io and "syntax error near" in io[0][4]


def test_issue_token_inside_a_path_red001(tmp_path):
    """Issue example: a token inside a host path was printed by RED001's message."""
    d = copy_submission(SG, tmp_path)
    replace_once(d / "run.sh", "--trust-remote-code", f"--trust-remote-code --download-dir /home/{HF}/cache")
    out = assert_hidden(d, HF)
    run = d / "run.sh"
    found = [f[:4] for f in findings(out)]
    assert ("RED001", *at(run, "/home/")) in found and ("RED002", *at(run, HF)) in found


def test_issue_password_in_a_url_red003(tmp_path):
    """Issue example: a password in a URL was printed by RED003 (and not reported as a secret)."""
    d = copy_submission(SG, tmp_path)
    replace_once(d / "run.sh", "--trust-remote-code", f"--trust-remote-code --dist-init-addr http://admin:{PW}@10.1.2.3:5000")
    out = assert_hidden(d, PW)
    run = d / "run.sh"
    found = findings(out)
    assert ("RED002", *at(run, PW)) in [f[:4] for f in found]
    red3 = [f for f in found if f[0] == "RED003"]
    assert [f[1:4] for f in red3] == [at(run, "10.1.2.3")]   # the host, not 'admin:...@10.1.2.3:5000'


def test_issue_token_inside_a_manifest_value_sub001(tmp_path):
    """Issue example: a token as a manifest value was printed by SUB001 (and TOP002's quote)."""
    d = copy_submission(SG, tmp_path)
    replace_once(d / "submission.yaml", "precision: FP8", f"precision: {HF}")
    out = assert_hidden(d, HF)
    found = findings(out)
    manifest = d / "submission.yaml"
    assert ("RED002", *at(manifest, HF)) in [f[:4] for f in found]
    assert any(f[0] == "SUB001" for f in found)


def test_issue_short_secret_not_shown_partly(tmp_path):
    """Issue example: 'pw12...(4 chars)' showed a 4-character secret whole."""
    d = copy_submission(SG, tmp_path)
    replace_once(d / "run.sh", "--trust-remote-code", "--trust-remote-code --api-key pw12")
    out = assert_hidden(d, "pw12")
    red = [f for f in findings(out) if f[0] == "RED002"]
    assert [f[1:4] for f in red] == [at(d / "run.sh", "pw12")] and "<secret, 4 chars>" in red[0][4]


def test_masking_does_not_depend_on_the_configuration(tmp_path):
    """A configuration that ignores RED002 (or a --select without it) still gets every
    credential masked: masking runs before the configuration filters findings."""
    d = copy_submission(SG, tmp_path)
    other = "Zr4Kp8Wn2Qx6Tm"
    replace_once(d / "run.sh", "--trust-remote-code", f"--trust-remote-code --api-key {PW} --api-key {other}")
    (d / ".cfglint.yaml").write_text("ignore: [RED]\n")
    out = assert_hidden(d, PW, other)
    found = findings(out)
    assert not any(f[0] == "RED002" for f in found) and any(f[0] == "FLG003" for f in found)
    res = CliRunner().invoke(main, ["check", str(d), "--no-config", "--select", "FLG003", "-f", "sarif"])
    assert "FLG003" in res.stdout
    assert_not_shown(res.output, PW, other, where="in the SARIF output")


# -- the forms not seen before ------------------------------------------------------------------

SHELL_FORMS = {
    "url-userinfo": (f"export HF_ENDPOINT=https://mirror:{PW}@hub.example.com", PW),
    "authorization-bearer": (f'curl -H "Authorization: Bearer {PW}" http://localhost:30000/health', PW),
    "curl-u": (f"curl -u admin:{PW} http://localhost:30000/health", PW),
    "curl-u-continued": (f"curl -s \\\n  --user admin:{PW} http://localhost:30000/health", PW),
    "password-variable": (f"export DB_PASSWORD={PW}", PW),
    "api-key-continued": (f"vllm serve openai/gpt-oss-120b --api-key \\\n  {PW}", PW),
}


@pytest.mark.parametrize("form", sorted(SHELL_FORMS))
def test_shell_forms_are_found_and_hidden(tmp_path, form):
    line, secret = SHELL_FORMS[form]
    d = copy_submission(SG, tmp_path)
    run = d / "run.sh"
    run.write_text(run.read_text() + line + "\n")
    out = assert_hidden(d, secret)
    assert [f[1:4] for f in findings(out) if f[0] == "RED002"] == [at(run, secret)]


@pytest.mark.parametrize("key", ["api_key", "password", "token", "secret", "hf_token", "client_secret"])
def test_yaml_credential_keys_in_an_engine_config(tmp_path, key):
    d = copy_submission(TRT, tmp_path)
    config = d / "config.yml"
    replace_once(config, "stream_interval: 10\n", f"stream_interval: 10\n{key}: \"{PW}\"\n")
    out = assert_hidden(d, PW)
    assert ("RED002", *at(config, PW)) in [f[:4] for f in findings(out)]


def test_yaml_credential_key_in_the_manifest(tmp_path):
    d = copy_submission(SG, tmp_path)
    manifest = d / "submission.yaml"
    replace_once(manifest, "precision: FP8\n", f"precision: FP8\napi_key: {PW}\n")
    out = assert_hidden(d, PW)
    found = [f[:4] for f in findings(out)]
    assert ("RED002", *at(manifest, PW)) in found and any(f[0] == "SUB001" for f in found)


def test_args_value_on_the_line_after_its_flag(tmp_path):
    """An argument file renders a flag and its value on two lines."""
    d = copy_submission(K3, tmp_path)
    args = d / "decode.args"
    replace_once(args, "--trust-remote-code\n", f"--trust-remote-code\n--api-key\n{PW}\n")
    out = assert_hidden(d, PW)
    assert [f[1:4] for f in findings(out) if f[0] == "RED002"] == [at(args, PW)]


PLACEHOLDERS = ["$HF_TOKEN", "${TOKEN}", "<redacted>", "xxx", "changeme", "XXXXXXXX", "your-token-here"]


def red002(target: Path) -> list[tuple]:
    res = CliRunner().invoke(main, ["check", str(target), "-f", "json"])
    return [f for f in findings({"json": res.stdout}) if f[0] == "RED002"]


def test_placeholders_are_not_credentials(tmp_path):
    """$HF_TOKEN, ${TOKEN}, <redacted>, xxx, changeme ... in every form: no RED002."""
    d = copy_submission(SG, tmp_path)
    run = d / "run.sh"
    replace_once(run, "--trust-remote-code", "--trust-remote-code " + " ".join(f'--api-key "{v}"' for v in PLACEHOLDERS))
    run.write_text(run.read_text() + "".join(
        f"curl -u admin:{v} -H \"Authorization: Bearer {v}\" https://u:{v}@hub.example.com\nexport DB_PASSWORD={v}\n"
        for v in PLACEHOLDERS))
    trt = copy_submission(TRT, tmp_path)
    replace_once(trt / "config.yml", "stream_interval: 10\n", "stream_interval: 10\n" + "".join(
        f"{k}_api_key: \"{v}\"\n{k}_password: {v}\n" for k, v in zip("abcdefg", PLACEHOLDERS) if not v.startswith("$")))
    assert red002(d) == [] and red002(trt) == []


def test_lookalikes_are_not_credentials(tmp_path):
    """docker -u uid:gid, a URL with a port, token counts and tokenizer keys are no credentials."""
    d = copy_submission(SG, tmp_path)
    run = d / "run.sh"
    run.write_text(run.read_text() + "docker run -u 1000:1000 img\ncurl http://localhost:30000/v1/models\n")
    trt = copy_submission(TRT, tmp_path)
    replace_once(trt / "config.yml", "stream_interval: 10\n", "stream_interval: 10\nmax_num_tokens: 8192\n")
    assert red002(d) == [] and red002(trt) == []


# -- kind 7: baselines ---------------------------------------------------------------------------

def test_issue_baseline_does_not_hide_a_new_secret_of_the_same_length(tmp_path):
    """Issue example (kind 7): the fingerprint used the masked line, so a new live secret of the
    same length as a baselined one was hidden. A baseline never accepts RED002."""
    d = copy_submission(SG, tmp_path)
    run = d / "run.sh"
    replace_once(run, "--trust-remote-code", f"--trust-remote-code --api-key {PW}")
    base = tmp_path / "base.json"
    runner = CliRunner()
    res = runner.invoke(main, ["check", str(d), "--write-baseline", str(base)])
    assert res.exit_code == 0 and "1 credential(s) (RED002) not recorded" in res.output
    assert_not_shown(base.read_text(), PW, where="in the baseline")
    assert "RED002" not in base.read_text()
    new = "Hb5Nc9Xe1Vj7Ud3"   # same length, another secret
    assert len(new) == len(PW)
    run.write_text(run.read_text().replace(PW, new))
    res = runner.invoke(main, ["check", str(d), "--baseline", str(base), "-f", "json"])
    red = [f for f in json.loads(res.stdout)["findings"] if f["rule"] == "RED002"]
    assert res.exit_code == 1 and [(f["line"], f["column"]) for f in red] == [position(run.read_text(), new)]
    assert_not_shown(res.output, new, where="in the output")


def test_baseline_file_never_holds_a_secret(tmp_path):
    """Other findings on a secret's line (FLG003 here) are recorded, by a hash of the masked line."""
    d = copy_submission(SG, tmp_path)
    other = "Zr4Kp8Wn2Qx6Tm"
    replace_once(d / "run.sh", "--trust-remote-code", f"--trust-remote-code --api-key {PW} --api-key {other}")
    base = tmp_path / "base.json"
    res = CliRunner().invoke(main, ["check", str(d), "--write-baseline", str(base)])
    assert res.exit_code == 0 and "2 credential(s) (RED002) not recorded" in res.output
    text = base.read_text()
    assert "FLG003" in text
    assert_not_shown(text, PW, other, where="in the baseline")
    res = CliRunner().invoke(main, ["check", str(d), "--baseline", str(base), "-f", "json"])
    assert sorted(f["rule"] for f in json.loads(res.stdout)["findings"]) == ["RED002", "RED002"]


# -- kind 2, cost: a long line with many secrets is linear ------------------------------------

def _cpu(fn) -> float:
    """CPU time of ``fn()`` in this process, the collector paused (other jobs on the machine
    and garbage collection pauses are noise here, not the cost of the algorithm)."""
    gc.collect()
    gc.disable()
    try:
        t = time.process_time()
        fn()
        return time.process_time() - t
    finally:
        gc.enable()


def _many_secrets(n: int) -> str:
    words = []
    for i in range(n):
        tail = "".join(string.ascii_letters[(i * 7 + k * 13) % 52] for k in range(30)) + f"{i:06d}"
        words.append(("hf_" + tail, f"https://u:{tail[:16]}@h.example.com", f"Authorization: Bearer {tail[:20]}")[i % 3])
    return "echo " + " ".join(words) + "\n"


def _lint_time(path: Path, text: str) -> float:
    """Best of two (the shell parser's forked child is not part of secret scanning)."""
    path.write_text(text)

    def run():
        result = lint_paths([str(path)])
        as_json(result.findings, 1)
    return min(_cpu(run) for _ in range(2))


def test_many_secrets_on_one_line_cost_is_linear(tmp_path):
    """Issue example (kind 4, secrets' part): a 2 MB line with many secrets took 48 s; masking
    was quadratic (one pattern of every secret, and the line rebuilt per secret)."""
    small, large = _many_secrets(200), _many_secrets(2000)
    _lint_time(tmp_path / "warm.sh", small)
    t1 = _lint_time(tmp_path / "small.sh", small)
    t10 = _lint_time(tmp_path / "large.sh", large)
    assert t10 <= LINEAR_AT_10X * t1 + 0.2, f"10x input took {t10 / t1:.1f}x the time"


def _masking_time(n: int) -> float:
    """CPU time of the choke point (redact.mask_result) for n credentials on one line, each
    also quoted by another finding's message."""
    tokens = [f"hf_{i:08d}" + "".join(string.ascii_letters[(i * 31 + k * 7) % 52] for k in range(26)) for i in range(n)]
    line = " ".join(tokens)
    found, col = [], 1
    for tok in tokens:
        span = Span("run.sh", 1, col, 1, col + len(tok))
        found += [Finding("RED002", "a token", span, secret=True), Finding("FLG003", f"--x is {tok} here", span)]
        col += len(tok) + 1
    sources = {"run.sh": [line]}
    spent = _cpu(lambda: mask_result(found, sources))
    assert set(sources["run.sh"][0]) <= {"*", " "} and all("hf_" not in f.message for f in found)
    return spent


def test_masking_many_secrets_on_one_line_is_linear():
    """Issue example (a 2 MB line with many secrets, 48 s): the line was rebuilt once per
    credential and every message searched with one pattern of all credentials (quadratic: 100x
    the time for 10x the credentials). The credentials share a prefix (hf_0000), as keys of one
    vendor do."""
    _masking_time(100)
    t1 = min(_masking_time(500) for _ in range(3))
    t10 = min(_masking_time(5000) for _ in range(3))
    assert t10 <= LINEAR_AT_10X * t1 + 0.1, f"10x input took {t10 / t1:.1f}x the time"


def test_redactor_hides_fragments_and_keeps_columns():
    r = Redactor([HF, "pw12"])
    line = f"x {HF[:12]} y {HF[5:30]} pw12 z"
    hidden = r.hide(line, same_length=True)
    assert len(hidden) == len(line) and "pw12" not in hidden
    assert_not_shown(hidden, HF, where="in the masked line")
    assert hidden.startswith("x ") and hidden.endswith(" z")
    assert r.hide(f"near '{HF[:9]}'") == "near '<secret>'"
    assert r.hide("nothing to hide here") == "nothing to hide here"


# -- the property: a random secret of each form, in a real configuration, never shows -----------

_SECRET = st.text(alphabet=string.ascii_letters + string.digits, min_size=12, max_size=40).filter(
    lambda s: len(set(s)) >= 8 and re.search(r"[A-Za-z]", s) and re.search(r"\d", s))

# (example, file, text replaced, replacement with {s} for the secret, the secret from s)
FORMS = [
    (SG, "run.sh", "--trust-remote-code", "--trust-remote-code --api-key {s}", lambda s: s),
    (SG, "run.sh", "--trust-remote-code", "--trust-remote-code --api-key {s} --api-key x{s}", lambda s: s),
    (SG, "run.sh", "--trust-remote-code", "--trust-remote-code --download-dir /home/hf_{s}{s}{s}/c", lambda s: f"hf_{s}{s}{s}"),
    (SG, "run.sh", "--trust-remote-code", "--trust-remote-code --dist-init-addr http://u:{s}@10.0.0.7:5000", lambda s: s),
    (SG, "run.sh", "--reasoning-parser deepseek-v3", "--reasoning-parser deepseek-v3\necho ) hf_{s}{s}{s}", lambda s: f"hf_{s}{s}{s}"),
    (SG, "run.sh", "--reasoning-parser deepseek-v3", "--reasoning-parser deepseek-v3\ncurl -u me:{s} -H 'Authorization: Bearer {s}' http://h",
     lambda s: s),
    (SG, "submission.yaml", "precision: FP8", "precision: hf_{s}{s}{s}", lambda s: f"hf_{s}{s}{s}"),
    (SG, "submission.yaml", "precision: FP8", "precision: FP8\npassword: {s}", lambda s: s),
    (TRT, "config.yml", "stream_interval: 10", "stream_interval: 10\ntoken: '{s}'", lambda s: s),
    (TRT, "run.sh", "--port 8000", "--port 8000 --api_key {s}", lambda s: s),
    (K3, "decode.args", "--trust-remote-code\n", "--trust-remote-code\n--api-key\n{s}\n", lambda s: s),
    (K3, "decode.args", "UCX_TLS=rc,cuda_copy", "UCX_TLS=rc,cuda_copy\nHF_TOKEN=ghp_{s}{s}{s}", lambda s: f"ghp_{s}{s}{s}"),
    # issue 25: a file that is no text (a NUL byte), YAML that does not parse, a token as a key
    # written with YAML escapes
    (K3, "decode.args", "UCX_TLS=rc,cuda_copy", "UCX_TLS=rc,cuda_copy\x00\nHF_TOKEN=ghp_{s}{s}{s}", lambda s: f"ghp_{s}{s}{s}"),
    (TRT, "config.yml", "stream_interval: 10", "stream_interval: [10\nnote: hf_{s}{s}{s}", lambda s: f"hf_{s}{s}{s}"),
    (TRT, "config.yml", "stream_interval: 10", 'stream_interval: 10\n"\\x68f_{s}{s}{s}": 1', lambda s: f"hf_{s}{s}{s}"),
]


@settings(max_examples=examples(25, 100), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(form=st.sampled_from(range(len(FORMS))), s=_SECRET)
@example(form=len(FORMS) - 3, s="Kq7Zt2Lx9Wv4")   # issue 25's forms, in every run
@example(form=len(FORMS) - 2, s="Kq7Zt2Lx9Wv4")
@example(form=len(FORMS) - 1, s="Kq7Zt2Lx9Wv4")
def test_property_no_output_shows_a_secret(tmp_path_factory, form, s):
    example, name, old, new, secret_of = FORMS[form]
    tmp = tmp_path_factory.mktemp("p")
    d = copy_submission(example, tmp)
    replace_once(d / name, old, new.format(s=s))
    secret = secret_of(s)
    out = outputs(d)
    for fmt, body in out.items():
        shown = leaks(secret, body)   # a variable: pytest would print the call's arguments
        assert not shown, f"form {form}: 8 characters of the secret show in the {fmt} output"
    assert any(f[0] == "RED002" for f in findings(out)), f"form {form}: no RED002"


# -- values the line patterns saw only in part (found trying to break the threat model) --------

@pytest.mark.parametrize("written, value", [
    ('--api-key "zebra quartz wyvern plinth"', "zebra quartz wyvern plinth"),
    ('--api-key="zebra quartz wyvern plinth"', "zebra quartz wyvern plinth"),
    ("--api-key \"pre\"fixSuffixSecret12345", "prefixSuffixSecret12345"),
    ("--api-key ''\"EmptyPrefixSecret5678\"", "EmptyPrefixSecret5678"),
    ("--api-key sk-proj-SPLITaaaa\\\nSPLITbbbbCCCCddddEEEE1234", "sk-proj-SPLITaaaaSPLITbbbbCCCCddddEEEE1234"),
])
def test_a_credential_flag_value_is_read_whole(tmp_path, written, value):
    """The value of a credential flag as the shell reads it (quoted with spaces, built of quoted
    parts, continued by a backslash-newline inside the word) is found and hidden whole: the line
    pattern alone saw its first word or nothing, and the rest was echoed with other findings."""
    d = copy_submission(SG, tmp_path)
    replace_once(d / "run.sh", "--trust-remote-code", f"--trust-remote-code {written} --reasoning-parser bogus")
    out = assert_hidden(d, value)
    red = [f for f in findings(out) if f[0] == "RED002"]
    line, col = position((d / "run.sh").read_text(), written.split("\n")[0])
    assert [(f[1], f[2], f[4]) for f in red] == [("run.sh", line, f"--api-key is given the literal credential "
                                                             f"<secret, {len(value)} chars>; pass it from the "
                                                             f"environment instead")]
    assert red[0][3] > col + len("--api-key")


def test_a_credential_from_a_variable_is_reported_where_it_is_written(tmp_path):
    """KEY=literal; --api-key "$KEY": the evaluator knows the value, so it is a credential, at
    the assignment; a run-time or placeholder default stays silent."""
    d = copy_submission(SG, tmp_path)
    replace_once(d / "run.sh", "python3 -m sglang.launch_server",
                 f"KEY={PW}\npython3 -m sglang.launch_server --api-key \"$KEY\"")
    out = assert_hidden(d, PW)
    assert [f[:4] for f in findings(out) if f[0] == "RED002"] == [("RED002", "run.sh", 1, 5)]
    d2 = copy_submission(SG, tmp_path / "b")
    replace_once(d2 / "run.sh", "python3 -m sglang.launch_server",
                 "python3 -m sglang.launch_server --api-key ${API_KEY:-EMPTY}")
    assert not [f for f in findings(outputs(d2)) if f[0] == "RED002"]


@pytest.mark.parametrize("written, value, line, col", [
    ("api_key: |-\n  BlockApiKeyValue77\n", "BlockApiKeyValue77", 1, 10),
    ("password: >-\n  FoldedPassw0rdValue99\n", "FoldedPassw0rdValue99", 1, 11),
    ('extra_args: ["--api-key", "FlowListApiKey4444"]\n', "FlowListApiKey4444", 1, 27),
    ("extra_args:\n- --api-key\n- BlockListApiKey5555\n", "BlockListApiKey5555", 3, 3),
])
def test_a_yaml_credential_over_several_lines_or_in_a_list(tmp_path, written, value, line, col):
    """A credential key with a block or folded scalar, and a credential flag followed by its value
    in a YAML list: no single line holds 'key: value', so the line patterns missed them and the
    value was echoed with the other findings on its lines."""
    d = copy_submission(TRT, tmp_path)
    cfg = d / "config.yml"
    cfg.write_text(written + cfg.read_text(encoding="utf-8"), encoding="utf-8")
    out = assert_hidden(d, value)
    assert [f[:4] for f in findings(out) if f[0] == "RED002"] == [("RED002", "config.yml", line, col)]


# -- second break round ---------------------------------------------------------------------------

def test_a_secret_in_a_suppression_reason_is_hidden_in_every_format(tmp_path):
    """A token written in a directive's reason: RED002 fires on the comment line, and the reason
    (JSON "suppressed", SARIF "justification") no longer carries it."""
    d = copy_submission(SG, tmp_path)
    replace_once(d / "run.sh", "python3 -m sglang.launch_server",
                 f"# cfglint: disable=PRS001 -- old key {HF} rotated\npython3 -m sglang.launch_server")
    out = assert_hidden(d, HF)
    assert [f[:3] for f in findings(out) if f[0] == "RED002"] == [("RED002", "run.sh", 1)]


@pytest.mark.parametrize("written, value", [
    ("--api-key $'AnsiCQuotedQzv777'", "AnsiCQuotedQzv777"),
    ("--api-key=$'AnsiEqQzv888'", "AnsiEqQzv888"),
])
def test_an_ansi_c_quoted_credential_is_found(tmp_path, written, value):
    d = copy_submission(SG, tmp_path)
    replace_once(d / "run.sh", "--trust-remote-code", f"--trust-remote-code {written} --reasoning-parser bogus")
    out = assert_hidden(d, value)
    assert [f[4] for f in findings(out) if f[0] == "RED002"] == [
        f"--api-key is given the literal credential <secret, {len(value)} chars>; pass it from the environment instead"]


def test_a_docker_env_value_with_spaces_is_hidden_whole(tmp_path):
    d = copy_submission(KIMI_DOCKER, tmp_path)
    value = "zebra monkey dishwasher words"
    replace_once(d / "run.sh", "docker run", f'docker run --env "API_KEY={value}"')
    out = assert_hidden(d, value)
    assert [f[4] for f in findings(out) if f[0] == "RED002"] == [
        f"API_KEY is given the literal credential <secret, {len(value)} chars>; pass it from the environment instead"]


@pytest.mark.parametrize("written, value", [
    ("password: !!str TaggedQzvValue123\n", "TaggedQzvValue123"),
    ("api_key: &k AnchoredQzvValue456\n", "AnchoredQzvValue456"),
    ('"pass\\x77ord": EscapedKeyQzvValue789\n', "EscapedKeyQzvValue789"),
    ("? token\n: ComplexKeyQzvValue012\n", "ComplexKeyQzvValue012"),
    ("extra: {secret: !!str FlowTaggedQzv345, download_dir: /home/alice/x}\n", "FlowTaggedQzv345"),
    ("env: [{name: HF_TOKEN, value: K8sEnvQzvValue678, path: /home/alice/x}]\n", "K8sEnvQzvValue678"),
])
def test_yaml_credentials_as_a_safe_loader_reads_them(tmp_path, written, value):
    """Tagged, anchored, escaped-key, complex-key, flow and name/value forms: a safe loader reads a
    credential key's literal value in each, and so does RED002 (they were missed and echoed)."""
    d = copy_submission(TRT, tmp_path)
    cfg = d / "config.yml"
    cfg.write_text(written + cfg.read_text(encoding="utf-8"), encoding="utf-8")
    out = assert_hidden(d, value)
    assert len([f for f in findings(out) if f[0] == "RED002"]) == 1


def test_an_env_file_in_a_submission_is_linted_in_a_directory_run(tmp_path):
    """A submission's .env (read by docker --env-file) is linted in a directory run, as the
    pre-commit hook, given the file, lints it."""
    d = copy_submission(KIMI_DOCKER, tmp_path)
    (d / ".env").write_text(f"HF_TOKEN={HF}\n", encoding="utf-8")
    replace_once(d / "run.sh", "docker run", "docker run --env-file .env")
    out = assert_hidden(d, HF)
    assert [f[:4] for f in findings(out) if f[0] == "RED002"] == [("RED002", ".env", 1, 10)]


# -- issue 25: secrets behind a file cfglint cannot read, and YAML keys --------------------------

def _cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args))
    assert res.exception is None or isinstance(res.exception, SystemExit), type(res.exception)
    return res.exit_code, res.output


LOOSE = {   # a file outside any submission (as pre-commit passes it), holding HF
    "broken.yaml": f"tensor_parallel_size: 8\nextra: [1, 2\nnote: {HF}\n".encode(),          # YAML syntax error
    "ci.yaml": f"name: build\non: push\nnote: {HF}\n".encode(),                                # YAML that is no engine config
    "secret.yaml": f"apiVersion: v1\nkind: Secret\nmetadata: {{name: x}}\nstringData:\n  token: {HF}\n".encode(),
    "bin.env": f"A=1\x00\nHF_TOKEN={HF}\n".encode(),                                          # binary (a NUL byte)
    "latin.sh": f"echo caf\xe9\nexport HF_TOKEN={HF}\n".encode("latin-1"),                    # not UTF-8
    "wide.env": codecs.BOM_UTF16_LE + f"HF_TOKEN={HF}\n".encode("utf-16-le"),                   # UTF-16
    "key.yaml": f"{HF}: 1\n".encode(),                                                         # a token as a key
}


@pytest.mark.parametrize("name", sorted(LOOSE))
def test_issue25_a_file_cfglint_cannot_check_is_still_scanned_for_credentials(tmp_path, name):
    """Issue 25, item 2: RED002 did not scan a YAML file with a syntax error, YAML that is no
    engine config, nor a file reported as binary: the token was missed (and once the file's
    IO001 was in a baseline, nothing was reported). Every file cfglint reads is scanned; a file
    that is no text is scanned for token formats in its bytes."""
    (tmp_path / name).write_bytes(LOOSE[name])
    out = assert_hidden(tmp_path / name, HF)
    red = [f for f in findings(out) if f[0] == "RED002"]
    assert [f[1] for f in red] == [name] and f"<secret, {len(HF)} chars>" in red[0][4]
    assert "RED002" in out["sarif"] and "RED002" in out["gitlab"] and "RED002" in out["junit"]


def test_issue25_a_baseline_never_hides_what_an_unreadable_file_gains(tmp_path):
    """Issue 25, item 2: the IO001 of a binary file and of a YAML syntax error went into a
    baseline; a live token added to either was then hidden (exit 0). The token is found, and
    the IO001's fingerprint covers the file's content: changed, it is reported again."""
    d = copy_submission(KIMI_DOCKER, tmp_path)
    (d / ".env").write_bytes(b"A=1\x00\n")
    (d / "extra.yaml").write_text("tensor_parallel_size: 8\nextra: [1, 2\n", encoding="utf-8")
    base = tmp_path / "baseline.json"
    assert _cli("check", str(d), "--write-baseline", str(base))[0] == 0
    code, out = _cli("check", str(d), "--baseline", str(base), "-f", "json")
    assert code == 0 and json.loads(out[out.index("{"):])["findings"] == []
    (d / ".env").write_bytes(b"A=1\x00\n" + f"HF_TOKEN={HF}\n".encode())
    (d / "extra.yaml").write_text(f"tensor_parallel_size: 8\nextra: [1, 2\nnote: {HF}\n", encoding="utf-8")
    code, out = _cli("check", str(d), "--baseline", str(base), "-f", "json")
    assert_not_shown(out, HF)
    found = {(f["rule"], Path(f["path"]).name) for f in json.loads(out[out.index("{"):])["findings"]}
    assert code == 1 and {("RED002", ".env"), ("RED002", "extra.yaml"), ("IO001", ".env"), ("IO001", "extra.yaml")} <= found


@pytest.mark.parametrize("written", [
    '"\\x68f_Qm7Zt2Lx9Wv4Rk8Bn3Jp6Yc1Hd5Gs0Fa": 1\n',                      # a key with an escape
    'note: "hf_Qm7Zt2Lx9\\u0057v4Rk8Bn3Jp6Yc1Hd5Gs0Fa"\n',                    # a value with an escape
    'note: "hf_Qm7Zt2Lx9Wv4\\\n  Rk8Bn3Jp6Yc1Hd5Gs0Fa"\n',                     # an escaped line break
    '? "hf_Qm7Zt2Lx9Wv4\\\n  Rk8Bn3Jp6Yc1Hd5Gs0Fa"\n: 1\n',                   # ... in a complex key
])
def test_issue25_a_token_written_with_yaml_escapes_is_found(tmp_path, written):
    """Issue 25, item 7: a token written as a YAML mapping key (or value) that no line holds as
    the loader reads it: double-quoted with an escape or an escaped line break."""
    d = copy_submission(TRT, tmp_path)
    cfg = d / "config.yml"
    cfg.write_text(cfg.read_text(encoding="utf-8") + written, encoding="utf-8")
    import yaml

    assert HF in yaml.safe_dump(yaml.safe_load(cfg.read_text(encoding="utf-8")))   # what a loader reads
    out = assert_hidden(d, HF)
    red = [f for f in findings(out) if f[0] == "RED002"]
    first = len(cfg.read_text(encoding="utf-8").splitlines()) - written.count("\n") + 1
    assert [(f[1], f[2]) for f in red] == [("config.yml", first)]


@settings(max_examples=examples(50, 300), deadline=None, derandomize=True)
@given(kinds=st.lists(st.tuples(st.sampled_from(["error", "warning", "note"]), st.booleans(), st.booleans()),
                      max_size=60),
       limit=st.integers(0, 40))
def test_property_a_sarif_cap_never_drops_a_credential_for_a_lesser_finding(kinds, limit):
    """Issue 25, item 3: for any findings in path order (level, a credential or not, silenced in
    source or not) and any limit, the SARIF cap keeps min(limit, n) of them in their order,
    never leaves out a finding while keeping one that ranks below it (credentials, then errors,
    warnings, notes; silenced ones last), and counts what it left out per level."""
    from cfglint.output.report import capped, sarif

    fs = [Finding("RED002" if secret else "RED001", f"m{i}", Span(f"f{i:03}.sh", 1, 1, 1, 2), level=level,
                  secret=secret, suppressed="why" if quiet else None)
          for i, (level, secret, quiet) in enumerate(kinds)]
    kept, left_out = capped(fs, limit)
    assert len(kept) == min(limit, len(fs)) and kept == [f for f in fs if any(f is k for k in kept)]
    rank = lambda f: (bool(f.suppressed), not f.secret, -["note", "warning", "error"].index(f.level))  # noqa: E731
    dropped = [f for f in fs if not any(f is k for k in kept)]
    assert not dropped or not kept or max(map(rank, kept)) <= min(map(rank, dropped))
    assert left_out == {lv: n for lv in ("error", "warning", "note") if (n := sum(f.level == lv for f in dropped))}
    if limit >= len(fs):
        log = json.loads(sarif(fs, {}, {}, 1))
        assert len(log["runs"][0]["results"]) == len(fs) and "properties" not in log["runs"][0]
