"""The shared processor and its listeners (spec items 82-91 and 93 at the processor
level; the SharedIndexInformer tests cover the same items end to end).

Resync timing is driven with a FakeClock; the only real-time waiting is `wait_until`
for a listener thread to catch up.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from kubenb.cache import processor as processor_module
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.keys import DeletedFinalStateUnknown
from kubenb.cache.processor import (
    MINIMUM_RESYNC_PERIOD,
    AddNotification,
    DeleteNotification,
    ProcessorListener,
    SharedProcessor,
    UpdateNotification,
    adjust_requested_resync_period,
    determine_resync_period,
)
from kubenb.clock import FakeClock
from kubenb.errors import KubenbError
from tests.helpers import kubenb_threads, wait_until


def pod(name: str, rv: str = "1", **extra: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": rv}, **extra}


class Recorder:
    """Records what it is given; `gate`, when set up, blocks each call until opened."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.events: list[tuple[Any, ...]] = []
        self.lock = threading.Lock()
        self.gate = gate
        self.entered = threading.Event()

    def _record(self, event: tuple[Any, ...]) -> None:
        self.entered.set()
        if self.gate is not None:
            assert self.gate.wait(10), "test gate never opened"
        with self.lock:
            self.events.append(event)

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        self._record(("add", obj["metadata"]["name"], is_in_initial_list))

    def on_update(self, old: Any, new: Any) -> None:
        self._record(("update", old["metadata"]["name"], new["metadata"]["resourceVersion"]))

    def on_delete(self, obj: Any) -> None:
        if isinstance(obj, DeletedFinalStateUnknown):
            obj = obj.obj
        self._record(("delete", obj["metadata"]["name"]))

    def names(self, kind: str | None = None) -> set[str]:
        with self.lock:
            return {e[1] for e in self.events if kind is None or e[0] == kind}

    def count(self) -> int:
        with self.lock:
            return len(self.events)


def make_listener(
    handler: Any = None,
    requested: float = 0.0,
    period: float = 0.0,
    clock: FakeClock | None = None,
    upstream: Any = lambda: True,
    name: str = "",
    **kw: Any,
) -> ProcessorListener:
    return ProcessorListener(
        handler if handler is not None else Recorder(),
        requested,
        period,
        clock or FakeClock(),
        upstream,
        name=name,
        **kw,
    )


@pytest.fixture
def processor():
    p = SharedProcessor(FakeClock())
    yield p
    assert p.stop(timeout=5)


# ----------------------------------------------------------- listener basics


def test_notifications_are_frozen_value_objects():
    a = AddNotification(pod("a"), True)
    assert a == AddNotification(pod("a"), True)
    with pytest.raises(AttributeError):
        a.new_obj = None  # type: ignore[misc]
    assert AddNotification(pod("a")).is_in_initial_list is False
    assert UpdateNotification(pod("a"), pod("a", "2")).new_obj["metadata"]["resourceVersion"] == "2"
    assert DeleteNotification(pod("a")).old_obj == pod("a")


def test_listener_delivers_in_order_on_a_named_kubenb_thread():
    seen_threads: list[str] = []
    rec = Recorder()
    handler = ResourceEventHandlerFuncs(
        on_add=lambda obj, initial: (
            seen_threads.append(threading.current_thread().name),
            rec.on_add(obj, initial),
        ),
        on_update=rec.on_update,
        on_delete=rec.on_delete,
    )
    listener = make_listener(handler, name="pods-1")
    listener.add(AddNotification(pod("a")))
    listener.add(UpdateNotification(pod("a"), pod("a", "2")))
    listener.add(DeleteNotification(pod("a", "2")))
    assert rec.count() == 0  # nothing runs before start
    listener.start()
    listener.start()  # idempotent
    wait_until(lambda: rec.count() == 3)
    assert rec.events == [("add", "a", False), ("update", "a", "2"), ("delete", "a")]
    assert seen_threads == ["kubenb-listener-pods-1"]
    stats = listener.stats()
    assert (stats["adds"], stats["updates"], stats["deletes"]) == (1, 1, 1)
    assert stats["handler_errors"] == 0 and stats["pending"] == 0 and stats["running"]
    listener.stop()
    assert listener.join(5)
    assert not listener.stats()["running"] and listener.is_stopped()


