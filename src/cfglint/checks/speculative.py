"""SPEC001: the speculative draft length a launch uses must be self-consistent and match the
manifest's speculative_decoding.draft_tokens."""

from __future__ import annotations

from ..deploy.extract import Process
from ..model import Finding, Located
from .base import Context, as_int, here, rule
from .jsonflags import key_span, parsed


def draft_length(p: Process) -> tuple[Located, str, list[Finding]] | None:
    """(draft length with its span, how it was read, internal inconsistencies) or None when
    the process runs no speculative decoding."""
    s = p.settings
    issues: list[Finding] = []
    if p.engine == "sglang":
        alg = s.get("spec_algorithm")
        if alg is None or not isinstance(alg.value, str):
            return None
        name = alg.value.upper()
        tokens = s.get("spec_draft_tokens")
        if name == "DSPARK":
            block = s.get("spec_block_size")
            if block is None:
                return None
            if tokens is not None and as_int(tokens.value) != as_int(block.value):
                issues.append(Finding("SPEC001",
                                      f"--speculative-num-draft-tokens {tokens.value} disagrees with --speculative-dspark-block-size "
                                      f"{block.value} ({here(block.span)}); DSPARK drafts one block per step",
                                      tokens.span, related=[(block.span, "DSPARK block size")]))
            return block, f"DSPARK block size {block.value}", issues
        if tokens is None:
            return None
        return tokens, f"{name} --speculative-num-draft-tokens {tokens.value}", issues
    if p.engine == "trtllm":
        alg = s.get("spec_algorithm")
        if alg is None or not isinstance(alg.value, str):
            return None
        name = alg.value
        if name.upper() == "MTP":
            layers = s.get("spec_mtp_layers")
            if layers is not None:
                return layers, f"MTP num_nextn_predict_layers {layers.value}", issues
            # MTPDecodingConfig takes max_draft_len (DecodingBaseConfig) too, as the curated
            # configs write it (examples/configs/curated/deepseek-r1-latency.yaml)
            draft = s.get("spec_max_draft_len")
            return (draft, f"MTP max_draft_len {draft.value}", issues) if draft is not None else None
        draft = s.get("spec_max_draft_len")
        if draft is None:
            return None
        block = s.get("spec_block_size")
        if name.upper() == "DSPARK" and block is not None and as_int(block.value) != as_int(draft.value):
            issues.append(Finding("SPEC001",
                                  f"speculative_config.block_size {block.value} disagrees with max_draft_len {draft.value} "
                                  f"({here(draft.span)}); DSpark drafts max_draft_len tokens per block",
                                  block.span, related=[(draft.span, "max_draft_len")]))
        return draft, f"{name} max_draft_len {draft.value}", issues
    if p.engine == "vllm":
        cfg = s.get("spec_config")
        if cfg is None or not isinstance(cfg.value, str):
            return None
        data = parsed(cfg.value)
        n = data.get("num_speculative_tokens") if isinstance(data, dict) else None
        if as_int(n) is None:
            return None
        span = key_span(cfg, "num_speculative_tokens", r"\d+")
        return Located(as_int(n), span), f"{data.get('method', 'speculative')} num_speculative_tokens {n}", issues
    return None


# Algorithms that are not interchangeable with the EAGLE family. SGLang runs MTP draft heads
# through --speculative-algorithm EAGLE/NEXTN, so EAGLE, EAGLE3 and MTP are not told apart.
DISTINCT = {"DSPARK": "DSPARK", "NGRAM": "NGRAM", "LOOKAHEAD": "NGRAM"}


def algorithm(p: Process) -> Located | None:
    """The speculative algorithm a process launches, upper-cased, with its span."""
    s = p.settings
    if p.engine in ("sglang", "trtllm"):
        alg = s.get("spec_algorithm")
        return Located(alg.value.upper(), alg.span) if alg is not None and isinstance(alg.value, str) else None
    return None


@rule("SPEC001", "draft-length-mismatch", "error",
      "Speculative draft length does not match the block size or the declared draft tokens.",
      "The number of draft tokens per step decides both speed and memory: DSPARK drafts one "
      "block (SGLang --speculative-dspark-block-size, TensorRT-LLM block_size = max_draft_len), "
      "MTP drafts num_nextn_predict_layers tokens, EAGLE/EAGLE3 --speculative-num-draft-tokens "
      "or max_draft_len, vLLM num_speculative_tokens. Each role's launch must agree with itself "
      "and with speculative_decoding.draft_tokens in the manifest; a manifest that declares no "
      "speculative decoding must not launch any.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (speculative_* arguments)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (MTPDecodingConfig.num_nextn_predict_layers, EagleDecodingConfig.max_draft_len)",
       "vllm-project/vllm vllm/config/speculative.py (num_speculative_tokens)",
       "https://artificialanalysis.ai/benchmarks/hardware/configs: DeepSeek V4 Pro 0813 'DSpark (draft length 6)' with max_draft_len 6 / block_size 6 "
       "(examples/submissions/nvidia/deepseek-v4-pro-0813/gb300-dynamo-trtllm-p01/gen_config.yaml)"))
def check_draft_length(ctx: Context):
    # the manifest's speculative_decoding is optional: omitted or null when none (examples/README.md)
    spec = ctx.manifest.get("speculative_decoding") if ctx.sub.has_manifest else "no manifest"
    declared = ctx.declared("speculative_decoding", "draft_tokens") if isinstance(spec, dict) else None
    declared_v = as_int(declared.value) if declared else None
    declared_alg = spec.get("algorithm") if isinstance(spec, dict) and isinstance(spec.get("algorithm"), str) else None
    launched_any = False
    for p in ctx.deployment.engine_processes():
        alg = algorithm(p)
        if alg is not None and declared_alg is not None and \
                DISTINCT.get(alg.value) != DISTINCT.get(declared_alg.upper()):
            node = ctx.declared("speculative_decoding", "algorithm")
            yield Finding("SPEC001",
                          f"the launch runs {alg.value} speculative decoding, but the manifest declares "
                          f"{declared_alg} ({here(node.span)})", alg.span,
                          related=[(node.span, f"declared algorithm: {declared_alg}")])
        got = draft_length(p)
        if got is None:
            continue
        launched_any = True
        length, how, issues = got
        yield from issues
        n = as_int(length.value)
        if declared_v is not None and n is not None and n != declared_v:
            yield Finding("SPEC001",
                          f"{how}, but the manifest declares draft_tokens: {declared_v} ({here(declared.span)})",
                          length.span, related=[(declared.span, f"declared draft_tokens: {declared_v}")])
        elif spec is None and ctx.sub.has_manifest:
            node = ctx.declared("speculative_decoding")
            yield Finding("SPEC001",
                          f"{how}, but the manifest declares no speculative decoding (speculative_decoding: null"
                          f"{', ' + here(node.span) if node else ''})",
                          length.span, related=[(node.span, "speculative_decoding: null")] if node else [])
    procs = ctx.deployment.engine_processes()
    unreadable = any(p.missing_configs or any("speculative" in f for f in p.flag_names) for p in procs)
    if declared is not None and procs and not launched_any and not unreadable:
        yield Finding("SPEC001",
                      f"the manifest declares {declared_alg} with {declared_v} draft tokens, but no launched "
                      f"worker enables speculative decoding", declared.span)
