"""JSON Schema validation with positions: schemas are compiled once, and each error is carried
to the exact YAML key or value it is about."""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any, Callable

from ..knowledge import data_dir
from ..model import Finding, Span, quote
from ..read.yamlsrc import YMap, YNode, YScalar, key_span, walk_path


@lru_cache(maxsize=None)
def validator(name: str):
    """The compiled JSON Schema ``schemas/<name>``."""
    import jsonschema  # here, not at the top: ~50-100 ms, and a run over memoized data never needs it

    with open(data_dir("schemas") / name, encoding="utf-8") as fh:
        schema = json.load(fh)
    return jsonschema.validators.validator_for(schema)(schema)


@lru_cache(maxsize=None)
def schema_id(name: str) -> str:
    """The ``$id`` of ``schemas/<name>``: the address the schema is published at (the raw file of
    the repository's main branch), which editors fetch from a ``# yaml-language-server:
    $schema=...`` line. Raises OSError / KeyError for a schema that is not bundled or has none."""
    with open(data_dir("schemas") / name, encoding="utf-8") as fh:
        return json.load(fh)["$id"]


def validate(rule_id: str, name: str, node: YNode, data: Any, display: str, unknown_key_hint=None) -> list[Finding]:
    """:func:`schema_findings` of ``data`` against ``schemas/<name>``; none, without running
    jsonschema, when :func:`known_valid` says the data passes (it passed before, or
    jsonschema-rs finds it valid)."""
    clean, remember = known_valid(lambda: _passed_key(name), lambda: fast_validator(name), node, data)
    if clean:
        return []
    out = schema_findings(rule_id, validator(name), node, data, display, unknown_key_hint, advice=True)
    if not out:
        remember()
    return out


def known_valid(memo_key: Callable[[], str | None], fast: Callable[[], Any], node: YNode | None,
                data: Any) -> tuple[bool, Callable[[], None]]:
    """Whether ``data`` (``node`` as plain data) is known to pass a schema without jsonschema:
    (True, _) when exactly this data passed exactly this schema before (the memo, see below) or
    the fast validator ``fast()`` (:mod:`cfglint.schema.fastschema`; None when there is none) finds it
    valid; else (False, remember), and ``remember()`` records a pass found by jsonschema.

    The memo (a pre-commit run over an unchanged manifest then imports neither validator) is
    looked up for the first :data:`MEMO_DOCS` documents of a run, only when the cache is usable
    and ``node`` expands to at most :data:`MAX_MEMO_NODES` nodes and :data:`MAX_MEMO_CHARS`
    characters (measured without expanding: a small file of aliases can stand for gigabytes of
    JSON); past them (a corpus) the fast validator alone is cheaper than a digest.
    ``memo_key()`` names the memo of this schema (None: no memo)."""
    global _looked_up
    from ..knowledge import kbcache

    digest = key = None
    if _looked_up < MEMO_DOCS and kbcache.enabled() and _small(node):
        _looked_up += 1
        key = memo_key()
        digest = _digest(data) if key is not None and _usable(key) else None
        if digest is not None and key is not None and digest in _passed(key):
            return True, _nothing

    def remember() -> None:
        if digest is not None and key is not None:
            _remember(key, digest)

    compiled = fast()
    if compiled is not None:
        from .fastschema import passes

        if passes(compiled, data):
            remember()
            return True, _nothing
    return False, remember


def _nothing() -> None:
    pass


def new_run() -> None:
    """Start counting a run's memo lookups and additions afresh (lint.lint_paths calls it)."""
    global _added, _looked_up
    _added = _looked_up = 0


@lru_cache(maxsize=None)
def fast_validator(name: str):
    """The jsonschema-rs validator of ``schemas/<name>`` (:func:`cfglint.schema.fastschema.compile_schema`;
    None when there is none)."""
    from .fastschema import compile_schema

    with open(data_dir("schemas") / name, encoding="utf-8") as fh:
        return compile_schema(json.load(fh))


MAX_MEMO_NODES = 20_000     # the memo is for manifests (a real one: ~100 nodes, ~3 KB)
MAX_MEMO_CHARS = 1 << 20    # characters of scalar text, every alias expanded
MAX_PASSED = 4096        # digests of clean data kept per schema (~270 KB)
MAX_NEW_PER_RUN = 8      # digests one run adds: the memo is for small runs (pre-commit); a corpus
                         # run imports the validators anyway, and need not rewrite the memo per file
MEMO_DOCS = 16           # documents of a run looked up in the memo (a pre-commit run has a few)
_passed_memo: dict[str, dict[str, None]] = {}   # memo key -> digests, oldest first (a dict: O(1) lookups)
_usable_memo: dict[str, bool] = {}   # per memo key: was the cache directory usable (checked once)
_added = 0
_looked_up = 0   # documents of this run looked up in the memo


