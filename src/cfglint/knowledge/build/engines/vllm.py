"""vLLM: what ``vllm serve`` accepts in one release, read from the release's ``vllm/`` sources.

``extract(source_root, version)`` interprets the code that builds the ``serve`` parser
(``vllm/entrypoints/cli/serve.py ServeSubcommand.subparser_init``, or ``vllm/scripts.py main``
before 0.7) with the shared static evaluator, computes ``get_kwargs`` of each config dataclass
(:mod:`.vllm_kwargs`), and reads the environment variables (``vllm/envs.py``), the reasoning and
tool-call parser registries, the value checks of the config classes and the removal hints of
the release's parser. Nothing of vLLM is imported or run.

Record (JSON-able, deterministic)::

    {"engine": "vllm", "version": ...,
     "launchers": {"serve": {"source": [files], "positional": [...], "parser_source": ...,
                             "underscore_equivalent": bool, "config_file_flag": bool,
                             "json_dotted_keys": bool, "O_shorthand_target": ..., "flags": {...},
                             "notes": [...]}},
     "removed": {flag: {message, source}}, "env": {VAR: {type, default, source, ...}},
     "parsers": {"reasoning": [...], "tool": [...], "<kind>_source": [files]},
     "exclusive": [[flag, flag]], "checks": [{where, source, condition, raises, fields, flags, inputs}]}

Each flag: ``aliases``, ``negation``, ``type`` (bool / int / float / str / json / list),
``choices`` (a list, ``"dynamic"`` for a parser registry with ``registry_values``, null),
``default``, ``nargs``, ``deprecated``, ``env``, ``hidden``, ``source`` (file:line of the
``add_argument``), and where known ``nullable``, ``human_readable``, ``known_values``, ``dest``,
``field`` / ``field_source`` (the config dataclass field), ``default_factory``,
``choices_checked``.
"""

from __future__ import annotations

import ast
import re

from .static.argparse_model import ArgGroup, ArgParser, Subparsers
from .static.evaluator import SUPPRESS
from .static.interpreter import Interpreter
from .static.typeforms import TLiteral
from .static.values import (BoundMethod, ClassRef, EnumMember, External, FunctionRef, Instance, Partial,
                            RuntimeValues, Unknown, untaint)
from .vllm_facts import MANAGERS as _MANAGERS
from .vllm_facts import env_vars, explicit_removals, parser_registries, value_checks
from .vllm_kwargs import KwFeatures, compute_kwargs

__all__ = ["extract"]

ARGV = ["vllm", "serve", "MODEL"]     # the command line the parser is built for (no --help)


class VllmInterpreter(Interpreter):
    """The evaluator as vLLM's serve parser needs it: ``get_kwargs`` computed statically, the
    parser-manager registries as run-time values, config classes not constructed."""

    argv = ARGV
    dataclass_decorators = frozenset({"dataclass", "config"})
    max_depth = 25

    def __init__(self, tree, feats: KwFeatures):
        super().__init__(tree)
        self.feats = feats
        self.kw_cache: dict[str, dict] = {}

    def should_enter(self, func, args, kwargs, bound=None):
        if isinstance(bound, Instance):
            return True
        vals = list(args) + list(kwargs.values())
        if self.has_parser_arg(args, kwargs):
            return True
        if any(isinstance(a, dict) and a and all(isinstance(x, dict) and "default" in x for x in a.values())
               for a in (untaint(v)[0] for v in vals)):
            return True
        return func.name.startswith("_customize_cli_kwargs") or func.name in ("add_cli_args", "make_arg_parser")

    def should_init(self, cls):
        return False

    def hook_call(self, f, args, kwargs, frame, node):
        func = f.func if isinstance(f, BoundMethod) else f
        if isinstance(func, FunctionRef) and func.name == "get_kwargs" and args and isinstance(untaint(args[0])[0], ClassRef):
            return self.get_kwargs(untaint(args[0])[0])
        if isinstance(f, ClassRef) and f.name in ("FlexibleArgumentParser", "ArgumentParser"):
            return self.new_parser(f.qualname, kwargs, frame, node)
        if isinstance(f, ClassRef):
            return Instance(f, args, kwargs, node)
        return NotImplemented

    def class_attribute(self, cls, attr):
        if cls.name in _MANAGERS and attr in ("reasoning_parsers", "tool_parsers", "list_registered", "lazy_parsers"):
            return RuntimeValues(_MANAGERS[cls.name])
        return super().class_attribute(cls, attr)

    def get_kwargs(self, cls: ClassRef) -> dict:
        from .static.evaluator import deep_copy
        if cls.qualname not in self.kw_cache:
            self.kw_cache[cls.qualname] = compute_kwargs(self, self.feats, cls)
        return deep_copy(self.kw_cache[cls.qualname])


