"""The Deployment controller over real HTTP, and as kubectl sees it: rollout status,
history and undo, wait --for=condition=Available, maxSurge / maxUnavailable, Recreate,
the progress deadline on the clock, revisionHistoryLimit, pause."""

from __future__ import annotations

import json
import threading
from typing import Any

from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.controllermanager.controller_utils import CONFLICT_RETRY
from kubenb.controllermanager.deployment import compute_hash, equal_ignore_hash
from tests.controllermanager.conftest import (
    MakeCluster,
    apply,
    deployment,
    eventually,
    settle,
    step,
)
from tests.helpers import Kubectl, needs_kubectl, wait_until

REVISION = "deployment.kubernetes.io/revision"


def status(cluster: Cluster, name: str = "web") -> dict[str, Any]:
    return dict(cluster.resource("deployments").get(name).get("status") or {})


def rolled_out(cluster: Cluster, name: str = "web") -> bool:
    d = cluster.resource("deployments").get(name)
    s, want = d.get("status") or {}, d["spec"]["replicas"]
    return (s.get("observedGeneration") == d["metadata"]["generation"]
            and s.get("updatedReplicas") == want and s.get("replicas") == want
            and s.get("availableReplicas") == want)


def replica_sets(cluster: Cluster, app: str = "web") -> list[dict[str, Any]]:
    return sorted(cluster.resource("replicasets").list(label_selector={"app": app})["items"],
                  key=lambda rs: int(rs["metadata"]["annotations"][REVISION]))


def condition(s: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in s.get("conditions") or () if c["type"] == kind)


def test_the_template_hash_ignores_its_own_label_and_kubectl_round_trips() -> None:
    template = {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    via_kubectl = {"metadata": {"creationTimestamp": None, "labels": {
        "app": "web", "pod-template-hash": "abc"}},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {}}]}}
    assert equal_ignore_hash(template, via_kubectl)
    assert not equal_ignore_hash(template, {"metadata": {"labels": {"app": "api"}},
                                            "spec": template["spec"]})
    assert compute_hash(template) == compute_hash(json.loads(json.dumps(template)))
    assert compute_hash(template) != compute_hash(template, collision_count=1)
    assert set(compute_hash(template)) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_a_deployment_runs_its_pods_through_a_replica_set(cluster: Cluster) -> None:
    made = cluster.resource("deployments").create(deployment(replicas=3))
    eventually(lambda: rolled_out(cluster), "the rollout")
    (rs,) = replica_sets(cluster)
    pod_hash = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{pod_hash}"
    assert rs["metadata"]["ownerReferences"][0]["uid"] == made["metadata"]["uid"]
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": pod_hash}
    assert rs["metadata"]["annotations"] == {REVISION: "1",
                                             "deployment.kubernetes.io/desired-replicas": "3",
                                             "deployment.kubernetes.io/max-replicas": "4"}
    pods = cluster.resource("pods").list(label_selector={"pod-template-hash": pod_hash})
    assert len(pods["items"]) == 3
    assert all(p["status"]["phase"] == "Running" for p in pods["items"])
    s = status(cluster)
    assert s["replicas"] == s["readyReplicas"] == s["availableReplicas"] == 3
    assert "unavailableReplicas" not in s
    assert (condition(s, "Available")["status"], condition(s, "Available")["reason"]) == (
        "True", "MinimumReplicasAvailable")
    assert condition(s, "Progressing")["reason"] == "NewReplicaSetAvailable"
    d = cluster.resource("deployments").get("web")
    assert d["metadata"]["annotations"][REVISION] == "1"
    # Deleting the Deployment takes its ReplicaSet and pods along (garbage collector).
    cluster.resource("deployments").delete("web")
    eventually(lambda: not replica_sets(cluster), "the ReplicaSet to be collected")
    eventually(lambda: all(p["metadata"].get("deletionTimestamp") for p in cluster.resource(
        "pods").list()["items"]), "the pods to be deleted")


def test_a_rolling_update_stays_within_max_surge_and_max_unavailable(cluster: Cluster) -> None:
    """Every ReplicaSet write the controller makes is watched: the desired pods never
    exceed replicas + maxSurge, and a ReplicaSet is scaled down only while enough
    available pods remain."""
    cluster.resource("deployments").create(deployment(replicas=4, strategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}))
    eventually(lambda: rolled_out(cluster), "the first rollout")
    settle(cluster)
    informer = cluster.informer("replicasets")
    violations: list[str] = []
    lock = threading.Lock()

    def check(_old: Any, _new: Any) -> None:
        sets = informer.get_indexer().list()
        desired = sum(rs["spec"]["replicas"] for rs in sets)
        with lock:
            if desired > 5:
                violations.append(f"{desired} desired pods")

    class Handler:
        def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
            check(None, obj)

        on_update = staticmethod(check)

        def on_delete(self, obj: Any) -> None: ...

    informer.add_event_handler(Handler())
    cluster.resource("deployments").patch("web", {"spec": {"template": {"spec": {
        "containers": [{"name": "app", "image": "nginx:1.28"}]}}}})
    eventually(lambda: rolled_out(cluster), "the rolling update")
    assert not violations
    old, new = replica_sets(cluster)
    assert (old["spec"]["replicas"], new["spec"]["replicas"]) == (0, 4)
    assert new["metadata"]["annotations"][REVISION] == "2"
    events = [e["message"] for e in cluster.resource("events").list()["items"]
              if e["reason"] == "ScalingReplicaSet"]
    assert f"Scaled up replica set {new['metadata']['name']} from 0 to 1" in events
    assert any(m.startswith(f"Scaled down replica set {old['metadata']['name']}")
               for m in events)


