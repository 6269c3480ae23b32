"""SharedIndexInformer against client-go's behaviours (spec section I, items 81-96,
the informer-level parts; tests/cache/test_processor.py covers the processor alone).

Scenarios mirror client-go's shared_informer_test.go over `FakeSource`, with resyncs
and backoff on a FakeClock. Where Go sleeps "to let stragglers in", these tests wait
until every listener is idle (nothing queued, nothing in flight), which proves the
same thing without a sleep. The last tests run the informer over real HTTP against
the embedded API server, with both informer queues.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

from kubenb.cache.delta_fifo import Delta, DeltaFIFO, DeltaType
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.keys import DeletedFinalStateUnknown
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.real_fifo import RealFIFO
from kubenb.cache.shared_informer import InformerStateError, SharedIndexInformer
from kubenb.cache.wait import wait_for_cache_sync
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.clock import FakeClock
from kubenb.server import EmbeddedServer
from tests.cache.fake_source import FakeSource, name_of, pod, rv_of
from tests.helpers import kubenb_threads, wait_until


class Listener:
    """client-go's testListener: records the names it is handed by adds and updates
    (and, separately, every event); `gate`, when given, blocks each call until set."""

    def __init__(self, name: str, resync_period: float = 0.0,
                 gate: threading.Event | None = None) -> None:
        self.name = name
        self.resync_period = resync_period
        self.gate = gate
        self.lock = threading.Lock()
        self.received: list[str] = []
        self.events: list[tuple[str, str, str]] = []

    def _record(self, kind: str, obj: Any) -> None:
        if self.gate is not None:
            assert self.gate.wait(10), "test gate never opened"
        inner = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        with self.lock:
            if kind != "delete":
                self.received.append(name_of(obj))
            self.events.append((kind, name_of(obj), rv_of(inner) if inner else ""))

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        self._record("add", obj)

    def on_update(self, old: Any, new: Any) -> None:
        self._record("update", new)

    def on_delete(self, obj: Any) -> None:
        self._record("delete", obj)

    def names(self) -> set[str]:
        with self.lock:
            return set(self.received)

    def reset(self) -> None:
        with self.lock:
            self.received = []
            self.events = []

    def snapshot(self) -> list[tuple[str, str, str]]:
        with self.lock:
            return list(self.events)


def idle(informer: SharedIndexInformer) -> bool:
    """Every listener has delivered all it was given."""
    return all(s["pending"] == 0 and not s["busy"] for s in informer.processor.stats())


def settle(informer: SharedIndexInformer) -> None:
    wait_until(lambda: idle(informer), what="listeners idle")


@contextmanager
def started(informer: SharedIndexInformer, sync: bool = True) -> Iterator[SharedIndexInformer]:
    """start() the informer (optionally wait for its first list); stop() and join."""
    informer.start()
    try:
        if sync:
            wait_until(informer.has_synced, what="informer sync")
        yield informer
    finally:
        informer.stop()
        assert informer.is_stopped()


def source_with(*names: str) -> FakeSource:
    source = FakeSource()
    for name in names:
        source.add(pod(name))
    return source


# -- I81-I84: wiring, late handlers, registration sync ----------------------------------


class DeltaSpy(SharedIndexInformer):
    """Records the delta types `handle_deltas` is given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.types: list[DeltaType] = []

    def handle_deltas(self, deltas: Sequence[Delta], is_in_initial_list: bool) -> None:
        self.types.extend(d.type for d in deltas)
        super().handle_deltas(deltas, is_in_initial_list)


@pytest.mark.parametrize(("queue_kind", "queue_class"),
                         [("DeltaFIFO", DeltaFIFO), ("RealFIFO", RealFIFO)])
