"""Controller, process_deltas and new_informer (spec section H, items 73-79).

Scenarios mirror client-go's controller_test.go over `FakeSource`; resyncs are driven
with a FakeClock. H76 (a handler panic propagates out of `Run`) is a deliberate
divergence, see tests/cache/README.md: the process loop logs and counts instead.
"""

from __future__ import annotations

import copy
import logging
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from kubenb.cache.controller import Controller, new_indexer_informer, new_informer, process_deltas
from kubenb.cache.delta_fifo import Delta, DeltaFIFO, Deltas, DeltaType
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.keys import DeletedFinalStateUnknown, meta_namespace_key_func
from kubenb.cache.store import new_store
from kubenb.clock import FakeClock
from tests.cache.fake_source import FakeSource, name_of, pod, rv_of
from tests.helpers import wait_until


@contextmanager
def running(controller: Controller) -> Iterator[threading.Event]:
    """Run a controller on a thread; stop and join it (and check it closed its queue)."""
    stop = threading.Event()
    thread = threading.Thread(target=controller.run, args=(stop,), name="test-controller")
    thread.start()
    try:
        yield stop
    finally:
        stop.set()
        thread.join(5)
        assert not thread.is_alive(), "the controller did not stop"
        assert controller.queue.is_closed()


class Events:
    """A handler that puts (kind, old, new) on a queue and keeps them in a list."""

    def __init__(self) -> None:
        self.queue: queue.Queue[tuple[str, Any, Any]] = queue.Queue()
        self.all: list[tuple[str, Any, Any]] = []
        self.lock = threading.Lock()

    def _put(self, event: tuple[str, Any, Any]) -> None:
        with self.lock:
            self.all.append(event)
        self.queue.put(event)

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        self._put(("add", None, obj))

    def on_update(self, old: Any, new: Any) -> None:
        self._put(("update", old, new))

    def on_delete(self, obj: Any) -> None:
        self._put(("delete", obj, None))

    def next(self) -> tuple[str, Any, Any]:
        return self.queue.get(timeout=5)

    def count(self, kind: str) -> int:
        with self.lock:
            return sum(1 for e in self.all if e[0] == kind)


# -- H73 -------------------------------------------------------------------------------


def test_h073_process_deltas_writes_the_store_before_each_handler_call() -> None:
    store = new_store()
    store.add(pod("old", "1"))
    seen: list[tuple[Any, ...]] = []

    def stored(obj: Any) -> Any:
        return store.get_by_key(meta_namespace_key_func(getattr(obj, "obj", None) or obj))

    handler = ResourceEventHandlerFuncs(
        on_add=lambda obj, initial: seen.append(("add", name_of(obj), initial,
                                                  stored(obj) is obj)),
        on_update=lambda old, new: seen.append(("update", name_of(old), rv_of(old), rv_of(new),
                                                 stored(new) is new)),
        on_delete=lambda obj: seen.append(("delete", name_of(obj), stored(obj) is None)))
    deltas = Deltas([Delta(DeltaType.SYNC, pod("old", "1")),
                     Delta(DeltaType.REPLACED, pod("old", "2")),
                     Delta(DeltaType.UPDATED, pod("old", "3")),
                     Delta(DeltaType.DELETED, pod("old", "3")),
                     Delta(DeltaType.ADDED, pod("old", "4")),
                     Delta(DeltaType.DELETED, DeletedFinalStateUnknown("ns/old", pod("old", "4")))])
    process_deltas(handler, store, deltas, True)
    assert seen == [
        ("update", "old", "1", "1", True),  # Sync of a stored object
        ("update", "old", "1", "2", True),  # Replaced
        ("update", "old", "2", "3", True),  # Updated
        ("delete", "old", True),
        ("add", "old", True, True),  # Added of an unknown key: on_add with the flag
        ("delete", "old", True),  # a tombstone is deleted by its key
    ]
    assert store.list() == []


def test_h073_sync_or_replaced_of_an_unknown_key_is_an_add() -> None:
    store = new_store()
    events = Events()
    process_deltas(events, store, [Delta(DeltaType.SYNC, pod("a", "1")),
                                   Delta(DeltaType.REPLACED, pod("b", "1"))], False)
    assert [(k, name_of(n)) for k, _, n in events.all] == [("add", "a"), ("add", "b")]
    assert sorted(store.list_keys()) == ["ns/a", "ns/b"]


# -- H74-H75: transforms ---------------------------------------------------------------


def make_pod(name: str, generation: str) -> dict[str, Any]:
    return pod(name, labels={"generation": generation},
               spec={"hostname": "hostname", "subdomain": "subdomain"})


def expected_pod(name: str, generation: str) -> dict[str, Any]:
    obj = make_pod(name, generation)
    obj["spec"] = {"hostname": "new-hostname", "nodeName": "nodename"}
    obj["metadata"]["resourceVersion"] = ""
    return obj


