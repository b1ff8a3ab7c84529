"""The knowledge cache: the parsed knowledge files (bundled ``rules/*.yaml``, ``rules/flags/*.yaml``
and the user's ``--knowledge`` files, validated) stored as JSON in the user's cache directory, so
that a run whose knowledge files are unchanged reads JSON instead of composing ~600 KB of YAML.

Where: ``$CFGLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/cfglint``, else ``~/.cache/cfglint`` (an
absolute path; a relative one, or no home, means no cache). Only the last levels are created (the
directory itself; under the home also ``.cache``): the place it is made in (the parent of
``$CFGLINT_CACHE_DIR``, ``$XDG_CACHE_HOME``, the home) must exist. With ``HOME`` unset, the home is
the one of the user's entry in the password database (``os.path.expanduser``), and it too must exist.
``CFGLINT_NO_CACHE=1`` (or ``cfglint check --no-cache``, which calls :func:`disable`) turns it off.

An entry is one file ``kb-<key>.json``: a header line (JSON: format, the full key, and per part its
byte range and CRC-32, checked when the part is first used) and the body (one JSON text per part). The key is a
SHA-256 of the cache format, cfglint's version, the source of the modules that decide what is
stored (:data:`SOURCES`, read once per process) and the content of every file the entry was built
from, so an edit of any file, another cfglint (even at the same version) or another
``--knowledge`` file gives another key. The content of the bundled files is known by its SHA-256,
which :func:`digests` takes from an index entry (``ix-<key>.json``: each file's stat and digest)
for a file whose stat is unchanged and was not changed within :data:`RACY_NS` of the index being
written (git's index rule), so a warm run neither reads nor hashes the ~900 KB of knowledge YAML.

Safety (README, threat model): the key depends only on public files, so anyone who can put a file
in the directory can forge an entry (e.g. secret patterns emptied). The directory is therefore only
used when it is not a symbolic link, is owned by the user with mode exactly 0700, and is not inside
a git working tree (no ancestor, of its path or of its resolved path, holds ``.git``: a contributor
could commit an entry to a cache kept in the checkout, such as GitLab's
``XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache``); an entry is only read when it is a regular file owned
by the user with mode exactly 0600 (cfglint writes 0600; git never checks out such a file).
Entries are JSON (loading one never runs code), written atomically with mode 0600, at most
:data:`MAX_ENTRY_BYTES` each and :data:`MAX_ENTRIES` in all (the oldest are removed). A missing,
foreign, corrupt or unreadable entry, or a directory that cannot be made (read-only or missing
home), is a miss: the files are parsed as without a cache. Only data that JSON gives back exactly
(same types, same keys; checked before writing) is stored.
"""

from __future__ import annotations

import json
import os
import stat
from functools import lru_cache
from collections.abc import Mapping
from typing import Any

from .. import __version__
from ..read.safeio import ReadError, atomic_write, git_top, read_bytes

FORMAT = 3                     # bump when the layout of an entry or of what is stored changes
MAX_ENTRY_BYTES = 16 << 20     # the bundled knowledge is ~2 MB as JSON
MAX_ENTRIES = 16               # entries kept in the directory; the oldest written are removed
PREFIX, SUFFIX = "kb-", ".json"
INDEX_PREFIX = "ix-"           # the digests' index entries (:func:`digests`), pruned apart from the data
# the modules deciding what an entry holds, relative to the cfglint package
SOURCES = ("knowledge/kbcache.py", "knowledge/bundled.py", "knowledge/userfile.py", "schema/validation.py",
           "schema/fastschema.py")



def _sha256_constructor():
    """hashlib.sha256's algorithm from CPython's own module (``_sha2`` from 3.12, ``_sha256``
    before), else hashlib's: importing hashlib loads OpenSSL's libcrypto, ~2% of a
    one-submission run, for digests that are the same (tests/test_knowledge_cache.py)."""
    for name in ("_sha2", "_sha256"):
        try:
            return __import__(name).sha256
        except (ImportError, AttributeError):
            continue
    from hashlib import sha256

    return sha256


sha256 = _sha256_constructor()   # sha256(data: bytes = b"") -> object with update(), hexdigest()

_disabled = False


def disable() -> None:
    """Turn the cache off for this process (``cfglint check --no-cache``)."""
    global _disabled
    _disabled = True


def enabled() -> bool:
    """False after :func:`disable` or with ``CFGLINT_NO_CACHE`` set to anything but empty, 0, false or no."""
    return not _disabled and os.environ.get("CFGLINT_NO_CACHE", "").strip().lower() in ("", "0", "false", "no")


