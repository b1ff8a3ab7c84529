"""RED001: host-specific absolute paths must be published as ``<host-path>``."""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from functools import lru_cache

from ..model import Finding, Span
from ..read.paths import printable
from ..read.shell import ShellScript, Word
from ..read.shell.text import Regions, inside
from ..read.yamlsrc import YMap, YScalar, YSeq, nodes
from .base import Context, rule


def text_regions(ctx: Context) -> dict[str, Regions]:
    """Per shell file (display path): regions that are text for a reader, not settings (usage
    and help text, echo / printf to the terminal, comments, case patterns; shelltext.py).
    Made once per context (RED002 and RED003 both ask; the last context's answer is kept)."""
    held = _REGIONS_OF
    if held and held[0] is ctx and held[1] is ctx.sub.launches:
        return held[2]
    out = {display: Regions(script.text) for display, script, _role, _args in ctx.sub.launches
           if isinstance(script, ShellScript) and script.text}
    _REGIONS_OF[:] = [ctx, ctx.sub.launches, out]
    return out


_REGIONS_OF: list = []   # [context, its launches, their regions]: the last one asked for

# An absolute path starts at a '/' that does not continue a word, a placeholder, a variable
# or a relative path, and runs to whitespace, a quote, a separator or a closing bracket.
# A ${...} expansion inside the path belongs to it (its '}' and ':-' do not end the path).
_PATH = re.compile(r"/+[A-Za-z0-9_.@+~-](?:\$\{[^{}\s'\"]*\}|[^\s'\"`,;:)}\]|<>])*")
_BEFORE_OK = set(" \t=\"'(:[{,>")
_PLACEHOLDER_BEFORE = re.compile(r"<[^<>\s]+>$")
_SHORT_OPTION_BEFORE = re.compile(r"(^|\s)-[A-Za-z]$")   # -v/home/alice:/models
_DEFAULT_BEFORE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=+?]$")   # ${MODEL:-/scratch/...}
# how far before a path the patterns above look: a copy of (or a search over) the whole line
# before each path made a long line of paths quadratic (100 KB of 'x/a ' took 43 s)
_LOOKBEHIND = 256


def _mount_pairs(value: str, entry: dict) -> list[tuple[str, str]]:
    """(source, target) pairs of one mount option value, per the entry's form (rules/paths.yaml)."""
    pairs = []
    if entry.get("form") == "keys":
        kv = dict(p.split("=", 1) for p in value.split(",") if "=" in p)
        dst = next((kv[k] for k in entry.get("target_keys") or [] if kv.get(k)), None)
        if dst:
            pairs.append((kv.get("src") or kv.get("source") or "", dst))
        return pairs
    for item in value.split(",") if entry.get("list") else [value]:
        parts = item.split(":")
        if len(parts) >= 2 and parts[1]:
            pairs.append((parts[0], parts[1]))
    return pairs


def mounts(ctx: Context) -> dict[str, tuple[list[str], list[str]]]:
    """Per shell file: (targets, sources) of the container mounts its commands declare
    (docker/podman -v and --mount, srun --container-mounts, apptainer --bind; rules/paths.yaml
    mounts), as normalized absolute paths."""
    table = [e for e in ctx.kb.paths.get("mounts") or [] if isinstance(e, dict)]
    out: dict[str, tuple[list[str], list[str]]] = {}
    for display, script, _role, _args in ctx.sub.launches:
        if not isinstance(script, ShellScript):
            continue
        targets, sources = [], []
        for cmd in script.commands:
            tokens = [t.strip("\"'") for w in cmd.words for t in w.text.split()]
            names = [posixpath.basename(t) for t in tokens]
            for entry in table:
                start = next((i for i, n in enumerate(names) if n in (entry.get("commands") or [])), None)
                if start is None:
                    continue
                options = entry.get("options") or []
                for i in range(start + 1, len(tokens)):
                    tok, value = tokens[i], None
                    if tok in options and i + 1 < len(tokens):
                        value = tokens[i + 1]
                    else:
                        for o in options:
                            if tok.startswith(o + "=") or (len(o) == 2 and tok.startswith(o) and tok[2:3] in ("/", "$")):
                                value = tok[len(o) + (1 if tok.startswith(o + "=") else 0):]
                    if not value:
                        continue
                    for src, dst in _mount_pairs(value.strip("\"'"), entry):
                        if dst.startswith("/"):
                            targets.append(posixpath.normpath(dst))
                        if src.startswith("/"):
                            sources.append(posixpath.normpath(src))
        variables = ctx.kb.paths.get("mount_variables") or {}
        suffixes = tuple(str(s) for s in variables.get("suffixes") or [])
        tf = next((t for t in ctx.sub.texts if t.display == display), None)
        if suffixes and tf is not None:
            for m in _MOUNT_VARIABLE.finditer(tf.text):
                if m.group("name").upper().endswith(suffixes):
                    for src, dst in _mount_pairs(m.group("value").strip("\"'"), variables):
                        if dst.startswith("/"):
                            targets.append(posixpath.normpath(dst))
                        if src.startswith("/"):
                            sources.append(posixpath.normpath(src))
        if targets:
            out[display] = (targets, sources)
    return out


