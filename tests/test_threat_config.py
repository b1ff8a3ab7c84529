"""Issue 10, kind 1 (configuration trust): the repository's root configuration is the authority.

A contributor's own configuration below the root directory (``submissions/x/.cfglint.yaml`` or a
``pyproject.toml`` with ``[tool.cfglint]``) may set only what the root's ``allow-nested`` lists,
acts only on files under its directory, never drops or lowers RED002 / CFG001, and whatever it
tries beyond that is ignored with a CFG001 finding at its position.

Built from the published submission artificial-analysis/kimi-k3/b300-sglang-tp8, changed in one
place per finding (a literal ``--api-key`` for RED002, TP 4 against the declared 8 for TOP002).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from click.testing import CliRunner
from hypothesis import strategies as st

from cfglint.cli import main
from cfglint.lint import lint_paths
from cfglint.policy.config import KEYS, NESTABLE, Config, load_config, nested_configs
from cfglint.read.paths import display_path

from support import copy_submission, examples, position, replace_once

CFGLINT = str(Path(sys.executable).parent / "cfglint")
BASE = "artificial-analysis/kimi-k3/b300-sglang-tp8"
SECRET = "s3cr3tvalue9"   # not a real credential; a literal --api-key value (RED002)
RUN = "submissions/x/run.sh"


def _submission(repo: Path, name: str, secret: bool = True, tp: str = "8") -> Path:
    """examples/submissions/<BASE> copied to repo/submissions/<name>, with a literal --api-key
    (RED002) when ``secret`` and the launch's TP set to ``tp`` (TOP002 when not 8)."""
    d = copy_submission(BASE, repo / "tmp-copy" / name)
    target = repo / "submissions" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    d.rename(target)
    new = f"--tp-size {tp}" + (f" --api-key {SECRET}" if secret else "")
    replace_once(target / "run.sh", "--tp-size 8", new)
    return target


@pytest.fixture
def repo(tmp_path) -> Path:
    """A git working tree (a real ``git init``) holding submissions/x."""
    r = tmp_path / "repo"
    r.mkdir()
    subprocess.run(["git", "init", "-q", str(r)], check=True, capture_output=True)
    _submission(r, "x")
    return r


def run(cwd: Path, *args: str) -> tuple[int, list[tuple], str]:
    """``cfglint check ARGS -f json`` run in ``cwd`` (in-process, as the console script runs it):
    exit code, (rule, level, path, line, col, message) per finding, and the raw output (to
    assert that no secret is in it)."""
    old = os.getcwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, ["check", "-f", "json", *args], catch_exceptions=False)
    finally:
        os.chdir(old)
    assert res.exit_code in (0, 1), res.output
    found = [(f["rule"], f["level"], f["path"], f["line"], f["column"], f["message"])
             for f in json.loads(res.stdout)["findings"]]
    return res.exit_code, found, res.output


def _red002(repo: Path) -> tuple:
    line, col = position((repo / RUN).read_text(), SECRET)
    return ("RED002", "error", RUN, line, col)


# --- the issue's example -------------------------------------------------------------------------

@pytest.mark.parametrize("invocation", [
    ("submissions/x/run.sh", "submissions/x/.cfglint.yaml"),   # pre-commit: the changed files, by name
    ("submissions/x/run.sh",),
    ("submissions",),                                          # a CI step over the whole tree
])
def test_issue10_kind1_nested_select_sup002_does_not_silence_red002(repo, invocation):
    """Issue 10, kind 1: `select: [SUP002]` in submissions/x/.cfglint.yaml gave 0 findings, exit 0."""
    (repo / "submissions/x/.cfglint.yaml").write_text("select: [SUP002]\n")
    code, found, out = run(repo, *invocation)
    assert code == 1
    assert _red002(repo) in [f[:5] for f in found]
    cfg = [f for f in found if f[0] == "CFG001"]
    assert [f[1:5] for f in cfg] == [("error", "submissions/x/.cfglint.yaml", 1, 1)]
    assert "'select'" in cfg[0][5] and "ignored" in cfg[0][5] and "no root configuration" in cfg[0][5]
    assert SECRET not in out


