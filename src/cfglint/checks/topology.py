"""TOP001: the accelerators a launch uses must add up to what the submission declares."""

from __future__ import annotations

import re

from ..deploy.extract import Process
from ..model import Finding, Located, Span, parse_int, record
from .base import Context, as_int, here, rule

# the role names a manifest may use (schemas/submission.schema.json, $defs.role.name)
ROLE_NAMES = ("server", "prefill", "decode")
# the range of a manifest count (schemas/submission.schema.json: minimum 1, maximum 1048576)
COUNT_RANGE = (1, 1 << 20)


def _count(value: Located | None) -> int | None:
    """A manifest count (accelerators, instances) as an int, or None when it is absent, not a
    number, or outside :data:`COUNT_RANGE`: SUB001 reports such a value at its place, once; the
    sums and comparisons here would only repeat it."""
    n = as_int(value.value) if value is not None else None
    return n if n is not None and COUNT_RANGE[0] <= n <= COUNT_RANGE[1] else None
# the places a TOP001 instance-count message spells out (every one stays a related location)
MAX_SOURCES = 4
RANGE = re.compile(r"^<(\d+)\.\.(\d+)>$")  # a published placeholder standing for every rank: <0..1>


@record
class NodeMember:
    """One launch of a multi-node instance: the ranks it runs (None: not known statically)."""

    proc: Process
    ranks: list[int] | None
    span: Span                      # where its rank is written (or where the process starts)
    stated_range: bool = False      # the rank is a published range placeholder such as <0..1>


@record
class NodeGroup:
    """The launches that form one multi-node instance: SGLang / vLLM ``--nnodes N`` with the
    same rendezvous address (``--dist-init-addr`` / ``--master-addr``), or vLLM data parallel
    over nodes (``--data-parallel-size`` > ``--data-parallel-size-local``, same
    ``--data-parallel-address``). ``unit`` names the ranks (node rank / data-parallel rank),
    ``size`` how many there must be (0..size-1), ``size_at`` where that count is written."""

    key: tuple
    unit: str
    flag: str
    size: int
    size_at: Located
    members: list[NodeMember]


def _ranks(loc: Located | None, width: int = 1) -> list[int] | None:
    if loc is None:
        return None
    n = as_int(loc.value)
    if n is not None:
        return list(range(n, n + width))
    m = RANGE.match(str(loc.value)) if width == 1 else None
    lo, hi = (parse_int(m.group(1)), parse_int(m.group(2))) if m else (None, None)
    if lo is not None and hi is not None and lo <= hi <= lo + 4096:
        return list(range(lo, hi + 1))
    return None


# More ranks than any deployment has: such an instance is not counted rank by rank (TOP003 would
# list every missing rank of --nnodes 1000000000), so no group is formed for it.
MAX_RANKS = 4096


def node_group(p: Process) -> tuple[tuple, str, str, int, Located, NodeMember] | None:
    """(group key, unit, rank flag, size, size location, member) when ``p`` is one node of a
    multi-node instance, else None. Sources: rules/engines.yaml (sglang nnodes / node_rank /
    dist_init_addr; vllm multi_node_source). None for a size above MAX_RANKS."""
    if p.kind != "engine" or p.synthetic or p.engine not in ("sglang", "vllm") \
            or p.launcher.endswith("worker arguments"):
        return None
    s = p.settings
    role = p.role.value if p.role is not None else None
    nn = as_int(s["nnodes"].value) if "nnodes" in s else None
    if nn is not None and 1 < nn <= MAX_RANKS:
        addr = s.get("dist_init_addr" if p.engine == "sglang" else "master_addr")
        rank = s.get("node_rank")
        member = NodeMember(p, _ranks(rank) if "node_rank" not in p.unknown else None,
                            rank.span if rank is not None else p.span,
                            rank is not None and RANGE.match(str(rank.value)) is not None)
        key = (p.engine, role, "node", nn, addr.value if addr is not None else None)
        return key, "node rank", "--node-rank", nn, s["nnodes"], member
    if p.engine == "vllm" and "dp" in s and "dp_rank" in s:  # external load balancing: one DP rank per launch
        dp = as_int(s["dp"].value)
        if dp and 1 < dp <= MAX_RANKS:
            rank = s["dp_rank"]
            addr = s.get("dp_address")
            key = (p.engine, role, "dp", dp, addr.value if addr is not None else None)
            return key, "data-parallel rank", "--data-parallel-rank", dp, s["dp"], NodeMember(p, _ranks(rank), rank.span)
    if p.engine == "vllm" and "dp" in s and "dp_local" in s:
        dp, local = as_int(s["dp"].value), as_int(s["dp_local"].value)
        if dp and local and 0 < local < dp <= MAX_RANKS:
            start = s.get("dp_start_rank")
            ranks = _ranks(start, local) if start is not None else list(range(local))
            if "dp_start_rank" in p.unknown:
                ranks = None
            addr = s.get("dp_address")
            key = (p.engine, role, "dp", dp, addr.value if addr is not None else None)
            member = NodeMember(p, ranks, start.span if start is not None else s["dp_local"].span)
            return key, "data-parallel rank", "--data-parallel-start-rank", dp, s["dp"], member
    return None


