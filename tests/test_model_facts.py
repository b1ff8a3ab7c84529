"""Model facts at scale: the generated tables (aiconfigurator-core's config.json copies, litgpt's
model config table), the user's Hugging Face cache read at lint time, local directories named
after a published model, and COV001 for a check that lacks a model fact (issue 22, part 3)."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import pytest
import yaml

from cfglint.knowledge import Knowledge, knowledge
from cfglint.knowledge import hfcache
from cfglint.knowledge.build import litgpt_configs, model_configs
from cfglint.knowledge.build.pyliteral import Unsupported, run_module
from cfglint.knowledge.bundled import data_dir
from cfglint.lint import lint_paths

RULES = data_dir("rules")
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def _models(name: str) -> dict:
    return yaml.safe_load((RULES / name).read_text(encoding="utf-8"))["models"]


def _cached(name_glob: str, sha: str | None = None) -> Path | None:
    for d in (litgpt_configs.cache_dir(), Path("/tmp/aic")):   # CFGLINT_BUILD_CACHE/models, as the generators
        for p in sorted(d.glob(name_glob)) if d.is_dir() else ():
            if sha is None or hashlib.sha256(p.read_bytes()).hexdigest() == sha:
                return p
    return None


# --- the generated tables ------------------------------------------------------------------------

def test_at_least_300_model_ids_with_the_facts_the_checks_use():
    kb = knowledge()
    ids = kb.model_configs
    assert len(ids) >= 300
    full = [e for e in ids.values() if all(e.get(f) for f in ("num_attention_heads", "num_key_value_heads",
                                                               "hidden_size", "num_hidden_layers"))]
    assert len(full) >= 290
    for entry in ids.values():   # every entry says where it was read, and ids are spelled org/name
        assert entry["source"] and "/" in entry["config_id"]
        assert entry["config_url"] == f"https://huggingface.co/{entry['config_id']}/blob/main/config.json"


def test_litgpt_facts_of_named_models_are_litgpt_s_table():
    data = _models("model_configs_litgpt.yaml")
    # litgpt 0.5.13 litgpt/config.py, entry "Llama-3.1-405B": n_layer=126, n_head=128, n_query_groups=8,
    # n_embd=16384, intermediate_size=53248, padded_vocab_size=128256, rope_adjustments factor 8
    e = data["meta-llama/Meta-Llama-3.1-405B"]
    assert (e["num_hidden_layers"], e["num_attention_heads"], e["num_key_value_heads"], e["hidden_size"]) == \
        (126, 128, 8, 16384)
    assert e["intermediate_size"] == 53248 and e["head_dim"] == 128 and e["vocab_size"] == 128256
    assert e["rope_scaling"]["rope_type"] == "llama3" and e["rope_scaling"]["factor"] == 8.0
    assert 400e9 < e["num_parameters"] < 410e9                       # the published "405B"
    assert e["source"] == "litgpt==0.5.13 (PyPI wheel) litgpt/config.py (configs entry name=Llama-3.1-405B)"
    # Qwen3-8B: n_layer=36, n_head=32, n_query_groups=8, n_embd=4096, intermediate_size=12288; its -Base twin
    q = data["Qwen/Qwen3-8B"]
    assert (q["num_hidden_layers"], q["num_attention_heads"], q["num_key_value_heads"], q["intermediate_size"]) == \
        (36, 32, 8, 12288)
    assert data["Qwen/Qwen3-8B-Base"]["hidden_size"] == 4096
    # Mistral-7B-v0.1 states only what differs from the Config defaults: n_head / n_embd are the defaults
    m = data["mistralai/Mistral-7B-v0.1"]
    assert (m["num_attention_heads"], m["hidden_size"], m["num_key_value_heads"], m["sliding_window"]) == (32, 4096, 8, 4096)
    assert m["max_position_embeddings"] is None        # litgpt's block_size 4096 is not the config's 32768
    # MoE: Mixtral-8x7B experts, gemma-3 sliding / full layers from sliding_window_indices
    assert data["mistralai/Mixtral-8x7B-v0.1"]["n_routed_experts"] == 8
    assert data["mistralai/Mixtral-8x7B-v0.1"]["num_experts_per_tok"] == 2
    assert data["google/gemma-3-27b-it"]["layer_types"] == {"sliding_attention": 52, "full_attention": 10}


def test_sources_agree_where_they_overlap():
    """litgpt's shapes equal aiconfigurator's copies of the config.json for every id both hold."""
    aic = {k.lower(): v for k, v in _models("model_configs.yaml").items()}
    lit = _models("model_configs_litgpt.yaml")
    both = [k for k in lit if k.lower() in aic]
    assert len(both) >= 10
    for k in both:
        for field in ("num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads",
                      "num_key_value_heads", "n_routed_experts", "num_experts_per_tok"):
            if aic[k.lower()].get(field) is not None:
                assert lit[k][field] == aic[k.lower()][field], (k, field)


def test_every_family_the_issue_names_resolves():
    kb = knowledge()
    e = kb.model("meta-llama/Llama-3.1-405B")
    assert (e["num_hidden_layers"], e["num_attention_heads"], e["num_key_value_heads"], e["hidden_size"]) == \
        (126, 128, 8, 16384)
    assert e["filled_from"]["num_parameters"].startswith("litgpt==0.5.13")   # aiconfigurator has no count
    r1 = kb.model("deepseek-ai/DeepSeek-R1")
    assert r1["mla"] is True and r1["n_routed_experts"] == 256
    assert r1["quantization"] == {"method": "fp8", "weight_block_size": [128, 128]}
    assert kb.model("Qwen/Qwen3-8B")["num_key_value_heads"] == 8
    for fp8 in ("zai-org/GLM-4.7-FP8", "zai-org/GLM-4.5-Air-FP8"):
        g = kb.model(fp8)
        assert g["checkpoint_precision"] == "FP8" and g["num_attention_heads"] == 96
        assert g["quantization"]["weight_block_size"] is None and g["quantization"]["inferred_from"]


def test_litgpt_table_is_the_generator_output_on_the_pinned_wheel():
    wheel = _cached(litgpt_configs.WHEEL_NAME, litgpt_configs.PINNED_SHA256)
    if wheel is None:
        pytest.skip(f"{litgpt_configs.WHEEL_NAME} not in the build cache ({litgpt_configs.cache_dir()}); "
                    f"`python -m cfglint.knowledge.build litgpt-configs` fetches it")
    assert (RULES / "model_configs_litgpt.yaml").read_text(encoding="utf-8") == litgpt_configs.generate(wheel)


def test_aiconfigurator_table_is_the_generator_output_on_the_pinned_wheel():
    wheel = _cached(f"aiconfigurator_core-{model_configs.PINNED_VERSION}-*.whl")
    if wheel is None:
        pytest.skip("aiconfigurator_core wheel not in the build cache")
    assert (RULES / "model_configs.yaml").read_text(encoding="utf-8") == model_configs.generate(wheel)


def test_the_table_reader_refuses_what_it_does_not_know():
    ok = run_module(ast.parse("a = [dict(n=1)]\nfor c in a:\n    b = dict(c)\n" if False else
                              "a = [dict(n=1, s='x{}')]\nfor c in list(a):\n    for k in ('', '-y'):\n"
                              "        d = deepcopy(c)\n        d['s'] = c['s'].format(k)\n        a.append(d)\n"))
    assert [c["s"] for c in ok["a"]] == ["x{}", "x", "x-y"]
    for bad in ("import os\nx = os.system('true')", "x = open('f')", "x = [i for i in range(10**9)]",
                "x = __import__('os')", "x = (lambda: 1)()"):
        with pytest.raises(Unsupported):
            run_module(ast.parse(bad))


# --- the Hugging Face cache ----------------------------------------------------------------------

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _fake_repo(cache: Path, repo_id: str, config: dict | bytes, commit: str = COMMIT) -> Path:
    """An HF hub cache entry as huggingface_hub writes it: the blob, the snapshot link, refs/main."""
    org, name = repo_id.split("/")
    repo = cache / f"models--{org}--{name}"
    data = config if isinstance(config, bytes) else json.dumps(config).encode()
    blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
    blob.parent.mkdir(parents=True)
    blob.write_bytes(data)
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True)
    (snap / "config.json").symlink_to(Path("..") / ".." / "blobs" / blob.name)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    return snap


def _linked_out(tmp_path: Path, cache: Path, repo_id: str) -> Path:
    """A cache entry of ``repo_id`` whose snapshot's config.json links to a file outside the
    cache; the outside file's path."""
    outside = tmp_path / "elsewhere" / "config.json"
    outside.parent.mkdir()
    outside.write_text(json.dumps(MINIMAX_LIKE))
    snap = _fake_repo(cache, repo_id, MINIMAX_LIKE)
    (snap / "config.json").unlink()
    (snap / "config.json").symlink_to(outside)
    return outside


