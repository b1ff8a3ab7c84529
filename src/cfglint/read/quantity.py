"""Kubernetes resource quantities (``resources.limits`` / ``requests`` values, ``sizeLimit``):
their text read as the API server reads it, and the rules it applies to a container's values.

The syntax is k8s.io/apimachinery's ``resource.Quantity`` (kubernetes/apimachinery
pkg/api/resource/quantity.go and suffix.go @ eed236ceee2c): a signed decimal number (``1``,
``1.5``, ``.5``, ``5.``) and one suffix, a decimal SI one (``n u m "" k M G T P E``), a binary SI one
(``Ki Mi Gi Ti Pi Ei``) or a decimal exponent (``e3``, ``E-2``, ``e+9``): ``1000m`` is 1, ``1k`` 1000,
``1e9`` 10^9, ``1Gi`` 2^30; an exponent is read as a 64-bit integer and kept in 32 bits, as
suffix.go ``interpret`` does (``1e4294967296`` is ``1e0``). A number the API server reads from JSON (YAML's ``4.5``) is read as its
text. No quantity holds more than 2^63-1 in magnitude (a larger one is capped) and finer than a
milli-unit is rounded up (``0.1m`` is ``1m``); :func:`parse_quantity` keeps the exact value and
:func:`milli` rounds as the server does.

The API server's checks of a container's resources (kubernetes/kubernetes
pkg/apis/core/validation/validation.go @ 000f26050b9b: ``validateResourceRequirements``,
``ValidateResourceQuantityValue``, ``ValidateNonnegativeQuantity``; pkg/apis/core/helper/helpers.go:
``IsExtendedResourceName``, ``IsIntegerResourceName``, ``IsOvercommitAllowed``): no value below 0
("must be greater than or equal to 0"); an extended resource (a name with a domain outside
``kubernetes.io``: ``nvidia.com/gpu``, ``amd.com/gpu``, ``google.com/tpu``) a whole number ("must be an
integer": its milli-value a multiple of 1000) and, as it cannot be overcommitted, its request equal
to its limit ("must be equal to nvidia.com/gpu limit of 1").
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

MAX_QUANTITY = (1 << 63) - 1      # the largest magnitude a Quantity holds (larger ones are capped)
_NUMBER = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)", re.S)
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)")
INT64 = 1 << 63
MAX_DIGITS = 400                   # digits read in the number (a longer one is capped or ~0 anyway)


def quantity_text(value) -> str | None:
    """The text of a quantity as written: a string as it is, a YAML number as its digits
    (None for a bool, a mapping, a list or null)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    return value if isinstance(value, str) else None


def parse_quantity(value) -> Fraction | None:
    """The exact value of a Kubernetes quantity (``1000m``: 1, ``1k``: 1000, ``"1e9"``: 10^9,
    ``64Gi``: 2^36; a YAML number as written), capped at 2^63-1 in magnitude as the API server
    caps it; None for text that is not a quantity (the API server refuses it: "quantities must
    match the regular expression")."""
    text = quantity_text(value)
    if text is None:
        return None
    text = text.strip()
    m = _NUMBER.fullmatch(text)
    if m is None or not (m.group(2) or m.group(3)):   # at least one digit
        return None
    sign, whole, frac, suffix = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    if len(whole.lstrip("0")) > MAX_DIGITS:
        return Fraction(-MAX_QUANTITY if sign == "-" else MAX_QUANTITY)
    frac = frac[:MAX_DIGITS]
    number = Fraction(int(whole or "0") * 10 ** len(frac) + int(frac or "0"), 10 ** len(frac))
    if suffix in _DECIMAL:
        scale = Fraction(10) ** _DECIMAL[suffix]
    elif suffix in _BINARY:
        scale = Fraction(1 << _BINARY[suffix])
    else:
        e = _EXPONENT.fullmatch(suffix)
        if e is None or len(e.group(1).lstrip("+-").lstrip("0")) > 19:
            return None
        exp = int(e.group(1))
        if not -INT64 <= exp < INT64:
            return None   # strconv.ParseInt(..., 64) refuses it
        exp = (exp + (1 << 31)) % (1 << 32) - (1 << 31)   # suffix.go interpret: int32(parsed), wrapped
        if number and exp > 40:    # beyond 2^63 whatever the number's digits: capped
            return Fraction(-MAX_QUANTITY if sign == "-" else MAX_QUANTITY)
        scale = Fraction(10) ** max(exp, -40)
    out = number * scale
    if out > MAX_QUANTITY:
        out = Fraction(MAX_QUANTITY)
    return -out if sign == "-" else out


def milli(q: Fraction) -> int:
    """The quantity in milli-units, rounded up as the API server rounds (``MilliValue``)."""
    return math.ceil(q * 1000)


def is_extended(name: str) -> bool:
    """An extended resource (``IsExtendedResourceName``): a name with a domain prefix that is not
    ``kubernetes.io`` (``nvidia.com/gpu``, ``google.com/tpu``), not a quota's ``requests.`` name."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def device_count(value) -> int | None:
    """A whole, non-negative device count from a quantity (``1``, ``"2"``, ``1000m``, ``1k``); None
    when it is not one (not a quantity, fractional, negative: the API server refuses those)."""
    q = parse_quantity(value)
    if q is None or q < 0:
        return None
    m = milli(q)
    return m // 1000 if m % 1000 == 0 else None


def value_problem(name: str, value) -> str | None:
    """Why the API server refuses ``value`` for resource ``name`` in a container's limits or
    requests (what it says, with the right form), or None when it accepts it."""
    q = parse_quantity(value)
    shown = quantity_text(value)
    if q is None:
        return (f"{shown!r} is not a Kubernetes quantity (a number with one suffix: m, k, M, G, T, P, E, "
                "Ki ... Ei, or an exponent e3): the API server refuses it") if shown is not None else \
            "is not a Kubernetes quantity (a number or a string such as 1, 500m, 64Gi): the API server refuses it"
    if q < 0:
        return f"{shown} must be greater than or equal to 0 (the API server refuses a negative quantity)"
    if is_extended(name) and milli(q) % 1000 != 0:
        down, up = milli(q) // 1000, -(-milli(q) // 1000)
        return (f"{shown} must be an integer: {name} is an extended resource, counted in whole devices "
                f"(the API server refuses a fraction); use {down or up}" + (f" or {up}" if down and up != down else ""))
    return None
