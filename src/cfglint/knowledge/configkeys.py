"""Which engine's ``--config`` YAML a YAML linted on its own is, from its top-level keys alone.

SGLang and vLLM read ``--config FILE`` as a YAML mapping whose keys are their own flag names
without the leading ``--`` (rules/engines.yaml ``config_keys: flags``):

- vLLM (``FlexibleArgumentParser.load_config_file`` / ``_pull_args_from_config``, vllm==0.33.0
  vllm/utils/argparse_utils.py): ``yaml.safe_load`` (a repeated key: the last one wins, in
  silence), then each key becomes ``--<key>`` as written and goes through the same parsing as
  the command line: ``_`` for ``-`` before the first ``.`` (``max_num_batched_tokens``),
  a dotted key merged into its JSON flag (``compilation-config.mode``), negations
  (``no-enable-prefix-caching``). Values: ``true`` gives the bare flag, ``false`` its
  ``--no-<key>`` when there is one (else nothing), a list its items, a mapping its JSON, any
  other value ``str(value)``.
- SGLang (``ConfigArgumentMerger``, sglang==0.5.23 sglang/srt/utils/server_args_config_parser.py;
  ``--config`` since 0.5.3.post3 of the pinned releases, not in 0.5.2): ``yaml.safe_load``, each
  key ``--<key>`` as written (argparse: dashes only, unique abbreviations), ``true`` the bare
  flag of a ``store_true`` action, else ``--<key> true|false``.

A YAML is taken for such a file when (nearly) all its keys are flags of one of them
(:func:`config_engine`). TensorRT-LLM's LLM API YAML (``trtllm-serve --config``) is typed by
:mod:`.llmapi` and left alone here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .llmapi import is_llm_api

MIN_FLAGS = 2          # keys spelled as flags (with - or _) a YAML needs to be taken for a --config file
UNKNOWN_SHARE = 5      # at most one key in UNKNOWN_SHARE (at least one) may be no flag of the engine


@dataclass(frozen=True)
class ConfigTyping:
    """What the keys of a YAML say: ``engine`` whose ``--config`` file it is (None when none,
    or a tie), ``tied`` the engines whose flags cover its keys equally (two or more: no guess)."""

    engine: str | None
    tied: tuple[str, ...] = ()


def flag_config_engines(kb) -> list[str]:
    """The engines whose ``--config`` YAML keys are flag names (rules/engines.yaml ``config_keys: flags``)."""
    engines = kb.engines.get("engines") or {}
    return [name for name, spec in engines.items() if isinstance(spec, dict) and spec.get("config_keys") == "flags"]


def _flag_keys(keys: list[str], reg) -> list[str]:
    return [k for k in keys if reg.find("--" + k) is not None]


def config_engine(keys, kb) -> ConfigTyping:
    """The engine whose ``--config`` file a YAML with top-level ``keys`` is: the keys spelled as
    flags (a ``-`` or ``_`` in them: ``port`` or ``model`` may be any YAML's) that the engine's
    flags of any release it holds name are at least MIN_FLAGS, and at most one key in
    UNKNOWN_SHARE (at least one: a misspelled key) is none of its flags. Of two such engines,
    the one whose flags name more keys; an equal count is a tie (``tied``), not a guess."""
    keys = [k for k in keys if isinstance(k, str)]
    if not keys or is_llm_api(keys, kb):
        return ConfigTyping(None)
    fits: dict[str, int] = {}
    allowed = max(1, len(keys) // UNKNOWN_SHARE)
    for engine in flag_config_engines(kb):
        reg = kb.registry(engine)
        if reg is None:
            continue
        known = _flag_keys(keys, reg)
        if sum(1 for k in known if "-" in k or "_" in k) >= MIN_FLAGS and len(keys) - len(known) <= allowed:
            fits[engine] = len(known)
    if not fits:
        return ConfigTyping(None)
    best = max(fits.values())
    top = tuple(sorted(e for e, n in fits.items() if n == best))
    return ConfigTyping(top[0]) if len(top) == 1 else ConfigTyping(None, top)


__all__ = ["ConfigTyping", "config_engine", "flag_config_engines"]