def test_recreate_scales_the_old_pods_away_first(make_cluster: MakeCluster,
                                                 clock: FakeClock) -> None:
    cluster = make_cluster(stop_seconds=None)  # containers ignore SIGTERM: 30 s to go
    cluster.resource("deployments").create(deployment(replicas=2, strategy={"type": "Recreate"}))
    eventually(lambda: rolled_out(cluster), "the first rollout")
    cluster.resource("deployments").patch("web", {"spec": {"template": {"spec": {
        "containers": [{"name": "app", "image": "nginx:1.28"}]}}}})
    eventually(lambda: replica_sets(cluster)[0]["spec"]["replicas"] == 0, "old scaled to 0")
    settle(cluster)
    # The old pods are still terminating (30 s grace): no new ReplicaSet yet.
    assert len(replica_sets(cluster)) == 1
    step(clock, cluster, 30)
    eventually(lambda: rolled_out(cluster), "the new pods after the old ones went")
    assert [rs["spec"]["replicas"] for rs in replica_sets(cluster)] == [0, 2]


def test_the_progress_deadline_runs_on_the_clock(cluster: Cluster, clock: FakeClock) -> None:
    cluster.resource("nodes").patch("kubenb-node-1", {"spec": {"unschedulable": True}})
    cluster.resource("deployments").create(deployment(replicas=2, progressDeadlineSeconds=60))
    eventually(lambda: status(cluster).get("replicas") == 2, "pods made (but Pending)")
    settle(cluster)
    assert condition(status(cluster), "Progressing")["status"] == "True"
    assert condition(status(cluster), "Available")["status"] == "False"
    step(clock, cluster, 59)
    settle(cluster)
    assert condition(status(cluster), "Progressing")["status"] == "True"
    step(clock, cluster, 2)
    cond = eventually(lambda: (lambda c: c if c["status"] == "False" else None)(
        condition(status(cluster), "Progressing")), "ProgressDeadlineExceeded")
    assert cond["reason"] == "ProgressDeadlineExceeded"
    assert cond["message"].endswith("has timed out progressing.")


def test_a_status_write_refused_as_a_conflict_is_tried_again_soon_not_backed_off(
        cluster: Cluster, clock: FakeClock) -> None:
    """While the controller's Deployment cache is behind the server, each status write
    meets 409 Conflict. The key comes back CONFLICT_RETRY later and its backoff does not
    grow (rate-limited like an error, a key with a dozen conflicts would wait minutes
    for its next try); once the cache catches up, the status is written."""
    assert cluster.controllers is not None
    cluster.resource("nodes").patch("kubenb-node-1", {"spec": {"unschedulable": True}})
    cluster.resource("deployments").create(deployment(replicas=1))
    eventually(lambda: status(cluster).get("replicas") == 1, "a pod made (but Pending)")
    settle(cluster)
    cache = cluster.controllers.cluster.factory.apps().v1().deployments().informer()
    process = cache.get_controller()
    assert process is not None
    process.pause()  # the controller's Deployment cache stays where it is
    cluster.resource("deployments").patch("web", {"metadata": {"labels": {"moved": "on"}}})
    cluster.resource("nodes").patch("kubenb-node-1", {"spec": {"unschedulable": False}})
    dc = cluster.controllers["deployment"].controller
    eventually(lambda: rs_available(cluster) == 1, "the pod running")
    before = dc.metrics().reconciles
    for _ in range(10):
        step(clock, cluster, CONFLICT_RETRY)
        assert dc.rate_limiter.num_requeues("default/web") == 0
    settle(cluster)
    assert dc.metrics().reconciles - before >= 10  # a try after each CONFLICT_RETRY
    assert status(cluster).get("availableReplicas") is None  # every write was refused
    process.resume()
    eventually(lambda: status(cluster).get("availableReplicas") == 1, "the status written")


def rs_available(cluster: Cluster) -> int:
    return sum((rs.get("status") or {}).get("availableReplicas", 0)
               for rs in replica_sets(cluster))


