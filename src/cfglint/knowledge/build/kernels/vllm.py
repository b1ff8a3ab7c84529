"""vLLM's kernel facts of one release, read statically from ``vllm/``:

- ``quantization``: each method's minimum compute capability (:mod:`.quant`) and where the
  loader refuses a GPU below it (``Minimum capability`` in the loader's message);
- ``attention_backends``: per backend of ``--attention-backend`` (the enum names of
  ``vllm/v1/attention/backends/registry.py``, else ``get_name()``): the compute capabilities it
  accepts (``supports_compute_capability``), head sizes, KV-cache dtypes, attention sinks
  (``supports_sink``: ``yes`` / ``no`` / ``conditional``), MLA (``is_mla``);
- ``fp8``: below which capability FP8 linear layers run the weight-only Marlin fallback
  (``use_marlin = not current_platform.has_device_capability(N)`` in quantization/fp8.py);
- ``marlin``: the Marlin kernels' tile (``GPTQ_MARLIN_MIN_THREAD_N`` / ``_K`` and the shape
  check ``verify_marlin_supports_shape`` in quantization/utils/marlin_utils.py);
- ``rocm_quantization``: the methods vLLM's ROCm platform accepts (``supported_quantization``
  in vllm/platforms/rocm.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from . import astread
from .quant import min_capabilities

_BACKEND_DIRS = ("vllm/v1/attention/backends", "vllm/attention/backends")


def _cc(node) -> dict | None:
    """``capability >= DeviceCapability(8, 0)`` / ``capability.major == 10`` / ... -> condition."""
    if isinstance(node, ast.BoolOp):
        parts = [_cc(v) for v in node.values]
        if any(p is None for p in parts):
            return None
        return {"and" if isinstance(node.op, ast.And) else "or": parts}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _cc(node.operand)
        return {"not": inner} if inner else None
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return {"cuda": True} if node.value else {"not": {"cuda": True}}
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, op, right = node.left, node.ops[0], node.comparators[0]
        ops = {ast.GtE: ">=", ast.Gt: ">", ast.LtE: "<=", ast.Lt: "<", ast.Eq: "==", ast.NotEq: "!="}
        # capability <op> DeviceCapability(a, b)
        if isinstance(left, ast.Name) and isinstance(right, ast.Call) and astread.attr_tail(right.func) == "DeviceCapability" \
                and type(op) in ops:
            args = [astread.literal(a) for a in right.args]
            if len(args) == 2 and all(isinstance(a, int) for a in args):
                return {"cc": [ops[type(op)], args[0] * 10 + args[1]]}
        # capability.major == N / in (...)
        if isinstance(left, ast.Attribute) and left.attr == "major":
            val = astread.literal(right)
            if isinstance(op, ast.Eq) and isinstance(val, int):
                return {"arch": [val]}
            if isinstance(op, ast.In) and isinstance(val, (list, tuple)) and all(isinstance(v, int) for v in val):
                return {"arch": sorted(val)}
            if type(op) in ops and isinstance(val, int) and type(op) is not ast.Eq:
                bound = {">=": val * 10, ">": val * 10 + 9, "<=": val * 10 + 9, "<": val * 10, "!=": None}[ops[type(op)]]
                return {"cc": [ops[type(op)], bound]} if bound is not None else {"not": {"arch": [val]}}
        # (capability.major, capability.minor) in ((12, 0), (12, 1))
        if isinstance(left, ast.Tuple) and isinstance(op, ast.In):
            val = astread.literal(right)
            if isinstance(val, (list, tuple)) and all(isinstance(v, tuple) and len(v) == 2 for v in val):
                return {"or": [{"cc": ["==", a * 10 + b]} for a, b in val]}
    return None


def _registry_names(root: Path) -> dict[str, str]:
    """``{class name: enum name}`` from the backend registry's enum (``FLASHINFER = "....FlashInferBackend"``)."""
    out: dict[str, str] = {}
    for rel in ("vllm/v1/attention/backends/registry.py", "vllm/attention/backends/registry.py"):
        tree = astread.parse(root / rel) if (root / rel).is_file() else None
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)) if tree else ():
            if cls.name != "AttentionBackendEnum" and not cls.name.endswith("_Backend"):
                continue
            for st in cls.body:
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                    path = astread.string(st.value)
                    if path and "." in path:
                        out.setdefault(path.rsplit(".", 1)[1], st.targets[0].id)
    return out


