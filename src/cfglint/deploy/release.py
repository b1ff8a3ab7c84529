"""The release a launch runs: one definition for every rule and every reader (``cfglint
explain``, the safety of a ``--fix`` that moves a renamed TensorRT-LLM key).

For each engine a process involves (its engine, and Dynamo for a Dynamo worker), the release is,
first found first:

1. the manifest's ``engine.version`` (for ``engine.name``) or ``engine.orchestrator_version``
   (for the orchestrator);
2. the release number in the tag of the container image the process runs in, for image
   repositories whose tags are releases (``rules/engines.yaml`` ``releases.images``:
   ``vllm/vllm-openai:v0.10.0``, ``lmsysorg/sglang:v0.4.9.post6-cu126``, the NGC TensorRT-LLM and
   Dynamo runtime images);
3. a pin of the engine's package in the launch files (``pip install vllm==0.8.4``,
   ``uv pip install "sglang[all]==0.4.9.post6"``; ``rules/engines.yaml`` ``releases.packages``);
4. the release the launcher itself installs (a Dynamo SDK graph's vLLM workers: its pinned
   ai-dynamo-vllm build; ``rules/engines.yaml`` ``graph_launchers`` ``engine_releases``);
5. else unknown.

Each is resolved against the compiled release data (:meth:`cfglint.knowledge.releases.EngineReleases.resolve`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..knowledge import Knowledge
from ..knowledge.releases import Resolution
from ..knowledge.versions import find, leading
from ..model import Located, Span

_PIN = r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(?P<version>[^\s;,]+)$"
_INSTALLERS = (("pip", "install"), ("pip3", "install"), ("uv", "pip", "install"), ("python", "-m", "pip", "install"),
               ("python3", "-m", "pip", "install"))


@dataclass(frozen=True)
class Launched:
    """The release of ``engine`` a process runs: ``written`` (the text and where it is written,
    None when nothing says), ``via`` (``manifest``, ``image``, ``pin``, ``launcher`` or None) and the
    ``resolution`` against the data cfglint holds."""

    engine: str
    written: Located | None
    via: str | None
    resolution: Resolution
    said: str = ""     # via "launcher": why the launcher runs that release (rules/engines.yaml graph_launchers)

    @property
    def release(self) -> str | None:
        return self.resolution.release


def engines_of(tables: tuple[str, ...], engine: str | None = None) -> list[str]:
    """The engines whose releases a process's flag registries belong to (``dynamo.sglang`` ->
    dynamo; ``trtllm.disaggregated`` -> trtllm), in order, once each; then ``engine`` (the
    process's own, whose release a Dynamo worker's engine configuration follows) when not among them."""
    out: list[str] = []
    for t in (*tables, *([engine] if engine else [])):
        e = t.split(".", 1)[0]
        if e not in out:
            out.append(e)
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(commands, kb: Knowledge) -> dict[str, Located]:
    """Engine -> the version its package is pinned to in ``commands`` (shell commands of the
    launch files: ``pip install vllm==0.8.4``), where it is written. The first pin wins."""
    packages = {_norm(k): v for k, v in ((kb.engines.get("releases") or {}).get("packages") or {}).items()}
    out: dict[str, Located] = {}
    for cmd in commands:
        texts = [w.text for w in cmd.words]
        if not any(tuple(texts[i:i + len(p)]) == p for p in _INSTALLERS for i in range(min(3, len(texts)))):
            continue
        for w in cmd.words:
            m = re.match(_PIN, w.text) if w.static else None
            engine = packages.get(_norm(m.group("name"))) if m else None
            if engine and engine not in out:
                out[engine] = Located(m.group("version"), w.span)
    return out


def from_image(image: Located | None, engine: str, kb: Knowledge) -> Located | None:
    """The release number ``image``'s tag names for ``engine``, when its repository's tags are
    releases of it (rules/engines.yaml ``releases.images``); None otherwise."""
    if image is None or not isinstance(image.value, str):
        return None
    ref = image.value.split("@", 1)[0]
    repo, _, tag = ref.rpartition(":") if ":" in ref.rsplit("/", 1)[-1] else (ref, "", "")
    repo = re.sub(r"^(?:docker\.io/|index\.docker\.io/)?(?:library/)?", "", repo)
    entries = [e for e in (kb.engines.get("releases") or {}).get("images") or [] if isinstance(e, dict)]
    for entry in entries:
        # a mirror or another registry keeps the repository's path (registry.example/vllm/vllm-openai)
        official = entry.get("repository")
        if not isinstance(official, str) or entry.get("engine") != engine or not tag \
                or not (repo == official or repo.endswith("/" + official) or _mirror_of(repo, official)
                        or (entry.get("forks") and _fork_of(repo, official, entry.get("forks"))
                            and not _named_closer(repo, official, entries))):
            continue
        pattern = entry.get("tag")
        m = re.search(pattern, tag) if isinstance(pattern, str) else None
        version = m.group(1) if m else (find(tag) if not pattern else None)
        return Located(version, image.span) if version else Located(tag, image.span)
    return None


def _fork_of(repo: str, official: str, forks=True) -> bool:
    """Whether image repository ``repo`` is another owner's build of ``official`` under the same
    name, or that name with a suffix of its own (``aibrix/vllm-openai``,
    ``aibrix/vllm-openai-aibrix-kvcache-nixl`` of ``vllm/vllm-openai``, for entries marked
    ``forks: true``; ``forks: [names]``: under one of those names instead, as
    ``aibrix/tensorrt-llm`` of ``nvcr.io/nvidia/tensorrt-llm/release``, whose last part names no
    engine): its tag names the release it is built on (``v0.10.2-aibrix-v0.5.0``, ``1.3.0rc8``)."""
    name = repo.rsplit("/", 1)[-1]
    bases = [str(b) for b in forks] if isinstance(forks, list) else [official.rsplit("/", 1)[-1]]
    return "/" in repo and any(name == base or name.startswith(base + "-") for base in bases)


def _named_closer(repo: str, official: str, entries: list[dict]) -> bool:
    """Whether another image entry's name is a longer match of ``repo``'s name than ``official``'s
    (``aibrix/sglang-router`` is a build of ``lmsysorg/sglang-router``, not of ``lmsysorg/sglang``)."""
    name, base = repo.rsplit("/", 1)[-1], official.rsplit("/", 1)[-1]
    for e in entries:
        other = str(e.get("repository") or "").rsplit("/", 1)[-1]
        if len(other) > len(base) and (name == other or name.startswith(other + "-")):
            return True
    return False


def _mirror_of(repo: str, official: str) -> bool:
    """Whether ``repo`` is ``official`` (named with its registry host, ``nvcr.io/...``) on another
    registry: the same path after the host (``registry.example/nvidia/tensorrt-llm/release``)."""
    host, _, path = official.partition("/")
    return ("." in host or ":" in host) and "/" in path and repo.endswith("/" + path)


def declared(manifest: dict, engine: str) -> Located | None:
    """The manifest's version for ``engine``: ``engine.version`` when ``engine.name`` is it,
    ``engine.orchestrator_version`` when ``engine.orchestrator`` is it (text; no span: the
    checks place it with Context.declared)."""
    eng = manifest.get("engine") if isinstance(manifest.get("engine"), dict) else {}
    for name_key, version_key in (("name", "version"), ("orchestrator", "orchestrator_version")):
        if eng.get(name_key) == engine and isinstance(eng.get(version_key), (str, int, float)) \
                and not isinstance(eng.get(version_key), bool):
            return Located(str(eng[version_key]), None)
    return None


def named_by(launch: Launched, manifest: dict) -> str:
    """Where the release of ``launch`` is written, in the words of a message: "the manifest's
    engine version" (``engine.version``), "the manifest's orchestrator_version" (Dynamo's own
    release, ``engine.orchestrator_version``), "the image tag", "the pinned package", or ""."""
    if launch.via == "manifest":
        eng = manifest.get("engine") if isinstance(manifest.get("engine"), dict) else {}
        return "the manifest's engine version" if eng.get("name") == launch.engine \
            else "the manifest's orchestrator_version"
    if launch.via == "launcher":
        return launch.said
    return {"image": "the image tag", "pin": "the pinned package"}.get(launch.via or "", "")


def launched(kb: Knowledge, engine: str, manifest: dict, image: Located | None,
             pinned: dict[str, Located], implied: tuple[Located, str] | None = None) -> Launched:
    """The release of ``engine`` a process runs (see the module docstring); ``implied``: the
    release its launcher installs, and why (a Dynamo SDK graph's vLLM build, rules/engines.yaml
    ``graph_launchers`` ``engine_releases``), taken when nothing above names one."""
    written, via = declared(manifest, engine), "manifest"
    if written is None:
        written, via = from_image(image, engine, kb), "image"
    if written is None:
        written, via = pinned.get(engine), "pin"
    said = ""
    if written is None and implied is not None:
        (written, said), via = implied, "launcher"
    if written is None:
        via = None
    data = kb.engine_releases(engine)
    version = str(written.value) if written is not None else None
    if data is None:
        return Launched(engine, written, via, Resolution(version, None, "unknown",
                                                         f"cfglint holds no release data of {engine}"))
    if written is None:
        note = _bundled_note(kb, engine, manifest, image)
        if note is not None:
            return Launched(engine, None, None, Resolution(None, None, "bundled", note))
    return Launched(engine, written, via, data.resolve(version), said)


def _bundled_note(kb: Knowledge, engine: str, manifest: dict, image: Located | None) -> str | None:
    """Why the release of ``engine``, a program shipped in another engine's images
    (``rules/engines.yaml`` ``releases.bundled``: sglang-router in SGLang's), is not known when
    the image or the manifest names a release of that other engine only; None otherwise."""
    entry = ((kb.engines.get("releases") or {}).get("bundled") or {}).get(engine)
    host = entry.get("in") if isinstance(entry, dict) else None
    if not isinstance(host, str):
        return None
    data = kb.engine_releases(host)
    label = data.label if data is not None else host
    mine = kb.engine_releases(engine)
    own = mine.label if mine is not None else engine
    written = declared(manifest, host)
    said = "the manifest's engine.version"
    if written is None:
        written = from_image(image, host, kb)
        if written is None:
            return None
        said = f"the image {image.value}"
    return f"{said} names {label} {written.value}; which {own} release that bundles, no source cfglint holds states"


@dataclass(frozen=True, slots=True)
class Release:
    """An engine release as a reader shows it: ``text`` as written (``0.5.17``, ``v0.5.17``),
    ``version`` its (major, minor, patch), ``source`` where it was read (``engine.version``,
    ``engine.orchestrator_version``, ``image tag``, ``pip pin`` or ``launcher pin``) and ``span`` where that is
    written (None for a manifest value, unless ``declared_at`` is given)."""

    text: str
    version: tuple[int, int, int]
    source: str
    span: Span | None = None


_SOURCES = {"image": "image tag", "pin": "pip pin", "launcher": "launcher pin"}


def launch_release(manifest: dict, proc, declared_at: Span | None = None) -> Release | None:
    """The release of its own engine that ``proc`` (a deploy.extract.Process) runs, from what
    extraction found (``proc.releases``, see the module docstring); ``declared_at`` places a
    release read from the manifest. None when nothing names a release number (a commit,
    ``latest``, no image)."""
    launch = proc.releases.get(proc.engine) if proc.engine else None
    if launch is None or launch.written is None:
        return None
    text = str(launch.written.value)
    number = leading(text.lstrip("vV")) or find(text)
    m = re.match(r"(\d{1,9})\.(\d{1,9})(?:\.(\d{1,9}))?", number or "")
    if m is None:
        return None
    version = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
    if launch.via == "manifest":
        eng = manifest.get("engine") if isinstance(manifest.get("engine"), dict) else {}
        source = "engine.version" if eng.get("name") == launch.engine else "engine.orchestrator_version"
        return Release(text, version, source, declared_at)
    if launch.via == "image" and proc.image is not None and isinstance(proc.image.value, str):
        last = proc.image.value.split("@", 1)[0].rsplit("/", 1)[-1]
        text = last.split(":", 1)[1] if ":" in last else text   # the tag as written (v0.5.17)
    return Release(text, version, _SOURCES.get(launch.via or "", launch.via or ""), launch.written.span)


__all__ = ["Launched", "Release", "declared", "engines_of", "from_image", "launch_release", "launched", "named_by", "pins"]
