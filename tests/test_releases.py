"""Rules against the release a launch runs (issue 21): each from a published launch changed in
one place, linted at two releases of the engine: clean on the release that takes it, an error
on the one that refuses it. The facts are the compiled data of rules/releases/ (read from the
released packages; the compiler's tests check the data against them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfglint.lint import lint_paths
from support import copy_submission, replace_once, shared

VLLM = "recipes/vllm-deepseek-v3.2-h20-tp8-parsers"          # vllm serve ... (run.sh)
DYNAMO_SGLANG = "recipes/dynamo-sglang-qwen3-0.6b-disagg-multinode"   # python3 -m dynamo.sglang (Kubernetes)
SGLANG = "recipes/sglang-deepseek-v3.2-h200-tp8-dp8-parsers"  # python -m sglang.launch_server (run.sh)


def _at(rel: str, tmp_path: Path, release: str, *, key: str = "version", name: str = "name: vllm",
        edits: tuple[tuple[str, str, str], ...] = ()) -> list:
    """The findings of published submission ``rel`` with its manifest declaring ``release``
    (``engine.<key>``, written after the manifest's ``engine.<name>`` line) and ``edits``
    ((file, old, new), each replacing one place)."""
    import tempfile

    d = copy_submission(rel, Path(tempfile.mkdtemp(prefix=f"{release}-", dir=tmp_path)))
    replace_once(d / "submission.yaml", f"  {name}\n", f"  {name}\n  {key}: \"{release}\"\n")
    for file, old, new in edits:
        replace_once(d / file, old, new)
    return lint_paths([str(d)]).findings


def _of(findings, rule: str, text: str = "") -> list:
    return [f for f in findings if f.rule_id == rule and text in f.message]


# -- FLG001: flags of the release ------------------------------------------------------------
ALL2ALL = (("run.sh", "   --tensor-parallel-size 8 \\\n", "   --tensor-parallel-size 8 \\\n   --all2all-backend deepep_low_latency \\\n"),)


def test_a_flag_newer_than_the_release_is_an_error_naming_the_release_that_added_it(tmp_path):
    (f,) = _of(_at(VLLM, tmp_path, "0.11.0", edits=ALL2ALL), "FLG001", "--all2all-backend")
    assert f.level == "error" and f.span.line == 4
    assert "vLLM 0.11.0" in f.message and "0.11.2" in f.message
    assert not _of(_at(VLLM, tmp_path, "0.11.2", edits=ALL2ALL), "FLG001")


def test_a_flag_the_release_removed_is_an_error_naming_the_last_release_that_had_it(tmp_path):
    edits = (("run.sh", "   --tensor-parallel-size 8 \\\n", "   --tensor-parallel-size 8 \\\n   --swap-space 16 \\\n"),)
    assert not _of(_at(VLLM, tmp_path, "0.17.1", edits=edits), "FLG001")
    (f,) = _of(_at(VLLM, tmp_path, "0.19.1", edits=edits), "FLG001", "--swap-space")
    assert f.level == "error" and "0.17.1" in f.message


def test_a_typo_is_an_error_at_a_declared_release_and_a_warning_when_none_is_declared(tmp_path):
    edits = (("run.sh", "   --tensor-parallel-size 8 \\\n",
              "   --tensor-parallel-size 8 \\\n   --gpu-memory-utilisation 0.9 \\\n"),)
    (f,) = _of(_at(VLLM, tmp_path, "0.11.0", edits=edits), "FLG001", "--gpu-memory-utilisation")
    assert f.level == "error" and "--gpu-memory-utilization" in f.message   # the spelling it meant
    d = copy_submission(VLLM, tmp_path / "undeclared")
    replace_once(d / "run.sh", *edits[0][1:])
    (g,) = _of(lint_paths([str(d)]).findings, "FLG001", "--gpu-memory-utilisation")
    # a flag of no release at all is an error even when the release is not known
    assert g.level == "error"


def test_the_image_tag_is_the_release_of_a_kubernetes_launch(tmp_path):
    # a published GKE-style manifest pinning vllm/vllm-openai:v0.9.2 (through a mirror) with --swap-space
    corpus = shared("corpus")
    src = corpus / "020-aibrix-vllm-qwen-vl" / "qwen-vl.yaml"
    assert not _of(lint_paths([str(src)]).findings, "FLG001", "--swap-space")
    moved = tmp_path / "qwen-vl.yaml"
    moved.write_text(src.read_text(encoding="utf-8").replace("vllm/vllm-openai:v0.9.2", "vllm/vllm-openai:v0.19.1"),
                     encoding="utf-8")
    (f,) = _of(lint_paths([str(moved)]).findings, "FLG001", "--swap-space")
    assert f.level == "error" and "vLLM 0.19.1" in f.message


# -- PRS001: parser registries of the release ------------------------------------------------
def test_a_tool_parser_newer_than_the_release_is_an_error(tmp_path):
    edits = (("run.sh", "--tool-call-parser deepseek_v32", "--tool-call-parser llama3_json"),)
    (f,) = _of(_at(VLLM, tmp_path, "0.6.2", edits=edits), "PRS001", "llama3_json")
    assert f.level == "error" and "0.6.2" in f.message
    assert not _of(_at(VLLM, tmp_path, "0.6.6.post1", edits=edits), "PRS001", "llama3_json")


DYN_V3 = (("disagg-multinode.yaml", "            - --skip-tokenizer-init\n            - --disaggregation-mode\n            - decode\n",
           "            - --skip-tokenizer-init\n            - --dyn-tool-call-parser\n            - deepseek_v3\n"
           "            - --disaggregation-mode\n            - decode\n"),)


def test_a_dynamo_parser_newer_than_the_orchestrator_release_names_orchestrator_version(tmp_path):
    """The Dynamo release is the manifest's engine.orchestrator_version, not its engine.version
    (SGLang's, here not declared): the message says which field it read (it said "the manifest's
    engine version")."""
    kw = {"key": "orchestrator_version", "name": "orchestrator: dynamo", "edits": DYN_V3}
    (f,) = _of(_at(DYNAMO_SGLANG, tmp_path, "0.6.0", **kw), "PRS001", "deepseek_v3")
    assert "Dynamo 0.6.0 (the manifest's orchestrator_version)" in f.message and "0.7.1" in f.message
    assert not _of(_at(DYNAMO_SGLANG, tmp_path, "0.7.1", **kw), "PRS001")
    typo = (("disagg-multinode.yaml", "            - --skip-tokenizer-init\n            - --disaggregation-mode\n            - decode\n",
             "            - --skip-tokenizer-init\n            - --dyn-tool-call-parsr\n            - hermes\n"
             "            - --disaggregation-mode\n            - decode\n"),)
    (g,) = _of(_at(DYNAMO_SGLANG, tmp_path, "1.0.2", key="orchestrator_version", name="orchestrator: dynamo",
                   edits=typo), "FLG001", "--dyn-tool-call-parsr")
    assert "1.0.2 (the manifest's orchestrator_version)" in g.message and "engine version" not in g.message
    # engine.version still reads as the engine's own (SGLang's)
    (h,) = _of(_at(DYNAMO_SGLANG, tmp_path, "0.5.4", key="version", name="name: sglang",
                   edits=(("disagg-multinode.yaml", "            - --tp-size\n            - \"8\"\n            - --trust-remote-code\n            - --skip-tokenizer-init\n            - --disaggregation-mode\n            - decode\n",
                           "            - --tp-size\n            - \"8\"\n            - --trust-remote-code\n            - --skip-tokenizer-init\n            - --tool-call-parser\n            - hermes\n            - --disaggregation-mode\n            - decode\n"),)),
               "PRS001", "hermes")
    assert "SGLang 0.5.4 (the manifest's engine version)" in h.message


# -- ENV001: the engine's environment variables ------------------------------------------------
def test_a_variable_the_release_replaced_by_a_flag_is_reported(tmp_path):
    edits = (("run.sh", "  vllm serve", "  VLLM_ALL2ALL_BACKEND=deepep_low_latency vllm serve"),)
    assert not _of(_at(VLLM, tmp_path, "0.15.1", edits=edits), "ENV001")
    (f,) = _of(_at(VLLM, tmp_path, "0.19.1", edits=edits), "ENV001", "VLLM_ALL2ALL_BACKEND")
    assert "0.15.1" in f.message
    # the variable's name is underlined (the finding is about the name), not its value
    line = Path(f.span.path).read_text(encoding="utf-8").split("\n")[f.span.line - 1]
    assert line[f.span.col - 1:f.span.end_col - 1] == "VLLM_ALL2ALL_BACKEND"


# -- FLG004: flag pairs the release refuses ------------------------------------------------------
DYN_PARSERS = (("disagg-multinode.yaml", "            - --skip-tokenizer-init\n            - --disaggregation-mode\n            - decode\n",
                "            - --skip-tokenizer-init\n            - --dyn-tool-call-parser\n            - hermes\n"
                "            - --tool-call-parser\n            - qwen25\n            - --disaggregation-mode\n            - decode\n"),)


def test_dynamo_refuses_its_own_and_sglang_s_tool_call_parser_together_from_1_0_2(tmp_path):
    kw = {"key": "orchestrator_version", "name": "orchestrator: dynamo", "edits": DYN_PARSERS}
    assert not _of(_at(DYNAMO_SGLANG, tmp_path, "0.9.1", **kw), "FLG004")
    (f,) = _of(_at(DYNAMO_SGLANG, tmp_path, "1.0.2", **kw), "FLG004")
    assert f.level == "error" and "Dynamo 1.0.2" in f.message and "--tool-call-parser" in f.message


def test_sglang_refuses_hierarchical_cache_without_the_radix_cache_from_0_5_1(tmp_path):
    edits = (("run.sh", "--enable-dp-attention", "--enable-dp-attention --enable-hierarchical-cache --disable-radix-cache"),)
    kw = {"name": "name: sglang", "edits": edits}
    assert not _of(_at(SGLANG, tmp_path, "0.5.0rc2", **kw), "FLG004")
    (f,) = _of(_at(SGLANG, tmp_path, "0.5.1.post3", **kw), "FLG004")
    assert f.level == "error" and "SGLang 0.5.1.post3" in f.message and "--disable-radix-cache" in f.message


# -- FLG005: value checks of the release ---------------------------------------------------------
def test_vllm_refuses_a_batch_budget_below_the_sequence_count(tmp_path):
    edits = (("run.sh", "   --tensor-parallel-size 8 \\\n",
              "   --tensor-parallel-size 8 \\\n   --max-num-seqs 512 \\\n   --max-num-batched-tokens 256 \\\n"),)
    (f,) = _of(_at(VLLM, tmp_path, "0.19.1", edits=edits), "FLG005")
    assert f.level == "error" and "max_num_batched_tokens < max_num_seqs" in f.message and "scheduler.py" in f.message
    fine = (("run.sh", "   --tensor-parallel-size 8 \\\n",
             "   --tensor-parallel-size 8 \\\n   --max-num-seqs 512 \\\n   --max-num-batched-tokens 8192 \\\n"),)
    assert not _of(_at(VLLM, tmp_path, "0.19.1", edits=fine), "FLG005")


@pytest.mark.parametrize("release,refused", [("0.28.0", True), ("0.30.0", True), ("0.6.6.post1", True), ("0.6.2", False)])
def test_vllm_refuses_auto_tool_choice_without_a_parser_at_every_release_that_checks_it(tmp_path, release, refused):
    # the check moved between files (entrypoints/openai, launchers, common cli_args): every release has it.
    # PRS004 says the mistake with the parser to add and stands for the release's check (Rule.supersedes):
    # it is an error only where that check (FLG005) refuses the launch, a warning otherwise
    edits = (("run.sh", "   --tool-call-parser deepseek_v32 \\\n", ""),)
    found = _at(VLLM, tmp_path, release, edits=edits)
    assert _of(found, "FLG005", "enable_auto_tool_choice") == []
    (prs,) = _of(found, "PRS004", "--enable-auto-tool-choice")
    assert (prs.level == "error") == refused


def test_a_build_of_the_vllm_image_under_a_longer_name_keeps_the_release_its_tag_names(tmp_path):
    """Corpus 024 (AIBrix): aibrix/vllm-openai-aibrix-kvcache-nixl:v0.10.2-... is vLLM 0.10.2, which
    reads VLLM_USE_V1: no ENV001 (it said "the release is not declared" and checked 0.33.0). The
    control: the same tag on an image of another name names no release, and the warning is back."""
    src = shared("corpus") / "024-aibrix-vllm-qwen3-32b-tp4-replicas2" / "qwen3-32b-tp4-replicas2.yaml"
    path = tmp_path / "w.yaml"
    path.write_bytes(src.read_bytes())
    assert [f for f in lint_paths([str(path)]).findings if f.rule_id == "ENV001"] == []
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("/aibrix/vllm-openai-aibrix-kvcache-nixl:", "/aibrix/runtime:", 1), encoding="utf-8")
    env = [f for f in lint_paths([str(path)]).findings if f.rule_id == "ENV001"]
    assert env and "VLLM_USE_V1" in env[0].message and "not declared" in env[0].message


TRTLLM_PD = "015-aibrix-tensorrt-tensor-rt-pd/tensor-rt-pd.yaml"   # aibrix/tensorrt-llm:1.3.0rc8, trtllm-serve x2
RELEASE_GAP = "flags of trtllm-serve at the release the launch runs"


def _trtllm_gaps(path: Path) -> list[str]:
    return [m for f in lint_paths([str(path)]).findings if f.rule_id == "COV001" for _s, m in f.related
            if m.startswith(RELEASE_GAP)]


def test_a_tensorrt_llm_image_tag_in_the_hand_list_s_line_is_the_release_its_flags_are_checked_at(tmp_path):
    """Corpus 015 (AIBrix): both trtllm-serve launches run aibrix/tensorrt-llm:1.3.0rc8, a copy of
    NGC's nvcr.io/nvidia/tensorrt-llm/release under another owner: TensorRT-LLM 1.3.0rc8, of the
    1.2-1.3 line rules/flags/trtllm.yaml holds, so no COV001 says its flags were not checked at
    the release it runs (it said "the release it runs is not declared")."""
    path = shared("corpus") / TRTLLM_PD
    assert _trtllm_gaps(path) == []
    # the tag changed in one place: a release beyond the hand list's line is named in the note
    later = tmp_path / "tensor-rt-pd.yaml"
    later.write_text(path.read_text(encoding="utf-8").replace("tensorrt-llm:1.3.0rc8", "tensorrt-llm:1.4.0rc1", 1),
                     encoding="utf-8")
    gaps = _trtllm_gaps(later)
    assert len(gaps) == 1 and "it runs 1.4.0rc1" in gaps[0] and "hand-made list of 1.2-1.3" in gaps[0]
    # the control: an image of another name (not a TensorRT-LLM image) names no release
    other = tmp_path / "other.yaml"
    other.write_text(path.read_text(encoding="utf-8").replace("/aibrix/tensorrt-llm:", "/aibrix/runtime:"),
                     encoding="utf-8")
    assert [("not declared" in g) for g in _trtllm_gaps(other)] == [True, True]


@pytest.mark.parametrize("image, release", [
    ("nvcr.io/nvidia/tensorrt-llm/release:1.0.0rc6", "1.0.0rc6"),          # NGC (examples/submissions/recipes)
    ("registry.example:5000/nvidia/tensorrt-llm/release:1.2.0", "1.2.0"),  # a mirror keeps NGC's path
    ("aibrix/tensorrt-llm:1.3.0rc8", "1.3.0rc8"),                          # another owner's copy (corpus 015)
    ("nvcr.io/nvidia/tritonserver:25.04-trtllm-python-py3", None),        # Triton's release, not TensorRT-LLM's
    ("example/tensorrt-llm-runner", None),                                 # no tag: no release
])
def test_tensorrt_llm_images_and_the_release_their_tag_names(image, release):
    from cfglint.deploy.release import from_image
    from cfglint.knowledge import knowledge
    from cfglint.model import Located

    found = from_image(Located(image, None), "trtllm", knowledge())
    assert (found.value if found is not None else None) == release


def test_an_aibrix_build_of_the_sglang_image_runs_the_release_its_tag_names(tmp_path):
    # corpus 016: aibrix/sglang:v0.4.9.post3-cu126-nixl-v0.4.1 is FROM lmsysorg/sglang:v0.4.9.post3-cu126
    # (vllm-project/aibrix samples/disaggregation/sglang/README.md); its router beside it,
    # aibrix/sglang-router:v0.1.6, stays the router's (found by a new-user trial)
    src = shared("corpus") / "016-aibrix-sglang-pool" / "pool.yaml"
    text = src.read_text(encoding="utf-8")
    bogus = text.replace("--disaggregation-mode prefill", "--disaggregation-mode prefill --bogus-flag-x 1", 1)
    path = tmp_path / "pool.yaml"
    path.write_text(bogus, encoding="utf-8")
    (f,) = _of(lint_paths([str(path)]).findings, "FLG001", "--bogus-flag-x")
    assert f.message.startswith("SGLang 0.4.9.post3 (the image tag;")
    path.write_text(bogus.replace("aibrix/sglang:v0.4.9.post3", "example/inference:v0.4.9.post3"), encoding="utf-8")
    (g,) = _of(lint_paths([str(path)]).findings, "FLG001", "--bogus-flag-x")
    assert g.message == "SGLang has no flag --bogus-flag-x"     # a flag of no release: the release matters not
    assert not _of(lint_paths([str(src)]).findings, "FLG001")


def test_env001_in_a_kubernetes_env_entry_underlines_the_name():
    # corpus 038: `- name: VLLM_ALL2ALL_BACKEND` / `value: pplx`: the finding is about the name
    # (was placed on the value `pplx`; found by a new-user trial)
    src = shared("corpus") / "038-kserve-dp-ep-deepseek-r1-pd-p-deepep-ht-d-pplx" / \
        "llm-inference-service-dp-ep-deepseek-r1-pd-gpu-p-deepep-ht-d-pplx.yaml"
    lines = src.read_text(encoding="utf-8").split("\n")
    found = _of(lint_paths([str(src)]).findings, "ENV001", "VLLM_ALL2ALL_BACKEND")
    assert found
    for f in found:
        assert lines[f.span.line - 1][f.span.col - 1:f.span.end_col - 1] == "VLLM_ALL2ALL_BACKEND"
        assert lines[f.span.line].strip().startswith("value: ")     # pplx, deepep_high_throughput