def attention_backends(root: Path) -> dict[str, dict]:
    """``{backend name: facts}`` (see the module docstring); facts a class does not state are
    taken from its base classes in the same tree (``AttentionBackend``: no sinks, every
    capability), and left out when no class states them."""
    classes: dict[str, tuple[ast.ClassDef, str]] = {}
    files = astread.py_files(root, *_BACKEND_DIRS, "vllm/v1/attention/backend.py", "vllm/attention/backends/abstract.py")
    for path in files:
        tree = astread.parse(path)
        if tree is None:
            continue
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, (node, rel))
    enum_names = _registry_names(root)

    def lookup(name: str, what: str, seen=()):
        """(node, file) of a method or class attribute ``what`` on ``name`` or its bases."""
        if name not in classes or name in seen:
            return None
        cls, rel = classes[name]
        for st in cls.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == what:
                return st, rel
            targets = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == what for t in targets) and getattr(st, "value", None) is not None:
                return st, rel
        for base in cls.bases:
            got = lookup(astread.attr_tail(base) or "", what, (*seen, name))
            if got:
                return got
        return None

    out: dict[str, dict] = {}
    # the registry's classes first (its enum name is the flag value), then the others by get_name();
    # a ROCm class that answers the same name as a CUDA one (AiterFlashAttentionBackend: FLASH_ATTN
    # before the registry) is left to the CUDA one
    order = sorted(classes.items(), key=lambda kv: (kv[0] not in enum_names, "rocm" in kv[1][1], kv[0]))
    for name, (cls, rel) in order:
        if not rel.startswith(_BACKEND_DIRS) or not name.endswith("Backend"):
            continue
        own = astread.methods(cls)
        get_name = own.get("get_name")
        ret = astread.single_return(get_name) if get_name else None
        label = enum_names.get(name) or (astread.string(ret) if ret is not None else None)
        if not label or "{" in label or label in out:
            continue
        fact: dict = {"class": name, "source": rel}
        got = lookup(name, "supports_compute_capability")
        if got and isinstance(got[0], ast.FunctionDef):
            expr = astread.single_return(got[0])
            cond = _cc(expr) if expr is not None else None
            if cond is not None and cond != {"cuda": True}:
                fact["compute_capability"] = cond
                fact["compute_capability_source"] = got[1]
        got = lookup(name, "get_supported_head_sizes")
        if got and isinstance(got[0], ast.FunctionDef):
            expr = astread.single_return(got[0])
            sizes = astread.literal(expr) if expr is not None else None
            if isinstance(sizes, (list, tuple)) and sizes and all(isinstance(s, int) for s in sizes):
                fact["head_sizes"] = sorted(sizes)
        got = lookup(name, "supported_kv_cache_dtypes")
        if got and not isinstance(got[0], ast.FunctionDef):
            dtypes = astread.literal(got[0].value)
            if isinstance(dtypes, (list, tuple)) and all(isinstance(d, str) for d in dtypes):
                fact["kv_cache_dtypes"] = list(dtypes)
        got = lookup(name, "supports_sink")
        if got and isinstance(got[0], ast.FunctionDef):
            expr = astread.single_return(got[0])
            value = astread.literal(expr) if expr is not None else None
            if isinstance(value, bool):   # words, not booleans: the merge leaves false values out
                fact["sinks"] = "yes" if value else "no"
            else:
                fact["sinks"] = "conditional"
                doc = astread.first_doc_line(got[0])
                if doc:
                    fact["sinks_note"] = doc
            fact["sinks_source"] = got[1]
        got = lookup(name, "is_mla")
        if got and isinstance(got[0], ast.FunctionDef):
            expr = astread.single_return(got[0])
            if astread.literal(expr) is True:
                fact["mla"] = True
        out.setdefault(label, fact)
    return out


