"""``cfglint server`` end to end with a real LSP client (pytest-lsp drives the server over stdio):
open, change, save, a code action applied, hover, close, on a copy of a published submission.
The diagnostics are cfglint check's findings, at the same places in the client's encoding."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from support import EXAMPLES, ROOT

KIMI_B300 = "artificial-analysis/kimi-k3/b300-sglang-tp8"
ENV = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
SECRET = "sk-" + "abcdefghij" * 3 + "12345"
# a line with a character outside the BMP (two UTF-16 code units, four UTF-8 bytes) before a
# host path, so the column differs in every encoding
COMMENT = "# 🚀 modèle: /home/alice/models\n"


def _workspace(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLES / KIMI_B300, ws / "sub")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return ws


def _client_fixture(spec: str):
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "cfglint", "server"],
                                                  server_env=ENV))
    async def client(lsp_client: LanguageClient, tmp_path):
        ws = _workspace(tmp_path)
        lsp_client.ws = ws
        await lsp_client.initialize_session(t.InitializeParams(
            capabilities=client_capabilities(spec), root_uri=ws.as_uri(),
            workspace_folders=[t.WorkspaceFolder(uri=ws.as_uri(), name="ws")]))
        yield
        await lsp_client.shutdown_session()

    return client


vscode = _client_fixture("visual-studio-code")
neovim = _client_fixture("neovim")


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


async def _published(client: LanguageClient, uri: str, action) -> list[t.Diagnostic]:
    """Run ``action`` and return the diagnostics the server then publishes for ``uri``."""
    client.diagnostics.pop(uri, None)
    action()
    while uri not in client.diagnostics:
        await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


def _open(client, path, text):
    client.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(
        uri=path.as_uri(), language_id="shellscript" if path.suffix == ".sh" else "yaml", version=1, text=text)))


def _replace_all(client, path, version, text):
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
        [t.TextDocumentContentChangeWholeDocument(text=text)]))


def _apply(text: str, edits: list[t.TextEdit], encoding: str) -> str:
    """``text`` with LSP ``edits`` applied (positions in ``encoding``), last first."""
    lines = text.split("\n")

    def offset(pos: t.Position) -> int:
        line = lines[pos.line]
        k, at = 0, 0
        while k < len(line) and at < pos.character:
            at += _units(line[k], encoding)
            k += 1
        return sum(len(x) + 1 for x in lines[:pos.line]) + k

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


def _check(args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cfglint", "check", "--format", "json", *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=120)


async def _session(client: LanguageClient, encoding: str) -> None:
    ws = client.ws
    run, manifest = ws / "sub" / "run.sh", ws / "sub" / "submission.yaml"
    published = run.read_text()
    assert client.capabilities is not None

    # open: the file as published has no finding but COV001-free silence, as cfglint check says
    found = await _published(client, run.as_uri(), lambda: _open(client, run, published))
    expected = [f for f in __import__("json").loads(_check(["sub/run.sh"], ws).stdout)["findings"]
                if f["path"] == "sub/run.sh"]
    assert [(d.code, d.range.start.line + 1) for d in found] == [(f["rule"], f["line"]) for f in expected]

    # change (unsaved): TP 4 against the manifest on disk, a host path after non-BMP text, a secret
    edited = published.replace("--tp-size 8", "--tp-size 4").replace(
        "--enable-metrics", f"--enable-metrics --api-key {SECRET}") + COMMENT
    found = await _published(client, run.as_uri(), lambda: _replace_all(client, run, 2, edited))
    by_code = {d.code: d for d in found}
    assert {"TOP001", "TOP002", "RED001", "RED002"} <= set(by_code)
    red = by_code["RED001"]
    last = edited.split("\n")[-2]
    assert red.range.start.line == edited.count("\n") - 1
    assert red.range.start.character == _units(last[:last.index("/home")], encoding)
    assert red.code_description.href.endswith("/docs/rules/RED001.md") and red.source == "cfglint"
    assert all(SECRET[4:12] not in d.message for d in found)          # masked as in every output
    top2 = by_code["TOP002"]
    assert top2.related_information and top2.related_information[0].location.uri == manifest.as_uri()
    assert run.read_text() == published                                # nothing written

    # the whole submission is re-linted when another of its files changes: the manifest declares TP 4
    text = manifest.read_text()
    found = await _published(client, run.as_uri(), lambda: _open(client, manifest, text.replace("tp: 8", "tp: 4")))
    assert "TOP002" not in {d.code for d in found} and "RED001" in {d.code for d in found}
    manifest_diags = client.diagnostics.get(manifest.as_uri(), [])
    assert all(d.code != "TOP002" for d in manifest_diags)

    # hover: the flag's meaning and releases, the rule of a diagnostic, a manifest key
    line = edited.split("\n").index(next(x for x in edited.split("\n") if "--tp-size" in x))
    col = edited.split("\n")[line].index("--tp-size") + 2
    hover = await client.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(run.as_uri()),
                                                                 t.Position(line, col)))
    # the launch names no release: across every release held (--tp-size the flag's alias after 0.5.13)
    assert "**--tensor-parallel-size** (written `--tp-size`): SGLang flag" in hover.contents.value
    assert "Accepted by SGLang 0.4.0.post2..0.5.23\n" in hover.contents.value
    hover = await client.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(run.as_uri()), red.range.start))
    assert "**RED001** unredacted-host-path" in hover.contents.value and "RED001.md" in hover.contents.value
    mline = text.split("\n").index("  accelerator: B300")
    hover = await client.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(manifest.as_uri()),
                                                                 t.Position(mline, 4)))
    assert hover.contents.value.startswith("**system.accelerator**: Accelerator name")

    # code action: the quick fix is the edit --fix makes; applied by the client, RED001 is gone
    actions = await client.text_document_code_action_async(t.CodeActionParams(
        t.TextDocumentIdentifier(run.as_uri()), red.range, t.CodeActionContext(diagnostics=[red])))
    quick = [a for a in actions if a.kind == t.CodeActionKind.QuickFix and "RED001" in a.title]
    assert len(quick) == 1 and any(a.kind == "source.fixAll.cfglint" for a in actions)
    change = quick[0].edit.document_changes[0]
    assert change.text_document.version == 2
    fixed = _apply(edited, change.edits, encoding)
    twin = ws.parent / "twin"
    shutil.copytree(ws / "sub", twin)
    (twin / "run.sh").write_text(edited.replace(SECRET, "$API_KEY"))
    subprocess.run([sys.executable, "-m", "cfglint", "check", "--fix", "--no-config", "--select", "RED001", str(twin)],
                   env=ENV, capture_output=True, timeout=120)
    assert fixed.replace(SECRET, "$API_KEY") == (twin / "run.sh").read_text()
    found = await _published(client, run.as_uri(), lambda: _replace_all(client, run, 3, fixed))
    assert "RED001" not in {d.code for d in found} and "RED002" in {d.code for d in found}

    # save: the buffer is on disk now; the diagnostics are cfglint check's on the file
    run.write_text(fixed)
    manifest.write_text(text.replace("tp: 8", "tp: 4"))
    found = await _published(client, run.as_uri(), lambda: client.text_document_did_save(
        t.DidSaveTextDocumentParams(t.TextDocumentIdentifier(run.as_uri()))))
    expected = [f for f in __import__("json").loads(_check(["sub/run.sh"], ws).stdout)["findings"]
                if f["path"] == "sub/run.sh"]
    assert [(d.code, d.range.start.line + 1, d.message) for d in found] == \
        [(f["rule"], f["line"], f["message"]) for f in expected]

    # close: the other open file keeps the unit linted; closing both clears its diagnostics
    found = await _published(client, run.as_uri(), lambda: client.text_document_did_close(
        t.DidCloseTextDocumentParams(t.TextDocumentIdentifier(manifest.as_uri()))))
    assert "RED002" in {d.code for d in found}
    found = await _published(client, run.as_uri(), lambda: client.text_document_did_close(
        t.DidCloseTextDocumentParams(t.TextDocumentIdentifier(run.as_uri()))))
    assert found == []


@pytest.mark.asyncio
async def test_vscode_session_open_change_save_fix_close(vscode: LanguageClient):
    await _session(vscode, "utf-16")


@pytest.mark.asyncio
async def test_neovim_session_in_its_utf8_encoding(neovim: LanguageClient):
    await _session(neovim, "utf-8")


@pytest.mark.asyncio
async def test_outside_the_workspace_nothing_is_read_and_a_bad_config_is_a_finding(vscode: LanguageClient, tmp_path):
    ws = vscode.ws
    outside = tmp_path / "outside.sh"
    outside.write_text("sglang serve --model-path /home/bob/m\n")
    os.symlink(outside, ws / "sub" / "linked.sh")
    inside = ws / "sub" / "run.sh"
    (ws / ".cfglint.yaml").write_text("selct: [RED]\n")
    _open(vscode, outside, outside.read_text())
    found = await _published(vscode, inside.as_uri(), lambda: _open(vscode, inside, inside.read_text()))
    assert outside.as_uri() not in vscode.diagnostics
    assert [d.code for d in found] == ["IO001"] and "configuration error" in found[0].message
    assert "unknown key 'selct'" in found[0].message
    (ws / ".cfglint.yaml").write_text("select: [RED]\n")
    found = await _published(vscode, inside.as_uri(), lambda: _replace_all(vscode, inside, 2, inside.read_text() + COMMENT))
    assert [d.code for d in found] == ["RED001"]                       # the server went on
    linked = ws / "sub" / "linked.sh"       # a link in the workspace to the file outside it
    _open(vscode, linked, outside.read_text())
    await _published(vscode, inside.as_uri(), lambda: _replace_all(vscode, inside, 3, inside.read_text()))
    assert linked.as_uri() not in vscode.diagnostics and outside.as_uri() not in vscode.diagnostics
