"""What a launch script is once read: its commands of positioned words, the environment each
command sees, the files its heredocs write, the spans of its syntax errors."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field

from ...model import Located, Span, record


@dataclass(slots=True)
class Word:
    """One shell word: ``text`` is its static value, ``raw`` the source text."""

    text: str
    raw: str
    span: Span
    static: bool = True
    # (line, column) of each character of ``text`` when it comes from a source that is not
    # shell (a Kubernetes manifest's YAML scalar): a ``bash -c`` string inside is placed by it
    where: list[tuple[int, int]] | None = None
    # present on some runs only: it comes from a variable or array the script assigns differently in
    # branches (every assignment literal), or from inside a Go template ``{{ if }}...{{ end }}`` block of
    # an ``eval`` string: a flag's name is checked, its presence and value are not known
    conditional: bool = False
    # the values the word takes on different runs, when it is one variable assigned differently in
    # branches and each value is known (``bash -c "$CMD"`` with CMD set in an if / else)
    choices: list[Word] | None = None


class Exports:
    """The variables a script has exported so far, as a log that every command's view shares:
    a copy of the whole environment per command made a script of many ``export`` lines and
    many commands quadratic (in time and in the pickled parse)."""

    def __init__(self):
        self.history: dict[str, tuple[list[int], list[Word]]] = {}  # name -> (versions, values)
        self.order: list[str] = []                                 # names, first export first
        self.version = 0

    def __setitem__(self, name: str, word: Word) -> None:
        self.version += 1
        versions, values = self.history.setdefault(name, ([], []))
        if not versions:
            self.order.append(name)
        versions.append(self.version)
        values.append(word)

    def snapshot(self) -> ExportView:
        """The exported variables as they are now; O(1)."""
        return ExportView(self, self.version, len(self.order))

    def first_exports(self, prefixes: tuple[str, ...]) -> list[tuple[int, str]]:
        """(version of its first export, name) of the names starting with one of ``prefixes``,
        in export order (cached: every command's view asks)."""
        memo = self.__dict__.setdefault("_prefixed", {})
        key = (prefixes, len(self.order))
        if key not in memo:
            memo.clear()
            memo[key] = [(self.history[n][0][0], n) for n in self.order if n.startswith(prefixes)]
        return memo[key]


class ExportView(Mapping):
    """A read-only view of :class:`Exports` at one moment; lookups are a binary search."""

    __slots__ = ("log", "version", "count")

    def __init__(self, log: Exports, version: int, count: int):
        self.log, self.version, self.count = log, version, count

    def __getitem__(self, name: str) -> Word:
        versions, values = self.log.history.get(name, ((), ()))
        i = bisect.bisect_right(versions, self.version) - 1
        if i < 0:
            raise KeyError(name)
        return values[i]

    def __iter__(self):
        return iter(self.log.order[: self.count])

    def __len__(self) -> int:
        return self.count

    def __reduce__(self):
        return ExportView, (self.log, self.version, self.count)

    def names_starting(self, prefixes: tuple[str, ...]) -> list[str]:
        """The visible names that start with one of ``prefixes``, without reading the others."""
        firsts = self.log.first_exports(prefixes)
        return [n for version, n in firsts[:bisect.bisect_right(firsts, (self.version, "\uffff"))]]


class Overlay(MutableMapping):
    """A mapping over read-only ``bases`` (the first that has a key wins) with its own changes
    (set, delete, clear) kept apart: O(1) to make however large the bases are, so giving each
    command its environment costs nothing per inherited variable."""

    def __init__(self, *bases: Mapping):
        self.bases = [b for b in bases if b is not None]
        self.local: dict = {}
        self.hidden: set = set()

    def __getitem__(self, key):
        if key in self.local:
            return self.local[key]
        if key not in self.hidden:
            for base in self.bases:
                if key in base:
                    return base[key]
        raise KeyError(key)

    def __setitem__(self, key, value) -> None:
        self.local[key] = value

    def __delitem__(self, key) -> None:
        if key not in self:
            raise KeyError(key)
        self.local.pop(key, None)
        self.hidden.add(key)

    def clear(self) -> None:
        self.bases, self.local, self.hidden = [], {}, set()

    def __iter__(self):
        seen = set(self.local)
        yield from self.local
        for base in self.bases:
            for key in base:
                if key not in seen and key not in self.hidden:
                    seen.add(key)
                    yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def names_starting(self, prefixes: tuple[str, ...]) -> list[str]:
        """The names of the overlay that start with one of ``prefixes``; a base that can answer
        without listing every name (an :class:`ExportView`) is asked so."""
        out = dict.fromkeys(k for k in self.local if k.startswith(prefixes))
        for base in self.bases:
            names = base.names_starting(prefixes) if hasattr(base, "names_starting") else \
                [k for k in base if k.startswith(prefixes)]
            out.update((k, None) for k in names if k not in self.hidden)
        return [k for k in out if k in self]


@record
class Command:
    """A simple command: argv words, prefix assignments, exported environment, loop count."""

    words: list[Word]
    assignments: dict[str, Word]
    exported: Mapping[str, Word]   # a dict, or an ExportView shared with the other commands
    span: Span
    repeat: Located | None = None  # number of literal loop iterations, with the loop's span
    certain: bool = True           # False: runs an unknown number of times (branch, loop, function)
    origin: object = None          # the Kubernetes container it comes from (cfglint.read.k8s.model.Container)


@record
class WrittenFile:
    """A file the script writes from a heredoc: ``path`` as the script names it (static text,
    or None when the path is not known statically), the body's text as written and the (1-based)
    line where it starts in the script; ``static`` is False when an unquoted heredoc expands
    something not known statically (``$(...)``, a ``$VAR`` the script does not set) inside the body
    (``dynamic``: the first such, as written, and where). An unquoted body with expansions known
    statically is also kept as bash writes it (``expanded``), each of its characters with its offset
    in ``text`` (``origin``: a value put in stands on the ``$VAR`` it replaces)."""

    path: str | None
    text: str
    line: int
    span: Span          # the destination word (or the command when unknown)
    static: bool = True
    after: int = 0      # how many commands the script ran before it: the ones after may edit the file
    append: bool = False  # written with >> (added to what the file holds)
    strip_tabs: bool = False  # written with <<-: bash removes each line's leading tabs (text keeps them)
    certain: bool = True      # False: written on some runs only (in a branch, a loop, a function)
    expanded: str | None = None       # the body once expanded (None: written as it is, a quoted delimiter)
    origin: list[int] | None = None   # offset in ``text`` of each character of ``expanded``
    dynamic: tuple[str, Span] | None = None   # the first expansion known only at run time, and where


@record
class Redirect:
    """A command's output written to a file (``echo x >> f``, ``envsubst < t > f``): the
    file's path as the script names it (None when not known statically), the redirection
    operator, how many commands the script ran before, and where the redirection is."""

    path: str | None
    op: str
    after: int
    span: Span


@record
class ShellScript:
    commands: list[Command] = field(default_factory=list)
    errors: list[Span] = field(default_factory=list)
    text: list[Span] = field(default_factory=list)  # text for a reader (echo/help/comments): text.py
    files: list[WrittenFile] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)   # output written to files, heredocs aside


class ParserCrash(Exception):
    """The native shell parser died on this input (it ran in a child process), or the input
    cannot be read (commands nested too deeply)."""
