"""TensorRT-LLM's YAML schemas, read statically: the LLM-API arguments that ``--config`` /
``--extra_llm_api_options`` and each disaggregated server section accept
(``tensorrt_llm/llmapi/llm_args.py``: pydantic models ``BaseLlmArgs`` -> ``TorchLlmArgs`` /
``TrtLlmArgs`` and the nested ``*Config`` classes), and the ``trtllm-serve disaggregated -c``
file (``tensorrt_llm/llmapi/disagg_utils.py``).

Per field: its annotation text, choices (``Literal`` values, or an enum's member values;
``choices_open`` when the annotation also admits any ``str``), default (``default_expr`` when
not known statically), the pydantic ``Field`` facts (aliases, ``status``, ``deprecated``,
constraints, ``exclude``, ``frozen``, ``json_schema_extra`` type) and the config classes it
names. Classes, enums, annotations and defaults are evaluated with the shared evaluator.
"""

from __future__ import annotations

import ast
import json
import re

from .static.astutil import dotted, keyword, literal, short, strings_in, unparse
from .static.evaluator import Frame
from .static.typeforms import TAnnotated, TGeneric, TLiteral, TUnion
from .static.values import ClassRef, untaint
from .trtllm_click import is_literal, plain

__all__ = ["collect_classes", "extract_llm_args", "extract_disagg", "LLM_ARGS_PY", "CLASS_MODULES"]

LLM_ARGS_PY = "tensorrt_llm/llmapi/llm_args.py"
LLM_UTILS_PY = "tensorrt_llm/llmapi/llm_utils.py"
DISAGG_PY = "tensorrt_llm/llmapi/disagg_utils.py"
ROUTER_PY = "tensorrt_llm/serve/router.py"
# modules that may define config classes referenced from llm_args.py
CLASS_MODULES = [
    LLM_ARGS_PY, "tensorrt_llm/llmapi/utils.py", "tensorrt_llm/llmapi/build_cache.py", "tensorrt_llm/builder.py",
    "tensorrt_llm/models/modeling_utils.py", "tensorrt_llm/lora_helper.py", "tensorrt_llm/lora_manager.py",
    "tensorrt_llm/_torch/peft/lora/config.py", "tensorrt_llm/mapping.py", "tensorrt_llm/quantization/mode.py",
    "tensorrt_llm/llmapi/kv_cache_type.py", "tensorrt_llm/sampling_params.py",
    "tensorrt_llm/_torch/auto_deploy/llm_args.py", "tensorrt_llm/usage/config.py",
]
_NO = object()


def _is_model_base(name):
    return name in ("BaseModel", "StrictBaseModel", "BaseSettings") or name.endswith("BaseModel")


def _known(ev, module, node, cls=None):
    v = plain(ev.eval(node, Frame(module, class_scope=cls)), _NO)
    return (False, None) if v is _NO else (True, v)


def _type_refs(ev, t, module, classes, enums):
    """(literal values, enum names, config class names) an annotation's typing value names,
    breadth first (as the annotation reads from the outside in)."""
    lits, erefs, crefs = [], [], []
    todo, seen = [untaint(t)[0]], 0
    while todo and seen < 200:
        seen += 1
        x = untaint(todo.pop(0))[0]
        if isinstance(x, TLiteral):
            lits += [v for v in (plain(y, None) for y in x.values)]
        elif isinstance(x, TUnion):
            todo += x.members
        elif isinstance(x, TGeneric):
            if isinstance(x.origin, ClassRef):
                todo.append(x.origin)
            todo += x.args
        elif isinstance(x, TAnnotated):
            todo.append(x.inner)
        elif isinstance(x, list):
            todo += x
        elif isinstance(x, str):
            r = untaint(ev.resolve_forward(x, module))[0] if x.strip().isidentifier() else None
            if isinstance(r, ClassRef) and r.name in classes and r.name not in crefs:
                crefs.append(r.name)
        elif isinstance(x, ClassRef):
            if x.name in enums and x.name not in erefs:
                erefs.append(x.name)
            elif x.name in classes and x.name not in crefs:
                crefs.append(x.name)
    return lits, erefs, crefs


