"""The disaggregation role (prefill / decode) an operator's role or component is for."""

from __future__ import annotations

from ....model import Located


def role_in_name(*names: Located | None) -> Located | None:
    """prefill / decode from the first of ``names`` (role, component type or name) that holds
    one of the words (``VllmPrefillWorker``, ``decode``), at its span; None otherwise."""
    for loc in names:
        if loc is not None and isinstance(loc.value, str):
            low = loc.value.lower()
            for role in ("prefill", "decode"):
                if role in low:
                    return Located(role, loc.span)
    return None