def test_i081_informer_wiring(queue_kind: str, queue_class: type) -> None:
    clock = FakeClock()
    source = source_with("a", "b")
    informer = DeltaSpy(source, None, 30.0, queue=queue_kind, clock=clock,
                        transform=lambda obj: {**obj, "transformed": True})
    informer.add_event_handler(Listener("l"))
    with started(informer):
        controller = informer.get_controller()
        assert controller is not None and controller.reflector is not None
        assert isinstance(controller.queue, queue_class)
        assert controller.full_resync_period == informer.resync_check_period == 30.0
        assert controller.reflector.resync_period == 30.0
        assert controller.should_resync == informer.processor.should_resync
        # the initial list arrives as Replaced deltas, transformed, into the indexer
        assert informer.types == [DeltaType.REPLACED, DeltaType.REPLACED]
        assert all(o["transformed"] for o in informer.get_indexer().list())
        # known objects = the indexer: a relist that lacks "b" makes a tombstone
        wait_until(source.open_watches, what="watch")
        source.delete_drop_watch(pod("b"))
        source.reset_watch()
        wait_until(lambda: controller.reflector.state == "backoff" and clock.has_waiters(),
                   what="backoff")
        clock.step(1.601)
        wait_until(lambda: informer.get_indexer().list_keys() == ["ns/a"], what="relist")
        settle(informer)
    assert DeltaType.DELETED in informer.types
    # the tombstone is deleted from the indexer by its key (deletion-handling key func)
    assert informer.get_indexer().get_by_key("ns/b") is None


def test_i082_i083_handler_added_while_active_gets_the_cache_first() -> None:
    source = FakeSource()
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock())
    listener1 = Listener("original")
    handle1 = informer.add_event_handler(listener1)
    assert not handle1.has_synced()  # I83: not before Run
    with started(informer):
        source.add(pod("pod1"))
        wait_until(lambda: listener1.names() == {"pod1"}, what="pod1 on listener 1")
        assert handle1.has_synced()

        gate = threading.Event()
        listener2 = Listener("late", gate=gate)
        handle2 = informer.add_event_handler(listener2)
        assert not handle2.has_synced()  # its synthetic add of pod1 is not handled yet
        source.add(pod("pod2"))
        wait_until(lambda: listener1.names() == {"pod1", "pod2"}, what="pod2 on listener 1")
        assert not handle2.has_synced()
        gate.set()
        wait_until(lambda: listener2.names() == {"pod1", "pod2"}, what="listener 2")
        wait_until(handle2.has_synced, what="handle 2 synced")
        assert listener2.snapshot()[0] == ("add", "pod1", "1")  # the cache came first
        assert informer.processor.listeners() == [handle1, handle2]


def test_i083_registration_syncs_after_its_initial_adds_are_handled() -> None:
    source = source_with("a", "b", "c")
    gate = threading.Event()
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock())
    handle = informer.add_event_handler(Listener("slow", gate=gate))
    with started(informer):
        assert informer.has_synced()
        assert not handle.has_synced()  # informer synced; the handler still busy
        gate.set()
        wait_until(handle.has_synced, what="registration sync")


# -- I85-I89: resync periods -------------------------------------------------------------


def test_i085_each_listener_resyncs_on_its_own_period() -> None:
    clock = FakeClock()
    source = source_with("pod1", "pod2")
    informer = SharedIndexInformer(source, None, 1.0, clock=clock)
    listeners = [Listener("l1", 0.0), Listener("l2", 2.0), Listener("l3", 3.0)]
    for listener in listeners:
        informer.add_event_handler_with_resync_period(listener, listener.resync_period)
    l1, l2, l3 = listeners
    with started(informer):
        for listener in listeners:
            wait_until(lambda listener=listener: listener.names() == {"pod1", "pod2"},
                       what=f"{listener.name} initial list")
            listener.reset()

        wait_until(clock.has_waiters, what="resync timer")
        clock.step(2.0)
        wait_until(lambda: l2.names() == {"pod1", "pod2"}, what="l2 resync")
        settle(informer)
        assert l1.names() == set() and l3.names() == set()
        l2.reset()

        wait_until(clock.has_waiters, what="resync timer")
        clock.step(1.0)
        wait_until(lambda: l3.names() == {"pod1", "pod2"}, what="l3 resync")
        settle(informer)
        assert l1.names() == set() and l2.names() == set()
    assert all(kind == "update" for kind, _, _ in l2.snapshot() + l3.snapshot())


