"""`cfglint --version` names the distribution, the knowledge's date and the engine releases whose
flags cfglint holds (read from rules/releases/ and rules/flags/, never written in code), and the SARIF report carries
the same in tool.driver.properties, so a report can say what it was checked against."""

from __future__ import annotations

import datetime
import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import cfglint
from cfglint import knowledge
from cfglint.cli import main

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rules"
ISO_DATE = re.compile(r"\b(20\d\d)-([01]\d)-([0-3]\d)\b")


def _version_lines() -> list[str]:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_version_names_distribution_date_and_engine_releases():
    first, second = _version_lines()
    assert first == f"cfglint {cfglint.__version__} (cfglint-serving)"
    about = yaml.safe_load((RULES / "about.yaml").read_text())
    assert second.startswith(f"knowledge {about['knowledge_date']}; engine flags: ")
    # the compiled engines: first and last release read and how many (rules/releases/<engine>.yaml);
    # TensorRT-LLM: the hand file's release line (no release of it is on PyPI)
    for engine, label in (("vllm", "vLLM"), ("sglang", "SGLang"), ("dynamo", "NVIDIA Dynamo")):
        releases = yaml.safe_load((RULES / "releases" / f"{engine}.yaml").read_text())["releases"]
        assert f"{label} {releases[0]}-{releases[-1]} ({len(releases)} releases)" in second, (label, second)
    trtllm = yaml.safe_load((RULES / "flags" / "trtllm.yaml").read_text())["release_line"]
    assert f"TensorRT-LLM {trtllm}" in second


def test_version_follows_the_data(tmp_path, monkeypatch):
    # A knowledge update (a newly compiled vLLM release, a new date) shows in --version with no code change.
    rules = tmp_path / "rules"
    shutil.copytree(RULES, rules)
    vllm = rules / "releases" / "vllm.yaml"
    text = vllm.read_text()
    newest = yaml.safe_load(text)["releases"][-1]
    vllm.write_text(re.sub(r"^releases: \[", "releases: [0.5.0, ", text, count=1, flags=re.M))
    about = rules / "about.yaml"
    about.write_text(re.sub(r'knowledge_date: "[^"]+"', 'knowledge_date: "2030-01-31"', about.read_text()))
    for name in ("dynamo.yaml", "dynamo-env.yaml", "dynamo-checks.yaml"):
        (rules / "releases" / name).unlink()
    (rules / "flags" / "dynamo.yaml").unlink()
    monkeypatch.setattr(knowledge.bundled, "data_dir", lambda name: rules if name == "rules" else ROOT / name)
    _, second = _version_lines()
    assert second.startswith("knowledge 2030-01-31; ")
    assert f"vLLM 0.5.0-{newest}" in second
    assert "Dynamo" not in second


def test_knowledge_date_is_not_older_than_any_cited_date():
    """rules/about.yaml's knowledge_date is an ISO date, not in the future, and no older than any
    date the knowledge files cite (a fact read later than the knowledge's date means the date
    was not updated)."""
    date = datetime.date.fromisoformat(yaml.safe_load((RULES / "about.yaml").read_text())["knowledge_date"])
    assert date <= datetime.date.today()
    cited = []
    for path in [*RULES.rglob("*.yaml"), *(ROOT / "schemas").glob("*.yaml")]:
        for m in ISO_DATE.finditer(path.read_text()):
            try:
                cited.append((datetime.date.fromisoformat(m.group(0)), path.relative_to(ROOT).as_posix()))
            except ValueError:
                pass
    assert cited, "no dated source found"
    newest = max(cited)
    assert newest[0] <= date, f"{newest[1]} cites {newest[0]}, after knowledge_date {date}: update rules/about.yaml"


def test_distribution_name_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == cfglint.DISTRIBUTION == "cfglint-serving"
    assert project["scripts"] == {"cfglint": "cfglint.cli:run"}  # the command keeps its name


def test_sarif_driver_names_what_it_was_checked_against(tmp_path):
    out = tmp_path / "r.sarif"
    result = CliRunner().invoke(main, ["check", str(ROOT / "examples" / "submissions" / "recipes"),
                                       "--format", "sarif", "-o", str(out)])
    assert result.exit_code in (0, 1), result.output
    props = json.loads(out.read_text())["runs"][0]["tool"]["driver"]["properties"]
    cov = knowledge.coverage()
    assert props == {"knowledgeDate": cov["knowledge_date"], "engineFlagReleases": cov["engines"]}
    assert set(props["engineFlagReleases"]) == {"sglang", "sglang-router", "vllm", "trtllm", "dynamo"}
    assert all(props["engineFlagReleases"].values())


@pytest.mark.parametrize("bad", ["releases: {a: 1}\n", "releases: [{a: 1}]\n"])
def test_malformed_release_field_is_left_out(tmp_path, monkeypatch, bad):
    rules = tmp_path / "rules"
    shutil.copytree(RULES, rules)
    sg = rules / "releases" / "sglang.yaml"
    sg.write_text(re.sub(r"^releases: .*\n(  .*\n)*", bad, sg.read_text(), count=1, flags=re.M))
    monkeypatch.setattr(knowledge.bundled, "data_dir", lambda name: rules if name == "rules" else ROOT / name)
    cov = knowledge.coverage()
    assert "sglang" not in cov["engines"] and "vllm" in cov["engines"]
