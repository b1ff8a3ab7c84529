"""Writing a new ``submission.yaml``: the derived fields, and ``null  # FILL IN: ...`` where the
launch does not say (ruamel.yaml round-trip, imported here only: ``cfglint check`` never loads it).

The text passes yamllint's default rules (submission repositories run yamllint in pre-commit):
``---`` first, two spaces before every end-of-line comment, no line over :data:`WIDTH` columns (a
note too long for the end of its line goes on comment lines above its field)."""

from __future__ import annotations

import textwrap

from ..roundtrip import dump, read_back_safe, rt_yaml
from .fields import ROLE_INT_KEYS, TO_FILL, Derived

TODO = "FILL IN"
WIDTH = 80   # yamllint's default line-length
# Columns of the keys of each mapping, as rt_yaml() indents them (mapping 2; a sequence's dash at
# offset 2, its items' keys at 4 past their parent's indentation)
TOP, NESTED, ROLE = 0, 2, 2 + 4


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

    def put(mapping, indent: int, key, value, why: str | None = None):
        mapping[key] = value
        if why:
            _note(mapping, indent, key, f"{TODO}: {why}")

    put(top, TOP, "submitter", None, TO_FILL["submitter"])
    put(top, TOP, "model", m.get("model"), None if "model" in m else
        f"Hugging Face repo id (owner/name); {miss.get('model', '')}")
    put(top, TOP, "precision", m.get("precision"), None if "precision" in m else
        f"BF16, FP8, NVFP4, MXFP4, ... ({miss.get('precision', '')})")
    system = CommentedMap()
    put(system, NESTED, "accelerator", None, TO_FILL["system.accelerator"])
    put(system, NESTED, "accelerators_total", None, TO_FILL["system.accelerators_total"])
    top["system"] = system
    engine = CommentedMap()
    engine["name"] = m["engine"]["name"]
    if "version" in m["engine"]:
        engine["version"] = m["engine"]["version"]
    if "orchestrator" in m["engine"]:
        engine["orchestrator"] = m["engine"]["orchestrator"]
    elif "engine.orchestrator" in miss:
        _note(engine, NESTED, "name", f"add orchestrator: dynamo if Dynamo runs the workers "
                                      f"({miss['engine.orchestrator']})")
    top["engine"] = engine
    serving = CommentedMap()
    serving["mode"] = m["serving"]["mode"]
    roles = CommentedSeq()
    for r in m["serving"]["roles"]:
        role = CommentedMap()
        where = f"serving.roles[{r['name']}]"
        role["name"] = r["name"]
        for key in ("instances", "accelerators_per_instance"):
            put(role, ROLE, key, r.get(key), None if key in r else miss.get(f"{where}.{key}", "not derived"))
        for key in ROLE_INT_KEYS:
            if key in r and (key == "tp" or r[key] != 1):
                role[key] = r[key]
            elif key == "tp" and f"{where}.tp" in miss:   # absent would declare TP 1
                put(role, ROLE, "tp", None, miss[f"{where}.tp"])
        if r.get("attention_dp"):
            role["attention_dp"] = True
        roles.append(role)
    serving["roles"] = roles
    top["serving"] = serving
    if "speculative_decoding" in m:
        spec = m["speculative_decoding"]
        top["speculative_decoding"] = None if spec is None else CommentedMap(spec)
    else:
        put(top, TOP, "speculative_decoding", None,
            f"algorithm and draft_tokens, or null ({miss.get('speculative_decoding')})")
    put(top, TOP, "accelerators_used", m.get("accelerators_used"),
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
    top.yaml_set_start_comment("\n".join(line for text in head for line in _wrap(text, TOP)))
    y = rt_yaml()
    y.explicit_start = True
    return f"{schema_line()}\n" + dump(y, read_back_safe(top))


def _wrap(text: str, indent: int) -> list[str]:
    """``text`` as comment lines (without ``# ``) that fit :data:`WIDTH` columns at ``indent``; a
    word longer than a line (a path) stands alone on its line, which yamllint allows."""
    return textwrap.wrap(text, WIDTH - indent - 2, break_long_words=False, break_on_hyphens=False) or [""]


def _note(mapping, indent: int, key: str, text: str) -> None:
    """Comment ``text`` (neutralized) on ``key`` of ``mapping``, whose keys are at column
    ``indent``: at the end of the key's line, two spaces after the value, when the line stays
    within :data:`WIDTH` columns; else on comment lines above the key, and the end of its line
    keeps only the FILL IN mark (what one greps for)."""
    text = _comment(text)
    value = mapping[key]
    line = indent + len(f"{key}: {'null' if value is None else value}")
    column = line + 2
    if column + len(f"# {text}") <= WIDTH:
        mapping.yaml_add_eol_comment(f"# {text}", key, column=column)
        return
    todo = text.startswith(f"{TODO}: ")
    above = text[len(f"{TODO}: "):] if todo else text
    mapping.yaml_set_comment_before_after_key(key, before="\n".join(_wrap(above, indent)), indent=indent)
    if todo:
        mapping.yaml_add_eol_comment(f"# {TODO} (see above)", key, column=column)


def schema_line() -> str:
    """The first lines of a new manifest: the modeline with which yaml-language-server (VS Code's
    YAML extension, Neovim's and Helix's yamlls) validates and completes the file against the
    published manifest schema. The URL is longer than yamllint's 80 columns: the line says so to
    yamllint (whose rules submission repositories run), which yaml-language-server ignores."""
    from ...schema.validation import schema_id

    return ("# yamllint disable rule:line-length\n"
            f"# yaml-language-server: $schema={schema_id('submission.schema.json')}\n"
            "# yamllint enable rule:line-length")
