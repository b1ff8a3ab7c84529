"""The rule framework: a rule's metadata and registration (:func:`rule`, :func:`register`), and
the :class:`Context` a check reads (one submission's manifest, deployment and knowledge base,
and the gaps of checks that could not run)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..deploy.extract import Deployment
from ..knowledge import Knowledge
from ..load.submission import Submission
from ..model import Finding, Located, Span, parse_int, record
from ..read.yamlsrc import walk_path


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name: str
    level: str
    summary: str
    explanation: str
    sources: tuple[str, ...] = ()
    check: Callable[["Context"], Iterable[Finding]] | None = None
    tags: tuple[str, ...] = field(default=())
    security_severity: str = "5.0"  # GitHub's 0.0-10.0 scale, used when tags has "security"
    # rules whose finding at the same place says the same mistake less precisely: dropped when
    # this rule reports there (one finding per mistake; run_checks)
    supersedes: tuple[str, ...] = ()


REGISTRY: dict[str, Rule] = {}


def rule(id: str, name: str, level: str, summary: str, explanation: str,
         sources: tuple[str, ...] = (), tags: tuple[str, ...] = (), security_severity: str = "5.0",
         supersedes: tuple[str, ...] = ()):
    """Register the decorated function as the check of rule ``id``."""
    def wrap(fn):
        REGISTRY[id] = Rule(id, name, level, summary, explanation, sources, fn, tags, security_severity, supersedes)
        return fn
    return wrap


def register(id: str, name: str, level: str, summary: str, explanation: str,
             sources: tuple[str, ...] = (), tags: tuple[str, ...] = ()) -> None:
    """Register a rule whose findings are produced by the load stage."""
    REGISTRY[id] = Rule(id, name, level, summary, explanation, sources, None, tags)


@dataclass(frozen=True, slots=True)
class Gap:
    """A check that could not run on this unit: which check, why, and where the cause is."""

    check: str          # what could not be checked, e.g. "attention-head divisibility (TOP004)"
    why: str            # the cause, e.g. "model 'acme/x' is not in the knowledge base"
    span: Span | None = None


@record
class Context:
    sub: Submission
    deployment: Deployment
    kb: Knowledge
    gaps: list[Gap] = field(default_factory=list)
    _gap_keys: set = field(default_factory=set, repr=False)        # gaps recorded: one look-up each
    _models: dict = field(default_factory=dict, repr=False)        # model id -> entry, per unit

    def not_checked(self, check: str, why: str, span: Span | None = None) -> None:
        """Record that ``check`` could not run because of ``why`` (at ``span``, when the cause
        has a place). COV001 reports every gap of a unit in one note: silence is never a pass."""
        key = (check, why, span)
        if key not in self._gap_keys:
            self._gap_keys.add(key)
            self.gaps.append(Gap(check, why, span))

    @property
    def manifest(self) -> dict:
        return self.sub.manifest

    def declared(self, *path: Any) -> Located | None:
        """A manifest value with its span, or None when absent."""
        node = walk_path(self.sub.manifest_node, path)
        if node is None:
            return None
        value = self.sub.manifest
        for part in path:
            try:
                value = value[part]
            except (KeyError, IndexError, TypeError):
                return None
        return Located(value, node.span)

    def accelerator(self) -> tuple[str | None, dict | None, Located | None]:
        """The manifest's accelerator name, its knowledge-base entry (or None) and its span."""
        system = self.manifest.get("system") if isinstance(self.manifest.get("system"), dict) else {}
        name = system.get("accelerator") if isinstance(system.get("accelerator"), str) else None
        return name, self.kb.accelerator(name), self.declared("system", "accelerator")

    def model(self, model_id: Any) -> dict | None:
        """Knowledge-base entry for a served model: a local model directory whose config.json is
        inside the linted tree (Knowledge.model_from_config), else a Hub id whose config.json is
        in the user's Hugging Face cache (Knowledge.model_from_hf_cache), else a Hugging Face id
        or a derived checkpoint of one (Knowledge.model), else a local directory path ending in
        a known repo's name (Knowledge.model_by_path_name). None when none is known."""
        if not isinstance(model_id, str):
            return None
        if model_id not in self._models:  # once per id and unit: a look-up may read the disk
            # as the engines do: a directory that exists is loaded from disk, else the id is a Hub id
            local = self.kb.model_from_config(model_id, self.sub.root) if self.sub.root else None
            self._models[model_id] = local or self.kb.model_from_hf_cache(model_id) or self.kb.model(model_id) \
                or self.kb.model_by_path_name(model_id)
        return self._models[model_id]

    def roles(self) -> list[tuple[int, dict]]:
        serving = self.manifest.get("serving")
        roles = serving.get("roles") if isinstance(serving, dict) else None
        return [(i, r) for i, r in enumerate(roles) if isinstance(r, dict)] if isinstance(roles, list) else []


def as_int(value: Any) -> int | None:
    """An int, or the text of one, as an int; None for anything else, and for more digits than
    any count or size has (cfglint.model.parse_int)."""
    return parse_int(value)


def here(span: Span) -> str:
    return f"{span.path}:{span.line}"