def test_issue10_kind1_precommit_hook_command_end_to_end(repo):
    """Issue 10, kind 1, as the pre-commit hook runs it: its entry (`cfglint check`) and the staged
    file names, in the repository's top directory, through the installed console script."""
    (repo / "submissions/x/.cfglint.yaml").write_text("select: [SUP002]\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, capture_output=True)
    names = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=repo, check=True,
                           capture_output=True, text=True).stdout.split()
    assert "submissions/x/.cfglint.yaml" in names and RUN in names
    proc = subprocess.run([CFGLINT, "check", *names], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    line, col = _red002(repo)[3:5]
    assert f"{RUN}:{line}:{col}: RED002 [error]" in proc.stdout
    assert "submissions/x/.cfglint.yaml:1:1: CFG001 [error] 'select'" in proc.stdout
    assert SECRET not in proc.stdout + proc.stderr


def test_issue10_kind1_run_from_inside_the_contributors_directory(repo):
    """`cd submissions/x && cfglint check .`: the root is still the top of the working tree."""
    (repo / "submissions/x/.cfglint.yaml").write_text("select: [SUP002]\n")
    code, found, _ = run(repo / "submissions" / "x", ".")
    assert code == 1
    assert {(f[0], f[2]) for f in found if f[0] in ("RED002", "CFG001")} == {("RED002", "run.sh"), ("CFG001", ".cfglint.yaml")}


def test_issue10_kind1_nested_pyproject_section(repo):
    """The same through a contributor's pyproject.toml [tool.cfglint]: CFG001 at the key's line."""
    (repo / "submissions/x/pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.cfglint]\nselect = ["SUP002"]\n')
    code, found, _ = run(repo, "submissions/x/run.sh")
    assert code == 1 and _red002(repo) in [f[:5] for f in found]
    assert [f[:5] for f in found if f[0] == "CFG001"] == [("CFG001", "error", "submissions/x/pyproject.toml", 5, 1)]


def test_control_without_a_nested_configuration(repo):
    code, found, _ = run(repo, "submissions/x/run.sh")
    assert code == 1 and [f[:5] for f in found] == [_red002(repo)]


# --- what the root allows ------------------------------------------------------------------------

def test_root_allows_nested_per_file_ignores_and_they_are_honoured(repo):
    _submission(repo, "y", secret=False, tp="4")
    replace_once(repo / RUN, f" --api-key {SECRET}", "")
    replace_once(repo / RUN, "--tp-size 8", "--tp-size 4")   # TOP001 and TOP002, as in submissions/y
    # MEM001 too: Kimi K3's weights do not fit the 4 GPUs of TP 4
    nested = "per-file-ignores:\n  run.sh: [TOP001, MEM001]\n  '*': [TOP002]\n"   # '*' would match ../y/run.sh too
    (repo / "submissions/x/.cfglint.yaml").write_text(nested)

    def top(found):
        return [(f[0], f[2]) for f in found if f[0].startswith("TOP")]

    everywhere = [("TOP001", RUN), ("TOP002", RUN), ("TOP001", "submissions/y/run.sh"), ("TOP002", "submissions/y/run.sh")]
    # not allowed (no root configuration): ignored, with CFG001 at the key
    code, found, _ = run(repo, "submissions")
    assert code == 1 and sorted(top(found)) == sorted(everywhere)
    assert [f[2:5] for f in found if f[0] == "CFG001"] == [("submissions/x/.cfglint.yaml", 1, 1)]
    # a root that does not list it: the same
    (repo / ".cfglint.yaml").write_text("allow-nested: [ignore]\n")
    code, found, _ = run(repo, "submissions")
    assert sorted(top(found)) == sorted(everywhere)
    assert "the root configuration (.cfglint.yaml) allows nested configurations ignore" in \
        [f for f in found if f[0] == "CFG001"][0][5]
    # allowed: honoured for submissions/x only, never for submissions/y, however cfglint is run
    (repo / ".cfglint.yaml").write_text("allow-nested: [per-file-ignores]\n")
    for invocation in (("submissions",), ("submissions/x/run.sh", "submissions/y/run.sh")):
        code, found, _ = run(repo, *invocation)
        assert code == 1 and [f[0] for f in found if f[2].startswith("submissions/x/")] == [], invocation
        assert sorted(top(found)) == sorted(everywhere[2:]), invocation
    code, found, _ = run(repo, "submissions/x/run.sh")
    assert (code, found) == (0, [])


def test_allowed_nested_keys_never_drop_or_lower_red002(repo):
    (repo / ".cfglint.yaml").write_text(f"allow-nested: [{', '.join(NESTABLE)}]\n")
    text = "select: [TOP]\nignore: [TOP, RED]\nper-file-ignores:\n  '*': [RED002]\nlevels: {RED002: note, TOP: note}\n"
    (repo / "submissions/x/.cfglint.yaml").write_text(text)
    code, found, _ = run(repo, "submissions/x/run.sh")
    assert code == 1 and _red002(repo) in [f[:5] for f in found]
    at = [(f[3], f[4]) for f in found if f[0] == "CFG001"]
    assert at == [position(text, "RED]"), position(text, "RED002]"), position(text, "RED002: note")]
    assert all("cannot drop or lower RED002 (leaked-secret)" in f[5] for f in found if f[0] == "CFG001")


@pytest.mark.parametrize("key,value", [
    ("knowledge", "[{k}]"), ("fail-level", "note"), ("require-reason", "true"), ("max-file-size", "1"),
    ("private-ranges", "[]"), ("allow-nested", "[select]"), ("jobs", "1"),
])
def test_run_wide_keys_are_never_taken_from_a_nested_configuration(repo, key, value):
    """Even a root allowing every nestable key: `knowledge` would read any file (here one that is
    not knowledge at all: read, it would stop the run with exit 2), the others change the run."""
    (repo / ".cfglint.yaml").write_text(f"allow-nested: [{', '.join(NESTABLE)}]\n")
    bad = repo.parent / "outside.yaml"
    bad.write_text("models:\n  - not a model\n")
    replace_once(repo / RUN, "--tp-size 8", "--tp-size 8 --host 10.1.2.3")   # RED003 with the default ranges
    (repo / "submissions/x/.cfglint.yaml").write_text(f"{key}: {value.format(k=bad)}\n")
    code, found, _ = run(repo, "submissions/x/run.sh")
    assert code == 1
    assert {f[0] for f in found} == {"RED002", "RED003", "CFG001"}
    assert [f[:5] for f in found if f[0] == "CFG001"] == [("CFG001", "error", "submissions/x/.cfglint.yaml", 1, 1)]


@pytest.mark.parametrize("text,line,col", [
    ("select: [SUP002\n", 2, 1),          # YAML syntax error
    ("- select\n", 1, 1),                 # not a mapping
    ("ignore: [RED]\nignore: [TOP]\n", 2, 1),   # a repeated key
    ("select: [NOPE]\n", 1, 1),           # unknown rule: not allowed anyway
    ("wat: 1\n", 1, 1),                   # unknown key
])
def test_a_broken_nested_configuration_is_a_finding_not_exit_2(repo, text, line, col):
    (repo / "submissions/x/.cfglint.yaml").write_text(text)
    code, found, _ = run(repo, "submissions/x/run.sh")
    assert code == 1 and _red002(repo) in [f[:5] for f in found]
    assert [f[:5] for f in found if f[0] == "CFG001"] == [("CFG001", "error", "submissions/x/.cfglint.yaml", line, col)]
    assert "NOPE" not in str(found) and "wat" not in str(found)   # the contributor's text is not echoed


def test_a_nested_configuration_that_is_a_symlink_is_not_followed(repo):
    outside = repo.parent / "elsewhere.yaml"
    outside.write_text("select: [SUP002]\n")
    os.symlink(outside, repo / "submissions/x/.cfglint.yaml")
    code, found, _ = run(repo, "submissions/x/run.sh")
    assert code == 1 and _red002(repo) in [f[:5] for f in found]
    cfg = [f for f in found if f[0] == "CFG001"]
    assert [f[2:5] for f in cfg] == [("submissions/x/.cfglint.yaml", 1, 1)] and "symbolic link" in cfg[0][5]


def test_root_configuration_may_silence_what_it_wants_and_no_config_reads_none(repo):
    (repo / ".cfglint.yaml").write_text("ignore: [RED002]\n")
    assert run(repo, "submissions/x/run.sh")[:2] == (0, [])
    (repo / "submissions/x/.cfglint.yaml").write_text("select: [SUP002]\n")
    code, found, _ = run(repo, "submissions/x/run.sh", "--no-config")
    assert code == 1 and [f[:5] for f in found] == [_red002(repo)]
    # --config names the root configuration; a file below the root directory is still nested
    code, found, _ = run(repo, "submissions/x/run.sh", "--config", ".cfglint.yaml")
    assert code == 1 and [f[0] for f in found] == ["CFG001"]


def test_root_directory_outside_git_is_the_working_directory(tmp_path):
    """No git working tree: the directory cfglint runs in is the root directory."""
    _submission(tmp_path, "x")
    (tmp_path / "submissions/x/.cfglint.yaml").write_text("select: [SUP002]\n")
    code, found, _ = run(tmp_path, "submissions/x/run.sh")
    assert code == 1 and {f[0] for f in found} == {"RED002", "CFG001"}


def test_a_path_outside_the_working_tree_does_not_unseat_the_root_configuration(repo, tmp_path):
    """cfglint run at the top of the repository on one of its files and one file elsewhere: the
    repository's configuration stays the root; the configuration next to the other file is nested."""
    (repo / ".cfglint.yaml").write_text("ignore: [RED003]\n")
    other = _submission(tmp_path / "elsewhere", "z", secret=False)
    replace_once(other / "run.sh", "--tp-size 8", "--tp-size 8 --host 10.1.2.3")
    (other / ".cfglint.yaml").write_text("select: [SUP002]\n")
    code, found, _ = run(repo, "submissions/x/run.sh", str(other / "run.sh"))
    assert code == 1
    assert sorted((f[0], Path(f[2]).name) for f in found) == [("CFG001", ".cfglint.yaml"), ("RED002", "run.sh")]


def test_an_oversized_nested_pyproject_is_not_parsed(repo):
    (repo / "submissions/x/pyproject.toml").write_text('[tool.cfglint]\nselect = ["SUP002"]\n' + "#" * (1 << 20) + "\n")
    code, found, _ = run(repo, "submissions/x/run.sh")
    assert code == 1 and _red002(repo) in [f[:5] for f in found]
    cfg = [f for f in found if f[0] == "CFG001"]
    assert [f[2:5] for f in cfg] == [("submissions/x/pyproject.toml", 1, 1)] and "not read" in cfg[0][5]


def test_what_a_nested_configuration_costs_is_bounded(repo):
    """Many unknown keys: 20 findings and a count, not one each; more than 100 globs in an allowed
    per-file-ignores: the key is refused (each glob is matched against every finding's path)."""
    from cfglint.policy.config import NESTED_MAX_ENTRIES, NESTED_MAX_FINDINGS

    (repo / "submissions/x/.cfglint.yaml").write_text("".join(f"k{i}: 1\n" for i in range(2000)))
    code, found, _ = run(repo, "submissions/x/run.sh")
    cfg = [f for f in found if f[0] == "CFG001"]
    assert code == 1 and len(cfg) == NESTED_MAX_FINDINGS + 1
    assert any(f"{2000 - NESTED_MAX_FINDINGS} more problem(s)" in f[5] for f in cfg)
    (repo / ".cfglint.yaml").write_text("allow-nested: [per-file-ignores]\n")
    globs = "".join(f"  'g{i}*': [TOP]\n" for i in range(NESTED_MAX_ENTRIES)) + "  'run.sh': [TOP]\n"
    replace_once(repo / RUN, "--tp-size 8", "--tp-size 4")
    (repo / "submissions/x/.cfglint.yaml").write_text("per-file-ignores:\n" + globs)
    code, found, _ = run(repo, "submissions/x/run.sh")
    assert {"TOP001", "TOP002"} <= {f[0] for f in found}
    assert [f[2:5] for f in found if f[0] == "CFG001"] == [("submissions/x/.cfglint.yaml", 1, 1)]


def test_allow_nested_in_the_root_is_validated(repo):
    (repo / ".cfglint.yaml").write_text("allow-nested: [knowledge]\n")
    old = os.getcwd()
    os.chdir(repo)
    try:
        res = CliRunner().invoke(main, ["check", "submissions"])
    finally:
        os.chdir(old)
    assert res.exit_code == 2 and ".cfglint.yaml:1:1: 'allow-nested'" in res.output
    (repo / "ok.yaml").write_text("allow-nested: [per-file-ignores, levels]\n")
    assert load_config(str(repo / "ok.yaml")).allow_nested == ("per-file-ignores", "levels")


# --- property ------------------------------------------------------------------------------------

SELECTORS = ["RED", "RED002", "RED001", "RED003", "R", "TOP", "TOP002", "SUP002", "CFG", "CFG001", "COV001",
             "IO001", "SUB", "", "NOPE", "red002"]
_selector = st.sampled_from(SELECTORS) | st.text(max_size=6)
_level = st.sampled_from(["note", "warning", "error", "fatal"])
_value = st.one_of(
    st.lists(_selector, max_size=4),
    st.dictionaries(st.sampled_from(["*", "run.sh", "../*", "**", "../../submissions/y/*"]) | st.text(max_size=5),
                    st.lists(_selector, max_size=3), max_size=3),
    st.dictionaries(_selector, _level, max_size=3),
    _level, st.booleans(), st.integers(-2, 2 ** 40), st.none(), st.text(max_size=8),
)
_content = st.one_of(
    st.dictionaries(st.sampled_from(list(KEYS) + ["bogus", "Select"]), _value, max_size=5)
      .map(lambda d: yaml.safe_dump(d, default_flow_style=None)),
    st.text(max_size=60),
)
EXAMPLES = examples(25, 100)


@pytest.fixture(scope="module")
def two_submissions(tmp_path_factory):
    """A working tree with submissions x (RED002, TOP002, RED003) and y (TOP002), and its findings
    with the root configuration alone (allowing nothing; allowing every nestable key): what every
    nested configuration is measured against."""
    repo = tmp_path_factory.mktemp("prop") / "repo"
    (repo / ".git").mkdir(parents=True)
    _submission(repo, "x", tp="4")
    replace_once(repo / RUN, "--tp-size 4", "--tp-size 4 --host 10.1.2.3")
    _submission(repo, "y", secret=False, tp="4")
    nothing, everything = _lint(repo, Config()), _lint(repo, Config(allow_nested=NESTABLE))
    assert nothing == everything and {"RED002", "RED003", "TOP002"} <= {f[0] for f in nothing}
    return repo, nothing


def _lint(repo: Path, root: Config) -> set[tuple]:
    root.root_dir = str(repo)
    result = lint_paths([str(repo / "submissions")], config=root)
    return _keys(repo, root.apply(result.findings, result.nested))


def _keys(repo: Path, findings) -> set[tuple]:
    return {(f.rule_id, os.path.relpath(os.path.abspath(f.span.path), repo).replace(os.sep, "/"),
             f.span.line, f.span.col, f.level) for f in findings}


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(content=_content, where=st.sampled_from(["submissions/x", "submissions", "submissions/y"]))
def test_property_nested_configuration_never_reduces_findings_beyond_what_the_root_allows(
        two_submissions, content, where):
    repo, before = two_submissions
    nested = repo / where / ".cfglint.yaml"
    nested.write_text(content, encoding="utf-8")
    try:
        strict = Config(root_dir=str(repo))
        result = lint_paths([str(repo / "submissions")], config=strict)
        fresh = [dataclasses.replace(f) for f in result.findings]
        # the root allows nothing: every finding of the root-only run stays, at its level
        assert before <= _keys(repo, strict.apply(result.findings, result.nested))
        # the root allows every nestable key: only findings in files under the nested
        # configuration's directory may go or change level, and RED002 never does
        lax = Config(root_dir=str(repo), allow_nested=NESTABLE)
        allowed, _ = nested_configs(lax, str(repo), list(result.paths.values()), display_path)
        for f in before - _keys(repo, lax.apply(fresh, allowed)):
            assert f[0] != "RED002" and f[1].startswith(where + "/"), f
    finally:
        nested.unlink()