def test_old_replica_sets_beyond_the_history_limit_are_deleted(cluster: Cluster) -> None:
    cluster.resource("deployments").create(deployment(replicas=1, revisionHistoryLimit=1))
    for tag in ("1.1", "1.2", "1.3"):
        eventually(lambda: rolled_out(cluster), "a rollout")
        cluster.resource("deployments").patch("web", {"spec": {"template": {"spec": {
            "containers": [{"name": "app", "image": f"nginx:{tag}"}]}}}})
    eventually(lambda: rolled_out(cluster) and len(replica_sets(cluster)) == 2,
               "the oldest ReplicaSets to be cleaned up")
    assert [rs["metadata"]["annotations"][REVISION] for rs in replica_sets(cluster)] == [
        "3", "4"]


def test_a_paused_deployment_does_not_roll_out(cluster: Cluster) -> None:
    cluster.resource("deployments").create(deployment(replicas=2))
    eventually(lambda: rolled_out(cluster), "the rollout")
    cluster.resource("deployments").patch("web", {"spec": {"paused": True, "template": {
        "spec": {"containers": [{"name": "app", "image": "nginx:1.28"}]}}}})
    eventually(lambda: condition(status(cluster), "Progressing")["reason"] == "DeploymentPaused",
               "the paused condition")
    settle(cluster)
    assert len(replica_sets(cluster)) == 1
    cluster.resource("deployments").patch("web", {"spec": {"replicas": 3}})
    eventually(lambda: replica_sets(cluster)[0]["spec"]["replicas"] == 3, "scaled while paused")
    cluster.resource("deployments").patch("web", {"spec": {"paused": False}})
    eventually(lambda: rolled_out(cluster) and len(replica_sets(cluster)) == 2, "resumed")


@needs_kubectl
def test_kubectl_rollout_status_history_undo_and_wait(cluster: Cluster,
                                                      kubectl: Kubectl) -> None:
    apply(kubectl, deployment(replicas=3))
    out = kubectl("rollout", "status", "deployment/web", "--timeout=60s").stdout
    assert 'deployment "web" successfully rolled out' in out
    kubectl("wait", "--for=condition=Available", "deployment/web", "--timeout=60s")
    kubectl("set", "image", "deployment/web", "app=nginx:1.28")
    kubectl("annotate", "deployment/web", "kubernetes.io/change-cause=nginx 1.28")
    kubectl("rollout", "status", "deployment/web", "--timeout=60s")
    history = kubectl("rollout", "history", "deployment/web").stdout
    assert [line.split(None, 1) for line in history.splitlines()[2:] if line.strip()] == [
        ["1", "<none>"], ["2", "nginx 1.28"]]  # the annotation went to the new ReplicaSet
    second = kubectl("rollout", "history", "deployment/web", "--revision=2").stdout
    assert "nginx:1.28" in second
    assert "rolled back" in kubectl("rollout", "undo", "deployment/web").stdout
    kubectl("rollout", "status", "deployment/web", "--timeout=60s")
    eventually(lambda: rolled_out(cluster), "the undo")
    d = cluster.resource("deployments").get("web")
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    assert d["metadata"]["annotations"][REVISION] == "3"
    history = kubectl("rollout", "history", "deployment/web").stdout
    assert [line.split()[0] for line in history.splitlines()[2:] if line.strip()] == ["2", "3"]
    first = [rs for rs in replica_sets(cluster)
             if rs["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"]
    assert len(first) == 1  # the old ReplicaSet came back; no new one was made
    assert first[0]["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"


@needs_kubectl
def test_kubectl_rollout_status_reports_a_missed_deadline(cluster: Cluster, kubectl: Kubectl,
                                                          clock: FakeClock) -> None:
    kubectl("cordon", "kubenb-node-1")
    apply(kubectl, deployment(replicas=1, progressDeadlineSeconds=30))
    eventually(lambda: status(cluster).get("replicas") == 1, "a pending pod")
    step(clock, cluster, 31)
    eventually(lambda: condition(status(cluster), "Progressing")["status"] == "False",
               "the deadline")
    failed = kubectl("rollout", "status", "deployment/web", "--timeout=20s", ok=False)
    assert failed.returncode != 0
    assert 'deployment "web" exceeded its progress deadline' in failed.stderr
    kubectl("uncordon", "kubenb-node-1")
    wait_until(lambda: rolled_out(cluster), 20, "the pod to run once the node takes pods")


def test_events_tell_the_rollout_story(cluster: Cluster) -> None:
    name = "web"
    cluster.resource("deployments").create(deployment(name, replicas=2))
    eventually(lambda: rolled_out(cluster, name), "the rollout")
    settle(cluster)
    assert cluster.controllers is not None and cluster.controllers.broadcaster is not None
    cluster.controllers.broadcaster.flush()
    events = {(e["involvedObject"]["kind"], e["reason"], e["source"]["component"])
              for e in cluster.resource("events").list()["items"]}
    assert {("Deployment", "ScalingReplicaSet", "deployment-controller"),
            ("ReplicaSet", "SuccessfulCreate", "replicaset-controller"),
            ("Pod", "Scheduled", "default-scheduler"),
            ("Pod", "Started", "kubelet")} <= events