@lru_cache(maxsize=None)
def _passed_key(name: str) -> str | None:
    """Knowledge-cache key of the memo of data that passed ``schemas/<name>``: the schema's
    content and the installed jsonschema and jsonschema-rs (each one's file path, size and
    time), besides cfglint's version (kbcache.key). None when the schema or jsonschema cannot
    be read."""
    import importlib.util

    from ..knowledge import kbcache
    from ..read.safeio import ReadError, read_bytes

    try:
        schema = read_bytes(str(data_dir("schemas") / name))
        installed = []
        for module in ("jsonschema", "jsonschema_rs"):   # where each is, without importing it
            spec = importlib.util.find_spec(module)
            if spec is None:
                installed.append(None)   # jsonschema-rs may be missing; jsonschema may not
                continue
            st = os.stat(spec.origin)
            installed.append((spec.origin, st.st_size, st.st_mtime_ns))
    except (ReadError, OSError, AttributeError, TypeError, ValueError, ImportError):
        return None
    if installed[0] is None:
        return None
    return kbcache.key("schema-passed", name, kbcache.sha256(schema).hexdigest(), *installed)


def _usable(key: str) -> bool:
    """Whether the cache directory is usable, checked once per process and memo (a corpus run
    validates thousands of manifests)."""
    if key not in _usable_memo:
        from ..knowledge import kbcache

        _usable_memo[key] = kbcache.directory() is not None
    return _usable_memo[key]


def _small(node: YNode | None) -> bool:
    """Whether ``node``, every alias expanded, is small enough to be JSON-encoded for the memo."""
    from ..read.yamlsrc import expanded_size

    nodes, chars = expanded_size(node, MAX_MEMO_NODES + 1)
    return nodes <= MAX_MEMO_NODES and chars <= MAX_MEMO_CHARS


def _digest(data: Any) -> str | None:
    """SHA-256 of ``data`` as exact JSON (None when JSON cannot hold it exactly: a date, a
    non-string key): equal digests, equal data, equal validation."""
    from ..knowledge.kbcache import encode, sha256

    text = encode(data)
    return sha256(text).hexdigest() if text is not None else None


def _passed(key: str) -> dict[str, None]:
    if key not in _passed_memo:
        from ..knowledge import kbcache

        found: list[str] = []
        try:
            part = (kbcache.read(key) or {}).get("passed")
            value = kbcache.decode(part) if part is not None else []
            found = [d for d in value if isinstance(d, str)] if isinstance(value, list) else []
        except ValueError:
            pass
        _passed_memo[key] = dict.fromkeys(found)
    return _passed_memo[key]


def _remember(key: str, digest: str) -> None:
    global _added
    from ..knowledge import kbcache

    if _added >= MAX_NEW_PER_RUN or kbcache.directory() is None:
        return
    _added += 1
    _passed_memo.pop(key, None)   # merge with what other runs stored meanwhile
    passed = [d for d in _passed(key) if d != digest] + [digest]
    _passed_memo[key] = dict.fromkeys(passed[-MAX_PASSED:])
    kbcache.store(key, {"passed": list(_passed_memo[key])})


def _file_span(display: str) -> Span:
    return Span(display, 1, 1, 1, 1)


# jsonschema writes the instance into every error message with repr() as it finds the error
# (``f"{instance!r} is not of type ..."``), before cfglint can choose what to show: a mapping whose
# values are aliases of one 10 KB string would make each message megabytes. The data validated is
# therefore made of these subclasses, whose repr is :func:`cfglint.model.quote` (bounded); they
# are str / list / dict for every check the schema makes.
class _QStr(str):
    __slots__ = ()

    def __repr__(self) -> str:
        return quote(self)


class _QList(list):
    __slots__ = ()

    def __repr__(self) -> str:
        return quote(self)


class _QDict(dict):
    __slots__ = ()

    def __repr__(self) -> str:
        return quote(self)


def _quoting(data: Any) -> Any:
    """``data`` (plain YAML data, possibly a DAG of shared lists and dicts) rebuilt of the
    bounded-repr types above; each shared object converted once."""
    memo: dict[int, Any] = {}

    def conv(x: Any) -> Any:
        if isinstance(x, str):
            key = id(x)
            if key not in memo:
                memo[key] = (_QStr(x), x)  # keep x alive: its id stays its own
            return memo[key][0]
        if not isinstance(x, (list, dict)):
            return x
        if id(x) in memo:
            return memo[id(x)][0]
        out: Any = _QList() if isinstance(x, list) else _QDict()
        memo[id(x)] = (out, x)
        if isinstance(x, list):
            out.extend(conv(v) for v in x)
        else:
            out.update((conv(k), conv(v)) for k, v in x.items())
        return out

    return conv(data)