def node_groups(procs: list[Process]) -> list[NodeGroup]:
    """The multi-node instances among ``procs``, in launch order. Launches with the same engine,
    role and size form one instance per rendezvous address; a launch that names no address
    joins the first instance of its kind (TOP003 reports the missing address itself)."""
    groups: list[NodeGroup] = []
    for p in procs:
        found = node_group(p)
        if found is None:
            continue
        key, unit, flag, size, size_at, member = found
        base, addr = key[:-1], key[-1]
        same = [g for g in groups if g.key[:-1] == base]
        g = next((g for g in same if addr is not None and g.key[-1] == addr), None) or \
            next((g for g in same if addr is None or g.key[-1] is None), None)
        if g is None:
            g = NodeGroup(key, unit, flag, size, size_at, [])
            groups.append(g)
        elif g.key[-1] is None and addr is not None:
            g.key = key
        g.members.append(member)
    return groups


def is_secondary(p: Process) -> bool:
    """A launch that joins an instance started elsewhere: a node rank above 0, vLLM
    ``--headless`` or a ``--data-parallel-start-rank`` above 0."""
    s = p.settings
    for key in ("node_rank", "dp_start_rank"):
        n = as_int(s[key].value) if key in s else None
        if n is not None and n > 0:
            return True
    return "headless" in s and s["headless"].value is True


def gpus_per_instance(p: Process) -> tuple[int, Located | None, str] | None:
    """(accelerators one instance of ``p`` uses, the value to point at, how it was computed),
    or None when the launch does not say.

    Engine semantics: SGLang TP x PP, times DP only without --enable-dp-attention (DP
    attention lives inside TP); vLLM TP x PP x DP (DP ranks are replicas, EP spans them);
    TensorRT-LLM TP x PP x CP (attention DP and MoE EP live inside TP). DCP always lives
    inside TP. Sources: rules/engines.yaml.
    """
    s = p.settings
    if p.unknown & {"tp", "pp", "dp", "cp"}:
        return None  # e.g. --tp-size "$TP": not known before launch
    values = {k: as_int(s[k].value) if k in s else None for k in ("tp", "pp", "dp", "cp")}
    if any(k in s and values[k] is None for k in values):
        return None  # a placeholder such as <tp>
    if all(v is None for v in values.values()):
        if p.missing_configs:  # parallelism is in an engine YAML that is not published
            if p.mpi_ranks is not None:
                return p.mpi_ranks.value, p.mpi_ranks, f"mpirun -n {p.mpi_ranks.value}"
            if p.visible_devices is not None:
                return p.visible_devices.value, p.visible_devices, f"CUDA_VISIBLE_DEVICES lists {p.visible_devices.value}"
            return None
    tp, pp, dp, cp = (values[k] or 1 for k in ("tp", "pp", "dp", "cp"))
    attention_dp = bool(s["attention_dp"].value) if "attention_dp" in s else False
    parts = [f"TP {tp}"] + ([f"PP {pp}"] if pp > 1 else [])
    total = tp * pp
    if p.engine == "sglang" and dp > 1 and p.dp_workers_on_one_node:
        total *= dp  # each router worker is a server of its own with dp_size 1: attention DP cannot hold DP
        parts.append(f"DP {dp} router workers")
    elif p.engine == "sglang" and dp > 1 and not attention_dp:
        total *= dp
        parts.append(f"DP {dp} replicas")
    elif p.engine == "vllm" and dp > 1:
        total *= dp
        parts.append(f"DP {dp}")
    elif p.engine == "trtllm" and cp > 1:
        total *= cp
        parts.append(f"CP {cp}")
    anchor = next((s[k] for k in ("tp", "pp", "dp", "cp") if k in s), None)
    return total, anchor, " x ".join(parts)


