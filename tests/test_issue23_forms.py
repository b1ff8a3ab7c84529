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


# -- 2.2 docker run --entrypoint: the words after the image are the new entrypoint's ---------------
KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
GPT_TRT_TP1 = "nvidia/gpt-oss-120b/b200-trtllm-tp1-eagle3"
KIMI_HEAD = "docker run --gpus all --shm-size 32g --network host --ipc=host \\\n  lmsysorg/sglang:kimi-k3 sglang serve"
KIMI_TAIL = "--enable-cache-report --enable-metrics --enable-symm-mem"


def _entrypoint_bash(d: Path, image: str, script_head: str) -> str:
    """The Kimi K3 launch run as ``docker run --entrypoint /bin/bash ... IMAGE -c "<launch>"``."""
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    assert text.count(KIMI_HEAD) == 1 and text.count(KIMI_TAIL) == 1
    text = text.replace(KIMI_HEAD, "docker run --entrypoint /bin/bash --gpus all --shm-size 32g --network host "
                        f"--ipc=host \\\n  {image} -c \"{script_head}").replace(KIMI_TAIL, KIMI_TAIL + '"')
    run.write_text(text, encoding="utf-8")
    return text


def test_entrypoint_replaced_by_bash_runs_the_c_script_as_the_launch(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    clean = lint(d)
    # the image's vLLM entrypoint is replaced: -c is bash's, not a vLLM flag (was FLG001 "has no -c"
    # and MEM001 / TOP001 / TOP002 for a TP 1 vLLM), and the script is the SGLang launch it was
    text = _entrypoint_bash(d, "vllm/vllm-openai:v0.10.1", "sglang serve")
    assert lint(d) == clean == []
    # the -c script is read as a launch: a bogus flag in it is reported at its place
    replace_once(d / "run.sh", '-c "sglang serve', '-c "sglang serve --bogus-flag 2')
    text = (d / "run.sh").read_text(encoding="utf-8")
    (f,) = lint(d)
    assert f[0] == "FLG001" and f[2:4] == position(text, "--bogus-flag") and "SGLang has no flag --bogus-flag" in f[4]


def test_entrypoint_kept_runs_the_arguments_after_the_image(tmp_path):
    # the control: without --entrypoint, the vLLM image's own entrypoint takes the words after it
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "lmsysorg/sglang:kimi-k3 sglang serve", "vllm/vllm-openai:v0.10.1")
    text = (d / "run.sh").read_text(encoding="utf-8")
    found = only(lint(d), "FLG001")
    # SGLang's flags, given to vLLM
    assert (found[0][2:4], found[0][4].split(": ", 1)[0]) == (position(text, "--model-path"), (
        "vLLM 0.10.1 (the image tag; the flags of 0.10.2 stand for it) has no --model-path"))


def test_an_unknown_image_entrypoint_is_named_in_cov001(tmp_path):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", "lmsysorg/sglang:kimi-k3 sglang serve", '"${IMAGE}"')
    text = (d / "run.sh").read_text(encoding="utf-8")
    (cov,) = only(lint(d, coverage=True), "COV001")
    assert "launcher '${IMAGE} (the image's own entrypoint)' not recognised (its program or module is a shell " \
           "variable, known only at run time)" in cov[4]
    assert f"run.sh:{position(text, '${IMAGE}')[0]}" in cov[4]


# -- 2.3 launchers: the engines' console scripts as modules, a wrapper script before a launcher ----
SGL_PARSERS = "recipes/sglang-deepseek-v3.2-h200-tp8-dp8-parsers"
VLLM_PARSERS = "recipes/vllm-deepseek-v3.2-h20-tp8-parsers"
TRT_DEP8 = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"


@pytest.mark.parametrize("rel, old, new, flag", [
    (VLLM_PARSERS, "vllm serve deepseek-ai", "python -m vllm.entrypoints.cli.main serve deepseek-ai",
     "--tensor-parallel-size 8"),
    (TRT_DEP8, "trtllm-serve", "python3 -m tensorrt_llm.commands.serve", "--tp_size 8"),
    (SGL_PARSERS, "python3 -m sglang.launch_server", "./run-with-env.sh python3 -m sglang.launch_server",
     "--tp-size 8"),
    (SGL_PARSERS, "python3 -m sglang.launch_server", "env-wrapper.sh --quiet python3 -m sglang.launch_server",
     "--tp-size 8"),
])
def test_module_launchers_and_wrapper_scripts_are_read_as_the_launch(tmp_path, rel, old, new, flag):
    d = copy_submission(rel, tmp_path)
    clean = lint(d)
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    assert text.count(old) == 1
    run.write_text(text.replace(old, new), encoding="utf-8")
    shift = len(new) - len(old)
    # the same findings as the published launch (on the launch line, moved by the longer launcher)
    moved = [(r, n, line, col + shift if line == position(text, old)[0] and col > position(text, old)[1] else col, m)
             for r, n, line, col, m in clean]
    assert lint(d) == moved
    # and its flags are checked: a wrong one is reported at its place
    bad = "--bogus-flag 1 " + flag
    replace_once(run, flag, bad)
    now = run.read_text(encoding="utf-8")
    found = only(lint(d), "FLG001")
    assert [f[2:4] for f in found] == [position(now, "--bogus-flag")]


