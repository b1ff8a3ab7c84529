"""``cfglint init PATH``: derive a submission manifest (``submission.yaml``) from its launch files.

The launch files are read by cfglint's own pipeline (:mod:`cfglint.load.submission` parses them with
positions, :mod:`cfglint.deploy.extract` turns them into one :class:`~cfglint.deploy.extract.Deployment`);
the manifest fields that deployment determines are the *derivable* ones (:data:`DERIVABLE`).
Everything else (who submits, on which system) cannot be read from a launch: a new manifest
holds ``null`` there with a comment saying what to fill in, so ``cfglint check`` (SUB001) fails
until it is filled in.

Derivation is the reverse of the checks that compare a manifest with its launch (TOP001,
TOP002, SPEC001): it uses the same functions (``gpus_per_instance``, ``launched``,
``draft_length``), so a manifest whose derivable fields init wrote agrees with its launch by
construction. A field whose value the launch does not state, or states in disagreeing ways
(two workers of one role with different TP), is not derived: :attr:`Derived.missing` says why.

On an existing manifest (:func:`update_text`) only the derivable fields that differ from the
derived values change, in place, through ruamel.yaml's round-trip mode: the author's comments,
key order and quoting stay as written (:mod:`cfglint.edit.roundtrip`, which imports ruamel.yaml only
when a manifest is written: ``cfglint check`` never loads it).

Kubernetes manifests (YAML holding objects with ``apiVersion`` and ``kind``) are read as ``cfglint
check`` reads them (:mod:`cfglint.read.k8s`): their containers are launches, listed under ``files.deploy``.
"""

from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ...deploy.extract import Deployment, Process, extract, is_server_config
from ...knowledge import Knowledge
from ...load.discover import MANIFEST, serving_candidates
from ...load.submission import role_from_name
from ...load.submission import Submission, _load_file, _load_yaml, _looks_like_engine_config, _read, _yaml
from ...model import parse_int
from ...read.paths import display_path
from ...read.yamlsrc import YMap
from ..roundtrip import dump as _dump, keep_unchanged as _keep_unchanged, rt_yaml as _rt_yaml, style_of as _style_of

# The manifest fields `cfglint init` derives from the launch files (README "Scaffolding a manifest").
# Role keys are per entry of serving.roles, matched by name.
DERIVABLE = (
    "model",
    "precision",
    "engine.name",
    "engine.version",
    "engine.orchestrator",
    "serving.mode",
    "serving.roles[].name",
    "serving.roles[].instances",
    "serving.roles[].accelerators_per_instance",
    "serving.roles[].tp",
    "serving.roles[].pp",
    "serving.roles[].dp",
    "serving.roles[].ep",
    "serving.roles[].dcp",
    "serving.roles[].attention_dp",
    "speculative_decoding",
    "accelerators_used",
    "files.launch",
    "files.configs",
    "files.deploy",
)
# Fields no launch states: a new manifest has them null, with what to write as a comment.
TO_FILL = {
    "submitter": "who publishes this benchmark (company or team)",
    "system.accelerator": "the accelerator product, e.g. H200, B300, GB300, MI355X (rules/accelerators.yaml)",
    "system.accelerators_total": "N in 'accelerators used X of N': the accelerators of the whole system",
}
# Derivable fields a new manifest holds as null (FILL IN) when the launch does not state them:
# the schema requires them (or, for speculative_decoding and a role's tp, a wrong default
# would go unnoticed)
REQUIRED_WHEN_MISSING = ("model", "precision", "speculative_decoding", "accelerators_used")
ROLE_INT_KEYS = ("tp", "pp", "dp", "ep", "dcp")
ROLE_KEYS = ROLE_INT_KEYS + ("attention_dp",)
ROLE_ORDER = ("server", "prefill", "decode")

_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")
# a release in an image tag, as TOP002 reads it (checks/declared.py)
_SEMVER = re.compile(r"(?<![0-9.])v?(\d+\.\d+\.\d+(?:rc\d+(?:\.post\d+)?|\.post\d+)?)")
# TensorRT-LLM speculative_config.decoding_type (tensorrt_llm/llmapi/llm_args.py: MTP, Eagle, Eagle3,
# DraftTarget, NGram, ...), vLLM --speculative-config method (vllm/config/speculative.py: eagle, eagle3,
# mtp and the model-specific *_mtp names, ngram, draft_model) and SGLang --speculative-algorithm
# (python/sglang/srt/server_args.py: EAGLE, EAGLE3, NEXTN, NGRAM, ...) -> the manifest's algorithm names
_ALGORITHMS = {
    "MTP": "MTP", "DEEPSEEK_MTP": "MTP", "QWEN3_NEXT_MTP": "MTP", "GLM4_MOE_MTP": "MTP", "ERNIE_MTP": "MTP",
    "NEXTN": "MTP", "EAGLE": "EAGLE", "EAGLE3": "EAGLE3", "EAGLE3ONEMODEL": "EAGLE3", "DSPARK": "DSPARK",
    "NGRAM": "NGRAM", "LOOKAHEAD": "NGRAM", "DRAFT_MODEL": "DRAFT", "DRAFT_TARGET": "DRAFT",
    "DRAFTTARGET": "DRAFT", "DRAFT": "DRAFT",
}


class InitError(Exception):
    """Bad input for ``cfglint init``: ``str(err)`` is a one-line message (exit 2)."""


