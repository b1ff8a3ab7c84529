"""The native parser: tree-sitter-bash, imported on first use, over text whose word placeholders
are masked.

Published launch files use word placeholders (``<host-path>``, ``<0..1>``) that bash would read as
redirections; they are replaced with same-length text before parsing, so every byte offset stays
true and words are read back from the original text. Code points beyond the BMP become four ASCII
bytes: the native parser crashed on some of them, and no shell syntax depends on them.
"""

from __future__ import annotations

import re
from functools import lru_cache

# <host-path>, <0..1>, <model path>: not a heredoc (<<), here-string or process substitution <(
PLACEHOLDER = re.compile(rb"(?<![<$])<([A-Za-z0-9][A-Za-z0-9_.:/+ -]*)>")
_ASTRAL = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")


@lru_cache(maxsize=1)
def language():
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Language(tree_sitter_bash.language())


def tree_of(data: bytes):
    """The tree-sitter tree of UTF-8 ``data``, placeholders masked (byte offsets unchanged).
    A fresh parser per call: a reused tree_sitter.Parser crashed (SIGSEGV) under fuzzing."""
    import tree_sitter

    masked = _ASTRAL.sub(b"____", PLACEHOLDER.sub(lambda m: b"_" + m.group(1).replace(b" ", b"_") + b"_", data))
    return tree_sitter.Parser(language()).parse(masked)