def _field_call_info(ev, module, call, cls):
    """Facts of a ``Field(...)`` / ``field(...)`` call."""
    info = {}
    for d in ([call.args[0]] if call.args else []) + [keyword(call, "default")]:
        if d is None:
            continue
        if isinstance(d, ast.Constant) and d.value is Ellipsis:
            info["required"] = True
            continue
        ok, v = _known(ev, module, d, cls)
        info["default"] = v if ok else None
        if not is_literal(d):
            info["default_expr"] = unparse(d)
    df = keyword(call, "default_factory")
    if df is not None:
        info["default_factory"] = unparse(df)
        v = plain(ev.factory_value(df, Frame(module, class_scope=cls)), _NO)
        if v is not _NO:
            info["default"] = v
    for k in ("alias", "validation_alias", "serialization_alias"):
        v = keyword(call, k)
        if v is None:
            continue
        if isinstance(v, ast.Call) and (dotted(v.func) or "").endswith("AliasChoices"):
            info[k] = [a.value for a in v.args if isinstance(a, ast.Constant)]
            continue
        ok, lv = _known(ev, module, v, cls)
        info[k] = ([lv] if isinstance(lv, str) else lv) if ok else unparse(v)
    st = keyword(call, "status")
    if st is not None:
        ok, v = _known(ev, module, st, cls)
        info["status"] = v if ok else unparse(st)
    dep = keyword(call, "deprecated")
    if dep is not None:
        ok, v = _known(ev, module, dep, cls)
        if ok and v:
            info["deprecated"] = short(v) if isinstance(v, str) else True
    jse = keyword(call, "json_schema_extra")
    if isinstance(jse, ast.Dict):
        for k, v in zip(jse.keys, jse.values):
            if isinstance(k, ast.Constant) and k.value in ("type", "status"):
                ok, lv = _known(ev, module, v, cls)
                if ok:
                    info["schema_" + k.value] = lv
    for k in ("exclude", "frozen"):
        v = keyword(call, k)
        if v is not None and _known(ev, module, v, cls) == (True, True):
            info[k] = True
    for k in ("ge", "gt", "le", "lt", "min_length", "max_length"):
        v = keyword(call, k)
        if v is not None:
            ok, lv = _known(ev, module, v, cls)
            if ok:
                info.setdefault("constraints", {})[k] = lv
    return info


def _class_extra(ev, module, cls_node, cls):
    """pydantic ``extra=`` from ``model_config`` / ``class Config``."""
    for st in cls_node.body:
        if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "model_config" for t in st.targets):
            v = st.value
            if isinstance(v, ast.Dict):
                for k, val in zip(v.keys, v.values):
                    if isinstance(k, ast.Constant) and k.value == "extra":
                        return _known(ev, module, val, cls)[1]
            if isinstance(v, ast.Call):
                e = keyword(v, "extra")
                if e is not None:
                    return _known(ev, module, e, cls)[1]
        if isinstance(st, ast.ClassDef) and st.name == "Config":
            for s2 in st.body:
                if isinstance(s2, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "extra" for t in s2.targets):
                    ok, v = _known(ev, module, s2.value, cls)
                    return v if ok else unparse(s2.value)
    return None


def _validator_renames(fn):
    """Keys a before-validator reads or pops from the raw dict, and its rename / deprecation
    messages."""
    keys = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("pop", "get") and n.args:
            if isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                keys.append(n.args[0].value)
        if isinstance(n, ast.Compare) and isinstance(n.left, ast.Constant) and isinstance(n.left.value, str) \
                and any(isinstance(o, (ast.In, ast.NotIn)) for o in n.ops):
            keys.append(n.left.value)
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
            keys.append(n.slice.value)
    msgs = [s for s in strings_in(fn) if re.search(r"deprecat|renamed|no longer|removed|instead", s, re.I)]
    ks = [k for k in dict.fromkeys(keys) if re.match(r"^[a-z_][a-z0-9_]*$", k)]
    return ks, [short(m) for m in msgs[:3]]


