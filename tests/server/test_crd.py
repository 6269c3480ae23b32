"""CustomResourceDefinitions serve their resources at once, and stop when deleted
(fixtures/realapi/objects/crd-*, watch/crd-establishing, lists/foos, writes/foo-*)."""

from __future__ import annotations

import copy
import json
import threading
from typing import Any

import pytest

from tests.server.conftest import REALAPI, Api, fixture_body, realapi

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
FOO_CRD: dict[str, Any] = realapi("objects/crd-create.json")["request"]["body"]
FOO_NAME = "foos.samplecontroller.k8s.io"
GV = "/apis/samplecontroller.k8s.io/v1alpha1"
FOOS = f"{GV}/namespaces/default/foos"
FOO = realapi("objects/foo-create.json")["request"]["body"]


def crd(plural: str, kind: str, group: str = "example.com", scope: str = "Namespaced",
        versions: list[dict[str, Any]] | None = None, **names: Any) -> dict[str, Any]:
    schema = {"openAPIV3Schema": {"type": "object",
                                  "x-kubernetes-preserve-unknown-fields": True}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"},
            "spec": {"group": group, "scope": scope,
                     "names": {"plural": plural, "kind": kind, **names},
                     "versions": versions or [{"name": "v1", "served": True, "storage": True,
                                               "schema": schema}]}}


def first_events(resp: Any, count: int) -> list[dict[str, Any]]:
    """The first `count` watch events, without waiting for the watch's timeout."""
    out = []
    for line in resp.iter_lines():
        if line:
            out.append(json.loads(line))
            if len(out) == count:
                break
    resp.close()
    return out


def without_volatile(obj: Any) -> Any:
    """Drop values that differ between any two servers (uids, times, versions)."""
    if isinstance(obj, dict):
        return {k: without_volatile(v) for k, v in obj.items()
                if k not in ("uid", "resourceVersion", "creationTimestamp", "managedFields",
                             "lastTransitionTime", "time")}
    if isinstance(obj, list):
        return [without_volatile(v) for v in obj]
    return obj


def test_create_returns_the_defaulted_crd_then_it_is_established(api: Api) -> None:
    rv = api.get(CRDS).json()["metadata"]["resourceVersion"]
    events: list[dict[str, Any]] = []

    def run() -> None:
        resp = api.get(CRDS, stream=True, params={
            "watch": "1", "resourceVersion": rv, "timeoutSeconds": "5",
            "fieldSelector": f"metadata.name={FOO_NAME}"})
        events.extend(first_events(resp, 4))

    reader = threading.Thread(target=run)
    reader.start()
    resp = api.post(CRDS, FOO_CRD)
    reader.join(10)
    assert resp.status_code == 201, resp.text
    created = resp.json()
    assert without_volatile(created) == without_volatile(fixture_body("objects/crd-create.json"))
    established = api.get(f"{CRDS}/{FOO_NAME}").json()
    real = fixture_body("objects/crd-established.json")
    assert without_volatile(established) == without_volatile(real)
    managers = [(m["manager"], m.get("subresource")) for m in established["metadata"][
        "managedFields"]]
    assert managers == [("kube-apiserver", "status"), ("python-requests", None)]
    real_events = realapi_lines("watch/crd-establishing.jsonl")
    assert [e["type"] for e in events] == [e["type"] for e in real_events]
    assert [without_volatile(e["object"]["status"]) for e in events] == [
        without_volatile(e["object"]["status"]) for e in real_events]


def realapi_lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (REALAPI / name).read_text().splitlines() if line]


def test_resources_are_served_and_discoverable_at_once(api: Api) -> None:
    assert api.post(CRDS, FOO_CRD).status_code == 201
    doc = api.get(GV).json()
    real = fixture_body("discovery/apis-samplecontroller.k8s.io-v1alpha1.json")
    strip = [{k: v for k, v in r.items() if k != "storageVersionHash"}
             for r in real["resources"]]
    assert doc["resources"] == strip
    assert api.get("/apis/samplecontroller.k8s.io").json() == fixture_body(
        "discovery/apis-samplecontroller.k8s.io.json")
    group_names = [g["name"] for g in api.get("/apis").json()["groups"]]
    assert group_names[-1] == "samplecontroller.k8s.io"
    created = api.post(FOOS, FOO)
    assert created.status_code == 201, created.text
    real_foo = fixture_body("objects/foo-create.json")
    assert list(created.json()) == list(real_foo)
    assert list(created.json()["metadata"]) == list(real_foo["metadata"])
    assert without_volatile(created.json()) == without_volatile(
        dict(real_foo, metadata=dict(real_foo["metadata"], namespace="default")))
    listed = api.get(FOOS).json()
    real_list = fixture_body("lists/foos.json")
    assert list(listed) == list(real_list) and list(listed["metadata"]) == list(
        real_list["metadata"])
    assert listed["items"][0]["kind"] == "Foo"  # unstructured list items keep their kind
    everywhere = api.get(f"{GV}/foos").json()
    assert [i["metadata"]["name"] for i in everywhere["items"]] == ["example-foo"]
    deleted = api.delete(f"{FOOS}/example-foo")
    assert without_volatile(deleted.json()) == without_volatile(
        dict(fixture_body("writes/delete-custom-resource.json"),
             details={"name": "example-foo", "group": "samplecontroller.k8s.io",
                      "kind": "foos"}))


