"""PATCH flavours, /status, bearer-token auth and `python -m kubenb serve`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests
import yaml

from kubenb.server import EmbeddedServer
from tests.server.conftest import Api, fixture_body, realapi
from tests.server.test_crud import assert_status_like

CM = "/api/v1/namespaces/default/configmaps"
DEPLOY = "/apis/apps/v1/namespaces/default/deployments"
ROOT = Path(__file__).resolve().parents[2]


def test_merge_patch_like_the_fixture(api: Api) -> None:
    api.create_cm("app-config", labels={"app": "web"},
                  data={"log_level": "info", "mode": "production"})
    patch = realapi("writes/merge-patch-configmap.json")["request"]["body"]
    resp = api.patch(f"{CM}/app-config", patch)
    real = fixture_body("writes/merge-patch-configmap.json")
    assert resp.status_code == 200
    assert resp.json()["data"] == {k: v for k, v in real["data"].items()
                                   if k in resp.json()["data"]}
    assert "log_level" not in resp.json()["data"]


def test_json_patch_and_failed_test_op(api: Api) -> None:
    api.create_cm("app-config", data={"a": "1", "b": "2"})
    ops = [{"op": "add", "path": "/data/c", "value": "3"},
           {"op": "replace", "path": "/data/a", "value": "10"},
           {"op": "remove", "path": "/data/b"},
           {"op": "test", "path": "/data/c", "value": "3"}]
    resp = api.patch(f"{CM}/app-config", ops, "application/json-patch+json")
    assert resp.json()["data"] == {"a": "10", "c": "3"}
    failed = api.patch(f"{CM}/app-config", [{"op": "test", "path": "/data/a", "value": "x"}],
                       "application/json-patch+json")
    assert_status_like(failed, "errors/json-patch-test-failed-422.json")


def test_strategic_merge_patch_merges_containers_by_name(api: Api) -> None:
    dep = {"metadata": {"name": "web"},
           "spec": {"selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                        "containers": [{"name": "app", "image": "v1"},
                                       {"name": "sidecar", "image": "s"}]}}}}
    api.post(DEPLOY, dep)
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "v2"}]}}}}
    out = api.patch(f"{DEPLOY}/web", patch, "application/strategic-merge-patch+json").json()
    containers = out["spec"]["template"]["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [("app", "v2"), ("sidecar", "s")]
    assert out["metadata"]["generation"] == 2
    delete = {"spec": {"template": {"spec": {"containers": [
        {"name": "sidecar", "$patch": "delete"}]}}}}
    out = api.patch(f"{DEPLOY}/web", delete, "application/strategic-merge-patch+json").json()
    assert [c["name"] for c in out["spec"]["template"]["spec"]["containers"]] == ["app"]


def test_status_subresource_patch_leaves_spec_and_generation(api: Api) -> None:
    template = {"metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    created = api.post(DEPLOY, {"metadata": {"name": "d"}, "spec": {
        "replicas": 1, "selector": {"matchLabels": {"app": "d"}}, "template": template}})
    assert created.status_code == 201, created.text
    out = api.patch(f"{DEPLOY}/d/status", {"status": {"replicas": 1}, "spec": {"replicas": 5}})
    assert out.status_code == 200
    assert out.json()["status"] == {"replicas": 1}
    assert out.json()["spec"]["replicas"] == 1 and out.json()["metadata"]["generation"] == 1
    assert api.get(f"{DEPLOY}/d/status").json()["status"] == {"replicas": 1}
    assert api.get(f"{CM}/x/status").status_code == 404  # configmaps have no status


def test_patch_with_stale_rv_conflicts(api: Api) -> None:
    cm = api.create_cm("c")
    api.patch(f"{CM}/c", {"data": {"a": "1"}})
    stale = api.patch(f"{CM}/c", {"metadata": {"resourceVersion": cm["metadata"][
        "resourceVersion"]}, "data": {"a": "2"}})
    assert stale.status_code == 409 and stale.json()["reason"] == "Conflict"


def test_bearer_token_auth() -> None:
    with EmbeddedServer(token="tok-123") as srv:
        assert requests.get(srv.url + "/healthz", timeout=5).status_code == 200
        assert requests.get(srv.url + "/version", timeout=5).status_code == 200
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            resp = requests.get(srv.url + CM, headers=headers, timeout=5)
            assert_status_like(resp, "errors/invalid-token-401.json")
            assert "tok-123" not in resp.text
        ok = requests.get(srv.url + CM, headers={"Authorization": "Bearer tok-123"}, timeout=5)
        assert ok.status_code == 200


def test_cli_serve_prints_url_writes_kubeconfig_and_stops(tmp_path: Path) -> None:
    out = tmp_path / "kc.yaml"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubenb", "serve", "--port", "0", "--token", "t0k",
         "--kubeconfig-out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("kubenb API server listening on http://127.0.0.1:"), line
        url = line.rsplit(" ", 1)[1].strip()
        deadline = time.monotonic() + 10
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        config = yaml.safe_load(out.read_text())
        assert config["clusters"][0]["cluster"]["server"] == url
        assert requests.get(url + "/readyz", timeout=5).text == "ok"
        assert requests.get(url + CM, timeout=5).status_code == 401
        assert requests.get(url + CM, headers={"Authorization": "Bearer t0k"},
                            timeout=5).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
