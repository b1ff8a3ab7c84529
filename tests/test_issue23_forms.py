"""Issue 23, sections 2 and 4: launch forms and false positives seen on real public files (the
corpus in ../shared/corpus, the examples), each kind fixed at its cause. Every test changes a
real file in one place: the failing case and its passing control."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from cfglint.edit.init import run as init_run
from cfglint.knowledge import knowledge
from cfglint.lint import lint_paths

from support import copy_submission, lint, only, position, replace_once, shared


def _corpus_copy(name: str, tmp_path: Path) -> Path:
    """../shared/corpus/<name> copied to tmp_path/<name> (skipped when ../shared is absent)."""
    dst = tmp_path / name
    shutil.copytree(shared(f"corpus/{name}"), dst)
    return dst


def _rules(path: Path, *, coverage: bool = True) -> list[tuple[str, str, int, int, str]]:
    return lint(path, coverage=coverage)


# -- 2.1 parameter-expansion defaults holding '-' after a word ----------------------------------
P2P = "111-vllm-p2p-nccl-xpyd"          # MODEL=${MODEL:-meta-llama/Llama-3.1-8B-Instruct}
P2P_LINE = "MODEL=${MODEL:-meta-llama/Llama-3.1-8B-Instruct}"

# every org spelling of a Hugging Face id: hyphens, digits first, underscores, dots
MODEL_IDS = ["meta-llama/Llama-3.1-8B-Instruct", "deepseek-ai/DeepSeek-R1", "01-ai/Yi-34B",
             "my_org/x_y-z-1", "org.name/a-b.c"]
FORMS = ["MODEL=${MODEL:-%s}", "MODEL=${MODEL-%s}", ': "${MODEL:=%s}"', ": ${MODEL=%s}",
         'MODEL="${MODEL:-%s}"', "MODEL=${MODEL:-\"%s\"}", "MODEL=${MODEL:-'%s'}",
         "MODEL=${MODEL:-${HF_MODEL:-%s}}", 'MODEL="${MODEL:-${HF_MODEL-%s}}"']


def _init_model(d: Path) -> object:
    result = init_run(str(d), knowledge())
    return yaml.safe_load(result.after)["model"]


@pytest.mark.parametrize("form", FORMS)
def test_every_default_form_keeps_a_model_id_with_hyphens(tmp_path, form):
    d = _corpus_copy(P2P, tmp_path)
    script = d / "disagg_example_p2p_nccl_xpyd.sh"
    original = script.read_text(encoding="utf-8")
    for model in MODEL_IDS:
        script.write_text(original.replace(P2P_LINE, form % model), encoding="utf-8")
        assert _init_model(d) == model, (form, model)
    # the model is known: no COV001 "model ... known only at run time" on the vllm serve lines
    assert not [f for f in _rules(d) if f[0] == "COV001" and "checks that use model" in f[4]]


def test_a_default_left_unknown_is_still_named(tmp_path):
    # the control: a default from the environment alone stays unknown, and init says so (null)
    d = _corpus_copy(P2P, tmp_path)
    replace_once(d / "disagg_example_p2p_nccl_xpyd.sh", P2P_LINE, "MODEL=${MODEL:-$HF_MODEL}")
    assert _init_model(d) is None
    assert [f for f in _rules(d) if f[0] == "COV001" and "checks that use model" in f[4]]
