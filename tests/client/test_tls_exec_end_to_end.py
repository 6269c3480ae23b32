"""The whole client path against the embedded server over TLS with a bearer token.

The kubeconfig carries the server's CA as certificate-authority-data and gets its token
from an exec plugin (client.authentication.k8s.io/v1). The plugin first hands out a
stale token: the server answers 401, the client re-runs the plugin and retries. A
plugin that fails surfaces its installHint, and no token is printed anywhere.
"""

from __future__ import annotations

import base64
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.errors import KubeConfigError
from kubenb.server import EmbeddedServer

TOKEN = "e2e-s3cr3t-token"
PLUGIN = """\
import json, pathlib, sys
counter = pathlib.Path(sys.argv[1])
runs = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(runs + 1))
if sys.argv[2] == "fail":
    print("plugin exploded: no credentials cached", file=sys.stderr)
    sys.exit(3)
token = "stale-s3cr3t-token" if runs == 0 else sys.argv[2]
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": {"token": token}}))
"""


def kubeconfig(tmp_path: Path, server: EmbeddedServer, mode: str) -> Path:
    script = tmp_path / "plugin.py"
    script.write_text(PLUGIN)
    doc: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Config", "current-context": "e2e",
        "clusters": [{"name": "e2e", "cluster": {
            "server": server.url,
            "certificate-authority-data": base64.b64encode(server.ca_pem).decode()}}],
        "users": [{"name": "e2e", "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
            "args": [str(script), str(tmp_path / "runs"), mode],
            "interactiveMode": "Never",
            "installHint": "install the e2e plugin with: pip install e2e-auth"}}}],
        "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "e2e",
                                                  "namespace": "default"}}],
    }
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_tls_ca_data_and_a_401_that_reruns_the_exec_plugin(tmp_path: Path) -> None:
    with EmbeddedServer(tls=True, token=TOKEN) as server:
        assert server.url.startswith("https://")
        config = load_config(str(kubeconfig(tmp_path, server, TOKEN)))
        cms = DynamicClient(config).resource("v1", "configmaps").namespace("default")
        created = cms.create({"metadata": {"name": "over-tls"}, "data": {"a": "1"}})
        assert created["metadata"]["uid"]
        assert (tmp_path / "runs").read_text() == "2"  # stale token -> 401 -> plugin again
        assert cms.get("over-tls")["data"] == {"a": "1"}
        assert (tmp_path / "runs").read_text() == "2"  # the good token is cached
        assert TOKEN not in repr(config) and TOKEN not in str(config)
        cms.rest.close()


def test_a_failing_plugin_shows_its_install_hint_and_no_token(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with EmbeddedServer(tls=True, token=TOKEN) as server:
        config = load_config(str(kubeconfig(tmp_path, server, "fail")))
        cms = DynamicClient(config).resource("v1", "configmaps").namespace("default")
        with pytest.raises(KubeConfigError) as info:
            cms.list()
        text = str(info.value)
        assert "pip install e2e-auth" in text and "exit" in text.lower()
        assert "s3cr3t" not in text and "s3cr3t" not in caplog.text
        cms.rest.close()
