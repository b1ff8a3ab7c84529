"""Engine configs a Kubernetes container's ``bash -c`` script writes with a heredoc, and the edits
the script makes to them afterwards (src/cfglint/load/edits.py).

Built from the corpus file 015 (AIBrix's TensorRT-LLM 1P1D StormService): each container writes
its engine config with ``cat > /tmp/ctx_config.yaml <<'CFGEOF'``, fills the placeholder
``__GPU_MEM_FRACTION__`` with ``sed -i "s/__GPU_MEM_FRACTION__/${GPU_MEM_FRACTION}/"`` from the
container's env (``"0.90"``), after a dedent ``sed -i 's/^ {22}//'`` that the YAML block scalar
has already made a no-op. Each test copies the file, changes it in one place, and lints the copy.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support import copy_submission, lint, only, position, shared

from cfglint.deploy.extract import extract
from cfglint.knowledge import knowledge
from cfglint.load.submission import load_loose_file
from cfglint.read.shell.parse import parse_here

PD = "015-aibrix-tensorrt-tensor-rt-pd/tensor-rt-pd.yaml"
FILL = 'sed -i "s/__GPU_MEM_FRACTION__/${GPU_MEM_FRACTION}/" /tmp/ctx_config.yaml'
DEDENT = "sed -i 's/^                      //' /tmp/ctx_config.yaml"


def _copy(tmp_path: Path, old: str | None = None, new: str = "") -> tuple[Path, str]:
    """The corpus file copied to tmp_path with the only occurrence of ``old`` replaced by ``new``."""
    text = (shared("corpus") / PD).read_text(encoding="utf-8")
    if old is not None:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "tensor-rt-pd.yaml"
    path.write_text(text, encoding="utf-8")
    return path, text


def _processes(path: Path):
    sub = load_loose_file(str(path))
    return sub, extract(knowledge(), sub.manifest, sub.launches, sub.configs).engine_processes()


def test_as_published_the_written_configs_are_read_filled_in_and_placed_in_the_manifest(tmp_path):
    path, text = _copy(tmp_path)
    assert lint(path, coverage=True) == []     # no COV001 "not published", nothing else wrong either
    sub, procs = _processes(path)
    assert [(p.role.value, [c.path for c in p.configs]) for p in procs] == \
        [("prefill", ["/tmp/ctx_config.yaml"]), ("decode", ["/tmp/gen_config.yaml"])]
    for n, p in enumerate(procs, start=1):
        # the value the sed puts in (the container's GPU_MEM_FRACTION), where the placeholder it replaces is
        loc = p.settings["mem_fraction"]
        line, col = position(text, "__GPU_MEM_FRACTION__", 2 * n - 1)   # the heredocs, not the seds
        assert (loc.value, loc.span.line, loc.span.col, loc.span.end_col) == (0.9, line, col, col + 20)
        assert p.settings["transfer_backend"].value == "DEFAULT"
    # the overlap scheduler as each heredoc writes it (context: off, generation: on), at its manifest line
    keys = [c.root.key("disable_overlap_scheduler").span for c in sub.configs]
    assert [(s.line, s.col) for s in keys] == [position(text, "disable_overlap_scheduler", n) for n in (1, 2)]


def test_a_mistyped_key_in_the_heredoc_is_reported_at_its_manifest_line_and_column(tmp_path):
    old = "                        free_gpu_memory_fraction: __GPU_MEM_FRACTION__\n" \
          "                        enable_block_reuse: true\n                        event_buffer_max_size: 1024\n" \
          "                      cache_transceiver_config:\n                        backend: DEFAULT\n" \
          "                      enable_iter_perf_stats: true\n                      return_perf_metrics: true\n" \
          "                      CFGEOF\n                      sed -i 's/^                      //' /tmp/ctx_config.yaml"
    path, text = _copy(tmp_path, old, old.replace("free_gpu_memory_fraction:", "free_gpu_memory_fractio:", 1))
    sch = only(lint(path), "SCH001")
    assert [(f[2], f[3]) for f in sch] == [position(text, "free_gpu_memory_fractio:")]
    assert "unknown field 'free_gpu_memory_fractio'" in sch[0][4] and "free_gpu_memory_fraction" in sch[0][4]


def test_a_replacement_known_only_at_run_time_is_a_note_naming_the_edit(tmp_path):
    path, text = _copy(tmp_path, FILL, FILL.replace("${GPU_MEM_FRACTION}", "${GPU_MEM_FRAC}"))
    findings = lint(path, coverage=True)
    assert [f[0] for f in findings] == ["COV001"]      # no SCH001 "not a number" on __GPU_MEM_FRACTION__
    note = findings[0][4]
    line = position(text, "${GPU_MEM_FRAC}")[0]
    assert "settings kv_cache_config.free_gpu_memory_fraction in /tmp/ctx_config.yaml (trtllm-serve): " \
           f"the script edits it at run time (line {line}: sed -i \"s/__GPU_MEM_FRACTION__/${{GPU_MEM_FRAC}}/\"" in note
    assert findings[0][2:4] == position(text, "__GPU_MEM_FRACTION__")     # at the value it leaves unknown
    assert "gen_config" not in note                                       # the decode pod's is filled in
    _sub, procs = _processes(path)
    assert "mem_fraction" in procs[0].unknown and "mem_fraction" not in procs[0].settings
    assert procs[1].settings["mem_fraction"].value == 0.9


@pytest.mark.parametrize("value", ["1.5", "2"])
def test_a_filled_in_value_out_of_range_is_reported_at_the_placeholder(tmp_path, value):
    # "2", one character for the 20 of __GPU_MEM_FRACTION__, was placed on the placeholder's last
    # character (column + 19)
    old = '                    - name: GPU_MEM_FRACTION\n                      value: "0.90"\n' \
          '                  command: ["bash", "-c"]'
    path, text = _copy(tmp_path, old, old.replace('"0.90"', f'"{value}"'))
    sch = only(lint(path), "SCH001")
    assert [(f[2], f[3]) for f in sch] == [position(text, "__GPU_MEM_FRACTION__")]
    assert f"free_gpu_memory_fraction: {value} is greater than the maximum of 1" in sch[0][4]


def test_a_config_path_two_containers_write_is_each_containers_own(tmp_path):
    # the decode container writes the prefill container's path: each launch reads the file its own script writes
    path, text = _copy(tmp_path)
    text = text.replace("/tmp/gen_config.yaml", "/tmp/ctx_config.yaml").replace(
        "disable_overlap_scheduler: false", "disable_overlap_schedule: false")
    path.write_text(text, encoding="utf-8")
    sch = only(lint(path), "SCH001")
    assert [(f[2], f[3]) for f in sch] == [position(text, "disable_overlap_schedule:")]
    _sub, procs = _processes(path)
    assert [p.configs[0].written_in.name for p in procs] == ["prefill", "decode"]


def test_an_edit_not_read_makes_the_file_not_known_with_the_reason(tmp_path):
    cases = {
        # a regex (every leading space, nesting included): not a literal substitution
        "s/^ *//": (DEDENT, DEDENT.replace("^                      ", "^ *"), "edits it at run time"),
        "awk": (FILL, "awk -i inplace '{print}' /tmp/ctx_config.yaml", "edits it at run time"),
        "in a branch": (FILL, f'if [ -n "$X" ]; then {FILL}; fi', "edits it at run time on some runs"),
        ">>": (FILL, FILL + "\n                      echo 'x: 1' >> /tmp/ctx_config.yaml", "writes into it at run time"),
    }
    for i, (name, (old, new, why)) in enumerate(cases.items()):
        d = tmp_path / str(i)
        d.mkdir()
        path, text = _copy(d, old, new)
        findings = lint(path, coverage=True)
        assert [f[0] for f in findings] == ["COV001"], name
        line = position(text, new.splitlines()[-1].strip())[0]
        assert f"settings in /tmp/ctx_config.yaml (trtllm-serve): the script {why} (line {line}: " in findings[0][4], name


def test_the_dedent_sed_is_an_anchor_not_a_literal():
    # a script's heredoc indented four spaces, dedented by `s/^    //`: nested keys keep their two
    # spaces, and every key stays at the column it is written
    script = ("cat > /tmp/c.yaml <<'EOF'\n    kv_cache_config:\n      free_gpu_memory_fraction: __F__\nEOF\n"
              "sed -i 's/^    //' /tmp/c.yaml\nsed -i 's|__F__|0.5|g' /tmp/c.yaml\n"
              "trtllm-serve serve m --config /tmp/c.yaml\n")
    from cfglint.load.edits import edited

    parsed = parse_here(script, "run.sh")
    ed = edited(parsed.files[0], parsed, "/tmp/c.yaml")
    assert ed.opaque is None and ed.text == "kv_cache_config:\n  free_gpu_memory_fraction: 0.5\n"
    body = parsed.files[0].text
    assert [body[o] for o in ed.origin[:3]] == list("kv_") and ed.origin[0] == 4


# -- a launch script's heredoc written with <<- (bash strips every body line's leading tabs) -------

GPT_OSS = "recipes/trtllm-gpt-oss-120b-b200-dep8-throughput"


def _tab_indented(tmp_path: Path, old: str = "", new: str = "") -> tuple[Path, str]:
    """The published recipe's run.sh with its ``cat << EOF`` heredoc written ``<<-`` and every
    body line (and the delimiter) indented by one tab, as scripts indent heredocs inside blocks."""
    d = copy_submission(GPT_OSS, tmp_path)
    run = d / "run.sh"
    text = run.read_text(encoding="utf-8")
    a = text.index("cat << EOF")
    b = text.index("\nEOF\n", a) + 1
    head, *body = text[a:b].split("\n")[:-1]
    text = text[:a] + "\n".join([head.replace("<< EOF", "<<- EOF")] + ["\t" + line for line in body]) + \
        "\n\tEOF\n" + text[b + len("EOF\n"):]
    if old:
        assert text.count(old) == 1
        text = text.replace(old, new)
    run.write_text(text, encoding="utf-8")
    return d, text


def test_a_tab_indented_dash_heredoc_is_read_as_bash_writes_it(tmp_path):
    # before: IO001 "a tab character: YAML indents with spaces only" on the first nested key
    d, _ = _tab_indented(tmp_path / "dash")
    published = [f[0] for f in lint(copy_submission(GPT_OSS, tmp_path / "published"))]
    assert [f[0] for f in lint(d)] == published and "IO001" not in published


def test_a_mistyped_key_in_a_dash_heredoc_is_reported_at_its_column_after_the_tab(tmp_path):
    d, text = _tab_indented(tmp_path, "stream_interval: 10", "stream_intervl: 10")
    (sch,) = only(lint(d), "SCH001")
    line, col = position(text, "stream_intervl")
    assert sch[1:4] == ("run.sh", line, col) and col == 2 and "did you mean 'stream_interval'" in sch[4]


def test_tabs_are_kept_in_a_plain_heredoc(tmp_path):
    # the same body under << (no dash): bash keeps the tabs, and YAML refuses them
    d, text = _tab_indented(tmp_path, "<<- EOF", "<< EOF")
    (io,) = only(lint(d), "IO001")
    assert "a tab character" in io[4]
