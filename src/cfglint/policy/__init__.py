"""Policy: what a run reports, as the user configured it.

Takes findings; gives the findings that count. :mod:`.config` (``.cfglint.yaml`` /
``[tool.cfglint]``: selection, levels, per-file ignores, nested configurations and their trust),
:mod:`.suppress` (inline ``# cfglint: disable=`` directives, SUP001/SUP002), :mod:`.baseline`
(known findings recorded by line hash). Imports read, knowledge, load and checks (rule ids).
"""