def test_i086_handlers_added_before_start_lower_the_check_period() -> None:
    informer = SharedIndexInformer(FakeSource(), None, 12 * 3600.0, clock=FakeClock())
    periods = [0.0, 60.0, 55.0, 5.0]
    checks = [12 * 3600.0, 60.0, 55.0, 5.0]
    handles = []
    for period, check in zip(periods, checks, strict=True):
        handles.append(informer.add_event_handler_with_resync_period(
            Listener(f"l{period}"), period))
        assert informer.resync_check_period == check
    assert [h.resync_period for h in handles] == [0.0, 60.0, 55.0, 5.0]
    assert [h.requested_resync_period for h in handles] == periods


def test_i087_requested_periods_are_clamped() -> None:
    never = SharedIndexInformer(FakeSource(), None, 0.0, clock=FakeClock())
    handle = never.add_event_handler_with_resync_period(Listener("a"), 5.0)
    assert (handle.requested_resync_period, handle.resync_period) == (5.0, 0.0)
    assert never.resync_check_period == 0.0  # an informer that never resyncs

    informer = SharedIndexInformer(FakeSource(), None, 10.0, clock=FakeClock())
    small = informer.add_event_handler_with_resync_period(Listener("b"), 0.5)
    assert (small.requested_resync_period, small.resync_period) == (1.0, 1.0)
    assert informer.resync_check_period == 1.0
    zero = informer.add_event_handler_with_resync_period(Listener("c"), 0.0)
    assert zero.resync_period == 0.0

    started_informer = SharedIndexInformer(FakeSource(), None, 10.0, clock=FakeClock())
    with started(started_informer):
        late = started_informer.add_event_handler_with_resync_period(Listener("d"), 3.0)
    assert (late.requested_resync_period, late.resync_period) == (10.0, 10.0)
    assert started_informer.resync_check_period == 10.0


def test_i088_the_reflector_resyncs_only_when_some_listener_is_due() -> None:
    clock = FakeClock()
    informer = SharedIndexInformer(source_with("a"), None, 1.0, clock=clock)
    quiet = Listener("quiet")
    informer.add_event_handler_with_resync_period(quiet, 0.0)
    with started(informer):
        reflector = informer.get_controller().reflector
        for _ in range(3):
            wait_until(clock.has_waiters, what="resync timer")
            clock.step(1.0)
        wait_until(clock.has_waiters, what="resync timer")
        assert reflector.stats().get("resyncs", 0) == 0

        due = Listener("due")
        informer.add_event_handler_with_resync_period(due, 1.0)
        wait_until(lambda: due.names() == {"a"}, what="synthetic add")
        due.reset()
        clock.step(1.0)
        wait_until(lambda: due.names() == {"a"}, what="resync of the due listener")
        settle(informer)
        assert reflector.stats()["resyncs"] == 1
    assert [kind for kind, _, _ in quiet.snapshot()] == ["add"]


