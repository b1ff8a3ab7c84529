"""FLG001 unknown flag, FLG002 invalid value, FLG003 conflicting values: every flag a launch
passes (command line, worker argument file, SGLang --config YAML key) against the launcher's
own flag registry in rules/flags/."""

from __future__ import annotations

import re

from ..deploy.extract import Arg, Process
from ..knowledge import FlagRegistry
from ..knowledge.flaghelp import LABELS
from ..model import Finding
from .base import Context, here, rule

LABEL = LABELS   # how messages name each registry's launcher
_PLACEHOLDER = re.compile(r"<[^<>\s][^<>]*>")
# flags whose value is a model: a local checkpoint folder or a Hugging Face repo id (the engines'
# help texts: "The path of the model weights. This can be a local folder or a Hugging Face repo ID.")
_MODEL_FLAG = re.compile(r"^--(.*[-_])?(model|model[-_]path|model[-_]dir|tokenizer|tokenizer[-_]path)$")
_HUMAN_INT = re.compile(r"-?\d+(\.\d+)?\s*([kKmMgGtT]i?[bB]?)?")


def _registries(ctx: Context, p: Process) -> list[FlagRegistry] | None:
    regs = ctx.kb.flag_registries
    if not p.tables or any(t not in regs for t in p.tables):
        return None  # no data for this launcher: nothing to say
    return [regs[t] for t in p.tables]


def _lookup(regs: list[FlagRegistry], option: str) -> tuple[FlagRegistry, str] | None:
    """The first registry that knows ``option``, with the flag's primary name."""
    for r in regs:
        primary = r.find(option)
        if primary is not None:
            return r, primary
    return None


def _where(arg: Arg) -> str:
    return "" if arg.origin == "cli" else f" (key '{arg.written}' of {arg.origin})"


MAX_SUGGESTIONS = 100  # distinct unknown flags per submission that get a close-match search


class _Suggester:
    """Close matches for unknown flag names, once per distinct name and for at most
    MAX_SUGGESTIONS names per submission: a difflib search compares the name with every flag
    the launcher has, and 20 000 unknown flags took over 30 s. Later names get no guess."""

    def __init__(self):
        self.done: dict[tuple[str, tuple[str, ...]], list[str]] = {}

    def close(self, name: str, regs: list[FlagRegistry]) -> list[str]:
        key = (name, tuple(r.name for r in regs))
        if key not in self.done:
            if len(self.done) >= MAX_SUGGESTIONS:
                return []
            options = [o for r in regs for o in r.primary]
            import difflib

            self.done[key] = difflib.get_close_matches(name, options, n=2, cutoff=0.8)
        return self.done[key]


def _unknown_message(ctx: Context, arg: Arg, regs: list[FlagRegistry], suggest: _Suggester) -> str:
    label = " / ".join(LABEL.get(r.name, r.name) for r in regs)
    name = arg.name
    for r in regs:
        if name in r.removed:
            info = r.removed[name]
            return f"{label} no longer accepts {name}{_where(arg)}; use {info.get('replacement')}"
        if name in r.did_you_mean:
            info = r.did_you_mean[name]
            return f"{label} has no flag {name}{_where(arg)}: did you mean {info.get('suggest')}? ({info.get('why')})"
        amb = r.ambiguous(name)
        if len(amb) > 1:
            return f"{name}{_where(arg)} is an ambiguous abbreviation for {label}: it could be {', '.join(amb[:4])}"
    hints = []
    dashed = "--" + name.lstrip("-").replace("_", "-")
    fixed = next((r.find(dashed) for r in regs if r.find(dashed)), None)
    if fixed and dashed != name:
        hints.append(f"did you mean {dashed}?")
    else:
        close = suggest.close(name, regs)
        if close:
            hints.append("did you mean " + " or ".join(close) + "?")
    owners = [LABEL.get(n, n) for n, r in ctx.kb.flag_registries.items()
              if r not in regs and r.find(name) and not n.startswith("dynamo.")]
    if owners:
        hints.append(f"{name} is a {' and '.join(sorted(set(owners)))} flag")
    return f"{label} has no flag {name}{_where(arg)}" + (": " + "; ".join(hints) if hints else "")


