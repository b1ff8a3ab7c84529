"""Generate rules/model_configs.yaml from the model config.json files that NVIDIA's
aiconfigurator-core wheel publishes.

Usage (from a checkout)::

    python -m cfglint.knowledge.build model-configs [WHEEL] [-o rules/model_configs.yaml]

WHEEL is ``aiconfigurator_core-<PINNED_VERSION>-*.whl`` (Apache-2.0). Without it the script runs
``pip download --no-deps aiconfigurator-core==<PINNED_VERSION>`` into a temporary directory.
The wheel is read as a zip file; nothing is imported from it.

Input: ``aiconfigurator_core/model_configs/<org>--<name>_config.json`` (the model's Hugging Face
config.json as published) and, where present, ``<org>--<name>_hf_quant_config.json`` (ModelOpt's
quantization description). The HF repo id is ``<org>/<name>``.

Output: a mapping ``models: {<repo id>: {field: value}}`` with exactly these fields (null when the
config does not give it):

=========================  ===================================================================
field                      read from (first present wins; for multimodal configs the LLM fields
                           are read from ``text_config`` first, then the top level)
=========================  ===================================================================
model_type                 model_type (text_config's, else the top level's)
num_hidden_layers          num_hidden_layers, n_layers, num_layers
hidden_size                hidden_size, d_model, n_embd
intermediate_size          intermediate_size, ffn_hidden_size
moe_intermediate_size      moe_intermediate_size, expert_intermediate_size,
                           routed_expert_hidden_size
num_attention_heads        num_attention_heads, n_heads, n_head
num_key_value_heads        num_key_value_heads, num_kv_heads, n_kv_heads, multi_query_group_num
head_dim                   head_dim, attention_head_dim (not derived)
n_routed_experts           n_routed_experts, num_local_experts, num_experts, moe_num_experts
n_shared_experts           n_shared_experts, num_shared_experts, shared_experts
num_experts_per_tok        num_experts_per_tok, num_experts_per_token, experts_per_token,
                           moe_topk, top_k_experts, moe_k
max_position_embeddings    max_position_embeddings, max_sequence_length, seq_length
rope_scaling               rope_scaling (a dict), else rope_parameters when it carries a
                           scaling ``rope_type`` other than "default"
mla                        true when kv_lora_rank is set (multi-head latent attention), else false
sliding_window             sliding_window, sliding_window_size (an int; null when absent/null)
layer_types                layer_types (a list) collapsed to {type: count}, null when absent
use_sliding_window         use_sliding_window (bool), null when absent
quantization               {method, weight_block_size}: quantization_config (top level or
                           text_config) or the hf_quant_config.json's ``quantization``. method is
                           the ModelOpt quant_algo when given (nvfp4, fp8, mixed_precision), else
                           quant_method (fp8, mxfp4, compressed-tensors), lower-cased
vocab_size                 vocab_size
=========================  ===================================================================

plus ``source`` (package, version, path inside the wheel) and ``config_url``
(https://huggingface.co/<id>/blob/main/config.json).

A test (tests/test_knowledge.py) checks the committed file equals this script's output on the
pinned wheel when the wheel is available (``CFGLINT_AIC_WHEEL`` or /tmp/aic/).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import yaml

from ..bundled import data_dir
from ..hfconfig import facts

PACKAGE = "aiconfigurator-core"
PINNED_VERSION = "0.12.0"
PREFIX = "aiconfigurator_core/model_configs/"

HEADER = f"""\
# GENERATED FILE - do not edit by hand.
# Model facts read from the config.json files that NVIDIA aiconfigurator-core=={PINNED_VERSION}
# (PyPI, Apache-2.0) publishes under aiconfigurator_core/model_configs/ (each is the model's Hugging
# Face config.json; the hf_quant_config.json next to it gives ModelOpt quantization).
# Regenerate:  python -m cfglint.knowledge.build model-configs [path/to/aiconfigurator_core-{PINNED_VERSION}-*.whl]
# Field names and the config keys they are read from: see the docstring of src/cfglint/knowledge/build/model_configs.py.
# Hand-transcribed configs of models aiconfigurator lacks live in rules/model_configs_extra.yaml.
"""


def generate(wheel: Path) -> str:
    """YAML text of rules/model_configs.yaml read from ``wheel``."""
    models: dict[str, dict] = {}
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for name in sorted(names):
            if not name.startswith(PREFIX) or not name.endswith("_config.json") or name.endswith("_hf_quant_config.json"):
                continue
            stem = name[len(PREFIX):-len("_config.json")]
            if "--" not in stem:
                continue
            org, repo = stem.split("--", 1)
            repo_id = f"{org}/{repo}"
            config = json.loads(zf.read(name))
            quant_name = PREFIX + stem + "_hf_quant_config.json"
            hf_quant = json.loads(zf.read(quant_name)) if quant_name in names else None
            entry = facts(config, hf_quant)
            paths = name + (f" + {quant_name}" if hf_quant is not None else "")
            entry["source"] = f"{PACKAGE}=={PINNED_VERSION} (PyPI wheel) {paths}"
            entry["config_url"] = f"https://huggingface.co/{repo_id}/blob/main/config.json"
            models[repo_id] = entry
    body = yaml.dump({"package": f"{PACKAGE}=={PINNED_VERSION}", "models": models}, Dumper=_Dumper,
                     sort_keys=False, default_flow_style=False, width=1000, allow_unicode=True)
    return HEADER + body


class _Dumper(yaml.SafeDumper):
    """Block mappings, lists on one line (weight_block_size: [128, 128])."""


_Dumper.add_representer(list, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))


def download() -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="aic-"))
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(tmp),
                    f"{PACKAGE}=={PINNED_VERSION}"], check=True)
    wheels = sorted(tmp.glob("aiconfigurator_core-*.whl"))
    if not wheels:
        raise SystemExit(f"pip download gave no aiconfigurator_core wheel in {tmp}")
    return wheels[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cfglint.knowledge.build model-configs",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("wheel", nargs="?", help=f"aiconfigurator_core-{PINNED_VERSION} wheel (downloaded when omitted)")
    ap.add_argument("-o", "--output", default=str(data_dir("rules") / "model_configs.yaml"))
    args = ap.parse_args(argv)
    wheel = Path(args.wheel) if args.wheel else download()
    if PINNED_VERSION not in wheel.name:
        raise SystemExit(f"{wheel.name}: expected version {PINNED_VERSION}")
    Path(args.output).write_text(generate(wheel), encoding="utf-8")
    return 0

