"""Never silent: unlisted files (SUB003), launch files without a manifest (SUB004), YAML tags a
safe loader refuses (IO001), the process environment (SPEC002 spec v2), engine defaults
(SPEC003) and prefill/decode shapes the engine refuses (DIS002). Each case is a real published
submission changed in one place, with its passing control."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from cfglint.cli import main
from cfglint.deploy.extract import extract
from cfglint.knowledge import knowledge
from cfglint.lint import lint_paths
from cfglint.load.submission import load_submission

from support import EXAMPLES, copy_submission, lint, only, replace_once

KIMI = "artificial-analysis/kimi-k3/b300-sglang-tp8"
GLM_EAGLE = "nvidia/glm-5.2/gb300-sglang-2x4-tp8-eagle6-maxreq16"
DSV4_EAGLE = "artificial-analysis/deepseek-v4-pro/h200-sglang-tp8-eagle"
GLM_VLLM = "recipes/vllm-glm-5.1-fp8-h200-tp8-mtp3"
KIMI_NIXL = "nvidia/kimi-k3/gb300-dynamo-sglang-2p1d-hicache-nixl"


def _rows(findings, rule_id):
    return [(Path(f.span.path).name, f.span.line, f.span.col, f.message) for f in findings if f.rule_id == rule_id]


# -- SUB003 unlisted-file ------------------------------------------------------------------
def test_unlisted_engine_config_is_linted_and_reported_in_both_modes(tmp_path):
    d = copy_submission(GLM_EAGLE, tmp_path)
    line = replace_once(d / "submission.yaml", "  configs: [ifb_config.yaml]\n", "")
    for paths in ([d], [d / "ifb_config.yaml"]):  # directory (CI) and the file alone (pre-commit)
        result = lint_paths([str(p) for p in paths])
        rows = _rows(result.findings, "SUB003")
        assert [r[:3] for r in rows] == [("ifb_config.yaml", 1, 1)], paths
        assert "is an engine config in the submission directory that" in rows[0][3]
        assert "list it under files.configs" in rows[0][3]
        f = next(f for f in result.findings if f.rule_id == "SUB003")
        assert f.level == "warning"
        assert [(Path(s.path).name, s.line) for s, _ in f.related] == [("submission.yaml", line - 2)]  # the files: key
        assert any(k.endswith("ifb_config.yaml") for k in result.sources)  # read and linted on its own
    # and the launch that uses it says why its settings are unread (the file's own note, typed by its
    # keys as an SGLang --config file, is another)
    note = next(f[4] for f in only(lint(d, coverage=True), "COV001") if f[1] == "submission.yaml")
    assert "settings in ifb_config.yaml" in note and "in the submission directory but the manifest does not list it" in note


def test_unlisted_launch_script_gets_its_own_checks(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    text = (d / "run.sh").read_text()
    (d / "run_v2.sh").write_text(text.replace("--shm-size 32g", "--shm-size 32g -v /home/alice/hf:/root/.cache"))
    found = lint(d)
    assert [f[:4] for f in only(found, "SUB003")] == [("SUB003", "run_v2.sh", 1, 1)]
    assert "is a launch file" in only(found, "SUB003")[0][4] and "files.launch" in only(found, "SUB003")[0][4]
    assert [(f[1], f[2]) for f in only(found, "RED001")] == [("run_v2.sh", 2)]  # checked, not skipped


def test_what_does_not_count_as_unlisted(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    (d / "README.md").write_text("# notes\nsglang serve --model-path x\n")
    (d / "results.json").write_text(json.dumps({"tokens_per_second": 1}))
    (d / "results.yaml").write_text("throughput: 1234\nttft_ms: 80\n")
    (d / ".draft.sh").write_text((d / "run.sh").read_text())
    (d / "download.sh").write_text("huggingface-cli download moonshotai/Kimi-K3\n")
    assert only(lint(d), "SUB003") == []
    assert only(lint(copy_submission(KIMI, tmp_path / "clean")), "SUB003") == []


# -- SUB004 submission-without-manifest ----------------------------------------------------------
def test_launch_files_without_a_manifest_are_a_finding_in_every_format(tmp_path):
    copy_submission(KIMI, tmp_path)
    drafts = tmp_path / "drafts"
    drafts.mkdir()
    shutil.copy(EXAMPLES / KIMI / "run.sh", drafts / "serve.sh")
    (drafts / "notes.sh").write_text("echo draft\n")
    found = lint(tmp_path)
    assert [f[:4] for f in only(found, "SUB004")] == [("SUB004", "serve.sh", 1, 1)]
    assert "holds serve.sh" in only(found, "SUB004")[0][4] and "submission.yaml" in only(found, "SUB004")[0][4]
    runner = CliRunner()
    out = runner.invoke(main, ["check", str(tmp_path), "--no-config", "-f", "json"])
    assert [f["rule"] for f in json.loads(out.output)["findings"] if f["rule"] == "SUB004"] == ["SUB004"]
    out = runner.invoke(main, ["check", str(tmp_path), "--no-config", "-f", "sarif"])
    results = json.loads(out.output)["runs"][0]["results"]
    assert [r["ruleId"] for r in results if r["ruleId"] == "SUB004"] == ["SUB004"]
    out = runner.invoke(main, ["check", str(tmp_path), "--no-config", "-f", "github"])
    assert "::warning file=" in out.output and "SUB004" in out.output


def test_no_sub004_for_submissions_and_non_serving_folders(tmp_path):
    copy_submission(KIMI, tmp_path)
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "release.sh").write_text("git tag v1\n")
    (tools / "ci.yaml").write_text("on: push\njobs: {}\n")
    assert only(lint(tmp_path), "SUB004") == []


# -- IO001: YAML tags a safe loader refuses ----------------------------------------------------
def test_unknown_yaml_tag_in_the_manifest(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    line = replace_once(d / "submission.yaml", "submitter: Artificial Analysis",
                        "submitter: !!python/object/apply:os.system ['id']")
    rows = [r for r in _rows(lint_paths([str(d)]).findings, "IO001")]
    assert [r[:3] for r in rows] == [("submission.yaml", line, 12)]
    assert "'!!python/object/apply:os.system' is not a standard YAML type" in rows[0][3]
    assert only(lint(copy_submission(KIMI, tmp_path / "clean")), "IO001") == []


def test_unknown_yaml_tag_in_an_engine_config(tmp_path):
    d = copy_submission(GLM_EAGLE, tmp_path)
    line = replace_once(d / "ifb_config.yaml", "quantization: modelopt_fp4", "quantization: !!python/name:os.system ''")
    rows = _rows(lint_paths([str(d)]).findings, "IO001")
    assert [r[:3] for r in rows] == [("ifb_config.yaml", line, 15)]
    assert "'!!python/name:os.system'" in rows[0][3] and "safe loaders" in rows[0][3]


def test_application_tags_outside_submissions_are_not_reported(tmp_path):
    cfn = tmp_path / "stack.yaml"
    cfn.write_text("Resources:\n  Bucket:\n    Type: AWS::S3::Bucket\n    Properties:\n      BucketName: !Ref Name\n")
    assert lint(cfn) == []


# -- Process.env and SPEC002 spec v2 ----------------------------------------------------------
def test_environment_reaches_the_process_from_every_form(tmp_path):
    d = copy_submission(KIMI_NIXL, tmp_path)
    sub = load_submission(str(d))
    kb = knowledge()
    procs = {p.role.value: p for p in extract(kb, sub.manifest, sub.launches, sub.configs).processes}
    env = procs["decode"].env["UCX_TLS"]
    assert (env.value, Path(env.span.path).name, env.span.line, env.span.col) == ("rc,cuda_copy", "decode.args", 23, 9)
    for i, (before, after) in enumerate([
            ("docker run --gpus", "docker run -e SGLANG_ENABLE_SPEC_V2=1 --gpus"),
            ("docker run --gpus", "export SGLANG_ENABLE_SPEC_V2=1\ndocker run --gpus"),
            ("  python3 -m sglang.launch_server", "  env SGLANG_ENABLE_SPEC_V2=1 python3 -m sglang.launch_server")]):
        d = copy_submission(DSV4_EAGLE, tmp_path / str(i))
        replace_once(d / "run.sh", before, after)
        sub = load_submission(str(d))
        (proc,) = extract(kb, sub.manifest, sub.launches, sub.configs).processes
        assert proc.env["SGLANG_ENABLE_SPEC_V2"].value == "1", after


def test_spec_v2_with_eagle_topk_above_one(tmp_path):
    d = copy_submission(DSV4_EAGLE, tmp_path)
    env_line = replace_once(d / "run.sh", "docker run --gpus", "docker run -e SGLANG_ENABLE_SPEC_V2=1 --gpus")
    assert only(lint(d), "SPEC002") == []  # top-k 1 as published: spec v2 runs
    line = replace_once(d / "run.sh", "--speculative-eagle-topk 1", "--speculative-eagle-topk 2")
    rows = only(lint(d), "SPEC002")
    assert [r[:4] for r in rows] == [("SPEC002", "run.sh", line, 30)]
    assert f"run.sh:{env_line}) asks for" in rows[0][4] and "SGLANG_ENABLE_SPEC_V2=1 (" in rows[0][4]
    assert "supports only --speculative-eagle-topk 1" in rows[0][4] and "spec v1" in rows[0][4]
    assert [f.level for f in lint_paths([str(d)]).findings if f.rule_id == "SPEC002"] == ["error"]


def test_spec_v2_from_a_run_time_value_is_reported_as_not_checked(tmp_path):
    d = copy_submission(DSV4_EAGLE, tmp_path)
    replace_once(d / "run.sh", "docker run --gpus", 'docker run -e SGLANG_ENABLE_SPEC_V2="$SPEC_V2" --gpus')
    found = lint(d, coverage=True)
    assert only(found, "SPEC002") == []
    assert "SGLANG_ENABLE_SPEC_V2 is set from a value known only at run time" in only(found, "COV001")[0][4]


DSV32_MTP = "recipes/sglang-deepseek-v3.2-exp-h200-tp8-dp8-mtp"


def _mtp_spec_v2(tmp_path, version: str) -> tuple[Path, int]:
    """SGLang's DeepSeek V3.2 MTP example (EAGLE, 3 steps, top-k 1) declared as ``version``,
    run with SGLANG_ENABLE_SPEC_V2=1 exported before it; returns the launch line."""
    d = copy_submission(DSV32_MTP, tmp_path)
    replace_once(d / "submission.yaml", "  name: sglang\n", f'  name: sglang\n  version: "{version}"\n')
    replace_once(d / "run.sh", "python -m sglang", "export SGLANG_ENABLE_SPEC_V2=1\npython -m sglang")
    return d, 2


def test_spec_v2_is_not_claimed_on_a_release_that_does_not_read_it(tmp_path):
    # SGLang 0.5.2 does not read SGLANG_ENABLE_SPEC_V2 (rules/releases/sglang-env.yaml: from
    # 0.5.4.post3): ENV001 says the value is ignored, so no spec v2 scheduler runs to crash
    d, _ = _mtp_spec_v2(tmp_path, "0.5.2")
    replace_once(d / "run.sh", "--speculative-eagle-topk 1", "--speculative-eagle-topk 4")
    found = lint(d)
    assert only(found, "SPEC002") == []
    (env,) = only(found, "ENV001")
    assert env[1:4] == ("run.sh", 1, 8) and "SGLang 0.5.2 does not read SGLANG_ENABLE_SPEC_V2 yet" in env[4]


def test_spec_v2_with_top_k_above_one_on_a_release_that_reads_it(tmp_path):
    # the control: 0.5.9 reads the variable, so top-k 4 meets the spec v2 scheduler
    d, line = _mtp_spec_v2(tmp_path, "0.5.9")
    assert only(lint(d), "SPEC002") == []          # top-k 1 as published
    replace_once(d / "run.sh", "--speculative-eagle-topk 1", "--speculative-eagle-topk 4")
    found = lint(d)
    col = (d / "run.sh").read_text().split("\n")[line - 1].index("--speculative-eagle-topk 4") + 26
    (spec,) = only(found, "SPEC002")
    assert spec[1:4] == ("run.sh", line, col)
    assert spec[4].startswith("SGLANG_ENABLE_SPEC_V2=1 (") and "with top-k 4 the scheduler crashes" in spec[4]
    assert only(found, "ENV001") == []


# -- SPEC003 on vLLM's defaults ----------------------------------------------------------------
def _vllm_dflash(tmp_path, tokens: int, version: str | None = "0.26.0") -> Path:
    d = copy_submission(GLM_VLLM, tmp_path)
    if version:
        replace_once(d / "submission.yaml", "  name: vllm\n", f'  name: vllm\n  version: "{version}"\n')
    replace_once(d / "run.sh", "--speculative-config.method mtp", "--speculative-config.method dflash")
    replace_once(d / "run.sh", "num_speculative_tokens 3", f"num_speculative_tokens {tokens}")
    return d


def test_dflash_16_tokens_on_default_budgets_fails_to_start(tmp_path):
    rows = only(lint(_vllm_dflash(tmp_path, 16)), "SPEC003")
    assert [r[:4] for r in rows] == [("SPEC003", "run.sh", 4, 50)]
    msg = rows[0][4]
    assert "vLLM 0.26.0 refuses to start on H200" in msg
    assert "max_num_seqs 1024 (default) x 16 draft slots = 16384" in msg
    assert "max_num_batched_tokens 8192 (default)" in msg and "--max-num-batched-tokens above 16384" in msg


def test_default_budgets_hold_a_short_draft_and_an_explicit_budget(tmp_path):
    assert only(lint(_vllm_dflash(tmp_path / "a", 3)), "SPEC003") == []
    d = _vllm_dflash(tmp_path / "b", 16)
    replace_once(d / "run.sh", "--tensor-parallel-size 8", "--tensor-parallel-size 8 --max-num-batched-tokens 32768")
    assert only(lint(d), "SPEC003") == []
    assert only(lint(copy_submission(GLM_VLLM, tmp_path / "c")), "SPEC003") == []  # MTP reserves no slots


def test_default_budget_with_unknown_version_is_not_guessed(tmp_path):
    found = lint(_vllm_dflash(tmp_path, 16, version=None), coverage=True)
    assert only(found, "SPEC003") == []
    note = only(found, "COV001")[0][4]
    assert "speculative token budget on vLLM's defaults (SPEC003)" in note
    assert "differs across releases and the version is unknown" in note


def test_default_budget_on_an_older_release_is_not_guessed(tmp_path):
    found = lint(_vllm_dflash(tmp_path, 16, version="0.19.0"), coverage=True)
    assert only(found, "SPEC003") == []
    assert "vllm 0.19.0 (engine.version 0.19.0) is older than 0.26.0" in only(found, "COV001")[0][4]


# -- DIS002 pd-shape-unsupported ---------------------------------------------------------------
def _nixl(tmp_path: Path, model: str, decode_tp: int) -> Path:
    d = copy_submission(KIMI_NIXL, tmp_path)
    if model != "moonshotai/Kimi-K3":
        replace_once(d / "submission.yaml", "model: moonshotai/Kimi-K3", f"model: {model}")
    if decode_tp != 8:
        replace_once(d / "decode.args", "--tensor-parallel-size 8", f"--tensor-parallel-size {decode_tp}")
    return d


def test_nixl_different_tp_for_a_sliding_window_model(tmp_path):
    # model facts from config.json (rules/model_configs.yaml): gpt-oss-120b is not MLA and has 18
    # sliding-window and 18 full-attention layers; Kimi-K3 is MLA
    d = _nixl(tmp_path, "openai/gpt-oss-120b", 4)
    found = [f for f in lint_paths([str(d)]).findings if f.rule_id == "DIS002"]
    assert [(Path(f.span.path).name, f.span.line, f.span.col) for f in found] == [("decode.args", 14, 24)]
    assert "prefill.args:19) with decode attention TP 4" in found[0].message
    assert "non-MLA model with sliding-window layers" in found[0].message
    assert [(Path(s.path).name, s.line) for s, _ in found[0].related] == [("prefill.args", 19)]


def test_nixl_pairings_that_work(tmp_path):
    same_tp = _nixl(tmp_path / "a", "openai/gpt-oss-120b", 8)
    mla = _nixl(tmp_path / "b", "moonshotai/Kimi-K3", 4)
    mooncake = _nixl(tmp_path / "c", "openai/gpt-oss-120b", 4)
    for name in ("prefill.args", "decode.args"):
        replace_once(mooncake / name, "--disaggregation-transfer-backend nixl", "--disaggregation-transfer-backend mooncake")
    for d in (same_tp, mla, mooncake):
        assert not any(f.rule_id == "DIS002" for f in lint_paths([str(d)]).findings), d


def test_nixl_different_tp_without_model_facts_is_not_checked(tmp_path):
    d = _nixl(tmp_path, "acme/SlidingModel-7B", 4)
    found = lint(d, coverage=True)
    assert only(found, "DIS002") == []
    assert "NIXL prefill/decode TP pairing (DIS002): whether acme/SlidingModel-7B uses MLA or sliding-window " \
           "layers is not in the knowledge base" in only(found, "COV001")[0][4]


# -- engine defaults named in messages -----------------------------------------------------------
def test_hw001_names_sglangs_default_moe_runner(tmp_path):
    d = copy_submission(DSV4_EAGLE, tmp_path)
    replace_once(d / "submission.yaml", "accelerator: H200", "accelerator: RTX-6000D")
    assert only(lint(d), "HW001") == []  # marlin, as published
    replace_once(d / "run.sh", "--moe-runner-backend marlin ", "")
    (row,) = only(lint(d), "HW001")
    assert row[1:3] == ("run.sh", 4)
    assert "without --moe-runner-backend (so the default, auto)" in row[4]


def test_one_budget_given_the_other_from_defaults(tmp_path):
    d = _vllm_dflash(tmp_path / "a", 16)
    line = replace_once(d / "run.sh", "--tensor-parallel-size 8", "--tensor-parallel-size 8 --max-num-seqs 512")
    rows = only(lint(d), "SPEC003")
    assert [r[1:4] for r in rows] == [("run.sh", line, 46)]  # at the given --max-num-seqs value
    assert "max_num_seqs 512 x 16 draft slots = 8192" in rows[0][4] and "max_num_batched_tokens 8192 (default)" in rows[0][4]
    d = _vllm_dflash(tmp_path / "b", 16)
    replace_once(d / "run.sh", "--tensor-parallel-size 8", "--tensor-parallel-size 8 --max-num-seqs 256")
    assert only(lint(d), "SPEC003") == []  # 256 x 16 = 4096 leaves room in 8192


def test_a_named_file_the_directory_scan_skips_is_still_linted(tmp_path):
    d = copy_submission(KIMI, tmp_path)
    hidden = d / ".draft.sh"
    hidden.write_text((d / "run.sh").read_text().replace("--shm-size 32g", "--shm-size 32g -v /home/alice/hf:/hf"))
    assert only(lint(d), "RED001") == []  # hidden: not part of a directory run
    found = lint_paths([str(hidden)]).findings  # named (pre-commit): linted on its own, not SUB003
    assert [(Path(f.span.path).name, f.span.line) for f in found if f.rule_id == "RED001"] == [(".draft.sh", 2)]
    assert not any(f.rule_id == "SUB003" for f in found)


def test_parallel_eagle_reserves_k_minus_one_slots(tmp_path):
    d = _vllm_dflash(tmp_path / "a", 16)
    replace_once(d / "run.sh", "--speculative-config.method dflash", "--speculative-config.method eagle3")
    assert only(lint(d), "SPEC003") == []  # EAGLE-3 drafts one token at a time: no slots reserved
    replace_once(d / "run.sh", "--speculative-config.method eagle3",
                 "--speculative-config.method eagle3 --speculative-config.parallel_drafting true")
    rows = only(lint(d), "SPEC003")
    assert [r[1:3] for r in rows] == [("run.sh", 4)]  # the num_speculative_tokens value
    assert "eagle3 with 16 speculative tokens reserves max_num_seqs 1024 (default) x 15 draft slots = 15360" in rows[0][4]


def test_default_budget_on_a_newer_release_is_not_guessed(tmp_path):
    found = lint(_vllm_dflash(tmp_path, 16, version="0.28.1"), coverage=True)
    assert only(found, "SPEC003") == []
    assert "vllm 0.28.1 (engine.version 0.28.1) is newer than the releases" in only(found, "COV001")[0][4]
    assert only(lint(_vllm_dflash(tmp_path / "patch", 16, version="0.26.2")), "SPEC003") != []  # 0.26.x holds