@rule("FLG001", "unknown-flag", "error",
      "A flag the launcher does not have (misspelled, another engine's, or removed).",
      "Each launcher parses its own flags: SGLang (argparse, unique abbreviations allowed, no "
      "underscore spellings), vLLM (underscores accepted for dashes), trtllm-serve (click), "
      "Dynamo's frontend and workers. An unknown flag stops the launch, on the GPUs, after the "
      "container has pulled; flags from another engine (--enable-reasoning is vLLM's) are a "
      "common slip when a configuration is ported.",
      ("rules/flags/*.yaml: flag registries read from each engine's argument parser (versions and commits recorded there)",))
def check_unknown_flags(ctx: Context):
    suggest = _Suggester()
    for p in ctx.deployment.processes:
        regs = _registries(ctx, p)
        if regs is None:
            continue
        version = _declared_version(ctx, p)
        known = sorted({v for r in regs for v in r.versions})
        other_release = version is not None and known and version not in known
        for arg in p.args:
            found = _lookup(regs, arg.name)
            if found is None and other_release:
                # the flag list is of another release: the flag may exist in the declared one
                yield Finding("FLG001", f"{_unknown_message(ctx, arg, regs, suggest)} (flags of {', '.join(known)}; the "
                                        f"manifest declares {version}, whose flags cfglint does not hold)",
                              arg.span, level="warning")
                ctx.not_checked(f"flag names of {LABEL.get(regs[0].name, regs[0].name)} {version}",
                                f"cfglint holds the flag lists of {', '.join(known)} only", arg.span)
                continue
            if found is None:
                yield Finding("FLG001", _unknown_message(ctx, arg, regs, suggest), arg.span)
                continue
            r, primary = found
            entry = r.flags.get(primary) or {}
            if entry.get("warn_deprecated") and entry.get("replacement"):
                # accepted for compatibility: the launch works, with a warning at start
                yield Finding("FLG001", f"{LABEL.get(r.name, r.name)}: {arg.name}{_where(arg)} is deprecated "
                                        f"(\"{entry['deprecated']}\"; still accepted); use {entry['replacement']}",
                              arg.span, level="warning")
            if version is None or version not in r.versions:
                continue
            have = (r.flags.get(primary) or {}).get("versions")
            rejected = (r.removed.get(arg.name) or {}).get("versions_rejecting") or []
            if (have and version not in have) or version in rejected:
                other = ", ".join(v for v in (have or []) if v != version)
                yield Finding("FLG001", f"{LABEL.get(r.name, r.name)} {version} (the manifest's engine version) has no "
                                        f"{arg.name}{_where(arg)}" + (f"; it exists in {other}" if other else ""),
                              arg.span)


def _declared_version(ctx: Context, p: Process) -> str | None:
    """The engine release the manifest declares for ``p``'s engine (x.y.z), or None."""
    if not ctx.sub.has_manifest:
        return None
    engine = ctx.manifest.get("engine") if isinstance(ctx.manifest.get("engine"), dict) else {}
    if engine.get("name") != p.engine or not isinstance(engine.get("version"), str):
        return None
    m = re.search(r"\d+\.\d+\.\d+", engine["version"])
    return m.group(0) if m else None


def _valid(entry: dict, value) -> str | None:
    """Why ``value`` is not valid for the flag ``entry`` describes, or None."""
    text = str(value).strip()
    if _PLACEHOLDER.search(text):
        return None  # <0..1>, <head-ip>: filled in per host, published as a placeholder
    choices = entry.get("choices")
    typ = entry.get("type")
    if isinstance(choices, list) and choices:
        allowed = [str(c) for c in choices]
        if text not in allowed:
            lower = [c for c in allowed if c.lower() == text.lower()]
            if lower:
                return f"'{text}' must be written '{lower[0]}'"
            import difflib

            close = difflib.get_close_matches(text, allowed, n=1, cutoff=0.7)
            shown = ", ".join(allowed[:12]) + (", ..." if len(allowed) > 12 else "")
            return f"'{text}' is not one of {shown}" + (f"; did you mean '{close[0]}'?" if close else "")
        return None
    if text in [str(v) for v in (entry.get("known_values") or []) + (entry.get("published_values") or [])]:
        return None
    if typ == "int" and not isinstance(value, bool):
        ok = re.fullmatch(r"-?\d+", text) or (entry.get("human_readable") and (_HUMAN_INT.fullmatch(text)
                                                                               or text == "auto"))
        if not ok and text.lower() not in ("none", "null"):
            return f"'{text}' is not an integer"
    if typ == "float" and not isinstance(value, bool):
        try:
            float(text)
        except ValueError:
            if text.lower() not in ("none", "null"):
                return f"'{text}' is not a number"
    return None