def test_i089_watch_disruption_sync_updates_reach_only_syncing_listeners() -> None:
    clock = FakeClock()
    source = FakeSource()
    source.add(pod("pod1"))
    source.add(pod("pod2"))
    informer = SharedIndexInformer(source, None, 1.0, clock=clock)
    no_resync = Listener("noResync", 0.0)
    resync = Listener("resync", 1.0)
    for listener in (no_resync, resync):
        informer.add_event_handler_with_resync_period(listener, listener.resync_period)
    with started(informer):
        for listener in (no_resync, resync):
            wait_until(lambda listener=listener: listener.names() == {"pod1", "pod2"},
                       what="initial list")
        wait_until(source.open_watches, what="watch")  # else it would replay the log
        # pod3 added and pod2 bumped without watch events: only a relist shows them
        source.add_drop_watch(pod("pod3"))
        source.modify_drop_watch(pod("pod2"))
        settle(informer)
        assert no_resync.names() == resync.names() == {"pod1", "pod2"}
        no_resync.reset()
        resync.reset()

        wait_until(clock.has_waiters, what="resync timer")
        clock.step(1.0)  # should_resync marks only the 1 s listener as syncing
        reflector = informer.get_controller().reflector
        wait_until(lambda: reflector.stats().get("resyncs") == 1, what="resync tick")
        source.reset_watch()  # connection loss: the resume gets 410
        wait_until(lambda: reflector.state == "backoff" and clock.has_waiters(),
                   what="backoff")
        clock.step(1.601)
        wait_until(lambda: no_resync.names() == {"pod2", "pod3"}, what="relist no-resync")
        wait_until(lambda: resync.names() == {"pod1", "pod2", "pod3"}, what="relist resync")
        settle(informer)
        assert no_resync.names() == {"pod2", "pod3"}


# -- I90-I91 and the brief: slow and failing handlers -----------------------------------


def test_i090_slow_handler_delays_neither_the_cache_nor_other_handlers() -> None:
    source = FakeSource()
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock())
    gate = threading.Event()
    slow = Listener("slow", gate=gate)
    fast = Listener("fast")
    informer.add_event_handler(slow)
    informer.add_event_handler(fast)
    with started(informer):
        for i in range(50):
            source.add(pod(f"p{i}"))
        for i in range(0, 50, 5):
            source.modify(pod(f"p{i}", labels={"v": "2"}))
        for i in range(0, 50, 7):
            source.delete(pod(f"p{i}"))
        wait_until(lambda: len(fast.snapshot()) == 50 + 10 + 8, what="fast handler")
        assert len(informer.get_indexer().list_keys()) == 42  # the cache is current
        assert slow.snapshot() == []  # still blocked in its first call
        assert informer.processor.stats()[0]["pending"] > 0
        gate.set()
        wait_until(lambda: len(slow.snapshot()) == 68, what="slow handler after release")
        assert slow.snapshot() == fast.snapshot()  # every notification, in order


def test_i091_raising_handler_is_logged_counted_and_the_informer_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    source = FakeSource()
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock())
    good = Listener("good")
    seen: list[str] = []

    def on_add(obj: Any, initial: bool) -> None:
        seen.append(name_of(obj))
        if name_of(obj).startswith("bad"):
            raise RuntimeError(f"cannot handle {name_of(obj)}")

    bad_handle = informer.add_event_handler(ResourceEventHandlerFuncs(on_add=on_add))
    informer.add_event_handler(good)
    caplog.set_level(logging.ERROR, logger="kubenb.cache.processor")
    with started(informer):
        for name in ("ok1", "bad1", "ok2", "bad2", "ok3"):
            source.add(pod(name, data={"token": "s3cr3t-value"}))
        wait_until(lambda: len(seen) == 5, what="the failing handler's calls")
        wait_until(lambda: len(good.names()) == 5, what="the other handler")
        settle(informer)
        assert informer.has_synced()
        assert informer.handler_errors == 2
        assert bad_handle.stats()["handler_errors"] == 2
        assert len(informer.get_indexer().list_keys()) == 5
    assert seen == ["ok1", "bad1", "ok2", "bad2", "ok3"]
    messages = [r.getMessage() for r in caplog.records]
    assert sum("raised" in m for m in messages) == 2
    assert any("ns/bad1" in m for m in messages)
    assert not any("s3cr3t" in m for m in messages)


# -- I92-I96: transform, removal, lifecycle, indexers, waiting ------------------------


