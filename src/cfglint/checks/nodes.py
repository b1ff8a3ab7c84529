"""TOP003 (multi-node and device placement) and TOP004 (engine divisibility rules)."""

from __future__ import annotations

import re

from ..model import Finding, parse_int
from ..read.quantity import device_count
from .base import Context, as_int, here, rule
from .modelfacts import block_size, fact_int, fact_origin, fp8_block_unknown, fp8_why, served_model
from .topology import equals, gpus_per_instance, node_groups

# flags a node of a multi-node instance needs, per engine (rules/engines.yaml)
NODE_FLAGS = {
    "sglang": (("--node-rank", "node_rank"), ("--dist-init-addr", "dist_init_addr")),
    "vllm": (("--node-rank", "node_rank"), ("--master-addr", "master_addr")),
}


def instance_nodes(p) -> tuple[int | None, str, object]:
    """(nodes one instance of ``p`` spans, how that is written, the value to point at)."""
    s = p.settings
    nn = s.get("nnodes")
    if nn is not None:
        return as_int(nn.value), f"--nnodes {nn.value}", nn
    if p.engine == "vllm" and "dp_rank" in s:
        return None, "--data-parallel-rank", s["dp_rank"]  # one DP rank per launch: the node count is not said
    if p.engine == "vllm" and "dp_local" in s and "dp" in s:
        dp, local = as_int(s["dp"].value), as_int(s["dp_local"].value)
        if dp and local and local < dp:
            return (dp // local if dp % local == 0 else None), \
                f"--data-parallel-size {dp} / --data-parallel-size-local {local}", s["dp_local"]
    group = p.pod.group if p.pod is not None else None
    if group is not None and group.pods_per_instance() > 1 and group.size is not None:
        # a Kubernetes group of pods (LeaderWorkerSet size, Dynamo nodeCount, kthena workers):
        # the engine spans them without --nnodes (Ray: the other pods join the leader's cluster)
        n = group.pods_per_instance()
        return n, f"{n} pods per group ({here(group.size.span)})", group.size
    return 1, "--nnodes 1", None


def _meeting(p, nnodes: int, missing: list[str]) -> str:
    """What each node of a ``nnodes``-node instance needs of the ``missing`` node flags (SGLang's
    server_args, vLLM's multi-node launch: rank 0 on the head node, the others headless)."""
    unit = "pod" if p.pod is not None else "node"
    head = "the leader pod" if p.pod is not None else "the head node"
    others = f"the other {unit}s (one rank each)" if nnodes > 2 else f"the other {unit}"
    ranks = {2: "1", 3: "1 and 2"}.get(nnodes, f"1 ... {nnodes - 1}")
    advice = []
    if "--node-rank" in missing:
        headless = " --headless" if p.engine == "vllm" else ""
        advice.append(f"--node-rank 0 on {head} and --node-rank {ranks}{headless} on {others}")
    for flag in missing:
        if flag != "--node-rank":
            value = "<head-ip>" if p.pod is None else "<leader-address>"
            value += ":<port>" if flag == "--dist-init-addr" else ""
            advice.append(f"{flag} {value} on every {unit} ({head}'s address)")
    return ", and ".join(advice)


def _local(p, got) -> tuple[int, str] | None:
    """(GPUs this one launch runs on its node, how that is computed) or None when not known:
    the instance's GPUs over its nodes (--nnodes, vLLM DP over nodes), one DP rank's for a vLLM
    --data-parallel-rank launch."""
    if got is None:
        return None
    n, _anchor, how = got
    s = p.settings
    if p.engine == "vllm" and "dp_rank" in s:
        dp = as_int(s["dp"].value) if "dp" in s else 1
        return (n // dp, f"{equals(how, n)}, one data-parallel rank of {dp} = {n // dp}") if dp and n % dp == 0 else None
    nodes = instance_nodes(p)[0] if p.engine in NODE_FLAGS else 1
    if not nodes or n % nodes:
        return None
    return n // nodes, equals(how, n) + (f" over {nodes} nodes = {n // nodes} on this node" if nodes > 1 else "")


def accelerators_per_node(ctx: Context) -> tuple[int | None, str]:
    """Accelerators one node holds: the manifest's accelerators_per_node, else the knowledge base's."""
    declared = ctx.declared("system", "accelerators_per_node")
    if declared is not None and as_int(declared.value):
        return as_int(declared.value), "the manifest's accelerators_per_node is"
    _name, acc, _span = ctx.accelerator()
    n = as_int((acc or {}).get("per_node"))
    return n, f"a {acc['name']} node holds" if acc else ""


@rule("TOP003", "multi-node-placement", "error",
      "Multi-node flags incomplete, node ranks missing or duplicated, more accelerators per node "
      "than a node has, or colocated workers sharing GPUs.",
      "A worker spanning nodes needs its node flags together (SGLang: --nnodes, --node-rank, "
      "--dist-init-addr; vLLM: --nnodes, --node-rank, --master-addr, the other nodes --headless; "
      "vLLM data parallel over nodes: --data-parallel-size-local and --data-parallel-address, "
      "--data-parallel-start-rank on the other nodes), and the launches of one instance must run "
      "every rank 0..N-1 exactly once (two nodes both started with --node-rank 0 never form the "
      "instance) with the same TP, PP, DP, model and rendezvous port (a single published launch with "
      "one literal rank is read as the per-node template). Its TP x PP must split evenly over the nodes; a single-node launch cannot use "
      "more accelerators than one node holds (GB300: 4 per compute tray), and "
      "sglang_router.launch_server starts all its --dp-size workers on one node. Workers started "
      "on one host with CUDA_VISIBLE_DEVICES must not share a GPU and must list at least as many GPUs "
      "as their TP x PP (more is a warning: the engine uses the first ones, the others idle); mpirun -n must equal TP x PP for TensorRT-LLM; srun -N must equal the "
      "engine's --nnodes, and a container started with docker run --gpus N or device=... needs "
      "at least the GPUs its worker runs on that node.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (nnodes, node_rank, dist_init_addr)",
       "vllm-project/vllm vllm/engine/arg_utils.py (--nnodes, --node-rank, --master-addr, --data-parallel-size-local, "
       "--data-parallel-start-rank, --data-parallel-address) and vllm/entrypoints/cli/serve.py (--headless) @ v0.33.0; "
       "docs.vllm.ai serving/parallelism_scaling.md and serving/data_parallel_deployment.md",
       "sgl-project/sglang sgl-router/py_src/sglang_router/launch_server.py (base_gpu_id = dp_id x tp_size)",
       "Slurm srun(1) (-N/--nodes); docs.docker.com docker container run (--gpus)",
       "rules/accelerators.yaml (per_node)",
       "sgl-project/sglang python/sglang/srt/server_args.py (--base-gpu-id 0: TP rank r runs on visible GPU base + r); "
       "NVIDIA CUDA C Programming Guide, CUDA_VISIBLE_DEVICES (devices are renumbered from 0 in the listed order)"))
def check_nodes(ctx: Context):
    procs = ctx.deployment.engine_processes()
    per_node, what = accelerators_per_node(ctx) if ctx.sub.has_manifest else (None, "")
    for p in procs:
        got = gpus_per_instance(p)
        s = p.settings
        if p.engine in NODE_FLAGS and not p.launcher.endswith("worker arguments"):  # launchers add node flags to .args workers
            nnodes, nodes_how, nodes_at = instance_nodes(p)
            nn = s.get("nnodes")
            if nn is not None and nnodes and nnodes > 1:
                missing = [f for f, k in NODE_FLAGS[p.engine] if k not in s and k not in p.unknown]
                if missing:
                    yield Finding("TOP003", f"--nnodes {nnodes} without {' and '.join(missing)}: the nodes cannot "
                                            f"find each other; add {_meeting(p, nnodes, missing)}", nn.span)
            elif p.engine == "vllm" and nodes_at is not None and "dp_local" in s and nnodes != 1 \
                    and "dp_address" not in s and "dp_address" not in p.unknown:
                yield Finding("TOP003", f"{nodes_how} runs data parallel over several nodes without "
                                        f"--data-parallel-address: the nodes cannot find the head node",
                              nodes_at.span)
            if got is not None and nnodes:
                n, anchor, how = got
                span = anchor.span if anchor else p.span
                if n % nnodes:
                    yield Finding("TOP003", f"{equals(how, n)} accelerators do not split evenly over {nodes_how}", span)
                elif per_node and n // nnodes > per_node:
                    if p.dp_workers_on_one_node:
                        fix = (f"; {p.launcher} starts all --dp-size workers on this one node (base GPU = DP rank x "
                               f"TP): start the DP workers on each node and put python3 -m "
                               f"sglang_router.launch_router in front of them")
                    elif nnodes == 1 and p.engine == "sglang" and _in_config(span, p):
                        # the TP is set in the --config YAML: its key spelling there, the per-node
                        # settings on each node's command line (--node-rank differs per node)
                        fix = (f"; add nnodes: {-(-n // per_node)} to {span.path.rsplit('/', 1)[-1]} (or --nnodes "
                               f"{-(-n // per_node)}), with --node-rank and --dist-init-addr on each node's command line")
                    elif nnodes == 1 and p.engine == "sglang":
                        fix = f"; add --nnodes {-(-n // per_node)} with --node-rank and --dist-init-addr"
                    elif nnodes == 1:
                        fix = f"; add --nnodes {-(-n // per_node)} with --node-rank, --master-addr and --headless on the other nodes"
                    else:
                        fix = ""
                    yield Finding("TOP003", f"{how} puts {n // nnodes} accelerators on each of {nnodes} node(s), but "
                                            f"{what} {per_node}{fix}", span)
        yield from _wrapper_shape(p, got)
        if p.engine == "trtllm" and p.mpi_ranks is not None and got is not None and got[1] is not p.mpi_ranks \
                and got[0] != p.mpi_ranks.value:
            yield Finding("TOP003", f"mpirun -n {p.mpi_ranks.value} but the worker runs {equals(got[2], got[0])} ranks",
                          p.mpi_ranks.span, related=[(got[1].span, got[2])] if got[1] else [])
        local = _local(p, got)
        if p.device_list is not None and local is not None and got[1] is not p.visible_devices \
                and p.visible_devices.value != local[0]:
            pod = _pod_gpus(p)
            if p.visible_devices.value > local[0] and pod is not None and pod <= local[0]:
                pass   # a pod sees only the GPUs it is given: the ordinals past them do not exist there
                # (CUDA makes visible the devices before the first invalid index), so none idles
            elif p.visible_devices.value > local[0]:
                # more GPUs visible than used works: the engine takes the first ones, the rest idle
                idle = p.device_list.value.split(",")[local[0]:]
                yield Finding("TOP003", f"CUDA_VISIBLE_DEVICES={p.device_list.value} lists {p.visible_devices.value} "
                                        f"GPU(s) but the worker runs {local[1]}: GPU(s) {','.join(idle)} stay idle",
                              p.device_list.span, level="warning")
            else:
                yield Finding("TOP003", f"CUDA_VISIBLE_DEVICES={p.device_list.value} lists {p.visible_devices.value} "
                                        f"GPU(s) but the worker runs {local[1]}", p.device_list.span)
    yield from _rank_coverage(procs)
    seen: dict[tuple, tuple] = {}
    lines = {tf.display: tf.text.split("\n") for tf in ctx.sub.texts}
    for p in procs:
        if p.device_list is None:
            continue
        node = _node_of(p) or _commented_node(lines.get(p.span.path), p.device_list.span.line)
        for dev in p.device_list.value.split(","):
            key = (p.device_list.span.path, node, dev)
            if key in seen and seen[key] is not p:
                other = seen[key]
                shared = _memory_shares(p, other)
                if shared == "fits":
                    continue   # the engine's own way to share a GPU: each instance takes its fraction
                if shared == "unknown":
                    ctx.not_checked("GPU sharing (TOP003)", f"two vLLM workers are given GPU {dev}, and what share of "
                                                            f"its memory each takes (--gpu-memory-utilization) is "
                                                            f"known only at run time", p.device_list.span)
                    break
                yield Finding("TOP003", f"GPU {dev} is given to two workers started from {p.device_list.span.path} "
                                        f"(also {here(other.device_list.span)})", p.device_list.span,
                              related=[(other.device_list.span, f"CUDA_VISIBLE_DEVICES={other.device_list.value}")])
                break
            seen[key] = p


def _node_of(p) -> tuple:
    """Which machine ``p`` runs on, as far as the launch says: its Kubernetes container (each
    gets the GPUs the device plugin allocates it, numbered from 0), the host ssh / srun -w /
    mpirun -H names, or its --node-rank (one node per rank); () when it says nothing (the
    machine the script runs on). GPU numbers of two processes on different machines are
    different GPUs (a loop's iterations share their process's key: they are not told apart)."""
    if p.pod is not None:
        return ("container", id(p.pod))
    if p.hosts is not None:  # a host known only at run time (ssh node-$i in a loop) is a machine of its own
        host = str(p.hosts.value)
        return ("host", host) if "$" not in host else ("host of", id(p))
    rank = p.settings.get("node_rank")
    if rank is not None and "node_rank" not in p.unknown:
        return ("node rank", str(rank.value))
    return ()


# a comment that names the machine the next command runs on: "# on the worker node", "# Node 1:",
# "# run this on node-2", "# prefill node (10.0.0.1)"
_NODE_COMMENT = re.compile(r"#.*?\b(?:on\s+(?:the\s+)?(?P<on>[\w.-]+)\s+node|(?P<kind>head|worker|master|"
                           r"prefill|decode|primary|secondary)\s+node|node[\s_-]*(?P<n>\d+)\b|on\s+node[\s_-]"
                           r"(?P<name>[\w.-]+))", re.I)


def _commented_node(lines: list[str] | None, line: int) -> tuple:
    """The machine the comment block right above ``line`` (1-based) names for the command there
    (:data:`_NODE_COMMENT`), as a node key; () when it names none. Published multi-node scripts
    often write each node's launch under such a comment ("# On the worker node:")."""
    if not lines:
        return ()
    i = line - 2
    while i >= 0 and (lines[i].strip().startswith("#") or lines[i].rstrip().endswith("\\")) and line - i <= 8:
        m = _NODE_COMMENT.search(lines[i]) if lines[i].strip().startswith("#") else None
        if m:
            return ("commented node", (m.group("on") or m.group("kind") or m.group("n") or m.group("name")).lower())
        i -= 1
    return ()
def _memory_shares(a, b) -> str | None:
    """Two vLLM workers given the same GPU: "fits" when their --gpu-memory-utilization add up to
    at most 1 (vLLM's fraction is per instance, meant for sharing a GPU: vllm/config/cache.py
    gpu_memory_utilization, "if you have two vLLM instances running on the same GPU, you can set
    the GPU memory utilization to 0.5 for each instance", @ 0.33.0), "unknown" when a fraction is
    a value known only at run time, None otherwise (another engine, a fraction left at its default)."""
    if a.engine != "vllm" or b.engine != "vllm":
        return None
    if "mem_fraction" in a.unknown or "mem_fraction" in b.unknown:
        return "unknown"
    fa, fb = a.settings.get("mem_fraction"), b.settings.get("mem_fraction")
    try:
        total = float(fa.value) + float(fb.value) if fa is not None and fb is not None else None
    except (TypeError, ValueError):
        return None
    return "fits" if total is not None and total <= 1.0 else None


def _container_gpus(text: str) -> int | None:
    """GPUs a ``docker run --gpus`` value gives: ``4``, ``device=0,1``, ``"device=0,1"``; None
    for ``all`` or anything else (docs.docker.com, docker container run --gpus)."""
    t = text.strip().strip("'\"")
    if re.fullmatch(r"[0-9]+", t):
        return parse_int(t)
    m = re.fullmatch(r"device=([0-9]+(,[0-9]+)*)", t)
    return len(m.group(1).split(",")) if m else None


def _wrapper_shape(p, got):
    """srun -N against the engine's --nnodes; docker --gpus against the GPUs one node runs."""
    s = p.settings
    nn = as_int(s["nnodes"].value) if "nnodes" in s else (1 if "nnodes" not in p.unknown else None)
    # an engine launch spanning --nnodes N must be started once per node (srun -N 2 around a
    # single-node launch starts two replicas: that is not a placement error)
    if p.launch_nodes is not None and "srun" in p.wrappers and nn is not None and nn > 1 \
            and p.engine in NODE_FLAGS and p.launch_nodes.value != nn:
        yield Finding("TOP003", f"srun -N {p.launch_nodes.value} starts the launch on {p.launch_nodes.value} node(s) "
                                f"but the worker runs --nnodes {nn}", p.launch_nodes.span,
                      related=[(s["nnodes"].span, f"--nnodes {nn}")] if "nnodes" in s else [])
    local = _local(p, got)
    if p.wrapper_gpus is None or local is None:
        return
    gpus = _container_gpus(str(p.wrapper_gpus.value))
    if gpus is not None and gpus < local[0]:  # fewer than the worker needs: it cannot start
        yield Finding("TOP003", f"--gpus {p.wrapper_gpus.value} gives the container {gpus} GPU(s) but the worker runs "
                                f"{local[1]}: it cannot start", p.wrapper_gpus.span)


def _names(ranks: list[int]) -> str:
    """0, 1, 2 or 0..7 for a run."""
    r = sorted(set(ranks))
    if len(r) > 2 and r == list(range(r[0], r[-1] + 1)):
        return f"{r[0]}..{r[-1]}"
    return ", ".join(map(str, r[:8])) + (" ..." if len(r) > 8 else "")


# settings every launch of one multi-node instance must give alike (rules/engines.yaml names)
SAME_ON_EVERY_NODE = (("tp", "TP"), ("pp", "PP"), ("dp", "DP"), ("model", "model"), ("master_port", "--master-port"),
                      ("dp_rpc_port", "--data-parallel-rpc-port"))


def _same_settings(g):
    """The nodes of one instance must agree on its parallelism, model and rendezvous port."""
    first = g.members[0].proc
    for m in g.members[1:]:
        s = m.proc.settings
        for key, label in SAME_ON_EVERY_NODE:
            a, b = first.settings.get(key), s.get(key)
            if a is None or b is None or key in first.unknown or key in m.proc.unknown or a.value == b.value:
                continue
            yield Finding("TOP003", f"{label} {b.value} here but {a.value} on the first node of this instance "
                                    f"({here(a.span)}): every node of one instance must be launched with the same "
                                    f"{label}", b.span, related=[(a.span, f"{label} {a.value}")])


def _rank_coverage(procs):
    """The launches of one multi-node instance must run each rank 0..N-1 exactly once."""
    for g in node_groups(procs):
        yield from _same_settings(g)
        if any(m.ranks is None or not m.proc.certain for m in g.members):
            continue  # a rank given at run time ($NODE_RANK, a loop variable): cannot be counted
        seen: dict[int, object] = {}
        for m in g.members:
            # a Kubernetes group's replicas are instances of their own (each with ranks 0..N-1)
            times = m.proc.repeat.value if m.proc.repeat is not None and m.proc.pod is None else 1
            dups: list[int] = []
            outside: list[int] = []
            first = None
            for _ in range(times):
                for r in m.ranks:
                    if r >= g.size:
                        outside.append(r)
                    elif r in seen:
                        dups.append(r)
                        first = first or seen[r]
                    else:
                        seen[r] = m
            if outside:
                yield Finding("TOP003", f"{g.unit} {_names(outside)} out of range: the instance has {g.size} "
                                        f"(ranks 0..{g.size - 1}, {here(g.size_at.span)})", m.span,
                              related=[(g.size_at.span, f"{g.size} in all")])
            if dups:
                yield Finding("TOP003", f"duplicated {g.unit} {_names(dups)}: launched again here (also "
                                        f"{here(first.span)}); each launch needs its own {g.flag} so that the "
                                        f"ranks cover 0..{g.size - 1} once", m.span,
                              related=[(first.span, f"{g.unit} {_names(first.ranks)}")])
        missing = [r for r in range(g.size) if r not in seen]
        # one launch with a single rank is the usual per-node template ("on node 1 use --node-rank 1");
        # several launches, or a range placeholder such as <0..1>, state which nodes run
        if missing and (len(g.members) > 1 or any(m.stated_range for m in g.members)):
            yield Finding("TOP003", f"{g.unit} {_names(missing)} of {g.size} never launched: the instance cannot start "
                                    f"until every {g.unit} 0..{g.size - 1} is launched ({g.flag})",
                          g.size_at.span, related=[(m.span, f"{g.unit} {_names(m.ranks)}")
                                                   for m in g.members])


@rule("TOP004", "parallel-divisibility", "error",
      "A parallel degree does not divide the one it lives in.",
      "SGLang splits TP ranks into DP-attention groups (tp % dp == 0), MoE expert groups "
      "(tp % ep == 0) and decode-context groups (tp % dcp == 0); TensorRT-LLM splits TP into "
      "MoE TP x MoE EP (moe_tensor_parallel_size x moe_expert_parallel_size == "
      "tensor_parallel_size). Attention heads are split over the attention TP ranks (TP, or "
      "TP / DP under SGLang DP attention; TensorRT-LLM attention DP keeps whole heads), so "
      "that size must divide the model's num_attention_heads, and it must divide the "
      "num_key_value_heads or be a multiple of them (each rank holds whole KV heads or an "
      "equal share of replicas; not for MLA models, whose KV cache is one latent). A "
      "block-quantized FP8 checkpoint (weight_block_size, e.g. [128, 128]) needs every TP "
      "shard of its linears to be a whole number of blocks: the MoE experts are split over the "
      "MoE TP ranks (vLLM: TP x DP without --enable-expert-parallel, 1 with it; SGLang: TP / "
      "EP), so a 1536-wide moe_intermediate_size at MoE TP 8 gives 192-wide shards and the "
      "engine refuses to load; use a smaller TP or expert parallelism. vLLM decode context "
      "parallelism on a GQA model needs TP above the KV heads, DCP <= TP / KV heads and DCP "
      "dividing the query heads per KV head. Engines reject all "
      "of these combinations at start-up.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (dp attention, ep and dcp size checks)",
       "rules/models.yaml (num_attention_heads, num_key_value_heads, moe_intermediate_size, "
       "quantization.weight_block_size from each model's config.json)",
       "vllm-project/vllm vllm/config/model.py @ 0052a5b818980ce8a0477706aaf9f75bd5af72cd "
       "(ModelConfig.verify_with_parallel_config: 'Total number of attention heads (..) must be "
       "divisible by tensor parallel size (..)'; decode context parallel for GQA: TP > KV heads, "
       "DCP <= TP // KV heads, query heads per KV head divisible by DCP)",
       "vllm-project/vllm vllm/model_executor/layers/linear.py @ 9e109c9887e38c51fc16b0da89760c5bd7c293c9 "
       "and sgl-project/sglang python/sglang/srt/layers/linear.py @ 98b3b24a0f06906a345ec3991fd9151af8bcddff "
       "(QKVParallelLinear: num_heads = divide(total_num_heads, tp_size); kv heads divide(tp_size, "
       "total_num_kv_heads) when tp >= kv heads, else divide(total_num_kv_heads, tp_size))",
       "vllm-project/vllm vllm/model_executor/layers/quantization/fp8.py @ 1436674bcb3f46f4c960d09334cf7dd1534943ca "
       "and sgl-project/sglang python/sglang/srt/layers/quantization/fp8.py @ d94a1535900da43cb374c2445679375e78935af6 "
       "(Fp8MoEMethod.create_weights: 'The output_size of gate's and up's weight = .. is not divisible "
       "by weight quantization block_n = ..'; Fp8LinearMethod: 'Weight output_partition_size = .. is "
       "not divisible by weight quantization block_n')",
       "vllm-project/vllm vllm/model_executor/layers/fused_moe/config.py (FusedMoEParallelConfig.make: "
       "flatten_tp_across_dp, MoE TP = DP x TP unless enable_expert_parallel)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py / mapping.py (moe_tp_size * moe_ep_size == tp_size)"))
