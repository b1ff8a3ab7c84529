"""FLG004 / FLG005: what an engine release itself refuses at start-up, before any GPU work:
flag pairs it will not take together, and the value checks of its argument classes.

Both are compiled from the releases' source (rules/releases/<engine>.yaml ``exclusive`` and
``checks``: vLLM's ``__post_init__`` / ``verify_*`` checks of its config classes, SGLang's
ServerArgs checks, Dynamo's argument groups), each with the file and line that states it.
"""

from __future__ import annotations

import ast
import operator

from ..deploy.extract import Arg, Process
from ..knowledge import versions
from ..model import Finding
from .base import Context, here, rule


def _release(p: Process, engine: str):
    launch = p.releases.get(engine)
    return launch, (launch.release if launch is not None else None)


def _facts(ctx: Context, p: Process, section: str):
    """(engine, registry name, release read or None, fact) for every fact of ``section`` that
    holds at the release the process runs (the newest release when that is not known)."""
    for t in p.tables:
        engine = t.split(".", 1)[0]
        data = ctx.kb.engine_releases(engine)
        if data is None or not data.releases:
            continue
        launch, release = _release(p, engine)
        for fact in data.listed(section, release if release is not None else data.releases[-1]):
            launchers = fact.get("launchers")
            if launchers and t.split(".", 1)[-1] not in launchers and t not in launchers:
                continue
            yield engine, t, release, fact


def _given(ctx: Context, p: Process, registry: str) -> dict[str, Arg]:
    """The flags ``p`` sets, by their primary name in ``registry`` (aliases and spellings folded)."""
    reg = ctx.kb.registry(registry)
    out: dict[str, Arg] = {}
    for arg in p.args:
        primary = reg.find(arg.name) if reg is not None else None
        out.setdefault(primary or arg.name, arg)
    return out


def _match(option: str, given: dict[str, Arg], reg) -> Arg | None:
    if option.endswith("*"):   # --trtllm.*: any flag of that prefix
        return next((a for name, a in given.items() if name.startswith(option[:-1])), None)
    primary = reg.find(option) if reg is not None else None
    return given.get(primary or option)


@rule("FLG004", "refused-flag-pair", "error",
      "Two flags the engine release refuses together.",
      "Some flags exclude each other and the engine stops at start-up when both are given: Dynamo's "
      "SGLang worker refuses --dyn-tool-call-parser with --tool-call-parser from 1.0.2, SGLang refuses "
      "--enable-hierarchical-cache with --disable-radix-cache. Which pairs, and in which releases, is "
      "read from each release's source; the message cites the line. Where the release the launch runs "
      "is not known, the newest release's pairs are checked and the finding is a warning.",
      ("rules/releases/*.yaml exclusive (the refusing check's file:line per release)",))
def check_refused_pairs(ctx: Context):
    for p in ctx.deployment.processes:
        seen = set()
        for engine, t, release, fact in _facts(ctx, p, "exclusive"):
            if fact.get("action") not in (None, "refuse"):
                continue
            flags = fact.get("flags") or []
            if len(flags) != 2:
                continue
            reg = ctx.kb.registry(t)
            given = _given(ctx, p, t)
            a, b = _match(flags[0], given, reg), _match(flags[1], given, reg)
            if a is None or b is None or (a.span, b.span) in seen:
                continue
            seen.add((a.span, b.span))
            data = ctx.kb.engine_releases(engine)
            at = release or data.releases[-1]
            when = f"{data.label} {at}" if release else f"{data.label} {at} (the newest; the release is not declared)"
            later = max(a, b, key=lambda x: (x.span.line, x.span.col))
            other = b if later is a else a
            yield Finding("FLG004", f"{when} refuses {later.written} together with {other.written} "
                                    f"({here(other.span)}); it stops at start-up ({fact.get('source')}, "
                                    f"{versions.ranges(data.in_releases(fact), data.releases)})",
                          later.span, level="error" if release else "warning",
                          related=[(other.span, other.written)])


# -- FLG005 ----------------------------------------------------------------------------
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


class _Unknown(Exception):
    """A name of the condition has no value known statically."""