@dataclass(slots=True)
class Derived:
    """What the launch files of one submission directory determine.

    ``manifest``: the derivable fields found, in the manifest's shape (serving.roles a list of
    role mappings; keys of a role that could not be derived are absent). ``missing``: field ->
    why it could not be derived. ``parsers``: the reasoning / tool-call parsers the launch sets
    (the manifest has no field for them; PRS001/PRS002 check them in the launch)."""

    root: str
    manifest: dict = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    parsers: list[str] = field(default_factory=list)
    engine: str | None = None    # the engine the launch was read as (derived, or the manifest's)
    skipped: list[str] = field(default_factory=list)   # YAML files that are not engine configs
    # optional fields the launch does not state (EP, DCP): a manifest may declare them or not
    unstated: list[str] = field(default_factory=list)
    # files that could not be read or parsed, as `cfglint check` reports them (IO001): what they
    # hold was not derived from
    problems: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------
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
        if used or _looks_like_engine_config(root) or is_server_config(root) or _trtllm_keys(root):
            return "configs"
    return None


def _trtllm_keys(root) -> bool:
    """Whether an engine YAML has a key only TensorRT-LLM's LLM API reads (llm_args.py)."""
    return isinstance(root, YMap) and any(isinstance(k.value, str) and k.value in TRTLLM_ONLY_KEYS
                                          for k, _ in root.items)


# Top-level keys of TensorRT-LLM's LLM API (tensorrt_llm/llmapi/llm_args.py TorchLlmArgs) that
# no SGLang or vLLM flag is named after: an engine YAML holding one is TensorRT-LLM's.
TRTLLM_ONLY_KEYS = frozenset({"moe_expert_parallel_size", "enable_attention_dp", "kv_cache_config",
                              "cache_transceiver_config", "moe_config", "cuda_graph_config",
                              "disable_overlap_scheduler", "enable_autotuner"})


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


def _load(root: str, names: list[str], existing: dict, max_bytes: int) -> tuple[Submission, dict[str, str]]:
    """Read and parse ``names`` (paths relative to ``root``) with the reader and parsers of
    ``cfglint check`` (no link out of ``root`` is followed). Returns the submission and the
    relative path of each file read, by its display path."""
    sub = Submission(root=root, display=display_path(root), max_bytes=max_bytes, within=root,
                     within_name=f"the submission directory {display_path(root)}")
    roles = _declared_roles(existing)
    rels: dict[str, str] = {}
    for rel in names:
        full = os.path.join(root, rel)
        tf = _read(full, display_path(full), sub)
        if tf is None:
            continue
        # the file's name first (prefill.args, ctx_config.yaml), then the role the manifest gives it
        role = role_from_name(rel) if rel.lower().endswith((".args", ".yaml", ".yml")) else None
        role = role or roles.get(os.path.normpath(rel))
        if rel.lower().endswith((".yaml", ".yml")):
            _load_yaml(tf, rel, role, sub, False)   # an engine config, or a Kubernetes manifest's launches
        else:
            _load_file(tf, rel, role, False, sub)
        rels[tf.display] = os.path.normpath(rel).replace(os.sep, "/")
    return sub, rels


def _config(tf, rel: str, role: str | None, sub: Submission):
    from ...load.submission import ConfigFile

    return ConfigFile(path=os.path.normpath(rel), display=tf.display, root=_yaml(tf, sub), role=role)


# ---------------------------------------------------------------------------------------
def _engine_from_flags(sub: Submission, kb: Knowledge) -> str | None:
    """The engine of worker argument files (they name no program): the one engine whose flag
    registry (rules/flags/) knows every flag they give; None when none or several do."""
    flags = {w.text.split("=", 1)[0] for _d, parsed, _r, is_args in sub.launches if is_args
             for w in parsed.words if w.text.startswith("--")}
    if not flags:
        return None
    fits = [name for name in ("sglang", "vllm", "trtllm")
            if name in kb.flag_registries and all(kb.flag_registries[name].find(f) for f in flags)]
    return fits[0] if len(fits) == 1 else None


def _common(values: list[Any]) -> tuple[bool, Any]:
    """(True, the value) when every value is the same, else (False, None)."""
    if not values:
        return False, None
    first = values[0]
    return all(v == first for v in values), first


def _config_flags(kb: Knowledge) -> set[str]:
    """The flags that name an engine config file, in every engine table (rules/engines.yaml)."""
    return {f for spec in (kb.engines.get("engines") or {}).values() if isinstance(spec, dict)
            for f in spec.get("config_flags") or []}


def _engine_of(dep: Deployment, sub: Submission, kb: Knowledge) -> str | None:
    """The engine of the submission as the launch files say it: the engine its launched workers
    run; else the one whose flag registry knows every flag of its worker argument files; else
    TensorRT-LLM for a YAML with LLM API keys. None when they do not say."""
    engines = dep.engine_processes()
    if engines:
        ok, name = _common([p.engine for p in engines])
        if not ok:
            raise InitError(f"{sub.display}: the launch starts workers of several engines "
                            f"({', '.join(sorted({str(p.engine) for p in engines}))}); a submission serves with one")
        return name
    name = _engine_from_flags(sub, kb)
    if name is None and any(_trtllm_keys(c.root) for c in sub.configs):
        name = "trtllm"
    return name