def fp8_marlin(root: Path) -> dict | None:
    """``{below_capability, source}``: FP8 linear layers use the Marlin fallback below it."""
    rel = "vllm/model_executor/layers/quantization/fp8.py"
    path = root / rel
    if not path.is_file():
        return None
    for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        m = re.search(r"not current_platform\.has_device_capability\((\d+)\)", line)
        if m and "use_marlin" in "".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[max(0, i - 3):i]):
            return {"below_capability": int(m.group(1)), "source": f"{rel}:{i}"}
    return None


def marlin_tile(root: Path) -> dict | None:
    """``{min_thread_n, min_thread_k, source}`` of the Marlin kernels' shape check."""
    rel = "vllm/model_executor/layers/quantization/utils/marlin_utils.py"
    tree = astread.parse(root / rel) if (root / rel).is_file() else None
    if tree is None:
        return None
    consts: dict[str, int] = {}
    check = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = astread.literal(node.value)
            if isinstance(v, int):
                consts[node.targets[0].id] = v
        if isinstance(node, ast.FunctionDef) and node.name == "verify_marlin_supports_shape":
            check = node
    n, k = consts.get("GPTQ_MARLIN_MIN_THREAD_N"), consts.get("GPTQ_MARLIN_MIN_THREAD_K")
    if n is None or k is None or check is None:
        return None
    return {"min_thread_n": n, "min_thread_k": k, "source": f"{rel}:{check.lineno}"}


def rocm_quantization(root: Path) -> dict | None:
    """``{methods, source}``: ``supported_quantization`` of the ROCm platform class."""
    rel = "vllm/platforms/rocm.py"
    tree = astread.parse(root / rel) if (root / rel).is_file() else None
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.ClassDef):
            for st in node.body:
                target = st.target if isinstance(st, ast.AnnAssign) else (st.targets[0] if isinstance(st, ast.Assign) else None)
                if isinstance(target, ast.Name) and target.id == "supported_quantization" and st.value is not None:
                    methods = astread.literal(st.value)
                    if isinstance(methods, (list, tuple)) and all(isinstance(m, str) for m in methods):
                        return {"methods": sorted(methods), "source": f"{rel}:{st.lineno}"}
    return None


def refusal(root: Path) -> str | None:
    """Where vLLM refuses a GPU below a method's minimum capability (``capability < quant_config.get_min_capability()``, file:line)."""
    for path in astread.py_files(root, "vllm/config", "vllm/model_executor/model_loader"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "< quant_config.get_min_capability()" not in text:
            continue
        for i, line in enumerate(text.splitlines(), 1):
            if "< quant_config.get_min_capability()" in line:
                return f"{path.relative_to(root).as_posix()}:{i}"
    return None


def sink_models(root: Path) -> dict | None:
    """``{modules, source}``: the model files under vllm/model_executor/models that pass
    ``sinks=`` to their attention layers (models that need attention sinks, e.g. gpt_oss)."""
    base = root / "vllm/model_executor/models"
    mods = []
    for path in sorted(base.glob("*.py")) if base.is_dir() else ():
        if "sinks=" not in path.read_text(encoding="utf-8", errors="replace"):
            continue   # parsed only when the text can hold the keyword
        tree = astread.parse(path)
        if tree is None:
            continue
        if any(isinstance(n, ast.Call) and astread.attr_tail(n.func) in ("Attention", "RadixAttention")
               and any(k.arg == "sinks" and not isinstance(k.value, (ast.IfExp, ast.Constant)) for k in n.keywords)
               for n in ast.walk(tree)):
            mods.append(path.stem)
    return {"modules": mods, "source": "vllm/model_executor/models/<module>.py (Attention(..., sinks=...))"} if mods else None


def extract(root: Path) -> dict:
    """The kernel facts of the release extracted at ``root`` (the directory holding ``vllm/``)."""
    record = {
        "quantization": min_capabilities(root, "vllm/model_executor/layers/quantization"),
        "attention_backends": attention_backends(root),
    }
    for key, value in (("fp8_marlin", fp8_marlin(root)), ("marlin", marlin_tile(root)),
                       ("rocm_quantization", rocm_quantization(root)), ("quantization_refused", refusal(root)),
                       ("sink_models", sink_models(root))):
        if value is not None:
            record[key] = value
    return record