def check_divisibility(ctx: Context):
    for p in ctx.deployment.engine_processes():
        s = p.settings
        if "tp" in p.unknown:
            continue   # a run-time value, or a mistyped flag (FLG001): not the default TP 1
        tp_loc = s.get("tp")
        tp = as_int(tp_loc.value) if tp_loc else 1
        if not tp:
            continue
        yield from _heads(ctx, p, tp, tp_loc)
        pairs = []
        if p.engine == "sglang":
            if s.get("attention_dp") is not None and s["attention_dp"].value is True:
                pairs.append(("dp", "DP attention"))
            pairs += [("ep", "EP"), ("dcp", "DCP")]
        elif p.engine == "trtllm":
            ep = as_int(s["ep"].value) if "ep" in s else None
            mtp = as_int(s["moe_tp"].value) if "moe_tp" in s else None
            if ep and mtp and ep * mtp != tp:
                yield Finding("TOP004", f"moe_tensor_parallel_size {mtp} x moe_expert_parallel_size {ep} = {mtp * ep} "
                                        f"but tensor_parallel_size is {tp}", s["moe_tp"].span)
                continue
            pairs.append(("ep", "MoE EP"))
        for key, label in pairs:
            loc = s.get(key)
            v = as_int(loc.value) if loc else None
            if v and v > 0 and tp % v:
                yield Finding("TOP004", f"{label} {v} does not divide TP {tp}", loc.span,
                              related=[(tp_loc.span, f"TP {tp}")] if tp_loc else [])


