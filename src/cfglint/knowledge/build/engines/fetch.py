"""The inputs of a release: the pinned package files, downloaded with pip (or given as a local
archive or an already extracted directory), checked against rules/releases/inputs.yaml, and
the files the extractors read copied into a cache directory. Nothing of an engine is imported
or run.

Downloads: ``pip download --no-deps`` of the pinned file. An sdist is fetched with
``--no-binary :all: --no-build-isolation`` and :mod:`.pep517_stub` on ``PYTHONPATH`` as the
build backend (``setuptools.build_meta`` and the other common backend names): pip must prepare
an sdist's metadata before it saves it, and the stand-in answers that from the sdist's
``PKG-INFO`` instead of running the project's ``setup.py``. A wheel is fetched with
``--only-binary :all:`` and the platform tags of the pinned file name. The file's name, size and
sha256 must equal the pin; then only the members the extractor needs are extracted (regular
files, no path outside the destination) and the archive is deleted.

Cache layout (``$CFGLINT_BUILD_CACHE``, else ``~/.cache/cfglint-build``)::

    <cache>/<engine>/<version>/           vllm/, sglang/, dynamo/ (+ runtime_scan.json), tensorrt_llm/
    <cache>/sglang/router-<version>/      sglang_router/
    <cache>/records/<engine>/<name>.json  the records the ``engines`` target writes

A release directory that already holds its package directory is used as it is (extracted trees
made elsewhere can be placed or linked there); a ``.cfglint-input.json`` written by this module,
or the ``inputs.json`` / ``input.json`` of earlier extraction scripts, must then agree with the
pins.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from .pins import PACKAGES, Pin, Release

__all__ = ["cache_root", "release_dir", "ensure_release", "verify", "FetchError", "MARKER", "sha256_of", "tree_digest"]

MARKER = ".cfglint-input.json"
_STUB_BACKENDS = ("setuptools.build_meta", "hatchling.build", "flit_core.buildapi", "pdm.backend",
                  "poetry.core.masonry.api", "scikit_build_core.build", "maturin", "mesonpy", "wheel_stub.buildapi")


class FetchError(RuntimeError):
    """An input that cannot be had or does not match its pin."""


def cache_root() -> Path:
    env = os.environ.get("CFGLINT_BUILD_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "cfglint-build"


def release_dir(release: Release, cache: Path | None = None) -> Path:
    return (cache or cache_root()) / release.engine / release.directory


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tree_digest(root: Path) -> str:
    """sha256 over the sorted (path, sha256) of every file under ``root`` (links not followed)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            p = Path(dirpath, name)
            if p.is_file() and not p.is_symlink():
                h.update(f"{p.relative_to(root).as_posix()}\0{sha256_of(p)}\n".encode())
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# which members of an archive an extractor reads
# ---------------------------------------------------------------------------------------------

def _member_path(package: str, name: str) -> str | None:
    """The path (relative to the release directory) a member of ``package``'s archive is kept
    at, None for members the extractor does not read."""
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if not parts or ".." in parts or name.startswith("/"):
        return None
    if package == "vllm":
        if parts[0].startswith("vllm-") and not parts[0].endswith(".dist-info") and len(parts) > 1:
            parts = parts[1:]      # sdist: vllm-<version>/...
        if parts == ["PKG-INFO"] or (len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] == "METADATA"):
            return "PKG-INFO"
        return "/".join(parts) if parts[0] == "vllm" and parts[-1].endswith(".py") else None
    if package == "vllm-ascend":
        return "/".join(parts) if parts[0] == "vllm_ascend" and parts[-1].endswith(".py") else None
    if package in ("sglang", "sglang-router"):
        top = "sglang" if package == "sglang" else "sglang_router"
        i = next((k for k, p in enumerate(parts) if p == top), None)
        if i is None or not parts[-1].endswith(".py"):
            return None
        parts = parts[i:]
        if top == "sglang_router":
            return "/".join(parts)
        if len(parts) == 2:
            return "/".join(parts)
        if parts[1] in ("srt", "cli"):
            return "/".join(parts) if "test" not in parts[2:-1] else None
        if parts[1] in ("kernels", "jit_kernel") and parts[-1] in ("consts.py", "__init__.py", "constants.py"):
            return "/".join(parts)
        return None
    if package in ("ai-dynamo", "ai-dynamo-runtime"):
        if name.endswith("entry_points.txt") and package == "ai-dynamo":
            return "/".join(parts)
        if parts[-1].endswith(".py") and "tests" not in parts[:-1]:
            return "/".join(parts)
        if package == "ai-dynamo-runtime" and parts[-1].endswith(".pyi"):
            return "/".join(parts)
        return None
    if package == "tensorrt-llm":
        if parts[0].startswith("tensorrt_llm-") and parts[0].endswith(".data") and parts[-1] == "trtllm-llmapi-launch":
            return "tensorrt_llm/llmapi/trtllm-llmapi-launch"
        if parts[0].startswith("tensorrt_llm-") and not parts[0].endswith(".data") and len(parts) > 1:
            parts = parts[1:]      # sdist: tensorrt_llm-<v>/tensorrt_llm/...
        if parts[0] == "tensorrt_llm" and (parts[-1].endswith(".py") or "/".join(parts) == "tensorrt_llm/llmapi/trtllm-llmapi-launch"):
            return "/".join(parts)
    return None


