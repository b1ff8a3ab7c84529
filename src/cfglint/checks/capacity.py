"""MEM001: the model's weights must fit in the device memory the engine may use.

The estimate (:func:`weights_per_gpu`) is parameters x bytes per parameter at the checkpoint's
real precision, the routed experts and the rest separately (rules/models.yaml ``weights``,
``weight_formats``): the rest is split over TP x PP, the experts over the ranks that hold
them x PP (TP in SGLang and TensorRT-LLM, where EP lives inside TP; TP x DP in vLLM with
--enable-expert-parallel). It is weighed against the device memory (rules/accelerators.yaml:
``memory_usable_gib`` where measured, else ``memory_gib``) times the engine's memory fraction:
SGLang ``--mem-fraction-static`` and vLLM ``--gpu-memory-utilization`` are shares of the whole
device that weights and KV cache share; TensorRT-LLM's ``free_gpu_memory_fraction`` is a share
of what is left after loading, so there the weights meet the whole device. Defaults and their
sources: rules/engines.yaml ``defaults``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..deploy.defaults import Default, resolve
from ..deploy.extract import Process
from ..model import Finding, Located
from .base import Context, as_int, here, rule
from .modelfacts import parse_length, served_model

CHECK = "weights against device memory (MEM001)"
GIB = float(1 << 30)

# The measured figures the estimate was compared with (tests/test_capacity.py holds them with
# their source): the estimate came out 0.6% to 6.9% BELOW each, never above. Weights an engine
# replicates (norms, routers, scales, attention under DP attention) and MTP / draft layers are
# not counted, so the estimate is a lower bound; an error is reported only when even it does
# not fit, so it does not rest on the estimate's error.
STATED_ERROR = 0.08

# A fit that leaves the KV cache less than this share of the device is reported as a note.
TIGHT_SHARE = 0.05

# Precisions a checkpoint stores every part in; a model known only by its total parameter count
# is estimated when its checkpoint is one of these (mixed checkpoints need weights.parts).
UNIFORM = ("BF16", "FP16", "FP32", "FP8", "INT8")

_FLAGS = {"sglang": "--mem-fraction-static", "vllm": "--gpu-memory-utilization",
          "trtllm": "kv_cache_config.free_gpu_memory_fraction"}


@dataclass(frozen=True)
class Parts:
    """Which precision each part of a checkpoint is stored in, and why these parts."""

    experts: str
    rest: str
    how: str          # e.g. "the NVFP4 checkpoint (declared precision)"


@dataclass(frozen=True)
class Fit:
    """The estimate for one engine process."""

    weights_gib: float      # estimated weights per GPU
    budget_gib: float       # what the weights may use on one GPU
    device_gib: float
    headroom_gib: float     # estimated room left for the KV cache per GPU
    budget_how: str         # how the budget was derived, for messages
    layout: str             # "TP 4 x PP 2, experts over 8 ranks"
    kv_how: str = ""        # how the KV headroom was derived, for the note


def bytes_per_param(kb, name: str | None) -> float | None:
    """Bytes per parameter of a weight format (rules/models.yaml weight_formats), or None."""
    if not isinstance(name, str):
        return None
    return kb.weight_formats.get(name.upper())


def weights_per_gpu(params_b: float, expert_params_b: float, expert_bytes: float, rest_bytes: float,
                    dense_ranks: int, expert_ranks: int) -> float:
    """Bytes of weights one GPU holds: (params - expert params) x rest_bytes / dense_ranks +
    expert params x expert_bytes / expert_ranks. ``params_b`` and ``expert_params_b`` are in
    billions; ranks are at least 1. Raises ValueError for negative or non-finite input."""
    values = (params_b, expert_params_b, expert_bytes, rest_bytes)
    if any(not math.isfinite(v) or v < 0 for v in values) or dense_ranks < 1 or expert_ranks < 1:
        raise ValueError("weights_per_gpu: sizes must be finite and non-negative, ranks at least 1")
    rest = max(params_b - expert_params_b, 0.0) * 1e9
    return rest * rest_bytes / dense_ranks + expert_params_b * 1e9 * expert_bytes / expert_ranks


def _fraction(value) -> float | None:
    try:
        f = float(str(value).strip())
    except (TypeError, ValueError, OverflowError):
        return None
    return f if math.isfinite(f) and 0 < f <= 1 else None


def _number(value) -> float | None:
    try:
        f = float(str(value).strip())
    except (TypeError, ValueError, OverflowError):
        return None
    return f if math.isfinite(f) and f >= 0 else None


def checkpoint_parts(ctx: Context, entry: dict, where: Located | None, p: Process) -> Parts | str:
    """The precision of the experts and of the rest of the checkpoint ``p`` serves, or why it
    is unknown. A Hugging Face id the launch names is the checkpoint (its own precision, from
    its name suffix or config); a model the manifest names is served at the manifest's
    ``precision``; else the curated checkpoint."""
    weights = entry.get("weights") if isinstance(entry.get("weights"), dict) else {}
    parts = weights.get("parts") if isinstance(weights.get("parts"), dict) else None
    by_precision = weights.get("by_precision") if isinstance(weights.get("by_precision"), dict) else {}
    from_launch = where is not None and where.span == getattr(p.settings.get("model"), "span", None)
    curated = (ctx.kb.model(entry["id"]) or {}).get("checkpoint_precision")
    if from_launch:
        if str(entry.get("requested_id", entry["id"])).lower() == str(entry["id"]).lower():
            label, how = None, f"the {entry['id']} checkpoint"
        else:
            label = entry.get("checkpoint_precision")
            how = f"the {label or 'published'} checkpoint {entry.get('requested_id')}"
    else:
        declared = ctx.declared("precision") if ctx.sub.has_manifest else None
        label = declared.value if declared is not None and isinstance(declared.value, str) else None
        how = f"the {label} checkpoint (precision: {label} in the manifest)" if label else \
            f"the {entry['id']} checkpoint"
    if parts is None:
        # only a total parameter count: usable when every part has one precision
        label = label or curated
        if isinstance(label, str) and label.upper() in UNIFORM:
            return Parts(label.upper(), label.upper(), how)
        return (f"the knowledge base has no weight precision per part for the {label or 'published'} "
                f"checkpoint of {entry['id']} (rules/models.yaml weights)")
    chosen = None
    if isinstance(label, str):
        chosen = next((v for k, v in by_precision.items() if str(k).upper() == label.upper()), None)
        if chosen is None and (label.upper() == str(curated or "").upper()
                               or label.upper() == str(parts.get("experts", "")).upper()):
            chosen = parts
        if chosen is None:
            return f"the knowledge base has no weight sizes for the {label} checkpoint of {entry['id']}"
    chosen = chosen if isinstance(chosen, dict) else parts
    experts, rest = chosen.get("experts"), chosen.get("rest")
    if bytes_per_param(ctx.kb, experts) is None or bytes_per_param(ctx.kb, rest) is None:
        return f"the weight formats {experts} / {rest} of {entry['id']} are not in rules/models.yaml weight_formats"
    return Parts(str(experts).upper(), str(rest).upper(), how)


def _int_setting(p: Process, key: str) -> tuple[int | None, bool]:
    """(value, known): ``known`` is False when the setting is written but not a number."""
    loc = p.settings.get(key)
    if key in p.unknown:
        return None, False
    if loc is None:
        return None, True
    v = as_int(loc.value)
    return (v, True) if v is not None and v > 0 else (None, False)


def _upcast(ctx: Context, p: Process, parts: Parts, acc: dict) -> str | None:
    """The precision the FP4 experts are upcast to on this device (the engine's default MoE
    runner on sm120, rules/kernels.yaml sm120_fp4_moe.default_upcast), else None."""
    quirk = ctx.kb.kernels.get("sm120_fp4_moe") or {}
    if acc.get("arch") not in (quirk.get("architectures") or []):
        return None
    if parts.experts not in {str(x).upper() for x in quirk.get("default_upcast_precisions") or []}:
        return None
    if not (quirk.get("engines") or {}).get(p.engine or ""):
        return None
    if "moe_runner_backend" in p.settings or "moe_runner_backend" in p.unknown:
        return None  # a runner is chosen: HW001 says whether it works
    target = quirk.get("default_upcast")
    return str(target).upper() if isinstance(target, str) and bytes_per_param(ctx.kb, target) else None


def _budget(ctx: Context, p: Process, device: float, acc_name: str, acc: dict) -> tuple[float, float, str] | str:
    """(budget for the weights, fraction for the KV headroom, how) on one GPU, or why unknown."""
    loc = p.settings.get("mem_fraction")
    flag = _FLAGS.get(p.engine or "", "the memory fraction")
    if "mem_fraction" in p.unknown:
        return f"{flag} is a value known only at run time"
    given = _fraction(loc.value) if loc is not None else None
    if loc is not None and given is None:
        return f"{flag} {loc.value} is not a fraction between 0 and 1"
    if p.engine == "sglang":
        if given is not None:
            return device * given, given, f"{flag} {loc.value} x {device:.1f} GiB"
        entry = ((ctx.kb.engines.get("defaults") or {}).get("sglang") or {}).get("mem_fraction_static") or {}
        reserve = None
        for case in entry.get("reserve_gib") or []:
            if "min_memory_gib" in case and device < case["min_memory_gib"]:
                continue
            reserve = case.get("value")
            break
        if not isinstance(reserve, (int, float)) or reserve >= device:
            return "SGLang's default --mem-fraction-static is not known for this device"
        f = round((device - reserve) / device, 3)
        return device * f, f, (f"SGLang's default {flag} (at most {f:g}: {device:.1f} GiB less a reserve of at "
                               f"least {reserve:g} GiB) x {device:.1f} GiB")
    if p.engine == "vllm":
        kv = p.settings.get("kv_cache_memory")
        offload = _number(p.settings["cpu_offload_gb"].value) if "cpu_offload_gb" in p.settings else 0.0
        if "kv_cache_memory" in p.unknown or "cpu_offload_gb" in p.unknown or offload is None:
            return "--kv-cache-memory-bytes / --cpu-offload-gb is a value not known statically"
        extra = f" + --cpu-offload-gb {offload:g}" if offload else ""
        if kv is not None:
            size = parse_length(kv.value)
            if size is None:
                return f"--kv-cache-memory-bytes {kv.value} is not a size"
            kv_gib = size / GIB
            return (device - kv_gib + offload, 1.0,
                    f"{device:.1f} GiB less --kv-cache-memory-bytes {kv.value}{extra} (the fraction is then ignored)")
        if given is not None:
            return device * given + offload, given, f"{flag} {loc.value} x {device:.1f} GiB{extra}"
        entry = ((ctx.kb.engines.get("defaults") or {}).get("vllm") or {}).get("gpu_memory_utilization") or {}
        values = [v for v in (entry.get("value"), entry.get("later_value")) if isinstance(v, (int, float))]
        if not values:
            return "vLLM's default --gpu-memory-utilization is not in rules/engines.yaml"
        f = max(values)
        shown = " / ".join(f"{v:g}" for v in values)
        return device * f + offload, f, f"vLLM's default {flag} ({shown}; {f:g} used) x {device:.1f} GiB{extra}"
    if p.engine == "trtllm":
        f = given
        if f is None:
            d = resolve(ctx.kb, "trtllm", "free_gpu_memory_fraction", (acc_name, acc), None, "")
            f = _fraction(d.value) if isinstance(d, Default) else None
        return device, f or 0.9, f"the whole {device:.1f} GiB (TensorRT-LLM gives the KV cache {flag} of what is left)"
    return f"no memory-fraction semantics for engine {p.engine}"


def derived_params_b(entry: dict) -> float | None:
    """A lower bound of a model's parameters, in billions, from the count derived from its shapes
    (``num_parameters``, rules/model_configs_litgpt.yaml: embedding and lm_head counted apart):
    less one vocab x hidden matrix, so a checkpoint that ties them is not over-counted. None
    without the count, the vocabulary or the hidden size."""
    total, vocab, hidden = entry.get("num_parameters"), entry.get("vocab_size"), entry.get("hidden_size")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (total, vocab, hidden)):
        return None
    low = total - vocab * hidden
    return low / 1e9 if low > 0 else None


def estimate(ctx: Context, p: Process, entry: dict, where: Located | None, acc_name: str,
             acc: dict) -> tuple[Fit, Parts, str | None] | str | None:
    """The fit of ``p``'s weights on one device, or why it cannot be estimated (None: a gap
    COV001 already reports: the parallelism is in an unpublished engine config, or a value it
    needs is known only at run time)."""
    weights = entry.get("weights") if isinstance(entry.get("weights"), dict) else {}
    params, experts = weights.get("params_b"), weights.get("expert_params_b", 0)
    total_only = params is None and "parts" not in weights
    if total_only:
        params, experts = entry.get("total_params_b"), 0   # rules/models.yaml total_params_b
    derived = None
    if total_only and params is None and entry.get("moe") is False:
        derived = derived_params_b(entry)   # a dense model known by its shapes alone (litgpt)
        params = derived
    if not isinstance(params, (int, float)) or not isinstance(experts, (int, float)) or isinstance(params, bool) \
            or not 0 <= experts <= params or not 0 < params < 1e6:
        return f"the knowledge base has no parameter count for {entry['id']} (rules/models.yaml weights)"
    parts = checkpoint_parts(ctx, entry, where, p)
    if isinstance(parts, str):
        return parts
    if derived is not None:
        filled = entry.get("filled_from") if isinstance(entry.get("filled_from"), dict) else {}
        origin = filled.get("num_parameters") or entry.get("config_source")
        parts = Parts(parts.experts, parts.rest, f"{parts.how}; at least {derived:.2f}B parameters, derived from "
                                                 f"its shapes ({origin}), embedding and lm_head counted once")
    if p.missing_configs and not {"tp", "pp"} & set(p.settings):
        return None  # the parallelism is in an engine config that is not published: COV001 lists it
    if p.unknown & {"tp", "pp", "dp", "mem_fraction", "kv_cache_memory", "cpu_offload_gb", "expert_parallel"}:
        return None  # a value known only at run time: COV001 lists it ("checks that use tp ...")
    tp, ok_tp = _int_setting(p, "tp")
    pp, ok_pp = _int_setting(p, "pp")
    dp, ok_dp = _int_setting(p, "dp")
    if not (ok_tp and ok_pp and ok_dp):
        return "TP, PP or DP is not a number known statically"
    tp, pp, dp = tp or 1, pp or 1, dp or 1
    expert_parallel = p.settings.get("expert_parallel")
    expert_ranks = tp * (dp if p.engine == "vllm" and expert_parallel is not None and expert_parallel.value is True else 1)
    if total_only and entry.get("moe") is not False and expert_ranks != tp:
        return (f"the knowledge base has no expert share of {entry['id']}'s parameters (rules/models.yaml "
                f"weights), which vLLM spreads over TP x DP with expert parallelism")
    device = acc.get("memory_usable_gib", acc.get("memory_gib"))
    if not isinstance(device, (int, float)) or device <= 0:
        return f"the memory of {acc_name} is not in the knowledge base (memory_gib, rules/accelerators.yaml)"
    upcast = _upcast(ctx, p, parts, acc)
    expert_fmt = upcast or parts.experts
    try:
        need = weights_per_gpu(float(params), float(experts), bytes_per_param(ctx.kb, expert_fmt),
                               bytes_per_param(ctx.kb, parts.rest), tp * pp, expert_ranks * pp) / GIB
    except (ValueError, OverflowError):
        return f"the parameter counts of {entry['id']} are not usable numbers"
    budget = _budget(ctx, p, float(device), acc_name, acc)
    if isinstance(budget, str):
        return budget
    allowed, fraction, how = budget
    headroom = (device - need) * fraction if p.engine == "trtllm" else allowed - need
    layout = f"TP {tp}" + (f" x PP {pp}" if pp > 1 else "")
    if experts and expert_ranks != tp:
        layout += f", experts over {expert_ranks} ranks (expert parallel over TP x DP)"
    kv_how = how
    if p.engine == "trtllm":
        kv_how = (f"{_FLAGS['trtllm']} {fraction:g} of the ~{max(device - need, 0):.1f} GiB of {device:.1f} GiB left "
                  f"after the weights")
    return Fit(need, allowed, float(device), headroom, how, layout, kv_how), parts, upcast


def memory_budget(ctx: Context, p: Process) -> tuple[Fit, Parts, str | None] | str:
    """MEM001's per-GPU estimate for engine process ``p`` of ``ctx``'s submission (what
    ``cfglint explain`` shows): (:class:`Fit` with weights, budget, KV headroom and device memory
    in GiB; the checkpoint's :class:`Parts`; the precision FP4 experts are upcast to, or None),
    or why it cannot be made (the engine, accelerator, model, parallelism or memory fraction
    not known). Sources: those of :func:`estimate`."""
    if p.engine not in _FLAGS:
        return f"no memory model for engine {p.engine}"
    acc_name, acc, _ = ctx.accelerator()
    if acc is None:
        return (f"the accelerator {acc_name} is not in the knowledge base" if acc_name else
                "no accelerator is declared (system.accelerator in submission.yaml)")
    entry, where = served_model(ctx, p)
    if entry is None:
        return "the served model is not in the knowledge base (rules/models.yaml)"
    got = estimate(ctx, p, entry, where, acc_name, acc)
    if got is None:
        return "the parallelism or memory fraction is known only at run time, or is in an engine config that is not published"
    return got


def _precision_text(parts: Parts, upcast: str | None) -> str:
    if upcast:
        return (f"{parts.experts} experts upcast to {upcast} by the default MoE runner on this GPU, "
                f"{parts.rest} elsewhere")
    if parts.experts == parts.rest:
        return parts.experts
    return f"{parts.experts} experts, {parts.rest} elsewhere"


def _gap_span(p: Process, why: str, where: Located | None, span):
    """Where the cause of a gap is written: the memory setting or parallelism it names, else the model."""
    for key, words in (("mem_fraction", tuple(_FLAGS.values())), ("kv_cache_memory", ("--kv-cache-memory",)),
                       ("cpu_offload_gb", ("--cpu-offload-gb",)), ("tp", ("TP, PP or DP",))):
        if any(w in why for w in words):
            if key in p.unresolved_at:
                return p.unresolved_at[key]
            if key in p.settings:
                return p.settings[key].span
    return where.span if where is not None else span


def _smallest_tp(fit: Fit, tp: int) -> int | None:
    """The smallest power-of-two multiple of ``tp`` whose share of the weights fits (weights
    scale as 1 / TP, a slight under-estimate when some weights do not split), up to 64x."""
    for k in (2, 4, 8, 16, 32, 64):
        if fit.weights_gib * 1 / k <= fit.budget_gib:
            return tp * k
    return None


@rule("MEM001", "weights-do-not-fit", "error",
      "The model's weights alone do not fit in the GPU memory the engine may use at this "
      "parallelism and precision.",
      "The weights per GPU are estimated as (parameters - routed-expert parameters) x bytes per "
      "parameter of the rest / (TP x PP) + routed-expert parameters x bytes per parameter of the "
      "experts / (expert ranks x PP), the expert ranks being TP in SGLang and TensorRT-LLM (EP "
      "lives inside TP) and TP x DP in vLLM with --enable-expert-parallel. Bytes per parameter "
      "follow the checkpoint's real precision per part (for example NVFP4 experts 0.5625 with "
      "their FP8 scales, the rest FP8 or BF16): the Hugging Face id the launch serves, else the "
      "manifest's precision. On sm120 GPUs the engine's default MoE runner upcasts MXFP4 experts "
      "to BF16 (HW001; measured by the catalog for Kimi K3), so without a runner flag they are "
      "counted at BF16. The estimate is "
      "weighed against device memory x the engine's fraction: SGLang --mem-fraction-static "
      "(weights + KV pool; its default is device memory less a reserve of at least 10 GiB on "
      "GPUs over 60 GiB, and the largest fraction it could pick is used), vLLM "
      "--gpu-memory-utilization (default 0.9, 0.92 in later releases: 0.92 is used; "
      "--kv-cache-memory-bytes replaces it, --cpu-offload-gb adds host memory), and for "
      "TensorRT-LLM the whole device, since its free_gpu_memory_fraction (default 0.9) applies "
      "to what is free after the weights are loaded. Error of the estimate: against the weights "
      "per card measured in a public deployment catalog (NVIDIA's NVFP4 DeepSeek-V4-Flash build "
      "at TP4 on RTX 6000D: 40.94 GB measured; DeepSeek-V4-Flash with FP4 experts at TP4: 38.57 "
      "GiB; Kimi K3 MXFP4 at TP8 x PP4: 47.81 GiB) the estimate is 0.6% to 6.9% low, and within "
      "8% of each (tests/test_capacity.py checks it); it never counted high because replicated "
      "weights (norms, routers, scales, attention under DP attention) and MTP / draft layers "
      "are left out. An error is therefore reported only when even this lower estimate exceeds "
      "the budget; the fix is more GPUs per instance (TP / EP), a smaller precision, or a larger "
      "fraction. When the weights fit but leave the KV cache less than 5% of the device, "
      "one note per submission gives the estimate; a comfortable fit is not reported, because a "
      "note on every passing submission would make `--fail-level note` (the full-coverage gate "
      "of COV001) fail everywhere. A dense model with no curated parameter count is weighed by a "
      "lower bound derived from its shapes (num_parameters of rules/model_configs_litgpt.yaml less "
      "one vocab x hidden matrix, in case the checkpoint ties embedding and lm_head), and the "
      "finding says so. A model without parameter counts or precision in "
      "rules/models.yaml, a parallelism or fraction known only at run time, or an unknown "
      "accelerator is reported in COV001. NVIDIA aiconfigurator (PyPI aiconfigurator-core 0.12.0, "
      "Apache-2.0) was weighed as an optional extra and not taken: an 80 MB wheel (110 MB, 1,436 "
      "files unpacked) needing numpy, pandas, scipy and pyarrow, too heavy for a pre-commit hook; "
      "its native memory model needs its per-system performance database (none for RTX 6000D or "
      "MI355X), and its fallback estimate counts the config's dtype, not the quantized experts: "
      "321.7 GiB per card for the catalog's Kimi K3 TP8 x PP4 shape measured at 47.81 GiB, and no "
      "estimate for DeepSeek-V4. Its data is used instead: the config.json facts of "
      "rules/model_configs.yaml and the nvidia-smi memory sizes of rules/accelerators.yaml.",
      ("rules/models.yaml weights (parameter counts, precision per part, each with its source) and "
       "weight_formats (bytes per parameter)",
       "rules/model_configs_litgpt.yaml num_parameters (derived from litgpt 0.5.13 litgpt/config.py shapes)",
       "rules/accelerators.yaml memory_usable_gib / memory_gib",
       "rules/engines.yaml defaults: sglang mem_fraction_static (sgl-project/sglang "
       "python/sglang/srt/server_args.py _handle_gpu_memory_settings), vllm gpu_memory_utilization "
       "(vllm-project/vllm vllm/config/cache.py), trtllm free_gpu_memory_fraction "
       "(NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py KvCacheConfig)",
       "rules/kernels.yaml sm120_fp4_moe default_upcast",
       "aiconfigurator-core 0.12.0 aiconfigurator_core/sdk/memory.py (fraction of total for vLLM / "
       "SGLang, of free memory for TensorRT-LLM)"))
def check_weights_fit(ctx: Context):
    if not ctx.sub.has_manifest:
        return
    acc_name, acc, acc_at = ctx.accelerator()
    if acc is None:
        return  # COV001 reports an unknown accelerator
    # what one device is called: a TPU's HBM is per chip (rules/accelerators.yaml arch tpu-*)
    device = "chip" if str(acc.get("arch") or "").startswith("tpu") else "GPU"
    tight: list[tuple[Process, Fit, Parts, str | None, dict]] = []
    seen: set = set()
    for p in ctx.deployment.engine_processes():
        if p.engine not in _FLAGS:
            continue
        entry, where = served_model(ctx, p)
        if entry is None:
            continue  # COV001 reports the unknown model
        got = estimate(ctx, p, entry, where, acc_name, acc)
        if got is None:
            continue
        anchor = p.settings.get("tp")
        span = anchor.span if anchor is not None else p.span
        if isinstance(got, str):
            ctx.not_checked(CHECK, got, _gap_span(p, got, where, span))
            continue
        fit, parts, upcast = got
        key = (span, round(fit.weights_gib, 3), round(fit.budget_gib, 3))
        if key in seen:
            continue
        seen.add(key)
        role = f"{p.role.value} " if p.role is not None and p.role.value != "server" else ""
        if fit.weights_gib > fit.budget_gib:
            tp = as_int(anchor.value) if anchor is not None else 1
            bigger = _smallest_tp(fit, tp or 1)
            if upcast:
                runner = (((ctx.kb.kernels.get("sm120_fp4_moe") or {}).get("engines") or {}).get(p.engine) or {}).get("flag")
                fixes = [f"{runner or 'the marlin MoE runner'} marlin, which keeps the experts 4-bit (HW001)"]
            else:
                fixes = [f"more {device}s per instance (TP {bigger}: ~{fit.weights_gib * (tp or 1) / bigger:.1f} GiB)"
                         if bigger else f"more {device}s per instance (TP / EP)", "a smaller precision"]
            if p.engine in ("sglang", "vllm"):
                fixes.append(f"a larger {_FLAGS[p.engine]}")
            related = [(acc_at.span, f"accelerator: {acc_name}")] if acc_at else []
            if "mem_fraction" in p.settings:
                related.append((p.settings["mem_fraction"].span, f"{_FLAGS[p.engine]} {p.settings['mem_fraction'].value}"))
            yield Finding("MEM001",
                          f"the {role}weights of {entry['id']}"
                          f"{' (named by the directory ' + str(entry.get('requested_id')) + ')' if entry.get('by_path_name') else ''}"
                          f" ({_precision_text(parts, upcast)}; {parts.how}) need "
                          f"~{fit.weights_gib:.1f} GiB per {device} at {fit.layout} but {acc_name} leaves "
                          f"{fit.budget_gib:.1f} GiB for them ({fit.budget_how}): they cannot load; use "
                          + (", ".join(fixes[:-1]) + f" or {fixes[-1]}" if len(fixes) > 1 else fixes[0]),
                          span, related=related)
        elif fit.headroom_gib < TIGHT_SHARE * fit.device_gib:
            tight.append((p, fit, parts, upcast, entry))
    if tight:
        parts_text = []
        for p, fit, parts, upcast, entry in tight:
            role = f"{p.role.value}: " if p.role is not None else ""
            parts_text.append(f"{role}~{fit.weights_gib:.1f} GiB of weights per {device} at {fit.layout} leave "
                              f"at most ~{max(fit.headroom_gib, 0):.1f} GiB for the KV cache ({fit.kv_how}, "
                              f"{here(p.span)})")
        p0, _, parts0, upcast0, entry0 = tight[0]
        anchor = p0.settings.get("tp")
        yield Finding("MEM001",
                      f"{entry0['id']} ({_precision_text(parts0, upcast0)}) fits on {acc_name} with little room for the "
                      f"KV cache: " + "; ".join(parts_text) + "; short contexts or few concurrent requests only "
                      "(estimate, up to 8% low)",
                      anchor.span if anchor is not None else p0.span, level="note")
