"""`cfglint explain` (issue 24, item 5): the deployment as cfglint resolved it, on the bundled
examples (and the shared corpus), with real values: the TP / PP / DP / EP and topology of
published entries, a value from a `${VAR:-x}` default, from a variable, from an engine YAML,
the engine release from the manifest and from an image tag, engine defaults, and the per-GPU
memory budget of MEM001's estimate. Its JSON matches schemas/cfglint-explain.schema.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from support import ROOT, copy_submission, position, replace_once, shared

CFGLINT = str(Path(sys.executable).parent / "cfglint")
SCHEMA = json.loads((ROOT / "schemas" / "cfglint-explain.schema.json").read_text(encoding="utf-8"))
KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
V4_PRO = "nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d"
LWS = "catalog/deepseek-v4-flash/rtx6000d-sglang-lws-tp8-pp2"


def _explain(cwd: Path, *args: str) -> dict:
    proc = subprocess.run([CFGLINT, "explain", "-f", "json", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    jsonschema.validate(doc, SCHEMA)
    return doc


def _flag(process: dict, name: str) -> dict:
    (flag,) = [f for f in process["flags"] if f["flag"] == name]
    return flag


def test_every_example_explains_and_matches_the_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    doc = _explain(ROOT, "examples/submissions")
    assert len(doc["submissions"]) == 64
    assert sum(len(u["processes"]) for u in doc["submissions"]) >= 64
    # the control: the schema refuses a document with a source it does not know
    bad = json.loads(json.dumps(doc))
    bad["submissions"][0]["processes"][0]["flags"][0]["source"] = "guessed"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)


def test_tp_pp_and_topology_of_published_entries():
    doc = _explain(ROOT, f"examples/submissions/{LWS}")
    (unit,) = doc["submissions"]
    leader = unit["processes"][0]
    par = leader["parallelism"]
    assert (par["tp"]["value"], par["pp"]["value"], par["gpus_per_instance"]) == (8, 2, 16)
    assert par["tp"]["source"] == "launch" and par["dp"] == {"value": 1, "source": "engine default"}
    (role,) = unit["topology"]["roles"]
    assert (role["role"], role["instances"], role["gpus_per_instance"], role["nodes_per_instance"]) == ("server", 1, 16, 2)
    # Dynamo + TensorRT-LLM, 6 prefill instances of TP4 / EP4 with attention DP, 1 decode of TP8
    (unit,) = _explain(ROOT, f"examples/submissions/{V4_PRO}")["submissions"]
    roles = {r["role"]: r for r in unit["topology"]["roles"]}
    assert (roles["prefill"]["instances"], roles["prefill"]["gpus_per_instance"], roles["prefill"]["shape"]) == \
        (6, 4, "TP 4 x PP 1 x DP 1 x EP 4")
    assert (roles["decode"]["instances"], roles["decode"]["gpus_per_instance"]) == (1, 8)
    assert roles["prefill"]["attention_dp"] and roles["decode"]["attention_dp"]
    assert unit["topology"]["gpus"] == 32                       # the manifest's accelerators_used: 32
    assert roles["decode"]["nodes_per_instance"] == 2           # 8 GPUs on GB300 trays of 4


def test_a_value_from_a_parameter_default(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--tp-size 8", "--tp-size ${TP:-8}")
    text = (d / "run.sh").read_text()
    (unit,) = _explain(tmp_path, KIMI_B300)["submissions"]
    (proc,) = unit["processes"]
    tp = _flag(proc, "--tp-size")
    line, col = position(text, "${TP:-8}")
    assert (tp["value"], tp["source"], tp["detail"]) == ("8", "default", "${TP:-8}")
    assert tp["at"] == {"path": f"{KIMI_B300}/run.sh", "line": line, "column": col + len("${TP:-")}
    assert proc["parallelism"]["tp"]["value"] == 8
    # as published, the same value is a literal
    (unit,) = _explain(ROOT, f"examples/submissions/{KIMI_B300}")["submissions"]
    assert _flag(unit["processes"][0], "--tp-size")["source"] == "literal"


def test_parameter_defaults_in_a_published_dynamo_launch():
    corpus = shared("corpus/075-dynamo-sglang-disagg-dp-attn")
    (unit,) = _explain(corpus.parent, corpus.name)["submissions"]
    found = {(f["flag"], f["value"], f["detail"]) for p in unit["processes"] for f in p["flags"] if f["source"] == "default"}
    assert ("--dist-init-addr", "127.0.0.1:29500", "${SGLANG_PREFILL_DIST_INIT_ADDR:-127.0.0.1:29500}") in found
    assert ("--disaggregation-bootstrap-port", "12345", "${DYN_DISAGG_BOOTSTRAP_PORT:-12345}") in found


def test_values_from_a_variable_and_from_engine_yaml():
    (unit,) = _explain(ROOT, "examples/submissions/nvidia/gpt-oss-120b/b200-dynamo-trtllm-1p1d-tp4-eagle3")["submissions"]
    model = _flag(unit["processes"][0], "--model-path")
    assert (model["value"], model["source"], model["detail"], model["at"]["line"]) == \
        ("openai/gpt-oss-120b", "variable", "MODEL_PATH", 13)   # MODEL_PATH=openai/gpt-oss-120b
    rel = "examples/submissions/nvidia/glm-5.2/b300-sglang-tp8-dp8-eagle3-maxreq256"
    (unit,) = _explain(ROOT, rel)["submissions"]
    chunk = _flag(unit["processes"][0], "--chunked-prefill-size")
    assert (chunk["value"], chunk["source"], chunk["detail"]) == (8192, "yaml", f"{rel}/ifb_config.yaml")


def test_a_flag_the_command_line_overrides_says_so_and_a_written_config_is_named(tmp_path):
    rel = "nvidia/glm-5.2/b300-sglang-tp8-dp8-eagle3-maxreq256"
    d = copy_submission(rel, tmp_path)
    (unit,) = _explain(tmp_path, rel)["submissions"]
    assert _flag(unit["processes"][0], "--chunked-prefill-size")["overridden_by"] is None   # as published
    # the command line given the YAML's key as well: SGLang takes the command line's (FLG003 says it too)
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    assert text.count("--config ") == 1
    run.write_text(text.replace("--config ", "--chunked-prefill-size 4096 --config "), encoding="utf-8")
    (unit,) = _explain(tmp_path, rel)["submissions"]
    cli_flag, yaml_flag = sorted((f for f in unit["processes"][0]["flags"] if f["flag"] == "--chunked-prefill-size"),
                                 key=lambda f: f["source"] != "literal")
    assert cli_flag["value"] == "4096" and cli_flag["overridden_by"] is None   # command-line words are text
    line, col = position(run.read_text(encoding="utf-8"), "4096")
    assert yaml_flag["value"] == 8192 and yaml_flag["overridden_by"] == {
        "flag": "--chunked-prefill-size", "at": {"path": f"{rel}/run.sh", "line": line, "column": col}}
    shown = subprocess.run([CFGLINT, "explain", rel], cwd=tmp_path, capture_output=True, text=True).stdout
    assert f"overridden by --chunked-prefill-size (run.sh:{line}:{col})" in shown

    # a --config file the script writes with a heredoc is named by its path, not by the script's
    vl = "recipes/vllm-gpt-oss-120b-b200-tp1-config"
    d = copy_submission(vl, tmp_path)
    replace_once(d / "launch_server.sh", "vllm serve openai/gpt-oss-120b \\\n  --config ${YAML_CONFIG}",
                 "cat > written.yaml <<'EOF'\nmax-num-seqs: 64\nenforce-eager: true\nEOF\n"
                 "vllm serve openai/gpt-oss-120b \\\n  --config written.yaml")
    (unit,) = _explain(tmp_path, vl)["submissions"]
    seqs = _flag(unit["processes"][0], "--max-num-seqs")
    assert (seqs["value"], seqs["source"], seqs["detail"], seqs["at"]["path"]) == \
        (64, "yaml", "written.yaml", f"{vl}/launch_server.sh")
    assert _flag(unit["processes"][0], "--enforce-eager")["value"] is True
    # a YAML true is shown as true (a command-line flag without a value shows none)
    shown = subprocess.run([CFGLINT, "explain", vl], cwd=tmp_path, capture_output=True, text=True).stdout
    assert [line.split()[:2] for line in shown.splitlines() if "--enforce-eager" in line] == [["--enforce-eager", "true"]]


def test_release_engine_defaults_and_memory_budget():
    # the manifest's engine.version ("0.5.11 DSv4"), placed at its value
    rel = "examples/submissions/artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle"
    (unit,) = _explain(ROOT, rel)["submissions"]
    release = unit["processes"][0]["release"]
    assert (release["version"], release["source"], release["at"]["path"]) == ("0.5.11 DSv4", "engine.version",
                                                                              f"{rel}/submission.yaml")
    # the image tag of a Kubernetes deployment that declares no version; the router's own tag is not the engine's
    rel = "examples/submissions/recipes/rbg-sglang-qwen3-32b-pd-1p1d"
    (unit,) = _explain(ROOT, rel)["submissions"]
    by_kind = {(p["kind"], p["role"]): p for p in unit["processes"]}
    assert by_kind[("engine", "prefill")]["release"]["version"] == "v0.5.3.post3"
    assert by_kind[("engine", "prefill")]["release"]["source"] == "image tag"
    assert by_kind[("router", None)]["release"] is None
    # Kimi K3 on B300: SGLang picks its MoE runner (default auto); the weights, KV pool and
    # headroom add up to the device, the KV pool being --mem-fraction-static 0.85 less the weights
    (unit,) = _explain(ROOT, f"examples/submissions/{KIMI_B300}")["submissions"]
    (proc,) = unit["processes"]
    assert {"setting": "moe_runner_backend", "value": "auto"}.items() <= \
        [d for d in proc["defaults"] if d["setting"] == "moe_runner_backend"][0].items()
    mem = proc["memory"]
    assert mem["known"] and mem["device_gib"] == unit["accelerator"]["memory_gib"] == 268.6
    assert abs(mem["weights_gib"] + mem["kv_pool_gib"] + mem["headroom_gib"] - mem["device_gib"]) < 0.05
    assert abs(mem["weights_gib"] + mem["kv_pool_gib"] - 0.85 * mem["device_gib"]) < 0.05
    assert "--mem-fraction-static 0.85" in mem["budget"]


def test_text_output(tmp_path):
    proc = subprocess.run([CFGLINT, "explain", f"examples/submissions/{KIMI_B300}"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"examples/submissions/{KIMI_B300}: moonshotai/Kimi-K3, MXFP4, B300 (268.6 GiB)"
    assert "  process 1: engine sglang, role server" in lines
    assert any(line.strip().startswith("--tp-size") and line.endswith("8  [literal, run.sh:4:67]") for line in lines)
    assert "    server: 1 instance(s) x 8 GPU(s) (TP 8 x PP 1 x DP 1 x EP 1), 1 node(s) per instance" in lines


def test_a_credential_is_never_shown(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    key = "sk-live-4f9c2e7a1b3d5f7a9c"
    replace_once(d / "run.sh", "--enable-symm-mem", f"--enable-symm-mem --api-key {key}")
    for fmt in ("text", "json"):
        proc = subprocess.run([CFGLINT, "explain", "-f", fmt, KIMI_B300], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0 and "--api-key" in proc.stdout
        assert key[:8] not in proc.stdout and "<secret>" in proc.stdout


def test_missing_path_is_exit_2(tmp_path):
    proc = subprocess.run([CFGLINT, "explain", "no/such"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no such file or directory: no/such" in proc.stderr


def test_explain_says_the_missing_nnodes_that_top003_reports():
    # GLM-5.2 at TP 8 on GB300 trays of 4 (its golden TOP003): explain names the gap too, and the
    # TOP003 advice names the key of the --config YAML that sets the TP (found by a new-user trial)
    rel = "examples/submissions/nvidia/glm-5.2/gb300-sglang-2x4-tp8-dp8-maxreq1024"
    text = subprocess.run([CFGLINT, "explain", rel], cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
    assert "(8 GPUs need 2 node(s) of 4, but the launch runs on one node (no --nnodes): TOP003)" in text
    out = subprocess.run([CFGLINT, "check", rel], cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
    assert "add nnodes: 2 to ifb_config.yaml (or --nnodes 2), with --node-rank and --dist-init-addr on each node's " \
           "command line" in out