def launched_instances(ctx: Context, role: str) -> tuple[int, Located | None] | None:
    got = instance_sources(ctx, role)
    return None if got is None else got[:2]


def _source(p: Process) -> tuple[Span, str]:
    """Where one counted launch's instances come from, and what says so there."""
    if p.repeat is None:
        return p.span, f"{p.launcher} started once"
    if p.pod is not None:
        return p.repeat.span, f"replicas: {p.repeat.value}"
    return p.repeat.span, f"a loop starts {p.launcher} {p.repeat.value} times"


def instance_sources(ctx: Context, role: str) -> tuple[int, Located | None, list[tuple[Span, str]]] | None:
    """(instances of ``role`` the launch starts, the server config value that says so or None,
    where each counted launch is started or repeated); None when the launch does not say."""
    dep = ctx.deployment
    if role in dep.instances:
        loc = dep.instances[role]
        return loc.value, loc, [(loc.span, f"num_instances: {loc.value}")]
    procs = [p for p in dep.engine_processes() if p.role is not None and p.role.value == role]
    if not procs or any(p.synthetic or not p.certain or p.launcher.endswith("worker arguments") for p in procs):
        return None
    groups = node_groups(procs)
    grouped = {id(m.proc) for g in groups for m in g.members}
    # each multi-node instance once, however many nodes (TOP003 checks their ranks); a Kubernetes
    # group (LeaderWorkerSet) runs as many instances as its replicas
    count, sources = 0, []
    for g in groups:
        pods = [m.proc for m in g.members if m.proc.pod is not None and m.proc.repeat is not None]
        lead = max(pods, key=lambda q: q.repeat.value) if pods else g.members[0].proc
        count += lead.repeat.value if pods else 1
        sources.append(_source(lead) if pods else (g.size_at.span, f"one instance over {g.size} nodes"))
    for p in procs:
        if id(p) in grouped or is_secondary(p):
            continue
        count += p.repeat.value if p.repeat is not None else 1
        sources.append(_source(p))
    return count, None, sources


@rule("TOP001", "accelerator-count-mismatch", "error",
      "TP x PP (x replica DP) x instances does not add up to the accelerators used.",
      "Each role's launched parallelism (TP x PP, times DP only where DP means replicas: "
      "SGLang without DP attention, vLLM; never attention DP, EP or DCP, which live inside TP) "
      "must equal the manifest's accelerators_per_instance; the number of instances launched "
      "(literal for loops, TensorRT-LLM server_config num_instances) must equal the declared "
      "instances; instances x accelerators per instance summed over roles must equal "
      "accelerators_used, which cannot exceed accelerators_total. A mismatch means the "
      "benchmark ran on a different system than the one it is published for.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (tp_size, pp_size, dp_size, enable_dp_attention)",
       "vllm-project/vllm vllm/config/parallel.py (world_size = tp x pp; DP ranks are separate engines)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (world size = tp x pp x cp; attention DP and MoE EP within TP)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/disagg_utils.py (context_servers / generation_servers num_instances)"))
