"""When a declared manifest value says what the derived one says, though written otherwise."""

from __future__ import annotations

from typing import Any

from ...knowledge import Knowledge
from ...model import parse_int
from .version import SEMVER

FP4_FAMILY = {"FP4", "NVFP4", "MXFP4"}


def _algorithm_family(engine: str | None, name: Any) -> Any:
    """SGLang runs EAGLE, EAGLE3 and MTP draft heads through one algorithm (SPEC001's rule)."""
    from ...checks.speculative import DISTINCT

    if engine == "sglang" and isinstance(name, str):
        return DISTINCT.get(name.upper(), "EAGLE-family")
    return name.upper() if isinstance(name, str) else name


def agrees(fieldname: str, derived: Any, declared: Any, kb: Knowledge | None = None, engine: str | None = None) -> bool:
    """Whether a declared manifest value says what the derived one says (then init keeps it):
    equal; for ``precision`` FP4 and NVFP4 / MXFP4 (FP4 names both loosely, as TOP002 reads it);
    for ``model`` two ids of one knowledge-base model (a quantized re-upload of the declared
    one, as TOP002 reads it); for ``engine.version`` the same release number inside the text;
    for the speculative algorithm one SGLang family (SPEC001)."""
    if derived == declared:
        return True
    if fieldname == "precision" and isinstance(declared, str) and isinstance(derived, str):
        a, b = derived.upper(), declared.upper()
        return a == b or ("FP4" in (a, b) and {a, b} <= FP4_FAMILY)
    if fieldname == "model" and isinstance(declared, str) and isinstance(derived, str) and kb is not None:
        ea, eb = kb.model(derived), kb.model(declared)
        return derived.lower() == declared.lower() or (ea is not None and eb is not None and ea["id"] == eb["id"])
    if fieldname == "engine.version" and isinstance(declared, str) and isinstance(derived, str):
        m = SEMVER.search(declared)
        return m is not None and m.group(1) == derived
    if fieldname == "speculative_decoding" and isinstance(declared, dict) and isinstance(derived, dict):
        return parse_int(declared.get("draft_tokens")) == derived.get("draft_tokens") and \
            _algorithm_family(engine, declared.get("algorithm")) == _algorithm_family(engine, derived.get("algorithm"))
    return False
