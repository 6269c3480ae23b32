"""The ReplicaSet controller over real HTTP: replicas, status, adoption and release,
expectations (no Pod made twice), minReadySeconds on the clock."""

from __future__ import annotations

from typing import Any

import pytest

from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.controllermanager import ControllerManager
from kubenb.controllermanager.controller_utils import is_pod_ready
from kubenb.controllermanager.replicaset import ReplicaSetController
from kubenb.errors import NotFound
from tests.controllermanager.conftest import MakeCluster, eventually, names, settle, step
from tests.helpers import wait_until


def replica_set(name: str = "web", replicas: int = 3, **spec: Any) -> dict[str, Any]:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": dict(labels, tier="web")},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}},
                     **spec}}


def active_pods(cluster: Cluster, app: str = "web") -> list[dict[str, Any]]:
    return [p for p in cluster.resource("pods").list(label_selector={"app": app})["items"]
            if not p["metadata"].get("deletionTimestamp")]


def rs_status(cluster: Cluster, name: str = "web") -> dict[str, Any]:
    return dict(cluster.resource("replicasets").get(name).get("status") or {})


@pytest.fixture
def rs_cluster(make_cluster: MakeCluster) -> Cluster:
    return make_cluster(controllers={"replicaset", "kubelet"})


def test_replicas_are_kept_and_the_status_counts_them(rs_cluster: Cluster,
                                                      clock: FakeClock) -> None:
    made = rs_cluster.resource("replicasets").create(replica_set(replicas=3))
    status = eventually(lambda: (lambda s: s if s.get("availableReplicas") == 3 else None)(
        rs_status(rs_cluster)), "three available replicas")
    assert status == {"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 3,
                      "availableReplicas": 3, "observedGeneration": 1}
    pods = active_pods(rs_cluster)
    for pod in pods:
        ref = pod["metadata"]["ownerReferences"]
        assert ref == [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                        "uid": made["metadata"]["uid"], "controller": True,
                        "blockOwnerDeletion": True}]
        assert pod["metadata"]["name"].startswith("web-")
        assert pod["metadata"]["labels"] == {"app": "web", "tier": "web"}
    # A pod deleted by hand is replaced.
    victim = pods[0]["metadata"]["name"]
    rs_cluster.resource("pods").delete(victim)
    eventually(lambda: len(active_pods(rs_cluster)) == 3
               and victim not in names(active_pods(rs_cluster)), "a replacement")
    rs_cluster.resource("replicasets").patch("web", {"spec": {"replicas": 1}})
    eventually(lambda: len(active_pods(rs_cluster)) == 1, "the scale-down")
    eventually(lambda: rs_status(rs_cluster).get("replicas") == 1
               and rs_status(rs_cluster)["observedGeneration"] == 2, "the status")


def test_the_pods_to_delete_are_ranked_like_kube_controller_manager() -> None:
    def pod(name: str, created: str, node: str | None, phase: str, ready: bool,
            restarts: int = 0) -> dict[str, Any]:
        return {"metadata": {"name": name, "creationTimestamp": created},
                "spec": {"nodeName": node} if node else {},
                "status": {"phase": phase, "conditions": [
                    {"type": "Ready", "status": "True" if ready else "False"}],
                    "containerStatuses": [{"restartCount": restarts}]}}

    pods = [pod("ready-old", "2026-01-01T00:00:00Z", "n", "Running", True),
            pod("ready-young", "2026-01-02T00:00:00Z", "n", "Running", True),
            pod("crashy", "2026-01-01T00:00:00Z", "n", "Running", True, restarts=4),
            pod("not-ready", "2026-01-01T00:00:00Z", "n", "Running", False),
            pod("pending", "2026-01-01T00:00:00Z", "n", "Pending", False),
            pod("unscheduled", "2026-01-01T00:00:00Z", None, "Pending", False)]
    order = [p["metadata"]["name"] for p in ReplicaSetController.pods_to_delete(pods, 6)]
    assert order == ["unscheduled", "pending", "not-ready", "crashy", "ready-young",
                     "ready-old"]


def test_expectations_mean_no_pod_is_made_twice_while_the_cache_lags(
        rs_cluster: Cluster, clock: FakeClock) -> None:
    """The pod watch is broken, so the controller's pod cache does not see the pods it
    made; every status write wakes the ReplicaSet again. Without expectations each
    wake-up would make three more pods."""
    assert rs_cluster.server is not None and rs_cluster.controllers is not None
    factory = rs_cluster.controllers.cluster.factory
    informers = (factory.core().v1().pods().informer(),
                 factory.apps().v1().replica_sets().informer())
    # start() waits for the pod cache alone; the ReplicaSet one may still be listing
    wait_until(lambda: all(i.has_synced() for i in informers), 20, "both caches synced")
    pods, replica_sets = (i.get_controller().reflector for i in informers)
    assert pods is not None and replica_sets is not None
    watches = replica_sets.stats().get("watches", 0)
    rs_cluster.server.faults.fail("watch", resource="pods")
    rs_cluster.server.drop_watches()

    def only_pods_broken() -> bool:
        if replica_sets.stats().get("watches", 0) == watches:
            # the ReplicaSet watch may have reached the server only after the drop (its
            # count goes up before the request is sent): drop it again until it reopens
            rs_cluster.server.drop_watches()
            clock.step(1)
            return False
        if replica_sets.state != "watching":
            clock.step(1)  # the dropped watches back off; the ReplicaSet one heals
            return False
        return pods.state == "backoff"

    wait_until(only_pods_broken, 60, "the pod watch alone to be broken")
    rs_cluster.resource("replicasets").create(replica_set(replicas=3))
    eventually(lambda: rs_status(rs_cluster).get("observedGeneration") == 1, "a status write")
    rs_cluster.resource("replicasets").patch("web", {"metadata": {"labels": {"poke": "1"}}})
    settle(rs_cluster)
    assert len(rs_cluster.resource("pods").list()["items"]) == 3
    assert "replicas" in rs_status(rs_cluster) and rs_status(rs_cluster)["replicas"] == 0
    rs_cluster.server.faults.clear()  # the watch heals once its backoff is over
    clock.step(60)
    eventually(lambda: rs_status(rs_cluster).get("availableReplicas") == 3, "3 available")
    settle(rs_cluster)
    assert len(rs_cluster.resource("pods").list()["items"]) == 3


