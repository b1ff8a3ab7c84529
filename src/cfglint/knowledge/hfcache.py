"""A model's config.json from the user's local Hugging Face hub cache, read at lint time.

The cache directory is the one ``huggingface_hub`` uses: ``$HF_HUB_CACHE``, else
``$HF_HOME/hub``, else ``~/.cache/huggingface/hub`` (huggingface_hub constants.py). A repo
``org/name`` lives in ``models--org--name/``; its files are under ``snapshots/<commit>/`` (links
into ``../../blobs/``), and ``refs/main`` names the commit of the main branch.

Read-only and bounded: nothing is downloaded or written; the snapshot of ``refs/main`` is read,
else the most recently modified snapshot (at most :data:`MAX_SNAPSHOTS` are looked at);
``config.json`` (and ModelOpt's ``hf_quant_config.json`` beside it) is read through
:func:`cfglint.read.safeio.read_bytes` with the cache directory as the root its real path must
stay inside: a link that leads out of the cache is refused, and so are files over
:data:`MAX_BYTES`, non-regular files and unparsable JSON. ``CFGLINT_NO_HF_CACHE=1`` turns the
look-up off.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ..read.safeio import ReadError, read_bytes
from .hfconfig import facts as config_facts

MAX_BYTES = 1 << 20        # a config.json is a few KiB; a megabyte is no config
MAX_SNAPSHOTS = 64         # snapshot directories looked at per repo
_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}")   # one part of a Hub repo id
_COMMIT = re.compile(r"[0-9a-f]{40}")
# repo id -> why its cached config.json was refused (the last look-up's; bounded): a COV001 note
# says that rather than "not in the knowledge base"
_REFUSED: dict[str, str] = {}
MAX_REFUSED = 256


def refused(repo_id: str) -> str | None:
    """Why the last :func:`read_config` of ``repo_id`` refused the cached file, or None."""
    return _REFUSED.get(repo_id) if isinstance(repo_id, str) else None


def cache_dir(env: dict | None = None) -> Path | None:
    """The hub cache directory (see the module docstring), or None when the look-up is off."""
    env = os.environ if env is None else env
    if str(env.get("CFGLINT_NO_HF_CACHE") or "").strip().lower() in ("1", "true", "yes", "on"):
        return None
    if env.get("HF_HUB_CACHE"):
        return Path(env["HF_HUB_CACHE"]).expanduser()
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]).expanduser() / "hub"
    return Path.home() / ".cache" / "huggingface" / "hub"


def _snapshot(repo: Path) -> Path | None:
    ref = repo / "refs" / "main"
    try:
        commit = read_bytes(str(ref), 100, within=str(repo.parent)).decode("ascii").strip()
    except (ReadError, UnicodeDecodeError, OSError):
        commit = ""
    if _COMMIT.fullmatch(commit) and (repo / "snapshots" / commit / "config.json").exists():
        return repo / "snapshots" / commit
    try:
        entries = []
        with os.scandir(repo / "snapshots") as it:
            for i, e in enumerate(it):
                if i >= MAX_SNAPSHOTS:
                    break
                if e.is_dir(follow_symlinks=False) and os.path.lexists(os.path.join(e.path, "config.json")):
                    entries.append((e.stat(follow_symlinks=False).st_mtime, e.name))
    except OSError:
        return None
    if not entries:
        return None
    return repo / "snapshots" / max(entries)[1]


def read_config(repo_id: str, cache: Path | None = None) -> tuple[dict, str] | None:
    """(normalized config facts of :func:`cfglint.knowledge.hfconfig.facts`, where they were
    read: ``HF cache <dir>/models--org--name/snapshots/<commit>/config.json``) for Hub repo id
    ``org/name`` from the local cache, or None when the cache does not hold it or the file is
    refused (see the module docstring). Never raises on a bad cache."""
    if not isinstance(repo_id, str):
        return None
    _REFUSED.pop(repo_id, None)   # this look-up's answer replaces the last one's
    org, slash, name = repo_id.strip().partition("/")
    if not slash or not _PART.fullmatch(org) or not _PART.fullmatch(name) or ".." in repo_id:
        return None
    top = cache if cache is not None else cache_dir()
    if top is None:
        return None
    snap = None
    try:
        root = top.resolve(strict=True)
        repo = root / f"models--{org}--{name}"
        if not repo.is_dir():
            return None
        snap = _snapshot(repo)
        if snap is None:
            return None
        config = json.loads(read_bytes(str(snap / "config.json"), MAX_BYTES, within=str(root),
                                       within_name="the Hugging Face cache").decode("utf-8"))
        hf_quant = None
        quant_path = snap / "hf_quant_config.json"
        if os.path.lexists(quant_path):
            hf_quant = json.loads(read_bytes(str(quant_path), MAX_BYTES, within=str(root),
                                             within_name="the Hugging Face cache").decode("utf-8"))
    except (OSError, ValueError, RecursionError, ReadError) as e:
        if snap is not None:   # the repo is cached, its file was refused
            if len(_REFUSED) >= MAX_REFUSED:
                _REFUSED.clear()
            why = str(e) if isinstance(e, ReadError) else ("it is not JSON" if isinstance(e, ValueError)
                                                           else "it nests too deeply" if isinstance(e, RecursionError)
                                                           else "it cannot be read")
            _REFUSED[repo_id] = f"{snap / 'config.json'} in the Hugging Face cache was refused: {why}"
        return None
    got = config_facts(config, hf_quant if isinstance(hf_quant, dict) else None)
    if got is None:
        return None
    where = f"HF cache {top}/{repo.name}/snapshots/{snap.name}/config.json"
    return got, where
