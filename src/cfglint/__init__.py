"""cfglint: static linter for LLM inference-serving submissions.

Pipeline (one module per stage): discover -> load -> extract -> check -> report.
"""

__version__ = "0.1.0"
# The distribution name on PyPI and in wheels (the command and the import name stay ``cfglint``:
# "cfglint" on PyPI is an unrelated project).
DISTRIBUTION = "cfglint-serving"
