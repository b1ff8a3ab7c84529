"""The kernel matrix of an engine release: which quantization methods, attention backends and
backend flags run on which GPU architecture, compiled from the engines' released source by
``python -m cfglint.knowledge.build kernels`` into ``rules/releases/<engine>-kernels.yaml``.

A condition read from the source is stored as a small JSON tree (written by the build, read
here); :func:`evaluate` gives True, False or None (unknown) for a launch:

- ``{"arch": [10, 12]}``: a CUDA GPU whose compute-capability major is one of these;
- ``{"cc": [">=", 89]}``: a CUDA GPU whose capability (major * 10 + minor) compares so;
- ``{"cuda": true}`` / ``{"hip": true}``: the platform is CUDA / ROCm;
- ``{"eq": [setting, value]}``, ``{"in": [setting, [values]]}``: a launch setting (canonical
  names: ``attention_backend``, ``prefill_attention_backend``, ``decode_attention_backend``,
  ``prefill_backend`` / ``decode_backend`` (the backend prefill / decode runs: the phase's own
  flag, else ``--attention-backend``), ``moe_runner_backend``, ``fp8_gemm_runner_backend``,
  ``kv_cache_dtype``);
- ``{"not": c}``, ``{"and": [...]}``, ``{"or": [...]}``; ``{"unknown": text}``: a term the build
  could not read (always unknown).

An unset setting is unknown (the engine picks a default), so only a condition that holds
whatever the unknown terms are evaluates to True.
"""

from __future__ import annotations

import operator
import re

from .bundled import shared
from . import versions

_OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq, "!=": operator.ne}
BACKEND_SETTINGS = ("attention_backend", "prefill_attention_backend", "decode_attention_backend",
                    "prefill_backend", "decode_backend", "moe_runner_backend", "fp8_gemm_runner_backend")


def capability(arch: str | None) -> int | None:
    """The CUDA compute capability of an architecture tag (``sm86`` -> 86, ``sm100`` -> 100),
    None for a non-CUDA tag (``gfx942``)."""
    m = re.fullmatch(r"sm(\d+)", arch or "")
    return int(m.group(1)) if m else None


def platform(arch: str | None) -> str | None:
    """``cuda`` for sm*, ``hip`` for gfx*, else None."""
    if capability(arch) is not None:
        return "cuda"
    return "hip" if (arch or "").startswith("gfx") else None


def evaluate(cond, arch: str | None, settings: dict[str, str | None]):
    """Three-valued truth of ``cond`` on ``arch`` with the launch's ``settings`` (lower-cased
    strings; a missing or None value is unknown)."""
    if not isinstance(cond, dict) or len(cond) != 1:
        return None
    (op, arg), = cond.items()
    cc = capability(arch)
    plat = platform(arch)
    if op == "arch":
        if plat is None:
            return None
        return plat == "cuda" and cc // 10 in arg
    if op == "cc":
        if plat is None:
            return None
        return plat == "cuda" and _OPS[arg[0]](cc, arg[1])
    if op == "cuda":
        return None if plat is None else plat == "cuda"
    if op == "hip":
        return None if plat is None else plat == "hip"
    if op in ("eq", "in"):
        value = settings.get(arg[0])
        if value is None:
            return None
        wanted = [arg[1]] if op == "eq" else arg[1]
        return str(value).lower() in {str(w).lower() for w in wanted}
    if op == "not":
        v = evaluate(arg, arch, settings)
        return None if v is None else not v
    if op in ("and", "or"):
        vals = [evaluate(c, arch, settings) for c in arg]
        if op == "and":
            return False if False in vals else (None if None in vals else True)
        return True if True in vals else (None if None in vals else False)
    return None


def describe(cond) -> str:
    """A short human reading of ``cond`` (for messages)."""
    if not isinstance(cond, dict) or len(cond) != 1:
        return "?"
    (op, arg), = cond.items()
    if op == "arch":
        return "compute capability major in {" + ", ".join(f"{m}.x" for m in arg) + "}"
    if op == "cc":
        return f"compute capability {arg[0]} {arg[1] // 10}.{arg[1] % 10}"
    if op in ("cuda", "hip"):
        return op.upper()
    if op == "eq":
        return f"{arg[0]} == {arg[1]}"
    if op == "in":
        return f"{arg[0]} in {arg[1]}"
    if op == "not":
        return f"not ({describe(arg)})"
    if op in ("and", "or"):
        return f" {op} ".join(describe(c) for c in arg)
    return str(arg)


class KernelMatrix:
    """``rules/releases/<engine>-kernels.yaml`` decoded: ``releases`` (oldest first) and the
    sections the build writes (``quantization``, ``attention_backends``, ``guards``,
    ``model_backends``, ``fp8``, ``marlin``), each fact with ``in`` (a range over ``releases``)."""

    def __init__(self, engine: str, data: dict):
        self.engine = engine
        self.data = data or {}
        self.releases: list[str] = list(self.data.get("releases") or [])
        self._expanded: dict[str, frozenset] = {}

    def holds(self, fact: dict, release: str) -> bool:
        """Whether ``fact`` (its ``in`` range) holds in ``release``."""
        text = str(fact.get("in") or "")
        if text not in self._expanded:
            self._expanded[text] = frozenset(versions.expand(text, self.releases))
        return release in self._expanded[text]

    def at(self, fact: dict, release: str, attr: str):
        """``fact[attr]`` as ``release`` reads it (``by_release`` overrides the newest's value)."""
        for text, value in ((fact.get("by_release") or {}).get(attr) or {}).items():
            if release in versions.expand(text, self.releases):
                return value
        return fact.get(attr)

    def section(self, name: str):
        return self.data.get(name) or ({} if name in ("quantization", "attention_backends") else [])


def load_matrix(engine: str) -> KernelMatrix | None:
    """The compiled kernel matrix of ``engine`` (``vllm``, ``sglang``), None when none is shipped."""
    try:
        data = shared(f"releases/{engine}-kernels.yaml")
    except (OSError, FileNotFoundError):
        return None
    return KernelMatrix(engine, data) if isinstance(data, dict) else None
