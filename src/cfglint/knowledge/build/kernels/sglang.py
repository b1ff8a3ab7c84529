"""SGLang's kernel facts of one release, read statically from ``sglang/``:

- ``guards``: every ``raise`` / ``assert`` of the argument checks (``srt/server_args.py``,
  ``srt/arg_groups/``, ``srt/layers/attention/attention_registry.py``) whose condition tests a
  backend setting (``--attention-backend``, ``--prefill-attention-backend``,
  ``--decode-attention-backend``, ``--moe-runner-backend``, ``--fp8-gemm-backend``) together
  with the GPU (``is_sm100_supported()``, ``get_platform().is_sm120``, ``is_blackwell_supported()``,
  ``is_hip()``, ``get_device_capability()`` majors ...): the condition as a tree of
  :mod:`cfglint.knowledge.kernelmatrix`, the message and file:line. The GPU predicates are read
  from the release's own definitions (``torch.cuda.get_device_capability()[0] == 10``,
  ``partial(_check_cuda_device_version, device_capability_majors=[10, 11, 12])``, the
  platform probes of ``runtime_context.py``);
- ``model_backends``: the attention backends a model architecture requires
  (``supported_backends = [...]`` asserted for ``model_arch in ["GptOssForCausalLM"]``);
- ``quantization``: each method's minimum capability (:mod:`.quant`), refused by the model
  loader (``Minimum capability``);
- ``fp8_marlin``: the capability range where FP8 linear layers fall back to the weight-only
  Marlin kernel (``can_auto_enable_marlin_fp8``: ``80 <= sm < 89``); releases without it have no
  FP8 fallback below the FP8 tensor-core GPUs (``cutlass_fp8_supported``: sm89+).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from . import astread
from .quant import min_capabilities

_GUARD_FILES = ("sglang/srt/server_args.py", "sglang/srt/arg_groups", "sglang/srt/layers/attention/attention_registry.py")
_UTIL_FILES = ("sglang/srt/utils.py", "sglang/srt/layers/utils.py", "sglang/srt/utils/common.py", "sglang/srt/utils/__init__.py",
               "sglang/srt/runtime_context.py", "sglang/srt/platforms")
# attribute / local names -> canonical settings (kernelmatrix.BACKEND_SETTINGS)
_SETTINGS = {
    "attention_backend": "attention_backend",
    "prefill_attention_backend": "prefill_attention_backend",
    "decode_attention_backend": "decode_attention_backend",
    "prefill_backend": "prefill_backend", "prefill_attn_backend": "prefill_backend",
    "decode_backend": "decode_backend", "decode_attn_backend": "decode_backend",
    "moe_runner_backend": "moe_runner_backend",
    "fp8_gemm_runner_backend": "fp8_gemm_runner_backend", "fp8_gemm_backend": "fp8_gemm_runner_backend",
    "kv_cache_dtype": "kv_cache_dtype",
}
_BACKENDS = frozenset(s for s in _SETTINGS.values() if s != "kv_cache_dtype")


def predicates(root: Path) -> dict[str, dict]:
    """``{function or probe name: condition}`` of the release's GPU predicates."""
    out: dict[str, dict] = {"is_cuda": {"cuda": True}, "_is_cuda": {"cuda": True}, "is_hip": {"hip": True},
                            "_is_hip": {"hip": True}}
    probes: dict[str, str] = {}
    for path in astread.py_files(root, *_UTIL_FILES):
        tree = astread.parse(path)
        if tree is None:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                expr = astread.last_return(node)   # after a platform guard (`if not is_cuda_alike(): return False`)
                cond = _majors_test(expr) if expr is not None else None
                if cond:
                    out.setdefault(node.name, cond)
            elif isinstance(node, ast.Assign):
                majors = None
                for call in ast.walk(node.value):
                    if isinstance(call, ast.Call) and astread.attr_tail(call.func) == "partial":
                        for kw in call.keywords:
                            if kw.arg == "device_capability_majors":
                                majors = astread.literal(kw.value)
                if isinstance(majors, (list, tuple)) and all(isinstance(m, int) for m in majors):
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            out.setdefault(t.id, {"arch": sorted(majors)})
                if isinstance(node.value, ast.Dict) and any(isinstance(t, ast.Name) and "PROBE" in t.id for t in node.targets):
                    for k, v in zip(node.value.keys, node.value.values):
                        ks, vs = astread.string(k) if k else None, astread.string(v)
                        if ks and vs:
                            probes[ks] = vs
            elif isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Dict) \
                    and isinstance(node.target, ast.Name) and "PROBE" in node.target.id:
                for k, v in zip(node.value.keys, node.value.values):
                    ks, vs = astread.string(k) if k else None, astread.string(v)
                    if ks and vs:
                        probes[ks] = vs
    for probe, func in probes.items():
        if func in out:
            out.setdefault("platform." + probe, out[func])
    return out