def test_listener_stop_drops_pending_and_later_adds_and_cannot_restart():
    gate = threading.Event()
    rec = Recorder(gate)
    listener = make_listener(rec)
    listener.start()
    for i in range(5):
        listener.add(AddNotification(pod(f"p{i}")))
    assert rec.entered.wait(5)  # the handler holds p0
    listener.stop()
    listener.add(AddNotification(pod("late")))
    gate.set()
    assert listener.join(5)
    assert rec.names() == {"p0"}  # the call in progress finished; the rest was dropped
    with pytest.raises(KubenbError, match="cannot be started again"):
        listener.start()


def test_listener_requires_a_real_handler():
    with pytest.raises(KubenbError, match="has no on_add"):
        make_listener(lambda obj: None)


def test_listener_names_default_to_a_counter():
    a, b = make_listener(), make_listener()
    assert a.name != b.name and a.name.isdigit()
    assert "ProcessorListener" in repr(a)


# ---------------------------------------------------------------------- I.82


def test_i082_synthetic_initial_adds_count_in_has_synced():
    gate = threading.Event()
    rec = Recorder(gate)
    listener = make_listener(rec)
    listener.start()
    for name in ("pod1", "pod2", "pod3"):
        listener.add(AddNotification(pod(name), is_in_initial_list=True))
    assert not listener.has_synced()
    assert rec.entered.wait(5)
    assert not listener.has_synced()  # the handler has not returned yet
    gate.set()
    wait_until(listener.has_synced, what="the initial adds to be handled")
    assert rec.names() == {"pod1", "pod2", "pod3"}
    assert all(e[2] is True for e in rec.events)
    listener.stop()
    listener.join(5)


def test_i082_handler_added_while_active_sees_existing_then_new(processor):
    # TestAddWhileActive at the processor level: the informer queues synthetic adds
    # for what its indexer holds, then later events are distributed as usual.
    rec1 = Recorder()
    h1 = processor.add_listener(make_listener(rec1, name="h1"))
    processor.start()
    processor.distribute(AddNotification(pod("pod1"), True), False)
    wait_until(lambda: rec1.count() == 1)

    gate = threading.Event()
    rec2 = Recorder(gate)
    h2 = make_listener(rec2, name="h2")
    processor.add_listener(h2)
    h2.add(AddNotification(pod("pod1"), True))  # what the informer does for its indexer
    assert not h2.has_synced()
    processor.distribute(AddNotification(pod("pod2"), False), False)
    gate.set()
    wait_until(lambda: rec2.count() == 2 and rec1.count() == 2)
    assert h2.has_synced() and h1.has_synced()
    assert rec2.events == [("add", "pod1", True), ("add", "pod2", False)]
    assert rec1.events == [("add", "pod1", True), ("add", "pod2", False)]


# ---------------------------------------------------------------------- I.83


def test_i083_has_synced_needs_upstream_and_every_initial_add():
    upstream = {"synced": False}
    rec = Recorder()
    listener = make_listener(rec, upstream=lambda: upstream["synced"])
    assert not listener.has_synced()  # before run: upstream not synced
    listener.add(AddNotification(pod("pod1"), True))
    listener.start()
    wait_until(lambda: rec.count() == 1)
    assert not listener.has_synced()
    upstream["synced"] = True
    assert listener.has_synced()
    listener.add(AddNotification(pod("pod2"), False))  # not initial: no effect
    assert listener.has_synced()
    listener.stop()
    listener.join(5)


def test_i083_pending_initial_adds_dropped_by_stop_never_sync():
    gate = threading.Event()
    listener = make_listener(Recorder(gate))
    listener.start()
    listener.add(AddNotification(pod("a"), True))
    listener.add(AddNotification(pod("b"), True))
    listener.stop()
    gate.set()
    listener.join(5)
    assert not listener.has_synced()


# ------------------------------------------------------------------ I.85-88


def resync_all(p: SharedProcessor, objs: list[dict[str, Any]]) -> bool:
    """What the informer does at a resync tick: ask, and if due, send sync updates."""
    if not p.should_resync():
        return False
    for obj in objs:
        p.distribute(UpdateNotification(obj, obj), sync=True)
    return True


