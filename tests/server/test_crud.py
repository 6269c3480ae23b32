"""get/create/update/delete with server-managed metadata, and errors shaped like the fixtures."""

from __future__ import annotations

import json
import socket

import pytest

from kubenb.server import EmbeddedServer
from tests.server.conftest import Api, fixture_body, realapi

CM = "/api/v1/namespaces/default/configmaps"


def assert_status_like(resp, fixture: str, compare_message: bool = True) -> dict:
    """Code, reason, key order and details keys as the real server sends them."""
    real = realapi(fixture)["response"]
    body = resp.json()
    assert resp.status_code == real["status"], resp.text
    assert resp.headers["Content-Type"] == "application/json"
    assert list(body) == list(real["body"]), body
    assert body["reason"] == real["body"]["reason"]
    assert body["code"] == real["body"]["code"]
    if "details" in real["body"]:
        assert set(body["details"]) == set(real["body"]["details"])
    if compare_message:
        assert body["message"] == real["body"]["message"]
    return body


def test_create_sets_metadata_like_the_real_server(api: Api) -> None:
    real = fixture_body("objects/configmap-create.json")
    body = realapi("objects/configmap-create.json")["request"]["body"]
    body["metadata"]["namespace"] = "default"
    resp = api.post(CM, body)
    assert resp.status_code == 201
    obj = resp.json()
    assert list(obj) == list(real)
    meta = obj["metadata"]
    assert [k for k in meta if k != "managedFields"] == [
        k for k in real["metadata"] if k != "managedFields"]
    assert len(meta["uid"]) == 36 and meta["creationTimestamp"].endswith("Z")
    assert obj["data"] == real["data"] and obj["binaryData"] == real["binaryData"]
    assert "generation" not in meta
    raw = api.get(f"{CM}/app-config")
    assert raw.content.endswith(b"}\n") and b"\n" not in raw.content[:-1]
    assert raw.json() == obj


def test_resource_versions_increase_globally(api: Api) -> None:
    a = api.create_cm("a")
    ns = api.post("/api/v1/namespaces", {"metadata": {"name": "other"}}).json()
    b = api.create_cm("b", ns="other")
    rvs = [int(o["metadata"]["resourceVersion"]) for o in (a, ns, b)]
    assert rvs == sorted(rvs) and len(set(rvs)) == 3
    listed = api.get("/api/v1/configmaps").json()
    assert int(listed["metadata"]["resourceVersion"]) == rvs[-1]


def test_namespace_create_matches_fixture_shape(api: Api) -> None:
    resp = api.post("/api/v1/namespaces", {"metadata": {"name": "team", "labels": {"a": "b"}}})
    real = fixture_body("objects/namespace-create.json")
    obj = resp.json()
    assert resp.status_code == 201
    assert obj["spec"] == real["spec"] and obj["status"] == real["status"]
    assert obj["metadata"]["labels"] == {"a": "b", "kubernetes.io/metadata.name": "team"}


def test_generate_name(api: Api) -> None:
    obj = api.post(CM, {"metadata": {"generateName": "gen-"}, "data": {"a": "1"}}).json()
    assert obj["metadata"]["name"].startswith("gen-") and len(obj["metadata"]["name"]) == 9
    assert obj["metadata"]["generateName"] == "gen-"


def test_generation_starts_at_1_and_bumps_on_spec_change_only(api: Api) -> None:
    path = "/apis/apps/v1/namespaces/default/deployments"
    dep = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web"},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [{"name": "c", "image": "x"}]}}},
           "status": {"replicas": 9}}
    obj = api.post(path, dep).json()
    assert obj["metadata"]["generation"] == 1
    # status is not settable on create: it starts empty (objects/deployment-create.json)
    assert obj["status"] == fixture_body("objects/deployment-create.json")["status"] == {}
    obj["metadata"]["labels"] = {"changed": "metadata"}
    obj = api.put(f"{path}/web", obj).json()
    assert obj["metadata"]["generation"] == 1
    obj["spec"]["replicas"] = 3
    obj = api.put(f"{path}/web", obj).json()
    assert obj["metadata"]["generation"] == 2
    status = dict(obj, status={"replicas": 3})
    obj = api.put(f"{path}/web/status", status).json()
    assert obj["status"] == {"replicas": 3} and obj["metadata"]["generation"] == 2


