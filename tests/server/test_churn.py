"""The churn generator and seed_objects, seen over real HTTP (the kubelet that runs churned
pods is a controller: tests/controllermanager/test_kubelet.py)."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import pytest

from kubenb.clock import FakeClock
from kubenb.errors import KubenbError
from kubenb.server import EmbeddedServer
from kubenb.server.churn import NODE_NAME, ChurnConfigError, ChurnOp
from tests.helpers import assert_no_new_threads, wait_until
from tests.server.conftest import Api

PODS = "/api/v1/namespaces/default/pods"


def _state(srv: EmbeddedServer) -> list[tuple[Any, ...]]:
    """What churn decides (names, data, labels, spec), without uids, times and RVs."""
    out = []
    for resource, namespace, name, obj in sorted(srv.storage.iter_all(), key=lambda r: r[:3]):
        meta = obj["metadata"]
        managers = {m.get("manager") for m in meta.get("managedFields") or []}
        if resource in ("namespaces", "nodes") or managers == {"kube-apiserver"}:
            continue  # what the server makes at start (default/kubernetes names its port)
        out.append((resource, namespace, name, json.dumps(obj.get("data"), sort_keys=True),
                    json.dumps(meta.get("labels"), sort_keys=True),
                    json.dumps(meta.get("annotations"), sort_keys=True),
                    json.dumps(obj.get("spec"), sort_keys=True)))
    return out


def test_same_seed_same_operations_on_two_servers() -> None:
    kinds = ("configmaps", "pods", "secrets", "services", "deployments")
    with EmbeddedServer() as one, EmbeddedServer() as two:
        first = one.churn(kinds=kinds, namespaces=("default", "team-a"), seed=42,
                          max_objects=40).run(300)
        second = two.churn(kinds=kinds, namespaces=("default", "team-a"), seed=42,
                           max_objects=40).run(300)
        assert first == second
        assert _state(one) == _state(two)
        assert {op.op for op in first} == {"create", "update", "delete"}
        assert {op.resource for op in first} == set(kinds)
        assert {op.namespace for op in first} == {"default", "team-a"}
        assert sum(1 for _ in _state(one)) <= 40  # max_objects holds
    with EmbeddedServer() as three:
        other = three.churn(kinds=kinds, seed=43).run(300)
        assert other != first


def test_ops_counters_journal_and_watch_events_agree(server: EmbeddedServer, api: Api) -> None:
    churn = server.churn(kinds=("configmaps",), seed=3, max_objects=5)
    rv = server.storage.resource_version
    done = churn.run(30)
    assert list(churn.journal) == done
    counts = churn.ops
    assert counts["create"] + counts["update"] + counts["delete"] == 30
    assert counts["errors"] == 0
    events: list[dict[str, Any]] = []
    with api.get("/api/v1/namespaces/default/configmaps",
                 params={"watch": "true", "resourceVersion": str(rv)}, stream=True) as watch:
        for line in watch.iter_lines():
            if line:
                events.append(json.loads(line))
            if len(events) == len(done):
                break
    expected = {"create": "ADDED", "update": "MODIFIED", "delete": "DELETED"}
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        (expected[op.op], op.name) for op in done]
    for op in done:
        assert re.fullmatch(r"churn-configmap-\d{5}", op.name)


def test_rate_is_paced_by_the_clock_without_sleeping(server: EmbeddedServer) -> None:
    before = set(threading.enumerate())
    clock = FakeClock()
    churn = server.churn(rate=4, kinds=("configmaps",), clock=clock)

    def total() -> int:
        ops = churn.ops
        return ops["create"] + ops["update"] + ops["delete"]

    with churn:
        assert churn.running
        assert any(t.name == "kubenb-churn" for t in threading.enumerate())
        wait_until(clock.has_waiters, what="churn to wait on the clock")
        assert total() == 1  # the first operation is due at once
        clock.step(1.0)
        wait_until(lambda: total() == 5, what="four more operations")
        wait_until(clock.has_waiters, what="churn to wait again")
        assert total() == 5
        clock.step(10.0)  # a long stall makes up at most one second of backlog
        wait_until(lambda: total() == 10, what="the capped catch-up")
        wait_until(clock.has_waiters, what="churn to wait again")
        assert total() == 10
    assert not churn.running
    assert_no_new_threads(before)


def test_churned_pods_are_deleted_at_once_even_when_bound(server: EmbeddedServer,
                                                         api: Api) -> None:
    """Churn deletes with gracePeriodSeconds=0: its pods never wait for a kubelet."""
    churn = server.churn(kinds=("pods",), seed=4, max_objects=3)
    done = []
    for _ in range(40):
        for item in api.get(PODS).json()["items"]:  # as if a scheduler had bound them
            if not item["spec"].get("nodeName"):
                api.patch(f"{PODS}/{item['metadata']['name']}",
                          {"spec": {"nodeName": NODE_NAME}})
        done.append(churn.step())
    deleted = {op.name for op in done if op.op == "delete"}
    assert deleted
    left = {p["metadata"]["name"] for p in api.get(PODS).json()["items"]}
    assert not deleted & left  # names are never reused: a deleted pod is gone
    assert all(not p["metadata"].get("deletionTimestamp") for p in api.get(PODS).json()["items"])


def test_seed_objects_makes_realistic_running_pods(server: EmbeddedServer, api: Api) -> None:
    names = server.seed_objects(5, seed=9)
    pods = api.get(PODS).json()["items"]
    assert sorted(names) == [p["metadata"]["name"] for p in pods]
    for pod in pods:
        app = pod["metadata"]["labels"]["app"]
        template_hash = pod["metadata"]["labels"]["pod-template-hash"]
        assert re.fullmatch(rf"{app}-{template_hash}-[a-z0-9]{{5}}", pod["metadata"]["name"])
        assert [c["name"] for c in pod["spec"]["containers"]] == ["app", "sidecar"]
        app_container = pod["spec"]["containers"][0]
        assert app_container["env"] and app_container["readinessProbe"]
        assert app_container["livenessProbe"] and pod["spec"]["volumes"]
        assert pod["status"]["phase"] == "Running" and pod["spec"]["nodeName"] == NODE_NAME
    with EmbeddedServer() as other:
        assert other.seed_objects(5, seed=9) == names  # repeatable
    cms = server.seed_objects(3, kind="configmaps", namespace="seeded")
    listed = api.get("/api/v1/namespaces/seeded/configmaps").json()["items"]
    assert sorted(cms) == [c["metadata"]["name"] for c in listed]
    pending = server.seed_objects(2, namespace="cold", running=False, seed=1)
    assert {p["status"]["phase"] for p in api.get(
        "/api/v1/namespaces/cold/pods").json()["items"]} == {"Pending"}
    assert len(pending) == 2


def test_server_stop_stops_a_running_churn() -> None:
    before = set(threading.enumerate())
    srv = EmbeddedServer().start()
    churn = srv.churn(rate=1000, kinds=("configmaps",)).start()
    wait_until(lambda: churn.ops["create"] > 0, what="churn to make something")
    srv.stop()
    assert not churn.running
    assert_no_new_threads(before)


def test_churn_keeps_going_when_a_user_deletes_its_objects(server: EmbeddedServer,
                                                           api: Api) -> None:
    churn = server.churn(kinds=("configmaps",), seed=5, max_objects=3)
    churn.run(10)
    api.delete("/api/v1/namespaces/default/configmaps")
    done = churn.run(10)
    assert len(done) == 10 and all(isinstance(op, ChurnOp) for op in done)
    assert churn.ops["errors"] == 0


def test_bad_churn_options_raise_clear_errors(server: EmbeddedServer) -> None:
    with pytest.raises(ChurnConfigError, match="not supported"):
        server.churn(kinds=("widgets",))
    with pytest.raises(ChurnConfigError, match="rate"):
        server.churn(rate=-1)
    with pytest.raises(KubenbError, match="max_objects"):
        server.churn(max_objects=0)
    with pytest.raises(ChurnConfigError, match="namespace"):
        server.churn(namespaces=())
    with pytest.raises(ChurnConfigError, match="not supported"):
        server.seed_objects(1, kind="nodes")


def test_seed_objects_refusals_are_the_api_errors_a_client_gets(server: EmbeddedServer) -> None:
    from kubenb.errors import ApiError, Invalid

    with pytest.raises(Invalid) as caught:
        server.seed_objects(1, "configmaps", namespace="Not_A_Namespace")
    assert isinstance(caught.value, ApiError) and isinstance(caught.value, KubenbError)
    assert caught.value.status == 422 and "Not_A_Namespace" in str(caught.value)