def test_i085_each_listener_has_its_own_resync_period():
    clock = FakeClock()
    p = SharedProcessor(clock)
    check = 1.0
    recs = [Recorder() for _ in range(3)]
    listeners = []
    for rec, requested in zip(recs, (0.0, 2.0, 3.0), strict=True):
        requested, check = adjust_requested_resync_period(requested, check, started=False)
        lst = make_listener(rec, requested, determine_resync_period(requested, check), clock)
        listeners.append(p.add_listener(lst))
    p.start()
    objs = [pod("pod1"), pod("pod2")]
    for obj in objs:
        p.distribute(AddNotification(obj, True), sync=False)
    wait_until(lambda: all(r.count() == 2 for r in recs))
    assert all(r.names("add") == {"pod1", "pod2"} for r in recs)

    clock.step(1.0)
    assert resync_all(p, objs) is False  # nobody due after 1 s

    clock.step(1.0)  # t=2: listener 2 is due
    assert resync_all(p, objs) is True
    wait_until(lambda: recs[1].count() == 4)
    assert recs[1].names("update") == {"pod1", "pod2"}
    assert recs[0].names("update") == set() and recs[2].names("update") == set()

    clock.step(1.0)  # t=3: listener 3 is due, listener 2 next at 4
    assert resync_all(p, objs) is True
    wait_until(lambda: recs[2].count() == 4)
    assert recs[1].count() == 4
    assert recs[0].names("update") == set()

    clock.step(1.0)  # t=4: listener 2 again
    assert resync_all(p, objs) is True
    wait_until(lambda: recs[1].count() == 6)
    assert recs[2].count() == 4 and recs[0].count() == 2
    assert p.stop(timeout=5)


def test_i086_handlers_added_before_start_lower_the_check_period():
    clock = FakeClock()
    p = SharedProcessor(clock)
    check = 12 * 3600.0
    checks = []
    listeners = []
    for requested in (0.0, 60.0, 55.0, 5.0):
        requested, new_check = adjust_requested_resync_period(requested, check, started=False)
        if new_check != check:
            check = new_check
            p.resync_check_period_changed(check)
        checks.append(check)
        lst = make_listener(None, requested, determine_resync_period(requested, check), clock)
        listeners.append(p.add_listener(lst))
    assert checks == [12 * 3600.0, 60.0, 55.0, 5.0]
    assert [lst.resync_period for lst in listeners] == [0.0, 60.0, 55.0, 5.0]
    assert [lst.requested_resync_period for lst in listeners] == [0.0, 60.0, 55.0, 5.0]


def test_i086_check_period_change_rederives_from_each_request():
    clock = FakeClock()
    p = SharedProcessor(clock)
    a = p.add_listener(make_listener(None, 30.0, 30.0, clock))
    b = p.add_listener(make_listener(None, 0.0, 0.0, clock))
    p.resync_check_period_changed(60.0)  # raised above a's request
    assert (a.resync_period, a.requested_resync_period) == (60.0, 30.0)
    p.resync_check_period_changed(10.0)
    assert a.resync_period == 30.0 and b.resync_period == 0.0
    p.resync_check_period_changed(0.0)  # the informer stops resyncing
    assert a.resync_period == 0.0


@pytest.mark.parametrize(
    ("requested", "check", "started", "expected"),
    [
        (0.0, 10.0, False, (0.0, 10.0)),
        (0.0, 10.0, True, (0.0, 10.0)),
        (0.2, 0.0, False, (MINIMUM_RESYNC_PERIOD, 0.0)),
        (0.5, 30.0, False, (1.0, 1.0)),  # before start: lowers the check period
        (0.5, 30.0, True, (30.0, 30.0)),  # after start: raised to the check period
        (5.0, 30.0, True, (30.0, 30.0)),
        (45.0, 30.0, True, (45.0, 30.0)),
        (45.0, 30.0, False, (45.0, 30.0)),
    ],
)
def test_i087_clamping_of_requested_periods(requested, check, started, expected):
    assert adjust_requested_resync_period(requested, check, started) == expected


@pytest.mark.parametrize(
    ("desired", "check", "expected"),
    [(0.0, 5.0, 0.0), (10.0, 0.0, 0.0), (3.0, 5.0, 5.0), (7.0, 5.0, 7.0), (5.0, 5.0, 5.0)],
)
def test_i087_determine_resync_period(desired, check, expected):
    assert determine_resync_period(desired, check) == expected


