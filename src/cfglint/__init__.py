"""cfglint: static linter for LLM inference-serving submissions.

Pipeline, one folder per stage, imports only downward (tests/test_layering.py):
read -> knowledge -> schema -> load -> deploy -> checks -> policy -> output -> edit, with
:mod:`cfglint.model` (the shared data model) below all and :mod:`cfglint.lint` (the runner),
:mod:`cfglint.cli` (the command line) and :mod:`cfglint.server` (the language server) on top. A run: load.discover -> load.submission ->
deploy.extract -> checks -> policy -> output.
"""

__version__ = "0.1.0"
# The distribution name on PyPI and in wheels (the command and the import name stay ``cfglint``:
# "cfglint" on PyPI is an unrelated project).
DISTRIBUTION = "cfglint-serving"


def _seed_yaml_reader_class() -> None:
    """Hand PyYAML's reader its character class compiled from an equivalent, cheap pattern.

    ``yaml.reader.Reader.NON_PRINTABLE`` (PyYAML 5.1-6.0.x, compiled when yaml is imported) is
    the negated class ``[^\\t\\n\\r\\x20-\\x7e\\x85\\xa0-\\ud7ff\\ue000-\\ufffd\\U00010000-\\U0010ffff]``;
    Python's re compiler expands its ranges code point by code point (~55 million instructions,
    ~8% of a one-submission run). The same set written positively (the code points outside those
    ranges) compiles in ~0.1 ms; it is placed in re's pattern cache under PyYAML's pattern, so
    ``re.compile`` there returns it. Same matches for every code point
    (tests/test_start_cost.py checks all of them). Nothing happens where re keeps no such cache or
    yaml is already imported; a PyYAML with another pattern compiles its own as before."""
    import re
    import sys

    cache = getattr(re, "_cache", None)
    if not isinstance(cache, dict) or "yaml" in sys.modules:
        return
    pattern = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"
    cache.setdefault((str, pattern, 0), re.compile("[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]"))


_seed_yaml_reader_class()
