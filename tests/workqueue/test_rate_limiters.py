"""Rate limiters: spec items N121-N127 (client-go default_rate_limiters_test.go)."""

from __future__ import annotations

import itertools
import math
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.clock import FakeClock
from kubenb.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    ItemFastSlowRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    WithMaxWaitRateLimiter,
    default_controller_rate_limiter,
    default_item_based_rate_limiter,
)

MS = 0.001
MINUTE = 60.0
HOUR = 3600.0


# --- N121 -------------------------------------------------------------------------------


def test_n121_exponential_per_item_limiter():
    limiter = ItemExponentialFailureRateLimiter(1 * MS, 1.0)
    assert [limiter.when("one") for _ in range(5)] == [0.001, 0.002, 0.004, 0.008, 0.016]
    assert limiter.num_requeues("one") == 5

    assert limiter.when("two") == 0.001
    assert limiter.when("two") == 0.002
    assert limiter.num_requeues("two") == 2

    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == 0.001
    # Items are independent: forgetting one left two alone.
    assert limiter.num_requeues("two") == 2


def test_n121_forget_unknown_item_is_harmless():
    limiter = ItemExponentialFailureRateLimiter(1 * MS, 1.0)
    limiter.forget("never-seen")
    assert limiter.num_requeues("never-seen") == 0


# --- N122 -------------------------------------------------------------------------------


def test_n122_exponential_caps_without_overflow():
    limiter = ItemExponentialFailureRateLimiter(1 * MS, 1000.0)
    for _ in range(5):
        limiter.when("one")
    assert limiter.when("one") == 0.032  # the 6th call
    for _ in range(1000):
        limiter.when("overflow1")
    assert limiter.when("overflow1") == 1000.0

    limiter = ItemExponentialFailureRateLimiter(1 * MINUTE, 1000 * HOUR)
    limiter.when("two")
    limiter.when("two")
    assert limiter.when("two") == 4 * MINUTE  # the 3rd call
    for _ in range(1000):
        limiter.when("overflow2")
    assert limiter.when("overflow2") == 1000 * HOUR


def test_n122_beyond_float_range_gives_max_delay():
    # 2**1100 seconds does not fit in a float: the answer is max_delay, not an error.
    limiter = ItemExponentialFailureRateLimiter(1.0, 5.0)
    for _ in range(1100):
        limiter.when("x")
    assert limiter.when("x") == 5.0
    assert limiter.num_requeues("x") == 1101

    # Even with an unbounded max_delay nothing raises; the delay just becomes infinite.
    unbounded = ItemExponentialFailureRateLimiter(1.0, math.inf)
    for _ in range(1100):
        unbounded.when("x")
    assert unbounded.when("x") == math.inf


def test_n122_zero_base_delay_is_always_zero():
    limiter = ItemExponentialFailureRateLimiter(0.0, 1.0)
    assert [limiter.when("a") for _ in range(3000)][-1] == 0.0
    assert limiter.num_requeues("a") == 3000


@settings(max_examples=60, deadline=None)
@given(
    base=st.floats(min_value=0.0, max_value=1e6, allow_nan=False),
    max_delay=st.floats(min_value=0.0, max_value=1e12, allow_nan=False),
    calls=st.integers(min_value=1, max_value=1200),
)
def test_n122_property_monotone_and_capped(base, max_delay, calls):
    limiter = ItemExponentialFailureRateLimiter(base, max_delay)
    delays = [limiter.when("item") for _ in range(calls)]
    assert all(0.0 <= d <= max_delay for d in delays)
    assert all(a <= b for a, b in itertools.pairwise(delays))
    assert delays[0] == min(base, max_delay)
    assert limiter.num_requeues("item") == calls


# --- N123 -------------------------------------------------------------------------------


