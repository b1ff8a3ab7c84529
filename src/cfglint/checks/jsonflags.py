"""Flags whose value is a JSON object (vLLM --speculative-config, --kv-transfer-config): the
value as the checks read it, and where one key's value is inside the written word."""

from __future__ import annotations

import ast
import json
import re

from ..model import Located, Span


def parsed(text: str):
    """``text`` read as JSON, else as a Python literal (``{'method': 'eagle3'}``, as launch
    scripts also write it); None when neither reads it."""
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    return None


def key_span(loc: Located, key: str, value: str = r"\w+") -> Span:
    """The span of ``key``'s value (matched by the regex ``value``) inside ``loc``'s one-line word
    (its opening quote, if any, skipped); the whole word's span when the key is not found there or
    the word spans several lines."""
    span, text = loc.span, str(loc.value)
    m = re.search(rf"{re.escape(key)}\W+({value})", text)
    if m and span.line == span.end_line and (span.end_col - span.col) >= len(text):
        col = span.col + (span.end_col - span.col - len(text)) // 2 + m.start(1)   # past the opening quote
        return Span(span.path, span.line, col, span.line, col + len(m.group(1)))
    return span
