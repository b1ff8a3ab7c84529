"""DIS001: prefill and decode must be able to hand KV cache over. DIS002: prefill/decode
shapes the engine refuses."""

from __future__ import annotations

from ..model import Finding
from .base import Context, as_int, here, rule


@rule("DIS001", "kv-transfer-mismatch", "error",
      "Prefill and decode use different KV-cache transfer backends, or a TensorRT-LLM "
      "disaggregated role has no cache_transceiver_config.",
      "In prefill/decode disaggregation the prefill worker sends each request's KV cache to a "
      "decode worker. Both sides must speak the same transfer backend (SGLang "
      "--disaggregation-transfer-backend mooncake / nixl, TensorRT-LLM "
      "cache_transceiver_config.backend NIXL / UCX / MPI), and a TensorRT-LLM worker only opens "
      "its KV-cache transceiver when cache_transceiver_config is set.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (disaggregation_transfer_backend)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (CacheTransceiverConfig)"))
def check_transfer(ctx: Context):
    backends: dict[str, tuple] = {}
    for p in ctx.deployment.engine_processes():
        if p.role is None or p.role.value not in ("prefill", "decode"):
            continue
        b = p.settings.get("transfer_backend")
        if b is not None:
            backends.setdefault(p.role.value, (str(b.value).lower(), b))
        elif p.engine == "trtllm" and p.configs and not p.missing_configs:
            cfg = p.configs[0]
            yield Finding("DIS001", f"{p.role.value} worker's {cfg.display} has no cache_transceiver_config: "
                                    f"TensorRT-LLM will not transfer KV cache between prefill and decode",
                          cfg.root.items[0][0].span if cfg.root is not None and cfg.root.items else p.span)
    if "prefill" in backends and "decode" in backends and backends["prefill"][0] != backends["decode"][0]:
        ploc, dloc = backends["prefill"][1], backends["decode"][1]
        yield Finding("DIS001", f"decode uses KV transfer backend {dloc.value} but prefill uses {ploc.value} "
                                f"({here(ploc.span)})", dloc.span, related=[(ploc.span, f"prefill: {ploc.value}")])


NIXL_CONN = "sgl-project/sglang python/sglang/srt/disaggregation/nixl/conn.py"


def _swa_hybrid(facts: dict) -> bool | None:
    """True for a model mixing sliding-window and full-attention layers, False for one without
    sliding-window layers, None when the facts do not say."""
    layers = facts.get("layer_types")
    if isinstance(layers, dict) and layers:
        return bool(layers.get("sliding_attention")) and len([k for k, n in layers.items() if n]) > 1
    if facts.get("sliding_window") in (None, 0, False) or facts.get("use_sliding_window") is False:
        return False if "sliding_window" in facts else None
    return None


def _attention_tp(p) -> tuple[int | None, object]:
    """SGLang attention TP of a worker (TP, divided by DP with --enable-dp-attention) and the
    located value it was read from (the TP flag, or the process start)."""
    s = p.settings
    if p.unknown & {"tp", "dp"}:
        return None, s.get("tp")   # known only at run time, or a mistyped flag: not the default
    tp = s.get("tp")
    tp_v = as_int(tp.value) if tp is not None else 1
    if tp_v is None:
        return None, tp
    dp = s.get("dp")
    attn_dp = s.get("attention_dp")
    if attn_dp is not None and attn_dp.value is True and dp is not None and as_int(dp.value):
        return max(tp_v // as_int(dp.value), 1), tp
    return tp_v, tp


@rule("DIS002", "pd-shape-unsupported", "error",
      "A prefill/decode pairing the engine refuses: SGLang's NIXL transfer with different "
      "prefill and decode attention TP for a non-MLA model with sliding-window layers.",
      "In SGLang's prefill/decode disaggregation the prefill worker slices each request's KV "
      "cache for the decode worker's attention TP ranks. With the NIXL transfer backend this "
      "slicing is not implemented for models that mix sliding-window and full-attention layers "
      "and do not use MLA (gpt-oss-120b, for one): the workers start, and the first request "
      "fails in the prefill worker's transfer thread with 'PD Disaggregation does NOT support PD "
      "different TP sizes for non-MLA SWA hybrid models yet' (the client sees a hang or a 500). "
      "MLA models (DeepSeek, Kimi) transfer one latent cache and are not affected. Attention TP "
      "is TP, divided by DP when --enable-dp-attention is on. The model's facts (mla, "
      "sliding-window layers) come from the knowledge base; when they are missing the check is "
      "reported as not run (COV001).",
      (f"{NIXL_CONN} maybe_send_extra (v0.5.16, line 2062 in the reported traceback): RuntimeError 'PD Disaggregation does NOT "
       "support PD different TP sizes for non-MLA SWA hybrid models yet' (reported in https://github.com/sgl-project/sglang/issues/38552 "
       "and https://github.com/llm-d/llm-d/issues/2433, lmsysorg/sglang:v0.5.16, gpt-oss-120b prefill TP1 / decode TP4)",
       "sgl-project/sglang python/sglang/srt/server_args.py (disaggregation_transfer_backend, default mooncake)",
       "model facts: rules/models.yaml / rules/model_configs.yaml (mla, sliding_window, layer_types from config.json)"))
def check_pd_shape(ctx: Context):
    sides: dict[str, object] = {}
    for p in ctx.deployment.engine_processes():
        if p.engine == "sglang" and p.role is not None and p.role.value in ("prefill", "decode"):
            sides.setdefault(p.role.value, p)
    if len(sides) < 2:
        return
    prefill, decode = sides["prefill"], sides["decode"]
    backends = {str((p.settings.get("transfer_backend").value if p.settings.get("transfer_backend") else "mooncake")).lower()
                for p in (prefill, decode)}
    if "nixl" not in backends:
        return
    (ptp, ploc), (dtp, dloc) = _attention_tp(prefill), _attention_tp(decode)
    check = "NIXL prefill/decode TP pairing (DIS002)"
    if ptp is None or dtp is None or any(k in p.unknown for p in (prefill, decode) for k in ("tp", "dp")):
        ctx.not_checked(check, "a TP or DP size is known only at run time", decode.span)
        return
    if ptp == dtp:
        return
    declared = ctx.declared("model") if ctx.sub.has_manifest else None
    model = declared.value if declared is not None and isinstance(declared.value, str) else None
    if model is None:
        m = prefill.settings.get("model") or decode.settings.get("model")
        model = m.value if m is not None and isinstance(m.value, str) else None
    facts = ctx.model(model)  # curated entry with its config.json facts (mla, sliding_window, layer_types)
    if facts is None or facts.get("mla") is None or _swa_hybrid(facts) is None:
        ctx.not_checked(check, f"whether {model or 'the model'} uses MLA or sliding-window layers is not in the "
                               f"knowledge base", declared.span if declared is not None else decode.span)
        return
    if facts.get("mla") or not _swa_hybrid(facts):
        return
    at = dloc.span if dloc is not None else decode.span
    pat = ploc.span if ploc is not None else prefill.span
    yield Finding("DIS002", f"SGLang's NIXL transfer cannot pair prefill attention TP {ptp} ({here(pat)}) with decode "
                            f"attention TP {dtp} for {model}, a non-MLA model with sliding-window layers: the first "
                            f"request fails with 'PD Disaggregation does NOT support PD different TP sizes for non-MLA "
                            f"SWA hybrid models yet'; give prefill and decode the same attention TP",
                  at, related=[(pat, f"prefill attention TP {ptp}")])
