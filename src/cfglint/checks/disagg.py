"""DIS001: prefill and decode must be able to hand KV cache over. DIS002: prefill/decode
shapes the engine refuses."""

from __future__ import annotations

from ..model import Finding, Located, Span
from .base import Context, as_int, here, rule
from .jsonflags import key_span, parsed

VLLM_KV = ("vllm-project/vllm vllm/config/kv_transfer.py @ v0.33.0 (KVTransferConfig.kv_connector, "
           "kv_connector_extra_config; has_connector: a MultiConnector's connectors list)",
           "vllm-project/vllm vllm/distributed/kv_transfer/kv_connector/factory.py @ v0.33.0 (one connector class "
           "per kv_connector name: NixlConnector, LMCacheConnectorV1, MooncakeConnector, P2pNcclConnector, ...)",
           "vllm-project/vllm vllm/distributed/kv_transfer/kv_connector/v1/multi_connector.py @ v0.33.0 "
           "(MultiConnector: loads KV from the first child that has it, saves to every child)")


def _kv_connectors(p) -> tuple[frozenset | None, Located | None, str]:
    """The KV connectors a vLLM worker's --kv-transfer-config names (a MultiConnector: its
    children's), the located value, and why they are not known (None for the set)."""
    cfg = p.settings.get("kv_transfer_config")
    if "kv_transfer_config" in p.unknown:
        return None, cfg, "its --kv-transfer-config is known only at run time"
    if cfg is None:
        return frozenset(), None, ""
    data = parsed(cfg.value) if isinstance(cfg.value, str) else cfg.value
    if not isinstance(data, dict):
        return None, cfg, f"its --kv-transfer-config {str(cfg.value)[:60]} is not a JSON object"
    name = data.get("kv_connector")
    if name is None:
        return frozenset(), cfg, ""
    if name != "MultiConnector":
        return (frozenset([name]), cfg, "") if isinstance(name, str) else \
            (None, cfg, "its kv_connector is not a name")
    children = (data.get("kv_connector_extra_config") or {}).get("connectors") \
        if isinstance(data.get("kv_connector_extra_config"), dict) else None
    names = [c.get("kv_connector") for c in children if isinstance(c, dict)] if isinstance(children, list) else None
    if not names or not all(isinstance(n, str) for n in names):
        return None, cfg, "its MultiConnector lists no connectors (kv_connector_extra_config.connectors) by name"
    return frozenset(names), cfg, ""


def _at_connector(loc: Located) -> Span:
    """The span of the kv_connector name inside a one-line --kv-transfer-config JSON word (the
    whole value otherwise)."""
    return key_span(loc, "kv_connector")


def _vllm_connectors(ctx: Context):
    """DIS001 for vLLM (vllm serve, python3 -m dynamo.vllm): the prefill and decode workers of one
    deployment must share a KV connector (a MultiConnector counts as each of its children)."""
    sides: dict[str, tuple] = {}
    for p in ctx.deployment.engine_processes():
        if p.engine != "vllm" or p.role is None or p.role.value not in ("prefill", "decode"):
            continue
        names, loc, why = _kv_connectors(p)
        if p.role.value not in sides or (not sides[p.role.value][0] and names != frozenset()):
            sides[p.role.value] = (names, loc, why, p)
    if len(sides) < 2:
        return
    (pn, ploc, pwhy, pp), (dn, dloc, dwhy, dp) = sides["prefill"], sides["decode"]
    check = "prefill/decode KV connector pairing (DIS001)"
    if pn is None or dn is None:
        side, why, loc, p = ("prefill", pwhy, ploc, pp) if pn is None else ("decode", dwhy, dloc, dp)
        at = loc.span if loc else p.unresolved_at.get("kv_transfer_config", p.span)
        ctx.not_checked(check, f"the {side} worker's KV connector is not known: {why}", at)
        return
    if not pn and not dn:
        return
    if not pn or not dn:
        side, p = ("prefill", pp) if not pn else ("decode", dp)
        ctx.not_checked(check, f"the {side} worker ({p.launcher}) sets no --kv-transfer-config kv_connector, so "
                               f"which connector it runs (none, or one its launcher adds) is not compared with the "
                               f"{'decode' if side == 'prefill' else 'prefill'} worker's", p.span)
        return
    if pn & dn:
        return
    pshow, dshow = " + ".join(sorted(pn)), " + ".join(sorted(dn))
    yield Finding("DIS001", f"decode's KV connector {dshow} cannot receive the KV cache prefill sends with "
                            f"{pshow} ({here(_at_connector(ploc))}): give both --kv-transfer-config the same "
                            f"kv_connector", _at_connector(dloc),
                  related=[(_at_connector(ploc), f"prefill kv_connector: {pshow}")])


@rule("DIS001", "kv-transfer-mismatch", "error",
      "Prefill and decode use different KV-cache transfer backends (SGLang, TensorRT-LLM) or KV "
      "connectors (vLLM), or a TensorRT-LLM disaggregated role has no cache_transceiver_config.",
      "In prefill/decode disaggregation the prefill worker sends each request's KV cache to a "
      "decode worker. Both sides must speak the same transfer backend (SGLang "
      "--disaggregation-transfer-backend mooncake / nixl, TensorRT-LLM "
      "cache_transceiver_config.backend NIXL / UCX / MPI; vLLM and Dynamo's vLLM workers the "
      "kv_connector of --kv-transfer-config, NixlConnector, LMCacheConnectorV1, MooncakeConnector, "
      "..., each a connector class of its own; a MultiConnector runs each connector it lists, so "
      "it pairs with a side that runs any one of them), and a TensorRT-LLM worker only opens its "
      "KV-cache transceiver when cache_transceiver_config is set. Where one side's connector is not "
      "known statically, or only one side names one, COV001 says the pairing was not checked.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (disaggregation_transfer_backend)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (CacheTransceiverConfig)", *VLLM_KV))
def check_transfer(ctx: Context):
    yield from _vllm_connectors(ctx)
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
