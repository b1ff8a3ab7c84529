"""DIS001: prefill and decode must be able to hand KV cache over."""

from __future__ import annotations

from ..model import Finding
from . import Context, here, rule


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
