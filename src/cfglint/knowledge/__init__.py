"""Knowledge: the facts rules check against, as data under ``rules/`` (accelerators, models,
engines, flags, parsers, kernels, paths, secrets), each with its source; loaded once, on first use.

Takes the bundled files and the user's ``--knowledge`` files; gives :class:`~.base.Knowledge`
(:func:`knowledge` makes and caches one). :mod:`.bundled` reads the bundled files (through the
:mod:`.kbcache` cache), :mod:`.userfile` checks a user's file, :mod:`.modelids` resolves model ids,
:mod:`.hfconfig` reads a model's config.json facts, :mod:`.flagregistry` holds a launcher's
flags, :mod:`.coverage` says what the data covers. Lookups return None for what the knowledge
base does not know; a rule that needs it says so in COV001. Imports read.
"""

from __future__ import annotations

from functools import lru_cache

from .base import Knowledge
from .bundled import bundled_data, data_dir  # noqa: F401  (the API of this stage)
from .coverage import coverage, coverage_line  # noqa: F401
from .flagregistry import FlagRegistry  # noqa: F401
from .userfile import KnowledgeError  # noqa: F401


@lru_cache(maxsize=4)
def knowledge(extra: tuple[str, ...] = (), private_ranges: tuple[str, ...] | None = None) -> Knowledge:
    """The knowledge base, bundled data plus the user's files ``extra`` and the configuration's
    ``private_ranges`` (CIDR networks RED003 reports; None: rules/secrets.yaml's), cached per set."""
    return Knowledge(extra, private_ranges)
