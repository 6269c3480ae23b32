"""kubenb.printers.apps: workloads' replica counts, containers and selectors."""

from __future__ import annotations

from kubenb.printers import printer_for
from tests.printers.support import META, NOW, cells


def test_replica_sets_stateful_sets_and_daemon_sets() -> None:
    template = {"spec": {"containers": [{"name": "a", "image": "i:1"}, {"name": "b",
                                                                         "image": "j:2"}]}}
    rs = {"spec": {"replicas": 3, "template": template,
                   "selector": {"matchLabels": {"app": "w"}}},
          "status": {"replicas": 2, "readyReplicas": 1}}
    assert cells("ReplicaSet", "apps", rs) == ["x", 3, 2, 1, "10s", "a,b", "i:1,j:2", "app=w"]
    sts = {"spec": {"template": template}, "status": {"readyReplicas": 1}}
    assert cells("StatefulSet", "apps", sts) == ["x", "1/1", "10s", "a,b", "i:1,j:2"]
    ds = {"spec": {"template": {"spec": {"nodeSelector": {"os": "linux"}}},
                   "selector": {"matchExpressions": [
                       {"key": "tier", "operator": "In", "values": ["b", "a"]}]}},
          "status": {"desiredNumberScheduled": 3, "numberReady": 2}}
    assert cells("DaemonSet", "apps", ds) == [
        "x", 3, 0, 2, 0, 0, "os=linux", "10s", "", "", "tier in (a,b)"]
    assert printer_for("Deployment", "apps").column_names(wide=False) == [
        "Name", "Ready", "Up-to-date", "Available", "Age"]


def test_controller_revisions_name_their_controller() -> None:
    owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web",
             "controller": True}
    revision = {"metadata": {**META, "ownerReferences": [owner]}, "revision": 4}
    assert printer_for("ControllerRevision", "apps").cells(revision, NOW) == [
        "x", "statefulset.apps/web", 4, "10s"]
    assert cells("ControllerRevision", "apps", {})[1] == "<none>"
