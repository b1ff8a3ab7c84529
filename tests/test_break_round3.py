"""Regressions from the third break-it round (image tags, Kubernetes readers, the shell's
option-parsing loop): each hostile input gives a clear finding or an honest COV001, never an
internal error (IO001 'cfglint internal error') or a silent pass. Each case is a real file
changed in one place, with its control."""

from __future__ import annotations

from cfglint.lint import lint_paths
from support import changed_copy, findings_of, SHARED, copy_submission, lint, only, replace_once, shared

BIG = "9" * 5000   # more digits than Python converts (4300)
VLLM_DEPLOYMENT = "corpus/035-pstack-vllm-gpu-deployment/gpu-deployment.yaml"
RBG_SGLANG = "corpus/050-rbg-single-node-sglang/sglang.yaml"
RBG_DYNAMO = "corpus/005-rbg-dynamo-agg/agg.yaml"
AGG = "corpus/073-dynamo-sglang-agg/agg.sh"
RBG_PD = "recipes/rbg-sglang-qwen3-32b-pd-1p1d"
KIMI_DCP8 = "artificial-analysis/kimi-k3/b300-sglang-tp8-dcp8"


_changed, _findings = changed_copy, findings_of


def _internal(findings):
    return [f for f in findings if "internal error" in f[-1]]


def _notes(path) -> list[str]:
    return [m for f in lint_paths([str(path)]).findings if f.rule_id == "COV001" for _s, m in f.related]


def test_an_image_tag_whose_release_number_is_too_long_names_no_release(tmp_path):
    # vllm/vllm-openai:v0.12.0rc<5000 digits>: was an internal error (int() of the rc number)
    path = _changed(tmp_path, VLLM_DEPLOYMENT, "lmcache/vllm-openai:2025-05-05-v1", f"vllm/vllm-openai:v0.12.0rc{BIG}")
    findings = _findings(path)
    assert _internal(findings) == []
    (env,) = [f for f in findings if f[0] == "ENV001"]
    assert env[2] == "warning" and "is not declared" in env[3]   # as for a tag that names no release


def test_an_image_tag_with_a_release_control(tmp_path):
    path = _changed(tmp_path, VLLM_DEPLOYMENT, "lmcache/vllm-openai:2025-05-05-v1", "vllm/vllm-openai:v0.12.0")
    (env,) = [f for f in _findings(path) if f[0] == "ENV001"]
    assert env[2] == "error" and env[3].startswith("vLLM 0.12.0 no longer reads VLLM_USE_V1")


def test_a_pod_shm_size_limit_too_long_for_a_float_is_not_a_crash(tmp_path):
    # sizeLimit: 999...(400 digits)Gi: float() is inf, int(inf) raised OverflowError
    path = _changed(tmp_path, RBG_SGLANG, "sizeLimit: 15Gi", f"sizeLimit: {'9' * 400}Gi")
    findings = _findings(path)
    assert _internal(findings) == [] and [f for f in findings if f[0] == "K8S003"] == []
    (tmp_path / "small").mkdir()
    small = _changed(tmp_path / "small", RBG_SGLANG, "sizeLimit: 15Gi", "sizeLimit: 1Mi")
    (k8s003,) = [f for f in _findings(small) if f[0] == "K8S003"]
    assert k8s003[1] == 29 and "limited to 1Mi" in k8s003[3]


def test_a_docker_shm_size_too_long_for_a_float_is_not_a_crash(tmp_path):
    d = copy_submission(KIMI_DCP8, tmp_path)
    replace_once(d / "run.sh", "--shm-size 32g --network host --ipc=host", f"--shm-size {'9' * 400}g --network host")
    assert _internal(lint(d)) == []
    control = copy_submission(KIMI_DCP8, tmp_path / "control")
    replace_once(control / "run.sh", "--shm-size 32g --network host --ipc=host", "--shm-size 32m --network host")
    (k8s003,) = only(lint(control), "K8S003")
    assert "--shm-size 32m" in k8s003[4]