def _type_name(value: Any) -> str:
    for base in (bool, str, int, float, list, dict):
        if isinstance(value, base):
            return base.__name__
    return type(value).__name__


# What to write for each JSON Schema type, in a YAML file's words
_WRITE = {"null": "`null`", "string": "a string", "integer": "a whole number", "number": "a number",
          "boolean": "true or false", "array": "a list", "object": "a mapping"}
# Texts people write for "no value" that YAML reads as strings (its null is null, Null, NULL, ~ or nothing)
_NOT_NULL = {"none", "nil", "undefined", "empty", "n/a"}


def _wrong_shape(target: YNode | None, err) -> str:
    """The message for a value whose type no branch of a oneOf / anyOf allows (every branch
    failed on its type): what YAML read, and what to write instead, e.g. ``'None' is text, not
    YAML's null ...; write `null`, or a mapping with algorithm and draft_tokens``."""
    branches = [e for e in err.context if e.validator == "type" and not e.relative_path]
    options = []
    for e in sorted(branches, key=lambda e: str(e.validator_value) != "null"):   # null first
        kinds = e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
        for kind in kinds:
            text = _WRITE.get(str(kind), str(kind))
            required = e.schema.get("required") if kind == "object" else None
            if required:
                text += " with " + (", ".join(required[:-1]) + " and " + required[-1] if len(required) > 1
                                    else required[0])
            if text not in options:
                options.append(text)
    write = "write " + (", or ".join(options) if options else "another value")
    if isinstance(target, YScalar):
        shown = quote(target.text)
        if "`null`" in options and isinstance(target.value, str) and target.value.strip().lower() in _NOT_NULL:
            return f"{shown} is text, not YAML's null (YAML writes no value as null or ~); {write}"
        return f"{shown} is {_WRITE.get(_json_type(target.value), 'a value')} here; {write}"
    return f"a {'list' if isinstance(err.instance, list) else 'mapping'} is not allowed here; {write}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string" if isinstance(value, str) else "object"


def schema_findings(rule_id: str, compiled, node: YNode, data: Any, display: str,
                    unknown_key_hint=None, advice: bool = False) -> list[Finding]:
    """Every JSON Schema error of ``data`` as a finding of ``rule_id`` at the YAML node it is
    about (cfn-lint style). ``unknown_key_hint(path, key)`` may add advice for an unknown key.
    With ``advice`` (:func:`validate`: manifests and engine configurations), a type error says
    what to write instead (``'None' is text, not YAML's null ...; write `null`, or a mapping
    with ...``), a wrong type inside one branch of a oneOf is reported there, and a value outside
    an enum or const is one finding (its type error with it) naming the values allowed there
    (``the value is null ...; write one of BF16, FP16, ...``); without it, messages keep
    jsonschema's wording (callers that reword them parse it). Either way a value is shown in
    YAML's words (``null``, ``true``), not Python's.
    """
    from jsonschema.exceptions import best_match

    out: list[Finding] = []
    reported: set[tuple[Span, str]] = set()

    def add(where: str, text: str, span: Span) -> None:
        # a node shared by YAML aliases (or merged with '<<') is written once: one finding for
        # it, at the path where the error is first met, however many places use it
        if (span, text) not in reported:
            reported.add((span, text))
            out.append(Finding(rule_id, f"{where}: {text}", span))

    errors = []
    for err in compiled.iter_errors(_quoting(data)):
        if err.context:
            # oneOf [null, {...}]: "is not of type 'null'" says nothing; explain the real branch
            # oneOf of several shapes: an error inside the branch of the right shape says what is
            # wrong; if every branch fails on its type, say which types are allowed
            inner = [e for e in err.context if e.validator != "type" or (advice and e.relative_path)]
            if inner:
                err = best_match(inner) or err
            else:
                target = walk_path(node, tuple(err.absolute_path))
                where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
                if advice:
                    text = _wrong_shape(target, err)
                else:
                    types = sorted({str(e.validator_value) for e in err.context})
                    shown = quote(target.text) if isinstance(target, YScalar) else _type_name(err.instance)
                    text = f"{shown} is not of type {' or '.join(types)}"
                add(where, text, target.span if target is not None else _file_span(display))
                continue
        errors.append(err)
    # with advice, a value that breaks an enum or const (and perhaps its type too) is one finding
    # listing what may be written there
    values = _value_errors(errors) if advice else {}
    for err in errors:
        path = tuple(err.absolute_path)
        target = walk_path(node, path)
        span = target.span if target is not None else _file_span(display)
        where = "/".join(str(p) for p in path) or "(top level)"
        if path in values:
            if values[path][0] is err:
                add(where, _not_allowed(err.instance, target, _allowed(values[path])), span)
            continue
        message = _yaml_words(err)
        if err.validator == "additionalProperties" and isinstance(target, YMap):
            allowed = set((err.schema.get("properties") or {}).keys())
            for k, _ in target.items:
                if isinstance(k.value, str) and k.value not in allowed:
                    hint = unknown_key_hint(path, k.value) if unknown_key_hint else None
                    if hint is None:
                        import difflib

                        close = difflib.get_close_matches(k.value, sorted(allowed), n=1, cutoff=0.75)
                        hint = f"did you mean '{close[0]}'?" if close else \
                            "allowed: " + ", ".join(sorted(allowed)[:15]) + (", ..." if len(allowed) > 15 else "")
                    add(where, f"unknown field {quote(k.value)}; {hint}", k.span)
            continue
        if err.validator == "required" and target is not None:
            ks = key_span(node, path)
            span = ks or Span(display, target.span.line, target.span.col, target.span.line, target.span.col + 1)
        if err.validator == "type" and isinstance(target, YScalar) and err.validator_value == "string" \
                and target.value is not None and not isinstance(target.value, str):
            message += f" (YAML read `{quote(target.text)[1:-1]}` as {type(target.value).__name__}; quote it)"
        elif advice and err.validator == "type" and isinstance(err.validator_value, str) and err.validator_value in _WRITE:
            want = _WRITE[err.validator_value]
            message = f"{_NULL}; write {want}" if err.instance is None else f"{message}; write {want}"
        if err.validator == "enum" and isinstance(err.instance, str):
            close = _close(err.instance, err.validator_value)
            if close:
                message = f"{quote(err.instance)} is not one of the allowed values; did you mean '{close}'?"
        add(where, message, span)
    return out


