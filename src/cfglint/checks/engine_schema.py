"""SCH001: TensorRT-LLM engine YAML against JSON Schemas that mirror its pydantic models."""

from __future__ import annotations

import re
from functools import lru_cache

import yaml

from ..deploy.defaults import parse_version
from ..deploy.release import launch_release
from ..knowledge import data_dir
from ..knowledge.llmapi import is_llm_api
from ..load.submission import ConfigFile, is_server_config
from ..model import Finding
from ..read.yamlsrc import YMap, YScalar, to_python, walk_path
from ..schema.validation import validate
from .base import Context, rule

# libyaml where PyYAML has it: our own data files, read once, as the safe loader reads them
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)



@lru_cache(maxsize=1)
def renamed_keys() -> dict:
    """schemas/trtllm-renamed-keys.yaml: old dotted key -> {new, since, source}."""
    with open(data_dir("schemas") / "trtllm-renamed-keys.yaml", encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_LOADER) or {}


@lru_cache(maxsize=1)
def removed_values() -> dict:
    """schemas/trtllm-removed-values.yaml: dotted key -> value -> {removed_in, replacement, source}."""
    with open(data_dir("schemas") / "trtllm-removed-values.yaml", encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_LOADER) or {}


def release(text) -> tuple | None:
    """A TensorRT-LLM release as a sortable tuple: ``1.3.0rc15.post1`` -> (1, 3, 0, 0, 15),
    ``1.3.0`` -> (1, 3, 0, 1, 0) (a release candidate sorts before its release); None without x.y.z."""
    m = re.search(r"(\d+)\.(\d+)\.(\d+)(?:rc(\d+))?", str(text)) if text is not None else None
    if not m:
        return None
    major, minor, patch, rc = m.groups()
    return int(major), int(minor), int(patch), 0 if rc is not None else 1, int(rc or 0)


def _declared_trtllm(ctx: Context) -> str | None:
    engine = ctx.manifest.get("engine") if ctx.sub.has_manifest else None
    if isinstance(engine, dict) and engine.get("name") == "trtllm" and release(engine.get("version")):
        return str(engine["version"])
    return None


def _removed_value_findings(ctx: Context, cfg: ConfigFile, findings: list):
    """Replace the schema's enum error on a value a later release removed: accepted when the
    declared release predates the removal, else reported with the release and the replacement."""
    declared = _declared_trtllm(ctx)
    for dotted, values in removed_values().items():
        node = walk_path(cfg.root, tuple(dotted.split(".")))
        if not isinstance(node, YScalar) or not isinstance(node.value, str) or node.value not in (values or {}):
            continue
        entry = values[node.value]
        findings[:] = [f for f in findings if f.span != node.span]
        removed = entry.get("removed_in")
        if declared and release(removed) and release(declared) < release(removed):
            continue
        against = f"TensorRT-LLM {declared} (the manifest's engine version)" if declared else \
            "the newest TensorRT-LLM read (no engine version declared)"
        findings.append(Finding("SCH001", f"{dotted.replace('.', '/')}: '{node.value}' was removed in TensorRT-LLM "
                                          f"{removed}; checked against {against}; use "
                                          f"{' '.join(str(entry.get('replacement')).split())}", node.span))


def _renamed_hint(path: tuple, key: str) -> str | None:
    dotted = ".".join([str(p) for p in path if isinstance(p, str)] + [key])
    entry = renamed_keys().get(dotted) or renamed_keys().get(key)
    if not isinstance(entry, dict):
        return None
    who = f"TensorRT-LLM {entry['since']}" if entry.get("since") else "TensorRT-LLM"
    return f"{who} renamed it: use {entry.get('new')}"


def _is_trtllm(ctx: Context, cfg: ConfigFile) -> bool:
    users = [p for p in ctx.deployment.engine_processes() if any(c is cfg for c in p.configs)]
    if users:
        return all(p.engine == "trtllm" for p in users)
    engine = (ctx.manifest.get("engine") or {}).get("name") if isinstance(ctx.manifest.get("engine"), dict) else None
    if engine is not None:
        return engine == "trtllm"
    return isinstance(cfg.root, YMap) and is_llm_api([k.value for k, _ in cfg.root.items], ctx.kb)


