"""Regressions from the fourth break-it round (heredoc-written engine configs and the script's
later ``sed -i`` edits, Kubernetes containers' ``bash -c`` scripts): each hostile input gives a
clear finding or an honest COV001, in bounded time, and never a finding on a file the engine does
not read. Each case is a real file changed in one place, with its control."""

from __future__ import annotations

import time

from cfglint.deploy.extract import extract
from cfglint.knowledge import knowledge
from cfglint.lint import lint_paths
from cfglint.load.submission import load_loose_file
from support import changed_copy, copy_submission, lint, only, position, replace_once, shared

GPT_OSS = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"
HEREDOC = "cat << EOF > ${EXTRA_LLM_API_FILE}\n"
PD = "corpus/015-aibrix-tensorrt-tensor-rt-pd/tensor-rt-pd.yaml"
TOKEN = "hf_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3f"   # a made-up Hugging Face token (37 characters)
GROW = "sed -i 's/0/&&&&/g' {path}\n" * 16   # each edit makes four of every 0: 4^16 of one


def _notes(path) -> list[str]:
    return [m for f in lint_paths([str(path)]).findings if f.rule_id == "COV001" for _s, m in f.related]


# -- sed edits that grow the text: one budget for the whole lint unit ------------------------

def _grown(tmp_path, copies: int):
    """The recipe's run.sh with its heredoc written ``copies`` times (to config0.yml ...; the last
    to the file the launch reads), each followed by sixteen ``s/0/&&&&/g`` edits of it."""
    d = copy_submission(GPT_OSS, tmp_path)
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    start = text.index(HEREDOC)
    end = text.index("EOF\n", start + len(HEREDOC)) + len("EOF\n")
    block = text[start:end]
    blocks = [block.replace("${EXTRA_LLM_API_FILE}", f"/tmp/config{i}.yml") + GROW.format(path=f"/tmp/config{i}.yml")
              for i in range(copies - 1)] + [block + GROW.format(path="${EXTRA_LLM_API_FILE}")]
    run.write_text(text[:start] + "".join(blocks) + text[end:], encoding="utf-8")
    return d


def test_sed_edits_that_grow_many_written_configs_stop_at_one_budget(tmp_path):
    # 64 heredocs of 8 lines, each grown by sixteen s/0/&&&&/g toward a million characters: each
    # file was edited up to that bound on its own, ~1.5 s apiece (over a minute and a half in all)
    d = _grown(tmp_path, 64)
    t0 = time.process_time()
    notes = _notes(d)
    took = time.process_time() - t0
    assert took < 15, f"{took:.1f} s of CPU time"
    line = position((d / "run.sh").read_text(encoding="utf-8"), "sed -i 's/0/&&&&/g' ${EXTRA_LLM_API_FILE}")[0]
    assert any(n.startswith("settings in /tmp/config.yml (trtllm-serve): the script edits it with substitutions "
                            "that write more text than cfglint reads (over 1,000,000 characters, with those of "
                            f"the other configs the scripts write) (line {line}: sed -i ") for n in notes), notes


def test_a_written_config_whose_edits_stay_small_is_read(tmp_path):
    # control: the same sixteen edits of a character the config does not hold change nothing
    d = copy_submission(GPT_OSS, tmp_path)
    replace_once(d / "run.sh", "num_postprocess_workers: 4\nEOF\n",
                 "num_postprocess_workers: 4\nEOF\n" + GROW.replace("s/0/", "s/Q/").format(path="${EXTRA_LLM_API_FILE}"))
    assert not any("/tmp/config.yml" in n for n in _notes(d))
    sub = load_loose_file(str(d / "run.sh"))
    (cfg,) = sub.configs
    assert cfg.root is not None and cfg.root.get("max_num_tokens") is None and cfg.root.get("stream_interval").value == 10


# -- a heredoc written over by a later one before anything reads it -----------------------------

BAD = "cat << EOF > ${EXTRA_LLM_API_FILE}\nstream_interval: 0\nEOF\n"


def test_a_heredoc_written_over_before_the_launch_is_not_the_engines_config(tmp_path):
    # a first `cat > config.yml` with stream_interval: 0, then the published heredoc to the same
    # path: the engine reads the second; was SCH001 "0 is less than the minimum of 1" on the first
    d = copy_submission(GPT_OSS, tmp_path)
    replace_once(d / "run.sh", HEREDOC, BAD + HEREDOC)
    assert only(lint(d), "SCH001") == []


def test_a_heredoc_written_after_the_published_one_is_the_engines_config(tmp_path):
    # control: written after the published heredoc, the bad one is what the engine reads
    d = copy_submission(GPT_OSS, tmp_path)
    line = replace_once(d / "run.sh", "num_postprocess_workers: 4\nEOF\n", "num_postprocess_workers: 4\nEOF\n" + BAD) + 3
    (sch,) = only(lint(d), "SCH001")
    assert (sch[2], sch[3], sch[4]) == (line, 18, "stream_interval: 0 is less than the minimum of 1")