def derive(path: str, kb: Knowledge, existing: dict | None = None, max_bytes: int | None = None) -> Derived:
    """Derive the manifest fields of the submission at ``path`` (a launch script, or a directory
    of launch files and engine configs). ``existing``: the directory's manifest as plain data,
    when there is one (its engine name and file roles are used where the launch does not state
    them: worker argument files). Raises :class:`InitError` for a path that cannot be read or
    launches no engine."""
    from ...read.textfile import MAX_BYTES

    max_bytes = max_bytes or MAX_BYTES
    existing = existing if isinstance(existing, dict) else {}
    if os.path.isdir(path):
        root = os.path.abspath(path)
        names = [os.path.relpath(p, root) for p in serving_candidates(root)
                 if not os.path.basename(p).lower().endswith(".env")]
    elif os.path.lexists(path):
        root = os.path.dirname(os.path.abspath(path))
        names = [os.path.basename(path)]
    else:
        raise InitError(f"no such file or directory: {path}")
    sub, rels = _load(root, names, existing, max_bytes)
    if not os.path.isdir(path):
        if not sub.launches and not sub.configs:
            raise InitError(_first_error(sub) or f"{display_path(path)}: not a launch script or engine config")
        # a single script: the engine configs it names, when they are published next to it
        more = _named_configs(sub, root, _config_flags(kb))
        if more:
            sub, rels = _load(root, names + more, existing, max_bytes)
    if not sub.launches and not sub.configs:
        raise InitError(_first_error(sub) or f"{display_path(path)}: no launch script, worker argument file "
                                               "or engine config found")

    eng = existing.get("engine") if isinstance(existing.get("engine"), dict) else {}
    hint = {k: eng[k] for k in ("name", "orchestrator") if isinstance(eng.get(k), str)}
    dep = extract(kb, {}, sub.launches, sub.configs)   # what the launch says by itself
    for cfg in sub.configs:
        cfg.used_by = 0
    name = _engine_of(dep, sub, kb)
    from_launch = name is not None
    name = name or hint.get("name")   # worker argument files no flag tells apart: the manifest's engine
    if name is None:
        why = _first_error(sub)
        raise InitError(f"{display_path(path)}: no engine launch found (sglang, vllm, trtllm, or dynamo with one "
                        f"of them) in {', '.join(sorted(rels.values())) or 'its files'}" + (f"; {why}" if why else ""))
    orchestrated = any(p.orchestrator == "dynamo" for p in dep.processes)
    orchestrator = "dynamo" if orchestrated else hint.get("orchestrator")
    mode = None
    for _ in range(3):   # roles depend on the mode (aggregated: "server"), the mode on the roles
        want = {"engine": {"name": name, **({"orchestrator": orchestrator} if orchestrator else {})}}
        if mode:
            want["serving"] = {"mode": mode}
        for cfg in sub.configs:
            cfg.used_by = 0   # extract counts the uses of each config anew
        dep = extract(kb, want, sub.launches, sub.configs)
        roles = {p.role.value for p in dep.engine_processes() if p.role is not None}
        now = "disaggregated" if roles & {"prefill", "decode"} else "aggregated"
        if now == mode:
            break
        mode = now
    if not dep.engine_processes():
        raise InitError(f"{display_path(path)}: no engine worker found: the launch starts "
                        f"{'only a frontend or router' if dep.processes else 'nothing cfglint recognises'}"
                        f" and no engine config states its parallelism")

    out = Derived(root=root)
    out.problems = [f"{f.span}: {f.message}" for f in sub.findings if f.rule_id == "IO001"]
    m = out.manifest
    out.engine = name
    m["engine"] = {"name": name} if from_launch else {}
    if not from_launch:
        out.missing["engine.name"] = "the launch files do not say which engine reads them"
    _version(dep, out)
    if orchestrated:
        m["engine"]["orchestrator"] = orchestrator
    elif any(p.launcher.endswith("worker arguments") for p in dep.processes):
        out.missing["engine.orchestrator"] = "worker argument files do not say which program reads them"
    elif all(p.synthetic for p in dep.engine_processes()):
        out.missing["engine.orchestrator"] = ("no command starts a worker (engine configs stand for them), "
                                              "so which program runs them is not stated")
    _model(dep, kb, sub, out)
    m["serving"] = {"mode": mode, "roles": []}
    _roles(dep, sub, kb, out)
    _speculative(dep, out)
    _files(sub, dep, rels, out)
    out.parsers = sorted({f"{ref.kind.replace('_', '-')} parser {ref.name.value} ({ref.via})"
                          for p in dep.processes for ref in p.parsers})
    return out


def _first_error(sub: Submission) -> str | None:
    """The first load-stage error (an unreadable or unparsable file), as one line."""
    for f in sub.findings:
        if f.rule_id == "IO001" and f.level in (None, "error"):
            return f"{f.span}: {f.message}"
    return None


def _named_configs(sub: Submission, root: str, flags: set[str]) -> list[str]:
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


def _version(dep: Deployment, out: Derived) -> None:
    tags = set()
    for p in dep.processes:
        if p.image is not None and isinstance(p.image.value, str):
            if "/ai-dynamo/" in "/" + p.image.value:
                continue   # NVIDIA Dynamo's runtime images (nvcr.io/nvidia/ai-dynamo/*-runtime) are tagged with Dynamo's release
            last = p.image.value.rsplit("/", 1)[-1]
            t = _SEMVER.search(last.split(":", 1)[1]) if ":" in last else None
            if t:
                tags.add(t.group(1))
    if len(tags) == 1:
        out.manifest["engine"]["version"] = tags.pop()
    else:
        out.missing["engine.version"] = ("the container images have different version tags" if tags else
                                         "no container image with a version tag (e.g. :v0.5.17) in the launch")


