"""FLG001 unknown flag, FLG002 invalid value, FLG003 conflicting values: every flag a launch
passes (command line, worker argument file, SGLang --config YAML key) against the launcher's
own flag registry in rules/flags/."""

from __future__ import annotations

import re

from ..deploy.extract import Arg, Process
from ..deploy.release import named_by
from ..knowledge import FlagRegistry, versions
from ..knowledge.flaghelp import LABELS
from ..model import Finding
from .base import Context, here, rule

LABEL = LABELS   # how messages name each registry's launcher
_PLACEHOLDER = re.compile(r"<[^<>\s][^<>]*>")
# flags whose value is a model: a local checkpoint folder or a Hugging Face repo id (the engines'
# help texts: "The path of the model weights. This can be a local folder or a Hugging Face repo ID.")
_MODEL_FLAG = re.compile(r"^--(.*[-_])?(model|model[-_]path|model[-_]dir|tokenizer|tokenizer[-_]path)$")
_HUMAN_INT = re.compile(r"-?\d+(\.\d+)?\s*([kKmMgGtT]i?[bB]?)?")


def _registries(ctx: Context, p: Process, across: bool = False) -> list[FlagRegistry] | None:
    """The flag registries of ``p``'s launcher at the releases it runs (deploy/release.py), or
    across every release held where its release is not one cfglint read (or ``across``)."""
    regs = []
    for t in p.tables:
        launch = p.releases.get(t.split(".", 1)[0])
        release = None if across or launch is None else launch.release
        reg = ctx.kb.registry(t, release)
        if reg is None:
            return None  # no data for this launcher: nothing to say
        regs.append(reg)
    return regs or None


def _lookup(regs: list[FlagRegistry], option: str) -> tuple[FlagRegistry, str] | None:
    """The first registry that knows ``option``, with the flag's primary name."""
    for r in regs:
        primary = r.find(option)
        if primary is not None:
            return r, primary
    return None


def _setting_of(regs: list[FlagRegistry], arg: Arg) -> str | None:
    """The flag ``arg`` sets, by its primary name (vLLM ``--json-flag.key``: that one key of the
    JSON argument, which vLLM merges), or None when no registry knows it."""
    found = _lookup(regs, arg.name)
    if found is None:
        return None
    return found[1] + (arg.name[arg.name.index("."):] if "." in arg.name else "")


def overridden(ctx: Context, p: Process) -> dict[int, Arg]:
    """The flags of ``p`` that another one setting the same flag overrides, as ``id(arg)`` -> the
    arg whose value the engine takes: the command line wins over its --config YAML, and the last
    one wins among the command line's (or the YAML's) own (as FLG003 says). {} when the
    launcher's flags are not known."""
    regs = _registries(ctx, p)
    if regs is None:
        return {}
    by_flag: dict[str, list[Arg]] = {}
    for arg in p.args:
        primary = _setting_of(regs, arg)
        if primary is not None:
            by_flag.setdefault(primary, []).append(arg)
    out: dict[int, Arg] = {}
    for args in by_flag.values():
        if len(args) > 1:
            cli = [a for a in args if a.origin == "cli"]
            winner = (cli or args)[-1]
            out.update((id(a), winner) for a in args if a is not winner)
    return out


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
      "A flag the launcher does not have at the release the launch runs (misspelled, another engine's, removed, or newer).",
      "Each launcher parses its own flags: SGLang (argparse, unique abbreviations allowed, no "
      "underscore spellings), vLLM (underscores accepted for dashes), trtllm-serve (click), "
      "Dynamo's frontend and workers, and each release has its own set. An unknown flag stops the "
      "launch, on the GPUs, after the container has pulled. The release a launch runs is the "
      "manifest's engine.version (engine.orchestrator_version for Dynamo), else the release in the "
      "container image's tag (vllm/vllm-openai:v0.10.0), else a pinned package (pip install "
      "vllm==0.8.4): a flag that release does not have is an error naming the releases that have "
      "it (added in, removed in, its replacement). With no release known the newest release read is "
      "assumed: a flag in no release is an error, one the newest no longer has is a warning naming "
      "the releases that have it, and COV001 says which releases the launch's flags fit. A release "
      "beyond the data (newer, older, a build such as '0.5.11 DSv4') makes an unknown flag a warning.",
      ("rules/releases/{vllm,sglang,sglang-router,dynamo}.yaml: every release's flags, compiled from the engines' "
       "published packages by `python -m cfglint.knowledge.build engines` (inputs in "
       "rules/releases/inputs.yaml)",
       "rules/flags/*.yaml: hand-written notes, replacement hints and other engines' spellings; "
       "TensorRT-LLM's flags (no release of it is on PyPI)"))