MINIMAX_LIKE = {"model_type": "minimax", "num_hidden_layers": 80, "hidden_size": 6144, "num_attention_heads": 64,
                "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 9216, "num_local_experts": 32,
                "num_experts_per_tok": 2, "max_position_embeddings": 10240000}


def test_hf_cache_config_is_read_through_the_snapshot_link(tmp_path):
    cache = tmp_path / "hub"
    _fake_repo(cache, "AcmeLabs/Text-01", MINIMAX_LIKE)
    got = hfcache.read_config("AcmeLabs/Text-01", cache)
    assert got is not None
    facts, where = got
    assert facts["num_attention_heads"] == 64 and facts["n_routed_experts"] == 32
    assert where == f"HF cache {cache}/models--AcmeLabs--Text-01/snapshots/{COMMIT}/config.json"
    assert hfcache.read_config("AcmeLabs/Other", cache) is None
    assert hfcache.read_config("../etc", cache) is None and hfcache.read_config("a/../../b", cache) is None


def test_hf_cache_directory_from_the_environment(tmp_path):
    assert hfcache.cache_dir({"HF_HUB_CACHE": "/x/hub", "HF_HOME": "/y"}) == Path("/x/hub")
    assert hfcache.cache_dir({"HF_HOME": "/y"}) == Path("/y/hub")
    assert hfcache.cache_dir({}) == Path.home() / ".cache" / "huggingface" / "hub"
    assert hfcache.cache_dir({"HF_HUB_CACHE": "/x", "CFGLINT_NO_HF_CACHE": "1"}) is None