def test_a_program_that_is_no_wrapper_script_is_not_looked_through(tmp_path):
    # the control: `echo python3 -m sglang.launch_server ...` prints a launch, it starts none
    d = copy_submission(SGL_PARSERS, tmp_path)
    replace_once(d / "run.sh", "python3 -m sglang.launch_server", "echo python3 -m sglang.launch_server --bogus-flag 1")
    assert only(lint(d), "FLG001") == []


WIDE_EP_WORKER = "087-trtllm-wide-ep-start-worker"   # trtllm-serve disaggregated_mpi_worker -c ${config_file}


def test_trtllm_disaggregated_mpi_worker_and_a_profiler_prefix_in_a_variable(tmp_path):
    d = _corpus_copy(WIDE_EP_WORKER, tmp_path)
    script = d / "start_worker.sh"
    # both workers (the plain one and the one behind ${nsys_prefix}) are read: -c is the
    # disaggregated_mpi_worker's own option (tensorrt_llm/commands/serve.py), no FLG001
    assert [f for f in _rules(script) if f[0] != "COV001"] == []
    # the control: a flag the worker command does not have is reported, behind the prefix too
    replace_once(script, "${nsys_prefix} trtllm-serve disaggregated_mpi_worker -c",
                 "${nsys_prefix} trtllm-serve disaggregated_mpi_worker --bogus-flag 1 -c")
    text = script.read_text(encoding="utf-8")
    assert [f[2:4] for f in _rules(script) if f[0] == "FLG001"] == [position(text, "--bogus-flag")]


# -- 2.4 launches on different machines do not share GPU 0 ------------------------------------
GPT_1P3D = "nvidia/gpt-oss-120b/b200-dynamo-trtllm-1p3d-eagle3"
DECODE_LOOP = "  CUDA_VISIBLE_DEVICES=$g python3 -m dynamo.trtllm"
PREFILL = "\nCUDA_VISIBLE_DEVICES=0 python3 -m dynamo.trtllm"


def test_srun_w_puts_the_decode_workers_on_other_nodes(tmp_path):
    d = copy_submission(GPT_1P3D, tmp_path)
    replace_once(d / "run.sh", DECODE_LOOP, "  CUDA_VISIBLE_DEVICES=0 srun -w decode-$g python3 -m dynamo.trtllm")
    assert only(lint(d), "TOP003") == []     # was: GPU 0 is given to two workers (prefill here, decode there)
    # the control: the same GPU 0 on this machine for prefill and decode is shared
    replace_once(d / "run.sh", "CUDA_VISIBLE_DEVICES=0 srun -w decode-$g python3", "CUDA_VISIBLE_DEVICES=0 python3")
    text = (d / "run.sh").read_text(encoding="utf-8")
    (f,) = only(lint(d), "TOP003")
    assert f[2] == position(text, "CUDA_VISIBLE_DEVICES=0 python3", 2)[0] and "GPU 0 is given to two workers" in f[4]


def test_ssh_runs_the_launch_on_its_host(tmp_path):
    d = copy_submission(GPT_1P3D, tmp_path)
    replace_once(d / "run.sh", DECODE_LOOP, "  ssh decode-$g CUDA_VISIBLE_DEVICES=0 python3 -m dynamo.trtllm")
    result = lint_paths([str(d)])
    assert [f for f in result.findings if f.rule_id != "COV001"] == []
    # the decode workers are read through ssh: a bogus flag in them is reported
    replace_once(d / "run.sh", "--disaggregation-mode decode", "--disaggregation-mode decode --bogus-flag 1")
    assert [f[0] for f in lint(d)] == ["FLG001"]
    # the control: the prefill worker and the decode workers all on decode-1 share its GPU 0
    replace_once(d / "run.sh", "ssh decode-$g", "ssh decode-1")
    replace_once(d / "run.sh", PREFILL, "\nssh decode-1 " + PREFILL[1:])
    assert "GPU 0 is given to two workers" in only(lint(d), "TOP003")[0][4]


KIMI_NNODES = "artificial-analysis/kimi-k3/gb300-sglang-tp8-nnodes2"


def test_two_node_ranks_are_two_nodes(tmp_path):
    d = copy_submission(KIMI_NNODES, tmp_path)
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    launch = text[text.index("sglang serve"):]
    rank0 = "CUDA_VISIBLE_DEVICES=0,1,2,3 " + launch.replace("--node-rank <0..1>", "--node-rank 0")
    run.write_text(text.replace(launch, rank0 + "\n" + rank0.replace("--node-rank 0", "--node-rank 1")), encoding="utf-8")
    assert only(lint(d), "TOP003") == []
    # the control: the same node rank twice is the same node (and its ranks are duplicated)
    run.write_text(text.replace(launch, rank0 + "\n" + rank0), encoding="utf-8")
    assert any("GPU 0 is given to two workers" in f[4] for f in only(lint(d), "TOP003"))


