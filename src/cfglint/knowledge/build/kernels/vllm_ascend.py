"""The vllm-ascend platform plugin's part of the kernel matrix, read statically from a release's
``vllm_ascend/`` tree (nothing imported):

- ``quantization``: the methods the plugin registers with vLLM (``@register_quantization_config(NAME)``
  anywhere under vllm_ascend/, NAME a string or a module-level string constant of the tree), each
  with the file that registers it;
- ``platform_quantization``: ``supported_quantization`` of the plugin's platform class
  (vllm_ascend/platform.py): the only methods vLLM takes on Ascend NPUs.

vLLM runs on Ascend NPUs only through this plugin, so a launch on an Ascend accelerator takes these
methods as ``--quantization`` choices besides upstream vLLM's.
"""

from __future__ import annotations

import ast
from pathlib import Path

from . import astread

__all__ = ["extract"]


def _constants(root: Path) -> dict[str, str]:
    """Module-level ``NAME = "text"`` of every file of the tree (the plugin keeps its method
    names as constants in vllm_ascend/utils.py)."""
    out: dict[str, str] = {}
    for path in astread.py_files(root, "vllm_ascend"):
        tree = astread.parse(path)
        for st in tree.body if tree else ():
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                text = astread.string(st.value)
                if text is not None:
                    out.setdefault(st.targets[0].id, text)
    return out


def _name(node, constants: dict[str, str]) -> str | None:
    text = astread.string(node)
    if text is None and isinstance(node, ast.Name):
        text = constants.get(node.id)
    return text


def extract(root: Path) -> dict:
    constants = _constants(root)
    quantization: dict[str, list[str]] = {}
    platform = None
    for path in astread.py_files(root, "vllm_ascend"):
        tree = astread.parse(path)
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                for dec in node.decorator_list:
                    if isinstance(dec, ast.Call) and astread.attr_tail(dec.func) == "register_quantization_config" \
                            and dec.args:
                        name = _name(dec.args[0], constants)
                        if name:
                            quantization.setdefault(name, []).append(rel)
            if rel == "vllm_ascend/platform.py" and isinstance(node, ast.ClassDef):
                for st in node.body:
                    target = st.target if isinstance(st, ast.AnnAssign) else (st.targets[0] if isinstance(st, ast.Assign) else None)
                    if isinstance(target, ast.Name) and target.id == "supported_quantization" and st.value is not None \
                            and isinstance(st.value, (ast.List, ast.Tuple)):
                        names = [_name(e, constants) for e in st.value.elts]
                        if names and all(names):
                            platform = {"methods": sorted(names), "source": f"{rel}:{st.lineno}"}
    out: dict = {}
    if quantization:   # a method registered twice (the Atlas 300I variant under _310p/): the main one
        out["quantization"] = {n: {"source": min(files, key=lambda f: ("/_310p/" in f"/{f}", f))}
                               for n, files in sorted(quantization.items())}
    if platform:
        out["platform_quantization"] = platform
    return out
