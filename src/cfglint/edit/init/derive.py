"""Deriving the manifest fields of a submission from its launch files.

Derivation is the reverse of the checks that compare a manifest with its launch (TOP001,
TOP002, SPEC001): it uses the same functions (``gpus_per_instance``, ``launched``,
``draft_length``), so a manifest whose derivable fields init wrote agrees with its launch by
construction. A field whose value the launch does not state, or states in disagreeing ways
(two workers of one role with different TP), is not derived: :attr:`Derived.missing` says why.
"""

from __future__ import annotations

import os

from ...deploy.extract import Deployment, extract
from ...knowledge import Knowledge
from ...load.discover import serving_candidates
from ...load.submission import Submission
from ...read.paths import display_path
from .checkpoint import derive_model
from .errors import InitError
from .fields import Derived, common
from .filelists import derive_files
from .launchfiles import config_flags, first_error, load_files, named_configs, trtllm_keys
from .roles import derive_roles
from .speculative import derive_speculative
from .version import derive_version


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


def _engine_of(dep: Deployment, sub: Submission, kb: Knowledge) -> str | None:
    """The engine of the submission as the launch files say it: the engine its launched workers
    run; else the one whose flag registry knows every flag of its worker argument files; else
    TensorRT-LLM for a YAML with LLM API keys. None when they do not say."""
    engines = dep.engine_processes()
    if engines:
        ok, name = common([p.engine for p in engines])
        if not ok:
            raise InitError(f"{sub.display}: the launch starts workers of several engines "
                            f"({', '.join(sorted({str(p.engine) for p in engines}))}); a submission serves with one")
        return name
    name = _engine_from_flags(sub, kb)
    if name is None and any(trtllm_keys(c.root, kb) for c in sub.configs):
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
    sub, rels = load_files(root, names, existing, max_bytes)
    if not os.path.isdir(path):
        if not sub.launches and not sub.configs:
            raise InitError(first_error(sub) or f"{display_path(path)}: not a launch script or engine config")
        # a single script: the engine configs it names, when they are published next to it
        more = named_configs(sub, root, config_flags(kb))
        if more:
            sub, rels = load_files(root, names + more, existing, max_bytes)
    if not sub.launches and not sub.configs:
        raise InitError(first_error(sub) or f"{display_path(path)}: no launch script, worker argument file "
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
        why = first_error(sub)
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
    derive_version(dep, out)
    if orchestrated:
        m["engine"]["orchestrator"] = orchestrator
    elif any(p.launcher.endswith("worker arguments") for p in dep.processes):
        out.missing["engine.orchestrator"] = "worker argument files do not say which program reads them"
    elif all(p.synthetic for p in dep.engine_processes()):
        out.missing["engine.orchestrator"] = ("no command starts a worker (engine configs stand for them), "
                                              "so which program runs them is not stated")
    derive_model(dep, kb, sub, out)
    m["serving"] = {"mode": mode, "roles": []}
    derive_roles(dep, sub, kb, out)
    derive_speculative(dep, out)
    derive_files(sub, dep, rels, out)
    out.parsers = sorted({f"{ref.kind.replace('_', '-')} parser {ref.name.value} ({ref.via})"
                          for p in dep.processes for ref in p.parsers})
    return out