def collect_classes(ev):
    """(classes, enums) of :data:`CLASS_MODULES`: every model / dataclass by name (the one in
    llm_args.py wins) with its own fields, validators, class variables and ``extra``; every
    enum's members."""
    tree = ev.tree
    raw = {}
    for rel in CLASS_MODULES:
        t = tree.parse_file(rel)
        if t is None:
            continue
        module = tree.module_of(rel)
        for n in ast.walk(t):
            if isinstance(n, ast.ClassDef):
                if n.name in raw and rel != LLM_ARGS_PY:
                    continue
                raw[n.name] = (ClassRef(module, n), rel)
    enums, classes = {}, {}
    for name, (c, _rel) in raw.items():
        if ev.is_enum(c):
            enums[name] = {m.name: plain(m.value, None) for m in ev.enum_members(c)}

    def is_model(name, seen=()):
        if name not in raw or name in seen:
            return _is_model_base(name)
        c, _ = raw[name]
        if any("dataclass" in (unparse(d) or "") for d in c.node.decorator_list):
            return True
        return any(_is_model_base(b) or is_model(b, seen + (name,)) for b in _base_names(c.node))

    for name, (c, rel) in raw.items():
        if name in enums or not is_model(name):
            continue
        classes[name] = _class_record(ev, c, rel, raw, enums)
    for name in list(classes):
        f, e = _resolved(classes, name)
        classes[name]["all_fields"] = f
        classes[name]["extra_resolved"] = e
    return classes, enums


def _base_names(node):
    return [(dotted(b) or unparse(b) or "").split(".")[-1] for b in node.bases]


