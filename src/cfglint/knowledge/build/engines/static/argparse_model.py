"""The argparse objects interpreted code builds: parsers, argument groups, sub-command parsers
and the arguments added to them, each with where it was added.

The :class:`~.interpreter.Interpreter` makes an :class:`ArgParser` when the code calls
``argparse.ArgumentParser`` (or a subclass of it from the release) and routes method calls on
these objects to :func:`parser_method`. What an argument *means* (its type, negation,
deprecation) is the engine module's reading of :class:`Action`: argparse behaves the same for
every engine, but each release line wraps it differently.
"""

from __future__ import annotations

import ast

from .values import Unknown, deep_untaint, untaint

__all__ = ["ArgParser", "ArgGroup", "Subparsers", "Action", "parser_method", "PARSE_METHODS"]

PARSE_METHODS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args"})


class ArgParser:
    """One ``ArgumentParser``: ``kind`` is the dotted name or class it was made with, ``name``
    the sub-command name (``add_parser("serve")``) or ``prog``."""

    def __init__(self, serial: int, kind: str, kwargs: dict, where: str, conditional: bool,
                 function: str, module: str, name: str | None = None, parent=None):
        self.id, self.kind, self.kwargs, self.where = serial, kind, kwargs, where
        self.conditional, self.function, self.module, self.name = conditional, function, module, name
        self.parent = parent
        self.actions: list[Action] = []
        self.mutex_groups: list[list[Action]] = []
        self.parsed: list[tuple] = []               # (method, "file:line", conditional)
        self.external_calls: list[dict] = []        # calls out of the release that received this parser
        self.attrs: dict = {}

    def __repr__(self):
        return f"ArgParser({self.kind}, {self.name})"


class ArgGroup:
    """``add_argument_group`` / ``add_mutually_exclusive_group`` on ``parser``."""

    def __init__(self, parser: ArgParser, title=None, mutex: bool = False, parent=None):
        self.parser, self.title, self.mutex, self.parent = parser, title, mutex, parent
        self.index = None
        if mutex:
            self.index = len(parser.mutex_groups)
            parser.mutex_groups.append([])


class Subparsers:
    """The object ``add_subparsers()`` returns; ``add_parser`` on it makes sub-command parsers."""

    def __init__(self, parser: ArgParser):
        self.parser = parser
        self.parsers: list[ArgParser] = []


class Action:
    """One ``add_argument`` call.

    ``option_strings`` are the string arguments; ``kwargs`` the keyword values (environment
    taint removed; a ``**mapping`` argument contributes its items), ``nodes`` the keyword
    expressions (None for items that came from a ``**mapping``); ``envs`` the environment
    variables the option strings or the default depend on; ``stack`` the functions being run,
    outermost first (:class:`~.values.FunctionRef`); ``raw`` the keyword values as evaluated
    (the same objects, so that facts noted about a value can be found).
    """

    def __init__(self, option_strings, kwargs, nodes, envs, where, conditional, group, stack, raw=None):
        self.option_strings, self.kwargs, self.nodes = option_strings, kwargs, nodes
        self.raw = raw if raw is not None else kwargs
        self.envs, self.where, self.conditional, self.group, self.stack = envs, where, conditional, group, stack

    @property
    def file(self) -> str:
        return self.where.rsplit(":", 1)[0]

    @property
    def line(self) -> int:
        return int(self.where.rsplit(":", 1)[1])


def _keyword_nodes(node: ast.Call | None, kwargs: dict) -> dict:
    nodes = {k: None for k in kwargs}
    if isinstance(node, ast.Call):
        for k in node.keywords:
            if k.arg is not None:
                nodes[k.arg] = k.value
    return nodes


def parser_method(interp, obj, name: str, args, kwargs, frame, node):
    """A method call on an :class:`ArgParser`, :class:`ArgGroup` or :class:`Subparsers`."""
    if isinstance(obj, Subparsers):
        if name == "add_parser":
            pname = untaint(args[0])[0] if args else untaint(kwargs.get("name"))[0]
            p = interp.new_parser("subparser", kwargs, frame, node, name=pname if isinstance(pname, str) else None,
                                  parent=obj)
            obj.parsers.append(p)
            return p
        return Unknown(f"subparsers.{name}")
    parser = obj if isinstance(obj, ArgParser) else obj.parser
    if name == "add_argument":
        return record_argument(interp, obj, args, kwargs, frame, node)
    if name == "add_argument_group":
        title = untaint(args[0] if args else kwargs.get("title"))[0]
        return ArgGroup(parser, title if isinstance(title, str) else None, parent=obj)
    if name == "add_mutually_exclusive_group":
        return ArgGroup(parser, mutex=True, parent=obj)
    if name == "add_subparsers":
        return Subparsers(parser)
    if name in PARSE_METHODS:
        parser.parsed.append((name, interp.where(frame.module, node), interp.in_unknown()))
        return (Unknown("namespace"), Unknown("rest")) if name.startswith("parse_known") else Unknown("namespace")
    if name == "_registry_get" and len(args) >= 2:
        key = untaint(args[1])[0]
        registry = {None: "_StoreAction", "store": "_StoreAction", "store_true": "_StoreTrueAction",
                    "store_false": "_StoreFalseAction", "append": "_AppendAction", "count": "_CountAction",
                    "store_const": "_StoreConstAction", "append_const": "_AppendConstAction",
                    "extend": "_ExtendAction", "version": "_VersionAction", "help": "_HelpAction"}
        from .values import External
        if isinstance(key, str) or key is None:
            return External("argparse." + registry.get(key, "_StoreAction"))
        return key
    if name in ("set_defaults", "register", "print_help", "print_usage", "format_help"):
        return None
    return Unknown(f"parser.{name}")


def record_argument(interp, target, args, kwargs, frame, node):
    parser = target if isinstance(target, ArgParser) else target.parser
    opts, envs = [], set()
    for a in args:
        v, e = untaint(a)
        envs |= e
        if isinstance(v, str):
            opts.append(v)
        elif isinstance(v, (list, tuple)):
            opts.extend(x for x in (untaint(y)[0] for y in v) if isinstance(x, str))
    plain = {}
    for k, v in kwargs.items():
        pv, e = deep_untaint(v)
        if k == "default":
            envs |= e
        plain[k] = pv
    group = target if isinstance(target, ArgGroup) else None
    act = Action(opts, plain, _keyword_nodes(node, kwargs), envs, interp.where(frame.module, node),
                 interp.in_unknown(), group, interp.call_stack(), raw=dict(kwargs))
    parser.actions.append(act)
    g = group
    while g is not None:
        if g.mutex:
            parser.mutex_groups[g.index].append(act)
            break
        g = g.parent if isinstance(g.parent, ArgGroup) else None
    return Unknown("action")
