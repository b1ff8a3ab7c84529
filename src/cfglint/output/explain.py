"""``cfglint explain``: the deployment of one submission (or loose launch file) as cfglint
resolved it, as a JSON-ready dict (described by ``schemas/cfglint-explain.schema.json``) and as
text.

Per process: its kind, engine, release (:func:`cfglint.deploy.release.launch_release`: the
manifest's engine.version, else the image tag), launcher and wrappers, where it starts; every
flag it is given with the value as resolved and where that value came from; the engine defaults
cfglint knows for what it leaves out (``rules/engines.yaml`` ``defaults``); its parallelism
(TP, PP, DP, EP, attention DP, GPUs per instance as TOP001 counts them) and the per-GPU memory
budget MEM001 estimates (:func:`cfglint.checks.capacity.memory_budget`). Per submission: the
topology, role by role (instances, GPUs and nodes per instance, parallelism) and in total.

Where a value came from (``source``), read from the spans the shell evaluator gives each value
(a value taken from a variable is placed where its text is written) and the text before it:

- ``literal``: written on the command line (or as a Kubernetes ``args`` item), or a flag with no value;
- ``default``: the default of a parameter expansion, ``${VAR:-x}`` / ``${VAR-x}`` / ``${VAR:=x}``
  (VAR is not assigned earlier in the file);
- ``env``: an exported variable or the process environment (``export VAR=x``, ``VAR=x cmd``,
  ``docker run -e``, a Kubernetes ``env`` value); ``variable``: a shell variable assigned earlier;
- ``yaml``: a key of an engine config the launch passes (``--config``, ``--extra-engine-args``);
- ``unknown``: known only at run time (``$(...)``, a variable never assigned);
- ``engine default``: left out by the launch, the engine's default (defaults and parallelism).

Everything shown from a linted file is masked (the unit's credentials, found as RED002 finds
them, and every token format) and neutralized, as in every report.
"""

from __future__ import annotations

import math
import re
from typing import Callable

from .. import __version__
from ..checks.base import Context
from ..checks.capacity import memory_budget
from ..checks.flags import overridden
from ..checks.nodes import accelerators_per_node, instance_nodes
from ..checks.topology import gpus_per_instance, is_secondary, launched_instances
from ..deploy.defaults import Default, resolve
from ..deploy.extract import Arg, Deployment, Process
from ..deploy.release import launch_release
from ..knowledge import Knowledge
from ..load.submission import Submission
from ..model import Span, parse_int
from .neutral import neutralize

_DEFAULT_OPEN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-=])[\"']?$")
_ASSIGN = re.compile(r"(?:^|[\s;(])(?:(export|local|declare|readonly|typeset)\s+(?:-\w+\s+)*)?"
                     r"([A-Za-z_][A-Za-z0-9_]*)\+?=\(?[\"']?$")
_K8S_ENV = re.compile(r"^\s*(?:-\s+)?value:\s*[\"']?$")
_DOCKER_ENV = re.compile(r"(?:-e|--env)[\s=][\"']?([A-Za-z_][A-Za-z0-9_]*)=[\"']?$")

# engine defaults shown per process: rules/engines.yaml defaults name -> the setting that holds
# it when the launch sets it (the same name unless listed)
_DEFAULT_SETTING = {"gpu_memory_utilization": "mem_fraction", "free_gpu_memory_fraction": "mem_fraction",
                    "mem_fraction_static": "mem_fraction"}
PARALLEL = ("tp", "pp", "dp", "ep", "dcp", "cp")


class _Lines:
    """The lines of the unit's files by display path (split once each)."""

    def __init__(self, sub: Submission):
        self.texts = {tf.display: tf for tf in sub.texts}
        self.split: dict[str, list[str]] = {}

    def before(self, span: Span) -> str:
        """The text of ``span``'s line before it ("" when the file is not at hand)."""
        if span.path not in self.split:
            tf = self.texts.get(span.path)
            self.split[span.path] = tf.lines if tf is not None else []
        lines = self.split[span.path]
        return lines[span.line - 1][:span.col - 1] if 1 <= span.line <= len(lines) else ""


