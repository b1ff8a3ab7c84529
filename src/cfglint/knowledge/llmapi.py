"""The top-level keys of a TensorRT-LLM LLM API YAML (``trtllm-serve --config`` /
``--extra_llm_api_options``, Dynamo ``--extra-engine-args``), from the data the project already
holds for TensorRT-LLM's ``TorchLlmArgs``: the ``properties`` of schemas/trtllm-llm-api.schema.json
(a mirror of tensorrt_llm/llmapi/llm_args.py at the commit its description names) and the
older top-level names of schemas/trtllm-renamed-keys.yaml (``pytorch_backend_config``,
``autotuner_enabled`` ...), which a published file of an older release still carries.
"""

from __future__ import annotations

import json
from functools import lru_cache

import yaml

from ..read.safeio import read_bytes
from .bundled import data_dir

# LLM API field names that are plain words: a YAML of any kind may hold `model:` or `backend:`, so
# they do not tell an engine config from another YAML on their own
_PLAIN_WORDS = frozenset({"model", "tokenizer", "dtype", "revision", "backend"})


@lru_cache(maxsize=1)
def llm_api_keys() -> frozenset[str]:
    """Every top-level key TensorRT-LLM's LLM API reads or has renamed (see the module doc).
    Raises OSError / ValueError when the bundled schema is missing or unreadable."""
    root = data_dir("schemas")
    keys = set(json.loads(read_bytes(str(root / "trtllm-llm-api.schema.json")).decode("utf-8")).get("properties") or {})
    renamed = yaml.load(read_bytes(str(root / "trtllm-renamed-keys.yaml")).decode("utf-8"),
                        Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    keys.update(k for k in renamed if isinstance(k, str) and "." not in k)
    return frozenset(keys)


@lru_cache(maxsize=1)
def llm_api_markers() -> frozenset[str]:
    """The keys of :func:`llm_api_keys` that mark a YAML as an LLM API config: every one but
    the plain words (``model``, ``backend`` ...)."""
    return llm_api_keys() - _PLAIN_WORDS


def other_engine_keys(kb) -> frozenset[str]:
    """The SGLang and vLLM flags of ``kb``'s registries, as config keys (``tensor_parallel_size``)."""
    flags: set[str] = set()
    for name in ("sglang", "vllm"):
        reg = kb.registry(name)
        if reg is not None:
            flags.update(reg.primary)
    return frozenset(f.lstrip("-").replace("-", "_") for f in flags)


def trtllm_only(kb) -> frozenset[str]:
    """The markers (:func:`llm_api_markers`) no SGLang or vLLM flag of ``kb`` (a
    :class:`cfglint.knowledge.Knowledge`) is named after."""
    taken = other_engine_keys(kb)
    return frozenset(k for k in llm_api_markers() if k not in taken)


def is_llm_api(keys, kb) -> bool:
    """Whether a YAML with top-level ``keys`` (str) and nothing else to go by (no launch reads it,
    no manifest names the engine) is a TensorRT-LLM LLM API config: it holds a key only that API
    has, or one of its markers it shares with SGLang / vLLM flags and no key that is theirs alone."""
    keys = {k for k in keys if isinstance(k, str)}
    if keys & trtllm_only(kb):
        return True
    other = other_engine_keys(kb)
    return bool(keys & llm_api_markers()) and not any(k in other and k not in llm_api_keys() for k in keys)