def test_each_launch_reads_the_heredoc_written_last_before_it(tmp_path):
    # a first config (TP 4) and a launch reading it, then the published heredoc and launch: each
    # launch has its own config (the second launch was given the first heredoc's)
    d = copy_submission(GPT_OSS, tmp_path)
    first = ("cat << EOF > ${EXTRA_LLM_API_FILE}\ntensor_parallel_size: 4\nEOF\n"
             "trtllm-serve openai/gpt-oss-120b --backend pytorch --extra_llm_api_options ${EXTRA_LLM_API_FILE} &\n")
    replace_once(d / "run.sh", HEREDOC, first + HEREDOC)
    sub = load_loose_file(str(d / "run.sh"))
    procs = extract(knowledge(), sub.manifest, sub.launches, sub.configs).engine_processes()
    assert [[c.root.get("tensor_parallel_size") is not None for c in p.configs] for p in procs] == [[True], [False]]
    assert [p.settings["tp"].value for p in procs] == [4, 8]


# -- a sed replacement with a line break ----------------------------------------------------------

FILL = 'sed -i "s/__GPU_MEM_FRACTION__/${GPU_MEM_FRACTION}/" /tmp/ctx_config.yaml'


def test_a_sed_replacement_with_a_raw_line_break_is_not_applied(tmp_path):
    # GNU sed stops on "s/X/0.9<newline>enable_block_reuse: false/" (unterminated `s' command): the
    # file keeps its placeholder. It was applied, making a new top-level key the engine never sees
    shared("corpus")
    new = FILL.replace("${GPU_MEM_FRACTION}/", "0.9\n                      backend: nope/")
    path = changed_copy(tmp_path, PD, FILL, new)
    findings = lint_paths([str(path)]).findings
    assert [f.rule_id for f in findings] == ["COV001"]
    line = position(path.read_text(encoding="utf-8"), 'sed -i "s/__GPU_MEM_FRACTION__/0.9')[0]
    assert any(m.startswith(f"settings in /tmp/ctx_config.yaml (trtllm-serve): the script edits it at run time "
                            f"(line {line}: sed -i ") for _s, m in findings[0].related)


def test_a_sed_replacement_on_one_line_is_applied(tmp_path):
    # control: the same value without the line break is put in and checked (1.5 > 1)
    shared("corpus")
    path = changed_copy(tmp_path, PD, FILL, FILL.replace("${GPU_MEM_FRACTION}", "1.5"))
    (sch,) = [f for f in lint_paths([str(path)]).findings if f.rule_id == "SCH001"]
    assert sch.message == "kv_cache_config/free_gpu_memory_fraction: 1.5 is greater than the maximum of 1"


# -- a credential a container's env puts into its bash -c script ---------------------------------

def test_a_token_the_env_puts_into_a_script_is_reported_once_where_it_is_written(tmp_path):
    # GPU_MEM_FRACTION set to a token: the script's sed puts it in the config. RED002 was also
    # reported on the whole bash -c string (lines 49-76), whose every 8 characters were then hidden
    # in every message: SCH001 read "<secret>/<secret>'<secret>' is not of type ..."
    shared("corpus")
    path = changed_copy(tmp_path, PD, 'value: "0.90"\n                  command: ["bash", "-c"]',
                        f'value: "{TOKEN}"\n                  command: ["bash", "-c"]')
    text = path.read_text(encoding="utf-8")
    findings = lint_paths([str(path)]).findings
    red = [(f.span.line, f.span.col, f.span.end_line, f.span.end_col) for f in findings if f.rule_id == "RED002"]
    line, col = position(text, TOKEN)
    assert red == [(line, col, line, col + len(TOKEN))]
    (sch,) = [f.message for f in findings if f.rule_id == "SCH001"]
    assert sch == "kv_cache_config/free_gpu_memory_fraction: '<secret>' is not of type 'number', 'null'"
    assert TOKEN not in "".join(f.message for f in findings)


def test_a_token_written_in_the_script_itself_is_reported_where_it_is(tmp_path):
    # the token written in the bash -c string itself (an export) is reported once, at its own place;
    # it was also reported on the whole string (line 49 to 76), hiding all of it
    shared("corpus")
    old = '                      echo "=== Prefill Worker 0 ==="'
    path = changed_copy(tmp_path, PD, old, f"                      export HF_TOKEN={TOKEN}\n{old}")
    line, col = position(path.read_text(encoding="utf-8"), TOKEN)
    red = [(f.span.line, f.span.col, f.span.end_col) for f in lint_paths([str(path)]).findings if f.rule_id == "RED002"]
    assert red == [(line, col, col + len(TOKEN))]


# -- Kubernetes quantities: an exponent as the API server reads it; an emptyDir's sizeLimit -----

