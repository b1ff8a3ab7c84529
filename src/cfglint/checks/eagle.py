"""SPEC002 (EAGLE tree shape, speculative settings across roles) and SPEC003 (token budget)."""

from __future__ import annotations

from ..deploy.defaults import Default, draft_slots, engine_version, resolve, version_gate
from ..model import Finding
from .base import Context, as_int, here, rule
from .jsonflags import parsed
from .speculative import draft_length


def _tree_bound(steps: int, topk: int) -> int:
    """Draft tokens an SGLang EAGLE tree of ``steps`` steps at ``topk`` can hold: the root and
    the topk + (steps - 1) x topk^2 candidates the verify selects from (eagle_utils.py
    organize_draft_results: torch.topk over them for num_draft_tokens - 1); steps + 1 at topk 1."""
    return topk + (steps - 1) * topk * topk + 1


@rule("SPEC002", "eagle-shape", "error",
      "EAGLE steps / top-k / draft tokens that the engine rewrites or rejects, or speculative "
      "settings that differ between prefill and decode.",
      "SGLang's EAGLE draft is a tree: the first step proposes topk tokens, each later step expands "
      "the topk best branches by topk tokens each, and the verify keeps the best draft tokens - 1 of "
      "those topk + (steps - 1) x topk^2 candidates plus the root; more draft tokens than that "
      "cannot be selected (steps 3 / topk 4 / draft 16, SGLang's documented setting, has 36 "
      "candidates for 15 places and is valid). With topk 1 SGLang silently sets draft tokens to "
      "steps + 1 (so steps 3 / topk 1 / draft 4 is right, steps 3 / topk 1 / draft 2 is rewritten). "
      "In a disaggregated deployment prefill and decode must run the same draft configuration, "
      "since decode continues the draft state prefill produced. SGLANG_ENABLE_SPEC_V2=1 (the "
      "overlap scheduler for EAGLE) supports only top-k 1: with a larger top-k the spec v2 worker "
      "crashes at the first decode step (releases of late 2025), and later releases silently fall "
      "back to spec v1, so the variable the launch sets has no effect. A release that does not read "
      "the variable at all (rules/releases/sglang-env.yaml) runs no spec v2: ENV001 says so, and "
      "SPEC002 does not.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (speculative_eagle_topk == 1 -> "
       "speculative_num_draft_tokens = speculative_num_steps + 1)",
       "sgl-project/sglang python/sglang/srt/speculative/eagle_utils.py organize_draft_results @ v0.5.9, "
       "v0.5.17, v0.5.23: the scores of every step are concatenated, 'b, (topk + (num_steps-1) * topk)' "
       "rows of topk, and torch.topk(score_list, num_draft_token - 1) picks the draft tokens from them",
       "sgl-project/sglang python/sglang/srt/server_args.py, eagle-family handling of the speculative "
       "arguments (v0.5.x): with speculative_eagle_topk > 1 the overlap scheduler is disabled and spec v1 "
       "is used, 'spec v2 currently only supports topk = 1'; before that guard the spec v2 worker crashed with "
       "top-k > 1 (python/sglang/srt/speculative/eagle_worker_v2.py _draft_extend_for_decode: tensor size "
       "mismatch; https://github.com/sgl-project/sglang/issues/13352 and "
       "https://github.com/sgl-project/sglang/issues/14077 'Only speculative-eagle-topk=1 is supported on SpecV2')",
       "SGLang documentation, advanced_features/speculative_decoding: 'Enable SpecV2 with "
       "SGLANG_ENABLE_SPEC_V2=True (requires --speculative-eagle-topk 1)'",
       "rules/releases/sglang-env.yaml SGLANG_ENABLE_SPEC_V2 (the releases that read it)"))
def check_eagle(ctx: Context):
    by_role: dict[str, tuple] = {}
    for p in ctx.deployment.engine_processes():
        s = p.settings
        alg = s.get("spec_algorithm")
        yield from _spec_v2(ctx, p)
        if p.engine == "sglang" and alg is not None and str(alg.value).upper() in ("EAGLE", "EAGLE3", "NEXTN", "MTP"):
            steps, topk, draft = (as_int(s[k].value) if k in s else None
                                  for k in ("spec_num_steps", "spec_topk", "spec_draft_tokens"))
            if steps and topk and draft:
                d = s["spec_draft_tokens"]
                if topk == 1 and draft != steps + 1:
                    yield Finding("SPEC002", f"with --speculative-eagle-topk 1 SGLang runs --speculative-num-steps "
                                             f"{steps} + 1 = {steps + 1} draft tokens, not {draft}; set "
                                             f"--speculative-num-draft-tokens {steps + 1}", d.span, level="warning")
                elif draft > _tree_bound(steps, topk):
                    yield Finding("SPEC002", f"{draft} draft tokens exceed what {steps} steps at top-k {topk} can "
                                             f"produce: the draft tree has top-k + (steps - 1) x top-k^2 = "
                                             f"{_tree_bound(steps, topk) - 1} candidates plus its root, "
                                             f"{_tree_bound(steps, topk)}; set --speculative-num-draft-tokens "
                                             f"{_tree_bound(steps, topk)} or less", d.span)
        got = draft_length(p)
        if got is not None and p.role is not None and p.role.value in ("prefill", "decode"):
            by_role.setdefault(p.role.value, (got[0], got[1]))
    if "prefill" in by_role and "decode" in by_role:
        (pl, phow), (dl, dhow) = by_role["prefill"], by_role["decode"]
        if as_int(pl.value) != as_int(dl.value):
            yield Finding("SPEC002", f"decode runs {dhow} but prefill runs {phow} ({here(pl.span)}); both roles "
                                     f"must draft alike", dl.span, related=[(pl.span, f"prefill: {phow}")])


