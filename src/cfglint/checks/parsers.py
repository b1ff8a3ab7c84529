"""PRS001 / PRS002: reasoning and tool-call parser names against each engine's registry."""

from __future__ import annotations

import re

from ..deploy.extract import ParserRef
from ..deploy.release import named_by
from ..knowledge import Knowledge, versions
from ..model import Finding
from .base import Context, rule
from .modelfacts import fact_origin, served_model

ENGINE_NAMES = {"sglang": "SGLang", "vllm": "vLLM", "trtllm": "TensorRT-LLM", "dynamo": "Dynamo"}
KIND_NAMES = {"reasoning": "reasoning", "tool_call": "tool-call"}


def _squash(name: str) -> str:
    return re.sub(r"[-_.]", "", name.lower())


def _unconfirmed(kb: Knowledge, registry: str, kind: str, name: str) -> bool:
    """Parser modules known to exist whose registered name could not be read: not reported."""
    if kind != "tool_call":
        return False
    extra = (kb.parsers.get(registry) or {}).get("tool_parser_modules_name_unconfirmed") or {}
    return any(_squash(m).startswith(_squash(name)) for m in extra.get("modules") or [])


def _model_family(ctx: Context, ref_model: str | None) -> tuple[str | None, str | None]:
    for candidate in (ref_model, ctx.manifest.get("model") if ctx.sub.has_manifest else None):
        entry = ctx.model(candidate) if isinstance(candidate, str) else None
        if entry and entry.get("family"):
            return entry["family"], entry["id"]
    return None, None


def _refs(ctx: Context, with_process: bool = False):
    seen = set()
    for p in ctx.deployment.processes:
        model = p.settings.get("model")
        for ref in p.parsers:
            key = (ref.registry, ref.kind, ref.name.span)
            if key in seen:
                continue
            seen.add(key)
            model_id = model.value if model and isinstance(model.value, str) else None
            yield (ref, model_id, p) if with_process else (ref, model_id)


COMPILED_KIND = {"reasoning": "reasoning", "tool_call": "tool"}   # rules/releases/<engine>.yaml parsers


def _compiled_has(ctx: Context, ref: ParserRef, p) -> bool:
    """Whether a release the process may run registers the parser (rules/releases/): its release,
    or any release read when that is not known."""
    data = ctx.kb.engine_releases(ref.registry)
    held = (data.parsers(COMPILED_KIND[ref.kind]) if data is not None else {}).get(str(ref.name.value))
    launch = p.releases.get(ref.registry)
    return bool(held) and (launch is None or launch.release is None or launch.release in held)


def _release_problem(ctx: Context, ref: ParserRef, p) -> str | None:
    """Why the release ``p`` runs has no parser ``ref`` names (rules/releases/), or None: the
    name is in that release, or no release data covers the registry, or the release is not
    one cfglint read (then the hand registry of rules/parsers.yaml decides)."""
    data = ctx.kb.engine_releases(ref.registry)
    launch = p.releases.get(ref.registry)
    table = data.parsers(COMPILED_KIND[ref.kind]) if data is not None else {}
    if not table or launch is None or launch.release is None:
        return None
    release = launch.release
    if not any(release in rs for rs in table.values()):
        return None   # the registry of that release could not be read: no claim
    name = str(ref.name.value)
    held = table.get(name) or table.get(name.lower())
    if held and release in held:
        return None
    if not held:
        return None   # in no release read: the registry of rules/parsers.yaml words it (did you mean ...)
    reg = ctx.kb.registry(ref.registry, release)
    flag = reg.find(ref.via) if reg is not None and str(ref.via).startswith("-") else None
    if flag and name in ((reg.flags.get(flag) or {}).get("choices") or ()):
        return None   # a value the flag takes besides the registry's names (SGLang 'auto')
    shown = versions.leading(launch.resolution.version or "") or release
    where = named_by(launch, ctx.manifest)
    text = f"{ENGINE_NAMES.get(ref.registry, ref.registry)} {shown} ({where}) has no {KIND_NAMES[ref.kind]} parser '{name}' ({ref.via})"
    if held:
        order = data.releases
        if order.index(held[0]) > order.index(release):
            return text + f": it is added in {held[0]}; upgrade, or name a parser that release has"
        return text + f": it was in {versions.ranges(held, order)}"
    return text


