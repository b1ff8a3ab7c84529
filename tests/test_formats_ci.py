"""The formats of CI systems other than GitHub (``--format gitlab|junit|rdjson``,
src/cfglint/output/ciformats.py), each validated against its published schema:

- GitLab Code Quality: every issue against GitLab's own schema for them
  (../shared/formats/gitlab/codeclimate.json, the file GitLab's parser validates each issue with),
  plus what GitLab's documentation of the format adds (severity values, check_name, a line);
- JUnit XML: the Jenkins xUnit plugin's junit-10.xsd (../shared/formats/junit/), with ``xmlschema``;
- rdjson: reviewdog's DiagnosticResult JSON Schema (../shared/formats/reviewdog/).

The schemas are other people's files: they are read where they are, never copied into the
repository, and the tests that need them skip, saying why, when ../shared is absent. Where each
comes from, at which commit and under which license: ../shared/formats/README.md.
On the bundled examples the positions are the json format's; hostile text in a finding
(control characters, ``]]>``, characters XML 1.0 forbids, a credential) comes out neutralized
in each; a run without findings is valid in each; the exit code is the json format's.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import jsonschema
import pytest
import xmlschema
from hypothesis import given, settings
from hypothesis import strategies as st

from cfglint.checks import all_rules
from cfglint.model import Finding, Span
from cfglint.output import ciformats
from cfglint.output.masking import mask_result
from support import EXAMPLES, ROOT, copy_submission, examples, replace_once, shared

CI_FORMATS = ("gitlab", "junit", "rdjson")
GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}   # GitLab's documentation of the format
RED_SUBMISSION = "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"
CLEAN = "artificial-analysis/kimi-k3/b300-sglang-tp8"
SG = "recipes/sglang-deepseek-v3.2-h200-tp8-dp8-parsers"
HF = "hf_" + "Qm7Zt2Lx9Wv4Rk8Bn3Jp6Yc1Hd5Gs0Fa"       # a Hugging Face token's shape
# what no output may carry from input: C0 controls but tab and newline, DEL, C1, bidi controls,
# line separators, and what XML 1.0 forbids (U+FFFE, U+FFFF, surrogates)
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
                    "\ud800-\udfff\ufffe\uffff]")


@lru_cache(maxsize=None)
def _json_validator(rel: str):
    schema = json.loads(shared(f"formats/{rel}").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def gitlab_issue():
    return _json_validator("gitlab/codeclimate.json")   # draft-07, as declared


def rdjson():
    return _json_validator("reviewdog/DiagnosticResult.json")   # draft-04, as declared


@lru_cache(maxsize=None)
def junit():
    return xmlschema.XMLSchema(str(shared("formats/junit/junit-10.xsd")))


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def run(exe: Path, fmt: str, target: str, cwd: Path, *extra: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(exe), "check", "--no-config", "-f", fmt, *extra, target], cwd=cwd,
                          capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert proc.returncode in (0, 1), f"{fmt}: exit {proc.returncode}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    return proc


def check_gitlab(body: str) -> list[dict]:
    issues = json.loads(body)
    assert isinstance(issues, list)
    for issue in issues:
        gitlab_issue().validate(issue)   # GitLab stops reading the report at the first issue this rejects
        assert issue["severity"] in GITLAB_SEVERITIES
        assert isinstance(issue["check_name"], str) and issue["check_name"]
        assert issue["location"]["positions"]["begin"]["line"] >= 1
    fingerprints = [i["fingerprint"] for i in issues]
    assert len(set(fingerprints)) == len(fingerprints), "GitLab keeps one issue per fingerprint"
    return issues


def check_junit(body: str) -> ET.Element:
    root = ET.fromstring(body.encode("utf-8"))   # well-formed XML 1.0
    junit().validate(body)
    suites = root.findall("testsuite")
    assert int(root.get("tests")) == sum(int(s.get("tests")) for s in suites) == len(root.findall("testsuite/testcase"))
    assert int(root.get("failures")) == sum(int(s.get("failures")) for s in suites) == len(root.findall("testsuite/testcase/failure"))
    return root


def check_rdjson(body: str) -> dict:
    result = json.loads(body)
    rdjson().validate(result)
    for d in result["diagnostics"]:
        assert d["location"]["range"]["start"]["line"] >= 1   # the proto's "Required" start
    return result


def byte_column(path: Path, line: int, col: int) -> int:
    text = path.read_text(encoding="utf-8").splitlines()[line - 1]
    return len(text[: col - 1].encode("utf-8")) + 1


# -- the bundled examples ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def example_outputs(cfglint_exe):
    out = {fmt: run(cfglint_exe, fmt, "examples/submissions", ROOT) for fmt in ("json",) + CI_FORMATS}
    findings = json.loads(out["json"].stdout)["findings"]
    assert any(f["level"] == "error" for f in findings) and any(f["level"] == "note" for f in findings)
    assert any(f["fix"] for f in findings) and any(f["related"] for f in findings)
    return out


def test_examples_exit_code_is_the_json_formats(example_outputs):
    codes = {fmt: p.returncode for fmt, p in example_outputs.items()}
    assert set(codes.values()) == {1}, codes   # six errors on the published examples


def test_examples_gitlab_is_valid_and_placed_like_json(example_outputs):
    issues = check_gitlab(example_outputs["gitlab"].stdout)
    findings = [f for f in json.loads(example_outputs["json"].stdout)["findings"] if not f["suppressed"]]
    assert len(issues) == len(findings)
    for issue, f in zip(issues, findings):
        assert issue["check_name"] == f["rule"] and issue["description"] == f"{f['rule']} {f['message']}"
        assert issue["location"] == {"path": f["path"], "positions": {
            "begin": {"line": f["line"], "column": f["column"]},
            "end": {"line": f["end_line"], "column": f["end_column"]}}}
        assert issue["severity"] == {"error": "major", "warning": "minor", "note": "info"}[f["level"]]
    red = [i for i in issues if i["check_name"] == "RED001"]
    assert red and all(i["categories"] == ["Security"] for i in red)


def test_examples_junit_is_valid_and_placed_like_json(example_outputs):
    root = check_junit(example_outputs["junit"].stdout)
    findings = [f for f in json.loads(example_outputs["json"].stdout)["findings"] if not f["suppressed"]]
    cases = root.findall("testsuite/testcase")
    assert len(cases) == len(findings)
    for suite in root.findall("testsuite"):   # one suite per file, named by it
        assert {c.get("classname") for c in suite.findall("testcase")} == {suite.get("name")} == {suite.get("file")}
    for case, f in zip(cases, findings):
        assert case.get("classname") == f["path"] and case.get("name") == f"{f['rule']} {f['line']}:{f['column']}"
        head = f"{f['path']}:{f['line']}:{f['column']}: {f['rule']} [{f['level']}] {f['message']}"
        failure = case.find("failure")
        if f["level"] == "error":   # the default fail level: what makes the run exit 1 fails
            assert failure.get("message") == head and failure.get("type") == "error"
            assert failure.text.startswith(head + "\n")
        else:
            assert failure is None and case.find("system-out").text.startswith(head)
        text = failure.text if failure is not None else case.find("system-out").text
        for r in f["related"]:
            assert f"\n  {r['path']}:{r['line']}:{r['column']}: {r['message']}" in text
    assert int(root.get("failures")) == sum(1 for f in findings if f["level"] == "error") == 6


def test_examples_rdjson_is_valid_and_placed_like_json(example_outputs):
    result = check_rdjson(example_outputs["rdjson"].stdout)
    assert result["source"] == {"name": "cfglint", "url": "https://github.com/cfglint/cfglint"}
    findings = [f for f in json.loads(example_outputs["json"].stdout)["findings"] if not f["suppressed"]]
    assert len(result["diagnostics"]) == len(findings)
    for d, f in zip(result["diagnostics"], findings):
        path = ROOT / f["path"]
        want = {"start": {"line": f["line"], "column": byte_column(path, f["line"], f["column"])},
                "end": {"line": f["end_line"], "column": byte_column(path, f["end_line"], f["end_column"])}}
        assert d["location"] == {"path": f["path"], "range": want}
        assert d["severity"] == {"error": "ERROR", "warning": "WARNING", "note": "INFO"}[f["level"]]
        assert d["code"]["value"] == f["rule"] and d["code"]["url"].endswith(f"/docs/rules/{f['rule']}.md")
        if f["fix"] is not None:   # the --fix replacement, over the finding's own range
            assert d["suggestions"] == [{"range": want, "text": f["fix"]}]
        else:
            assert "suggestions" not in d
        assert [(r["location"]["path"], r["location"]["range"]["start"]["line"]) for r in d.get("related_locations", [])] \
            == [(r["path"], r["line"]) for r in f["related"]]
    assert sum(1 for d in result["diagnostics"] if "suggestions" in d) == 4   # the four RED001 host paths


def test_rdjson_columns_are_utf8_bytes(tmp_path, cfglint_exe):
    # reviewdog counts columns in UTF-8 bytes ('a𐐀b': b is column 6); json counts code points
    d = copy_submission(CLEAN, tmp_path)
    replace_once(d / "run.sh", "# Kimi K3", "# Modèle 𐐀 see /home/alicé/models\n# Kimi K3")
    js = [f for f in json.loads(run(cfglint_exe, "json", ".", d).stdout)["findings"] if f["rule"] == "RED001"]
    rd = [x for x in check_rdjson(run(cfglint_exe, "rdjson", ".", d).stdout)["diagnostics"] if x["code"]["value"] == "RED001"]
    assert len(js) == len(rd) == 1
    assert js[0]["column"] == len("# Modèle 𐐀 see ") + 1 and js[0]["end_column"] == js[0]["column"] + len("/home/alicé/models")
    assert rd[0]["location"]["range"] == {"start": {"line": js[0]["line"], "column": js[0]["column"] + 1 + 3},
                                          "end": {"line": js[0]["line"], "column": js[0]["end_column"] + 1 + 3 + 1}}


# -- fingerprints ------------------------------------------------------------------------------

def test_gitlab_fingerprints_survive_moved_lines_and_repeated_runs(tmp_path, cfglint_exe):
    d = copy_submission(RED_SUBMISSION, tmp_path)
    before = json.loads(run(cfglint_exe, "gitlab", ".", d).stdout)
    assert before == json.loads(run(cfglint_exe, "gitlab", ".", d).stdout)   # the same run, the same report
    replace_once(d / "decode.args", "# Decode worker:", "# Decode worker:\n# (two lines added above every flag)\n#")
    after = json.loads(run(cfglint_exe, "gitlab", ".", d).stdout)
    red = {i["location"]["path"]: i for i in before if i["check_name"] == "RED001"}
    moved = {i["location"]["path"]: i for i in after if i["check_name"] == "RED001"}
    assert moved["decode.args"]["location"]["positions"]["begin"]["line"] == red["decode.args"]["location"]["positions"]["begin"]["line"] + 2
    assert {p: i["fingerprint"] for p, i in moved.items()} == {p: i["fingerprint"] for p, i in red.items()}


def test_gitlab_fingerprints_of_findings_on_one_line_differ():
    # two findings of one rule on one line (same SARIF line hash) keep distinct fingerprints
    sources = {"run.sh": ["sglang serve --model-path /home/a/m --download-dir /home/a/d"]}
    fs = [Finding("RED001", "host path", Span("run.sh", 1, c, 1, c + 9), level="error") for c in (28, 53)]
    body = ciformats.gitlab(fs, all_rules(), sources)
    assert len({i["fingerprint"] for i in json.loads(body)}) == 2


# -- no findings -------------------------------------------------------------------------------

def test_a_run_without_findings_is_valid_in_each_format(tmp_path, cfglint_exe):
    d = copy_submission(CLEAN, tmp_path)
    assert json.loads(run(cfglint_exe, "json", ".", d).stdout)["findings"] == []
    out = {fmt: run(cfglint_exe, fmt, ".", d) for fmt in CI_FORMATS}
    assert {p.returncode for p in out.values()} == {0}
    assert check_gitlab(out["gitlab"].stdout) == []
    assert check_rdjson(out["rdjson"].stdout)["diagnostics"] == []
    root = check_junit(out["junit"].stdout)
    [case] = root.findall("testsuite/testcase")   # one passed test: Jenkins refuses a report without any
    assert case.find("failure") is None and root.get("failures") == "0"
    assert case.find("system-out").text == "no findings in 1 submission(s) / file(s)"


def test_fail_level_decides_what_fails_in_junit(tmp_path, cfglint_exe):
    copy_submission(RED_SUBMISSION, tmp_path)
    (tmp_path / "x").mkdir()
    shutil.copytree(EXAMPLES / "nvidia/glm-5.2/gb300-dynamo-trtllm-p01", tmp_path / "x" / "p01")   # a COV001 note
    for level, failing in (("error", {"RED001"}), ("note", {"RED001", "COV001"})):
        proc = run(cfglint_exe, "junit", str(tmp_path), tmp_path, "--fail-level", level)
        root = check_junit(proc.stdout)
        failed = {c.get("name").split()[0] for c in root.findall("testsuite/testcase") if c.find("failure") is not None}
        assert failed == failing and proc.returncode == 1


# -- hostile input -----------------------------------------------------------------------------

HOSTILE = 'precision: "FP8 \\e[2J ]]> \\uFFFF \\uD800 \\0 \\x85 <img src=x> [a](http://e) ' + HF + '"'


def test_hostile_value_comes_out_neutralized_in_each_format(tmp_path, cfglint_exe):
    d = copy_submission(SG, tmp_path)
    replace_once(d / "submission.yaml", "precision: FP8", HOSTILE)
    out = {fmt: run(cfglint_exe, fmt, ".", d) for fmt in ("json",) + CI_FORMATS}
    assert {p.returncode for p in out.values()} == {1}
    for fmt in CI_FORMATS:
        body = out[fmt].stdout
        assert not UNSAFE.search(body), fmt
        if fmt != "junit":
            assert not any(UNSAFE.search(t) for t in _strings(json.loads(body))), fmt
        assert all(HF[i: i + 8] not in body for i in range(len(HF) - 7)), f"{fmt} shows the credential"
    issues = check_gitlab(out["gitlab"].stdout)
    rd = check_rdjson(out["rdjson"].stdout)
    root = check_junit(out["junit"].stdout)
    shown = "FP8 \\x1b[2J ]]> \\uffff \\ud800 \\x00 \\x85 <img src=x> [a](http://e) <secret>"
    texts = [i["description"] for i in issues]
    assert any(shown in t for t in texts) and not any(UNSAFE.search(t) for t in texts)
    xml_texts = [c.get("message") for c in root.iter("failure")] + [c.text for c in root.iter("failure")]
    assert any(shown in t for t in xml_texts) and not any(UNSAFE.search(t) for t in xml_texts)
    assert "]]&gt;" in out["junit"].stdout
    # rdjson's messages are Markdown where reviewdog posts them: no link, image or tag from input
    md = "FP8 \\x1b\\[2J \\]\\]> \\uffff \\ud800 \\x00 \\x85 \\<img src=x> \\[a\\](http://e) \\<secret>"
    messages = [x["message"] for x in rd["diagnostics"]] + [r["message"] for x in rd["diagnostics"]
                                                           for r in x.get("related_locations", [])]
    assert any(md in m for m in messages) and not any(UNSAFE.search(m) for m in messages)
    for m in messages:   # every bracket and '<' escaped, in every message and related message
        assert not re.search(r"(?<!\\)[\[\]<]", m), m
    assert {"critical"} == {i["severity"] for i in issues if i["check_name"] == "RED002"}   # a published credential


_ANY_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=60)


@settings(max_examples=examples(60, 400), deadline=None, derandomize=True)
@given(message=_ANY_TEXT, related=_ANY_TEXT, path=_ANY_TEXT.filter(bool), fix=st.none() | _ANY_TEXT)
def test_property_any_text_gives_valid_documents(message, related, path, fix):
    # whatever a message, a related message, a file name or a fix holds (control characters,
    # ']]>', U+FFFE, lone surrogates, a credential), each format stays valid and carries none of it raw
    secret_line = f"x --api-key {HF}"
    sources = {path: [secret_line]}
    fs = [Finding("RED002", f"token {HF} {message}", Span(path, 1, 13, 1, 13 + len(HF)), level="error", secret=True),
          Finding("TOP002", message, Span(path, 1, 1, 1, 2), level="warning", related=[(Span(path, 1, 3, 1, 4), related)],
                  fix=fix)]
    mask_result(fs, sources)
    rules = all_rules()
    bodies = {"gitlab": ciformats.gitlab(fs, rules, sources), "rdjson": ciformats.rdjson(fs, sources),
              "junit": ciformats.junit(fs, 1, "warning")}
    for fmt, body in bodies.items():
        assert not UNSAFE.search(body), fmt
        assert HF[3:11] not in body, fmt
        body.encode("utf-8")   # encodable: no lone surrogate left
        if fmt != "junit":   # and every string a consumer decodes
            assert not any(UNSAFE.search(t) or HF[3:11] in t for t in _strings(json.loads(body))), fmt
    gitlab_issue().validate(json.loads(bodies["gitlab"])[0])
    rdjson().validate(json.loads(bodies["rdjson"]))
    junit().validate(bodies["junit"])
    root = ET.fromstring(bodies["junit"].encode("utf-8"))
    for el in root.iter():
        for value in [el.text or "", *el.attrib.values()]:
            assert not UNSAFE.search(value)


def test_read_schemas_are_the_published_files():
    # ../shared/formats/README.md names each file's git blob id at its source commit: the files are unmodified
    readme = shared("formats/README.md").read_text(encoding="utf-8")
    for rel in ("gitlab/codeclimate.json", "reviewdog/DiagnosticResult.json", "junit/junit-10.xsd"):
        data = shared(f"formats/{rel}").read_bytes()
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        assert f"`{rel}`" in readme and blob in readme, rel


def test_xml_is_imported_for_junit_only_and_the_ci_formats_only_when_asked():
    import sys

    target = str(EXAMPLES / CLEAN)
    probe = ("import sys\nfrom click.testing import CliRunner\nfrom cfglint.cli import main\n"
             "r = CliRunner().invoke(main, ['check', '--no-config', '-f', sys.argv[1], sys.argv[2]])\n"
             "print(r.exit_code, any(m.startswith('xml') for m in sys.modules), 'cfglint.output.ciformats' in sys.modules)\n")
    seen = {fmt: subprocess.run([sys.executable, "-c", probe, fmt, target], capture_output=True, text=True,
                                timeout=120).stdout.split() for fmt in ("text", "sarif", "gitlab", "rdjson", "junit")}
    assert seen == {"text": ["0", "False", "False"], "sarif": ["0", "False", "False"], "gitlab": ["0", "False", "True"],
                    "rdjson": ["0", "False", "True"], "junit": ["0", "True", "True"]}


def test_findings_silenced_in_source_are_left_out():
    sources = {"run.sh": ["sglang serve --model-path /home/a/m"]}
    quiet = Finding("RED001", "host path '/home/a/m'", Span("run.sh", 1, 28, 1, 37), level="error", suppressed="a test box")
    loud = Finding("PRS001", "unknown parser", Span("run.sh", 1, 1, 1, 7), level="error")
    assert [i["check_name"] for i in json.loads(ciformats.gitlab([quiet, loud], all_rules(), sources))] == ["PRS001"]
    assert [x["code"]["value"] for x in json.loads(ciformats.rdjson([quiet, loud], sources))["diagnostics"]] == ["PRS001"]
    root = check_junit(ciformats.junit([quiet, loud], 1, "error"))
    assert [c.get("name") for c in root.iter("testcase")] == ["PRS001 1:1"]
    assert json.loads(ciformats.gitlab([quiet], all_rules(), sources)) == []