TPU_LWS = "corpus/049-lws-tpu-lws/lws.yaml"
LEADER_TPU = 'google.com/tpu: "4"\n            ports:'
RBG_SGLANG = "corpus/050-rbg-single-node-sglang/sglang.yaml"


def test_a_quantity_exponent_is_read_as_the_api_server_reads_it(tmp_path):
    # suffix.go interpret: strconv.ParseInt of the exponent's digits, kept as an int32: "4e0000000"
    # is 4, and "4e4294967296" wraps to 4e0. Both were K8S004 "not a Kubernetes quantity"
    shared("corpus")
    for n, written in enumerate(("4e0000000", "4e4294967296")):
        (tmp_path / str(n)).mkdir()
        path = changed_copy(tmp_path / str(n), TPU_LWS, LEADER_TPU, LEADER_TPU.replace('"4"', f'"{written}"'))
        assert [f.rule_id for f in lint_paths([str(path)]).findings] == [], written


def test_a_quantity_exponent_beyond_64_bits_is_refused(tmp_path):
    # control: ParseInt refuses an exponent beyond int64, and so does the API server
    shared("corpus")
    path = changed_copy(tmp_path, TPU_LWS, LEADER_TPU, LEADER_TPU.replace('"4"', '"4e99999999999999999999"'))
    (k8s004,) = [f for f in lint_paths([str(path)]).findings if f.rule_id == "K8S004"]
    assert "'4e99999999999999999999' is not a Kubernetes quantity" in k8s004.message


def test_an_emptydir_size_limit_that_is_no_quantity_is_k8s004(tmp_path):
    # sizeLimit: 15Gi0 / "15 Gi": the API server refuses the object; was no finding at all. 15g:
    # was K8S003 "/dev/shm ... is limited to 15g" (read as 15 bytes), an advice to raise it
    shared("corpus")
    for n, written in enumerate(("15Gi0", '"15 Gi"', "15g")):
        (tmp_path / str(n)).mkdir()
        path = changed_copy(tmp_path / str(n), RBG_SGLANG, "sizeLimit: 15Gi", f"sizeLimit: {written}")
        findings = lint_paths([str(path)]).findings
        assert [(f.rule_id, f.span.line, f.span.col) for f in findings] == [("K8S004", 29, 24)], written
        assert findings[0].message == (f"the StatefulSet's spec.template.spec.volumes[1].emptyDir.sizeLimit: "
                                       f"'{written.strip(chr(34))}' is not a Kubernetes quantity (a number with one "
                                       "suffix: m, k, M, G, T, P, E, Ki ... Ei, or an exponent e3): the API server refuses it")


def test_an_emptydir_size_limit_that_is_a_quantity_is_read_in_bytes(tmp_path):
    # control: 15G is 15 * 10^9 bytes (no finding); 1M is a megabyte, below NCCL's 1Gi (K8S003)
    shared("corpus")
    assert lint_paths([str(changed_copy(tmp_path, RBG_SGLANG, "sizeLimit: 15Gi", "sizeLimit: 15G"))]).findings == []
    (tmp_path / "small").mkdir()
    path = changed_copy(tmp_path / "small", RBG_SGLANG, "sizeLimit: 15Gi", "sizeLimit: 1M")
    (k8s003,) = lint_paths([str(path)]).findings
    assert (k8s003.rule_id, k8s003.span.line) == ("K8S003", 29) and "is limited to 1M" in k8s003.message


# -- a heredoc that writes no mapping of settings -------------------------------------------------

def _body(tmp_path, body: str):
    """The recipe's run.sh with its heredoc's eight lines replaced by ``body``."""
    d = copy_submission(GPT_OSS, tmp_path)
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    start = text.index(HEREDOC) + len(HEREDOC)
    end = text.index("EOF\n", start)
    run.write_text(text[:start] + body + text[end:], encoding="utf-8")
    return d


def test_a_heredoc_config_that_is_a_list_is_a_note(tmp_path):
    # `[]`: no setting the engine could read; was no finding and no note at all
    notes = _notes(_body(tmp_path, "[]\n"))
    assert "settings in /tmp/config.yml (trtllm-serve): the script writes a YAML list there, not a mapping of " \
           "settings" in notes, notes


def test_an_empty_heredoc_config_is_a_note_that_says_so(tmp_path):
    # was "the YAML the script writes there cannot be parsed (IO001 says where)", with no IO001
    d = _body(tmp_path, "")
    assert [f.rule_id for f in lint_paths([str(d)]).findings] == ["COV001"]
    assert "settings in /tmp/config.yml (trtllm-serve): the script writes an empty YAML there, not a mapping of " \
           "settings" in _notes(d)


def test_a_heredoc_config_that_is_a_mapping_is_read(tmp_path):
    # control: the published heredoc's mapping is the engine's config, no note about it
    assert not any("/tmp/config.yml" in n for n in _notes(copy_submission(GPT_OSS, tmp_path)))
