"""The recording seam: requests made inside `record_requests` land in its log as RBAC
sees them; other threads and code outside the block are not recorded. A controller
records its reconciles' requests, per key too."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

import kubenb
from kubenb.client.request_log import RequestLog, RequestRecord, record_requests
from kubenb.cluster import Cluster
from kubenb.controller import Controller
from kubenb.errors import NotFound


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with kubenb.embedded(controllers=False) as c:
        yield c


def test_requests_in_the_block_are_recorded_as_rbac_reads_them(cluster: Cluster) -> None:
    cms = cluster.resource("configmaps", namespace="default")
    log = RequestLog()
    with record_requests(log):
        cms.create({"metadata": {"name": "recorded"}})
        cms.patch("recorded", {"data": {"a": "b"}})
        cluster.resource("namespaces").get("default")
        with pytest.raises(NotFound):
            cms.get("missing")
    cms.delete("recorded")  # after the block: not recorded
    assert log.records() == [
        RequestRecord("create", "", "v1", "configmaps", "", "default", ""),
        RequestRecord("patch", "", "v1", "configmaps", "", "default", "recorded"),
        RequestRecord("get", "", "v1", "namespaces", "", "", "default"),
        RequestRecord("get", "", "v1", "configmaps", "", "default", "missing"),
    ]


def test_another_threads_requests_are_not_recorded(cluster: Cluster) -> None:
    log = RequestLog()
    with record_requests(log):
        other = threading.Thread(target=lambda: cluster.resource("namespaces").list())
        other.start()
        other.join()
    assert log.records() == []


def test_a_controller_records_each_reconciles_requests(cluster: Cluster) -> None:
    cms = cluster.resource("configmaps", namespace="default")

    def reconcile(key: str) -> None:
        _, name = key.split("/")
        if not name.endswith("-copy"):
            cms.create({"metadata": {"name": f"{name}-copy"}})

    ctrl = Controller("copier", reconcile)
    ctrl.enqueue("default/original")
    ctrl.run_until_idle(quiet=0)
    ctrl.stop()
    create = RequestRecord("create", "", "v1", "configmaps", "", "default", "")
    assert ctrl.requests.counts() == {create: 1}
    assert ctrl.requests_by_key == {"default/original": [create]}
    cms.delete("original-copy")
