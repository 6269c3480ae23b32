"""Aggregated discovery: /api and /apis as apidiscovery.k8s.io APIGroupDiscoveryList when
the client asks for it (fixtures/realapi/discovery/aggregated-*), legacy otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.conftest import Api, fixture_body, realapi

V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
CLIENT_GO = f"{V2},{V2BETA1},application/json"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def group(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(i for i in doc["items"] if i["metadata"].get("name") == name)


def resource(doc: dict[str, Any], group_name: str, plural: str) -> dict[str, Any]:
    version = group(doc, group_name)["versions"][0]
    return next(r for r in version["resources"] if r["resource"] == plural)


@pytest.mark.parametrize("path,fixture", [
    ("/api", "aggregated-api-v2.json"), ("/apis", "aggregated-apis-v2.json")])
@pytest.mark.parametrize("accept", [V2, CLIENT_GO])
def test_v2_answer_and_headers(api: Api, path: str, fixture: str, accept: str) -> None:
    resp = api.get(path, headers={"Accept": accept})
    assert resp.status_code == 200
    real = realapi(f"discovery/{fixture}")["response"]
    assert resp.headers["Content-Type"] == real["headers"]["Content-Type"]
    assert resp.headers["Vary"] == "Accept"
    assert resp.headers["Cache-Control"] == real["headers"]["Cache-Control"] == "public"
    assert resp.headers["Etag"].startswith('"') and resp.headers["Etag"].endswith('"')
    doc = resp.json()
    body = real["body"]
    assert list(doc) == list(body) and doc["kind"] == "APIGroupDiscoveryList"
    assert doc["apiVersion"] == "apidiscovery.k8s.io/v2" and doc["metadata"] == {}
    assert [list(i) for i in doc["items"]] == [list(i) for i in body["items"]][:len(
        doc["items"])]


def test_core_group_entries_match_the_real_server(api: Api) -> None:
    doc = api.get("/api", headers={"Accept": V2}).json()
    real = fixture_body("discovery/aggregated-api-v2.json")
    assert doc["items"][0]["metadata"] == real["items"][0]["metadata"] == {
        "creationTimestamp": None}
    ours = {r["resource"]: r for r in doc["items"][0]["versions"][0]["resources"]}
    theirs = {r["resource"]: r for r in real["items"][0]["versions"][0]["resources"]}
    for plural in ("configmaps", "namespaces", "pods", "services", "events", "secrets",
                   "nodes", "serviceaccounts"):
        mine, real_entry = dict(ours[plural]), dict(theirs[plural])
        subs = mine.pop("subresources", [])
        real_subs = real_entry.pop("subresources", [])
        # the real server has more subresources (exec, log, proxy, ...); ours are among them
        assert all(s in real_subs for s in subs), plural
        assert mine == real_entry, plural
    assert doc["items"][0]["versions"][0]["freshness"] == "Current"


def test_apps_and_apiextensions_match_the_real_server(api: Api) -> None:
    doc = api.get("/apis", headers={"Accept": V2}).json()
    real = fixture_body("discovery/aggregated-apis-v2.json")
    for plural in ("daemonsets", "deployments", "replicasets", "statefulsets"):
        assert resource(doc, "apps", plural) == resource(real, "apps", plural)
    assert resource(doc, "batch", "jobs") == resource(real, "batch", "jobs")
    assert group(doc, "apiextensions.k8s.io") == group(real, "apiextensions.k8s.io")
    names = [i["metadata"]["name"] for i in doc["items"]]
    # every built-in group, in kube-apiserver's order (the CRD's group comes last there)
    assert names == [i["metadata"]["name"] for i in real["items"]][:-1]


def test_crds_appear_and_disappear(api: Api) -> None:
    crd = realapi("objects/crd-create.json")["request"]["body"]
    assert api.post(CRDS, crd).status_code == 201
    doc = api.get("/apis", headers={"Accept": CLIENT_GO}).json()
    real = fixture_body("discovery/aggregated-apis-v2.json")
    assert group(doc, "samplecontroller.k8s.io") == group(real, "samplecontroller.k8s.io")
    assert doc["items"][-1]["metadata"]["name"] == "samplecontroller.k8s.io"
    assert api.delete(f"{CRDS}/foos.samplecontroller.k8s.io").status_code == 200
    after = api.get("/apis", headers={"Accept": CLIENT_GO}).json()
    assert "samplecontroller.k8s.io" not in [i["metadata"]["name"] for i in after["items"]]


def test_v2beta1_and_unknown_versions(api: Api) -> None:
    beta = api.get("/apis", headers={"Accept": V2BETA1})
    real = realapi("discovery/aggregated-apis-v2beta1.json")["response"]
    assert beta.headers["Content-Type"] == real["headers"]["Content-Type"]
    assert beta.json()["apiVersion"] == "apidiscovery.k8s.io/v2beta1"
    v9 = V2.replace("v=v2", "v=v9")
    refused = api.get("/apis", headers={"Accept": v9})
    assert refused.status_code == 406
    assert refused.json() == fixture_body("discovery/aggregated-unknown-version-no-fallback.json")
    fallback = api.get("/api", headers={"Accept": f"{v9},application/json"})
    assert fallback.status_code == 200 and fallback.headers["Content-Type"] == "application/json"
    expected = fixture_body("discovery/aggregated-unknown-version-with-fallback.json")
    assert list(fallback.json()) == list(expected) and fallback.json()["kind"] == "APIVersions"


def test_legacy_documents_without_the_accept(api: Api) -> None:
    assert api.get("/api").json()["kind"] == "APIVersions"
    legacy = api.get("/apis").json()
    assert legacy["kind"] == "APIGroupList"
    assert [g["name"] for g in legacy["groups"]] == [
        g["name"] for g in fixture_body("discovery/apis.json")["groups"]][:-1]
    table = api.get("/api", headers={"Accept": "application/json;as=Table;v=v1;"
                                               "g=meta.k8s.io,application/json"})
    assert table.json()["kind"] == "APIVersions"  # as=Table is no answer for discovery


def test_etag_revalidation(api: Api) -> None:
    first = api.get("/apis", headers={"Accept": V2})
    tag = first.headers["Etag"]
    again = api.get("/apis", headers={"Accept": V2, "If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    crd = realapi("objects/crd-create.json")["request"]["body"]
    assert api.post(CRDS, crd).status_code == 201
    changed = api.get("/apis", headers={"Accept": V2, "If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["Etag"] != tag
