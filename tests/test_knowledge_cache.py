"""The knowledge cache (cfglint.knowledge.kbcache): a hit answers exactly as a fresh parse of the YAML, any
edit of a knowledge file or another --knowledge file is a miss, a corrupt, foreign or
group-writable cache is never used, and the bundled examples give the golden findings with a
cold and with a warm cache. Also the memo of data that passed a JSON Schema (validation.validate)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cfglint.knowledge as K
from cfglint.knowledge import bundled as B
from cfglint.knowledge import userfile as U
from cfglint.knowledge import kbcache
from cfglint.schema import validation

from support import EXAMPLES, ROOT, copy_submission, lint, only, replace_once

SUB = "recipes/vllm-gpt-oss-120b-b200-tp1-config"


def _forget() -> None:
    """Drop every in-process memo, so the next Knowledge reads the cache directory (or YAML)."""
    K.knowledge.cache_clear()
    B.bundle.cache_clear()
    U._bundled_kinds.cache_clear()
    validation._passed_memo.clear()
    validation._usable_memo.clear()
    validation._passed_key.cache_clear()
    validation._added = 0


@pytest.fixture
def cache(tmp_path, monkeypatch):
    where = tmp_path / "cache"
    monkeypatch.setenv("CFGLINT_CACHE_DIR", str(where))
    monkeypatch.delenv("CFGLINT_NO_CACHE", raising=False)
    monkeypatch.setattr(kbcache, "_disabled", False)
    _forget()
    yield where
    _forget()


def _entries(where: Path) -> list[Path]:
    return sorted(where.glob("kb-*.json")) if where.is_dir() else []


class _Parses:
    """Counts YAML parses of knowledge files (knowledge.bundled.parse_data)."""

    def __init__(self, monkeypatch):
        self.count = 0
        real = B.parse_data

        def counted(raw):
            self.count += 1
            return real(raw)

        monkeypatch.setattr(B, "parse_data", counted)


def _facts(kb) -> dict:
    """Real answers of a knowledge base: a model, an accelerator, flag lookups, parsers, secrets."""
    vllm = kb.flag_registries["vllm"]
    sglang = kb.flag_registries["sglang"]
    return {
        "model": kb.model("openai/gpt-oss-120b"),
        "mirror": kb.model("nvidia/DeepSeek-R1-FP4"),
        "accelerator": kb.accelerator("B200"),
        "accelerators": kb.accelerator_names(),
        "vllm tp": vllm.find("--tensor-parallel-size"),
        "vllm -tp": vllm.find("-tp"),
        "vllm json": vllm.find("--speculative-config.num_speculative_tokens"),
        "sglang abbrev": sglang.find("--tp"),
        "registries": {n: (r.primary, r.removed, r.did_you_mean, r.versions, sorted(r.no_value_options))
                       for n, r in kb.flag_registries.items()},
        "parsers": kb.parser_registry("sglang", "reasoning"),
        "engines": kb.engines, "kernels": kb.kernels, "paths": kb.paths, "secrets": kb.secrets,
        "configs": kb.model_configs,
    }


def test_a_hit_answers_as_a_fresh_parse_and_parses_no_yaml(cache, monkeypatch):
    parses = _Parses(monkeypatch)
    cold = _facts(K.knowledge())
    assert parses.count >= 14 and len(_entries(cache)) == 1   # every bundled file parsed, stored once
    assert cold["model"]["id"] == "openai/gpt-oss-120b" and cold["accelerator"]["name"] == "B200"
    assert cold["vllm tp"] == "--tensor-parallel-size" and cold["vllm -tp"] == "--tensor-parallel-size"
    _forget()
    parses.count = 0
    warm = _facts(K.knowledge())
    assert parses.count == 0                                   # a hit: no YAML composed
    monkeypatch.setenv("CFGLINT_NO_CACHE", "1")
    _forget()
    fresh = _facts(K.knowledge())
    assert parses.count == 18                                  # no cache: each file used parsed again (sglang-router.yaml too)
    assert warm == cold == fresh
    # an entry is private: 0600 in a 0700 directory
    assert (os.stat(_entries(cache)[0]).st_mode & 0o777) == 0o600 and (os.stat(cache).st_mode & 0o777) == 0o700


def test_editing_a_bundled_file_is_a_miss(cache, tmp_path, monkeypatch):
    rules = tmp_path / "rules"
    shutil.copytree(K.data_dir("rules"), rules)
    real_dir = K.data_dir
    monkeypatch.setattr(B, "data_dir", lambda name: rules if name == "rules" else real_dir(name))
    assert K.knowledge().accelerator("B200")["per_node"] == 8
    assert len(_entries(cache)) == 1
    replace_once(rules / "accelerators.yaml", '["B200 SXM", ', '["Blackwell-Test-Alias", "B200 SXM", ')
    _forget()
    parses = _Parses(monkeypatch)
    kb = K.knowledge()
    assert kb.accelerator("Blackwell-Test-Alias") is not None and kb.accelerator("Blackwell-Test-Alias")["name"] == "B200"
    assert parses.count >= 14 and len(_entries(cache)) == 2    # another key: parsed and stored anew


def test_another_or_edited_knowledge_file_is_a_miss(cache, tmp_path, monkeypatch):
    user = tmp_path / "mine.yaml"
    user.write_text("accelerators:\n  Test-X1:\n    vendor: nvidia\n    arch: blackwell\n    per_node: 4\n"
                    "    source: https://example.invalid/x1\n", encoding="utf-8")
    assert K.knowledge((str(user),)).accelerator("Test-X1")["per_node"] == 4
    _forget()
    parses = _Parses(monkeypatch)
    assert K.knowledge((str(user),)).accelerator("Test-X1")["per_node"] == 4
    assert parses.count == 0                                   # bundled and the user file: hits
    user.write_text(user.read_text(encoding="utf-8").replace("per_node: 4", "per_node: 2"), encoding="utf-8")
    _forget()
    assert K.knowledge((str(user),)).accelerator("Test-X1")["per_node"] == 2
    assert parses.count == 1                                   # only the edited file parsed again
    assert K.knowledge().accelerator("Test-X1") is None        # without --knowledge: not there
    # a user file that is wrong is still an error on a warm cache (only valid files are stored)
    user.write_text("accelerators:\n  Test-X1:\n    per_node: four\n", encoding="utf-8")
    _forget()
    with pytest.raises(K.KnowledgeError, match="per_node must be an integer"):
        K.knowledge((str(user),))


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "other key", "empty"])
def test_a_corrupt_entry_is_a_miss_and_is_rewritten(cache, monkeypatch, damage):
    cold = _facts(K.knowledge())
    entry = _entries(cache)[0]
    data = entry.read_bytes()
    head, _, body = data.partition(b"\n")
    if damage == "truncate":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "flip":   # same length, one byte of the body changed: the checksum catches it
        i = body.index(b'"B200"')
        entry.write_bytes(head + b"\n" + body[:i] + b'"B300"' + body[i + 6:])
    elif damage == "garbage":
        entry.write_bytes(os.urandom(4096))
    elif damage == "other key":  # a well-formed entry of another key under this name
        header = json.loads(head)
        header["key"] = "0" * 64
        entry.write_bytes(json.dumps(header).encode() + b"\n" + body)
    else:
        entry.write_bytes(b"")
    _forget()
    parses = _Parses(monkeypatch)
    assert _facts(K.knowledge()) == cold
    assert parses.count >= 14
    assert entry.read_bytes() == data                           # rewritten, whole
    _forget()
    parses.count = 0
    assert _facts(K.knowledge()) == cold and parses.count == 0


@pytest.mark.parametrize("unsafe", ["group-writable dir", "other-writable dir", "foreign dir",
                                    "group-writable entry", "foreign entry", "dir is a file"])
def test_a_cache_others_can_write_is_not_used(cache, monkeypatch, unsafe):
    K.knowledge().accelerator("B200")   # the bundled files are read on first use
    entry = _entries(cache)[0]
    me = os.geteuid()
    if unsafe == "group-writable dir":
        cache.chmod(0o770)
    elif unsafe == "other-writable dir":
        cache.chmod(0o707)
    elif unsafe == "foreign dir":
        monkeypatch.setattr(os, "geteuid", lambda: me + 1)
    elif unsafe == "group-writable entry":
        entry.chmod(0o620)
    elif unsafe == "foreign entry":
        if me != 0:
            pytest.skip("chown to another user needs root")
        os.chown(entry, 4242, -1)
    else:
        monkeypatch.setenv("CFGLINT_CACHE_DIR", str(entry / "sub"))
    _forget()
    parses = _Parses(monkeypatch)
    kb = K.knowledge()
    assert kb.accelerator("B200")["name"] == "B200"
    assert parses.count >= 1                                    # parsed: the entry was not read
    if unsafe.endswith("dir"):
        assert kbcache.directory() is None


def test_no_home_or_no_cache_means_no_cache(tmp_path):
    """A missing home, a read-only place, --no-cache and CFGLINT_NO_CACHE=1: the same report, nothing written."""
    base = {k: v for k, v in os.environ.items() if k not in ("CFGLINT_CACHE_DIR", "XDG_CACHE_HOME", "HOME")}
    cfglint = Path(sys.executable).parent / "cfglint"
    target = str(EXAMPLES / SUB)
    runs = {}
    (tmp_path / "file").write_text("x", encoding="utf-8")
    for label, env, args in [
            ("no home", {"HOME": str(tmp_path / "file" / "home")}, []),   # cannot exist: under a file
            ("unwritable", {"CFGLINT_CACHE_DIR": str(tmp_path / "file" / "cache")}, []),
            ("--no-cache", {"CFGLINT_CACHE_DIR": str(tmp_path / "c1")}, ["--no-cache"]),
            ("env", {"CFGLINT_CACHE_DIR": str(tmp_path / "c2"), "CFGLINT_NO_CACHE": "1"}, []),
            ("cached", {"CFGLINT_CACHE_DIR": str(tmp_path / "c3")}, [])]:
        proc = subprocess.run([str(cfglint), "check", "-f", "json", *args, target], env=dict(base, **env),
                              capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert "Traceback" not in proc.stderr, proc.stderr
        runs[label] = (proc.returncode, proc.stdout)
    assert len(set(runs.values())) == 1
    assert not (tmp_path / "c1").exists() and not (tmp_path / "c2").exists()
    assert _entries(tmp_path / "c3")


def test_the_golden_findings_with_a_cold_and_a_warm_cache(cache):
    from test_golden import test_examples_report_exactly_the_golden_findings as golden

    from cfglint.lint import lint_paths

    reports = []
    for _ in ("cold", "warm"):
        _forget()
        golden()
        reports.append([(f.rule_id, f.span, f.message, f.level) for f in lint_paths([str(EXAMPLES / SUB)]).findings])
    assert reports[0] == reports[1] and _entries(cache)


def test_a_memoized_manifest_skips_jsonschema_and_a_changed_one_is_validated(cache, tmp_path):
    """A manifest that passed the schema is not validated again (no validator is even imported:
    the fast check, jsonschema-rs, passed it; jsonschema only runs on a manifest it does not pass);
    any change to it is validated, and its errors are reported as without the memo."""
    sub = copy_submission(SUB, tmp_path)
    script = ("import sys; from cfglint.lint import lint_paths; "
              "r = lint_paths([sys.argv[1]]); "
              "print(sorted({f.rule_id for f in r.findings}), 'jsonschema' in sys.modules, 'jsonschema_rs' in sys.modules)")
    env = dict(os.environ, CFGLINT_CACHE_DIR=str(cache))

    def run():
        out = subprocess.run([sys.executable, "-c", script, str(sub)], env=env, capture_output=True, text=True,
                             timeout=120, cwd=ROOT)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    # (ENV001: the recipe's VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8, which vLLM 0.33.0 no longer reads: tests/golden)
    assert run() == "['COV001', 'ENV001'] False True"      # validated (the fast check), clean: remembered
    assert run() == "['COV001', 'ENV001'] False False"     # same data: no validation needed
    assert replace_once(sub / "submission.yaml", "schema_version: 1", "schema_version: 1\nsurprise: 1") == 1
    assert run() == "['COV001', 'ENV001', 'SUB001'] True True"
    _forget()
    found = only(lint(sub), "SUB001")
    assert len(found) == 1 and found[0][1:3] == ("submission.yaml", 2) and "'surprise'" in found[0][4]


def test_memo_digest_is_exact():
    """Data JSON cannot hold exactly (a date, an integer key) is never memoized; bool is not int."""
    import datetime

    assert validation._digest({"a": 1}) != validation._digest({"a": True})
    assert validation._digest({"a": 1}) != validation._digest({"a": 1.0})
    assert validation._digest({"a": datetime.date(2025, 1, 1)}) is None
    assert validation._digest({1: "a"}) is None
    assert kbcache.encode({"a": [1, "x", None, 2.5, {"b": False}]}) is not None


# --- where the cache may live (a forged entry must never be read) -------------------------------

def _warm(cache) -> Path:
    """A real entry of the bundled knowledge, written by cfglint (mode 0600 in a 0700 directory)."""
    assert K.knowledge().accelerator("B200")["name"] == "B200"
    (entry,) = _entries(cache)
    _forget()
    return entry


def test_an_entry_git_could_have_checked_out_is_not_read(cache, monkeypatch):
    """A committed file is checked out 0644 (or 0755) and owned by the CI user: an entry of that
    mode, or in a directory of mode 0755, is never read (cfglint writes 0600 in 0700)."""
    entry = _warm(cache)
    for dir_mode, entry_mode in [(0o700, 0o644), (0o700, 0o640), (0o700, 0o400), (0o755, 0o600), (0o750, 0o600)]:
        cache.chmod(dir_mode)
        entry.chmod(entry_mode)
        parses = _Parses(monkeypatch)
        assert K.knowledge().accelerator("B200")["name"] == "B200"
        assert parses.count >= 1, (oct(dir_mode), oct(entry_mode))   # parsed: the entry was not read
        assert (kbcache.directory() is None) == (dir_mode != 0o700)
        _forget()
    cache.chmod(0o700)
    entry.chmod(0o600)
    parses = _Parses(monkeypatch)
    assert K.knowledge().accelerator("B200")["name"] == "B200"
    assert parses.count == 0                                           # the control: a hit


def test_a_cache_inside_a_git_working_tree_is_not_used(tmp_path, monkeypatch):
    """GitLab's XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache (or HOME = the workspace): a contributor could
    commit a forged kb-<key>.json with the secret patterns emptied. The cache of a directory inside
    a git working tree is never used, even with the modes cfglint writes."""
    repo = tmp_path / "project"
    (repo / ".git").mkdir(parents=True)
    where = repo / ".cache" / "cfglint"
    where.mkdir(parents=True, mode=0o700)
    where.chmod(0o700)
    monkeypatch.delenv("CFGLINT_NO_CACHE", raising=False)
    monkeypatch.setattr(kbcache, "_disabled", False)
    _forget()
    try:
        # the forged entry: the real one with rules/secrets.yaml read as empty
        monkeypatch.setenv("CFGLINT_CACHE_DIR", str(tmp_path / "honest"))
        kb = K.knowledge()
        assert kb.secrets
        k = kb.__dict__.get("key") or B.current().key
        real = kbcache.read(k)
        assert real is not None
        forged = dict(real)
        for name in forged:
            if "secrets" in name:
                forged[name] = b"{}"
        _forget()
        for label, env in [("CFGLINT_CACHE_DIR", {"CFGLINT_CACHE_DIR": str(where)}),
                           ("XDG_CACHE_HOME", {"XDG_CACHE_HOME": str(repo / ".cache")}),
                           ("HOME", {"HOME": str(repo)})]:
            for var in ("CFGLINT_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
                monkeypatch.delenv(var, raising=False)
            for var, value in env.items():
                monkeypatch.setenv(var, value)
            body = b"".join(forged.values())
            index, at = {}, 0
            for name, text in forged.items():
                index[name] = [at, at + len(text)]
                at += len(text)
            import hashlib
            header = json.dumps({"format": kbcache.FORMAT, "key": k, "sha256": hashlib.sha256(body).hexdigest(),
                                 "index": index}, separators=(",", ":")).encode()
            path = where / f"{kbcache.PREFIX}{k[:40]}{kbcache.SUFFIX}"
            path.write_bytes(header + b"\n" + body)
            path.chmod(0o600)
            assert kbcache.directory() is None, label
            assert kbcache.read(k) is None, label
            assert K.knowledge().secrets == kb.secrets, label
            _forget()
    finally:
        _forget()


def test_a_symlinked_cache_directory_is_not_used(tmp_path, monkeypatch):
    """A cache directory that is a symbolic link is not followed: nothing is written or removed
    in its target."""
    target = tmp_path / "target"
    target.mkdir(mode=0o700)
    target.chmod(0o700)
    keep = [target / f"{kbcache.PREFIX}{i:040x}{kbcache.SUFFIX}" for i in range(kbcache.MAX_ENTRIES + 2)]
    for i, path in enumerate(keep):
        path.write_text("{}\n", encoding="utf-8")
        path.chmod(0o600)
        os.utime(path, ns=(i, i))
    link = tmp_path / "link"
    link.symlink_to(target)
    monkeypatch.setenv("CFGLINT_CACHE_DIR", str(link))
    monkeypatch.delenv("CFGLINT_NO_CACHE", raising=False)
    monkeypatch.setattr(kbcache, "_disabled", False)
    _forget()
    try:
        assert kbcache.directory() is None
        assert K.knowledge().accelerator("B200")["name"] == "B200"
        assert sorted(target.iterdir()) == sorted(keep)
    finally:
        _forget()


@pytest.mark.parametrize("where", ["HOME", "XDG_CACHE_HOME", "CFGLINT_CACHE_DIR"])
def test_only_the_last_levels_are_created(tmp_path, monkeypatch, where):
    """A missing home (HOME=/nonexistent/ro), XDG base or parent of CFGLINT_CACHE_DIR is not
    created: no cache. An existing one gets only the cache levels (~/.cache/cfglint)."""
    for var in ("CFGLINT_CACHE_DIR", "XDG_CACHE_HOME", "HOME", "CFGLINT_NO_CACHE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(kbcache, "_disabled", False)
    value = {"HOME": tmp_path / "nonexistent" / "ro", "XDG_CACHE_HOME": tmp_path / "nonexistent" / "xdg",
             "CFGLINT_CACHE_DIR": tmp_path / "nonexistent" / "dir" / "cfglint"}[where]
    monkeypatch.setenv(where, str(value))
    assert kbcache.directory() is None
    assert not (tmp_path / "nonexistent").exists()
    value.parent.mkdir(parents=True)
    if where != "CFGLINT_CACHE_DIR":
        value.mkdir()
    made = {"HOME": value / ".cache" / "cfglint", "XDG_CACHE_HOME": value / "cfglint", "CFGLINT_CACHE_DIR": value}[where]
    assert kbcache.directory() == str(made)
    assert (made.stat().st_mode & 0o777) == 0o700


def test_the_key_changes_with_cfglint_s_source(tmp_path):
    """Every commit of cfglint is version 0.1.0: a change of the modules that decide what an entry
    holds (kbcache.SOURCES) gives other keys, so old entries are not read."""
    pkg = tmp_path / "cfglint"
    shutil.copytree(ROOT / "src" / "cfglint", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    script = "from cfglint.knowledge import kbcache; print(kbcache.key('bundled', 'x'))"

    def key() -> str:
        env = dict(os.environ, PYTHONPATH=str(tmp_path))
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                             timeout=60, cwd=str(tmp_path))
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    first = key()
    assert key() == first                                       # stable for the same source
    keys = {first}
    for module in kbcache.SOURCES:
        with open(pkg / module, "a", encoding="utf-8") as fh:
            fh.write("\n# another commit\n")
        keys.add(key())
    assert len(keys) == len(kbcache.SOURCES) + 1 == 6


def test_the_schema_memo_never_encodes_an_expanded_alias_tree(tmp_path, monkeypatch):
    """54 KB of manifest can stand for 75 MB of JSON (2,100 aliases of a 9,000-emoji string):
    the memo's digest is computed only for small data, and not at all without a cache."""
    sub = copy_submission(SUB, tmp_path)
    big = "\U0001F600" * 9000
    manifest = sub / "submission.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + f'notes:\n  a: &A "{big}"\n  list: ['
                        + ", ".join(["*A"] * 2100) + "]\n", encoding="utf-8")
    sizes: list[int] = []
    real = kbcache.encode

    def recording(data):
        text = real(data)
        sizes.append(len(text) if text is not None else -1)
        return text

    monkeypatch.setattr(kbcache, "encode", recording)
    monkeypatch.setenv("CFGLINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CFGLINT_NO_CACHE", raising=False)
    for disabled in (False, True):
        monkeypatch.setattr(kbcache, "_disabled", disabled)
        _forget()
        sizes.clear()
        found = only(lint(sub), "SUB001")
        assert any("'notes'" in f[4] for f in found)
        assert all(s < 1 << 20 for s in sizes), sizes            # never the expanded tree
    _forget()
    # the control: a small manifest is still memoized when the cache is on
    monkeypatch.setattr(kbcache, "_disabled", False)
    small = copy_submission(SUB, tmp_path / "small")
    sizes.clear()
    lint(small)
    assert sizes and validation._digest({"a": 1}) is not None
    sizes.clear()
    monkeypatch.setattr(kbcache, "_disabled", True)
    _forget()
    lint(small)
    assert sizes == []                                           # cache off: no digest at all
    _forget()


