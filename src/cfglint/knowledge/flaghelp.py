"""What a flag means, as an editor shows it on hover (``cfglint server``): one function builds
the text from the launcher's flag registry (``rules/releases/<engine>.yaml`` at the release the
launch runs, or across every release, with the overlays of ``rules/flags/<engine>.yaml``), so every fact shown
is one the rules check against, with the data's source."""

from __future__ import annotations

from .coverage import coverage
from . import versions
from .flagregistry import FlagRegistry

# How messages and hovers name each registry's launcher (rules/flags/*.yaml, flagregistry.registries)
LABELS = {"sglang": "SGLang", "vllm": "vLLM", "trtllm": "trtllm-serve", "trtllm.disaggregated": "trtllm-serve disaggregated",
          "dynamo.frontend": "Dynamo frontend", "dynamo.trtllm": "dynamo.trtllm", "dynamo.sglang": "dynamo.sglang",
          "dynamo.vllm": "dynamo.vllm", "sglang-router": "sglang_router.launch_router",
          "sglang-router.launch_server": "sglang_router.launch_server",
          "dynamo.sdk_vllm": "Dynamo SDK vLLM worker"}
MAX_CHOICES = 40   # choice values listed in full; past that the first ones and the count


def _code(items) -> str:
    return ", ".join(f"`{i}`" for i in items)


def _releases(registry: FlagRegistry, entry: dict, option: str, primary: str) -> list[str]:
    """The releases whose parser accepts ``option`` (as written; else its flag ``primary``): from
    compiled data, every release held that has it as a flag, alias or negation (as a range
    text); else the entry's own ``versions``,
    else the releases the registry's data was read from (its ``versions``, else what
    :func:`coverage` says of its engine: a ``version`` or a ``release_line``)."""
    compiled = getattr(registry.flags, "compiled", None)   # flagregistry._Overlaid over CompiledFlags
    if registry.compiled and compiled is not None and not entry.get("unreleased"):
        data = compiled.owner
        held = data.option_releases(compiled.launcher, option) or data.option_releases(compiled.launcher, primary)
        if held:
            return [versions.ranges(held, data.releases)]
    own = entry.get("versions")
    if isinstance(own, list) and own:
        return [str(v) for v in own]
    if registry.versions:
        return list(registry.versions)
    return coverage()["engines"].get(registry.name.split(".")[0], [])


def flag_help(registry: FlagRegistry, option: str, written: str | None = None) -> str | None:
    """Markdown for ``option`` (a flag as the launch gives it: alias, negation, abbreviation,
    vLLM underscore spelling, or a YAML key turned into ``--key``) of the launcher whose flags
    ``registry`` holds: its name and other spellings, type, choices (with the releases that have
    only some of them), default when the data records one, the releases that accept it,
    deprecation and replacement, notes, and where the data was read (``registry.source``).
    ``written``: how the file spells it (shown when it differs). None when the registry knows
    neither the option nor a removal of it. Facts: rules/flags/<engine>.yaml and their sources."""
    label = LABELS.get(registry.name, registry.name)
    primary = registry.find(option)
    shown = f" (written `{written}`)" if written and written != (primary or option) else ""
    if primary is None:
        removed = registry.removed.get(option)
        if not isinstance(removed, dict):
            return None
        lines = [f"**{option}**{shown}: removed from {label}; use `{removed.get('replacement')}`"]
        if removed.get("source"):
            lines.append(f"Source: {removed['source']}")
        return "\n\n".join(lines)
    entry = registry.flags.get(primary) or {}
    lines = [f"**{primary}**{shown}: {label} flag"]
    others = [a for a in [*(entry.get("aliases") or []), *(entry.get("negation") or [])] if a != primary]
    if others:
        lines.append(f"Also written: {_code(others)}")
    kind = entry.get("type")
    if kind:
        item = f" of {entry['item_type']}" if entry.get("item_type") else ""
        lines.append(f"Type: `{kind}`{item}" + (" (takes no value)" if kind == "bool" else ""))
    choices = entry.get("choices") or entry.get("accepted_values")
    if isinstance(choices, list) and choices:
        listed = _code(choices[:MAX_CHOICES]) + (f", ... ({len(choices)} in all)" if len(choices) > MAX_CHOICES else "")
        lines.append(f"Choices: {listed}")
        only = entry.get("choices_only_in") or entry.get("accepted_values_only_in")
        if isinstance(only, dict):
            lines += [f"Only in {release}: {_code(values)}" for release, values in only.items()]
    if "default" in entry:
        lines.append(f"Default: `{entry['default']}`")
    env = entry.get("env")
    if isinstance(env, list) and env:
        lines.append(f"Default from the environment: {_code(env)}")
    releases = _releases(registry, entry, written if written and registry.find(written) == primary else option, primary)
    if releases:
        lines.append(f"Accepted by {label} {', '.join(releases)}")
    rejecting = entry.get("versions_rejecting")
    if isinstance(rejecting, list) and rejecting:
        lines.append(f"Rejected by {', '.join(map(str, rejecting))}")
    if entry.get("deprecated"):
        lines.append(f"Deprecated: {entry['deprecated']}")
    if entry.get("replacement"):
        lines.append(f"Replacement: `{entry['replacement']}`")
    if entry.get("note"):
        lines.append(f"Note: {entry['note']}")
    source = entry.get("source")
    if source and registry.compiled and not entry.get("unreleased"):
        # a path in the engine's released package, read by the knowledge compiler
        source = f"{source} in the released package ({registry.source.split(' ', 1)[0]})"
    lines.append(f"Source: {source or registry.source}")
    return "\n\n".join(lines)
