"""Engine defaults: what an engine uses for a setting a launch leaves out (``rules/engines.yaml``
``defaults:``), resolved for one process, or the reason it cannot be resolved.

A default may depend on the engine version (``since`` / ``until``: the releases the data holds
for; other or undeclared versions are not guessed), on the device (``by_device``: memory in GiB,
accelerator names excluded) and on how the engine is started (vLLM's usage context).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..knowledge import Knowledge
from ..model import parse_int
from .extract import Process

_VERSION = re.compile(r"(?:^|[^0-9.])v?(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True, slots=True)
class Default:
    """A resolved default: the value, and the source it comes from."""

    value: Any
    source: str


@dataclass(frozen=True, slots=True)
class Unresolved:
    """Why a default could not be resolved (for ``Context.not_checked``)."""

    why: str


def parse_version(text: Any) -> tuple[int, int, int] | None:
    """``"0.26.0"``, ``"v0.26.1"``, ``"vllm/vllm-openai:v0.26.0"``, ``"0.5.11 DSv4"`` ->
    (major, minor, patch); None for commit hashes and anything else without a release number."""
    if not isinstance(text, str):
        return None
    m = _VERSION.search(text if ":" not in text else text.rsplit(":", 1)[1])
    if m is None:
        return None
    parts = (parse_int(m.group(1), signed=False), parse_int(m.group(2), signed=False),
             parse_int(m.group(3) or "0", signed=False))
    return None if None in parts else parts


def engine_version(manifest: dict, proc: Process) -> tuple[tuple[int, int, int] | None, str]:
    """The engine release a process runs: the manifest's engine.version when it names one
    else the container image tag. Returns
    (version or None, what it was read from)."""
    eng = manifest.get("engine") if isinstance(manifest.get("engine"), dict) else {}
    if eng.get("name") == proc.engine:
        v = parse_version(str(eng.get("version"))) if eng.get("version") is not None else None
        if v is not None:
            return v, f"engine.version {eng.get('version')}"
    if proc.image is not None:
        v = parse_version(str(proc.image.value))
        if v is not None:
            return v, f"image {proc.image.value}"
    return None, "no engine version declared (engine.version) or in the image tag"


def _entry(kb: Knowledge, engine: str, setting: str) -> dict | None:
    table = ((kb.engines.get("defaults") or {}).get(engine) or {})
    entry = table.get(setting)
    return entry if isinstance(entry, dict) else None


def _since(entry: dict) -> tuple[int, int, int] | None:
    return parse_version(str(entry["since"])) if entry.get("since") is not None else None


def version_gate(kb: Knowledge, engine: str, setting: str, version: tuple[int, int, int] | None,
                 read_from: str) -> Unresolved | None:
    """None when ``version`` is at or after the release the entry was read from; else why not."""
    entry = _entry(kb, engine, setting) or {}
    since = _since(entry)
    if since is None:
        return None
    shown = ".".join(map(str, since))
    what = f"{engine}'s {setting.replace('_', ' ')}"
    if version is None:
        return Unresolved(f"{what} differs across releases and the version is unknown ({read_from}); "
                          f"declare engine.version")
    if version < since:
        return Unresolved(f"{engine} {'.'.join(map(str, version))} ({read_from}) is older than {shown}, the release "
                          f"{what} was read from")
    until = parse_version(str(entry["until"])) if entry.get("until") is not None else None
    if until is not None and version >= until:
        return Unresolved(f"{engine} {'.'.join(map(str, version))} ({read_from}) is newer than the releases {what} "
                          f"was read from ({shown} up to {'.'.join(map(str, until))}, exclusive)")
    return None


def resolve(kb: Knowledge, engine: str, setting: str, accelerator: tuple[str | None, dict | None],
            version: tuple[int, int, int] | None, read_from: str) -> Default | Unresolved:
    """The default of ``setting`` for ``engine`` on ``accelerator`` (name, knowledge-base entry)
    at ``version``."""
    entry = _entry(kb, engine, setting)
    if entry is None:
        return Unresolved(f"no {engine} default for {setting} in rules/engines.yaml")
    gate = version_gate(kb, engine, setting, version, read_from)
    if gate is not None:
        return gate
    source = str(entry.get("source", "rules/engines.yaml"))
    if "value" in entry:
        return Default(entry["value"], source)
    name, acc = accelerator
    memory = (acc or {}).get("memory_gib")
    if not isinstance(memory, (int, float)):
        return Unresolved(f"{engine}'s {setting} default depends on device memory and the accelerator"
                          f"{' ' + repr(name) if name else ''} is not known")
    for case in entry.get("by_device") or []:
        if name and any(str(x).lower() == str(name).lower() or str(x).lower() == str(acc.get("name", "")).lower()
                        for x in case.get("except") or []):
            continue
        if "min_memory_gib" in case and memory < case["min_memory_gib"]:
            continue
        if "max_memory_gib" in case and memory >= case["max_memory_gib"]:
            continue
        return Default(case["value"], source)
    return Unresolved(f"no {engine} {setting} default matches {name}")


def draft_slots(kb: Knowledge, method: str, k: int, parallel: bool) -> int | None:
    """vLLM draft slots per request (``SpeculativeConfig.max_num_new_slots_for_drafting``) for a
    speculative ``method`` with ``k`` tokens, or None for a method the data does not know."""
    slots = ((_entry(kb, "vllm", "speculative_token_budget") or {}).get("draft_slots") or {})
    key = "parallel" if parallel and method in ("eagle", "eagle3") else method
    rule = slots.get(key)
    if rule is None:
        return None
    text = str(rule).replace(" ", "")
    if text == "K":
        return k
    if text == "K-1":
        return k - 1
    return parse_int(text, signed=False)


__all__ = ["Default", "Unresolved", "draft_slots", "engine_version", "parse_version", "resolve", "version_gate"]