def check_accelerators(ctx: Context):
    if not ctx.sub.has_manifest:
        return
    roles = ctx.roles()
    declared_names = {r.get("name") for _, r in roles}
    # a role name the manifest schema refuses (a misspelling: 'prefil') is SUB001's, at the name
    # with the right one; a second finding (no launched role matches it) would say the same twice
    misspelled = any(n not in ROLE_NAMES for n in declared_names)
    total_declared = 0
    sums_known = True
    for i, r in roles:
        name = r.get("name")
        api = ctx.declared("serving", "roles", i, "accelerators_per_instance")
        inst = ctx.declared("serving", "roles", i, "instances")
        api_v = _count(api)
        inst_v = _count(inst)
        if api_v is None or inst_v is None:
            sums_known = False
        else:
            total_declared += api_v * inst_v
        for p in ctx.deployment.engine_processes():
            if p.role is None or p.role.value != name or api_v is None:
                continue
            got = gpus_per_instance(p)
            if got is None or got[0] == api_v:
                continue
            n, anchor, how = got
            span = anchor.span if anchor else p.span
            hint = ""
            if p.engine == "sglang" and "DP" in how and r.get("attention_dp") is True:
                hint = "; the manifest declares attention_dp: true: add --enable-dp-attention so DP runs inside TP"
            yield Finding("TOP001",
                          f"{name} instance uses {n} accelerator{'s' if n != 1 else ''} ({how}) but the manifest declares "
                          f"accelerators_per_instance: {api_v} for role {name} ({here(api.span)}){hint}",
                          span, related=[(api.span, f"declared accelerators_per_instance: {api_v}")])
        launched = instance_sources(ctx, name) if isinstance(name, str) else None
        if launched is not None and inst_v is not None and launched[0] != inst_v:
            n, loc, sources = launched
            if loc is not None:   # a server config's num_instances: reported there, naming the manifest
                yield Finding("TOP001",
                              f"num_instances: {n} {name} instance(s) but the manifest declares instances: {inst_v} "
                              f"({here(inst.span)})",
                              loc.span, related=[(inst.span, f"declared instances: {inst_v}")])
                continue
            # reported at the manifest's count, naming where the launch's count comes from (a
            # Kubernetes workload's replicas, a loop, each launch started once)
            shown = [f"{text} at {here(span)}" for span, text in sources[:MAX_SOURCES]]
            if len(sources) > MAX_SOURCES:
                shown.append(f"and {len(sources) - MAX_SOURCES} more")
            yield Finding("TOP001",
                          f"the launch starts {n} {name} instance(s) ({'; '.join(shown)}) but the manifest declares "
                          f"instances: {inst_v}; declare instances: {n}, or change the launch",
                          inst.span, related=sources)
    for p in ctx.deployment.engine_processes():
        if p.role is not None and declared_names and p.role.value not in declared_names and not misspelled \
                and p.role.value in ROLE_NAMES:
            yield Finding("TOP001",
                          f"the launch starts a {p.role.value} worker ({p.launcher}) but the manifest declares "
                          f"no role named {p.role.value} (roles: {', '.join(sorted(map(str, declared_names)))})",
                          p.role.span)
    used = ctx.declared("accelerators_used")
    used_v = _count(used)
    if used_v is not None and roles and sums_known and total_declared != used_v:
        parts = " + ".join(f"{r.get('instances')} x {r.get('accelerators_per_instance')} ({r.get('name')})" for _, r in roles)
        yield Finding("TOP001",
                      f"accelerators_used: {used_v} but the roles add up to {parts} = {total_declared}",
                      used.span)
    total = ctx.declared("system", "accelerators_total")
    total_v = _count(total)
    if used_v is not None and total_v is not None and used_v > total_v:
        yield Finding("TOP001",
                      f"accelerators_used: {used_v} exceeds the system's accelerators_total: {total_v} "
                      f"({here(total.span)})",
                      used.span, related=[(total.span, f"accelerators_total: {total_v}")])


def equals(how: str, n) -> str:
    """``how`` with its total, ``TP 8 x PP 2 = 16``; a single factor is its own total (``TP 8``,
    not ``TP 8 = 8``)."""
    return how if re.fullmatch(rf"[A-Za-z][A-Za-z-]* {n}", how) else f"{how} = {n}"
