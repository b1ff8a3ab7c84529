"""Quantization methods and their minimum compute capability, read from a release's
``*/layers/quantization`` package (vLLM and SGLang share the shape: a ``QuantizationConfig``
subclass with ``get_name()`` and ``get_min_capability()``)."""

from __future__ import annotations

import ast
from pathlib import Path

from . import astread


_PLATFORMS = ("musa", "npu", "hip", "xpu", "cpu")


def min_capabilities(root: Path, package: str) -> dict[str, dict]:
    """``{method name: {min_capability, source}}`` for every config class under
    ``root/package`` whose ``get_name`` returns a literal and whose ``get_min_capability`` (its
    own or a base class's in the same package) ends in a literal int. ``source`` is the file
    (relative to ``root``) and line of the ``get_min_capability`` read; a return that depends
    on the checkpoint (``100 if self.use_mxfp8 else 80``) keeps its plain branch and says so in
    ``note``."""
    classes: dict[str, tuple[ast.ClassDef, str]] = {}
    for path in astread.py_files(root, package):
        tree = astread.parse(path)
        if tree is None:
            continue
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, (node, rel))

    def find(name: str, method: str, seen=()):
        if name not in classes or name in seen:
            return None
        cls, rel = classes[name]
        fn = astread.methods(cls).get(method)
        if fn is not None:
            return fn, rel
        for base in cls.bases:
            b = astread.attr_tail(base)
            got = find(b, method, (*seen, name)) if b else None
            if got:
                return got
        return None

    def reaches_config(name: str, seen=()) -> bool:
        if name == "QuantizationConfig":
            return True
        if name not in classes or name in seen:
            return False
        return any(reaches_config(astread.attr_tail(b) or "", (*seen, name)) for b in classes[name][0].bases)

    def fact_of(name: str) -> dict | None:
        found = find(name, "get_min_capability")
        if found is None:
            return None
        fn, where = found
        value = astread.last_return(fn)
        note = None
        if isinstance(value, ast.IfExp):
            note = f"conditional: {ast.unparse(value)}"
            test = ast.unparse(value.test)
            if any(p in test for p in _PLATFORMS):   # the CUDA branch: the one where the platform test fails
                negated = isinstance(value.test, ast.UnaryOp) and isinstance(value.test.op, ast.Not)
                value = value.body if negated else value.orelse
            else:                                    # a checkpoint variant: the plain branch
                value = value.orelse
        cap = astread.literal(value) if value is not None else None
        if not isinstance(cap, int) or isinstance(cap, bool):
            return None
        fact = {"min_capability": cap, "source": f"{where}:{fn.lineno}", "config_class": name}
        if note:
            fact["note"] = note
        return fact

    out: dict[str, dict] = {}
    # the registry: a dict literal {"awq": AWQConfig, ...} in the package's __init__.py
    init = root / package / "__init__.py"
    tree = astread.parse(init) if init.is_file() else None
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.Dict) and node.keys and all(astread.string(k) for k in node.keys if k is not None):
            for k, v in zip(node.keys, node.values):
                cls_name = astread.attr_tail(v)
                if k is None or not cls_name or not reaches_config(cls_name):
                    continue
                fact = fact_of(cls_name)
                if fact is not None:
                    out.setdefault(astread.string(k), dict(fact, registered=f"{init.relative_to(root).as_posix()}"))
    # classes not in that dict: by their get_name()
    for name, (cls, rel) in sorted(classes.items()):
        if not reaches_config(name):
            continue
        get_name = astread.methods(cls).get("get_name")
        ret = astread.single_return(get_name) if get_name is not None else None
        method = astread.string(ret) if ret is not None else None
        if not method or "{" in method or method in out:
            continue
        fact = fact_of(name)
        if fact is not None:
            out[method] = fact
    return dict(sorted(out.items()))
