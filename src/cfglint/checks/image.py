"""HW003: the container image is built for another accelerator vendor."""

from __future__ import annotations

import re

from ..model import Finding
from .base import Context, here, rule

# What an image name or tag says about the platform it is built for.
MARKERS = (
    (re.compile(r"rocm|\bmi3\d\d|mi35x", re.I), "AMD"),
    (re.compile(r"ascend|\bcann\b|-npu\b", re.I), "Huawei"),
    (re.compile(r"(^|[-_:/])cu\d{3}\b|cuda|nvcr\.io", re.I), "NVIDIA"),
)


@rule("HW003", "image-vendor-mismatch", "error",
      "The container image is built for another vendor's accelerators (ROCm on NVIDIA, CUDA on AMD or Ascend).",
      "Engine images are built per platform: ROCm images (rocm/sgl-dev:rocm720-...) only run on "
      "AMD Instinct GPUs, CUDA images (...-cu130, nvcr.io/...) only on NVIDIA GPUs, CANN images on "
      "Ascend. A mismatch cannot start, or the published system is not what ran.",
      ("rules/accelerators.yaml (vendor)", "image naming of lmsysorg/sglang (-cuXXX), rocm/sgl-dev (rocmXXX), nvcr.io"))
def check_image_vendor(ctx: Context):
    if not ctx.sub.has_manifest:
        return
    name, acc, decl = ctx.accelerator()
    vendor = (acc or {}).get("vendor")
    if not vendor or decl is None:
        return
    for p in ctx.deployment.engine_processes():
        if p.image is None:
            continue
        built_for = next((v for pattern, v in MARKERS if pattern.search(p.image.value)), None)
        if built_for and built_for != vendor:
            yield Finding("HW003", f"image {p.image.value} is built for {built_for} accelerators but the system is "
                                   f"{name} ({vendor}, {here(decl.span)})",
                          p.image.span, related=[(decl.span, f"accelerator: {name}")])
