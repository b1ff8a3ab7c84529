"""One field ``cfglint init`` sets in an existing manifest (:class:`Change`), and how its values are shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Change:
    """One derivable field init sets: ``field`` (e.g. ``serving.roles[prefill].tp``), the value
    the manifest had (``None``: absent) and the value derived from the launch."""

    field: str
    old: Any
    new: Any

    def __str__(self) -> str:
        if self.old is ABSENT:
            return f"{self.field}: (absent) -> {_shown(self.new)}"
        if self.new is ABSENT:
            return f"{self.field}: {_shown(self.old)} -> (removed)"
        return f"{self.field}: {_shown(self.old)} -> {_shown(self.new)}"


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


ABSENT = _Absent()


def _shown(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_shown(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_shown(x) for x in v) + "]"
    return str(v)


def plain(v: Any) -> Any:
    """A ruamel node as plain Python data (for comparisons and messages)."""
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, str):
        return str(v)
    return v
