"""Lists: selectors, limit/continue, resourceVersion semantics, list metadata."""

from __future__ import annotations

import base64
import json

from kubenb.server import EmbeddedServer
from tests.server.conftest import Api, fixture_body, realapi
from tests.server.test_crud import assert_status_like

CM = "/api/v1/namespaces/default/configmaps"
PODS = "/api/v1/namespaces/default/pods"


def names(resp) -> list[str]:
    assert resp.status_code == 200, resp.text
    return [i["metadata"]["name"] for i in resp.json()["items"]]


def test_label_selectors_full_grammar(api: Api) -> None:
    api.create_cm("a", labels={"app": "web", "tier": "backend"})
    api.create_cm("b", labels={"app": "web", "tier": "cache"})
    api.create_cm("c", labels={"app": "db"})
    sel = "tier,tier notin (cache)"
    assert names(api.get(CM, params={"labelSelector": sel})) == ["a"]
    assert names(api.get(CM, params={"labelSelector": "app=web,!legacy"})) == ["a", "b"]
    assert names(api.get(CM, params={"labelSelector": "app in (db,x)"})) == ["c"]
    assert names(api.get(CM, params={"labelSelector": "app!=web"})) == ["c"]


def test_bad_label_selector_is_400_like_the_fixture(api: Api) -> None:
    resp = api.get(CM, params={"labelSelector": "app in (web"})
    assert_status_like(resp, "errors/labelselector-invalid-400.json")


def test_field_selectors(api: Api) -> None:
    api.create_cm("app-config")
    api.create_cm("other")
    assert names(api.get(CM, params={"fieldSelector": "metadata.name=app-config"})) == [
        "app-config"]
    assert names(api.get("/api/v1/configmaps",
                         params={"fieldSelector": "metadata.namespace=default,"
                                                  "metadata.name!=other"})) == ["app-config"]
    assert_status_like(api.get(CM, params={"fieldSelector": "data.mode=debug"}),
                       "errors/fieldselector-unsupported-field-400.json")


def test_pod_field_selectors(api: Api) -> None:
    containers = [{"name": "c", "image": "nginx"}]  # a pod needs one (the real server's 422)
    api.post(PODS, {"metadata": {"name": "pending", "labels": {"release": "standalone"}},
                    "spec": {"containers": containers}})
    api.post(PODS, {"metadata": {"name": "placed"},
                    "spec": {"nodeName": "n1", "containers": containers}})
    pod = api.get(f"{PODS}/placed").json()
    api.put(f"{PODS}/placed/status", dict(pod, status={"phase": "Running"}))
    assert names(api.get(PODS, params={"fieldSelector": "status.phase=Pending"})) == ["pending"]
    assert names(api.get(PODS, params={"fieldSelector": "status.phase=Running"})) == ["placed"]
    unscheduled = api.get(PODS, params={"fieldSelector": "spec.nodeName=",
                                        "labelSelector": "release=standalone"})
    assert names(unscheduled) == ["pending"]
    assert names(api.get(PODS, params={"fieldSelector": "spec.nodeName=n1"})) == ["placed"]
    empty = api.get(PODS, params={"fieldSelector": "status.phase=Failed"}).json()
    real = fixture_body("lists/pods-fieldselector-phase-running-empty.json")
    assert list(empty) == list(real) and empty["items"] == [] and list(empty["metadata"]) == [
        "resourceVersion"]


def test_paging_is_a_consistent_snapshot(api: Api) -> None:
    for i in range(5):
        api.create_cm(f"cm-{i}", labels={"n": str(i)})
    page1 = api.get(CM, params={"limit": 2}).json()
    real = fixture_body("lists/configmaps-limit-2-page-1.json")
    assert list(page1["metadata"]) == list(real["metadata"])
    assert page1["metadata"]["remainingItemCount"] == 3
    token = page1["metadata"]["continue"]
    decoded = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    assert decoded["start"] == "cm-1\x00" and decoded["v"] == "meta.k8s.io/v1"
    # writes between pages do not show up in the continued list
    api.delete(f"{CM}/cm-3")
    api.create_cm("cm-22")
    page2 = api.get(CM, params={"limit": 2, "continue": token}).json()
    assert [i["metadata"]["name"] for i in page2["items"]] == ["cm-2", "cm-3"]
    assert page2["metadata"]["resourceVersion"] == page1["metadata"]["resourceVersion"]
    page3 = api.get(CM, params={"limit": 2, "continue": page2["metadata"]["continue"]}).json()
    assert [i["metadata"]["name"] for i in page3["items"]] == ["cm-4"]
    assert "continue" not in page3["metadata"]


