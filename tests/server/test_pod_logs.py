"""`pods/log` through the API server to the simulated kubelet's endpoint: kubectl logs
(-f, --previous, --tail, --timestamps, --limit-bytes), the official client's
read_namespaced_pod_log, and the Statuses when no kubelet answers."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests

import kubenb
from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.controllermanager.container_runtime import ContainerContext
from tests.helpers import Kubectl, assert_no_new_threads, needs_kubectl, wait_until


def ticker(ctx: ContainerContext) -> int:
    """Logs a tick per clock second until SIGTERM, then says goodbye."""
    ctx.log(f"starting attempt {ctx.attempt}")
    tick = 0
    while not ctx.sleep(1):
        tick += 1
        ctx.log(f"tick {tick}")
    ctx.log("bye")
    return 0


def second_try(ctx: ContainerContext) -> int:
    """Fails on its first attempt; the restarted one runs on."""
    ctx.log(f"attempt {ctx.attempt}")
    if ctx.attempt == 0:
        ctx.log("no config yet")
        return 1
    ctx.sleep(3600)
    return 0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def cluster(clock: FakeClock) -> Iterator[Cluster]:
    with kubenb.embedded(controllers={"kubelet"}, clock=clock,
                         kubelet={"start_delay": 0}) as made:
        assert made.kubelet is not None
        made.kubelet.image("ticker", run=ticker)
        made.kubelet.image("second-try", run=second_try)
        yield made


@pytest.fixture
def kubectl(cluster: Cluster, tmp_path: Any) -> Kubectl:
    assert cluster.server is not None
    return Kubectl(cluster.server.kubeconfig_path, tmp_path / "kube-cache")


def run_pod(cluster: Cluster, name: str, *images: str, **spec: Any) -> None:
    cluster.resource("pods").create({"metadata": {"name": name}, "spec": {"containers": [
        {"name": image, "image": image} for image in images], **spec}})
    wait_until(lambda: cluster.resource("pods").get(name)["status"].get("phase") == "Running",
               10, f"{name} Running")


def settle(cluster: Cluster) -> None:
    assert cluster.controllers is not None
    cluster.controllers.wait_idle()


def ticks(cluster: Cluster, clock: FakeClock, n: int) -> None:
    for _ in range(n):
        settle(cluster)
        clock.step(1)
    settle(cluster)


@needs_kubectl
def test_kubectl_logs_tail_timestamps_and_limit_bytes(cluster: Cluster, clock: FakeClock,
                                                      kubectl: Kubectl) -> None:
    run_pod(cluster, "tick", "ticker")
    ticks(cluster, clock, 3)
    assert kubectl("logs", "tick").stdout == "starting attempt 0\ntick 1\ntick 2\ntick 3\n"
    assert kubectl("logs", "tick", "--tail=2").stdout == "tick 2\ntick 3\n"
    assert kubectl("logs", "tick", "--tail=0").stdout == ""
    assert kubectl("logs", "tick", "--limit-bytes=10").stdout == "starting a"
    assert kubectl("logs", "tick", "--since=1h").stdout.count("\n") == 4
    stamped = kubectl("logs", "tick", "--timestamps", "--tail=1").stdout
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z tick 3\n", stamped), stamped


@needs_kubectl
def test_kubectl_logs_follow_streams_until_the_container_stops(
        cluster: Cluster, clock: FakeClock, kubectl: Kubectl) -> None:
    run_pod(cluster, "tick", "ticker")
    ticks(cluster, clock, 1)
    following = kubectl.popen("logs", "-f", "tick")
    assert following.stdout is not None
    assert following.stdout.readline() == "starting attempt 0\n"
    assert following.stdout.readline() == "tick 1\n"
    ticks(cluster, clock, 2)
    assert following.stdout.readline() == "tick 2\n"  # written while kubectl waited
    assert following.stdout.readline() == "tick 3\n"
    assert following.poll() is None
    cluster.resource("pods").delete("tick")  # SIGTERM: the program says bye and exits
    rest, err = following.communicate(timeout=30)
    assert following.returncode == 0, err
    assert rest == "bye\n"


@needs_kubectl
def test_kubectl_logs_previous_and_container_choice(cluster: Cluster, clock: FakeClock,
                                                    kubectl: Kubectl) -> None:
    run_pod(cluster, "two", "ticker", "second-try", restartPolicy="OnFailure")
    wait_until(lambda: cluster.resource("pods").get("two")["status"]["containerStatuses"][1][
        "restartCount"] == 1, 10, "the restart")
    settle(cluster)
    assert kubectl("logs", "two", "-c", "second-try").stdout == "attempt 1\n"
    assert kubectl("logs", "two", "-c", "second-try", "--previous").stdout == \
        "attempt 0\nno config yet\n"
    never = kubectl("logs", "two", "-c", "ticker", "--previous", ok=False)
    assert 'previous terminated container "ticker" in pod "two" not found' in never.stderr
    # kubectl picks the first container when none is named (and says so)
    assert kubectl("logs", "two").stdout.startswith("starting attempt 0\n")
    wrong = kubectl("logs", "two", "-c", "nope", ok=False)
    assert "container nope is not valid for pod two" in wrong.stderr


def test_the_official_client_reads_pod_logs(cluster: Cluster, clock: FakeClock) -> None:
    kubernetes = pytest.importorskip("kubernetes")
    run_pod(cluster, "tick", "ticker")
    ticks(cluster, clock, 2)
    assert cluster.server is not None
    api_client = kubernetes.config.new_client_from_config(
        config_file=str(cluster.server.kubeconfig_path))
    try:
        core = kubernetes.client.CoreV1Api(api_client)
        assert core.read_namespaced_pod_log("tick", "default") == \
            "starting attempt 0\ntick 1\ntick 2\n"
        assert core.read_namespaced_pod_log("tick", "default", container="ticker",
                                            tail_lines=1) == "tick 2\n"
        with pytest.raises(kubernetes.client.ApiException) as info:
            core.read_namespaced_pod_log("tick", "default", container="nope")
        assert info.value.status == 400
    finally:
        api_client.close()


def test_bad_options_are_refused_with_what_was_wrong(cluster: Cluster) -> None:
    run_pod(cluster, "tick", "ticker")
    base = f"{cluster.config.server}/api/v1/namespaces/default/pods/tick/log"
    bad = cluster.rest.session.get(base, params={"tailLines": "many"}, timeout=10)
    assert bad.status_code == 400 and bad.json()["reason"] == "BadRequest"
    assert "tailLines: invalid value 'many': must be an integer" in bad.json()["message"]
    both = cluster.rest.session.get(base, params={
        "sinceSeconds": "5", "sinceTime": "2024-01-01T00:00:00Z"}, timeout=10)
    assert both.status_code == 400 and "at most one" in both.json()["message"]


def test_with_a_token_the_kubelet_answers_only_the_api_server(clock: FakeClock) -> None:
    with kubenb.embedded(controllers={"kubelet"}, clock=clock, token="s3cret",
                         kubelet={"start_delay": 0}) as secured:
        assert secured.kubelet is not None
        secured.kubelet.image("ticker", run=ticker)
        run_pod(secured, "tick", "ticker")
        base = f"{secured.config.server}/api/v1/namespaces/default/pods/tick/log"
        assert secured.rest.session.get(base, timeout=10).text == "starting attempt 0\n"
        port = secured.resource("nodes").get("kubenb-node-1")["status"]["daemonEndpoints"][
            "kubeletEndpoint"]["Port"]
        direct = f"http://127.0.0.1:{port}/containerLogs/default/tick/ticker"
        assert requests.get(direct, timeout=10).status_code == 401
        assert requests.get(direct, headers={"Authorization": "Bearer guess"},
                            timeout=10).status_code == 401


@needs_kubectl
def test_without_a_kubelet_the_status_says_so(cluster: Cluster, kubectl: Kubectl) -> None:
    run_pod(cluster, "tick", "ticker")
    exec_ = kubectl("exec", "tick", "--", "ls", ok=False)
    assert "has no container runtime" in exec_.stderr  # exec is not served
    assert cluster.controllers is not None
    cluster.controllers.stop()  # the node's kubelet is gone; its pod stays bound
    gone = kubectl("logs", "tick", ok=False)
    assert gone.returncode != 0
    assert "has no container runtime" in gone.stderr
    assert 'no kubelet answers for its node "kubenb-node-1"' in gone.stderr


def test_a_pod_not_started_yet_or_not_scheduled_says_why(clock: FakeClock) -> None:
    with kubenb.embedded(controllers={"kubelet"}, clock=clock,
                         kubelet={"start_delay": 5}) as slow:
        pods = slow.resource("pods")
        pods.create({"metadata": {"name": "new"}, "spec": {
            "containers": [{"name": "app", "image": "nginx"}]}})
        wait_until(lambda: pods.get("new")["status"].get("startTime"), 10, "admitted")
        base = f"{slow.config.server}/api/v1/namespaces/default/pods"
        waiting = slow.rest.session.get(f"{base}/new/log", timeout=10)
        assert waiting.status_code == 400
        assert waiting.json()["message"] == \
            'container "app" in pod "new" is waiting to start: ContainerCreating'
        pods.create({"metadata": {"name": "elsewhere"}, "spec": {
            "schedulerName": "my-scheduler", "containers": [{"name": "app", "image": "nginx"}]}})
        unscheduled = slow.rest.session.get(f"{base}/elsewhere/log", timeout=10)
        assert unscheduled.status_code == 400
        assert unscheduled.json()["message"].startswith(
            "pod elsewhere does not have a host assigned")


def test_closing_the_cluster_ends_an_open_follow_and_leaves_no_thread(clock: FakeClock) -> None:
    before = set(threading.enumerate())
    made = kubenb.embedded(controllers={"kubelet"}, clock=clock, kubelet={"start_delay": 0})
    try:
        assert made.kubelet is not None
        made.kubelet.image("ticker", run=ticker)
        run_pod(made, "tick", "ticker")
        url = f"{made.config.server}/api/v1/namespaces/default/pods/tick/log"
        following = requests.get(url, params={"follow": "true"}, stream=True, timeout=10)
        lines = following.iter_lines()
        assert next(lines) == b"starting attempt 0"
    finally:
        made.close()  # the kubelet stops (and with it the follow), then the server
    assert list(lines) == []
    following.close()
    assert_no_new_threads(before, grace=5.0)