def test_status_subresource_semantics(api: Api) -> None:
    assert api.post(CRDS, FOO_CRD).status_code == 201
    created = api.post(FOOS, dict(FOO, status={"availableReplicas": 5})).json()
    assert "status" not in created  # the status subresource owns status
    put_status = api.put(f"{FOOS}/example-foo/status",
                         dict(created, spec={"deploymentName": "x", "replicas": 9},
                              status={"availableReplicas": 1}))
    assert put_status.status_code == 200
    assert put_status.json()["status"] == {"availableReplicas": 1}
    assert put_status.json()["spec"] == FOO["spec"] and put_status.json()["metadata"][
        "generation"] == 1
    current = put_status.json()
    put_main = api.put(f"{FOOS}/example-foo", dict(
        current, spec={"deploymentName": "example-foo", "replicas": 2},
        status={"availableReplicas": 7}))
    assert put_main.status_code == 200
    real = fixture_body("writes/foo-put-ignores-status.json")
    assert put_main.json()["status"] == {"availableReplicas": 1}
    assert put_main.json()["metadata"]["generation"] == real["metadata"]["generation"] == 2
    merged = api.patch(f"{FOOS}/example-foo/status", {"status": {"availableReplicas": 2}})
    assert merged.json()["status"] == fixture_body("writes/foo-status-merge-patch.json")[
        "status"]
    smp = api.patch(f"{FOOS}/example-foo", {"spec": {"replicas": 2}},
                    "application/strategic-merge-patch+json")
    assert smp.status_code == 415
    assert smp.json() == fixture_body("errors/strategic-merge-patch-on-custom-resource-415.json")
    json_patch = api.patch(f"{FOOS}/example-foo",
                           [{"op": "replace", "path": "/spec/replicas", "value": 4}],
                           "application/json-patch+json")
    assert json_patch.status_code == 200 and json_patch.json()["spec"]["replicas"] == 4


def test_cluster_scoped_without_subresources(api: Api) -> None:
    body = crd("widgets", "Widget", scope="Cluster", shortNames=["wd"])
    assert api.post(CRDS, body).status_code == 201
    path = "/apis/example.com/v1/widgets"
    made = api.post(path, {"apiVersion": "example.com/v1", "kind": "Widget",
                           "metadata": {"name": "w1"}, "status": {"free": "form"}})
    assert made.status_code == 201, made.text
    assert made.json()["status"] == {"free": "form"}  # no status subresource: kept
    assert "namespace" not in made.json()["metadata"]
    assert api.get("/apis/example.com/v1/namespaces/default/widgets").status_code == 404
    assert api.get(f"{path}/w1/status").status_code == 404
    resources = api.get("/apis/example.com/v1").json()["resources"]
    assert resources == [{"name": "widgets", "singularName": "widget", "namespaced": False,
                          "kind": "Widget", "verbs": ["delete", "deletecollection", "get",
                                                      "list", "patch", "create", "update",
                                                      "watch"], "shortNames": ["wd"]}]


def test_several_versions_share_storage(api: Api) -> None:
    schema = {"openAPIV3Schema": {"type": "object",
                                  "x-kubernetes-preserve-unknown-fields": True}}
    versions = [{"name": "v1beta1", "served": True, "storage": False, "schema": schema},
                {"name": "v1", "served": True, "storage": True, "schema": schema},
                {"name": "v1alpha1", "served": False, "storage": False, "schema": schema}]
    assert api.post(CRDS, crd("gadgets", "Gadget", versions=versions)).status_code == 201
    group = api.get("/apis/example.com").json()
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1"]
    assert group["preferredVersion"]["version"] == "v1"
    assert api.get("/apis/example.com/v1alpha1").status_code == 404
    beta = "/apis/example.com/v1beta1/namespaces/default/gadgets"
    made = api.post(beta, {"apiVersion": "example.com/v1beta1", "kind": "Gadget",
                           "metadata": {"name": "g"}, "spec": {"a": 1}})
    assert made.status_code == 201 and made.json()["apiVersion"] == "example.com/v1beta1"
    v1 = api.get("/apis/example.com/v1/namespaces/default/gadgets/g").json()
    assert v1["apiVersion"] == "example.com/v1" and v1["spec"] == {"a": 1}
    assert api.get(beta).json()["items"][0]["apiVersion"] == "example.com/v1beta1"
    with api.get(beta, stream=True, params={"watch": "1", "timeoutSeconds": "5"}) as resp:
        events = first_events(resp, 1)
    assert [(e["type"], e["object"]["apiVersion"]) for e in events] == [
        ("ADDED", "example.com/v1beta1")]
    stored = api.get(f"{CRDS}/gadgets.example.com").json()
    assert stored["status"]["storedVersions"] == ["v1"]


