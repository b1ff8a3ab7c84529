"""Which platform plugin an engine process runs through: vLLM runs on Huawei Ascend NPUs only
through the vllm-ascend plugin (github.com/vllm-project/vllm-ascend), which registers
quantization methods of its own (rules/releases/vllm-ascend-kernels.yaml)."""

from __future__ import annotations

import re
from functools import lru_cache

from ..knowledge.kernelmatrix import KernelMatrix, load_matrix

_ASCEND_IMAGE = re.compile(r"(^|[/:-])vllm-ascend([:@/-]|$)")


def on_ascend(ctx, p) -> str | None:
    """Why ``p`` (a vLLM process) runs on Ascend NPUs, or None: the manifest's accelerator is an
    Ascend part (rules/accelerators.yaml arch ascend*), its Kubernetes container asks for a
    huawei.com/Ascend* resource, or its image is a vllm-ascend image."""
    if ctx.sub.has_manifest:
        name, acc, _decl = ctx.accelerator()
        if str((acc or {}).get("arch") or "").startswith("ascend"):
            return f"the manifest's accelerator {name}"
    from .k8s import _other_accelerators

    if p.pod is not None and hasattr(p.pod, "node"):
        res = _other_accelerators(p.pod)
        if res is not None and str(res.value).lower().startswith("huawei.com/ascend"):
            return f"the container asks for {res.value}"
    image = getattr(p.image, "value", None)
    if isinstance(image, str) and _ASCEND_IMAGE.search(image):
        return f"the image {image}"
    return None


@lru_cache(maxsize=1)
def ascend_matrix() -> KernelMatrix | None:
    return load_matrix("vllm-ascend")


def ascend_methods() -> tuple[list[str], str] | None:
    """(every quantization method some vllm-ascend release registers or its platform takes,
    the data file and releases) or None when the data is not shipped."""
    m = ascend_matrix()
    if m is None:
        return None
    methods = set((m.section("quantization") or {}))
    for fact in m.section("platform_quantization") or []:
        methods |= set(fact.get("methods") or [])
    return sorted(methods), f"rules/releases/vllm-ascend-kernels.yaml, vllm-ascend {m.releases[0]}-{m.releases[-1]}"
