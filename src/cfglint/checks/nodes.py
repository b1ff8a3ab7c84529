"""TOP003 (multi-node and device placement) and TOP004 (engine divisibility rules)."""

from __future__ import annotations

from ..model import Finding
from . import Context, as_int, here, rule
from .topology import gpus_per_instance


def _per_node(ctx: Context) -> tuple[int | None, str]:
    """Accelerators one node holds: the manifest's accelerators_per_node, else the knowledge base's."""
    declared = ctx.declared("system", "accelerators_per_node")
    if declared is not None and as_int(declared.value):
        return as_int(declared.value), "the manifest's accelerators_per_node is"
    _name, acc, _span = ctx.accelerator()
    n = as_int((acc or {}).get("per_node"))
    return n, f"a {acc['name']} node holds" if acc else ""


@rule("TOP003", "multi-node-placement", "error",
      "Multi-node flags incomplete, more accelerators per node than a node has, or colocated "
      "workers sharing GPUs.",
      "A worker spanning nodes needs --nnodes, --node-rank and --dist-init-addr together, and "
      "its TP x PP must split evenly over the nodes; a single-node launch cannot use more "
      "accelerators than one node holds (GB300: 4 per compute tray). Workers started on one "
      "host with CUDA_VISIBLE_DEVICES must not share a GPU and must list as many GPUs as their "
      "TP x PP; mpirun -n must equal TP x PP for TensorRT-LLM.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (nnodes, node_rank, dist_init_addr)",
       "rules/accelerators.yaml (per_node)"))
def check_nodes(ctx: Context):
    procs = ctx.deployment.engine_processes()
    per_node, what = _per_node(ctx) if ctx.sub.has_manifest else (None, "")
    for p in procs:
        got = gpus_per_instance(p)
        s = p.settings
        if p.engine == "sglang" and not p.launcher.endswith("worker arguments"):  # launchers add node flags to .args workers
            nn = s.get("nnodes")
            nnodes = as_int(nn.value) if nn else 1
            if nn is not None and nnodes and nnodes > 1:
                missing = [f for f, k in (("--node-rank", "node_rank"), ("--dist-init-addr", "dist_init_addr"))
                           if k not in s and k not in p.unknown]
                if missing:
                    yield Finding("TOP003", f"--nnodes {nnodes} without {' and '.join(missing)}: the nodes cannot "
                                            f"find each other", nn.span)
            if got is not None and nnodes:
                n, anchor, how = got
                span = anchor.span if anchor else p.span
                if n % nnodes:
                    yield Finding("TOP003", f"{how} = {n} accelerators do not split evenly over --nnodes {nnodes}", span)
                elif per_node and n // nnodes > per_node:
                    fix = f"; add --nnodes {-(-n // per_node)} with --node-rank and --dist-init-addr" if nnodes == 1 else ""
                    yield Finding("TOP003", f"{how} puts {n // nnodes} accelerators on each of {nnodes} node(s), but "
                                            f"{what} {per_node}{fix}", span)
        if p.engine == "trtllm" and p.mpi_ranks is not None and got is not None and got[1] is not p.mpi_ranks \
                and got[0] != p.mpi_ranks.value:
            yield Finding("TOP003", f"mpirun -n {p.mpi_ranks.value} but the worker runs {got[2]} = {got[0]} ranks",
                          p.mpi_ranks.span, related=[(got[1].span, got[2])] if got[1] else [])
        if p.device_list is not None and got is not None and got[1] is not p.visible_devices \
                and p.visible_devices.value != got[0]:
            yield Finding("TOP003", f"CUDA_VISIBLE_DEVICES={p.device_list.value} lists {p.visible_devices.value} "
                                    f"GPU(s) but the worker runs {got[2]} = {got[0]}", p.device_list.span)
    seen: dict[tuple[str, str], tuple] = {}
    for p in procs:
        if p.device_list is None:
            continue
        for dev in p.device_list.value.split(","):
            key = (p.device_list.span.path, dev)
            if key in seen and seen[key] is not p:
                other = seen[key]
                yield Finding("TOP003", f"GPU {dev} is given to two workers started from {p.device_list.span.path} "
                                        f"(also {here(other.device_list.span)})", p.device_list.span,
                              related=[(other.device_list.span, f"CUDA_VISIBLE_DEVICES={other.device_list.value}")])
                break
            seen[key] = p


@rule("TOP004", "parallel-divisibility", "error",
      "A parallel degree does not divide the one it lives in.",
      "SGLang splits TP ranks into DP-attention groups (tp % dp == 0), MoE expert groups "
      "(tp % ep == 0) and decode-context groups (tp % dcp == 0); TensorRT-LLM splits TP into "
      "MoE TP x MoE EP (moe_tensor_parallel_size x moe_expert_parallel_size == "
      "tensor_parallel_size). Attention heads are split over the attention TP ranks (TP, or "
      "TP / DP under SGLang DP attention; TensorRT-LLM attention DP keeps whole heads), so "
      "that size must divide the model's num_attention_heads. Engines reject other "
      "combinations at start-up.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (dp attention, ep and dcp size checks)",
       "rules/models.yaml (num_attention_heads from each model's config.json)",
       "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py / mapping.py (moe_tp_size * moe_ep_size == tp_size)"))
def check_divisibility(ctx: Context):
    for p in ctx.deployment.engine_processes():
        s = p.settings
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


def _heads(ctx: Context, p, tp: int, tp_loc):
    """Attention heads must split evenly over the attention TP ranks."""
    model = p.settings.get("model")
    entry = ctx.model(model.value if model and isinstance(model.value, str) else None) or \
        (ctx.model(ctx.manifest.get("model")) if ctx.sub.has_manifest else None)
    heads = as_int((entry or {}).get("num_attention_heads"))
    if not heads or tp_loc is None:
        return
    adp = p.settings.get("attention_dp")
    attn_tp = tp
    if adp is not None and adp.value is True:
        if p.engine == "trtllm":
            return  # attention DP: every rank holds all heads
        dp = as_int(p.settings["dp"].value) if "dp" in p.settings else 1
        attn_tp = tp // dp if dp and tp % dp == 0 else tp
    if heads % attn_tp:
        yield Finding("TOP004", f"attention TP {attn_tp} does not divide the {heads} attention heads of {entry['id']}",
                      tp_loc.span)