# NAME=value / NAME="value" at the start of a line or after export (a mount-list variable)
_MOUNT_VARIABLE = re.compile(r"^[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>\"[^\"\n]*\"|'[^'\n]*'|\S+)",
                             re.M)


def k8s_container_paths(ctx: Context) -> set[tuple[str, int, int]]:
    """(file, line, column) of every Kubernetes ``volumeMounts[].mountPath`` value: a path inside
    the container, not the node's (a hostPath volume's ``path`` is the node's, and is checked)."""
    out: set[tuple[str, int, int]] = set()
    for display, obj in ctx.sub.k8s_objects:
        for n in nodes(obj):
            mount = n.get("mountPath") if isinstance(n, YMap) else None
            if isinstance(mount, YScalar) and isinstance(mount.value, str):
                quoted = 1 if mount.text != mount.value or mount.span.end_col - mount.span.col != len(mount.text) else 0
                out.add((display, mount.span.line, mount.span.col + quoted))
    return out


@lru_cache(maxsize=8)
def _path_literals(prefixes: tuple, components: tuple) -> frozenset[str] | None:
    """What a line must hold for RED001 to find a path in it: '/' and the first name of a host
    prefix ('/scratch' of '/scratch', '/cm' of '/cm/shared/'), or '/' and a host component. A
    finding's normalized path starts with a prefix (or is it) or has the component as a name,
    and every name of a normalized path is a name of the path as written, after a '/'. None
    when a prefix or component does not have that form (nothing is ruled out then)."""
    out = set()
    for p in prefixes:
        if not isinstance(p, str) or not p.startswith("/") or not p[1:].split("/")[0]:
            return None
        out.add("/" + p[1:].split("/")[0])
    for c in components:
        if not isinstance(c, str) or not c or "/" in c:
            return None
        out.add("/" + c)
    return frozenset(out)


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


@rule("RED001", "unredacted-host-path", "error",
      "A host-specific path is not redacted as <host-path>.",
      "Published configurations redact host-specific paths (home directories, shared and "
      "scratch file systems, site mounts) as <host-path>: they name users and sites, and they "
      "mean nothing on anyone else's machine. Container-standard paths (/models, /root/.cache, "
      "/opt, /usr, /tmp ...) stay as they are, and so does a path under a mount target the same "
      "file declares (docker run -v ${PWD}:/mnt ... --model-path /mnt/model is the container's "
      "/mnt); the mount's host source is still checked.",
      ("rules/paths.yaml (host prefixes; container mount options with the Docker, Podman, pyxis and Apptainer documentation)", "https://artificialanalysis.ai/benchmarks/hardware/configs: 'Host-specific paths are redacted as <host-path>.' (docs/sources.md)"),
      tags=("security",), security_severity="3.0")
def check_host_paths(ctx: Context):
    table = ctx.kb.paths
    prefixes = [(e["prefix"], e.get("why", "")) for e in table.get("host_prefixes") or []]
    components = [(e["component"], e.get("why", "")) for e in table.get("host_components") or []
                  if isinstance(e, dict) and e.get("component")]
    container = set(table.get("container_prefixes") or [])
    platform = [str(e["prefix"]) for e in table.get("platform_prefixes") or [] if isinstance(e, dict) and e.get("prefix")]
    # what the mounts and Kubernetes mount paths are is asked only of a path that is otherwise a
    # finding; only the lines that hold '/' and a host prefix's or component's first name
    # (_path_literals) can hold one
    mounted: list = []
    literals = _path_literals(tuple(p for p, _ in prefixes), tuple(c for c, _ in components))
    for tf in ctx.sub.texts:
        lines = tf.text.split("\n")
        todo = _lines_holding(tf.text, literals) if literals is not None else None
        for lineno in range(1, len(lines) + 1) if todo is None else sorted(todo):
            line = lines[lineno - 1]
            if "/" not in line:
                continue
            for m in _PATH.finditer(line):
                start = m.start()
                before = line[max(0, start - _LOOKBEHIND):start]  # '^' cannot match at a cut: -X$ is 2 long
                if before and before[-1] not in _BEFORE_OK and not _SHORT_OPTION_BEFORE.search(before) \
                        and not _DEFAULT_BEFORE.search(before):
                    continue
                if before.endswith(">") and _PLACEHOLDER_BEFORE.search(before):
                    continue  # <host-path>/hf-cache: already redacted
                path = m.group(0)
                if before.endswith(":") and path.startswith("//"):
                    if not before.endswith("file:"):
                        continue  # a URL (tcp://, http://host/...)
                    path = path[2:]
                    start += 2
                path = "/" + path.lstrip("/")
                start = m.end() - len(path)
                normalized = posixpath.normpath(path)
                if any(normalized == p.rstrip("/") or normalized.startswith(p.rstrip("/") + "/") for p in platform):
                    continue  # a managed platform's node path (GKE's driver directory): the same everywhere
                why = next((w for p, w in prefixes if normalized.startswith(p) or normalized == p.rstrip("/")), None)
                parts = normalized.split("/")[1:]
                if why is None and "/" + parts[0] not in container:
                    why = next((w for c, w in components if c in parts[:-1]), None)
                if why is None:
                    continue
                if not mounted:
                    mounted[:] = [mounts(ctx), k8s_container_paths(ctx)]
                targets, sources = mounted[0].get(tf.display, ([], []))
                if targets and _under(normalized, targets) and not _under(normalized, sources):
                    continue  # inside a container this file starts: -v ${PWD}:/mnt ... /mnt/model
                if (tf.display, lineno, start + 1) in mounted[1]:
                    continue  # a Kubernetes volumeMounts mountPath: the container's own path
                span = Span(tf.display, lineno, start + 1, lineno, start + 1 + len(path))
                # a fix replaces the whole path or is not offered: a path that goes on through a
                # shell expansion (/lustre/.../${DRAFT##*/}) would lose it, or its braces
                dynamic = "$" in path
                yield Finding("RED001",
                              f"host-specific path '{path}' is not redacted ({why}); publish it as <host-path>"
                              + (" (by hand: it holds a shell expansion)" if dynamic else ""),
                              span, fix=None if dynamic else "<host-path>")


