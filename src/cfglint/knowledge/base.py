"""The knowledge base: the facts the rules check against (accelerators, models and their config
facts, engines, parsers, kernels, paths, secrets), the bundled files merged with the user's."""

from __future__ import annotations

import json
import os
import re
from functools import cached_property
from pathlib import Path

from ..read.safeio import ReadError, read_bytes
from .bundled import load
from .bundled import shared
from .flagregistry import HAND_FILES, FlagRegistry, compiled_registry, hand_registry
from .releases import ENGINE_LABELS, EngineReleases
from .hfconfig import FIELDS as CONFIG_FIELDS
from .hfconfig import facts as config_facts
from .modelids import REPO_ID, precision_of, strip_hub_prefix, strip_quant_suffix
from .hfcache import read_config as hf_read_config
from .userfile import read_user_file


# config.json facts, in the order they are preferred (see Knowledge.model_configs): generated from
# aiconfigurator-core's config.json copies, generated from litgpt's model table, hand-transcribed
CONFIG_FILES = ("model_configs.yaml", "model_configs_litgpt.yaml", "model_configs_extra.yaml")

# engines whose releases are compiled into rules/releases/<engine>.yaml, and how messages name them
RELEASE_ENGINES = ("vllm", "sglang", "sglang-router", "dynamo", "trtllm")


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


