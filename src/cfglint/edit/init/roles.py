"""``serving.roles`` and ``accelerators_used``: the roles, instance counts and parallelism
exactly as TOP001 / TOP002 compute them."""

from __future__ import annotations

from typing import Any

from ...deploy.extract import Deployment
from ...knowledge import Knowledge
from ...load.submission import Submission
from ...model import parse_int
from .fields import ROLE_KEYS, ROLE_ORDER, Derived, common


def derive_roles(dep: Deployment, sub: Submission, kb: Knowledge, out: Derived) -> None:
    """Append each role (name, instances, accelerators per instance, parallelism) to
    ``out.manifest["serving"]["roles"]`` and set ``accelerators_used``; what is not known goes to
    ``out.missing``, EP / DCP the launch does not state to ``out.unstated``."""
    from ...checks import Context
    from ...checks.declared import launched
    from ...checks.topology import gpus_per_instance, launched_instances

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
        got = launched_instances(ctx, name)
        if got is not None:
            role["instances"] = got[0]
        else:
            out.missing[f"{where}.instances"] = ("the launch gives the worker's flags (worker argument files or an "
                                                 "engine config no command names), not how many workers run")
        ok, api = common([g[0] if (g := gpus_per_instance(p)) else None for p in mine])
        if ok and api is not None:
            role["accelerators_per_instance"] = api
        else:
            out.missing[f"{where}.accelerators_per_instance"] = "the workers' parallelism is not known statically" \
                if ok else "the workers of this role run with different parallelism"
        for key in ROLE_KEYS:
            values = [launched(p, key) for p in mine]
            ok, v = common([None if x is None else (bool(x.value) if key == "attention_dp" else parse_int(x.value))
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
    if any(p.role is None for p in procs):   # a worker of no role is in no role's sum
        out.missing["accelerators_used"] = "a worker's role is not known, so its accelerators are in no role's sum"
    elif names and total_known:
        out.manifest["accelerators_used"] = total
    else:
        out.missing["accelerators_used"] = "the instances or accelerators per instance of a role are not known"
