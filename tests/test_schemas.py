"""The JSON Schemas published for editors: stable ``$id``s at the repository's raw files, a
``.cfglint.yaml`` schema that agrees with what policy/config.py accepts, and an editor's YAML
language server (yaml-language-server, from ``npm ci``) showing a wrong manifest key as a
diagnostic through the ``# yaml-language-server: $schema=`` line ``cfglint init`` writes.

Without node_modules the editor test fails under CI and is skipped elsewhere."""

from __future__ import annotations

import json
import os
import shutil
import tomllib

import jsonschema
import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities, make_test_lsp_client

from cfglint.model import LEVELS
from cfglint.policy.config import KEYS, NESTABLE, ConfigError, load_config
from support import EXAMPLES, ROOT

SCHEMAS = ROOT / "schemas"
PUBLISHED = ("submission.schema.json", "cfglint-config.schema.json", "cfglint-output.schema.json")
YLS = ROOT / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text())


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_schemas_have_ids_at_the_repositorys_raw_files(name):
    home = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Homepage"]
    raw = home.replace("https://github.com/", "https://raw.githubusercontent.com/")
    schema = _schema(name)
    assert schema["$id"] == f"{raw}/main/schemas/{name}"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_config_schema_lists_exactly_the_keys_config_reads():
    schema = _schema("cfglint-config.schema.json")
    assert set(schema["properties"]) == set(KEYS) and schema["additionalProperties"] is False
    assert schema["properties"]["allow-nested"]["items"]["enum"] == list(NESTABLE)
    assert schema["$defs"]["level"]["enum"] == list(LEVELS)


# key -> (a value config.py accepts, a value it refuses); both the schema and config.py must agree
SAMPLES = {
    "select": (["RED", "top001"], "RED"),
    "ignore": (["COV001"], [1]),
    "per-file-ignores": ({"sub/*.sh": ["RED001"]}, {"sub/*.sh": "RED001"}),
    "levels": ({"SUP001": "error"}, {"SUP001": "fatal"}),
    "fail-level": ("warning", "fatal"),
    "knowledge": (["lab.yaml"], "lab.yaml"),
    "require-reason": (True, "yes"),
    "max-file-size": (1024, 0),
    "private-ranges": (["10.0.0.0/8"], "10.0.0.0/8"),
    "allow-nested": (["per-file-ignores"], ["fail-level"]),
    "jobs": (2, 0),
}


def test_every_key_has_a_sample():
    assert set(SAMPLES) == set(KEYS)


@pytest.mark.parametrize("key", sorted(SAMPLES))
def test_config_schema_accepts_and_refuses_what_config_does(key, tmp_path):
    validator = jsonschema.Draft202012Validator(_schema("cfglint-config.schema.json"))
    good, bad = SAMPLES[key]
    (tmp_path / "lab.yaml").write_text("models: []\n")
    path = tmp_path / ".cfglint.yaml"
    path.write_text(json.dumps({key: good}))
    load_config(str(path))
    assert validator.is_valid({key: good})
    path.write_text(json.dumps({key: bad}))
    with pytest.raises(ConfigError):
        load_config(str(path))
    assert not validator.is_valid({key: bad})


def test_config_schema_refuses_an_unknown_key_as_config_does(tmp_path):
    path = tmp_path / ".cfglint.yaml"
    path.write_text("selct: [RED]\n")
    with pytest.raises(ConfigError, match="unknown key 'selct'"):
        load_config(str(path))
    assert not jsonschema.Draft202012Validator(_schema("cfglint-config.schema.json")).is_valid({"selct": ["RED"]})


# ---- yaml-language-server ------------------------------------------------------------------------
def _yls_client() -> LanguageClient:
    """pytest-lsp's client, answering yaml-language-server's ``vscode/content`` requests (how an
    editor hands it a schema) from schemas/ for the published $ids: no network is used."""
    client = make_test_lsp_client()
    client.schema_requests = []
    published = {_schema(n)["$id"]: (SCHEMAS / n).read_text() for n in PUBLISHED}

    @client.feature("vscode/content")
    def content(params):
        uri = params if isinstance(params, str) else params[0]
        client.schema_requests.append(uri)
        return published[uri]

    @client.feature(t.CLIENT_REGISTER_CAPABILITY)
    def register(_params):   # the server registers its configuration watch: accepted
        return None

    @client.feature(t.TELEMETRY_EVENT)
    def telemetry(_params):
        return None

    return client


_YLS_MISSING = not YLS.is_file() or shutil.which("node") is None
_YLS_MSG = f"yaml-language-server not found at {YLS}; run `npm ci` in {ROOT} (see .ci/run)"
# decided before the fixture starts the server: a skip from inside it left a dead subprocess behind
needs_yls = pytest.mark.skipif(_YLS_MISSING and os.environ.get("CI", "").strip().lower() in ("", "0", "false", "no"),
                               reason=_YLS_MSG)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=["node", str(YLS), "--stdio"], client_factory=_yls_client))
async def yls(lsp_client: LanguageClient):
    if _YLS_MISSING:   # in CI: a failure, never a silent skip
        pytest.fail(_YLS_MSG, pytrace=False)
    await lsp_client.initialize_session(t.InitializeParams(capabilities=client_capabilities("visual-studio-code")))
    lsp_client.protocol.notify("yaml/registerContentRequest", None)
    lsp_client.workspace_did_change_configuration(t.DidChangeConfigurationParams(
        settings={"yaml": {"validate": True, "hover": True, "schemaStore": {"enable": False}}}))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
@needs_yls
async def test_yaml_language_server_shows_a_wrong_manifest_key_from_inits_schema_line(yls: LanguageClient, tmp_path):
    from click.testing import CliRunner

    from cfglint.cli import main

    sub = tmp_path / "sub"
    shutil.copytree(EXAMPLES / "artificial-analysis/kimi-k3/b300-sglang-tp8", sub)
    (sub / "submission.yaml").unlink()
    assert CliRunner().invoke(main, ["init", str(sub)]).exit_code == 0
    text = (sub / "submission.yaml").read_text()
    modeline = text.split("\n")[1]   # after yamllint's line-length switch
    assert modeline == f"# yaml-language-server: $schema={_schema('submission.schema.json')['$id']}"
    wrong = text.replace("\nserving:\n", "\nserving:\n  replica: 2\n")
    line = wrong.split("\n").index("  replica: 2")
    uri = (sub / "submission.yaml").as_uri()
    yls.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(uri=uri, language_id="yaml", version=1,
                                                                              text=wrong)))
    while not any("replica" in d.message for d in yls.diagnostics.get(uri, [])):
        await yls.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    (found,) = [d for d in yls.diagnostics[uri] if "replica" in d.message]
    assert found.range.start.line == line and found.range.start.character == 2
    assert "not allowed" in found.message
    assert yls.schema_requests == [_schema("submission.schema.json")["$id"]]
