"""Messages a new-user trial found wanting, on real corpus files: RED003 on a Kubernetes node's
name (kubernetes.io/hostname) is written <node-name>, its fix offered only where the file pins its
pods to that one node (023 and 064: the <head-ip> fix merged two nodes into one); a COV001 quote
of what a container runs cut at a word's end."""

from __future__ import annotations

from cfglint.lint import lint_paths
from support import SHARED, shared


def _red003(path):
    return [(f.span.line, f.message, f.fix) for f in lint_paths([str(path)]).findings if f.rule_id == "RED003"]


def test_a_node_name_is_written_node_name_and_fixed_where_one_node_is_named():
    shared("corpus")
    found = _red003(SHARED / "corpus/064-aibrix-pd-reuse-vllm-pd/vllm-pd.yaml")
    assert (50, "private address 192.168.0.7 names a node; write <node-name>", "<node-name>") in found
    assert (168, "private address 192.168.0.7 names a node; write <node-name>", "<node-name>") in found


def test_two_nodes_get_no_fix_that_would_merge_them():
    shared("corpus")
    found = _red003(SHARED / "corpus/023-aibrix-brixbench-llmd-qwen3-8b-pd-4p4d-multinode/qwen3-8b-pd-4p4d-multinode.yaml")
    assert (50, "private address 192.168.0.6 names a node; write <node-name>", None) in found
    assert (213, "private address 192.168.0.7 names a node; write <node-name>", None) in found


def test_an_address_outside_a_node_label_keeps_head_ip(tmp_path):
    shared("corpus")
    text = (SHARED / "corpus/064-aibrix-pd-reuse-vllm-pd/vllm-pd.yaml").read_text(encoding="utf-8")
    changed = tmp_path / "vllm-pd.yaml"
    changed.write_text(text.replace("kubernetes.io/hostname: 192.168.0.7", "example.com/rack: 192.168.0.7", 1),
                       encoding="utf-8")
    found = _red003(changed)
    assert (50, "private address 192.168.0.7 is published; write <head-ip>", "<head-ip>") in found


def test_what_an_unrecognised_container_runs_is_quoted_to_a_word_end():
    # ../shared/corpus 001: the quote of `sh -c "./install_model.sh; python3 ./server.py leader
    # --stateful_set_group_key=${GROUP_KEY} ..."` was cut inside `${` (found by a new-user trial)
    shared("corpus")
    (note,) = [f.message for f in lint_paths([str(SHARED / "corpus/001-lws-tensorrt-llm-lws/lws.yaml")]).findings
               if f.rule_id == "COV001"]
    assert "(it runs sh -c ./install_model.sh; python3 ./server.py leader ...; known launchers:" in note
    assert "${;" not in note
