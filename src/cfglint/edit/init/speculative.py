"""``speculative_decoding``: the draft algorithm and length, as SPEC001 reads them."""

from __future__ import annotations

import ast
import json

from ...deploy.extract import Deployment, Process
from ...model import parse_int
from .fields import Derived, common

# TensorRT-LLM speculative_config.decoding_type (tensorrt_llm/llmapi/llm_args.py: MTP, Eagle, Eagle3,
# DraftTarget, NGram, ...), vLLM --speculative-config method (vllm/config/speculative.py: eagle, eagle3,
# mtp and the model-specific *_mtp names, ngram, draft_model) and SGLang --speculative-algorithm
# (python/sglang/srt/server_args.py: EAGLE, EAGLE3, NEXTN, NGRAM, ...) -> the manifest's algorithm names
_ALGORITHMS = {
    "MTP": "MTP", "DEEPSEEK_MTP": "MTP", "QWEN3_NEXT_MTP": "MTP", "GLM4_MOE_MTP": "MTP", "ERNIE_MTP": "MTP",
    "NEXTN": "MTP", "EAGLE": "EAGLE", "EAGLE3": "EAGLE3", "EAGLE3ONEMODEL": "EAGLE3", "DSPARK": "DSPARK",
    "NGRAM": "NGRAM", "LOOKAHEAD": "NGRAM", "DRAFT_MODEL": "DRAFT", "DRAFT_TARGET": "DRAFT",
    "DRAFTTARGET": "DRAFT", "DRAFT": "DRAFT",
}


def _algorithm(p: Process) -> str | None:
    s = p.settings
    raw = None
    if p.engine in ("sglang", "trtllm"):
        alg = s.get("spec_algorithm")
        raw = alg.value if alg is not None and isinstance(alg.value, str) else None
        # SGLang's EAGLE also runs a model's own MTP layers (NEXTN is its alias for that): the name
        # is taken as written; SPEC001 treats EAGLE, EAGLE3 and MTP as one family for SGLang
    elif p.engine == "vllm":
        cfg = s.get("spec_config")
        if cfg is not None and isinstance(cfg.value, str):
            try:
                data = json.loads(cfg.value)
            except ValueError:
                try:
                    data = ast.literal_eval(cfg.value)
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    data = None
            method = data.get("method") if isinstance(data, dict) else None
            raw = method if isinstance(method, str) else None
    if raw is None:
        return None
    key = raw.upper().replace("-", "_")
    return _ALGORITHMS.get(key) or (key if key in ("EAGLE", "EAGLE3", "MTP", "DSPARK", "NGRAM", "DRAFT") else None)


def derive_speculative(dep: Deployment, out: Derived) -> None:
    """Set ``speculative_decoding`` in ``out.manifest`` ({algorithm, draft_tokens}, or None when no
    worker drafts); else say in ``out.missing`` why not."""
    from ...checks.speculative import draft_length

    found = []
    for p in dep.engine_processes():
        got = draft_length(p)
        alg = _algorithm(p)
        if got is None and alg is None:
            continue
        found.append((alg, parse_int(got[0].value) if got else None))
    if not found:
        unknown = any(p.missing_configs or any("speculative" in f for f in p.flag_names)
                      for p in dep.engine_processes())
        if unknown:
            out.missing["speculative_decoding"] = "speculative flags are set, but their algorithm or draft length is not known"
        else:
            out.manifest["speculative_decoding"] = None
        return
    ok, (alg, n) = common(found)
    if ok and alg and n:
        out.manifest["speculative_decoding"] = {"algorithm": alg, "draft_tokens": n}
    else:
        out.missing["speculative_decoding"] = ("the workers run different speculative settings" if not ok else
                                               "the speculative algorithm or draft length is not known statically")
