"""The sglang-router launchers' flags (issues 21/23): ``python3 -m sglang_router.launch_router`` and
the router flags of ``python3 -m sglang_router.launch_server`` are checked against the router's own
releases, compiled into rules/releases/sglang-router.yaml from the pinned sglang-router packages
(``RouterArgs.add_cli_args``, sglang_router/router_args.py). Real launches: the corpus's RBG PD
router (052: lmsysorg/sglang-router:v0.2.2), the Mooncake PD router run in the SGLang image (053:
lmsysorg/sglang:v0.5.5, which names no router release) and the Kimi K3 example turned into a
launch_server (as tests/test_launchers.py does), each changed in one place, with the unchanged
file as control."""

from __future__ import annotations

from pathlib import Path

from cfglint.knowledge import knowledge
from cfglint.lint import lint_paths
from support import copy_submission, lint, only, position, replace_once, shared

PD = "052-rbg-sglang-sglang-pd/sglang-pd.yaml"
MOONCAKE = "053-rbg-mooncake-pd-disaggregated-with-mooncake/pd-disaggregated-with-mooncake.yaml"
KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
B300_PREFIX = "docker run --gpus all --shm-size 32g --network host --ipc=host \\\n  lmsysorg/sglang:kimi-k3 sglang serve"


def _corpus(tmp_path: Path, rel: str, *changes: tuple[str, str]) -> tuple[Path, list]:
    """The corpus file ``rel`` with each (old, new) replaced once, linted on its own as the corpus
    test lints it; its FLG findings as (rule, line, col, level, message)."""
    src = shared("corpus") / rel
    text = src.read_text(encoding="utf-8")
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / Path(rel).name
    path.write_text(text, encoding="utf-8")
    found = [(f.rule_id, f.span.line, f.span.col, f.level, f.message) for f in lint_paths([str(path)]).findings
             if f.rule_id.startswith("FLG")]
    return path, found


def test_the_rbg_pd_router_as_published_has_no_flag_finding(tmp_path):
    _, found = _corpus(tmp_path, PD)
    assert found == []


def test_a_misspelled_pd_disaggregation_is_an_error_at_the_router_release_of_its_image(tmp_path):
    path, found = _corpus(tmp_path, PD, ("--log-level debug --pd-disaggregation", "--log-level debug --pd-disagregation"))
    assert [f[:4] for f in found] == [("FLG001", *position(path.read_text(), "--pd-disagregation"), "error")]
    assert found[0][4] == ("sglang_router.launch_router 0.2.2 (the image tag) has no --pd-disagregation: "
                           "did you mean --pd-disaggregation?")


def test_a_policy_the_router_does_not_have_is_flg002_with_the_release_s_choices(tmp_path):
    path, found = _corpus(tmp_path, PD, ("--policy random", "--policy bucket"))
    # bucket is a --prefill-policy / --decode-policy choice (0.1.9+), never a --policy one
    assert [f[:4] for f in found] == [("FLG002", *position(path.read_text(), "bucket"), "error")]
    assert "'bucket' is not one of random, round_robin, cache_aware, power_of_two" in found[0][4]


def test_mini_lb_is_a_flag_from_router_0_2_2(tmp_path):
    """--mini-lb (the Python load balancer) is in 0.2.2..0.3.2: accepted at the v0.2.2 image,
    an error at v0.1.6's, which names the release that added it."""
    swap = ("--log-level debug --pd-disaggregation", "--mini-lb --pd-disaggregation")
    _, found = _corpus(tmp_path, PD, swap)
    assert found == []
    path, found = _corpus(tmp_path, PD, swap, ("lmsysorg/sglang-router:v0.2.2", "lmsysorg/sglang-router:v0.1.6"))
    assert [f[:4] for f in found] == [("FLG001", *position(path.read_text(), "--mini-lb"), "error")]
    assert found[0][4] == "sglang_router.launch_router 0.1.6 (the image tag) has no --mini-lb; added in 0.2.2"


def test_pd_disaggregation_is_not_a_flag_of_router_0_0_11(tmp_path):
    """0.0.11's launch_router has no PD mode (--pd-disaggregation, --prefill, --decode from 0.1.6)."""
    path, found = _corpus(tmp_path, PD, ("lmsysorg/sglang-router:v0.2.2", "lmsysorg/sglang-router:v0.0.11"))
    text = path.read_text()
    flagged = {f[4].split(" has no ", 1)[1].split(";")[0] for f in found if f[0] == "FLG001"}
    assert {"--pd-disaggregation", "--prefill", "--decode", "--log-level"} <= flagged
    pd = next(f for f in found if "has no --pd-disaggregation" in f[4])
    assert pd[1:4] == (*position(text, "--pd-disaggregation"), "error")
    assert pd[4] == "sglang_router.launch_router 0.0.11 (the image tag) has no --pd-disaggregation; added in 0.1.6"


def test_the_router_in_an_sglang_image_is_checked_across_router_releases_and_says_so(tmp_path):
    """053 runs launch_router in lmsysorg/sglang:v0.5.5: a tag of SGLang's, and no source states
    which router release that image bundles; a flag of no router release is an error naming that."""
    _, found = _corpus(tmp_path, MOONCAKE)
    assert found == []
    path, found = _corpus(tmp_path, MOONCAKE, ("- --pd-disaggregation\n                - --prefill",
                                               "- --pd-disagregation\n                - --prefill"))
    assert [f[:4] for f in found] == [("FLG001", *position(path.read_text(), "--pd-disagregation"), "error")]
    assert found[0][4] == (
        "sglang_router.launch_router has no flag --pd-disagregation: did you mean --pd-disaggregation? (in no "
        "sglang-router release cfglint holds, 0.0.11-0.3.2: the image lmsysorg/sglang:v0.5.5 names SGLang 0.5.5; "
        "which sglang-router release that bundles, no source cfglint holds states)")