def test_i092_transform_applies_and_cannot_change_after_start() -> None:
    source = source_with("pod1", "pod2")

    def upper(obj: Any) -> Any:
        obj["metadata"]["name"] = obj["metadata"]["name"].upper()
        return obj

    informer = SharedIndexInformer(source, None, 1.0, clock=FakeClock())
    informer.set_transform(upper)
    listener = Listener("transformer")
    informer.add_event_handler(listener)
    with started(informer):
        wait_until(lambda: listener.names() == {"POD1", "POD2"}, what="transformed names")
        with pytest.raises(InformerStateError, match="informer has already started"):
            informer.set_transform(None)
        with pytest.raises(InformerStateError, match="informer has already started"):
            informer.set_watch_error_handler(lambda r, err: None)


def test_i093_removing_handlers() -> None:
    informer = SharedIndexInformer(source_with("pod1"), None, 1.0, clock=FakeClock())
    other = SharedIndexInformer(source_with("pod1"), None, 1.0, clock=FakeClock())
    handle1 = informer.add_event_handler(ResourceEventHandlerFuncs())
    handle2 = informer.add_event_handler(ResourceEventHandlerFuncs())
    assert len(informer.processor) == 2 and len(other.processor) == 0
    other.remove_event_handler(handle1)  # foreign: a no-op
    assert informer.processor.listeners() == [handle1, handle2]
    informer.remove_event_handler(handle2)
    assert informer.processor.listeners() == [handle1]
    informer.remove_event_handler(handle1)
    informer.remove_event_handler(handle1)  # twice: no error
    assert len(informer.processor) == 0

    same = ResourceEventHandlerFuncs()
    reg1 = informer.add_event_handler(same)
    reg2 = informer.add_event_handler(same)
    assert reg1 is not reg2 and len(informer.processor) == 2
    informer.remove_event_handler(reg1)
    assert informer.processor.listeners() == [reg2]


def test_i093_no_events_after_removal_while_active() -> None:
    source = FakeSource()
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock())
    removed, kept = Listener("removed"), Listener("kept")
    handle = informer.add_event_handler(removed)
    informer.add_event_handler(kept)
    with started(informer):
        source.add(pod("pod1"))
        wait_until(lambda: removed.names() == {"pod1"}, what="pod1")
        informer.remove_event_handler(handle)
        assert handle.is_stopped()
        assert handle not in informer.processor.listeners()
        source.add(pod("pod2"))
        wait_until(lambda: kept.names() == {"pod1", "pod2"}, what="pod2 on the kept handler")
    assert removed.names() == {"pod1"}


def test_i094_informer_lifecycle(caplog: pytest.LogCaptureFixture) -> None:
    informer = SharedIndexInformer(source_with("pod1"), None, 1.0, clock=FakeClock())
    listener = Listener("listener")
    handle = informer.add_event_handler_with_resync_period(listener, 0.0)
    assert not informer.is_started() and not informer.is_stopped()
    assert not informer.has_synced() and informer.last_sync_resource_version() == ""
    with started(informer):
        wait_until(lambda: listener.names() == {"pod1"}, what="initial list")
        assert informer.is_started() and not informer.is_stopped()
        assert informer.last_sync_resource_version() == "1"
    assert informer.is_stopped() and informer.is_started()
    with pytest.raises(InformerStateError) as refused:
        informer.add_event_handler_with_resync_period(Listener("late"), 0.0)
    assert str(refused.value).endswith(
        "was not added to shared informer because it has stopped already")
    informer.remove_event_handler(handle)  # allowed, and a no-op
    caplog.set_level(logging.WARNING, logger="kubenb.cache.shared_informer")
    informer.run(threading.Event())  # a second run returns at once
    assert any("run more than once is not allowed" in r.getMessage() for r in caplog.records)


def labels_index(obj: Any) -> list[str]:
    return sorted((obj["metadata"].get("labels") or {}).keys())


