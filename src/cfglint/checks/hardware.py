"""HW001: an FP4 MoE model on an sm120 GPU must use the marlin MoE runner."""

from __future__ import annotations

from ..deploy.defaults import Default, resolve
from ..deploy.release import named_by
from ..knowledge import versions
from ..model import Finding
from .base import Context, here, rule
from .modelfacts import served_model


@rule("HW001", "sm120-fp4-moe-needs-marlin", "error",
      "FP4 (NVFP4 / MXFP4) MoE model on an sm120 GPU without the marlin MoE runner.",
      "On sm120 GPUs (RTX 6000D, RTX PRO 6000) the FP4 MoE kernels other engines default to "
      "are missing or wrong: SGLang's default runner has no sm120 kernels or upcasts the 4-bit "
      "experts to BF16 and does not fit, triton_kernel fails in the weight loader, and "
      "flashinfer_cutlass / flashinfer_mxfp4 serve but silently compute wrong answers. Only "
      "the marlin runner was measured correct and stable. Set --moe-runner-backend marlin "
      "(SGLang) or --moe-backend marlin (vLLM). `--fix` replaces a wrong runner by marlin only "
      "with --unsafe-fixes: it changes the kernels the engine runs, so the published launch would "
      "no longer be the one that was measured; its author must rerun and confirm it. Where the "
      "release the launch runs (declared, or read from the image tag) does not accept marlin for "
      "that flag (SGLang has it from 0.5.12.post1), the message names the first release that does "
      "and no fix is offered: writing marlin there would stop the launch (FLG002).",
      ("rules/kernels.yaml: measured notes of the deployment catalog (excerpts in docs/sources.md): deepseek NVFP4 "
       "on RTX-6000D, kimi MXFP4 on RTX-6000D x 4 nodes",
       "rules/engines.yaml defaults: SGLang's --moe-runner-backend default auto "
       "(sgl-project/sglang python/sglang/srt/server_args.py)",
       "rules/releases/sglang.yaml, rules/releases/vllm.yaml: the flag's choices per release (from "
       "each release's argument parser)"))
def check_sm120_marlin(ctx: Context):
    if not ctx.sub.has_manifest:
        return
    quirk = ctx.kb.kernels.get("sm120_fp4_moe") or {}
    name, acc, acc_span = ctx.accelerator()
    if not acc or acc.get("arch") not in (quirk.get("architectures") or []):
        return
    precisions = {p.upper() for p in quirk.get("precisions") or []}
    precision = ctx.manifest.get("precision")
    failures = quirk.get("failures") or {}
    for p in ctx.deployment.engine_processes():
        engine_quirk = (quirk.get("engines") or {}).get(p.engine or "")
        if not engine_quirk:
            continue
        model, where_model = served_model(ctx, p)  # the checkpoint the process loads, else the manifest's
        checkpoint = str((model or {}).get("checkpoint_precision") or "").upper()
        if checkpoint in precisions:
            what = f"{checkpoint} checkpoint of the"  # the served weights are FP4 whatever the page says
            if isinstance(precision, str) and precision.upper() in precisions:
                what = precision
        elif isinstance(precision, str) and precision.upper() in precisions:
            what = precision
        else:
            continue
        if model is not None and model.get("moe") is False:
            continue
        flag = engine_quirk.get("flag")
        runner = p.settings.get("moe_runner_backend")
        if "moe_runner_backend" in p.unknown:
            continue  # COV001: the runner is a run-time value
        if model is None and runner is None:
            ctx.not_checked("sm120 FP4 MoE runner (HW001)",
                            "the served model is not in the knowledge base, so whether it is an MoE model is unknown",
                            where_model.span if where_model else p.span)
            continue
        if runner is not None and str(runner.value).lower() == quirk.get("required_runner"):
            continue
        required = str(quirk.get("required_runner"))
        unaccepted = _release_lacks(ctx, p, flag, required)
        related = [(acc_span.span, f"accelerator: {name} ({acc.get('arch')})")] if acc_span else []
        where = f" on {name} ({acc.get('arch')}, {here(acc_span.span)})" if acc_span else ""
        if runner is None:
            d = resolve(ctx.kb, p.engine or "", "moe_runner_backend", (name, acc), None, "")
            default = f" (so the default, {d.value})" if isinstance(d, Default) else ""
            yield Finding("HW001",
                          f"the {what} MoE model {model['id']} runs{where} without {flag}{default}: "
                          f"{failures.get('default', 'the default runner fails')}; add {flag} {required}"
                          + (f", {unaccepted}" if unaccepted else ""),
                          p.span, related=related)
        else:
            why = failures.get(str(runner.value).lower(), f"{runner.value} is not known to work on sm120")
            if unaccepted:   # writing the runner would stop the launch (FLG002): no fix
                yield Finding("HW001", f"{flag} {runner.value} for the {what} MoE model{where}: {why}; use {flag} "
                                       f"{required}, {unaccepted}", runner.span, related=related)
                continue
            yield Finding("HW001",
                          f"{flag} {runner.value} for the {what} MoE model{where}: {why}; use {flag} {required}",
                          runner.span, related=related, fix=required, fix_safe=False)


def _release_lacks(ctx: Context, p, flag: str, value: str) -> str | None:
    """Words for a message when the release ``p`` runs (deploy/release.py: declared, from the image
    tag or a pin) does not accept ``flag value`` (its choices there, rules/releases/): which release
    first does. None when it does, or the release is not one cfglint read (nothing to claim)."""
    for table in p.tables:
        engine = table.split(".", 1)[0]
        data = ctx.kb.engine_releases(engine)
        launch = p.releases.get(engine)
        if data is None or data.launcher(table) is None or launch is None or launch.release is None:
            continue
        across = ctx.kb.registry(table, None)
        primary = across.find(flag) if across is not None else None
        if primary is None:
            continue
        held = data.choice_releases(table, primary, value)
        if launch.release in held:
            return None
        order = data.releases
        later = [r for r in held if order.index(r) > order.index(launch.release)]
        shown = versions.leading(launch.resolution.version or "") or launch.release
        where = named_by(launch, ctx.manifest)
        runs = f"{data.label} {shown}" + (f" ({where})" if where else "")
        if later:
            return f"which {runs} does not accept: {value} needs {data.label} {later[0]} or later"
        if held:
            return f"which {runs} no longer accepts (it was in {versions.ranges(held, order)})"
        return f"which no {data.label} release cfglint holds ({data.span()}) accepts"
    return None
