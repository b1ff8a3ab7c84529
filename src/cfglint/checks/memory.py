"""MEM002: a context length above what the model's config supports."""

from __future__ import annotations

import json

from ..model import Finding
from .base import Context, rule
from .modelfacts import context_limit, fact_origin, parse_length, served_model

# engine -> (the flag as written in messages, the override variable, what happens without it)
_ENGINES = {
    "vllm": ("--max-model-len", "VLLM_ALLOW_LONG_MAX_MODEL_LEN",
             "vLLM refuses to start ('User-specified max_model_len (..) is greater than the derived max_model_len')"),
    "sglang": ("--context-length", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
               "SGLang refuses to start ('User-specified context_length (..) is greater than the derived context_length')"),
    "trtllm": ("max_seq_len", "TLLM_ALLOW_LONG_MAX_MODEL_LEN",
               "TensorRT-LLM silently lowers max_seq_len to the model's limit (a warning in the log), so the "
               "configured context is not what is served"),
}
_TRUE = ("1", "true", "yes", "y", "on")
# engine -> how a launch extends the model's RoPE range (the fix the override variable is not)
_ROPE_FIX = {"vllm": "--hf-overrides '{\"rope_scaling\": {...}}'",
             "sglang": "--json-model-override-args '{\"rope_scaling\": {...}}'",
             "trtllm": "rope_scaling in the checkpoint's config.json"}
# the model-config keys that set the context a launch's override can change
_CONTEXT_KEYS = ("max_position_embeddings", "rope_scaling")
# settings holding JSON that overrides the model config: the whole config, or its rope_scaling
_OVERRIDES = (("model_overrides", None), ("rope_scaling", "rope_scaling"))


def _overridden(entry: dict, p) -> tuple[dict | None, list, str | None]:
    """``entry`` with the launch's model-config overrides applied (vLLM --hf-overrides and the
    older --rope-scaling, SGLang --json-model-override-args: max_position_embeddings and
    rope_scaling, also as transformers' rope_parameters or inside text_config), the overriding
    flags' places, and None; or (None, places, why) when an override is not readable."""
    out, places = dict(entry), []
    for setting, key in _OVERRIDES:
        if setting in p.unknown:
            return None, [p.unresolved_at.get(setting, p.span)], "the launch overrides the model config with a value known only at run time"
        loc = p.settings.get(setting)
        if loc is None:
            continue
        places.append(loc.span)
        try:
            data = json.loads(str(loc.value))
        except (ValueError, RecursionError):
            return None, places, "the launch's model-config override is not JSON cfglint can read"
        if key is not None:
            data = {key: data}
        if not isinstance(data, dict):
            return None, places, "the launch's model-config override is not a JSON object"
        for scope in (data, data.get("text_config") if isinstance(data.get("text_config"), dict) else {}):
            if isinstance(scope.get("rope_parameters"), dict) and "rope_scaling" not in scope:
                scope = dict(scope, rope_scaling=scope["rope_parameters"])
            out.update({k: scope[k] for k in _CONTEXT_KEYS if k in scope})
    return out, places, None


@rule("MEM002", "context-exceeds-model", "error",
      "The configured context length is longer than the model supports.",
      "Engines derive the longest context from the model's config.json: max_position_embeddings, "
      "scaled by the rope_scaling factor where the engine applies it (vLLM: yarn from "
      "original_max_position_embeddings x factor, not for llama3 / longrope / su; SGLang: x "
      "factor unless rope_scaling has original_max_position_embeddings or is llama3; "
      "TensorRT-LLM: x factor except su / longrope / llama3 / yarn). A longer vLLM "
      "--max-model-len or SGLang --context-length stops the server at start-up unless "
      "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 / SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set; "
      "TensorRT-LLM lowers a longer max_seq_len to the model's limit unless "
      "TLLM_ALLOW_LONG_MAX_MODEL_LEN=1. Positions beyond the trained range give NaNs or "
      "garbage, so the variable alone only silences the check (a warning); a rope-scaling "
      "override (vLLM --hf-overrides or the older --rope-scaling, SGLang "
      "--json-model-override-args) extends the model's range, and the length is checked "
      "against the overridden max_position_embeddings / rope_scaling. An override cfglint "
      "cannot read is a COV001 note.",
      ("vllm-project/vllm vllm/config/model.py @ 0052a5b818980ce8a0477706aaf9f75bd5af72cd "
       "(_get_and_verify_max_len: derived length, rope scaling, VLLM_ALLOW_LONG_MAX_MODEL_LEN)",
       "sgl-project/sglang python/sglang/srt/configs/model_config.py @ 8b5e1bbf72cca54c4275463b08d835d2f7221703 "
       "(_derive_context_length: SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN) and "
       "python/sglang/srt/utils/hf_transformers_utils.py (get_context_length)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/model_engine.py @ 1a0dc5f70054f66d892df6a964996fc5ead6f81e "
       "(_init_max_seq_len / _infer_max_seq_len_from_config, TLLM_ALLOW_LONG_MAX_MODEL_LEN)",
       "rules/models.yaml / rules/model_configs.yaml (max_position_embeddings, rope_scaling)"))
def check_context(ctx: Context):
    for p in ctx.deployment.engine_processes():
        loc = p.settings.get("max_context")
        spec = _ENGINES.get(p.engine or "")
        if loc is None or spec is None:
            continue
        flag, var, effect = spec
        asked = parse_length(loc.value)
        if asked is None or asked <= 0:
            continue
        entry, where = served_model(ctx, p)
        if entry is None:
            continue  # COV001 reports the unknown model
        model, places, why = _overridden(entry, p)
        if model is None:
            ctx.not_checked("context length against the model (MEM002)", why, places[0] if places else loc.span)
            continue
        limit, how = context_limit(model, p.engine)
        if places and any(model.get(k) != entry.get(k) for k in _CONTEXT_KEYS):
            how += " as the launch's model-config override sets it"
        if limit is None:
            ctx.not_checked("context length against the model (MEM002)",
                            f"the knowledge base has no {how} for {entry['id']}{fact_origin(entry)}", loc.span)
            continue
        if asked <= limit:
            continue
        override = p.env.get(var)
        if override is not None and override.value is None:
            ctx.not_checked("context length against the model (MEM002)",
                            f"{var} is set from a value known only at run time", override.span)
            continue
        written = next((a.written for a in p.args if a.value is not None and a.value.span == loc.span), flag)
        if override is not None and str(override.value).strip().lower() in _TRUE:
            # the variable only turns the engine's check off: the model still has its RoPE range
            yield Finding("MEM002",
                          f"{var}={override.value} lets {written} {loc.value} past the {limit} tokens {entry['id']} "
                          f"supports ({how}), but it only silences the engine's check: positions beyond {limit} are "
                          f"outside the model's RoPE range, so long requests fail or return garbage; extend the "
                          f"rope scaling ({_ROPE_FIX[p.engine]}) or use at most {limit}",
                          override.span, level="warning", related=[(loc.span, f"{written} {loc.value}")])
            continue
        yield Finding("MEM002",
                      f"{written} {loc.value} is longer than the {limit} tokens {entry['id']} supports ({how}{fact_origin(entry, inside=True)}): "
                      f"{effect}; use at most {limit}, or extend the model's rope scaling and set {var}=1",
                      loc.span)