@pytest.mark.parametrize("value,on", [("", True), ("0", True), ("false", True), ("No", True),
                                      ("1", False), ("yes", False), ("true", False)])
def test_cfglint_no_cache_values(monkeypatch, value, on):
    """CFGLINT_NO_CACHE=false keeps the cache on, as CI=false is a quick test run."""
    monkeypatch.setenv("CFGLINT_NO_CACHE", value)
    assert kbcache.enabled() is on


def test_without_a_cache_one_knowledge_set_does_not_change_another(monkeypatch):
    """Knowledge adds the user's entries and settings to the data it loads; without a cache that
    data came from one parse shared by every Knowledge in the process, so private-ranges and a
    --knowledge file's host paths of one run leaked into the next."""
    monkeypatch.setenv("CFGLINT_NO_CACHE", "1")
    _forget()
    try:
        plain = K.knowledge().secrets["addresses"]["private"]
        _forget()
        assert K.knowledge(private_ranges=("192.0.2.0/24",)).secrets["addresses"]["private"] == ["192.0.2.0/24"]
        assert K.knowledge().secrets["addresses"]["private"] == plain != ["192.0.2.0/24"]
    finally:
        _forget()


# -- the digests' index (kbcache.digests): unchanged files are not read again, changed ones are

def _files(tmp_path: Path) -> dict[str, str]:
    d = tmp_path / "rules"
    d.mkdir(exist_ok=True)
    for name, text in (("a.yaml", "a: 1\n"), ("b.yaml", "b: [1, 2]\n")):
        (d / name).write_text(text)
    return {name: str(d / name) for name in ("a.yaml", "b.yaml")}


