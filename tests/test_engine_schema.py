"""SCH001: TensorRT-LLM engine YAML against the schemas mirroring its pydantic models; the
published configurations validate clean (test_golden), one change makes each fire."""

from __future__ import annotations

from support import copy_submission, lint, only, replace_once

DSV4_DYNAMO = "nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-6p1d"
GPTOSS_TP1 = "nvidia/gpt-oss-120b/b200-trtllm-tp1-eagle3"


def test_sch001_misspelled_key(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    line = replace_once(d / "ctx_config.yaml", "max_batch_size: 128", "max_batchsize: 128")
    found = only(lint(d), "SCH001")
    assert [(f[1], f[2], f[3]) for f in found] == [("ctx_config.yaml", line, 1)]
    assert "unknown field 'max_batchsize'; did you mean 'max_batch_size'?" in found[0][4]


def test_sch001_renamed_key(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    line = replace_once(d / "ctx_config.yaml", "enable_autotuner: true", "autotuner_enabled: true")
    found = only(lint(d), "SCH001")
    assert [(f[2], f[3]) for f in found] == [(line, 1)] and "renamed it: use enable_autotuner" in found[0][4]


def test_sch001_enum_in_nested_config(tmp_path):
    d = copy_submission(GPTOSS_TP1, tmp_path)
    line = replace_once(d / "extra_llm_api_options.yaml", "decoding_type: Eagle3", "decoding_type: Eagle-3")
    found = only(lint(d), "SCH001")
    assert found and found[0][1:3] == ("extra_llm_api_options.yaml", line)


def test_sch001_speculative_config_as_a_list(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    text = (d / "ctx_config.yaml").read_text()
    (d / "ctx_config.yaml").write_text(text.replace("speculative_config:\n  decoding_type: MTP",
                                                    "speculative_config:\n- decoding_type: MTP"))
    found = only(lint(d), "SCH001")
    assert len(found) == 1 and "speculative_config" in found[0][4] and "object" in found[0][4]


def test_sch001_server_config_router_type(tmp_path):
    d = copy_submission(DSV4_DYNAMO, tmp_path)
    text = (d / "server_config.yaml").read_text()
    (d / "server_config.yaml").write_text(text.replace("type: kv_cache_aware", "type: kv_aware", 1))
    found = only(lint(d), "SCH001")
    assert len(found) == 1 and found[0][1] == "server_config.yaml" and "did you mean 'kv_cache_aware'?" in found[0][4]
