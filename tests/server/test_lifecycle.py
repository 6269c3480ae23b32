"""Start/stop, threads, kubeconfig, health and discovery (shapes from the real apiserver)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
import requests
import yaml

from kubenb.server import EmbeddedServer
from tests.server.conftest import Api, fixture_body, realapi


def _server_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("kubenb-server")]


def test_start_stop_leaves_no_thread_and_removes_kubeconfig() -> None:
    before = set(_server_threads())
    srv = EmbeddedServer()
    srv.start()
    assert srv.url.startswith("http://127.0.0.1:")
    path = srv.kubeconfig_path
    assert os.path.exists(path)
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    session = requests.Session()  # a keep-alive connection stays open until stop()
    assert session.get(srv.url + "/healthz", timeout=5).text == "ok"
    assert all(t.daemon for t in _server_threads())
    srv.stop()
    session.close()
    assert not os.path.exists(path)
    assert set(_server_threads()) <= before
    srv.stop()  # idempotent
    with pytest.raises(RuntimeError):
        _ = srv.url


def test_context_manager_and_kubeconfig_contents() -> None:
    with EmbeddedServer(token="s3cret") as srv:
        config = yaml.safe_load(Path(srv.kubeconfig_path).read_text())
        assert config["clusters"][0]["cluster"]["server"] == srv.url
        assert config["users"][0]["user"] == {"token": "s3cret"}
        assert config["current-context"] == "kubenb"
        assert "s3cret" not in repr(srv)
    assert not _server_threads()


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/livez"])
def test_health_endpoints_are_plain_ok(api: Api, path: str) -> None:
    resp = api.get(path)
    expected = realapi(f"discovery/{path.strip('/')}.json")["response"]
    assert resp.status_code == 200
    assert resp.text == expected["body"]
    assert resp.headers["Content-Type"] == expected["headers"]["Content-Type"]


def test_version_has_the_real_keys(api: Api) -> None:
    body = api.get("/version").json()
    assert list(body) == list(fixture_body("discovery/version.json"))
    assert body["major"] == "1" and body["minor"] == "32"


def test_api_and_apis_shapes(api: Api) -> None:
    core = api.get("/api").json()
    real = fixture_body("discovery/api.json")
    assert list(core) == list(real)
    assert core["versions"] == ["v1"]
    groups = api.get("/apis").json()
    assert list(groups) == list(fixture_body("discovery/apis.json"))
    names = [g["name"] for g in groups["groups"]]
    assert {"apps", "apiextensions.k8s.io"} <= set(names)
    apps = api.get("/apis/apps").json()
    assert apps == fixture_body("discovery/apis-apps.json")


@pytest.mark.parametrize("path,fixture", [
    ("/api/v1", "discovery/api-v1.json"),
    ("/apis/apps/v1", "discovery/apis-apps-v1.json"),
    ("/apis/apiextensions.k8s.io/v1", "discovery/apis-apiextensions.k8s.io-v1.json"),
])
def test_resource_lists_match_the_real_entries(api: Api, path: str, fixture: str) -> None:
    ours = api.get(path).json()
    real = fixture_body(fixture)
    assert [k for k in ours if k != "resources"] == [k for k in real if k != "resources"]
    real_by_name = {r["name"]: r for r in real["resources"]}
    assert ours["resources"], "no resources served"
    for entry in ours["resources"]:
        expected = dict(real_by_name[entry["name"]])
        expected.pop("storageVersionHash", None)
        assert entry == expected, entry["name"]


def test_subresources_are_listed(api: Api) -> None:
    names = {r["name"] for r in api.get("/apis/apps/v1").json()["resources"]}
    assert {"deployments/scale", "deployments/status", "statefulsets/scale"} <= names
    core = {r["name"] for r in api.get("/api/v1").json()["resources"]}
    assert {"pods/status", "namespaces/status", "nodes/status"} <= core


def test_paths_outside_the_api_get_text_404(api: Api) -> None:
    for path, fixture in [("/not-an-api-path", "errors/unknown-path-404.json"),
                          ("/apis/nope.example.com/v1/namespaces/default/widgets",
                           "errors/unknown-group-404.json")]:
        resp = api.get(path)
        real = realapi(fixture)["response"]
        assert resp.status_code == 404
        assert resp.text == real["body"]
        assert resp.headers["Content-Type"] == real["headers"]["Content-Type"]


def test_system_namespaces_exist(api: Api) -> None:
    names = {n["metadata"]["name"] for n in api.get("/api/v1/namespaces").json()["items"]}
    assert {"default", "kube-system", "kube-public"} <= names