def evaluate(condition: str, values: dict):
    """The value of a compiled check's ``condition`` (a Python expression over field names) with
    ``values``; raises _Unknown when it needs a name ``values`` lacks, ValueError for anything
    but names, constants, comparisons, and/or/not, tuples, lists and ``len``."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in values:
                raise _Unknown(node.id)
            return values[node.id]
        if isinstance(node, ast.BoolOp):
            vals = (ev(v) for v in node.values)
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not ev(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Compare):
            left = ev(node.left)
            for op, right in zip(node.ops, node.comparators):
                r = ev(right)
                if type(op) not in _COMPARE:
                    raise ValueError(op)
                try:
                    if not _COMPARE[type(op)](left, r):
                        return False
                except TypeError:
                    raise _Unknown("types") from None
                left = r
            return True
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(ev(e) for e in node.elts)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
            return len(ev(node.args[0]))
        raise ValueError(ast.dump(node)[:60])
    return ev(ast.parse(condition, mode="eval"))


def _typed(text: str, kind: str | None):
    t = str(text).strip()
    if kind == "bool" or t.lower() in ("true", "false"):
        return t.lower() in ("1", "true", "yes", "on")
    if kind == "int":
        return int(t)
    if kind == "float":
        return float(t)
    return t


# checks written over the parsed arguments themselves (their names are the flags' dests), not
# over one config class's fields
ARGUMENT_SCOPES = frozenset({"EngineArgs", "AsyncEngineArgs", "ServerArgs", "validate_parsed_serve_args"})


def _values(ctx: Context, p: Process, t: str, release: str | None, scope: str) -> tuple[dict, dict[str, Arg]]:
    """Names of a check in ``scope`` (its class: SchedulerConfig; or the parsed arguments) -> their
    values at this launch: what its flags set (typed), else the flag's default at the release;
    and name -> the Arg that set it. A config class's field is a flag's only when the flag's
    ``field`` names that class (ParallelConfig.tensor_parallel_size is not SpeculativeConfig's)."""
    reg = ctx.kb.registry(t, release)
    if reg is None:
        return {}, {}
    values, set_by = {}, {}
    by_primary = _given(ctx, p, t)
    arguments = scope in ARGUMENT_SCOPES
    for flag, entry in reg.flags.items():
        owner, _, field = str(entry.get("field") or "").rpartition(".")
        if arguments:
            name = str(entry.get("dest") or field or flag.lstrip("-").replace("-", "_"))
        elif owner == scope and field:
            name = field
        else:
            continue
        arg = by_primary.get(flag)
        negations = entry.get("negation") or []
        if arg is not None:
            try:
                if entry.get("type") == "bool" and arg.value is None:
                    values[name] = arg.name not in negations
                elif arg.value is not None:
                    values[name] = _typed(arg.value.value, entry.get("type"))
                else:
                    continue
            except ValueError:
                continue
            set_by[name] = arg
        elif "default" in entry and entry["default"] is not None and not entry.get("default_factory"):
            values.setdefault(name, entry["default"])
    return values, set_by


@rule("FLG005", "engine-refuses-values", "error",
      "Values the engine release's own argument checks refuse, before the model loads.",
      "Engines check their arguments when they start and stop with an error: vLLM refuses "
      "--max-num-batched-tokens below --max-model-len when chunked prefill is off (SchedulerConfig, "
      "vllm/config/scheduler.py), and has many such checks in its config classes. They are read from "
      "each release's source (the condition, the file and line) and run on the values the launch "
      "sets, with the release's defaults for the rest; a check whose values are not all known "
      "statically is not guessed.",
      ("rules/releases/*.yaml checks (condition, file:line per release)",))
def check_engine_value_checks(ctx: Context):
    for p in ctx.deployment.processes:
        cache: dict[str, tuple] = {}
        for engine, t, release, fact in _facts(ctx, p, "checks"):
            condition = fact.get("condition")
            fields = fact.get("fields") or []
            names = [*fields, *(fact.get("inputs") or [])]   # inputs: the method's arguments (max_model_len)
            if not isinstance(condition, str) or not fields:
                continue
            scope = str(fact.get("where") or "").split(".", 1)[0]
            if (t, scope) not in cache:
                cache[t, scope] = _values(ctx, p, t, release, scope)
            values, set_by = cache[t, scope]
            if fact.get("inputs"):   # a method's arguments (verify_max_model_len(max_model_len)): the flags of that name
                if (t, "EngineArgs") not in cache:
                    cache[t, "EngineArgs"] = _values(ctx, p, t, release, "EngineArgs")
                args_values, args_set = cache[t, "EngineArgs"]
                values = {**values, **{n: args_values[n] for n in fact["inputs"] if n in args_values}}
                set_by = {**set_by, **{n: args_set[n] for n in fact["inputs"] if n in args_set}}
            if not any(f in set_by for f in names):
                continue   # the launch sets none of it: the engine's defaults pass its own checks
            try:   # the check runs only inside its enclosing conditions (``only_when``)
                refused = all(evaluate(g, values) for g in fact.get("only_when") or []) and evaluate(condition, values)
            except _Unknown:
                continue
            except (ValueError, SyntaxError, RecursionError):
                continue
            if not refused:
                continue
            args = [set_by[f] for f in names if f in set_by]
            data = ctx.kb.engine_releases(engine)
            at = release or data.releases[-1]
            shown = ", ".join(f"{a.written} {a.value.value if a.value is not None else ''}".strip() for a in args)
            when = f"{data.label} {at}" if release else f"{data.label} {at} (the newest; the release is not declared)"
            yield Finding("FLG005", f"{when} refuses {shown}: {fact.get('where')} raises {fact.get('raises')} when "
                                    f"{condition} ({fact.get('source')})", args[-1].span,
                          level="error" if release else "warning",
                          related=[(a.span, a.written) for a in args[:-1]])