# -- 2.5 placeholder paths are the reader's, not a host's ------------------------------------
CI_DISAGG = "105-sglang-ci-start-disaggregation-servers"   # MODEL_PATH="/raid/models/meta-llama/..."
CI_MODEL = "/raid/models/meta-llama/Llama-3.1-8B-Instruct"


@pytest.mark.parametrize("placeholder", ["/raid/path/to/Llama-3.1-8B-Instruct", "/raid/<path>",
                                         "/home/<user>/models/Llama-3.1-8B-Instruct", "/raid/your/model/dir",
                                         "/home/your_name/Llama-3.1-8B-Instruct", "/mnt/.../Llama-3.1-8B-Instruct"])
def test_placeholder_paths_are_not_host_paths(tmp_path, placeholder):
    d = _corpus_copy(CI_DISAGG, tmp_path)
    script = d / "ci_start_disaggregation_servers.sh"
    # the control: the published file's /raid path is a host path
    text = script.read_text(encoding="utf-8")
    (f,) = only(lint(script), "RED001")
    assert f[2:4] == position(text, CI_MODEL)
    replace_once(script, CI_MODEL, placeholder)
    assert only(lint(script), "RED001") == []


# -- 2.6 an empty default of a run-time variable is unknown, not '' (--kv-cache-memory-bytes=${KV_CACHE_MEMORY_BYTES-}
# seen published; here an integer flag of the recipe's vLLM 0.9.2) ---------------------------------
AIBRIX_1P1D = "recipes/aibrix-vllm-qwen3-8b-1p1d-nixl"


@pytest.mark.parametrize("form", ["${MAX_NUM_SEQS-}", "${MAX_NUM_SEQS:-}", '"${MAX_NUM_SEQS:-}"'])
def test_empty_default_in_a_container_command_is_not_checked_as_empty(tmp_path, form):
    d = copy_submission(AIBRIX_1P1D, tmp_path)
    manifest = d / "1p1d.yaml"
    text = manifest.read_text(encoding="utf-8")
    anchor = "--uvicorn-log-level warning \\\n"
    manifest.write_text(text.replace(anchor, anchor + " " * 22 + f"--max-num-seqs={form} \\\n", 1), encoding="utf-8")
    findings = lint(d, coverage=True)
    assert only(findings, "FLG002") == []        # was: '' is not an integer
    (cov,) = only(findings, "COV001")
    assert "checks that use max_num_seqs" in cov[4] and "known only at run time" in cov[4]
    # the control: a literal that is no integer is FLG002
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace(f"--max-num-seqs={form}", "--max-num-seqs=lots"), encoding="utf-8")
    assert len(only(lint(d), "FLG002")) == 1


# -- 2.7 SGLang EAGLE with top-k > 1: the draft tree's bound -----------------------------------
V32_MTP = "recipes/sglang-deepseek-v3.2-exp-h200-tp8-dp8-mtp"
TOPK1 = "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4"


def test_documented_eagle_tree_3_4_16_is_valid(tmp_path):
    d = copy_submission(V32_MTP, tmp_path)
    # SGLang's documented tree setting: 3 steps, top-k 4, 16 draft tokens (was: "16 draft tokens exceed
    # what 3 steps x top-k 4 + 1 = 13 can produce"); the manifest declares the 16 tokens
    replace_once(d / "run.sh", TOPK1, "--speculative-eagle-topk 4 --speculative-num-draft-tokens 16")
    replace_once(d / "submission.yaml", "draft_tokens: 4", "draft_tokens: 16")
    assert only(lint(d), "SPEC002") == []
    # the control: one token beyond the tree (4 + 2 x 16 candidates + the root = 37) is an error
    replace_once(d / "run.sh", "--speculative-num-draft-tokens 16", "--speculative-num-draft-tokens 38")
    replace_once(d / "submission.yaml", "draft_tokens: 16", "draft_tokens: 38")
    text = (d / "run.sh").read_text(encoding="utf-8")
    (f,) = only(lint(d), "SPEC002")
    assert f[2:4] == position(text, "38") and "top-k + (steps - 1) x top-k^2 = 36 candidates plus its root, 37" in f[4]


# -- 2.8 MEM002: rope-scaling overrides extend the context; the override variable only silences ---
YARN = '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768}'
LOG_LEVEL = "--uvicorn-log-level warning \\\n"


def _aibrix_prefill(d: Path, flags: str, env: str | None = None) -> str:
    """The AIBrix 1P1D recipe (Qwen3-8B, vLLM 0.9.2) with ``flags`` added to its first launch and
    ``env`` (a NAME=VALUE) to its first container's environment; returns the new text."""
    manifest = d / "1p1d.yaml"
    text = manifest.read_text(encoding="utf-8")
    text = text.replace(LOG_LEVEL, LOG_LEVEL + " " * 22 + flags + " \\\n", 1)
    if env:
        name, value = env.split("=", 1)
        text = text.replace("env:\n", f"env:\n{' ' * 20}- name: {name}\n{' ' * 22}value: \"{value}\"\n", 1)
    manifest.write_text(text, encoding="utf-8")
    return text


