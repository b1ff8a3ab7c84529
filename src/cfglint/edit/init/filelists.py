"""``files.launch``, ``files.configs``, ``files.deploy``: the files a deployment was read from,
with their role in a disaggregated one."""

from __future__ import annotations

import os
from typing import Any

from ...deploy.extract import Deployment
from ...load.submission import Submission
from .fields import ROLE_ORDER, Derived
from .launchfiles import classify


def derive_files(sub: Submission, dep: Deployment, rels: dict[str, str], out: Derived) -> None:
    """Set ``files`` in ``out.manifest`` (paths relative to the submission directory, by ``rels``:
    display path -> relative path); YAML files that are no engine config go to ``out.skipped``."""
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
