"""Configuration files (.cfglint.yaml, pyproject.toml [tool.cfglint]): every key, CLI overrides,
and errors with positions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import copy_submission

R1 = "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1"
CFGLINT = str(Path(sys.executable).parent / "cfglint")


def run(cwd, *args):
    proc = subprocess.run([CFGLINT, "check", "s", "-f", "json", *args], cwd=cwd, capture_output=True, text=True)
    findings = json.loads(proc.stdout)["findings"] if proc.stdout.strip() else []
    return proc.returncode, [(f["rule"], f["level"], Path(f["path"]).name) for f in findings], proc.stderr


@pytest.fixture
def project(tmp_path):
    d = copy_submission(R1, tmp_path)
    d.rename(tmp_path / "s")
    return tmp_path


def test_no_config(project):
    code, found, _ = run(project)
    assert code == 1 and [f[0] for f in found] == ["RED001", "RED001"]


@pytest.mark.parametrize("text,code,expected", [
    ("ignore: [RED]\n", 0, []),
    ("select: [TOP, SPEC]\n", 0, []),
    ("select: [RED001]\n", 1, [("RED001", "error", "decode.args"), ("RED001", "error", "prefill.args")]),
    ("per-file-ignores: {'*/decode.args': [RED001]}\n", 1, [("RED001", "error", "prefill.args")]),
    ("levels: {RED: warning}\n", 0, [("RED001", "warning", "decode.args"), ("RED001", "warning", "prefill.args")]),
    ("levels: {RED: warning}\nfail-level: warning\n", 1, [("RED001", "warning", "decode.args"), ("RED001", "warning", "prefill.args")]),
])
def test_yaml_config_keys(project, text, code, expected):
    (project / ".cfglint.yaml").write_text(text)
    got_code, found, _ = run(project)
    assert (got_code, found) == (code, expected)


def test_require_reason_and_knowledge_keys(project):
    text = (project / "s" / "decode.args").read_text()
    (project / "s" / "decode.args").write_text(text.replace(
        "--speculative-draft-model-path", "# cfglint: disable=RED001\n--speculative-draft-model-path", 1))
    (project / "lab.yaml").write_text("paths:\n  host_prefixes:\n    - {prefix: /opt/site/, why: site install}\n")
    (project / "s" / "prefill.args").write_text((project / "s" / "prefill.args").read_text() + "# /opt/site/x\n")
    (project / ".cfglint.yaml").write_text("require-reason: true\nknowledge: [lab.yaml]\n")
    _, found, _ = run(project)
    assert ("SUP002", "error", "decode.args") in found
    assert [f for f in found if f[0] == "RED001" and f[2] == "prefill.args"] == [("RED001", "error", "prefill.args")] * 2


def test_pyproject_section_and_cli_overrides(project):
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.cfglint]\nignore = ["RED"]\n')
    assert run(project)[:2] == (0, [])
    code, found, _ = run(project, "--select", "RED001", "--no-config")
    assert code == 1 and len(found) == 2
    (project / ".cfglint.yaml").write_text("levels: {RED001: note}\n")  # nearer than pyproject in the same dir
    code, found, _ = run(project)
    assert code == 0 and {f[1] for f in found} == {"note"}


@pytest.mark.parametrize("name,text,where", [
    (".cfglint.yaml", "select: [RED]\nfail_level: error\n", ".cfglint.yaml:2:1: unknown key 'fail_level'"),
    (".cfglint.yaml", "levels: {RED001: fatal}\n", ".cfglint.yaml:1:18: 'levels' maps a rule id"),   # at the value
    ("pyproject.toml", "[tool.cfglint]\nselect = [\"RED\"]\n  ignores = [\"TOP\"]\n", "pyproject.toml:3:3: unknown key 'ignores'"),
])
def test_config_errors_have_positions_and_exit_2(project, name, text, where):
    (project / name).write_text(text)
    code, _, err = run(project)
    assert code == 2 and where in err


def test_paths_are_relative_to_the_config_and_baseline_not_the_working_directory(project):
    # project is a git working tree: its top is the root directory (and .cfglint.yaml the root
    # configuration) wherever cfglint runs; outside any working tree, a configuration below the
    # directory cfglint runs in would be a nested one (tests/test_threat_config.py)
    (project / ".git").mkdir()
    (project / ".cfglint.yaml").write_text("per-file-ignores: {'s/decode.args': [RED001]}\n")
    inside = run(project)[1]
    outside = subprocess.run([CFGLINT, "check", str(project / "s"), "-f", "json"], cwd=project.parent,
                             capture_output=True, text=True)
    assert [f[2] for f in inside] == ["prefill.args"]
    assert [Path(f["path"]).name for f in json.loads(outside.stdout)["findings"]] == ["prefill.args"]
    (project / ".cfglint.yaml").unlink()
    (project / "b").mkdir()
    subprocess.run([CFGLINT, "check", "s", "--write-baseline", "b/base.json"], cwd=project, check=True, capture_output=True)
    again = subprocess.run([CFGLINT, "check", "../s", "--baseline", "base.json"], cwd=project / "b")
    assert again.returncode == 0


@pytest.mark.parametrize("value", ["[FOO]", "['']", "[RED01]"])
def test_unknown_rule_selectors_are_errors(project, value):
    (project / ".cfglint.yaml").write_text(f"select: {value}\n")
    code, _, err = run(project)
    assert code == 2 and "unknown rule selector" in err


def test_knowledge_file_of_the_wrong_shape_is_an_error(project):
    (project / "k.yaml").write_text("models:\n  - foo\n")
    code, _, err = run(project, "--knowledge", "k.yaml")
    assert code == 2 and "models must be a list" in err


@pytest.mark.parametrize("args,code,count", [
    (("--select", "RED001", "--select", "TOP"), 1, 2),        # the last value alone (TOP) would report nothing
    (("--select", "TOP", "--select", "RED001"), 1, 2),
    (("--select", "TOP,RED001"), 1, 2),                       # a comma list still works
    (("--select", "TOP", "--select", "SPEC,FLG"), 0, 0),
    (("--ignore", "RED001", "--ignore", "TOP"), 0, 0),        # the last value alone would keep RED001
    (("--ignore", "TOP", "--ignore", "SPEC,RED"), 0, 0),
    (("--ignore", "TOP", "--ignore", "SPEC"), 1, 2),
])
def test_repeated_select_and_ignore_accumulate(project, args, code, count):
    got_code, found, err = run(project, *args)
    assert (got_code, len(found)) == (code, count), err
    assert all(f[0] == "RED001" for f in found)


def test_repeated_options_act_with_the_configuration(project):
    (project / ".cfglint.yaml").write_text("select: [TOP]\nignore: [SPEC]\n")
    assert run(project)[:2] == (0, [])                                   # the configuration alone
    assert len(run(project, "--select", "SPEC", "--select", "RED001")[1]) == 2   # --select replaces select
    assert run(project, "--select", "RED", "--ignore", "FLG", "--ignore", "RED001")[:2] == (0, [])  # ignores add up
    (project / ".cfglint.yaml").write_text("ignore: [RED001]\n")
    assert run(project, "--ignore", "TOP", "--ignore", "SPEC")[:2] == (0, [])   # the configuration's ignore is kept


@pytest.mark.parametrize("args,shown", [
    (("--select", ""), "--select ''"),
    (("--select", "RED001", "--select", ""), "--select ''"),
    (("--ignore", "RED,,TOP"), "--ignore 'RED,,TOP'"),
    (("--select", " , "), "--select ' , '"),
])
def test_empty_selectors_are_usage_errors(project, args, shown):
    code, found, err = run(project, *args)
    assert code == 2 and found == []
    assert err.count("\n") == 1 and err.startswith(f"cfglint: error: {shown}: empty rule selector")


@pytest.mark.parametrize("text,where", [
    ("select: [RED, TPO]\n", ".cfglint.yaml:1:15: unknown rule selector 'TPO'; did you mean TOP?"),
    ("ignore:\n  - RED\n  - SPECC001\n", ".cfglint.yaml:3:5: unknown rule selector 'SPECC001'; did you mean SPEC001?"),
    ("levels:\n  RED001: warning\n  TOP01: error\n", ".cfglint.yaml:3:3: unknown rule selector 'TOP01'; did you mean TOP001?"),
    ("per-file-ignores:\n  '*.args': [RED001, SPECC]\n", ".cfglint.yaml:2:22: unknown rule selector 'SPECC'; did you mean SPEC?"),
    ("selct: [RED]\n", ".cfglint.yaml:1:1: unknown key 'selct'; did you mean 'select'? (known keys: select, "),
    ("levels:\n  RED001: warn\n", ".cfglint.yaml:2:11: 'levels' maps a rule id to one of note, warning, error"),
    ("fail-level: fatal\n", ".cfglint.yaml:1:13: 'fail-level' must be one of note, warning, error"),
])
def test_config_errors_are_placed_at_the_value_with_the_closest_name(project, text, where):
    (project / ".git").mkdir()   # the configuration at the top of the working tree, found from anywhere in it
    (project / ".cfglint.yaml").write_text(text)
    code, _, err = run(project)
    assert code == 2 and f"cfglint: error: {where}" in err, err
    # the path is shown as findings show paths: relative to the working directory when inside it (above:
    # found as an absolute path at the top of the working tree), else absolute
    proc = subprocess.run([CFGLINT, "check", "."], cwd=project / "s", capture_output=True, text=True)
    assert proc.returncode == 2 and f"cfglint: error: {project}/{where}" in proc.stderr


def test_every_problem_of_a_configuration_is_reported_at_once(project):
    (project / ".cfglint.yaml").write_text("select: [RED, TPO]\nselct: [x]\nfail-level: fatal\n")
    code, _, err = run(project)
    assert code == 2 and err.splitlines() == [
        "cfglint: error: .cfglint.yaml:1:15: unknown rule selector 'TPO'; did you mean TOP?",
        "cfglint: error: .cfglint.yaml:2:1: unknown key 'selct'; did you mean 'select'? (known keys: select, ignore, "
        "per-file-ignores, levels, fail-level, knowledge, require-reason, max-file-size, private-ranges, allow-nested, "
        "jobs)",
        "cfglint: error: .cfglint.yaml:3:13: 'fail-level' must be one of note, warning, error"]


def test_command_line_selectors_name_the_closest_family(project):
    code, _, err = run(project, "--ignore", "TPO", "--no-config")
    assert code == 2 and "--ignore: unknown rule selector 'TPO'; did you mean TOP?" in err
