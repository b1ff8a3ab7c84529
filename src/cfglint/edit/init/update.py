"""Updating an existing ``submission.yaml``: only the derivable fields that differ from the
derived values change, in place, through ruamel.yaml's round-trip mode: the author's comments,
key order and quoting stay as written (:mod:`cfglint.edit.roundtrip`, which imports ruamel.yaml only
when a manifest is written: ``cfglint check`` never loads it)."""

from __future__ import annotations

import os
from typing import Any

from ...knowledge import Knowledge
from ...load.discover import MANIFEST
from ..roundtrip import dump, keep_unchanged, read_back_safe, rt_yaml, style_of
from .agree import agrees
from .change import ABSENT, Change, plain
from .errors import InitError
from .fields import ROLE_KEYS, Derived, role_default

# The manifest's top-level keys in the order examples/README.md gives them (a key init adds to an
# existing manifest goes after the last of these that precedes it).
ORDER = ("schema_version", "submitter", "model", "precision", "system", "engine", "serving",
         "speculative_decoding", "accelerators_used", "files", "source")


def _same_scalar_style(old: Any, new: Any) -> Any:
    """``new`` written with the quoting ``old`` had (a double-quoted version stays double-quoted)."""
    from ruamel.yaml.scalarstring import ScalarString

    if isinstance(old, ScalarString) and isinstance(new, str):
        return type(old)(new)
    return new


def _set(mapping, key: str, new: Any, where: str, changes: list[Change]) -> None:
    """Set ``mapping[key]`` to ``new`` (a new key goes after its predecessors in ORDER)."""
    old = mapping.get(key, ABSENT) if hasattr(mapping, "get") else ABSENT
    changes.append(Change(where, plain(old) if old is not ABSENT else ABSENT, new))
    if key in mapping:   # what init writes reads back as itself (a YAML 1.1 loader too)
        mapping[key] = read_back_safe(_same_scalar_style(mapping[key], new))
        return
    new = read_back_safe(new)
    if key in ORDER:
        before = [k for k in ORDER[:ORDER.index(key)] if k in mapping]
        pos = list(mapping).index(before[-1]) + 1 if before else 0
        mapping.insert(pos, key, new)
    else:
        mapping[key] = new


def _holder(mapping, key: str, empty: type):
    """``mapping[key]`` when it is a mapping (``empty`` CommentedMap) or a list (CommentedSeq),
    else an empty one set there in ORDER's place: the place changed values go, not a change of
    its own (the values set in it are the changes)."""
    have = mapping.get(key)
    if isinstance(have, dict if issubclass(empty, dict) else list):
        return have
    _set(mapping, key, empty(), key, [])
    return mapping[key]


def _file_key(item: Any) -> str | None:
    if isinstance(item, str):
        return os.path.normpath(item)
    if isinstance(item, dict) and isinstance(item.get("path"), str):
        return os.path.normpath(item["path"])
    return None