def test_i087_negative_request_is_a_clear_error():
    with pytest.raises(KubenbError, match="resync period must be >= 0 seconds, got -1"):
        adjust_requested_resync_period(-1, 10, False)


def test_i088_listener_due_logic():
    clock = FakeClock(100.0)
    lst = make_listener(None, 10.0, 10.0, clock)
    assert lst.next_resync == 110.0  # scheduled at creation from clock.now()
    assert not lst.should_resync(109.999)
    assert lst.should_resync(110.0)  # "now >= next" (After || Equal)
    lst.determine_next_resync(110.0)
    assert lst.next_resync == 120.0
    lst.set_resync_period(5.0)
    assert lst.next_resync == 120.0  # a new period does not move the next resync
    assert lst.should_resync(120.0)
    never = make_listener(None, 0.0, 0.0, clock)
    assert not never.should_resync(1e12)


def test_i088_should_resync_marks_due_listeners_and_reschedules_them():
    clock = FakeClock()
    p = SharedProcessor(clock)
    fast = p.add_listener(make_listener(None, 2.0, 2.0, clock))
    slow = p.add_listener(make_listener(None, 5.0, 5.0, clock))
    none = p.add_listener(make_listener(None, 0.0, 0.0, clock))
    assert all(p.is_syncing(x) for x in (fast, slow, none))  # new listeners start syncing
    assert p.should_resync() is False
    assert not any(p.is_syncing(x) for x in (fast, slow, none))
    clock.step(2.0)
    assert p.should_resync() is True
    assert p.is_syncing(fast) and not p.is_syncing(slow) and not p.is_syncing(none)
    assert fast.next_resync == 4.0 and slow.next_resync == 5.0
    clock.step(3.0)  # t=5: both due; fast was due at 4 and is late, which is fine
    assert p.should_resync() is True
    assert p.is_syncing(fast) and p.is_syncing(slow)
    assert fast.next_resync == 7.0 and slow.next_resync == 10.0
    assert p.is_syncing(make_listener()) is False  # not registered


# ---------------------------------------------------------------------- I.89


def test_i089_sync_notifications_reach_only_syncing_listeners(processor):
    clock = processor._clock
    r0, r1 = Recorder(), Recorder()
    processor.add_listener(make_listener(r0, 0.0, 0.0, clock, name="no-resync"))
    processor.add_listener(make_listener(r1, 1.0, 1.0, clock, name="resync-1s"))
    processor.start()
    p1, p2 = pod("pod1", "1"), pod("pod2", "2")
    for obj in (p1, p2):
        processor.distribute(AddNotification(obj, True), sync=False)
    wait_until(lambda: r0.count() == 2 and r1.count() == 2)

    clock.step(1.0)
    assert processor.should_resync() is True  # only the 1 s listener is due
    # A relist: pod3 is new, pod2 changed RV (a real update), pod1 is unchanged
    # (a Replaced delta with the same RV is a sync update).
    processor.distribute(UpdateNotification(p1, p1), sync=True)
    processor.distribute(UpdateNotification(p2, pod("pod2", "4")), sync=False)
    processor.distribute(AddNotification(pod("pod3", "5"), False), sync=False)
    wait_until(lambda: r0.count() == 4 and r1.count() == 5)
    assert r0.events[2:] == [("update", "pod2", "4"), ("add", "pod3", False)]
    assert r1.events[2:] == [
        ("update", "pod1", "1"),
        ("update", "pod2", "4"),
        ("add", "pod3", False),
    ]


def test_i089_deletes_and_adds_go_to_every_listener_even_when_none_syncs(processor):
    recs = [Recorder(), Recorder()]
    for rec in recs:
        processor.add_listener(make_listener(rec))
    processor.should_resync()  # nobody due: nobody syncing
    processor.start()
    processor.distribute(UpdateNotification(pod("a"), pod("a")), sync=True)  # dropped
    processor.distribute(DeleteNotification(DeletedFinalStateUnknown("ns/a", pod("a"))), False)
    wait_until(lambda: all(r.count() == 1 for r in recs))
    assert all(r.events == [("delete", "a")] for r in recs)


# ---------------------------------------------------------------------- I.90