@pytest.mark.parametrize("override", [f"--rope-scaling '{YARN}'", f"--hf-overrides '{{\"rope_scaling\": {YARN}}}'",
                                      f"--hf-overrides '{{\"rope_parameters\": {YARN}}}'"])
def test_rope_scaling_overrides_extend_the_context(tmp_path, override):
    # Qwen3-8B: max_position_embeddings 40960; Qwen's YaRN x4 over 32768 serves 131072
    d = copy_submission(AIBRIX_1P1D, tmp_path)
    _aibrix_prefill(d, f"--max-model-len 131072 {override}")
    found = lint(d, coverage=True)
    assert only(found, "MEM002") == [] and not any("(MEM002)" in f[4] for f in only(found, "COV001"))
    # the control: a factor 2 override serves 65536, not 131072
    text = (d / "1p1d.yaml").read_text(encoding="utf-8")
    (d / "1p1d.yaml").write_text(text.replace('"factor":4.0', '"factor":2.0'), encoding="utf-8")
    (f,) = only(lint(d), "MEM002")
    assert "--max-model-len 131072 is longer than the 65536 tokens Qwen/Qwen3-8B supports (yarn scaling: " \
           "original_max_position_embeddings 32768 x 2 as the launch's model-config override sets it; named by " \
           "the directory /models/Qwen3-8B; its config.json is not in the linted tree)" in f[4]


def test_the_long_context_variable_alone_is_a_warning(tmp_path):
    d = copy_submission(AIBRIX_1P1D, tmp_path)
    _aibrix_prefill(d, "--max-model-len 131072")
    text = (d / "1p1d.yaml").read_text(encoding="utf-8")
    (f,) = only(lint(d), "MEM002")      # the control: the error without the variable
    assert f[2:4] == position(text, "131072") and "longer than the 40960 tokens" in f[4]
    d2 = copy_submission(AIBRIX_1P1D, tmp_path / "env")
    text = _aibrix_prefill(d2, "--max-model-len 131072", env="VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")
    result = lint_paths([str(d2)])
    (w,) = [f for f in result.findings if f.rule_id == "MEM002"]
    assert w.level == "warning" and w.span.line == position(text, 'value: "1"')[0]   # the variable's value
    assert "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets --max-model-len 131072 past the 40960 tokens Qwen/Qwen3-8B supports" \
           in w.message and "only silences the engine's check" in w.message and "--hf-overrides" in w.message
    assert [(r[0].line, r[0].col) for r in w.related] == [position(text, "131072")]


# -- 2.9 a TensorRT-LLM LLM API YAML is told by any of its LlmArgs keys -------------------------
DSR1_PREFILL = "100-dynamo-trtllm-dsr1-disagg-simple-prefill"


def _top_level_blocks(text: str) -> dict[str, str]:
    """Each top-level key of a YAML text with its block (the key's line and the lines below it)."""
    blocks: dict[str, str] = {}
    key = None
    for line in text.splitlines(keepends=True):
        if line[:1].isalpha():
            key = line.split(":", 1)[0]
            blocks[key] = ""
        if key is not None:
            blocks[key] += line
    return blocks


def test_every_llm_api_key_of_a_published_config_marks_it(tmp_path):
    text = shared(f"corpus/{DSR1_PREFILL}/prefill.yaml").read_text(encoding="utf-8")
    blocks = _top_level_blocks(text)
    assert "enable_attention_dp" in blocks and "print_iter_log" in blocks
    for key, block in blocks.items():
        d = tmp_path / key
        d.mkdir()
        (d / "prefill.yaml").write_text(block + "bogus_key_x: 1\n", encoding="utf-8")
        found = [f for f in lint(d / "prefill.yaml") if f[0] == "SCH001" and "bogus_key_x" in f[4]]
        if key == "backend":   # the control: a plain word alone does not make a YAML an engine config
            assert found == [], key
        else:                  # was: only a short marker list (print_iter_log, cache_transceiver_config ... not in it)
            assert len(found) == 1, key


def test_an_older_release_key_marks_it_and_is_named_renamed(tmp_path):
    # TensorRT-LLM before PR #4603 nested the PyTorch knobs in pytorch_backend_config
    (tmp_path / "extra.yaml").write_text("pytorch_backend_config:\n  enable_overlap_scheduler: true\n", encoding="utf-8")
    (f,) = only(lint(tmp_path / "extra.yaml"), "SCH001")
    assert "pytorch_backend_config" in f[4] and "renamed" in f[4]


# -- 2.10 a multi-GPU docker run without the host's IPC or a large /dev/shm ---------------------
DOCKER_SHM = "docker run --gpus all --shm-size 32g --network host --ipc=host"


