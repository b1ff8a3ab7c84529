"""A new user's three reports: a Dynamo vLLM worker with no mode flag had no role (not counted,
not noted), DIS001 did not compare vLLM's --kv-transfer-config kv_connector, and TOP001 on a
Kubernetes workload's replicas cited the manifest's own line. Each case is a real published
example or corpus file changed in one place, with its control."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfglint.edit.init import run
from cfglint.edit.init.derive import derive
from cfglint.knowledge import knowledge
from cfglint.lint import lint_paths, lint_unit_deployment
from cfglint.load.submission import load_loose_file

from support import copy_submission, lint, only, position, replace_once, shared

# Dynamo's vLLM disaggregation on one GPU: a decode worker (--disaggregation-mode decode, line 58)
# and a prefill worker (--disaggregation-mode prefill, line 80), both NixlConnector
SAME_GPU = ("097-dynamo-vllm-disagg-same-gpu", "disagg_same_gpu.sh")
DECODE_MODE = "  --disaggregation-mode decode \\\n"
PREFILL_MODE = "  --disaggregation-mode prefill \\\n"


@pytest.fixture(scope="module")
def kb():
    return knowledge()


def _corpus_copy(tmp_path: Path, entry: tuple[str, str], old: str | None = None, new: str = "") -> Path:
    src = shared("corpus") / entry[0] / entry[1]
    d = tmp_path / entry[0]
    d.mkdir(parents=True)
    (d / entry[1]).write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    if old is not None:
        replace_once(d / entry[1], old, new)
    return d


def _roles(path: Path) -> list[tuple[str | None, int]]:
    _findings, dep = lint_unit_deployment(load_loose_file(str(path)))
    return [(p.role.value if p.role else None, p.span.line) for p in dep.engine_processes()]


# -- 1. a dynamo.vllm worker with no mode flag ---------------------------------------------------
def test_an_unflagged_dynamo_vllm_worker_beside_a_prefill_worker_is_decode(tmp_path):
    # ai-dynamo dynamo/vllm/args.py: any mode but prefill is the 'backend' component, the one the
    # frontend sends to after prefill; 0.4.1 main.py runs the decode handler without --is-prefill-worker
    control = _corpus_copy(tmp_path / "control", SAME_GPU)
    assert _roles(control / SAME_GPU[1]) == [("decode", 55), ("prefill", 77)]
    d = _corpus_copy(tmp_path, SAME_GPU, DECODE_MODE)
    assert _roles(d / SAME_GPU[1]) == [("decode", 55), ("prefill", 76)]   # was [(None, 55), ("prefill", 76)]


def test_init_writes_the_decode_role_of_an_unflagged_worker(tmp_path, kb):
    # init wrote only the prefill role and accelerators_used 1 for the two one-GPU workers
    d = _corpus_copy(tmp_path, SAME_GPU, DECODE_MODE)
    derived = derive(str(d), kb)
    assert [(r["name"], r["instances"], r["accelerators_per_instance"]) for r in derived.manifest["serving"]["roles"]] \
        == [("prefill", 1, 1), ("decode", 1, 1)]
    assert derived.manifest["accelerators_used"] == 2
    control = _corpus_copy(tmp_path / "control", SAME_GPU)
    assert derive(str(control), kb).manifest["serving"]["roles"] == derived.manifest["serving"]["roles"]


def test_an_unflagged_dynamo_vllm_worker_alone_is_an_aggregated_server(tmp_path, kb):
    # without its prefill sibling (its mode line removed) the decode worker's peer is unflagged:
    # with no prefill worker in the deployment an unflagged worker serves requests whole
    # (backend_args.py _resolve_disaggregation_mode: no mode -> AGGREGATED); the manifest init wrote
    # from the published file declares prefill and decode, so TOP001 names the server worker
    control = _corpus_copy(tmp_path / "control", SAME_GPU)
    result = run(str(control), kb)
    (control / "submission.yaml").write_text(result.after, encoding="utf-8")
    assert only(lint(control), "TOP001") == []
    d = _corpus_copy(tmp_path, SAME_GPU)
    (d / "submission.yaml").write_text(result.after, encoding="utf-8")
    replace_once(d / SAME_GPU[1], PREFILL_MODE, "")
    text = (d / SAME_GPU[1]).read_text(encoding="utf-8")
    line, col = position(text, "python3 -m dynamo.vllm", occurrence=2)
    assert only(lint(d), "TOP001") == [
        ("TOP001", SAME_GPU[1], line, col,
         "the launch starts a server worker (python3 -m dynamo.vllm) but the manifest declares no role named "
         "server (roles: decode, prefill)")]


def test_a_worker_whose_role_is_known_only_at_run_time_is_noted(tmp_path):
    # the decode worker's mode from a shell variable: its role is not known, and COV001 says what that leaves
    d = _corpus_copy(tmp_path, SAME_GPU, DECODE_MODE, '  --disaggregation-mode "$MODE" \\\n')
    (note,) = [f for f in lint_paths([str(d / SAME_GPU[1])]).findings if f.rule_id == "COV001"]
    entries = [m for s, m in note.related if m.startswith("the instance and accelerator counts")]
    assert entries == ["the instance and accelerator counts (TOP001) and KV transfer (DIS001) of the worker at line "
                       "55 (python3 -m dynamo.vllm): its mode flag or its arguments are known only at run time"]
    control = _corpus_copy(tmp_path / "control", SAME_GPU)
    notes = [f for f in lint_paths([str(control / SAME_GPU[1])]).findings if f.rule_id == "COV001"]
    assert not any("the instance and accelerator counts" in m for f in notes for _s, m in f.related)


# -- 2. DIS001 for vLLM's kv_connector -------------------------------------------------------------
AIBRIX_1P1D = "recipes/aibrix-vllm-qwen3-8b-1p1d-nixl"
NIXL = '''--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}\''''


def _replace_on_line(path: Path, line: int, old: str, new: str) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    assert old in lines[line - 1], (line, lines[line - 1])
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    path.write_text("\n".join(lines), encoding="utf-8")


def test_dis001_vllm_prefill_and_decode_kv_connectors_differ(tmp_path):
    # the AIBrix StormService runs prefill (line 50) and decode (line 129) with NixlConnector
    control = copy_submission(AIBRIX_1P1D, tmp_path / "control")
    assert only(lint(control), "DIS001") == []
    d = copy_submission(AIBRIX_1P1D, tmp_path)
    text = (d / "1p1d.yaml").read_text(encoding="utf-8")
    pline, pcol = position(text, "NixlConnector", occurrence=1)
    dline, dcol = position(text, "NixlConnector", occurrence=2)
    _replace_on_line(d / "1p1d.yaml", dline, "NixlConnector", "LMCacheConnectorV1")
    assert only(lint(d), "DIS001") == [
        ("DIS001", "1p1d.yaml", dline, dcol,
         f"decode's KV connector LMCacheConnectorV1 cannot receive the KV cache prefill sends with NixlConnector "
         f"({d / '1p1d.yaml'}:{pline}): give both --kv-transfer-config the same kv_connector")]
    (f,) = [f for f in lint_paths([str(d)]).findings if f.rule_id == "DIS001"]
    assert [(s.line, s.col, m) for s, m in f.related] == [(pline, pcol, "prefill kv_connector: NixlConnector")]


def test_dis001_a_multiconnector_pairs_with_any_connector_it_lists(tmp_path):
    # vLLM's MultiConnector saves to every child and loads from the first that has the KV
    # (multi_connector.py): prefill LMCache + Nixl pairs with a Nixl decode; LMCache + Mooncake does not
    d = copy_submission(AIBRIX_1P1D, tmp_path)
    multi = ('''--kv-transfer-config '{"kv_connector":"MultiConnector","kv_role":"kv_both","kv_connector_extra_config":'''
             '''{"connectors":[{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"},'''
             '''{"kv_connector":"%s","kv_role":"kv_both"}]}}\'''')
    text = (d / "1p1d.yaml").read_text(encoding="utf-8")
    pline, _ = position(text, NIXL, occurrence=1)
    _replace_on_line(d / "1p1d.yaml", pline, NIXL, multi % "NixlConnector")
    assert only(lint(d), "DIS001") == []
    _replace_on_line(d / "1p1d.yaml", pline, "NixlConnector", "MooncakeConnector")
    (f,) = only(lint(d), "DIS001")
    assert "decode's KV connector NixlConnector cannot receive the KV cache prefill sends with " \
           "LMCacheConnectorV1 + MooncakeConnector" in f[4]


def test_dis001_a_connector_known_only_at_run_time_is_noted(tmp_path):
    d = copy_submission(AIBRIX_1P1D, tmp_path)
    text = (d / "1p1d.yaml").read_text(encoding="utf-8")
    dline, _ = position(text, NIXL, occurrence=2)
    _replace_on_line(d / "1p1d.yaml", dline, NIXL, '''--kv-transfer-config "$KV_CONFIG"''')
    assert only(lint(d), "DIS001") == []
    (note,) = [f for f in lint_paths([str(d)]).findings if f.rule_id == "COV001"]
    assert [(s.line, m) for s, m in note.related if m.startswith("prefill/decode KV connector pairing")] == [
        (dline, "prefill/decode KV connector pairing (DIS001): the decode worker's KV connector is not known: its "
                "--kv-transfer-config is known only at run time")]


# -- 3. TOP001 names where the launch's instance count comes from ----------------------------------
V4_DEPLOYMENT = "catalog/deepseek-v4-flash/rtx6000d-sglang-tp4-marlin"


def test_top001_on_a_deployments_replicas_names_the_replicas(tmp_path):
    control = copy_submission(V4_DEPLOYMENT, tmp_path / "control")
    assert only(lint(control), "TOP001") == []
    d = copy_submission(V4_DEPLOYMENT, tmp_path)
    rline = replace_once(d / "deployment.yaml", "  replicas: 1\n", "  replicas: 2\n")
    iline, icol = position((d / "submission.yaml").read_text(encoding="utf-8"), "instances: 1", after=True)
    assert only(lint(d), "TOP001") == [
        ("TOP001", "submission.yaml", iline, icol - 1,
         f"the launch starts 2 server instance(s) (replicas: 2 at {d / 'deployment.yaml'}:{rline}) but the manifest "
         f"declares instances: 1; declare instances: 2, or change the launch")]
    (f,) = [f for f in lint_paths([str(d)]).findings if f.rule_id == "TOP001"]
    assert [(s.path, s.line, m) for s, m in f.related] == [(str(d / "deployment.yaml"), rline, "replicas: 2")]
