"""The kernel matrix compiled from the engines' released source (rules/releases/<engine>-kernels.yaml,
:mod:`cfglint.knowledge.kernelmatrix`) against a launch's GPU, model and backend flags:

- HW002 (with rules/kernels.yaml's hand rows, :mod:`.kernels`): an SGLang backend flag whose
  start-up check refuses the GPU, a vLLM ``--attention-backend`` outside its capabilities;
- HW004: a quantization method below its minimum compute capability, FP8 on a GPU without FP8
  tensor cores where the release has no Marlin fallback, a Marlin fallback whose TP shards are
  not a multiple of the Marlin tile, a method vLLM's ROCm platform does not take;
- HW005: an attention backend that lacks what the model needs (attention sinks, its head size,
  the backends the engine requires for the architecture), naming the backends that work.

Each finding names the release whose source it read; a release cfglint does not hold is
checked as the newest, and the message says so.
"""

from __future__ import annotations

import re

from ..deploy.extract import Process
from ..knowledge import versions
from ..knowledge.kernelmatrix import KernelMatrix, capability, describe, evaluate, load_matrix
from ..model import Finding, Located
from .base import Context, here, rule
from .modelfacts import served_model

# launch settings the conditions read (canonical names of rules/engines.yaml)
_SETTINGS = ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
             "moe_runner_backend", "fp8_gemm_runner_backend", "kv_cache_dtype")
# checkpoint precision -> the quantization method the engines pick for it (config.json quant_method)
_PRECISION_METHOD = {"FP8": "fp8", "MXFP4": "mxfp4", "NVFP4": "modelopt_fp4", "AWQ": "awq", "GPTQ": "gptq"}
_FLAG = {"attention_backend": "--attention-backend", "prefill_attention_backend": "--prefill-attention-backend",
         "decode_attention_backend": "--decode-attention-backend", "moe_runner_backend": "--moe-runner-backend",
         "fp8_gemm_runner_backend": "--fp8-gemm-backend", "kv_cache_dtype": "--kv-cache-dtype"}
_MATRICES: dict[str, KernelMatrix | None] = {}


def matrix(engine: str | None) -> KernelMatrix | None:
    if engine not in ("vllm", "sglang"):
        return None
    if engine not in _MATRICES:
        _MATRICES[engine] = load_matrix(engine)
    return _MATRICES[engine]


def release_of(ctx: Context, p: Process, m: KernelMatrix) -> tuple[str, str | None]:
    """(release read, None) when the launch's release is one the matrix holds, else (the newest,
    why it is assumed)."""
    launch = p.releases.get(m.engine)
    if launch is not None and launch.release in m.releases:
        res = launch.resolution
        if res.how == "line":   # another patch of its line was read: the message names both
            return launch.release, (f"the launch runs {_label(m)} {versions.leading(res.version or '') or res.version}, "
                                    f"which cfglint did not read; {launch.release}, of its release line, stands for it")
        return launch.release, None
    why = launch.resolution.note if launch is not None else "the release is not known"
    return m.releases[-1], f"{why}; checked as the newest release cfglint read, {m.releases[-1]}"


def _label(m: KernelMatrix) -> str:
    return {"vllm": "vLLM", "sglang": "SGLang"}.get(m.engine, m.engine)


def _read(m: KernelMatrix, release: str, assumed: str | None) -> str:
    return f"{_label(m)} {release}" + (f" ({assumed})" if assumed else "")


def launch_settings(p: Process) -> tuple[dict[str, str | None], dict[str, Located]]:
    """(lower-cased values, where each is written) of the backend settings, with the effective
    ``prefill_backend`` / ``decode_backend`` (the phase's own flag, else --attention-backend);
    a value known only at run time is left out (unknown)."""
    values: dict[str, str | None] = {}
    where: dict[str, Located] = {}
    for s in _SETTINGS:
        loc = p.settings.get(s)
        if loc is None or s in p.unknown or not isinstance(loc.value, str):
            continue
        values[s] = loc.value.lower()
        where[s] = loc
    for phase in ("prefill", "decode"):
        own = f"{phase}_attention_backend"
        src = own if own in values else "attention_backend" if "attention_backend" in values else None
        if src:
            values[f"{phase}_backend"] = values[src]
            where[f"{phase}_backend"] = where[src]
    return values, where


def _arch(ctx: Context):
    if not ctx.sub.has_manifest:
        return None, None, None
    name, acc, decl = ctx.accelerator()
    arch = (acc or {}).get("arch")
    if not arch or decl is None:
        return None, None, None
    return name, arch, decl


