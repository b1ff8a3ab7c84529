"""The real public files of ../shared/corpus as a test (issue 23 section 1).

Every corpus file is linted on its own, as the pre-commit hook lints a staged file outside any
submission (tests/corpus/expected.yaml says why that is the same as a directory run). The
errors and warnings must be exactly the judged findings of tests/corpus/expected.yaml (rule,
file, line): any other one fails, and so does a listed one that no longer fires, except those
judged false (``false_positive``), which may go. The probe injects a bogus flag into every
launch (a bogus key into every engine YAML) and checks that cfglint reports it, or says in
COV001 why it could not read that launch. Skipped, saying why, only when ../shared/corpus is
absent. The corpus files are read in place; the probe writes its changed copies to tmp_path.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

from cfglint.lint import lint_paths
from support import SHARED, shared

EXPECTED = Path(__file__).parent / "corpus" / "expected.yaml"
CORPUS = SHARED / "corpus"


def _sources() -> list[dict]:
    """The entries of ../shared/corpus/SOURCES.yaml ([] when the corpus is absent: the tests
    that need it then skip through :func:`support.shared`)."""
    path = CORPUS / "SOURCES.yaml"
    if not path.exists():
        return []
    return yaml.safe_load(path.read_text(encoding="utf-8"))["files"]


@lru_cache(maxsize=1)
def _expected() -> dict:
    return yaml.safe_load(EXPECTED.read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _findings(rel: str) -> tuple:
    """(rule, level, line, message, related messages) of every finding on one corpus file."""
    result = lint_paths([str(CORPUS / rel)])
    return tuple((f.rule_id, f.level, f.span.line, f.message, tuple(m for _s, m in f.related))
                 for f in result.findings)


def _all() -> dict[str, tuple]:
    shared("corpus")
    return {e["path"]: _findings(e["path"]) for e in _sources()}


def test_every_corpus_file_is_in_sources_and_read_without_a_crash():
    shared("corpus")
    listed = {e["path"] for e in _sources()}
    on_disk = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file()} - {"SOURCES.yaml", "README.md"}
    assert listed == on_disk
    crashes = [(rel, f[3]) for rel, fs in _all().items() for f in fs if "internal error" in f[3]]
    assert crashes == []


def test_the_errors_and_warnings_on_the_corpus_are_the_judged_ones():
    found = Counter((rel, f[0], f[2]) for rel, fs in _all().items() for f in fs if f[1] in ("error", "warning"))
    entries = _expected()["findings"]
    listed = Counter((e["file"], e["rule"], e["line"]) for e in entries)
    maybe = {(e["file"], e["rule"], e["line"]) for e in entries if e.get("false_positive")}
    unexpected = [k for k in found if found[k] > listed.get(k, 0)]
    gone = [k for k in listed if k not in maybe and found.get(k, 0) < listed[k]]
    assert unexpected == [], "findings not judged in tests/corpus/expected.yaml"
    assert gone == [], "judged findings that no longer fire (remove them from tests/corpus/expected.yaml)"
    for e in entries:   # every judgement says why and from what
        assert e.get("why") and e.get("source") and e["level"] in ("error", "warning"), e


@pytest.mark.parametrize("entry", [e for e in (yaml.safe_load(EXPECTED.read_text(encoding="utf-8"))["findings"])
                                   if e.get("false_positive")],
                         ids=lambda e: f"{e['file'].split('/')[0]}:{e['rule']}:{e['line']}")
def test_a_finding_judged_false_is_expected_to_go(entry):
    fs = _all().get(entry["file"], ())
    if any(f[0] == entry["rule"] and f[2] == entry["line"] and f[1] == entry["level"] for f in fs):
        pytest.xfail(f"judged false, still fires: {entry['false_positive']}")


def _cov001_only() -> list[str]:
    return sorted(rel for rel, fs in _all().items() if fs and {f[0] for f in fs} == {"COV001"})


def test_files_cfglint_did_not_really_check_do_not_grow():
    # a file whose only finding is COV001 is a file cfglint did not really check (issue 23: at
    # most 10 of the 114); the bound only goes down
    only = _cov001_only()
    assert len(only) <= _expected()["cov001_only_max"], only


def test_a_service_or_volume_is_no_gap_and_a_serving_kind_is_read():
    fs = _all()
    notes = [m for rel, found in fs.items() for f in found if f[0] == "COV001" for m in f[4]]
    assert not any("no schema for v1/" in m for m in notes)          # Service, PersistentVolume, ConfigMap ...
    assert not any("monitoring.coreos.com" in m for m in notes)      # PodMonitor
    assert not any("LLMInferenceService at line" in m and "not modelled" in m for m in notes)
    assert not any("RoleBasedGroup role" in m for m in notes)        # role templates and patches are read


def _explains(gap: str, line: int) -> bool:
    """A COV001 gap that says why a launch's flags are not read: its launcher, arguments or
    kind not read, or a gap placed at the launch's line."""
    return any(w in gap for w in ("not recognised", "no engine launch", "Helm chart template", "not modelled", "adds (",
                                  "no flag list", f"at line {line}", "cannot be read", "takes the engine's flags from"))


# -- the probe ------------------------------------------------------------------------------
def _probe_ids() -> list[str]:
    return [e["path"] for e in _sources()]


@pytest.mark.parametrize("rel", _probe_ids() or ["(corpus absent)"], ids=lambda r: r.split("/")[0])
def test_probe_every_launch_reports_a_bogus_flag_or_says_why_not(rel, tmp_path):
    from corpus_probe import PROBE_KEY, engine_yaml_probe, launches, reported

    shared("corpus")
    entry = next(e for e in _sources() if e["path"] == rel)
    path = CORPUS / rel
    known = {(s["file"], s["line"]): s["cause"] for s in _expected().get("probe_silent") or []}
    no_launch = {s["file"] for s in _expected().get("no_launch") or []}
    silent = []
    if entry["kind"] == "engine-yaml":
        named, gaps = reported(tmp_path, engine_yaml_probe(path), path.name, PROBE_KEY)
        # an engine YAML cfglint read as one engine's config (no COV001 about the file as it is
        # published: 044..048 vLLM --config files, 094 an SGLang one) must name the bogus key
        typed = not any("engine-config checks" in m for f in _findings(rel) if f[0] == "COV001" for m in f[4])
        if not named and (typed or not any("engine-config checks" in g for g in gaps)):
            silent.append(1)
    else:
        found = launches(path)
        own_gaps = [m for f in _findings(rel) if f[0] == "COV001" for m in f[4]]
        if rel in no_launch:
            assert found == [], "listed under no_launch in tests/corpus/expected.yaml but launches are read"
        elif not found and not any(_explains(g, 0) for g in own_gaps) and not any(f[0] == "IO001" for f in _findings(rel)):
            silent.append(0)    # no launch read, and nothing says so
        for launch in found:
            if launch.text is None:
                if not any(_explains(g, launch.line) for g in own_gaps):
                    silent.append(launch.line)
                continue
            named, gaps = reported(tmp_path, launch.text, path.name)
            if not named and not any(_explains(g, launch.line) for g in gaps):
                silent.append(launch.line)
    unexplained = [line for line in silent if (rel, line) not in known]
    stale = [line for (f, line) in known if f == rel and line not in silent]
    assert stale == [], f"listed as silent in tests/corpus/expected.yaml but now reported: lines {stale}"
    assert unexplained == [], f"launches at these lines take a bogus flag in silence: {unexplained}"
    for line in silent:
        pytest.xfail(f"known silent launch at line {line}: {known[(rel, line)]}")
