"""Dynamo facts read from the syntax of one release's ``dynamo/`` sources: the ``DYN_*``
variables the Python reads, the flag pairs a launcher refuses together (or resolves with a
warning), and the legacy flags it rewrites in argv before parsing."""

from __future__ import annotations

import ast
import re

__all__ = ["scan_env", "scan_conflicts", "scan_removed", "LAUNCHERS", "FLAG_RE"]

LAUNCHERS = ["frontend", "sglang", "vllm", "trtllm", "router", "mocker"]
FLAG_RE = re.compile(r"(?<![\w-])--[a-z0-9][a-z0-9._-]*[a-z0-9]")

# ---------------------------------------------------------------------------------------- env scan
ENV_CALLS = {"get", "getenv", "env_or_default", "env_bool", "_env_bool", "env_int", "env_float", "get_env",
             "_get_env", "env_flag", "_env_flag", "_env_int", "_env_float", "setdefault", "pop",
             "env_is_truthy", "_env", "environ_get", "is_truthy"}


def _py_files(tree, launchers_only=False):
    out = []
    for rel in tree.files("dynamo"):
        if launchers_only and not any(rel.startswith("dynamo/%s/" % x) for x in LAUNCHERS + ["common"]):
            continue
        out.append(rel)
    return out


def scan_env(tree) -> dict:
    """Every ``DYN_*`` variable the Python sources read, with a type guess, default and source."""
    out = {}
    for rel in _py_files(tree):
        if "/tests/" in rel:
            continue
        t = tree.parse_file(rel)
        if t is None:
            continue
        parents = {}
        for node in ast.walk(t):
            for ch in ast.iter_child_nodes(node):
                parents[ch] = node
        for node in ast.walk(t):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    re.fullmatch(r"DYN_[A-Z0-9_]*[A-Z0-9]", node.value):
                kind, default, typ = _env_use(node, parents.get(node), parents)
                if kind is None:
                    continue
                e = out.setdefault(node.value, {"type": None, "default": None, "source": [], "how": []})
                src = "%s:%d" % (rel, node.lineno)
                if src not in e["source"]:
                    e["source"].append(src)
                if kind not in e["how"]:
                    e["how"].append(kind)
                if typ and e["type"] in (None, "str"):
                    e["type"] = typ
                if default is not None and e["default"] is None:
                    e["default"] = default
    for e in out.values():
        e["source"] = sorted(e["source"])[:8]
        e["how"] = sorted(e["how"])
        if e["type"] is None:
            e["type"] = "str"
    return dict(sorted(out.items()))


def _env_use(node, par, parents):
    """How a ``DYN_*`` literal is used: read / write / a flag's env_var / neither."""
    if isinstance(par, ast.keyword) and par.arg == "env_var":
        return "flag_env_var", None, None
    if isinstance(par, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn)) for o in par.ops):
        if "environ" in ast.unparse(par.comparators[0]):
            return "read", None, "bool"
    if isinstance(par, ast.Subscript) and "environ" in ast.unparse(par.value):
        gp = parents.get(par)
        if isinstance(gp, ast.Assign) and par in gp.targets:
            return "write", None, None
        return "read", None, None
    if isinstance(par, ast.Call) and node in par.args:
        last = ast.unparse(par.func).split(".")[-1]
        if last in ENV_CALLS or "env" in last.lower():
            default = par.args[1].value if len(par.args) > 1 and isinstance(par.args[1], ast.Constant) else None
            typ = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(default))
            if "bool" in last or "flag" in last or "truthy" in last:
                typ = "bool"
            gp = parents.get(par)
            if isinstance(gp, ast.Call) and isinstance(gp.func, ast.Name) and gp.func.id in ("int", "float", "bool"):
                typ = gp.func.id
            if isinstance(gp, ast.Attribute) and gp.attr == "lower":
                typ = typ or "bool?"
            for kw in par.keywords:
                if kw.arg == "value_type" and isinstance(kw.value, ast.Name) and kw.value.id in ("int", "float", "bool", "str"):
                    typ = kw.value.id
            if last in ("setdefault", "pop"):
                return ("write" if last == "setdefault" else "read"), default, typ
            return "read", default, typ
    return None, None, None


# ---------------------------------------------------------------------------------------- conflicts
REFUSE_WORDS = re.compile(r"cannot be combined|mutually exclusive|cannot use both|cannot set both|"
                          r"cannot combine|cannot be used (together|with)|are exclusive|not both|"
                          r"only one of|conflicts? with|cannot .{0,90}together", re.I)
PREFER_WORDS = re.compile(r"both set|both specified|both provided|preference|takes precedence|overrid", re.I)