def _valid_tps(tp: int, ok) -> list[int]:
    """Powers of two up to 2 x ``tp`` (at least 8, a node) for which ``ok(t)`` holds."""
    out, t = [], 1
    while t <= max(2 * tp, 8):
        if ok(t):
            out.append(t)
        t *= 2
    return out


def _heads(ctx: Context, p, tp: int, tp_loc):
    """Attention and KV heads must split evenly over the attention TP ranks; block-quantized
    FP8 linears must split into whole quantization blocks."""
    entry, where = served_model(ctx, p)
    if entry is None:
        return  # COV001 reports the unknown model once
    name = entry["id"]
    if "tp" in p.unknown:
        return  # COV001: the TP is a run-time value
    heads = fact_int(entry, "num_attention_heads")
    adp = p.settings.get("attention_dp")
    attn_tp = tp
    whole_heads = False
    if adp is not None and adp.value is True:
        if p.engine == "trtllm":
            whole_heads = True  # attention DP: every rank holds all heads
        else:
            dp = as_int(p.settings["dp"].value) if "dp" in p.settings else 1
            attn_tp = tp // dp if dp and tp % dp == 0 else tp
    if heads is None and tp_loc is not None and tp > 1:
        ctx.not_checked("attention-head divisibility (TOP004)",
                        f"the knowledge base has no num_attention_heads for {name}{fact_origin(entry)}", where.span if where else None)
    elif not whole_heads and tp_loc is not None and heads % attn_tp:
        good = _valid_tps(attn_tp, lambda t: heads % t == 0)
        yield Finding("TOP004", f"attention TP {attn_tp} does not divide the {heads} attention heads of {name}"
                                f"{fact_origin(entry)}{'; use TP ' + ' / '.join(map(str, good)) if good else ''}",
                      tp_loc.span)
        return
    kv = fact_int(entry, "num_key_value_heads")
    if heads and kv is None and not entry.get("mla") and not whole_heads and tp_loc is not None and attn_tp > 1:
        ctx.not_checked("KV-head divisibility (TOP004)",
                        f"the knowledge base has no num_key_value_heads for {name}{fact_origin(entry)}",
                        where.span if where else tp_loc.span)
    if heads and kv and not entry.get("mla") and not whole_heads and tp_loc is not None \
            and kv % attn_tp and attn_tp % kv:
        good = _valid_tps(attn_tp, lambda t: heads % t == 0 and (kv % t == 0 or t % kv == 0))
        yield Finding("TOP004", f"attention TP {attn_tp} neither divides nor is a multiple of the {kv} KV heads of "
                                f"{name}{fact_origin(entry)}: each rank must hold whole KV heads or an equal share of replicas"
                                f"{'; use TP ' + ' / '.join(map(str, good)) if good else ''}", tp_loc.span)
        return
    dcp_loc = p.settings.get("dcp")
    dcp = as_int(dcp_loc.value) if dcp_loc is not None else None
    if p.engine == "vllm" and dcp and dcp > 1 and heads and kv and not entry.get("mla"):
        # vLLM verify_with_parallel_config: DCP for GQA / MQA splits the KV-head replicas of the TP ranks
        if tp <= kv or dcp > tp // kv or (heads // kv) % dcp:
            why = (f"needs TP above the {kv} KV heads (TP {tp})" if tp <= kv else
                   f"can be at most TP {tp} // {kv} KV heads = {tp // kv}" if dcp > tp // kv else
                   f"must divide the {heads // kv} query heads per KV head")
            yield Finding("TOP004", f"decode context parallel size {dcp} {why} for {name}{fact_origin(entry)} (GQA, not MLA): vLLM refuses "
                                    f"to start", dcp_loc.span, related=[(tp_loc.span, f"TP {tp}")] if tp_loc else [])
            return
    yield from _blocks(ctx, p, entry, tp, tp_loc, where)