def test_hf_cache_refuses_a_link_out_of_the_cache_and_an_oversized_file(tmp_path):
    cache = tmp_path / "hub"
    outside = _linked_out(tmp_path, cache, "AcmeLabs/Linked")          # a snapshot link leaving the cache
    assert hfcache.read_config("AcmeLabs/Linked", cache) is None
    # a whole snapshot directory linked out of the cache is refused too
    repo = cache / "models--AcmeLabs--DirLink"
    (repo / "snapshots").mkdir(parents=True)
    (repo / "snapshots" / COMMIT).symlink_to(outside.parent, target_is_directory=True)
    assert hfcache.read_config("AcmeLabs/DirLink", cache) is None
    big = dict(MINIMAX_LIKE, padding="x" * (hfcache.MAX_BYTES + 10))
    _fake_repo(cache, "AcmeLabs/Big", big)
    assert hfcache.read_config("AcmeLabs/Big", cache) is None
    _fake_repo(cache, "AcmeLabs/Broken", b"{not json")
    assert hfcache.read_config("AcmeLabs/Broken", cache) is None


def test_without_refs_main_the_newest_snapshot_is_read(tmp_path):
    cache = tmp_path / "hub"
    snap = _fake_repo(cache, "AcmeLabs/NoRef", MINIMAX_LIKE)
    (snap.parent.parent / "refs" / "main").unlink()
    assert hfcache.read_config("AcmeLabs/NoRef", cache)[0]["hidden_size"] == 6144


def test_a_launch_of_a_model_only_the_hf_cache_knows_is_checked_and_says_where(tmp_path, monkeypatch):
    """MiniMax-Text-01-like facts only in the user's cache: TOP004 runs on them and names the file."""
    cache = tmp_path / "hub"
    _fake_repo(cache, "AcmeLabs/Cached-Text-01", MINIMAX_LIKE)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    run = tmp_path / "run.sh"
    run.write_text("vllm serve AcmeLabs/Cached-Text-01 --tensor-parallel-size 6\n")
    findings = lint_paths([str(run)]).findings
    top = [f for f in findings if f.rule_id == "TOP004"]
    assert len(top) == 1, [f.message for f in findings]
    assert "attention TP 6 does not divide the 64 attention heads of AcmeLabs/Cached-Text-01" in top[0].message
    assert f"facts from HF cache {cache}/models--AcmeLabs--Cached-Text-01/snapshots/{COMMIT}/config.json" in top[0].message
    assert not any("not in the knowledge base" in f.message for f in findings if f.rule_id == "COV001")
    run.write_text("vllm serve AcmeLabs/Cached-Text-01 --tensor-parallel-size 8\n")   # the control
    assert not [f for f in lint_paths([str(run)]).findings if f.rule_id == "TOP004"]