def test_i095_add_indexers_before_and_after_start_not_after_stop() -> None:
    source = FakeSource()
    source.add(pod("pod1", labels={"a": "a-val", "b": "b-val1"}))
    source.add(pod("pod2", labels={"b": "b-val2"}))
    informer = SharedIndexInformer(source, None, 1.0, clock=FakeClock())
    informer.add_indexers({"labels": labels_index})
    indexer = informer.get_indexer()
    with started(informer):
        assert [name_of(o) for o in indexer.by_index("labels", "a")] == ["pod1"]
        source.add(pod("pod3", labels={"a": "a-val2"}))
        wait_until(lambda: len(indexer.by_index("labels", "a")) == 2, what="pod3 indexed")
        informer.add_indexers({"labels-again": labels_index})
        assert sorted(name_of(o) for o in indexer.by_index("labels-again", "a")) == [
            "pod1", "pod3"]
        assert sorted(indexer.list_index_func_values("labels")) == ["a", "b"]
        assert sorted(indexer.list_index_func_values("labels-again")) == ["a", "b"]
    with pytest.raises(InformerStateError,
                       match="indexer was not added because it has stopped already"):
        informer.add_indexers({"late": labels_index})


def test_i096_wait_for_cache_sync_polls_every_100ms_on_the_clock() -> None:
    clock = FakeClock()
    calls = [0]
    ready = threading.Event()

    def synced() -> bool:
        calls[0] += 1
        return ready.is_set()

    result: list[bool] = []
    stop = threading.Event()
    waiter = threading.Thread(target=lambda: result.append(
        wait_for_cache_sync(stop, lambda: True, synced, clock=clock)))
    waiter.start()
    for n in (1, 2, 3):
        wait_until(lambda n=n: calls[0] == n and clock.has_waiters(), what=f"poll {n}")
        if n == 3:
            ready.set()
        clock.step(0.1)
    waiter.join(5)
    assert result == [True] and calls[0] == 4

    stopped: list[bool] = []
    waiter = threading.Thread(target=lambda: stopped.append(
        wait_for_cache_sync(stop, synced, clock=clock)))
    ready.clear()
    waiter.start()
    wait_until(clock.has_waiters, what="poll wait")
    stop.set()
    waiter.join(5)
    assert stopped == [False]


def test_i096_wait_for_cache_sync_with_an_informer_and_its_registration() -> None:
    informer = SharedIndexInformer(source_with("a", "b"), None, 0.0, clock=FakeClock())
    handle = informer.add_event_handler(Listener("l"))
    with started(informer, sync=False):
        assert wait_for_cache_sync(threading.Event(), informer.has_synced, handle,
                                   timeout=5)
        assert informer.wait_for_cache_sync(timeout=5)


def test_g064_list_error_reaches_the_informer_watch_error_handler() -> None:
    source = source_with("pod1")
    source.fail_list(RuntimeError("Access Denied"))
    informer = SharedIndexInformer(source, None, 1.0, clock=FakeClock())
    errors: list[BaseException] = []
    informer.set_watch_error_handler(lambda reflector, err: errors.append(err))
    with started(informer, sync=False):
        wait_until(lambda: errors, what="error handler")
    assert "Access Denied" in str(errors[0])


def test_stop_leaves_no_kubenb_thread_behind() -> None:
    before = {t.name for t in kubenb_threads()}
    source = source_with("a")
    informer = SharedIndexInformer(source, None, 1.0, clock=FakeClock())
    for i in range(3):
        informer.add_event_handler(Listener(f"l{i}"))
    with started(informer):
        names = {t.name for t in kubenb_threads()} - before
        assert any(n.startswith("kubenb-informer") for n in names)
        assert sum(n.startswith("kubenb-listener") for n in names) == 3
        assert any(n.startswith("kubenb-reflector") for n in names)
    wait_until(lambda: {t.name for t in kubenb_threads()} <= before, what="threads ended")


# -- over HTTP against the embedded API server -----------------------------------------


def configmap(name: str, value: str = "1") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
            "data": {"v": value}}


