"""The engine release a launch runs, as text with where it is written: one function,
:func:`launch_release`, for every reader that needs it (``cfglint explain``, the safety of a
``--fix`` that moves a renamed TensorRT-LLM key)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Span
from .defaults import parse_version
from .extract import Process


@dataclass(frozen=True, slots=True)
class Release:
    """An engine release: ``text`` as written (``0.5.17``, ``v0.5.17``), ``version`` its
    (major, minor, patch), ``source`` where it was read (``engine.version`` or ``image tag``)
    and ``span`` where that is written (None for a manifest value without a position)."""

    text: str
    version: tuple[int, int, int]
    source: str
    span: Span | None = None


def launch_release(manifest: dict, proc: Process, declared_at: Span | None = None) -> Release | None:
    """The release ``proc`` runs: the manifest's ``engine.version`` when the manifest names the
    process's engine and a release number (``declared_at``: where that value is written), else the release in the tag of the container image it runs in
    (``lmsysorg/sglang:v0.5.17``); None when neither says (a commit, ``latest``, no image).
    NVIDIA Dynamo's runtime images are tagged with Dynamo's release, not the engine's, and
    are not read."""
    eng = manifest.get("engine") if isinstance(manifest.get("engine"), dict) else {}
    if eng.get("name") == proc.engine and eng.get("version") is not None:
        text = str(eng["version"])
        v = parse_version(text)
        if v is not None:
            return Release(text, v, "engine.version", declared_at)
    image = proc.image
    if image is not None and isinstance(image.value, str) and "/ai-dynamo/" not in "/" + image.value:
        last = image.value.rsplit("/", 1)[-1]
        if ":" in last:
            tag = last.split(":", 1)[1]
            v = parse_version(tag)
            if v is not None:
                return Release(tag, v, "image tag", image.span)
    return None


__all__ = ["Release", "launch_release"]