def test_hf_cache_facts_win_over_bundled_ones_and_fill_the_fp8_block(tmp_path, monkeypatch):
    """The cached config.json is the file the engine loads: its quantization_config gives the
    block the bundled transcription lacks (GLM-4.7-FP8's is null in rules/model_configs_extra.yaml)."""
    cache = tmp_path / "hub"
    kb = Knowledge()
    bundled = kb.model("zai-org/GLM-4.7-FP8")
    config = {k: bundled[k] for k in ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads",
                                      "head_dim", "moe_intermediate_size", "n_routed_experts")}
    config["quantization_config"] = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    _fake_repo(cache, "zai-org/GLM-4.7-FP8", config)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    e = kb.model_from_hf_cache("zai-org/GLM-4.7-FP8")
    assert e["family"] == bundled["family"] and e["quantization"]["weight_block_size"] == [128, 128]
    assert e["config_source"].startswith(f"HF cache {cache}/models--zai-org--GLM-4.7-FP8/")
    assert e["checkpoint_precision"] == "FP8"


# --- local directories named after a published model ----------------------------------------------

def test_a_directory_named_after_a_published_model_resolves_and_says_so():
    kb = knowledge()
    e = kb.model_by_path_name("/models/Qwen3-8B")
    assert e["id"] == "Qwen/Qwen3-8B" and e["num_attention_heads"] == 32 and e["requested_id"] == "/models/Qwen3-8B"
    assert "last component Qwen3-8B" in e["resolved_from"][0]
    assert kb.model_by_path_name("/raid/models/meta-llama/Llama-3.1-8B-Instruct")["id"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert kb.model_by_path_name("/models/Qwen3-32B/")["num_attention_heads"] == 64
    for unknown in ("/models/Qwen3", "/model/", "/var/mdl/YOUR-MODEL-PATH", "$MODEL_PATH", "/models/<model>",
                    "Qwen/Qwen3-8B", "serve"):
        assert kb.model_by_path_name(unknown) is None, unknown


def test_a_path_resolved_by_name_is_checked(tmp_path):
    run = tmp_path / "run.sh"
    run.write_text("vllm serve /models/Qwen3-8B --tensor-parallel-size 3\n")
    top = [f for f in lint_paths([str(run)]).findings if f.rule_id == "TOP004"]
    assert len(top) == 1 and "32 attention heads of Qwen/Qwen3-8B (named by the directory /models/Qwen3-8B; its " \
        "config.json is not in the linted tree)" in top[0].message
    run.write_text("vllm serve /models/Qwen3-8B --tensor-parallel-size 4\n")
    assert not [f for f in lint_paths([str(run)]).findings if f.rule_id == "TOP004"]


# --- COV001 for a missing model fact ------------------------------------------------------------

def _cov_parts(findings) -> list[str]:
    return [msg for f in findings if f.rule_id == "COV001" for _, msg in f.related]


@pytest.mark.parametrize("model", ["zai-org/GLM-4.7-FP8", "zai-org/GLM-4.5-Air-FP8"])
def test_fp8_checkpoint_without_its_block_size_is_a_gap_not_a_silent_pass(tmp_path, model):
    run = tmp_path / "run.sh"
    run.write_text(f"vllm serve {model} --tensor-parallel-size 8\n")
    parts = _cov_parts(lint_paths([str(run)]).findings)
    assert f"block-FP8 shard alignment (TOP004): {model} is an FP8 checkpoint (repo name suffix of {model}) but " \
           "the knowledge base has no quantization_config of it (weight_block_size)" in parts


def test_known_fp8_block_is_checked_not_a_gap(tmp_path):
    """DeepSeek-R1's config.json states weight_block_size [128, 128]: the check runs (no gap) and
    its 2048-wide moe_intermediate_size splits into whole blocks at TP 8 (vLLM: 256-wide shards)."""
    run = tmp_path / "run.sh"
    run.write_text("vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 8\n")
    findings = lint_paths([str(run)]).findings
    assert not [p for p in _cov_parts(findings) if "block-FP8" in p]
    assert not [f for f in findings if f.rule_id == "TOP004"]
    run.write_text("vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 32\n")   # 64-wide shards
    top = [f for f in lint_paths([str(run)]).findings if f.rule_id == "TOP004"]
    assert any("2048-wide moe_intermediate_size of deepseek-ai/DeepSeek-R1 into 64-wide shards" in f.message for f in top)


def test_missing_kv_heads_is_a_gap(tmp_path):
    know = tmp_path / "kb.yaml"
    know.write_text(yaml.safe_dump({"models": [{"id": "acme/NoKV", "family": "llama", "moe": False,
                                                "num_attention_heads": 32}]}))
    run = tmp_path / "run.sh"
    run.write_text("vllm serve acme/NoKV --tensor-parallel-size 4\n")
    parts = _cov_parts(lint_paths([str(run)], extra_knowledge=(str(know),)).findings)
    assert "KV-head divisibility (TOP004): the knowledge base has no num_key_value_heads for acme/NoKV" in parts


# --- the corpus ------------------------------------------------------------------------------------

def test_corpus_model_unknown_notes_are_at_most_a_quarter_of_the_57_before():
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} not present (the public corpus lives beside the repository)")
    findings = lint_paths([str(CORPUS)]).findings
    unknown = [p for p in _cov_parts(findings) if p.startswith("model-dependent checks") and "is not in the knowledge base" in p]
    assert len(unknown) <= 57 // 4, unknown
    assert not any("'/models/Qwen3-8B' is not in the knowledge base" in p for p in unknown)


