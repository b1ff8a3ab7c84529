"""Shipped files cite only what a user can read: no issue number of this project, no design
note, no seed document (the published pages cfglint was built from are cited by their public
address, and the passages used are kept in docs/sources.md)."""

from __future__ import annotations

import re

import pytest

from support import ROOT

# what a package user does not have: this project's issues ("issue 8", "Issue 3"; a public
# engine issue is cited by its URL, .../issues/50708), its design note, the seed documents
# (by directory, by name "seed 003" / "the seed pages", by file name 003_02e00e1b93470d41.txt)
PRIVATE = {
    "issue number": re.compile(r"\bissues?\s*#?\s*\d+", re.I),
    "design note": re.compile(r"DESIGN"),
    "seeds directory": re.compile(r"seeds?/", re.I),
    "seed document": re.compile(r"(?<![-\w.])seeds?(?![-\w])", re.I),   # not --seed, seed_oss, Seed-OSS, Config.seed
    "seed file name": re.compile(r"\b\d{3}_[0-9a-f]{16}\b"),
}


def shipped() -> list:
    files = [*ROOT.glob("rules/**/*.yaml"), *ROOT.glob("schemas/*"), *ROOT.glob("src/**/*.py"),
             *ROOT.glob("docs/rules/*.md"), ROOT / "docs" / "sources.md"]
    return sorted(p for p in files if p.is_file())


@pytest.mark.parametrize("text,kind", [
    ("seeds 000/001 'B300 x8'", "seed document"), ("the seed pages state", "seed document"),
    ("(seed 003_02e00e1b93470d41.txt)", "seed file name"), ("(shared/seeds/000_*.txt)", "seeds directory"),
    ("DESIGN.md, 'What a submission is'", "design note"), ("added 2026-12-01 (issue 8)", "issue number"),
    ("Issue 3 extends this", "issue number"), ("vllm-project/vllm issue #50708", "issue number"),
])
def test_the_patterns_catch_each_kind(text, kind):
    assert PRIVATE[kind].search(text)


@pytest.mark.parametrize("text", ["--seed:", "--random-seed:", "seed_oss: {families: [seed-oss]}",
                                  "https://github.com/vllm-project/vllm/issues/50708", "Seed-OSS-36B",
                                  "field: ModelConfig.seed"])
def test_the_patterns_leave_flag_names_and_public_issue_urls(text):
    assert not any(p.search(text) for p in PRIVATE.values())


def test_no_shipped_file_cites_a_document_users_lack():
    files = shipped()
    assert len(files) > 60 and ROOT / "rules" / "models.yaml" in files and ROOT / "docs" / "rules" / "RED001.md" in files
    found = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for kind, pattern in PRIVATE.items():
                m = pattern.search(line)
                if m:
                    found.append(f"{path.relative_to(ROOT)}:{n}: {kind}: {m.group(0)!r}")
    assert found == []


def test_every_pointer_to_docs_sources_lands_on_a_kept_passage():
    """A file that cites docs/sources.md is listed there as citing it, so the passage it relies on is kept."""
    sources = (ROOT / "docs" / "sources.md").read_text(encoding="utf-8")
    assert "https://artificialanalysis.ai/benchmarks/hardware/configs" in sources
    citing = [p for p in shipped() if p.parent != ROOT / "docs" / "rules" and p.name != "sources.md"
              and "docs/sources.md" in p.read_text(encoding="utf-8")]
    assert len(citing) >= 6
    for path in citing:
        assert f"`{path.relative_to(ROOT).as_posix()}`" in sources, path
