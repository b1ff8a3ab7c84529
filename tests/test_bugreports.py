"""Launches written from public bug reports (tests/bugreports/cases.yaml): each misconfiguration is
caught by the rule that explains it, and each correct control lints without a warning or error."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cfglint.lint import lint_paths

CASES = yaml.safe_load((Path(__file__).parent / "bugreports" / "cases.yaml").read_text(encoding="utf-8"))


def _manifest(spec: dict) -> str:
    tp, pp = spec.get("tp", 1), spec.get("pp", 1)
    roles = {"name": "server", "instances": 1, "accelerators_per_instance": spec["gpus"], "tp": tp}
    if pp > 1:
        roles["pp"] = pp
    doc = {
        "schema_version": 1, "submitter": "bug report", "model": spec["model"], "precision": spec["precision"],
        "system": {"accelerator": spec["accelerator"], "accelerators_total": spec["gpus"]},
        "engine": {"name": spec["engine"], **({"version": str(spec["version"])} if spec.get("version") else {})},
        "serving": {"mode": "aggregated", "roles": [roles]},
        **({"speculative_decoding": spec["speculative"]} if spec.get("speculative") else {}),
        "accelerators_used": spec["gpus"], "files": {"launch": ["run.sh"]},
    }
    return yaml.safe_dump(doc, sort_keys=False)


def _lint(case: dict, tmp_path: Path):
    d = tmp_path / case["id"]
    d.mkdir()
    (d / "run.sh").write_text(case["launch"].rstrip("\n") + "\n", encoding="utf-8")
    if case.get("manifest"):
        (d / "submission.yaml").write_text(_manifest(case["manifest"]), encoding="utf-8")
        return lint_paths([str(d)]).findings
    return lint_paths([str(d / "run.sh")]).findings


def test_cases_are_well_formed():
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)) >= 20
    for c in CASES:
        assert c["source"].startswith("https://") and c["why"] and "launch" in c and isinstance(c["expect"], list)
    assert sum(1 for c in CASES if not c["expect"]) >= 8  # controls


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_bug_report(case, tmp_path):
    findings = _lint(case, tmp_path)
    fired = {f.rule_id for f in findings}
    shown = "\n".join(f"{f.span}: {f.rule_id} [{f.level}] {f.message}" for f in findings)
    for rule_id in case["expect"]:
        assert rule_id in fired, f"{case['id']}: {rule_id} expected ({case['why']}); got:\n{shown}"
    if not case["expect"]:
        loud = [f for f in findings if f.level in ("warning", "error")]
        assert not loud, f"{case['id']} is a correct control; got:\n{shown}"