def _moe_tp(p, tp: int) -> tuple[int | None, str, str]:
    """(MoE tensor-parallel size, how it arises, the expert-parallel switch) for vLLM and
    SGLang; (None, ..) when the engine or its MoE layout is not modelled."""
    s = p.settings
    if p.engine == "vllm":
        if "expert_parallel" in p.unknown or "dp" in p.unknown:
            return None, "", ""
        dp = as_int(s["dp"].value) if "dp" in s else 1
        if s.get("expert_parallel") is not None and s["expert_parallel"].value is True:
            return 1, "", ""
        how = f"TP {tp} x DP {dp}" if dp and dp > 1 else f"TP {tp}"
        return tp * (dp or 1), how, "--enable-expert-parallel"
    if p.engine == "sglang":
        if "ep" in p.unknown or p.flag_names & {"--moe-a2a-backend", "--enable-deepep-moe", "--enable-ep-moe"}:
            return None, "", ""  # these set the EP size themselves
        ep = as_int(s["ep"].value) if "ep" in s else 1
        if not ep or tp % ep:
            return None, "", ""
        return tp // ep, (f"TP {tp} / EP {ep}" if ep > 1 else f"TP {tp}"), f"--ep-size {tp}"
    return None, "", ""


def _blocks(ctx: Context, p, entry: dict, tp: int, tp_loc, where):
    """Every TP shard of a block-quantized FP8 linear must be a whole number of blocks. A
    checkpoint known to be FP8 whose quantization_config (block size) or shard widths the
    knowledge base lacks is a COV001 gap, never a silent pass."""
    if p.engine not in ("vllm", "sglang"):
        return
    block = block_size(entry)
    name = entry["id"]
    check = "block-FP8 shard alignment (TOP004)"
    at = where.span if where is not None else (tp_loc.span if tp_loc is not None else p.span)
    if block is None:
        moe_tp = _moe_tp(p, tp)[0] if entry.get("moe") else None
        splits = (moe_tp or 1) > 1 if entry.get("moe") else tp > 1 and tp_loc is not None
        if fp8_block_unknown(entry) and splits:   # a split the check would weigh, with no block to weigh it by
            ctx.not_checked(check, f"{entry.get('requested_id') or name} is an FP8 checkpoint ({fp8_why(entry)}) but the knowledge base has "
                                   f"no quantization_config of it (weight_block_size){fact_origin(entry)}", at)
        return
    bn, bk = block
    if entry.get("moe"):
        size = fact_int(entry, "moe_intermediate_size")
        moe_tp, how, ep_switch = _moe_tp(p, tp)
        if size is None and moe_tp and moe_tp > 1:
            ctx.not_checked(check, f"the knowledge base has no moe_intermediate_size for {name}{fact_origin(entry)}", at)
            return
        if size is None or not moe_tp or moe_tp == 1:
            return
        anchor = tp_loc if tp_loc is not None else p.settings.get("dp")
        if anchor is None:
            return
        shard = size / moe_tp
        if size % moe_tp == 0 and shard % bn == 0 and shard % bk == 0:
            return
        good = _valid_tps(moe_tp, lambda t: size % t == 0 and (size // t) % bn == 0 and (size // t) % bk == 0)
        fix = f"use MoE TP {max(good)}" + (" (TP x DP)" if "DP" in how else "") if good else "lower the TP"
        shown = int(shard) if shard == int(shard) else round(shard, 2)
        yield Finding("TOP004", f"MoE TP {moe_tp} ({how}) cuts the {size}-wide moe_intermediate_size of {name}{fact_origin(entry)} into "
                                f"{shown}-wide shards, not a multiple of its FP8 block {bn} (weight_block_size "
                                f"[{bn}, {bk}]): the engine refuses to load the experts; {fix} or expert "
                                f"parallelism ({ep_switch})", anchor.span)
        return
    size = fact_int(entry, "intermediate_size")
    if size is None and tp > 1 and tp_loc is not None:
        ctx.not_checked(check, f"the knowledge base has no intermediate_size for {name}{fact_origin(entry)}", at)
        return
    if size is None or tp <= 1 or tp_loc is None:
        return
    shard = size / tp
    if size % tp == 0 and shard % bn == 0 and shard % bk == 0:
        return
    good = _valid_tps(tp, lambda t: size % t == 0 and (size // t) % bn == 0 and (size // t) % bk == 0)
    shown = int(shard) if shard == int(shard) else round(shard, 2)
    yield Finding("TOP004", f"TP {tp} cuts the {size}-wide intermediate_size of {name}{fact_origin(entry)} into {shown}-wide shards, "
                            f"not a multiple of its FP8 block {bn} (weight_block_size [{bn}, {bk}]): the engine "
                            f"refuses to load the weights"
                            f"{'; use TP ' + ' / '.join(map(str, good)) if good else ''}", tp_loc.span)


def _in_config(span, p) -> bool:
    """True when ``span`` lies in an engine config YAML the launch reads (``--config``), not in
    the launch itself."""
    return span.path != p.span.path and span.path.endswith((".yaml", ".yml"))


def _pod_gpus(p) -> int | None:
    """The GPUs the container of a Kubernetes process is given (Container.gpu_count: its limit,
    else its request), None outside Kubernetes or when not a literal count."""
    got = p.pod.gpu_count() if hasattr(getattr(p, "pod", None), "gpu_count") else None
    return device_count(got[1].value) if got is not None else None