def _class_record(ev, c, rel, raw, enums):
    n, module = c.node, c.module
    is_dc = any("dataclass" in (unparse(d) or "") for d in n.decorator_list)
    fields, validators, classvars = {}, [], {}
    for st in n.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            fname = st.target.id
            ann_src = unparse(st.annotation)
            if ann_src and ann_src.startswith(("ClassVar", "typing.ClassVar")):
                ok, v = _known(ev, module, st.value, c) if st.value is not None else (False, None)
                classvars[fname] = v if ok else (unparse(st.value) if st.value is not None else None)
                continue
            if isinstance(st.value, ast.Call) and (dotted(st.value.func) or "").split(".")[-1] == "PrivateAttr":
                continue
            f = {"annotation": ann_src, "line": st.lineno}
            if st.value is None:
                f["required"] = True
            elif isinstance(st.value, ast.Call) and (dotted(st.value.func) or "").split(".")[-1] in ("Field", "PydanticField", "field"):
                f.update(_field_call_info(ev, module, st.value, c))
                if "default" not in f and "default_factory" not in f and "default_expr" not in f:
                    f["required"] = True
            elif is_literal(st.value):
                f["default"] = literal(st.value)
            else:
                f["default_expr"] = unparse(st.value)
                ok, v = _known(ev, module, st.value, c)
                if ok:
                    f["default"] = v
            t = ev.annotation(st.annotation, c)
            lits, erefs, crefs = _type_refs(ev, t, module, raw, enums)
            if (erefs or lits) and re.search(r"(^|[\[, ])str([\],]|$)", ann_src or ""):
                f["choices_open"] = True
            if lits:
                f["choices"] = lits
            if erefs:
                f["enum"] = erefs
                if not lits:
                    vals = []
                    for e in erefs:
                        vals += [v for v in enums[e].values() if v not in vals]
                    f["choices"] = vals
            if crefs:
                f["classes"] = crefs
            if fname.startswith("_") and not f.get("alias"):
                continue
            fields[fname] = f
        elif isinstance(st, ast.Assign) and not is_dc:
            for t in st.targets:
                if isinstance(t, ast.Name) and t.id == "decoding_type":
                    ok, v = _known(ev, module, st.value, c)
                    if ok:
                        classvars["decoding_type"] = v
        if isinstance(st, ast.FunctionDef):
            for d in st.decorator_list:
                ds = unparse(d) or ""
                if ("model_validator" in ds and "before" in ds) or ds.startswith("root_validator") and "pre=True" in ds:
                    ks, msgs = _validator_renames(st)
                    if msgs:
                        validators.append({"name": st.name, "mode": "before", "keys": ks, "messages": msgs, "line": st.lineno})
                elif "field_validator" in ds or ds.startswith("validator"):
                    targets = [a.value for a in (d.args if isinstance(d, ast.Call) else [])
                               if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                    msgs = [s for s in strings_in(st) if re.search(r"deprecat|renamed|no longer|removed", s, re.I)]
                    if msgs:
                        validators.append({"name": st.name, "mode": "field", "fields": targets,
                                           "messages": [short(m) for m in msgs[:3]], "line": st.lineno})
    return {"bases": _base_names(n), "fields": fields, "validators": validators, "classvars": classvars,
            "extra": _class_extra(ev, module, n, c), "dataclass": is_dc, "source": rel, "line": n.lineno}


def _resolved(classes, name, seen=()):
    """Fields and ``extra`` of ``name`` with those of its bases (defined here) merged in."""
    c = classes.get(name)
    if c is None or name in seen:
        return {}, None
    merged, extra = {}, None
    for b in c["bases"]:
        bf, be = _resolved(classes, b, seen + (name,))
        merged.update(bf)
        if be is not None:
            extra = be
    merged.update(c["fields"])
    if c["extra"] is not None:
        extra = c["extra"]
    return merged, extra


def _spec_decoding_map(tree):
    """decoding_type string -> class name, from ``DecodingBaseConfig.from_dict``."""
    t = tree.parse_file(LLM_ARGS_PY)
    if t is None:
        return None
    for n in ast.walk(t):
        if isinstance(n, ast.ClassDef) and n.name == "DecodingBaseConfig":
            for fn in n.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "from_dict":
                    for st in ast.walk(fn):
                        if isinstance(st, ast.Dict) and st.keys and all(isinstance(k, ast.Constant) for k in st.keys):
                            m = {k.value: v.id for k, v in zip(st.keys, st.values) if isinstance(v, ast.Name)}
                            if m:
                                return m
    return None


def _extra_dict_mapping(tree):
    """The YAML keys ``update_llm_args_with_extra_dict`` turns into config objects, and key moves."""
    for rel in (LLM_ARGS_PY, LLM_UTILS_PY):
        t = tree.parse_file(rel)
        if t is None:
            continue
        for n in ast.walk(t):
            if isinstance(n, ast.FunctionDef) and n.name == "update_llm_args_with_extra_dict":
                mapping, moves = {}, []
                for st in ast.walk(n):
                    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                            and st.targets[0].id == "field_mapping" and isinstance(st.value, ast.Dict):
                        for k, v in zip(st.value.keys, st.value.values):
                            if isinstance(k, ast.Constant):
                                mapping[k.value] = dotted(v) or unparse(v)
                    # llm_args_dict["new"] = llm_args_dict.pop("old")
                    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Subscript) \
                            and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute) \
                            and st.value.func.attr == "pop" and st.value.args \
                            and isinstance(st.value.args[0], ast.Constant) and isinstance(st.targets[0].slice, ast.Constant):
                        moves.append({"from": st.value.args[0].value, "to": st.targets[0].slice.value, "line": st.lineno})
                return {"source": rel, "line": n.lineno, "field_mapping": mapping, "key_moves": moves}
    return None


def _slim_field(f):
    out = {"type": f.get("annotation")}
    for k in ("choices", "choices_open", "enum", "default", "default_expr", "default_factory", "required", "alias",
              "validation_alias", "status", "deprecated", "schema_type", "classes", "exclude", "frozen", "constraints"):
        if k in f:
            out[k] = f[k]
    return out


