"""PATCH flavours (merge, JSON, strategic merge), /status patches and stale-RV conflicts."""

from __future__ import annotations

from tests.server.conftest import Api, fixture_body, realapi
from tests.server.test_crud import assert_status_like

CM = "/api/v1/namespaces/default/configmaps"
DEPLOY = "/apis/apps/v1/namespaces/default/deployments"


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