@pytest.mark.parametrize("flags, at", [("", "docker"), (" --shm-size 512m", "512m"), (" --shm-size=64m", "64m")])
def test_multi_gpu_docker_run_needs_shared_memory(tmp_path, flags, at):
    d = copy_submission(KIMI_B300, tmp_path)
    assert only(lint(d), "K8S003") == []    # the control: the published --shm-size 32g --ipc=host
    replace_once(d / "run.sh", DOCKER_SHM, "docker run --gpus all" + flags + " --network host")
    text = (d / "run.sh").read_text(encoding="utf-8")
    result = lint_paths([str(d)])
    (f,) = [f for f in result.findings if f.rule_id == "K8S003"]
    assert f.level == "warning" and (f.span.line, f.span.col) == position(text, at)
    assert "on 8 GPUs (TP 8)" in f.message and "--ipc=host" in f.message


@pytest.mark.parametrize("flags", [" --ipc=host", " --ipc host", " --shm-size 10.24g", " -v /dev/shm:/dev/shm"])
def test_host_ipc_or_a_large_shm_is_enough(tmp_path, flags):
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", DOCKER_SHM, "docker run --gpus all" + flags + " --network host")
    assert only(lint(d), "K8S003") == []


def test_a_one_gpu_container_needs_no_shared_memory(tmp_path):
    d = copy_submission(GPT_TRT_TP1, tmp_path)
    replace_once(d / "run.sh", " --ipc=host --shm-size=64g", "")
    assert only(lint(d), "K8S003") == []


# -- 2.11 a StatefulSet whose replicas are the nodes of one --nnodes instance -------------------
RBG_STS = "050-rbg-single-node-sglang"     # StatefulSet sgl-inference: --tp 2 on nvidia.com/gpu: "2"
TWO_NODES = "--tp 4 --nnodes 2 --node-rank $(POD_INDEX) --dist-init-addr <head-ip>:5000 "


@pytest.mark.parametrize("replicas, fires", [(2, False), (4, False), (3, True), (1, True)])
def test_statefulset_replicas_as_the_nodes_of_one_instance(tmp_path, replicas, fires):
    d = _corpus_copy(RBG_STS, tmp_path)
    manifest = d / "sglang.yaml"
    replace_once(manifest, "--tp 2 ", TWO_NODES)
    replace_once(manifest, "  replicas: 1\n", f"  replicas: {replicas}\n")
    text = manifest.read_text(encoding="utf-8")
    found = only(lint(manifest), "K8S001")
    if fires:   # the control: replicas that are not whole instances of 2 nodes: 2 GPUs per pod for TP 4
        assert [f[2:4] for f in found] == [position(text, '"2"')] and "gives the engine 2 GPUs but it runs TP 4" in found[0][4]
    else:       # 2 GPUs per pod x 2 pods (--nnodes 2) = TP 4; was "gives the engine 2 GPUs but it runs TP 4 = 4"
        assert found == []


# -- 2.12 files that are no serving files: the hook (file arguments) and a directory run agree ----
def _hook_and_directory(root: Path, files: list[Path]):
    """(findings of a run on ``files``, as the pre-commit hook passes them; of a run on ``root``),
    each as (rule, path relative to root, line)."""
    def rows(result):
        return sorted((f.rule_id, str(Path(f.span.path).resolve().relative_to(root.resolve())), f.span.line)
                      for f in result.findings)
    return rows(lint_paths([str(f) for f in files])), rows(lint_paths([str(root)]))