def _loop_in_function(tmp_path, call: str):
    """073's option-parsing loop moved into a function, called as ``call``."""
    src = shared(AGG).read_text(encoding="utf-8")
    start = src.index("while [[ $# -gt 0 ]]; do")
    end = src.index("done\n", start) + len("done\n")
    out = tmp_path / "agg.sh"
    out.write_text(src[:start] + "parse_args() {\n" + src[start:end] + "}\n" + call + "\n" + src[end:], encoding="utf-8")
    return out


def test_an_option_loop_in_a_function_called_with_arguments_reads_them(tmp_path):
    # parse_args --page-sizee 32: the loop collects those words into EXTRA_ARGS, which reaches the
    # engine; they are the script's own, not the caller's: was no finding and no note at all
    notes = _notes(_loop_in_function(tmp_path, "parse_args --page-sizee 32"))
    assert any("EXTRA_ARGS" in n and "not known statically" in n for n in notes), notes


def test_an_option_loop_in_a_function_called_without_arguments_adds_nothing(tmp_path):
    # control: called with no arguments the loop does not run, as for the script run as published
    assert _findings(_loop_in_function(tmp_path, "parse_args")) == []


def test_a_deploy_file_whose_workload_has_no_string_api_version(tmp_path):
    # apiVersion: 1 on the RoleBasedGroup: kubectl refuses it, and no launch of the file was read;
    # was no finding at all (the manifest's roles compared with nothing)
    d = copy_submission(RBG_PD, tmp_path)
    replace_once(d / "sglang-pd.yaml", "apiVersion: workloads.x-k8s.io/v1alpha1", "apiVersion: 1")
    findings = _findings(d)
    (k8s004,) = [f for f in findings if f[0] == "K8S004"]
    assert k8s004[1] == 2 and "has no apiVersion" in k8s004[3] and "workloads.x-k8s.io/v1alpha1" in k8s004[3]
    assert any("every launch check for sglang-pd.yaml" in n for n in _notes(d))
    assert _findings(copy_submission(RBG_PD, tmp_path / "control")) == []


def test_a_listed_launch_file_with_no_command_is_a_note(tmp_path):
    d = copy_submission(KIMI_DCP8, tmp_path)
    (d / "run.sh").write_text("# the launch command is published elsewhere\n", encoding="utf-8")
    notes = _notes(d)
    assert any("every launch check for run.sh: no engine launch recognised" in n for n in notes), notes


def test_a_role_template_patch_that_is_not_a_mapping_says_so(tmp_path):
    shared("corpus")
    old = "          patch:\n            spec:\n              volumes:"
    path = _changed(tmp_path, RBG_DYNAMO, old, "          patch: [dshm]\n          xpatch:\n            spec:\n              volumes:")
    notes = _notes(path)
    assert any("role backend (its template patch is not a mapping)" in n for n in notes), notes
    assert not any("role backend" in n for n in _notes(SHARED / RBG_DYNAMO))


def test_env001_names_why_the_newest_release_stands_in_for_a_tag_beyond_it(tmp_path):
    # 035 sets VLLM_USE_V1 (read up to vLLM 0.11.0). Its image tag names no release (lmcache's build):
    # "the release ... is not declared". A tag naming a release newer than cfglint holds declares
    # one: the message says that instead (was: "is not declared" for :v999.999.999 too)
    shared("corpus")
    published = [m for r, _l, _v, m in _findings(shared(VLLM_DEPLOYMENT)) if r == "ENV001" and "VLLM_USE_V1" in m]
    assert published and all("the release the launch runs is not declared" in m for m in published)
    path = _changed(tmp_path, VLLM_DEPLOYMENT, '"lmcache/vllm-openai:2025-05-05-v1"', '"vllm/vllm-openai:v999.999.999"')
    (msg,) = [m for r, _l, _v, m in _findings(path) if r == "ENV001" and "VLLM_USE_V1" in m]
    assert "vLLM 999.999.999 is newer than the releases cfglint holds" in msg and "not declared" not in msg
