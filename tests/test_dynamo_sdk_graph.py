"""The Dynamo SDK graph launcher (``dynamo serve MODULE:SERVICE``, Dynamo <= 0.3.x) read from its
service config: the DynamoGraphDeployment of corpus file 025 sets ``DYN_DEPLOYMENT_CONFIG`` in
``spec.envs``, and its VllmWorker / PrefillWorker sections become the vLLM workers' arguments as
ai-dynamo==0.3.2's ServiceConfig.as_args builds them (src/cfglint/deploy/graphs.py). Each case is
the published file changed in one place."""

from __future__ import annotations

import shutil
from pathlib import Path

from cfglint.lint import lint_paths

from support import lint, only, position, replace_once, shared

SDK = "025-aibrix-dynamo-disagg-router"
CONFIG_LINE = 22   # the DYN_DEPLOYMENT_CONFIG value


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / SDK
    shutil.copytree(shared(f"corpus/{SDK}"), dst)
    return dst / "disagg_router.yaml"


def _at(path: Path, needle: str, occurrence: int = 1) -> tuple[int, int]:
    return position(path.read_text(encoding="utf-8"), needle, occurrence)


def test_published_workers_are_read_from_the_deployment_config(tmp_path):
    path = _copy(tmp_path)
    found = lint(path, coverage=True)
    notes = " ".join(f[4] for f in only(found, "COV001"))
    # was the file's only finding: COV001 "every launch check for dynamo serve graphs.disagg_router:VllmWorker ..."
    assert "VllmWorker" not in notes and "PrefillWorker" not in notes and "SDK graph" not in notes
    # everything the config sets is valid for vLLM 0.8.4 and the Dynamo SDK worker: TP 1 on a 1-GPU pod,
    # block size 64 (a choice), 16384 within Qwen3-8B's context, --router kv (a choice)
    assert found == []


def test_the_worker_launch_is_built_as_the_sdk_builds_it(tmp_path):
    # the FLG003 control: a service key given again on the command line (--VllmWorker.key value, applied
    # over DYN_DEPLOYMENT_CONFIG by resolve_service_config) replaces it, so no conflict is reported, and its
    # bad value is the one checked (FLG002, at the command line's word)
    path = _copy(tmp_path)
    replace_once(path, "--service-name VllmWorker", "--service-name VllmWorker --VllmWorker.block-size 48")
    (flg,) = only(lint(path), "FLG002")
    assert flg[2] == 145 and "'48' is not one of" in flg[4]
    assert only(lint(path), "FLG003") == []


def test_tensor_parallel_above_the_pods_gpus(tmp_path):
    path = _copy(tmp_path)
    replace_once(path, '"tensor-parallel-size":1', '"tensor-parallel-size":2')
    (k8s,) = only(lint(path), "K8S001")
    # at the service's GPU limit (resources.limits.gpu: "1", line 125), TP from the JSON
    assert (k8s[2], k8s[3]) == (125, 16)
    # named as the file writes it (was "nvidia.com/gpu: 1 ... set nvidia.com/gpu: 2", a key the service has not)
    assert k8s[4].startswith("resources.limits.gpu: 1 gives the engine 1 GPU but it runs TP 2; "
                             "set resources.limits.gpu: 2")
    result = lint_paths([str(path)])
    (f,) = [f for f in result.findings if f.rule_id == "K8S001"]
    assert [(s.line, s.col, m) for s, m in f.related] == [(CONFIG_LINE, _at(path, '"tensor-parallel-size":2')[1]
                                                           + len('"tensor-parallel-size":'), "TP 2")]


def test_a_service_without_a_gpu_limit_is_told_the_services_key(tmp_path):
    # the PrefillWorker service's resources.limits without its gpu: "1" (the requests keep theirs)
    path = _copy(tmp_path)
    text = path.read_text(encoding="utf-8")
    limits = '        limits:\n          cpu: "10"\n          memory: "20Gi"\n          gpu: "1"\n'
    assert text.count(limits) == 2
    at = text.rindex(limits)
    path.write_text(text[:at] + limits.replace('          gpu: "1"\n', "") + text[at + len(limits):], encoding="utf-8")
    (k8s,) = only(lint(path), "K8S001")
    assert "runs an engine that needs 1 GPU (TP 1) but asks for none: add resources.limits gpu: 1 to the service" \
        in k8s[4]


def test_mistyped_key_is_an_unknown_vllm_flag(tmp_path):
    # max-num-bached-tokens (a letter left out in the middle): no vLLM 0.8.4 flag, nor an abbreviation of one
    # (argparse accepts an unambiguous prefix, so max-num-batched-token would be --max-num-batched-tokens)
    path = _copy(tmp_path)
    replace_once(path, '"VllmWorker":{"max-num-batched-tokens"', '"VllmWorker":{"max-num-bached-tokens"')
    (flg,) = only(lint(path), "FLG001")
    assert (flg[2], flg[3]) == _at(path, '"max-num-bached-tokens"')
    assert "vLLM 0.8.4" in flg[4] and "has no --max-num-bached-tokens" in flg[4]
    assert "ai-dynamo-vllm~=0.8.4" in flg[4]