def _submission(tmp_path: Path, accelerator: str, launch: str) -> Path:
    d = tmp_path / accelerator
    d.mkdir()
    (d / "submission.yaml").write_text(yaml.safe_dump({
        "schema_version": 1, "submitter": "test", "model": "meta-llama/Llama-3.1-405B-Instruct", "precision": "BF16",
        "system": {"accelerator": accelerator, "accelerators_total": 8, "accelerators_per_node": 8},
        "engine": {"name": "vllm"},
        "serving": {"mode": "aggregated", "roles": [{"name": "server", "instances": 1, "accelerators_per_instance": 8,
                                                      "tp": 8}]},
        "accelerators_used": 8, "files": {"launch": ["run.sh"]}}, sort_keys=False))
    (d / "run.sh").write_text(launch)
    return d


def test_llama_405b_weights_are_weighed_from_the_derived_parameter_count(tmp_path):
    """Llama-3.1-405B has no curated parameter count: MEM001 weighs at least 403.75B parameters
    (litgpt's shapes less one tied vocab x hidden matrix): BF16 at TP 8 is ~94 GiB per GPU, more
    than an H100 holds; on H200 (141 GB) it fits."""
    launch = "vllm serve meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8\n"
    findings = lint_paths([str(_submission(tmp_path, "H100", launch))]).findings
    mem = [f for f in findings if f.rule_id == "MEM001"]
    assert len(mem) == 1, [f.message for f in findings]
    assert "at least 403.75B parameters, derived from its shapes (litgpt==0.5.13" in mem[0].message
    assert "~94.0 GiB per GPU at TP 8" in mem[0].message
    findings = lint_paths([str(_submission(tmp_path, "H200", launch))]).findings
    assert not [f for f in findings if f.rule_id == "MEM001"]
    assert not [p for p in _cov_parts(findings) if "MEM001" in p]


def test_a_refused_cache_file_is_named_in_the_note(tmp_path, monkeypatch):
    # a config.json the cache holds but cfglint refuses (a link out of the cache, not JSON): the note
    # says so, not only "not in the knowledge base" (found by a break-it round)
    cache = tmp_path / "hub"
    _linked_out(tmp_path, cache, "AcmeLabs/Linked")
    _fake_repo(cache, "AcmeLabs/Broken", b"{not json")
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    run = tmp_path / "run.sh"
    for repo, why in (("AcmeLabs/Linked", "outside the Hugging Face cache"), ("AcmeLabs/Broken", "it is not JSON")):
        run.write_text(f"vllm serve {repo} --tensor-parallel-size 8\n")
        (note,) = [m for f in lint_paths([str(run)]).findings if f.rule_id == "COV001" for _s, m in f.related]
        assert f"model '{repo}' is not in the knowledge base, and {cache}/models--" in note, note
        assert "in the Hugging Face cache was refused:" in note and why in note, note
    run.write_text("vllm serve AcmeLabs/Missing --tensor-parallel-size 8\n")     # not cached: as before
    (note,) = [m for f in lint_paths([str(run)]).findings if f.rule_id == "COV001" for _s, m in f.related]
    assert note.endswith("model 'AcmeLabs/Missing' is not in the knowledge base; add it with --knowledge")