def _model(dep: Deployment, kb: Knowledge, sub: Submission, out: Derived) -> None:
    from ...checks.declared import QUANTIZATION_PRECISION

    models, quants = [], []
    for p in dep.engine_processes():
        loc = p.settings.get("model")
        if loc is not None and isinstance(loc.value, str):
            models.append(loc.value)
        q = p.settings.get("quantization")
        if q is not None:
            quants.append(QUANTIZATION_PRECISION.get(str(q.value).lower()))
    ids = sorted({m for m in models if _REPO_ID.fullmatch(m)})
    model = None
    if len(ids) == 1:
        model = ids[0]
        out.manifest["model"] = model
    elif ids:
        out.missing["model"] = f"the workers serve different models ({', '.join(ids)})"
    else:
        shown = sorted(set(models))
        out.missing["model"] = (f"the launch names the model by a local path or placeholder ({', '.join(shown)}), "
                                f"not a Hugging Face repo id" if shown else "the launch names no model")
    if quants and all(quants) and len(set(quants)) == 1:
        out.manifest["precision"] = quants[0]
        return
    if quants:
        out.missing["precision"] = "the --quantization values do not name one precision"
        return
    entry = kb.model(model) if model else None
    if entry is None and model is None:
        for name in sorted(set(models)):   # a local model directory whose config.json is published
            entry = kb.model_from_config(name, sub.root) if sub.root else None
            if entry is not None:
                break
    precision = (entry or {}).get("checkpoint_precision")
    if isinstance(precision, str) and precision:
        out.manifest["precision"] = precision.upper()
    else:
        out.missing["precision"] = ("the knowledge base does not know the checkpoint's precision" if model else
                                    "the served checkpoint is not known, so neither is its precision")


def _roles(dep: Deployment, sub: Submission, kb: Knowledge, out: Derived) -> None:
    from ...checks import Context
    from ...checks.declared import launched
    from ...checks.topology import _launched_instances, gpus_per_instance

    ctx = Context(sub, dep, kb)
    procs = dep.engine_processes()
    names = sorted({p.role.value for p in procs if p.role is not None},
                   key=lambda r: ROLE_ORDER.index(r) if r in ROLE_ORDER else 9)
    if any(p.role is None for p in procs):
        out.missing["serving.roles"] = "a worker's role (prefill or decode) is not stated by its flags, file name or config"
    total, total_known = 0, True
    for name in names:
        mine = [p for p in procs if p.role is not None and p.role.value == name]
        role: dict[str, Any] = {"name": name}
        where = f"serving.roles[{name}]"
        got = _launched_instances(ctx, name)
        if got is not None:
            role["instances"] = got[0]
        else:
            out.missing[f"{where}.instances"] = ("the launch gives the worker's flags (worker argument files or an "
                                                 "engine config no command names), not how many workers run")
        ok, api = _common([g[0] if (g := gpus_per_instance(p)) else None for p in mine])
        if ok and api is not None:
            role["accelerators_per_instance"] = api
        else:
            out.missing[f"{where}.accelerators_per_instance"] = "the workers' parallelism is not known statically" \
                if ok else "the workers of this role run with different parallelism"
        for key in ROLE_KEYS:
            values = [launched(p, key) for p in mine]
            ok, v = _common([None if x is None else (bool(x.value) if key == "attention_dp" else parse_int(x.value))
                             for x in values])
            if ok and v is not None:
                role[key] = v
            elif not ok:
                out.missing[f"{where}.{key}"] = "the workers of this role disagree"
            elif key in ("ep", "dcp") and not any(p.missing_configs or key in p.unknown for p in mine):
                # not stated: the engines derive EP / DCP in several ways (a MoE all-to-all backend
                # can imply EP = TP); as TOP002 compares only a stated value, init writes only one
                out.unstated.append(f"{where}.{key}")
            elif not (key == "attention_dp" and all(p.engine == "vllm" for p in mine)):
                out.missing[f"{where}.{key}"] = ("set by a value not known statically, or in an engine config "
                                                 "that is not published")
        if "instances" in role and "accelerators_per_instance" in role:
            total += role["instances"] * role["accelerators_per_instance"]
        else:
            total_known = False
        out.manifest["serving"]["roles"].append(role)
    if names and total_known:
        out.manifest["accelerators_used"] = total
    else:
        out.missing["accelerators_used"] = "the instances or accelerators per instance of a role are not known"


def _algorithm(p: Process) -> str | None:
    s = p.settings
    raw = None
    if p.engine in ("sglang", "trtllm"):
        alg = s.get("spec_algorithm")
        raw = alg.value if alg is not None and isinstance(alg.value, str) else None
        # SGLang's EAGLE also runs a model's own MTP layers (NEXTN is its alias for that): the name
        # is taken as written; SPEC001 treats EAGLE, EAGLE3 and MTP as one family for SGLang
    elif p.engine == "vllm":
        cfg = s.get("spec_config")
        if cfg is not None and isinstance(cfg.value, str):
            try:
                data = json.loads(cfg.value)
            except ValueError:
                try:
                    data = ast.literal_eval(cfg.value)
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    data = None
            method = data.get("method") if isinstance(data, dict) else None
            raw = method if isinstance(method, str) else None
    if raw is None:
        return None
    key = raw.upper().replace("-", "_")
    return _ALGORITHMS.get(key) or (key if key in ("EAGLE", "EAGLE3", "MTP", "DSPARK", "NGRAM", "DRAFT") else None)


