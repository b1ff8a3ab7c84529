"""The one place where credentials are taken out of everything cfglint prints or writes.

RED002 (checks/secrets.py) finds credentials in the linted files and marks its findings
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
own message gives only the kind and the length (:func:`cfglint.checks.secrets.placeholder`).

Cost is linear in the credentials and in the text scanned (:class:`Redactor`).
"""

from __future__ import annotations

import re
from typing import Iterable

SHOWN = "<secret>"        # what a message shows in place of a credential
FRAGMENT = 8              # a run of this many characters of a credential is hidden wherever it appears
SHORTEST = 4              # shorter credentials are hidden only at their own span (a message may say "1")


class Redactor:
    """Hides a set of credential values in any string: every run of FRAGMENT characters that
    occurs in one of them (so the whole value, and any piece of 8+ characters a message quotes
    after cutting it short), and every whole value of SHORTEST to FRAGMENT - 1 characters.

    The FRAGMENT-character pieces of the credentials are kept in a Bloom filter (a bit array
    of at least 2**23 bits (1 MiB), 16 to 32 per piece, three probes): memory and time stay linear however
    many credentials share a prefix (``sk-proj-``), and a false positive only hides 8
    characters too many (odds below 1e-9 per window for a few credentials, about 1e-3 for
    hundreds of thousands)."""

    def __init__(self, secrets: Iterable[str], fallback: re.Pattern | None = None):
        values = {s for s in secrets if len(s) >= SHORTEST}
        self.fallback = fallback
        self.short: dict[int, set[str]] = {}
        pieces = 0
        for s in values:
            if len(s) < FRAGMENT:
                self.short.setdefault(len(s), set()).add(s)
            else:
                pieces += len(s) - FRAGMENT + 1
        self.any = bool(values)
        self.bits = 1 << max(23, (16 * pieces).bit_length())
        self.filter = bytearray(self.bits >> 3) if pieces else None
        f, mask = self.filter, self.bits - 1
        for s in values:
            for i in range(len(s) - FRAGMENT + 1):
                h = hash(s[i: i + FRAGMENT])
                for p in (h & mask, (h >> 21) & mask, (h >> 42) & mask):
                    f[p >> 3] |= 1 << (p & 7)

    def __bool__(self) -> bool:
        return self.any or self.fallback is not None

    def ranges(self, text: str) -> list[tuple[int, int]]:
        """Sorted, merged ``[start, end)`` ranges of ``text`` to hide. Linear in ``text``."""
        found: list[tuple[int, int]] = []
        if self.filter is not None:
            f, mask = self.filter, self.bits - 1
            a = b = -1   # the run of hidden windows being built (merged as they come, in order)
            for i in range(len(text) - FRAGMENT + 1):
                h = hash(text[i: i + FRAGMENT])
                p = h & mask   # most windows stop at the first probe
                if f[p >> 3] >> (p & 7) & 1:
                    p, q = (h >> 21) & mask, (h >> 42) & mask
                    if f[p >> 3] >> (p & 7) & 1 and f[q >> 3] >> (q & 7) & 1:
                        if i > b:
                            if b >= 0:
                                found.append((a, b))
                            a = i
                        b = i + FRAGMENT
            if b >= 0:
                found.append((a, b))
        for n, values in self.short.items():
            found += [(i, i + n) for i in range(len(text) - n + 1) if text[i: i + n] in values]
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


def _located(findings, sources: dict[str, list[str]]) -> tuple[set[str], dict[tuple[str, int], list[tuple[int, int]]]]:
    """The credentials RED002 located (the source text at each secret finding's span) and, per
    (path, line), the column ranges they take."""
    secrets: set[str] = set()
    by_line: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for f in findings:
        s = f.span
        lines = sources.get(s.path)
        if not (f.secret and lines and 1 <= s.line <= s.end_line <= len(lines)):
            continue
        # a credential written over several lines (backslash-newline inside it): each line's part
        for lineno in range(s.line, s.end_line + 1):
            line = lines[lineno - 1]
            a = s.col - 1 if lineno == s.line else 0
            b = s.end_col - 1 if lineno == s.end_line else len(line)
            secret = line[a:b].rstrip("\\") if lineno < s.end_line else line[a:b]
            if secret:
                secrets.add(secret)
                by_line.setdefault((s.path, lineno), []).append((a, a + len(secret)))
    return secrets, by_line


def redactor_of(findings, sources: dict[str, list[str]], fallback: re.Pattern | None = None) -> Redactor:
    """A :class:`Redactor` of the credentials RED002 located in ``sources`` (display path ->
    lines), with ``fallback`` (token formats) for the rest: for text shown from the files
    themselves outside a report (``cfglint explain``)."""
    return Redactor(_located(findings, sources)[0], fallback)


def mask_result(findings, sources: dict[str, list[str]], fallback: re.Pattern | None = None) -> Redactor:
    """Hide every credential RED002 located (``Finding.secret``) in ``sources`` (display path ->
    lines, changed in place: the lines findings point at) and in every finding's message,
    related messages, fix and suppression reason. Linear in the lines and messages it touches.
    Returns the :class:`Redactor` of the run's credentials, for text shown later from the files
    themselves (``--diff``, ``--show-fixes``)."""
    secrets, by_line = _located(findings, sources)
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
        return redactor
    for f in findings:
        f.message = redactor.hide(f.message)
        f.related = [(span, redactor.hide(text)) for span, text in f.related]
        if f.fix is not None:
            f.fix = redactor.hide(f.fix)
        if f.suppressed:  # a suppression reason is the contributor's own text
            f.suppressed = redactor.hide(f.suppressed)
    return redactor


__all__ = ["FRAGMENT", "Redactor", "SHOWN", "mask_result", "redactor_of", "token_pattern"]
