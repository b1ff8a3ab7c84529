"""`cfglint init`: derive submission.yaml from the launch files (src/cfglint/edit/init/).

Done-when of issue 12: on every example submission's launch files, init reproduces the
manifest's derivable fields. EXPECTED lists, per example, every derivable field the published
manifest declares that init does NOT reproduce, and why; every other declared derivable field
must come out equal (or agreeing: FP4 for NVFP4, SGLang's EAGLE for MTP). A change in init that
derives more (or less) fails here until the table says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from cfglint.cli import main
from cfglint.edit.init import run
from cfglint.edit.init.derive import derive
from cfglint.edit.init.fields import DERIVABLE
from cfglint.edit.init.update import update_text
from cfglint.knowledge import knowledge
from init_compare import compare
from support import EXAMPLES, copy_submission, lint, replace_once

# Why a derivable field is not derived (a part of the reason init gives):
VERSION = "no container image with a version tag"        # the version is in comments or the page only
LOCAL_MODEL = "local path or placeholder"                 # --model-path /models/X, <model-path>
NO_MODEL = "names no model"                               # argument files / configs carry no model flag
PRECISION = "neither is its precision"                    # follows from the model, which is not known
COUNT = "not how many workers run"                        # argument files / configs: one worker's flags
USED = "instances or accelerators per instance"           # follows from the instance counts
ARGS_ORCH = "worker argument files do not say"            # Dynamo is named in comments only
CONFIG_ONLY = "engine configs stand for them"             # the launch script is a job submitter
UNPUBLISHED = "engine config that is not published"       # --extra-engine-args /work/x.yaml, --config ${X}
UNSTATED = "the launch does not state it"                 # EP / DCP: the engines derive them several ways
SPEC_UNKNOWN = "speculative flags are set"                # in an unpublished or unresolved config

# The published manifest disagrees with its own launch files. `cfglint check` does not report these
# (golden file: no TOP002 on them): TOP002 compares only the role keys a manifest declares, and these
# manifests leave the key out, which the schema reads as its default (1 / off). Each is a finding
# for the lead (see the report), not a fault of init.
KIMI_DCP_OMITTED = "DIFFERS"   # prefill.args: --dcp-size N; the manifest's prefill role declares no dcp
KIMI_PP_OMITTED = "DIFFERS"    # prefill.args / decode.args: --pipeline-parallel-size 2; the roles declare no pp
GLM_ADP_OMITTED = "DIFFERS"    # ctx_config.yaml: enable_attention_dp: true (DP 4 = TP 4); the prefill role declares neither

EXPECTED = {
    # Kubernetes manifests (files.deploy): their containers are the launches
    'catalog/deepseek-v4-flash/rtx6000d-sglang-tp4-marlin': {},
    'catalog/deepseek-v4-flash/rtx6000d-sglang-lws-tp8-pp2': {},
    'catalog/glm-5.2/rtx6000d-sglang-pd-tp8-pp2-ep8-hicache': {},
    'catalog/kimi-k3/rtx6000d-sglang-lws-tp8-pp4-marlin': {},
    'recipes/aibrix-vllm-qwen3-8b-1p1d-nixl': {'model': LOCAL_MODEL, 'precision': PRECISION},   # engine.version left out
    'recipes/dynamo-sglang-qwen3-0.6b-disagg-multinode': {},
    'recipes/dynamo-sglang-qwen3-0.6b-disagg-multinode-v1beta1': {},
    'recipes/kthena-vllm-llama-3.1-405b-multinode': {},
    'recipes/rbg-sglang-qwen3-32b-pd-1p1d': {'model': LOCAL_MODEL, 'precision': PRECISION},
    'artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle': {'engine.version': VERSION},
    'artificial-analysis/deepseek-v4-pro/mi355x-sglang-tp8-a': {'model': LOCAL_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'serving.roles[server].ep': UNSTATED},
    'artificial-analysis/deepseek-v4-pro/mi355x-sglang-tp8-b': {'model': LOCAL_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'serving.roles[server].ep': UNSTATED},
    'artificial-analysis/kimi-k3/b300-sglang-tp8-dcp8': {'engine.version': VERSION},
    'artificial-analysis/kimi-k3/b300-sglang-tp8-dspark7': {'engine.version': VERSION},
    'artificial-analysis/kimi-k3/b300-sglang-tp8': {'engine.version': VERSION},
    'artificial-analysis/kimi-k3/gb300-sglang-tp8-nnodes2-dcp8': {'model': LOCAL_MODEL, 'precision': PRECISION, 'engine.version': VERSION},
    'artificial-analysis/kimi-k3/gb300-sglang-tp8-nnodes2-dspark7': {'model': LOCAL_MODEL, 'precision': PRECISION, 'engine.version': VERSION},
    'artificial-analysis/kimi-k3/gb300-sglang-tp8-nnodes2': {'model': LOCAL_MODEL, 'precision': PRECISION, 'engine.version': VERSION},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p01': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p02': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p03': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p04': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p05': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p06': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p07': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p08': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p09': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p10': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/deepseek-v4-pro/b300-trtllm-1p1d-colocated': {'model': LOCAL_MODEL, 'precision': PRECISION, 'engine.version': VERSION},
    'nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-5p1d': {'model': LOCAL_MODEL, 'precision': PRECISION},
    'nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d': {'model': LOCAL_MODEL, 'precision': PRECISION},
    'nvidia/glm-5.2/b300-sglang-tp8-dp8-eagle3-maxreq256': {'engine.version': VERSION},
    'nvidia/glm-5.2/b300-sglang-tp8-dp8-maxreq1024': {'engine.version': VERSION},
    'nvidia/glm-5.2/gb300-dynamo-trtllm-p01': {'model': NO_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'engine.orchestrator': CONFIG_ONLY, 'serving.roles[prefill].dp': GLM_ADP_OMITTED, 'serving.roles[prefill].attention_dp': GLM_ADP_OMITTED},
    'nvidia/glm-5.2/gb300-dynamo-trtllm-p02-p01recipe': {'model': NO_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'engine.orchestrator': CONFIG_ONLY, 'serving.roles[prefill].dp': GLM_ADP_OMITTED, 'serving.roles[prefill].attention_dp': GLM_ADP_OMITTED},
    'nvidia/glm-5.2/gb300-dynamo-trtllm-p02': {'model': NO_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'engine.orchestrator': CONFIG_ONLY, 'serving.roles[prefill].dp': GLM_ADP_OMITTED, 'serving.roles[prefill].attention_dp': GLM_ADP_OMITTED},
    'nvidia/glm-5.2/gb300-dynamo-trtllm-p03': {'model': NO_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'engine.orchestrator': CONFIG_ONLY, 'serving.roles[prefill].dp': GLM_ADP_OMITTED, 'serving.roles[prefill].attention_dp': GLM_ADP_OMITTED},
    'nvidia/glm-5.2/gb300-dynamo-trtllm-p04': {'model': NO_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'engine.orchestrator': CONFIG_ONLY, 'serving.roles[prefill].dp': GLM_ADP_OMITTED, 'serving.roles[prefill].attention_dp': GLM_ADP_OMITTED},
    'nvidia/glm-5.2/gb300-dynamo-trtllm-p05': {'model': NO_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'engine.orchestrator': CONFIG_ONLY, 'serving.roles[prefill].dp': GLM_ADP_OMITTED, 'serving.roles[prefill].attention_dp': GLM_ADP_OMITTED},
    'nvidia/glm-5.2/gb300-dynamo-trtllm-p07': {'model': NO_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'engine.orchestrator': CONFIG_ONLY, 'serving.roles[prefill].dp': GLM_ADP_OMITTED, 'serving.roles[prefill].attention_dp': GLM_ADP_OMITTED},
    'nvidia/glm-5.2/gb300-dynamo-trtllm-p08': {'model': NO_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'engine.orchestrator': CONFIG_ONLY, 'serving.roles[prefill].dp': GLM_ADP_OMITTED, 'serving.roles[prefill].attention_dp': GLM_ADP_OMITTED},
    'nvidia/glm-5.2/gb300-dynamo-trtllm-p09': {'model': NO_MODEL, 'precision': PRECISION, 'engine.version': VERSION, 'engine.orchestrator': CONFIG_ONLY, 'serving.roles[prefill].dp': GLM_ADP_OMITTED, 'serving.roles[prefill].attention_dp': GLM_ADP_OMITTED},
    'nvidia/glm-5.2/gb300-sglang-2x4-tp8-dp8-maxreq1024': {'engine.version': VERSION},
    'nvidia/glm-5.2/gb300-sglang-2x4-tp8-eagle6-maxreq16': {'engine.version': VERSION},
    'nvidia/glm-5.2/glm-5-2-nvfp4-sglang-ifb-tp8-eagle5-maxreq32-bia-v1': {'engine.version': VERSION},
    'nvidia/glm-5.2/glm-5-2-sglang-ifb-tp8-eagle-low-latency-b300-v1': {'engine.version': VERSION},
    'nvidia/gpt-oss-120b/b200-dynamo-trtllm-1p1d-tp4-eagle3': {'serving.roles[prefill].tp': UNPUBLISHED, 'serving.roles[prefill].pp': UNPUBLISHED, 'serving.roles[prefill].dp': UNPUBLISHED, 'serving.roles[prefill].ep': UNPUBLISHED, 'serving.roles[prefill].dcp': UNPUBLISHED, 'serving.roles[prefill].attention_dp': UNPUBLISHED, 'serving.roles[decode].tp': UNPUBLISHED, 'serving.roles[decode].pp': UNPUBLISHED, 'serving.roles[decode].dp': UNPUBLISHED, 'serving.roles[decode].ep': UNPUBLISHED, 'serving.roles[decode].dcp': UNPUBLISHED, 'serving.roles[decode].attention_dp': UNPUBLISHED, 'speculative_decoding': SPEC_UNKNOWN},
    # CUDA_VISIBLE_DEVICES=$g of `for g in 1 2 3`: each decode worker's GPU, so accelerators_used (4) and the
    # decode GPUs per instance (1) are derived
    'nvidia/gpt-oss-120b/b200-dynamo-trtllm-1p3d-eagle3': {'serving.roles[prefill].tp': UNPUBLISHED, 'serving.roles[prefill].pp': UNPUBLISHED, 'serving.roles[prefill].dp': UNPUBLISHED, 'serving.roles[prefill].ep': UNPUBLISHED, 'serving.roles[prefill].dcp': UNPUBLISHED, 'serving.roles[prefill].attention_dp': UNPUBLISHED, 'serving.roles[decode].tp': UNPUBLISHED, 'serving.roles[decode].pp': UNPUBLISHED, 'serving.roles[decode].dp': UNPUBLISHED, 'serving.roles[decode].ep': UNPUBLISHED, 'serving.roles[decode].dcp': UNPUBLISHED, 'serving.roles[decode].attention_dp': UNPUBLISHED, 'speculative_decoding': SPEC_UNKNOWN},
    'nvidia/gpt-oss-120b/b200-trtllm-tp1-eagle3': {'engine.version': VERSION},
    'nvidia/kimi-k3/gb300-dynamo-sglang-1p1d-hicache-mooncake': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'engine.orchestrator': ARGS_ORCH, 'serving.roles[prefill].instances': COUNT, 'serving.roles[prefill].dcp': KIMI_DCP_OMITTED, 'serving.roles[decode].instances': COUNT},
    'nvidia/kimi-k3/gb300-dynamo-sglang-2p1d-hicache-mooncake': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'engine.orchestrator': ARGS_ORCH, 'serving.roles[prefill].instances': COUNT, 'serving.roles[prefill].dcp': KIMI_DCP_OMITTED, 'serving.roles[decode].instances': COUNT},
    'nvidia/kimi-k3/gb300-dynamo-sglang-2p1d-hicache-nixl': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'engine.orchestrator': ARGS_ORCH, 'serving.roles[prefill].instances': COUNT, 'serving.roles[prefill].dcp': KIMI_DCP_OMITTED, 'serving.roles[decode].instances': COUNT},
    'nvidia/kimi-k3/gb300-dynamo-sglang-2p1d-matched-pp2-mooncake': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'engine.orchestrator': ARGS_ORCH, 'serving.roles[prefill].instances': COUNT, 'serving.roles[prefill].pp': KIMI_PP_OMITTED, 'serving.roles[prefill].dcp': KIMI_DCP_OMITTED, 'serving.roles[decode].instances': COUNT, 'serving.roles[decode].pp': KIMI_PP_OMITTED},
    'nvidia/kimi-k3/gb300-dynamo-sglang-tp8-dcp8-1p1d-mooncake-hicache-r3-maxreq192-v1': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'engine.orchestrator': ARGS_ORCH, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'engine.orchestrator': ARGS_ORCH, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT, 'serving.roles[decode].ep': UNSTATED},
    'nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r8-v1': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'engine.version': VERSION, 'engine.orchestrator': ARGS_ORCH, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT, 'serving.roles[decode].ep': UNSTATED},
    'recipes/dynamo-trtllm-qwen3-0.6b-disagg-1p1d': {'model': NO_MODEL, 'precision': PRECISION, 'accelerators_used': USED, 'serving.roles[prefill].instances': COUNT, 'serving.roles[decode].instances': COUNT},
    'recipes/sglang-deepseek-v3.2-exp-h200-tp8-dp8-mtp': {},
    'recipes/sglang-deepseek-v3.2-h200-tp8-dp8-parsers': {},
    'recipes/trtllm-gpt-oss-120b-b200-dep8-throughput': {'engine.version': VERSION},
    'recipes/vllm-deepseek-v3.2-h20-tp8-parsers': {},
    'recipes/vllm-glm-5.1-fp8-h200-tp8-mtp3': {},
    'recipes/vllm-gpt-oss-120b-b200-tp1-config': {'serving.roles[server].pp': UNPUBLISHED, 'serving.roles[server].dp': UNPUBLISHED, 'serving.roles[server].ep': UNPUBLISHED, 'serving.roles[server].dcp': UNPUBLISHED, 'speculative_decoding': SPEC_UNKNOWN},
    'recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep': {},
}

ALL = sorted(str(p.parent.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("submission.yaml"))
FULL = sorted(rel for rel, exp in EXPECTED.items() if not exp)


@pytest.fixture(scope="module")
def kb():
    return knowledge()


def _without_manifest(rel: str, tmp_path: Path) -> Path:
    d = copy_submission(rel, tmp_path)
    (d / "submission.yaml").unlink()
    return d


def test_every_example_is_in_the_table():
    assert sorted(EXPECTED) == ALL


@pytest.mark.parametrize("rel", ALL)
def test_init_reproduces_the_derivable_fields(rel, tmp_path, kb):
    published = yaml.safe_load((EXAMPLES / rel / "submission.yaml").read_text(encoding="utf-8"))
    d = derive(str(_without_manifest(rel, tmp_path)), kb)
    got = compare(d, published, kb)
    found = {}
    for field, status in got.items():
        if status in ("equal", "agrees"):
            continue
        found[field] = "DIFFERS" if status.startswith("differs") else status
    want = EXPECTED[rel]
    assert set(found) == set(want), f"{rel}: {found}"
    for field, reason in want.items():
        if reason == "DIFFERS":
            assert found[field] == "DIFFERS", (rel, field, got[field])
        else:
            assert found[field].startswith("not derived") and reason in found[field], (rel, field, found[field])


def test_fully_reproduced_examples_are_the_recipes_we_expect():
    # the measurement in the README: examples whose every declared derivable field init reproduces
    assert FULL == [
        "catalog/deepseek-v4-flash/rtx6000d-sglang-lws-tp8-pp2",
        "catalog/deepseek-v4-flash/rtx6000d-sglang-tp4-marlin",
        "catalog/glm-5.2/rtx6000d-sglang-pd-tp8-pp2-ep8-hicache",
        "catalog/kimi-k3/rtx6000d-sglang-lws-tp8-pp4-marlin",
        "recipes/dynamo-sglang-qwen3-0.6b-disagg-multinode",
        "recipes/dynamo-sglang-qwen3-0.6b-disagg-multinode-v1beta1",
        "recipes/kthena-vllm-llama-3.1-405b-multinode",
        "recipes/sglang-deepseek-v3.2-exp-h200-tp8-dp8-mtp",
        "recipes/sglang-deepseek-v3.2-h200-tp8-dp8-parsers",
        "recipes/vllm-deepseek-v3.2-h20-tp8-parsers",
        "recipes/vllm-glm-5.1-fp8-h200-tp8-mtp3",
        "recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep",
    ]


def test_derivable_fields_are_schema_fields():
    schema = yaml.safe_load((Path(__file__).parents[1] / "schemas" / "submission.schema.json").read_text())
    for field in DERIVABLE:
        head, _, rest = field.partition(".")
        assert head in schema["properties"], field
        if head == "serving" and rest.startswith("roles[]."):
            assert rest[len("roles[]."):] in schema["$defs"]["role"]["properties"], field
        elif rest:
            assert rest in schema["properties"][head]["properties"], field


# ---- an existing manifest: derivable fields altered, init puts them back ----------------------
ALTERATIONS = {
    # example -> (old text, altered text) in its submission.yaml
    "recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep": [("    dp: 8\n", "    dp: 4\n"), ("accelerators_used: 8", "accelerators_used: 16"),
                                                  ("  name: vllm", "  name: sglang")],
    "nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d": [("    instances: 6\n", "    instances: 5\n"),
                                                        ("  draft_tokens: 3", "  draft_tokens: 2"),
                                                        ("  - server_config.yaml\n", "")],
    "artificial-analysis/kimi-k3/b300-sglang-tp8-dspark7": [("speculative_decoding:\n  algorithm: DSPARK\n  draft_tokens: 7\n",
                                                             "speculative_decoding: null\n"),
                                                            ("  mode: aggregated", "  mode: disaggregated")],
    "recipes/sglang-deepseek-v3.2-exp-h200-tp8-dp8-mtp": [("attention_dp: true", "attention_dp: false"),
                                                          ("model: deepseek-ai/DeepSeek-V3.2-Exp", "model: deepseek-ai/DeepSeek-V3.2")],
    "nvidia/kimi-k3/gb300-dynamo-sglang-tp8-ep8-dspark7-replayssm-1p1d-mooncake-hicache-r1-v1":
        [("    - {path: decode.args, role: decode}\n", "    - {path: decode.args, role: prefill}\n")],
}


@pytest.mark.parametrize("rel", sorted(ALTERATIONS))
def test_init_restores_altered_derivable_fields_in_place(rel, tmp_path, kb):
    d = copy_submission(rel, tmp_path)
    manifest = d / "submission.yaml"
    original = manifest.read_text(encoding="utf-8")
    for old, new in ALTERATIONS[rel]:
        replace_once(manifest, old, new)
    result = run(str(d), kb)
    assert result.changes and len(result.changes) == len(ALTERATIONS[rel])
    # every other byte (comments, quoting, key order, flow style, the long folded notes) as published
    assert result.after == original


@pytest.mark.parametrize("rel", ALL)
def test_init_on_a_published_manifest_changes_only_what_differs(rel, tmp_path, kb):
    d = copy_submission(rel, tmp_path)
    result = run(str(d), kb)
    fields = {c.field for c in result.changes}
    differs = {f for f, why in EXPECTED[rel].items() if why == "DIFFERS"}
    assert fields == differs
    if not differs:
        assert result.after == result.before


# ---- the written manifest lints clean once filled in -------------------------------------------
def _fill_in(text: str, published: dict) -> str:
    """The new manifest with its null (FILL IN) fields given the published values."""
    data = yaml.safe_load(text)
    for key, value in data.items():
        if value is None and key != "speculative_decoding":
            data[key] = published[key]
    if data.get("speculative_decoding") is None and "speculative_decoding" not in yaml.safe_load(text) or \
            "FILL IN" in text.split("speculative_decoding:")[1].split("\n")[0]:
        data["speculative_decoding"] = published.get("speculative_decoding")
    data["system"] = published["system"]
    data["submitter"] = published["submitter"]
    pub_roles = {r["name"]: r for r in published["serving"]["roles"]}
    for r in data["serving"]["roles"]:
        for k, v in list(r.items()):
            if v is None:
                r[k] = pub_roles[r["name"]].get(k, 1)
    if "version" in published["engine"] and "version" not in data["engine"]:
        data["engine"]["version"] = published["engine"]["version"]
    if "orchestrator" in published["engine"]:
        data["engine"]["orchestrator"] = published["engine"]["orchestrator"]
    return yaml.safe_dump(data, sort_keys=False)


@pytest.mark.parametrize("rel", ALL)
def test_new_manifest_lints_like_the_published_one_once_filled_in(rel, tmp_path, kb):
    published = yaml.safe_load((EXAMPLES / rel / "submission.yaml").read_text(encoding="utf-8"))
    d = _without_manifest(rel, tmp_path)
    result = run(str(d), kb)
    assert result.before is None and "FILL IN" in result.after
    (d / "submission.yaml").write_text(_fill_in(result.after, published), encoding="utf-8")
    got = {(r, f) for r, f, *_ in lint(d) if f != "submission.yaml"}
    want = {(r, f) for r, f, *_ in lint(EXAMPLES / rel) if f != "submission.yaml"}
    # the differences are exactly the published omissions (EXPECTED 'DIFFERS'): none reaches a file
    assert got == want
    assert not [x for x in lint(d) if x[1] == "submission.yaml" and x[0] != "COV001"]


def _resolvers() -> dict:
    import yaml

    return {k: list(v) for k, v in yaml.resolver.Resolver.yaml_implicit_resolvers.items()}


@pytest.fixture(scope="module")
def yamllint_default():
    """yamllint's default rules, and a runner that lends yamllint its YAML resolvers only while it
    runs: importing yamllint adds a YAML 1.2 octal resolver to PyYAML's Resolver class for good
    (yamllint/rules/quoted_strings.py), which every later test in the process would parse with."""
    import yaml

    before = _resolvers()
    from yamllint import linter
    from yamllint.config import YamlLintConfig

    theirs = _resolvers()
    yaml.resolver.Resolver.yaml_implicit_resolvers = before

    def run_yamllint(text: str) -> list:
        yaml.resolver.Resolver.yaml_implicit_resolvers = theirs
        try:
            return list(linter.run(text, YamlLintConfig("extends: default")))
        finally:
            yaml.resolver.Resolver.yaml_implicit_resolvers = before

    return run_yamllint


@pytest.mark.parametrize("rel", ALL)
def test_new_manifest_passes_yamllint_default_rules(rel, tmp_path, kb, yamllint_default):
    # submission repositories run yamllint in pre-commit: a new manifest adds no error and no
    # warning (a document start, two spaces before a comment, lines within 80 columns)
    def problems(text: str) -> list[str]:
        return [f"{p.line}:{p.column} {p.level} {p.desc} ({p.rule})" for p in yamllint_default(text)]

    text = run(str(_without_manifest(rel, tmp_path)), kb).after
    assert "FILL IN" in text
    assert problems(text) == [], text
    # the control: yamllint's defaults report what init wrote before (no document start, one
    # space before a comment, a long comment line)
    control = text.replace("---\n", "", 1).replace("  # FILL IN", " # FILL IN", 1) + "# " + " ".join(["word"] * 20) + "\n"
    assert {p.rsplit("(", 1)[1] for p in problems(control)} == {"document-start)", "comments)", "line-length)"}


def test_new_manifest_is_invalid_until_filled_in(tmp_path):
    d = _without_manifest("recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep", tmp_path)
    r = CliRunner().invoke(main, ["init", str(d)])
    assert r.exit_code == 0, r.output
    text = (d / "submission.yaml").read_text()
    assert "submitter: null  # FILL IN" in text and "accelerator: null  # FILL IN" in text
    # an editor's YAML language server validates the new manifest against the published schema
    # (the modeline is longer than yamllint's 80 columns: yamllint is told so around it)
    assert text.split("\n")[:3] == ["# yamllint disable rule:line-length",
                                    "# yaml-language-server: $schema="
                                    "https://raw.githubusercontent.com/cfglint/cfglint/main/schemas/submission.schema.json",
                                    "# yamllint enable rule:line-length"]
    lines = text.split("\n")
    at = {n for n, line in enumerate(lines, start=1)
          if line.startswith(("submitter: null", "  accelerator: null", "  accelerators_total: null"))}
    assert len(at) == 3
    assert {f[2] for f in lint(d) if f[0] == "SUB001"} == at


# ---- command line: dry run, diff, bad input, safe writes -----------------------------------------
def _cli(*args):
    return CliRunner().invoke(main, ["init", *args], catch_exceptions=False)


def test_dry_run_and_diff_write_nothing(tmp_path):
    d = copy_submission("recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep", tmp_path)
    line = replace_once(d / "submission.yaml", "    dp: 8\n", "    dp: 2\n")
    before = (d / "submission.yaml").read_bytes()
    r = _cli(str(d), "--dry-run")
    assert r.exit_code == 1 and "serving.roles[server].dp: 2 -> 8" in r.stderr and r.stdout == ""
    r = _cli(str(d), "--diff")
    assert r.exit_code == 1 and "-    dp: 2\n+    dp: 8\n" in r.stdout and f"@@ -{line - 3}," in r.stdout
    assert (d / "submission.yaml").read_bytes() == before
    r = _cli(str(d))
    assert r.exit_code == 0 and "wrote" in r.stderr
    assert (d / "submission.yaml").read_bytes() == (EXAMPLES / "recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep/submission.yaml").read_bytes()
    r = _cli(str(d), "--diff")   # nothing left to change
    assert r.exit_code == 0 and r.stdout == "" and "nothing to change" in r.stderr


def test_a_single_launch_script_takes_the_configs_it_names(tmp_path, kb):
    d = _without_manifest("recipes/trtllm-gpt-oss-120b-b200-dep8-throughput", tmp_path)
    (d / "notes.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")   # a Kubernetes object: not an engine config
    r = _cli(str(d / "run.sh"))
    assert r.exit_code == 0, r.stderr
    data = yaml.safe_load((d / "submission.yaml").read_text())
    assert data["files"] == {"launch": ["run.sh"]}   # run.sh writes /tmp/config.yml itself; it names no published config
    assert data["serving"]["roles"] == [{"name": "server", "instances": 1, "accelerators_per_instance": 8, "tp": 8,
                                         "dp": 8, "ep": 8, "attention_dp": True}]
    (d / "submission.yaml").unlink()
    d2 = derive(str(d), kb)
    assert d2.manifest["files"]["configs"] == ["config.yml"] and "notes.yaml" in d2.skipped


def _one_line_error(r):
    assert r.exit_code == 2, (r.exit_code, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cfglint: error: ") and "Traceback" not in r.stderr
    return lines[0]


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    assert "no such file" in _one_line_error(_cli(str(tmp_path / "nope.sh")))
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "run.sh").write_text("echo hello\npython3 train.py --epochs 3\n")
    assert "no engine launch found" in _one_line_error(_cli(str(tmp_path / "a")))
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "run.sh").write_bytes(b"vllm serve x/y\x00\xff\n")
    assert "binary file" in _one_line_error(_cli(str(tmp_path / "b" / "run.sh")))
    (tmp_path / "c").mkdir()
    assert "no launch script" in _one_line_error(_cli(str(tmp_path / "c")))
    d = copy_submission("recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep", tmp_path)
    (d / "submission.yaml").write_text("schema_version: 1\nserving: [unclosed\n")
    assert "is not valid YAML" in _one_line_error(_cli(str(d)))
    (d / "submission.yaml").write_text("- just\n- a list\n")
    assert "not a YAML mapping" in _one_line_error(_cli(str(d)))


def test_links_are_never_followed_out_or_written_through(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "submission.yaml"
    secret.write_text("schema_version: 1\n")
    d = copy_submission("recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep", tmp_path / "tree")
    subprocess.run(["git", "init", "-q", str(tmp_path / "tree")], check=True)
    (d / "submission.yaml").unlink()
    os.symlink(secret, d / "submission.yaml")
    assert "symbolic link" in _one_line_error(_cli(str(d)))
    os.symlink(outside, d / "linked")   # a directory reached through a link out of the tree
    assert "leads outside" in _one_line_error(_cli(str(d / "linked")))
    assert secret.read_text() == "schema_version: 1\n"
    (d / "submission.yaml").unlink()
    os.symlink(outside / "run.sh", d / "launch.sh")   # a launch file linked out of the directory
    (outside / "run.sh").write_text("vllm serve a/b --tensor-parallel-size 2\n")
    r = _cli(str(d))
    assert r.exit_code == 0
    assert yaml.safe_load((d / "submission.yaml").read_text())["files"]["launch"] == ["run.sh"]
    # the manifest is a link inside the tree: refused too (atomic_write never writes through a link)
    (d / "submission.yaml").rename(d / "real.yaml")
    os.symlink("real.yaml", d / "submission.yaml")
    replace_once(d / "real.yaml", "  name: vllm", "  name: sglang")
    assert "symbolic link" in _one_line_error(_cli(str(d)))


def test_check_does_not_import_ruamel():
    code = ("import sys; from cfglint.lint import lint_paths; "
            f"lint_paths([{str(EXAMPLES / 'recipes')!r}]); print('ruamel' in ' '.join(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_comments_quoting_and_flow_style_survive_an_update(tmp_path, kb):
    d = copy_submission("recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep", tmp_path)
    text = (d / "submission.yaml").read_text()
    text = text.replace("  name: vllm\n", "  name: 'vllm'   # engine, as run\n").replace(
        "files:\n  launch:\n  - run.sh\n", "files:\n  launch: [run.sh]   # flow style\n").replace(
        "    dp: 8\n", "    dp: 1  # was 8?\n")
    text = "# top comment\n" + text
    new, changes = update_text(text, derive(str(d), kb, yaml.safe_load(text)), kb)
    assert [str(c) for c in changes] == ["serving.roles[server].dp: 1 -> 8"]
    assert new == text.replace("    dp: 1  # was 8?\n", "    dp: 8  # was 8?\n")


@pytest.mark.parametrize("manifest, code, words", [
    ("serving: {roles: x}\n", 1, "serving.roles[server]: (absent)"),
    ('serving: {roles: [1, "a", {name: 5}]}\n', 1, "serving.roles[server]: (absent)"),
    ("files: {launch: 5, configs: {a: 1}}\n", 1, "files.launch: (absent) -> run.sh"),
    ("engine: []\n", 1, "engine.name: (absent) -> vllm"),
    ("a: &x [*x]\n", 2, "recursive structure"),
    ("{a: 1, a: 2}\n", 2, 'duplicate key "a"'),
    ("!!python/object:os.system x\n", 2, "not a YAML mapping"),
    ("speculative_decoding: {algorithm: [1]}\n", 1, "speculative_decoding: {algorithm: [1]} -> null"),
    ("? [a]\n: b\n", 1, "model: (absent)"),
    ("", 2, "not a YAML mapping"),
])
def test_odd_manifests_never_crash(tmp_path, manifest, code, words):
    shutil.copy(EXAMPLES / "recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep/run.sh", tmp_path / "run.sh")
    (tmp_path / "submission.yaml").write_text(manifest)
    r = _cli(str(tmp_path), "--dry-run")
    assert r.exit_code == code and "Traceback" not in r.stderr and words in r.stderr, r.stderr


def _altered(text: str, rel: str, status: dict) -> tuple[str, int]:
    """``text`` (a published manifest) with every derivable scalar init reproduces ('equal')
    changed to another value, at its exact span (cfglint's positioned YAML), and the count."""
    from cfglint.read.yamlsrc import parse_yaml, walk_path

    root = parse_yaml(text, "submission.yaml")
    data = yaml.safe_load(text)
    edits = []

    def alter(path, field):
        node = walk_path(root, path)
        if node is None or status.get(field) != "equal" or not hasattr(node, "text"):
            return
        v = node.value
        if isinstance(v, bool):
            new = "false" if v else "true"
        elif isinstance(v, int):
            new = str(v + 1)
        elif field == "engine.name":
            new = "sglang" if v != "sglang" else "vllm"
        elif field == "serving.mode":
            return   # the roles' names follow the mode: altered below through a role instead
        elif field == "model":
            new = "acme/another-model"
        elif field == "precision":
            new = "BF16" if v != "BF16" else "FP8"
        else:
            return
        edits.append((node.span, new))

    alter(("model",), "model")
    alter(("precision",), "precision")
    alter(("engine", "name"), "engine.name")
    alter(("accelerators_used",), "accelerators_used")
    alter(("speculative_decoding", "draft_tokens"), "speculative_decoding")
    for i, r in enumerate(data["serving"]["roles"]):
        for key in ("instances", "accelerators_per_instance", "tp", "pp", "dp", "ep", "dcp", "attention_dp"):
            if key in r:
                alter(("serving", "roles", i, key), f"serving.roles[{r['name']}].{key}")
    lines = text.split("\n")
    for span, new in sorted(edits, key=lambda e: (e[0].line, e[0].col), reverse=True):
        line = lines[span.line - 1]
        lines[span.line - 1] = line[:span.col - 1] + new + line[span.end_col - 1:]
    return "\n".join(lines), len(edits)


@pytest.mark.parametrize("rel", ALL)
def test_init_restores_every_altered_derivable_field(rel, tmp_path, kb):
    published = (EXAMPLES / rel / "submission.yaml").read_text(encoding="utf-8")
    status = compare(derive(str(EXAMPLES / rel), kb, yaml.safe_load(published)), yaml.safe_load(published), kb)
    d = copy_submission(rel, tmp_path)
    reference = run(str(d), kb)               # init on the published manifest (changes: its DIFFERS only)
    altered, n = _altered(published, rel, status)
    assert n > 0 and altered != published
    (d / "submission.yaml").write_text(altered, encoding="utf-8")
    result = run(str(d), kb)
    assert result.after == reference.after    # every altered field put back, every other byte as published
    assert len(result.changes) == n + len(reference.changes)


def test_engine_version_comes_from_the_image_tag(tmp_path, kb):
    rel = "recipes/sglang-deepseek-v3.2-exp-h200-tp8-dp8-mtp"
    d = copy_submission(rel, tmp_path)
    replace_once(d / "run.sh", "python -m sglang.launch_server", "docker run --gpus all lmsysorg/sglang:v0.5.4-cu129 "
                                                                 "python -m sglang.launch_server")
    result = run(str(d), kb)
    assert [str(c) for c in result.changes] == ["engine.version: (absent) -> 0.5.4"]
    assert "  name: sglang\n  version: 0.5.4\n" in result.after      # after the name, in the schema's order
    text = (d / "submission.yaml").read_text()
    (d / "submission.yaml").write_text(text.replace("  name: sglang\n", '  name: sglang\n  version: "0.5.4 (H200 build)"\n'))
    assert run(str(d), kb).changes == []                             # the same release, written another way
    (d / "submission.yaml").write_text(text.replace("  name: sglang\n", '  name: sglang\n  version: "0.5.3"\n'))
    again = run(str(d), kb)
    assert [str(c) for c in again.changes] == ["engine.version: 0.5.3 -> 0.5.4"]
    assert '  version: "0.5.4"\n' in again.after                       # its quoting kept


def test_launch_text_in_a_fill_in_comment_cannot_add_keys_to_the_manifest(tmp_path):
    # a model path with line breaks is quoted in the model field's FILL IN comment: escaped there
    d = tmp_path / "sub"
    d.mkdir()
    (d / "launch.sh").write_text('#!/bin/bash\nvllm serve "/models/x\nsubmitter: INJECTED\nprecision: FP8 #" '
                                 "--tensor-parallel-size 8\n", encoding="utf-8")
    r = _cli(str(d))
    assert r.exit_code == 0, r.output
    text = (d / "submission.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert data["submitter"] is None and data["precision"] is None and "INJECTED" not in str(data)
    comments = " ".join(line.strip().removeprefix("# ") for line in text.splitlines() if line.lstrip().startswith("#"))
    assert "/models/x\\nsubmitter: INJECTED\\nprecision: FP8 #" in comments   # shown, in comment lines only