def _speculative(dep: Deployment, out: Derived) -> None:
    from ...checks.speculative import draft_length

    found = []
    for p in dep.engine_processes():
        got = draft_length(p)
        alg = _algorithm(p)
        if got is None and alg is None:
            continue
        found.append((alg, parse_int(got[0].value) if got else None))
    if not found:
        unknown = any(p.missing_configs or any("speculative" in f for f in p.flag_names)
                      for p in dep.engine_processes())
        if unknown:
            out.missing["speculative_decoding"] = "speculative flags are set, but their algorithm or draft length is not known"
        else:
            out.manifest["speculative_decoding"] = None
        return
    ok, (alg, n) = _common(found)
    if ok and alg and n:
        out.manifest["speculative_decoding"] = {"algorithm": alg, "draft_tokens": n}
    else:
        out.missing["speculative_decoding"] = ("the workers run different speculative settings" if not ok else
                                               "the speculative algorithm or draft length is not known statically")


def _files(sub: Submission, dep: Deployment, rels: dict[str, str], out: Derived) -> None:
    roles_of: dict[str, set[str]] = {}
    used: list[str] = []          # configs in the order the launch names them
    for p in dep.engine_processes():
        for cfg in p.configs:
            if p.role is not None:
                roles_of.setdefault(cfg.path, set()).add(p.role.value)
            if cfg.path not in used:
                used.append(cfg.path)
    disagg = out.manifest["serving"]["mode"] == "disaggregated"
    launch: list[Any] = []
    deploy: list[Any] = []
    manifests = {display for display, _obj in sub.k8s_objects} | {span.path for _kind, span in sub.k8s_not_modelled}
    order = {r: i for i, r in enumerate(ROLE_ORDER)}   # scripts first, then worker files by role
    for disp, _parsed, role, is_args in sorted(sub.launches, key=lambda x: (x[3], order.get(x[2], 9), rels[x[0]])):
        rel = rels[disp]
        if disp in manifests:
            if rel not in deploy:
                deploy.append(rel)
            continue
        launch.append({"path": rel, "role": role} if is_args and role and disagg else rel)
    partial = {span.path for _kind, span in sub.k8s_not_modelled}
    for disp in sorted(manifests - {d for d, *_ in sub.launches}):
        if disp not in rels or rels[disp] in deploy:
            continue
        if disp in partial:
            deploy.append(rels[disp])        # a serving resource cfglint does not model: listed, checked in part
        else:
            out.skipped.append(rels[disp])   # objects that start nothing (a ConfigMap, a Service)
    published = {c.path: c for c in sub.configs if c.written_by is None}
    # a config flag whose value is known only at run time (--config ${YAML_CONFIG}) may name
    # any engine YAML of the directory: every one is listed
    unresolved = any(p.missing_configs for p in dep.engine_processes())
    configs: list[Any] = []
    for path in used + sorted(set(published) - set(used)):
        cfg = published.get(path)
        if cfg is None or classify(path, cfg.root, path in used or cfg.used_by > 0 or unresolved) != "configs":
            if cfg is not None:
                out.skipped.append(rels.get(cfg.display, path))
            continue
        r = roles_of.get(path, set())
        shown = path.replace(os.sep, "/")
        configs.append({"path": shown, "role": next(iter(r))} if disagg and len(r) == 1 else shown)
    files: dict[str, Any] = {"launch": launch} if launch or not deploy else {}
    if configs:
        files["configs"] = configs
    if deploy:
        files["deploy"] = deploy
    out.manifest["files"] = files


# ---------------------------------------------------------------------------------------
# Writing: ruamel.yaml round-trip (imported here only: `cfglint check` never loads it).

# The manifest's top-level keys in the order examples/README.md gives them (a key init adds to an
# existing manifest goes after the last of these that precedes it).
ORDER = ("schema_version", "submitter", "model", "precision", "system", "engine", "serving",
         "speculative_decoding", "accelerators_used", "files", "source")
FP4_FAMILY = {"FP4", "NVFP4", "MXFP4"}


@dataclass(slots=True)
class Change:
    """One derivable field init sets: ``field`` (e.g. ``serving.roles[prefill].tp``), the value
    the manifest had (``None``: absent) and the value derived from the launch."""

    field: str
    old: Any
    new: Any

    def __str__(self) -> str:
        if self.old is _ABSENT:
            return f"{self.field}: (absent) -> {_shown(self.new)}"
        if self.new is _ABSENT:
            return f"{self.field}: {_shown(self.old)} -> (removed)"
        return f"{self.field}: {_shown(self.old)} -> {_shown(self.new)}"


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


_ABSENT = _Absent()


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


