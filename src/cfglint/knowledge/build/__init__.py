"""Knowledge build: the scripts that write the generated data under ``rules/`` and ``schemas/``
from pinned public inputs, so that a new release of an input is a re-run, never hand editing.

One command, from a checkout: ``python -m cfglint.knowledge.build TARGET [ARGS]``; ``TARGET`` is
one of :data:`TARGETS` (``--help`` after it gives the target's own arguments). Each target reads
its inputs statically (archives are read as zip or tar files; nothing in them is imported or
run) and writes its files deterministically, so a re-run on the same inputs gives the same
bytes (the tests compare the committed files with a re-run when the inputs are present).
"""

from __future__ import annotations

# target name -> (module under cfglint.knowledge.build, what it writes)
TARGETS = {
    "model-configs": ("model_configs", "rules/model_configs.yaml from aiconfigurator-core's config.json files"),
    "litgpt-configs": ("litgpt_configs", "rules/model_configs_litgpt.yaml from litgpt's model config table"),
    "k8s-schemas": ("k8s_schemas", "schemas/k8s/*.json from the Kubernetes API and the serving CRDs"),
    "kernels": ("kernels", "rules/releases/vllm-kernels.yaml, sglang-kernels.yaml from the pinned releases' source"),
    "engines": ("engines", "per-release records of vLLM, SGLang, Dynamo, TensorRT-LLM from rules/releases/inputs.yaml"),
}