def value_source(arg: Arg, proc: Process, lines: _Lines) -> tuple[str, str]:
    """(source, detail) of a flag's value: see the module docstring for the sources; the detail
    names the variable or file (``${TP:-8}``, ``TP``, ``decode.yaml``)."""
    if arg.origin != "cli":
        return "yaml", arg.origin
    if arg.value is None:
        return ("unknown", "known only at run time") if arg.dynamic else ("literal", "flag without a value")
    prefix = lines.before(arg.value.span)
    m = _DEFAULT_OPEN.search(prefix)
    if m:
        return "default", f"${{{m.group(1)}{m.group(2)}{arg.value.value}}}"
    m = _ASSIGN.search(prefix)
    if m:
        name = m.group(2)
        return ("env" if m.group(1) == "export" or name in proc.env else "variable"), name
    m = _DOCKER_ENV.search(prefix)
    if m:
        return "env", m.group(1)
    if _K8S_ENV.search(prefix):
        return "env", "Kubernetes env value"
    return "literal", ""


def _at(span: Span | None) -> dict | None:
    return None if span is None else {"path": span.path, "line": span.line, "column": span.col}


def _json_value(value, hide: Callable[[str], str]):
    """A value for the JSON document: a string (masked), a finite number, a bool or None; any
    other YAML value (a date, infinity) as its text."""
    if value is None or isinstance(value, bool) or (isinstance(value, int) and abs(value) < 2 ** 63):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return hide(str(value))


def _parallelism(proc: Process) -> dict:
    """TP, PP, DP, EP, DCP, CP and attention DP of ``proc``: each value (1 when the launch leaves
    it out: the engine default) and whether the launch sets it; GPUs per instance as TOP001
    counts them."""
    s = proc.settings
    out: dict = {}
    for key in PARALLEL:
        if key in proc.unknown:
            out[key] = {"value": None, "source": "unknown"}
        elif key in s:
            n = parse_int(s[key].value)
            out[key] = {"value": n if n is not None else str(s[key].value), "source": "launch", "at": _at(s[key].span)}
        else:
            out[key] = {"value": 1, "source": "engine default"}
    if proc.engine == "vllm":   # vLLM's EP is TP x DP with --enable-expert-parallel, else none
        enabled = "expert_parallel" in s and s["expert_parallel"].value is True
        tp, dp = out["tp"]["value"], out["dp"]["value"]
        out["ep"] = {"value": tp * dp if enabled and isinstance(tp, int) and isinstance(dp, int) else 1,
                     "source": "launch" if enabled else "engine default",
                     **({"at": _at(s["expert_parallel"].span)} if enabled else {})}
    out["attention_dp"] = bool(s["attention_dp"].value) if "attention_dp" in s else False
    got = gpus_per_instance(proc)
    out["gpus_per_instance"] = got[0] if got else None
    out["gpus_how"] = got[2] if got else "not known statically"
    return out


def _memory(ctx: Context, proc: Process) -> dict:
    """The per-GPU memory budget of ``proc`` (GiB, MEM001's estimate), or why it is unknown."""
    got = memory_budget(ctx, proc)
    if isinstance(got, str):
        return {"known": False, "why": got}
    fit, parts, upcast = got
    kv = max(fit.headroom_gib, 0.0)
    return {"known": True, "device_gib": round(fit.device_gib, 2), "weights_gib": round(fit.weights_gib, 2),
            "kv_pool_gib": round(kv, 2), "headroom_gib": round(max(fit.device_gib - fit.weights_gib - kv, 0.0), 2),
            "precision": parts.experts if parts.experts == parts.rest else f"{parts.experts} experts, {parts.rest} rest",
            "upcast_to": upcast, "layout": fit.layout, "budget": fit.budget_how, "kv_pool": fit.kv_how,
            "checkpoint": parts.how}


