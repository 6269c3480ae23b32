"""Queue.snapshot(): one consistent, immutable picture of a work queue.

A hypothesis model checks every field against client-go's dirty/processing/FIFO rules
after each operation; a stress test takes snapshots while workers add, get and finish
items and a FakeClock releases delayed ones, and checks that no item is ever missing
from the picture or in two places at once. Time moves only by `FakeClock.step()`.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Hashable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.clock import FakeClock
from kubenb.workqueue import DelayingQueue, Queue, QueueSnapshot, RateLimitingQueue
from tests.workqueue.conftest import run_in_thread, wait_idle, wait_until


def _structure_holds(snap: QueueSnapshot) -> None:
    """What any unbounded snapshot must satisfy, whatever runs beside it."""
    queued = set(snap.queued)
    assert len(queued) == len(snap.queued), "an item queued twice"
    assert queued <= snap.dirty
    assert not queued & snap.processing, "an item both queued and handed out"
    assert snap.dirty <= queued | snap.processing
    assert snap.redo == snap.processing & snap.dirty
    assert (snap.queued_count, snap.dirty_count, snap.processing_count, snap.waiting_count) == (
        len(snap.queued), len(snap.dirty), len(snap.processing), len(snap.waiting))
    times = [t for _, t in snap.waiting]
    assert times == sorted(times)
    assert len({item for item, _ in snap.waiting}) == len(snap.waiting)


def test_snapshot_lists_queued_in_order_processing_redo_and_waiting(cleanup):
    clock = FakeClock(100.0)
    q = cleanup(DelayingQueue(clock=clock))
    for item in ("a", "b", "c"):
        q.add(item)
    got, _ = q.get()
    assert got == "a"
    q.add("a")  # re-added while processing: dirty, queued again on done()
    q.add_after("late", 5)
    q.add_after("soon", 1)
    wait_idle(q)

    snap = q.snapshot()
    assert snap.queued == ("b", "c")
    assert snap.ordered
    assert snap.dirty == {"a", "b", "c"}
    assert snap.processing == {"a"}
    assert snap.redo == {"a"}
    assert snap.waiting == (("soon", 101.0), ("late", 105.0))
    assert snap.now == 100.0
    assert not snap.shutting_down
    _structure_holds(snap)

    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.queued = ()  # type: ignore[misc]
    q.done("a")
    assert snap.queued == ("b", "c")  # taken once: later changes never show in it
    assert q.snapshot().queued == ("b", "c", "a")


def test_limit_bounds_the_lists_and_keeps_the_counts_exact(cleanup):
    clock = FakeClock()
    q = cleanup(RateLimitingQueue(clock=clock))
    for i in range(10):
        q.add(i)
    for _ in range(4):
        q.get()
    for i in range(20, 26):
        q.add_after(i, i)
    wait_idle(q)

    snap = q.snapshot(limit=2)
    assert snap.queued == (4, 5)
    assert len(snap.processing) == 2 and snap.processing <= {0, 1, 2, 3}
    assert len(snap.dirty) == 2
    assert snap.waiting == ((20, 20.0), (21, 21.0))
    assert (snap.queued_count, snap.dirty_count, snap.processing_count, snap.waiting_count) == (
        6, 6, 4, 6)

    empty = q.snapshot(limit=0)
    assert (empty.queued, empty.processing, empty.waiting) == ((), frozenset(), ())
    assert empty.queued_count == 6
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="limit"):
            q.snapshot(limit=bad)  # type: ignore[arg-type]


def test_snapshot_of_a_shut_down_queue_and_of_a_plain_queue(cleanup):
    q = cleanup(Queue())
    q.add("x")
    q.shut_down()
    snap = q.snapshot()
    assert snap.shutting_down
    assert snap.queued == ("x",)  # still handed out: getters drain the queue
    assert snap.waiting == () and snap.waiting_count == 0

    d = cleanup(DelayingQueue(clock=FakeClock()))
    d.add_after("y", 1)
    d.shut_down()
    assert d.snapshot().waiting == ()  # shut_down drops what waits


class _Unordered:
    """A storage a snapshot cannot iterate: its order is its own business."""

    def __init__(self) -> None:
        self.items: list[Hashable] = []

    def touch(self, item: Hashable) -> None:
        pass

    def push(self, item: Hashable) -> None:
        self.items.append(item)

    def __len__(self) -> int:
        return len(self.items)

    def pop(self) -> Hashable:
        return self.items.pop()


def test_a_storage_without_an_order_gives_an_unordered_snapshot(cleanup):
    q = cleanup(Queue(queue=_Unordered()))
    q.add("a")
    q.add("b")
    snap = q.snapshot()
    assert not snap.ordered
    assert set(snap.queued) == {"a", "b"}
    _structure_holds(snap)


OPS = st.lists(st.one_of(
    st.tuples(st.just("add"), st.sampled_from("abcde")),
    st.tuples(st.just("get"), st.none()),
    st.tuples(st.just("done"), st.integers(min_value=0, max_value=4)),
), max_size=40)


@settings(max_examples=80, deadline=None)
@given(ops=OPS)
def test_snapshot_matches_a_model_after_every_operation(ops):
    q = Queue()
    fifo: list[str] = []
    dirty: set[str] = set()
    processing: list[str] = []
    try:
        for op, arg in ops:
            if op == "add":
                q.add(arg)
                if arg not in dirty:
                    dirty.add(arg)
                    if arg not in processing:
                        fifo.append(arg)
            elif op == "get" and fifo:
                item, _ = q.get()
                assert item == fifo.pop(0)
                processing.append(item)
                dirty.discard(item)
            elif op == "done" and processing:
                item = processing.pop(arg % len(processing))
                q.done(item)
                if item in dirty:
                    fifo.append(item)
            snap = q.snapshot()
            assert snap.queued == tuple(fifo)
            assert snap.dirty == dirty
            assert snap.processing == set(processing)
            assert snap.redo == dirty & set(processing)
            _structure_holds(snap)
    finally:
        q.shut_down()


@pytest.mark.stress
def test_no_item_goes_missing_from_snapshots_under_concurrent_adds_and_gets(cleanup):
    """Workers get and finish items while producers add them now or later and a
    stepper moves the FakeClock; every snapshot shows each item added and not yet
    finished exactly where the rules allow (queued, processing or waiting)."""
    clock = FakeClock()
    q = cleanup(DelayingQueue(clock=clock))
    n, producers, workers = 300, 3, 3
    scheduled: set[int] = set()  # add or add_after has returned
    finishing: set[int] = set()  # done() is about to be called (or was)
    lock = threading.Lock()
    all_added = threading.Event()

    def produce(start: int) -> None:
        for i in range(start, n, producers):
            if i % 3:
                q.add_after(i, 0.5 + (i % 7) / 4)
            else:
                q.add(i)
            with lock:
                scheduled.add(i)

    def work() -> None:
        while True:
            item, shutdown = q.get()
            if shutdown:
                return
            with lock:
                finishing.add(item)
            q.done(item)

    def step() -> None:
        while not (all_added.is_set() and q.snapshot(limit=0).waiting_count == 0):
            clock.step(0.25)
            wait_until(q.waiting_settled, what="the waiting loop to take the step in")

    threads = [run_in_thread(lambda s=s: produce(s)) for s in range(producers)]
    threads += [run_in_thread(work) for _ in range(workers)]
    stepper = run_in_thread(step)

    snapshots = 0
    deadline = time.monotonic() + 30  # a bound on a broken run, not a wait
    while True:
        with lock:
            before = set(scheduled)
        snap = q.snapshot()
        with lock:
            gone = set(finishing)
        _structure_holds(snap)
        present = set(snap.queued) | snap.processing | {item for item, _ in snap.waiting}
        missing = before - gone - present
        assert not missing, f"added, not finished, yet in no list of the snapshot: {missing}"
        snapshots += 1
        if len(before) == n:
            all_added.set()
        if len(gone) == n:
            break
        assert stepper[1].error is None, stepper[1].error
        assert time.monotonic() < deadline, f"{n - len(gone)} item(s) never finished"

    q.shut_down()
    for thread, result in [*threads, stepper]:
        thread.join(5)
        assert result.error is None, result.error
    assert snapshots > 1
    assert finishing == set(range(n))
