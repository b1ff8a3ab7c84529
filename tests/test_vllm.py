"""vLLM launches: parallelism (TP x PP x DP) and parser names.

No published configuration in the seeds uses vLLM yet; the submission below turns the Kimi K3
B300 SGLang one (8 GPUs, TP8) into the vLLM launch the catalog (seed 003) describes for the
same model: TP8, deepseek/kimi parsers spelled the vLLM way.
"""

from __future__ import annotations

from support import copy_submission, lint, only, replace_once

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"

VLLM_RUN = """\
# vLLM counterpart of the SGLang launch: same model, same 8 GPUs.
vllm serve moonshotai/Kimi-K3 --trust-remote-code \\
  -tp 4 --data-parallel-size 2 --enable-expert-parallel \\
  --reasoning-parser kimi_k3 --tool-call-parser kimi_k3 --enable-auto-tool-choice \\
  --speculative-config '{"method": "eagle3", "num_speculative_tokens": 3}'
"""


def _vllm_submission(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    (d / "run.sh").write_text(VLLM_RUN)
    replace_once(d / "submission.yaml", "name: sglang", "name: vllm")
    replace_once(d / "submission.yaml", "    tp: 8", "    tp: 4\n    dp: 2")
    text = (d / "submission.yaml").read_text().replace(
        "speculative_decoding: null", "speculative_decoding:\n  algorithm: EAGLE3\n  draft_tokens: 3")
    (d / "submission.yaml").write_text(text)
    return d


def test_vllm_tp_times_dp_is_clean(tmp_path):
    assert lint(_vllm_submission(tmp_path)) == []


def test_vllm_dp_ranks_are_replicas(tmp_path):
    d = _vllm_submission(tmp_path)
    replace_once(d / "run.sh", "--data-parallel-size 2", "--data-parallel-size 4")
    found = only(lint(d), "TOP001")
    assert len(found) == 1 and "uses 16 accelerators (TP 4 x DP 4)" in found[0][4]
    assert [f[4][:50] for f in only(lint(d), "TOP002")] == ["server runs DP 4 but the manifest declares dp: 2 ("]
    assert (found[0][2], found[0][3]) == (3, 7)  # the TP value


def test_vllm_speculative_config_json(tmp_path):
    d = _vllm_submission(tmp_path)
    replace_once(d / "run.sh", '"num_speculative_tokens": 3', '"num_speculative_tokens": 5')
    found = only(lint(d), "SPEC001")
    assert len(found) == 1 and "eagle3 num_speculative_tokens 5" in found[0][4]
    assert (found[0][2], found[0][3]) == (5, 72)  # the 5 inside the JSON


def test_vllm_sglang_parser_spelling(tmp_path):
    d = _vllm_submission(tmp_path)
    replace_once(d / "run.sh", "--reasoning-parser kimi_k3", "--reasoning-parser gpt-oss")
    found = lint(d)
    assert [f[0] for f in found] == ["PRS001"]
    assert "vLLM has no reasoning parser 'gpt-oss'" in found[0][4] and "SGLang" in found[0][4]


def test_vllm_dotted_speculative_config_keys_are_merged(tmp_path):
    # vllm-project/recipes GLM5.md: --speculative-config.method mtp --speculative-config.num_speculative_tokens 3
    d = copy_submission("recipes/vllm-glm-5.1-fp8-h200-tp8-mtp3", tmp_path)
    assert lint(d) == []  # two keys of one JSON flag, not one flag given twice
    replace_once(d / "submission.yaml", "draft_tokens: 3", "draft_tokens: 5")
    found = lint(d)
    assert [(f[0], f[1], f[2], f[3]) for f in found] == [("SPEC001", "run.sh", 4, 50)]
    assert "mtp num_speculative_tokens 3" in found[0][4]
