"""The simulated kubelet and scheduler over real HTTP: the Node at start, binding, the
status a kubelet reports, pods that finish, graceful deletion on the clock, cordon."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.controllermanager.kubelet import NODE_NAME, planned_run
from kubenb.errors import KubenbError
from tests.controllermanager.conftest import MakeCluster, eventually, gone, settle, step
from tests.helpers import Kubectl, needs_kubectl, wait_until


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {
        "containers": [{"name": "app", "image": "nginx:1.27",
                        "resources": {"requests": {"cpu": "10m"}}},
                       {"name": "sidecar", "image": "ghcr.io/example/agent:2"}], **spec}}


def get(cluster: Cluster, name: str) -> dict[str, Any]:
    return dict(cluster.resource("pods").get(name))


@pytest.fixture
def slow(make_cluster: MakeCluster) -> Cluster:
    """Only the kubelet, and containers take 2 clock seconds to start."""
    return make_cluster(controllers={"kubelet"}, start_delay=2.0)


def test_the_node_is_registered_at_start(slow: Cluster) -> None:
    node = slow.resource("nodes").get(NODE_NAME)  # before any pod
    ready = {c["type"]: c["status"] for c in node["status"]["conditions"]}
    assert ready == {"MemoryPressure": "False", "DiskPressure": "False",
                     "PIDPressure": "False", "Ready": "True"}
    assert node["status"]["nodeInfo"]["kubeletVersion"] == "v1.32.0"


def test_a_pod_is_bound_created_then_running(slow: Cluster, clock: FakeClock) -> None:
    slow.resource("pods").create(pod("one"))
    created = eventually(lambda: (lambda p: p if p["status"].get("startTime") else None)(
        get(slow, "one")), "the kubelet to admit the pod")
    assert created["spec"]["nodeName"] == NODE_NAME
    status = created["status"]
    assert status["phase"] == "Pending"
    assert [c["state"] for c in status["containerStatuses"]] == [
        {"waiting": {"reason": "ContainerCreating"}}] * 2
    assert {c["type"]: c["status"] for c in status["conditions"]}["PodScheduled"] == "True"
    assert status["qosClass"] == "Burstable"  # kept from the server
    settle(slow)
    step(clock, slow, 1.9)
    settle(slow)
    assert get(slow, "one")["status"]["phase"] == "Pending"
    clock.step(0.1)
    running = eventually(lambda: (lambda p: p if p["status"]["phase"] == "Running" else None)(
        get(slow, "one")), "Running after start_delay")["status"]
    assert {c["type"]: c["status"] for c in running["conditions"]} == {
        "PodReadyToStartContainers": "True", "Initialized": "True", "Ready": "True",
        "ContainersReady": "True", "PodScheduled": "True"}
    assert running["hostIP"] == "172.18.0.2" and running["hostIPs"] == [{"ip": "172.18.0.2"}]
    assert re.fullmatch(r"10\.244\.\d+\.\d+", running["podIP"])
    containers = running["containerStatuses"]
    assert [c["image"] for c in containers] == ["docker.io/library/nginx:1.27",
                                                "ghcr.io/example/agent:2"]
    for c in containers:
        assert c["ready"] is True and c["started"] is True and c["restartCount"] == 0
        assert "running" in c["state"] and c["containerID"].startswith("containerd://")


def test_an_image_that_ignores_sigterm_takes_the_whole_grace_period(
        slow: Cluster, clock: FakeClock) -> None:
    assert slow.kubelet is not None
    slow.kubelet.image("nginx", ignores_sigterm=True)
    slow.resource("pods").create(pod("one", terminationGracePeriodSeconds=10))
    step(clock, slow, 2)
    eventually(lambda: get(slow, "one")["status"]["phase"] == "Running", "Running")
    shown = slow.resource("pods").delete("one")
    assert shown["metadata"]["deletionGracePeriodSeconds"] == 10
    step(clock, slow, 9.5)
    settle(slow)
    assert get(slow, "one")["metadata"]["deletionTimestamp"]  # Terminating
    clock.step(0.5)
    wait_until(lambda: gone(slow, "pods", "one"), 10, "the kubelet to remove the pod")


def test_stop_seconds_none_makes_every_image_ignore_sigterm(
        make_cluster: MakeCluster, clock: FakeClock) -> None:
    cluster = make_cluster(controllers={"kubelet"}, stop_seconds=None)
    cluster.resource("pods").create(pod("one", terminationGracePeriodSeconds=5))
    eventually(lambda: get(cluster, "one")["status"]["phase"] == "Running", "Running")
    cluster.resource("pods").delete("one")
    step(clock, cluster, 4)
    settle(cluster)
    assert get(cluster, "one")["metadata"]["deletionTimestamp"]
    step(clock, cluster, 1)
    wait_until(lambda: gone(cluster, "pods", "one"), 10, "the pod to go after its 5 s")


def test_stop_seconds_is_how_long_containers_take_after_sigterm(
        make_cluster: MakeCluster, clock: FakeClock) -> None:
    cluster = make_cluster(controllers={"kubelet"}, stop_seconds=1.0)
    cluster.resource("pods").create(pod("one"))
    eventually(lambda: get(cluster, "one")["status"]["phase"] == "Running", "Running")
    cluster.resource("pods").delete("one")  # 30 s grace, but they stop after 1 s
    step(clock, cluster, 0.5)
    settle(cluster)
    assert get(cluster, "one")["metadata"]["deletionTimestamp"]
    step(clock, cluster, 0.5)
    wait_until(lambda: gone(cluster, "pods", "one"), 10, "the pod to go after 1 s")


def test_a_cordoned_node_takes_no_pods(slow: Cluster, clock: FakeClock) -> None:
    slow.resource("nodes").patch(NODE_NAME, {"spec": {"unschedulable": True}})
    # The scheduler decides from its node cache, as kube-scheduler does: a pod created
    # before the cordon reaches that cache may still be bound (failed once in CI).
    assert slow.controllers is not None and slow.controllers.kubelet is not None
    node_lister = slow.controllers.kubelet.node_lister
    wait_until(lambda: any(n["metadata"]["name"] == NODE_NAME and n["spec"].get("unschedulable")
                           for n in node_lister.list()), 10,
               "the scheduler's node cache to see the cordon")
    slow.resource("pods").create(pod("waiting"))
    settle(slow)
    assert "nodeName" not in get(slow, "waiting")["spec"]
    slow.resource("nodes").patch(NODE_NAME, {"spec": {"unschedulable": False}})
    eventually(lambda: get(slow, "waiting")["spec"].get("nodeName") == NODE_NAME, "bound")


def test_pods_bound_elsewhere_or_for_another_scheduler_are_left_alone(slow: Cluster) -> None:
    slow.resource("pods").create(pod("elsewhere", nodeName="worker-9"))
    slow.resource("pods").create(pod("custom", schedulerName="my-scheduler"))
    settle(slow)
    assert get(slow, "elsewhere")["status"] == {"phase": "Pending", "qosClass": "Burstable"}
    assert "nodeName" not in get(slow, "custom")["spec"]


def test_pods_that_do_not_restart_finish(slow: Cluster, clock: FakeClock) -> None:
    slow.resource("pods").create(pod("ok", restartPolicy="Never"))
    slow.resource("pods").create({"metadata": {"name": "bad", "annotations": {
        "kubenb.io/exit-code": "2", "kubenb.io/run-seconds": "3"}}, "spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}})
    step(clock, slow, 2)
    eventually(lambda: get(slow, "ok")["status"]["phase"] == "Running", "Running")
    step(clock, slow, 1)  # run_seconds: 1
    done = eventually(lambda: (lambda p: p if p["status"]["phase"] == "Succeeded" else None)(
        get(slow, "ok")), "Succeeded")
    state = done["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (state["exitCode"], state["reason"]) == (0, "Completed")
    step(clock, slow, 2)
    bad = eventually(lambda: (lambda p: p if p["status"]["phase"] == "Failed" else None)(
        get(slow, "bad")), "Failed after 3 s")
    assert bad["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 2
    slow.resource("pods").delete("ok")  # a finished pod goes at once
    assert gone(slow, "pods", "ok")


def test_run_time_and_exit_code_come_from_the_command() -> None:
    def of(*command: str, restart: str = "Never", **annotations: str
           ) -> tuple[float | None, int]:
        return planned_run({"metadata": {"annotations": annotations}, "spec": {
            "restartPolicy": restart, "containers": [{"command": list(command)}]}}, 1.0)

    assert of("sh", "-c", "sleep 30; exit 4") == (30.0, 4)
    assert of("perl", "-Mbignum=bpi", "-wle", "print bpi(2000)") == (1.0, 0)
    assert of("sleep", "2.5") == (2.5, 0)
    assert of("sh", "-c", "exit 1", **{"kubenb.io/run-seconds": "7"}) == (7.0, 1)
    assert of("nginx", restart="Always") == (None, 0)  # a server: runs until stopped
    assert of("sh", "-c", "exit 1", restart="Always") == (1.0, 1)  # will crash-loop
    with pytest.raises(KubenbError, match=r"kubenb\.io/exit-code"):
        of(**{"kubenb.io/exit-code": "boom"})


def test_seeded_running_pods_are_left_running(make_cluster: MakeCluster) -> None:
    """seed_objects writes pods born Running while the kubelet watches: it must never act
    on a half-made one (seeding is one step; the kubelet writes with a resourceVersion)."""
    cluster = make_cluster(controllers={"kubelet"}, start_delay=5.0)
    assert cluster.server is not None
    seen: list[str] = []
    informer = cluster.informer("pods")

    class Watch:
        def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
            self.on_update(None, obj)

        def on_update(self, old: Any, new: Any) -> None:
            for c in new["status"].get("containerStatuses") or ():
                seen.extend(c["state"])

        def on_delete(self, obj: Any) -> None: ...

    informer.add_event_handler(Watch())
    names = cluster.server.seed_objects(40, seed=2)
    settle(cluster)
    assert {get(cluster, n)["status"]["phase"] for n in names} == {"Running"}
    assert set(seen) == {"running"}  # never waiting (ContainerCreating)
    assert len(cluster.resource("nodes").list()["items"]) == 1  # the kubelet's own


def test_seeded_running_pods_are_adopted_not_restarted(make_cluster: MakeCluster,
                                                      clock: FakeClock) -> None:
    """A kubelet that finds pods Running on its node takes their containers over as they
    are (a restarted kubelet finds them through its runtime): no status write, no
    Started Event; they still stop when deleted."""
    cluster = make_cluster(controllers={"kubelet"}, start_delay=0.0)
    assert cluster.server is not None
    names = cluster.server.seed_objects(30, seed=3)
    before = {n: get(cluster, n)["metadata"]["resourceVersion"] for n in names}
    step(clock, cluster, 2.0)  # past the start delay and the first status sync
    settle(cluster)
    assert {n: get(cluster, n)["metadata"]["resourceVersion"] for n in names} == before
    events = cluster.resource("events").list()["items"]
    assert not [e for e in events if e.get("reason") == "Started"]
    cluster.resource("pods").delete(names[0])
    eventually(lambda: gone(cluster, "pods", names[0]), "the adopted pod to stop and go")


@needs_kubectl
def test_kubectl_delete_pod_waits_for_the_kubelet(slow: Cluster, clock: FakeClock,
                                                  tmp_path: Any) -> None:
    assert slow.server is not None
    kubectl = Kubectl(slow.server.kubeconfig_path, tmp_path)
    assert slow.kubelet is not None
    slow.kubelet.image("nginx", ignores_sigterm=True)
    slow.resource("pods").create(pod("one"))
    step(clock, slow, 2)
    eventually(lambda: get(slow, "one")["status"]["phase"] == "Running", "Running")
    deleting = kubectl.popen("delete", "pod", "one", "--grace-period=20")
    eventually(lambda: get(slow, "one")["metadata"].get("deletionGracePeriodSeconds") == 20,
               "the graceful delete")
    table = kubectl("get", "pod", "one").stdout
    assert "Terminating" in table
    assert deleting.poll() is None
    step(clock, slow, 20)
    out, err = deleting.communicate(timeout=30)
    assert deleting.returncode == 0, err
    assert 'pod "one" deleted' in out