class Knowledge:
    """Facts cfglint checks against. Construct once (see :func:`knowledge`).

    ``extra`` are the user's own knowledge files (``cfglint check --knowledge FILE``): their
    accelerators and models are added or replace bundled ones by name / id, their parser
    names are added to the engine's registry, their host path prefixes are added.
    Raises KnowledgeError for an unreadable or malformed file.
    """

    def __init__(self, extra: tuple[str, ...] = (), private_ranges: tuple[str, ...] | None = None):
        self.extra = [read_user_file(p) for p in extra]
        self.private_ranges = private_ranges  # the configuration's private-ranges (CIDR), None: the bundled list

    @cached_property
    def engines(self) -> dict:
        return load("engines.yaml")

    @cached_property
    def parsers(self) -> dict:
        parsers = (load("parsers.yaml") or {}).get("parsers", {})
        for data in self.extra:
            for engine, kinds in (data.get("parsers") or {}).items():
                for kind, names in (kinds or {}).items():
                    parsers.setdefault(engine, {}).setdefault(kind, {}).update(names or {})
        return parsers

    @cached_property
    def secrets(self) -> dict:
        secrets = load("secrets.yaml")
        if self.private_ranges is not None:
            secrets.setdefault("addresses", {})["private"] = list(self.private_ranges)
        return secrets

    @cached_property
    def kernels(self) -> dict:
        return load("kernels.yaml")

    @cached_property
    def weight_formats(self) -> dict[str, float]:
        """Bytes per parameter by weight format name (``NVFP4`` -> 0.5625), scales included:
        rules/models.yaml ``weight_formats`` (MEM001). Entries without a positive number are left out."""
        table = (load("models.yaml") or {}).get("weight_formats") or {}
        out: dict[str, float] = {}
        for name, entry in table.items() if isinstance(table, dict) else ():
            value = entry.get("bytes") if isinstance(entry, dict) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
                out[str(name).upper()] = float(value)
        return out

    @cached_property
    def paths(self) -> dict:
        paths = load("paths.yaml")
        for data in self.extra:
            paths.setdefault("host_prefixes", []).extend((data.get("paths") or {}).get("host_prefixes") or [])
        return paths

    @cached_property
    def _accelerators(self) -> dict[str, dict]:
        table: dict[str, dict] = {}
        entries = dict((load("accelerators.yaml") or {}).get("accelerators") or {})
        for data in self.extra:
            entries.update(data.get("accelerators") or {})
        for name, entry in entries.items():
            entry = dict(entry, name=name)
            for alias in [name, *(entry.get("aliases") or [])]:
                table[_norm(alias)] = entry
        return table

    @cached_property
    def _models(self) -> dict[str, dict]:
        table: dict[str, dict] = {}
        models = list((load("models.yaml") or {}).get("models") or [])
        for data in self.extra:
            models.extend(data.get("models") or [])
        for entry in models:
            for alias in [entry["id"], *(entry.get("aliases") or [])]:
                table[alias.lower()] = entry
        return table

    @cached_property
    def _by_name(self) -> dict[str, list[dict]]:
        """Curated entries by repo name without the org (``deepseek-r1``), for org mirrors."""
        table: dict[str, list[dict]] = {}
        for key, entry in self._models.items():
            bucket = table.setdefault(key.rsplit("/", 1)[-1], [])
            if entry not in bucket:
                bucket.append(entry)
        return table

    @cached_property
    def model_configs(self) -> dict[str, dict]:
        """Config facts by lower-cased repo id, from :data:`CONFIG_FILES` in order: the first file
        holding an id gives its entry (``source``), and a field that entry leaves null is taken
        from a later file holding the same id; such fields are listed in ``filled_from``
        ({field: that file's source}). (A user's knowledge file states config facts on its model
        entries directly; entry values win over these.)"""
        table: dict[str, dict] = {}
        for name in CONFIG_FILES:
            for repo_id, entry in ((load(name) or {}).get("models") or {}).items():
                if not isinstance(entry, dict):
                    continue
                key = str(repo_id).lower()
                have = table.get(key)
                if have is None:
                    table[key] = dict(entry, config_id=str(repo_id))
                    continue
                for field in (*CONFIG_FIELDS, "num_parameters"):
                    if have.get(field) is None and entry.get(field) is not None:
                        have[field] = entry[field]
                        have.setdefault("filled_from", {})[field] = entry.get("source")
        return table

    @cached_property
    def _configs_by_name(self) -> dict[str, list[str]]:
        """Repo ids of the config facts by lower-cased repo name without the org."""
        table: dict[str, list[str]] = {}
        for key, entry in self.model_configs.items():
            table.setdefault(key.rsplit("/", 1)[-1], []).append(entry["config_id"])
        return table

    def _config_for(self, *ids: str | None) -> dict:
        for repo_id in ids:
            if isinstance(repo_id, str) and repo_id.lower() in self.model_configs:
                return self.model_configs[repo_id.lower()]
        return {}

    def _curated(self, model_id: str, bare: bool = False) -> tuple[dict | None, str]:
        """(curated entry, how it was found) for an id or an org mirror of it (``bare``: also
        for a repo name without org); (None, '') when nothing matches."""
        key = model_id.lower()
        if key in self._models:
            entry = self._models[key]
            return entry, ("exact" if entry["id"].lower() == key else "alias")
        name = key.rsplit("/", 1)[-1]
        if REPO_ID.fullmatch(key) or (bare and "/" not in key):
            found = self._by_name.get(name) or []
            if len(found) == 1:
                return found[0], "mirror"
        return None, ""

    def _resolve(self, model_id: str) -> tuple[dict | None, dict, list[str], str | None]:
        """(curated entry or None, config facts, resolution steps, precision the id's suffix implies)."""
        steps: list[str] = []
        entry, how = self._curated(model_id)
        precision = None
        current = model_id
        for _ in range(4):   # e.g. -Instruct-FP8-dynamic: a few suffixes at most
            if entry is not None:
                break
            stripped, implied = strip_quant_suffix(current)
            if stripped is None:
                break
            precision = precision or implied
            steps.append(f"{current} -> {stripped} (quantized re-upload suffix, {implied or 'precision unknown'})")
            current = stripped
            entry, how = self._curated(current)
        if entry is not None and how == "mirror":
            steps.append(f"{current} -> {entry['id']} (same repo name under another org)")
        elif entry is not None and how == "alias":
            steps.append(f"{current} -> {entry['id']} (alias listed in rules/models.yaml)")
        # the most specific published config: the id itself, then its curated entry, aliases, base
        config = self._config_for(model_id, current)
        if not config and entry is not None:
            config = self._config_for(entry["id"], *(entry.get("aliases") or []), entry.get("base"))
        if entry is None and config:
            steps = [f"{model_id}: config.json facts only ({config.get('source')})"]
        return entry, config, steps, precision

    def model(self, model_id: str | None) -> dict | None:
        """Entry for a Hugging Face repo id, flat: the curated fields of rules/models.yaml (family,
        moe, checkpoint_precision, reasoning, tool_call_format, source, ...) merged with the
        config.json facts of rules/model_configs.yaml / model_configs_extra.yaml (num_attention_heads,
        num_key_value_heads, max_position_embeddings, quantization, ...; curated values win).

        Resolves, case-insensitively: ids and aliases; quantized re-uploads (``-FP8``,
        ``-FP8-dynamic``, ``-NVFP4``, ``-FP4``, ``-MXFP4``, ``-AWQ``, ``-GPTQ-Int4``, ``-W4A16``,
        ``-quantized.w4a16``, ...; see :func:`strip_quant_suffix`); org mirrors (``unsloth/X``,
        ``RedHatAI/X``, ``nvidia/X`` for a curated ``<org>/X`` when exactly one has that name);
        curated ``base:`` links (a fine-tune inherits its base's facts it does not state).
        The entry's ``id`` is the curated id; ``requested_id`` is what was asked, ``resolved_from``
        lists the steps taken (empty for a direct hit), and ``checkpoint_precision`` is the
        precision the requested id's suffix or its own quantization_config implies, else the
        curated one. An id with only config facts (no curated entry) is returned with
        ``curated: False``. None when nothing matches."""
        if not isinstance(model_id, str) or not model_id.strip() or len(model_id) > 300:
            return None   # Hub ids are at most 96 characters per part; longer text is not an id
        model_id = strip_hub_prefix(model_id.strip())
        key = model_id.lower()
        if key not in self._resolved:
            entry, config, steps, precision = self._resolve(model_id)
            self._resolved[key] = self._flat(model_id, entry, config, steps, precision)
        result = self._resolved[key]
        return dict(result) if result is not None else None   # callers may not change the cache

    @cached_property
    def _resolved(self) -> dict[str, dict | None]:
        return {}

    def _flat(self, model_id: str, entry: dict | None, config: dict, steps: list[str],
              precision: str | None) -> dict | None:
        if entry is None and not config:
            return None
        out: dict = {}
        base = self._models.get(str((entry or {}).get("base") or "").lower())
        base_config = self._config_for(base["id"], *(base.get("aliases") or [])) if base else {}
        for facts in (base_config, config):
            for key in (*CONFIG_FIELDS, "num_parameters"):
                if facts.get(key) is not None or key not in out:
                    out[key] = facts.get(key)
        used = config or base_config
        out["config_source"] = used.get("source")
        out["config_url"] = used.get("config_url")
        out["filled_from"] = used.get("filled_from")
        if base:
            out.update({k: v for k, v in base.items()
                        if k not in ("id", "aliases", "source", "note", "base", "draft_models", "related")})
            steps = [*steps, f"{entry['id']} -> {base['id']} (fine-tune of; facts it does not state are the base's)"]
        if entry is not None:
            out.update({k: v for k, v in entry.items() if v is not None or k not in out})
            out["curated"] = True
        else:
            experts = config.get("n_routed_experts")
            out.update(id=config.get("config_id", model_id), curated=False, family=None,
                       moe=(experts > 1) if isinstance(experts, int) else None, source=config.get("source"))
        own = used if used.get("config_id", "").lower() == model_id.lower() else None
        if precision is None:
            _, precision = strip_quant_suffix(model_id)
        if (own is None or out.get("quantization") is None) and precision is not None \
                and precision_of(out.get("quantization")) != precision:
            # the facts are the base's (or the config read lacks it): say what the name implies
            out["quantization"] = None if precision in ("BF16", "FP16") else {
                "method": precision.lower(), "weight_block_size": None,
                "inferred_from": f"repo name suffix of {model_id}"}
        if precision is None and own is not None and entry is not None and own.get("config_id", "").lower() != entry["id"].lower():
            precision = precision_of(own.get("quantization"))
        if precision is not None:
            out["checkpoint_precision"] = precision
        elif out.get("checkpoint_precision") is None:
            out["checkpoint_precision"] = precision_of(out.get("quantization"))
        out["requested_id"] = model_id
        out["resolved_from"] = steps
        return out

    def model_from_config(self, path: str, root: str, max_bytes: int = 1 << 20) -> dict | None:
        """Entry for a local model directory named in a launch (``--model-path ./models/foo``),
        read from its ``config.json`` when that file exists at lint time INSIDE ``root`` (the
        linted tree): a relative ``path`` is taken from ``root``; a path, or a symlink, that leads
        outside ``root`` is refused; files over ``max_bytes`` and unparsable JSON are refused;
        nothing is ever downloaded. The entry has the flat shape of :meth:`model`, with the
        config facts of the local file (they win over a curated entry found by the directory's
        name) and ``config_source`` naming the file. None when refused or absent."""
        if not isinstance(path, str) or not path.strip() or not isinstance(root, str) or len(path) > 4096:
            return None
        try:
            top = Path(root).resolve(strict=True)
            target = Path(path) if os.path.isabs(path) else Path(root) / path
            config_path = target / "config.json" if not target.name.endswith(".json") else target
            real = config_path.resolve(strict=True)
            real.relative_to(top)                       # the file itself lies inside the tree
            Path(os.path.abspath(config_path)).relative_to(Path(os.path.abspath(root)))  # and so does the name
            config = json.loads(read_bytes(str(real), max_bytes, within=str(top)).decode("utf-8"))
        except (OSError, ValueError, RecursionError, ReadError):
            return None
        facts = config_facts(config)
        if facts is None:
            return None
        name = config_path.parent.name
        entry, how = self._curated(name, bare=True) if name else (None, "")
        if entry is None:
            stripped, _ = strip_quant_suffix(name)
            entry, how = self._curated(stripped, bare=True) if stripped else (None, "")
        curated = self.model(entry["id"]) if entry else None
        out = dict(curated or {"id": path, "family": None, "curated": False,
                               "moe": bool(facts.get("n_routed_experts")) if facts.get("n_routed_experts") else None})
        out.update({k: v for k, v in facts.items()})
        out["config_source"] = f"local config.json: {os.path.relpath(real, top)}"
        out["config_url"] = None
        out["source"] = out.get("source") or out["config_source"]
        out["requested_id"] = path
        out["resolved_from"] = [f"{path}: local config.json"] + (
            [f"directory name {name} -> {entry['id']} ({how})"] if entry else [])
        if facts.get("quantization"):
            out["checkpoint_precision"] = precision_of(facts["quantization"]) or out.get("checkpoint_precision")
        return out

    def model_from_hf_cache(self, model_id: str | None) -> dict | None:
        """Entry for Hub repo id ``model_id`` (``org/name``, a Hub URL prefix allowed) whose
        config.json is in the user's local Hugging Face cache (:mod:`cfglint.knowledge.hfcache`:
        read-only, size-bounded, no link out of the cache followed, never a download). The entry
        has the flat shape of :meth:`model`: the curated fields when the id resolves, with the
        config facts of the cached file (they win over the bundled ones: it is the file the
        engine loads), ``config_source`` naming the cached file and a ``resolved_from`` step
        saying so. None when the cache does not hold the id or its file is refused."""
        if not isinstance(model_id, str) or len(model_id) > 300:
            return None
        repo_id = strip_hub_prefix(model_id.strip())
        if not REPO_ID.fullmatch(repo_id.lower()):
            return None
        memo = self._hf_cached
        if repo_id not in memo:
            memo[repo_id] = hf_read_config(repo_id)
        got = memo[repo_id]
        if got is None:
            return None
        cached, where = got
        known = self.model(repo_id)
        out = dict(known or {"id": repo_id, "family": None, "curated": False, "source": where,
                             "moe": (cached["n_routed_experts"] > 1) if isinstance(cached.get("n_routed_experts"), int) else None})
        out.update(cached)
        out["config_source"] = where
        out["config_url"] = f"https://huggingface.co/{repo_id}/blob/main/config.json"
        out["filled_from"] = None
        out["requested_id"] = repo_id
        out["resolved_from"] = [*(known or {}).get("resolved_from", []), f"{repo_id}: config.json facts from the local {where}"]
        if cached.get("quantization"):
            out["checkpoint_precision"] = precision_of(cached["quantization"]) or out.get("checkpoint_precision")
        return out

    @cached_property
    def _hf_cached(self) -> dict:
        return {}

    def model_by_path_name(self, path: str | None) -> dict | None:
        """Entry for a local model directory named in a launch (``/models/Qwen3-8B``) whose
        config.json is not in the linted tree, by the names its path ends in: the last two
        components as ``org/name`` when that is a known repo id (``/raid/meta-llama/Llama-3.1-8B``),
        else the last component as a repo name that exactly one known repo (curated, or with
        config facts) has, also without a quantized re-upload suffix. The entry has the flat
        shape of :meth:`model` with ``requested_id`` the path and a ``resolved_from`` step naming
        the directory; None for a Hub id, a path with placeholders or shell values, or a name
        no single known repo has."""
        if not isinstance(path, str) or not path.strip() or len(path) > 4096 or any(c in path for c in "$<>`*?"):
            return None
        text = path.strip()
        if not text.startswith(("/", "./", "../", "~")) and text.count("/") < 2 and not text.endswith("/"):
            return None   # an org/name Hub id (or a bare word): not a directory path
        parts = [p for p in text.replace("\\", "/").split("/") if p and p not in (".", "..", "~")]
        if not parts:
            return None
        found, how = None, ""
        pair = f"{parts[-2]}/{parts[-1]}".lower() if len(parts) >= 2 else ""
        if pair and (pair in self._models or pair in self.model_configs):   # the exact id, not a mirror
            found, how = f"{parts[-2]}/{parts[-1]}", "its last two components are the repo id"
        else:
            name = parts[-1]
            for candidate in (name, strip_quant_suffix(f"x/{name}")[0]):
                if not candidate:
                    continue
                bare = candidate.rsplit("/", 1)[-1].lower()
                ids = {e["id"] for e in self._by_name.get(bare, [])} or set(self._configs_by_name.get(bare, []))
                if len(ids) == 1:
                    found = next(iter(ids))
                    how = f"its last component {name} is the name of that repo" + (
                        "" if candidate == name else " without its quantized re-upload suffix")
                    if candidate != name:
                        found_org = found.rsplit("/", 1)[0]
                        found = f"{found_org}/{name}" if self.model(f"{found_org}/{name}") is not None else found
                    break
        if found is None:
            return None
        entry = self.model(found)
        if entry is None:
            return None
        entry["requested_id"] = path
        entry["resolved_from"] = [f"{path} -> {found} ({how}; the directory's config.json is not in the linted "
                                  f"tree, so the published model's facts are used)", *entry.get("resolved_from", [])]
        entry["by_path_name"] = True
        return entry

    def accelerator(self, name: str | None) -> dict | None:
        """Entry for an accelerator name as written in a manifest (``B300``, ``RTX 6000D``)."""
        if not isinstance(name, str):
            return None
        return self._accelerators.get(_norm(name))

    def accelerator_names(self) -> list[str]:
        """Canonical accelerator names, sorted."""
        return sorted({e["name"] for e in self._accelerators.values()})

    @cached_property
    def device_resources(self) -> dict[str, dict]:
        """The Kubernetes extended resources that give a container accelerator devices
        (``nvidia.com/gpu``, ``google.com/tpu``) -> what one unit is (vendor, unit, the node labels
        that place it): rules/accelerators.yaml ``resources``."""
        table = (load("accelerators.yaml") or {}).get("resources") or {}
        return {str(k): dict(v) for k, v in table.items() if isinstance(v, dict)}


    def hand_registry(self, name: str) -> FlagRegistry | None:
        """The hand-written flag registry ``name`` of rules/flags/*.yaml (sglang, vllm, trtllm,
        trtllm.disaggregated, dynamo.frontend, dynamo.trtllm, dynamo.sglang, dynamo.vllm): for
        launchers no compiled release data covers, and as overlays of those it covers."""
        memo = self._hand
        if name not in memo:
            memo[name] = hand_registry(name) if name in HAND_FILES else None
        return memo[name]

    @cached_property
    def _hand(self) -> dict:
        return {}

    @cached_property
    def flag_registries(self) -> dict[str, FlagRegistry]:
        """Flag registries by name across every release cfglint holds (see :meth:`registry`):
        compiled ones where rules/releases/ covers the launcher, else the hand-written ones.
        Builds them all: for look-ups across launchers (which engine has a flag); a check of one
        launch uses :meth:`registry`."""
        names = set(HAND_FILES)
        for engine in RELEASE_ENGINES:
            rel = self.engine_releases(engine)
            names.update(rel.launchers() if rel else ())
        return {n: r for n in sorted(names) if (r := self.registry(n)) is not None}

    def engine_releases(self, engine: str) -> EngineReleases | None:
        """The compiled releases of ``engine`` (rules/releases/<engine>.yaml), decoded on first
        use; None when cfglint holds none."""
        memo = self._engine_releases
        if engine not in memo:
            data = shared(f"releases/{engine}.yaml") if engine in RELEASE_ENGINES else None
            parts = ((self.engines.get("releases") or {}).get("line_parts") or {}).get(engine, 2)
            memo[engine] = EngineReleases(engine, data, ENGINE_LABELS.get(engine, engine),
                                          parts if isinstance(parts, int) else 2,
                                          lambda section: shared(f"releases/{engine}-{section}.yaml")) if data else None
        return memo[engine]

    @cached_property
    def _engine_releases(self) -> dict:
        return {}

    def registry(self, name: str, release: str | None = None) -> FlagRegistry | None:
        """The flag registry ``name`` (``vllm``, ``dynamo.sglang`` ...) at ``release`` (a release
        of the compiled data; None: across all of them, each flag with the releases that have
        it); the hand-written registry where no compiled data covers the launcher."""
        key = (name, release)
        memo = self._registries
        if key not in memo:
            engine = name.split(".", 1)[0]
            rel = self.engine_releases(engine)
            hand = self.hand_registry(name)
            if rel is None or rel.launcher(name) is None:
                memo[key] = hand
            else:
                spec = rel.launcher(name) or {}
                settings = {k: rel.setting(name, k, release) for k in ("allow_abbrev", "underscore_equivalent")}
                held = [release] if release is not None else rel.releases
                memo[key] = compiled_registry(name, rel.flag_entries(name, release), settings, hand, held,
                                              f"rules/releases/{engine}.yaml ({rel.label} {rel.span()}; "
                                              f"{', '.join(spec.get('source') or []) if isinstance(spec.get('source'), list) else spec.get('source') or ''})")
        return memo[key]

    @cached_property
    def _registries(self) -> dict:
        return {}

    def parser_registry(self, engine: str, kind: str) -> dict[str, dict] | None:
        """Parser names of ``engine`` (sglang, vllm, trtllm, dynamo) for ``kind``
        (``reasoning`` or ``tool_call``), or None when the registry is not known."""
        entry = self.parsers.get(engine) or {}
        reg = entry.get(kind)
        return reg if isinstance(reg, dict) and reg else None