def _old(files: dict[str, str], seconds: int = 10) -> None:
    """Backdate the files, as a checkout some time ago leaves them (their change time stays)."""
    import time

    t = time.time_ns() - seconds * 1_000_000_000
    for path in files.values():
        os.utime(path, ns=(t, t))


def _reads(monkeypatch) -> list[str]:
    """The knowledge files kbcache reads from now on (its own entries left out)."""
    seen: list[str] = []
    real = kbcache.read_bytes

    def counted(path, *a, **kw):
        if not os.path.basename(path).startswith((kbcache.PREFIX, kbcache.INDEX_PREFIX)):
            seen.append(path)
        return real(path, *a, **kw)

    monkeypatch.setattr(kbcache, "read_bytes", counted)
    return seen


def test_an_unchanged_file_takes_the_indexed_digest_without_being_read(cache, tmp_path, monkeypatch):
    import hashlib

    files = _files(tmp_path)
    _old(files)
    monkeypatch.setattr(kbcache, "RACY_NS", 0)   # the files' change time is now: trust it at once
    seen = _reads(monkeypatch)
    first = kbcache.digests(files)
    assert first == {n: hashlib.sha256(Path(p).read_bytes()).hexdigest() for n, p in files.items()}
    assert sorted(seen) == sorted(files.values())   # read once, to hash them
    seen.clear()
    assert kbcache.digests(files) == first and seen == []   # the second time from the index
    assert len(sorted(cache.glob(f"{kbcache.INDEX_PREFIX}*.json"))) == 1