def test_abbreviated_key_is_accepted_as_argparse_does(tmp_path):
    path = _copy(tmp_path)
    replace_once(path, '"VllmWorker":{"max-num-batched-tokens"', '"VllmWorker":{"max-num-batched-token"')
    assert only(lint(path), "FLG001") == []


def test_invalid_json_is_a_finding_not_a_crash(tmp_path):
    path = _copy(tmp_path)
    replace_once(path, '"tensor-parallel-size":1,', '"tensor-parallel-size":1,,')
    found = lint(path, coverage=True)
    (io,) = only(found, "IO001")
    assert io[2] == CONFIG_LINE and "DYN_DEPLOYMENT_CONFIG does not parse as YAML or JSON" in io[4]
    assert "Failed to parse DYN_DEPLOYMENT_CONFIG" in io[4]
    # at the place the parser stops, inside the JSON
    assert io[3] > _at(path, '"tensor-parallel-size"')[1]
    (cov,) = only(found, "COV001")
    assert "every launch check for dynamo serve graphs.disagg_router:VllmWorker at line 145" in cov[4]
    assert "DYN_DEPLOYMENT_CONFIG (line 22) does not parse" in cov[4]


def test_bad_router_choice_names_the_choices(tmp_path):
    path = _copy(tmp_path)
    replace_once(path, '"router":"kv"', '"router":"bogus"')
    (flg,) = only(lint(path), "FLG002")
    assert (flg[2], flg[3]) == _at(path, '"bogus"')
    assert "'bogus' is not one of random, round-robin, kv, kv-load" in flg[4]


def test_a_missing_section_stays_a_note_saying_why(tmp_path):
    path = _copy(tmp_path)
    replace_once(path, '"PrefillWorker":{', '"PrefillWorkers":{')
    (cov,) = only(lint(path, coverage=True), "COV001")
    assert "graphs.disagg:PrefillWorker at line 179" in cov[4]
    assert "the service config (DYN_DEPLOYMENT_CONFIG at line 22) has no section PrefillWorker" in cov[4]
    assert "VllmWorker" not in cov[4]


def test_a_service_cfglint_does_not_know_stays_a_note(tmp_path):
    # the control of the name table: the same graph service under another name runs an engine cfglint cannot name
    path = _copy(tmp_path)
    replace_once(path, "graphs.disagg:PrefillWorker --system-app-port 5000 --enable-system-app --use-default-health-checks "
                       "--service-name PrefillWorker",
                 "graphs.disagg:MyWorker --system-app-port 5000 --enable-system-app --use-default-health-checks "
                 "--service-name MyWorker")
    (cov,) = only(lint(path, coverage=True), "COV001")
    assert "graphs.disagg:MyWorker at line 179" in cov[4] and "service MyWorker is not one whose engine cfglint knows" in cov[4]


def _config_file_submission(tmp_path: Path, router: str) -> Path:
    """025's service config as the -f YAML of a submission whose run.sh is 025's VllmWorker command
    (DYN_DEPLOYMENT_CONFIG not set): the same sections, read from a published file."""
    import json

    import yaml

    doc = next(d for d in yaml.safe_load_all(shared(f"corpus/{SDK}/disagg_router.yaml").read_text(encoding="utf-8")) if d)
    config = json.loads(doc["spec"]["envs"][0]["value"])
    config["Common"]["router"] = router
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "disagg.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    command = next(line.strip() for line in doc["spec"]["services"]["VllmWorker"]["extraPodSpec"]["mainContainer"]
                   ["command"][2].splitlines() if line.strip().startswith("dynamo serve"))
    (sub / "run.sh").write_text(f"#!/bin/bash\n{command} -f ./disagg.yaml\n", encoding="utf-8")
    (sub / "submission.yaml").write_text(
        "schema_version: 1\nsubmitter: test\nmodel: Qwen/Qwen3-8B\nprecision: BF16\n"
        "system: {accelerator: H100, accelerators_total: 8}\nengine: {name: vllm, orchestrator: dynamo}\n"
        "serving:\n  mode: disaggregated\n  roles:\n    - {name: decode, instances: 1, accelerators_per_instance: 1}\n"
        "accelerators_used: 1\nfiles: {launch: [run.sh], configs: [disagg.yaml]}\n", encoding="utf-8")
    return sub


def test_a_published_config_file_is_read_the_same_way(tmp_path):
    sub = _config_file_submission(tmp_path, "bogus")
    (flg,) = only(lint(sub), "FLG002")
    assert flg[1] == "disagg.yaml" and "'bogus' is not one of random, round-robin, kv, kv-load" in flg[4]
    assert (flg[2], flg[3]) == _at(sub / "disagg.yaml", "bogus")


def test_a_published_config_file_control(tmp_path):
    sub = _config_file_submission(tmp_path, "kv")
    assert lint(sub, coverage=True) == []