def test_status_is_ignored_on_main_resource_update(api: Api) -> None:
    pod = api.post("/api/v1/namespaces/default/pods",
                   {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c",
                                                                         "image": "i"}]}}).json()
    assert pod["status"]["phase"] == "Pending"
    pod["status"] = {"phase": "Running"}
    pod = api.put("/api/v1/namespaces/default/pods/p", pod).json()
    assert pod["status"]["phase"] == "Pending"
    pod["status"] = {"phase": "Running"}
    pod = api.put("/api/v1/namespaces/default/pods/p/status", pod).json()
    assert pod["status"]["phase"] == "Running"


def test_cluster_scoped_crud(api: Api) -> None:
    node = api.post("/api/v1/nodes", {"metadata": {"name": "n1", "namespace": "ignored"}})
    assert node.status_code == 201 and "namespace" not in node.json()["metadata"]
    assert api.get("/api/v1/nodes/n1").status_code == 200
    assert api.delete("/api/v1/nodes/n1").json()["status"] == "Success"
    assert api.get("/api/v1/nodes/n1").status_code == 404


_TEMPLATE = {"metadata": {"labels": {"app": "x"}},
             "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
_WORKLOAD = {"spec": {"selector": {"matchLabels": {"app": "x"}}, "template": _TEMPLATE}}
# What the real server requires of each kind (compare errors/invalid-pod-multiple-causes-422).
VALID: dict[str, dict] = {
    "services": {"spec": {"ports": [{"port": 80}]}}, "pods": {"spec": _TEMPLATE["spec"]},
    "deployments": _WORKLOAD, "replicasets": _WORKLOAD, "statefulsets": _WORKLOAD,
    "daemonsets": _WORKLOAD}
POD_SPEC = _TEMPLATE["spec"]


@pytest.mark.parametrize("plural,group", [
    ("configmaps", ""), ("secrets", ""), ("services", ""), ("serviceaccounts", ""),
    ("events", ""), ("pods", ""), ("deployments", "apps"), ("replicasets", "apps"),
    ("statefulsets", "apps"), ("daemonsets", "apps"),
])
def test_every_namespaced_builtin_round_trips(api: Api, plural: str, group: str) -> None:
    base = f"/apis/{group}/v1" if group else "/api/v1"
    path = f"{base}/namespaces/default/{plural}"
    created = api.post(path, {"metadata": {"name": "x1"}, **VALID.get(plural, {})})
    assert created.status_code == 201, created.text
    assert created.json()["apiVersion"] == (f"{group}/v1" if group else "v1")
    assert api.get(f"{path}/x1").json()["metadata"]["uid"] == created.json()["metadata"]["uid"]
    listed = [i["metadata"]["name"] for i in api.get(path).json()["items"]]
    assert [n for n in listed if n != "kubernetes"] == ["x1"]  # the server's own Service
    updated = api.put(f"{path}/x1", dict(created.json(), metadata=dict(
        created.json()["metadata"], labels={"u": "1"})))
    assert updated.status_code == 200 and updated.json()["metadata"]["labels"] == {"u": "1"}
    assert api.delete(f"{path}/x1").status_code == 200
    assert api.get(f"{path}/x1").status_code == 404


def test_an_update_naming_the_uid_of_a_deleted_object_is_a_conflict(api: Api) -> None:
    """The body's uid is a precondition: kube-apiserver v1.32 answers 409 for an object
    that is gone (seen with `kubectl replace` of a deleted ConfigMap), 404 without a uid."""
    path = "/api/v1/namespaces/default/configmaps"
    obj = api.post(path, {"metadata": {"name": "gone"}, "data": {"a": "b"}}).json()
    api.request("DELETE", f"{path}/gone")
    resp = api.put(f"{path}/gone", obj)
    assert resp.status_code == 409 and resp.json()["reason"] == "Conflict"
    assert resp.json()["message"] == (
        'Operation cannot be fulfilled on configmaps "gone": StorageError: invalid object, '
        "Code: 4, Key: /registry/configmaps/default/gone, ResourceVersion: 0, "
        f"AdditionalErrorMsg: Precondition failed: UID in precondition: "
        f"{obj['metadata']['uid']}, UID in object meta: ")
    del obj["metadata"]["uid"]
    assert api.put(f"{path}/gone", obj).status_code == 404


def test_all_namespaces_list(api: Api) -> None:
    api.post("/api/v1/namespaces", {"metadata": {"name": "b"}})
    for ns in ("default", "b"):
        api.post(f"/api/v1/namespaces/{ns}/pods", {"metadata": {"name": "p"}, "spec": POD_SPEC})
    items = api.get("/api/v1/pods").json()["items"]
    assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in items] == [
        ("b", "p"), ("default", "p")]
    assert all("kind" not in i for i in items)  # list items come without kind, as served