def check_unknown_flags(ctx: Context):
    suggest = _Suggester()
    for p in ctx.deployment.processes:
        regs = _registries(ctx, p)
        if regs is None:
            if p.args and not p.synthetic:   # a launch whose flags no registry holds: said so, not passed
                ctx.not_checked(f"flags of {p.launcher} (FLG001)",
                                "cfglint holds no flag list of this launcher, so its flags are not checked",
                                p.args[0].span)
            continue
        across = _registries(ctx, p, across=True)
        pinned = {r.name: p.releases.get(r.name.split(".", 1)[0]) for r in regs}
        loose: dict[str, list[tuple[Arg, str, list[str]]]] = {}   # engine -> flags of some releases only
        deprecated: list[Finding] = []
        for arg in p.args:
            found = _lookup(regs, arg.name)
            if found is None:
                for f in _not_found(ctx, p, arg, regs, across, pinned, suggest):
                    yield _with_consequence(f, p, arg)
                continue
            r, primary = found
            entry = r.flags.get(primary) or {}
            if entry.get("warn_deprecated") and entry.get("replacement"):
                # accepted for compatibility: the launch works, with a warning at start
                deprecated.append(Finding("FLG001", f"{LABEL.get(r.name, r.name)}: {arg.name}{_where(arg)} is deprecated "
                                                    f"(\"{entry['deprecated']}\"; still accepted); use {entry['replacement']}",
                                          arg.span, level="warning"))
            launch = pinned.get(r.name)
            if r.compiled and launch is not None and launch.release is None and entry.get("releases"):
                data = ctx.kb.engine_releases(launch.engine)
                if data is not None and data.newest_has(r.name, primary, _normal(r, arg.name)):
                    continue   # the newest release, which an undeclared launch is taken to run, has it
                held = _option_releases(ctx, r, arg.name) or entry["releases"]
                data = ctx.kb.engine_releases(launch.engine)
                if r.allow_abbrev and data is not None and data.releases[-1] not in held:
                    # an alias in some releases may be an accepted abbreviation in others (SGLang --tp)
                    held = [x for x in data.releases if x in held or ctx.kb.registry(r.name, x).find(arg.name)]
                loose.setdefault(launch.engine, []).append((arg, r.name, held))
        _hand_only(ctx, p, regs)
        stale: list[Finding] = []
        for engine, held in loose.items():
            stale.extend(_release_fit(ctx, p, engine, held))
        # one finding per flag: a flag the newest release dropped says so, whatever else it is
        spans = {f.span for f in stale}
        yield from (f for f in deprecated if f.span not in spans)
        yield from stale


def _not_found(ctx: Context, p: Process, arg: Arg, regs: list[FlagRegistry], across: list[FlagRegistry] | None,
               pinned: dict, suggest: _Suggester):
    """FLG001 for a flag the launcher's registries do not have at the release the process runs."""
    message = _unknown_message(ctx, arg, regs, suggest)
    launch = next((pinned.get(r.name) for r in regs if pinned.get(r.name) is not None), None)
    if launch is None or not regs[0].compiled:
        yield Finding("FLG001", message, arg.span)
        return
    res = launch.resolution
    if res.release is not None:   # a release read: the flag is not in it
        other = _lookup(across or [], arg.name)
        held = (_option_releases(ctx, other[0], arg.name) or (other[0].flags.get(other[1]) or {}).get("releases")) \
            if other else None
        shown = versions.leading(res.version or "") or res.release
        where = named_by(launch, ctx.manifest) + (f"; the flags of {res.release} stand for it" if res.how == "line" else "")
        text = f"{LABEL.get(regs[0].name, regs[0].name)} {shown} ({where}) has no {arg.name}{_where(arg)}"
        if held:
            text += "; " + _history(ctx, launch.engine, held, res.release)
            hint = _replacement(regs, arg.name)
            text += _advice(hint) if hint and _before(ctx, launch.engine, held, res.release) else ""
        elif ":" in message:
            text += ":" + message.split(":", 1)[1]
        yield Finding("FLG001", text, arg.span)
        return
    if res.how == "unknown":      # no release known: a flag of no release is an error
        yield Finding("FLG001", message, arg.span)
        return
    if res.how == "bundled":      # shipped in another engine's image: checked across every release held
        data = ctx.kb.engine_releases(launch.engine)
        span = data.span() if data is not None else ""
        yield Finding("FLG001", f"{message} (in no {data.label if data else launch.engine} release cfglint holds, "
                                f"{span}: {res.note})", arg.span)
        return
    # a release beyond the data (newer, older, a line not read, not on the registry): it may have it
    yield Finding("FLG001", f"{message} (in no release cfglint holds; {res.note})", arg.span, level="warning")
    ctx.not_checked(f"flag names of {LABEL.get(regs[0].name, regs[0].name)} {res.version}", res.note, arg.span)