def _plain(v: Any) -> Any:
    """A ruamel node as plain Python data (for comparisons and messages)."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, str):
        return str(v)
    return v


TODO = "FILL IN"


def _comment(text: str) -> str:
    """``text`` for a YAML comment: it quotes the launch (a model path, a parser name), so a line
    break or control character in it is written as an escape: it can neither end the comment and
    add keys to the manifest nor drive a terminal that shows the file."""
    from ...output.neutral import neutralize

    return neutralize(text)


def new_manifest(d: Derived) -> str:
    """A new ``submission.yaml`` (text) from what was derived: the fields that could not be
    derived are ``null`` with a ``# FILL IN: ...`` comment (SUB001 reports them until they are)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    m, miss = d.manifest, d.missing
    top = CommentedMap()
    top["schema_version"] = 1

    def put(mapping, key, value, why: str | None = None):
        mapping[key] = value
        if why:
            mapping.yaml_add_eol_comment(_comment(f"{TODO}: {why}"), key)

    put(top, "submitter", None, TO_FILL["submitter"])
    put(top, "model", m.get("model"), None if "model" in m else f"Hugging Face repo id (owner/name); {miss.get('model', '')}")
    put(top, "precision", m.get("precision"), None if "precision" in m else
        f"BF16, FP8, NVFP4, MXFP4, ... ({miss.get('precision', '')})")
    system = CommentedMap()
    put(system, "accelerator", None, TO_FILL["system.accelerator"])
    put(system, "accelerators_total", None, TO_FILL["system.accelerators_total"])
    top["system"] = system
    engine = CommentedMap()
    engine["name"] = m["engine"]["name"]
    if "version" in m["engine"]:
        engine["version"] = m["engine"]["version"]
    if "orchestrator" in m["engine"]:
        engine["orchestrator"] = m["engine"]["orchestrator"]
    elif "engine.orchestrator" in miss:
        engine.yaml_add_eol_comment(_comment(f"add orchestrator: dynamo if Dynamo runs the workers "
                                             f"({miss['engine.orchestrator']})"), "name")
    top["engine"] = engine
    serving = CommentedMap()
    serving["mode"] = m["serving"]["mode"]
    roles = CommentedSeq()
    for r in m["serving"]["roles"]:
        role = CommentedMap()
        where = f"serving.roles[{r['name']}]"
        role["name"] = r["name"]
        for key in ("instances", "accelerators_per_instance"):
            put(role, key, r.get(key), None if key in r else miss.get(f"{where}.{key}", "not derived"))
        for key in ROLE_INT_KEYS:
            if key in r and (key == "tp" or r[key] != 1):
                role[key] = r[key]
            elif key == "tp" and f"{where}.tp" in miss:   # absent would declare TP 1
                put(role, "tp", None, miss[f"{where}.tp"])
        if r.get("attention_dp"):
            role["attention_dp"] = True
        roles.append(role)
    serving["roles"] = roles
    top["serving"] = serving
    if "speculative_decoding" in m:
        spec = m["speculative_decoding"]
        top["speculative_decoding"] = None if spec is None else CommentedMap(spec)
    else:
        put(top, "speculative_decoding", None, f"algorithm and draft_tokens, or null ({miss.get('speculative_decoding')})")
    put(top, "accelerators_used", m.get("accelerators_used"),
        None if "accelerators_used" in m else miss.get("accelerators_used"))
    files = CommentedMap()
    for key in ("launch", "configs", "deploy"):
        if key in m["files"]:
            seq = CommentedSeq()
            for item in m["files"][key]:
                seq.append(CommentedMap(item) if isinstance(item, dict) else item)
            files[key] = seq
    top["files"] = files
    head = [f"Written by `cfglint init` from the launch files; fill in the fields marked {TODO}, then run "
            "`cfglint check`."]
    head += [_comment(f"The launch sets a {p}; the manifest has no field for it.") for p in d.parsers]
    top.yaml_set_start_comment("\n".join(head))
    return _dump(_rt_yaml(), top)


def _same_scalar_style(old: Any, new: Any) -> Any:
    """``new`` written with the quoting ``old`` had (a double-quoted version stays double-quoted)."""
    from ruamel.yaml.scalarstring import ScalarString

    if isinstance(old, ScalarString) and isinstance(new, str):
        return type(old)(new)
    return new


def _set(mapping, key: str, new: Any, where: str, changes: list[Change]) -> None:
    """Set ``mapping[key]`` to ``new`` (a new key goes after its predecessors in ORDER)."""
    old = mapping.get(key, _ABSENT) if hasattr(mapping, "get") else _ABSENT
    changes.append(Change(where, _plain(old) if old is not _ABSENT else _ABSENT, new))
    if key in mapping:
        mapping[key] = _same_scalar_style(mapping[key], new)
        return
    if key in ORDER:
        before = [k for k in ORDER[:ORDER.index(key)] if k in mapping]
        pos = list(mapping).index(before[-1]) + 1 if before else 0
        mapping.insert(pos, key, new)
    else:
        mapping[key] = new


def _holder(mapping, key: str, empty: type):
    """``mapping[key]`` when it is a mapping (``empty`` CommentedMap) or a list (CommentedSeq),
    else an empty one set there in ORDER's place: the place changed values go, not a change of
    its own (the values set in it are the changes)."""
    have = mapping.get(key)
    if isinstance(have, dict if issubclass(empty, dict) else list):
        return have
    _set(mapping, key, empty(), key, [])
    return mapping[key]


def _algorithm_family(engine: str | None, name: Any) -> Any:
    """SGLang runs EAGLE, EAGLE3 and MTP draft heads through one algorithm (SPEC001's rule)."""
    from ...checks.speculative import DISTINCT

    if engine == "sglang" and isinstance(name, str):
        return DISTINCT.get(name.upper(), "EAGLE-family")
    return name.upper() if isinstance(name, str) else name


def role_default(key: str) -> Any:
    """The value a role key has when the manifest leaves it out (schema: tp, pp, dp, ep, dcp
    default 1; attention DP off)."""
    return False if key == "attention_dp" else 1


def agrees(fieldname: str, derived: Any, declared: Any, kb: Knowledge | None = None, engine: str | None = None) -> bool:
    """Whether a declared manifest value says what the derived one says (then init keeps it):
    equal; for ``precision`` FP4 and NVFP4 / MXFP4 (FP4 names both loosely, as TOP002 reads it);
    for ``model`` two ids of one knowledge-base model (a quantized re-upload of the declared
    one, as TOP002 reads it); for ``engine.version`` the same release number inside the text;
    for the speculative algorithm one SGLang family (SPEC001)."""
    if derived == declared:
        return True
    if fieldname == "precision" and isinstance(declared, str) and isinstance(derived, str):
        a, b = derived.upper(), declared.upper()
        return a == b or ("FP4" in (a, b) and {a, b} <= FP4_FAMILY)
    if fieldname == "model" and isinstance(declared, str) and isinstance(derived, str) and kb is not None:
        ea, eb = kb.model(derived), kb.model(declared)
        return derived.lower() == declared.lower() or (ea is not None and eb is not None and ea["id"] == eb["id"])
    if fieldname == "engine.version" and isinstance(declared, str) and isinstance(derived, str):
        m = _SEMVER.search(declared)
        return m is not None and m.group(1) == derived
    if fieldname == "speculative_decoding" and isinstance(declared, dict) and isinstance(derived, dict):
        return parse_int(declared.get("draft_tokens")) == derived.get("draft_tokens") and \
            _algorithm_family(engine, declared.get("algorithm")) == _algorithm_family(engine, derived.get("algorithm"))
    return False


