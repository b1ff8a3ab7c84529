"""What a launch file is for ``cfglint init`` (:func:`classify`: which manifest file list takes it)
and loading the files of a submission directory with ``cfglint check``'s reader and parsers."""

from __future__ import annotations

import os

from ...knowledge import Knowledge
from ...knowledge.llmapi import trtllm_only
from ...load.submission import (Submission, is_server_config, load_file, load_yaml, looks_like_engine_config, read_file,
                               role_from_name)
from ...read.paths import display_path
from ...read.yamlsrc import YMap

def _is_k8s(root) -> bool:
    return isinstance(root, YMap) and root.get("apiVersion") is not None and root.get("kind") is not None


def classify(path: str, root, used: bool) -> str | None:
    """Which manifest file list a candidate file belongs to: ``launch`` (shell, worker
    argument files), ``configs`` (engine YAML a launch names, or one whose keys are engine
    settings; a TensorRT-LLM disaggregated server config) or None (other YAML: a Kubernetes
    object, which a ``files.deploy`` list will take, CI or tool configuration).
    ``root``: the parsed YAML; ``used``: a launch names the file."""
    lower = path.lower()
    if lower.endswith((".sh", ".bash", ".args")):
        return "launch"
    if lower.endswith((".yaml", ".yml")) and _is_k8s(root):
        return "deploy"
    if lower.endswith((".yaml", ".yml")) and not _is_k8s(root):
        if used or looks_like_engine_config(root) or is_server_config(root):
            return "configs"
    return None


def trtllm_keys(root, kb: Knowledge) -> bool:
    """Whether an engine YAML has a key only TensorRT-LLM's LLM API reads (its LlmArgs keys that no
    SGLang or vLLM flag is named after: knowledge.llmapi.trtllm_only)."""
    only = trtllm_only(kb)
    return isinstance(root, YMap) and any(isinstance(k.value, str) and k.value in only for k, _ in root.items)


def _declared_roles(manifest: dict) -> dict[str, str]:
    """files.launch / files.configs / files.deploy path -> role, as an existing manifest declares them."""
    out: dict[str, str] = {}
    files = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    for key in ("launch", "configs", "deploy"):
        items = files.get(key) if isinstance(files.get(key), list) else []
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("path"), str) and isinstance(item.get("role"), str):
                out[os.path.normpath(item["path"])] = item["role"]
    return out


def load_files(root: str, names: list[str], existing: dict, max_bytes: int) -> tuple[Submission, dict[str, str]]:
    """Read and parse ``names`` (paths relative to ``root``) with the reader and parsers of
    ``cfglint check`` (no link out of ``root`` is followed). Returns the submission and the
    relative path of each file read, by its display path."""
    sub = Submission(root=root, display=display_path(root), max_bytes=max_bytes, within=root,
                     within_name=f"the submission directory {display_path(root)}")
    roles = _declared_roles(existing)
    rels: dict[str, str] = {}
    for rel in names:
        full = os.path.join(root, rel)
        tf = read_file(full, display_path(full), sub)
        if tf is None:
            continue
        # the file's name first (prefill.args, ctx_config.yaml), then the role the manifest gives it
        role = role_from_name(rel) if rel.lower().endswith((".args", ".yaml", ".yml")) else None
        role = role or roles.get(os.path.normpath(rel))
        if rel.lower().endswith((".yaml", ".yml")):
            load_yaml(tf, rel, role, sub, False)   # an engine config, or a Kubernetes manifest's launches
        else:
            load_file(tf, rel, role, False, sub)
        rels[tf.display] = os.path.normpath(rel).replace(os.sep, "/")
    return sub, rels


def config_flags(kb: Knowledge) -> set[str]:
    """The flags that name an engine config file, in every engine table (rules/engines.yaml)."""
    return {f for spec in (kb.engines.get("engines") or {}).values() if isinstance(spec, dict)
            for f in spec.get("config_flags") or []}


def first_error(sub: Submission) -> str | None:
    """The first load-stage error (an unreadable or unparsable file), as one line."""
    for f in sub.findings:
        if f.rule_id == "IO001" and f.level in (None, "error"):
            return f"{f.span}: {f.message}"
    return None


def named_configs(sub: Submission, root: str, flags: set[str]) -> list[str]:
    """Engine configs (relative paths) the commands of a single launch script name with a
    config flag (``--config``, ``--extra_llm_api_options``, ...) that exist inside ``root``."""
    out: list[str] = []
    for _d, parsed, _r, is_args in sub.launches:
        if is_args:
            continue
        for cmd in parsed.commands:
            words = [w.text if w.static else "" for w in cmd.words]
            for i, w in enumerate(words[:-1]):
                if w.split("=", 1)[0] in flags:
                    ref = w.split("=", 1)[1] if "=" in w else words[i + 1]
                    ref = os.path.normpath(ref) if ref else ""
                    if ref and not os.path.isabs(ref) and not ref.startswith("..") \
                            and os.path.isfile(os.path.join(root, ref)) and ref not in out:
                        out.append(ref)
    return out
