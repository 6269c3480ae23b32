"""RateLimitingQueue: spec item N120 (client-go rate_limiting_queue_test.go), on a FakeClock."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.clock import FakeClock
from kubenb.workqueue.delaying import DelayingQueue
from kubenb.workqueue.metrics import InProcessMetricsProvider
from kubenb.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
)
from kubenb.workqueue.rate_limiting import RateLimitingQueue


def _eventually(cond, timeout: float = 5.0) -> bool:
    """Poll `cond` for up to `timeout` real seconds; only for background threads."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0005)
    return True


def _settled(q: RateLimitingQueue, waiting: int | None = None) -> None:
    """Wait until the waiting loop has seen every add and is parked on the clock.

    Only then is it safe to step the clock (and to assert that nothing was added):
    the loop reads the clock under its own lock, so it cannot miss a step. With
    `waiting`, also wait until that many items are parked (added from another thread).
    """

    def idle() -> bool:
        if waiting is not None and q._waiting_count() != waiting:
            return False
        return q.waiting_settled()

    assert _eventually(idle), "the delaying queue's waiting loop never parked"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def queues():
    """Queues made by a test; each is shut down afterwards, leaving no thread behind."""
    made: list[RateLimitingQueue] = []
    yield made
    for q in made:
        q.shut_down()


def _queue(queues, **kwargs) -> RateLimitingQueue:
    q = RateLimitingQueue(**kwargs)
    queues.append(q)
    return q


# --- N120 -------------------------------------------------------------------------------


def test_n120_add_rate_limited_delegates_to_limiter(clock, queues):
    limiter = ItemExponentialFailureRateLimiter(0.001, 1.0)
    q = _queue(queues, rate_limiter=limiter, clock=clock)
    assert isinstance(q, DelayingQueue)

    q.add_rate_limited("one")  # waits 1 ms
    q.add_rate_limited("one")  # waits 2 ms
    assert q.num_requeues("one") == 2
    q.add_rate_limited("two")
    q.add_rate_limited("two")
    assert q.num_requeues("two") == 2
    assert len(q) == 0  # nothing ready before the clock moves

    q.forget("one")
    assert q.num_requeues("one") == 0
    assert limiter.when("one") == 0.001  # the next one is 1 ms again
    assert q.num_requeues("two") == 2


def test_n120_item_visible_exactly_when_clock_reaches_delay(clock, queues):
    q = _queue(queues, rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0), clock=clock)

    q.add_rate_limited("a")  # 1 s
    _settled(q)
    clock.step(0.75)
    _settled(q)
    assert len(q) == 0
    clock.step(0.25)  # now exactly 1 s
    assert _eventually(lambda: len(q) == 1)
    assert q.get() == ("a", False)
    q.done("a")

    q.add_rate_limited("a")  # second failure: 2 s
    _settled(q)
    clock.step(1.5)
    _settled(q)
    assert len(q) == 0
    clock.step(0.5)
    assert _eventually(lambda: len(q) == 1)
    assert q.get() == ("a", False)
    q.done("a")
    assert q.num_requeues("a") == 2


def test_n120_forget_resets_the_backoff(clock, queues):
    q = _queue(queues, rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0), clock=clock)
    for _ in range(3):  # 1 s, 2 s, 4 s: the next would be 8 s
        q.rate_limiter.when("a")
    q.forget("a")
    q.add_rate_limited("a")  # 1 s again
    _settled(q)
    clock.step(1.0)
    assert _eventually(lambda: len(q) == 1)
    assert q.num_requeues("a") == 1


def test_n120_forget_does_not_replace_done(clock, queues):
    q = _queue(queues, rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0), clock=clock)
    q.add("a")
    assert q.get() == ("a", False)
    q.forget("a")
    q.add("a")  # still processing: marked dirty, not queued
    assert len(q) == 0
    q.done("a")
    assert len(q) == 1


def test_n120_default_rate_limiter_is_the_controller_one(clock, queues):
    q = _queue(queues, clock=clock)
    assert isinstance(q.rate_limiter, MaxOfRateLimiter)
    exponential, bucket = q.rate_limiter.limiters
    assert isinstance(exponential, ItemExponentialFailureRateLimiter)
    assert isinstance(bucket, BucketRateLimiter)

    q.add_rate_limited("x")  # 5 ms per item; the bucket is full
    _settled(q)
    clock.step(0.004)
    _settled(q)
    assert len(q) == 0
    clock.step(0.001)
    assert _eventually(lambda: len(q) == 1)