@rule("SCH001", "engine-config-schema", "error",
      "A TensorRT-LLM engine YAML (LLM API options or disaggregated server config) has an unknown, "
      "renamed or mistyped key.",
      "TensorRT-LLM reads --config / --extra_llm_api_options / Dynamo --extra-engine-args YAML into "
      "pydantic models that forbid unknown keys, and server_config.yaml into its disaggregated "
      "server config: a misspelled or renamed key (kv_cache_dtype is now kv_cache_config.dtype, "
      "autotuner_enabled is enable_autotuner) stops the launch. The schemas in schemas/ mirror "
      "those models, with enums for backends, decoding types and policies. A value a later release "
      "removed (moe_config.backend WIDEEP) is accepted when the manifest declares an earlier "
      "release, and otherwise reported with the release checked against and the replacement. "
      "`--fix` moves a key renamed to a plain new key path (kv_cache_dtype to kv_cache_config.dtype) "
      "to its new place, keeping the file's comments and layout. The move is a safe fix when the "
      "release the launch runs (the manifest's engine.version, else the image tag) is known and is "
      "the renaming release or later; otherwise it is unsafe (made only with --unsafe-fixes): for "
      "an older release, or one nobody declared, the new key could be the one the engine refuses.",
      ("schemas/trtllm-llm-api.schema.json (NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py, commit in the schema)",
       "schemas/trtllm-disagg-server.schema.json (tensorrt_llm/llmapi/disagg_utils.py)",
       "schemas/trtllm-renamed-keys.yaml (release notes and PRs per key)",
       "schemas/trtllm-removed-values.yaml (PRs and API references per removed value)"))
def check_engine_schema(ctx: Context):
    for cfg in ctx.sub.configs:
        if not isinstance(cfg.root, YMap):
            continue
        if is_server_config(cfg.root):
            name = "trtllm-disagg-server.schema.json"
        elif _is_trtllm(ctx, cfg):
            name = "trtllm-llm-api.schema.json"
        else:
            continue
        findings = validate("SCH001", name, cfg.root, to_python(cfg.root), cfg.display, unknown_key_hint=_renamed_hint)
        if name == "trtllm-llm-api.schema.json":
            _removed_value_findings(ctx, cfg, findings)
            if cfg.written_by is None:   # a file of its own (not a heredoc of a script): --fix may move keys
                moves = _moves(cfg.root)
                runs = _releases(ctx, cfg)
                for f in findings:
                    if f.span in moves and f.message.split(": ", 1)[-1].startswith("unknown field"):
                        f.move = moves[f.span]
                        since = (renamed_keys().get(".".join(f.move[0])) or {}).get("since")
                        f.fix_safe = bool(runs) and all(_at_or_after(r, since) for r in runs)
        yield from findings


def _releases(ctx: Context, cfg: ConfigFile) -> list[str]:
    """The releases the processes reading ``cfg`` run (deploy.release.launch_release); empty
    when one of them, or every one, runs a release nobody states."""
    users = [p for p in ctx.deployment.engine_processes() if any(c is cfg for c in p.configs)]
    found = [launch_release(ctx.manifest, p) for p in users]
    return [r.text for r in found] if found and all(r is not None for r in found) else []


def _at_or_after(text: str, since) -> bool:
    """Whether release ``text`` is release ``since`` or later (release candidates before their
    release where both name x.y.z; else by major.minor.patch); False when ``since`` is unknown."""
    if since is None:
        return False
    a, b = release(text), release(since)
    if a is not None and b is not None:
        return a >= b
    a, b = parse_version(str(text)), parse_version(str(since))
    return a is not None and b is not None and a >= b


_KEY_PATH = re.compile(r"[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*")


def _moves(root) -> dict:
    """Key span -> (old key path, new key path) for every key of ``root`` that TensorRT-LLM
    renamed to a plain key path (schemas/trtllm-renamed-keys.yaml; entries whose new form needs
    a changed value, such as an inverted flag, are left to the author)."""
    out = {}
    for old, entry in renamed_keys().items():
        new = entry.get("new") if isinstance(entry, dict) else None
        if not isinstance(new, str) or not _KEY_PATH.fullmatch(new) or not isinstance(old, str):
            continue
        path = tuple(old.split("."))
        parent = walk_path(root, path[:-1]) if len(path) > 1 else root
        key = parent.key(path[-1]) if isinstance(parent, YMap) else None
        if key is not None:
            out[key.span] = (path, tuple(new.split(".")))
    return out
