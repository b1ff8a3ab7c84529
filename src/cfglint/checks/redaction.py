"""RED001: host-specific absolute paths must be published as ``<host-path>``."""

from __future__ import annotations

import posixpath
import re

from ..model import Finding, Span
from . import Context, rule

# An absolute path starts at a '/' that does not continue a word, a placeholder, a variable
# or a relative path, and runs to whitespace, a quote, a separator or a closing bracket.
_PATH = re.compile(r"/+[A-Za-z0-9_.@+~-][^\s'\"`,;:)}\]|<>]*")
_BEFORE_OK = set(" \t=\"'(:[{,>")
_PLACEHOLDER_BEFORE = re.compile(r"<[^<>\s]+>$")
_SHORT_OPTION_BEFORE = re.compile(r"(^|\s)-[A-Za-z]$")   # -v/home/alice:/models


@rule("RED001", "unredacted-host-path", "error",
      "A host-specific path is not redacted as <host-path>.",
      "Published configurations redact host-specific paths (home directories, shared and "
      "scratch file systems, site mounts) as <host-path>: they name users and sites, and they "
      "mean nothing on anyone else's machine. Container-standard paths (/models, /root/.cache, "
      "/opt, /usr, /tmp ...) stay as they are.",
      ("rules/paths.yaml", "seed pages: 'Host-specific paths are redacted as <host-path>.'"),
      tags=("security",))
def check_host_paths(ctx: Context):
    table = ctx.kb.paths
    prefixes = [(e["prefix"], e.get("why", "")) for e in table.get("host_prefixes") or []]
    for tf in ctx.sub.texts:
        for lineno, line in enumerate(tf.text.split("\n"), start=1):
            if "/" not in line:
                continue
            for m in _PATH.finditer(line):
                start = m.start()
                before = line[:start]
                if before and before[-1] not in _BEFORE_OK and not _SHORT_OPTION_BEFORE.search(before):
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
                why = next((w for p, w in prefixes if normalized.startswith(p) or normalized == p.rstrip("/")), None)
                if why is None:
                    continue
                span = Span(tf.display, lineno, start + 1, lineno, start + 1 + len(path))
                yield Finding("RED001",
                              f"host-specific path '{path}' is not redacted ({why}); publish it as <host-path>",
                              span, fix="<host-path>")
