"""The Reflector's backoff and internal-error retry window (spec items G65 and G66).

Both take a clock; every test drives a FakeClock and a stubbed random source, so the
jitter is exact and nothing sleeps.
"""

from __future__ import annotations

import random

import pytest

from kubenb.cache.backoff import ExponentialBackoff, RetryWithDeadline
from kubenb.clock import FakeClock


class FixedRandom(random.Random):
    """`random()` always returns `value` (0 gives the low end of the jitter range)."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def test_g066_default_delays_double_from_800ms_and_cap_at_30s() -> None:
    backoff = ExponentialBackoff(clock=FakeClock(), rand=FixedRandom(0.0))
    delays = [round(backoff.next(), 6) for _ in range(9)]
    assert delays == [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0, 30.0]


def test_g066_jitter_keeps_each_delay_in_d_to_2d() -> None:
    low = ExponentialBackoff(clock=FakeClock(), rand=FixedRandom(0.0))
    high = ExponentialBackoff(clock=FakeClock(), rand=FixedRandom(0.999999))
    for _ in range(10):
        d_low, d_high = low.next(), high.next()
        assert d_low <= d_high < 2 * d_low
    # once capped: [30 s, 60 s)
    assert low.next() == 30.0
    assert 59.9 < high.next() < 60.0


def test_g066_real_random_jitter_stays_in_range() -> None:
    backoff = ExponentialBackoff(clock=FakeClock(), rand=random.Random(7))
    base = 0.8
    for _ in range(12):
        delay = backoff.next()
        assert base <= delay < 2 * base
        base = min(base * 2, 30.0)


def test_g066_resets_to_initial_after_two_quiet_minutes() -> None:
    clock = FakeClock()
    backoff = ExponentialBackoff(clock=clock, rand=FixedRandom(0.0))
    for _ in range(4):
        backoff.next()
    clock.step(119.9)
    assert backoff.next() == pytest.approx(12.8)  # not quiet long enough
    clock.step(120.0)
    assert backoff.next() == pytest.approx(0.8)
    assert backoff.next() == pytest.approx(1.6)


def test_g066_custom_manager_and_explicit_reset() -> None:
    backoff = ExponentialBackoff(initial=0.001, cap=0.05, reset_after=0.1, factor=2.0,
                                 jitter=0.0, clock=FakeClock())
    assert [backoff.next() for _ in range(8)] == pytest.approx(
        [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.05, 0.05])
    backoff.reset()
    assert backoff.next() == pytest.approx(0.001)


def _count_retries(max_duration: float, rewind_at: int = 0) -> int:
    """client-go's TestRetryInternalError loop: each failing watch takes 1 s; returns
    how many of them were retried before the window closed."""
    clock = FakeClock(1000.0)
    retry = RetryWithDeadline(max_duration, clock=clock)
    calls = 0
    while calls < 1000:
        calls += 1
        if calls == rewind_at:
            clock.step(60.0)
        clock.step(1.0)
        retry.after()
        if not retry.should_retry():
            break
    return calls - 1


@pytest.mark.parametrize(("duration", "rewind_at", "retries"),
                         [(0.0, 0, 0), (30.0, 0, 31), (30.0, 10, 40)])
def test_g065_internal_error_retry_window(duration: float, rewind_at: int,
                                          retries: int) -> None:
    assert _count_retries(duration, rewind_at) == retries


def test_g065_window_closes_and_reopens_on_the_next_error() -> None:
    clock = FakeClock()
    retry = RetryWithDeadline(5.0, clock=clock)
    assert not retry.should_retry()  # no error yet
    retry.after()
    clock.step(5.0)
    assert retry.should_retry()
    clock.step(0.5)
    assert not retry.should_retry()  # past the window: it closes ...
    retry.after()
    assert retry.should_retry()  # ... and the next error opens a new one


def test_g065_errors_within_a_minute_keep_the_window_a_quiet_minute_resets_it() -> None:
    clock = FakeClock()
    same = RetryWithDeadline(30.0, reset_after=60.0, clock=clock)
    same.after()
    clock.step(25.0)
    same.after()
    clock.step(59.0)
    same.after()  # 59 s after the previous error: still the window opened 84 s ago
    assert not same.should_retry()

    fresh = RetryWithDeadline(30.0, reset_after=60.0, clock=clock)
    fresh.after()
    clock.step(80.0)
    fresh.after()  # 80 s of quiet: a new window opens now
    assert fresh.should_retry()
