"""Normalized facts of a Hugging Face model config.json (the LLM fields cfglint checks against).

:func:`facts` maps the different names configs use to one set of fields (FIELDS); the table of
which config keys feed which field is the docstring of cfglint/knowledge/build/model_configs.py (source
distribution), and SYNONYMS below is the same mapping as data. For multimodal configs the LLM
fields are read from ``text_config`` first, then from the top level. Absent fields are None.
"""

from __future__ import annotations

FIELDS = ("model_type", "num_hidden_layers", "hidden_size", "intermediate_size", "moe_intermediate_size",
          "num_attention_heads", "num_key_value_heads", "head_dim", "n_routed_experts", "n_shared_experts",
          "num_experts_per_tok", "max_position_embeddings", "rope_scaling", "mla", "sliding_window",
          "layer_types", "use_sliding_window", "quantization", "vocab_size")

SYNONYMS = {
    "model_type": ("model_type",),
    "num_hidden_layers": ("num_hidden_layers", "n_layers", "num_layers"),
    "hidden_size": ("hidden_size", "d_model", "n_embd"),
    "intermediate_size": ("intermediate_size", "ffn_hidden_size"),
    "moe_intermediate_size": ("moe_intermediate_size", "expert_intermediate_size", "routed_expert_hidden_size"),
    "num_attention_heads": ("num_attention_heads", "n_heads", "n_head"),
    "num_key_value_heads": ("num_key_value_heads", "num_kv_heads", "n_kv_heads", "multi_query_group_num"),
    "head_dim": ("head_dim", "attention_head_dim"),
    "n_routed_experts": ("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts"),
    "n_shared_experts": ("n_shared_experts", "num_shared_experts", "shared_experts"),
    "num_experts_per_tok": ("num_experts_per_tok", "num_experts_per_token", "experts_per_token", "moe_topk",
                            "top_k_experts", "moe_k"),
    "max_position_embeddings": ("max_position_embeddings", "max_sequence_length", "seq_length"),
    "vocab_size": ("vocab_size",),
}


def _first(cfgs: list[dict], names: tuple[str, ...]):
    for cfg in cfgs:
        for name in names:
            value = cfg.get(name)
            if value is not None and not isinstance(value, (dict, list)):
                return value
    return None


def _int(value):
    # an int (not bool) of a size a model has: 10**400 heads is no fact (and overflows a float)
    return value if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**18 else None


def _quantization(cfgs: list[dict], hf_quant: dict | None) -> dict | None:
    for cfg in cfgs:
        q = cfg.get("quantization_config")
        if isinstance(q, dict):
            break
    else:
        q = hf_quant.get("quantization") if isinstance(hf_quant, dict) else None
    if not isinstance(q, dict):
        return None
    algo, method = q.get("quant_algo"), q.get("quant_method")
    modelopt = hf_quant.get("quantization") if isinstance(hf_quant, dict) else None
    if not algo and isinstance(modelopt, dict):
        algo = modelopt.get("quant_algo")
    algo = algo if isinstance(algo, str) else None
    method = method if isinstance(method, str) else None
    chosen = algo or method  # ModelOpt names the algorithm (nvfp4, fp8, mixed_precision); others the method
    block = q.get("weight_block_size")
    return {"method": str(chosen).lower() if chosen else None,
            "weight_block_size": list(block) if isinstance(block, list) else None}


def _rope_scaling(cfgs: list[dict]):
    for cfg in cfgs:
        rs = cfg.get("rope_scaling")
        if isinstance(rs, dict):
            return rs
    for cfg in cfgs:
        rp = cfg.get("rope_parameters")
        if isinstance(rp, dict) and rp.get("rope_type") not in (None, "default"):
            return rp
    return None


def facts(config: dict, hf_quant: dict | None = None) -> dict | None:
    """The normalized fields (FIELDS, see the module docstring) of one parsed config.json and,
    optionally, its ModelOpt hf_quant_config.json; None when ``config`` is not a mapping."""
    if not isinstance(config, dict):
        return None
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else None
    cfgs = [text, config] if text else [config]
    out: dict = {}
    for field in FIELDS:
        if field in SYNONYMS:
            value = _first(cfgs, SYNONYMS[field])
            out[field] = (value if isinstance(value, str) else None) if field == "model_type" else _int(value)
    out["rope_scaling"] = _rope_scaling(cfgs)
    out["mla"] = any(_int(c.get("kv_lora_rank")) for c in cfgs)
    out["sliding_window"] = _int(_first(cfgs, ("sliding_window", "sliding_window_size")))
    layer_types = next((c["layer_types"] for c in cfgs if isinstance(c.get("layer_types"), list)), None)
    if layer_types is not None:
        counts: dict[str, int] = {}
        for t in layer_types:
            counts[str(t)] = counts.get(str(t), 0) + 1
        layer_types = counts
    out["layer_types"] = layer_types
    usw = next((c["use_sliding_window"] for c in cfgs if isinstance(c.get("use_sliding_window"), bool)), None)
    out["use_sliding_window"] = usw
    out["quantization"] = _quantization(cfgs, hf_quant)
    return {field: out[field] for field in FIELDS}
