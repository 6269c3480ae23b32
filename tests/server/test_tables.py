"""Server-side printing: `Accept: ...;as=Table;v=v1;g=meta.k8s.io` answers a meta.k8s.io/v1
Table shaped like the real apiserver's (fixtures/realapi/table, watch/table-watch)."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from tests.server.conftest import REALAPI, Api, fixture_body, realapi

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
KUBECTL_ACCEPT = ("application/json;as=Table;v=v1;g=meta.k8s.io,"
                  "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json")
FIXTURE_ACCEPT = TABLE + ",application/json"
PODS = "/api/v1/namespaces/default/pods"
CMS = "/api/v1/namespaces/default/configmaps"


def pod(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels or {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx"},
                                    {"name": "sidecar", "image": "busybox"}]}}


def table(api: Api, path: str, accept: str = FIXTURE_ACCEPT, **params: str) -> dict[str, Any]:
    resp = api.get(path, headers={"Accept": accept}, params=params)
    assert resp.status_code == 200, resp.text
    assert resp.headers["Content-Type"] == "application/json"  # Tables do not echo as=Table
    return resp.json()


def shape(body: dict[str, Any]) -> dict[str, Any]:
    """What must match a real server's Table: keys, columns, row keys, cell types."""
    return {"keys": list(body), "kind": body["kind"], "apiVersion": body["apiVersion"],
            "meta": sorted(body["metadata"]), "columns": body["columnDefinitions"],
            "row_keys": sorted({k for r in body["rows"] for k in r}),
            "cell_types": [[type(c).__name__ for c in r["cells"]] for r in body["rows"]][:1],
            "object_kinds": sorted({(r["object"] or {}).get("kind", "null")
                                    for r in body["rows"]})}


def test_pods_table_matches_the_real_shape(api: Api) -> None:
    for name in ("web-1", "web-2"):
        assert api.post(PODS, pod(name)).status_code == 201
    got = table(api, PODS)
    assert shape(got) == shape(fixture_body("table/pods.json"))
    assert [r["cells"][:4] for r in got["rows"]] == [
        ["web-1", "0/2", "Pending", "0"], ["web-2", "0/2", "Pending", "0"]]
    assert got["rows"][0]["cells"][5:] == ["<none>"] * 4
    assert got["rows"][0]["object"]["metadata"]["name"] == "web-1"
    assert got["metadata"]["resourceVersion"] == api.get(PODS).json()["metadata"][
        "resourceVersion"]


def test_kubectl_accept_list_picks_the_v1_table(api: Api) -> None:
    api.create_cm("a", data={"x": "1", "y": "2"})
    got = table(api, CMS, KUBECTL_ACCEPT)
    assert got["apiVersion"] == "meta.k8s.io/v1"
    assert got["rows"][0]["cells"][:2] == ["a", 2]
    beta = table(api, CMS, "application/json;as=Table;v=v1beta1;g=meta.k8s.io")
    assert beta["apiVersion"] == "meta.k8s.io/v1beta1"
    assert beta["rows"][0]["object"]["apiVersion"] == "meta.k8s.io/v1beta1"


@pytest.mark.parametrize("kind", ["configmaps", "deployments", "events"])
@pytest.mark.parametrize("include", ["", "Object", "None"])
def test_include_object_variants(api: Api, kind: str, include: str) -> None:
    if kind == "configmaps":
        api.create_cm("c", labels={"app": "web"}, data={"k": "v"})
        path = CMS
    elif kind == "deployments":
        path = "/apis/apps/v1/namespaces/default/deployments"
        body = realapi("objects/deployment-create.json")["request"]["body"]
        body["metadata"].pop("namespace", None)
        assert api.post(path, body).status_code == 201
    else:
        path = "/api/v1/namespaces/default/events"
        body = realapi("objects/event-create.json")["request"]["body"]
        body["metadata"].pop("namespace", None)
        assert api.post(path, body).status_code == 201
    suffix = {"": "", "Object": "-include-object", "None": "-include-none"}[include]
    params = {"includeObject": include} if include else {}
    got = table(api, path, **params)
    assert shape(got) == shape(fixture_body(f"table/{kind}{suffix}.json"))


def test_cells_of_a_deployment_follow_its_status(api: Api) -> None:
    path = "/apis/apps/v1/namespaces/default/deployments"
    body = realapi("objects/deployment-create.json")["request"]["body"]
    body["metadata"].pop("namespace", None)
    assert api.post(path, body).status_code == 201
    status = {"status": {"replicas": 3, "updatedReplicas": 3, "readyReplicas": 1,
                         "availableReplicas": 1}}
    assert api.patch(f"{path}/web/status", status).status_code == 200
    cells = table(api, path)["rows"][0]["cells"]
    real = fixture_body("table/deployments.json")["rows"][0]["cells"]
    assert cells[0] == "web" and cells[1:4] == ["1/3", 3, 1]
    assert cells[5:] == real[5:]  # containers, images, selector as the real server prints them


def test_single_object_get_is_a_one_row_table(api: Api) -> None:
    assert api.post(PODS, pod("web-pod")).status_code == 201
    got = table(api, f"{PODS}/web-pod")
    assert shape(got) == shape(fixture_body("table/pod-single-object.json"))
    assert got["metadata"] == {"resourceVersion": got["rows"][0]["object"]["metadata"][
        "resourceVersion"]}