def test_n123_fast_slow_limiter():
    limiter = ItemFastSlowRateLimiter(5 * MS, 10.0, 3)
    assert [limiter.when("one") for _ in range(5)] == [0.005, 0.005, 0.005, 10.0, 10.0]
    assert limiter.num_requeues("one") == 5

    assert [limiter.when("two") for _ in range(2)] == [0.005, 0.005]
    assert limiter.num_requeues("two") == 2

    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == 0.005


def test_n123_zero_fast_attempts_is_always_slow():
    limiter = ItemFastSlowRateLimiter(5 * MS, 10.0, 0)
    assert limiter.when("one") == 10.0


# --- N124 -------------------------------------------------------------------------------


def test_n124_max_of_limiter():
    limiter = MaxOfRateLimiter(
        ItemFastSlowRateLimiter(5 * MS, 3.0, 3),
        ItemExponentialFailureRateLimiter(1 * MS, 1.0),
    )
    assert [limiter.when("one") for _ in range(5)] == [0.005, 0.005, 0.005, 3.0, 3.0]
    assert limiter.num_requeues("one") == 5

    assert [limiter.when("two") for _ in range(2)] == [0.005, 0.005]
    assert limiter.num_requeues("two") == 2

    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == 0.005


def test_n124_every_sub_limiter_is_asked():
    fast_slow = ItemFastSlowRateLimiter(5 * MS, 3.0, 3)
    exponential = ItemExponentialFailureRateLimiter(1 * MS, 1.0)
    limiter = MaxOfRateLimiter(fast_slow, exponential)
    for _ in range(4):
        limiter.when("one")
    assert fast_slow.num_requeues("one") == 4
    assert exponential.num_requeues("one") == 4
    limiter.forget("one")
    assert fast_slow.num_requeues("one") == 0
    assert exponential.num_requeues("one") == 0


@settings(max_examples=40, deadline=None)
@given(
    fast=st.floats(min_value=0, max_value=100, allow_nan=False),
    slow=st.floats(min_value=0, max_value=100, allow_nan=False),
    attempts=st.integers(min_value=0, max_value=5),
    base=st.floats(min_value=0, max_value=10, allow_nan=False),
    cap=st.floats(min_value=0, max_value=100, allow_nan=False),
    calls=st.integers(min_value=1, max_value=30),
)
def test_n124_property_max_of_is_at_least_each_part(fast, slow, attempts, base, cap, calls):
    # Twin limiters fed the same calls predict what each part answers inside MaxOf.
    parts = [
        ItemFastSlowRateLimiter(fast, slow, attempts),
        ItemExponentialFailureRateLimiter(base, cap),
    ]
    twins = [
        ItemFastSlowRateLimiter(fast, slow, attempts),
        ItemExponentialFailureRateLimiter(base, cap),
    ]
    limiter = MaxOfRateLimiter(*parts)
    for _ in range(calls):
        combined = limiter.when("x")
        answers = [twin.when("x") for twin in twins]
        assert combined == max(answers)
        assert all(combined >= a for a in answers)
    assert limiter.num_requeues("x") == calls


# --- N125 -------------------------------------------------------------------------------


class _StepLimiter:
    """Returns `first` for the first `steps` calls per item, then `after` (a test double)."""

    def __init__(self, first: float, after: float, steps: int) -> None:
        self.first, self.after, self.steps = first, after, steps
        self.counts: dict[object, int] = {}

    def when(self, item: object) -> float:
        n = self.counts.get(item, 0)
        self.counts[item] = n + 1
        return self.first if n < self.steps else self.after

    def forget(self, item: object) -> None:
        self.counts.pop(item, None)

    def num_requeues(self, item: object) -> int:
        return self.counts.get(item, 0)


def test_n125_with_max_wait_caps_inner_delay():
    limiter = WithMaxWaitRateLimiter(_StepLimiter(5 * MS, 1000.0, 100), 500.0)
    assert [limiter.when("one") for _ in range(100)] == [0.005] * 100
    assert limiter.when("one") == 500.0
    assert limiter.num_requeues("one") == 101
    limiter.forget("one")
    assert limiter.num_requeues("one") == 0
    assert limiter.when("one") == 0.005


