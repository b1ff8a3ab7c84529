"""SCH001: TensorRT-LLM engine YAML against JSON Schemas that mirror its pydantic models."""

from __future__ import annotations

from functools import lru_cache

import yaml

from ..extract import ConfigFile, is_server_config
from ..knowledge import data_dir
from ..validation import schema_findings, validator
from ..yamlsrc import YMap, to_python
from . import Context, rule

LLM_API_KEYS = {"tensor_parallel_size", "pipeline_parallel_size", "moe_expert_parallel_size", "kv_cache_config",
                "speculative_config", "moe_config", "cuda_graph_config", "max_batch_size", "max_num_tokens",
                "enable_attention_dp", "cache_transceiver_config", "max_seq_len"}


@lru_cache(maxsize=1)
def renamed_keys() -> dict:
    """schemas/trtllm-renamed-keys.yaml: old dotted key -> {new, since, source}."""
    with open(data_dir("schemas") / "trtllm-renamed-keys.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh) or {}


def _renamed_hint(path: tuple, key: str) -> str | None:
    dotted = ".".join([str(p) for p in path if isinstance(p, str)] + [key])
    entry = renamed_keys().get(dotted) or renamed_keys().get(key)
    if not isinstance(entry, dict):
        return None
    who = f"TensorRT-LLM {entry['since']}" if entry.get("since") else "TensorRT-LLM"
    return f"{who} renamed it: use {entry.get('new')}"


def _is_trtllm(ctx: Context, cfg: ConfigFile) -> bool:
    users = [p for p in ctx.deployment.engine_processes() if any(c is cfg for c in p.configs)]
    if users:
        return all(p.engine == "trtllm" for p in users)
    engine = (ctx.manifest.get("engine") or {}).get("name") if isinstance(ctx.manifest.get("engine"), dict) else None
    if engine is not None:
        return engine == "trtllm"
    return isinstance(cfg.root, YMap) and any(k.value in LLM_API_KEYS for k, _ in cfg.root.items)


@rule("SCH001", "engine-config-schema", "error",
      "A TensorRT-LLM engine YAML (LLM API options or disaggregated server config) has an unknown, "
      "renamed or mistyped key.",
      "TensorRT-LLM reads --config / --extra_llm_api_options / Dynamo --extra-engine-args YAML into "
      "pydantic models that forbid unknown keys, and server_config.yaml into its disaggregated "
      "server config: a misspelled or renamed key (kv_cache_dtype is now kv_cache_config.dtype, "
      "autotuner_enabled is enable_autotuner) stops the launch. The schemas in schemas/ mirror "
      "those models, with enums for backends, decoding types and policies.",
      ("schemas/trtllm-llm-api.schema.json (NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py, commit in the schema)",
       "schemas/trtllm-disagg-server.schema.json (tensorrt_llm/llmapi/disagg_utils.py)",
       "schemas/trtllm-renamed-keys.yaml (release notes and PRs per key)"))
def check_engine_schema(ctx: Context):
    for cfg in ctx.sub.configs:
        if not isinstance(cfg.root, YMap):
            continue
        if is_server_config(cfg.root):
            name = "trtllm-disagg-server.schema.json"
        elif _is_trtllm(ctx, cfg):
            name = "trtllm-llm-api.schema.json"
        else:
            continue
        yield from schema_findings("SCH001", validator(name), cfg.root, to_python(cfg.root), cfg.display,
                                   unknown_key_hint=_renamed_hint)
