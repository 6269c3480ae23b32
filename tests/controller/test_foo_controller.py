"""End to end over the embedded server: a small sample-controller (Foo -> owned Deployment)
converges from a cold start, after the Foo changes, and after its Deployment is deleted."""

from __future__ import annotations

import copy
import threading
from typing import Any

import pytest

from kubenb.cache.keys import split_meta_namespace_key
from kubenb.cluster import Cluster
from kubenb.controller import (
    Controller,
    EventBroadcaster,
    EventSource,
    Result,
    enqueue_owner,
    retry_on_conflict,
)
from kubenb.controller.record import get_reference
from kubenb.errors import AlreadyExists
from tests.controller.conftest import realapi
from tests.helpers import wait_until

GV = "samplecontroller.k8s.io/v1alpha1"
FOO_CRD = realapi("objects/crd-create.json")["request"]["body"]


def new_deployment(foo: dict[str, Any]) -> dict[str, Any]:
    """sample-controller's newDeployment: nginx, labelled for the Foo, owned by it."""
    name = foo["metadata"]["name"]
    labels = {"app": "nginx", "controller": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": foo["spec"]["deploymentName"],
                         "namespace": foo["metadata"]["namespace"],
                         "ownerReferences": [{"apiVersion": GV, "kind": "Foo", "name": name,
                                              "uid": foo["metadata"]["uid"],
                                              "controller": True,
                                              "blockOwnerDeletion": True}]},
            "spec": {"replicas": foo["spec"].get("replicas", 1),
                     "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "nginx",
                                                           "image": "nginx:latest"}]}}}}


class FooController:
    """sample-controller's syncHandler, reading from informer caches."""

    def __init__(self, cluster: Cluster, workers: int = 2) -> None:
        self.cluster = cluster
        self.foos = cluster.informer("foos")
        self.deployments = cluster.informer("deployments")
        self.broadcaster = EventBroadcaster()
        self.broadcaster.start_recording_to_sink(cluster)
        self.recorder = self.broadcaster.new_recorder(EventSource("sample-controller"))
        self.keys: list[str] = []
        self.controller = (Controller("foo-controller", self.sync_handler, workers=workers)
                           .watch(self.foos)
                           .watch(self.deployments, enqueue=enqueue_owner("Foo")))

    def sync_handler(self, key: str) -> Result | None:
        self.keys.append(key)
        namespace, _ = split_meta_namespace_key(key)
        foo = self.foos.get_indexer().get_by_key(key)
        if foo is None:
            return None  # deleted: its Deployment is garbage collected
        deployments = self.cluster.resource("deployments", namespace=namespace)
        dep_name = foo["spec"]["deploymentName"]
        deployment = self.deployments.get_indexer().get_by_key(f"{namespace}/{dep_name}")
        if deployment is None:
            try:
                deployment = deployments.create(new_deployment(foo))
            except AlreadyExists:
                return Result(requeue=True)  # our cache is behind; look again
        owner = (deployment["metadata"].get("ownerReferences") or [{}])[0]
        if owner.get("uid") != foo["metadata"]["uid"]:
            self.recorder.event(self._ref(foo), "Warning", "ErrResourceExists",
                                f'Resource "{dep_name}" already exists and is not managed '
                                "by Foo")
            raise RuntimeError(f"deployment {dep_name} is not controlled by {key}")
        wanted = foo["spec"].get("replicas", 1)
        if deployment["spec"].get("replicas") != wanted:
            def scale() -> None:
                fresh = deployments.get(dep_name)
                fresh["spec"]["replicas"] = wanted
                deployments.update(fresh)
            retry_on_conflict(scale)
        self.recorder.event(self._ref(foo), "Normal", "Synced", "Foo synced successfully")
        return None

    @staticmethod
    def _ref(foo: dict[str, Any]) -> dict[str, str]:
        return get_reference(foo, kind="Foo", api_version=GV)

    def close(self) -> None:
        self.controller.stop()
        self.broadcaster.shutdown()


@pytest.fixture
def foo_cluster(cluster: Cluster) -> Cluster:
    cluster.resource("crd").create(copy.deepcopy(FOO_CRD))
    wait_until(lambda: _served(cluster), what="the Foo CRD to be served")
    return cluster


def _served(cluster: Cluster) -> bool:
    try:
        cluster.resource_info("foos")
    except Exception:
        return False
    return True


def _foo(name: str, replicas: int = 1) -> dict[str, Any]:
    return {"apiVersion": GV, "kind": "Foo", "metadata": {"name": name},
            "spec": {"deploymentName": f"{name}-deploy", "replicas": replicas}}