def extract_llm_args(tree, classes, enums):
    """The LLM-API schema: top-level fields per backend (``torch``, ``trt``), the nested config
    classes reachable from them, the speculative ``decoding_type`` map, the YAML keys converted
    into config objects, deprecations and renames, and the enums the fields use."""
    if LLM_ARGS_PY not in [c["source"] for c in classes.values()]:
        return None
    tops = {}
    for key, cands in (("base", ["BaseLlmArgs"]), ("torch", ["TorchLlmArgs"]), ("trt", ["TrtLlmArgs", "LlmArgs"]),
                       ("autodeploy", ["AutoDeployLlmArgs", "LlmArgs@auto_deploy"])):
        for c in cands:
            if c in classes and classes[c]["source"] == LLM_ARGS_PY:
                tops[key] = c
                break
    if "trt" not in tops and "LlmArgs" in classes:
        tops["trt"] = "LlmArgs"
    reach, todo = [], [tops[k] for k in ("torch", "trt", "base") if k in tops]
    while todo:
        c = todo.pop(0)
        if c in reach or c not in classes:
            continue
        reach.append(c)
        for f in classes[c]["all_fields"].values():
            todo += [r for r in f.get("classes", []) if r not in reach]
    spec_map = _spec_decoding_map(tree)
    for cn in (spec_map or {}).values():
        if cn in classes and cn not in reach:
            reach.append(cn)
    for cn, c in classes.items():
        if cn not in reach and any(b in reach for b in c["bases"]) and c["source"] == LLM_ARGS_PY:
            reach.append(cn)
    top_fields = {key: {fn: _slim_field(f) for fn, f in sorted(classes[cn]["all_fields"].items())}
                  for key, cn in tops.items() if key != "base"}
    nested = {}
    for cn in sorted(reach):
        if cn in tops.values():
            continue
        c = classes[cn]
        nested[cn] = {"source": c["source"], "extra": c["extra_resolved"], "bases": c["bases"],
                      "fields": {fn: _slim_field(f) for fn, f in sorted(c["all_fields"].items())}}
        if c["classvars"].get("decoding_type") is not None:
            nested[cn]["decoding_type"] = c["classvars"]["decoding_type"]
        vals = [v for b in [cn] + c["bases"] if b in classes for v in classes[b]["validators"]]
        if vals:
            nested[cn]["validators"] = vals
    order = []
    for cn in [tops.get("base"), tops.get("torch"), tops.get("trt")] + sorted(nested):
        todo = [cn]
        while todo:
            x = todo.pop(0)
            if x and x in classes and x not in order:
                order.append(x)
                todo += classes[x]["bases"]
    renames = []
    for cn in order:
        for v in classes[cn]["validators"]:
            renames.append(dict(v, **{"class": cn}))
        for fn, f in classes[cn]["fields"].items():
            for k in ("alias", "validation_alias"):
                if isinstance(f.get(k), list):
                    renames += [{"class": cn, "field": fn, "accepts_old_name": a, "via": k} for a in f[k] if a != fn]
            if f.get("status") == "deprecated" or f.get("deprecated"):
                renames.append({"class": cn, "field": fn, "deprecated": f.get("deprecated") or "status=deprecated"})
    seen, uniq = set(), []
    for r in renames:
        k = json.dumps(r, sort_keys=True)
        if k not in seen:
            seen.add(k)
            uniq.append(r)
    used = {e for group in list(nested.values()) for f in group["fields"].values() for e in f.get("enum") or []}
    used |= {e for t in top_fields.values() for f in t.values() for e in f.get("enum") or []}
    return {"source": LLM_ARGS_PY, "top_classes": tops, "extra": {k: classes[v]["extra_resolved"] for k, v in tops.items()},
            "top_level": top_fields, "nested": nested, "speculative_decoding_types": spec_map,
            "extra_dict": _extra_dict_mapping(tree), "deprecations_and_renames": uniq,
            "enums": {k: enums[k] for k in sorted(enums) if k in used}}