def pod_transformer(obj: Any) -> Any:
    obj["spec"]["hostname"] = "new-hostname"
    obj["spec"].pop("subdomain", None)
    obj["spec"]["nodeName"] = "nodename"
    obj["metadata"]["resourceVersion"] = ""  # simplify comparisons, as the Go test does
    return obj


@pytest.mark.parametrize("queue_kind", ["DeltaFIFO", "RealFIFO"])
def test_h074_transforming_informer_events_carry_transformed_objects(queue_kind: str) -> None:
    source = FakeSource()
    source.add(make_pod("pod1", "1"))
    source.modify(make_pod("pod1", "2"))
    events = Events()
    store, controller = new_informer(source, events, 0, transform=pod_transformer,
                                     queue=queue_kind, clock=FakeClock())

    def verify_store(*expected: dict[str, Any]) -> None:
        assert sorted(store.list(), key=name_of) == sorted(expected, key=name_of)

    with running(controller):
        assert events.next() == ("add", None, expected_pod("pod1", "2"))
        verify_store(expected_pod("pod1", "2"))
        source.add(make_pod("pod2", "1"))
        assert events.next() == ("add", None, expected_pod("pod2", "1"))
        verify_store(expected_pod("pod1", "2"), expected_pod("pod2", "1"))
        source.add(make_pod("pod3", "1"))
        assert events.next() == ("add", None, expected_pod("pod3", "1"))
        source.modify(make_pod("pod2", "2"))
        assert events.next() == ("update", expected_pod("pod2", "1"), expected_pod("pod2", "2"))
        source.delete(make_pod("pod1", "2"))
        assert events.next() == ("delete", expected_pod("pod1", "2"), None)
        verify_store(expected_pod("pod2", "2"), expected_pod("pod3", "1"))
    # the source's own objects were never touched by the transform
    assert source.items["ns/pod2"]["spec"]["hostname"] == "hostname"


def test_h075_resyncs_never_run_the_transform_again() -> None:
    clock = FakeClock()
    source = FakeSource()
    for i in range(5):
        source.add(pod(f"pod-{i}", labels={"to-be-transformed": "true"}))
    bad: list[Any] = []

    def transform(obj: Any) -> Any:
        labels = obj["metadata"]["labels"]
        if labels["to-be-transformed"] != "true":
            bad.append(copy.deepcopy(obj))
            raise ValueError("object already transformed")
        labels["to-be-transformed"] = "false"
        return obj

    events = Events()
    store, controller = new_informer(source, events, 0.005, transform=transform, clock=clock)
    with running(controller):
        wait_until(lambda: events.count("add") == 5, what="initial adds")
        for n in range(1, 21):
            wait_until(clock.has_waiters, what="resync timer")
            clock.step(0.005)
            wait_until(lambda n=n: events.count("update") == 5 * n, what="resync updates")
    assert bad == []
    assert controller.process_errors == 0
    for obj in store.list():
        assert obj["metadata"]["labels"]["to-be-transformed"] == "false"


# -- H76-H78: errors, sync state, the process loop --------------------------------------


def test_h076_a_raising_handler_is_logged_and_counted_and_processing_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    source = FakeSource()
    events = Events()

    def on_add(obj: Any, initial: bool) -> None:
        if obj["metadata"]["name"] == "bad":
            raise RuntimeError("Just panic.")
        events.on_add(obj, initial)

    store, controller = new_informer(source, ResourceEventHandlerFuncs(on_add=on_add),
                                     clock=FakeClock())
    caplog.set_level(logging.ERROR, logger="kubenb.cache.controller")
    with running(controller):
        wait_until(lambda: source.open_watches(), what="watch")
        source.add(pod("bad", data={"password": "hunter2-secret"}))
        source.add(pod("good"))
        assert name_of(events.next()[2]) == "good"
    assert controller.process_errors == 1
    assert sorted(store.list_keys()) == ["ns/bad", "ns/good"]  # the store came first
    (record,) = [r for r in caplog.records if "failed" in r.getMessage()]
    assert "'ns/bad'" in record.getMessage() and "Just panic." in record.getMessage()
    assert "hunter2" not in record.getMessage()


def test_h077_has_synced_and_last_sync_rv_of_a_controller() -> None:
    source = FakeSource()
    for name in ("a", "b"):
        source.add(pod(name))
    handled: list[str] = []
    handler = ResourceEventHandlerFuncs(on_add=lambda obj, initial: handled.append(name_of(obj)))
    _, controller = new_informer(source, handler, clock=FakeClock())
    assert not controller.has_synced()
    assert controller.last_sync_resource_version() == ""
    with running(controller):
        wait_until(controller.has_synced, what="sync")
        # the queue's has_synced waits for the pop in progress: both adds were handled
        assert sorted(handled) == ["a", "b"]
        assert controller.last_sync_resource_version() == "2"