def _close(value: str, allowed: list) -> str | None:
    """The allowed value ``value`` most likely misspells (None: none is close)."""
    import difflib

    close = difflib.get_close_matches(value, [str(v) for v in allowed], n=1, cutoff=0.6)
    return close[0] if close else None


_NULL = "the value is null (an empty value, ~ and null are YAML's null)"
_CHOICE = ("enum", "const")


def _yaml_words(err) -> str:
    """jsonschema's message for ``err`` with its instance in YAML's words: it starts with the
    instance's repr, Python's ``None`` / ``True`` / ``False`` for YAML's null, true and false."""
    if err.instance is None or isinstance(err.instance, bool):
        shown = repr(err.instance)
        if err.message.startswith(shown + " "):
            return _word(err.instance) + err.message[len(shown):]
    return err.message


def _word(value: Any) -> str:
    """``value`` (from a schema or a document) as YAML writes it: null, true, false, a number,
    a string as it is, a list or mapping in flow style (JSON's)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def _value_errors(errors: list) -> dict[tuple, list]:
    """Path -> the type, enum and const errors at that path, for each path where an enum or a
    const is broken (the allowed values say the type too): reported as one finding."""
    groups: dict[tuple, list] = {}
    for err in errors:
        if err.validator == "type" or err.validator in _CHOICE:
            groups.setdefault(tuple(err.absolute_path), []).append(err)
    return {path: group for path, group in groups.items() if any(e.validator in _CHOICE for e in group)}


def _allowed(group: list) -> list:
    """The values every enum / const of ``group`` allows (a role name: the schema's names, and
    the names its serving mode allows), in the first one's order; the first's when none is common."""
    sets = [list(e.validator_value) if e.validator == "enum" else [e.validator_value]
            for e in group if e.validator in _CHOICE]
    common = [v for v in sets[0] if all(v in s for s in sets[1:])]
    return common or sets[0]


def _not_allowed(instance: Any, target: YNode | None, allowed: list) -> str:
    """The message for a value outside the ``allowed`` values: what was written, and what may
    be (``the value is null ...; write one of BF16, FP16, ...``, or a did-you-mean)."""
    shown_values = ", ".join(_word(v) for v in allowed[:15]) + (", ..." if len(allowed) > 15 else "")
    write = f"write {shown_values}" if len(allowed) == 1 else f"write one of {shown_values}"
    if instance is None:
        return f"{_NULL}; {write}"
    if isinstance(instance, str):
        close = _close(instance, allowed)
        if close:
            return f"{quote(instance)} is not one of the allowed values; did you mean '{close}'?"
        return f"{quote(instance)} is not {'allowed here' if len(allowed) == 1 else 'one of the allowed values'}; {write}"
    if isinstance(target, YScalar):
        kind = _WRITE.get(_json_type(instance), "a value")
        return f"{quote(target.text)} is {kind} here, not one of the allowed values; {write}"
    return f"a {'list' if isinstance(instance, list) else 'mapping'} is not allowed here; {write}"


