"""ObservableObject: one object by key as traits; real changes fire, resyncs do not."""

from __future__ import annotations

import copy
import threading
from typing import Any

import pytest

from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.clock import FakeClock
from kubenb.reactive import ObservableObject, Publisher
from tests.cache.fake_source import FakeSource
from tests.helpers import wait_until
from tests.reactive.support import running_informer, settle


def pod(name: str, phase: str = "Pending", restarts: int = 0, ready: bool = False,
        node: str = "") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns"},
            "spec": {"nodeName": node, "containers": [{"name": "app"}]},
            "status": {"phase": phase, "containerStatuses": [
                {"name": "app", "ready": ready, "restartCount": restarts,
                 "state": {"running": {}} if phase == "Running" else {"waiting": {}}}]}}


def test_follows_one_key_with_pod_traits_changing_together() -> None:
    source = FakeSource()
    source.add(pod("web", node="n1"))
    source.add(pod("other"))
    with running_informer(source) as informer:
        web = ObservableObject(informer, "ns/web")
        try:
            # the cached state is there at once, before any batch
            assert (web.kind, web.exists, web.deleted, web.phase, web.node) == (
                "Pod", True, False, "Pending", "n1")
            assert web.convenience_traits == ["phase", "ready", "status", "restarts", "node",
                                              "pod_ip"]
            seen: list[tuple[str, str, int, str]] = []
            changed = threading.Event()

            def on_object(change: Any) -> None:
                owner = change.owner  # every trait is already updated when one fires
                seen.append((owner.phase, owner.ready, owner.restarts, owner.resource_version))
                changed.set()

            web.observe(on_object, names=["object"])
            phases: list[str] = []
            web.observe(lambda change: phases.append(change.new), names=["phase"])
            source.modify(pod("other", "Running"))  # another key: nothing here
            source.modify(pod("web", "Running", restarts=2, ready=True, node="n1"))
            assert changed.wait(5)
            settle(web)
            assert seen[-1] == ("Running", "1/1", 2, web.object["metadata"]["resourceVersion"])
            assert web.status == "Running" and phases == ["Running"]
            source.modify(pod("web", "Running", restarts=3, ready=True, node="n1"))
            wait_until(lambda: web.restarts == 3, what="the restart")
            assert phases == ["Running"]  # the phase did not change: no phase event
        finally:
            web.close()


def test_a_resync_that_changed_nothing_fires_nothing() -> None:
    clock = FakeClock()
    source = FakeSource()
    source.add(pod("web"))
    informer = SharedIndexInformer(source, None, 30.0, clock=clock)  # resync every 30 s
    informer.start()
    try:
        wait_until(informer.has_synced, what="sync")
        web = ObservableObject(informer, "ns/web")
        fired: list[Any] = []
        web.observe(lambda change: fired.append(change), names=["object", "resource_version"])
        settle(web)
        for _ in range(3):
            before = web.handler.dropped_resyncs
            wait_until(clock.has_waiters, what="the resync timer")
            clock.step(30.0)
            wait_until(lambda b=before: web.handler.dropped_resyncs > b, what="a resync")
            settle(web)
        assert fired == []
        web.close()
    finally:
        informer.stop()


def test_delete_keeps_the_final_state_and_recreate_clears_deleted() -> None:
    source = FakeSource()
    with running_informer(source) as informer:
        web = ObservableObject(informer, "ns/web", kind="Pod")
        try:
            assert (web.exists, web.deleted, web.object) == (False, False, {})
            source.add(pod("web", "Running"))
            wait_until(lambda: web.exists, what="the add")
            source.delete(pod("web", "Succeeded"))
            wait_until(lambda: web.deleted, what="the delete")
            assert not web.exists and web.object["status"]["phase"] == "Succeeded"
            assert web.phase == "Succeeded"
            source.add(pod("web"))
            wait_until(lambda: web.exists and not web.deleted, what="the re-create")
            assert "exists" in repr(web) and "phase='Pending'" in repr(web)
        finally:
            web.close()


@pytest.mark.parametrize(("kind", "obj", "traits"), [
    ("Deployment", {"spec": {"replicas": 3},
                    "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2,
                               "conditions": [{"type": "Available", "status": "True"}]}},
     {"replicas": 3, "ready_replicas": 2, "updated_replicas": 3, "available_replicas": 2,
      "available": True}),
    ("Node", {"spec": {"unschedulable": True},
              "status": {"conditions": [{"type": "Ready", "status": "False"}]}},
     {"ready": False, "unschedulable": True}),
    ("Job", {"status": {"succeeded": 1, "conditions": [{"type": "Complete",
                                                        "status": "True"}]}},
     {"active": 0, "succeeded": 1, "failed": 0, "complete": True}),
    ("ConfigMap", {"data": {"a": "1"}}, {}),
])
def test_kind_traits(kind: str, obj: dict[str, Any], traits: dict[str, Any]) -> None:
    publisher = Publisher("kinds", clock=FakeClock())
    view = ObservableObject(None, "ns/x", kind=kind, publisher=publisher)
    body = {"metadata": {"name": "x", "namespace": "ns", "resourceVersion": "7"}, **obj}
    view.handler.on_add(body, False)
    view.handler.on_add({**copy.deepcopy(body), "metadata": {"name": "y", "namespace": "ns"}})
    view.flush()
    assert view.resource_version == "7" and view.object == body
    assert {name: getattr(view, name) for name in view.convenience_traits} == traits
    view.close()
    publisher.stop()


def test_key_may_be_given_as_the_object() -> None:
    publisher = Publisher("by-object", clock=FakeClock())
    view = ObservableObject(None, pod("web"), kind="Pod", publisher=publisher)
    assert view.key == "ns/web"
    view.close()
    publisher.stop()