def _suggest(kb: Knowledge, ref: ParserRef, registry: dict) -> str:
    name = str(ref.name.value)
    same = [n for n in registry if _squash(n) == _squash(name)]
    import difflib

    close = same or difflib.get_close_matches(name, list(registry), n=2, cutoff=0.75)
    hints = []
    if close:
        hints.append("did you mean " + " or ".join(f"'{c}'" for c in close) + "?")
    elsewhere = [ENGINE_NAMES.get(e, e) + "'s" for e in kb.parsers
                 if e != ref.registry and name in (kb.parser_registry(e, ref.kind) or {})]
    if elsewhere:
        owners = elsewhere[0] if len(elsewhere) == 1 else ", ".join(elsewhere[:-1]) + " and " + elsewhere[-1]
        hints.append(f"'{name}' is {owners} spelling")
    return ("; " + " ".join(hints)) if hints else ""


@rule("PRS001", "unknown-parser", "error",
      "Reasoning or tool-call parser name the engine does not have.",
      "Each engine registers its own parser names, and they differ in spelling between engines "
      "(SGLang --reasoning-parser deepseek-v4 and --tool-call-parser deepseekv4, Dynamo and "
      "TensorRT-LLM deepseek_v4). An unknown name stops SGLang, vLLM and TensorRT-LLM at "
      "start-up; Dynamo silently falls back to its basic parser, so reasoning text leaks into "
      "answers and tool calls are not parsed. Names added in a later release (SGLang 'auto' from "
      "0.5.12) are accepted when the manifest's engine version is that release or later, or not "
      "known, and reported with the release they need when it is older.",
      ("rules/parsers.yaml: SGLang reasoning_parser_names.py / function_call parser_names.py, "
       "vLLM vllm/reasoning and vllm/tool_parsers registries, TensorRT-LLM reasoning_parser.py / "
       "tool_parser_factory.py, Dynamo lib/parsers (commits recorded per entry)",))
def check_unknown_parser(ctx: Context):
    for ref, _model, p in _refs(ctx, with_process=True):
        registry = ctx.kb.parser_registry(ref.registry, ref.kind)
        name = ref.name.value
        if registry is None or not isinstance(name, str):
            continue
        problem = _release_problem(ctx, ref, p)
        if problem is not None:
            yield Finding("PRS001", problem, ref.name.span)
            continue
        entry = _entry(registry, name)
        if entry is not None:
            since = _version(entry.get("since"))
            declared = _declared_version(ctx, ref.registry)
            if since and declared and declared[0] < since:
                yield Finding("PRS001",
                              f"{ENGINE_NAMES.get(ref.registry, ref.registry)} {declared[1]} (the manifest's engine "
                              f"version) has no {KIND_NAMES[ref.kind]} parser '{name}' ({ref.via}): it exists from "
                              f"{entry['since']}; upgrade or name the parser", ref.name.span)
            continue
        if name in registry or name.lower() in registry or _compiled_has(ctx, ref, p):
            continue
        if _unconfirmed(ctx.kb, ref.registry, ref.kind, name):
            continue
        if ref.registry == "dynamo" and ref.kind == "reasoning":
            continue  # PRS003: Dynamo does not stop, it falls back
        yield Finding("PRS001",
                      f"{ENGINE_NAMES.get(ref.registry, ref.registry)} has no {KIND_NAMES[ref.kind]} parser "
                      f"'{name}' ({ref.via}){_suggest(ctx.kb, ref, registry)}",
                      ref.name.span)