def _msg_template(node):
    """A message expression as text; f-string holes become {name} (or {?})."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name):
                out.append("{%s}" % v.value.id)
            else:
                out.append("{?}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _msg_template(node.left), _msg_template(node.right)
        if a is not None and b is not None:
            return a + b
    return None


def _messages_in(body):
    msgs, refuse, warn = [], False, False
    for stmt in body:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Raise):
                refuse = True
                if isinstance(sub.exc, ast.Call):
                    msgs += [m for m in map(_msg_template, sub.exc.args) if m]
            elif isinstance(sub, ast.Call):
                fn = ast.unparse(sub.func)
                last = fn.split(".")[-1]
                if fn in ("sys.exit", "exit", "os._exit") or last == "error" and "parser" in fn:
                    refuse = True
                if last in ("error", "critical", "exception", "warning", "warn", "info"):
                    if last in ("warning", "warn"):
                        warn = True
                    msgs += [m for m in map(_msg_template, sub.args) if m]
    return msgs, refuse, warn


def _flag_pairs(msg, words=None):
    if words is not None:
        sents = [s for s in re.split(r"(?<=[.;])\s+", msg) if words.search(s)]
        if sents:
            msg = " ".join(sents)
    flags = []
    for m in FLAG_RE.finditer(msg):
        f = m.group(0)
        nxt = msg[m.end():m.end() + 2]
        if nxt.startswith(".*"):
            f = f + ".*"
        elif nxt[:1] in ("-", "*", "{", "<"):
            continue
        if f not in flags:
            flags.append(f)
    if len(flags) < 2:
        return []
    low = msg.lower()
    if " with " in low:
        idx = low.index(" with ")
        left = [f for f in flags if msg.find(f) < idx]
        right = [f for f in flags if msg.find(f) > idx]
        if left and right:
            return [(a, b) for a in left for b in right]
    return [(flags[0], b) for b in flags[1:]]


def _instantiate(msg, fnode, callsites):
    holes = re.findall(r"\{(\w+)\}", msg)
    if not holes:
        return [msg]
    if not isinstance(fnode, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    params = [a.arg for a in fnode.args.args]
    defaults = {a.arg: d.value for a, d in zip(fnode.args.args[len(fnode.args.args) - len(fnode.args.defaults):],
                                               fnode.args.defaults) if isinstance(d, ast.Constant)}
    out = []
    for call in callsites or [None]:
        vals = dict(defaults)
        if call is not None:
            for i, a in enumerate(call.args):
                if i < len(params) and isinstance(a, ast.Constant):
                    vals[params[i]] = a.value
            for k in call.keywords:
                if k.arg and isinstance(k.value, ast.Constant):
                    vals[k.arg] = k.value.value
        if all(h in vals and isinstance(vals[h], str) for h in holes):
            text = msg
            for h in holes:
                text = text.replace("{%s}" % h, vals[h])
            out.append(text)
    return out


def scan_conflicts(tree) -> list:
    """Flag pairs the release refuses together (or resolves with a warning) in its own code:
    an ``if`` whose body raises / exits / calls ``parser.error`` with a message that states the
    conflict; flag names are read from that sentence."""
    found = []
    for rel in _py_files(tree, launchers_only=True):
        t = tree.parse_file(rel)
        if t is None:
            continue
        funcs = {}
        for node in ast.walk(t):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                funcs.setdefault(node.name, node)
        calls = {}
        for node in ast.walk(t):
            if isinstance(node, ast.Call):
                nm = node.func.attr if isinstance(node.func, ast.Attribute) else \
                    (node.func.id if isinstance(node.func, ast.Name) else None)
                if nm in funcs:
                    calls.setdefault(nm, []).append(node)
        for fname, fnode in list(funcs.items()) + [("<module>", t)]:
            for node in ast.walk(fnode):
                if not isinstance(node, ast.If):
                    continue
                msgs, refuse, warn = _messages_in(node.body)
                for msg in msgs:
                    is_refuse = refuse and REFUSE_WORDS.search(msg)
                    is_prefer = (not refuse) and warn and PREFER_WORDS.search(msg) and "both" in msg.lower()
                    if not (is_refuse or is_prefer):
                        continue
                    for text in _instantiate(msg, fnode, calls.get(fname, [])):
                        for a, b in _flag_pairs(text, REFUSE_WORDS if is_refuse else PREFER_WORDS):
                            found.append({"flags": [a, b], "action": "refuse" if is_refuse else "warn_prefer",
                                          "source": "%s:%d" % (rel, node.lineno)})
    seen, out = set(), []
    for f in found:
        key = (tuple(f["flags"]), f["action"], f["source"])
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def scan_removed(tree) -> dict:
    """Legacy flags a launcher rewrites in argv before parsing
    (``if arg == "--old": expanded.extend(["--new", ...])``): {flag: {rewritten_to, source}}."""
    out = {}
    for rel in _py_files(tree, launchers_only=True):
        t = tree.parse_file(rel)
        if t is None:
            continue
        for node in ast.walk(t):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and \
                    len(node.test.comparators) == 1 and isinstance(node.test.comparators[0], ast.Constant) and \
                    isinstance(node.test.comparators[0].value, str) and \
                    node.test.comparators[0].value.startswith("--") and isinstance(node.test.ops[0], ast.Eq):
                old = node.test.comparators[0].value
                repl = []
                for sub in ast.walk(ast.Module(body=node.body, type_ignores=[])):
                    if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and \
                            sub.func.attr in ("extend", "append", "insert"):
                        for a in sub.args:
                            repl += [c.value for c in ast.walk(a) if isinstance(c, ast.Constant)
                                     and isinstance(c.value, str) and c.value.startswith("--")]
                if repl:
                    out[old] = {"rewritten_to": repl, "source": "%s:%d" % (rel, node.lineno)}
    return dict(sorted(out.items()))