def _extract(archive: Path, package: str, dest: Path) -> int:
    n = 0
    dest.mkdir(parents=True, exist_ok=True)

    def write(rel, src):
        nonlocal n
        out = dest / rel
        if package == "ai-dynamo-runtime" and out.exists():
            return      # the ai-dynamo wheel's own file wins
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "wb") as fh:
            shutil.copyfileobj(src, fh)
        n += 1

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                rel = None if info.is_dir() else _member_path(package, info.filename)
                if rel:
                    with z.open(info) as src:
                        write(rel, src)
    else:
        with tarfile.open(archive) as t:
            for m in t:
                rel = _member_path(package, m.name) if m.isfile() else None
                if rel:
                    with t.extractfile(m) as src:
                        write(rel, src)
    return n


def _scan_runtime(archive: Path, dest: Path):
    """Dynamo's compiled runtime library: read its parser names (:mod:`.dynamo_runtime`) into
    ``runtime_scan.json``; the library itself is not kept."""
    from .dynamo import RUNTIME_SCAN_FILE
    from .dynamo_runtime import scan_library
    with zipfile.ZipFile(archive) as z:
        so = next((i for i in z.infolist() if i.filename.endswith(".so") and "_core" in i.filename), None)
        if so is None:
            raise FetchError(f"{archive.name}: no dynamo/_core library in the runtime wheel")
        with tempfile.NamedTemporaryFile(suffix=".so", dir=dest, delete=False) as tmp:
            with z.open(so) as src:
                shutil.copyfileobj(src, tmp, 1 << 20)
    try:
        scan = scan_library(tmp.name)
        scan["library"] = so.filename
    finally:
        os.unlink(tmp.name)
    (dest / RUNTIME_SCAN_FILE).write_text(json.dumps(scan, indent=1, sort_keys=True) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# downloading
# ---------------------------------------------------------------------------------------------

def _stub_path(tmp: Path) -> Path:
    """A directory holding :mod:`.pep517_stub` under every common build-backend module name."""
    stub = (Path(__file__).with_name("pep517_stub.py")).read_text(encoding="utf-8")
    root = tmp / "stub-backend"
    for dotted in _STUB_BACKENDS:
        parts = dotted.split(".")
        d = root.joinpath(*parts[:-1])
        d.mkdir(parents=True, exist_ok=True)
        for k in range(1, len(parts)):
            init = root.joinpath(*parts[:k], "__init__.py")
            if not init.exists():
                init.write_text("", encoding="utf-8")
        (d / f"{parts[-1]}.py").write_text(stub, encoding="utf-8")
    return root


def _wheel_platforms(filename: str) -> list[str]:
    tag = filename[:-4].split("-")[-1] if filename.endswith(".whl") else ""
    return [t for t in tag.split(".") if t and t != "any"]


def _pip_download(pin: Pin, tmp: Path) -> Path:
    dl = tmp / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q", "-d", str(dl)]
    env = dict(os.environ)
    if pin.kind == "sdist":
        cmd += ["--no-binary", ":all:", "--no-build-isolation"]
        env["PYTHONPATH"] = str(_stub_path(tmp)) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    else:
        cmd += ["--only-binary", ":all:"]
        for plat in _wheel_platforms(pin.file):
            cmd += ["--platform", plat]
    cmd.append(f"{pin.package}=={pin.version}")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    got = dl / pin.file
    if not got.is_file():
        files = sorted(p.name for p in dl.iterdir())
        raise FetchError(f"pip download {pin.package}=={pin.version} gave {files or 'nothing'}, not {pin.file}"
                         + (f": {r.stderr.strip()[-400:]}" if r.returncode else ""))
    return got


def verify(pin: Pin, path: Path):
    """Raises FetchError unless ``path`` is the pinned file (name, size, sha256)."""
    if path.name != pin.file:
        raise FetchError(f"{path.name}: expected the pinned file {pin.file}")
    size = path.stat().st_size
    if size != pin.bytes:
        raise FetchError(f"{pin.file}: {size} bytes, the pin says {pin.bytes}")
    digest = sha256_of(path)
    if digest != pin.sha256:
        raise FetchError(f"{pin.file}: sha256 {digest}, the pin says {pin.sha256}")


# ---------------------------------------------------------------------------------------------
# a release's source directory
# ---------------------------------------------------------------------------------------------

def _previous_records(d: Path, release: Release) -> list[dict]:
    """Input records a cached directory carries (this module's, or earlier scripts')."""
    out = []
    for name in (MARKER, "input.json", "inputs.json", "_input.json"):
        p = d / name
        if p.is_file():
            data = json.loads(p.read_text(encoding="utf-8"))
            out += data if isinstance(data, list) else (data.get("inputs", [data]) if name == MARKER else [data])
    shared = d.parent / "inputs.json"            # one file for every version (vLLM's research cache)
    if shared.is_file():
        data = json.loads(shared.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get(release.version), dict):
            out.append(data[release.version])
    return out


def _check_cached(d: Path, release: Release):
    for rec in _previous_records(d, release):
        name = rec.get("package") or rec.get("name")
        pin = next((p for p in release.pins if p.package == name), None)
        if pin is not None and rec.get("sha256") and (rec.get("sha256") != pin.sha256 or rec.get("file") != pin.file):
            raise FetchError(f"{d}: extracted from {rec.get('file')} (sha256 {rec.get('sha256')}), "
                             f"but the pin is {pin.file} (sha256 {pin.sha256}); remove the directory to re-fetch")


def _complete(d: Path, release: Release) -> bool:
    if not (d / PACKAGES[release.package].source_dir).is_dir():
        return False
    if release.engine == "dynamo" and any(p.package == "ai-dynamo-runtime" for p in release.pins):
        from .dynamo import RUNTIME_SCAN_FILE
        return (d / RUNTIME_SCAN_FILE).is_file()
    return True


def ensure_release(release: Release, cache: Path | None = None, local: Path | None = None,
                   download: bool = True) -> tuple[Path, list[dict]]:
    """(source directory, input records) of ``release``.

    ``local``: an archive (checked against the pin of its file name) or an extracted directory
    (used as it is; its tree digest is recorded). Otherwise the cache directory is used when it
    holds the release, else the pinned files are downloaded (``download``). Raises FetchError."""
    if release.unavailable:
        raise FetchError(f"{release.label}: {release.unavailable}")
    if local is not None:
        local = Path(local)
        if local.is_dir():
            return local, [{"package": release.package, "version": release.version, "kind": "directory",
                            "tree_sha256": tree_digest(local)}]
        pin = next((p for p in release.pins if p.file == local.name), None)
        if pin is None:
            raise FetchError(f"{local.name} is not a pinned file of {release.label}")
        verify(pin, local)
        d = Path(tempfile.mkdtemp(prefix="cfglint-src-"))
        _unpack(pin, local, d)
        return d, [pin.record()]
    d = release_dir(release, cache)
    if _complete(d, release):
        _check_cached(d, release)
        return d, [p.record() for p in release.pins]
    if not download:
        raise FetchError(f"{release.label}: not in the cache ({d}) and downloading is off")
    d.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cfglint-dl-", dir=d.parent) as tmp:
        for pin in release.pins:
            archive = _pip_download(pin, Path(tmp))
            verify(pin, archive)
            _unpack(pin, archive, d)
            archive.unlink()
    (d / MARKER).write_text(json.dumps({"inputs": [p.record() for p in release.pins]}, indent=1) + "\n",
                            encoding="utf-8")
    return d, [p.record() for p in release.pins]


def _unpack(pin: Pin, archive: Path, dest: Path):
    n = _extract(archive, pin.package, dest)
    if pin.package == "ai-dynamo-runtime":
        _scan_runtime(archive, dest)
    elif n == 0:
        raise FetchError(f"{pin.file}: none of the files the extractor reads is in the archive")

