"""Property and concurrency tests for the work queues (bounded: a few seconds in all).

* a hypothesis state machine checks Queue against a reference model of client-go's
  dirty/processing/FIFO rules, and another checks DelayingQueue's release order;
* many worker threads never hold the same item at once, and every item added before
  `shut_down_with_drain` is processed after its last add;
* no thread is left running after shutdown.
"""

from __future__ import annotations

import random
import threading

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from kubenb.clock import FakeClock
from kubenb.workqueue.delaying import DelayingQueue
from kubenb.workqueue.metrics import InProcessMetricsProvider
from kubenb.workqueue.queue import Queue
from tests.workqueue.conftest import wait_idle, wait_until

pytestmark = pytest.mark.stress

ITEMS = st.sampled_from(["a", "b", "c", "d", 1, 2, (3, "x")])


class QueueModel(RuleBasedStateMachine):
    """client-go's Queue, restated as plain Python collections."""

    @initialize()
    def start(self) -> None:
        self.clock = FakeClock()
        self.q = Queue(name="model", clock=self.clock, metrics_provider=InProcessMetricsProvider())
        self.fifo: list[object] = []
        self.dirty: set[object] = set()
        self.processing: set[object] = set()
        self.down = False
        self.adds = 0

    @rule(item=ITEMS)
    def add(self, item: object) -> None:
        self.q.add(item)
        if self.down or item in self.dirty:
            return
        self.adds += 1
        self.dirty.add(item)
        if item not in self.processing:
            self.fifo.append(item)

    @precondition(lambda self: self.fifo or self.down)
    @rule()
    def get(self) -> None:
        got = self.q.get()
        if not self.fifo:
            assert got == (None, True)
            return
        expected = self.fifo.pop(0)
        assert got == (expected, False)
        self.processing.add(expected)
        self.dirty.discard(expected)

    @precondition(lambda self: self.processing)
    @rule(data=st.data())
    def done(self, data: st.DataObject) -> None:
        item = data.draw(st.sampled_from(sorted(self.processing, key=repr)))
        self.q.done(item)
        self.processing.discard(item)
        if item in self.dirty:
            self.fifo.append(item)

    @rule(item=ITEMS)
    def done_misused(self, item: object) -> None:
        # done() on an item not being processed must change nothing.
        if item not in self.processing:
            self.q.done(item)

    @precondition(lambda self: not self.down)
    @rule()
    def shut_down(self) -> None:
        self.q.shut_down()
        self.down = True

    @invariant()
    def matches_model(self) -> None:
        assert len(self.q) == len(self.fifo)
        assert self.q.shutting_down() == self.down
        snap = self.q.metrics()
        assert snap.depth == len(self.dirty)
        assert snap.adds == self.adds

    def teardown(self) -> None:
        self.q.shut_down()


QueueModel.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
TestQueueModel = QueueModel.TestCase

EIGHTHS = st.integers(min_value=-1, max_value=12)  # delays in 1/8 s: exact in binary


class DelayingModel(RuleBasedStateMachine):
    """Items come out in ready-time order; a waiting duplicate keeps its earliest time."""

    @initialize()
    def start(self) -> None:
        self.clock = FakeClock()
        self.q = DelayingQueue(clock=self.clock)
        self.now = 0.0
        self.seq = 0
        self.waiting: dict[object, tuple[float, int]] = {}
        self.fifo: list[object] = []
        self.dirty: set[object] = set()

    def _model_add(self, item: object) -> None:
        if item not in self.dirty:
            self.dirty.add(item)
            self.fifo.append(item)

    @rule(item=ITEMS, eighths=EIGHTHS)
    def add_after(self, item: object, eighths: int) -> None:
        seconds = eighths / 8
        self.q.add_after(item, seconds)
        if seconds <= 0:
            self._model_add(item)
            return
        ready = self.now + seconds
        old = self.waiting.get(item)
        if old is None or ready < old[0]:
            self.seq += 1
            self.waiting[item] = (ready, self.seq)

    @rule(eighths=st.integers(min_value=1, max_value=16))
    def step(self, eighths: int) -> None:
        wait_idle(self.q)
        self.clock.step(eighths / 8)
        self.now += eighths / 8
        due = sorted((when, item) for item, when in self.waiting.items() if when[0] <= self.now)
        for _, item in due:
            del self.waiting[item]
            self._model_add(item)

    @precondition(lambda self: self.fifo)
    @rule()
    def get_done(self) -> None:
        wait_until(lambda: len(self.q) == len(self.fifo))
        expected = self.fifo.pop(0)
        assert self.q.get() == (expected, False)
        self.dirty.discard(expected)
        self.q.done(expected)

    @invariant()
    def matches_model(self) -> None:
        wait_idle(self.q)
        assert len(self.q) == len(self.fifo)
        assert self.q._waiting_count() == len(self.waiting)

    def teardown(self) -> None:
        self.q.shut_down()
        assert not self.q._waiting_thread.is_alive()


