"""A literal `for` loop is read once per value with its variable bound (corpus 074, Dynamo's vLLM
data-parallel example: `for i in {0..3}; do CUDA_VISIBLE_DEVICES=$i python3 -m dynamo.vllm
--data-parallel-rank $i --data-parallel-size 4 ...`): each rank and GPU is known, so the rank and
GPU checks run (was COV001 "dp_rank ... known only at run time"); bounded for hostile input."""

from __future__ import annotations

from cfglint.lint import lint_paths
from support import SHARED, shared


def _run(tmp_path, text):
    path = tmp_path / "dep.sh"
    path.write_text(text, encoding="utf-8")
    return lint_paths([str(path)]).findings


def test_each_iteration_is_a_worker_with_its_rank_and_gpu(tmp_path):
    shared("corpus")
    src = SHARED / "corpus/074-dynamo-vllm-dep/dep.sh"
    text = src.read_text(encoding="utf-8")
    assert lint_paths([str(src)]).findings == []                    # four ranks on four GPUs: clean
    missing = [f for f in _run(tmp_path, text.replace("{0..3}", "{0..2}")) if f.rule_id == "TOP003"]
    assert [f.message for f in missing] == ["data-parallel rank 3 of 4 never launched: the instance cannot start "
                                            "until every data-parallel rank 0..3 is launched (--data-parallel-rank)"]
    shared_gpu = [f for f in _run(tmp_path, text.replace("CUDA_VISIBLE_DEVICES=$i", "CUDA_VISIBLE_DEVICES=0"))
                  if f.rule_id == "TOP003"]
    assert shared_gpu and shared_gpu[0].message.startswith("GPU 0 is given to two workers")


def test_a_loop_over_words_binds_each_word(tmp_path):
    found = _run(tmp_path, "for m in Qwen/Qwen3-8B acme/no-such; do\n  vllm serve $m --tensor-paralel-size 2 &\ndone\n")
    assert [(f.rule_id, f.span.line) for f in found if f.rule_id == "FLG001"] == [("FLG001", 2)]  # once, where written
    (note,) = [f for f in found if f.rule_id == "COV001"]   # the second iteration's model, placed on its word
    assert (note.span.line, note.span.col) == (1, 24) and "model 'acme/no-such' is not in the knowledge base" in note.message


def test_nested_loops_are_bounded(tmp_path):
    # 8 nested loops of 8 values would be 16.7 million iterations: past the budget the body is read
    # once with its variable unknown, as before
    body = "vllm serve Qwen/Qwen3-8B --data-parallel-rank $i7 --port 8000\n"
    text = "".join(f"for i{k} in 0 1 2 3 4 5 6 7; do\n" for k in range(8)) + body + "done\n" * 8
    found = _run(tmp_path, text)
    assert not any("internal error" in f.message for f in found)
    (note,) = [f for f in found if f.rule_id == "COV001"]
    assert "checks that use dp_rank" in note.message and "known only at run time" in note.message