def _file_key(item: Any) -> str | None:
    if isinstance(item, str):
        return os.path.normpath(item)
    if isinstance(item, dict) and isinstance(item.get("path"), str):
        return os.path.normpath(item["path"])
    return None


def plan(doc, d: Derived, kb: Knowledge) -> list[Change]:
    """Update ``doc`` (a manifest loaded by ruamel.yaml's round-trip loader) in place: every
    derivable field whose declared value does not agree with the derived one (:func:`agrees`)
    is set; fields not derived stay as they are. Returns the changes made."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    m = d.manifest
    changes: list[Change] = []
    engine_name = m["engine"].get("name") or d.engine
    for key in ("model", "precision"):
        if key in m and not agrees(key, m[key], _plain(doc.get(key)), kb):
            _set(doc, key, m[key], key, changes)
    eng = _holder(doc, "engine", CommentedMap)
    for key in ("name", "version", "orchestrator"):
        if key in m["engine"] and not agrees(f"engine.{key}", m["engine"][key], _plain(eng.get(key))):
            _set(eng, key, m["engine"][key], f"engine.{key}", changes)
    serving = _holder(doc, "serving", CommentedMap)
    if serving.get("mode") != m["serving"]["mode"]:
        _set(serving, "mode", m["serving"]["mode"], "serving.mode", changes)
    roles = _holder(serving, "roles", CommentedSeq)
    have = {r.get("name"): r for r in roles if isinstance(r, dict)}
    for r in m["serving"]["roles"]:
        where = f"serving.roles[{r['name']}]"
        target = have.get(r["name"])
        if target is None:
            target = CommentedMap(name=r["name"])
            roles.append(target)
            changes.append(Change(where, _ABSENT, r))
            for key in ("instances", "accelerators_per_instance"):
                if key in r:
                    target[key] = r[key]
            for key in ROLE_KEYS:
                if key in r and r[key] != role_default(key):
                    target[key] = r[key]
            continue
        for key in ("instances", "accelerators_per_instance") + ROLE_KEYS:
            if key not in r:
                continue
            declared = _plain(target.get(key, role_default(key) if key in ROLE_KEYS else None))
            if declared != r[key]:
                _set(target, key, r[key], f"{where}.{key}", changes)
    if "serving.roles" not in d.missing and m["serving"]["roles"]:
        wanted = {r["name"] for r in m["serving"]["roles"]}
        for r in list(roles):
            if isinstance(r, dict) and r.get("name") not in wanted:
                roles.remove(r)
                changes.append(Change(f"serving.roles[{r.get('name')}]", _plain(r), _ABSENT))
    if "speculative_decoding" in m:
        spec = m["speculative_decoding"]
        old = _plain(doc.get("speculative_decoding", _ABSENT))
        if spec is None and old not in (None, _ABSENT):
            _set(doc, "speculative_decoding", None, "speculative_decoding", changes)
        elif spec is not None and not agrees("speculative_decoding", spec, old, engine=engine_name):
            _set(doc, "speculative_decoding", CommentedMap(spec), "speculative_decoding", changes)
    if "accelerators_used" in m and _plain(doc.get("accelerators_used")) != m["accelerators_used"]:
        _set(doc, "accelerators_used", m["accelerators_used"], "accelerators_used", changes)
    files = _holder(doc, "files", CommentedMap)
    for key in ("launch", "configs", "deploy"):
        derived = m["files"].get(key, [])
        listed = files.get(key)
        if not isinstance(listed, list):
            if not derived:
                continue
            listed = _holder(files, key, CommentedSeq)
        by_path = {_file_key(i): i for i in listed}
        for item in list(listed):   # entries naming a file that is not there (SUB002)
            k = _file_key(item)
            if k is not None and not os.path.lexists(os.path.join(d.root, k)):
                listed.remove(item)
                changes.append(Change(f"files.{key}", _plain(item), _ABSENT))
        for item in derived:
            k = _file_key(item)
            old = by_path.get(k)
            if old is None:
                listed.append(CommentedMap(item) if isinstance(item, dict) else item)
                changes.append(Change(f"files.{key}", _ABSENT, item))
            elif isinstance(old, dict) and isinstance(item, dict) and "role" in old and old.get("role") != item["role"]:
                _set(old, "role", item["role"], f"files.{key}[{k}].role", changes)
    return changes


def update_text(text: str, d: Derived, kb: Knowledge) -> tuple[str, list[Change]]:
    """The manifest ``text`` with its derivable fields set to the derived values, comments,
    key order and quoting kept (ruamel.yaml round-trip; lines it would only re-flow are kept as
    written). Raises :class:`InitError` when ``text`` is not a YAML mapping."""
    from ruamel.yaml.error import YAMLError

    try:
        (width, mapping, sequence, offset), noop = _style_of(text)
        y = _rt_yaml(width, mapping, sequence, offset)
        doc = y.load(text)
    except (YAMLError, ValueError, RecursionError) as err:
        problem, mark = getattr(err, "problem", None), getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        text = problem or (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise InitError(f"the existing {MANIFEST} cannot be updated: {text}{where}") from None
    if not isinstance(doc, dict):
        raise InitError(f"the existing {MANIFEST} is not a YAML mapping")
    changes = plan(doc, d, kb)
    if not changes:
        return text, []
    return _keep_unchanged(text, noop, _dump(y, doc)), changes


@dataclass(slots=True)
class InitResult:
    """What :func:`run` did or would do: the manifest path, its text before (None: no manifest)
    and after, the changes (an update) and the derivation."""

    path: str
    before: str | None
    after: str
    changes: list[Change]
    derived: Derived

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _manifest_dir(path: str) -> str:
    return os.path.abspath(path) if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))


def read_manifest(root: str, max_bytes: int | None = None) -> tuple[str | None, dict]:
    """The text of ``root``/submission.yaml and its data (None, {} when there is none). Read
    through safeio (no link out of ``root``); raises InitError when it cannot be read or is
    not a YAML mapping."""
    from ...read.textfile import MAX_BYTES, ReadError, read_text
    from ...read.yamlsrc import YamlError, parse_yaml, to_python

    path = os.path.join(root, MANIFEST)
    if not os.path.lexists(path):
        return None, {}
    try:
        tf = read_text(path, display_path(path), max_bytes or MAX_BYTES, root, f"the directory {display_path(root)}")
    except ReadError as err:
        raise InitError(f"cannot read {display_path(path)}: {err}") from None
    try:
        node = parse_yaml(tf.text, tf.display)
    except YamlError as err:
        raise InitError(f"{display_path(path)} is not valid YAML: {err}") from None
    data = to_python(node) if node is not None else None
    if not isinstance(data, dict):
        raise InitError(f"{display_path(path)} is not a YAML mapping; fix or remove it, then run cfglint init again")
    return tf.text, data


def run(path: str, kb: Knowledge, max_bytes: int | None = None) -> InitResult:
    """Derive the manifest of the submission at ``path`` and compute the new text of its
    ``submission.yaml`` (nothing is written: see :func:`write`). Raises InitError."""
    root = _manifest_dir(path)
    if not os.path.lexists(path):
        raise InitError(f"no such file or directory: {path}")
    from ...read.safeio import git_top, inside

    top = git_top(root)
    if top is not None and not inside(os.path.realpath(root), os.path.realpath(top)):
        raise InitError(f"{display_path(root)} is reached through a symbolic link that leads outside the working "
                        "tree; cfglint does not follow links out of it")
    target = os.path.join(root, MANIFEST)
    if os.path.islink(target):
        raise InitError(f"{display_path(target)} is a symbolic link; cfglint does not write through links "
                        "(run init on the directory of the file it points to, or remove the link)")
    before, existing = read_manifest(root, max_bytes)
    d = derive(path, kb, existing, max_bytes)
    if before is None:
        return InitResult(os.path.join(root, MANIFEST), None, new_manifest(d), [], d)
    after, changes = update_text(before, d, kb)
    return InitResult(os.path.join(root, MANIFEST), before, after, changes, d)


def write(result: InitResult) -> None:
    """Write the new manifest through safeio (atomic; never through a symbolic link; never into
    a directory reached through a link out of the git working tree). Raises OSError."""
    from ...read.safeio import atomic_write

    atomic_write(result.path, result.after)


def diff(result: InitResult) -> str:
    """A unified diff of the manifest before and after (empty when nothing changes)."""
    import difflib

    shown = display_path(result.path)
    return "".join(difflib.unified_diff((result.before or "").splitlines(keepends=True),
                                        result.after.splitlines(keepends=True),
                                        fromfile=shown if result.before is not None else "/dev/null", tofile=shown))


def summary(result: InitResult) -> list[str]:
    """Lines for standard error: what changed (or what a new manifest holds), what to fill in."""
    shown = display_path(result.path)
    d = result.derived
    lines: list[str] = []
    if result.before is None:
        got = [f for f in ("model", "precision", "accelerators_used") if f in d.manifest]
        roles = ", ".join(f"{r['name']}" + (f" x{r['instances']}" if "instances" in r else "")
                          + (f" ({r['accelerators_per_instance']} accelerators)" if "accelerators_per_instance" in r else "")
                          for r in d.manifest["serving"]["roles"])
        lines.append(f"{shown}: new manifest: engine {d.manifest['engine']['name']}"
                     + (f" with {d.manifest['engine']['orchestrator']}" if "orchestrator" in d.manifest["engine"] else "")
                     + f", {d.manifest['serving']['mode']}: {roles}"
                     + (f"; derived {', '.join(got)}" if got else ""))
        fill = list(TO_FILL) + [f for f in d.missing if f in REQUIRED_WHEN_MISSING or f.endswith(
            (".instances", ".accelerators_per_instance", ".tp"))]
        lines.append(f"{shown}: fill in: {', '.join(fill)}")
    elif not result.changes:
        lines.append(f"{shown}: the derivable fields agree with the launch files; nothing to change")
    else:
        lines += [f"{shown}: {c}" for c in result.changes]
    for p in d.parsers:
        lines.append(f"{shown}: the launch sets a {p} (no manifest field; PRS001/PRS002 check it in the launch)")
    for s in d.skipped:
        lines.append(f"{shown}: not listed: {s} (a YAML file that is not an engine config)")
    for p in d.problems:
        lines.append(f"warning: {p}")
    return lines