def test_n120_default_bucket_runs_on_the_queue_clock(clock, queues):
    # 100 distinct items use up the burst; the 101st waits 1/10 s on the queue's clock.
    q = _queue(queues, clock=clock)
    for i in range(100):
        q.add_rate_limited(f"item-{i}")
    q.add_rate_limited("late")
    _settled(q)
    clock.step(0.005)
    assert _eventually(lambda: len(q) == 100)
    _settled(q)
    clock.step(0.05)
    _settled(q)
    assert len(q) == 100
    clock.step(0.05)
    assert _eventually(lambda: len(q) == 101)


def test_n120_add_rate_limited_after_shutdown_is_ignored(clock, queues):
    # As in client-go, the limiter is still asked (and counts), but the add is dropped.
    q = _queue(queues, rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0), clock=clock)
    q.shut_down()
    q.add_rate_limited("a")
    assert q.num_requeues("a") == 1
    clock.step(10)
    assert len(q) == 0
    assert q.get() == (None, True)


def test_n120_reconcile_loop_retries_with_backoff(clock, queues):
    """A worker that fails twice, then succeeds: retries come 1 s, then 2 s later."""
    q = _queue(queues, rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0), clock=clock)
    attempts: list[float] = []
    outcome = iter([False, False, True])

    def worker() -> None:
        while True:
            key, shutdown = q.get()
            if shutdown:
                return
            try:
                attempts.append(clock.now())
                if next(outcome):
                    q.forget(key)
                else:
                    q.add_rate_limited(key)
            finally:
                q.done(key)

    thread = threading.Thread(target=worker, name="test-rlq-worker")
    thread.start()
    q.add("key")
    assert _eventually(lambda: len(attempts) == 1)
    _settled(q, waiting=1)
    clock.step(1.0)
    assert _eventually(lambda: len(attempts) == 2)
    _settled(q, waiting=1)
    clock.step(1.0)
    _settled(q)
    assert len(attempts) == 2  # the second retry waits 2 s, not 1 s
    clock.step(1.0)
    assert _eventually(lambda: len(attempts) == 3)
    assert _eventually(lambda: q.num_requeues("key") == 0)  # forgotten after success
    q.shut_down()
    thread.join(5)
    assert not thread.is_alive()
    assert attempts == [0.0, 1.0, 3.0]


def test_n120_named_queue_counts_retries(clock, queues):
    q = _queue(
        queues,
        rate_limiter=ItemExponentialFailureRateLimiter(1.0, 100.0),
        name="test-rlq-retries",
        clock=clock,
        metrics_provider=InProcessMetricsProvider(),
    )
    q.add_rate_limited("a")
    q.add_rate_limited("b")
    assert q.metrics().retries == 2


def test_rate_limiter_must_be_a_rate_limiter():
    before = threading.active_count()
    with pytest.raises(TypeError, match="rate_limiter"):
        RateLimitingQueue(rate_limiter=object(), name="test-rlq-bad")  # type: ignore[arg-type]
    assert threading.active_count() == before


def test_no_threads_left_after_shutdown(clock):
    before = set(threading.enumerate())
    q = RateLimitingQueue(name="test-rlq-threads", clock=clock)
    q.add_rate_limited("a")
    q.add_rate_limited("b")
    q.shut_down()
    assert _eventually(lambda: set(threading.enumerate()) <= before)


def test_no_threads_left_after_shutdown_with_drain(clock):
    before = set(threading.enumerate())
    q = RateLimitingQueue(rate_limiter=ItemExponentialFailureRateLimiter(1.0, 10.0), clock=clock)
    q.add("a")
    item, _ = q.get()
    q.add_rate_limited("b")
    drainer = threading.Thread(target=q.shut_down_with_drain, name="test-rlq-drain")
    drainer.start()
    assert _eventually(q.shutting_down)
    q.done(item)
    drainer.join(5)
    assert not drainer.is_alive()
    assert _eventually(lambda: set(threading.enumerate()) <= before)


@settings(max_examples=15, deadline=None)
@given(failures=st.lists(st.sampled_from("abc"), max_size=12), forgotten=st.sampled_from("abc"))
def test_property_num_requeues_counts_failures_until_forget(failures, forgotten):
    clock = FakeClock()
    q = RateLimitingQueue(rate_limiter=ItemExponentialFailureRateLimiter(1.0, 8.0), clock=clock)
    try:
        for item in failures:
            q.add_rate_limited(item)
        for item in "abc":
            assert q.num_requeues(item) == failures.count(item)
        q.forget(forgotten)
        assert q.num_requeues(forgotten) == 0
        # Every failed item is delivered exactly once after the longest possible wait.
        clock.step(8.0)
        assert _eventually(lambda: len(q) == len(set(failures)))
        got = set()
        for _ in range(len(set(failures))):
            item, shutdown = q.get()
            assert not shutdown
            got.add(item)
            q.done(item)
        assert got == set(failures)
    finally:
        q.shut_down()
