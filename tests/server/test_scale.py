"""The /scale subresource: autoscaling/v1 Scale for deployments, replicasets, statefulsets
and custom resources that declare it (fixtures/realapi/writes/*-scale-*)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.conftest import Api, fixture_body, realapi

DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"


def workload(kind: str, name: str = "web", replicas: int | None = 3) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app": "web", "release": "stable"}},
        "template": {"metadata": {"labels": {"app": "web", "release": "stable"}},
                     "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name}, "spec": spec}


def scale_shape(scale: dict[str, Any]) -> dict[str, Any]:
    return {"keys": list(scale), "kind": scale["kind"], "apiVersion": scale["apiVersion"],
            "meta": list(scale["metadata"]), "spec": list(scale["spec"]),
            "status": list(scale["status"])}


@pytest.fixture
def deployment(api: Api) -> dict[str, Any]:
    resp = api.post(DEPLOYS, workload("Deployment"))
    assert resp.status_code == 201, resp.text
    api.patch(f"{DEPLOYS}/web/status", {"status": {"replicas": 4}})
    return resp.json()


def test_get_scale_of_a_deployment(api: Api, deployment: dict[str, Any]) -> None:
    resp = api.get(f"{DEPLOYS}/web/scale")
    assert resp.status_code == 200
    scale = resp.json()
    assert scale_shape(scale) == scale_shape(fixture_body("writes/deployment-scale-get.json"))
    assert scale["spec"] == {"replicas": 3}
    assert scale["status"] == {"replicas": 4, "selector": "app=web,release=stable"}
    assert scale["metadata"]["uid"] == deployment["metadata"]["uid"]


def test_put_scale_sets_replicas_and_bumps_generation(api: Api,
                                                       deployment: dict[str, Any]) -> None:
    body = realapi("writes/deployment-scale-put.json")["request"]["body"]
    body["metadata"]["namespace"] = "default"
    resp = api.put(f"{DEPLOYS}/web/scale", body)
    assert resp.status_code == 200, resp.text
    assert scale_shape(resp.json()) == scale_shape(
        fixture_body("writes/deployment-scale-put.json"))
    parent = api.get(f"{DEPLOYS}/web").json()
    assert parent["spec"]["replicas"] == 2
    assert parent["metadata"]["generation"] == 2
    assert resp.json()["metadata"]["resourceVersion"] == parent["metadata"]["resourceVersion"]
    managers = {(m["manager"], m.get("subresource", "")) for m in parent["metadata"][
        "managedFields"]}
    assert ("python-requests", "scale") in managers


@pytest.mark.parametrize("content_type,patch", [
    ("application/merge-patch+json", {"spec": {"replicas": 4}}),
    ("application/strategic-merge-patch+json", {"spec": {"replicas": 4}}),
    ("application/json-patch+json", [{"op": "replace", "path": "/spec/replicas", "value": 4}]),
])
def test_patch_scale(api: Api, deployment: dict[str, Any], content_type: str,
                     patch: Any) -> None:
    resp = api.patch(f"{DEPLOYS}/web/scale", patch, content_type)
    assert resp.status_code == 200, resp.text
    assert resp.json()["spec"] == {"replicas": 4}
    assert scale_shape(resp.json()) == scale_shape(
        fixture_body("writes/deployment-scale-merge-patch.json"))
    assert api.get(f"{DEPLOYS}/web").json()["spec"]["replicas"] == 4


def test_scale_errors(api: Api, deployment: dict[str, Any]) -> None:
    stale = {"metadata": {"name": "web", "resourceVersion": "1"}, "spec": {"replicas": 1}}
    conflict = api.put(f"{DEPLOYS}/web/scale", stale)
    assert conflict.status_code == 409 and conflict.json()["reason"] == "Conflict"
    negative = api.patch(f"{DEPLOYS}/web/scale", {"spec": {"replicas": -1}})
    assert negative.status_code == 422
    assert negative.json()["details"]["causes"][0]["field"] == "spec.replicas"
    assert api.put(f"{DEPLOYS}/other/scale", stale).status_code == 404
    wrong = api.put(f"{DEPLOYS}/web/scale", {"metadata": {"name": "other"}})
    assert wrong.status_code == 400
    apply = api.patch(f"{DEPLOYS}/web/scale", {"spec": {"replicas": 1}},
                      "application/apply-patch+yaml", params={"fieldManager": "x"})
    assert apply.status_code == 415
    no_scale = api.get("/apis/apps/v1/namespaces/default/daemonsets/x/scale")
    assert no_scale.status_code == 404
    assert api.get("/api/v1/namespaces/default/pods/x/scale").status_code == 404
    to_zero = api.patch(f"{DEPLOYS}/web/scale", {"spec": {"replicas": 0}})
    assert to_zero.json()["spec"] == {}  # ScaleSpec.replicas is omitempty


@pytest.mark.parametrize("plural,kind", [("replicasets", "ReplicaSet"),
                                         ("statefulsets", "StatefulSet")])
def test_other_scalable_workloads(api: Api, plural: str, kind: str) -> None:
    path = f"/apis/apps/v1/namespaces/default/{plural}"
    assert api.post(path, workload(kind, replicas=None)).status_code == 201
    scale = api.get(f"{path}/web/scale").json()
    assert scale["spec"] == {"replicas": 1}  # defaulted at create
    assert scale["status"]["replicas"] == 0
    resp = api.patch(f"{path}/web/scale", {"spec": {"replicas": 5}})
    assert resp.status_code == 200 and resp.json()["spec"] == {"replicas": 5}
    assert api.get(f"{path}/web").json()["spec"]["replicas"] == 5


FOO_CRD: dict[str, Any] = realapi("objects/crd-create.json")["request"]["body"]
FOOS = "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos"


@pytest.fixture
def foo(api: Api) -> dict[str, Any]:
    resp = api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", FOO_CRD)
    assert resp.status_code == 201, resp.text
    body = realapi("objects/foo-create.json")["request"]["body"]
    created = api.post(FOOS, body)
    assert created.status_code == 201, created.text
    api.patch(f"{FOOS}/example-foo/status", {"status": {"availableReplicas": 2}})
    return created.json()


def test_custom_resource_scale_from_its_paths(api: Api, foo: dict[str, Any]) -> None:
    scale = api.get(f"{FOOS}/example-foo/scale").json()
    assert scale_shape(scale) == scale_shape(fixture_body("writes/foo-scale-get.json"))
    assert scale["spec"] == {"replicas": 1} and scale["status"] == {"replicas": 2}
    body = realapi("writes/foo-scale-put.json")["request"]["body"]
    body["metadata"]["namespace"] = "default"
    put = api.put(f"{FOOS}/example-foo/scale", body)
    assert put.status_code == 200, put.text
    assert put.json()["spec"] == {"replicas": 3}
    after = api.get(f"{FOOS}/example-foo").json()
    real_after = fixture_body("writes/foo-after-scale.json")
    assert after["spec"] == {"deploymentName": "example-foo", "replicas": 3}
    assert list(after) == list(real_after)  # unstructured: keys sorted
    assert after["metadata"]["generation"] == 2
    strategic = api.patch(f"{FOOS}/example-foo/scale", {"spec": {"replicas": 6}},
                          "application/strategic-merge-patch+json")
    assert strategic.status_code == 200 and strategic.json()["spec"] == {"replicas": 6}


def test_label_selector_path(api: Api) -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "pools.example.com"},
        "spec": {"group": "example.com", "scope": "Cluster",
                 "names": {"plural": "pools", "kind": "Pool"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {"type": "object"}},
                               "subresources": {"scale": {
                                   "specReplicasPath": ".spec.size",
                                   "statusReplicasPath": ".status.size",
                                   "labelSelectorPath": ".status.selector"}}}]}}
    assert api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                    crd).status_code == 201
    path = "/apis/example.com/v1/pools"
    assert api.post(path, {"apiVersion": "example.com/v1", "kind": "Pool",
                           "metadata": {"name": "p"}, "spec": {"size": 2},
                           "status": {"size": 1, "selector": "pool=p"}}).status_code == 201
    scale = api.get(f"{path}/p/scale").json()
    assert scale["status"] == {"replicas": 1, "selector": "pool=p"}
    assert "namespace" not in scale["metadata"]
    assert api.patch(f"{path}/p/scale", {"spec": {"replicas": 9}}).json()["spec"] == {
        "replicas": 9}
    assert api.get(f"{path}/p").json()["spec"]["size"] == 9
