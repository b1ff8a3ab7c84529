"""`cfglint flags ENGINE [--has FLAG]`: which releases cfglint holds, and which accept a flag with
what choices, from the compiled release data (rules/releases/*.yaml)."""

from __future__ import annotations

import re

from click.testing import CliRunner

from cfglint.cli import main
from cfglint.knowledge import knowledge


def _flags(*args: str):
    return CliRunner().invoke(main, ["flags", *args])


def test_the_choices_are_given_per_release_where_the_releases_differ():
    # a user was told to use --moe-runner-backend marlin on SGLang 0.5.9; one line of merged
    # choices showed marlin as if every release had it. The releases' own choices tell.
    out = _flags("sglang", "--has", "moe-runner-backend")
    assert out.exit_code == 0
    groups = dict(re.findall(r"^    (\S+): (.+)$", out.stdout, re.M))
    assert "choices by release:" in out.stdout and len(groups) > 1
    kb = knowledge()

    def choices(release: str) -> list:
        reg = kb.registry("sglang", release)
        name = reg.find("--moe-runner-backend") if reg is not None else None
        return list((reg.flags.get(name) or {}).get("choices") or []) if name else []

    for span, shown in groups.items():
        assert shown.split(", ") == choices(span.split("..")[0]), span
    assert "marlin" not in choices("0.5.9") and "marlin" in choices("0.5.12.post1")
    (nine,) = [shown for span, shown in groups.items() if "0.5.9" in span or span == "0.5.9"]
    assert "marlin" not in nine.split(", ")


def test_a_flag_whose_choices_never_change_has_one_line_and_an_unknown_flag_exits_1():
    out = _flags("vllm", "--has", "--tensor-parallel-size")
    assert out.exit_code == 0 and "choices by release" not in out.stdout and "aliases -tp" in out.stdout
    missing = _flags("vllm", "--has", "--tensor-paralel-size")
    assert missing.exit_code == 1 and "has --tensor-paralel-size" in missing.stdout


def test_choices_checked_against_a_parser_registry_are_said_in_words():
    # vLLM's --tool-call-parser choices are "dynamic" from 0.6.6.post1 (names of the parser registry,
    # checked after parsing): the word was printed letter by letter ("d, y, n, a, m, i, c")
    out = _flags("vllm", "--has", "--tool-call-parser").stdout
    assert "d, y, n" not in out and "the names of its parser registry" in out
    assert "0.6.2: mistral, hermes" in out        # the one release whose parser took a fixed list
    out = _flags("vllm", "--has", "--reasoning-parser").stdout
    assert "choices the names of its parser registry" in out and "d, y, n" not in out