def key(*parts: Any) -> str:
    """SHA-256 (hex) of the cache format, cfglint's version, the source of :data:`SOURCES` and
    ``parts`` (JSON-able: names and content hashes)."""
    text = json.dumps([FORMAT, __version__, _sources(), *parts], separators=(",", ":"))
    return sha256(text.encode("utf-8")).hexdigest()


@lru_cache(maxsize=1)
def _sources() -> str | None:
    """SHA-256 (hex) of the source of :data:`SOURCES` (read once per process), or None when one
    cannot be read (then :func:`directory` gives no cache)."""
    h = sha256()
    for name in SOURCES:
        try:
            raw = read_bytes(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), name))
        except (ReadError, OSError, ValueError):
            return None
        h.update(f"{name}\0{len(raw)}\0".encode("utf-8") + raw)
    return h.hexdigest()


def directory() -> str | None:
    """The cache directory (an absolute path), its last levels created (mode 0700) if missing;
    None when the cache is off, the place is unknown or cannot be made (the place it is made in
    must exist: the parent of ``$CFGLINT_CACHE_DIR``, ``$XDG_CACHE_HOME`` or the home; with
    ``HOME`` unset, the home is the password database's), cfglint's source cannot be read, or the
    directory is not safe to use: a symbolic link, not a directory, not owned by the user, a mode
    other than exactly 0700, or inside a git working tree."""
    if not enabled() or _sources() is None:
        return None
    where = os.environ.get("CFGLINT_CACHE_DIR")
    if where:
        where = os.path.normpath(where)
        base, levels = os.path.dirname(where), [where]
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        if xdg and os.path.isabs(xdg):
            base = os.path.normpath(xdg)
            levels = [os.path.join(base, "cfglint")]
        else:
            base = os.path.expanduser("~")
            levels = [os.path.join(base, ".cache"), os.path.join(base, ".cache", "cfglint")]
        where = levels[-1]
    if not os.path.isabs(where) or "\x00" in where:
        return None   # no home (expanduser left '~'): no cache
    try:
        if git_top(where) is not None or git_top(os.path.realpath(where)) is not None \
                or not os.path.isdir(base):
            return None
        for level in levels:
            try:
                os.mkdir(level, 0o700)
            except FileExistsError:
                continue
            if level == where:
                os.chmod(level, 0o700)   # exactly, whatever the umask
        st = os.lstat(where)
    except (OSError, ValueError):
        return None
    return where if stat.S_ISDIR(st.st_mode) and _private(st, 0o700) else None


def _private(st: os.stat_result, mode: int) -> bool:
    """Owned by the user running cfglint, with permission bits exactly ``mode``."""
    owner = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
    return st.st_uid == owner and stat.S_IMODE(st.st_mode) == mode


def _path(where: str, k: str, prefix: str = PREFIX) -> str:
    return os.path.join(where, f"{prefix}{k[:40]}{SUFFIX}")


class _Parts(Mapping):
    """The parts of one entry: name -> JSON text, each checked against its own CRC-32 when it is
    first looked up (a run that decodes a few of the bundled files checks only those); a part
    whose checksum does not match is missing. The checksum finds a damaged file; that nobody else
    wrote the entry is the directory's and the file's ownership and modes (:func:`directory`)."""

    def __init__(self, body: bytes, index: dict):
        self.body, self.index, self.checked = body, index, {}

    def __getitem__(self, name: str) -> bytes:
        if name not in self.checked:
            start, end, digest = self.index[name]
            text = self.body[start:end]
            self.checked[name] = text if _crc(text) == digest else None
        if self.checked[name] is None:
            raise KeyError(name)
        return self.checked[name]

    def __iter__(self):
        return iter(self.index)

    def __len__(self) -> int:
        return len(self.index)

    def __contains__(self, name) -> bool:   # listed, whether or not its checksum matches
        return name in self.index


def _crc(data: bytes) -> str:
    from zlib import crc32

    return f"{crc32(data):08x}"


def read(k: str, prefix: str = PREFIX) -> Mapping[str, bytes] | None:
    """The parts of entry ``k`` (name -> JSON text, not yet decoded; each checked against its
    checksum when looked up), or None for a miss."""
    where = directory()
    if where is None:
        return None
    path = _path(where, k, prefix)
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or not _private(st, 0o600):
            return None
        data = read_bytes(path, MAX_ENTRY_BYTES)
        head, sep, body = data.partition(b"\n")
        header = json.loads(head)
        if not sep or not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != k \
                or not isinstance(header.get("index"), dict):
            return None
        index = {}
        for name, span in header["index"].items():
            start, end, digest = span
            if not (isinstance(start, int) and isinstance(end, int) and isinstance(digest, str)
                    and 0 <= start <= end <= len(body)):
                return None
            index[name] = (start, end, digest)
        return _Parts(body, index)
    except (OSError, ReadError, ValueError, TypeError, RecursionError):
        return None


