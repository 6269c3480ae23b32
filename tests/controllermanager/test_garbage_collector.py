"""The garbage collector over real HTTP: background, foreground and orphan deletion,
owners of any kind (custom resources too), and kubectl delete --cascade."""

from __future__ import annotations

import json
from typing import Any

import pytest

import kubenb
from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from tests.controllermanager.conftest import MakeCluster, eventually, gone, names, settle, step
from tests.helpers import Kubectl, needs_kubectl, wait_until


def owner_ref(owner: dict[str, Any], block: bool = True,
              controller: bool = True) -> dict[str, Any]:
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"],
            "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
            "controller": controller, "blockOwnerDeletion": block}


def configmap(cluster: Cluster, name: str, *owners: dict[str, Any], **kw: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if owners:
        meta["ownerReferences"] = [owner_ref(o, **kw) for o in owners]
    made = cluster.resource("configmaps").create({"metadata": meta})
    return dict(made, apiVersion="v1", kind="ConfigMap")


@pytest.fixture
def gc_only(make_cluster: MakeCluster) -> Cluster:
    """Only the garbage collector: nothing else creates or deletes anything."""
    return make_cluster(controllers={"garbagecollector"})


def test_background_deletion_takes_the_dependents_down_level_by_level(gc_only: Cluster) -> None:
    root = configmap(gc_only, "root")
    child = configmap(gc_only, "child", root)
    configmap(gc_only, "grandchild", child)
    configmap(gc_only, "bystander")
    settle(gc_only)
    assert {"root", "child", "grandchild"} <= names(
        gc_only.resource("configmaps").list()["items"])  # all owners exist: nothing goes
    gc_only.resource("configmaps").delete("root")  # Background: the default
    wait_until(lambda: gone(gc_only, "configmaps", "child")
               and gone(gc_only, "configmaps", "grandchild"), 10, "the cascade")
    assert not gone(gc_only, "configmaps", "bystander")


def test_an_object_made_after_its_owner_is_gone_is_collected(gc_only: Cluster) -> None:
    owner = configmap(gc_only, "owner")
    gc_only.resource("configmaps").delete("owner")
    configmap(gc_only, "late", owner)
    wait_until(lambda: gone(gc_only, "configmaps", "late"), 10, "the orphan to be collected")


def test_only_the_dangling_reference_is_dropped_while_another_owner_lives(
        gc_only: Cluster) -> None:
    first, second = configmap(gc_only, "first"), configmap(gc_only, "second")
    configmap(gc_only, "shared", first, second, controller=False)
    gc_only.resource("configmaps").delete("first")
    refs = eventually(lambda: (lambda r: r if len(r) == 1 else None)(
        gc_only.resource("configmaps").get("shared")["metadata"]["ownerReferences"]),
        "the reference to the deleted owner to be removed")
    assert refs[0]["uid"] == second["metadata"]["uid"]


def test_a_new_owner_with_the_old_name_does_not_save_the_dependents(gc_only: Cluster) -> None:
    old = configmap(gc_only, "owner")
    gc_only.resource("configmaps").delete("owner")
    configmap(gc_only, "owner")  # same name, new uid: not the owner the reference names
    configmap(gc_only, "dependent", old)
    wait_until(lambda: gone(gc_only, "configmaps", "dependent"), 10, "the dependent to go")
    assert not gone(gc_only, "configmaps", "owner")


def test_orphan_deletion_keeps_the_dependents_and_forgets_the_owner(gc_only: Cluster) -> None:
    owner = configmap(gc_only, "owner")
    other = configmap(gc_only, "other")
    configmap(gc_only, "kept", owner, other, controller=False)
    settle(gc_only)
    gc_only.resource("configmaps").delete("owner", propagation_policy="Orphan")
    wait_until(lambda: gone(gc_only, "configmaps", "owner"), 10, "the owner to go")
    refs = gc_only.resource("configmaps").get("kept")["metadata"]["ownerReferences"]
    assert [r["uid"] for r in refs] == [other["metadata"]["uid"]]


def test_an_object_orphaned_since_it_was_cached_is_not_deleted(gc_only: Cluster) -> None:
    """The collector decides on the object as the server has it now. A dependent whose
    cached copy still names an owner that is gone, but that was orphaned meanwhile (an
    orphan deletion patches the dependents, then the owner goes), has no owner left to
    miss: client-go's attemptToDeleteItem returns there, and so must this. (Once, with
    the cluster's other controllers busy, a ReplicaSet's orphaned pods were deleted.)"""
    owner = configmap(gc_only, "owner")
    configmap(gc_only, "dependent", owner)
    settle(gc_only)
    assert gc_only.controllers is not None and gc_only.controllers.garbagecollector is not None
    collector = gc_only.controllers.garbagecollector
    monitor = collector._monitors["configmaps"]
    stale = monitor.informer.get_indexer().get_by_key("default/dependent")
    assert stale["metadata"]["ownerReferences"]
    configmaps = gc_only.resource("configmaps")
    configmaps.patch("dependent", {"metadata": {"ownerReferences": None}})
    configmaps.delete("owner")
    wait_until(lambda: gone(gc_only, "configmaps", "owner"), 10, "the owner to go")
    collector.attempt_to_delete(monitor, stale)  # as a worker would, from a stale cache
    settle(gc_only)
    kept = configmaps.get("dependent")
    assert not kept["metadata"].get("deletionTimestamp")
    assert "ownerReferences" not in kept["metadata"]


def test_foreground_deletion_waits_for_the_blocking_dependents(
        make_cluster: MakeCluster, clock: FakeClock) -> None:
    cluster = make_cluster(stop_seconds=None)  # containers ignore SIGTERM: 30 s to stop
    owner = configmap(cluster, "owner")
    for name in ("p1", "p2"):
        cluster.resource("pods").create({"metadata": {
            "name": name, "ownerReferences": [owner_ref(owner)]},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    configmap(cluster, "loose", owner, block=False)
    eventually(lambda: all(p["status"].get("phase") == "Running"
                           for p in cluster.resource("pods").list()["items"]), "pods running")
    cluster.resource("configmaps").delete("owner", propagation_policy="Foreground")
    eventually(lambda: all(p["metadata"].get("deletionTimestamp")
                           for p in cluster.resource("pods").list()["items"]),
               "the collector to delete the pods")
    wait_until(lambda: gone(cluster, "configmaps", "loose"), 10, "the non-blocking one")
    settle(cluster)
    held = cluster.resource("configmaps").get("owner")["metadata"]
    assert held["finalizers"] == ["foregroundDeletion"] and held["deletionTimestamp"]
    step(clock, cluster, 30)  # the pods' grace period: the kubelet removes them
    wait_until(lambda: not cluster.resource("pods").list()["items"], 10, "the pods to go")
    wait_until(lambda: gone(cluster, "configmaps", "owner"), 10, "the owner to go last")


def test_a_custom_resource_owner_cascades_once_its_crd_is_served(gc_only: Cluster) -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                        "openAPIV3Schema": {"type": "object",
                                            "x-kubernetes-preserve-unknown-fields": True}}}]}}
    gc_only.resource("customresourcedefinitions").create(crd)
    assert gc_only.controllers is not None
    collector = gc_only.controllers.garbagecollector
    assert collector is not None
    wait_until(lambda: "widgets.example.com" in collector.monitored(), 10, "a monitor")
    gc_only.discovery.invalidate()
    widget = gc_only.resource("widgets.example.com").create(
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
    configmap(gc_only, "widget-config", widget)
    settle(gc_only)
    assert not gone(gc_only, "configmaps", "widget-config")
    gc_only.resource("widgets.example.com").delete("w")
    wait_until(lambda: gone(gc_only, "configmaps", "widget-config"), 10, "the cascade")
    gc_only.resource("customresourcedefinitions").delete("widgets.example.com")
    wait_until(lambda: "widgets.example.com" not in collector.monitored(), 10,
               "the monitor to stop with its CRD")


@needs_kubectl
def test_kubectl_delete_cascade_background_foreground_orphan(
        cluster: Cluster, kubectl: Kubectl, clock: FakeClock) -> None:
    def rs(name: str) -> dict[str, Any]:
        labels = {"app": name}
        return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
                "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                         "template": {"metadata": {"labels": labels}, "spec": {
                             "terminationGracePeriodSeconds": 5,
                             "containers": [{"name": "c", "image": "nginx"}]}}}}

    for name in ("bg", "fg", "orph"):
        kubectl("apply", "-f", "-", stdin=json.dumps(rs(name)))

    def pods(app: str) -> list[dict[str, Any]]:
        return list(cluster.resource("pods").list(label_selector={"app": app})["items"])

    eventually(lambda: all(len(pods(a)) == 2 for a in ("bg", "fg", "orph")), "the pods")
    kubectl("delete", "rs", "bg", "--cascade=background")
    eventually(lambda: all(p["metadata"].get("deletionTimestamp") for p in pods("bg")),
               "the background cascade to delete the pods")
    kubectl("delete", "rs", "orph", "--cascade=orphan")
    kept = pods("orph")
    assert len(kept) == 2 and all("ownerReferences" not in p["metadata"] for p in kept)
    assert all(not p["metadata"].get("deletionTimestamp") for p in kept)
    foreground = kubectl.popen("delete", "rs", "fg", "--cascade=foreground")
    eventually(lambda: all(p["metadata"].get("deletionTimestamp") for p in pods("fg")),
               "the foreground cascade to delete the pods")
    assert foreground.poll() is None  # kubectl waits: the pods still terminate
    step(clock, cluster, 5)  # their grace period: the kubelet removes them
    assert foreground.wait(30) == 0, foreground.stderr.read() if foreground.stderr else ""
    assert not pods("fg") and gone(cluster, "replicasets", "fg")
    eventually(lambda: not pods("bg"), "the background pods to go as well")


