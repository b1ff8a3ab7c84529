"""`cfglint --version` names the distribution, the knowledge's date and the engine releases whose
flag lists cfglint holds (read from rules/, never written in code), and the SARIF report carries
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
    # each flag file's releases, as the file records them
    sglang = yaml.safe_load((RULES / "flags" / "sglang.yaml").read_text())["versions"]
    vllm = yaml.safe_load((RULES / "flags" / "vllm.yaml").read_text())["version"]
    dynamo = yaml.safe_load((RULES / "flags" / "dynamo.yaml").read_text())["version"]
    trtllm = yaml.safe_load((RULES / "flags" / "trtllm.yaml").read_text())["release_line"]
    for shown in (f"SGLang {', '.join(sglang)}", f"vLLM {vllm}", f"NVIDIA Dynamo {dynamo}", f"TensorRT-LLM {trtllm}"):
        assert shown in second, (shown, second)


def test_version_follows_the_data(tmp_path, monkeypatch):
    # A knowledge update (a new vLLM flag list, a new date) shows in --version with no code change.
    rules = tmp_path / "rules"
    shutil.copytree(RULES, rules)
    vllm = rules / "flags" / "vllm.yaml"
    text = vllm.read_text()
    old = re.search(r'^version: "([^"]+)"$', text, re.M).group(1)
    vllm.write_text(text.replace(f'version: "{old}"', 'version: "9.9.9"', 1))
    about = rules / "about.yaml"
    about.write_text(re.sub(r'knowledge_date: "[^"]+"', 'knowledge_date: "2030-01-31"', about.read_text()))
    (rules / "flags" / "dynamo.yaml").unlink()
    monkeypatch.setattr(knowledge.bundled, "data_dir", lambda name: rules if name == "rules" else ROOT / name)
    _, second = _version_lines()
    assert second.startswith("knowledge 2030-01-31; ")
    assert "vLLM 9.9.9" in second and f"vLLM {old}" not in second
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
    assert set(props["engineFlagReleases"]) == {"sglang", "vllm", "trtllm", "dynamo"}
    assert all(props["engineFlagReleases"].values())


@pytest.mark.parametrize("bad", ["versions: {a: 1}\n", "versions: [{a: 1}]\n"])
def test_malformed_release_field_is_left_out(tmp_path, monkeypatch, bad):
    rules = tmp_path / "rules"
    shutil.copytree(RULES, rules)
    sg = rules / "flags" / "sglang.yaml"
    sg.write_text(re.sub(r"^versions: .*\n", bad, sg.read_text(), count=1, flags=re.M))
    monkeypatch.setattr(knowledge.bundled, "data_dir", lambda name: rules if name == "rules" else ROOT / name)
    cov = knowledge.coverage()
    assert "sglang" not in cov["engines"] and "vllm" in cov["engines"]
