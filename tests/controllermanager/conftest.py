"""Fixtures for the cluster's controllers: an embedded cluster whose controllers run on a
FakeClock, real HTTP everywhere, kubectl where it matters, and no thread left behind."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import kubenb
from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.errors import NotFound
from tests.helpers import Kubectl, assert_no_new_threads, wait_until

NS = "default"


@pytest.fixture(autouse=True)
def no_thread_left_behind() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    assert_no_new_threads(before, grace=5.0)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


MakeCluster = Callable[..., Cluster]


@pytest.fixture
def make_cluster(clock: FakeClock) -> Iterator[MakeCluster]:
    """`make_cluster(controllers=True, **kubelet_options)`: an embedded cluster whose
    controllers run on the test's FakeClock (pods start at once unless start_delay
    says otherwise), closed after the test."""
    made: list[Cluster] = []

    def make(controllers: Any = True, **kubelet: Any) -> Cluster:
        kubelet.setdefault("start_delay", 0.0)
        cluster = kubenb.embedded(controllers=controllers, clock=clock, kubelet=kubelet)
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        cluster.close()


@pytest.fixture
def cluster(make_cluster: MakeCluster) -> Cluster:
    """Every controller on; pods start at once; deleted pods wait for the FakeClock."""
    return make_cluster()


@pytest.fixture
def kubectl(cluster: Cluster, tmp_path: Any) -> Kubectl:
    assert cluster.server is not None
    return Kubectl(cluster.server.kubeconfig_path, tmp_path / "kube-cache")


def settle(cluster: Cluster) -> None:
    """Wait until no controller has anything to do now."""
    assert cluster.controllers is not None
    cluster.controllers.wait_idle()


def eventually(check: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    """Poll `check` (over HTTP) until it answers truthy; return that answer."""
    found: list[Any] = []

    def done() -> bool:
        value = check()
        if value:
            found.append(value)
        return bool(value)

    wait_until(done, timeout, what)
    return found[-1]


def deployment(name: str = "web", replicas: int = 3, image: str = "nginx:1.27",
               **spec: Any) -> dict[str, Any]:
    """A Deployment manifest (what `kubectl create deployment` would send)."""
    labels = {"app": name}
    body: dict[str, Any] = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": dict(labels)},
        "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                 "template": {"metadata": {"labels": dict(labels)},
                              "spec": {"containers": [{"name": "app", "image": image}]}}}}
    body["spec"].update(copy.deepcopy(spec))
    return body


def apply(kubectl: Kubectl, obj: dict[str, Any]) -> str:
    """`kubectl apply -f -` of one manifest."""
    return kubectl("apply", "-f", "-", stdin=json.dumps(obj)).stdout


def pods_of(cluster: Cluster, **selector: str) -> list[dict[str, Any]]:
    """The pods matching `selector`, from the server."""
    return list(cluster.resource("pods").list(label_selector=selector or None)["items"])


def names(objs: list[dict[str, Any]]) -> set[str]:
    return {o["metadata"]["name"] for o in objs}


def gone(cluster: Cluster, resource: str, name: str) -> bool:
    try:
        cluster.resource(resource).get(name)
    except NotFound:
        return True
    return False


def step(clock: FakeClock, cluster: Cluster, seconds: float) -> None:
    """Let the controllers finish what they are doing, then move the clock."""
    settle(cluster)
    clock.step(seconds)