def test_deleting_a_foo_takes_its_deployment_replica_set_and_pods_along(
        cluster: Cluster, clock: FakeClock) -> None:
    """sample-controller's promise: the Deployment is owned by the Foo, so it goes with it."""
    from kubenb.controller.samples import install_foo_crd, new_foo, new_foo_controller

    install_foo_crd(cluster)
    controller = new_foo_controller(cluster)
    try:
        controller.run()
        foos = cluster.clientset.samplecontroller_v1alpha1().foos("default")
        foos.create(new_foo("example-foo", replicas=2))
        eventually(lambda: (foos.get("example-foo").get("status") or {}).get(
            "availableReplicas") == 2, "the Foo to see two available replicas")
        assert len(cluster.resource("replicasets").list()["items"]) == 1
        foos.delete("example-foo")
        wait_until(lambda: gone(cluster, "deployments", "example-foo"), 10, "the Deployment")
        wait_until(lambda: not cluster.resource("replicasets").list()["items"], 10, "the RS")
        eventually(lambda: all(p["metadata"].get("deletionTimestamp")
                               for p in cluster.resource("pods").list()["items"]), "pods")
        step(clock, cluster, 30)
        wait_until(lambda: not cluster.resource("pods").list()["items"], 10, "the pods")
    finally:
        controller.close()