@rule("FLG002", "invalid-flag-value", "error",
      "A flag's value is not one of its choices, or not of its type.",
      "Engines restrict many flags to fixed choices (--moe-runner-backend, --attention-backend, "
      "--kv-cache-dtype, --quantization, ...) and parse numbers strictly; a wrong value stops "
      "the launch. Choices are the engine's own lists, per version, in rules/flags/. A flag that "
      "takes a model (--model-path, --speculative-draft-model-path, ...) given a bare number "
      "(a default such as ${DRAFT:=4} passed to the wrong flag) is reported with the flag's type.",
      ("rules/flags/*.yaml (choices and types from each engine's argument parser)",
     "sgl-project/sglang python/sglang/srt/server_args.py (--model-path, --speculative-draft-model-path: "
     "\"a local folder or a Hugging Face repo ID\")"))
def check_flag_values(ctx: Context):
    # parser names are PRS001's: checked against the parser registries, with their own hints
    parser_flags = {f for e in ctx.kb.parsers.values() if isinstance(e, dict)
                    for k, f in (e.get("flags") or {}).items() if k in ("reasoning", "tool_call")}
    for p in ctx.deployment.processes:
        regs = _registries(ctx, p)
        if regs is None:
            continue
        for arg in p.args:
            if arg.value is None:
                continue
            found = _lookup(regs, arg.name)
            if found is None:
                continue
            r, primary = found
            entry = r.flags.get(primary) or {}
            if entry.get("type") in ("bool", "optional_bool") or arg.name in (entry.get("negation") or []) \
                    or primary in parser_flags or any(a in parser_flags for a in entry.get("aliases") or []):
                continue
            why = _valid(entry, arg.value.value)
            if not why and entry.get("type") == "str" and _MODEL_FLAG.match(arg.name) \
                    and re.fullmatch(r"\d+(\.\d+)?", str(arg.value.value).strip()):
                why = (f"'{str(arg.value.value).strip()}' is a bare number, but {primary} takes a model (a checkpoint "
                       f"folder or a Hugging Face repo id, type {entry.get('type')}): a count or length given "
                       f"to the wrong flag or variable?")
            if why:
                yield Finding("FLG002", f"{arg.written}{_where(arg)}: {why}", arg.value.span)


@rule("FLG003", "conflicting-flag-values", "error",
      "The same setting is given twice with different values.",
      "A flag repeated on the command line, or set both on the command line and in the --config "
      "YAML, is resolved silently by the parser (the last one, or the command line, wins): the "
      "published configuration then says two things and runs one of them.",
      ("sgl-project/sglang python/sglang/srt/server_args.py (--config values are overridden by the command line)",))
def check_conflicts(ctx: Context):
    for p in ctx.deployment.processes:
        regs = _registries(ctx, p)
        if regs is None:
            continue
        seen: dict[str, Arg] = {}
        for arg in p.args:
            found = _lookup(regs, arg.name)
            if found is None or arg.value is None:
                continue
            primary = found[1]
            if "." in arg.name:  # vLLM --json-flag.key value: one key of a JSON argument, merged by vLLM
                primary = primary + arg.name[arg.name.index("."):]
            first = seen.get(primary)
            if first is None:
                seen[primary] = arg
                continue
            a, b = str(first.value.value).strip(), str(arg.value.value).strip()
            if a.lower() == b.lower():
                continue
            winner = "the command line wins" if "cli" in (first.origin, arg.origin) and first.origin != arg.origin \
                else "the last one wins"
            later, earlier = (arg, first) if arg.origin == "cli" or first.origin != "cli" else (first, arg)
            yield Finding("FLG003", f"{primary} is {later.value.value} here but {earlier.value.value} at "
                                    f"{here(earlier.span)}{_where(earlier)}; {winner}",
                          later.span, related=[(earlier.span, f"{earlier.written} {earlier.value.value}")])