def test_i090_a_blocked_handler_blocks_neither_distribute_nor_other_listeners(processor):
    gate = threading.Event()
    slow, fast = Recorder(gate), Recorder()
    slow_l = processor.add_listener(make_listener(slow, name="slow"))
    processor.add_listener(make_listener(fast, name="fast"))
    processor.start()
    n = 20_000  # far past client-go's initial ring buffer (INITIAL_BUFFER_SIZE)
    objs = [pod(f"p{i}", str(i)) for i in range(n)]
    for obj in objs:
        processor.distribute(AddNotification(obj), sync=False)  # returns at once
    assert slow.entered.wait(5)
    wait_until(lambda: fast.count() == n, timeout=30, what="the fast listener")
    assert slow.count() == 0
    assert slow_l.pending() >= n - 1
    gate.set()
    wait_until(lambda: slow.count() == n, timeout=30, what="the slow listener to drain")
    assert [e[1] for e in slow.events] == [f"p{i}" for i in range(n)]
    assert [e[1] for e in fast.events] == [f"p{i}" for i in range(n)]
    assert slow_l.stats()["pending"] == 0 and slow_l.stats()["adds"] == n


# ---------------------------------------------------------------------- I.91


def test_i091_raising_handler_is_logged_counted_skipped_and_delivery_goes_on(caplog):
    seen: list[str] = []
    errors: list[tuple[BaseException, Any]] = []

    def on_add(obj: Any, initial: bool) -> None:
        if obj["metadata"]["name"] == "bad":
            raise ValueError("handler bug")
        seen.append(obj["metadata"]["name"])

    secret = pod("bad", data={"password": "hunter2-SECRET"})
    listener = make_listener(
        ResourceEventHandlerFuncs(on_add=on_add),
        name="flaky",
        on_error=lambda exc, n: errors.append((exc, n)),
    )
    with caplog.at_level(logging.ERROR, logger="kubenb.cache.processor"):
        listener.start()
        listener.add(AddNotification(pod("good1"), True))
        listener.add(AddNotification(secret, True))
        listener.add(AddNotification(pod("good2"), True))
        wait_until(lambda: len(seen) == 2)
    assert seen == ["good1", "good2"]  # skipped at once, no 1 s pause as in Go
    assert listener.stats()["handler_errors"] == 1
    assert isinstance(listener.last_error, ValueError)
    assert len(errors) == 1 and errors[0][1] == AddNotification(secret, True)
    record = next(r for r in caplog.records if r.name == "kubenb.cache.processor")
    text = record.getMessage()
    assert "flaky" in text and "ns/bad" in text and "AddNotification" in text
    assert record.exc_info is not None and record.exc_info[0] is ValueError
    assert "hunter2" not in caplog.text  # the object's content is never logged
    # The initial add that raised still counts as handled, so the handle syncs.
    assert listener.has_synced()
    listener.stop()
    listener.join(5)


def test_i091_a_raising_on_error_callback_is_logged_too(caplog):
    def boom(*args: Any) -> None:
        raise RuntimeError("callback bug")

    def on_delete(obj: Any) -> None:
        raise KeyError("x")

    seen: list[str] = []
    handler = ResourceEventHandlerFuncs(on_add=lambda obj: seen.append("ok"), on_delete=on_delete)
    listener = make_listener(handler, on_error=boom)
    with caplog.at_level(logging.ERROR, logger="kubenb.cache.processor"):
        listener.start()
        listener.add(DeleteNotification(pod("a")))
        listener.add(AddNotification(pod("b")))
        wait_until(lambda: seen == ["ok"])
    assert "on_error callback raised" in caplog.text
    listener.stop()
    listener.join(5)


# ---------------------------------------------------------------------- I.93


def test_i093_removing_listeners(processor):
    recs = [Recorder(), Recorder()]
    handles = [processor.add_listener(make_listener(r)) for r in recs]
    processor.start()
    assert len(processor) == 2 and processor.listeners() == handles
    processor.remove_listener(handles[0])
    assert len(processor) == 1
    assert handles[0].is_stopped() and not handles[0].stats()["running"]
    processor.distribute(AddNotification(pod("after")), False)
    wait_until(lambda: recs[1].count() == 1)
    assert recs[0].count() == 0  # no more events after removal
    processor.remove_listener(handles[0])  # removing twice: no-op
    processor.remove_listener(handles[1])
    assert len(processor) == 0


