"""Facts about the model one engine process serves, shared by the rules that need them
(TOP004, MEM002, PRS002, PRS004, HW001, TOP002).

Model entries are the flat dicts of :meth:`cfglint.knowledge.Knowledge.model`; any fact may be
None (unknown). Nothing here raises on odd data: a value of the wrong type counts as unknown.
"""

from __future__ import annotations

import math
import re

from ..deploy.extract import Process
from ..model import Located, parse_int
from .base import Context, as_int

# vLLM --max-model-len accepts human-readable sizes: 1k = 1000, 1K = 1024 (ModelConfig.max_model_len docs)
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
_HUMAN = re.compile(r"([0-9]+(?:\.[0-9]+)?)([kKmMgG])")
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30}


def served_model(ctx: Context, p: Process) -> tuple[dict | None, Located | None]:
    """(knowledge-base entry, where the model is named) for process ``p``: the model the
    process names (--model / --model-path / positional) when the knowledge base knows it; a
    Hugging Face repo id it does not know gives (None, that place); a local path or no model
    falls back to the manifest's ``model``. The entry is None when nothing is known."""
    model = p.settings.get("model")
    if model is not None and isinstance(model.value, str):
        entry = ctx.model(model.value)
        if entry is not None:
            return entry, model
        if _REPO_ID.fullmatch(model.value):
            return None, model  # a hub checkpoint the knowledge base does not know: not the manifest's
    declared = ctx.declared("model") if ctx.sub.has_manifest else None
    if declared is not None and isinstance(declared.value, str):
        entry = ctx.model(declared.value)
        if entry is not None:
            return entry, declared
    return None, model or declared


def fact_int(entry: dict | None, key: str) -> int | None:
    """A positive integer fact of a model entry, or None."""
    v = as_int((entry or {}).get(key))
    return v if v and v > 0 else None


def block_size(entry: dict | None) -> tuple[int, int] | None:
    """(block_n, block_k) of a block-quantized checkpoint (quantization.weight_block_size), or None."""
    q = (entry or {}).get("quantization")
    block = q.get("weight_block_size") if isinstance(q, dict) else None
    if not isinstance(block, (list, tuple)) or len(block) != 2:
        return None
    n, k = as_int(block[0]), as_int(block[1])
    return (n, k) if n and k and n > 0 and k > 0 else None


def fp8_block_unknown(entry: dict | None) -> bool:
    """Whether ``entry`` is an FP8 checkpoint whose quantization_config is not known: its
    precision is FP8 (curated, or implied by the repo name's suffix) and the knowledge base holds
    no quantization of it, or only the one the name implies (``inferred_from``). A config that
    states FP8 without a weight_block_size is known: per-tensor or per-channel, no block rule."""
    if not entry or str(entry.get("checkpoint_precision") or "").upper() != "FP8":
        return False
    q = entry.get("quantization")
    return not isinstance(q, dict) or bool(q.get("inferred_from"))


def fp8_why(entry: dict) -> str:
    """How ``entry`` is known to be FP8, for messages."""
    q = entry.get("quantization")
    if isinstance(q, dict) and q.get("inferred_from"):
        return str(q["inferred_from"])
    return "rules/models.yaml checkpoint_precision"


def fact_origin(entry: dict | None, inside: bool = False) -> str:
    """Where ``entry``'s config facts were read, for messages, when that is not the bundled
    knowledge alone: '' for bundled facts; else ``" (facts from <file>)"`` for a local
    config.json or the user's Hugging Face cache, and ``" (named by the directory <path>; ...)"``
    for a directory resolved by its name (Knowledge.model_by_path_name); ``inside``: ``"; facts ..."`` for
    text already in parentheses."""
    if not entry:
        return ""
    if inside:
        text = fact_origin(entry)
        return f"; {text[2:-1]}" if text else ""
    src = str(entry.get("config_source") or "")
    if src.startswith(("local config.json", "HF cache")):
        return f" (facts from {src})"
    if entry.get("by_path_name"):
        return f" (named by the directory {entry.get('requested_id')}; its config.json is not in the linted tree)"
    return ""


def parse_length(value) -> int | None:
    """A context length as the engines read it: an integer, or vLLM's human-readable form
    (``128k`` = 128000, ``128K`` = 131072, ``1m`` / ``1M``). None when not a length."""
    if isinstance(value, bool):
        return None
    n = as_int(value)
    if n is not None:
        return n
    m = _HUMAN.fullmatch(str(value).strip())
    if not m:
        return None
    unit = m.group(2)
    n = float(m.group(1)) * (_DECIMAL.get(unit) or _BINARY[unit])
    return parse_int(int(n)) if math.isfinite(n) else None   # 10^400k is not a length


def context_limit(entry: dict, engine: str) -> tuple[int | None, str]:
    """The longest context ``engine`` derives from the model config (no override), and how.

    vLLM (vllm/config/model.py _get_and_verify_max_len): max_position_embeddings; with
    rope scaling of a type other than su / longrope / llama3 it is multiplied by the factor,
    and yarn starts from original_max_position_embeddings. SGLang (hf_transformers_utils
    get_context_length): max_position_embeddings x factor, factor 1 when rope_scaling has
    original_max_position_embeddings or is llama3. TensorRT-LLM (model_engine.py
    _infer_max_seq_len_from_config): x factor except su / longrope / llama3 / yarn.
    Returns (None, why) when the facts are missing."""
    mpe = fact_int(entry, "max_position_embeddings")
    if mpe is None:
        return None, "max_position_embeddings"
    rope = entry.get("rope_scaling")
    if not isinstance(rope, dict) or not rope:
        return mpe, f"max_position_embeddings {mpe}"
    rtype = str(rope.get("rope_type") or rope.get("type") or "")
    try:
        factor = float(rope.get("factor", 1) or 1)
    except (TypeError, ValueError, OverflowError):
        return None, "rope_scaling.factor"
    if not math.isfinite(factor) or factor <= 0 or factor > 1e6:
        return None, "usable rope_scaling.factor"   # inf, NaN, negative: not a scaling the engines apply
    orig = as_int(rope.get("original_max_position_embeddings"))
    if engine == "vllm":
        if rtype in ("su", "longrope", "llama3") or "gemma3" in str(entry.get("model_type") or ""):
            return mpe, f"max_position_embeddings {mpe}"
        if rtype == "yarn" and orig:
            return int(orig * factor), f"yarn scaling: original_max_position_embeddings {orig} x {factor:g}"
        limit = int(mpe * factor)
    elif engine == "sglang":
        if orig or rtype == "llama3":
            return mpe, f"max_position_embeddings {mpe}"
        limit = int(mpe * factor)
    else:
        if rtype in ("su", "longrope", "llama3", "yarn"):
            return mpe, f"max_position_embeddings {mpe}"
        limit = int(mpe * factor + 0.999999)
    if limit == mpe:
        return mpe, f"max_position_embeddings {mpe}"
    return limit, f"max_position_embeddings {mpe} with {rtype or 'rope'} scaling x{factor:g}"
