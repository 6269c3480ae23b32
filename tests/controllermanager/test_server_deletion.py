"""The API server's half of deletion, on a bare server (no controllers): what DELETE's
propagationPolicy and a pod's grace period leave behind for the garbage collector and
the kubelet to finish, seen over real HTTP and through kubectl."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from kubenb.cluster import Cluster
from kubenb.errors import Invalid
from tests.controllermanager.conftest import MakeCluster, gone
from tests.helpers import Kubectl, needs_kubectl


@pytest.fixture
def bare(make_cluster: MakeCluster) -> Cluster:
    return make_cluster(controllers=False)


def _stamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def test_foreground_and_orphan_put_the_gc_finalizers_on_the_owner(bare: Cluster) -> None:
    cms = bare.resource("configmaps")
    for name in ("fg", "orph", "bg"):
        cms.create({"metadata": {"name": name}})
    marked = cms.delete("fg", propagation_policy="Foreground")
    assert marked["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert marked["metadata"]["deletionTimestamp"]
    assert marked["metadata"]["deletionGracePeriodSeconds"] == 0
    assert cms.get("fg")["metadata"]["finalizers"] == ["foregroundDeletion"]  # still there
    assert cms.delete("orph", propagation_policy="Orphan")["metadata"]["finalizers"] == [
        "orphan"]
    cms.delete("bg", propagation_policy="Background")
    assert gone(bare, "configmaps", "bg")  # nothing to wait for: gone at once
    # Deleting again in the background drops the orphan finalizer: the object goes.
    cms.delete("orph", propagation_policy="Background")
    assert gone(bare, "configmaps", "orph")
    # Removing the last finalizer completes a deletion.
    cms.patch("fg", {"metadata": {"finalizers": None}})
    assert gone(bare, "configmaps", "fg")


def test_a_policy_the_api_does_not_know_is_422(bare: Cluster) -> None:
    bare.resource("configmaps").create({"metadata": {"name": "x"}})
    with pytest.raises(Invalid, match='propagationPolicy: Unsupported value: "Sideways"'):
        bare.resource("configmaps").delete("x", propagation_policy="Sideways")


def test_a_scheduled_pod_is_deleted_gracefully(bare: Cluster) -> None:
    pods = bare.resource("pods")
    spec = {"nodeName": "kubenb-node-1", "containers": [{"name": "c", "image": "nginx"}]}
    pods.create({"metadata": {"name": "bound"}, "spec": spec})
    pods.create({"metadata": {"name": "short"},
                 "spec": dict(spec, terminationGracePeriodSeconds=5)})
    pods.create({"metadata": {"name": "unbound"}, "spec": {"containers": spec["containers"]}})

    shown = pods.delete("bound")  # the default: spec.terminationGracePeriodSeconds or 30
    meta = shown["metadata"]
    assert meta["deletionGracePeriodSeconds"] == 30
    created = _stamp(meta["creationTimestamp"])
    assert 29 <= (_stamp(meta["deletionTimestamp"]) - created).total_seconds() <= 32
    # Still there for the kubelet to stop; a status write does not remove it.
    pods.patch("bound", {"status": {"phase": "Running"}}, subresource="status")
    assert pods.get("bound")["metadata"]["deletionGracePeriodSeconds"] == 30
    # Another DELETE can only shorten the grace period ...
    assert pods.delete("bound", grace_period_seconds=60)["metadata"][
        "deletionGracePeriodSeconds"] == 30
    shorter = pods.delete("bound", grace_period_seconds=10)["metadata"]
    assert shorter["deletionGracePeriodSeconds"] == 10
    assert (_stamp(meta["deletionTimestamp"]) - _stamp(shorter["deletionTimestamp"])
            ).total_seconds() == 20
    # ... and 0 (what the kubelet sends once the containers stopped) removes it.
    pods.delete("bound", grace_period_seconds=0)
    assert pods.list()["items"] and gone(bare, "pods", "bound")

    assert pods.delete("short")["metadata"]["deletionGracePeriodSeconds"] == 5
    pods.delete("unbound")  # never scheduled: nothing to stop, gone at once
    assert gone(bare, "pods", "unbound")


def test_a_finished_pod_goes_at_once(bare: Cluster) -> None:
    pods = bare.resource("pods")
    pods.create({"metadata": {"name": "done"}, "spec": {
        "nodeName": "kubenb-node-1", "containers": [{"name": "c", "image": "busybox"}]}})
    pods.patch("done", {"status": {"phase": "Succeeded"}}, subresource="status")
    pods.delete("done")
    assert gone(bare, "pods", "done")


@needs_kubectl
def test_kubectl_delete_cascade_options_reach_the_server(bare: Cluster, tmp_path: object) -> None:
    assert bare.server is not None
    kubectl = Kubectl(bare.server.kubeconfig_path, tmp_path)
    cms = bare.resource("configmaps")
    for name in ("a", "b", "c"):
        cms.create({"metadata": {"name": name}})
    kubectl("delete", "configmap", "a", "--cascade=foreground", "--wait=false")
    kubectl("delete", "configmap", "b", "--cascade=orphan", "--wait=false")
    kubectl("delete", "configmap", "c", "--cascade=background")
    got = json.loads(kubectl("get", "configmaps", "-o", "json").stdout)["items"]
    held = {i["metadata"]["name"]: i["metadata"].get("finalizers") for i in got
            if i["metadata"]["name"] in "abc"}
    assert held == {"a": ["foregroundDeletion"], "b": ["orphan"]}
