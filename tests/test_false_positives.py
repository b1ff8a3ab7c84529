"""False positives and misses from issue 9, each built from a published submission changed in one
place: a failing case (the rule fired wrongly, or missed) and its passing control."""

from __future__ import annotations

from pathlib import Path

from cfglint.lint import lint_paths

from support import copy_submission, lint, only, position, replace_once

KIMI_NNODES = "artificial-analysis/kimi-k3/gb300-sglang-tp8-nnodes2"
KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
DYNAMO_QWEN = "recipes/dynamo-trtllm-qwen3-0.6b-disagg-1p1d"


def _levels(d: Path, rule_id: str):
    return [(f.level, f.span.line, f.span.col, f.message) for f in lint_paths([str(d)]).findings if f.rule_id == rule_id]


# -- 7. more GPUs visible than the worker uses works: a warning, fewer is an error -------------
def test_more_visible_devices_than_used_is_a_warning(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "sglang serve", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5 sglang serve")
    text = (d / "run.sh").read_text()
    found = _levels(d, "TOP003")
    assert len(found) == 1
    level, line, col, message = found[0]
    assert level == "warning" and (line, col) == position(text, "0,1,2,3,4,5")
    assert "lists 6 GPU(s) but the worker runs TP 8 over 2 nodes = 4 on this node: GPU(s) 4,5 stay idle" in message
    replace_once(d / "run.sh", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5", "CUDA_VISIBLE_DEVICES=0,1")
    found = _levels(d, "TOP003")
    assert len(found) == 1 and found[0][0] == "error" and "stay idle" not in found[0][3]  # fewer: the rule's error
    replace_once(d / "run.sh", "CUDA_VISIBLE_DEVICES=0,1", "CUDA_VISIBLE_DEVICES=0,1,2,3")
    assert _levels(d, "TOP003") == []


def test_a_pod_sees_only_its_gpus_so_a_longer_visible_list_idles_none(tmp_path):
    # ../shared/corpus 056 (AIBrix PD bucketing): CUDA_VISIBLE_DEVICES=0,1,2,3 in a pod given
    # nvidia.com/gpu: 1 running TP 1: ordinals 1-3 do not exist in the pod (CUDA makes visible the
    # devices before the first invalid index), so no GPU idles (was a warning "GPU(s) 1,2,3 stay idle")
    from support import shared

    src = shared("corpus") / "056-aibrix-sglang-pd-bucketing" / "pd-bucketing.yaml"
    assert [f for f in lint_paths([str(src)]).findings if f.rule_id == "TOP003"] == []
    text = src.read_text(encoding="utf-8")
    first = text.index('value: "0,1,2,3"')
    at = text.index("nvidia.com/gpu: 1", first)
    changed = tmp_path / "pd-bucketing.yaml"
    changed.write_text(text[:at] + "nvidia.com/gpu: 4" + text[at + len("nvidia.com/gpu: 1"):], encoding="utf-8")
    found = _levels(changed, "TOP003")     # a pod of 4 GPUs running TP 1: three do idle
    assert [(f[0], f[1]) for f in found] == [("warning", text[:first].count("\n") + 1)]
    assert "GPU(s) 1,2,3 stay idle" in found[0][3]


# -- 10. a removed flag names its replacement ------------------------------------------------
VLLM_QWEN_DP8 = "recipes/vllm-qwen3.5-397b-fp8-h200-dp8-ep"


def test_removed_vllm_eplb_flag_names_eplb_config(tmp_path):
    d = copy_submission(VLLM_QWEN_DP8, tmp_path)
    replace_once(d / "run.sh", "--enable-expert-parallel", "--enable-expert-parallel --enable-eplb --num-redundant-experts 32")
    text = (d / "run.sh").read_text()
    found = only(lint(d), "FLG001")
    # no release declared: the newest is assumed; the flag is of 0.9.2..0.11.2 only (rules/releases/vllm.yaml)
    assert len(found) == 1 and found[0][2:4] == position(text, "--num-redundant-experts")
    assert "--num-redundant-experts is a vLLM flag of 0.9.2..0.11.2 (removed in 0.12.0)" in found[0][4]
    assert "--eplb-config '{\"num_redundant_experts\": N}'" in found[0][4]
    assert [x[0] for x in _levels(d, "FLG001")] == ["warning"]
    # the release that has it: clean; one that has it no longer: an error naming the releases
    replace_once(d / "submission.yaml", "  name: vllm\n", "  name: vllm\n  version: \"0.11.2\"\n")
    # (the recipe's --language-model-only is of 0.17.1 on: at 0.11.2 that one is the error)
    assert [f[4] for f in only(lint(d), "FLG001")] == [
        "vLLM 0.11.2 (the manifest's engine version) has no --language-model-only; added in 0.17.1"]
    replace_once(d / "submission.yaml", 'version: "0.11.2"', 'version: "0.17.1"')
    (f,) = only(lint(d), "FLG001")
    assert "vLLM 0.17.1 (the manifest's engine version) has no --num-redundant-experts; removed in 0.12.0" in f[4]
    assert [x[0] for x in _levels(d, "FLG001")] == ["error"]
    replace_once(d / "run.sh", "--num-redundant-experts 32", "--eplb-config '{\"num_redundant_experts\": 32}'")
    assert only(lint(d), "FLG001") == []


# -- 3. parser `auto`: a registry name valid from a release on -------------------------------
GLM_SGLANG = "nvidia/glm-5.2/b300-sglang-tp8-dp8-maxreq1024"


def test_sglang_auto_parsers_are_known_from_0_5_12(tmp_path):
    d = copy_submission(GLM_SGLANG, tmp_path)
    replace_once(d / "ifb_config.yaml", "reasoning-parser: glm45", "reasoning-parser: auto")
    replace_once(d / "ifb_config.yaml", "tool-call-parser: glm47", "tool-call-parser: auto")
    assert only(lint(d), "PRS001") == []  # the manifest declares 0.5.17: auto exists
    replace_once(d / "submission.yaml", 'version: "0.5.17"', 'version: "0.5.11"')
    text = (d / "ifb_config.yaml").read_text()
    found = sorted(only(lint(d), "PRS001"), key=lambda f: f[2])
    assert [f[1:4] for f in found] == [("ifb_config.yaml", *position(text, "auto")),
                                       ("ifb_config.yaml", *position(text, "auto", 2))]
    assert all("SGLang 0.5.11 (the manifest's engine version) has no" in f[4] and "'auto'" in f[4]
               and "exists from 0.5.12" in f[4] for f in found)
    replace_once(d / "submission.yaml", 'version: "0.5.11"', 'version: "glm-5.2"')
    assert only(lint(d), "PRS001") == []  # version unknown: accepted


def test_trtllm_auto_parser_is_known(tmp_path):
    d = copy_submission("nvidia/gpt-oss-120b/b200-trtllm-tp1-eagle3", tmp_path)
    text = (d / "run.sh").read_text()
    assert "--reasoning_parser" not in text and "--tool_parser" not in text
    replace_once(d / "run.sh", "trtllm-serve", "trtllm-serve --tool_parser auto")
    assert only(lint(d), "PRS001") == []
    replace_once(d / "run.sh", "--tool_parser auto", "--tool_parser autox")
    assert [f[0] for f in only(lint(d), "PRS001")] == ["PRS001"]


# -- 6. documentation addresses are not leaks; which ranges are private is configurable -------
def _red003(d: Path, private_ranges=None):
    return [(Path(f.span.path).name, f.span.line, f.span.col, f.message)
            for f in lint_paths([str(d)], private_ranges=private_ranges).findings if f.rule_id == "RED003"]


def test_documentation_ipv6_address_is_not_a_host_name(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "--dist-init-addr <head-ip>:20000", "--dist-init-addr [2001:db8::10]:20000")
    assert _red003(d) == []  # RFC 3849: was "internal host name '2001:db8::10'"
    replace_once(d / "run.sh", "[2001:db8::10]", "[fd12:3456::10]")
    text = (d / "run.sh").read_text()
    assert _red003(d) == []  # unique-local IPv6 is not in the default private ranges
    found = _red003(d, private_ranges=("10.0.0.0/8", "fc00::/7"))
    assert [f[:3] for f in found] == [("run.sh", *position(text, "fd12:3456::10"))]
    assert "private address fd12:3456::10 is published; write <head-ip>" in found[0][3]


def test_documentation_ipv4_address_is_never_private(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "--dist-init-addr <head-ip>:20000", "--dist-init-addr 192.0.2.10:20000")
    wide = ("192.0.0.0/8",)
    assert _red003(d, private_ranges=wide) == []  # RFC 5737 TEST-NET-1 inside a configured range
    replace_once(d / "run.sh", "192.0.2.10", "192.1.2.10")
    text = (d / "run.sh").read_text()
    assert [f[:3] for f in _red003(d, private_ranges=wide)] == [("run.sh", *position(text, "192.1.2.10"))]
    replace_once(d / "run.sh", "192.1.2.10", "10.1.2.10")
    assert len(_red003(d)) == 1 and _red003(d, private_ranges=()) == []  # the default RFC 1918; none configured


def test_private_ranges_config_key(tmp_path):
    from cfglint.policy.config import ConfigError, load_config

    cfg = tmp_path / ".cfglint.yaml"
    cfg.write_text("private-ranges: [10.0.0.0/8, 'fc00::/7']\n")
    assert load_config(str(cfg)).private_ranges == ("10.0.0.0/8", "fc00::/7")
    cfg.write_text("private-ranges: [10.0.0.0/33]\n")
    try:
        load_config(str(cfg))
    except ConfigError as err:
        assert "private-ranges" in str(err) and ":1:1:" in str(err)
    else:
        raise AssertionError("a bad network must be a ConfigError")


# -- 9. RED001 misses: a home directory below a site volume, a path in ${VAR:-default} ---------
def test_home_directory_below_a_site_volume(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "--model-path /models/Kimi-K3", "--model-path /ephemeral/home/alice/Kimi-K3")
    text = (d / "run.sh").read_text()
    found = only(lint(d), "RED001")
    assert [f[1:4] for f in found] == [("run.sh", *position(text, "/ephemeral/home/alice/Kimi-K3"))]
    assert "'/ephemeral/home/alice/Kimi-K3'" in found[0][4] and "names a user" in found[0][4]
    replace_once(d / "run.sh", "/ephemeral/home/alice/Kimi-K3", "/ephemeral/models/Kimi-K3")
    assert only(lint(d), "RED001") == []


def test_path_in_a_parameter_default(tmp_path):
    d = copy_submission(DYNAMO_QWEN, tmp_path)
    replace_once(d / "disagg.sh", '${DYNAMO_HOME:-"/workspace"}', "${DYNAMO_HOME:-/scratch/alice/dynamo}")
    text = (d / "disagg.sh").read_text()
    found = only(lint(d), "RED001")
    assert [f[1:4] for f in found] == [("disagg.sh", *position(text, "/scratch/alice/dynamo"))]
    assert "'/scratch/alice/dynamo'" in found[0][4]
    replace_once(d / "disagg.sh", "${DYNAMO_HOME:-/scratch/alice/dynamo}", "${DYNAMO_HOME:-/workspace}")
    assert only(lint(d), "RED001") == []


# -- 8. --fix covers the whole shell word or is not offered ---------------------------------
KIMI_DSPARK = "artificial-analysis/kimi-k3/gb300-sglang-tp8-nnodes2-dspark7"


def _fix(d: Path) -> int:
    from cfglint.edit.fix import apply_fixes

    result = lint_paths([str(d)])
    return apply_fixes(result.findings, result.files).fixed


def test_fix_does_not_cut_a_shell_expansion(tmp_path):
    d = copy_submission(KIMI_DSPARK, tmp_path)
    word = '"/lustre/fsw/alice/${DRAFT_MODEL##*/}"'
    replace_once(d / "run.sh", "--speculative-draft-model-path /models/Kimi-K3-DSpark",
                 f"--speculative-draft-model-path {word}")
    text = (d / "run.sh").read_text()
    found = only(lint(d), "RED001")
    assert [f[1:4] for f in found] == [("run.sh", *position(text, "/lustre/"))]
    assert "'/lustre/fsw/alice/${DRAFT_MODEL##*/}'" in found[0][4] and "by hand" in found[0][4]
    assert _fix(d) == 0 and (d / "run.sh").read_text() == text  # was '"<host-path>}"'
    replace_once(d / "run.sh", word, '"/lustre/fsw/alice/Kimi-K3-DSpark"')
    assert _fix(d) == 1 and '--speculative-draft-model-path "<host-path>"' in (d / "run.sh").read_text()
    assert only(lint(d), "RED001") == []


def test_fix_skips_a_span_that_cuts_a_word():
    from cfglint.edit.fix import _whole

    assert _whole("/lustre/a/b") and _whole("/lustre/${X##*/}")
    assert not _whole("/lustre/${X##*/") and not _whole('/lustre/a"b')


# -- 1. text is not a launch: help text, echo / printf to the terminal, comments, case patterns ---
HELP_LINE = 'echo "  --enable-otel        Enable OpenTelemetry tracing"'


def test_help_text_is_not_an_address(tmp_path):
    d = copy_submission(DYNAMO_QWEN, tmp_path)
    replace_once(d / "disagg.sh", HELP_LINE, 'echo "  --host HOST          Bind address"')
    assert only(lint(d), "RED003") == []  # was: internal host name 'HOST' in --host
    replace_once(d / "disagg.sh", "python3 -m dynamo.frontend &", "python3 -m dynamo.frontend --host HOST &")
    text = (d / "disagg.sh").read_text()
    found = only(lint(d), "RED003")  # the same words on a launch are a setting
    assert [f[1:4] for f in found] == [("disagg.sh", *position(text, "HOST &"))]


def test_usage_heredoc_printf_and_comment_are_text(tmp_path):
    d = copy_submission(DYNAMO_QWEN, tmp_path)
    replace_once(d / "disagg.sh", HELP_LINE,
                 'cat <<USAGE\n  --master-addr ADDR   head node\nUSAGE\n'
                 "            printf '%s\\n' \"  --api-key KEY  the key\" >&2\n"
                 "            # --dist-init-addr head01:5000")
    assert only(lint(d), "RED003") == [] and only(lint(d), "RED002") == []
    replace_once(d / "disagg.sh", "cat <<USAGE", "cat > server.args <<USAGE")  # now it writes a file
    text = (d / "disagg.sh").read_text()
    found = only(lint(d), "RED003")
    assert [f[1:4] for f in found] == [("disagg.sh", *position(text, "ADDR   head"))]



# -- 2. container paths are not host paths: mount targets declared in the file ---------------
def test_mount_target_is_a_container_path(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--ipc=host", "--ipc=host -v ${PWD}:/mnt")
    replace_once(d / "run.sh", "--model-path moonshotai/Kimi-K3", "--model-path /mnt/Kimi-K3")
    assert only(lint(d), "RED001") == []  # was: /mnt (the target) and /mnt/Kimi-K3
    replace_once(d / "run.sh", "-v ${PWD}:/mnt", "-v /home/alice/models:/mnt")
    text = (d / "run.sh").read_text()
    found = only(lint(d), "RED001")  # the host side of the mount is still host-specific
    assert [f[1:4] for f in found] == [("run.sh", *position(text, "/home/alice/models"))]
    replace_once(d / "run.sh", "-v /home/alice/models:/mnt", "--mount type=bind,src=/home/alice/models,dst=/mnt")
    text = (d / "run.sh").read_text()
    assert [f[1:4] for f in only(lint(d), "RED001")] == [("run.sh", *position(text, "/home/alice/models"))]


def test_without_a_mount_mnt_is_the_hosts(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "--model-path moonshotai/Kimi-K3", "--model-path /mnt/Kimi-K3")
    text = (d / "run.sh").read_text()
    found = only(lint(d), "RED001")  # no mount declared: /mnt is the host's
    assert [f[1:4] for f in found] == [("run.sh", *position(text, "/mnt/Kimi-K3"))]


# -- 4. TensorRT-LLM disaggregated server: top-level keys pass through to every server ---------
TRT_DISAGG = "nvidia/deepseek-v4-pro/b300-trtllm-1p1d-colocated"


def test_disagg_server_top_level_free_gpu_memory_fraction(tmp_path):
    d = copy_submission(TRT_DISAGG, tmp_path)
    replace_once(d / "server_config.yaml", "backend: pytorch", "backend: pytorch\nfree_gpu_memory_fraction: 0.8")
    assert only(lint(d), "SCH001") == []  # extract_disagg_cfg copies it into both sections: get_llm_args takes it
    replace_once(d / "server_config.yaml", "free_gpu_memory_fraction: 0.8", "free_gpu_mem_fraction: 0.8")
    found = only(lint(d), "SCH001")
    assert [f[1:4] for f in found] == [("server_config.yaml", 2, 1)] and "free_gpu_mem_fraction" in found[0][4]


def test_disagg_server_section_free_gpu_memory_fraction(tmp_path):
    d = copy_submission(TRT_DISAGG, tmp_path)
    replace_once(d / "server_config.yaml", "context_servers:\n  num_instances: 1",
                 "context_servers:\n  num_instances: 1\n  free_gpu_memory_fraction: 0.85")
    assert only(lint(d), "SCH001") == []
    replace_once(d / "server_config.yaml", "free_gpu_memory_fraction: 0.85", "free_gpu_memory_fraction: 1.5")
    found = only(lint(d), "SCH001")
    assert [f[1:4] for f in found] == [("server_config.yaml", 4, 29)]


# -- 5. TensorRT-LLM values per release: moe_config.backend WIDEEP ----------------------------
def test_wideep_moe_backend_is_valid_before_its_removal(tmp_path):
    d = copy_submission(TRT_DISAGG, tmp_path)
    replace_once(d / "gen_config.yaml", "backend: TRTLLM", "backend: WIDEEP")
    assert only(lint(d), "SCH001") == []  # the manifest declares 1.3.0rc15.post1: WIDEEP exists there
    replace_once(d / "submission.yaml", 'version: "1.3.0rc15.post1"', 'version: "1.3.0rc27"')
    text = (d / "gen_config.yaml").read_text()
    found = only(lint(d), "SCH001")
    assert [f[1:4] for f in found] == [("gen_config.yaml", *position(text, "WIDEEP"))]
    message = found[0][4]
    assert "'WIDEEP' was removed in TensorRT-LLM 1.3.0rc27" in message
    assert "checked against TensorRT-LLM 1.3.0rc27 (the manifest's engine version)" in message
    assert "use DEEPGEMM for FP8 block-scale checkpoints, otherwise TRTLLM, CUTEDSL or CUTLASS" in message


def test_wideep_without_a_declared_version_names_what_was_checked(tmp_path):
    d = copy_submission(TRT_DISAGG, tmp_path)
    replace_once(d / "gen_config.yaml", "backend: TRTLLM", "backend: WIDEEP")
    replace_once(d / "submission.yaml", 'version: "1.3.0rc15.post1"', 'version: "main"')
    found = only(lint(d), "SCH001")
    assert len(found) == 1 and "checked against the newest TensorRT-LLM read (no engine version declared)" in found[0][4]


def test_mount_list_variable_targets_are_container_paths(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    replace_once(d / "run.sh", "sglang serve", 'CONTAINER_MOUNTS="${PWD}:/mnt,/home/alice/hf:/hf"\n'
                 "srun --container-image lmsysorg/sglang:kimi-k3 --container-mounts=$CONTAINER_MOUNTS sglang serve")
    replace_once(d / "run.sh", "--model-path /models/Kimi-K3", "--model-path /mnt/Kimi-K3")
    text = (d / "run.sh").read_text()
    found = only(lint(d), "RED001")  # /mnt is the container's; the source /home/alice/hf is the host's
    assert [f[1:4] for f in found] == [("run.sh", *position(text, "/home/alice/hf"))]
