"""The work queue: spec section L (behaviours 109-115) and Python-side details."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from kubenb.workqueue.queue import FifoQueueStorage, Queue, QueueStorage, default_queue
from tests.workqueue.conftest import run_in_thread, wait_until


class TraceStorage(FifoQueueStorage):
    """A FIFO storage that records which items were touched (client-go's traceQueue)."""

    def __init__(self) -> None:
        super().__init__()
        self.touched: list[object] = []

    def touch(self, item: object) -> None:
        super().touch(item)
        self.touched.append(item)


def get_blocks(q: Queue) -> tuple[threading.Thread, object]:
    """Start a get() on another thread and return it with its result holder."""
    return run_in_thread(q.get)


# --- L109 ------------------------------------------------------------------------------


def test_l109_duplicate_adds_collapse():
    q = Queue()
    q.add("foo")
    assert len(q) == 1
    q.add("bar")
    assert len(q) == 2
    q.add("foo")
    assert len(q) == 2
    assert q.get() == ("foo", False)
    assert q.get() == ("bar", False)
    assert len(q) == 0


# --- L110 ------------------------------------------------------------------------------


def test_l110_readded_while_processing_comes_back_after_done():
    q = Queue()
    q.add("foo")
    item, shutdown = q.get()
    assert (item, shutdown) == ("foo", False)
    q.add(item)
    # Dirty but processing: not queued, so Len excludes it until Done.
    assert len(q) == 0
    q.done(item)
    assert len(q) == 1
    assert q.get() == ("foo", False)
    q.done("foo")
    assert len(q) == 0


# --- L111 ------------------------------------------------------------------------------


def test_l111_duplicate_while_queued_is_touched_and_collapses():
    storage = TraceStorage()
    q = Queue(queue=storage)
    q.add("bar")
    q.add("bar")
    assert q.get() == ("bar", False)
    q.done("bar")
    assert len(q) == 0
    assert storage.touched == ["bar"]


def test_l111_duplicate_while_processing_is_not_touched_and_second_worker_waits():
    storage = TraceStorage()
    q = Queue(queue=storage)
    q.add("foo")
    assert q.get() == ("foo", False)
    q.add("foo")
    q.add("foo")

    worker, result = get_blocks(q)
    # The other worker must stay blocked while foo is being processed.
    assert not result.finished.wait(0.1)
    q.done("foo")
    assert result.finished.wait(5)
    assert result.value == ("foo", False)
    q.done("foo")
    worker.join(5)
    assert len(q) == 0
    assert storage.touched == []


# --- L112 ------------------------------------------------------------------------------


def test_l112_fifo_and_many_adds_before_processing_give_one_processing():
    q = Queue()
    for _ in range(5):
        for key in ("a", "b", "c"):
            q.add(key)
    assert len(q) == 3
    got = [q.get()[0] for _ in range(3)]
    assert got == ["a", "b", "c"]
    for key in got:
        q.done(key)
    assert len(q) == 0


@pytest.mark.parametrize("drain", [False, True], ids=["shut_down", "shut_down_with_drain"])
def test_l112_add_while_processing_by_many_workers_ends_empty(drain):
    q = Queue()
    items = list(range(50))
    in_flight: set[int] = set()
    lock = threading.Lock()
    overlaps: list[int] = []
    processed: list[int] = []

    def worker() -> None:
        counters: dict[int, int] = {}
        while True:
            item, quit_ = q.get()
            if quit_:
                return
            with lock:
                if item in in_flight:
                    overlaps.append(item)
                in_flight.add(item)
                processed.append(item)
            counters[item] = counters.get(item, 0) + 1
            if counters[item] < 2:
                q.add(item)
            with lock:
                in_flight.discard(item)
            q.done(item)

    producers = [threading.Thread(target=q.add, args=(i,)) for i in items]
    workers = [threading.Thread(target=worker) for _ in range(10)]
    for t in workers + producers:
        t.start()
    for t in producers:
        t.join(5)
    # Let the workers finish the re-adds, then shut down.
    wait_until(lambda: len(q) == 0 and not q._processing, what="the queue to empty")
    if drain:
        q.shut_down_with_drain()
    else:
        q.shut_down()
    for t in workers:
        t.join(5)
        assert not t.is_alive()
    assert overlaps == []
    assert set(processed) == set(items)
    assert len(q) == 0


# --- L113 ------------------------------------------------------------------------------


@pytest.mark.parametrize("drain", [False, True], ids=["shut_down", "shut_down_with_drain"])
def test_l113_basic_producers_consumers_and_add_after_shutdown_ignored(drain):
    q = Queue()
    received: list[object] = []
    lock = threading.Lock()

    def producer(i: int) -> None:
        for _ in range(20):
            q.add(i)

    def consumer() -> None:
        while True:
            item, quit_ = q.get()
            if quit_:
                return
            with lock:
                received.append(item)
            q.done(item)

    producers = [threading.Thread(target=producer, args=(i,)) for i in range(20)]
    consumers = [threading.Thread(target=consumer) for _ in range(5)]
    for t in consumers + producers:
        t.start()
    for t in producers:
        t.join(5)
    if drain:
        q.shut_down_with_drain()
    else:
        q.shut_down()
    q.add("added after shutdown!")
    for t in consumers:
        t.join(5)
        assert not t.is_alive()
    assert "added after shutdown!" not in received
    assert set(received) == set(range(20))
    assert len(q) == 0


def test_l113_get_drains_queued_items_then_reports_shutdown():
    q = Queue()
    q.add("foo")
    q.add("bar")
    assert not q.shutting_down()
    q.shut_down()
    assert q.shutting_down()
    q.add("baz")
    assert len(q) == 2
    assert q.get() == ("foo", False)
    assert q.get() == ("bar", False)
    assert q.get() == (None, True)
    assert q.get() == (None, True)


def test_l113_shut_down_does_not_wait_for_in_flight_items():
    q = Queue()
    q.add("foo")
    q.add("bar")
    q.get()
    q.get()
    _thread, result = run_in_thread(q.shut_down)
    assert result.finished.wait(5), "shut_down must not wait for items being processed"
    assert result.error is None
    assert q.shutting_down()


def test_l113_shut_down_wakes_every_blocked_getter():
    q = Queue()
    getters = [run_in_thread(q.get) for _ in range(4)]
    wait_until(lambda: len(q._cond._waiters) == 4, what="four getters to block")
    q.shut_down()
    for thread, result in getters:
        assert result.finished.wait(5)
        assert result.value == (None, True)
        thread.join(5)


# --- L114 ------------------------------------------------------------------------------


def test_l114_shut_down_with_drain_waits_for_in_flight_items():
    q = Queue()
    q.add("foo")
    q.add("bar")
    first, _ = q.get()
    second, _ = q.get()

    _drainer, result = run_in_thread(q.shut_down_with_drain)
    wait_until(q.shutting_down, what="the drain to start")
    assert q.get() == (None, True)  # nothing queued: getters stop at once
    q.done(first)
    assert not result.finished.wait(0.05), "drain returned with an item still processing"
    q.done(second)
    assert result.finished.wait(5)
    assert result.error is None


def test_l114_queued_items_are_not_waited_on():
    q = Queue()
    q.add("foo")
    q.add("bar")
    q.get()  # foo is processing, bar is only queued
    _drainer, result = run_in_thread(q.shut_down_with_drain)
    wait_until(q.shutting_down)
    q.done("foo")
    assert result.finished.wait(5), "the drain must not wait for bar, which was never taken"
    assert len(q) == 1


def test_l114_later_shut_down_makes_the_drain_return_early():
    q = Queue()
    q.add("foo")
    q.add("bar")
    q.get()
    q.get()
    _drainer, result = run_in_thread(q.shut_down_with_drain)
    wait_until(q.shutting_down)
    assert q.get() == (None, True)
    assert not result.finished.wait(0.05)
    q.shut_down()  # e.g. a second Ctrl-C
    assert result.finished.wait(5)
    assert result.error is None


# --- L115 ------------------------------------------------------------------------------


def test_l115_item_dirty_before_drain_is_still_delivered():
    q = Queue()
    q.add("foo")
    gotten, _ = q.get()
    q.add("foo")  # dirty while processing

    _drainer, result = run_in_thread(q.shut_down_with_drain)
    wait_until(q.shutting_down, what="the drain to start")
    assert q.get() == (None, True)  # the queue is empty for now

    q.done(gotten)  # foo goes back into the queue
    again, shutdown = q.get()
    assert (again, shutdown) == ("foo", False)
    assert not result.finished.wait(0.05), "the drain must wait for the re-delivered foo"
    q.done(again)
    assert q.get() == (None, True)
    assert result.finished.wait(5)


# --- Python specifics ------------------------------------------------------------------


def test_unhashable_item_raises_a_clear_type_error():
    q = Queue()
    with pytest.raises(TypeError, match=r"hashable.*dict"):
        q.add({"metadata": {"name": "x"}})
    with pytest.raises(TypeError, match=r"hashable.*list"):
        q.done(["x"])
    assert len(q) == 0


def test_done_without_get_never_queues_an_item_twice():
    q = Queue()
    q.add("foo")
    q.done("foo")  # misuse: foo is queued, not processing
    assert len(q) == 1
    assert q.get() == ("foo", False)
    q.done("foo")
    q.done("foo")  # twice
    assert len(q) == 0


def test_empty_queue_is_truthy_and_repr_shows_state():
    q = Queue(name="pods")
    assert q
    q.add("a")
    q.add("b")
    q.get()
    assert repr(q) == "Queue(name='pods', len=1, processing=1, shutting_down=False)"
    q.shut_down()
    assert q.name == "pods"


def test_default_queue_is_a_fifo_storage():
    storage = default_queue()
    assert isinstance(storage, QueueStorage)
    storage.push(1)
    storage.push(2)
    assert len(storage) == 2
    assert storage.pop() == 1


def test_processed_items_are_released_for_garbage_collection():
    class Big:
        pass

    q = Queue()
    obj = Big()
    ref = weakref.ref(obj)
    q.add(obj)
    item, _ = q.get()
    q.done(item)
    del obj, item
    gc.collect()
    assert ref() is None


def test_unnamed_queue_starts_no_thread(cleanup):
    before = set(threading.enumerate())
    q = cleanup(Queue())
    q.add("x")
    assert set(threading.enumerate()) == before
