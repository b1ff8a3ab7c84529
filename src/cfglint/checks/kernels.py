"""HW002: kernels known not to work on the system's accelerator architecture."""

from __future__ import annotations

from ..model import Finding
from .base import Context, here, rule
from .kernel_matrix import guard_findings, launch_settings, vllm_backend_findings


def _matches(value: str, patterns: list) -> bool:
    v = value.lower()
    for p in patterns:
        p = str(p).lower()
        if (p.endswith("*") and v.startswith(p[:-1])) or v == p:
            return True
    return False


@rule("HW002", "kernel-not-for-architecture", "error",
      "A kernel backend or data type the engine does not support on the system's accelerator "
      "architecture.",
      "MoE, attention and KV-cache kernels are compiled for specific GPU architectures (for "
      "example Blackwell-only trtllm-gen kernels, Hopper-only FlashAttention 3). Selecting one "
      "on another architecture fails at load time or falls back silently. SGLang's start-up checks "
      "of --attention-backend, --prefill-attention-backend, --decode-attention-backend, "
      "--moe-runner-backend and --fp8-gemm-backend against the GPU (is_sm100_supported(), "
      "is_blackwell_supported(), get_platform().is_sm120 ...) and vLLM's attention backends' "
      "supports_compute_capability and supported_kv_cache_dtypes are compiled per release from the released source "
      "(rules/releases/<engine>-kernels.yaml; the message names the release read, the newest when the "
      "launch's is not known). Facts no source states (measured notes, maintainers' statements) are "
      "the entries of rules/kernels.yaml `known_bad`: engine, setting, values, architectures, the fix "
      "and its source.",
      ("rules/releases/sglang-kernels.yaml guards, rules/releases/vllm-kernels.yaml attention_backends "
       "(python -m cfglint.knowledge.build kernels, each fact with its source file and releases)",
       "rules/kernels.yaml (known_bad, each entry with its source)"))
def check_known_bad(ctx: Context):
    if not ctx.sub.has_manifest:
        return
    name, acc, decl = ctx.accelerator()
    arch = (acc or {}).get("arch")
    if not arch or decl is None:
        return
    compiled = [*guard_findings(ctx), *vllm_backend_findings(ctx)]
    yield from compiled
    taken = {f.span for f in compiled}
    for entry in ctx.kb.kernels.get("known_bad") or []:
        archs, not_archs = entry.get("architectures"), entry.get("architectures_not")
        if (archs and arch not in archs) or (not_archs and arch in not_archs):
            continue
        for p in ctx.deployment.engine_processes():
            if p.engine != entry.get("engine"):
                continue
            _values, where = launch_settings(p)   # the effective prefill_backend / decode_backend too
            loc = p.settings.get(entry.get("setting", "")) or where.get(entry.get("setting", ""))
            if loc is None or loc.span in taken or not _matches(str(loc.value), entry.get("values") or []):
                continue
            fix = f"; use {entry['fix']}" if entry.get("fix") else ""
            yield Finding("HW002", f"{loc.value} on {name} ({arch}, {here(decl.span)}): "
                                   f"{entry.get('message')}{fix}", loc.span,
                          related=[(decl.span, f"accelerator: {name}")])
