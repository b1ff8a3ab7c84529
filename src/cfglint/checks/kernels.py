"""HW002: kernels known not to work on the system's accelerator architecture."""

from __future__ import annotations

from ..model import Finding
from .base import Context, here, rule


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
      "on another architecture fails at load time or falls back silently. Each entry of "
      "rules/kernels.yaml `known_bad` names the engine, setting, values, architectures, the fix "
      "and its source.",
      ("rules/kernels.yaml (known_bad, each entry with its source)",))
def check_known_bad(ctx: Context):
    if not ctx.sub.has_manifest:
        return
    name, acc, decl = ctx.accelerator()
    arch = (acc or {}).get("arch")
    if not arch or decl is None:
        return
    for entry in ctx.kb.kernels.get("known_bad") or []:
        archs, not_archs = entry.get("architectures"), entry.get("architectures_not")
        if (archs and arch not in archs) or (not_archs and arch in not_archs):
            continue
        for p in ctx.deployment.engine_processes():
            if p.engine != entry.get("engine"):
                continue
            loc = p.settings.get(entry.get("setting", ""))
            if loc is None or not _matches(str(loc.value), entry.get("values") or []):
                continue
            fix = f"; use {entry['fix']}" if entry.get("fix") else ""
            yield Finding("HW002", f"{loc.value} on {name} ({arch}, {here(decl.span)}): "
                                   f"{entry.get('message')}{fix}", loc.span,
                          related=[(decl.span, f"accelerator: {name}")])