def server_state(client: ResourceClient) -> dict[str, str]:
    listed = client.list()
    return {f"default/{o['metadata']['name']}": o["metadata"]["resourceVersion"]
            for o in listed["items"]}


def cache_state(informer: SharedIndexInformer) -> dict[str, str]:
    return {key: rv_of(informer.get_indexer().get_by_key(key))
            for key in informer.get_indexer().list_keys()}


@pytest.mark.parametrize("queue_kind", ["DeltaFIFO", "RealFIFO"])
def test_informer_over_http_syncs_resumes_and_relists_after_410(
        server: EmbeddedServer, queue_kind: str) -> None:
    dynamic = DynamicClient(load_config(server.kubeconfig_path))
    configmaps = dynamic.resource("v1", "configmaps").namespace("default")
    for name in ("a", "b", "c"):
        configmaps.create(configmap(name))
    clock = FakeClock()
    informer = SharedIndexInformer(ListWatch.from_client(configmaps), None, 0.0,
                                   queue=queue_kind, clock=clock)
    listener = Listener("http")
    initial: list[tuple[str, bool]] = []
    informer.add_event_handler(listener)
    informer.add_event_handler(ResourceEventHandlerFuncs(
        on_add=lambda obj, flag: initial.append((name_of(obj), flag))))
    with started(informer):
        reflector = informer.get_controller().reflector
        settle(informer)
        assert sorted(initial) == [("a", True), ("b", True), ("c", True)]
        assert cache_state(informer) == server_state(configmaps)

        # add / update / delete reach the handlers
        configmaps.create(configmap("d"))
        a = configmaps.get("a")
        a["data"]["v"] = "2"
        configmaps.update(a)
        configmaps.delete("b")
        wait_until(lambda: ("delete", "b") in [e[:2] for e in listener.snapshot()],
                   what="delete of b")
        settle(informer)
        assert [e[:2] for e in listener.snapshot()[3:]] == [
            ("add", "d"), ("update", "a"), ("delete", "b")]
        assert ("d", False) in initial
        assert cache_state(informer) == server_state(configmaps)

        # a dropped watch is resumed from the last RV, with no relist
        rv_before = informer.last_sync_resource_version()
        assert server.drop_watches() >= 1
        wait_until(lambda: reflector.stats().get("resumes", 0) >= 1
                   and server.storage.watch_count >= 1, what="resume")
        configmaps.create(configmap("e"))
        wait_until(lambda: "e" in listener.names(), what="event after resume")
        stats = reflector.stats()
        assert (stats["lists"], stats["watches"]) == (1, 2)
        assert int(informer.last_sync_resource_version()) > int(rv_before)

        # compaction while the watch is down: the resume gets 410, a relist converges
        listener.reset()
        server.faults.latency(30.0, verb="watch")
        server.drop_watches()
        wait_until(lambda: server.faults.stats()["delayed"] >= 1, what="delayed resume")
        configmaps.delete("c")
        configmaps.create(configmap("f"))
        d = configmaps.get("d")
        d["data"]["v"] = "3"
        configmaps.update(d)
        server.compact()
        server.faults.clear()  # the held resume now meets the compacted history
        wait_until(lambda: reflector.state == "backoff" and clock.has_waiters(),
                   what="backoff after 410")
        assert reflector.stats()["gone"] == 1
        clock.step(2.0)
        wait_until(lambda: reflector.stats()["lists"] == 2, what="relist")
        wait_until(lambda: cache_state(informer) == server_state(configmaps),
                   what="cache converged")
        settle(informer)
    events = listener.snapshot()
    assert ("delete", "c") in [e[:2] for e in events]  # a tombstone for the missed delete
    assert ("add", "f") in [e[:2] for e in events]
    assert ("update", "d", server_state(configmaps)["default/d"]) in events
    assert informer.last_sync_resource_version() == configmaps.list()["metadata"][
        "resourceVersion"]
