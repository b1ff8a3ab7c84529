"""Field-by-field comparison of what `cfglint init` derives with a published manifest
(tests/test_init.py)."""

from __future__ import annotations

from cfglint.edit.init.agree import agrees
from cfglint.edit.init.fields import ROLE_KEYS, Derived, role_default


def _files(items) -> dict:
    out = {}
    for i in items or []:
        if isinstance(i, str):
            out[i] = None
        elif isinstance(i, dict):
            out[i.get("path")] = i.get("role")
    return out


def compare(d: Derived, pub: dict, kb) -> dict[str, str]:
    """field -> 'equal' | 'agrees' | 'differs: derived X, published Y' | 'not derived: why', for
    every derivable field the published manifest declares (role keys with their schema
    defaults: a role without tp declares tp 1)."""
    m = d.manifest
    eng = m["engine"].get("name") or d.engine
    out: dict[str, str] = {}

    def one(field, derived, declared, missing_key=None, present=True):
        if not present:
            return
        if derived is _NONE:
            why = d.missing.get(missing_key or field)
            out[field] = f"not derived: {why}" if why else "not derived: the launch does not state it"
        elif derived == declared:
            out[field] = "equal"
        elif agrees(field, derived, declared, kb, eng):
            out[field] = "agrees"
        else:
            out[field] = f"differs: derived {derived!r}, published {declared!r}"

    for key in ("model", "precision", "accelerators_used"):
        one(key, m.get(key, _NONE), pub.get(key), present=key in pub)
    pe = pub.get("engine") or {}
    for key in ("name", "version", "orchestrator"):
        one(f"engine.{key}", m["engine"].get(key, _NONE), pe.get(key), present=key in pe)
    ps = pub.get("serving") or {}
    one("serving.mode", m["serving"]["mode"], ps.get("mode"))
    got = {r["name"]: r for r in m["serving"]["roles"]}
    for r in ps.get("roles") or []:
        name = r.get("name")
        where = f"serving.roles[{name}]"
        if name not in got:
            out[where] = "not derived: " + d.missing.get("serving.roles", "the launch starts no such role")
            continue
        for key in ("instances", "accelerators_per_instance") + ROLE_KEYS:
            declared = r.get(key, role_default(key) if key in ROLE_KEYS else None)
            derived = got[name].get(key, _NONE)
            if derived is _NONE and key not in r and f"{where}.{key}" not in d.missing:
                continue   # optional, not declared, not stated by the launch
            one(f"{where}.{key}", derived, declared)
    for name in set(got) - {r.get("name") for r in ps.get("roles") or []}:
        out[f"serving.roles[{name}]"] = "differs: the launch starts this role, the manifest does not declare it"
    one("speculative_decoding", m.get("speculative_decoding", _NONE), pub.get("speculative_decoding"))
    pf = pub.get("files") or {}
    for key in ("launch", "configs", "deploy"):
        if key == "deploy" and key not in m["files"] and key not in pf:
            continue
        a, b = _files(m["files"].get(key)), _files(pf.get(key))
        if a == b:
            out[f"files.{key}"] = "equal"
        elif set(a) == set(b) and all(b[k] is None or a[k] == b[k] for k in b):
            out[f"files.{key}"] = "agrees"
        else:
            out[f"files.{key}"] = f"differs: derived {a}, published {b}"
    return out


class _None:
    pass


_NONE = _None()