def test_i093_removing_a_foreign_or_unknown_registration_is_a_noop(processor):
    other = SharedProcessor(FakeClock())
    mine = processor.add_listener(make_listener())
    theirs = other.add_listener(make_listener())
    processor.remove_listener(theirs)
    processor.remove_listener(object())
    assert processor.listeners() == [mine] and other.listeners() == [theirs]
    assert not theirs.is_stopped()
    other.stop()


def test_i093_same_handler_twice_gives_independent_registrations(processor):
    rec = Recorder()
    a = processor.add_listener(make_listener(rec))
    b = processor.add_listener(make_listener(rec))
    assert a is not b and len(processor) == 2
    processor.start()
    processor.remove_listener(a)
    processor.distribute(AddNotification(pod("x")), False)
    wait_until(lambda: rec.count() == 1)
    assert len(processor) == 1 and processor.listeners() == [b]


def test_i093_a_handler_can_remove_its_own_registration(processor):
    holder: dict[str, ProcessorListener] = {}
    seen: list[str] = []

    def on_add(obj: Any) -> None:
        seen.append(obj["metadata"]["name"])
        processor.remove_listener(holder["me"])  # must not deadlock joining itself

    holder["me"] = processor.add_listener(make_listener(ResourceEventHandlerFuncs(on_add=on_add)))
    processor.start()
    processor.distribute(AddNotification(pod("first")), False)
    processor.distribute(AddNotification(pod("second")), False)
    wait_until(lambda: not holder["me"].stats()["running"])
    assert seen == ["first"] and len(processor) == 0


# ----------------------------------------------------------- processor lifecycle


def test_processor_run_blocks_until_stop_then_joins_every_listener(monkeypatch):
    monkeypatch.setattr(processor_module, "LISTENER_IDLE_EXIT", 60.0)  # threads stay while checked
    p = SharedProcessor(FakeClock())
    recs = [Recorder(), Recorder()]
    for i, r in enumerate(recs):
        p.add_listener(make_listener(r, name=f"run-{i}"))
    stop = threading.Event()
    runner = threading.Thread(target=p.run, args=(stop,), name="test-runner")
    runner.start()
    wait_until(p.is_running)
    late = p.add_listener(make_listener(Recorder(), name="run-late"))  # started at once
    wait_until(lambda: late.stats()["running"])
    p.distribute(AddNotification(pod("a")), False)
    wait_until(lambda: all(r.count() == 1 for r in recs))
    names = {t.name for t in kubenb_threads()}
    assert {"kubenb-listener-run-0", "kubenb-listener-run-1"} <= names
    stop.set()
    runner.join(5)
    assert not runner.is_alive() and not p.is_running()
    assert p.listeners() == []  # listeners are not reused after stop, as in Go
    assert not [t for t in kubenb_threads() if t.name.startswith("kubenb-listener-run")]
    assert "running=False" in repr(p)


def test_processor_start_stop_and_stats(processor):
    lst = processor.add_listener(make_listener(name="stats"))
    assert not processor.is_running() and not lst.stats()["running"]
    processor.start()
    processor.start()  # idempotent
    assert processor.is_running()
    processor.distribute(AddNotification(pod("a")), False)
    wait_until(lambda: lst.stats()["adds"] == 1)
    (stats,) = processor.stats()
    assert stats["name"] == "stats" and stats["adds"] == 1 and stats["pending"] == 0
    assert processor.stop(timeout=5) is True
    assert not processor.is_running() and lst.is_stopped()


def test_processor_refuses_to_start_a_stopped_listener(processor):
    processor.start()
    lst = make_listener()
    lst.stop()
    with pytest.raises(KubenbError, match="cannot be started again"):
        processor.add_listener(lst)
    assert len(processor) == 0