@rule("PRS002", "parser-model-mismatch", "error",
      "The parser exists but does not parse the served model's reasoning or tool-call format.",
      "Reasoning and tool-call parsers recognise one markup (Kimi's, DeepSeek's, GLM's, gpt-oss "
      "harmony, Qwen3-Coder's XML tool calls, hermes <tool_call> JSON ...). A parser for another "
      "format starts fine and then returns reasoning inside the answer or misses every tool call: "
      "hermes on Qwen3-Coder (which emits XML tool calls: qwen3_coder), a generic parser on "
      "DeepSeek-V3 (deepseek_v3). The model's reasoning_format / tool_call_format is compared "
      "with the formats the engine's parser parses; where either is unknown, the parser's model "
      "families are compared with the model's family. The message lists that engine's parsers "
      "for the model.",
      ("rules/parsers.yaml (formats and families per parser, from each engine's parser registry)",
       "rules/models.yaml (reasoning_format, tool_call_format, family per model)"))
def check_parser_family(ctx: Context):
    for ref, model, p in _refs(ctx, with_process=True):
        registry = ctx.kb.parser_registry(ref.registry, ref.kind)
        name = ref.name.value
        entry = _entry(registry, name)
        if entry is None:
            continue
        mentry = _model_entry(ctx, model)
        want = model_formats(mentry, ref.kind)
        formats = parser_formats(registry, name)
        if want and formats:
            if set(want) & set(formats):
                continue
            fitting = _of_release(ctx, ref, p, fitting_parsers(registry, want))
            hint = f"; {ENGINE_NAMES.get(ref.registry)} parsers for it: {', '.join(fitting)}" if fitting else ""
            partial = next((why for f, why in (entry.get("partial_formats") or {}).items() if f in want), None)
            if partial:  # the markup is shared in part: it works in one mode and misroutes in another
                yield Finding("PRS002",
                              f"{KIND_NAMES[ref.kind]} parser '{name}' ({ref.via}) is written for {' / '.join(formats)} "
                              f"markup; on {mentry['id']} ({' / '.join(want)}) {partial}{hint}",
                              ref.name.span, level="warning")
                continue
            served = mentry['id'] if not isinstance(model, str) or model == mentry['id'] or "/" not in model \
                else f"{model} (a checkpoint of {mentry['id']})"
            yield Finding("PRS002",
                          f"{KIND_NAMES[ref.kind]} parser '{name}' ({ref.via}) parses {' / '.join(formats)} markup, "
                          f"but the model {served} emits {' / '.join(want)}{hint}",
                          ref.name.span)
            continue
        families = entry.get("families")
        if not families:
            continue
        family, model_id = _model_family(ctx, model)
        if family is None or family in families:
            continue
        if ref.kind == "reasoning" and str((mentry or {}).get("reasoning") or "").lower() == "none":
            yield Finding("PRS002",
                          f"reasoning parser '{name}' ({ref.via}) is for {', '.join(families)} models, but the model "
                          f"{model_id} does not reason (rules/models.yaml: reasoning none) and needs no reasoning parser: "
                          f"remove {ref.via}", ref.name.span)
            continue
        fitting = _of_release(ctx, ref, p, sorted(
            n for n, e in registry.items() if isinstance(e, dict) and family in (e.get("families") or [])))
        hint = f"; {ENGINE_NAMES.get(ref.registry)} parsers for {family}: {', '.join(fitting)}" if fitting else ""
        yield Finding("PRS002",
                      f"{KIND_NAMES[ref.kind]} parser '{name}' ({ref.via}) is for {', '.join(families)} models, "
                      f"but the model {model_id} is {family}{hint}",
                      ref.name.span)


def _of_release(ctx: Context, ref: ParserRef, p, names: list[str]) -> list[str]:
    """``names`` less those the release ``p`` runs does not register (rules/releases/), so a
    hint names only parsers the launch can use; unchanged when that release or its registry
    was not read."""
    data = ctx.kb.engine_releases(ref.registry)
    launch = p.releases.get(ref.registry)
    table = data.parsers(COMPILED_KIND[ref.kind]) if data is not None else {}
    release = launch.release if launch is not None else None
    if not table or release is None or not any(release in rs for rs in table.values()):
        return names
    return [n for n in names if release in (table.get(n) or table.get(n.lower()) or [release])]