# ---------------------------------------------------------------------------------------------
# actions -> flag records
# ---------------------------------------------------------------------------------------------

_BOOL_ACTIONS = {"store_true", "store_false"}


def jsonable(v):
    v = untaint(v)[0]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, EnumMember):
        return jsonable(v.value)
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        if all(isinstance(k, str) for k in v):
            return {k: jsonable(x) for k, x in v.items()}
        return None
    return None


# vLLM's own type= helpers: name -> (type, what else it says)
_TYPE_FUNCTIONS = {"human_readable_int": ("int", "human_readable"), "human_readable_int_or_auto": ("int", "human_readable"),
                   "nullable_str": ("str", "nullable"), "union_dict_and_str": ("json", None),
                   "parse_dataclass": ("json", None), "nullable_kvs": ("json", "nullable"),
                   "optional_int": ("int", "nullable"), "optional_float": ("float", "nullable")}


def _named_type(name, info):
    typ, marker = _TYPE_FUNCTIONS.get(name, ("str", None))
    if marker:
        info[marker] = True
    return typ


def _type_name(t, info):
    """An argparse ``type=`` value in cfglint's vocabulary; sets ``nullable`` / ``human_readable``."""
    t = untaint(t)[0]
    if isinstance(t, Partial):
        fn = t.func_name.rsplit(".", 1)[-1]
        if fn == "optional_type":
            info["nullable"] = True
            return _type_name(t.args[0] if t.args else None, info)
        if fn == "parse_type":
            return _type_name(t.args[0] if t.args else None, info)
        return "str"
    if t is None:
        return "str"
    if isinstance(t, External):
        if t.name in ("builtins.int", "builtins.float", "builtins.bool"):
            return t.last
        return "json" if t.last == "loads" else _named_type(t.last, info)
    if isinstance(t, FunctionRef):
        if isinstance(t.node, ast.Lambda):
            return "str"
        if t.name in _TYPE_FUNCTIONS:
            return _named_type(t.name, info)
        ret = t.node.returns
        if ret is not None:
            rt = ast.unparse(ret)
            if rt.startswith(("int", "Optional[int]")):
                return "int"
            if rt.startswith(("float", "Optional[float]")):
                return "float"
            if "dict" in rt.lower():
                return "json"
        return "str"
    return "str"


def _action_kind(a, ev):
    a = untaint(a)[0]
    if isinstance(a, str):
        return a
    if isinstance(a, External):
        return "BooleanOptionalAction" if a.last == "BooleanOptionalAction" else a.last
    if isinstance(a, ClassRef):
        names = ev.base_names(a)
        if "EnableDisableAction" in names or "BooleanOptionalAction" in names:
            return "BooleanOptionalAction"
        if a.name == "StoreBoolean":
            return "StoreBoolean"
        return "custom:" + a.name
    return None


_DEP_RE = re.compile(r"\[deprecated\]|^\s*deprecated\b|\b(?:is|are|been|be|now|option|argument|flag|field)\s+deprecated\b"
                     r"|will be removed|\bdeprecated\s+(?:and|in favou?r|since|alias)|no longer has any effect", re.I)


def _short_dep(txt):
    txt = " ".join(txt.split())
    m = re.search(r"[^.]*(?:deprecated|will be removed)[^.]*\.?", txt, re.I)
    return (m.group(0) if m else txt).strip()[:160]