def test_a_flag_of_router_0_0_11_only_is_a_warning_when_the_router_release_is_not_known(tmp_path):
    """--verbose (0.0.11 only; --log-level from 0.1.6): in the SGLang image the newest router
    release is assumed, which lacks it (a warning naming its releases and why); at the
    aibrix/sglang-router:v0.1.6 image (016, 055's) the release that runs lacks it: an error."""
    change = ("- --pd-disaggregation\n                - --prefill",
              "- --verbose\n                - --pd-disaggregation\n                - --prefill")
    path, found = _corpus(tmp_path, MOONCAKE, change)
    assert [f[:4] for f in found] == [("FLG001", *position(path.read_text(), "--verbose"), "warning")]
    assert found[0][4] == ("--verbose is a sglang_router.launch_router flag of 0.0.11 (removed in 0.1.6): the image "
                           "lmsysorg/sglang:v0.5.5 names SGLang 0.5.5; which sglang-router release that bundles, no "
                           "source cfglint holds states, and the newest release, 0.3.2, does not have it")
    router = "                - python3\n                - -m\n                - sglang_router.launch_router"
    path, found = _corpus(tmp_path, MOONCAKE, change, (f"image: lmsysorg/sglang:v0.5.5\n              command:\n{router}",
                                                       f"image: aibrix/sglang-router:v0.1.6\n              command:\n{router}"))
    assert [f[:4] for f in found] == [("FLG001", *position(path.read_text(), "--verbose"), "error")]
    assert found[0][4] == ("sglang_router.launch_router 0.1.6 (the image tag) has no --verbose; removed in 0.1.6 "
                           "(it was in 0.0.11)")


def test_an_abbreviation_argparse_takes_is_no_finding(tmp_path):
    """--eviction-interval, 0.0.11..0.1.9's flag, is in 0.3.2 (assumed in the SGLang image) a
    unique prefix of --eviction-interval-secs, which argparse (allow_abbrev, as RouterArgs' parser
    is built) accepts: no finding, as for a misspelling that is no prefix (--eviction-intervall)."""
    change = ("- --pd-disaggregation\n                - --prefill",
              "- --eviction-interval\n                - \"60\"\n                - --pd-disaggregation\n                - --prefill")
    _, found = _corpus(tmp_path, MOONCAKE, change)
    assert found == []
    path, found = _corpus(tmp_path, MOONCAKE, (change[0], change[1].replace("--eviction-interval", "--eviction-intervall")))
    assert [f[:4] for f in found] == [("FLG001", *position(path.read_text(), "--eviction-intervall"), "error")]


def _launch_server(tmp_path: Path, router_flags: str) -> Path:
    d = copy_submission(KIMI_B300, tmp_path)
    replace_once(d / "run.sh", B300_PREFIX, f"python3 -m sglang_router.launch_server {router_flags} \\\n ")
    return d


def test_launch_server_router_flags_are_the_router_s(tmp_path):
    """sglang_router.launch_server: RouterArgs.add_cli_args(use_router_prefix=True) beside SGLang's
    flags: --router-policy cache_aware is accepted; --router-polcy is the router's slip, named so."""
    assert only(lint(_launch_server(tmp_path / "a", "--router-policy cache_aware")), "FLG001") == []
    found = only(lint(_launch_server(tmp_path / "b", "--router-polcy cache_aware")), "FLG001")
    run = (tmp_path / "b" / KIMI_B300 / "run.sh").read_text()
    assert len(found) == 1 and found[0][2:4] == position(run, "--router-polcy")
    assert found[0][4].startswith("SGLang / sglang_router.launch_server has no flag --router-polcy: "
                                  "did you mean --router-policy?")
    found = only(lint(_launch_server(tmp_path / "c", "--router-policy cach_aware")), "FLG002")
    assert len(found) == 1 and "'cach_aware' is not one of random, round_robin, cache_aware" in found[0][4]


def test_the_compiled_router_data_per_release():
    """rules/releases/sglang-router.yaml at two releases: --pd-disaggregation from 0.1.6,
    --assignment-mode in 0.3.2 only, --policy's power_of_two from 0.1.6."""
    kb = knowledge()
    old, new = kb.registry("sglang-router", "0.0.11"), kb.registry("sglang-router", "0.3.2")
    assert old.find("--pd-disaggregation") is None and new.find("--pd-disaggregation") == "--pd-disaggregation"
    assert kb.registry("sglang-router", "0.2.4").find("--assignment-mode") is None
    assert new.find("--assignment-mode") == "--assignment-mode"
    assert old.flags["--policy"]["choices"] == ["random", "round_robin", "cache_aware"]
    assert "power_of_two" in kb.registry("sglang-router", "0.1.6").flags["--policy"]["choices"]
    assert new.flags["--pd-disaggregation"]["source"] == "sglang_router/router_args.py"
    assert kb.registry("sglang-router.launch_server", "0.3.2").find("--router-policy") == "--router-policy"