# how a message names a setting a mistyped flag leaves unknown
_NAMES = {"tp": "TP", "pp": "PP", "dp": "DP", "ep": "EP", "dcp": "DCP", "model": "the model",
          "max_context": "the context length", "mem_fraction": "the memory fraction"}


def _with_consequence(f: Finding, p: Process, arg: Arg) -> Finding:
    """``f`` (FLG001 at ``arg``) with what the mistyped flag leaves unknown (deploy: Process.mistyped):
    the one finding of that root cause; the checks that need the setting do not run on a default."""
    for setting, (bad, meant) in p.mistyped.items():
        if bad is arg:
            name = _NAMES.get(setting, setting.replace("_", " "))
            f.message += (f"{' ' if f.message.endswith('?') else '. '}While it is not spelled {meant}, {name} is unknown: the checks that use {name} do "
                          f"not run (no engine default is assumed for it)")
    return f


def _normal(reg: FlagRegistry, option: str) -> str:
    """``option`` as the launcher reads it: vLLM's _ for -, a JSON flag's dotted key dropped."""
    if reg.underscores and option.startswith("--"):
        option = "--" + option[2:].partition(".")[0].replace("_", "-")
    return option.split(".", 1)[0] if "." in option[2:] else option


def _option_releases(ctx: Context, reg: FlagRegistry, option: str) -> list[str]:
    """The releases in which ``option`` as written (normalised as the launcher does) is a flag,
    alias or negation of ``reg``'s launcher; [] when written otherwise (an abbreviation)."""
    data = ctx.kb.engine_releases(reg.name.split(".", 1)[0])
    if data is None:
        return []
    return data.option_releases(reg.name, _normal(reg, option))


def _replacement(regs: list[FlagRegistry], name: str) -> str | None:
    for r in regs:
        info = r.removed.get(name)
        if isinstance(info, dict) and info.get("replacement"):
            return str(info["replacement"])
    return None


def _advice(replacement: str) -> str:
    """``; use X`` from a hand-written replacement note (``removed; use --x``, ``--x <n> alone``)."""
    text = replacement.strip()
    if text.lower().startswith("removed"):
        text = text[len("removed"):].lstrip(" ;,:")
    if not text:
        return ""
    return f"; {text}" if text.lower().startswith(("use ", "see ")) else f"; use {text}"


def _before(ctx: Context, engine: str, held: list[str], release: str) -> bool:
    data = ctx.kb.engine_releases(engine)
    return bool(data) and data.releases.index(held[-1]) < data.releases.index(release)


def _history(ctx: Context, engine: str, held: list[str], release: str, short: bool = False) -> str:
    """``added in X`` / ``removed in Y (it was in A..B)`` / ``it exists in ranges``."""
    data = ctx.kb.engine_releases(engine)
    if data is None:
        return ""
    order = data.releases
    i = order.index(release)
    first, last = order.index(held[0]), order.index(held[-1])
    ranges = versions.ranges(held, order)
    if first > i:
        return f"added in {held[0]}" + ("" if last == len(order) - 1 and ranges.count(",") == 0 else f" (it is in {ranges})")
    if last < i:
        gone = order[last + 1]
        return f"removed in {gone}" + ("" if short else f" (it was in {ranges})")
    return f"it exists in {ranges}"