def test_an_owner_of_a_kind_nobody_serves_is_an_error_not_a_deletion(gc_only: Cluster) -> None:
    gizmo = {"apiVersion": "example.com/v1", "kind": "Gizmo",
             "metadata": {"name": "g", "uid": "4f0c-gizmo"}}
    configmap(gc_only, "owned-by-a-gizmo", gizmo)
    assert gc_only.controllers is not None and gc_only.controllers.garbagecollector is not None
    collector = gc_only.controllers.garbagecollector.controller
    wait_until(lambda: collector.metrics().errors >= 1, 10, "the collector to report it")
    settle(gc_only)
    assert not gone(gc_only, "configmaps", "owned-by-a-gizmo")  # kept, retried with backoff
    error = collector.metrics().last_error or ""
    assert "Gizmo 'g'" in error and "no served resource has that kind" in error


def test_an_owner_of_a_kind_not_watched_yet_is_watched_from_then_on(gc_only: Cluster) -> None:
    assert gc_only.controllers is not None and gc_only.controllers.garbagecollector is not None
    collector = gc_only.controllers.garbagecollector
    assert "nodes" not in collector.monitored()  # not one of DEFAULT_RESOURCES
    node = dict(gc_only.resource("nodes").create({"metadata": {"name": "n1"}}),
                apiVersion="v1", kind="Node")
    configmap(gc_only, "node-config", node)
    wait_until(lambda: "nodes" in collector.monitored(), 10, "a monitor for nodes")
    settle(gc_only)
    assert not gone(gc_only, "configmaps", "node-config")  # its owner exists
    gc_only.resource("nodes").delete("n1")
    wait_until(lambda: gone(gc_only, "configmaps", "node-config"), 10, "the cascade")


def test_resources_star_watches_everything_like_kube_controller_manager(
        make_cluster: MakeCluster, clock: FakeClock) -> None:
    from kubenb.controllermanager.garbage_collector import DEFAULT_RESOURCES, GarbageCollector

    bare = make_cluster(controllers=False)
    everything = GarbageCollector(bare, resources="*", clock=clock).run()
    try:
        watched = set(everything.monitored())
        assert watched > DEFAULT_RESOURCES
        assert {"nodes", "namespaces", "roles.rbac.authorization.k8s.io"} <= watched
        assert "events" not in watched and "events.events.k8s.io" not in watched
    finally:
        everything.stop()


def test_an_owner_deleted_as_the_cluster_returns_still_takes_its_dependents() -> None:
    """The collector's monitors start on its worker while `embedded()` returns: an owner
    and a dependent made and the owner deleted at once are collected all the same, and
    `monitored()` waits for that first start."""
    with kubenb.embedded() as cluster:
        collector = cluster.controllers.garbagecollector
        owner = configmap(cluster, "early-owner")
        configmap(cluster, "early-dependent", owner)
        cluster.resource("configmaps").delete("early-owner")
        assert "configmaps" in collector.monitored()
        wait_until(lambda: gone(cluster, "configmaps", "early-dependent"), 10,
                   "the dependent to be collected")