def _is_suppress(v) -> bool:
    return v == SUPPRESS


def flag_records(ev, feats, parser: ArgParser, field_docs):
    """(flags, positionals, exclusive groups) of ``parser``'s actions."""
    flags, positionals, exclusive = {}, [], {}
    for act in parser.actions:
        opts = act.option_strings
        kw = act.kwargs
        if not opts:
            continue
        if not opts[0].startswith("-"):
            positionals.append(opts[0])
            continue
        longs = [o for o in opts if o.startswith("--")]
        canon = longs[0] if longs else opts[0]
        info = {}
        akind = _action_kind(kw.get("action"), ev)
        nargs = kw.get("nargs")
        is_bool = akind in _BOOL_ACTIONS or akind in ("BooleanOptionalAction", "StoreBoolean")
        negation = []
        if akind == "BooleanOptionalAction":
            negation = ["--no-" + o[2:] for o in opts if o.startswith("--")]
            if feats.enable_disable:
                for o in opts:
                    for pre, inv in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
                        if o.startswith(pre):
                            negation.append(inv + o[len(pre):])
        if is_bool:
            typ = "bool"
        elif akind in ("append", "extend") or nargs in ("+", "*") or (isinstance(nargs, int) and nargs > 1):
            typ = "list"
            _type_name(kw.get("type"), info)
        else:
            typ = _type_name(kw.get("type"), info)
        ch_out = _choices(kw.get("choices"), info)
        metavar = kw.get("metavar")
        known = [jsonable(v) for v in metavar if v is not None and v != "None"] if isinstance(metavar, list) else None
        helpv = kw.get("help")
        hidden = _is_suppress(helpv)
        dep = "deprecated=True (argparse warns when used)" if kw.get("deprecated") is True else None
        htxt = helpv if isinstance(helpv, str) else ""
        fdoc = field_docs.get(kw.get("_field", ""), "")
        for txt, where in ((htxt, "help text"), (fdoc, "field docstring")):
            if dep is None and txt and _DEP_RE.search(txt):
                dep = f"{where} marks it deprecated: " + _short_dep(txt)
        default = kw.get("default")
        if "default" not in kw and akind in _BOOL_ACTIONS:
            default = akind == "store_false"      # argparse's own default of a store_true / store_false
        if _is_suppress(default):
            default = None
        rec = {
            "aliases": [o for o in opts if o != canon],
            "negation": negation,
            "type": typ,
            "choices": ch_out,
            "default": jsonable(default) if not isinstance(default, (Instance, Unknown)) else None,
            "nargs": jsonable(nargs) if nargs is not None else None,
            "deprecated": dep,
            "env": sorted(e for e in act.envs if isinstance(e, str)),
            "hidden": hidden,
            "source": act.where,
        }
        if info.get("nullable"):
            rec["nullable"] = True
        if info.get("choices_partial"):
            rec["choices_partial"] = "platform-dependent entries left out"
        if info.get("human_readable"):
            rec["human_readable"] = True
        if known:
            rec["known_values"] = known
        if isinstance(kw.get("dest"), str):
            rec["dest"] = kw["dest"]
        if kw.get("_field"):
            rec["field"] = kw["_field"]
            rec["field_source"] = kw.get("_src")
        if isinstance(default, Instance):
            rec["default_factory"] = default.cls.name
        if kw.get("const") is True and nargs == "?":
            rec["bare_flag_means"] = True
        flags[canon] = rec
        g = act.group
        while g is not None and not g.mutex:
            g = g.parent if isinstance(g.parent, ArgGroup) else None
        if g is not None:
            exclusive.setdefault(g.index, []).append(canon)
    return flags, positionals, [v for v in exclusive.values() if len(v) > 1]


