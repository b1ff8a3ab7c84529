"""TOP002: every value the manifest declares agrees with what the launch and configs set."""

from __future__ import annotations

import re

from ..deploy.extract import Process
from ..model import Finding, Located
from .base import Context, as_int, here, rule
from .modelfacts import served_model

# --quantization values and the precision family they serve (SGLang / vLLM names).
QUANTIZATION_PRECISION = {
    "modelopt_fp4": "NVFP4", "nvfp4": "NVFP4", "mxfp4": "MXFP4", "modelopt_fp8": "FP8", "fp8": "FP8",
    "w8a8_fp8": "FP8", "w4afp8": "W4A8", "awq": "INT4", "gptq": "INT4", "w8a8_int8": "INT8",
}
FP4_FAMILY = {"FP4", "NVFP4", "MXFP4"}
_SEMVER = re.compile(r"(?<![0-9.])v?(\d+\.\d+\.\d+(?:rc\d+(?:\.post\d+)?|\.post\d+)?)")


def _known(p: Process, key: str) -> bool:
    return not p.missing_configs and key not in p.unknown


def launched(p: Process, key: str) -> Located | None:
    """The value ``p`` runs with for a manifest role field (tp, pp, dp, ep, dcp, attention_dp),
    defaults included where the engine's default is certain; None when not known."""
    s = p.settings
    if key in ("tp", "pp"):
        if key in s:
            return s[key]
        return Located(1, p.span) if _known(p, key) else None
    if key == "attention_dp":
        if "attention_dp" in s:
            return Located(bool(s["attention_dp"].value), s["attention_dp"].span)
        return Located(False, p.span) if _known(p, key) and p.engine in ("sglang", "trtllm") else None
    if key == "dp":
        if p.engine == "trtllm":  # attention DP spans the TP ranks: DP degree = TP
            adp = launched(p, "attention_dp")
            tp = launched(p, "tp")
            if adp is None or tp is None:
                return None
            return Located(tp.value, adp.span) if adp.value else Located(1, adp.span)
        if "dp" in s:
            return s["dp"]
        return Located(1, p.span) if _known(p, key) else None
    if key == "ep" and p.engine == "vllm" and "ep" not in s:
        return _vllm_ep(p)
    if key in ("ep", "dcp"):
        return s.get(key)  # engines derive these in several ways: compare only what is stated
    return None


def _vllm_ep(p: Process) -> Located | None:
    """vLLM's expert-parallel size: TP x DP with --enable-expert-parallel, else 1 (no EP);
    None when a part is known only at run time."""
    if not _known(p, "expert_parallel") or not _known(p, "tp") or not _known(p, "dp"):
        return None
    flag = p.settings.get("expert_parallel")
    if flag is None or flag.value is not True:
        return Located(1, flag.span if flag is not None else p.span)
    tp, dp = launched(p, "tp"), launched(p, "dp")
    t, d = as_int(tp.value) if tp else None, as_int(dp.value) if dp else None
    return Located(t * d, flag.span) if t and d else None


def _same_model(ctx: Context, a: str, b: str) -> bool:
    if a.lower() == b.lower():
        return True
    ea, eb = ctx.model(a), ctx.model(b)
    return ea is not None and eb is not None and ea["id"] == eb["id"]


@rule("TOP002", "declared-vs-launched", "error",
      "A value the manifest declares disagrees with the launch or the engine config.",
      "The manifest is what readers of the benchmark see: TP, PP, DP, EP, DCP and attention DP "
      "per role, the model, the precision and the engine version. Each one the manifest states "
      "is compared with what the processes of that role really run (engine defaults included "
      "where they are certain: TP and PP default to 1, attention DP to off; TensorRT-LLM's DP "
      "degree under attention DP is its TP; vLLM's EP is TP x DP with --enable-expert-parallel "
      "and 1 without it), the served model id, the --quantization and the version in the "
      "container image tag. Without --quantization the engine serves the checkpoint as "
      "published, so the declared precision must be the checkpoint's (an -FP8 checkpoint "
      "declared BF16 is reported at the served model).",
      ("sgl-project/sglang python/sglang/srt/server_args.py (defaults of tp_size, pp_size, dp_size, enable_dp_attention)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (enable_attention_dp, moe_expert_parallel_size)",
       "vllm-project/vllm vllm/model_executor/layers/fused_moe/config.py (FusedMoEParallelConfig.make: "
       "use_ep = enable_expert_parallel and dp x tp > 1; ep_size = dp x tp)",
       "rules/models.yaml / rules/model_configs.yaml (checkpoint_precision of the resolved model)"))