def placeholder(secret: str) -> str:
    """What RED002 says instead of a credential: its length, never a character of it."""
    return f"<secret, {len(secret)} chars>"


def mask(secret: str) -> str:
    """What a message says instead of a credential: ``<secret, 37 chars>``, no character of it
    (a prefix would give away a short secret whole)."""
    return placeholder(secret)


@lru_cache(maxsize=8)
def _assignments(names: frozenset[str]) -> re.Pattern:
    """``NAME=value``, ``--flag value``, ``key: value`` for the given names only, so one match
    cannot swallow the next (``export HF_TOKEN=...``)."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?P<name>{alternatives})(?P<sep>[= ]+|:\s*)(?P<q>['\"]?)(?P<value>(?!-)[^\s'\"]+)")


def assignments(line: str, names: set[str]):
    """Matches of :func:`_assignments` in ``line``. Flags take ``--flag value`` or
    ``--flag=value``; variables and keys only ``NAME=value`` / ``key: value``, so prose such
    as "the hostname below" is not an assignment."""
    if not names:
        return
    for m in _assignments(frozenset(names)).finditer(line):
        if m.group("name").startswith("-") or m.group("sep").strip():
            yield m


# a configuration key with its value: YAML ``key: value`` (key and value optionally quoted, as
# in JSON or a flow mapping) or ``NAME=value``; the value is one word, or the quoted text
_KEYED = re.compile(r"""(?<![\w$-])(?P<kq>['"]?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)(?P=kq)(?P<sep>:[ \t]+|=)"""
                    r"""(?:"(?P<dq>[^"\n]+)"|'(?P<sq>[^'\n]+)'|(?P<plain>[^\s'"#,{}\[\]&*!|>%@`][^\s,}\]'"]*))""")


def _key_names(keys: dict) -> tuple[set[str], tuple[str, ...]]:
    """(names, suffixes) of credential keys (rules/secrets.yaml ``assignments.keys``)."""
    return {str(n) for n in keys.get("names") or []}, tuple(str(x) for x in keys.get("suffixes") or [])


def _credential_key(name: str, names: set[str], suffixes: tuple[str, ...]) -> bool:
    """Whether a key names a credential: its last dotted part, lower case, without '_' and '-',
    is one of ``names`` or ends with one of ``suffixes``, and is not a key whose value names a
    Kubernetes Secret object (rules/secrets.yaml ``secret_reference_keys``)."""
    key = name.rsplit(".", 1)[-1].lower().replace("_", "").replace("-", "")
    if key in _secret_references():
        return False
    return key in names or bool(suffixes and key.endswith(suffixes))


@lru_cache(maxsize=1)
def _secret_references() -> frozenset[str]:
    from ..knowledge import bundled_data

    keys = ((bundled_data("secrets.yaml") or {}).get("assignments") or {}).get("keys") or {}
    return frozenset(str(k).lower().replace("_", "").replace("-", "") for k in keys.get("secret_reference_keys") or [])


@lru_cache(maxsize=64)
def _multiline(pattern: re.Pattern) -> re.Pattern:
    return re.compile(pattern.pattern, pattern.flags | re.MULTILINE)


def _anywhere(pattern: re.Pattern, text: str) -> bool:
    """Whether ``pattern`` may match in some line of ``text``: it matches the whole text with ^
    and $ at line ends (a match inside one line is a match of the whole text; one across lines
    only makes this True without a line match, which the line scan then finds not)."""
    return _multiline(pattern).search(text) is not None


# ---------------------------------------------------------------------------------------------
# Prefilters: what a file (or a line) must contain for a scan to find anything in it. Each is
# no narrower than the scan it guards (tests/test_redaction_prefilter.py): it only ever proves
# that a pattern cannot match, a name cannot occur, a key cannot name a credential; everything
# it does not rule out is scanned exactly as before.

_EXACT_LIMIT = 64   # strings a part of a pattern may spell out before it counts as "any text"
_CLASS_LIMIT = 8    # characters of a class [...] spelled out one by one


def _required(pattern: str, flags: int = 0) -> tuple[frozenset[str], bool] | None:
    """(literals, ignore case) such that every match of ``pattern`` contains one of the literals
    (compared ignoring case when the pattern ignores case anywhere), or None when no such set is
    known (then nothing is ruled out). From the parse of Python's own ``re`` (``re._parser``):
    a construct it does not know makes the answer None, never a guess."""
    try:
        from re import _constants as c, _parser
        parsed = _parser.parse(pattern, flags)
    except Exception:
        return None
    icase = [False]
    ops = {"LITERAL", "IN", "MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT", "SUBPATTERN", "ATOMIC_GROUP",
           "BRANCH", "AT", "ASSERT", "ASSERT_NOT"}

    def best(candidates: list[frozenset[str]]) -> frozenset[str] | None:
        good = [s for s in candidates if s and "" not in s]
        return max(good, key=lambda s: (min(map(len, s)), -len(s))) if good else None

    def item(op, av, fl) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        """(exact: every string the item can match, if few; required: a literal set)"""
        name = str(op)
        if name not in ops:
            return None, None
        if fl & re.IGNORECASE and name in ("LITERAL", "IN"):
            icase[0] = True
        if op is c.LITERAL:
            return frozenset((chr(av),)), None
        if op is c.IN:
            chars: set[str] = set()
            for o, a in av:
                if o is c.LITERAL:
                    chars.add(chr(a))
                elif o is c.RANGE and a[1] - a[0] < _CLASS_LIMIT:
                    chars.update(chr(x) for x in range(a[0], a[1] + 1))
                else:
                    return None, None   # a negated class, a category (\d, \s), a wide range
            return (frozenset(chars), None) if 0 < len(chars) <= _CLASS_LIMIT else (None, None)
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            return frozenset(("",)), None   # matches no text: contributes nothing
        if op is c.SUBPATTERN:
            _group, add, remove, sub = av
            return seq(sub, (fl | add) & ~remove)
        if op is c.ATOMIC_GROUP:
            return seq(av, fl)
        if op is c.BRANCH:
            parts = [seq(b, fl) for b in av[1]]
            exact = frozenset().union(*(e for e, _ in parts)) if all(e is not None for e, _ in parts) else None
            reqs = [best([r] + ([e] if e is not None else [])) if r is not None else best([e] if e is not None else [])
                    for e, r in parts]
            req = frozenset().union(*reqs) if reqs and all(r is not None for r in reqs) else None
            return (exact if exact is not None and len(exact) <= _EXACT_LIMIT else None), req
        lo, hi, sub = av   # a repeat
        e, r = seq(sub, fl)
        if lo < 1:
            return None, None
        exact = None
        if e is not None and lo == hi and len(e) ** lo <= _EXACT_LIMIT:
            exact = frozenset([""])
            for _ in range(lo):
                exact = frozenset(a + b for a in exact for b in e)
        return exact, best([x for x in (r, e) if x is not None])

    def seq(items, fl) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        candidates: list[frozenset[str]] = []
        run: frozenset[str] | None = frozenset([""])
        whole = True
        for op, av in items:
            e, r = item(op, av, fl)
            if r is not None:
                candidates.append(r)
            if e is not None and run is not None and len(run) * len(e) <= _EXACT_LIMIT:
                run = frozenset(a + b for a in run for b in e)
                continue
            whole = False
            if run is not None:
                candidates.append(run)
            run = e if e is not None else frozenset([""])
        candidates.append(run)
        return (run if whole else None), best(candidates)

    try:
        exact, req = seq(list(parsed), parsed.state.flags)
    except Exception:
        return None
    found = best([x for x in (req, exact) if x is not None])
    return (found, icase[0]) if found is not None else None


@lru_cache(maxsize=256)
def _literal_test(pattern: str, flags: int):
    """A function of a text that is False only when ``pattern`` (with ``flags``) matches nowhere
    in it (:func:`_required`); None when nothing can be ruled out."""
    req = _required(pattern, flags)
    if req is None:
        return None
    literals, icase = req
    if icase:
        search = re.compile("|".join(re.escape(s) for s in sorted(literals)), re.IGNORECASE).search
        return lambda text: search(text) is not None
    ordered = tuple(sorted(literals))
    return lambda text: any(s in text for s in ordered)


def _may_match(pattern: re.Pattern, text: str) -> bool:
    """Whether ``pattern`` may match in some line of ``text``: False only when it cannot (a
    literal every match holds is not in the text, or :func:`_anywhere` finds no match)."""
    test = _literal_test(pattern.pattern, pattern.flags) if isinstance(pattern.pattern, str) else None
    if test is not None and not test(text):
        return False
    return _anywhere(pattern, text)


@lru_cache(maxsize=64)
def _alternation(literals: frozenset[str]) -> re.Pattern:
    return re.compile("|".join(re.escape(s) for s in sorted(literals, key=lambda s: (-len(s), s))))


def _lines_holding(text: str, literals) -> set[int] | None:
    """1-based numbers of the lines of ``text`` (split at '\\n') that contain one of ``literals``;
    None when that cannot be told this way (a literal is empty or holds a line break): then
    every line may. One scan of the text: an occurrence that overlaps a match found lies on
    that match's line (no literal crosses a line end)."""
    if any(not s or "\n" in s for s in literals):
        return None
    out: set[int] = set()
    if not literals:
        return out
    starts: list[int] | None = None
    for m in _alternation(frozenset(literals)).finditer(text):
        if starts is None:
            starts = [0] + [b.end() for b in _BREAK.finditer(text)]
        out.add(bisect_right(starts, m.start()))
    return out


_BREAK = re.compile("\n")


def _key_lines(text: str, names: set[str], suffixes: tuple[str, ...]) -> set[int] | None:
    """The lines of ``text`` where :func:`_key_matches` may find a credential key (None: any):
    a key that names one, lower case without '_' and '-', equals a name or ends with a suffix,
    so the line made the same way holds that name or suffix (lower() makes no line break, and
    the key's characters are ASCII: the line's squashed text holds the squashed key)."""
    if not names and not suffixes:
        return set()
    return _lines_holding(text.lower().replace("_", "").replace("-", ""), set(names) | set(suffixes))


def _key_matches(line: str, names: set[str], suffixes: tuple[str, ...]):
    """(name, value start, value) of each ``key: value`` / ``NAME=value`` in ``line`` whose key
    names a credential (``names``, ``suffixes``: :func:`_key_names`, made once per check)."""
    if not names and not suffixes:
        return
    for m in _KEYED.finditer(line):
        if _credential_key(m.group("name"), names, suffixes):
            group = "dq" if m.group("dq") is not None else "sq" if m.group("sq") is not None else "plain"
            yield m.group("name"), m.start(group), m.group(group)


_NUMBER = re.compile(r"[+-]?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?")


def _literal(value: str, not_secret: list[str], placeholder_re: re.Pattern | None = None) -> bool:
    """A value written out as a credential: not a run-time value ($VAR, ${VAR}, {{ template }}),
    not a placeholder (xxx, <redacted>, changeme ...)."""
    if not value or value in not_secret or value.startswith(("$", "<", "{{")) or "${" in value \
            or value.endswith("\\"):
        return False
    return not (placeholder_re is not None and placeholder_re.match(value))


def _commands_text(text: str) -> list[str]:
    """Per line of ``text``: the text of its command before it (backslash-continued lines)."""
    out, before = [], ""
    for line in text.split("\n"):
        out.append(before)
        before = before + line[:-1] + " " if line.endswith("\\") else ""
    return out


def _rejoined(words: list[Word], lines: dict[str, list[str]]) -> list[Word]:
    """``words`` with a word continued by a backslash-newline inside it (``sk-abc\\<LF>def``: one
    word to bash, two to the parser) joined into one word spanning both lines."""
    out: list[Word] = []
    for w in words:
        prev = out[-1] if out else None
        if prev is not None and prev.static and w.static and w.span.col == 1 and w.span.line == prev.span.end_line + 1:
            src = lines.get(prev.span.path) or []
            line = src[prev.span.end_line - 1] if 1 <= prev.span.end_line <= len(src) else ""
            if line.endswith("\\") and prev.span.end_col == len(line):
                out[-1] = Word(prev.text + w.text, prev.raw + "\\\n" + w.raw,
                               Span(prev.span.path, prev.span.line, prev.span.col, w.span.end_line, w.span.end_col))
                continue
        out.append(w)
    return out


# bash ANSI-C quoting, $'...': the evaluator leaves it unknown; its text is the value (escapes
# aside), enough to report and hide it
_ANSI_C = re.compile(r"\$'(?P<body>[^']*)'")
_ANSI_C_ASSIGNED = re.compile(r"(?P<name>[^=\s]+)=\$'(?P<body>[^']*)'")


def _word_credentials(ctx: Context, flags: set[str], named, tokens: list, not_secret: list[str],
                      placeholder_re: re.Pattern | None, prose: dict[str, Regions],
                      reported: set[tuple[str, int, int]]):
    """RED002 findings from the evaluated words of the launch commands: the value of a credential
    flag (``--api-key VALUE``, ``--api-key=VALUE``; quoted with spaces, on the next line, built of
    quoted parts, ANSI-C quoted), a ``NAME=value`` word for a credential variable (``docker -e``;
    ``named(NAME)``: a credential flag, variable or key) and a token format inside a word written over several lines (backslash-newline
    inside it). Each finding's span is the value where it is written; a value the evaluator
    assembled from parts spans the word."""
    lines = {tf.display: tf.text.split("\n") for tf in ctx.sub.texts}

    def locate(word: Word, v: str) -> Span:
        src = lines.get(word.span.path) or []
        if word.span.line == word.span.end_line and 1 <= word.span.line <= len(src):
            at = src[word.span.line - 1].find(v, word.span.col - 1, word.span.end_col - 1 + 1)
            if at >= 0:
                return Span(word.span.path, word.span.line, at + 1, word.span.line, at + 1 + len(v))
        return word.span

    def hit(word: Word, v: str, message: str):
        span = locate(word, v)
        if (span.path, span.line, span.col - 1) in reported:
            return None
        reported.add((span.path, span.line, span.col - 1))
        return Finding("RED002", message, span, secret=True)

    for _display, script, _role, _args in ctx.sub.launches:
        for cmd in script.commands if isinstance(script, ShellScript) else [script]:
            words = _rejoined(cmd.words, lines)
            for i, w in enumerate(words):
                value, name = None, None
                regions = prose.get(w.span.path)
                if regions and inside(regions, w.span.line, w.span.col):
                    continue  # echo "  --api-key KEY  ...": help text, not a setting
                if w.text in flags and i + 1 < len(words):
                    nxt = words[i + 1]
                    quoted = _ANSI_C.fullmatch(nxt.raw)
                    if quoted:
                        value, name, word = quoted.group("body"), w.text, nxt
                    elif nxt.static and not nxt.text.startswith("-"):
                        value, name, word = nxt.text, w.text, nxt
                elif "=" in w.raw and (quoted := _ANSI_C_ASSIGNED.fullmatch(w.raw)) and named(quoted.group("name")):
                    value, name, word = quoted.group("body"), quoted.group("name"), w
                elif w.static and "=" in w.text and named(w.text.split("=", 1)[0]):
                    # --api-key=VALUE, and docker -e / --env "API_KEY=value with spaces"
                    value, name, word = w.text.split("=", 1)[1], w.text.split("=", 1)[0], w
                if value is not None and _literal(value, not_secret, placeholder_re):
                    f = hit(word, value, f"{name} is given the literal credential {mask(value)}; pass it from the "
                                         f"environment instead")
                    if f is not None:
                        yield f
                    continue
                if w.static and w.span.end_line > w.span.line:
                    for what, pattern in tokens:
                        m = pattern.search(w.text)
                        if m:
                            f = hit(w, m.group(0), f"{what} {mask(m.group(0))} is published; revoke it and pass "
                                                   f"it from the environment")
                            if f is not None:
                                yield f
                            break


def _yaml_credentials(ctx: Context, flags: set[str], named, not_secret: list[str],
                      placeholder_re: re.Pattern | None, reported: set[tuple[str, int, int]]):
    """RED002 from the YAML trees (engine configs, the manifest), as a safe loader reads them,
    for what the line patterns cannot see: a credential key whose value is tagged (``!!str``),
    anchored, a block or folded scalar, under an escaped or complex key, in a flow mapping; a
    Kubernetes-style ``{name: HF_TOKEN, value: ...}`` entry; a credential flag followed by its
    value in a sequence (``args: ["--api-key", "VALUE"]``). A value the line pass already
    reported (a start inside the value's span) is not reported again."""
    starts: dict[tuple[str, int], list[int]] = {}
    for path, line, start in reported:
        starts.setdefault((path, line), []).append(start)
    roots = [c.root for c in ctx.sub.configs] + [ctx.sub.manifest_node]
    for n in (node for root in roots for node in nodes(root)):
        hits: list[tuple[str, YScalar]] = []
        if isinstance(n, YMap):
            pairs = [(str(k.value), v) for k, v in n.items if isinstance(v, YScalar)]
            hits = [(k, v) for k, v in pairs if named(k)]
            entry = dict(pairs)
            if "value" in entry and "name" in entry and named(str(entry["name"].value)):
                hits.append((str(entry["name"].value), entry["value"]))
        elif isinstance(n, YSeq):
            hits = [(str(a.value), b) for a, b in zip(n.items, n.items[1:])
                    if isinstance(a, YScalar) and isinstance(b, YScalar) and str(a.value) in flags
                    and isinstance(b.value, str) and not b.value.startswith("-")]
        for name, v in hits:
            if not isinstance(v.value, str):
                continue  # a number, a boolean, null: no credential
            value = v.value.strip()
            sp = v.span
            last = sp.end_col - 1 if sp.end_line == sp.line else 1 << 30
            if any(sp.col - 1 <= x < last for x in starts.get((sp.path, sp.line), ())):
                continue
            if not _literal(value, not_secret, placeholder_re) or _NUMBER.fullmatch(value) \
                    or value in ("yes", "no", "on", "off"):
                continue
            starts.setdefault((sp.path, sp.line), []).append(sp.col - 1)
            reported.add((sp.path, sp.line, sp.col - 1))
            yield Finding("RED002", f"{printable(name)[:80]} is given the literal credential {mask(value)}; pass it "
                                    f"from the environment instead", sp, secret=True)


@rule("RED002", "leaked-secret", "error",
      "A credential (Hugging Face, NGC, GitHub, OpenAI, AWS, GCP token, private key, literal API key, "
      "password in a URL, Authorization header, curl -u, a key such as api_key: / password: / token:) "
      "in a published file.",
      "Published configurations are public: a token in a launch script or engine YAML gives anyone "
      "the submitter's access. Revoke the credential, then pass it from the environment or a "
      "secret store ($HF_TOKEN, --api-key \"$API_KEY\"). cfglint never shows a character of it: "
      "every message, source line, fingerprint and output format hides the value and any 8 "
      "characters of it, and the finding gives only its kind and length. A baseline never "
      "accepts it (--write-baseline leaves it out, --baseline never hides it): a new credential "
      "of the same length as an old one would look the same. "
      "Token formats are reported anywhere; so are a password in a URL (scheme://user:pass@host), "
      "an Authorization header (Bearer, Basic, Token), curl -u user:pass, a literal value of a "
      "credential flag (--api-key, also on the next line of an argument file or a continued "
      "command) and of a credential key (api_key:, password:, token:, secret:, X_API_KEY=). "
      "Run-time values ($VAR, ${VAR}, {{ template }}) and placeholders (xxx, <redacted>, "
      "changeme, your-token) are not credentials. A '--api-key KEY' or 'token: X' shape in help "
      "text, comments or case patterns of a shell file is prose, not a setting.",
      ("rules/secrets.yaml (token formats with their vendors' documentation; credential shapes: "
       "RFC 3986 userinfo, RFC 9110 / RFC 6750 Authorization, the curl manual)",), tags=("security",),
      security_severity="9.0")
def check_secrets(ctx: Context):
    table = ctx.kb.secrets
    tokens = [(t["name"], re.compile(t["pattern"])) for t in table.get("tokens") or []]
    shapes = [(t["name"], re.compile(t["pattern"]), re.compile(t["after"]) if t.get("after") else None)
              for t in table.get("shapes") or [] if isinstance(t, dict) and t.get("pattern")]
    assign = table.get("assignments") or {}
    names = set(assign.get("flags") or []) | set(assign.get("env") or [])
    flags = {str(f) for f in assign.get("flags") or []}
    keys = assign.get("keys") or {}
    not_secret = [str(v) for v in assign.get("not_secret") or []]
    placeholder_re = re.compile(assign["placeholder"]) if assign.get("placeholder") else None
    prose = text_regions(ctx)
    reported: set[tuple[str, int, int]] = set()
    # credentials read from the evaluated shell words first: their values are whole (a quoted
    # value with spaces, a value on the next line, a token split by backslash-newline), and a
    # line pattern that sees only part of such a value must not report (and so mask) just that
    key_names, key_suffixes = _key_names(keys)

    memo: dict[str, bool] = {}   # a submission's keys repeat (every role, every file)

    def named(name: str) -> bool:
        known = memo.get(name)
        if known is None:
            known = memo[name] = name in names or _credential_key(name, key_names, key_suffixes)
        return known

    word_hits = list(_word_credentials(ctx, flags, named, tokens, not_secret, placeholder_re, prose, reported))
    covered_at: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for f in word_hits:
        end = f.span.end_col - 1 if f.span.end_line == f.span.line else 1 << 30
        covered_at.setdefault((f.span.path, f.span.line), []).append((f.span.col - 1, end))

    def found(display: str, lineno: int, start: int, value: str, message: str) -> Finding | None:
        where = (display, lineno, start)
        if where in reported:
            return None
        reported.add(where)
        return Finding("RED002", message, Span(display, lineno, start + 1, lineno, start + 1 + len(value)), secret=True)

    for tf in ctx.sub.texts:
        regions = prose.get(tf.display) or []
        # what a file cannot hold anywhere is not looked for line by line (most files hold no
        # credential): a pattern without a match in the whole text (^ and $ at line ends) has
        # none in any line, a name that is no substring of it is in no line
        # (a literal every match of a pattern holds rules it out first, _may_match); and only the
        # lines that can hold a finding are scanned: with no token or shape pattern left, those
        # that hold a credential name (an assignment's name is written in its line) or a key name
        # (_key_lines)
        text = tf.text
        text_tokens = [(what, pattern) for what, pattern in tokens if _may_match(pattern, text)]
        text_shapes = [shape for shape in shapes if _may_match(shape[1], text)]
        text_names = {n for n in names if n in text}
        key_lines = _key_lines(text, key_names, key_suffixes)
        lines = text.split("\n")
        todo: "range | list[int]" = range(1, len(lines) + 1)
        if not text_tokens and not text_shapes:
            name_lines = _lines_holding(text, text_names)
            if name_lines is not None and key_lines is not None:
                todo = sorted(name_lines | key_lines)
        before = _commands_text(text) if any(after for *_, after in text_shapes) else None
        for lineno in todo:
            line = lines[lineno - 1]
            scan_keys = key_lines is None or lineno in key_lines
            hits = []
            for what, pattern in text_tokens:
                for m in pattern.finditer(line):
                    hits.append((m.start(), m.group(0), f"{what} {mask(m.group(0))} is published; revoke it and "
                                                        f"pass it from the environment"))
            for what, pattern, after in text_shapes:
                for m in pattern.finditer(line):
                    v = m.group("secret")
                    if after is not None and not after.search(before[lineno - 1] + line[:m.start()]):
                        continue
                    if _literal(v, not_secret, placeholder_re):
                        hits.append((m.start("secret"), v, f"{what} {mask(v)} is published; revoke it and pass "
                                                           f"it from the environment"))
            for m in assignments(line, text_names):
                if regions and inside(regions, lineno, m.start("name") + 1):
                    continue  # echo "  --api-key KEY  ...": help text, not a setting
                v = m.group("value")
                if _literal(v, not_secret, placeholder_re):
                    hits.append((m.start("value"), v, f"{m.group('name')} is given the literal credential {mask(v)}; "
                                                      f"pass it from the environment instead"))
            for name, start, v in (_key_matches(line, key_names, key_suffixes) if scan_keys else ()):
                if regions and inside(regions, lineno, start + 1):
                    continue
                if _literal(v, not_secret, placeholder_re) and not _NUMBER.fullmatch(v) and v not in ("yes", "no", "on", "off"):
                    hits.append((start, v, f"{name} is given the literal credential {mask(v)}; pass it from the "
                                           f"environment instead"))
            covered = -1   # end of the furthest credential reported on this line (hits sorted by start)
            whole = covered_at.get((tf.display, lineno), ())
            for start, v, message in sorted(hits, key=lambda h: (h[0], -len(h[1]))):
                if start + len(v) <= covered or any(a <= start < b for a, b in whole):
                    continue  # the same credential seen by two patterns (a token given to --api-key)
                covered = start + len(v)
                f = found(tf.display, lineno, start, v, message)
                if f is not None:
                    yield f
    yield from word_hits
    yield from _yaml_credentials(ctx, flags, named, not_secret, placeholder_re, reported)


def _host(value: str) -> str:
    """The host part of an address value: ``tcp://h:1``, ``h:1/path``, ``[2001:db8::1]:5000``,
    ``2001:db8::1`` (an IPv6 literal without brackets has no port)."""
    rest = re.sub(r"^[a-z]+://", "", value).split("/")[0]
    rest = rest.rsplit("@", 1)[-1]   # user:password@host: the host (the password is RED002's)
    if rest.startswith("["):
        return rest[1:].split("]", 1)[0]
    if rest.count(":") > 1:
        return rest
    return rest.rsplit(":", 1)[0]


@lru_cache(maxsize=8)
def _networks(written: tuple) -> list:
    """The networks of rules/secrets.yaml ``addresses`` (CIDR strings), made once."""
    import ipaddress

    return [ipaddress.ip_network(n) for n in written]


_IPV4 = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,3}){3})(?![\d.])")