def _defaults(ctx: Context, proc: Process, version, read_from: str) -> list[dict]:
    """The engine defaults rules/engines.yaml holds for settings ``proc`` leaves out."""
    table = (ctx.kb.engines.get("defaults") or {}).get(proc.engine or "") or {}
    name, acc, _ = ctx.accelerator()
    out = []
    for key, entry in table.items():
        if not isinstance(entry, dict) or not ("value" in entry or "by_device" in entry):
            continue
        setting = _DEFAULT_SETTING.get(key, key)
        if setting in proc.settings or setting in proc.unknown or "--" + key.replace("_", "-") in proc.flag_names:
            continue
        got = resolve(ctx.kb, proc.engine or "", key, (name, acc), version, read_from)
        if isinstance(got, Default):
            out.append({"setting": key, "value": got.value, "source": "engine default", "from": got.source})
        else:
            out.append({"setting": key, "value": None, "source": "engine default", "from": got.why})
    return out


def _process(ctx: Context, proc: Process, lines: _Lines, hide: Callable[[str], str]) -> dict:
    declared = ctx.declared("engine", "version") if ctx.sub.has_manifest else None
    # a router's or frontend's image is tagged with its own release, not the engine's
    release = launch_release(ctx.manifest, proc, declared.span if declared is not None else None) \
        if proc.kind == "engine" else None
    version, read_from = (release.version, f"{release.source} {release.text}") if release else \
        (None, "no engine version declared (engine.version) or in the image tag")
    flags = []
    beaten = overridden(ctx, proc)
    for arg in proc.args:
        source, detail = value_source(arg, proc, lines)
        value = arg.value.value if arg.value is not None else (None if arg.dynamic or arg.origin != "cli" else True)
        winner = beaten.get(id(arg))
        flags.append({"flag": arg.name, "value": _json_value(value, hide), "source": source, "detail": hide(detail),
                      "at": _at(arg.value.span if arg.value else arg.span),
                      "overridden_by": None if winner is None else {"flag": winner.written,
                                                                     "at": _at(winner.value.span if winner.value else winner.span)}})
    entry = {
        "kind": proc.kind, "engine": proc.engine, "orchestrator": proc.orchestrator,
        "role": proc.role.value if proc.role is not None else None,
        "release": None if release is None else {"version": release.text, "source": release.source,
                                                 "at": _at(release.span)},
        "launcher": proc.launcher, "wrappers": list(proc.wrappers),
        "image": hide(str(proc.image.value)) if proc.image is not None and proc.image.value is not None else None,
        "at": _at(proc.span), "started": proc.repeat.value if proc.repeat is not None else 1,
        "flags": flags,
    }
    if proc.kind == "engine":
        entry["defaults"] = _defaults(ctx, proc, version, read_from)
        entry["parallelism"] = _parallelism(proc)
        entry["memory"] = _memory(ctx, proc)
    return entry