def test_error_statuses_match_fixtures(api: Api) -> None:
    api.create_cm("app-config")
    assert_status_like(api.get(f"{CM}/does-not-exist"), "errors/get-missing-404.json",
                       compare_message=False)
    body = assert_status_like(api.post("/api/v1/namespaces/no-such-ns/configmaps",
                                       {"metadata": {"name": "x"}}),
                              "errors/create-in-missing-namespace-404.json")
    assert body["details"] == {"name": "no-such-ns", "kind": "namespaces"}
    assert_status_like(api.post(CM, {"metadata": {"name": "app-config"}}),
                       "errors/create-already-exists-409.json")
    assert_status_like(api.post(CM, {"metadata": {"name": "Bad_Name"}}),
                       "errors/invalid-name-422.json")
    assert_status_like(api.post(CM, {"metadata": {}}), "errors/missing-name-422.json")
    assert_status_like(api.post(CM, {"metadata": {"name": "x", "namespace": "other"}}),
                       "errors/namespace-mismatch-400.json")
    assert_status_like(api.put(f"{CM}/app-config", {"metadata": {"name": "another-name"}}),
                       "errors/name-mismatch-400.json")
    stale = api.put(f"{CM}/app-config", {"metadata": {"name": "app-config",
                                                        "resourceVersion": "1"}})
    assert_status_like(stale, "errors/update-stale-resourceversion-409.json")
    assert_status_like(api.get("/api/v1/namespaces/default/foobars"),
                       "errors/unknown-resource-404.json")
    assert_status_like(api.post(f"{CM}/app-config", {}), "errors/post-on-object-405.json")
    assert_status_like(api.patch(CM, {}), "errors/patch-collection-405.json")
    assert_status_like(api.request("POST", CM, data="x", headers={"Content-Type": "text/plain"}),
                       "errors/post-unsupported-content-type-415.json")
    assert_status_like(api.request("PATCH", f"{CM}/app-config", data="<x/>",
                                   headers={"Content-Type": "application/xml"}),
                       "errors/patch-unsupported-content-type-415.json")
    bad = realapi("errors/malformed-json-400.json")["request"]["body"]
    assert_status_like(api.request("POST", CM, data=bad,
                                   headers={"Content-Type": "application/json"}),
                       "errors/malformed-json-400.json")
    uid = api.delete(f"{CM}/app-config", json={
        "preconditions": {"uid": "00000000-0000-0000-0000-000000000000"}})
    assert_status_like(uid, "errors/delete-precondition-uid-409.json", compare_message=False)


def test_invalid_label_is_422_with_a_cause(api: Api) -> None:
    resp = api.post(CM, {"metadata": {"name": "x", "labels": {"a": "not valid!"}}})
    assert resp.status_code == 422
    assert resp.json()["details"]["causes"][0]["field"] == "metadata.labels"


def test_body_over_3mib_is_413_and_server_keeps_serving(api: Api, server: EmbeddedServer
                                                        ) -> None:
    big = {"metadata": {"name": "big"}, "data": {"k": "x" * (3 * 1024 * 1024 + 10)}}
    resp = api.post(CM, big)
    assert_status_like(resp, "errors/request-too-large-413.json")
    # the body was not read, so the connection is closed, and the client is told: a
    # pooled socket would fail the next request (it did, now and then)
    assert resp.headers.get("Connection") == "close"
    assert api.get("/healthz").text == "ok"


def test_garbage_on_the_socket_does_not_kill_the_server(server: EmbeddedServer, api: Api
                                                        ) -> None:
    host, port = server.url.removeprefix("http://").split(":")
    for junk in (b"NONSENSE\r\n\r\n", b"GET /api HTTP/1.1\r\nContent-Length: x\r\n\r\n",
                 b"\x00\x01\x02\r\n\r\n"):
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(junk)
            sock.recv(4096)
    for body in ("[]", "null", "42", '{"metadata": 5}', '{"metadata": {"name": 5}}'):
        resp = api.request("POST", CM, data=body, headers={"Content-Type": "application/json"})
        assert 400 <= resp.status_code < 500, (body, resp.text)
        assert resp.json()["kind"] == "Status"
        assert "Traceback" not in resp.text
    assert api.get("/version").status_code == 200


def test_yaml_body_and_yaml_output(api: Api) -> None:
    resp = api.request("POST", CM, data="metadata:\n  name: y\ndata:\n  a: b\n",
                       headers={"Content-Type": "application/yaml"})
    assert resp.status_code == 201
    out = api.get(f"{CM}/y", headers={"Accept": "application/yaml"})
    assert out.headers["Content-Type"] == "application/yaml"
    assert "name: y" in out.text


