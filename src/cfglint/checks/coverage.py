"""COV001: one note per lint unit naming every check that could not run, and why.

Rules record their own gaps with :meth:`Context.not_checked`; this module adds the gaps every
unit can have (model or accelerator not in the knowledge base, a setting given by a value only
known at run time, an engine config that is referenced but not published, a launch file in
which no engine launch was recognised) and folds them into a single finding.
"""

from __future__ import annotations

import os
import re

from ..model import Finding, Span
from .base import Context, Gap, register

register(
    "COV001", "not-checked", "note",
    "Checks that could not run on this submission, and why.",
    "cfglint reports what it could not check instead of passing in silence: a model or "
    "accelerator the knowledge base does not know (head, context, parser-family and kernel "
    "checks need them), a launcher it does not recognise, a setting given by a shell variable "
    "or a placeholder whose value is only known at run time, an engine config that is "
    "referenced but not published. One note per submission lists every such gap with the "
    "place of its cause. Add the missing facts with `--knowledge FILE` (models, accelerators), "
    "write the value out, or publish the file; `--fail-level note` makes a pipeline that "
    "wants full coverage fail on it.",
    ("rules/models.yaml, rules/accelerators.yaml, rules/engines.yaml (what the knowledge base holds)",),
)

LAUNCHERS_HINT = ("sglang serve, python3 -m sglang.launch_server, python3 -m sglang_router.launch_server, vllm serve, "
                  "trtllm-serve, python3 -m dynamo.<engine>")


# KServe kinds whose serving container runs the model KServe's storage initializer puts at
# /mnt/models (kserve/kserve pkg/constants/constants.go DefaultModelLocalMountPath): which model that
# is, the (LLM)InferenceService using the runtime or config says (its storageUri / spec.model.uri)
_KSERVE_RUNTIMES = {"ServingRuntime", "ClusterServingRuntime", "LLMInferenceServiceConfig", "LLMInferenceService",
                    "InferenceService"}
# KServe LLM kinds whose containers are merged over well-known presets and spec.baseRefs
# (KServe docs, "LLMInferenceService Configuration Guide", Composition Merge Order: the well-known configs
# are injected by workload pattern, then spec.baseRefs merge in order, then the spec itself)
_KSERVE_LLM = {"LLMInferenceServiceConfig", "LLMInferenceService"}
_MODEL_PLACEHOLDER = re.compile(r"(^|/)(your[-_.\w]*|<[^<>]+>|x{3,}|\.\.\.)(/|$)|/path/to/", re.I)


def _model_gap(ctx: Context, value: str, span, p=None) -> None:
    from .host_paths import KSERVE_MODEL_MOUNT

    group = getattr(getattr(p, "pod", None), "group", None)
    if value.rstrip("/") == KSERVE_MODEL_MOUNT and getattr(group, "kind", None) in _KSERVE_RUNTIMES:
        ctx.not_checked("model-dependent checks (attention heads, context length, parser family, MoE kernels)",
                        f"the {group.kind} serves {KSERVE_MODEL_MOUNT}, where KServe puts the model of the "
                        f"InferenceService that uses it (its storageUri / spec.model.uri), which is not in "
                        f"this file", span)
        return
    if _MODEL_PLACEHOLDER.search(value):
        ctx.not_checked("model-dependent checks (attention heads, context length, parser family, MoE kernels)",
                        f"the model '{value}' is a placeholder the reader fills in; the checks need the model "
                        f"it stands for", span)
        return
    entry = ctx.model(value)
    if entry is None:
        from ..knowledge.hfcache import refused

        why = refused(value)
        if value.startswith(("/", "./", "../", "~")) and not why:
            # a local directory: its last part names no checkpoint cfglint knows (/models/Qwen3 names
            # a family; /models/Qwen3-8B would name one), and its config.json is not in the linted tree
            ctx.not_checked("model-dependent checks (attention heads, context length, parser family, MoE kernels)",
                            f"model '{value}' is not in the knowledge base: it is a local directory named for no "
                            f"checkpoint cfglint holds, and its config.json is not in the linted tree; a directory "
                            f"named after its checkpoint (such as /models/Qwen3-8B) is read as that model, or add "
                            f"it with --knowledge", span)
            return
        ctx.not_checked("model-dependent checks (attention heads, context length, parser family, MoE kernels)",
                        f"model '{value}' is not in the knowledge base" + (f", and {why}" if why else "")
                        + "; add it with --knowledge", span)
    elif not entry.get("family"):
        ctx.not_checked("parser-family checks",
                        f"model '{value}' has config.json facts but no curated entry (family, reasoning and "
                        f"tool-call format) in rules/models.yaml; add it with --knowledge", span)


