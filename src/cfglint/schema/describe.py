"""What a YAML key means, from the JSON Schema that checks it (an editor's hover in
``cfglint server``): the description, type, choices and bounds of the key at a key path."""

from __future__ import annotations

import json
from functools import lru_cache

from ..knowledge import data_dir


@lru_cache(maxsize=None)
def _schema(name: str) -> dict:
    with open(data_dir("schemas") / name, encoding="utf-8") as fh:
        return json.load(fh)


def _resolve(schema: dict, node, depth: int = 0) -> list[dict]:
    """``node`` with local ``$ref``s followed, and the branches of its oneOf / anyOf / allOf that
    are objects, each as one candidate (a key is looked up in all of them)."""
    if not isinstance(node, dict) or depth > 16:
        return []
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target = schema
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return _resolve(schema, target, depth + 1)
    out = [node]
    for combo in ("oneOf", "anyOf", "allOf"):
        for branch in node.get(combo) or []:
            out += _resolve(schema, branch, depth + 1)
    return out


def key_schema(name: str, path: tuple) -> list[dict]:
    """The schemas (after ``$ref`` and combinations) that ``schemas/<name>`` gives the value at
    ``path`` (mapping keys as strings, list indexes as ints); [] for a key it does not describe."""
    schema = _schema(name)
    nodes = _resolve(schema, schema)
    for part in path:
        nxt: list[dict] = []
        for n in nodes:
            if isinstance(part, int):
                nxt += _resolve(schema, n.get("items"))
            else:
                props = n.get("properties")
                if isinstance(props, dict) and part in props:
                    nxt += _resolve(schema, props[part])
                elif isinstance(n.get("additionalProperties"), dict):
                    nxt += _resolve(schema, n["additionalProperties"])
        nodes = nxt
        if not nodes:
            return []
    return nodes


def key_help(name: str, path: tuple) -> str | None:
    """Markdown for the key at ``path`` of a document checked against ``schemas/<name>``: its
    description, type(s), choices and bounds; None when the schema does not describe it."""
    nodes = key_schema(name, path)
    if not nodes:
        return None
    key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    lines = [f"**{key}**"]
    described = next((n["description"] for n in nodes if isinstance(n.get("description"), str)), None)
    if described:
        lines[0] += f": {described}"
    types: list[str] = []
    for n in nodes:
        t = n.get("type")
        for one in t if isinstance(t, list) else [t] if isinstance(t, str) else []:
            if one not in types:
                types.append(one)
        if "const" in n:
            types.append(f"the value {json.dumps(n['const'])}")
    if types:
        lines.append("Type: " + ", ".join(f"`{t}`" if not t.startswith("the ") else t for t in types))
    choices = list(dict.fromkeys(json.dumps(c) for n in nodes for c in n.get("enum") or []))
    if choices:
        lines.append("Choices: " + ", ".join(f"`{c}`" for c in choices))
    low = next((n["minimum"] for n in nodes if "minimum" in n), None)
    high = next((n["maximum"] for n in nodes if "maximum" in n), None)
    if low is not None or high is not None:
        lines.append(f"Range: {low if low is not None else '-inf'} to {high if high is not None else 'inf'}")
    lines.append(f"Schema: `schemas/{name}`")
    return "\n\n".join(lines)