def _majors_test(expr) -> dict | None:
    """``torch.cuda.get_device_capability(device)[0] == 10 and (cuda >= "12.8")`` -> {"arch": [10]}."""
    terms = expr.values if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And) else [expr]
    for t in terms:
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.left, ast.Subscript) \
                and "get_device_capability" in ast.unparse(t.left) and astread.literal(t.left.slice) == 0:
            val = astread.literal(t.comparators[0])
            if isinstance(t.ops[0], ast.Eq) and isinstance(val, int):
                return {"arch": [val]}
            if isinstance(t.ops[0], ast.In) and isinstance(val, (list, tuple)):
                return {"arch": sorted(val)}
            if isinstance(t.ops[0], ast.GtE) and isinstance(val, int):
                return {"cc": [">=", val * 10]}
    return None


class _Conditions:
    """Turns a test expression into a condition tree; ``platform`` / ``backend`` say whether a
    GPU predicate / a backend setting was met (a guard needs both)."""

    def __init__(self, preds: dict[str, dict], aliases: dict[str, str]):
        self.preds = preds
        self.aliases = aliases   # module-level `_is_sm100 = is_sm100_supported()` -> predicate name
        self.platform = False
        self.backend = False

    def pred(self, node) -> dict | None:
        if isinstance(node, ast.Call) and not node.args:
            name = astread.attr_tail(node.func)
            if name in self.preds:
                return self.preds[name]
        if isinstance(node, ast.Name):
            name = self.aliases.get(node.id, node.id)
            if name in self.preds and (node.id in self.aliases or name.startswith("_is_")):
                return self.preds[name]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call) \
                and astread.attr_tail(node.value.func) == "get_platform":
            return self.preds.get("platform." + node.attr)
        return None

    def setting(self, node) -> str | None:
        name = astread.attr_tail(node)
        return _SETTINGS.get(name or "")

    def __call__(self, node) -> dict:
        if isinstance(node, ast.BoolOp):
            return {"and" if isinstance(node.op, ast.And) else "or": [self(v) for v in node.values]}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return {"not": self(node.operand)}
        p = self.pred(node)
        if p is not None:
            self.platform = True
            return p
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, op, right = node.left, node.ops[0], node.comparators[0]
            s = self.setting(left)
            if s and isinstance(op, (ast.Eq, ast.NotEq)) and astread.string(right) is not None:
                self.backend |= s in _BACKENDS
                c = {"eq": [s, astread.string(right)]}
                return c if isinstance(op, ast.Eq) else {"not": c}
            if s and isinstance(op, (ast.In, ast.NotIn)):
                vals = astread.literal(right)
                if isinstance(vals, (list, tuple, set)) and all(isinstance(v, str) for v in vals):
                    self.backend |= s in _BACKENDS
                    c = {"in": [s, sorted(vals)]}
                    return c if isinstance(op, ast.In) else {"not": c}
            # "trtllm_mha" in (prefill_backend, decode_backend)
            if astread.string(left) is not None and isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List)):
                names = [self.setting(e) for e in right.elts]
                if names and all(names):
                    self.backend |= any(n in _BACKENDS for n in names)
                    c = {"or": [{"eq": [n, astread.string(left)]} for n in names]}
                    return c if isinstance(op, ast.In) else {"not": c}
        return {"unknown": ast.unparse(node)[:120]}


def _aliases(tree: ast.Module, preds: dict[str, dict]) -> dict[str, str]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and not node.value.args:
            name = astread.attr_tail(node.value.func)
            if name in preds:
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        out[t.id] = name
    return out


def _walk(stmts, path: list, visit):
    """Call ``visit(stmt, conditions)`` for each statement, ``conditions`` the enclosing If tests
    as (test, polarity) pairs."""
    for st in stmts:
        visit(st, path)
        if isinstance(st, ast.If):
            _walk(st.body, [*path, (st.test, True)], visit)
            _walk(st.orelse, [*path, (st.test, False)], visit)
        elif isinstance(st, (ast.For, ast.While, ast.With, ast.Try)):
            for block in ("body", "orelse", "finalbody"):
                _walk(getattr(st, block, []) or [], path, visit)
            for h in getattr(st, "handlers", []) or []:
                _walk(h.body, path, visit)
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            _walk(st.body, [], visit)


def guards(root: Path) -> tuple[list[dict], list[dict]]:
    """(guards, model_backends) of the release (see the module docstring)."""
    preds = predicates(root)
    found: list[dict] = []
    models: list[dict] = []
    for path in astread.py_files(root, *_GUARD_FILES):
        tree = astread.parse(path)
        if tree is None:
            continue
        rel = path.relative_to(root).as_posix()
        aliases = _aliases(tree, preds)

        def visit(st, conds, rel=rel, aliases=aliases):
            if isinstance(st, ast.Raise) or isinstance(st, ast.Assert):
                c = _Conditions(preds, aliases)
                parts = [c(t) if pol else {"not": c(t)} for t, pol in conds]
                if isinstance(st, ast.Assert):
                    parts.append({"not": c(st.test)})
                if c.platform and c.backend:
                    cond = parts[0] if len(parts) == 1 else {"and": parts}
                    found.append({"condition": cond, "message": astread.message(st) or "",
                                  "raises": "AssertionError" if isinstance(st, ast.Assert) else
                                  (astread.attr_tail(st.exc.func) if isinstance(st.exc, ast.Call) else "error"),
                                  "source": f"{rel}:{st.lineno}"})
            if isinstance(st, ast.If):
                archs = _model_archs(st.test)
                if archs:
                    _model_block(st.body, archs, rel, models)

        _walk(tree.body, [], visit)
    return found, models