def _version(text) -> tuple[int, ...] | None:
    """``"0.5.12"`` (or ``v0.5.12rc1``, ``lmsysorg/sglang:v0.5.12-cu130``) as (0, 5, 12); None without x.y.z."""
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", str(text)) if text is not None else None
    return tuple(int(g) for g in m.groups()) if m else None


def _declared_version(ctx: Context, engine: str) -> tuple[tuple[int, ...], str] | None:
    """The release the manifest declares for ``engine`` as ((x, y, z), text), or None when the
    manifest names another engine or no x.y.z version (``kimi-k3``, a commit)."""
    if not ctx.sub.has_manifest or not isinstance(ctx.manifest.get("engine"), dict):
        return None
    declared = ctx.manifest["engine"]
    if declared.get("name") != engine:
        return None
    v = _version(declared.get("version"))
    return (v, str(declared.get("version"))) if v else None


def _entry(registry: dict | None, name) -> dict | None:
    if not registry or not isinstance(name, str):
        return None
    entry = registry.get(name) if name in registry else registry.get(name.lower())
    return entry if isinstance(entry, dict) else None


def _model_entry(ctx: Context, ref_model: str | None) -> dict | None:
    for candidate in (ref_model, ctx.manifest.get("model") if ctx.sub.has_manifest else None):
        entry = ctx.model(candidate)
        if entry is not None:
            return entry
    return None


def model_formats(entry: dict | None, kind: str) -> list[str]:
    """The formats a model emits for ``kind`` (reasoning_format / tool_call_format), or []."""
    value = (entry or {}).get("reasoning_format" if kind == "reasoning" else "tool_call_format")
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


def parser_formats(registry: dict | None, name) -> list[str]:
    """Formats parser ``name`` parses (an alias inherits its target's), or []."""
    entry = _entry(registry, name)
    if entry is None:
        return []
    formats = entry.get("formats")
    if not formats and entry.get("alias_of"):
        formats = (_entry(registry, entry["alias_of"]) or {}).get("formats")
    return [f for f in formats or [] if isinstance(f, str)]


def fitting_parsers(registry: dict | None, want: list[str]) -> list[str]:
    """Parser names of a registry (aliases left out) that parse one of ``want``, the parser
    named like the format first."""
    names = [n for n, e in (registry or {}).items() if isinstance(e, dict) and not e.get("alias_of")
             and set(e.get("formats") or []) & set(want)]
    return sorted(names, key=lambda n: (n not in want, n))


@rule("PRS003", "dynamo-reasoning-fallback", "error",
      "Dynamo is given a reasoning parser it does not have and silently falls back to 'basic'.",
      "Dynamo's frontend looks reasoning parsers up by name and, for an unknown name, logs a "
      "warning and uses its basic <think> parser instead of failing. The model's own reasoning "
      "markup is then not separated from the answer. Use a name from Dynamo's registry "
      "(deepseek_v4, gpt_oss, kimi_k3, glm45, ...), which often differs from SGLang's spelling.",
      ("ai-dynamo/dynamo lib/parsers/src/reasoning/mod.rs (unknown name -> warning, basic parser)",
       "rules/parsers.yaml (dynamo.reasoning)"))
def check_dynamo_reasoning(ctx: Context):
    for ref, _model in _refs(ctx):
        if ref.registry != "dynamo" or ref.kind != "reasoning":
            continue
        registry = ctx.kb.parser_registry("dynamo", "reasoning")
        name = ref.name.value
        if registry is None or not isinstance(name, str) or name.lower() in registry:
            continue
        yield Finding("PRS003",
                      f"Dynamo has no reasoning parser '{name}' ({ref.via}) and silently falls back to 'basic'"
                      f"{_suggest(ctx.kb, ref, registry)}", ref.name.span)


def _parser_flag(ctx: Context, registry: str, kind: str) -> str:
    flags = (ctx.kb.parsers.get(registry) or {}).get("flags") or {}
    return str(flags.get(kind) or "")