@pytest.mark.parametrize("change,field,message", [
    (lambda c: c["metadata"].update(name="foo.example.com"), "metadata.name",
     'Invalid value: "foo.example.com": must be spec.names.plural+"."+spec.group'),
    (lambda c: c["spec"].update(group="example"), "spec.group",
     'Invalid value: "example": should be a domain with at least one dot'),
    (lambda c: c["spec"].update(scope="Global"), "spec.scope",
     'Unsupported value: "Global": supported values: "Cluster", "Namespaced"'),
    (lambda c: c["spec"]["names"].update(kind="Bad Kind"), "spec.names.kind",
     'Invalid value: "Bad Kind": may have mixed case, but should otherwise match'),
    (lambda c: c["spec"]["versions"][0].update(storage=False), "spec.versions",
     "must have exactly one version marked as storage version"),
    (lambda c: c["spec"]["versions"][0].pop("schema"), "spec.versions[0].schema.openAPIV3Schema",
     "Required value: schemas are required"),
    (lambda c: c["spec"]["versions"][0].update(additionalPrinterColumns=[
        {"name": "X", "type": "string", "jsonPath": "spec.x"}]),
     "spec.versions[0].additionalPrinterColumns[0].jsonPath",
     "must be a simple json path starting with ."),
    (lambda c: c["spec"]["versions"][0].update(subresources={"scale": {
        "specReplicasPath": ".status.n", "statusReplicasPath": ".status.n"}}),
     "spec.versions[0].subresources.scale.specReplicasPath", "should be a json path under .spec"),
])
def test_invalid_crds_are_422(api: Api, change: Any, field: str, message: str) -> None:
    body = crd("things", "Thing")
    change(body)
    resp = api.post(CRDS, body)
    assert resp.status_code == 422, resp.text
    status = resp.json()
    assert status["reason"] == "Invalid"
    assert status["details"]["kind"] == "CustomResourceDefinition"
    assert status["details"]["group"] == "apiextensions.k8s.io"
    causes = {c["field"]: c["message"] for c in status["details"]["causes"]}
    assert message in causes[field]


def test_protected_group_needs_approval(api: Api) -> None:
    body = copy.deepcopy(FOO_CRD)
    body["metadata"].pop("annotations")
    resp = api.post(CRDS, body)
    real = fixture_body("errors/crd-protected-group-without-approval-422.json")
    assert resp.status_code == 422 and resp.json() == real


def test_group_and_scope_are_immutable_and_renames_are_accepted(api: Api) -> None:
    made = api.post(CRDS, crd("things", "Thing")).json()
    moved = api.patch(f"{CRDS}/things.example.com", {"spec": {"scope": "Cluster"}})
    assert moved.status_code == 422 and "field is immutable" in moved.text
    renamed = api.patch(f"{CRDS}/things.example.com",
                        {"spec": {"names": {"shortNames": ["th"]}}})
    assert renamed.status_code == 200, renamed.text
    current = api.get(f"{CRDS}/things.example.com").json()
    assert current["status"]["acceptedNames"]["shortNames"] == ["th"]
    assert current["metadata"]["generation"] == made["metadata"]["generation"] + 1
    entry = api.get("/apis/example.com/v1").json()["resources"][0]
    assert entry["shortNames"] == ["th"]


def test_name_conflicts_are_not_accepted(api: Api) -> None:
    assert api.post(CRDS, crd("things", "Thing")).status_code == 201
    clash = api.post(CRDS, crd("stuffs", "Thing"))
    assert clash.status_code == 201
    status = api.get(f"{CRDS}/stuffs.example.com").json()["status"]
    assert [(c["type"], c["status"]) for c in status["conditions"]] == [
        ("NamesAccepted", "False"), ("Established", "False")]
    assert api.get("/apis/example.com/v1/namespaces/default/stuffs").status_code == 404


def test_deleting_the_crd_deletes_its_objects_and_its_api(api: Api) -> None:
    assert api.post(CRDS, FOO_CRD).status_code == 201
    assert api.post(FOOS, FOO).status_code == 201
    rv = api.get(FOOS).json()["metadata"]["resourceVersion"]
    with api.get(FOOS, stream=True, params={"watch": "1", "resourceVersion": rv,
                                            "timeoutSeconds": "5"}) as watch:
        assert api.delete(f"{CRDS}/{FOO_NAME}").status_code == 200
        events = first_events(watch, 1)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("DELETED", "example-foo")]
    assert api.get(FOOS).status_code == 404
    assert api.get(GV).status_code == 404
    assert "samplecontroller.k8s.io" not in [g["name"] for g in api.get("/apis").json()[
        "groups"]]
    again = api.post(CRDS, FOO_CRD)
    assert again.status_code == 201
    assert api.get(FOOS).json()["items"] == []  # nothing left behind from before
