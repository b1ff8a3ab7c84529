"""What ``cfglint init`` derives: the manifest fields a launch determines (:data:`DERIVABLE`),
those no launch states (:data:`TO_FILL`), and :class:`Derived`, what one derivation found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The manifest fields `cfglint init` derives from the launch files (README "Scaffolding a manifest").
# Role keys are per entry of serving.roles, matched by name.
DERIVABLE = (
    "model",
    "precision",
    "engine.name",
    "engine.version",
    "engine.orchestrator",
    "serving.mode",
    "serving.roles[].name",
    "serving.roles[].instances",
    "serving.roles[].accelerators_per_instance",
    "serving.roles[].tp",
    "serving.roles[].pp",
    "serving.roles[].dp",
    "serving.roles[].ep",
    "serving.roles[].dcp",
    "serving.roles[].attention_dp",
    "speculative_decoding",
    "accelerators_used",
    "files.launch",
    "files.configs",
    "files.deploy",
)
# Fields no launch states: a new manifest has them null, with what to write as a comment.
TO_FILL = {
    "submitter": "who publishes this benchmark (company or team)",
    "system.accelerator": "the accelerator product, e.g. H200, B300, GB300, MI355X (rules/accelerators.yaml)",
    "system.accelerators_total": "N in 'accelerators used X of N': the accelerators of the whole system",
}
# Derivable fields a new manifest holds as null (FILL IN) when the launch does not state them:
# the schema requires them (or, for speculative_decoding and a role's tp, a wrong default
# would go unnoticed)
REQUIRED_WHEN_MISSING = ("model", "precision", "speculative_decoding", "accelerators_used")
ROLE_INT_KEYS = ("tp", "pp", "dp", "ep", "dcp")
ROLE_KEYS = ROLE_INT_KEYS + ("attention_dp",)
ROLE_ORDER = ("server", "prefill", "decode")


def role_default(key: str) -> Any:
    """The value a role key has when the manifest leaves it out (schema: tp, pp, dp, ep, dcp
    default 1; attention DP off)."""
    return False if key == "attention_dp" else 1


def common(values: list[Any]) -> tuple[bool, Any]:
    """(True, the value) when every value is the same, else (False, None)."""
    if not values:
        return False, None
    first = values[0]
    return all(v == first for v in values), first


@dataclass(slots=True)
class Derived:
    """What the launch files of one submission directory determine.

    ``manifest``: the derivable fields found, in the manifest's shape (serving.roles a list of
    role mappings; keys of a role that could not be derived are absent). ``missing``: field ->
    why it could not be derived. ``parsers``: the reasoning / tool-call parsers the launch sets
    (the manifest has no field for them; PRS001/PRS002 check them in the launch)."""

    root: str
    manifest: dict = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    parsers: list[str] = field(default_factory=list)
    engine: str | None = None    # the engine the launch was read as (derived, or the manifest's)
    skipped: list[str] = field(default_factory=list)   # YAML files that are not engine configs
    # optional fields the launch does not state (EP, DCP): a manifest may declare them or not
    unstated: list[str] = field(default_factory=list)
    # files that could not be read or parsed, as `cfglint check` reports them (IO001): what they
    # hold was not derived from
    problems: list[str] = field(default_factory=list)
