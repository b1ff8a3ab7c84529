"""Check: rules are small functions over one submission's manifest, deployment and the
knowledge base. Each has metadata (id, name, default level, summary, explanation, sources)
and yields :class:`~cfglint.model.Finding`; none knows about output formats.

Rules whose findings come from the load stage (IO001, SUB001, SUB002) are registered with
``check=None``: their metadata still feeds ``cfglint rules`` and SARIF.
"""

from __future__ import annotations

from ..deploy.extract import Deployment
from ..knowledge import Knowledge
from ..load.submission import Submission
from ..model import Finding
from .base import REGISTRY, Context, Gap, Rule, as_int, here, register, rule  # noqa: F401  (the rule API)


def all_rules() -> dict[str, Rule]:
    """Every rule, registered on first call (imports the rule modules)."""
    from . import (addresses, coverage, declared, disagg, eagle, engine_schema, files, flags, hardware,  # noqa: F401
                   host_paths, image, io, k8s, kernels, memory, nodes, parsers, secrets, speculative, topology)
    from . import capacity  # noqa: F401  (MEM001)
    from . import kernel_matrix  # noqa: F401  (HW004, HW005; HW002's compiled part)
    from . import configuration  # noqa: F401  (CFG001, reported while configurations are read)
    from . import engine_rules  # noqa: F401  (FLG004, FLG005)
    from . import environment  # noqa: F401  (ENV001)
    from . import k8s_schema  # noqa: F401  (K8S004, Kubernetes objects against their schemas)

    return dict(sorted(REGISTRY.items()))


def run_checks(sub: Submission, deployment: Deployment, kb: Knowledge) -> list[Finding]:
    from .coverage import coverage_note

    ctx = Context(sub, deployment, kb)
    findings: list[Finding] = []
    for r in all_rules().values():
        if r.check is None:
            continue
        for f in r.check(ctx):
            f.rule_id = r.id
            findings.append(f)
    findings = _superseded_dropped(findings)
    note = coverage_note(ctx)
    if note is not None:
        findings.append(note)
    return findings


_RANK = {"note": 0, "warning": 1, "error": 2}


def _superseded_dropped(findings: list[Finding]) -> list[Finding]:
    """``findings`` without those another rule's more precise finding at the same place
    supersedes (:attr:`Rule.supersedes`); the one kept takes the dropped one's level when that is
    higher (FLG005 is an error where the declared release refuses the value, PRS004 a warning)."""
    over = {(s, f.span): f for f in findings for s in REGISTRY[f.rule_id].supersedes}
    kept = []
    for f in findings:
        by = over.get((f.rule_id, f.span))
        if by is None:
            kept.append(f)
        elif _RANK[_level(f)] > _RANK[_level(by)]:
            by.level = _level(f)
    return kept


def _level(f: Finding) -> str:
    return f.level or REGISTRY[f.rule_id].level