def test_a_file_changed_in_place_is_hashed_again_even_with_its_old_size_and_time(cache, tmp_path, monkeypatch):
    files = _files(tmp_path)
    _old(files)
    monkeypatch.setattr(kbcache, "RACY_NS", 0)
    first = kbcache.digests(files)
    st = os.stat(files["a.yaml"])
    Path(files["a.yaml"]).write_text("a: 2\n")                      # same size
    os.utime(files["a.yaml"], ns=(st.st_atime_ns, st.st_mtime_ns))   # same modification time
    seen = _reads(monkeypatch)
    second = kbcache.digests(files)
    assert second["a.yaml"] != first["a.yaml"] and second["b.yaml"] == first["b.yaml"]
    assert files["a.yaml"] in seen   # its change time differs: read


def test_a_file_changed_just_before_the_index_was_written_is_read_again(cache, tmp_path, monkeypatch):
    files = _files(tmp_path)    # written now: within RACY_NS of the index
    kbcache.digests(files)
    seen = _reads(monkeypatch)
    kbcache.digests(files)
    assert sorted(seen) == sorted(files.values())


def test_the_bundled_knowledge_is_keyed_by_the_same_digests_with_and_without_the_index(cache, monkeypatch):
    import hashlib

    rules = K.data_dir("rules")
    bundled = B._Bundled(rules)
    expect = kbcache.key("bundled", [[name, hashlib.sha256(Path(path).read_bytes()).hexdigest()]
                                     for name, path in bundled.paths.items()])
    assert bundled.key == expect
    _forget()
    assert B._Bundled(rules).key == expect   # second time (index written): the same key