def _topology(ctx: Context) -> dict:
    """Roles with their instances, GPUs and nodes per instance; the totals where every role is known."""
    per_node, _ = accelerators_per_node(ctx) if ctx.sub.has_manifest else (None, "")
    roles: dict[str, list[Process]] = {}
    for p in ctx.deployment.engine_processes():
        roles.setdefault(p.role.value if p.role is not None else "unassigned", []).append(p)
    out = []
    for name, procs in roles.items():
        primary = next((p for p in procs if not is_secondary(p)), procs[0])
        got = gpus_per_instance(primary)
        gpus = got[0] if got else None
        launched = launched_instances(ctx, name) if name != "unassigned" else None
        instances = launched[0] if launched else None
        nodes, nodes_how = (instance_nodes(primary)[:2] if primary.engine in ("sglang", "vllm") else (None, ""))
        if nodes == 1 and primary.launch_nodes is not None and parse_int(primary.launch_nodes.value):
            nodes, nodes_how = parse_int(primary.launch_nodes.value), "srun -N / torchrun --nnodes"
        if gpus and per_node and (nodes is None or (nodes == 1 and gpus > per_node)):
            need = -(-gpus // per_node)
            # one node as launched (no --nnodes) is TOP003's error, said here as well
            set_ = "nnodes" in primary.settings
            short = (f", but the launch runs on one node ({nodes_how if set_ else 'no --nnodes'}): TOP003"
                     if nodes == 1 else "")
            nodes, nodes_how = need, f"{gpus} GPUs need {need} node(s) of {per_node}{short}"
        elif nodes == 1 and nodes_how == "--nnodes 1":
            nodes_how = ""
        par = _parallelism(primary)
        out.append({"role": name, "instances": instances, "declared_instances": _declared_instances(ctx, name),
                    "gpus_per_instance": gpus, "nodes_per_instance": nodes, "nodes_how": nodes_how or None,
                    "shape": " x ".join(f"{k.upper()} {par[k]['value']}" for k in ("tp", "pp", "dp", "ep")),
                    "attention_dp": par["attention_dp"]})

    def total(key: str) -> int | None:
        counts = [(r["instances"], r[key]) for r in out]
        return sum(i * n for i, n in counts) if out and all(i and n for i, n in counts) else None

    return {"roles": out, "gpus": total("gpus_per_instance"), "nodes": total("nodes_per_instance"),
            "accelerators_per_node": per_node, "device": _device(ctx)}


def _device(ctx: Context) -> str:
    """What one device the counts count is: the unit of the accelerator resource the engines'
    pods ask for (rules/accelerators.yaml resources: "TPU chip" for google.com/tpu), else GPU."""
    units = set()
    for p in ctx.deployment.engine_processes():
        count = p.pod.gpu_count() if p.pod is not None else None
        units.add((ctx.kb.device_resources.get(count[0]) or {}).get("unit") or "GPU" if count else "GPU")
    return units.pop() if len(units) == 1 else "GPU"


def _declared_instances(ctx: Context, role: str) -> int | None:
    """The instances the manifest declares for ``role``, or None."""
    for _, r in ctx.roles():
        if r.get("name") == role:
            n = parse_int(r.get("instances"))
            return n if n and n > 0 else None
    return None


def explain(sub: Submission, deployment: Deployment, kb: Knowledge, hide: Callable[[str], str]) -> dict:
    """The explanation of one linted unit (see the module docstring); ``hide`` masks the unit's
    credentials in every value shown."""
    ctx = Context(sub, deployment, kb)
    lines = _Lines(sub)
    m = sub.manifest if sub.has_manifest else {}
    system = m.get("system") if isinstance(m.get("system"), dict) else {}
    name, acc, _ = ctx.accelerator()

    def text(v):
        return hide(str(v)) if v is not None and not isinstance(v, (int, float, bool)) else v

    return {
        "path": sub.display, "manifest": sub.has_manifest,
        "model": text(m.get("model")), "precision": text(m.get("precision")),
        "accelerator": {"name": text(name), "known": acc is not None,
                        "memory_gib": (acc or {}).get("memory_usable_gib", (acc or {}).get("memory_gib")),
                        "total": system.get("accelerators_total") if isinstance(system.get("accelerators_total"), int) else None},
        "processes": [_process(ctx, p, lines, hide) for p in deployment.processes],
        "topology": _topology(ctx),
    }


def report(units: list[dict]) -> dict:
    """The JSON document of ``cfglint explain`` (schemas/cfglint-explain.schema.json)."""
    return {"version": __version__, "submissions": units}


def as_text(doc: dict) -> str:
    """``doc`` (:func:`report`) as text: one block per submission (places relative to its
    directory), every string neutralized."""
    out: list[str] = []
    for unit in doc["submissions"]:
        base = unit["path"] if unit["manifest"] else unit["path"].rpartition("/")[0]

        def _where(at: dict | None, base=base) -> str:
            if not at:
                return ""
            path = at["path"][len(base) + 1:] if base and at["path"].startswith(base + "/") else at["path"]
            return f"{path}:{at['line']}:{at['column']}"

        acc = unit["accelerator"]
        device = unit["topology"].get("device") or "GPU"
        head = unit["path"]
        facts = [x for x in (unit["model"], unit["precision"], acc["name"] and
                             f"{acc['name']}" + (f" ({acc['memory_gib']} GiB)" if acc["memory_gib"] else "")) if x]
        out.append(head + (f": {', '.join(map(str, facts))}" if facts else ("" if unit["manifest"] else " (no manifest)")))
        for i, p in enumerate(unit["processes"], 1):
            what = " ".join(str(x) for x in (p["engine"], p["release"] and p["release"]["version"]) if x)
            rel = p["release"]
            out.append(f"  process {i}: {p['kind']}{' ' + what if what else ''}" + (f" (release from {rel['source']}"
                       + (f", {_where(rel['at'])}" if rel["at"] else "") + ")" if rel else "")
                       + (f", role {p['role']}" if p["role"] else "") + (f", started {p['started']} times" if p["started"] != 1 else ""))
            out.append(f"    launcher: {p['launcher']} ({_where(p['at'])})"
                       + (f"; wrappers: {', '.join(p['wrappers'])}" if p["wrappers"] else "")
                       + (f"; image {p['image']}" if p["image"] else ""))
            if p["flags"]:
                out.append("    flags:")
                width = max(len(f["flag"]) for f in p["flags"])
                for f in p["flags"]:
                    yaml_bool = f["source"] == "yaml" and isinstance(f["value"], bool)
                    value = str(f["value"]).lower() if yaml_bool else "" if f["value"] is True else \
                        "(run time)" if f["source"] == "unknown" else "null" if f["value"] is None else str(f["value"])
                    source = f["source"] + (f" {f['detail']}" if f["detail"] and f["source"] != "literal" else "")
                    over = f.get("overridden_by")
                    beaten = f"  overridden by {over['flag']} ({_where(over['at'])})" if over else ""
                    out.append(f"      {f['flag']:<{width}}  {value}  [{source}, {_where(f['at'])}]{beaten}")
            for d in p.get("defaults", []):
                shown = d["value"] if d["value"] is not None else f"not known ({d['from']})"
                out.append(f"    engine default {d['setting']}: {shown}")
            par = p.get("parallelism")
            if par:
                shape = " x ".join(f"{k.upper()} {par[k]['value']}" for k in ("tp", "pp", "dp", "ep"))
                out.append(f"    parallelism: {shape}" + (", attention DP" if par["attention_dp"] else "")
                           + f"; {par['gpus_per_instance'] or '?'} {device}(s) per instance ({par['gpus_how']})")
            mem = p.get("memory")
            if mem and mem["known"]:
                out.append(f"    memory per {device}: {mem['device_gib']} GiB = weights ~{mem['weights_gib']} GiB "
                           f"+ KV pool ~{mem['kv_pool_gib']} GiB + headroom ~{mem['headroom_gib']} GiB "
                           f"({mem['precision']} at {mem['layout']}; budget: {mem['budget']})")
            elif mem:
                out.append(f"    memory per {device}: not estimated: {mem['why']}")
        topo = unit["topology"]
        if topo["roles"]:
            out.append("  topology:")
            for r in topo["roles"]:
                count = r["instances"] if r["instances"] is not None else \
                    f"? (the manifest declares {r['declared_instances']})" if r["declared_instances"] else "?"
                out.append(f"    {r['role']}: {count} instance(s) x "
                           f"{r['gpus_per_instance'] if r['gpus_per_instance'] is not None else '?'} {device}(s) ({r['shape']}"
                           + (", attention DP" if r["attention_dp"] else "") + ")"
                           + (f", {r['nodes_per_instance']} node(s) per instance" if r["nodes_per_instance"] else "")
                           + (f" ({r['nodes_how']})" if r["nodes_how"] else ""))
            total = f"{topo['gpus']} {device}(s)" if topo["gpus"] is not None else f"{device}s not known statically"
            out.append(f"    total: {total}" + (f" on {topo['nodes']} node(s)" if topo["nodes"] is not None else "")
                       + (f" ({topo['accelerators_per_node']} per node)" if topo["accelerators_per_node"] else ""))
        out.append("")
    return "".join(neutralize(line) + "\n" for line in out)


__all__ = ["as_text", "explain", "report", "value_source"]
