"""PRS001 / PRS002: reasoning and tool-call parser names against each engine's registry."""

from __future__ import annotations

import difflib
import re

from ..extract import ParserRef
from ..knowledge import Knowledge
from ..model import Finding
from . import Context, rule

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


def _refs(ctx: Context):
    seen = set()
    for p in ctx.deployment.processes:
        model = p.settings.get("model")
        for ref in p.parsers:
            key = (ref.registry, ref.kind, ref.name.span)
            if key in seen:
                continue
            seen.add(key)
            yield ref, (model.value if model and isinstance(model.value, str) else None)


def _suggest(kb: Knowledge, ref: ParserRef, registry: dict) -> str:
    name = str(ref.name.value)
    same = [n for n in registry if _squash(n) == _squash(name)]
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
      "answers and tool calls are not parsed.",
      ("rules/parsers.yaml: SGLang reasoning_parser_names.py / function_call parser_names.py, "
       "vLLM vllm/reasoning and vllm/tool_parsers registries, TensorRT-LLM reasoning_parser.py / "
       "tool_parser_factory.py, Dynamo lib/parsers (commits recorded per entry)",))
def check_unknown_parser(ctx: Context):
    for ref, _model in _refs(ctx):
        registry = ctx.kb.parser_registry(ref.registry, ref.kind)
        name = ref.name.value
        if registry is None or not isinstance(name, str) or name in registry or name.lower() in registry:
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
      "The parser exists but is written for another model family.",
      "Reasoning and tool-call parsers recognise one model family's markup (Kimi's, DeepSeek's, "
      "GLM's, gpt-oss harmony ...). A parser for another family starts fine and then returns "
      "reasoning inside the answer or misses every tool call.",
      ("rules/parsers.yaml (families per parser)", "rules/models.yaml (family per model)"))
def check_parser_family(ctx: Context):
    for ref, model in _refs(ctx):
        registry = ctx.kb.parser_registry(ref.registry, ref.kind)
        name = ref.name.value
        entry = registry.get(name) if registry and isinstance(name, str) else None
        families = entry.get("families") if isinstance(entry, dict) else None
        if not families:
            continue
        family, model_id = _model_family(ctx, model)
        if family is None or family in families:
            continue
        fitting = [n for n, e in registry.items() if isinstance(e, dict) and family in (e.get("families") or [])]
        hint = f"; {ENGINE_NAMES.get(ref.registry)} parsers for {family}: {', '.join(sorted(fitting))}" if fitting else ""
        yield Finding("PRS002",
                      f"{KIND_NAMES[ref.kind]} parser '{name}' ({ref.via}) is for {', '.join(families)} models, "
                      f"but the model {model_id} is {family}{hint}",
                      ref.name.span)


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
