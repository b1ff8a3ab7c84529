"""RED002: credentials (token formats, credential shapes, literal values of credential flags,
variables and keys) must not be published; the placeholder a message shows instead."""

from __future__ import annotations

import re
from functools import lru_cache

from ..model import Finding, Span
from ..read.paths import printable
from ..read.shell import ShellScript, Word
from ..read.shell.text import Regions, inside
from ..read.yamlsrc import YMap, YScalar, YSeq, nodes
from . import prefilter
from .assignments import assignments
from .base import Context, rule
from .prose import text_regions


def placeholder(secret: str) -> str:
    """What RED002 says instead of a credential: its length, never a character of it."""
    return f"<secret, {len(secret)} chars>"


def mask(secret: str) -> str:
    """What a message says instead of a credential: ``<secret, 37 chars>``, no character of it
    (a prefix would give away a short secret whole)."""
    return placeholder(secret)



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



def _key_lines(text: str, names: set[str], suffixes: tuple[str, ...]) -> set[int] | None:
    """The lines of ``text`` where :func:`_key_matches` may find a credential key (None: any):
    a key that names one, lower case without '_' and '-', equals a name or ends with a suffix,
    so the line made the same way holds that name or suffix (lower() makes no line break, and
    the key's characters are ASCII: the line's squashed text holds the squashed key)."""
    if not names and not suffixes:
        return set()
    return prefilter.lines_holding(text.lower().replace("_", "").replace("-", ""), set(names) | set(suffixes))


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

    def hit(word: Word, v: str, message: str, span: Span | None = None):
        span = span or locate(word, v)
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
                        m = next((m for m in pattern.finditer(w.text) if _token_span(w, m.start(), m.end())), None)
                        if m:
                            f = hit(w, m.group(0), f"{what} {mask(m.group(0))} is published; revoke it and pass "
                                                   f"it from the environment", _token_span(w, m.start(), m.end()))
                            if f is not None:
                                yield f
                            break


def _token_span(word: Word, a: int, b: int) -> Span | None:
    """Where the characters ``[a, b)`` of a word written over several lines are (by its
    :attr:`Word.where`: a Kubernetes container's ``bash -c`` string), from the first to the last;
    None when two of them stand at one place: a value put in from elsewhere (the container's env,
    ``${VAR}``), whose own place the line scan reads. The whole word without ``where``."""
    where = word.where
    if where is None or len(where) != len(word.text):
        return word.span
    at = where[a:b]
    if not at or any(p >= q for p, q in zip(at, at[1:])):
        return None
    (l1, c1), (l2, c2) = at[0], at[-1]
    return Span(word.span.path, l1, c1, l2, c2 + 1)


def _escaped_scalar(n: YScalar, lines_of) -> bool:
    """Whether ``n`` is written double-quoted with a backslash in it (an escape such as ``\\x68``,
    or a line break escaped away): its value is text no line of the file holds."""
    s = n.span
    src = lines_of(s.path)
    if not src or not 1 <= s.line <= s.end_line <= len(src):
        return False
    first = src[s.line - 1]
    if first[s.col - 1:s.col] != '"':
        return False
    if s.line == s.end_line:
        return "\\" in first[s.col - 1:s.end_col - 1]
    return "\\" in first[s.col - 1:] or any("\\" in src[i] for i in range(s.line, s.end_line))


def _yaml_credentials(ctx: Context, flags: set[str], named, tokens: list, not_secret: list[str],
                      placeholder_re: re.Pattern | None, reported: set[tuple[str, int, int]]):
    """RED002 from the YAML trees (engine configs, the manifest, Kubernetes objects, YAML read
    only for credentials), as a safe loader reads them, for what the line patterns cannot see:
    a credential key whose value is tagged (``!!str``), anchored, a block or folded scalar,
    under an escaped or complex key, in a flow mapping; a Kubernetes-style ``{name: HF_TOKEN,
    value: ...}`` entry; a credential flag followed by its value in a sequence (``args:
    ["--api-key", "VALUE"]``); a token format in a double-quoted key or value written with
    escapes or an escaped line break (``"\\x68f_..."``). A value the line pass already
    reported (a start inside the value's span) is not reported again."""
    starts: dict[tuple[str, int], list[int]] = {}
    for path, line, start in reported:
        starts.setdefault((path, line), []).append(start)
    # the lines of the files that hold a backslash (only there can a scalar be escaped)
    escaping = {tf.display: tf for tf in ctx.sub.texts + ctx.sub.scan_only if "\\" in tf.text}
    split: dict[str, list[str]] = {}

    def lines_of(path: str) -> list[str] | None:
        if path not in escaping:
            return None
        got = split.get(path)
        if got is None:
            got = split[path] = escaping[path].text.split("\n")
        return got

    roots = [c.root for c in ctx.sub.configs] + [ctx.sub.manifest_node] + ctx.sub.scan_only_trees + \
        [obj for _display, obj in ctx.sub.k8s_objects]
    for n in (node for root in roots for node in nodes(root)):
        hits: list[tuple[str, YScalar]] = []
        if isinstance(n, YScalar):
            if escaping and isinstance(n.value, str) and _escaped_scalar(n, lines_of):
                sp = n.span
                last = sp.end_col - 1 if sp.end_line == sp.line else 1 << 30
                if any(sp.col - 1 <= x < last for x in starts.get((sp.path, sp.line), ())):
                    continue
                for what, pattern in tokens:
                    m = pattern.search(n.value)
                    if m:
                        starts.setdefault((sp.path, sp.line), []).append(sp.col - 1)
                        reported.add((sp.path, sp.line, sp.col - 1))
                        yield Finding("RED002", f"{what} {mask(m.group(0))} is published (written with YAML "
                                                f"escapes); revoke it and pass it from the environment",
                                      sp, secret=True)
                        break
            continue
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

    # every file the unit read: also those no other rule reads (YAML that is no engine config,
    # the bytes of a file that is no text, where only token formats are looked for)
    for tf in ctx.sub.texts + ctx.sub.scan_only:
        regions = prose.get(tf.display) or []
        # what a file cannot hold anywhere is not looked for line by line (most files hold no
        # credential): a pattern without a match in the whole text (^ and $ at line ends) has
        # none in any line, a name that is no substring of it is in no line
        # (a literal every match of a pattern holds rules it out first, prefilter.may_match); and only the
        # lines that can hold a finding are scanned: with no token or shape pattern left, those
        # that hold a credential name (an assignment's name is written in its line) or a key name
        # (_key_lines)
        text = tf.text
        text_tokens = [(what, pattern) for what, pattern in tokens if prefilter.may_match(pattern, text)]
        text_shapes = [shape for shape in shapes if prefilter.may_match(shape[1], text)] if not tf.lossy else []
        text_names = {n for n in names if n in text} if not tf.lossy else set()
        key_lines = _key_lines(text, key_names, key_suffixes) if not tf.lossy else set()
        lines = text.split("\n")
        todo: "range | list[int]" = range(1, len(lines) + 1)
        if not text_tokens and not text_shapes:
            name_lines = prefilter.lines_holding(text, text_names)
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
    yield from _yaml_credentials(ctx, flags, named, tokens, not_secret, placeholder_re, reported)