# --- N126 -------------------------------------------------------------------------------


def test_n126_bucket_limiter_delays_grow():
    clock = FakeClock()
    limiter = BucketRateLimiter(10, 3, clock=clock)
    # The bucket starts full: the burst goes through without waiting...
    assert [limiter.when("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    # ...then each reservation at the same instant waits 1/qps longer than the last.
    assert limiter.when("a") == pytest.approx(0.1)
    assert limiter.when("b") == pytest.approx(0.2)
    assert limiter.when("c") == pytest.approx(0.3)
    assert limiter.tokens() == pytest.approx(-3.0)
    # Time refills the bucket at qps tokens per second.
    clock.step(0.1)
    assert limiter.when("a") == pytest.approx(0.3)
    clock.step(1.0)  # back to full (tokens are capped at burst), not beyond
    assert limiter.tokens() == pytest.approx(3.0)
    assert [limiter.when("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.when("a") == pytest.approx(0.1)
    # It does not track items.
    assert limiter.num_requeues("a") == 0
    limiter.forget("a")
    assert limiter.when("a") == pytest.approx(0.2)


def test_n126_bucket_partial_refill():
    clock = FakeClock()
    limiter = BucketRateLimiter(4, 1, clock=clock)
    assert limiter.when("x") == 0.0
    clock.step(0.125)  # half a token back
    assert limiter.when("x") == pytest.approx(0.125)
    clock.step(0.125)
    assert limiter.when("x") == pytest.approx(0.25)


def test_n126_bucket_infinite_qps_never_waits():
    limiter = BucketRateLimiter(math.inf, 0, clock=FakeClock())
    assert [limiter.when("x") for _ in range(1000)] == [0.0] * 1000
    assert limiter.tokens() == 0.0


def test_n126_bucket_zero_burst_never_grants():
    # Like x/time/rate: a zero-sized bucket can never hold the token a reservation needs.
    clock = FakeClock()
    limiter = BucketRateLimiter(10, 0, clock=clock)
    assert limiter.when("x") == math.inf
    clock.step(100)
    assert limiter.when("x") == math.inf
    assert limiter.tokens() == 0.0


def test_n126_bucket_is_thread_safe():
    clock = FakeClock()
    limiter = BucketRateLimiter(100, 10, clock=clock)
    delays: list[float] = []
    lock = threading.Lock()

    def reserve() -> None:
        for _ in range(50):
            d = limiter.when("x")
            with lock:
                delays.append(d)

    threads = [threading.Thread(target=reserve) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # 200 reservations at one instant: 10 free, then 1/100 s apart, none lost or doubled.
    assert sorted(delays) == pytest.approx([max(0, i - 9) / 100 for i in range(200)])


# --- N127 -------------------------------------------------------------------------------


def test_n127_default_controller_rate_limiter():
    clock = FakeClock()
    limiter = default_controller_rate_limiter(clock=clock)
    assert isinstance(limiter, MaxOfRateLimiter)
    exponential, bucket = limiter.limiters
    assert isinstance(exponential, ItemExponentialFailureRateLimiter)
    assert (exponential.base_delay, exponential.max_delay) == (0.005, 1000.0)
    assert isinstance(bucket, BucketRateLimiter)
    assert (bucket.qps, bucket.burst) == (10.0, 100)

    # Per-item retries: 5 ms, 10 ms, 20 ms, ... (one item stays inside the burst of 100).
    assert [limiter.when("a") for _ in range(3)] == [0.005, 0.010, 0.020]
    # 5 ms * 2**17 < 1000 s < 5 ms * 2**18: capped from the 19th failure on.
    per_item = ItemExponentialFailureRateLimiter(0.005, 1000.0)
    delays = [per_item.when("a") for _ in range(20)]
    assert delays[17] < 1000.0
    assert delays[18] == delays[19] == 1000.0


def test_n127_default_controller_limits_overall_rate():
    clock = FakeClock()
    limiter = default_controller_rate_limiter(clock=clock)
    # 100 distinct items fail at once: the burst absorbs them (each waits its 5 ms)...
    assert {limiter.when(f"item-{i}") for i in range(100)} == {0.005}
    # ...the 101st and 102nd wait on the 10 qps bucket instead.
    assert limiter.when("item-100") == pytest.approx(0.1)
    assert limiter.when("item-101") == pytest.approx(0.2)


def test_n127_default_item_based_rate_limiter():
    limiter = default_item_based_rate_limiter()
    assert (limiter.base_delay, limiter.max_delay) == (0.001, 1000.0)
    assert [limiter.when("a") for _ in range(3)] == [0.001, 0.002, 0.004]


# --- protocol, validation, thread safety ------------------------------------------------


def test_every_limiter_satisfies_the_protocol():
    limiters = [
        ItemExponentialFailureRateLimiter(0.001, 1.0),
        ItemFastSlowRateLimiter(0.001, 1.0, 1),
        BucketRateLimiter(1, 1, clock=FakeClock()),
        MaxOfRateLimiter(ItemExponentialFailureRateLimiter(0.001, 1.0)),
        WithMaxWaitRateLimiter(ItemExponentialFailureRateLimiter(0.001, 1.0), 1.0),
        default_controller_rate_limiter(),
        _StepLimiter(0, 0, 0),
    ]
    for limiter in limiters:
        assert isinstance(limiter, RateLimiter)
        assert repr(limiter)


@pytest.mark.parametrize(
    ("make", "error", "argument"),
    [
        (lambda: ItemExponentialFailureRateLimiter(-1, 1), ValueError, "base_delay"),
        (lambda: ItemExponentialFailureRateLimiter(1, -1), ValueError, "max_delay"),
        (lambda: ItemExponentialFailureRateLimiter(math.nan, 1), ValueError, "base_delay"),
        (lambda: ItemExponentialFailureRateLimiter("1", 1), TypeError, "base_delay"),
        (lambda: ItemFastSlowRateLimiter(-1, 1, 1), ValueError, "fast_delay"),
        (lambda: ItemFastSlowRateLimiter(1, -1, 1), ValueError, "slow_delay"),
        (lambda: ItemFastSlowRateLimiter(1, 1, -1), ValueError, "max_fast_attempts"),
        (lambda: ItemFastSlowRateLimiter(1, 1, 1.5), TypeError, "max_fast_attempts"),
        (lambda: BucketRateLimiter(0, 1), ValueError, "qps"),
        (lambda: BucketRateLimiter(-1, 1), ValueError, "qps"),
        (lambda: BucketRateLimiter(math.nan, 1), ValueError, "qps"),
        (lambda: BucketRateLimiter(1, -1), ValueError, "burst"),
        (lambda: BucketRateLimiter(1, 1.5), TypeError, "burst"),
        (lambda: MaxOfRateLimiter(), ValueError, "limiters"),
        (lambda: MaxOfRateLimiter(object()), TypeError, "limiters"),
        (lambda: WithMaxWaitRateLimiter(object(), 1), TypeError, "limiter"),
        (
            lambda: WithMaxWaitRateLimiter(ItemExponentialFailureRateLimiter(1, 1), -1),
            ValueError,
            "max_delay",
        ),
    ],
)
def test_constructor_arguments_are_validated(make, error, argument):
    with pytest.raises(error, match=argument):
        make()


def test_per_item_counts_are_thread_safe():
    limiter = ItemExponentialFailureRateLimiter(0.001, 1.0)

    def fail_many() -> None:
        for _ in range(500):
            limiter.when("shared")

    threads = [threading.Thread(target=fail_many) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert limiter.num_requeues("shared") == 2000