def test_namespaces_nodes_and_empty_tables(api: Api) -> None:
    got = table(api, "/api/v1/namespaces")
    assert shape(got)["columns"] == fixture_body("table/namespaces.json")["columnDefinitions"]
    assert ["default", "Active"] in [r["cells"][:2] for r in got["rows"]]
    empty = table(api, "/api/v1/nodes")
    real_empty = fixture_body("table/nodes-empty.json")
    assert empty["rows"] == [] and empty["columnDefinitions"] == real_empty[
        "columnDefinitions"]
    node = realapi("objects/node-create.json")["request"]["body"]
    assert api.post("/api/v1/nodes", node).status_code == 201
    cells = table(api, "/api/v1/nodes", includeObject="None")["rows"][0]["cells"]
    real = fixture_body("table/nodes-include-none.json")["rows"][0]["cells"]
    assert cells[:3] == real[:3] and cells[4:] == real[4:]


def test_paged_table_keeps_the_continue_token(api: Api) -> None:
    for name in "abc":
        api.create_cm(name)
    first = table(api, CMS, limit="2")
    assert len(first["rows"]) == 2 and first["metadata"]["continue"]
    assert first["metadata"]["remainingItemCount"] == 1
    rest = table(api, CMS, limit="2", **{"continue": first["metadata"]["continue"]})
    assert [r["cells"][0] for r in rest["rows"]] == ["c"] and "continue" not in rest["metadata"]


def test_crd_and_unknown_printers_fall_back_to_name_and_created_at(api: Api) -> None:
    got = table(api, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
    assert [c["name"] for c in got["columnDefinitions"]] == ["Name", "Created At"]
    assert got["columnDefinitions"][1]["type"] == "date"


def test_partial_object_metadata(api: Api) -> None:
    api.create_cm("meta-only", data={"secret": "do not send"})
    accept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
    one = api.get(f"{CMS}/meta-only", headers={"Accept": accept}).json()
    real = fixture_body("objects/configmap-kube-root-ca-metadata.json")
    assert list(one) == list(real) and one["kind"] == "PartialObjectMetadata"
    assert one["metadata"]["name"] == "meta-only" and "data" not in one
    many = api.get(CMS, headers={"Accept": accept.replace(
        "PartialObjectMetadata;", "PartialObjectMetadataList;")}).json()
    assert many["kind"] == "PartialObjectMetadataList"
    assert {i["metadata"]["name"] for i in many["items"]} == {"meta-only"}


def test_negotiation_falls_back_and_refuses(api: Api) -> None:
    api.create_cm("n")
    scale_like = api.get(CMS, headers={"Accept": "application/json;as=Table;v=v9;"
                                                 "g=meta.k8s.io,application/json"})
    assert scale_like.json()["kind"] == "ConfigMapList"
    as_yaml = api.get(CMS, headers={"Accept": "application/yaml"})
    assert as_yaml.headers["Content-Type"] == "application/yaml"
    assert "kind: ConfigMapList" in as_yaml.text
    refused = api.get(CMS, headers={"Accept": "application/vnd.kubernetes.protobuf"})
    assert refused.status_code == 406
    assert refused.json()["reason"] == "NotAcceptable"
    bad = api.get(CMS, headers={"Accept": TABLE}, params={"includeObject": "Everything"})
    assert bad.status_code == 400 and "includeObject" in bad.json()["message"]
    # writes answer with the object, whatever Table preference the client states
    created = api.post(CMS, {"metadata": {"name": "w"}}, headers={"Accept": KUBECTL_ACCEPT})
    assert created.status_code == 201 and created.json()["kind"] == "ConfigMap"


def test_table_watch_like_kubectl_get_w(api: Api) -> None:
    listed = table(api, CMS, labelSelector="fixture=watch")
    rv = listed["metadata"]["resourceVersion"]
    events: list[dict[str, Any]] = []

    def run() -> None:
        resp = api.get(CMS, headers={"Accept": FIXTURE_ACCEPT}, stream=True, params={
            "watch": "true", "resourceVersion": rv, "labelSelector": "fixture=watch",
            "timeoutSeconds": "5"})
        for line in resp.iter_lines():
            if line:
                events.append(json.loads(line))
                if len(events) == 2:
                    break
        resp.close()

    reader = threading.Thread(target=run)
    reader.start()
    api.create_cm("w-5", labels={"fixture": "watch"}, data={"v": "1", "more": "2"})
    assert api.delete(f"{CMS}/w-5").status_code == 200
    reader.join(10)
    real = [json.loads(line) for line in
            (REALAPI / "watch/table-watch.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events] == [e["type"] for e in real] == ["ADDED", "DELETED"]
    for got, want in zip(events, real, strict=True):
        assert list(got["object"]) == list(want["object"])
        assert (got["object"]["columnDefinitions"] is None) == (
            want["object"]["columnDefinitions"] is None)
        assert got["object"]["rows"][0]["cells"][:2] == ["w-5", 2]
        assert got["object"]["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
        assert got["object"]["metadata"]["resourceVersion"] == got["object"]["rows"][0][
            "object"]["metadata"]["resourceVersion"]
    assert events[0]["object"]["columnDefinitions"] == real[0]["object"]["columnDefinitions"]