DelayingModel.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestDelayingModel = DelayingModel.TestCase


def test_workers_never_share_an_item_and_drain_processes_every_last_add():
    before = set(threading.enumerate())
    q = Queue(name="stress", metrics_provider=InProcessMetricsProvider())
    keys = [f"ns/obj-{i}" for i in range(100)]
    lock = threading.Lock()
    tick = 0
    last_add: dict[str, int] = {}
    last_start: dict[str, int] = {}
    in_flight: set[str] = set()
    overlaps: list[str] = []
    handled = 0

    def producer(seed: int) -> None:
        nonlocal tick
        rng = random.Random(seed)
        for _ in range(1500):
            key = rng.choice(keys)
            with lock:
                tick += 1
                last_add[key] = tick
            q.add(key)

    def worker() -> None:
        nonlocal tick, handled
        while True:
            key, quit_ = q.get()
            if quit_:
                return
            with lock:
                if key in in_flight:
                    overlaps.append(key)
                in_flight.add(key)
                tick += 1
                last_start[key] = tick
                handled += 1
            if handled % 7 == 0:
                threading.Event().wait(0.0001)  # let other workers interleave
            with lock:
                in_flight.discard(key)
            q.done(key)

    workers = [threading.Thread(target=worker) for _ in range(8)]
    producers = [threading.Thread(target=producer, args=(s,)) for s in range(4)]
    for t in workers + producers:
        t.start()
    for t in producers:
        t.join(10)
    q.shut_down_with_drain()
    for t in workers:
        t.join(10)
        assert not t.is_alive()

    assert overlaps == []
    assert set(last_start) == set(last_add)
    stale = [k for k in last_add if last_start[k] < last_add[k]]
    assert stale == [], "an item added before the drain was not processed after its last add"
    assert len(q) == 0
    assert q.metrics().depth == 0
    assert set(threading.enumerate()) == before


def test_delaying_queue_under_concurrent_add_after_and_clock_steps():
    before = set(threading.enumerate())
    clock = FakeClock()
    q = DelayingQueue(
        name="stress-delaying", clock=clock, metrics_provider=InProcessMetricsProvider()
    )
    stop = threading.Event()
    added: set[int] = set()
    lock = threading.Lock()

    def producer(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(300):
            item = rng.randrange(400)
            with lock:
                added.add(item)
            q.add_after(item, rng.choice([0, 0.001, 0.5, 1.0, 3.0, 9.0]))

    def stepper() -> None:
        while not stop.is_set():
            clock.step(0.25)
            stop.wait(0.0005)

    stepping = threading.Thread(target=stepper)
    producers = [threading.Thread(target=producer, args=(s,)) for s in range(4)]
    stepping.start()
    for t in producers:
        t.start()
    for t in producers:
        t.join(10)
    stop.set()
    stepping.join(10)

    wait_idle(q)
    clock.step(10.0)  # past every delay
    wait_until(lambda: q._waiting_count() == 0 and len(q) == len(added))
    seen = set()
    while len(q):
        item, _ = q.get()
        assert item not in seen
        seen.add(item)
        q.done(item)
    assert seen == added
    assert q.metrics().retries == 1200
    q.shut_down()
    assert set(threading.enumerate()) == before
