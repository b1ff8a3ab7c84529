"""``model`` and ``precision``: the checkpoint the workers serve and the precision it runs in."""

from __future__ import annotations

import re

from ...deploy.extract import Deployment
from ...knowledge import Knowledge
from ...load.submission import Submission
from .fields import Derived

_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")


def derive_model(dep: Deployment, kb: Knowledge, sub: Submission, out: Derived) -> None:
    """Set ``model`` (the one Hugging Face repo id the workers serve) and ``precision``
    (``--quantization``, else the checkpoint's in the knowledge base) in ``out.manifest``; else say
    in ``out.missing`` why not."""
    from ...checks.declared import QUANTIZATION_PRECISION

    models, quants = [], []
    for p in dep.engine_processes():
        loc = p.settings.get("model")
        if loc is not None and isinstance(loc.value, str):
            models.append(loc.value)
        q = p.settings.get("quantization")
        if q is not None:
            quants.append(QUANTIZATION_PRECISION.get(str(q.value).lower()))
    ids = sorted({m for m in models if _REPO_ID.fullmatch(m)})
    model = None
    if len(ids) == 1:
        model = ids[0]
        out.manifest["model"] = model
    elif ids:
        out.missing["model"] = f"the workers serve different models ({', '.join(ids)})"
    else:
        shown = sorted(set(models))
        out.missing["model"] = (f"the launch names the model by a local path or placeholder ({', '.join(shown)}), "
                                f"not a Hugging Face repo id" if shown else "the launch names no model")
    if quants and all(quants) and len(set(quants)) == 1:
        out.manifest["precision"] = quants[0]
        return
    if quants:
        out.missing["precision"] = "the --quantization values do not name one precision"
        return
    entry = kb.model(model) if model else None
    if entry is None and model is None:
        for name in sorted(set(models)):   # a local model directory whose config.json is published
            entry = kb.model_from_config(name, sub.root) if sub.root else None
            if entry is not None:
                break
    precision = (entry or {}).get("checkpoint_precision")
    if isinstance(precision, str) and precision:
        out.manifest["precision"] = precision.upper()
    else:
        out.missing["precision"] = ("the knowledge base does not know the checkpoint's precision" if model else
                                    "the served checkpoint is not known, so neither is its precision")