def _failing(m: KernelMatrix, release: str, arch: str, settings: dict) -> list[dict]:
    return [g for g in m.section("guards") if m.holds(g, release) and evaluate(g.get("condition"), arch, settings) is True]


def _culprit(cond, settings: dict, where: dict) -> Located | None:
    """The launch setting a guard's condition names first among those the launch sets."""
    names = re.findall(r"'(\w+)'", repr(cond))
    for n in names:
        if n in where and n in settings:
            return where[n]
    return None


def guard_findings(ctx: Context):
    """HW002 from SGLang's compiled start-up checks (called by :func:`cfglint.checks.kernels.check_known_bad`)."""
    name, arch, decl = _arch(ctx)
    if arch is None:
        return
    for p in ctx.deployment.engine_processes():
        m = matrix(p.engine)
        if m is None or p.engine != "sglang":
            continue
        settings, where = launch_settings(p)
        if not any(k in settings for k in _SETTINGS if k != "kv_cache_dtype"):
            continue
        release, assumed = release_of(ctx, p, m)
        seen = set()
        for g in _failing(m, release, arch, settings):
            loc = _culprit(g.get("condition"), settings, where)
            if loc is None or loc.span in seen:
                continue
            seen.add(loc.span)
            first = min(m.releases.index(r) for r in versions.expand(g["in"], m.releases))
            ok = [r for r in m.releases[first:] if not _failing(m, r, arch, settings)]
            ok_text = f"; no start-up check refuses it on {arch} in {versions.ranges(ok, m.releases)}" if ok else ""
            yield Finding("HW002", f"{loc.value} on {name} ({arch}, {here(decl.span)}): {_read(m, release, assumed)} "
                                   f"refuses it at start-up: '{g.get('message', '').strip()}' ({g.get('source')}, "
                                   f"condition: {describe(g.get('condition'))}){ok_text}",
                          loc.span, related=[(decl.span, f"accelerator: {name}")])
        if assumed is not None and not seen:
            bad = [r for r in m.releases if _failing(m, r, arch, settings)]
            if bad:
                ctx.not_checked(f"{_label(m)} backend flags on {arch} (HW002)",
                                f"older releases refuse them ({versions.ranges(bad, m.releases)}); {assumed}", p.span)


def vllm_backend_findings(ctx: Context):
    """HW002: vLLM ``--attention-backend`` outside the capabilities its class accepts, or with a
    ``--kv-cache-dtype`` outside its ``supported_kv_cache_dtypes``."""
    name, arch, decl = _arch(ctx)
    if arch is None or capability(arch) is None:
        return
    for p in ctx.deployment.engine_processes():
        m = matrix(p.engine)
        if m is None or p.engine != "vllm":
            continue
        loc = p.settings.get("attention_backend")
        if loc is None or "attention_backend" in p.unknown or not isinstance(loc.value, str):
            continue
        release, assumed = release_of(ctx, p, m)
        fact = (m.section("attention_backends") or {}).get(loc.value.upper())
        if fact is None or not m.holds(fact, release):
            continue
        kv = p.settings.get("kv_cache_dtype")
        dtypes = m.at(fact, release, "kv_cache_dtypes")
        if kv is not None and isinstance(kv.value, str) and "kv_cache_dtype" not in p.unknown and dtypes \
                and kv.value.lower() not in [d.lower() for d in dtypes]:
            yield Finding("HW002", f"--kv-cache-dtype {kv.value} with --attention-backend {loc.value}: {_read(m, release, assumed)} "
                                   f"{fact.get('class')} takes {', '.join(dtypes)} ({fact.get('source')}, "
                                   f"supported_kv_cache_dtypes)", kv.span, related=[(loc.span, f"--attention-backend {loc.value}")])
        cond = m.at(fact, release, "compute_capability")
        if cond and evaluate(cond, arch, {}) is False:
            yield Finding("HW002", f"--attention-backend {loc.value} on {name} ({arch}, {here(decl.span)}): "
                                   f"{_read(m, release, assumed)} {fact.get('class')} supports only "
                                   f"{describe(cond)} ({fact.get('compute_capability_source')}); "
                                   f"pick a backend for {arch} (TRITON_ATTN runs on every CUDA GPU)",
                          loc.span, related=[(decl.span, f"accelerator: {name}")])