@rule("PRS004", "missing-parser", "warning",
      "A reasoning model served without a reasoning parser, or tool calls enabled without a "
      "tool-call parser.",
      "Without a reasoning parser the engine returns the model's thinking inside the answer "
      "(message content), which breaks clients and inflates answer lengths; this matters for "
      "models that always reason, or whose chat template turns thinking on by default. vLLM's "
      "--enable-auto-tool-choice needs --tool-call-parser (vLLM refuses to start without it). "
      "gpt-oss on vLLM and TensorRT-LLM is exempt: both split its harmony channels natively. The "
      "message names the parser that engine has for the model's format.",
      ("rules/models.yaml (reasoning: always | optional, thinking on by default; reasoning_format, "
       "tool_call_format)",
       "rules/parsers.yaml (formats per parser; vLLM requires_with_tool_call and native_reasoning_formats "
       "with their sources)"),
      # vLLM's own check of --enable-auto-tool-choice (FLG005, compiled) says the same, with no parser to add
      supersedes=("FLG005",))
def check_missing_parser(ctx: Context):
    procs = ctx.deployment.processes
    kinds_set = {ref.kind for p in procs for ref in p.parsers}
    for p in ctx.deployment.engine_processes():
        yield from _missing_tool_parser(ctx, p, kinds_set)
        entry, _where = served_model(ctx, p)
        if entry is None or not p.engine:
            continue
        registry = "dynamo" if p.orchestrator == "dynamo" and p.engine == "trtllm" else p.engine
        reasoning = str(entry.get("reasoning") or "").lower()
        thinks = reasoning == "always" or (reasoning == "optional" and entry.get("thinking_default") is True)
        want = model_formats(entry, "reasoning")
        if not reasoning and "reasoning" not in kinds_set and not p.synthetic:
            ctx.not_checked("reasoning parser presence (PRS004)",
                            f"the knowledge base does not say whether {entry['id']} reasons", _where.span if _where else None)
        native = (ctx.kb.parsers.get(p.engine) or {}).get("native_reasoning_formats") or []
        if thinks and "reasoning" not in kinds_set and p.synthetic:
            ctx.not_checked("reasoning parser presence (PRS004)",
                            f"only the engine config {p.launcher.removeprefix('engine config ')} is published, not the "
                            f"command that starts it (parsers are launch flags)", p.span)
            continue
        if thinks and "reasoning" not in kinds_set and "reasoning_parser" not in p.unknown \
                and not (set(want) & set(native)):
            fitting = fitting_parsers(ctx.kb.parser_registry(registry, "reasoning"), want)
            flag = _parser_flag(ctx, registry, "reasoning")
            fix = f"; add {flag} {fitting[0]}" if fitting and flag else \
                (f"; add {flag} for its {want[0]} format" if want and flag else "")
            yield Finding("PRS004", f"{entry['id']}{fact_origin(entry)} {'always reasons' if reasoning == 'always' else 'thinks by default'} "
                                    f"but the {ENGINE_NAMES.get(p.engine, p.engine)} launch has no reasoning parser: "
                                    f"its thinking is returned inside the answer{fix}", p.span)


def _missing_tool_parser(ctx: Context, p, kinds_set: set):
    auto = p.settings.get("auto_tool_choice")
    if p.engine == "vllm" and auto is not None and auto.value is True and "tool_call" not in kinds_set \
            and "tool_call_parser" not in p.unknown:
        entry, _where = served_model(ctx, p)
        tools = model_formats(entry, "tool_call")
        fitting = fitting_parsers(ctx.kb.parser_registry("vllm", "tool_call"), tools)
        fix = f"; add --tool-call-parser {fitting[0]}" + (f" ({(entry or {}).get('id')} emits {' / '.join(tools)})" if tools else "") \
            if fitting else "; add --tool-call-parser with the parser for the model's tool-call format"
        yield Finding("PRS004", f"--enable-auto-tool-choice without --tool-call-parser: vLLM refuses to start "
                                f"('--enable-auto-tool-choice requires --tool-call-parser'){fix}", auto.span)