def test_paging_with_selector_omits_remaining_count(api: Api) -> None:
    for i in range(6):
        api.create_cm(f"cm-{i}", labels={"even": str(i % 2 == 0).lower()})
    got = []
    params = {"limit": 2, "labelSelector": "even=true"}
    while True:
        page = api.get(CM, params=params).json()
        assert "remainingItemCount" not in page["metadata"]
        got += [i["metadata"]["name"] for i in page["items"]]
        if not page["metadata"].get("continue"):
            break
        params["continue"] = page["metadata"]["continue"]
    assert got == ["cm-0", "cm-2", "cm-4"]


def test_expired_and_garbage_continue_tokens(api: Api, server: EmbeddedServer) -> None:
    for i in range(3):
        api.create_cm(f"cm-{i}")
    token = api.get(CM, params={"limit": 1}).json()["metadata"]["continue"]
    assert_status_like(api.get(CM, params={"limit": 2, "continue": "not-a-valid-continue-token"}),
                       "lists/continue-garbage-400.json", compare_message=False)
    api.create_cm("later")
    server.compact()  # like etcd: the revision compacted at stays readable, older ones do not
    resp = api.get(CM, params={"limit": 2, "continue": token})
    body = assert_status_like(resp, "lists/continue-expired-410.json")
    # the token in the Status continues from the same key at the current state
    fresh = api.get(CM, params={"limit": 10, "continue": body["metadata"]["continue"]})
    assert names(fresh) == ["cm-1", "cm-2", "later"]


def test_continue_with_resource_version_is_rejected(api: Api) -> None:
    api.create_cm("a")
    api.create_cm("b")
    token = api.get(CM, params={"limit": 1}).json()["metadata"]["continue"]
    resp = api.get(CM, params={"continue": token, "resourceVersion": "1"})
    assert resp.status_code == 400


def test_resource_version_semantics(api: Api, server: EmbeddedServer) -> None:
    a = api.create_cm("a")
    rv_a = a["metadata"]["resourceVersion"]
    api.create_cm("b")
    # Exact: the list as it was at rv_a
    exact = api.get(CM, params={"resourceVersion": rv_a, "resourceVersionMatch": "Exact"})
    assert names(exact) == ["a"] and exact.json()["metadata"]["resourceVersion"] == rv_a
    # NotOlderThan / 0: the current state
    assert names(api.get(CM, params={"resourceVersion": rv_a,
                                     "resourceVersionMatch": "NotOlderThan"})) == ["a", "b"]
    assert names(api.get(CM, params={"resourceVersion": "0", "limit": 1})) == ["a", "b"]
    assert_status_like(api.get(CM, params={"resourceVersionMatch": "NotOlderThan"}),
                       "errors/resourceversionmatch-without-rv-422.json")
    future = api.get(CM, params={"resourceVersion": "1000313",
                                 "resourceVersionMatch": "NotOlderThan"})
    body = assert_status_like(future, "errors/list-resourceversion-too-large-504.json",
                              compare_message=False)
    assert body["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"
    server.compact()
    api.create_cm("c")
    assert_status_like(api.get(CM, params={"resourceVersion": rv_a,
                                           "resourceVersionMatch": "Exact"}),
                       "errors/list-exact-resourceversion-compacted-410.json")
    real = realapi("errors/list-exact-resourceversion-compacted-410.json")
    assert real["response"]["status"] == 410


def test_history_window_bounds_exact_lists(api: Api) -> None:
    small = EmbeddedServer(history_window=3)
    with small:
        client = Api(small.url)
        first = client.create_cm("first")["metadata"]["resourceVersion"]
        for i in range(5):
            client.create_cm(f"x{i}")
        resp = client.get(CM, params={"resourceVersion": first, "resourceVersionMatch": "Exact"})
        assert resp.status_code == 410 and resp.json()["reason"] == "Expired"
        client.close()