def test_h078_process_errors_are_retried_only_with_retry_on_error() -> None:
    for retry in (False, True):
        source = FakeSource()
        source.add(pod("a"))
        source.add(pod("b"))
        fifo = DeltaFIFO(known_objects=new_store())
        calls: list[str] = []
        failed: list[str] = []

        def process(deltas: Any, initial: bool, calls: list[str] = calls,
                    failed: list[str] = failed) -> None:
            name = name_of(deltas[-1].object)
            calls.append(name)
            if name == "a" and not failed:
                failed.append(name)
                raise RuntimeError("transient")

        controller = Controller(fifo, source, process, retry_on_error=retry,
                                clock=FakeClock())
        with running(controller):
            want = 3 if retry else 2
            wait_until(lambda calls=calls, want=want: len(calls) >= want, what="pops")
        assert calls == (["a", "b", "a"] if retry else ["a", "b"])
        assert controller.process_errors == 1


def test_h078_run_closes_the_queue_on_stop_and_the_loop_returns() -> None:
    fifo = DeltaFIFO()
    controller = Controller(fifo, FakeSource(), lambda deltas, initial: None,
                            clock=FakeClock())
    with running(controller) as stop:
        wait_until(lambda: controller.reflector is not None, what="reflector")
        assert not fifo.is_closed()
        stop.set()
    assert fifo.is_closed()
    fifo.close()
    controller.process_loop()  # a closed, empty queue: returns at once


# -- H79: new_informer with a resync period ---------------------------------------------


def test_h079_plain_informer_resync_updates_every_stored_object() -> None:
    clock = FakeClock()
    source = FakeSource()
    for name in ("a", "b", "c"):
        source.add(pod(name))
    events = Events()
    store, controller = new_indexer_informer(source, events, 1.0, clock=clock)
    with running(controller):
        wait_until(lambda: events.count("add") == 3, what="adds")
        for n in (1, 2):
            wait_until(clock.has_waiters, what="resync timer")
            clock.step(1.0)
            wait_until(lambda n=n: events.count("update") == 3 * n, what="resync")
    assert sorted(store.list_keys()) == ["ns/a", "ns/b", "ns/c"]
    updates = [e for e in events.all if e[0] == "update"]
    assert all(old is new for _, old, new in updates)  # OnUpdate(obj, obj)
    assert sorted(name_of(new) for _, _, new in updates) == ["a", "a", "b", "b", "c", "c"]


def test_h079_example_new_informer_deletes_everything_it_sees() -> None:
    source = FakeSource()
    deleted: queue.Queue[str] = queue.Queue()

    def on_add(obj: Any, initial: bool) -> None:
        source.delete(obj)

    handler = ResourceEventHandlerFuncs(
        on_add=on_add,
        on_delete=lambda obj: deleted.put(meta_namespace_key_func(
            obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj)))
    _, controller = new_informer(source, handler, 0.1, clock=FakeClock())
    with running(controller):
        wait_until(lambda: source.open_watches(), what="watch")
        for name in ("a-hello", "b-controller", "c-framework"):
            source.add(pod(name))
        keys = sorted(deleted.get(timeout=5) for _ in range(3))
    assert keys == ["ns/a-hello", "ns/b-controller", "ns/c-framework"]


def test_h079_update_transitions_seen_by_an_informer() -> None:
    """client-go's TestUpdate: every observed update is FROM->TO, TO->TO or FROM->FROM."""
    source = FakeSource()
    allowed = {("from", "to"), ("to", "to"), ("from", "from")}
    bad: list[tuple[str, str]] = []
    done = threading.Semaphore(0)

    def make(name: str, check: str, final: bool) -> dict[str, Any]:
        labels = {"check": check}
        if final:
            labels["final"] = "true"
        return pod(name, labels=labels)

    def on_update(old: Any, new: Any) -> None:
        transition = (old["metadata"]["labels"]["check"], new["metadata"]["labels"]["check"])
        if transition not in allowed:
            bad.append(transition)
        if new["metadata"]["labels"].get("final") == "true":
            source.delete(new)

    handler = ResourceEventHandlerFuncs(on_update=on_update,
                                        on_delete=lambda obj: done.release())
    _, controller = new_informer(source, handler, clock=FakeClock())
    with running(controller):
        wait_until(lambda: source.open_watches(), what="watch")

        def scenario(name: str) -> None:
            source.add(make(name, "from", False))
            source.modify(make(name, "to", True))

        threads = [threading.Thread(target=scenario, args=(f"a-{i}",)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for _ in threads:
            assert done.acquire(timeout=5)
    assert bad == []
