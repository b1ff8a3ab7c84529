"""Model ids as launches write them: a Hub URL prefix, a quantized re-upload suffix (``-FP8``,
``-NVFP4``, ``-AWQ`` ...) and the checkpoint precision it implies."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any


REPO_ID = re.compile(r"[a-z0-9][a-z0-9_.-]*/[a-z0-9_.-]+")   # org/name, lower-cased; not a path
_HUB_PREFIX = re.compile(r"^(?:https?://)?(?:www\.)?(?:huggingface\.co|hf\.co)/", re.I)


def strip_hub_prefix(model_id: str) -> str:
    return _HUB_PREFIX.sub("", model_id).rstrip("/")


# Quantized re-upload suffixes (at the end of the repo name) and the checkpoint precision each
# implies. Names as published by NVIDIA ModelOpt (-FP8, -FP4, -NVFP4), RedHatAI / neuralmagic
# llm-compressor (-FP8-dynamic, -quantized.w4a16, -W8A8), Qwen (-FP8, -AWQ, -GPTQ-Int4/Int8),
# unsloth (-bnb-4bit, -GGUF) and others.
_QUANT_SUFFIXES: tuple[tuple[str, str | None], ...] = (
    (r"fp8(?:[-_.](?:dynamic|static|block|blockwise|e4m3|kv|per[-_]?tensor|per[-_]?channel|perchannel|pertensor|hf|torchao))*", "FP8"),
    (r"w8a8[-_.]fp8", "FP8"),
    (r"nvfp4(?:[-_.](?:dynamic|static|kv|fp8kv|v\d+))*", "NVFP4"),
    (r"mxfp4(?:[-_.](?:moe|dynamic))*", "MXFP4"),
    (r"fp4", "FP4"),
    (r"awq(?:[-_.]int4)?", "INT4"),
    (r"gptq(?:[-_.]int4)?", "INT4"),
    (r"gptq[-_.]int8", "INT8"),
    (r"int4(?:[-_.]awq)?", "INT4"),
    (r"int8", "INT8"),
    (r"(?:quantized[-_.])?w4a16(?:[-_.]g\d+)?", "INT4"),
    (r"(?:quantized[-_.])?w8a16", "INT8"),
    (r"(?:quantized[-_.])?w8a8", "INT8"),
    (r"(?:quantized[-_.])?w4a8", "INT4"),
    (r"(?:unsloth[-_.])?bnb[-_.]4bit", "NF4"),
    (r"gguf", "GGUF"),
    (r"(?:mlx[-_.])?4[-_]?bit", "INT4"),
    (r"(?:mlx[-_.])?8[-_]?bit", "INT8"),
    (r"bf16", "BF16"),
    (r"fp16", "FP16"),
)


# every name a suffix above matches contains one of these (lower-cased): a name with none of them
# is answered without compiling the patterns (tests/test_knowledge.py checks each pattern's matches)
_QUANT_TOKENS = ("fp8", "fp4", "awq", "gptq", "int4", "int8", "w4a16", "w8a16", "w8a8", "w4a8", "bnb", "gguf",
                 "bit", "bf16", "fp16")


@lru_cache(maxsize=1)
def _quant_res() -> list[tuple[re.Pattern, str | None]]:
    """:data:`_QUANT_SUFFIXES` compiled on first use (20 patterns; a run that names no model needs none)."""
    return [(re.compile(r"^(?P<base>.+?)[-_.](?:" + pat + r")$", re.I), prec) for pat, prec in _QUANT_SUFFIXES]


def strip_quant_suffix(model_id: str) -> tuple[str | None, str | None]:
    """(``model_id`` without one quantized re-upload suffix, the precision it implies), or
    (None, None) when the name has no such suffix. ``nvidia/DeepSeek-R1-FP4`` ->
    (``nvidia/DeepSeek-R1``, ``FP4``); ``RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic`` ->
    (``RedHatAI/Llama-3.3-70B-Instruct``, ``FP8``)."""
    if not isinstance(model_id, str):
        return None, None
    org, slash, name = model_id.rpartition("/")
    low = name.lower()
    if not any(token in low for token in _QUANT_TOKENS):
        return None, None
    for pattern, precision in _quant_res():
        m = pattern.match(name)
        if m:
            if precision == "FP4" and org.lower() == "nvidia":
                precision = "NVFP4"   # NVIDIA's -FP4 re-uploads are ModelOpt NVFP4 checkpoints
            return org + slash + m.group("base"), precision
    return None, None


_METHOD_PRECISION = {"fp8": "FP8", "nvfp4": "NVFP4", "mxfp4": "MXFP4", "w4a16_nvfp4": "NVFP4",
                     "awq": "INT4", "gptq": "INT4", "fbgemm_fp8": "FP8", "modelopt_fp4": "NVFP4"}


def precision_of(quantization: Any) -> str | None:
    """Checkpoint precision a normalized ``quantization`` {method, ...} names, or None."""
    if not isinstance(quantization, dict):
        return None
    return _METHOD_PRECISION.get(str(quantization.get("method") or "").lower())