@rule("SPEC003", "speculative-token-budget", "error",
      "The per-step token budget cannot hold every running request's draft tokens.",
      "With speculative decoding each running request needs 1 + K tokens per step (K draft "
      "tokens). TensorRT-LLM needs max_num_tokens >= max_batch_size x (K + 1) and vLLM "
      "max_num_batched_tokens >= max_num_seqs x (K + 1); below that the engine cannot schedule a "
      "full batch, or rejects the configuration. For trtllm-serve both the command line "
      "(--max_batch_size, --max_num_tokens) and the extra_llm_api_options YAML count; where both set "
      "a value the YAML's is in effect (trtllm-serve merges it over the command line) and the "
      "finding points at it. The check also runs on the engine's defaults "
      "when the launch leaves a budget out: vLLM 0.26 reserves max_num_seqs x draft slots "
      "of max_num_batched_tokens for drafting (K slots per request for DFlash, K - 1 for DSpark and "
      "parallel EAGLE) and refuses to start when nothing is left, so DFlash with 16 speculative "
      "tokens fails with the default budgets (8192 tokens / 1024 sequences on 80 GB-class GPUs, "
      "2048 / 256 on smaller ones). The defaults depend on the version and the device; when "
      "either is unknown, or the release is one the data was not read from, the check is "
      "reported as not run (COV001).",
      ("NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (max_num_tokens, max_batch_size)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py serve @ 00209af149e7774406881a37283dce303571eb11: "
       "get_llm_args(max_batch_size=..., max_num_tokens=...) then update_llm_args_with_extra_dict "
       "(llm_args | the YAML's dict: the extra_llm_api_options YAML 'overwrites the parameters specified by "
       "trtllm-serve')",
       "vllm-project/vllm vllm/config/scheduler.py (max_num_batched_tokens, max_num_seqs)",
       "vllm-project/vllm vllm/config/vllm.py VllmConfig._set_max_num_scheduled_tokens (v0.26.0): "
       "max_num_batched_tokens - max_num_seqs x draft slots <= 0 raises ValueError before weights load "
       "(https://github.com/vllm-project/vllm/issues/50708); defaults: vllm/engine/arg_utils.py EngineArgs.get_batch_defaults; "
       "draft slots: vllm/config/speculative.py max_num_new_slots_for_drafting (rules/engines.yaml defaults)",
       "published configurations: e.g. DeepSeek V4 Pro 6p1d gen_config max_batch_size 288 x (3 + 1) = max_num_tokens 1152"))
def check_budget(ctx: Context):
    for p in ctx.deployment.engine_processes():
        got = draft_length(p)
        k = as_int(got[0].value) if got else None
        if not k:
            continue
        keys = {"trtllm": ("max_num_tokens", "max_batch_size"), "vllm": ("max_num_batched_tokens", "max_num_seqs")}.get(p.engine or "")
        if p.engine == "vllm" and keys and not all(key in p.settings for key in keys):
            yield from _vllm_default_budget(ctx, p, k)
            continue
        if not keys or not all(key in p.settings for key in keys):
            continue
        tokens, batch = (as_int(p.settings[key].value) for key in keys)
        if tokens is not None and batch is not None and tokens < batch * (k + 1):
            yield Finding("SPEC003", f"{keys[0]} {tokens} < {keys[1]} {batch} x ({k} draft + 1) = {batch * (k + 1)}: "
                                     f"a full batch cannot run one speculative step",
                          p.settings[keys[0]].span, related=[(p.settings[keys[1]].span, f"{keys[1]} {batch}")])


SPEC_V2 = "SGLANG_ENABLE_SPEC_V2"
EAGLE_FAMILY = ("EAGLE", "EAGLE3", "NEXTN", "MTP", "STANDALONE")


def _truthy(text: str) -> bool:
    return text.strip().lower() in ("1", "true", "yes", "y", "on")