def test_tool_configs_workflows_and_test_data_get_nothing_in_both_runs(tmp_path, project_root):
    d = copy_submission(KIMI_B300, tmp_path)
    repo = tmp_path
    # the project's own non-serving files, as a submissions repository holds them
    (repo / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(project_root / "docs" / "examples" / "github-workflow.yml", repo / ".github" / "workflows" / "lint.yml")
    shutil.copy(project_root / ".pre-commit-hooks.yaml", repo / ".pre-commit-config.yaml")
    (repo / ".cfglint.yaml").write_text("fail-level: warning\n", encoding="utf-8")
    shutil.copy(project_root / "tests" / "golden" / "examples.yaml", d.parent / "EXPECT.yaml")
    files = [repo / ".github" / "workflows" / "lint.yml", repo / ".pre-commit-config.yaml", repo / ".cfglint.yaml",
             d.parent / "EXPECT.yaml"]
    hook, directory = _hook_and_directory(repo, files)
    assert hook == directory == []       # was: a COV001 note per file in the hook's run


def test_an_engine_yaml_cfglint_cannot_read_is_named_in_both_runs(tmp_path):
    # the control: engine settings on their own that both vLLM's and SGLang's --config files take
    # alike (tensor-parallel-size, trust-remote-code, kv-cache-dtype, served-model-name, as in the
    # vllm-project/recipes files): which engine reads it is not known, said in both runs; a recipe
    # file of one engine's keys (corpus 044) is read as that engine's and clean in both
    repo = tmp_path / "repo"
    (repo / "llama").mkdir(parents=True)
    both = repo / "llama" / "shared.yaml"
    both.write_text("tensor-parallel-size: 8\ntrust-remote-code: true\nkv-cache-dtype: fp8\nserved-model-name: llama\n",
                    encoding="utf-8")
    src = shared("corpus/044-recipes-llama-llama3-3-blackwell/Llama3.3_Blackwell.yaml")
    shutil.copy(src, repo / "llama" / "Llama3.3_Blackwell.yaml")
    hook, directory = _hook_and_directory(repo, [both, repo / "llama" / "Llama3.3_Blackwell.yaml"])
    assert ("COV001", "llama/shared.yaml", 1) in hook
    assert not [r for r in hook if r[1] == "llama/Llama3.3_Blackwell.yaml"]
    assert [r for r in directory if r[0] == "COV001"] == [r for r in hook if r[0] == "COV001"]


# -- 4. one root cause, one error -------------------------------------------------------------
@pytest.mark.parametrize("rel, flag, typo", [(VLLM_PARSERS, "--tensor-parallel-size 8", "--tensor-paralel-size 8"),
                                             (SGL_PARSERS, "--tp-size 8", "--tp-szie 8")])
def test_a_mistyped_topology_flag_is_one_finding_at_its_cause(tmp_path, rel, flag, typo):
    d = copy_submission(rel, tmp_path)
    assert [f for f in lint(d) if f[0] != "PRS004"] == []   # the control: the published launch
    replace_once(d / "run.sh", flag, typo)
    text = (d / "run.sh").read_text(encoding="utf-8")
    found = lint(d, coverage=True)
    # was: FLG001 and MEM001, TOP001, TOP002 at the model ("TP 1 ... use TP 2"), none linked to the typo
    assert [f[0] for f in found if f[0] != "PRS004"] == ["FLG001"]
    (f,) = only(found, "FLG001")
    assert f[2:4] == position(text, typo.split()[0])
    assert f"? While it is not spelled {flag.split()[0]}, TP is unknown: the checks that use TP do not run " \
           f"(no engine default is assumed for it)" in f[4]


def test_an_unknown_flag_far_from_every_setting_changes_nothing_else(tmp_path):
    # the control: a flag that is close to no setting's flag leaves TP as the launch gives it
    d = copy_submission(VLLM_PARSERS, tmp_path)
    replace_once(d / "run.sh", "--tensor-parallel-size 8", "--tensor-parallel-size 8 --bogus-flag 1")
    (f,) = lint(d)
    assert f[0] == "FLG001" and "While it is not spelled" not in f[4]
    # and a mistyped flag beside the right one: the right one counts
    replace_once(d / "run.sh", "--bogus-flag 1", "--tensor-paralel-size 4")
    (f,) = lint(d)
    assert f[0] == "FLG001" and "While it is not spelled" not in f[4]


def test_trtllm_bench_is_named_as_an_engine_launch_not_read(tmp_path):
    d = copy_submission(TRT_DEP8, tmp_path)
    replace_once(d / "run.sh", "trtllm-serve openai/gpt-oss-120b", "trtllm-bench --model openai/gpt-oss-120b throughput")
    (cov,) = only(lint(d, coverage=True), "COV001")
    assert "launcher 'trtllm-bench' not recognised (a benchmark that runs the engine in its own process; cfglint " \
           "holds no list of its flags" in cov[4]
    # the control: a benchmark client that starts no engine is no launch at all
    replace_once(d / "run.sh", "trtllm-bench --model", "genai-perf profile --model")
    assert "trtllm-bench" not in " ".join(f[4] for f in lint(d, coverage=True))


def test_a_sidecar_with_model_args_is_no_unknown_engine_entrypoint():
    # kthena's runtime sidecar (ghcr.io/volcano-sh/runtime: --engine sglang --model Qwen/Qwen3-0.6B) is
    # no engine launch: only engine flags (--tp-size ...) or an image in a variable name an entrypoint
    manifest = shared("corpus/031-kthena-model-serving-gpu-kvcache-aware-sglang/gpu-kvcache-aware-sglang.yaml")
    assert not any("own entrypoint" in f[4] for f in lint(manifest, coverage=True))


@pytest.mark.parametrize("first, second", [("# On the head node:", "# On the worker node:"),
                                           ("# Node 1", "# Node 2"), ("# run on node-a", "# run on node-b")])
def test_launches_under_comments_naming_two_nodes(tmp_path, first, second):
    d = copy_submission(KIMI_B300, tmp_path)
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    launch = text[text.index("docker run"):].replace("docker run --gpus all",
                                                      "docker run -e CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 --gpus all")
    head = text[:text.index("docker run")]
    run.write_text(head + f"{first}\n{launch}\n{second}\n{launch}", encoding="utf-8")
    assert only(lint(d), "TOP003") == []
    # the control: the same two launches under comments that name no machine share its GPUs
    run.write_text(head + f"# first\n{launch}\n# second\n{launch}", encoding="utf-8")
    assert any("GPU 0 is given to two workers" in f[4] for f in only(lint(d), "TOP003"))


def test_trtllm_serve_with_its_serve_subcommand_written_out_takes_the_model_after_it(tmp_path):
    """Corpus 015 (AIBrix): `trtllm-serve serve /models/$MODEL`; the explicit serve subcommand
    was read as the model ('serve' is not in the knowledge base). The control, the word
    removed, reads the same model."""
    from cfglint.deploy.extract import extract
    from cfglint.knowledge import knowledge
    from cfglint.load.submission import load_loose_file

    def models(path: Path) -> list:
        sub = load_loose_file(str(path))
        procs = extract(knowledge(), sub.manifest, sub.launches, sub.configs).engine_processes()
        return [(p.launcher, p.settings["model"].value) for p in procs]

    d = _corpus_copy("015-aibrix-tensorrt-tensor-rt-pd", tmp_path)
    path = d / "tensor-rt-pd.yaml"
    notes = " ".join(f.message for f in lint_paths([str(path)]).findings if f.rule_id == "COV001")
    assert "model 'serve'" not in notes
    assert models(path) == [("trtllm-serve", "/models/Qwen3-8B")] * 2
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("trtllm-serve serve /models/$MODEL", "trtllm-serve /models/$MODEL"), encoding="utf-8")
    again = " ".join(f.message for f in lint_paths([str(path)]).findings if f.rule_id == "COV001")
    assert "model 'serve'" not in again and again.count("not checked") == notes.count("not checked")
    assert models(path) == [("trtllm-serve", "/models/Qwen3-8B")] * 2


