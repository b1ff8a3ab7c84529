"""RED002 secrets (masked in every output) and RED003 addresses, with look-alikes that must not fire."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import lint

CFGLINT = str(Path(sys.executable).parent / "cfglint")
FAKE = {
    "hf": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "ngc": "nvapi-" + "Zq9" * 20,
    "github": "ghp_" + "a1B2" * 9,
    "openai": "sk-proj-" + "x9Y8" * 10,
    "aws": "AKIA" + "ABCDEFGHIJKLMNOP",
    "gcp": "AIza" + "Sy" + "A" * 33,
}


@pytest.mark.parametrize("kind", sorted(FAKE))
def test_token_shapes(tmp_path, kind):
    script = tmp_path / "run.sh"
    script.write_text(f"export SOME_VAR={FAKE[kind]}\nsglang serve --model-path m\n")
    found = lint(script)
    assert [(f[0], f[2], f[3]) for f in found] == [("RED002", 1, 17)]
    leaked = FAKE[kind] in found[0][4] or FAKE[kind][:4] in found[0][4]   # not even its first characters
    assert not leaked and f"<secret, {len(FAKE[kind])} chars>" in found[0][4]


def test_literal_credentials_in_flags_env_and_yaml(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("HF_TOKEN=abc123def456 sglang serve --api-key s3cr3t --model-path m\n"
                      "vllm serve m --api-key \"$API_KEY\" --hf-token EMPTY\n")
    found = lint(script)
    assert [(f[0], f[2], f[3]) for f in found] == [("RED002", 1, 10), ("RED002", 1, 46)]
    pem = tmp_path / "gen_config.yaml"
    pem.write_text("tensor_parallel_size: 1\n# -----BEGIN OPENSSH PRIVATE KEY-----\n")
    assert [(f[0], f[2]) for f in lint(pem)] == [("RED002", 2)]


def test_look_alikes_do_not_fire(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text(
        "# image sha256 f7b3c6170331df17cde8c2477c1c612930d7d6a077070bb78207e53c89497a17\n"
        "sglang serve --model-path /models/x --revision 56ce616ad7486f0e96cbb51ef23ed5a1bce1d92d \\\n"
        "  --host 0.0.0.0 --dist-init-addr <head-ip>:20000 --api-key \"${API_KEY}\" --skip-tokenizer-init\n"
        "curl http://localhost:2379 http://127.0.0.1:8000 # version 10.1.2\n")
    assert lint(script) == []


def test_addresses(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("export ETCD_ENDPOINTS=http://etcd-0.infra.corp:2379\n"
                      "sglang serve --model-path m --dist-init-addr 192.168.7.10:5000 --host 172.20.0.4\n")
    found = [(f[0], f[2], f[3]) for f in lint(script)]
    assert found == [("RED003", 1, 30), ("RED003", 2, 46), ("RED003", 2, 71)]


def test_secret_masked_in_every_format(tmp_path):
    (tmp_path / "run.sh").write_text(f"sglang serve --api-key plainpass9 --host 10.9.9.9 --model-path {FAKE['hf']}\n")
    for fmt in ("text", "json", "github", "sarif"):
        proc = subprocess.run([CFGLINT, "check", "run.sh", "-f", fmt], cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 1
        assert not ("plainpass9" in proc.stdout or FAKE["hf"] in proc.stdout), f"a secret leaks in {fmt}"
        if fmt == "sarif":
            results = json.loads(proc.stdout)["runs"][0]["results"]
            # COV001: the "model" (a token here) is not in the knowledge base; its note masks the token too
            assert {r["ruleId"] for r in results} == {"RED002", "RED003", "COV001"}


def test_env_file_and_server_config_hosts(tmp_path):
    env = tmp_path / "serving.env"
    env.write_text("HF_TOKEN=hf_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ\nMODEL=m\n")
    assert [(f[0], f[2]) for f in lint(env)] == [("RED002", 1)]
    server = tmp_path / "server_config.yaml"
    server.write_text("hostname: head-node.corp.lan\nport: 8000\ncontext_servers:\n  num_instances: 1\n"
                      "  urls:\n    - \"10.20.0.5:8001\"\n")
    assert [(f[0], f[2]) for f in lint(server)] == [("RED003", 1), ("RED003", 6)]