@pytest.mark.stress
def test_stress_producers_distribute_to_listeners_exactly_once_in_order():
    p = SharedProcessor(FakeClock())
    producers, per, n_listeners = 4, 2500, 4
    recs = [Recorder() for _ in range(n_listeners)]
    for i, r in enumerate(recs):
        p.add_listener(make_listener(r, name=f"stress-{i}"))
    p.start()

    def produce(k: int) -> None:
        for i in range(per):
            if i % 3 == 0:
                p.distribute(AddNotification(pod(f"{k}:{i}")), False)
            elif i % 3 == 1:
                p.distribute(UpdateNotification(pod(f"{k}:{i}"), pod(f"{k}:{i}", "2")), False)
            else:
                p.distribute(DeleteNotification(pod(f"{k}:{i}")), False)

    threads = [threading.Thread(target=produce, args=(k,)) for k in range(producers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = producers * per
    wait_until(lambda: all(r.count() == total for r in recs), timeout=30)
    for r in recs:
        per_producer: dict[str, list[int]] = {}
        for event in r.events:
            k, i = event[1].split(":")
            per_producer.setdefault(k, []).append(int(i))
        assert per_producer == {str(k): list(range(per)) for k in range(producers)}
    assert p.stop(timeout=5)
    assert not [t for t in kubenb_threads() if t.name.startswith("kubenb-listener-stress")]


def test_a_sole_listener_hands_back_what_the_distributor_still_holds() -> None:
    """The distributor's own reference can outlive the delivery (a thread switch just
    after `add`); a sole listener hands the notification back all the same, else
    the Pacer's held items stop being the oldest first and CI saw them never freed."""
    processor = SharedProcessor(FakeClock())
    progress: list[Any] = []
    processor.on_progress = progress.append
    processor.add_listener(make_listener(Recorder()))
    processor.start()
    try:
        sent = [UpdateNotification(pod("a", str(i)), pod("a", str(i + 1))) for i in range(20)]
        for notification in sent:  # every one still referenced here while delivered
            processor.distribute(notification, False)
        wait_until(lambda: len(progress) == 20, what="20 deliveries reported")
        assert progress == sent and all(a is b for a, b in zip(progress, sent, strict=True))
    finally:
        assert processor.stop(timeout=5)


@pytest.mark.parametrize("listeners", [1, 3])
def test_each_notification_is_handed_back_once_by_the_last_listener_to_deliver_it(
        listeners: int) -> None:
    """The Pacer frees what is handed back one event's worth at a time, so a
    notification shared by every listener must come back once, not once per listener;
    every delivery still reports progress (None when another listener holds it)."""
    processor = SharedProcessor(FakeClock())
    progress: list[Any] = []
    lock = threading.Lock()

    def on_progress(done: Any) -> None:
        with lock:
            progress.append(done)

    processor.on_progress = on_progress
    gates = [threading.Event() for _ in range(listeners)]
    added = [processor.add_listener(make_listener(Recorder(gate=gate))) for gate in gates]
    processor.start()
    try:
        sent = []  # ids only: a reference kept here would make no listener the last
        for i in range(50):
            notification = UpdateNotification(pod("a", str(i)), pod("a", str(i + 1)))
            sent.append(id(notification))
            processor.distribute(notification, False)
        del notification
        for gate, listener in zip(gates, added, strict=True):  # one listener after another
            gate.set()
            wait_until(lambda one=listener: one.pending() == 0 and not one.stats()["busy"],
                       what="the listener done and idle")
        assert len(progress) == 50 * listeners  # every delivery reported
        handed_back = [done for done in progress if done is not None]
        assert len(handed_back) == 50  # kept alive there, so their ids stay unique
        assert {id(done) for done in handed_back} == set(sent)
    finally:
        assert processor.stop(timeout=5)


def test_an_idle_listener_has_no_thread_and_the_next_notification_starts_one(monkeypatch):
    """The delivery thread runs only while there is something to deliver; after it
    ended, later notifications still arrive, in order, one at a time."""
    monkeypatch.setattr(processor_module, "LISTENER_IDLE_EXIT", 0.01)
    rec = Recorder()
    listener = make_listener(rec, name="idle")
    listener.start()
    assert not [t for t in kubenb_threads() if t.name == "kubenb-listener-idle"]
    for round_ in range(3):
        for i in range(20):
            listener.add(AddNotification(pod(f"p{round_}-{i}")))
        expected = 20 * (round_ + 1)
        wait_until(lambda: rec.count() == expected)  # noqa: B023 (read before the next round)
        wait_until(lambda: not [t for t in kubenb_threads()
                                if t.name == "kubenb-listener-idle"],
                   what="the idle delivery thread to end")
        assert listener.stats()["running"]  # started, not stopped: it has no thread now
    assert [e[1] for e in rec.events] == [f"p{r}-{i}" for r in range(3) for i in range(20)]
    listener.stop()
    assert listener.join(5)
    assert not listener.stats()["running"]