def _method(p: Process, model: dict | None) -> tuple[str | None, Located | None, str]:
    """(quantization method, where the launch sets it, where it comes from)."""
    loc = p.settings.get("quantization")
    if loc is not None and isinstance(loc.value, str) and "quantization" not in p.unknown:
        return loc.value.lower(), loc, "--quantization"
    q = (model or {}).get("quantization")
    if isinstance(q, dict) and isinstance(q.get("method"), str) and not q.get("inferred_from"):
        return q["method"].lower(), None, f"the checkpoint's quantization_config (quant_method {q['method']})"
    for text in (p.settings.get("model").value if p.settings.get("model") is not None else None, (model or {}).get("id")):
        m = re.search(r"[-_.](awq|gptq)(?=$|[-_.])", text, re.I) if isinstance(text, str) else None
        if m:   # a re-upload named -AWQ / -GPTQ-Int4: the method its quantization_config names
            return m.group(1).lower(), None, f"the checkpoint's name ({text})"
    prec = str((model or {}).get("checkpoint_precision") or "").upper()
    if prec in _PRECISION_METHOD:
        return _PRECISION_METHOD[prec], None, f"the checkpoint's precision ({prec})"
    return None, None, ""


def _method_fact(m: KernelMatrix, release: str, method: str) -> dict | None:
    quant = m.section("quantization") or {}
    for key in (method, method.replace("-", "_"), method.replace("_", "-")):
        f = quant.get(key)
        if f is not None and m.holds(f, release):
            return f
    return None


def _methods_running(m: KernelMatrix, release: str, cc: int, limit: int = 8) -> list[str]:
    """Up to ``limit`` quantization methods whose minimum capability at ``release`` is at most
    ``cc`` (the alternatives a finding names), in the matrix's order."""
    out = []
    for method, fact in (m.section("quantization") or {}).items():
        need = m.at(fact, release, "min_capability") if m.holds(fact, release) else None
        if isinstance(need, int) and need <= cc:
            out.append(method)
    return out[:limit]


def _single(m: KernelMatrix, section: str, release: str) -> dict | None:
    return next((f for f in m.section(section) or [] if m.holds(f, release)), None)


@rule("HW004", "quantization-not-for-architecture", "error",
      "A quantization method or its fallback kernel the engine release does not run on the system's GPU.",
      "Each quantization method of vLLM and SGLang states the oldest GPU it runs on "
      "(get_min_capability: AWQ 75, FP8 80 (vLLM 75 from 0.14), MXFP4 80, ...) and the model loader "
      "refuses an older one ('Minimum capability'). GPUs without FP8 tensor cores (below sm89) run "
      "FP8 checkpoints only through the weight-only Marlin fallback: SGLang has it from 0.5.1 "
      "(can_auto_enable_marlin_fp8, sm80-sm88) and not before; vLLM's Marlin kernels need each TP "
      "shard's output size a multiple of 64 (GPTQ_MARLIN_MIN_THREAD_N; the merged gate_up projection, "
      "2 x intermediate_size / TP, is the one models miss). On AMD, vLLM takes only the methods of its ROCm platform's supported_quantization. The "
      "facts are compiled per release from the released source (rules/releases/<engine>-kernels.yaml); "
      "the release is the launch's, else the newest, as the message says.",
      ("rules/releases/vllm-kernels.yaml, rules/releases/sglang-kernels.yaml "
       "(python -m cfglint.knowledge.build kernels; each fact with its source file and releases)",))