def _converged(cluster: Cluster, ctrl: FooController) -> bool:
    ctrl.controller.run_until_idle()
    deployments = {d["metadata"]["name"]: d
                   for d in cluster.resource("deployments").list()["items"]}
    for foo in cluster.resource("foos").list()["items"]:
        dep = deployments.get(foo["spec"]["deploymentName"])
        if dep is None or dep["spec"]["replicas"] != foo["spec"]["replicas"]:
            return False
        if dep["metadata"]["ownerReferences"][0]["uid"] != foo["metadata"]["uid"]:
            return False
    return True


def test_foo_controller_converges_cold_and_after_its_deployment_is_deleted(
        foo_cluster: Cluster) -> None:
    cluster = foo_cluster
    foos = cluster.resource("foos")
    for i in range(3):  # present before the controller starts: a cold start
        foos.create(_foo(f"foo-{i}", replicas=i + 1))
    ctrl = FooController(cluster)
    try:
        wait_until(lambda: _converged(cluster, ctrl), what="a cold start to converge")
        assert sorted(set(ctrl.keys)) == ["default/foo-0", "default/foo-1", "default/foo-2"]

        # Scaling a Foo reaches its Deployment.
        foo = foos.get("foo-1")
        foo["spec"]["replicas"] = 5
        foos.update(foo)
        wait_until(lambda: _converged(cluster, ctrl), what="the new replica count")
        assert cluster.resource("deployments").get("foo-1-deploy")["spec"]["replicas"] == 5

        # Deleting the owned Deployment wakes its owner (enqueue_owner) and it comes back.
        old_uid = cluster.resource("deployments").get("foo-2-deploy")["metadata"]["uid"]
        ctrl.keys.clear()
        cluster.resource("deployments").delete("foo-2-deploy")
        wait_until(lambda: _converged(cluster, ctrl), what="the Deployment to come back")
        recreated = cluster.resource("deployments").get("foo-2-deploy")
        assert recreated["metadata"]["uid"] != old_uid
        assert "default/foo-2" in ctrl.keys

        # The repeated "Synced" events of one Foo became one Event with a count.
        assert ctrl.broadcaster.flush()
        events = [e for e in cluster.resource("events").list()["items"]
                  if e["involvedObject"]["name"] == "foo-2"]
        assert [(e["reason"], e["type"], e["source"]) for e in events] == [
            ("Synced", "Normal", {"component": "sample-controller"})]
        assert events[0]["count"] >= 2
        assert events[0]["involvedObject"]["kind"] == "Foo"
        m = ctrl.controller.metrics()
        assert m.errors == 0 and m.reconciles >= 5
    finally:
        ctrl.close()


def test_a_deployment_owned_by_someone_else_is_an_error_event(foo_cluster: Cluster) -> None:
    cluster = foo_cluster
    cluster.resource("deployments").create(new_deployment({
        "metadata": {"name": "squatter", "namespace": "default", "uid": "not-a-foo"},
        "spec": {"deploymentName": "taken", "replicas": 1}}))
    cluster.resource("foos").create(_foo("foo-x") | {"spec": {"deploymentName": "taken",
                                                               "replicas": 1}})
    ctrl = FooController(cluster, workers=1)
    ctrl.controller.max_retries = 0
    try:
        wait_until(lambda: ctrl.controller.run_until_idle() >= 0
                   and ctrl.controller.metrics().dropped == 1, what="the key to be dropped")
        assert ctrl.broadcaster.flush()
        reasons = [e["reason"] for e in cluster.resource("events").list()["items"]]
        assert reasons == ["ErrResourceExists"]
        assert "not controlled by default/foo-x" in ctrl.controller.metrics().last_error
    finally:
        ctrl.close()


def test_predicate_filters_what_is_enqueued(cluster: Cluster) -> None:
    seen: list[str] = []
    lock = threading.Lock()

    def reconcile(key: str) -> None:
        with lock:
            seen.append(key)

    cms = cluster.resource("configmaps")
    cms.create({"metadata": {"name": "keep", "labels": {"team": "a"}}})
    cms.create({"metadata": {"name": "skip", "labels": {"team": "b"}}})
    informer = cluster.informer("configmaps")
    ctrl = Controller("pred", reconcile).watch(
        informer, predicate=lambda o: o["metadata"].get("labels", {}).get("team") == "a")
    try:
        ctrl.run_until_idle()
        assert seen == ["default/keep"]
        # An object leaving the predicate is news too (its key is enqueued once more).
        moved = cms.get("keep")
        moved["metadata"]["labels"]["team"] = "b"
        cms.update(moved)
        wait_until(lambda: ctrl.run_until_idle() >= 0 and len(seen) == 2,
                   what="the update to be seen")
        cms.delete("skip")
        ctrl.run_until_idle()
        assert seen == ["default/keep", "default/keep"]
    finally:
        ctrl.stop()
    # stop() removed the controller's handler from the shared informer.
    assert all(s["handler_errors"] == 0 for s in informer.processor.stats())
    assert len(informer.processor) == 0