def _spec_v2(ctx: Context, p):
    """SGLANG_ENABLE_SPEC_V2 set for an EAGLE-family SGLang worker with top-k above 1."""
    var = p.env.get(SPEC_V2)
    alg = p.settings.get("spec_algorithm")
    if p.engine != "sglang" or var is None or alg is None or str(alg.value).upper() not in EAGLE_FAMILY:
        return
    data = ctx.kb.engine_releases("sglang")
    launch = p.releases.get("sglang")
    if data is not None and launch is not None and data.reads(SPEC_V2, launch.release) is False:
        return  # the release the launch runs does not read it: ENV001 says the value is ignored
    if var.value is None:
        ctx.not_checked(f"{SPEC_V2} vs --speculative-eagle-topk (SPEC002)",
                        f"{SPEC_V2} is set from a value known only at run time", var.span)
        return
    topk = p.settings.get("spec_topk")
    k = as_int(topk.value) if topk is not None else None
    if not _truthy(str(var.value)) or k is None or k <= 1:
        if topk is None and "spec_topk" in p.unknown:
            ctx.not_checked(f"{SPEC_V2} vs --speculative-eagle-topk (SPEC002)",
                            "--speculative-eagle-topk is a value known only at run time", var.span)
        return
    yield Finding("SPEC002", f"{SPEC_V2}={var.value} ({here(var.span)}) asks for SGLang's spec v2 overlap scheduler, "
                             f"which supports only --speculative-eagle-topk 1; with top-k {k} the scheduler crashes at "
                             f"the first decode step (releases of late 2025) or SGLang silently runs spec v1 instead "
                             f"(later releases): set --speculative-eagle-topk 1 or drop {SPEC_V2}",
                  topk.span, related=[(var.span, f"{SPEC_V2}={var.value}")])


def _spec_method(p) -> tuple[str | None, bool]:
    """vLLM --speculative-config method (lower case) and parallel_drafting, as far as given."""
    cfg = p.settings.get("spec_config")
    data = parsed(cfg.value) if cfg is not None and isinstance(cfg.value, str) else None
    if not isinstance(data, dict):
        return None, False
    method = data.get("method")
    parallel = data.get("parallel_drafting")
    return (method.lower() if isinstance(method, str) else None), parallel is True or str(parallel).lower() == "true"


def _vllm_default_budget(ctx: Context, p, k: int):
    """SPEC003 on vLLM's defaults: the budgets the launch leaves out, for its version and device."""
    check = "speculative token budget on vLLM's defaults (SPEC003)"
    if any(key in p.unknown for key in ("max_num_batched_tokens", "max_num_seqs")):
        return  # the value is a shell variable: COV001 already names it
    got = draft_length(p)
    span = got[0].span if got else p.span
    method, parallel = _spec_method(p)
    if method is None:
        ctx.not_checked(check, "the speculative method is not given (vLLM infers it from the draft model)", span)
        return
    slots = draft_slots(ctx.kb, method, k, parallel)
    if slots is None:
        ctx.not_checked(check, f"draft slots of speculative method '{method}' are not in rules/engines.yaml", span)
        return
    if slots <= 0:
        return  # nothing reserved: the default budgets always leave room
    launchers = ((ctx.kb.engines.get("defaults") or {}).get("vllm") or {}).get("usage_context_launchers") or []
    if p.orchestrator or p.launcher not in launchers:
        ctx.not_checked(check, f"vLLM's default budgets depend on how it is started; {p.launcher} is not "
                               f"one of {', '.join(launchers)}", p.span)
        return
    version, read_from = engine_version(ctx.manifest, p)
    gate = version_gate(ctx.kb, "vllm", "speculative_token_budget", version, read_from)
    if gate is not None:
        ctx.not_checked(check, gate.why, span)
        return
    name, acc, _ = ctx.accelerator()
    values = {}
    for key in ("max_num_batched_tokens", "max_num_seqs"):
        given = p.settings.get(key)
        if given is not None and as_int(given.value) is None:
            return  # not a number: FLG002 reports it
        if given is not None:
            values[key] = (as_int(given.value), "", given.span)
            continue
        d = resolve(ctx.kb, "vllm", key, (name, acc), version, read_from)
        if not isinstance(d, Default):
            ctx.not_checked(check, d.why, span)
            return
        values[key] = (int(d.value), " (default)", None)
    (tokens, t_how, t_span), (seqs, s_how, s_span) = values["max_num_batched_tokens"], values["max_num_seqs"]
    reserved = seqs * slots
    if tokens > reserved:
        return
    device = f" on {name}" if name else ""
    at = t_span or s_span or span
    related = [(s, text) for s, text in ((t_span, f"max_num_batched_tokens {tokens}"), (s_span, f"max_num_seqs {seqs}"))
               if s is not None and s != at]
    if at != span:
        related.append((span, f"{method} num_speculative_tokens {k}"))
    yield Finding("SPEC003", f"vLLM {'.'.join(map(str, version))} refuses to start{device}: {method} with {k} speculative "
                             f"tokens reserves max_num_seqs {seqs}{s_how} x {slots} draft slots = {reserved} tokens, which "
                             f"max_num_batched_tokens {tokens}{t_how} cannot hold (max_num_scheduled_tokens "
                             f"{tokens - reserved} <= 0, a ValueError before any weight loads); set "
                             f"--max-num-batched-tokens above {reserved}, or lower --max-num-seqs or "
                             f"num_speculative_tokens", at, related=related)