def test_go_style_html_escaping(api: Api) -> None:
    api.create_cm("esc", data={"v": "<none> & more"})
    raw = api.get(f"{CM}/esc").content
    assert b"\\u003cnone\\u003e \\u0026 more" in raw
    assert json.loads(raw)["data"]["v"] == "<none> & more"


def test_delete_answers_like_the_real_server(api: Api) -> None:
    cm = api.create_cm("cm-2")
    status = api.delete(f"{CM}/cm-2").json()
    real = fixture_body("writes/delete-configmap.json")
    assert list(status) == list(real) and list(status["details"]) == list(real["details"])
    assert status["details"]["uid"] == cm["metadata"]["uid"]
    api.post("/api/v1/namespaces/default/pods", {"metadata": {"name": "short-lived"},
                                                 "spec": POD_SPEC})
    pod = api.delete("/api/v1/namespaces/default/pods/short-lived").json()
    assert pod["kind"] == "Pod" and pod["metadata"]["deletionGracePeriodSeconds"] == 0
    assert "deletionTimestamp" in pod["metadata"]


def test_finalizers_hold_deletion_until_removed(api: Api) -> None:
    api.post(CM, {"metadata": {"name": "held", "finalizers": ["kubenb.io/hold"]}})
    resp = api.delete(f"{CM}/held")
    assert resp.status_code == 200 and resp.json()["metadata"]["deletionTimestamp"]
    still = api.get(f"{CM}/held").json()
    assert still["metadata"]["finalizers"] == ["kubenb.io/hold"]
    gone = api.patch(f"{CM}/held", [{"op": "remove", "path": "/metadata/finalizers"}],
                     "application/json-patch+json")
    assert gone.status_code == 200
    assert api.get(f"{CM}/held").status_code == 404


def test_namespace_delete_empties_it(api: Api) -> None:
    api.post("/api/v1/namespaces", {"metadata": {"name": "doomed"}})
    api.create_cm("a", ns="doomed")
    ns = api.delete("/api/v1/namespaces/doomed").json()
    assert ns["status"]["phase"] == "Terminating" and ns["metadata"]["deletionTimestamp"]
    assert api.get("/api/v1/namespaces/doomed").status_code == 404
    assert api.get("/api/v1/namespaces/doomed/configmaps/a").status_code == 404
    assert api.delete("/api/v1/namespaces/default").status_code == 403


def test_a_namespace_held_by_finalizers_is_terminating_and_refuses_creates(api: Api) -> None:
    api.post("/api/v1/namespaces", {"metadata": {"name": "held",
                                                 "finalizers": ["kubenb.io/hold"]}})
    api.create_cm("a", ns="held")
    ns = api.delete("/api/v1/namespaces/held").json()
    assert ns["status"]["phase"] == "Terminating" and ns["metadata"]["deletionTimestamp"]
    assert api.get("/api/v1/namespaces/held").json()["status"]["phase"] == "Terminating"
    assert api.get("/api/v1/namespaces/held/configmaps").json()["items"] == []  # emptied
    refused = api.post("/api/v1/namespaces/held/configmaps", {"metadata": {"name": "b"}})
    assert refused.status_code == 403  # NamespaceLifecycle admission, as a real server
    assert refused.json()["message"] == (
        'configmaps "b" is forbidden: unable to create new content in namespace held '
        "because it is being terminated")
    assert refused.json()["details"] == {"name": "b", "kind": "configmaps", "causes": [
        {"reason": "NamespaceTerminating", "message": "namespace held is being terminated",
         "field": "metadata.namespace"}]}
    released = api.patch("/api/v1/namespaces/held", {"metadata": {"finalizers": None}})
    assert released.status_code == 200
    assert api.get("/api/v1/namespaces/held").status_code == 404


def test_delete_collection_with_selector(api: Api) -> None:
    for i in range(4):
        api.create_cm(f"c{i}", labels={"batch": "delete-me" if i % 2 else "keep"})
    resp = api.delete(f"{CM}?labelSelector=batch%3Ddelete-me")
    assert resp.json()["kind"] == "ConfigMapList"
    assert sorted(i["metadata"]["name"] for i in resp.json()["items"]) == ["c1", "c3"]
    assert [i["metadata"]["name"] for i in api.get(CM).json()["items"]] == ["c0", "c2"]


def test_noop_update_keeps_resource_version(api: Api) -> None:
    cm = api.create_cm("same", data={"a": "1"})
    again = api.put(f"{CM}/same", cm).json()
    assert again["metadata"]["resourceVersion"] == cm["metadata"]["resourceVersion"]