def _choices(choices, info):
    choices = untaint(choices)[0]
    if isinstance(choices, RuntimeValues):
        return "dynamic"
    if isinstance(choices, (list, tuple)):
        items = list(choices)
        if any(isinstance(untaint(x)[0], RuntimeValues) for x in items):
            return "dynamic"
        items = [untaint(x)[0] for x in items]
        if any(isinstance(x, (Unknown, External, Partial)) for x in items):
            info["choices_partial"] = True
            items = [x for x in items if not isinstance(x, (Unknown, External, Partial))]
        vals = [jsonable(x) for x in items]
        if any(v is None or v == "None" for v in vals):
            info["nullable"] = True
        return [v for v in vals if v is not None and v != "None"]
    if isinstance(choices, Unknown):
        return "unknown"
    return None


# ---------------------------------------------------------------------------------------------
# the serve launcher
# ---------------------------------------------------------------------------------------------

def build_serve(tree, feats: KwFeatures):
    ip = VllmInterpreter(tree, feats)
    src_files = []
    if tree.has("vllm.entrypoints.cli.serve"):
        mod = "vllm.entrypoints.cli.serve"
        cls = ip.global_value(mod, "ServeSubcommand")
        inst = Instance(cls)
        init = ip.class_attr(cls, "__init__")
        if isinstance(init, FunctionRef) and init.cls == cls:
            ip.invoke(init, [], {}, self_obj=inst)
        root = ArgParser(-1, "vllm", {}, "", False, "<root>", mod, "vllm")
        ip.invoke(ip.class_attr(cls, "subparser_init"), [Subparsers(root)], {}, self_obj=inst)
    elif tree.has("vllm.scripts"):
        mod = "vllm.scripts"
        ip.invoke(ip.global_value(mod, "main"), [], {})
    else:
        raise RuntimeError(f"no vllm/entrypoints/cli/serve.py or vllm/scripts.py under {tree.root}")
    src_files.append(tree.relpath(mod))
    serve = next((p for p in ip.parsers if p.name == "serve"), None)
    if serve is None:
        raise RuntimeError("no serve parser found")
    classes = []
    for q in ip.kw_cache:
        m, n = q.rsplit(".", 1)
        r = ip.global_value(m, n)
        if isinstance(r, ClassRef):
            classes.append(r)
    flags, positionals, exclusive = flag_records(ip, feats, serve, ip.field_docstrings(classes))
    files = sorted({a.file for a in serve.actions} | set(src_files))
    return ip, flags, positionals, exclusive, files


# ---------------------------------------------------------------------------------------------
# facts stated elsewhere in the release
# ---------------------------------------------------------------------------------------------

def parser_facts(tree):
    """Launcher-wide behaviours of ``FlexibleArgumentParser`` in this release (read from its text)."""
    src = tree.module_text("vllm.utils.argparse_utils") or tree.module_text("vllm.utils")
    rel = tree.relpath("vllm.utils.argparse_utils") or tree.relpath("vllm.utils")
    facts = {"parser_source": rel}
    facts["underscore_equivalent"] = bool(re.search(r"""replace\(\s*["']_["']\s*,\s*["']-["']\s*\)""", src))
    facts["config_file_flag"] = "_pull_args_from_config" in src
    facts["json_dotted_keys"] = "create_nested_dict" in src or "recursive_dict_update" in src
    m = re.search(r"""arg\.startswith\(\s*["']-O["']\s*\).{0,600}?["'](--[a-z-]+)["']""", src, re.S)
    facts["O_shorthand_target"] = m.group(1) if m else None
    facts["_parser_text"] = src
    # '--flag-prefix=' tokens in user-facing strings of the engine (abbreviations it suggests)
    toks = []
    for rel in ("vllm/v1/worker/gpu_worker.py", "vllm/worker/worker.py", "vllm/v1/core/kv_cache_utils.py",
                "vllm/engine/arg_utils.py", "vllm/config/cache.py"):
        txt = tree.text(rel)
        if txt is None:
            continue
        for m in re.finditer(r"(--[a-z][a-z0-9-]+[a-z0-9])=", txt):
            toks.append((m.group(1), f"{rel}:{txt.count(chr(10), 0, m.start()) + 1}"))
    facts["_abbrev_tokens"] = toks
    return facts


