"""The LSP side of ``cfglint server`` (pygls 2 / lsprotocol): the session's answers
(:class:`.session.Session`) as protocol messages. Full-document lints on open, change and save;
documents outside the workspace folders and non-``file:`` URIs get nothing; a handler that fails
logs the error and answers nothing, and the server goes on."""

from __future__ import annotations

import logging

from lsprotocol import types as t
from lsprotocol.converters import get_converter
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from .session import Session

log = logging.getLogger("cfglint.server")
_convert = get_converter()


def _path(uri: str) -> str | None:
    return to_fs_path(uri) if uri.startswith("file:") else None


def _uris(value):
    """``value`` (the session's dictionaries) with each ``uri`` turned from a path into a file URI."""
    if isinstance(value, dict):
        return {k: (from_fs_path(v) if k == "uri" and isinstance(v, str) else _uris(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_uris(v) for v in value]
    return value


class CfglintServer(LanguageServer):
    def __init__(self):
        super().__init__("cfglint", __version__, text_document_sync_kind=t.TextDocumentSyncKind.Incremental)
        self.session = Session()

    def folders_changed(self) -> None:
        folders = [to_fs_path(f.uri) for f in self.workspace.folders.values() if f.uri.startswith("file:")]
        if not folders and self.workspace.root_path:
            folders = [self.workspace.root_path]
        self.session.set_folders([f for f in folders if f])

    def publish(self, diagnostics: dict[str, list[dict]]) -> None:
        for path, found in diagnostics.items():
            doc = self.session.docs.get(path)
            self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
                uri=from_fs_path(path), diagnostics=[_convert.structure(_uris(d), t.Diagnostic) for d in found],
                version=doc.version if doc is not None else None))

    def relint(self, uri: str) -> None:
        path = _path(uri)
        if path is None:
            return
        doc = self.workspace.get_text_document(uri)
        self.session.put(path, doc.source, doc.version)
        if self.session.folder_of(path) is None:
            log.info("%s is outside the workspace folders: not linted", path)
            return
        self.publish(self.session.lint(path))


def build() -> CfglintServer:
    """The server with its handlers registered."""
    server = CfglintServer()

    @server.feature(t.INITIALIZED)
    def initialized(ls: CfglintServer, _params: t.InitializedParams) -> None:
        ls.session.encoding = str(ls.workspace.position_encoding or "utf-16")
        ls.folders_changed()

    @server.feature(t.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders(ls: CfglintServer, _params: t.DidChangeWorkspaceFoldersParams) -> None:
        ls.folders_changed()

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: CfglintServer, params: t.DidOpenTextDocumentParams) -> None:
        ls.relint(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: CfglintServer, params: t.DidChangeTextDocumentParams) -> None:
        ls.relint(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: CfglintServer, params: t.DidSaveTextDocumentParams) -> None:
        ls.relint(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: CfglintServer, params: t.DidCloseTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path is not None:
            ls.publish(ls.session.close(path))

    @server.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                    t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix, "source.fixAll.cfglint"]))
    def code_action(ls: CfglintServer, params: t.CodeActionParams) -> list[t.CodeAction] | None:
        path = _path(params.text_document.uri)
        if path is None:
            return None
        r = params.range
        try:
            found = ls.session.code_actions(path, (r.start.line, r.start.character), (r.end.line, r.end.character))
        except Exception:   # noqa: BLE001 - no action rather than no server
            log.exception("code actions for %s failed", path)
            return None
        only = params.context.only
        if only:
            found = [a for a in found if any(a["kind"] == k or a["kind"].startswith(f"{k}.") for k in only)]
        return [_convert.structure(_uris(a), t.CodeAction) for a in found] or None

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def hover(ls: CfglintServer, params: t.HoverParams) -> t.Hover | None:
        path = _path(params.text_document.uri)
        if path is None:
            return None
        try:
            text = ls.session.hover(path, params.position.line, params.position.character)
        except Exception:   # noqa: BLE001
            log.exception("hover in %s failed", path)
            return None
        if not text:
            return None
        return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text))

    return server
