"""The corpus probe (issue 23): every launch of a corpus file gets a bogus flag, and cfglint
must report it (FLG001, or the engine-YAML schema rule for a bogus key) or say in COV001 why
the launch could not be read. Used by tests/test_corpus.py; the files are read in place and
the changed copy is written to a temporary directory, never to the corpus.

How a flag is injected, per launch (a process of the deployment cfglint extracted): right
before the first flag the launch gives on its command line, in the same syntax as that flag
is written (a shell word, a word inside a ``bash -c`` YAML string, a new item of a YAML block
list, a new item of a YAML flow list). A launch whose first flag is a line of its own in a
``>``-folded or ``|`` scalar gets the flag on that line. An engine YAML gets a bogus top-level
key. A launch with no flag on its command line is probed through its position: the probe
word goes right after the launcher's last word on the launch line. A launch whose flags are the
keys of a JSON service config (a Dynamo SDK graph's DYN_DEPLOYMENT_CONFIG) gets a bogus key
before the last key of its own section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cfglint.lint import lint_paths, lint_unit_deployment
from cfglint.load.submission import load_loose_file

PROBE = "--cfglint-probe-flag"
PROBE_KEY = "cfglint_probe_key"


@dataclass
class Launch:
    """One launch of a file: its launcher, where it starts, where the probe goes."""

    launcher: str
    line: int
    text: str | None      # the file with the probe injected, or None when no place was found
    how: str


def _insert(text: str, line: int, col: int, what: str) -> str:
    lines = text.split("\n")
    s = lines[line - 1]
    lines[line - 1] = s[:col - 1] + what + s[col - 1:]
    return "\n".join(lines)


def _probe_at_arg(text: str, line: int, col: int) -> tuple[str, str]:
    """The file with the probe placed before the word at (line, col) of ``text``."""
    lines = text.split("\n")
    src = lines[line - 1]
    before = src[:col - 1]
    m = re.match(r"^(\s*)- ?[\"']?$", before)
    if m:   # a YAML block-list item: a new item before it
        indent = before[:before.index("-")]
        new = lines[:line - 1] + [f"{indent}- \"{PROBE}\""] + lines[line - 1:]
        return "\n".join(new), "block list item"
    if re.search(r"[\[,]\s*[\"']?$", before) and src.lstrip().startswith(("command", "args", "-", "[")) is not None \
            and re.search(r"\[[^\]]*$", before):
        q = before[-1] if before and before[-1] in "\"'" else ""
        at = col - 1 - len(q)
        return _insert(text, line, at + 1, f"\"{PROBE}\", "), "flow list item"
    return _insert(text, line, col, PROBE + " "), "word"


def _probe_after_launcher(text: str, p, sub) -> tuple[str | None, str]:
    """A launch with no flag on its command line: the probe right after the launcher's last word
    on the launch line (``python3 -m dynamo.frontend``), or, for a Kubernetes container whose
    launch is an operator's preset (KServe's ``main``), as the container's ``args``."""
    c = p.pod
    if c is not None and c.node.get("command") is None and c.node.get("args") is None:
        name = c.node.get("name")
        if name is None:
            return None, "no place for a probe"
        line = name.span.line
        lines = text.split("\n")
        src = lines[line - 1]
        indent = src[:src.index("name")]
        indent = indent.replace("-", " ")
        return "\n".join(lines[:line] + [f"{indent}args: [\"{PROBE}\"]"] + lines[line:]), "container args"
    last = p.launcher.split()[-1]
    lines = text.split("\n")
    src = lines[p.span.line - 1] if 0 < p.span.line <= len(lines) else ""
    at = src.find(last, p.span.col - 1)
    if at < 0:
        return None, "no place for a probe"
    return _insert(text, p.span.line, at + len(last) + 1, " " + PROBE), "after the launcher"


def launches(path: Path) -> list[Launch]:
    """Every launch cfglint extracts from ``path`` (linted on its own), each with the file's
    text carrying one bogus flag for it."""
    text = path.read_text(encoding="utf-8")
    sub = load_loose_file(str(path))
    _findings, dep = lint_unit_deployment(sub)
    out: list[Launch] = []
    seen: set[tuple[int, int]] = set()
    for p in dep.processes:
        if p.synthetic or p.kind not in ("engine", "frontend", "router"):
            continue
        cli = [a for a in p.args if a.origin == "cli" and a.span.path == sub.display]
        if p.span.path == sub.display and path.suffix in (".yaml", ".yml") and not sub.k8s_objects and not cli:
            continue
        if cli:
            first = min(cli, key=lambda a: (a.span.line, a.span.col))
            last = max(cli, key=lambda a: (a.span.line, a.span.col))
            if _json_key(text, last):
                # arguments built from a JSON service config (Dynamo SDK DYN_DEPLOYMENT_CONFIG): a key of the
                # service's own section, before its last one (a Common key counts only where a service lists it)
                key = (last.span.line, last.span.col)
                if key not in seen:
                    seen.add(key)
                    probed = _insert(text, last.span.line, last.span.col, f"\"{PROBE[2:]}\":1,")
                    out.append(Launch(p.launcher, p.span.line, probed, "JSON key"))
                continue
            key = (first.span.line, first.span.col)
            if key in seen:
                continue
            seen.add(key)
            src = text.split("\n")[first.span.line - 1]
            last = p.launcher.split()[-1]
            if re.match(r"^\s*- ?[\"']$", src[:first.span.col]) and last in src[first.span.col:]:
                # the whole script is one quoted list item (sh -c "python3 -m ... --flag"), placed as
                # one word: the probe goes inside it, after the launcher
                at = src.index(last, first.span.col) + len(last)
                probed, how = _insert(text, first.span.line, at + 1, " " + PROBE), "inside a quoted script item"
            else:
                probed, how = _probe_at_arg(text, first.span.line, first.span.col)
            out.append(Launch(p.launcher, p.span.line, probed, how))
        else:
            probed, how = _probe_after_launcher(text, p, sub)
            out.append(Launch(p.launcher, p.span.line, probed, how))
    return out


def _json_key(text: str, arg) -> bool:
    """``arg`` is a key of a JSON mapping written inside the file (``{"max-num-batched-tokens":...``),
    not a word of a command line."""
    lines = text.split("\n")
    src = lines[arg.span.line - 1] if 0 < arg.span.line <= len(lines) else ""
    key = arg.written[2:] if arg.written.startswith("--") else arg.written
    return src[arg.span.col - 1:].startswith(f'"{key}":') and src[:arg.span.col - 1].rstrip()[-1:] in ("{", ",")


def engine_yaml_probe(path: Path) -> str:
    """An engine YAML with a bogus top-level key added at its end."""
    text = path.read_text(encoding="utf-8")
    return text + ("" if text.endswith("\n") else "\n") + f"{PROBE_KEY}: 1\n"


def reported(tmp: Path, text: str, name: str, needle: str = PROBE) -> tuple[bool, list[str]]:
    """Lint ``text`` written as ``tmp/name``: (a finding names ``needle``, the COV001 gaps)."""
    target = tmp / name
    target.write_text(text, encoding="utf-8")
    result = lint_paths([str(target)])
    named = any(needle in f.message for f in result.findings if f.rule_id != "COV001")
    gaps = [m for f in result.findings if f.rule_id == "COV001" for _s, m in f.related]
    return named, gaps
