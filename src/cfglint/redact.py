"""The one place where credentials are taken out of everything cfglint prints or writes.

RED002 (checks/redaction.py) finds credentials in the linted files and marks its findings
``secret`` with the credential's span. :func:`mask_result` then, once per run and before any
report, baseline or SARIF fingerprint is made:

- collects the credential values (the source text at those spans);
- replaces them, and every fragment of 8 or more characters of them, in every finding's
  message and related messages (a message may quote a value cut short: ``') hf_Abc...'``);
- replaces them in the source lines kept for output (the echoed line in text output, the
  line text SARIF fingerprints and baselines hash) with ``*`` of the same length, so carets
  and columns stay right;
- as a fallback for text that never went through RED002 (an internal error's text), hides
  anything that has a token format (rules/secrets.yaml ``tokens``).

No character of a credential is ever shown: a message says ``<secret>`` instead, and RED002's
own message gives only the kind and the length (:func:`placeholder`).

Cost is linear in the text scanned: fragments are found with an index of 5-character pieces
of the credentials taken every 4 characters (any 8 characters of a credential hold one), each
hit checked against its credential.
"""

from __future__ import annotations

import re
from typing import Iterable

SHOWN = "<secret>"        # what a message shows in place of a credential
FRAGMENT = 8              # a run of this many characters of a credential is hidden wherever it appears
SHORTEST = 4              # shorter credentials are hidden only at their own span (a message may say "1")
_K, _STRIDE = 5, 4        # _K + _STRIDE - 1 == FRAGMENT: every 8-character fragment holds an indexed piece


def placeholder(secret: str) -> str:
    """What RED002 says instead of a credential: its length, never a character of it."""
    return f"<secret, {len(secret)} chars>"


class Redactor:
    """Hides a set of credential values (and every fragment of FRAGMENT+ characters of them) in
    any string. Build it once per run; :meth:`ranges` is linear in the text."""

    def __init__(self, secrets: Iterable[str], fallback: re.Pattern | None = None):
        self.secrets = sorted({s for s in secrets if len(s) >= SHORTEST}, key=len, reverse=True)
        self.fallback = fallback
        self.short: set[str] = {s for s in self.secrets if len(s) < _K}
        self.index: dict[str, list[tuple[int, int]]] = {}
        for j, s in enumerate(self.secrets):
            if len(s) < _K:
                continue
            offsets = list(range(0, len(s) - _K + 1, _STRIDE))
            if offsets[-1] != len(s) - _K:
                offsets.append(len(s) - _K)
            for off in offsets:
                self.index.setdefault(s[off: off + _K], []).append((j, off))

    def __bool__(self) -> bool:
        return bool(self.secrets) or self.fallback is not None

    def ranges(self, text: str) -> list[tuple[int, int]]:
        """Sorted, merged ``[start, end)`` ranges of ``text`` to hide."""
        found: list[tuple[int, int]] = []
        if self.index or self.short:
            n, i = len(text), 0
            index, short = self.index, self.short
            while i <= n - min(_K, SHORTEST):
                hit = None
                if short and text[i: i + SHORTEST] in short:
                    hit = (i, i + SHORTEST)
                for j, off in index.get(text[i: i + _K], ()) if index else ():
                    r = self._extend(text, i, self.secrets[j], off)
                    if r is not None and (hit is None or r[1] > hit[1]):
                        hit = (min(r[0], hit[0]) if hit else r[0], r[1])
                if hit is not None:
                    found.append(hit)
                    i = max(i + 1, hit[1] - _K + 1)
                else:
                    i += 1
        if self.fallback is not None:
            found += [(m.start(), m.end()) for m in self.fallback.finditer(text)]
        if not found:
            return []
        found.sort()
        merged = [found[0]]
        for a, b in found[1:]:
            if a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
            else:
                merged.append((a, b))
        return merged

    @staticmethod
    def _extend(text: str, i: int, secret: str, off: int) -> tuple[int, int] | None:
        """The run of ``text`` around position ``i`` (where ``secret[off:off+_K]`` starts) that
        equals the corresponding part of ``secret``, when it is long enough to hide."""
        start = i - off   # where the secret would start in text
        a = i
        if off and start >= 0 and text.startswith(secret[:off], start):
            a = start
        else:
            while a > 0 and a - 1 - start >= 0 and text[a - 1] == secret[a - 1 - start]:
                a -= 1
        b = i + _K
        rest = secret[off + _K:]
        if rest and text.startswith(rest, b):
            b += len(rest)
        else:
            while b < len(text) and b - start < len(secret) and text[b] == secret[b - start]:
                b += 1
        return (a, b) if b - a >= min(FRAGMENT, len(secret)) else None

    def hide(self, text: str, same_length: bool = False) -> str:
        """``text`` with credentials replaced: by ``*`` of the same length (source lines, whose
        columns must stay right) or by SHOWN (messages)."""
        if not self or not text:
            return text
        ranges = self.ranges(text)
        if not ranges:
            return text
        out, last = [], 0
        for a, b in ranges:
            out.append(text[last:a])
            out.append("*" * (b - a) if same_length else SHOWN)
            last = b
        out.append(text[last:])
        return "".join(out)


def token_pattern(table: dict) -> re.Pattern | None:
    """One pattern for every token format of rules/secrets.yaml (``tokens``)."""
    parts = [t["pattern"] for t in table.get("tokens") or [] if isinstance(t, dict) and t.get("pattern")]
    return re.compile("|".join(f"(?:{p})" for p in parts)) if parts else None


def mask_result(findings, sources: dict[str, list[str]], fallback: re.Pattern | None = None) -> None:
    """Hide every credential RED002 located (``Finding.secret``) in ``sources`` (display path ->
    lines, changed in place: the lines findings point at) and in every finding's message,
    related messages and fix. Linear in the lines and messages it touches."""
    secrets: set[str] = set()
    by_line: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for f in findings:
        s = f.span
        lines = sources.get(s.path)
        if f.secret and lines and s.line == s.end_line and 1 <= s.line <= len(lines):
            line = lines[s.line - 1]
            secret = line[s.col - 1: s.end_col - 1]
            if secret:
                secrets.add(secret)
                by_line.setdefault((s.path, s.line), []).append((s.col - 1, s.end_col - 1))
    redactor = Redactor(secrets, fallback)
    # every line a finding points at (the echoed line, the line a fingerprint hashes)
    shown = {(f.span.path, f.span.line) for f in findings} | set(by_line)
    for path, lineno in shown:
        lines = sources.get(path)
        if not lines or not 1 <= lineno <= len(lines):
            continue
        line = lines[lineno - 1]
        spans = sorted(by_line.get((path, lineno), []))
        if spans:  # each located credential, whatever its length
            out, last = [], 0
            for a, b in spans:
                a = max(a, last)
                if b > a:
                    out.append(line[last:a])
                    out.append("*" * (b - a))
                    last = b
            out.append(line[last:])
            line = "".join(out)
        lines[lineno - 1] = redactor.hide(line, same_length=True)
    if not redactor:
        return
    for f in findings:
        f.message = redactor.hide(f.message)
        f.related = [(span, redactor.hide(text)) for span, text in f.related]
        if f.fix is not None:
            f.fix = redactor.hide(f.fix)


__all__ = ["FRAGMENT", "Redactor", "SHOWN", "mask_result", "placeholder", "token_pattern"]
