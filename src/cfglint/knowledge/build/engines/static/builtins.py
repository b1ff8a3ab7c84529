"""Calls whose result follows from their arguments: methods of plain values (``str``,
``dict``, ``list`` / set methods) and the builtins and standard-library functions the
evaluator knows (``list``, ``sorted``, ``dict``, ``len``, ``str`` / ``int`` / ``float`` / ``bool``,
``getattr``, ``any`` / ``all``, ``min`` / ``max``, ``range``, ``enumerate``, ``zip``,
``typing.get_args``, ``copy.deepcopy``, ``itertools``), plus reads of ``os.environ``.

A mixin of :class:`~.evaluator.Evaluator`; anything else outside the release gives a
:class:`~.values.Partial`.
"""

from __future__ import annotations

import itertools

from .typeforms import TUnion
from .values import (DerivedClass, EnumMember, External, OrderedSet, Partial, RuntimeValues, Unknown, is_opaque,
                     taint, untaint)

__all__ = ["BuiltinsMixin", "deep_copy"]

_MAX_ITEMS = 5000


class BuiltinsMixin:
    def call_method(self, obj, name, args, kwargs, frame, node):
        plain = [untaint(a)[0] for a in args]
        if isinstance(obj, str):
            if any(is_opaque(p) for p in plain) or any(is_opaque(untaint(v)[0]) for v in kwargs.values()):
                return Unknown("str method")
            if name == "join":
                it = self.iterate(plain[0]) if plain else None
                items = [untaint(x)[0] for x in it] if it is not None else None
                if items is None or not all(isinstance(x, str) for x in items):
                    return Unknown("join")
                return obj.join(items)
            if name == "format":
                try:
                    return obj.format(*[p.value if isinstance(p, EnumMember) else p for p in plain],
                                      **{k: untaint(v)[0] for k, v in kwargs.items()})
                except (IndexError, KeyError, ValueError, TypeError, AttributeError):
                    return Unknown("format")
            try:
                return getattr(obj, name)(*plain, **{k: untaint(v)[0] for k, v in kwargs.items()})
            except Exception:
                return Unknown("str method")
        if isinstance(obj, dict):
            if name == "items":
                return [(k, v) for k, v in obj.items()]
            if name == "keys":
                return list(obj.keys())
            if name == "values":
                return list(obj.values())
            if name == "copy":
                return dict(obj)
            if name in ("get", "pop", "setdefault"):
                if not plain or is_opaque(plain[0]):
                    return Unknown(name)
                default = args[1] if len(args) > 1 else kwargs.get("default")
                try:
                    if name == "get":
                        return obj.get(plain[0], default)
                    if name == "pop":
                        return obj.pop(plain[0], default)
                    return obj.setdefault(plain[0], default)
                except TypeError:
                    return Unknown(name)
            if name == "update":
                for a in plain:
                    if isinstance(a, dict):
                        obj.update(a)
                obj.update(kwargs)
                return None
            return Unknown(name)
        if isinstance(obj, (list, tuple)):
            mutable = isinstance(obj, list)
            if name == "copy":
                return type(obj)(obj) if not isinstance(obj, OrderedSet) else OrderedSet(obj)
            if name in ("append", "add") and mutable and args:
                if isinstance(obj, OrderedSet) or name == "add":
                    if plain[0] not in obj:
                        obj.append(args[0])
                else:
                    obj.append(args[0])
                self._note_if_conditional(obj, [args[0]], frame, node)
                return None
            if name in ("extend", "update") and mutable and args:
                it = self.iterate(plain[0])
                if it is not None:
                    new = [x for x in it if not (isinstance(obj, OrderedSet) and x in obj)]
                    obj.extend(new)
                    self._note_if_conditional(obj, new, frame, node)
                return None
            if name == "insert" and mutable and len(args) == 2 and isinstance(plain[0], int):
                obj.insert(plain[0], args[1])
                self._note_if_conditional(obj, [args[1]], frame, node)
                return None
            if name in ("remove", "discard") and mutable and args:
                if frame is not None and frame.unknown_depth > 0:
                    return None      # removed only under a condition: it may still be there
                try:
                    obj.remove(plain[0])
                except ValueError:
                    pass
                return None
            if name == "index" and args:
                try:
                    return obj.index(plain[0])
                except ValueError:
                    return Unknown("index")
            if name == "union":
                out = OrderedSet(obj)
                for a in plain:
                    it = self.iterate(a)
                    if it is None:
                        return Unknown("union")
                    for x in it:
                        out.add(x)
                return out
            return Unknown(name)
        return Unknown(name)

    def _note_if_conditional(self, container, added, frame, node):
        if frame is not None and frame.unknown_depth > 0 and added:
            self.note_conditional(container, added, self.where(frame.module, node))

    def call_external(self, f: External, args, kwargs, frame, node):
        name, last = f.name, f.last
        plain = [untaint(a)[0] for a in args]
        envs = set()
        for a in args:
            envs |= untaint(a)[1]
        if name in ("os.environ.get", "os.getenv", "os.environ.setdefault", "os.environ.pop"):
            default = args[1] if len(args) > 1 else kwargs.get("default")
            if name.endswith("setdefault"):
                if plain and isinstance(plain[0], str) and frame is not None:
                    self.env_writes.append((plain[0], self.where(frame.module, node)))
                return default
            if name.endswith(".pop"):
                return default
            read = self.log_env(args[0] if args else None, default, frame, node, "get")
            return taint(default, ({read} if read else set()) | envs)
        if name == "sys.modules.get":
            # a fresh process: no module of the release is imported yet (nothing registered by plug-ins)
            return args[1] if len(args) > 1 else None
        if name in ("builtins.list", "builtins.tuple", "builtins.sorted", "builtins.set", "builtins.frozenset"):
            if not plain:
                return OrderedSet() if last in ("set", "frozenset") else ([] if last != "tuple" else ())
            if isinstance(plain[0], RuntimeValues):
                return plain[0]
            it = self.iterate(plain[0])
            if it is None:
                return Partial(f, args, kwargs, node)
            if last == "sorted":
                return taint(self._sorted(it, kwargs, frame), envs)
            if last in ("set", "frozenset"):
                return taint(OrderedSet(it), envs)
            return taint(tuple(it) if last == "tuple" else list(it), envs)
        if name == "builtins.dict":
            d = {}
            if plain and isinstance(plain[0], dict):
                d.update(plain[0])
            elif plain:
                it = self.iterate(plain[0])
                if it is None:
                    return Partial(f, args, kwargs, node)
                for pair in it:
                    p = untaint(pair)[0]
                    if isinstance(p, (list, tuple)) and len(p) == 2:
                        try:
                            d[untaint(p[0])[0]] = p[1]
                        except TypeError:
                            pass
            d.update(kwargs)
            return d
        if name == "builtins.len" and plain:
            it = self.iterate(plain[0])
            return taint(len(it), envs) if it is not None else Unknown("len")
        if name in ("builtins.str", "builtins.int", "builtins.float", "builtins.bool") and plain:
            v = plain[0].value if isinstance(plain[0], EnumMember) and last == "str" else plain[0]
            if v is None and last == "str":
                return taint("None", envs)
            if isinstance(v, (str, int, float, bool)):
                try:
                    return taint({"str": str, "int": int, "float": float, "bool": bool}[last](v), envs)
                except (ValueError, OverflowError):
                    return taint(Unknown(name), envs)
            return taint(Unknown(name), envs)
        if name == "builtins.repr" and plain and (plain[0] is None or isinstance(plain[0], (str, int, float, bool))):
            return repr(plain[0])
        if name == "builtins.getattr" and len(args) >= 2 and isinstance(plain[1], str):
            v = self.getattr(args[0], plain[1], frame, node)
            if isinstance(untaint(v)[0], Unknown) and len(args) > 2:
                return args[2]
            return v
        if name in ("builtins.any", "builtins.all") and plain:
            it = self.iterate(plain[0])
            if it is None:
                return Unknown(last)
            ts = [self.truth(x) for x in it]
            if last == "any":
                return True if True in ts else (Unknown(last) if None in ts else False)
            return False if False in ts else (Unknown(last) if None in ts else True)
        if name in ("builtins.min", "builtins.max") and plain:
            items = self.iterate(plain[0]) if len(plain) == 1 else plain
            vals = [untaint(x)[0] for x in items] if items is not None else None
            if vals and all(isinstance(x, (int, float)) for x in vals):
                return min(vals) if last == "min" else max(vals)
            return Unknown(last)
        if name == "builtins.range" and plain and all(isinstance(x, int) for x in plain) and len(plain) <= 3:
            r = range(*plain)
            return r if len(r) <= _MAX_ITEMS else Unknown("range")
        if name in ("builtins.enumerate", "builtins.zip", "builtins.reversed") and plain:
            its = [self.iterate(p) for p in plain]
            if any(i is None for i in its):
                return Unknown(last)
            if last == "enumerate":
                return [(i, x) for i, x in enumerate(its[0])]
            if last == "reversed":
                return list(reversed(its[0]))
            return [tuple(t) for t in zip(*its)]
        if name == "builtins.type" and len(args) == 3:
            bases = plain[1]
            return DerivedClass(plain[0], list(bases) if isinstance(bases, (list, tuple)) else [])
        if last == "get_args" and name in ("typing.get_args", "typing_extensions.get_args") or name.endswith(".get_args"):
            from .typeforms import TGeneric, TLiteral
            a = plain[0] if plain else None
            if isinstance(a, TLiteral):
                return tuple(a.values)
            if isinstance(a, TGeneric):
                return tuple(a.args)
            if isinstance(a, TUnion):
                return tuple(a.members)
            return Unknown("get_args")
        if name in ("copy.deepcopy", "copy.copy"):
            return deep_copy(args[0]) if args else Unknown("copy")
        if name == "itertools.permutations" and plain:
            it = self.iterate(plain[0])
            r = untaint(kwargs.get("r", args[1] if len(args) > 1 else None))[0]
            if it is not None and (r is None or isinstance(r, int)) and len(it) <= 8:
                return [tuple(p) for p in itertools.permutations(it, r)]
        if name == "itertools.chain" and plain:
            out = []
            for p in plain:
                it = self.iterate(p)
                if it is None:
                    return Unknown("chain")
                out.extend(it)
            return out
        return Partial(f, args, kwargs, node)

    def _sorted(self, items, kwargs, frame):
        reverse = untaint(kwargs.get("reverse", False))[0] is True
        keyf = kwargs.get("key")
        if keyf is not None:
            keys = [untaint(self.call(keyf, [x], {}, frame, None))[0] for x in items]
            if all(not is_opaque(k) for k in keys):
                try:
                    order = sorted(range(len(items)), key=lambda i: keys[i], reverse=reverse)
                    return [items[i] for i in order]
                except TypeError:
                    pass
        try:
            return sorted(items, key=lambda x: _sort_key(untaint(x)[0]), reverse=reverse)
        except TypeError:
            return list(items)


def _sort_key(x):
    if isinstance(x, EnumMember):
        x = x.value
    return (x is None, str(type(x)), x)


def deep_copy(v):
    """A copy of nested lists and dicts (other values are shared)."""
    if isinstance(v, dict):
        return {k: deep_copy(x) for k, x in v.items()}
    if isinstance(v, OrderedSet):
        return OrderedSet(deep_copy(x) for x in v)
    if isinstance(v, list):
        return [deep_copy(x) for x in v]
    return v