def _model_gaps(ctx: Context) -> None:
    declared = ctx.declared("model") if ctx.sub.has_manifest else None
    if declared is not None and isinstance(declared.value, str) and declared.value:
        _model_gap(ctx, declared.value, declared.span)
        return
    for p in ctx.deployment.engine_processes():
        model = p.settings.get("model")
        if model is not None and isinstance(model.value, str) and model.value:
            _model_gap(ctx, model.value, model.span, p)


def _accelerator_gaps(ctx: Context) -> None:
    if not ctx.sub.has_manifest:
        return
    name, entry, loc = ctx.accelerator()
    if name and entry is None:
        ctx.not_checked("hardware checks (GPUs per node, kernel architecture, sm120 FP4 MoE)",
                        f"accelerator '{name}' is not in the knowledge base; add it with --knowledge",
                        loc.span if loc else None)


def _launch_gaps(ctx: Context) -> None:
    unrecognised = ctx.deployment.unrecognised
    started = {p.span.path for p in ctx.deployment.processes} | {u.span.path for u in unrecognised} | \
        {g[0].span.path for g in ctx.deployment.graphs}
    objects = {d for d, _obj in ctx.sub.k8s_objects}
    not_modelled = {span.path for _kind, span in ctx.sub.k8s_not_modelled}
    for display, parsed, _role, is_args in ctx.sub.launches if ctx.sub.has_manifest else ():
        # only files the manifest names as launches: any other script (build.sh) is not claimed to be one;
        # one with no command at all (prose beside the worker .args files that launch) only when
        # nothing else launches either
        yaml_file = display.lower().endswith((".yaml", ".yml", ".json"))
        if is_args or display in started or display in not_modelled or (
                not getattr(parsed, "commands", None) and not yaml_file and ctx.deployment.processes):
            continue
        why = ("it holds no Kubernetes object (a YAML document with a string apiVersion and kind)"
               if yaml_file and display not in objects and not getattr(parsed, "commands", None) else
               f"no engine launch recognised in it (known launchers: {LAUNCHERS_HINT})")
        ctx.not_checked(f"every launch check for {os.path.basename(display)}", why, Span(display, 1, 1, 1, 1))
    benchmarks = {" ".join(p) for p in (ctx.kb.engines.get("launchers") or {}).get("engine_benchmarks") or []
                  if isinstance(p, list)}
    _container_gaps(ctx)
    read = {id(p.pod) if p.pod is not None else p.span for p in ctx.deployment.processes}
    for loc, entry, pod, why in ctx.deployment.graphs:
        if pod is not None and hasattr(pod, "gpus") and not pod.gpus:
            continue   # a service of the graph given no accelerator (its frontend, router): no engine runs there
        if (id(pod) if pod is not None else loc.span) in read:   # its own service is read: what it starts besides
            ctx.not_checked(f"the services {loc.value} at line {loc.span.line} starts besides its own", why, loc.span)
            continue
        ctx.not_checked(f"every launch check for {loc.value} at line {loc.span.line}",
                        f"{entry.get('what', loc.value)} takes the engine's flags from {entry.get('config', 'a config')}, "
                        f"and {why}: the engine, its parallelism and its flags are not checked", loc.span)
    for loc in unrecognised:
        why = "its program or module is a shell variable, known only at run time" if "$" in loc.value else \
            ("a benchmark that runs the engine in its own process; cfglint holds no list of its flags "
             "(--tp, --extra_llm_api_options ...), so they are not checked") if loc.value in benchmarks else \
            f"known launchers: {LAUNCHERS_HINT}"
        ctx.not_checked(f"every launch check for the command at line {loc.span.line}",
                        f"launcher '{loc.value}' not recognised ({why})", loc.span)
    _role_gaps(ctx)
    for p in ctx.deployment.engine_processes():
        for setting in sorted(p.unknown):
            if setting in p.mistyped or setting in p.edited:
                continue   # a mistyped flag: FLG001 reports it, with what it leaves unknown; an edited
                # config value: the note on its config below names it
            span = p.unresolved_at.get(setting, p.span)
            why = ("the flag that sets it is given on some runs only (in a branch of the script, or in a Go "
                   "template {{ if }} block), so its value is not known") if setting in p.conditional else \
                "its value is a shell variable or command output, known only at run time"
            ctx.not_checked(f"checks that use {setting} ({p.launcher})", why, span)
        for loc in p.unresolved_args:
            why = ("a Go template action, known only when the template is rendered: the flags it renders "
                   "are not checked") if "{{" in str(loc.value) else \
                ("they are not known statically (a script argument, command output, or a variable set outside "
                 "the script or, in a branch, from such a value): the flags they carry are not checked")
            ctx.not_checked(f"the arguments {loc.value} adds ({p.launcher})", why, loc.span)
        for ref in p.missing_configs:
            beside = isinstance(ref.value, str) and "$" not in ref.value and \
                os.path.isfile(os.path.join(ctx.sub.root, ref.value))
            written = next((c for c in ctx.sub.configs if c.written_by and os.path.normpath(str(ref.value)) == c.path
                            and (c.written_in is None or c.written_in is p.pod)), None)
            if beside and ctx.sub.has_manifest:
                why = "the engine config is in the submission directory but the manifest does not list it (files.configs)"
            elif beside:
                why = ("a launch linted on its own is read without its engine config: list both in a "
                       "submission.yaml (files.launch, files.configs) to check them together")
            elif written is not None:
                why = written.unread or "the YAML the script writes there cannot be parsed (IO001 says where)"
            elif isinstance(ref.value, str) and "$" in ref.value:
                why = ("the config path is a shell value not known statically (set in a branch, by a command, "
                       "or at run time)")
            else:
                why = "the engine config is referenced but not published with the submission"
            ctx.not_checked(f"settings in {ref.value} ({p.launcher})", why, ref.span)
        for cfg in p.configs:
            by_why: dict[str, list] = {}
            for path, span, why in cfg.unknown:
                by_why.setdefault(why, []).append((path, span))
            for why, keys in by_why.items():
                names = ", ".join(".".join(str(k) for k in path) for path, _span in keys)
                ctx.not_checked(f"settings {names} in {cfg.path} ({p.launcher})", why, keys[0][1])


