"""Writing a new ``submission.yaml``: the derived fields, and ``null  # FILL IN: ...`` where the
launch does not say (ruamel.yaml round-trip, imported here only: ``cfglint check`` never loads it)."""

from __future__ import annotations

from ..roundtrip import dump, read_back_safe, rt_yaml
from .fields import ROLE_INT_KEYS, TO_FILL, Derived

TODO = "FILL IN"


def _comment(text: str) -> str:
    """``text`` for a YAML comment: it quotes the launch (a model path, a parser name), so a line
    break or control character in it is written as an escape: it can neither end the comment and
    add keys to the manifest nor drive a terminal that shows the file."""
    from ...output.neutral import neutralize

    return neutralize(text)


def new_manifest(d: Derived) -> str:
    """A new ``submission.yaml`` (text) from what was derived: the fields that could not be
    derived are ``null`` with a ``# FILL IN: ...`` comment (SUB001 reports them until they are)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    m, miss = d.manifest, d.missing
    top = CommentedMap()
    top["schema_version"] = 1

    def put(mapping, key, value, why: str | None = None):
        mapping[key] = value
        if why:
            mapping.yaml_add_eol_comment(_comment(f"{TODO}: {why}"), key)

    put(top, "submitter", None, TO_FILL["submitter"])
    put(top, "model", m.get("model"), None if "model" in m else f"Hugging Face repo id (owner/name); {miss.get('model', '')}")
    put(top, "precision", m.get("precision"), None if "precision" in m else
        f"BF16, FP8, NVFP4, MXFP4, ... ({miss.get('precision', '')})")
    system = CommentedMap()
    put(system, "accelerator", None, TO_FILL["system.accelerator"])
    put(system, "accelerators_total", None, TO_FILL["system.accelerators_total"])
    top["system"] = system
    engine = CommentedMap()
    engine["name"] = m["engine"]["name"]
    if "version" in m["engine"]:
        engine["version"] = m["engine"]["version"]
    if "orchestrator" in m["engine"]:
        engine["orchestrator"] = m["engine"]["orchestrator"]
    elif "engine.orchestrator" in miss:
        engine.yaml_add_eol_comment(_comment(f"add orchestrator: dynamo if Dynamo runs the workers "
                                             f"({miss['engine.orchestrator']})"), "name")
    top["engine"] = engine
    serving = CommentedMap()
    serving["mode"] = m["serving"]["mode"]
    roles = CommentedSeq()
    for r in m["serving"]["roles"]:
        role = CommentedMap()
        where = f"serving.roles[{r['name']}]"
        role["name"] = r["name"]
        for key in ("instances", "accelerators_per_instance"):
            put(role, key, r.get(key), None if key in r else miss.get(f"{where}.{key}", "not derived"))
        for key in ROLE_INT_KEYS:
            if key in r and (key == "tp" or r[key] != 1):
                role[key] = r[key]
            elif key == "tp" and f"{where}.tp" in miss:   # absent would declare TP 1
                put(role, "tp", None, miss[f"{where}.tp"])
        if r.get("attention_dp"):
            role["attention_dp"] = True
        roles.append(role)
    serving["roles"] = roles
    top["serving"] = serving
    if "speculative_decoding" in m:
        spec = m["speculative_decoding"]
        top["speculative_decoding"] = None if spec is None else CommentedMap(spec)
    else:
        put(top, "speculative_decoding", None, f"algorithm and draft_tokens, or null ({miss.get('speculative_decoding')})")
    put(top, "accelerators_used", m.get("accelerators_used"),
        None if "accelerators_used" in m else miss.get("accelerators_used"))
    files = CommentedMap()
    for key in ("launch", "configs", "deploy"):
        if key in m["files"]:
            seq = CommentedSeq()
            for item in m["files"][key]:
                seq.append(CommentedMap(item) if isinstance(item, dict) else item)
            files[key] = seq
    top["files"] = files
    head = [f"Written by `cfglint init` from the launch files; fill in the fields marked {TODO}, then run "
            "`cfglint check`."]
    head += [_comment(f"The launch sets a {p}; the manifest has no field for it.") for p in d.parsers]
    top.yaml_set_start_comment("\n".join(head))
    return dump(rt_yaml(), read_back_safe(top))