def _hand_only(ctx: Context, p: Process, regs: list[FlagRegistry]) -> None:
    """COV001 for a launcher whose flags cfglint holds only as a hand-made list of one release
    line (TensorRT-LLM: PyPI publishes no source of its releases): unless the launch runs a
    release of that line, its flags were not checked against the release it runs."""
    from ..knowledge.bundled import shared

    if not any(a.origin == "cli" for a in p.args):
        return   # no flag given (an engine YAML read on its own: its keys are SCH001's, not flags)
    for r in regs:
        engine = r.name.split(".", 1)[0]
        if r.compiled or ctx.kb.engine_releases(engine) is not None:
            continue
        hand = shared(f"flags/{engine}.yaml")   # the hand list's own line (release_line: "1.2-1.3")
        found = (hand.get("versions") or hand.get("version") or hand.get("release_line")) if isinstance(hand, dict) else None
        lines = [str(x) for x in (found if isinstance(found, list) else [found] if found else [])]
        launch = p.releases.get(engine)
        written = str(launch.written.value) if launch is not None and launch.written is not None else None
        number = versions.leading(written.lstrip("vV")) if written else None
        if number and any(_in_line(number, x) for x in lines):
            continue
        said = f"it runs {written}" if written else "the release it runs is not declared"
        ctx.not_checked(f"flags of {LABEL.get(r.name, r.name)} at the release the launch runs",
                        f"{said}; cfglint holds no compiled release of it (PyPI publishes no source of "
                        f"TensorRT-LLM: rules/releases/inputs.yaml), and its flags were checked against the "
                        f"hand-made list of {', '.join(lines) or 'one release'} (rules/flags/{engine}.yaml)", p.span)


def _in_line(number: str, line: str) -> bool:
    """Whether release ``number`` (1.2.1, 1.3.0rc5) is of the release line ``line`` (1.2-1.3, 1.2)."""
    head = ".".join(number.split(".")[:2])
    first, _, last = line.partition("-")
    lo, hi = versions.parse(first), versions.parse(last or first)
    at = versions.parse(head)
    return None not in (lo, hi, at) and lo <= at <= hi