# -- 5. COV001 is honest and rare: launch forms read at their cause ------------------------------
KSERVE_TEMPLATE = "042-kserve-llmisvcconfig-config-llm-template"
KSERVE_DP = "072-kserve-llmisvcconfig-config-llm-decode-worker-data-parallel"


def _k8s_copy(name: str, tmp_path: Path) -> Path:
    d = _corpus_copy(name, tmp_path)
    return next(d.glob("*.yaml"))


@pytest.mark.parametrize("name, flag", [(KSERVE_TEMPLATE, "--port 8000"), (KSERVE_DP, "--port 8001 \\\n              --api-server-count")])
def test_kserve_eval_launch_is_read_with_go_template_actions_opaque(tmp_path, name, flag):
    # eval "exec vllm serve /mnt/models --served-model-name "{{ .Spec.Model.Name }}" ... {{- if }} ... {{- end }}":
    # was COV001 "launcher 'eval "exec vllm serve ...' not recognised"
    path = _k8s_copy(name, tmp_path)
    notes = " ".join(f[4] for f in only(lint(path, coverage=True), "COV001"))
    assert "launcher 'eval" not in notes and only(lint(path), "FLG001") == []
    # what the template renders is named as such, not as a shell value
    assert "checks that use tp (vllm serve): the flag that sets it is given on some runs only" in notes
    # a bogus flag in the eval'd string is reported where it is written
    replace_once(path, flag, flag + " --bogus-flag 1")
    text = path.read_text(encoding="utf-8")
    (f,) = only(lint(path), "FLG001")
    assert f[2:4] == position(text, "--bogus-flag") and "has no flag --bogus-flag" in f[4]


def test_kserve_template_if_block_flag_names_are_checked(tmp_path):
    # a flag inside {{ if .GlobalConfig.EnableTLS }}...{{- end }} is conditional, its name still checked
    path = _k8s_copy(KSERVE_TEMPLATE, tmp_path)
    replace_once(path, "}}--enable-ssl-refresh{{", "}}--enable-ssl-refreshh{{")
    text = path.read_text(encoding="utf-8")
    (f,) = only(lint(path), "FLG001")
    assert f[2:4] == position(text, "--enable-ssl-refreshh")
    # the control: a value-only block ({{ if }}{{ .X }}{{ else }}5555{{ end }}) is one value, no flag
    path2 = _k8s_copy(KSERVE_DP, tmp_path / "dp")
    assert only(lint(path2), "FLG001") == []
    text = path2.read_text(encoding="utf-8")   # the first of the file's two launches (lines 259 and 540)
    path2.write_text(text.replace("{{ else }}5555{{- end }}", "{{ else }}--bogus-port{{- end }}", 1), encoding="utf-8")
    assert [(f[0], f[2]) for f in lint(path2)] == [("FLG001", 259)]


DYN_AGG_ROUTER = "095-dynamo-sglang-agg-router"


def test_array_assigned_in_a_branch_has_its_flags_checked(tmp_path):
    # TRACE_ARGS=() then TRACE_ARGS+=(--enable-trace --otlp-traces-endpoint localhost:4317) in an if: was COV001
    # "the arguments "${TRACE_ARGS[@]}" adds ... not known statically" twice, and nothing else
    d = _corpus_copy(DYN_AGG_ROUTER, tmp_path)
    script = d / "agg_router.sh"
    assert lint(script, coverage=True) == []
    replace_once(script, "TRACE_ARGS+=(--enable-trace", "TRACE_ARGS+=(--enable-tracee")
    text = script.read_text(encoding="utf-8")
    (f,) = lint(script)
    assert f[0] == "FLG001" and f[2:4] == position(text, "--enable-tracee")


