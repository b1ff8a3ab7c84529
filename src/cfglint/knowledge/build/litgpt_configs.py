"""Generate rules/model_configs_litgpt.yaml from the model config table of Lightning AI's litgpt
wheel (``litgpt/config.py``, Apache-2.0): one entry per Hugging Face repo the table names.

Usage (from a checkout)::

    python -m cfglint.knowledge.build litgpt-configs [WHEEL] [-o rules/model_configs_litgpt.yaml]

WHEEL is ``litgpt-<PINNED_VERSION>-py3-none-any.whl``; without it the wheel is taken from the
build cache (``$CFGLINT_BUILD_CACHE/models/``, else ``~/.cache/cfglint-build/models/``) or
fetched there with ``pip download --no-deps litgpt==<PINNED_VERSION>``; its sha256 must equal
PINNED_SHA256. The wheel is read as a zip file and ``litgpt/config.py`` is walked as an AST by
:mod:`.pyliteral` (a small evaluator of literal tables): nothing of litgpt is imported or run.

litgpt states each model as ``dict(name=..., hf_config=dict(org=..., name=...), n_layer=...,
...)``; the fields it omits take the defaults of its ``Config`` dataclass (read from the same
file) and ``Config.__post_init__``'s derivations, applied here as litgpt applies them when it
loads the Hugging Face weights (so they must match the checkpoint's shapes):

=========================  ===================================================================
field                      litgpt field (rule)
=========================  ===================================================================
num_hidden_layers          n_layer
hidden_size                n_embd
intermediate_size          intermediate_size (GptNeoxMLP without it: 4 x n_embd, as litgpt)
moe_intermediate_size      moe_intermediate_size
num_attention_heads        n_head
num_key_value_heads        n_query_groups (None: n_head, multi-head attention)
head_dim                   head_size (None: n_embd // n_head)
n_routed_experts           n_expert (0: null, dense)
n_shared_experts           n_shared_expert
num_experts_per_tok        n_expert_per_token (0: null)
rope_scaling               rope_adjustments: {factor, low_freq_factor, high_freq_factor,
                           original_max_seq_len} is {rope_type: llama3, ...,
                           original_max_position_embeddings}; {factor} alone is {rope_type:
                           linear, factor}
mla                        latent_attention set
sliding_window             sliding_window_size
layer_types                sliding_window_indices (1 = sliding) as {sliding_attention: n,
                           full_attention: m}
vocab_size                 padded_vocab_size (litgpt's vocab_size is the tokenizer's; the
                           embedding, as the config.json's vocab_size, is the padded one)
num_parameters             DERIVED: the parameters litgpt's GPT allocates for these shapes
                           (embedding and lm_head counted apart, attention q/k/v/o with
                           attn_bias, MLP: 3 x hidden x intermediate for LLaMAMLP / GemmaMLP,
                           2 x for GptNeoxMLP, experts x 3 x hidden x moe_intermediate + router
                           for LLaMAMoE; norms). A checkpoint that ties embedding and lm_head
                           holds vocab x hidden fewer.
=========================  ===================================================================

Not taken: ``max_position_embeddings`` (litgpt's ``block_size`` is its own window and differs
from the config.json where litgpt does not implement the long context, e.g. Mistral-7B-v0.1:
4096 for 32768), ``model_type`` and ``quantization`` (the table is of BF16 base checkpoints and
names no quantization); they are null. Each entry has ``source`` (package, version, path and the
table's ``name``) and ``config_url``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

from ..bundled import data_dir
from ..hfconfig import FIELDS
from .pyliteral import class_defaults, run_module

PACKAGE = "litgpt"
PINNED_VERSION = "0.5.13"
WHEEL_NAME = f"litgpt-{PINNED_VERSION}-py3-none-any.whl"
PINNED_SHA256 = "da044b76c52cd44fc0564f6177ed6cf186dde24f711ce8e71e1fd9e9da5f02b2"
MEMBER = "litgpt/config.py"

HEADER = f"""\
# GENERATED FILE - do not edit by hand.
# Model facts read from the model config table of Lightning AI litgpt=={PINNED_VERSION} (PyPI, Apache-2.0),
# {MEMBER}, with the defaults of its Config dataclass; read statically (AST), never imported.
# Regenerate:  python -m cfglint.knowledge.build litgpt-configs [path/to/{WHEEL_NAME}]
# Fields and the litgpt fields they are read from: see the docstring of src/cfglint/knowledge/build/litgpt_configs.py.
# max_position_embeddings, model_type and quantization are null here (litgpt does not state them as the
# config.json does); num_parameters is derived from the shapes (see the docstring).
"""


def cache_dir() -> Path:
    """Where downloaded model-table packages are kept: ``$CFGLINT_BUILD_CACHE/models`` (else
    ``~/.cache/cfglint-build/models``)."""
    env = os.environ.get("CFGLINT_BUILD_CACHE")
    return (Path(env).expanduser() if env else Path.home() / ".cache" / "cfglint-build") / "models"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pinned_wheel(download: bool = False) -> Path | None:
    """The pinned wheel from the build cache (fetched with pip when ``download``); None when it
    is not there. Raises SystemExit when a file of that name does not match PINNED_SHA256."""
    path = cache_dir() / WHEEL_NAME
    if not path.is_file() and download:
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "--only-binary", ":all:",
                        "-d", str(path.parent), f"{PACKAGE}=={PINNED_VERSION}"], check=True)
    if not path.is_file():
        return None
    if _sha256(path) != PINNED_SHA256:
        raise SystemExit(f"{path}: sha256 {_sha256(path)} is not the pinned {PINNED_SHA256}")
    return path


def _int(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _find_multiple(n: int, k: int) -> int:
    return n if n % k == 0 else n + k - (n % k)   # litgpt.config.find_multiple


def _params(c: dict, heads: int, kv: int, hd: int, inter: int | None, vocab: int) -> int | None:
    h, layers = c["n_embd"], c["n_layer"]
    mlp = c.get("mlp_class_name")
    if not all(isinstance(x, int) for x in (h, layers, heads, kv, hd, vocab)):
        return None
    bias = bool(c.get("bias"))
    qkv = h * (heads + 2 * kv) * hd + ((heads + 2 * kv) * hd if c.get("attn_bias") or bias else 0)
    proj = heads * hd * h + (h if bias else 0)
    if mlp in ("LLaMAMLP", "GemmaMLP"):
        if not isinstance(inter, int):
            return None
        ffn = 3 * h * inter + (2 * inter + h if bias else 0)
    elif mlp == "GptNeoxMLP":
        if not isinstance(inter, int):
            return None
        ffn = 2 * h * inter + (inter + h if bias else 0)
    elif mlp == "LLaMAMoE":
        moe_inter = c.get("moe_intermediate_size") or inter
        experts = c.get("n_expert")
        if not isinstance(moe_inter, int) or not isinstance(experts, int) or experts < 1:
            return None
        shared = c.get("n_shared_expert") or 0
        ffn = (experts + shared) * 3 * h * moe_inter + h * experts
    else:
        return None
    norms = 2 * h * (2 if c.get("norm_class_name") == "LayerNorm" else 1)
    extra_norms = (2 * h if c.get("post_attention_norm") else 0) + (2 * h if c.get("post_mlp_norm") else 0)
    qk_norm = 2 * hd if c.get("norm_qk") else 0
    per_layer = qkv + proj + ffn + norms + extra_norms + qk_norm
    return 2 * vocab * h + layers * per_layer + h


def entry_of(raw: dict, defaults: dict) -> tuple[str, dict] | None:
    """(repo id, normalized fields) of one litgpt table entry; None without an hf_config."""
    hf = raw.get("hf_config")
    if not isinstance(hf, dict) or not hf.get("org") or not hf.get("name"):
        return None
    c = dict(defaults, **raw)
    heads, embd = _int(c.get("n_head")), _int(c.get("n_embd"))
    kv = _int(c.get("n_query_groups")) or heads
    hd = _int(c.get("head_size")) or (embd // heads if embd and heads else None)
    inter = _int(c.get("intermediate_size"))
    if inter is None and c.get("mlp_class_name") == "GptNeoxMLP" and embd:
        inter = 4 * embd
    vocab = _int(c.get("padded_vocab_size"))
    if vocab is None and _int(c.get("vocab_size")) and _int(c.get("padding_multiple")):
        vocab = _find_multiple(c["vocab_size"], c["padding_multiple"])
    rope = c.get("rope_adjustments")
    rope_scaling = None
    if isinstance(rope, dict) and "factor" in rope:
        if "low_freq_factor" in rope:
            rope_scaling = {"rope_type": "llama3", "factor": rope["factor"], "low_freq_factor": rope.get("low_freq_factor"),
                            "high_freq_factor": rope.get("high_freq_factor"),
                            "original_max_position_embeddings": rope.get("original_max_seq_len")}
        elif set(rope) == {"factor"}:
            rope_scaling = {"rope_type": "linear", "factor": rope["factor"]}
    indices = c.get("sliding_window_indices")
    layer_types = None
    if isinstance(indices, list) and indices:
        layer_types = {"sliding_attention": sum(1 for i in indices if i), "full_attention": sum(1 for i in indices if not i)}
        layer_types = {k: v for k, v in layer_types.items() if v}
    experts = _int(c.get("n_expert")) or None
    out = dict.fromkeys(FIELDS)
    out.update(num_hidden_layers=_int(c.get("n_layer")), hidden_size=embd, intermediate_size=inter,
               moe_intermediate_size=_int(c.get("moe_intermediate_size")), num_attention_heads=heads,
               num_key_value_heads=kv, head_dim=hd, n_routed_experts=experts,
               n_shared_experts=_int(c.get("n_shared_expert")),
               num_experts_per_tok=_int(c.get("n_expert_per_token")) or None,
               rope_scaling=rope_scaling, mla=c.get("latent_attention") is not None,
               sliding_window=_int(c.get("sliding_window_size")), layer_types=layer_types, vocab_size=vocab)
    out["num_parameters"] = _params(c, heads, kv, hd, inter, vocab) if heads and kv and hd and vocab else None
    return f"{hf['org']}/{hf['name']}", out


def generate(wheel: Path) -> str:
    """YAML text of rules/model_configs_litgpt.yaml read from ``wheel``. Raises
    pyliteral.Unsupported when the table uses a construct the reader does not know."""
    with zipfile.ZipFile(wheel) as zf:
        text = zf.read(MEMBER).decode("utf-8")
    tree = ast.parse(text)
    defaults = class_defaults(tree, "Config")
    table = run_module(tree, skip=("name_to_config",)).get("configs")
    if not isinstance(table, list):
        raise SystemExit(f"{MEMBER}: no `configs` list")
    models: dict[str, dict] = {}
    for raw in table:
        got = entry_of(raw, defaults) if isinstance(raw, dict) else None
        if got is None:
            continue
        repo_id, entry = got
        entry["source"] = f"{PACKAGE}=={PINNED_VERSION} (PyPI wheel) {MEMBER} (configs entry name={raw.get('name')})"
        entry["config_url"] = f"https://huggingface.co/{repo_id}/blob/main/config.json"
        models.setdefault(repo_id, entry)
    body = yaml.dump({"package": f"{PACKAGE}=={PINNED_VERSION}", "models": dict(sorted(models.items(), key=lambda kv: kv[0].lower()))},
                     Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=1000, allow_unicode=True)
    return HEADER + body


class _Dumper(yaml.SafeDumper):
    """Block mappings, flow-style dicts inside an entry (rope_scaling: {...})."""


def _map(d: yaml.SafeDumper, v: dict):
    flow = not any(isinstance(x, dict) for x in v.values()) and len(v) <= 6 and "source" not in v
    return d.represent_mapping("tag:yaml.org,2002:map", v.items(), flow_style=flow)


_Dumper.add_representer(dict, _map)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cfglint.knowledge.build litgpt-configs",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("wheel", nargs="?", help=f"{WHEEL_NAME} (from the build cache, downloaded when absent)")
    ap.add_argument("-o", "--output", default=str(data_dir("rules") / "model_configs_litgpt.yaml"))
    args = ap.parse_args(argv)
    wheel = Path(args.wheel) if args.wheel else pinned_wheel(download=True)
    if wheel is None or wheel.name != WHEEL_NAME:
        raise SystemExit(f"expected {WHEEL_NAME}, got {wheel}")
    if _sha256(wheel) != PINNED_SHA256:
        raise SystemExit(f"{wheel}: sha256 is not the pinned {PINNED_SHA256}")
    Path(args.output).write_text(generate(wheel), encoding="utf-8")
    return 0