def test_orphans_are_adopted_and_mismatches_released(rs_cluster: Cluster) -> None:
    rs_cluster.resource("pods").create({"metadata": {"name": "stray", "labels": {"app": "web"}},
                                        "spec": {"containers": [{"name": "c", "image": "x"}]}})
    # The controller's cache must hold the stray, Ready, before the ReplicaSet comes. If its
    # first sync missed it, it would make two pods, adopt the stray, and delete one of the
    # three: the stray itself if it was not Ready yet, and a pod being deleted is never
    # released (it is no longer active). Real kube-controller-manager does the same.
    assert rs_cluster.controllers is not None and rs_cluster.controllers.replicaset is not None
    pod_cache = rs_cluster.controllers.replicaset.pod_lister.pods("default")

    def stray_ready_in_cache() -> bool:
        try:
            return is_pod_ready(pod_cache.get("stray"))
        except NotFound:
            return False

    eventually(stray_ready_in_cache, "the stray pod Ready in the cache")
    made = rs_cluster.resource("replicasets").create(replica_set(replicas=2))
    eventually(lambda: len(active_pods(rs_cluster)) == 2, "two pods")
    settle(rs_cluster)
    stray = rs_cluster.resource("pods").get("stray")
    assert "deletionTimestamp" not in stray["metadata"]
    assert stray["metadata"]["ownerReferences"][0]["uid"] == made["metadata"]["uid"]
    assert len(active_pods(rs_cluster)) == 2  # the adopted pod counts: only one more made
    # Relabelled out of the selector: released, and replaced.
    rs_cluster.resource("pods").patch("stray", {"metadata": {"labels": {"app": "elsewhere"}}})
    eventually(lambda: "ownerReferences" not in rs_cluster.resource("pods").get(
        "stray")["metadata"], "the pod to be released")
    eventually(lambda: len(active_pods(rs_cluster)) == 2, "a replacement")


def test_min_ready_seconds_counts_on_the_clock(rs_cluster: Cluster, clock: FakeClock) -> None:
    rs_cluster.resource("replicasets").create(replica_set(replicas=2, minReadySeconds=10))
    eventually(lambda: rs_status(rs_cluster).get("readyReplicas") == 2, "two ready pods")
    settle(rs_cluster)
    assert "availableReplicas" not in rs_status(rs_cluster)
    step(clock, rs_cluster, 9)
    settle(rs_cluster)
    assert "availableReplicas" not in rs_status(rs_cluster)
    clock.step(1)
    wait_until(lambda: rs_status(rs_cluster).get("availableReplicas") == 2, 10,
               "available after minReadySeconds")


def test_a_create_the_server_refuses_is_reported_and_retried(rs_cluster: Cluster) -> None:
    bad = replica_set(name="bad", replicas=2)
    bad["spec"]["template"]["metadata"]["labels"]["bad label"] = "x"  # invalid on a pod
    rs_cluster.resource("replicasets").create(bad)
    condition = eventually(lambda: next(iter(rs_status(rs_cluster, "bad").get(
        "conditions") or []), None), "a ReplicaFailure condition")
    assert condition["type"] == "ReplicaFailure" and condition["reason"] == "FailedCreate"
    assert rs_cluster.controllers is not None
    controller = rs_cluster.controllers.replicaset
    assert controller is not None
    wait_until(lambda: controller.controller.metrics().errors >= 2, 10, "retries")
    # Fixed: the failure clears and the pods come.
    rs_cluster.resource("replicasets").patch("bad", {"spec": {"template": {"metadata": {
        "labels": {"bad label": None}}}}})
    eventually(lambda: rs_status(rs_cluster, "bad").get("availableReplicas") == 2
               and "conditions" not in rs_status(rs_cluster, "bad"), "the pods")


def test_objects_listed_into_the_cache_have_no_kind_and_events_still_work(
        make_cluster: MakeCluster, clock: FakeClock) -> None:
    """A ReplicaSet made before the controllers start reaches their cache from a LIST,
    whose items carry no kind / apiVersion: the Events about it must still be written,
    and recording one must never break a sync."""
    cluster = make_cluster(controllers=False)
    cluster.resource("replicasets").create(replica_set(replicas=3))
    with ControllerManager(cluster, {"replicaset", "kubelet"}, clock=clock,
                           kubelet={"start_delay": 0}) as manager:
        controller = manager.replicaset
        assert controller is not None
        cached = eventually(lambda: controller.rs_lister.replica_sets("default").list(),
                            "the ReplicaSet cache to list")
        assert "kind" not in cached[0]
        eventually(lambda: rs_status(cluster).get("availableReplicas") == 3, "three replicas")
        manager.wait_idle()
        assert manager.broadcaster is not None and manager.broadcaster.flush()
        created = [e for e in cluster.resource("events").list()["items"]
                   if e["reason"] == "SuccessfulCreate"]
        assert sum(int(e.get("count") or 1) for e in created) == 3
        assert created[0]["involvedObject"]["kind"] == "ReplicaSet"
        assert controller.controller.metrics().errors == 0
