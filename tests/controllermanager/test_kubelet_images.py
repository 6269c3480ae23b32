"""The simulated kubelet runs images: graceful deletion as a watch sees it, Python
programs that log, fail, crash-loop and flap their readiness, and the Job controller's
retries over them. Real HTTP, FakeClock, kubectl where it judges."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.controllermanager.container_runtime import ContainerContext, Image
from kubenb.errors import KubenbError
from tests.controllermanager.conftest import (
    MakeCluster,
    deployment,
    eventually,
    gone,
    pods_of,
    settle,
    step,
)
from tests.helpers import Kubectl, needs_kubectl, wait_until


def pod(name: str, image: str = "nginx:1.27", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {
        "containers": [{"name": "app", "image": image}], **spec}}


def get(cluster: Cluster, name: str) -> dict[str, Any]:
    return dict(cluster.resource("pods").get(name))


def conditions(pod: dict[str, Any]) -> dict[str, str]:
    return {c["type"]: c["status"] for c in pod["status"].get("conditions") or ()}


def container(pod: dict[str, Any]) -> dict[str, Any]:
    return dict(pod["status"]["containerStatuses"][0])


def running(cluster: Cluster, name: str) -> dict[str, Any]:
    return eventually(lambda: (lambda p: p if p["status"].get("phase") == "Running" else None)(
        get(cluster, name)), f"{name} Running")


class PodWatch:
    """Every event of one pod, from a watch opened now, until it is DELETED."""

    def __init__(self, cluster: Cluster, name: str) -> None:
        rv = cluster.resource("pods").list()["metadata"]["resourceVersion"]
        self.watch = cluster.resource("pods").watch(resource_version=rv,
                                                    field_selector=f"metadata.name={name}")
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.thread = threading.Thread(target=self._run, name="test-pod-watch")
        self.thread.start()

    def _run(self) -> None:
        for event in self.watch:
            self.events.append((event.type, event.object))
            if event.type == "DELETED":
                break
        self.watch.stop()

    def wait_deleted(self) -> list[tuple[str, dict[str, Any]]]:
        self.thread.join(20)
        assert not self.thread.is_alive(), f"no DELETED event: {[t for t, _ in self.events]}"
        return self.events


# -- graceful deletion ---------------------------------------------------------------------------


def test_a_deleted_pod_stops_at_once_and_reports_not_ready_before_it_goes(
        make_cluster: MakeCluster, clock: FakeClock) -> None:
    cluster = make_cluster(controllers={"kubelet"})
    cluster.resource("pods").create(pod("web"))
    running(cluster, "web")
    watch = PodWatch(cluster, "web")
    cluster.resource("pods").delete("web")  # 30 s grace; nginx stops at once on SIGTERM
    events = watch.wait_deleted()  # the FakeClock never moved
    types = [t for t, _ in events]
    assert types[0] == "MODIFIED" and types[-1] == "DELETED"  # deletionTimestamp set first
    stopped = [obj for t, obj in events if t == "MODIFIED"
               and conditions(obj).get("Ready") == "False"]
    assert stopped, f"no Ready=False before DELETED: {types}"
    last = stopped[-1]
    assert conditions(last)["ContainersReady"] == "False"
    assert last["status"]["phase"] == "Succeeded"  # every container exited 0
    terminated = container(last)["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")
    assert terminated["finishedAt"] and terminated["startedAt"]
    assert terminated["containerID"].startswith("containerd://")


def test_a_program_that_ignores_sigterm_is_killed_when_the_grace_period_ends(
        make_cluster: MakeCluster, clock: FakeClock) -> None:
    cluster = make_cluster(controllers={"kubelet"})
    assert cluster.kubelet is not None

    def stubborn(ctx: ContainerContext) -> int:
        while True:
            ctx.sleep(1)  # SIGTERM is not delivered to it: only SIGKILL ends this

    cluster.kubelet.image("stubborn", run=stubborn, ignores_sigterm=True)
    cluster.resource("pods").create(pod("old", "stubborn", terminationGracePeriodSeconds=8))
    running(cluster, "old")
    watch = PodWatch(cluster, "old")
    cluster.resource("pods").delete("old")
    step(clock, cluster, 7)
    settle(cluster)
    assert conditions(get(cluster, "old"))["Ready"] == "True"  # still serving meanwhile
    step(clock, cluster, 1)
    events = watch.wait_deleted()
    last = [obj for t, obj in events if t == "MODIFIED"][-1]
    assert container(last)["state"]["terminated"]["exitCode"] == 137
    assert last["status"]["phase"] == "Failed"
    assert conditions(last)["Ready"] == "False"


def test_a_program_that_handles_sigterm_exits_with_its_own_code(
        make_cluster: MakeCluster, clock: FakeClock) -> None:
    cluster = make_cluster(controllers={"kubelet"})
    assert cluster.kubelet is not None

    def server(ctx: ContainerContext) -> int:
        while not ctx.sleep(60):
            ctx.log("serving")
        ctx.log("SIGTERM: shutting down")
        return 143

    cluster.kubelet.image("server", run=server)
    cluster.resource("pods").create(pod("api", "server"))
    running(cluster, "api")
    watch = PodWatch(cluster, "api")
    cluster.resource("pods").delete("api")
    events = watch.wait_deleted()
    last = [obj for t, obj in events if t == "MODIFIED"][-1]
    assert container(last)["state"]["terminated"]["exitCode"] == 143


@needs_kubectl
def test_kubectl_wait_sees_a_draining_pod_turn_unready_before_it_goes(
        make_cluster: MakeCluster, clock: FakeClock, tmp_path: Any) -> None:
    cluster = make_cluster(controllers={"kubelet"})
    assert cluster.kubelet is not None and cluster.server is not None
    kubectl = Kubectl(cluster.server.kubeconfig_path, tmp_path)

    def draining(ctx: ContainerContext) -> int:
        while not ctx.sleep(3600):
            pass
        ctx.ready(False)  # out of the Service's endpoints first,
        ctx.log("draining")
        ctx.sleep(5)  # then finish what is in flight
        ctx.log("drained")
        return 0

    cluster.kubelet.image("drainer", run=draining)
    cluster.resource("pods").create(pod("api", "drainer"))
    running(cluster, "api")
    kubectl("delete", "pod", "api", "--wait=false")
    waited = kubectl("wait", "--for=condition=Ready=False", "pod/api", "--timeout=30s")
    assert "condition met" in waited.stdout
    assert get(cluster, "api")["metadata"]["deletionTimestamp"]  # still Terminating
    assert cluster.kubelet.logs("api") == "draining\n"
    step(clock, cluster, 5)
    wait_until(lambda: gone(cluster, "pods", "api"), 10, "the pod to go once drained")


@needs_kubectl
def test_kubectl_delete_deployment_in_the_background_leaves_no_pod_terminating(
        cluster: Cluster, kubectl: Kubectl) -> None:
    cluster.resource("deployments").create(deployment(replicas=3))
    eventually(lambda: len([p for p in pods_of(cluster, app="web")
                            if p["status"].get("phase") == "Running"]) == 3, "3 pods Running")
    kubectl("delete", "deploy", "web", "--cascade=background")
    # The FakeClock stays put: nothing waits for the 30 s grace period.
    wait_until(lambda: kubectl("get", "pods", "-l", "app=web", "-o", "name").stdout == "",
               15, "the pods to be gone")


# -- Python programs -----------------------------------------------------------------------------


def test_image_names_match_by_repository_or_exactly() -> None:
    assert Image("worker").matches("worker:2")
    assert Image("worker").matches("docker.io/library/worker")
    assert Image("ghcr.io/acme/worker").matches("ghcr.io/acme/worker:1.0")
    assert not Image("worker:1").matches("worker:2")
    assert not Image("worker").matches("other/worker")


def test_declaring_an_image_checks_its_arguments(make_cluster: MakeCluster) -> None:
    cluster = make_cluster(controllers={"kubelet"})
    assert cluster.kubelet is not None
    with pytest.raises(KubenbError, match="name must be a non-empty image reference"):
        cluster.kubelet.image("")
    with pytest.raises(KubenbError, match="run must be a function"):
        cluster.kubelet.image("worker", run="python main.py")  # type: ignore[arg-type]


def test_a_job_whose_image_fails_is_retried_until_the_backoff_limit(
        make_cluster: MakeCluster, clock: FakeClock) -> None:
    cluster = make_cluster()
    assert cluster.kubelet is not None
    attempts: list[str] = []

    def failing(ctx: ContainerContext) -> int:
        attempts.append(ctx.pod_name)
        ctx.log(f"processing batch {ctx.env['BATCH']}")
        raise RuntimeError("the database is down")

    cluster.kubelet.image("batch", run=failing)
    cluster.resource("jobs").create({"metadata": {"name": "import"}, "spec": {
        "backoffLimit": 1, "template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "main", "image": "batch:7", "env": [{"name": "BATCH", "value": "42"}]}]}}}})
    first = eventually(lambda: [p for p in pods_of(cluster) if p["status"].get("phase") ==
                                "Failed"], "the first pod to fail")[0]
    terminated = container(first)["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (1, "Error")
    log = cluster.kubelet.logs(first["metadata"]["name"])
    assert log.startswith("processing batch 42\nTraceback")
    assert "RuntimeError: the database is down" in log
    step(clock, cluster, 10)  # the Job controller's back-off after one failure
    eventually(lambda: len(attempts) == 2, "a second pod")
    eventually(lambda: any(c["type"] == "Failed" and c.get("reason") == "BackoffLimitExceeded"
                           for c in cluster.resource("jobs").get("import")["status"].get(
                               "conditions") or ()), "the Job to fail")
    assert cluster.resource("jobs").get("import")["status"]["failed"] == 2
    settle(cluster)
    assert len(attempts) == 2


@needs_kubectl
def test_a_crashing_container_shows_crash_loop_back_off(
        make_cluster: MakeCluster, clock: FakeClock, tmp_path: Any) -> None:
    cluster = make_cluster(controllers={"kubelet"})
    assert cluster.kubelet is not None and cluster.server is not None
    kubectl = Kubectl(cluster.server.kubeconfig_path, tmp_path)
    cluster.kubelet.image("crasher", run=lambda ctx: 2)
    cluster.resource("pods").create(pod("crash", "crasher"))

    def shown() -> list[str]:
        return kubectl("get", "pod", "crash", "--no-headers").stdout.split()

    # Exits at once, restarts at once; exits again: 10 s back-off.
    eventually(lambda: shown()[2:4] == ["CrashLoopBackOff", "1"], "CrashLoopBackOff, 1 restart")
    status = container(get(cluster, "crash"))
    assert status["state"]["waiting"]["message"].startswith(
        "back-off 10s restarting failed container=app pod=crash_default(")
    assert status["lastState"]["terminated"]["exitCode"] == 2
    assert get(cluster, "crash")["status"]["phase"] == "Running"
    assert conditions(get(cluster, "crash"))["Ready"] == "False"
    eventually(lambda: "Back-off restarting failed container app in pod crash_default(" in
               kubectl("get", "events", "--field-selector", "reason=BackOff").stdout,
               "the kubelet's BackOff Event")
    step(clock, cluster, 9)
    settle(cluster)
    assert container(get(cluster, "crash"))["restartCount"] == 1
    step(clock, cluster, 1)
    eventually(lambda: container(get(cluster, "crash"))["restartCount"] == 2, "restart 2")
    eventually(lambda: "back-off 20s" in container(get(cluster, "crash"))["state"].get(
        "waiting", {}).get("message", ""), "the back-off doubled")
    for seconds, restarts in ((20, 3), (40, 4), (80, 5), (160, 6), (300, 7), (300, 8)):
        step(clock, cluster, seconds)
        eventually(lambda r=restarts: container(get(cluster, "crash"))["restartCount"] == r,
                   f"restart {restarts} after {seconds} s")
    eventually(lambda: "back-off 5m0s" in container(get(cluster, "crash"))["state"].get(
        "waiting", {}).get("message", ""), "the back-off capped at 5 min")


def test_readiness_flaps_as_the_program_says(make_cluster: MakeCluster,
                                             clock: FakeClock) -> None:
    cluster = make_cluster(controllers={"kubelet"})
    assert cluster.kubelet is not None

    def flapping(ctx: ContainerContext) -> None:
        while True:
            ctx.sleep(5)
            ctx.ready(False)
            ctx.sleep(5)
            ctx.ready(True)

    cluster.kubelet.image("flappy", run=flapping)
    cluster.resource("pods").create(pod("flap", "flappy"))
    running(cluster, "flap")
    settle(cluster)
    for ready in ("True", "False", "True", "False"):
        assert conditions(get(cluster, "flap"))["Ready"] == ready
        assert container(get(cluster, "flap"))["ready"] is (ready == "True")
        step(clock, cluster, 5)
        settle(cluster)
    assert get(cluster, "flap")["status"]["phase"] == "Running"
    assert container(get(cluster, "flap"))["restartCount"] == 0


def test_an_image_can_start_unready(make_cluster: MakeCluster, clock: FakeClock) -> None:
    cluster = make_cluster(controllers={"kubelet"})
    assert cluster.kubelet is not None

    def warming(ctx: ContainerContext) -> None:
        ctx.sleep(3)
        ctx.ready()
        ctx.sleep(3600)

    cluster.kubelet.image("warming", run=warming, ready=False)
    cluster.resource("pods").create(pod("warm", "warming"))
    running(cluster, "warm")
    settle(cluster)
    assert conditions(get(cluster, "warm"))["Ready"] == "False"
    step(clock, cluster, 3)
    eventually(lambda: conditions(get(cluster, "warm"))["Ready"] == "True", "Ready")


def test_a_program_that_does_not_return_an_exit_code_fails_saying_so(
        make_cluster: MakeCluster) -> None:
    cluster = make_cluster(controllers={"kubelet"})
    assert cluster.kubelet is not None
    cluster.kubelet.image("odd", run=lambda ctx: "done")
    cluster.resource("pods").create(pod("odd", "odd", restartPolicy="Never"))
    failed = eventually(lambda: (lambda p: p if p["status"].get("phase") == "Failed" else None)(
        get(cluster, "odd")), "Failed")
    assert container(failed)["state"]["terminated"]["exitCode"] == 1
    assert "returned 'done': it must return an exit code (int) or None" in \
        cluster.kubelet.logs("odd")
    cluster.resource("pods").delete("odd")
    wait_until(lambda: gone(cluster, "pods", "odd"), 10, "the finished pod to go")