def _role_gaps(ctx: Context) -> None:
    """A worker whose role (prefill, decode, aggregated server) nothing tells: TOP001 counts no
    instance of it against the manifest's roles, DIS001 compares nothing of it. Noted where that
    matters: the manifest declares roles, or a worker of the same engine is prefill or decode (an
    SGLang worker with no --disaggregation-mode is aggregated, server_args.py default "null": its
    role is known, only not named, and no note is owed for it)."""
    procs = ctx.deployment.engine_processes()
    declared = ctx.sub.has_manifest and bool(ctx.roles())
    table = ((ctx.kb.engines.get("engines") or {}).get("dynamo") or {}).get("unflagged_worker_role") or {}
    role_env = {n for facts in table.values() if isinstance(facts, dict) for n in facts.get("env") or ()}
    for p in procs:
        if p.role is not None:
            continue
        paired = any(q.role is not None and q.role.value in ("prefill", "decode") and q.engine == p.engine
                     for q in procs)
        if not declared and not (paired and p.engine != "sglang"):
            continue
        open_ = "disaggregation_mode" in p.unknown or bool(p.unresolved_args)
        env = sorted(n for n in p.env if n in role_env)
        why = ("its mode flag or its arguments are known only at run time" if open_ else
               f"its role is set by the environment ({', '.join(env)}), which cfglint does not read for it" if env else
               "none of its flags (--disaggregation-mode), its file's name, its engine config or serving.mode says "
               "whether it is prefill, decode or an aggregated server")
        ctx.not_checked(f"the instance and accelerator counts (TOP001) and KV transfer (DIS001) of the worker at "
                        f"line {p.span.line} ({p.launcher})", why, p.span)


