"""Property-based fuzzing from the real examples: mutated manifests, launch scripts, worker
argument files and engine YAML never crash cfglint, every run exits 0, 1 or 2, and its SARIF
validates against the SARIF 2.1.0 schema. 3 x 3,400 = 10,200 cases in a deep run (CI, or
CFGLINT_DEEP=1), 3 x 60 in a developer's default run.

The SARIF's rules array is the same for every run: it is validated in full once; each case
validates its results with that array left out (the rest of the log is complete).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint.cli import main

from support import EXAMPLES, ROOT, examples

SARIF_SCHEMA = ROOT / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "sarif-2.1.0.json"
CASES = examples(60, 3400)  # 3 x 3,400 = 10,200 cases in a deep run (CI)
SUBMISSIONS = sorted(p.parent for p in EXAMPLES.glob("**/submission.yaml"))
FILES = sorted(f for d in SUBMISSIONS for f in d.iterdir() if f.is_file())
SHELL_WORDS = ["sglang", "serve", "vllm", "trtllm-serve", "python3", "-m", "dynamo.trtllm", "dynamo.frontend",
               "--tp-size", "8", "--tp", "-tp", "--speculative-algorithm", "EAGLE", "DSPARK",
               "--speculative-dspark-block-size", "--moe-runner-backend", "marlin", "--reasoning-parser",
               "kimi_k3", "deepseek-v4", "\\\n", "\n", "&", "|", ";", "for", "g", "in", "1", "2", "do", "done",
               "<host-path>", "<0..1>", "$X", "\"", "'", "$(", ")", "{", "}", "[[", "]]", "<<EOF", "EOF",
               "/home/u/x", "10.0.0.1", "hf_abc", "--config", "gen_config.yaml", "docker", "run", "-v", "-e",
               "A=1", "mpirun", "-n", "4", "#", "cfglint:", "disable=RED001", "--", "é", "\t", "\x00", "=", ":"]


@lru_cache(maxsize=1)
def _validator():
    if not SARIF_SCHEMA.is_file():
        if os.environ.get("CI"):
            raise AssertionError(f"SARIF schema missing at {SARIF_SCHEMA}: run npm ci")
        pytest.skip("SARIF schema not installed (npm ci)")
    import jsonschema

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.validators.validator_for(schema)(schema)


def _run(paths: list[str]) -> None:
    result = CliRunner().invoke(main, ["check", *paths, "--format", "sarif", "--no-config"], catch_exceptions=True)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2), result.output
    if result.exit_code == 2:
        return
    log = json.loads(result.stdout)
    assert not any("internal error" in r["message"]["text"] for r in log["runs"][0]["results"]), result.stdout[:2000]
    log["runs"][0]["tool"]["driver"]["rules"] = []
    errors = [e.message for e in _validator().iter_errors(log)]
    assert not errors, errors[:5]


def test_full_sarif_validates_once():
    result = CliRunner().invoke(main, ["check", str(EXAMPLES), "--format", "sarif", "--no-config"])
    errors = [e.message for e in _validator().iter_errors(json.loads(result.stdout))]
    assert result.exit_code == 1 and not errors


def _mutate(data: bytes, ops) -> bytes:
    for kind, pos, payload in ops:
        at = pos % (len(data) + 1)
        if kind == "insert":
            data = data[:at] + payload + data[at:]
        elif kind == "delete":
            data = data[:at] + data[at + len(payload):]
        elif kind == "replace":
            data = data[:at] + payload + data[at + len(payload):]
        else:  # duplicate a slice
            data = data[:at] + data[at:at + len(payload) + 1] * 3 + data[at:]
    return data


OPS = st.lists(st.tuples(st.sampled_from(["insert", "delete", "replace", "dup"]), st.integers(0, 10**6),
                         st.one_of(st.binary(max_size=12),
                                   st.sampled_from(SHELL_WORDS).map(str.encode),
                                   st.text(max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass")))),
               min_size=1, max_size=6)
FUZZ = settings(max_examples=CASES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _with_copy(path: Path, fn):
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / "s"
        shutil.copytree(path, dst)
        fn(dst)


@FUZZ
@given(index=st.integers(0, len(FILES) - 1), ops=OPS)
def test_mutated_published_files(index, ops):
    src = FILES[index]

    def case(dst: Path):
        target = dst / src.name
        target.write_bytes(_mutate(src.read_bytes(), ops))
        _run([str(dst)])

    _with_copy(src.parent, case)


MANIFEST_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=True),
                            st.text(max_size=20), st.lists(st.integers(), max_size=3),
                            st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))


@FUZZ
@given(index=st.integers(0, len(SUBMISSIONS) - 1), path=st.lists(st.text(max_size=25), min_size=1, max_size=3),
       value=MANIFEST_VALUES)
def test_manifests_with_wrong_values(index, path, value):
    import yaml

    src = SUBMISSIONS[index]

    def case(dst: Path):
        data = yaml.safe_load((src / "submission.yaml").read_text())
        node = data
        keys = list(data)
        for part in path[:-1]:  # walk to an existing mapping where possible
            key = keys[hash(part) % len(keys)] if keys else part
            if isinstance(node.get(key), dict):
                node = node[key]
                keys = list(node)
        key = keys[hash(path[-1]) % len(keys)] if keys and hash(path[-1]) % 3 else path[-1]
        node[key] = value
        (dst / "submission.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
        _run([str(dst)])

    _with_copy(src, case)


@FUZZ
@given(words=st.lists(st.sampled_from(SHELL_WORDS), max_size=60), name=st.sampled_from(["run.sh", "w.args", "c.yaml"]))
def test_generated_launch_text(words, name):
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / name
        f.write_text(" ".join(words), encoding="utf-8", errors="surrogatepass")
        _run([str(f)])
