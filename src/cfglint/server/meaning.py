"""What the word under an editor's cursor means: a flag of an engine launch (in a shell script,
a worker argument file, a Kubernetes container's command or args, or an engine YAML key that
stands for a flag), or a key of ``submission.yaml``, ``.cfglint.yaml`` or a TensorRT-LLM engine
YAML. The unit is loaded and extracted as the lint does (within the workspace's overlay), so a
flag is the one the rules see, with the launcher's own registry."""

from __future__ import annotations

import os

from ..knowledge import knowledge
from ..knowledge.flaghelp import flag_help
from ..model import Span
from ..read.yamlsrc import YMap, YNode, YSeq

CONFIG_SCHEMA = "cfglint-config.schema.json"
MANIFEST_SCHEMA = "submission.schema.json"
TRTLLM_SCHEMA = "trtllm-llm-api.schema.json"


def _contains(span: Span, line: int, col: int) -> bool:
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)


def key_path_at(root: YNode | None, line: int, col: int) -> tuple | None:
    """The key path (mapping keys, list indexes) of the mapping key at (line, col) in ``root``,
    or None when no key is there."""
    node, path = root, ()
    while node is not None:
        if isinstance(node, YMap):
            nxt = None
            for k, v in node.items:
                if _contains(k.span, line, col):
                    return path + (k.value if isinstance(k.value, (str, int)) else k.text,)
                if v is not None and _contains(v.span, line, col):
                    nxt, path = v, path + (k.value if isinstance(k.value, (str, int)) else k.text,)
                    break
            node = nxt
        elif isinstance(node, YSeq):
            nxt = None
            for i, item in enumerate(node.items):
                if _contains(item.span, line, col):
                    nxt, path = item, path + (i,)
                    break
            node = nxt
        else:
            return None
    return None


def meaning_at(path: str, folder: str, line: int, col: int, cfg) -> str | None:
    """Markdown for the flag or key at 1-based (line, code-point col) of ``path`` (absolute, in
    workspace folder ``folder``; the working directory is the folder), or None."""
    from ..deploy.extract import extract
    from ..load.discover import discover
    from ..load.submission import load_loose_file, load_submission
    from ..read.paths import display_path

    kb = knowledge(tuple(cfg.knowledge), cfg.private_ranges)
    display = display_path(path)
    base = os.path.basename(path)
    if base == ".cfglint.yaml":
        return _config_key(path, folder, line, col)
    targets = discover([path])
    sub = None
    if targets.submissions:
        sub = load_submission(targets.submissions[0], kb=kb, max_bytes=cfg.max_file_size, tree=folder)
        if not any(tf.display == display for tf in sub.texts):
            sub = None
    if sub is None:
        sub = load_loose_file(path, max_bytes=cfg.max_file_size, within=folder, within_name="the workspace")
    deployment = extract(kb, sub.manifest, sub.launches, sub.configs)
    for proc in deployment.processes:
        for arg in proc.args:
            if arg.span.path == display and _contains(arg.span, line, col):
                for name in proc.tables:
                    # the launcher's flags at the release the launch runs (every release when unknown)
                    launch = proc.releases.get(name.split(".", 1)[0])
                    reg = kb.registry(name, launch.release if launch is not None else None)
                    text = flag_help(reg, arg.name, arg.written) if reg is not None else None
                    if text:
                        return text
    from ..schema.describe import key_help

    if base == "submission.yaml" and sub.manifest_node is not None:
        at = key_path_at(sub.manifest_node, line, col)
        return key_help(MANIFEST_SCHEMA, at) if at else None
    for cfg_file in sub.configs:
        if cfg_file.display == display and cfg_file.written_by is None:
            at = key_path_at(cfg_file.root, line, col)
            engines = {p.engine for p in deployment.processes if cfg_file in p.configs}
            if at and (engines <= {"trtllm"}):
                return key_help(TRTLLM_SCHEMA, at)
    return None


def _config_key(path: str, folder: str, line: int, col: int) -> str | None:
    from ..read.textfile import read_text
    from ..read.yamlsrc import parse_yaml
    from ..schema.describe import key_help

    tf = read_text(path, path, within=folder)
    at = key_path_at(parse_yaml(tf.text, path), line, col)
    return key_help(CONFIG_SCHEMA, at) if at else None
