"""``--fix``: apply mechanical fixes (a finding's ``fix`` text replaces its span) in place.

Only the span's characters change: comments, quoting, indentation and line ends elsewhere in
the file stay byte for byte.
"""

from __future__ import annotations

from collections import defaultdict

from .model import Finding
from .safeio import atomic_write, read_bytes


def _whole(text: str) -> bool:
    """Whether ``text`` (the characters a fix replaces) holds whole shell words' parts: no
    expansion, bracket or quote opened or closed outside it (``${X`` without its ``}``)."""
    pairs = (("${", "}"), ("$(", ")"), ("[", "]"))
    if any(text.count(o) != text.count(c) for o, c in pairs):
        return False
    return text.count('"') % 2 == 0 and text.count("'") % 2 == 0 and text.count("`") % 2 == 0


def apply_fixes(findings: list[Finding], paths: dict[str, str]) -> int:
    """Apply the fixes of active single-line findings. ``paths`` maps a display path to the
    file's real path. A fix whose span would cut a shell expansion, bracket or quote in two is
    not applied. Returns the number of replacements made; raises OSError."""
    per_file: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.fix is not None and not f.suppressed and f.span.line == f.span.end_line and f.span.path in paths:
            per_file[f.span.path].append(f)
    done = 0
    for display, fs in per_file.items():
        path = paths[display]
        text = read_bytes(path).decode("utf-8")  # safeio: no FIFO, no device, no link loop
        lines = text.split("\n")
        seen = set()
        for f in sorted(fs, key=lambda f: (f.span.line, f.span.col), reverse=True):
            key = (f.span.line, f.span.col, f.span.end_col)
            if key in seen:
                continue
            seen.add(key)
            line = lines[f.span.line - 1]
            if not _whole(line[f.span.col - 1: f.span.end_col - 1]):
                continue
            lines[f.span.line - 1] = line[: f.span.col - 1] + f.fix + line[f.span.end_col - 1:]
            done += 1
        atomic_write(path, "\n".join(lines))  # temp file + rename; refuses a symbolic link
    return done
