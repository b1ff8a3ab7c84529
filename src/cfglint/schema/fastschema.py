"""A fast yes/no JSON Schema check in front of jsonschema: most documents a run validates are
valid, and jsonschema-rs (a compiled validator, https://github.com/Stranger6667/jsonschema,
``crates/jsonschema-py``) says so ~100 times faster than the pure-Python jsonschema. Only a
document it does not pass goes through jsonschema, which finds, words and places every error:
findings do not depend on this module, only their cost does.

A "yes" must mean what jsonschema would say, so the fast check is used only where both agree
by construction:

- a schema is compiled here only when every keyword in it is one of :data:`KEYWORDS` (those
  cfglint's schemas use, all Draft 2020-12 validation keywords both implement the same way) or
  an annotation (:data:`ANNOTATIONS`, ``x-`` extensions); any other keyword (``format``,
  ``patternProperties``, ``uniqueItems``, ...) leaves that schema to jsonschema alone;
- ``pattern`` is checked with Python's ``re.search``, as jsonschema does (jsonschema-rs's own
  regular expressions differ: Rust's ``\\S`` matches U+001C, Python's does not);
- ``format`` is not asserted by either (jsonschema: no format checker is passed;
  jsonschema-rs: ``validate_formats=False``);
- data JSON cannot hold (a date, a non-string key, a lone surrogate) raises in jsonschema-rs,
  which counts as "not passed", so jsonschema decides; so does data holding an infinite or NaN
  number (YAML's ``.inf`` / ``.nan``), which jsonschema-rs reads differently.

Nesting: jsonschema-rs recurses natively and overflows its stack on data nested ~20,000 levels
deep or more (measured with 0.61: 20,000 levels pass, 40,000 crash the process); cfglint's YAML
loader refuses documents nested more than a few hundred levels ("YAML nesting is too deep to
parse"), every validated value comes from it, and :func:`passes` encodes the data as JSON first,
which stops at Python's recursion limit (~1,000 levels) (tests/test_fastschema.py keeps these facts).

Without jsonschema-rs installed (it is a dependency; a platform without its wheel may lack it)
:func:`compile_schema` returns None and jsonschema validates everything, as before.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

# validation keywords (JSON Schema Draft 2020-12) the fast check may meet; each is implemented
# alike by jsonschema and jsonschema-rs (``pattern`` is replaced by Python's re, see above)
KEYWORDS = frozenset({
    "$ref", "$defs", "type", "enum", "const", "properties", "additionalProperties", "required",
    "propertyNames", "items", "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
    "pattern",
})
ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples",
                         "deprecated", "readOnly", "writeOnly"})
_SCHEMA_MAPS = frozenset({"properties", "$defs"})                 # name -> subschema
_SCHEMA_ONE = frozenset({"items", "additionalProperties", "propertyNames", "not", "if", "then", "else"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf"})


def supported(schema: Any) -> bool:
    """Whether every keyword of ``schema`` (a parsed JSON Schema: dict or bool, subschemas
    included) is in :data:`KEYWORDS` or is an annotation, and every ``pattern`` a string
    Python's re compiles."""
    stack = [schema]
    while stack:
        s = stack.pop()
        if isinstance(s, bool):
            continue
        if not isinstance(s, dict):
            return False
        for k, v in s.items():
            if k in ANNOTATIONS or k.startswith("x-"):
                continue
            if k not in KEYWORDS:
                return False
            if k in _SCHEMA_MAPS:
                if not isinstance(v, dict):
                    return False
                stack.extend(v.values())
            elif k in _SCHEMA_ONE:
                stack.append(v)
            elif k in _SCHEMA_LISTS:
                if not isinstance(v, list):
                    return False
                stack.extend(v)
            elif k == "pattern":
                try:
                    re.compile(v)
                except (re.error, TypeError):
                    return False
    return True


class _Pattern:
    """The ``pattern`` keyword as jsonschema checks it: a string must contain a match of the
    expression, ``re.search`` (Python's syntax and character classes); other types pass."""

    def __init__(self, parent_schema: dict, value: str, schema_path: list) -> None:
        self.regex = re.compile(value)

    def validate(self, instance: Any) -> None:
        if isinstance(instance, str) and self.regex.search(instance) is None:
            raise ValueError("does not match")


def compile_schema(schema: Any, documents: Callable[[str], Any] | None = None):
    """A jsonschema-rs validator of ``schema`` (Draft 2020-12), or None when jsonschema-rs is
    not installed, ``schema`` uses a keyword outside :data:`KEYWORDS` (:func:`supported`), or
    jsonschema-rs refuses it. ``documents(uri)`` gives the parsed schema a ``$ref`` to another
    document names; it must give only documents :func:`supported` accepts (jsonschema-rs never
    fetches anything: a URI ``documents`` does not know fails the compilation, and then None)."""
    if not supported(schema):
        return None
    try:
        import jsonschema_rs
    except ImportError:
        return None
    try:
        return jsonschema_rs.validator_for(schema, validate_formats=False, keywords={"pattern": _Pattern},
                                           retriever=documents if documents is not None else _no_documents)
    except Exception:   # noqa: BLE001 - a schema it cannot compile: jsonschema decides alone
        return None


def _no_documents(uri: str) -> Any:
    raise ValueError(f"no schema document {uri}")


def passes(validator, data: Any) -> bool:
    """True when the compiled ``validator`` finds ``data`` valid; False when it does not, or
    cannot read it (a value JSON cannot hold), or ``data`` holds an infinite or NaN number
    (jsonschema-rs 0.61 counts them as no JSON type yet within every ``minimum`` / ``maximum``,
    and ``not: {type: number}`` then passes): the caller then runs jsonschema."""
    try:
        json.dumps(data, allow_nan=False)   # C speed: a manifest in ~20 us
    except (ValueError, TypeError, RecursionError):
        return False
    try:
        return bool(validator.is_valid(data))
    except Exception:   # noqa: BLE001 - ValueError / OverflowError from converting the data
        return False