def test_array_from_a_script_argument_in_a_branch_stays_in_cov001(tmp_path):
    # the control: a piece really unknown (the script's argument) keeps its COV001
    d = _corpus_copy(DYN_AGG_ROUTER, tmp_path)
    script = d / "agg_router.sh"
    replace_once(script, "TRACE_ARGS+=(--enable-trace --otlp-traces-endpoint localhost:4317)", 'TRACE_ARGS+=("$1")')
    (cov,) = only(lint(script, coverage=True), "COV001")
    assert 'the arguments "$1" adds (python3 -m dynamo.sglang): they are not known statically' in cov[4]


ROCM_DWDP = "108-sglang-dwdp-rocm-backend-comparison"


def test_arrays_in_a_loop_and_an_if_else_and_a_benchmark_client(tmp_path):
    # common_args assigned in a non-literal for loop, backend_args in both branches of an if / else; the
    # benchmark client python3 -m sglang.benchmark.serving is no launch (was COV001 "not recognised")
    d = _corpus_copy(ROCM_DWDP, tmp_path)
    script = d / "run_rocm_backend_comparison.sh"
    found = lint(script, coverage=True)
    notes = " ".join(f[4] for f in only(found, "COV001"))
    assert "sglang.benchmark.serving" not in notes and "not known statically" not in notes
    # the branch's flag is read: --dwdp-weight-backend is in no release (tests/corpus/expected.yaml)
    assert [(f[0], f[2]) for f in found if f[0] != "COV001"] == [("FLG001", 47)]
    # --dp-size is given in one branch only: dp is not known, and COV001 says why
    assert "checks that use dp (python3 -m sglang.launch_server): the flag that sets it is given on some runs only" in notes
    replace_once(script, "--log-level warning", "--log-levell warning")
    assert ("FLG001", 35) in [(f[0], f[2]) for f in lint(script)]


def test_an_engine_in_process_benchmark_is_still_named(tmp_path):
    # the control: sglang.benchmark.one_batch runs the engine in its own process: not a client
    d = _corpus_copy(ROCM_DWDP, tmp_path)
    script = d / "run_rocm_backend_comparison.sh"
    replace_once(script, "python3 -m sglang.benchmark.serving", "python3 -m sglang.benchmark.one_batch")
    notes = " ".join(f[4] for f in only(lint(script, coverage=True), "COV001"))
    assert "launcher 'python3 -m sglang.benchmark.one_batch' not recognised" in notes


RAY_CLUSTER = "091-vllm-run-cluster-docker-ray"


def test_ray_cluster_script_claims_no_launch(tmp_path):
    # docker run --entrypoint /bin/bash ... "${ADDITIONAL_ARGS[@]}" "${DOCKER_IMAGE}" -c "${RAY_START_CMD}": the
    # splices before the image are docker options, the -c string is one of RAY_START_CMD's two values (ray start):
    # was COV001 "launcher '"$@"' not recognised" at line 54
    d = _corpus_copy(RAY_CLUSTER, tmp_path)
    script = d / "run_cluster.sh"
    assert lint(script, coverage=True) == []
    # the control: an engine in the -c string's else branch is read (and its bogus flag reported)
    replace_once(script, 'RAY_START_CMD+=" --address=${HEAD_NODE_ADDRESS}:6379"',
                 'RAY_START_CMD="vllm serve m --bogus-flag 1"')
    assert [f[0] for f in lint(script)] == ["FLG001"]


DYNAMO_SDK = "025-aibrix-dynamo-disagg-router"


def test_dynamo_sdk_graph_launcher_is_named_with_where_its_flags_are(tmp_path):
    # the published file sets DYN_DEPLOYMENT_CONFIG, which is read (tests/test_dynamo_sdk_graph.py); without
    # it the service config is not in the file, and the note says where the flags are
    path = _k8s_copy(DYNAMO_SDK, tmp_path)
    replace_once(path, "- name: DYN_DEPLOYMENT_CONFIG", "- name: SOME_OTHER_VARIABLE")
    (cov,) = only(lint(path, coverage=True), "COV001")
    assert "starts no engine launch cfglint recognises" not in cov[4]
    assert "every launch check for dynamo serve graphs.disagg_router:VllmWorker at line 145: the Dynamo SDK graph " \
           "launcher of Dynamo <= 0.3.x (dynamo serve MODULE:SERVICE) takes the engine's flags from the graph's " \
           "service config" in cov[4]
    assert "and no service config is in the file (DYN_DEPLOYMENT_CONFIG is not set in the launch's environment" in cov[4]
    # the frontend / router services are given no GPU: no engine runs there, nothing is claimed for them
    assert "graphs.disagg_router:Frontend" not in cov[4] and "graphs.disagg_router:Router" not in cov[4]
    # the control: the same container running a launcher cfglint does not know keeps the generic note
    replace_once(path, "dynamo serve graphs.disagg_router:VllmWorker", "my-launcher graphs.disagg_router:VllmWorker")
    (cov,) = only(lint(path, coverage=True), "COV001")
    assert "container ? of DynamoGraphDeployment VllmWorker: it is given accelerators but starts no engine launch" in cov[4]
