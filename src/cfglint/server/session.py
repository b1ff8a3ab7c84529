"""The language server's state and answers, without the protocol (:mod:`.app` speaks LSP):
which workspace folder a file is in, the editor's open buffers, the last lint of each unit (a
submission, or a file linted on its own), and what to publish, fix and show from it.

A change to any file re-lints its whole unit exactly as ``cfglint check FILE`` run at the
workspace folder's top does (same discovery, configuration, rules, masking), with every open
buffer in place of its file (:func:`cfglint.read.safeio.workspace`, confined to the folder, so no
file outside it is read). Diagnostics are LSP dictionaries (camelCase, positions in the
negotiated encoding) for every file the unit read or reported on; a file that had diagnostics
from the unit and has none now gets an empty list. A crash while linting is an IO001 on the
document, never the server's end.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

from ..checks import all_rules
from ..model import Finding, Span
from ..output.neutral import neutralize
from ..output.ruledocs import DOCS_URI
from ..read.safeio import ReadError, inside, workspace
from ..read.textfile import TextFile, read_text
from .positions import BOM, UTF16, byte_offset_to_lsp, from_lsp, split_lines, to_lsp

SEVERITY = {"error": 1, "warning": 2, "note": 3}   # LSP DiagnosticSeverity: Error, Warning, Information
SOURCE = "cfglint"
MAX_ERROR_TEXT = 500   # characters of an internal error's text shown in its IO001


@dataclass(slots=True)
class Document:
    text: str
    version: int | None


@dataclass(slots=True)
class UnitRun:
    """The last lint of one unit: active findings per file (absolute path), the files with fixes
    as the lint read them, each reported file's lines (for positions), and the versions of the
    open documents it saw."""

    key: str
    folder: str
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    files: dict[str, TextFile] = field(default_factory=dict)
    lines: dict[str, list[str]] = field(default_factory=dict)
    bom: dict[str, bool] = field(default_factory=dict)
    versions: dict[str, int | None] = field(default_factory=dict)
    paths: set[str] = field(default_factory=set)


def _contains(span: Span, line: int, col: int) -> bool:
    """Whether 1-based (line, col) is in ``span``, its end included (a cursor just past a word)."""
    return (span.line, span.col) <= (line, col) <= (span.end_line, span.end_col)


class Session:
    """Workspace folders, open documents and the last lint of each unit."""

    def __init__(self, folders: list[str] | None = None, encoding: str = UTF16):
        self.folders: list[str] = []
        self.encoding = encoding
        self.docs: dict[str, Document] = {}      # absolute path -> the editor's buffer
        self.runs: dict[str, UnitRun] = {}       # unit key -> its last lint
        self.owner: dict[str, str] = {}          # absolute path -> key of the unit that last published it
        self.set_folders(folders or [])

    # -- workspace and documents -------------------------------------------------------------
    def set_folders(self, folders: list[str]) -> None:
        self.folders = sorted({os.path.abspath(f) for f in folders}, key=len, reverse=True)

    def folder_of(self, path: str) -> str | None:
        """The innermost workspace folder holding ``path`` (by name, and by real location: a
        link leading out of every folder is not in one); None outside every folder."""
        ap = os.path.abspath(path)
        for folder in self.folders:
            if inside(ap, folder) and inside(os.path.realpath(ap), os.path.realpath(folder)):
                return folder
        return None

    def put(self, path: str, text: str, version: int | None) -> None:
        """Keep the editor's buffer of ``path`` (it replaces the file in every lint)."""
        self.docs[os.path.abspath(path)] = Document(text, version)

    def close(self, path: str) -> dict[str, list[dict]]:
        """Forget the buffer; re-lint its unit from disk while another of its files is open,
        else clear every diagnostic the unit published."""
        ap = os.path.abspath(path)
        self.docs.pop(ap, None)
        key = self.owner.get(ap)
        run = self.runs.get(key) if key else None
        if run is not None and any(p in self.docs for p in run.paths):
            return self.lint(next(p for p in sorted(run.paths) if p in self.docs))
        if run is None:
            return {ap: []}
        self.runs.pop(key, None)
        out = {p: [] for p in run.paths}
        for p in run.paths:
            if self.owner.get(p) == key:
                del self.owner[p]
        return out

    @contextlib.contextmanager
    def _in(self, folder: str):
        """Run inside ``folder`` as ``cfglint check`` run at its top would: that working
        directory, the open buffers in place of their files, no read outside the folder."""
        buffers = {p: d.text.encode("utf-8", "surrogatepass") for p, d in self.docs.items() if inside(p, folder)}
        with contextlib.chdir(folder), workspace(folder, buffers):
            yield

    def _config(self, path: str, folder: str):
        """The root configuration for ``path`` as ``cfglint check`` finds it, looking no higher
        than the workspace folder. Raises ConfigError."""
        from ..policy.config import find_config, load_config, trust_root

        root_dir = trust_root([path])
        if not inside(root_dir, folder):
            root_dir = folder
        cfg = load_config(find_config([path], root_dir, ceiling=folder))
        cfg.root_dir, cfg.read_nested = root_dir, True
        return cfg

    # -- lint -----------------------------------------------------------------------------------
    def lint(self, path: str) -> dict[str, list[dict]]:
        """Lint the unit ``path`` belongs to; the diagnostics to publish, per absolute path
        (an empty list clears a file). A file outside every workspace folder is not linted ({})."""
        ap = os.path.abspath(path)
        folder = self.folder_of(ap)
        if folder is None:
            return {}
        try:
            with self._in(folder):
                run = self._lint(ap, folder)
        except Exception as err:  # noqa: BLE001 - a crash on one document is a finding on it, never the end
            return {ap: [self._crash(ap, folder, err)]}
        out: dict[str, list[dict]] = {p: self.diagnostics(run, p) for p in sorted(run.paths)}
        old = self.runs.get(run.key)
        for p in sorted(old.paths - run.paths) if old else ():
            if self.owner.get(p) == run.key:
                out[p] = []
                del self.owner[p]
        self.runs[run.key] = run
        for p in run.paths:
            self.owner[p] = run.key
        self.owner.setdefault(ap, run.key)
        return out

    def _lint(self, ap: str, folder: str) -> UnitRun:
        from ..lint import lint_paths
        from ..load.discover import discover

        cfg = self._config(ap, folder)
        targets = discover([ap])
        key = targets.submissions[0] if targets.submissions else ap
        result = lint_paths([ap], tuple(cfg.knowledge), cfg.require_reason, cfg.max_file_size, cfg.private_ranges,
                            cfg, jobs=1)
        findings = cfg.apply(result.findings, result.nested)
        run = UnitRun(key, folder)

        def where(display: str) -> str:
            return os.path.abspath(result.paths.get(display, display))

        run.paths = {where(d) for d in result.paths}
        for f in findings:
            if f.suppressed:
                continue
            p = where(f.span.path)
            run.findings.setdefault(p, []).append(f)
            run.paths.add(p)
        for display, tf in result.files.items():
            run.files[where(display)] = tf
        wanted = set(run.findings) | {where(s.path) for fs in run.findings.values() for f in fs for s, _ in f.related}
        for p in wanted:
            run.lines[p], run.bom[p] = self._lines(p, folder)
        run.versions = {p: self.docs[p].version for p in run.paths if p in self.docs}
        if ap not in run.paths:    # a file the unit did not read (e.g. excluded YAML): clear what it had
            run.paths.add(ap)
        return run

    def _lines(self, path: str, folder: str) -> tuple[list[str], bool]:
        """A file's lines as the lint saw them (the buffer, else the file, read inside the
        folder only) and whether the editor's text starts with a byte-order mark."""
        doc = self.docs.get(path)
        if doc is not None:
            return split_lines(doc.text), doc.text.startswith(BOM)
        try:
            tf = read_text(path, path, within=folder)
        except ReadError:
            return [], False
        return tf.lines, tf.data.startswith(BOM.encode("utf-8"))

    def _crash(self, ap: str, folder: str, err: Exception) -> dict:
        from ..policy.config import ConfigError
        from ..read.paths import display_path

        if isinstance(err, ConfigError):
            text = f"cfglint cannot lint {display_path(ap, folder)}: configuration error: {err}"
        else:
            text = (f"cfglint internal error while checking {display_path(ap, folder)}: "
                    f"{type(err).__name__}: {err}")[:MAX_ERROR_TEXT] + "; please report this"
        return {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "severity": 1, "code": "IO001", "codeDescription": {"href": DOCS_URI.format(id="IO001")},
                "source": SOURCE, "message": neutralize(text)}

    # -- diagnostics --------------------------------------------------------------------------
    def range_of(self, run: UnitRun, path: str, span: Span) -> dict:
        lines, bom = run.lines.get(path, []), run.bom.get(path, False)
        sl, sc = to_lsp(lines, span.line, span.col, self.encoding, bom)
        el, ec = to_lsp(lines, span.end_line, span.end_col, self.encoding, bom)
        return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}

    def diagnostics(self, run: UnitRun, path: str) -> list[dict]:
        """The LSP diagnostics of ``path`` from ``run``: one per active finding, with the rule id
        as code, its documentation page as codeDescription, the other side of a mismatch as
        related information; text neutralized as in every output (credentials were masked by the
        lint)."""
        from ..read.paths import display_path

        out = []
        rules = all_rules()
        for f in run.findings.get(path, []):
            d = {"range": self.range_of(run, path, f.span), "severity": SEVERITY.get(f.level or "error", 1),
                 "code": f.rule_id, "source": SOURCE, "message": neutralize(f.message)}
            if f.rule_id in rules:
                d["codeDescription"] = {"href": DOCS_URI.format(id=f.rule_id)}
            related = []
            for span, text in f.related:
                other = os.path.abspath(os.path.join(run.folder, span.path)) if not os.path.isabs(span.path) else span.path
                if other not in run.lines:
                    continue
                related.append({"location": {"uri": other, "range": self.range_of(run, other, span)},
                                "message": neutralize(text) or display_path(other, run.folder)})
            if related:
                d["relatedInformation"] = related
            if f.fix is not None or f.move is not None:
                d["data"] = {"fixable": True}
            out.append(d)
        return out

    # -- code actions -------------------------------------------------------------------------
    def code_actions(self, path: str, start: tuple[int, int], end: tuple[int, int]) -> list[dict]:
        """Quick fixes for the fixable findings of ``path`` whose range meets the LSP range
        ``start``-``end`` (0-based positions), each the edit ``--fix`` would make, and a
        ``source.fixAll.cfglint`` action applying every text fix of the file as ``--fix``
        applies them together. Nothing when the document changed since the lint (its edits
        would be stale) or the file was not read by the last lint."""
        from ..edit.fix import planned_edits, planned_move

        ap = os.path.abspath(path)
        run = self.runs.get(self.owner.get(ap, ""))
        tf = run.files.get(ap) if run else None
        if run is None or tf is None:
            return []
        doc = self.docs.get(ap)
        if doc is not None and run.versions.get(ap) != doc.version:
            return []
        version = run.versions.get(ap)
        actions = []
        shown = dict(zip(map(id, run.findings.get(ap, [])), self.diagnostics(run, ap)))
        fixable = [f for f in run.findings.get(ap, []) if f.fix is not None or f.move is not None]
        for f in fixable:
            rng = self.range_of(run, ap, f.span)
            a, b = (rng["start"]["line"], rng["start"]["character"]), (rng["end"]["line"], rng["end"]["character"])
            if b < start or a > end:
                continue
            if f.fix is not None:
                edits, _notes = planned_edits([f], tf)
                text_edits = [self._edit(tf, e.start, e.end, e.text) for e in edits]
                title = f"cfglint: replace with {f.fix!r} ({f.rule_id})"
            else:
                new, moved, _notes = planned_move([f], tf)
                text_edits = [self._edit(tf, 0, len(tf.data), new)] if new is not None and moved else []
                title = f"cfglint: move {'.'.join(f.move[0])} to {'.'.join(f.move[1])} ({f.rule_id})"
            if text_edits:
                actions.append({"title": title, "kind": "quickfix", "isPreferred": True,
                                "diagnostics": [shown[id(f)]],
                                "edit": self._workspace_edit(ap, version, text_edits)})
        edits, _notes = planned_edits(fixable, tf)
        if edits:
            n = sum(len(e.findings) for e in edits)
            actions.append({"title": f"cfglint: fix {n} finding(s) in this file (as --fix)", "kind": "source.fixAll.cfglint",
                            "edit": self._workspace_edit(ap, version, [self._edit(tf, e.start, e.end, e.text) for e in edits])})
        return actions

    def _edit(self, tf: TextFile, start: int, end: int, text: str) -> dict:
        sl, sc = byte_offset_to_lsp(tf.data, start, self.encoding)
        el, ec = byte_offset_to_lsp(tf.data, end, self.encoding)
        return {"range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}, "newText": text}

    @staticmethod
    def _workspace_edit(path: str, version: int | None, edits: list[dict]) -> dict:
        return {"documentChanges": [{"textDocument": {"uri": path, "version": version}, "edits": edits}]}

    # -- hover --------------------------------------------------------------------------------
    def hover(self, path: str, line0: int, char: int) -> str | None:
        """Markdown for the LSP position: the rule of each diagnostic there (summary and page),
        then what the flag or YAML key under it means (:func:`cfglint.knowledge.flaghelp.flag_help`,
        :func:`cfglint.schema.describe.key_help`). None when there is nothing to say."""
        ap = os.path.abspath(path)
        folder = self.folder_of(ap)
        if folder is None:
            return None
        parts = []
        run = self.runs.get(self.owner.get(ap, ""))
        lines, bom = self._lines_now(ap, folder)
        line, col = from_lsp(lines, line0, char, self.encoding, bom)
        rules = all_rules()
        for f in run.findings.get(ap, []) if run else []:
            r = rules.get(f.rule_id)
            if r is not None and _contains(f.span, line, col):
                parts.append(f"**{r.id}** {r.name} ({f.level}): {r.summary}\n\n[{r.id} documentation]({DOCS_URI.format(id=r.id)})")
        with self._in(folder):
            from .meaning import meaning_at

            try:
                text = meaning_at(ap, folder, line, col, self._config(ap, folder))
            except Exception:  # noqa: BLE001 - a hover that fails shows nothing, the server goes on
                text = None
        if text:
            parts.append(text)
        return "\n\n---\n\n".join(dict.fromkeys(parts)) or None

    def _lines_now(self, path: str, folder: str) -> tuple[list[str], bool]:
        with self._in(folder):
            return self._lines(path, folder)