def check_declared(ctx: Context):
    if not ctx.sub.has_manifest:
        return
    procs = ctx.deployment.engine_processes()
    for i, r in ctx.roles():
        name = r.get("name")
        for key in ("tp", "pp", "dp", "ep", "dcp", "attention_dp"):
            if key not in r:
                continue
            decl = ctx.declared("serving", "roles", i, key)
            want = r[key] if key == "attention_dp" else as_int(r[key])
            if decl is None or want is None:
                continue
            for p in procs:
                if p.role is None or p.role.value != name:
                    continue
                got = launched(p, key)
                if got is None:
                    continue
                value = bool(got.value) if key == "attention_dp" else as_int(got.value)
                if value is None or value == want:
                    continue
                shown = str(value).lower() if key == "attention_dp" else value
                yield Finding("TOP002",
                              f"{name} runs {key.upper() if key != 'attention_dp' else 'attention DP'} {shown} "
                              f"but the manifest declares {key}: {str(want).lower() if key == 'attention_dp' else want} "
                              f"({here(decl.span)})",
                              got.span, related=[(decl.span, f"declared {key}: {r[key]}")])
    model = ctx.declared("model")
    precision = ctx.declared("precision")
    version = ctx.declared("engine", "version")
    for p in procs:
        m = p.settings.get("model")
        if model is not None and isinstance(model.value, str) and m is not None and isinstance(m.value, str) \
                and re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", m.value) and not m.value.startswith(("/", ".")) \
                and not _same_model(ctx, model.value, m.value):
            yield Finding("TOP002", f"the launch serves {m.value} but the manifest declares model: {model.value} "
                                    f"({here(model.span)})", m.span, related=[(model.span, f"declared model: {model.value}")])
        q = p.settings.get("quantization")
        if q is None and "quantization" not in p.unknown:
            yield from _checkpoint_precision(ctx, p, precision)
        fam = QUANTIZATION_PRECISION.get(str(q.value).lower()) if q is not None else None
        if fam and precision is not None and isinstance(precision.value, str):
            want = precision.value.upper()
            agree = fam == want or (want == "FP4" and fam in FP4_FAMILY)
            if not agree:
                yield Finding("TOP002", f"--quantization {q.value} serves {fam} weights but the manifest declares "
                                        f"precision: {precision.value} ({here(precision.span)})",
                              q.span, related=[(precision.span, f"declared precision: {precision.value}")])
        if p.image is not None and version is not None and isinstance(version.value, str):
            tag = p.image.value.rsplit(":", 1)[1] if ":" in p.image.value.rsplit("/", 1)[-1] else ""
            t, v = _SEMVER.search(tag), _SEMVER.search(version.value)
            if t and v and t.group(1) != v.group(1):
                yield Finding("TOP002", f"the image {p.image.value} is version {t.group(1)} but the manifest declares "
                                        f"engine version {version.value} ({here(version.span)})",
                              p.image.span, related=[(version.span, f"declared version: {version.value}")])


def _checkpoint_precision(ctx: Context, p: Process, precision: Located | None):
    """With no --quantization the engine serves the checkpoint as published: the declared
    precision must be the checkpoint's (an -FP8 checkpoint is not BF16)."""
    if precision is None or not isinstance(precision.value, str) or not precision.value.strip():
        return
    entry, where = served_model(ctx, p)
    checkpoint = (entry or {}).get("checkpoint_precision")
    if entry is None:
        return   # COV001 reports the unknown model
    if not isinstance(checkpoint, str) or not checkpoint:
        ctx.not_checked("declared precision against the checkpoint (TOP002)",
                        f"the knowledge base has no checkpoint precision of {entry.get('requested_id') or entry['id']} "
                        f"(no curated checkpoint_precision, no quantization_config, no precision suffix in its name)",
                        where.span if where is not None else p.span)
        return
    want, got = precision.value.strip().upper(), checkpoint.strip().upper()
    if want == got or ("FP4" in (want, got) and {want, got} <= FP4_FAMILY):
        return  # 'FP4' names NVFP4 and MXFP4 loosely; NVFP4 vs MXFP4 is a real difference
    served = (where.value if where is not None and isinstance(where.value, str) else entry["id"])
    yield Finding("TOP002", f"the launch serves the {checkpoint} checkpoint {served} without --quantization, "
                            f"but the manifest declares precision: {precision.value} ({here(precision.span)})",
                  where.span if where is not None else p.span,
                  related=[(precision.span, f"declared precision: {precision.value}")])