def enrich(flags, tree, ev, facts, registries):
    """Facts the parser does not encode in ``add_argument`` but the release states elsewhere."""
    tgt = facts.get("O_shorthand_target")
    if tgt and tgt in flags and "-O" not in flags[tgt]["aliases"]:
        flags[tgt]["aliases"].append("-O")
        flags[tgt]["alias_notes"] = {"-O": "rewritten to " + tgt + " by FlexibleArgumentParser.parse_args ("
                                     + facts["parser_source"] + ")"}
    q = flags.get("--quantization")
    qmod = "vllm.model_executor.layers.quantization"
    if q is not None and q["choices"] is None and tree.has(qmod):
        lit = untaint(ev.global_value(qmod, "QuantizationMethods"))[0]
        if isinstance(lit, TLiteral):
            q["choices"] = [jsonable(v) for v in lit.values]
            q["choices_checked"] = "after_parse"
            q["choices_source"] = tree.relpath(qmod) + " QuantizationMethods"
    for flag, kind in (("--reasoning-parser", "reasoning"), ("--tool-call-parser", "tool")):
        r = flags.get(flag)
        if r is None:
            continue
        names = sorted(registries.get(kind) or {})
        if r["choices"] is None and names:
            r["choices"] = "dynamic"      # validated after parsing against the registry (plugins can add names)
        if r["choices"] == "dynamic":
            r["registry_values"] = names
    for m in re.finditer(r"""`?(--[a-z][a-z0-9-]+)`? option will be removed""", facts.get("_parser_text", "")):
        f = flags.get(m.group(1))
        if f is not None and not f["deprecated"]:
            f["deprecated"] = ("FlexibleArgumentParser.parse_args moves " + m.group(1) +
                               " to the positional model_tag and warns it will be removed (" + facts["parser_source"] + ")")
    for tok, where in facts.get("_abbrev_tokens", []):
        if tok in flags:
            continue
        owners = [k for k in flags if k.startswith(tok)]
        taken = [k for k, v in flags.items() for a in v["aliases"] + v["negation"] if a == tok]
        if len(owners) == 1 and not taken:
            f = flags[owners[0]]
            f["aliases"].append(tok)
            f.setdefault("alias_notes", {})[tok] = ("not an option string: an unambiguous prefix argparse accepts "
                                                   "(allow_abbrev); the release suggests it in " + where)
    kv = flags.get("--kv-cache-dtype")
    if kv is not None and kv["choices"] is None and kv.get("known_values"):
        kv["choices"] = kv.pop("known_values")
        kv["choices_checked"] = "after_parse"


def extract(source_root, version: str) -> dict:
    """The record of the vLLM release whose ``vllm/`` sources are under ``source_root``.

    Raises RuntimeError when the tree has no ``serve`` parser (not a vLLM source tree)."""
    from .static.source import SourceTree
    tree = SourceTree(source_root)
    feats = KwFeatures(tree)
    ip, flags, positionals, exclusive, files = build_serve(tree, feats)
    facts = parser_facts(tree)
    regs = parser_registries(tree)
    enrich(flags, tree, ip, facts, regs)
    facts = {k: v for k, v in facts.items() if not k.startswith("_")}
    launcher = {"source": files, "positional": positionals, **facts, "flags": dict(sorted(flags.items()))}
    parsers = {}
    for kind, flag in (("reasoning", "--reasoning-parser"), ("tool", "--tool-call-parser")):
        names = sorted(regs[kind])
        if names:
            parsers[kind] = names
            parsers[kind + "_source"] = sorted({v.rsplit(":", 1)[0] for v in regs[kind].values()})
        elif flag in flags and isinstance(flags[flag]["choices"], list):
            parsers[kind] = list(flags[flag]["choices"])
            parsers[kind + "_source"] = [flags[flag]["source"]]
        else:
            parsers[kind] = []
    notes = sorted({n for n in ip.notes if n.startswith("undecided condition")})
    if notes:
        launcher["notes"] = notes
    return {
        "engine": "vllm",
        "version": version,
        "launchers": {"serve": launcher},
        "removed": explicit_removals(tree, flags),
        "env": env_vars(tree),
        "parsers": parsers,
        "exclusive": exclusive,
        "checks": value_checks(tree, flags),
    }


