"""The event recorder: Events shaped like the real recorder's, repeats counted by PATCH,
similar events aggregated, a spammy source throttled, retries timed by a FakeClock."""

from __future__ import annotations

import logging
import shutil
import subprocess
import threading
from typing import Any

import pytest

from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.controller import EventBroadcaster, EventSource, FakeRecorder
from kubenb.controller.record import EventRecordError, get_reference
from tests.controller.conftest import realapi
from tests.helpers import wait_until


@pytest.fixture
def configmap(cluster: Cluster) -> dict[str, Any]:
    return cluster.resource("configmaps").create(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web-config"}})


@pytest.fixture
def broadcaster(cluster: Cluster, clock: FakeClock):
    b = EventBroadcaster(clock=clock)
    b.start_recording_to_sink(cluster)
    yield b
    b.shutdown()


def events(cluster: Cluster) -> list[dict[str, Any]]:
    items = cluster.resource("events").list()["items"]
    return sorted(items, key=lambda e: e["metadata"]["name"])


def test_an_event_has_the_real_recorders_shape(cluster: Cluster, broadcaster, configmap,
                                               clock: FakeClock) -> None:
    recorder = broadcaster.new_recorder(EventSource("sample-controller", "node-1"))
    recorder.eventf(configmap, "Normal", "Synced", "synced %s in %d tries", "web-config", 2)
    assert broadcaster.flush()
    [listed] = events(cluster)
    event = cluster.resource("events").get(listed["metadata"]["name"])
    real = realapi("objects/event-create.json")["response"]["body"]
    assert list(event) == list(real)  # same fields, in the API server's order
    assert event["involvedObject"] == {
        "kind": "ConfigMap", "namespace": "default", "name": "web-config",
        "uid": configmap["metadata"]["uid"], "apiVersion": "v1",
        "resourceVersion": configmap["metadata"]["resourceVersion"]}
    assert (event["type"], event["reason"], event["message"], event["count"]) == (
        "Normal", "Synced", "synced web-config in 2 tries", 1)
    assert event["source"] == {"component": "sample-controller", "host": "node-1"}
    assert (event["reportingComponent"], event["reportingInstance"]) == (
        "sample-controller", "node-1")
    assert event["metadata"]["name"].startswith("web-config.")
    assert event["metadata"]["namespace"] == "default"
    assert event["firstTimestamp"] == event["lastTimestamp"]


def test_the_same_event_again_patches_its_count(cluster: Cluster, broadcaster, configmap,
                                                clock: FakeClock) -> None:
    recorder = broadcaster.new_recorder("ctl")
    for _ in range(3):
        recorder.event(configmap, "Warning", "Failed", "could not sync")
        clock.step(5.0)
    assert broadcaster.flush()
    [event] = events(cluster)
    assert event["count"] == 3
    assert event["firstTimestamp"] != event["lastTimestamp"]  # 10 s apart on the clock
    assert (broadcaster.written, broadcaster.patched, broadcaster.skipped) == (1, 2, 0)


def test_similar_events_are_combined_after_ten(cluster: Cluster, broadcaster, configmap,
                                               clock: FakeClock) -> None:
    recorder = broadcaster.new_recorder("ctl")
    for i in range(12):
        recorder.event(configmap, "Normal", "Scaled", f"scaled to {i}")
    assert broadcaster.flush()
    messages = [e["message"] for e in events(cluster)]
    assert messages[:9] == [f"scaled to {i}" for i in range(9)]
    combined = [e for e in events(cluster) if e["message"].startswith("(combined")]
    assert len(combined) == 1 and len(messages) == 10
    assert combined[0]["message"] == "(combined from similar events): scaled to 11"
    assert combined[0]["count"] == 3

    clock.step(601)  # the 10-minute window has passed: messages are their own again
    recorder.event(configmap, "Normal", "Scaled", "scaled to 99")
    assert broadcaster.flush()
    assert "scaled to 99" in [e["message"] for e in events(cluster)]


def test_a_spammy_source_gets_25_events_then_one_per_5_minutes(
        cluster: Cluster, broadcaster, configmap, clock: FakeClock) -> None:
    recorder = broadcaster.new_recorder("ctl")
    for i in range(30):
        recorder.event(configmap, "Normal", f"Reason{i}", "hello")
    assert broadcaster.flush()
    assert len(events(cluster)) == 25 and broadcaster.skipped == 5
    clock.step(300)
    recorder.event(configmap, "Normal", "Again", "hello")
    recorder.event(configmap, "Normal", "AndAgain", "hello")
    assert broadcaster.flush()
    assert len(events(cluster)) == 26


def test_references_and_event_types_are_checked(cluster: Cluster, broadcaster,
                                                configmap) -> None:
    recorder = broadcaster.new_recorder("ctl")
    informer = cluster.informer("configmaps")
    cached = informer.get_indexer().get_by_key("default/web-config")
    with pytest.raises(EventRecordError, match=r"has no kind/apiVersion .* pass kind= and "
                                               r"api_version="):
        recorder.event(cached, "Normal", "Synced", "x")
    ref = get_reference(cached, kind="ConfigMap", api_version="v1")
    assert ref["name"] == "web-config" and ref["kind"] == "ConfigMap"
    assert get_reference(ref) == ref
    with pytest.raises(EventRecordError, match="unsupported event type 'Info'"):
        recorder.event(configmap, "Info", "Synced", "x")


@pytest.mark.slow
def test_kubectl_describe_shows_the_events(cluster: Cluster, broadcaster, configmap) -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed")
    recorder = broadcaster.new_recorder("sample-controller")
    recorder.event(configmap, "Normal", "Synced", "ConfigMap synced successfully")
    assert broadcaster.flush()
    out = subprocess.run(["kubectl", "--kubeconfig", str(cluster.server.kubeconfig_path),
                          "describe", "configmap", "web-config"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    events_section = out.stdout.split("Events:", 1)[1]
    assert "Synced" in events_section
    assert "sample-controller" in events_section
    assert "ConfigMap synced successfully" in events_section


class FlakySink:
    """A sink whose API server is unreachable for the first `failures` tries."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.created: list[dict[str, Any]] = []

    def create(self, event: dict[str, Any]) -> dict[str, Any]:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("connection refused")
        self.created.append(event)
        return event

    def patch(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("not reached")


def test_an_unreachable_server_is_retried_on_the_clock(clock: FakeClock, caplog) -> None:
    sink = FlakySink(failures=2)
    broadcaster = EventBroadcaster(clock=clock)
    broadcaster.start_recording_to_sink(sink)
    recorder = broadcaster.new_recorder("ctl")
    obj = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "namespace": "ns"}}
    try:
        with caplog.at_level(logging.ERROR, logger="kubenb.controller.record"):
            recorder.event(obj, "Normal", "Started", "started")
            wait_until(lambda: sink.failures == 1 and clock.has_waiters(),
                       what="the first failure")
            clock.step(10.0)  # the first wait is randomized below 10 s
            wait_until(lambda: sink.failures == 0 and clock.has_waiters(),
                       what="the second failure")
            assert sink.created == []
            clock.step(10.0)
            assert broadcaster.flush()
        assert len(sink.created) == 1
        assert "may retry after sleeping" in caplog.text
    finally:
        broadcaster.shutdown()


def test_logging_watchers_fake_recorder_and_shutdown(caplog) -> None:
    broadcaster = EventBroadcaster()
    lines: list[str] = []
    broadcaster.start_logging(lines.append)
    broadcaster.start_structured_logging()
    seen: list[dict[str, Any]] = []
    broadcaster.start_event_watcher(seen.append)
    recorder = broadcaster.new_recorder("ctl")
    obj = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "namespace": "ns"}}
    with caplog.at_level(logging.INFO, logger="kubenb.controller.record"):
        recorder.event(obj, "Warning", "BackOff", "restarting")
        assert broadcaster.flush()
    assert "type: 'Warning' reason: 'BackOff' restarting" in lines[0]
    assert "Event occurred object=ns/p kind=Pod" in caplog.text
    assert seen[0]["reason"] == "BackOff"
    threads = [t for t in threading.enumerate() if t.name.startswith("kubenb-events-")]
    assert len(threads) == 3
    broadcaster.shutdown()
    assert not any(t.is_alive() for t in threads)
    with caplog.at_level(logging.ERROR, logger="kubenb.controller.record"):
        recorder.event(obj, "Normal", "Late", "after shutdown")
    assert "dropped" in caplog.text

    fake = FakeRecorder(include_object=True)
    fake.eventf(obj, "Normal", "Synced", "%d replicas", 3)
    assert fake.events == ["Normal Synced 3 replicas involvedObject{kind=Pod,apiVersion=v1}"]


def test_a_resource_client_or_dynamic_client_is_a_sink(cluster: Cluster, configmap) -> None:
    for client in (cluster.resource("events"), cluster.dynamic):
        broadcaster = EventBroadcaster()
        broadcaster.start_recording_to_sink(client)
        broadcaster.new_recorder("ctl").event(configmap, "Normal", type(client).__name__, "x")
        assert broadcaster.flush()
        broadcaster.shutdown()
        assert broadcaster.written == 1
    assert sorted(e["reason"] for e in events(cluster)) == ["DynamicClient", "ResourceClient"]
