"""cfglint: static linter for LLM inference-serving submissions.

Pipeline (one module per stage): discover -> load -> extract -> check -> report.
"""

__version__ = "0.1.0"
