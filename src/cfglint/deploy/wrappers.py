"""Wrappers: the commands that start another command (``docker run IMAGE cmd``, ``mpirun -n 4
cmd``, ``srun -N 2 cmd``, ``torchrun -m module``, ``env -u X A=1 cmd``, ``nohup cmd``,
``bash -c "cmd"`` ...).

What each wrapper's options look like is data, ``rules/engines.yaml`` ``wrappers.commands``
(each entry cites the tool's man page or docs): which options take no value, one value or two,
which carry environment (``-e NAME=VALUE``, ``-x``, ``-genv NAME VALUE``), MPI ranks, node
counts, processes per node, GPUs, hosts or the container image, and how many positional words
come before the wrapped command. :func:`unwrap` applies them until the first word is no
wrapper. A new wrapper is a new data entry; this module only interprets the entry's keys.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import field

from ..model import Located, Span, parse_int, record
from ..read.shell import Command, Word

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SHORT_CLUSTER = re.compile(r"^-[A-Za-z]{2,}$")
SPLICE = re.compile(r'^"?(\$@|\$\*|\$\{@\}|\$\{[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\})"?$')   # words of a number not known


@record
class Unwrapped:
    """The wrapped command and what its wrappers said about it.

    ``words`` is the command the wrappers run (empty when it is a shell string, then in
    ``shell_string``); ``env`` its environment (the caller's dict, updated in place).
    ``ranks``: MPI / srun task count; ``nodes``: srun -N / torchrun --nnodes; ``per_node``:
    processes per node; ``gpus``: docker --gpus / srun --gpus value as written; ``hosts``: the
    host list of mpirun -H / srun -w; ``image``: the container image; ``entrypoint``: the
    ``docker run --entrypoint`` that replaced the image's own (then ``words`` start with it, the
    words after the image being its arguments). ``chain``: the wrapper names, outermost first.
    """

    words: list[Word]
    env: dict[str, Word]
    image: Located | None = None
    entrypoint: Located | None = None
    container: Located | None = None       # the container run (docker run / podman run), at its first word
    ipc: Located | None = None             # docker run --ipc value
    shm_size: Located | None = None        # docker run --shm-size value as written
    shm_mounted: Located | None = None     # a -v SRC:/dev/shm bind
    ranks: Located | None = None
    nodes: Located | None = None
    per_node: Located | None = None
    gpus: Located | None = None
    hosts: Located | None = None
    env_files: list[Located] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)
    shell_string: Word | None = None


def _as_int(text: str) -> int | None:
    return parse_int(text, signed=False)


def set_env(word: Word, env: dict[str, Word]) -> None:
    """``NAME=VALUE`` in ``word`` -> ``env[NAME]``, the value's span starting after the ``=``."""
    name, sep, value = word.text.partition("=")
    if sep and NAME.match(name):
        offset = len(word.raw) - len(word.raw.split("=", 1)[1]) if "=" in word.raw else 0
        s = word.span
        vspan = Span(s.path, s.line, s.col + offset, s.end_line, s.end_col) if s.line == s.end_line else s
        env[name] = Word(value, value, vspan, word.static)


def _inline(word: Word, name: str, value: str) -> Word:
    """The ``value`` part of ``--opt=value`` as a word of its own."""
    s = word.span
    col = s.col + len(name) + 1 if s.line == s.end_line else s.col
    return Word(value, value, Span(s.path, s.line, col, s.end_line, s.end_col), word.static)