def store(k: str, parts: dict[str, Any], prefix: str = PREFIX) -> dict[str, bytes] | None:
    """Store ``parts`` (name -> plain data) as entry ``k`` and return them as :func:`read` would
    (name -> JSON text); parts JSON would not give back exactly are left out. None, with nothing
    encoded, when there is no usable cache directory. Never raises: a cache that cannot be written
    is no cache."""
    where = directory()
    if where is None:
        return None
    encoded = {name: text for name, text in ((n, encode(d)) for n, d in parts.items()) if text is not None}
    index: dict[str, list] = {}
    size = 0
    for name, text in encoded.items():
        index[name] = [size, size + len(text), _crc(text)]
        size += len(text)
    body = b"".join(encoded.values())
    header = json.dumps({"format": FORMAT, "key": k, "index": index}, separators=(",", ":")).encode("utf-8")
    if len(header) + 1 + len(body) <= MAX_ENTRY_BYTES:
        try:
            atomic_write(_path(where, k, prefix), header + b"\n" + body, mode=0o600)
            _prune(where, prefix)
        except OSError:
            pass
    return encoded


RACY_NS = 2_000_000_000   # a file changed this close to (or after) the index was written is hashed again


def digests(files: dict[str, str]) -> dict[str, str]:
    """SHA-256 (hex) of each file (name -> path), names in the given order. A file whose
    stat (device, inode, size, modification and change times in ns; through a link, of the file
    read) equals what a stored index
    holds for it is not read again: it takes the index's digest, as git's index does, and like
    git a file changed within :data:`RACY_NS` before the index was written is read and hashed
    (the times cannot tell its two versions apart). Any other difference, a new or missing
    file, or no cache: every file is read (safeio.read_bytes) and hashed, and the index is
    stored again. Raises what read_bytes raises (ReadError, OSError)."""
    k = key("digests", list(files.items()))
    stats: dict[str, list[int]] = {}
    for name, path in files.items():
        st = os.stat(path)   # the file read (through a link, as read_bytes reads it)
        stats[name] = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    try:
        part = (read(k, INDEX_PREFIX) or {}).get("index")
        index = decode(part) if part is not None else None
        written = index["written"] if isinstance(index, dict) else None
        known = index["files"] if isinstance(index, dict) else None
        if isinstance(written, int) and isinstance(known, dict) and list(known) == list(files) and all(
                isinstance(entry, list) and len(entry) == 6 and entry[:5] == stats[name]
                and max(entry[3], entry[4]) < written - RACY_NS and isinstance(entry[5], str)
                for name, entry in known.items()):
            return {name: entry[5] for name, entry in known.items()}
    except (ValueError, TypeError, KeyError):
        pass
    out = {name: sha256(read_bytes(path)).hexdigest() for name, path in files.items()}
    if directory() is not None:
        import time

        store(k, {"index": {"written": time.time_ns(),
                            "files": {name: [*stats[name], out[name]] for name in files}}}, INDEX_PREFIX)
    return out


def encode(data: Any) -> bytes | None:
    """``data`` as JSON, or None when JSON would not give it back exactly (a date, a non-string
    key, a tuple, NaN, a structure too deep)."""
    try:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return text if _same(data, json.loads(text)) else None
    except (ValueError, TypeError, RecursionError):
        return None


def decode(text: bytes) -> Any:
    """Plain data of a part :func:`read` returned (fresh objects on every call). Raises ValueError."""
    return json.loads(text)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[x], b[x]) for x in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _prune(where: str, prefix: str = PREFIX) -> None:
    """Remove the oldest entries beyond :data:`MAX_ENTRIES` (only files named like an entry of ``prefix``)."""
    entries = []
    with os.scandir(where) as it:
        for e in it:
            if e.name.startswith(prefix) and e.name.endswith(SUFFIX) and e.is_file(follow_symlinks=False):
                entries.append((e.stat(follow_symlinks=False).st_mtime_ns, e.name))
    for _, name in sorted(entries, reverse=True)[MAX_ENTRIES:]:
        try:
            os.unlink(os.path.join(where, name))
        except OSError:
            pass