@rule("RED003", "unredacted-address", "error",
      "A private IP address or internal host name where the convention is <head-ip>.",
      "Addresses inside a site's network (10.x, 172.16-31.x, 192.168.x, 100.64/10, internal host "
      "names in --dist-init-addr, --host, etcd endpoints) describe the submitter's network and "
      "mean nothing elsewhere; the published convention is <head-ip>. Loopback and 0.0.0.0 are "
      "fine, and so are the documentation ranges (RFC 5737 192.0.2.0/24, 198.51.100.0/24, "
      "203.0.113.0/24; RFC 3849 2001:db8::/32). Which ranges are private is the configuration "
      "key private-ranges (default: RFC 1918 and RFC 6598). In a shell file, help and usage text "
      "(echo / printf / cat <<EOF to the terminal), comments and case patterns are prose: a "
      "'--host HOST' there is not a setting (a literal private address is still reported).",
      ("rules/secrets.yaml (addresses: RFC 1918 / RFC 6598 ranges, address-taking flags)",
       "RFC 5737 and RFC 3849 (documentation address ranges)"), tags=("security",))
def check_addresses(ctx: Context):
    import ipaddress

    table = ctx.kb.secrets.get("addresses") or {}
    nets = _networks(tuple(table.get("private") or []))
    docs = _networks(tuple(table.get("documentation") or []))

    def private(ip) -> bool:
        return any(ip.version == n.version and ip in n for n in nets) and \
            not any(ip.version == n.version and ip in n for n in docs)

    names = set(table.get("flags") or []) | set(table.get("env") or [])
    public = set(table.get("public_names") or [])
    prose = text_regions(ctx)
    for tf in ctx.sub.texts:
        regions = prose.get(tf.display) or []
        text = tf.text
        # only the lines that can hold a finding: an IPv4 match (one scan of the text finds one
        # on each line that has one: a match holds no line break, and a line break is no digit
        # or '.' for the look-arounds), or an address name (an assignment's name is in its line)
        todo = _lines_holding(text, {n for n in names if n in text})
        lines = text.split("\n")
        if todo is None:
            todo = range(1, len(lines) + 1)
        else:
            starts: list[int] | None = None
            for m in _IPV4.finditer(text):
                if starts is None:
                    starts = [0] + [b.end() for b in _BREAK.finditer(text)]
                todo.add(bisect_right(starts, m.start()))
            todo = sorted(todo)
        for lineno in todo:
            line = lines[lineno - 1]
            flagged: set[int] = set()
            for m in _IPV4.finditer(line):
                try:
                    ip = ipaddress.ip_address(m.group(1))
                except ValueError:
                    continue
                if private(ip):
                    flagged.add(m.start(1))
                    yield Finding("RED003", f"private address {m.group(1)} is published; write <head-ip>",
                                  Span(tf.display, lineno, m.start(1) + 1, lineno, m.end(1) + 1), fix="<head-ip>")
            for m in assignments(line, names):
                if regions and inside(regions, lineno, m.start("name") + 1):
                    continue  # echo "  --host HOST  bind address": help text, not a setting
                value = m.group("value")
                host = _host(value)
                if not host or host in public or host.startswith(("<", "$", "{")) or m.start("value") in flagged \
                        or _IPV4.fullmatch(host) or not re.search(r"[A-Za-z]", host):
                    continue
                start = m.start("value") + value.find(host)
                try:
                    ip = ipaddress.ip_address(host)  # an IPv6 literal is an address, not a host name
                except ValueError:
                    ip = None
                if ip is not None:
                    if private(ip):
                        yield Finding("RED003", f"private address {host} is published; write <head-ip>",
                                      Span(tf.display, lineno, start + 1, lineno, start + 1 + len(host)), fix="<head-ip>")
                    continue
                yield Finding("RED003", f"internal host name '{host}' in {m.group('name')} is published; write <head-ip>",
                              Span(tf.display, lineno, start + 1, lineno, start + 1 + len(host)), fix="<head-ip>")