class Wrappers:
    """The wrapper table (``rules/engines.yaml`` ``wrappers``)."""

    def __init__(self, data: dict | None):
        self.specs: list[dict] = [s for s in ((data or {}).get("commands") or []) if isinstance(s, dict)]

    def match(self, words: list[Word]) -> tuple[dict, int] | None:
        """(spec, words its name takes) of the wrapper ``words`` start with, or None."""
        if not words:
            return None
        head = os.path.basename(words[0].text)
        for spec in self.specs:
            m = spec.get("match") or []
            if not m or head not in [m[0], *(spec.get("also") or [])]:
                continue
            if [w.text for w in words[1:len(m)]] == list(m[1:]):
                return spec, len(m)
        return None

    def unwrap(self, words: list[Word], env: dict[str, Word]) -> Unwrapped:
        """Strip every wrapper in front of the command; see :class:`Unwrapped`."""
        out = Unwrapped(list(words), env)
        while True:
            found = self.match(out.words)
            if found is None:
                return out
            spec, start = found
            out.chain.append(" ".join(spec["match"]) if len(spec["match"]) > 1 else os.path.basename(out.words[0].text))
            rest = self._one(spec, out.words, start, out)
            if rest is None:  # bash -c "...": the command is a string
                out.words = []
                return out
            out.words = rest

    # -- one wrapper -------------------------------------------------------------------
    @staticmethod
    def _arity(spec: dict, name: str) -> int:
        """Words an option written without ``=`` takes, itself included."""
        if name in (spec.get("pairs") or ()):
            return 3
        if name in (spec.get("flags") or ()):
            return 1
        valued = ("values", "env", "env_files", "env_exports", "unset", "ranks", "nodes", "per_node", "gpus",
                  "hosts", "images", "entrypoint", "ipc", "shm_size", "volumes")
        if any(name in (spec.get(k) or ()) for k in valued):
            return 2
        if spec.get("short_flag_clusters") and SHORT_CLUSTER.match(name) and \
                all(f"-{c}" in (spec.get("flags") or ()) for c in name[1:]):
            return 1
        return 2 if spec.get("default", "value") == "value" else 1

    def _one(self, spec: dict, words: list[Word], i: int, out: Unwrapped) -> list[Word] | None:
        module = shell_c = False  # a --no-python positional is a program: what ``rest`` holds anyway
        entrypoint: list[Word] = []
        if spec.get("image_positional") and out.container is None:
            out.container = Located(" ".join(spec["match"]), words[0].span)
        while i < len(words):
            w = words[i]
            t = w.text
            if t == "--":
                i += 1
                break
            if not w.static and SPLICE.match(w.raw) and spec.get("image_positional") and i + 1 < len(words):
                i += 1   # "${ARGS[@]}" / "$@" before the image: options of a number not known statically
                continue
            if not (t.startswith("-") or (spec.get("shell") and t.startswith("+"))) or (
                    t == "-" and "-" not in (spec.get("clear_env") or ())):
                break
            name, eq, inline = t.partition("=") if t.startswith("--") or re.match(r"^-[A-Za-z]+=", t) else (t, "", "")
            if spec.get("underscores") and name.startswith("--"):
                name = "--" + name[2:].replace("_", "-")
            if spec.get("shell") and re.fullmatch(r"-[A-Za-z]*c[A-Za-z]*", name):
                shell_c = True
            width = 1 if eq else self._arity(spec, name)
            values = [_inline(w, t.partition("=")[0], inline)] if eq else words[i + 1:i + width]
            if not eq and len(values) < width - 1:
                return []  # the option's value is missing: nothing is wrapped
            self._record(spec, name, values, out)
            if name in (spec.get("entrypoint") or ()) and values:
                entrypoint = values[:1]
            module = module or name in (spec.get("module") or ())
            i += width
        if spec.get("host_positional") and i < len(words):  # ssh HOST command: it runs on HOST
            out.hosts = Located(words[i].text, words[i].span)
            i += 1
            if spec.get("remote_shell") and len(words) == i + 1:
                out.shell_string = words[i]
                return None
        if spec.get("assignments"):
            while i < len(words) and ASSIGNMENT.match(words[i].text):
                set_env(words[i], out.env)
                i += 1
        if shell_c:
            if i < len(words):
                out.shell_string = words[i]
            return None
        if spec.get("image_positional") and i < len(words):
            out.image = Located(words[i].text, words[i].span)
            i += 1
        i += int(spec.get("positional") or 0)
        rest = words[i:]
        if entrypoint:  # --entrypoint PROGRAM: it runs the words after the image ('' resets it: they run alone)
            out.entrypoint = Located(entrypoint[0].text, entrypoint[0].span)
            rest = [entrypoint[0], *rest] if entrypoint[0].text or not entrypoint[0].static else rest
        if module and rest:  # torchrun -m MODULE: the module runs as python -m MODULE
            m = rest[0]
            rest = [Word("python3", "python3", m.span), Word("-m", "-m", m.span), *rest]
        return rest

    @staticmethod
    def _record(spec: dict, name: str, values: list[Word], out: Unwrapped) -> None:
        if name in (spec.get("clear_env") or ()):
            out.env.clear()
        if not values:
            return
        v = values[0]
        if name in (spec.get("env") or ()):
            set_env(v, out.env)
        elif name in (spec.get("env_pairs") or ()) and len(values) == 2 and NAME.match(v.text):
            out.env[v.text] = values[1]
        elif name in (spec.get("env_exports") or ()):
            for part in v.text.split(","):
                set_env(Word(part, part, v.span, v.static), out.env)
        elif name in (spec.get("unset") or ()):
            out.env.pop(v.text, None)
        elif name in (spec.get("env_files") or ()):
            out.env_files.append(Located(v.text, v.span))
        elif name in (spec.get("images") or ()):
            out.image = Located(v.text, v.span)
        for key in ("ranks", "nodes", "per_node"):
            if name in (spec.get(key) or ()):
                n = _as_int(v.text) if v.static else None
                if n is not None:
                    setattr(out, key, Located(n, v.span))
        for key in ("gpus", "hosts", "ipc", "shm_size"):
            if name in (spec.get(key) or ()):
                setattr(out, key, Located(v.text, v.span))
        if name in (spec.get("volumes") or ()) and v.text.split(":")[1:2] == ["/dev/shm"]:
            out.shm_mounted = Located(v.text, v.span)