def check_quantization(ctx: Context):
    name, arch, decl = _arch(ctx)
    if arch is None:
        return
    cc = capability(arch)
    for p in ctx.deployment.engine_processes():
        m = matrix(p.engine)
        if m is None:
            continue
        model, where_model = served_model(ctx, p)
        method, loc, origin = _method(p, model)
        if method is None:
            continue
        span = loc.span if loc is not None else (where_model.span if where_model is not None else p.span)
        release, assumed = release_of(ctx, p, m)
        read = _read(m, release, assumed)
        related = [(decl.span, f"accelerator: {name}")]
        if cc is None:   # AMD: vLLM's ROCm list
            rocm = _single(m, "rocm_quantization", release) if m.engine == "vllm" and arch.startswith("gfx") else None
            if rocm and method not in rocm.get("methods", []) and method.replace("_", "-") not in rocm.get("methods", []):
                yield Finding("HW004", f"{method} does not run on {name} ({arch}) in {_label(m)} {release}: its ROCm "
                                       f"platform takes only {', '.join(rocm['methods'])} ({rocm.get('source')}): serve "
                                       f"a checkpoint in one of those. {method} is read from {origin}"
                                       + (f"; {assumed}" if assumed else ""), span, related=related)
            continue
        fact = _method_fact(m, release, method)
        if fact is None:
            if method in ("fp8", "awq", "gptq", "mxfp4"):
                ctx.not_checked(f"{method} kernels on {arch} (HW004)",
                                f"{read} states no minimum capability for {method}", span)
            continue
        need = m.at(fact, release, "min_capability")
        refused = _single(m, "quantization_refused", release)
        if isinstance(need, int) and cc < need:
            by = f" (refused at load: {refused['source']})" if refused else ""
            runs = _methods_running(m, release, cc)
            fix = (f"serve a checkpoint in a method {_label(m)} {release} runs on {arch} ({', '.join(runs)}) "
                   f"or use a GPU of sm{need} or newer") if runs else f"use a GPU of sm{need} or newer"
            yield Finding("HW004", f"{method} needs compute capability {need // 10}.{need % 10} or newer in "
                                   f"{_label(m)} {release}, but {name} is {arch}{by}: {fix}. {method} is read from "
                                   f"{origin}; its minimum is {fact.get('source')} get_min_capability"
                                   + (f"; {assumed}" if assumed else ""),
                          span, related=related)
            continue
        if method != "fp8":
            continue
        yield from _fp8_fallback(ctx, p, m, release, read, model, origin, span, related, name, arch, cc)