def plan(doc, d: Derived, kb: Knowledge) -> list[Change]:
    """Update ``doc`` (a manifest loaded by ruamel.yaml's round-trip loader) in place: every
    derivable field whose declared value does not agree with the derived one (:func:`agrees`)
    is set; fields not derived stay as they are. Returns the changes made."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    m = d.manifest
    changes: list[Change] = []
    engine_name = m["engine"].get("name") or d.engine
    for key in ("model", "precision"):
        if key in m and not agrees(key, m[key], plain(doc.get(key)), kb):
            _set(doc, key, m[key], key, changes)
    eng = _holder(doc, "engine", CommentedMap)
    for key in ("name", "version", "orchestrator"):
        if key in m["engine"] and not agrees(f"engine.{key}", m["engine"][key], plain(eng.get(key))):
            _set(eng, key, m["engine"][key], f"engine.{key}", changes)
    serving = _holder(doc, "serving", CommentedMap)
    if serving.get("mode") != m["serving"]["mode"]:
        _set(serving, "mode", m["serving"]["mode"], "serving.mode", changes)
    roles = _holder(serving, "roles", CommentedSeq)
    have = {r.get("name"): r for r in roles if isinstance(r, dict)}
    for r in m["serving"]["roles"]:
        where = f"serving.roles[{r['name']}]"
        target = have.get(r["name"])
        if target is None:
            target = CommentedMap(name=read_back_safe(r["name"]))
            roles.append(target)
            changes.append(Change(where, ABSENT, r))
            for key in ("instances", "accelerators_per_instance"):
                if key in r:
                    target[key] = r[key]
            for key in ROLE_KEYS:
                if key in r and r[key] != role_default(key):
                    target[key] = r[key]
            continue
        for key in ("instances", "accelerators_per_instance") + ROLE_KEYS:
            if key not in r:
                continue
            declared = plain(target.get(key, role_default(key) if key in ROLE_KEYS else None))
            if declared != r[key]:
                _set(target, key, r[key], f"{where}.{key}", changes)
    if "serving.roles" not in d.missing and m["serving"]["roles"]:
        wanted = {r["name"] for r in m["serving"]["roles"]}
        for r in list(roles):
            if isinstance(r, dict) and r.get("name") not in wanted:
                roles.remove(r)
                changes.append(Change(f"serving.roles[{r.get('name')}]", plain(r), ABSENT))
    if "speculative_decoding" in m:
        spec = m["speculative_decoding"]
        old = plain(doc.get("speculative_decoding", ABSENT))
        if spec is None and old not in (None, ABSENT):
            _set(doc, "speculative_decoding", None, "speculative_decoding", changes)
        elif spec is not None and not agrees("speculative_decoding", spec, old, engine=engine_name):
            _set(doc, "speculative_decoding", CommentedMap(spec), "speculative_decoding", changes)
    if "accelerators_used" in m and plain(doc.get("accelerators_used")) != m["accelerators_used"]:
        _set(doc, "accelerators_used", m["accelerators_used"], "accelerators_used", changes)
    files = _holder(doc, "files", CommentedMap)
    for key in ("launch", "configs", "deploy"):
        derived = m["files"].get(key, [])
        listed = files.get(key)
        if not isinstance(listed, list):
            if not derived:
                continue
            listed = _holder(files, key, CommentedSeq)
        by_path = {_file_key(i): i for i in listed}
        for item in list(listed):   # entries naming a file that is not there (SUB002)
            k = _file_key(item)
            if k is not None and not os.path.lexists(os.path.join(d.root, k)):
                listed.remove(item)
                changes.append(Change(f"files.{key}", plain(item), ABSENT))
        for item in derived:
            k = _file_key(item)
            old = by_path.get(k)
            if old is None:
                listed.append(read_back_safe(CommentedMap(item) if isinstance(item, dict) else item))
                changes.append(Change(f"files.{key}", ABSENT, item))
            elif isinstance(old, dict) and isinstance(item, dict) and "role" in old and old.get("role") != item["role"]:
                _set(old, "role", item["role"], f"files.{key}[{k}].role", changes)
    return changes


def update_text(text: str, d: Derived, kb: Knowledge) -> tuple[str, list[Change]]:
    """The manifest ``text`` with its derivable fields set to the derived values, comments,
    key order and quoting kept (ruamel.yaml round-trip; lines it would only re-flow are kept as
    written). Raises :class:`InitError` when ``text`` is not a YAML mapping."""
    from ruamel.yaml.error import YAMLError

    try:
        (width, mapping, sequence, offset), noop = style_of(text)
        y = rt_yaml(width, mapping, sequence, offset)
        doc = y.load(text)
    except (YAMLError, ValueError, RecursionError) as err:
        problem, mark = getattr(err, "problem", None), getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        text = problem or (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise InitError(f"the existing {MANIFEST} cannot be updated: {text}{where}") from None
    if not isinstance(doc, dict):
        raise InitError(f"the existing {MANIFEST} is not a YAML mapping")
    changes = plan(doc, d, kb)
    if not changes:
        return text, []
    return keep_unchanged(text, noop, dump(y, doc)), changes
