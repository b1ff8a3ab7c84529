"""Which releases accept a flag, and what it is there: the answer of ``cfglint flags ENGINE --has
FLAG`` (and of an editor's hover on a flag), from the compiled release data.
"""

from __future__ import annotations

from . import versions


def flag_info(kb, engine: str, option: str) -> list[dict]:
    """For each launcher of ``engine`` whose flags hold ``option`` in some release: ``{"launcher",
    "flag" (its name there), "releases" (ranges), "count", "type", "choices", "default",
    "deprecated", "aliases", "abbreviation" (True: a unique prefix the parser accepts),
    "choices_by_release" (``[{"releases", "choices"}]`` when the releases differ in their choices,
    else [])}`` (the other attributes as the newest release that has it reads them). []
    when no launcher has it; raises KeyError for an engine cfglint holds no releases of."""
    data = kb.engine_releases(engine)
    if data is None:
        raise KeyError(engine)
    spelled = option if option.startswith("-") else f"--{option}"
    out = []
    for launcher in data.launchers():
        held = data.option_releases(launcher, spelled)
        abbreviation = False
        if not held and (kb.registry(launcher) or None) is not None and kb.registry(launcher).allow_abbrev:
            # not a spelling of any flag: a unique prefix argparse takes for one (SGLang --tp)
            held = [r for r in data.releases if kb.registry(launcher, r).find(spelled)]
            abbreviation = bool(held)
        if not held:
            continue
        reg = kb.registry(launcher, held[-1])
        primary = reg.find(spelled) if reg is not None else None
        entry = (reg.flags.get(primary) if primary else None) or {}
        # the choices each release accepts, grouped: releases with the same choices, oldest first
        by_choices: dict[tuple, list[str]] = {}
        for r in held:
            r_reg = kb.registry(launcher, r)
            r_flag = r_reg.find(spelled) if r_reg is not None else None
            r_entry = (r_reg.flags.get(r_flag) if r_flag else None) or {}
            by_choices.setdefault(_choices_key(r_entry.get("choices")), []).append(r)
        out.append({"launcher": launcher, "flag": primary or spelled, "abbreviation": abbreviation,
                    "releases": versions.ranges(held, data.releases), "count": len(held),
                    "type": entry.get("type"), "choices": entry.get("choices"), "default": entry.get("default"),
                    "deprecated": entry.get("deprecated"),
                    "aliases": [a for a in entry.get("aliases") or [] if a != spelled],
                    "choices_by_release": [{"releases": versions.ranges(rs, data.releases),
                                            "choices": c if isinstance(c, str) else list(c)}
                                           for c, rs in by_choices.items() if c] if len(by_choices) > 1 else []})
    return out


def _choices_key(choices) -> tuple | str:
    """A release's choices as a key: a tuple of the values, or the word "dynamic" (a parser
    registry's names, checked after parsing: knowledge/build/engines/vllm.py)."""
    if isinstance(choices, str):
        return choices
    return tuple(choices or ())


def _shown_choices(choices) -> str:
    if choices == "dynamic":
        return "the names of its parser registry (checked after parsing; plugins may add some)"
    return ", ".join(map(str, choices)) if isinstance(choices, (list, tuple)) else str(choices)


def describe(kb, engine: str, option: str) -> str:
    """:func:`flag_info` as text, one paragraph per launcher."""
    data = kb.engine_releases(engine)
    found = flag_info(kb, engine, option)
    if not found:
        return f"no {data.label} release cfglint holds ({data.span()}, {len(data.releases)} releases) has {option}"
    lines = []
    for f in found:
        how = f" (as an abbreviation of {f['flag']})" if f["abbreviation"] else ""
        head = f"{f['launcher']} {f['flag'] if not f['abbreviation'] else option}{how}: {f['releases']} " \
               f"({f['count']} of {len(data.releases)} releases read)"
        facts = [f"type {f['type']}" if f["type"] else None,
                 f"choices {_shown_choices(f['choices'])}" if f["choices"] and not f["choices_by_release"]
                 else None,
                 "choices by release:" + "".join(f"\n    {g['releases']}: {_shown_choices(g['choices'])}"
                                                 for g in f["choices_by_release"]) if f["choices_by_release"] else None,
                 f"default {f['default']}" if f["default"] not in (None, "") else None,
                 f"aliases {', '.join(f['aliases'])}" if f["aliases"] else None,
                 f"deprecated: {f['deprecated']}" if f["deprecated"] else None]
        lines.append(head + "".join(f"\n  {x}" for x in facts if x))
    return "\n".join(lines)
