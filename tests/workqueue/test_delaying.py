"""The delaying queue: spec section M (behaviours 116-119), driven by a FakeClock."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from kubenb.workqueue.delaying import MAX_WAIT, DelayingQueue
from kubenb.workqueue.metrics import NoopMetricsProvider
from tests.workqueue.conftest import run_in_thread, wait_idle, wait_until, workqueue_threads


def wait_len(q: DelayingQueue, n: int) -> None:
    wait_until(lambda: len(q) == n, what=f"len(q) == {n}")


def get_done(q: DelayingQueue) -> object:
    item, shutdown = q.get()
    assert not shutdown
    q.done(item)
    return item


# --- M116 ------------------------------------------------------------------------------


def test_m116_add_after_visible_when_clock_reaches(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("foo", 0.050)
    wait_idle(q)
    assert len(q) == 0

    clock.step(0.060)
    wait_len(q, 1)
    assert get_done(q) == "foo"

    clock.step(10.0)  # past the 10 s heartbeat
    wait_idle(q)
    assert len(q) == 0


def test_m116_not_visible_one_tick_before_ready(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("foo", 0.050)
    wait_idle(q)
    clock.step(0.049)
    wait_idle(q)
    assert len(q) == 0
    clock.step(0.001)
    wait_len(q, 1)


# --- M117 ------------------------------------------------------------------------------


def test_m117_later_duplicate_keeps_earliest_ready_time(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("foo", 0.050)
    q.add_after("foo", 0.070)
    wait_idle(q)
    assert len(q) == 0

    clock.step(0.060)
    wait_len(q, 1)
    assert get_done(q) == "foo"

    clock.step(0.020)  # past the second, de-duplicated ready time
    wait_idle(q)
    assert len(q) == 0


def test_m117_earlier_duplicate_moves_ready_time_forward(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("foo", 0.050)
    q.add_after("foo", 0.030)
    wait_idle(q)
    assert len(q) == 0

    clock.step(0.040)
    wait_len(q, 1)
    assert get_done(q) == "foo"

    clock.step(0.020)  # now past the original 50 ms: nothing more
    wait_idle(q)
    assert len(q) == 0


def test_m117_fired_item_starts_fresh(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("foo", 0.050)
    wait_idle(q)
    clock.step(0.050)  # ready when readyAt <= now
    wait_len(q, 1)
    assert get_done(q) == "foo"

    q.add_after("foo", 0.100)  # no stale de-dup entry holds it at the old time
    wait_idle(q)
    assert q._waiting_count() == 1
    clock.step(0.099)
    wait_idle(q)
    assert len(q) == 0
    clock.step(0.001)
    wait_len(q, 1)


# --- M118 ------------------------------------------------------------------------------


def test_m118_add_two_fire_early(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("foo", 1.0)
    q.add_after("bar", 0.050)
    wait_idle(q)
    assert len(q) == 0

    clock.step(0.060)
    wait_len(q, 1)
    assert get_done(q) == "bar"

    q.add_after("baz", 2.0)
    wait_idle(q)
    clock.step(1.0)
    wait_len(q, 1)
    assert get_done(q) == "foo"

    clock.step(2.0)
    wait_len(q, 1)
    assert get_done(q) == "baz"


def test_m118_released_in_ready_time_order(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("foo", 1.0)
    q.add_after("bar", 0.500)
    q.add_after("baz", 0.250)
    wait_idle(q)
    assert len(q) == 0

    clock.step(2.0)
    wait_len(q, 3)
    assert [get_done(q) for _ in range(3)] == ["baz", "bar", "foo"]


# --- M119 ------------------------------------------------------------------------------


@pytest.mark.parametrize("seconds", [0, -1.0, timedelta(0)])
def test_m119_non_positive_delay_adds_immediately(clock, cleanup, seconds):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("foo", seconds)
    assert len(q) == 1  # synchronously, no clock step
    assert q._waiting_count() == 0


def test_m119_timedelta_delay_is_accepted(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("foo", timedelta(milliseconds=50))
    wait_idle(q)
    assert len(q) == 0
    clock.step(0.050)
    wait_len(q, 1)


def test_m119_add_after_while_shutting_down_is_ignored(clock, provider):
    q = DelayingQueue(name="m119-shutdown", clock=clock, metrics_provider=provider)
    q.shut_down()
    q.add_after("foo", 0.010)
    q.add_after("bar", 0)
    assert q._waiting_count() == 0
    assert len(q) == 0
    assert q.metrics().retries == 0


def test_m119_heartbeat_rechecks_the_heap(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    q.add_after("later", 3 * MAX_WAIT)  # starts the waiting loop; due after the heartbeat
    wait_idle(q)
    # Parked on the heartbeat alone: the next wake is MAX_WAIT away.
    assert q._next_wake == clock.now() + MAX_WAIT
    seen = q._seen_generation
    clock.step(MAX_WAIT)
    wait_until(lambda: q._next_wake == 2 * MAX_WAIT, what="the heartbeat to re-arm")
    wait_idle(q)
    assert q._seen_generation == seen  # woken by time, not by an add
    assert len(q) == 0


def test_m119_shut_down_drops_waiting_items_joins_thread_and_is_repeatable(clock):
    before = set(workqueue_threads())
    q = DelayingQueue(name="m119-drop", clock=clock)
    # The waiting loop starts with the first item that must wait, the metrics updater
    # with the first item handed out.
    assert {t.name for t in workqueue_threads() if t not in before} == set()
    q.add_after("foo", 0.050)
    q.add("bar")
    assert q.get() == ("bar", False)
    q.done("bar")
    mine = [t for t in workqueue_threads() if t not in before]
    assert {t.name for t in mine} == {
        "kubenb-workqueue-delaying-m119-drop",
        "kubenb-workqueue-metrics-m119-drop",
    }
    q.add("bar")
    q.shut_down()
    assert all(not t.is_alive() for t in mine)
    assert q._waiting_count() == 0
    q.shut_down()  # a second call is harmless
    clock.step(1.0)
    assert len(q) == 1  # bar was queued before the shutdown; foo was dropped
    assert q.get() == ("bar", False)
    q.done("bar")
    assert q.get() == (None, True)


def test_m119_shut_down_with_drain_also_joins_the_waiting_thread(clock):
    q = DelayingQueue(clock=clock)
    q.add("foo")
    item, _ = q.get()
    q.add_after("bar", 1.0)
    _drainer, result = run_in_thread(q.shut_down_with_drain)
    wait_until(lambda: not q._waiting_thread.is_alive(), what="the waiting thread to stop")
    assert not result.finished.is_set()
    q.done(item)
    assert result.finished.wait(5)
    clock.step(2.0)
    assert len(q) == 0


def test_m119_retries_metric_counts_every_accepted_add_after(clock, provider, cleanup):
    q = cleanup(DelayingQueue(name="m119-retries", clock=clock, metrics_provider=provider))
    q.add_after("a", 0)  # immediate add still counts
    q.add_after("b", -1)
    q.add_after("c", 0.5)
    q.add_after("c", 0.7)  # de-duplicated in the heap, still a retry
    assert q.metrics().retries == 4
    assert provider.snapshot("m119-retries").retries == 4


def test_m119_unnamed_or_noop_delaying_queue_counts_no_retries(clock, cleanup):
    unnamed = cleanup(DelayingQueue(clock=clock))
    noop = cleanup(DelayingQueue(name="noop", clock=clock, metrics_provider=NoopMetricsProvider()))
    for q in (unnamed, noop):
        q.add_after("a", 0)
        snap = q.metrics()
        assert snap.enabled is False
        assert snap.retries == 0
        assert snap.depth == 1


# --- Python specifics ------------------------------------------------------------------


def test_add_after_rejects_unhashable_items(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    with pytest.raises(TypeError, match="hashable"):
        q.add_after(["x"], 1.0)


class Recording(DelayingQueue):
    """A subclass in the shape RateLimitingQueue takes."""

    def __init__(self, extra: str = "", name: str = "", clock=None) -> None:
        super().__init__(name=name, clock=clock)
        self.extra = extra
        self.added: list[object] = []

    def add(self, item) -> None:
        self.added.append(item)
        super().add(item)


def test_delaying_queue_is_subclassable_and_subclass_add_may_add_after(clock, cleanup):
    q = cleanup(Recording(extra="x", clock=clock))
    q.add_after("foo", 0.01)
    wait_idle(q)
    clock.step(0.01)
    wait_len(q, 1)
    assert q.added == ["foo"]
    assert q.extra == "x"


def test_blocked_getter_receives_a_delayed_item(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    _getter, result = run_in_thread(q.get)
    q.add_after("foo", 5.0)
    wait_idle(q)
    assert not result.finished.is_set()
    clock.step(5.0)
    assert result.finished.wait(5)
    assert result.value == ("foo", False)


def test_no_thread_left_after_many_queues(clock):
    before = set(threading.enumerate())
    for i in range(20):
        q = DelayingQueue(name=f"many-{i}" if i % 2 else "", clock=clock)
        q.add_after(i, 1.0)
        q.shut_down()
    assert set(threading.enumerate()) == before


class FailsOnBad(DelayingQueue):
    def add(self, item) -> None:
        if item == "bad":
            raise RuntimeError("boom")
        super().add(item)


def test_a_failing_add_does_not_stop_the_waiting_loop(clock, cleanup, caplog):
    q = cleanup(FailsOnBad(clock=clock))
    q.add_after("bad", 0.1)
    q.add_after("good", 0.2)
    wait_idle(q)
    clock.step(0.2)
    wait_len(q, 1)
    assert q.get() == ("good", False)
    assert q._waiting_thread.is_alive()
    assert "adding 'bad' failed" in caplog.text


def test_waiting_settled_says_nothing_is_due_until_the_clock_moves(clock, cleanup):
    q = cleanup(DelayingQueue(clock=clock))
    wait_until(q.waiting_settled, what="the waiting loop to park")
    q.add_after("a", 1.0)
    wait_until(q.waiting_settled, what="the waiting loop to take in the add")
    assert len(q) == 0
    clock.step(1.0)
    settled = q.waiting_settled()
    assert not settled or len(q) == 1  # settled after the step: "a" was added already
    wait_until(q.waiting_settled, what="the waiting loop to add 'a' and park again")
    assert len(q) == 1
    q.shut_down()
    assert q.waiting_settled()


def test_a_queue_never_asked_to_wait_starts_no_waiting_thread(clock):
    before = set(workqueue_threads())
    q = DelayingQueue(clock=clock)
    q.add_after("now", 0)  # no wait: added at once, no thread
    assert q.get() == ("now", False)
    q.done("now")
    assert q.waiting_settled()
    assert [t for t in workqueue_threads() if t not in before] == []
    q.shut_down()
