"""cfglint's SARIF output, checked by Microsoft's SARIF Multitool (``validate --rule-kind
"Sarif;Gh"``: the SARIF spec rules plus GitHub code scanning's ingestion rules) and by the
SARIF 2.1.0 JSON Schema that ships in the same npm package, with ``jsonschema``.

The Multitool comes from ``npm ci`` (package.json / package-lock.json). Without it these tests
fail under CI and are skipped elsewhere.

The binary is called directly: the package's ``bin.js`` wrapper runs it through a shell, which
splits ``Sarif;Gh`` at the semicolon. The Multitool exits 0 even when it reports errors (and
when it refuses to overwrite its output file), so the tests read its output log.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]

MULTITOOL_DIR = ROOT / "node_modules" / "@microsoft" / "sarif-multitool-linux"
MULTITOOL = MULTITOOL_DIR / "Sarif.Multitool"
SARIF_SCHEMA = MULTITOOL_DIR / "sarif-2.1.0.json"

EXAMPLES = ROOT / "examples" / "submissions"
RED_SUBMISSION = EXAMPLES / "nvidia" / "kimi-k3" / "gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"
AA_SUBMISSION = EXAMPLES / "artificial-analysis" / "kimi-k3" / "b300-sglang-tp8"


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _missing(what: str) -> None:
    msg = f"{what}; run `npm ci` in {ROOT} (see .ci/run)"
    if _in_ci():
        pytest.fail(msg, pytrace=False)
    pytest.skip(msg)


@pytest.fixture(scope="module")
def multitool() -> Path:
    if not MULTITOOL.is_file():
        _missing(f"SARIF Multitool not found at {MULTITOOL}")
    if not os.access(MULTITOOL, os.X_OK):
        # the package's postinstall is only this chmod, and npm 11 skips install scripts
        MULTITOOL.chmod(MULTITOOL.stat().st_mode | 0o100)
    return MULTITOOL


@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.protocols.Validator:
    if not SARIF_SCHEMA.is_file():
        _missing(f"SARIF 2.1.0 JSON Schema not found at {SARIF_SCHEMA}")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def run_cfglint(cfglint: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(cfglint), *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 1), f"cfglint exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def _render(message: dict, rule: dict | None) -> str:
    if "text" in message:
        return message["text"]
    template = ((rule or {}).get("messageStrings") or {}).get(message.get("id"), {}).get("text")
    args = message.get("arguments") or []
    if template is None:
        return f"{message.get('id')} {args}"
    return re.sub(r"\{(\d+)\}", lambda m: str(args[int(m.group(1))]) if int(m.group(1)) < len(args) else m.group(0),
                  template)


def _level(result: dict, rule: dict | None) -> str:
    """Effective level (SARIF 2.1.0 3.27.10): explicit, else the rule's default, else warning."""
    if "level" in result:
        return result["level"]
    if result.get("kind", "fail") != "fail":
        return "none"
    return ((rule or {}).get("defaultConfiguration") or {}).get("level", "warning")


