"""FLG004 / FLG005: what an engine release itself refuses at start-up, before any GPU work:
flag pairs it will not take together, and the value checks of its argument classes.

Both are compiled from the releases' source (rules/releases/<engine>.yaml ``exclusive`` and
``checks``: vLLM's ``__post_init__`` / ``verify_*`` checks of its config classes, SGLang's
ServerArgs checks, Dynamo's argument groups), each with the file and line that states it.
"""

from __future__ import annotations

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
        seen, by_table = set(), {}
        for engine, t, release, fact in _facts(ctx, p, "exclusive"):
            if fact.get("action") not in (None, "refuse"):
                continue
            flags = fact.get("flags") or []
            if len(flags) != 2:
                continue
            if t not in by_table:   # once per launcher, not once per pair
                by_table[t] = ctx.kb.registry(t), _given(ctx, p, t)
            reg, given = by_table[t]
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
_COMPARE = {"Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge,
            "Eq": operator.eq, "NotEq": operator.ne, "Is": operator.is_, "IsNot": operator.is_not,
            "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b}


class _Unknown(Exception):
    """A name of the condition has no value known statically."""


def evaluate(condition: str, values: dict):
    """The value of a compiled check's ``condition`` (a Python expression over field names) with
    ``values``; raises _Unknown when it needs a name ``values`` lacks, ValueError for anything
    but names, constants, comparisons, and/or/not, tuples, lists and ``len``."""
    import ast   # only when a check is run: most launches set no flag a check reads

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in values:
                raise _Unknown(node.id)
            return dict.__getitem__(values, node.id) if isinstance(values, dict) else values[node.id]
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
                compare = _COMPARE.get(type(op).__name__)
                if compare is None:
                    raise ValueError(op)
                try:
                    if not compare(left, r):
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
# checks that read the parsed arguments before anything fills them in (vLLM's cli_args.py)
PARSED_SCOPES = frozenset({"validate_parsed_serve_args"})


def _name_index(ctx: Context, t: str) -> dict[str, dict[str, str]]:
    """Scope (a config class, or ``EngineArgs`` for the parsed arguments) -> name -> flag, from
    each compiled flag's ``field`` (``ParallelConfig.tensor_parallel_size``) and dest."""
    data = ctx.kb.engine_releases(t.split(".", 1)[0])
    memo = data.__dict__.setdefault("_check_names", {})
    if t not in memo:
        index: dict[str, dict[str, str]] = {}
        for flag, entry in ((data.launcher(t) or {}).get("flags") or {}).items():
            if not isinstance(entry, dict):
                continue
            owner, _, field = str(entry.get("field") or "").rpartition(".")
            if owner and field:
                index.setdefault(owner, {}).setdefault(field, flag)
            dest = str(entry.get("dest") or field or flag.lstrip("-").replace("-", "_"))
            index.setdefault("EngineArgs", {}).setdefault(dest, flag)
        memo[t] = index
    return memo[t]


def _value(reg, flag: str, arg: Arg | None, parsed: bool = False):
    """The value ``flag`` has at this launch: what ``arg`` sets (typed), else its default;
    raises _Unknown when neither is known statically. A default of None is a value only where
    the check reads the parsed arguments as argparse leaves them (``parsed``); a config class's
    None is often filled in later."""
    entry = reg.flags[flag] if flag in reg.flags else None
    if entry is None:
        raise _Unknown(flag)
    if arg is not None:
        if entry.get("type") == "bool" and arg.value is None:
            return arg.name not in (entry.get("negation") or [])
        if arg.value is not None:
            try:
                return _typed(arg.value.value, entry.get("type"))
            except ValueError:
                raise _Unknown(flag) from None
        raise _Unknown(flag)
    if entry.get("default_factory") or (entry.get("default") is None and not (parsed and "default" in entry)):
        raise _Unknown(flag)
    return entry["default"]


class _Names(dict):
    """Name -> value for :func:`evaluate`, looked up when the condition asks."""

    def __init__(self, reg, flags: dict[str, str], given: dict[str, Arg], parsed: bool = False):
        super().__init__()
        self.reg, self.flags, self.given, self.parsed = reg, flags, given, parsed

    def __contains__(self, name) -> bool:
        if not dict.__contains__(self, name):
            flag = self.flags.get(name)
            if flag is None:
                return False
            try:
                self[name] = _value(self.reg, flag, self.given.get(flag), self.parsed)
            except _Unknown:
                return False
        return True


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
        given: dict[str, dict[str, Arg]] = {}
        for engine, t, release, fact in _facts(ctx, p, "checks"):
            condition = fact.get("condition")
            fields = fact.get("fields") or []
            if not isinstance(condition, str) or not fields:
                continue
            index = _name_index(ctx, t)
            scope = str(fact.get("where") or "").split(".", 1)[0]
            names = index.get(scope, {}) if scope not in ARGUMENT_SCOPES else index.get("EngineArgs", {})
            # the names the condition reads -> their flags; inputs (verify_max_model_len(max_model_len))
            # are the method's arguments: the flags of that name
            flags = {n: names[n] for n in fields if n in names}
            flags.update({n: index.get("EngineArgs", {})[n] for n in fact.get("inputs") or []
                          if n in index.get("EngineArgs", {})})
            if t not in given:
                given[t] = _given(ctx, p, t)
            set_by = {n: given[t][f] for n, f in flags.items() if f in given[t]}
            if not set_by:
                continue   # the launch sets none of it: the engine's defaults pass its own checks
            values = _Names(ctx.kb.registry(t, release), flags, given[t], scope in PARSED_SCOPES)
            try:   # the check runs only inside its enclosing conditions (``only_when``)
                refused = all(evaluate(g, values) for g in fact.get("only_when") or []) and evaluate(condition, values)
            except (_Unknown, ValueError, SyntaxError, RecursionError):
                continue
            if not refused:
                continue
            args = [set_by[n] for n in [*fields, *(fact.get("inputs") or [])] if n in set_by]
            data = ctx.kb.engine_releases(engine)
            at = release or data.releases[-1]
            shown = ", ".join(f"{a.written} {a.value.value if a.value is not None else ''}".strip() for a in args)
            when = f"{data.label} {at}" if release else f"{data.label} {at} (the newest; the release is not declared)"
            yield Finding("FLG005", f"{when} refuses {shown}: {fact.get('where')} raises {fact.get('raises')} when "
                                    f"{condition} ({fact.get('source')})", args[-1].span,
                          level="error" if release else "warning",
                          related=[(a.span, a.written) for a in args[:-1]])