def _release_fit(ctx: Context, p: Process, engine: str, held: list[tuple[Arg, str, list[str]]]):
    """The release the launch runs is not one cfglint read: it is taken to be the newest. Each
    flag the newest release lacks (but older ones have) is a warning naming the releases that
    have it and its replacement; COV001 says which release was assumed and which releases have
    every flag of the launch."""
    data = ctx.kb.engine_releases(engine)
    if data is None:
        return
    newest = data.releases[-1]
    stale = [(arg, reg, rs) for arg, reg, rs in held if newest not in rs]
    if not stale:
        return
    launch = p.releases.get(engine)
    why = launch.resolution.note if launch is not None else f"the {data.label} release is not known"
    for arg, reg, rs in stale:
        text = (f"{arg.name}{_where(arg)} is a {LABEL.get(reg, reg)} flag of {versions.ranges(rs, data.releases)} "
                f"({_history(ctx, engine, rs, newest, short=True)}): {why}, and the newest release, {newest}, does not "
                f"have it")
        registry = ctx.kb.registry(reg)
        primary = registry.find(arg.name) if registry is not None else None
        hint = _replacement([registry], arg.name) or (registry.flags.get(primary) or {}).get("replacement") if primary else None
        yield Finding("FLG001", text + (_advice(hint) if hint else ""), arg.span, level="warning")
    common = set(data.releases)
    for _arg, _reg, rs in held:
        common &= set(rs)
    fit = versions.ranges([r for r in data.releases if r in common], data.releases) if common else ""
    ctx.not_checked(f"flags of {data.label} at the release the launch runs",
                    f"{why}; checked as the newest ({newest})" + (f"; its flags fit {fit}" if fit else
                                                                  "; no release has every flag it sets"), p.span)


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
      "(a default such as ${DRAFT:=4} passed to the wrong flag) is reported with the flag's type. "
      "A vLLM or SGLang --config YAML key is passed as the engine passes it: a word given to a flag "
      "that takes none, or a YAML true given to a flag that takes a value (vLLM passes it as the bare "
      "flag), is an error; a YAML false that vLLM drops (no --no-KEY) a warning. "
      "On Huawei Ascend NPUs vLLM runs through the vllm-ascend plugin, whose quantization methods "
      "(ascend, ...) are --quantization choices there.",
      ("rules/flags/*.yaml (choices and types from each engine's argument parser)",
       "vllm==0.33.0 vllm/utils/argparse_utils.py FlexibleArgumentParser.load_config_file (true: --KEY; false: "
       "--no-KEY when the parser has it, else nothing; other values: --KEY str(value))",
       "sglang==0.5.23 sglang/srt/utils/server_args_config_parser.py ConfigArgumentMerger._add_boolean_arg "
       "(store_true: --KEY for true; other flags: --KEY true|false)",
       "rules/releases/vllm-ascend-kernels.yaml (vllm-ascend: register_quantization_config and the "
       "platform's supported_quantization, per release)",
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
            if arg.origin != "cli" and r.name in ("vllm", "sglang"):
                form = _config_value_form(r.name, arg, entry)
                if form is not None:
                    yield Finding("FLG002", f"{arg.written}{_where(arg)}: {form[0]}", arg.value.span, level=form[1])
                    continue
            if entry.get("type") in ("bool", "optional_bool") or arg.name in (entry.get("negation") or []) \
                    or primary in parser_flags or any(a in parser_flags for a in entry.get("aliases") or []):
                continue
            why = _valid(entry, arg.value.value)
            if not why and entry.get("type") == "str" and _MODEL_FLAG.match(arg.name) \
                    and re.fullmatch(r"\d+(\.\d+)?", str(arg.value.value).strip()):
                why = (f"'{str(arg.value.value).strip()}' is a bare number, but {primary} takes a model (a checkpoint "
                       f"folder or a Hugging Face repo id, type {entry.get('type')}): a count or length given "
                       f"to the wrong flag or variable?")
            if why and primary == "--quantization" and p.engine == "vllm":
                why = _ascend_quantization(ctx, p, str(arg.value.value).strip(), why)
            if why:
                yield Finding("FLG002", f"{arg.written}{_where(arg)}: {why}", arg.value.span)


def _config_value_form(engine: str, arg: Arg, entry: dict) -> tuple[str, str | None] | None:
    """(why, level) when a ``--config`` YAML key's value has a form the engine cannot pass to the
    flag, or None. vLLM (vllm==0.33.0 vllm/utils/argparse_utils.py FlexibleArgumentParser.
    load_config_file): a YAML ``true`` becomes the bare flag, ``false`` its ``--no-<key>`` when
    the parser has one (else nothing is passed), another value ``--<key> str(value)``. SGLang
    (sglang==0.5.23 sglang/srt/utils/server_args_config_parser.py ConfigArgumentMerger): a YAML
    boolean of a ``store_true`` flag the bare flag (true) or nothing (false), of another flag
    ``--<key> true|false``, another value ``--<key> str(value)``."""
    value = arg.value.value if arg.value is not None else None
    if value is None or isinstance(value, (list, dict)):
        return None
    label = LABEL.get(engine, engine)
    takes_none = entry.get("type") == "bool" if engine == "vllm" else entry.get("action") == "store_true"
    if takes_none and not isinstance(value, bool):
        return (f"'{value}' is no YAML boolean, and the flag takes no value: {label} passes the key as "
                f"--{arg.written} {value}, which its argument parser refuses (unrecognized arguments: {value}); "
                f"write true or false", None)
    if isinstance(value, bool) and not takes_none and engine == "vllm" and entry.get("type") not in (None, "bool"):
        if value:
            return (f"a YAML true is passed by {label} as the bare flag --{arg.written}, with no value, but the "
                    f"flag takes one (type {entry.get('type')}): argparse refuses it (expected one argument)", None)
        return (f"a YAML false is passed by {label} only as --no-{arg.written}, which it does not have, so "
                f"nothing is passed and the setting keeps its default; write a value of type "
                f"{entry.get('type')} or remove the key", "warning")
    if isinstance(value, bool) and not takes_none and engine == "sglang":
        why = _valid(entry, str(value).lower())
        if why:
            return f"{label} passes a YAML {str(value).lower()} as the text '{str(value).lower()}': {why}", None
    return None


def _ascend_quantization(ctx: Context, p: Process, value: str, why: str) -> str | None:
    """On Ascend NPUs vLLM runs through the vllm-ascend plugin, whose quantization methods are
    choices too: None when ``value`` is one, else ``why`` naming them."""
    from .platforms import ascend_methods, on_ascend

    because = on_ascend(ctx, p)
    held = ascend_methods() if because else None
    if held is None:
        return why
    methods, source = held
    if value in methods:
        return None
    return f"{why}; on Ascend ({because}) the vllm-ascend plugin adds {', '.join(methods)} ({source})"


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
            primary = _setting_of(regs, arg) if arg.value is not None else None
            if primary is None:
                continue
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