def multitool_validate(multitool: Path, sarif: Path, workdir: Path) -> list[tuple[str, str, str]]:
    """Run ``Sarif.Multitool validate --rule-kind "Sarif;Gh"``; return (level, rule, message) of
    every result and every tool notification in its output log."""
    out = workdir / f"validation-{sarif.stem}.sarif"
    assert not out.exists()
    env = dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1")
    proc = subprocess.run([str(multitool), "validate", "--rule-kind", "Sarif;Gh", str(sarif), "-o", str(out)],
                          cwd=workdir, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0 and out.is_file(), (
        f"Sarif.Multitool validate exited {proc.returncode} without a log\n{proc.stdout}\n{proc.stderr}")
    log = json.loads(out.read_text(encoding="utf-8-sig"))
    found = []
    for run in log.get("runs", []):
        rules = run.get("tool", {}).get("driver", {}).get("rules", [])
        by_id = {r.get("id"): r for r in rules}
        for res in run.get("results", []):
            idx = res.get("ruleIndex")
            rule = rules[idx] if isinstance(idx, int) and 0 <= idx < len(rules) else by_id.get(res.get("ruleId"))
            found.append((_level(res, rule), res.get("ruleId", "?"), _render(res.get("message", {}), rule)))
        for inv in run.get("invocations", []):
            assert inv.get("executionSuccessful", False), f"Sarif.Multitool run failed: {json.dumps(inv, indent=2)}"
            for key in ("toolExecutionNotifications", "toolConfigurationNotifications"):
                for note in inv.get(key, []):
                    desc = note.get("descriptor", {}).get("id", key)
                    found.append((note.get("level", "warning"), desc, _render(note.get("message", {}), None)))
    return found


def assert_sarif_clean(multitool: Path, validator, sarif: Path, workdir: Path) -> dict:
    log = json.loads(sarif.read_text(encoding="utf-8"))
    schema_errors = [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
                     for e in validator.iter_errors(log)]
    assert not schema_errors, "SARIF 2.1.0 schema violations:\n" + "\n".join(schema_errors)
    found = multitool_validate(multitool, sarif, workdir)
    listing = "\n".join(f"  {lvl:8} {rid:10} {msg}" for lvl, rid, msg in found) or "  (none)"
    bad = [f for f in found if f[0] in ("error", "warning")]
    assert not bad, f"Sarif.Multitool validate --rule-kind Sarif;Gh on {sarif.name} reported:\n{listing}"
    return log


def _results(log: dict) -> list[dict]:
    (run,) = log["runs"]
    return run["results"]


def test_bundled_examples_sarif_is_valid(cfglint_exe, multitool, sarif_validator, tmp_path):
    out = tmp_path / "out.sarif"
    run_cfglint(cfglint_exe, ["check", "examples/submissions", "--format", "sarif", "-o", str(out)], cwd=ROOT)
    log = assert_sarif_clean(multitool, sarif_validator, out, tmp_path)
    assert log["version"] == "2.1.0"
    json_out = run_cfglint(cfglint_exe, ["check", "examples/submissions", "--format", "json"], cwd=ROOT)
    findings = json.loads(json_out.stdout)["findings"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in _results(log)] == \
        [(f["rule"], f["line"]) for f in findings]


def _submissions_with_findings(root: Path) -> Path:
    """A submissions tree whose SARIF has results: RED001 (as published) and TOP001 + PRS001
    (a mutated copy of a clean submission)."""
    subs = root / "submissions"
    shutil.copytree(RED_SUBMISSION, subs / "nvidia" / "kimi-k3" / RED_SUBMISSION.name)
    mutated = subs / "artificial-analysis" / "kimi-k3" / "b300-sglang-tp8-mutated"
    shutil.copytree(AA_SUBMISSION, mutated)
    run_sh = mutated / "run.sh"
    text = run_sh.read_text(encoding="utf-8")
    for old, new in (("--tp-size 8", "--tp-size 4"), ("--reasoning-parser kimi_k3", "--reasoning-parser kimi-k3")):
        assert old in text, f"{run_sh}: {old!r} not found; update this test's mutation"
        text = text.replace(old, new)
    run_sh.write_text(text, encoding="utf-8")
    return subs


def test_sarif_with_findings_is_valid(cfglint_exe, multitool, sarif_validator, tmp_path):
    _submissions_with_findings(tmp_path)
    out = tmp_path / "out.sarif"
    proc = run_cfglint(cfglint_exe, ["check", "submissions", "--format", "sarif", "-o", str(out)], cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    log = assert_sarif_clean(multitool, sarif_validator, out, tmp_path)
    results = _results(log)
    assert {"RED001", "TOP001", "PRS001"} <= {r["ruleId"] for r in results}, json.dumps(results, indent=2)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert (tmp_path / uri).is_file(), uri



def test_validators_do_reject_broken_sarif(cfglint_exe, multitool, sarif_validator, tmp_path):
    """Guard against vacuous passes: both checks must flag a log that GitHub would reject."""
    _submissions_with_findings(tmp_path)
    good = tmp_path / "good.sarif"
    run_cfglint(cfglint_exe, ["check", "submissions", "--format", "sarif", "-o", str(good)], cwd=tmp_path)
    log = json.loads(good.read_text(encoding="utf-8"))
    results = _results(log)
    del results[0]["locations"]
    results[1]["message"] = {"id": "no-such-message"}
    bad = tmp_path / "bad.sarif"
    bad.write_text(json.dumps(log), encoding="utf-8")
    # The Multitool silently reports nothing at all for a log with an out-of-enum level:
    # only the JSON Schema check catches that.
    results[2]["level"] = "fatal"
    assert any(e.validator == "enum" for e in sarif_validator.iter_errors(log))
    found = multitool_validate(multitool, bad, tmp_path)
    rules = {rid for lvl, rid, _ in found if lvl == "error"}
    assert {"GH1015", "SARIF1012"} <= rules, found


# Paths that are not plain relative URI references: a file outside the working directory
# (written as a file:// URI) and names that need percent-encoding.

def test_sarif_for_files_outside_the_working_directory(cfglint_exe, multitool, sarif_validator, tmp_path):
    subs = _submissions_with_findings(tmp_path / "tree")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out.sarif"
    run_cfglint(cfglint_exe, ["check", str(subs), "--format", "sarif", "-o", str(out)], cwd=elsewhere)
    assert _results(assert_sarif_clean(multitool, sarif_validator, out, tmp_path))


def test_sarif_for_paths_that_need_percent_encoding(cfglint_exe, multitool, sarif_validator, tmp_path):
    shutil.copytree(RED_SUBMISSION, tmp_path / "sub mission#1" / "50%" / "kimi-k3 é")
    out = tmp_path / "out.sarif"
    run_cfglint(cfglint_exe, ["check", ".", "--format", "sarif", "-o", str(out)], cwd=tmp_path)
    assert _results(assert_sarif_clean(multitool, sarif_validator, out, tmp_path))


def test_sarif_with_a_finding_of_every_rule_is_valid(cfglint_exe, multitool, sarif_validator, tmp_path):
    """One failing example per rule (rules/examples.yaml), suppressed results included."""
    import yaml

    examples = yaml.safe_load((ROOT / "rules" / "examples.yaml").read_text(encoding="utf-8"))
    for rule_id, ex in examples.items():
        d = tmp_path / "submissions" / rule_id.lower()
        shutil.copytree(ROOT / "examples" / "submissions" / ex["base"], d)
        for step in (ex.get("setup") or []) + [ex["change"]]:
            path = d / step["file"]
            if "rename" in step:  # SUB004: the manifest renamed away
                path.rename(d / step["rename"])
                continue
            if "create" in step:  # CFG001: a configuration file below the root directory
                path.write_text(step["create"], encoding="utf-8")
                continue
            path.write_text(path.read_text(encoding="utf-8").replace(step["before"], step["after"], 1), encoding="utf-8")
    (tmp_path / ".cfglint.yaml").write_text("require-reason: true\n")
    out = tmp_path / "out.sarif"
    proc = run_cfglint(cfglint_exe, ["check", "submissions", "--format", "sarif", "-o", str(out)], cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    log = assert_sarif_clean(multitool, sarif_validator, out, tmp_path)
    results = _results(log)
    assert {r["ruleId"] for r in results} >= set(examples), sorted(set(examples) - {r["ruleId"] for r in results})
    assert any(r.get("suppressions") for r in results)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    red = next(r for r in rules if r["id"] == "RED001")
    assert red["properties"]["security-severity"] and red["helpUri"].endswith("docs/rules/RED001.md")


def test_json_output_matches_its_schema(cfglint_exe, tmp_path):
    import jsonschema

    schema = json.loads((ROOT / "schemas" / "cfglint-output.schema.json").read_text(encoding="utf-8"))
    out = run_cfglint(cfglint_exe, ["check", "examples/submissions", "--format", "json"], cwd=ROOT)
    data = json.loads(out.stdout)
    jsonschema.validate(data, schema)
    assert data["exit_code"] == out.returncode == 1
    assert len([f for f in data["findings"] if f["level"] == "error"]) == 6  # the golden errors; notes and warnings aside


def test_every_rule_id_and_a_kubernetes_finding_match_the_json_schema(tmp_path):
    # the pattern refused K8S001-K8S004 (a digit in the family): a K8S finding's JSON failed its schema
    from cfglint.checks import all_rules
    from cfglint.lint import lint_paths
    from cfglint.output import report

    schema = json.loads((ROOT / "schemas" / "cfglint-output.schema.json").read_text(encoding="utf-8"))
    pattern = schema["properties"]["findings"]["items"]["properties"]["rule"]["pattern"]
    assert [r for r in all_rules() if not re.fullmatch(pattern, r)] == []
    k8s = ROOT / "examples" / "submissions" / "catalog" / "deepseek-v4-flash" / "rtx6000d-sglang-lws-tp8-pp2"
    sub = tmp_path / "lws"
    shutil.copytree(k8s, sub)
    (lws,) = [p for p in sub.glob("*.yaml") if "nvidia.com/gpu" in p.read_text(encoding="utf-8")]
    text = lws.read_text(encoding="utf-8")
    lws.write_text(text.replace("nvidia.com/gpu: 8", "nvidia.com/gpu: 4", 1), encoding="utf-8")
    found = lint_paths([str(sub)]).findings
    assert any(f.rule_id == "K8S001" for f in found)
    jsonschema.validate(json.loads(report.as_json(found, 1)), schema)


def test_sarif_with_every_kind_of_fix_is_valid(cfglint_exe, multitool, sarif_validator, tmp_path):
    """Fixes as SARIF replacements (fix_of's edits): a span replaced (RED001, safe), a runner
    replaced (HW001, unsafe) and a TensorRT-LLM key moved (SCH001: whole lines replaced and
    inserted), each with properties.safe."""
    subs = tmp_path / "submissions"
    shutil.copytree(RED_SUBMISSION, subs / "red")
    hw = subs / "hw"
    shutil.copytree(EXAMPLES / "artificial-analysis" / "deepseek-v4-pro" / "h200-sglang-tp8-eagle", hw)
    for name, old, new in (("submission.yaml", "accelerator: H200", "accelerator: RTX-6000D"),
                           ("run.sh", "--moe-runner-backend marlin", "--moe-runner-backend flashinfer_cutlass")):
        text = (hw / name).read_text(encoding="utf-8")
        assert text.count(old) == 1
        (hw / name).write_text(text.replace(old, new), encoding="utf-8")
    move = subs / "move"
    shutil.copytree(EXAMPLES / "nvidia" / "deepseek-v4-pro" / "gb300-dynamo-trtllm-6p1d", move)
    cfg = move / "ctx_config.yaml"
    text = cfg.read_text(encoding="utf-8")
    old = "kv_cache_config:\n  enable_block_reuse: true\n  free_gpu_memory_fraction: 0.6\n  dtype: fp8\n"
    assert text.count(old) == 1
    cfg.write_text(text.replace(old, "kv_cache_dtype: fp8\nkv_cache_config:\n  enable_block_reuse: true\n"
                                     "  free_gpu_memory_fraction: 0.6\n"), encoding="utf-8")
    out = tmp_path / "out.sarif"
    run_cfglint(cfglint_exe, ["check", "submissions", "--format", "sarif", "-o", str(out)], cwd=tmp_path)
    log = assert_sarif_clean(multitool, sarif_validator, out, tmp_path)
    fixes = {r["ruleId"]: r["fixes"][0] for r in _results(log) if r.get("fixes")}
    assert {k: v["properties"]["safe"] for k, v in fixes.items()} == {"RED001": True, "HW001": False, "SCH001": False}
    moved = fixes["SCH001"]["artifactChanges"][0]["replacements"]
    assert [r["insertedContent"]["text"] for r in moved] == ["", "  dtype: fp8\n"]


def test_issue25_a_capped_run_keeps_credentials_and_errors_and_says_what_it_left_out(
        multitool, sarif_validator, tmp_path, monkeypatch):
    """Issue 25, item 3: the first 25,000 results in path order were kept, so many findings in
    one file (a.sh, its host paths) pushed a later file's leaked token (b.sh, RED002) out of the
    code-scanning upload. A capped run keeps credentials, then errors, then warnings and notes;
    the run says what it left out (a notification, run properties, the summary). The limit is
    made 40 here (25,000 findings take half a minute to lint)."""
    from click.testing import CliRunner

    from cfglint.cli import main
    from cfglint.output import report

    monkeypatch.setattr(report, "MAX_RESULTS", 40)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.sh").write_text("".join(f"# see /home/u{i}/x\n" for i in range(60))
                                   + "sglang serve --model-path m --tp-size 8 --unknown-a 1 --unknown-b 2\n")
    (tmp_path / "b.sh").write_text("export HF_TOKEN=hf_Qm7Zt2Lx9Wv4Rk8Bn3Jp6Yc1Hd5Gs0Fa\n")
    every = json.loads(CliRunner().invoke(main, ["check", ".", "-f", "json"]).stdout)["findings"]
    levels = {level: sum(1 for f in every if f["level"] == level) for level in ("error", "warning", "note")}
    assert len(every) > 60 and levels["warning"] and levels["note"] and every[-1]["path"] == "b.sh"
    res = CliRunner().invoke(main, ["check", ".", "-f", "sarif", "-o", "r.sarif"])
    assert res.exit_code == 1, res.output
    log = assert_sarif_clean(multitool, sarif_validator, tmp_path / "r.sarif", tmp_path)
    results = _results(log)
    kept = [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results]
    assert len(kept) == 40 and ("RED002", "b.sh") in kept
    assert {r["level"] for r in results} == {"error"}   # 39 of a.sh's errors, before any warning or note
    run = log["runs"][0]
    left = {"error": levels["error"] - 40, "warning": levels["warning"], "note": levels["note"]}
    assert run["properties"] == {"resultsLeftOut": len(every) - 40, "resultsLeftOutByLevel": left}
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    said = (f"the SARIF report left out {len(every) - 40} results past GitHub's limit of 40 per run: "
            f"{left['error']} error(s), {left['warning']} warning(s), {left['note']} note(s); "
            "credentials and errors were kept first (another format shows every finding)")
    assert note["message"]["text"] == said and said in res.output   # and in the summary line
    # results stay in path order
    assert kept == sorted(kept, key=lambda k: k[1])