def _fp8_fallback(ctx, p, m, release, read, model, origin, span, related, name, arch, cc):
    if m.engine == "sglang":
        tc = _single(m, "fp8_tensor_cores", release)
        need = tc.get("min_capability") if tc else 89
        if cc >= need:
            return
        fb = _single(m, "fp8_marlin", release)
        if fb and fb["from_capability"] <= cc < fb["below_capability"]:
            return
        has = [r for r in m.releases if any(m.holds(f, r) for f in m.section("fp8_marlin") or [])]
        yield Finding("HW004", f"FP8 ({origin}) on {name} ({arch}): FP8 kernels need compute capability "
                               f"{need // 10}.{need % 10} ({tc.get('source') if tc else 'cutlass_fp8_supported'}) and "
                               f"{read} has no weight-only Marlin fallback for it"
                               + (f"; SGLang {versions.ranges(has, m.releases)} falls back to Marlin on sm80-sm88 "
                                  f"(can_auto_enable_marlin_fp8)" if has else ""), span, related=related)
        return
    fb = _single(m, "fp8_marlin", release)
    if fb is None:
        if cc < 89:
            ctx.not_checked(f"FP8 Marlin fallback shapes on {arch} (HW004)",
                            f"{read} selects its FP8 kernel from a kernel list cfglint does not read "
                            f"(quantization/fp8.py states no capability for the Marlin fallback)", span)
        return
    if cc >= fb["below_capability"]:
        return
    tile = _single(m, "marlin", release)
    tp = _tp(p)
    if tile is None or tp is None:
        return
    n = tile["min_thread_n"]
    if not any(isinstance((model or {}).get(k), int) for k in ("intermediate_size", "moe_intermediate_size")):
        ctx.not_checked(f"FP8 Marlin shard sizes on {arch} (HW004)",
                        f"the model's intermediate sizes are not in the knowledge base "
                        f"({(model or {}).get('id') or 'model unknown'})", span)
        return
    # the merged gate_up projection of the MLP (dense layers, then the experts) is the widest
    # column-parallel output that depends on the model: 2 x intermediate / TP per shard
    for key in ("intermediate_size", "moe_intermediate_size"):
        size = (model or {}).get(key)
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            continue
        width = 2 * size
        if width % tp == 0 and (width // tp) % n == 0:
            continue
        fits = [t for t in (1, 2, 4, 8, 16) if width % t == 0 and (width // t) % n == 0]
        yield Finding("HW004", f"FP8 ({origin}) on {name} ({arch}) runs {read}'s weight-only Marlin fallback "
                               f"(below compute capability {fb['below_capability'] // 10}.{fb['below_capability'] % 10}, "
                               f"{fb['source']}), whose kernels need each TP shard's output size a multiple of "
                               f"{n} (GPTQ_MARLIN_MIN_THREAD_N, {tile['source']}): the gate_up projection is "
                               f"2 x {key} {size} / TP {tp} = {width / tp:g} per shard"
                               + (f"; TP {', '.join(map(str, fits))} fits" if fits else ""), _tp_span(p) or span,
                      related=related)
        return


def _tp(p: Process) -> int | None:
    loc = p.settings.get("tp")
    if loc is None:
        return 1
    try:
        v = int(loc.value)
    except (TypeError, ValueError):
        return None
    return v if v > 0 else None


def _tp_span(p: Process):
    loc = p.settings.get("tp")
    return loc.span if loc is not None else None


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _arch_key(arch: str) -> str:
    return _norm(re.sub(r"(ForCausalLM|ForConditionalGeneration|Model)$", "", arch))


@rule("HW005", "backend-lacks-model-feature", "error",
      "An attention backend that lacks what the served model needs (attention sinks, its head size, "
      "the backends the engine requires for the architecture).",
      "Models differ in what their attention needs: gpt-oss uses attention sinks and sliding "
      "windows, MLA models (DeepSeek, Kimi) need MLA kernels, each backend serves a set of head sizes. "
      "SGLang asserts at start-up that a model architecture gets one of the backends it supports "
      "(GptOssForCausalLM: triton, trtllm_mha, fa3, fa4, ... but not flashinfer); vLLM's backend "
      "classes state supports_sink() and get_supported_head_sizes(). The facts are compiled per "
      "release from the released source (rules/releases/<engine>-kernels.yaml); the message names the "
      "backends that work.",
      ("rules/releases/sglang-kernels.yaml model_backends, rules/releases/vllm-kernels.yaml "
       "attention_backends and sink_models (python -m cfglint.knowledge.build kernels)",
       "model facts: rules/models.yaml / rules/model_configs.yaml (model_type, head_dim)"))
def check_model_features(ctx: Context):
    for p in ctx.deployment.engine_processes():
        m = matrix(p.engine)
        if m is None:
            continue
        settings, where = launch_settings(p)
        if not any(s in settings for s in ("attention_backend", "prefill_backend", "decode_backend")):
            continue
        model, _ = served_model(ctx, p)
        if model is None:
            continue
        model_type = _norm(str(model.get("model_type") or ""))
        family = _norm(str(model.get("family") or ""))
        release, assumed = release_of(ctx, p, m)
        read = _read(m, release, assumed)
        if m.engine == "sglang":
            for fact in m.section("model_backends") or []:
                if not m.holds(fact, release):
                    continue
                keys = {_arch_key(a) for a in fact.get("architectures") or []}
                if not ((model_type and model_type in keys) or (not model_type and family and family in keys)):
                    continue
                allowed = [b.lower() for b in fact.get("attention_backends") or []]
                for s in fact.get("settings") or ["attention_backend"]:
                    v = settings.get(s)
                    if v is None or v in allowed:
                        continue
                    loc = where[s]
                    yield Finding("HW005", f"{loc.value} for {model.get('id')} ({', '.join(fact['architectures'])}): {read} "
                                           f"requires one of {', '.join(allowed)} ({fact.get('source')}: "
                                           f"'{fact.get('message', '').strip().splitlines()[0]}')", loc.span)
                    break
        else:
            loc = p.settings.get("attention_backend")
            if loc is None or not isinstance(loc.value, str) or "attention_backend" in p.unknown:
                continue
            fact = (m.section("attention_backends") or {}).get(loc.value.upper())
            if fact is None or not m.holds(fact, release):
                continue
            sinks = _single(m, "sink_models", release)
            mt = str(model.get("model_type") or "")
            if sinks and mt in (sinks.get("modules") or []) and m.at(fact, release, "sinks") == "no":
                good = sorted(n for n, f in (m.section("attention_backends") or {}).items()
                              if m.holds(f, release) and m.at(f, release, "sinks") in ("yes", "conditional")
                              and not f.get("mla") and not n.startswith(("ROCM", "CPU")))
                yield Finding("HW005", f"--attention-backend {loc.value} for {model.get('id')} ({mt}, attention sinks: "
                                       f"vllm/model_executor/models/{mt}.py): {read} {fact.get('class')} has no "
                                       f"attention sinks ({fact.get('sinks_source')}); backends with sinks: "
                                       f"{', '.join(good)}", loc.span)
                continue
            head = model.get("head_dim")
            sizes = m.at(fact, release, "head_sizes")
            if isinstance(head, int) and sizes and head not in sizes and not model.get("mla"):
                yield Finding("HW005", f"--attention-backend {loc.value} for {model.get('id')} (head size {head}): "
                                       f"{read} {fact.get('class')} serves head sizes {', '.join(map(str, sizes))} "
                                       f"({fact.get('source')})", loc.span)
