"""`wait_for` returns the object once the condition holds (also when the change comes
through the watch), and fails the test, showing the object, when it never does."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.client.dynamic import ResourceClient
from kubenb.testing import temporary_namespace, test_cluster, wait_for, wait_for_deletion


@pytest.fixture(scope="module")
def configmaps() -> Iterator[ResourceClient]:
    with test_cluster(controllers=False) as cluster, \
            temporary_namespace(cluster, "test_waiting") as namespace:
        yield cluster.resource("configmaps", namespace)


def test_an_object_that_is_already_so_is_returned(configmaps: ResourceClient) -> None:
    configmaps.create({"metadata": {"name": "ready"}, "data": {"state": "done"}})
    got = wait_for(configmaps, "ready", lambda cm: cm["data"]["state"] == "done")
    assert got["metadata"]["name"] == "ready"


def test_a_change_after_the_list_arrives_through_the_watch(
        configmaps: ResourceClient) -> None:
    configmaps.create({"metadata": {"name": "later"}, "data": {"state": "working"}})
    looked_at: list[str] = []

    def done(cm: dict[str, Any]) -> bool:
        looked_at.append(cm["data"]["state"])
        if len(looked_at) == 1:  # the listed object: change it now, after the list
            configmaps.patch("later", {"data": {"state": "done"}})
        return cm["data"]["state"] == "done"

    got = wait_for(configmaps, "later", done)
    assert got["data"] == {"state": "done"} and looked_at == ["working", "done"]


def test_waiting_for_existence_and_for_deletion(configmaps: ResourceClient) -> None:
    creator = threading.Thread(
        target=configmaps.create, args=({"metadata": {"name": "born"}},))
    creator.start()
    assert wait_for(configmaps, "born")["metadata"]["name"] == "born"
    creator.join()
    deleter = threading.Thread(target=configmaps.delete, args=("born",))
    deleter.start()
    wait_for_deletion(configmaps, "born")
    deleter.join()
    assert configmaps.list(field_selector="metadata.name=born")["items"] == []


def test_a_condition_never_met_fails_showing_the_object(configmaps: ResourceClient) -> None:
    configmaps.create({"metadata": {"name": "stuck"}, "data": {"state": "working"}})

    def finished(cm: dict[str, Any]) -> bool:
        return cm["data"]["state"] == "done"

    with pytest.raises(AssertionError, match=r"'stuck' to satisfy .*finished; last seen: "
                                             r".*'data': \{'state': 'working'\}"):
        wait_for(configmaps, "stuck", finished, timeout=1)


def test_a_timeout_must_be_positive(configmaps: ResourceClient) -> None:
    with pytest.raises(ValueError, match=r"timeout=0"):
        wait_for(configmaps, "any", timeout=0)
