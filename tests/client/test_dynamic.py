"""DynamicClient: every verb over real HTTP, dict in and dict out."""

from __future__ import annotations

import pytest

from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.errors import Conflict, NotFound
from tests.client.conftest import configmap


def deployment(name: str, replicas: int = 1) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [
                                      {"name": "web", "image": "nginx:1.27"},
                                      {"name": "side", "image": "busybox:1.36"}]}}}}


def test_paths() -> None:
    pods = ResourceClient(None, "v1", "pods")  # type: ignore[arg-type]
    assert pods.path() == "/api/v1/pods"
    assert pods.namespace("a b").path("x", "status") == "/api/v1/namespaces/a%20b/pods/x/status"
    assert ResourceClient(None, "apps/v1", "deployments").namespace("ns").path(  # type: ignore
        "web", "scale") == "/apis/apps/v1/namespaces/ns/deployments/web/scale"
    with pytest.raises(ValueError, match="plural name"):
        ResourceClient(None, "v1", "pods/status")  # type: ignore[arg-type]


def test_create_get_update_patch_delete(configmaps: ResourceClient) -> None:
    created = configmaps.create(configmap("cm", labels={"tier": "web"}, a="1"))
    assert created["metadata"]["uid"] and created["metadata"]["namespace"] == "default"
    got = configmaps.get("cm")
    assert got == created
    got["data"]["a"] = "2"
    updated = configmaps.update(got)
    assert int(updated["metadata"]["resourceVersion"]) > int(got["metadata"]["resourceVersion"])
    with pytest.raises(Conflict):
        configmaps.update(got)
    merged = configmaps.patch("cm", {"data": {"b": "3"}})
    assert merged["data"] == {"a": "2", "b": "3"}
    jsoned = configmaps.patch("cm", [{"op": "remove", "path": "/data/a"}], patch_type="json")
    assert jsoned["data"] == {"b": "3"}
    status = configmaps.delete("cm")
    assert status["status"] == "Success" or status["metadata"]["name"] == "cm"
    with pytest.raises(NotFound):
        configmaps.get("cm")


def test_list_pages_selectors_and_delete_collection(configmaps: ResourceClient) -> None:
    for i in range(5):
        configmaps.create(configmap(f"cm-{i}", labels={"parity": "even" if i % 2 == 0 else "odd"}))
    first = configmaps.list(limit=2)
    assert len(first["items"]) == 2 and first["metadata"]["continue"]
    rest_of_it = configmaps.list(limit=10, continue_=first["metadata"]["continue"])
    assert len(first["items"]) + len(rest_of_it["items"]) == 5
    evens = configmaps.list(label_selector={"parity": "even"})
    assert sorted(i["metadata"]["name"] for i in evens["items"]) == ["cm-0", "cm-2", "cm-4"]
    named = configmaps.list(field_selector="metadata.name=cm-3")
    assert [i["metadata"]["name"] for i in named["items"]] == ["cm-3"]
    configmaps.delete_collection(label_selector="parity=odd")
    left = configmaps.list_all()["items"]
    assert sorted(i["metadata"]["name"] for i in left) == ["cm-0", "cm-2", "cm-4"]


def test_deployment_strategic_patch_status_and_propagation(dynamic: DynamicClient) -> None:
    deployments = dynamic.resource("apps/v1", "deployments").namespace("default")
    deployments.create(deployment("web"))
    patched = deployments.patch("web", {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "nginx:1.28"}]}}}}, patch_type="strategic")
    containers = patched["spec"]["template"]["spec"]["containers"]
    assert [(c["name"], c["image"]) for c in containers] == [
        ("web", "nginx:1.28"), ("side", "busybox:1.36")]  # merged by name, not replaced
    assert patched["metadata"]["generation"] == 2
    patched["status"] = {"replicas": 1, "readyReplicas": 1}
    with_status = deployments.update_status(patched)
    assert with_status["status"]["readyReplicas"] == 1
    assert with_status["metadata"]["generation"] == 2  # status writes leave generation
    # Foreground reaches the server: it marks the Deployment for the garbage collector
    # (none runs beside this bare server), which would remove the finalizer last.
    marked = deployments.delete("web", propagation_policy="Foreground")
    assert marked["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert deployments.get("web")["metadata"]["deletionTimestamp"]
    deployments.patch("web", {"metadata": {"finalizers": None}})
    with pytest.raises(NotFound):
        deployments.get("web")


def test_create_uses_the_objects_namespace_when_the_client_has_none(
        dynamic: DynamicClient) -> None:
    dynamic.resource("v1", "namespaces").create(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    cms = dynamic.resource("v1", "configmaps")
    obj = configmap("x")
    obj["metadata"]["namespace"] = "team-a"
    assert cms.create(obj)["metadata"]["namespace"] == "team-a"
    assert [i["metadata"]["name"] for i in cms.list()["items"]
            if i["metadata"]["namespace"] == "team-a"] == ["x"]


def test_server_side_apply(dynamic: DynamicClient) -> None:
    cms = dynamic.resource("v1", "configmaps").namespace("default")
    applied = cms.apply(configmap("ssa", a="1"), field_manager="kubenb-test")
    assert applied["data"] == {"a": "1"}
    managers = {m["manager"] for m in applied["metadata"].get("managedFields", [])}
    assert "kubenb-test" in managers
    again = cms.patch("ssa", configmap("ssa", a="2"), patch_type="apply",
                      field_manager="kubenb-test")
    assert again["data"] == {"a": "2"}
    with pytest.raises(ValueError, match="field_manager"):
        cms.patch("ssa", {}, patch_type="apply")