def extract_disagg(ev):
    """Keys of the ``trtllm-serve disaggregated -c`` YAML: the config dataclasses, the
    parameters of ``extract_disagg_cfg`` (top-level keys; other keys go to both server
    sections) and the router types ``create_router`` knows."""
    tree = ev.tree
    t = tree.parse_file(DISAGG_PY)
    if t is None:
        return None
    module = tree.module_of(DISAGG_PY)
    dcs = {}
    for n in t.body:
        if not isinstance(n, ast.ClassDef):
            continue
        if not (any("dataclass" in (unparse(d) or "") for d in n.decorator_list)
                or any(_is_model_base(b) for b in _base_names(n))):
            continue
        c = ClassRef(module, n)
        fields = {}
        for st in n.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                f = {"type": unparse(st.annotation)}
                if st.value is None:
                    f["required"] = True
                elif isinstance(st.value, ast.Call) and (dotted(st.value.func) or "").split(".")[-1] in ("field", "Field"):
                    f.update({k: v for k, v in _field_call_info(ev, module, st.value, c).items()
                              if k in ("default", "default_factory", "required")})
                elif is_literal(st.value):
                    f["default"] = literal(st.value)
                else:
                    f["default_expr"] = unparse(st.value)
                lits = [plain(v, None) for v in _literals_of(ev.annotation(st.annotation, c))]
                if lits:
                    f["choices"] = lits
                fields[st.target.id] = f
        dcs[n.name] = {"fields": fields, "line": n.lineno}
    funcs = {}
    for n in t.body:
        if isinstance(n, ast.FunctionDef) and (n.name.startswith("extract_") or n.name.startswith("parse_")):
            a = n.args
            params = [x.arg for x in a.args + a.kwonlyargs]
            defaults = {}
            pos = a.args[len(a.args) - len(a.defaults):] if a.defaults else []
            for p, d in list(zip(pos, a.defaults)) + [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]:
                ok, v = _known(ev, module, d)
                defaults[p.arg] = v if ok else unparse(d)
            keys_read = []
            for st in ast.walk(n):
                if isinstance(st, ast.Call) and isinstance(st.func, ast.Attribute) and st.func.attr in ("get", "pop") \
                        and st.args and isinstance(st.args[0], ast.Constant) and isinstance(st.args[0].value, str):
                    keys_read.append(st.args[0].value)
                if isinstance(st, ast.Subscript) and isinstance(st.slice, ast.Constant) and isinstance(st.slice.value, str):
                    keys_read.append(st.slice.value)
                if isinstance(st, ast.Compare) and isinstance(st.left, ast.Constant) and isinstance(st.left.value, str) \
                        and any(isinstance(o, (ast.In, ast.NotIn)) for o in st.ops):
                    keys_read.append(st.left.value)
            funcs[n.name] = {"params": [p for p in params if p not in ("self", "cls")], "defaults": defaults,
                             "var_kwargs": a.kwarg.arg if a.kwarg else None,
                             "keys_read": sorted({k for k in keys_read if re.match(r"^[a-z_][a-z0-9_]*$", k)}),
                             "line": n.lineno}
    top = funcs.get("extract_disagg_cfg")
    router_types = router_src = None
    rt = tree.parse_file(ROUTER_PY)
    if rt is not None:
        for n in ast.walk(rt):
            if isinstance(n, ast.FunctionDef) and n.name == "create_router":
                for st in ast.walk(n):
                    if isinstance(st, ast.Dict) and [k for k in st.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]:
                        router_types = [k.value for k in st.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
                        router_src = f"{ROUTER_PY}:{st.lineno}"
                        break
    return {"source": DISAGG_PY, "router_types": router_types, "router_types_source": router_src,
            "top_level_keys": (top or {}).get("params"), "top_level_defaults": (top or {}).get("defaults"),
            "top_level_other_keys_go_to": "context_servers/generation_servers (inherited by both sections)"
            if top and top.get("var_kwargs") else None,
            "functions": funcs, "classes": dcs}


def _literals_of(t):
    out, todo = [], [untaint(t)[0]]
    while todo:
        x = untaint(todo.pop(0))[0]
        if isinstance(x, TLiteral):
            out += x.values
        elif isinstance(x, TUnion):
            todo += x.members
        elif isinstance(x, TGeneric):
            todo += x.args
        elif isinstance(x, TAnnotated):
            todo.append(x.inner)
    return out