def _model_archs(test) -> list[str] | None:
    """``model_arch in ["GptOssForCausalLM"]`` / ``== "X"`` -> the architecture names."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and astread.attr_tail(test.left) in ("model_arch", "arch"):
        val = astread.literal(test.comparators[0])
        if isinstance(test.ops[0], ast.In) and isinstance(val, (list, tuple, set)):
            return sorted(v for v in val if isinstance(v, str))
        if isinstance(test.ops[0], ast.Eq) and isinstance(val, str):
            return [val]
    return None


def _model_block(stmts, archs: list[str], rel: str, out: list[dict]) -> None:
    lists: dict[str, list[str]] = {}
    for st in ast.walk(ast.Module(body=list(stmts), type_ignores=[])):
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and "backend" in st.targets[0].id:
            val = astread.literal(st.value)
            if isinstance(val, (list, tuple)) and val and all(isinstance(v, str) for v in val):
                lists[st.targets[0].id] = list(val)
        if isinstance(st, ast.Assert):
            names = {n.id for n in ast.walk(st.test) if isinstance(n, ast.Name)}
            settings = sorted({_SETTINGS[a] for a in (astread.attr_tail(n) for n in ast.walk(st.test)
                                                       if isinstance(n, (ast.Name, ast.Attribute)))
                               if a in _SETTINGS})
            for var in sorted(names & set(lists)):
                out.append({"architectures": archs, "attention_backends": lists[var], "settings": settings,
                            "message": astread.message(st) or "", "source": f"{rel}:{st.lineno}"})
            # an inline set: assert self.attention_backend in {"fa3", "aiter", ...}, "..."
            for cmp in (n for n in ast.walk(st.test) if isinstance(n, ast.Compare)):
                if len(cmp.ops) == 1 and isinstance(cmp.ops[0], ast.In) and _SETTINGS.get(astread.attr_tail(cmp.left) or ""):
                    vals = astread.literal(cmp.comparators[0])
                    if isinstance(vals, (list, tuple, set)) and vals and all(isinstance(v, str) for v in vals):
                        out.append({"architectures": archs, "attention_backends": sorted(vals),
                                    "settings": [_SETTINGS[astread.attr_tail(cmp.left)]],
                                    "message": astread.message(st) or "", "source": f"{rel}:{st.lineno}"})


def fp8_marlin(root: Path) -> dict | None:
    """``{from_capability, below_capability, source}`` of ``can_auto_enable_marlin_fp8``."""
    for path in astread.py_files(root, "sglang/srt/layers/quantization/fp8_utils.py",
                                 "sglang/srt/layers/quantization/marlin_utils_fp8.py"):
        text = path.read_text(encoding="utf-8", errors="replace")
        m = re.search(r"def can_auto_enable_marlin_fp8\(.*?return\s+(\d+)\s*<=\s*sm\s*<\s*(\d+)", text, re.S)
        if m:
            line = text[:m.start()].count("\n") + 1
            return {"from_capability": int(m.group(1)), "below_capability": int(m.group(2)),
                    "source": f"{path.relative_to(root).as_posix()}:{line}"}
    return None


def fp8_tensor_cores(root: Path) -> dict | None:
    """``{min_capability, source}``: ``cutlass_fp8_supported`` (``major >= 9`` or ``major == 8 and minor == 9``)."""
    rel = "sglang/srt/layers/quantization/fp8_utils.py"
    path = root / rel
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    m = re.search(r"def cutlass_fp8_supported\(.*?major == (\d+) and minor == (\d+)", text, re.S)
    if not m:
        return None
    return {"min_capability": int(m.group(1)) * 10 + int(m.group(2)),
            "source": f"{rel}:{text[:m.start()].count(chr(10)) + 1}"}


def refusal(root: Path) -> str | None:
    for path in astread.py_files(root, "sglang/srt/model_loader"):
        for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if "< quant_config.get_min_capability()" in line:
                return f"{path.relative_to(root).as_posix()}:{i}"
    return None


def extract(root: Path) -> dict:
    """The kernel facts of the release extracted at ``root`` (the directory holding ``sglang/``)."""
    found, models = guards(root)
    record: dict = {"quantization": min_capabilities(root, "sglang/srt/layers/quantization"),
                    "guards": found, "model_backends": models}
    for key, value in (("fp8_marlin", fp8_marlin(root)), ("fp8_tensor_cores", fp8_tensor_cores(root)),
                       ("quantization_refused", refusal(root))):
        if value is not None:
            record[key] = value
    return record