def _shortened(text: str, limit: int = 80) -> str:
    """``text`` cut to about ``limit`` characters at a word's end, marked with ' ...' where
    cut (never inside a word such as ``--key=${VAR}``)."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit + 1)
    return (text[:cut] if cut > 0 else text[:limit]).rstrip() + " ..."


def _container_gaps(ctx: Context) -> None:
    """A Kubernetes container given accelerators (nvidia.com/gpu, amd.com/gpu, a TPU or NPU
    resource) that starts no engine cfglint recognises: what it runs is not checked (a script of
    the image or a ConfigMap, a launcher cfglint does not know), and the note says what it runs."""
    from .k8s import OTHER_ACCELERATORS

    started = {id(p.pod) for p in ctx.deployment.processes if p.pod is not None} | \
        {id(pod) for _loc, _entry, pod, _why in ctx.deployment.graphs if pod is not None}
    seen: set[int] = set()
    for _display, parsed, _role, is_args in ctx.sub.launches:
        for cmd in getattr(parsed, "commands", None) or ():
            c = cmd.origin
            if c is None or id(c) in seen or id(c) in started or not hasattr(c, "gpus") or c.group.part == "worker":
                continue   # a worker pod joins its leader's engine (Ray, LWS): checked with the leader's
            seen.add(id(c))
            res = c.node.get("resources")
            named = [k.value for part in ("limits", "requests")
                     for k, _v in (getattr(res.get(part), "items", None) or [] if hasattr(res, "get") else [])
                     if isinstance(k.value, str)]
            if not c.gpus and not any(OTHER_ACCELERATORS.match(n) for n in named):
                continue
            runs = _shortened(" ".join(" ".join(w.text for w in cmd.words[:4]).split())) \
                or f"the entrypoint of {c.image.value if c.image else '?'}"
            if not cmd.words and c.group.kind in _KSERVE_LLM:
                ctx.not_checked(f"every launch check for container {c.name or '?'} of {c.group.kind} {c.group.name}",
                                "it sets no command, so it starts no engine launch of its own: KServe merges it over the "
                                "LLMInferenceServiceConfig presets "
                                "(the well-known kserve-config-llm-template / -decode-template / -prefill-template "
                                "for its workload, or its spec.baseRefs), whose command is not in this file",
                                cmd.span)
                continue
            ctx.not_checked(f"every launch check for container {c.name or '?'} of {c.group.kind} {c.group.name}".rstrip(),
                            f"it is given accelerators but starts no engine launch cfglint recognises (it runs {runs}; "
                            f"known launchers: {LAUNCHERS_HINT})", cmd.words[0].span if cmd.words else cmd.span)


def _k8s_gaps(ctx: Context) -> None:
    """Kubernetes kinds cfglint recognises but does not model (serving operators' custom
    resources, kustomize overlays): what they launch is not checked (partial)."""
    if not ctx.sub.k8s_not_modelled:
        return
    from ..read.k8s.kinds import NOT_MODELLED

    for kind, span in ctx.sub.k8s_not_modelled:
        what = f"kind {kind}" if kind in NOT_MODELLED else kind
        ctx.not_checked(f"every launch check for the {NOT_MODELLED.get(kind, kind)} at line {span.line}",
                        f"{what} is recognised but not modelled (partial): the engines it starts and their "
                        "flags are not checked", span)


def coverage_note(ctx: Context) -> Finding | None:
    """The COV001 note of a unit, or None when every check could run."""
    _model_gaps(ctx)
    _accelerator_gaps(ctx)
    if ctx.sub.config_tied:
        from ..knowledge.releases import ENGINE_LABELS

        names = " and ".join(f"{ENGINE_LABELS.get(e, e)}'s" for e in ctx.sub.config_tied)
        span = ctx.sub.unknown_yaml or Span(ctx.sub.display, 1, 1, 1, 1)
        ctx.not_checked(f"engine-config checks for {os.path.basename(span.path)}",
                        f"its keys are flags of {names} --config files alike (as many keys of each): which engine "
                        "reads it is not known, so its keys were checked against neither; list it under "
                        "files.configs of a submission whose launch passes it with --config", span)
    elif ctx.sub.unknown_yaml is not None:
        ctx.not_checked(f"engine-config checks for {os.path.basename(ctx.sub.unknown_yaml.path)}",
                        ("its keys name engine settings, but none marks it as an engine config cfglint reads on its "
                         "own" if ctx.sub.engine_like_yaml else "no key marks it as an engine config") +
                        ", so only its YAML syntax was checked; an engine YAML is typed by its use: list it under "
                        "files.configs of a submission whose launch passes it with --config / "
                        "--extra_llm_api_options / --extra-engine-args", ctx.sub.unknown_yaml)
    for span in ctx.sub.templates:
        ctx.not_checked(f"every check of {os.path.basename(span.path)}",
                        "it is a Helm chart template (Go template actions such as {{- if ... }} and {{ .Values ... }}): "
                        "it is YAML only once rendered; lint the output of `helm template`", span)
    _launch_gaps(ctx)
    _k8s_gaps(ctx)
    if not ctx.gaps:
        return None
    gaps: list[Gap] = ctx.gaps
    if ctx.sub.has_manifest:
        span = ctx.sub.manifest_node.span
        span = Span(span.path, span.line, span.col, span.line, span.col)
    else:
        first = next((g.span for g in gaps if g.span is not None), None)
        span = first or Span(ctx.sub.display, 1, 1, 1, 1)
    # the message lists the first MAX_LISTED gaps (a file of 20 000 unknown flags must not make a
    # megabyte note); every gap with a place stays a related location
    parts = [f"{g.check}: {g.why}" + (f" ({g.span.path}:{g.span.line})" if g.span else "") for g in gaps[:MAX_LISTED]]
    if len(gaps) > MAX_LISTED:
        parts.append(f"and {len(gaps) - MAX_LISTED} more (see the related locations)")
    related = [(g.span, f"{g.check}: {g.why}") for g in gaps if g.span is not None]
    return Finding("COV001", f"not checked ({len(gaps)}): " + "; ".join(parts), span, level="note", related=related)


MAX_LISTED = 50  # gaps a COV001 message spells out