# ---------------------------------------------------------------------------------------
def shell_string_commands(word: Word, errors: list[Span] | None = None) -> list[Command]:
    """The commands of a ``bash -c STRING`` string, with spans in the launch file; the place of
    the string's first shell syntax error, if any, is appended to ``errors``.

    Positions are exact when the string is written as one quoted (or bare) word whose text is
    its source (no escapes or expansions inside); otherwise every span is the string's own.
    A string built in part from values known only at run time is read all the same: those
    parts keep their ``$NAME`` text, which the inner parse sees as unknown values.
    """
    from ..read.shell import ParserCrash, parse_shell
    from ..read.shell.positions import PlacedText

    if not word.text.strip():
        return []
    raw, text = word.raw, word.text
    quote = 1 if len(raw) >= 2 and raw[0] in "'\"" and raw[-1] == raw[0] and raw[1:-1] == text else \
        0 if raw == text else None
    try:
        inner = parse_shell(text, word.span.path)
    except ParserCrash:
        return []
    s = word.span
    where = PlacedText(text, word.where, s) if word.where is not None and len(word.where) == len(text) else None

    def move(sp: Span) -> Span:
        if where is not None:
            return where.span(sp)
        if quote is None or word.where is not None:  # not placed character by character: the word's span
            return s

        def point(line: int, col: int) -> tuple[int, int]:
            return (s.line, s.col + quote + col - 1) if line == 1 else (s.line + line - 1, col)

        l1, c1 = point(sp.line, sp.col)
        l2, c2 = point(sp.end_line, sp.end_col)
        return Span(s.path, l1, c1, l2, c2)

    def word_at(w: Word) -> Word:
        return dataclasses.replace(w, span=move(w.span))

    if inner.errors and errors is not None:
        errors.append(move(min(inner.errors, key=lambda e: (e.line, e.col))))
    out = []
    for cmd in inner.commands:
        out.append(Command([word_at(w) for w in cmd.words],
                           {k: word_at(v) for k, v in cmd.assignments.items()},
                           {k: word_at(v) for k, v in cmd.exported.items()},
                           move(cmd.span), cmd.repeat, cmd.certain))
    return out
