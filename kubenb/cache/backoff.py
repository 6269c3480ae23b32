"""Backoff for the Reflector's retry loops, driven by a clock (apimachinery's `wait`).

client-go's reflector waits between ListAndWatch attempts with an exponential,
jittered, capped delay that resets after a quiet spell: 800 ms doubling to 30 s,
each delay uniform in [d, 2d), back to 800 ms after 2 minutes without a backoff
(G66). A clock makes every wait steppable in tests and teaching notebooks.
"""

from __future__ import annotations

import random
import threading

from kubenb.clock import Clock, RealClock

__all__ = [
    "ExponentialBackoff",
    "RetryWithDeadline",
]


class ExponentialBackoff:
    """`next()` returns the next delay in seconds (client-go's backoff manager)."""

    def __init__(self, initial: float = 0.8, cap: float = 30.0, reset_after: float = 120.0,
                 factor: float = 2.0, jitter: float = 1.0, clock: Clock | None = None,
                 rand: random.Random | None = None) -> None:
        self.initial = initial
        self.cap = cap
        self.reset_after = reset_after
        self.factor = factor
        self.jitter = jitter
        self.clock = clock or RealClock()
        self._random = rand or random.Random()
        self._lock = threading.Lock()
        self._duration = initial
        self._last: float | None = None

    def next(self) -> float:
        """The delay to wait now; the base grows by `factor` up to `cap`."""
        with self._lock:
            now = self.clock.now()
            if self._last is not None and now - self._last >= self.reset_after:
                self._duration = self.initial
            self._last = now
            base = self._duration
            self._duration = min(self._duration * self.factor, self.cap)
            if self.jitter > 0:
                return base + self._random.random() * self.jitter * base
            return base

    def reset(self) -> None:
        with self._lock:
            self._duration = self.initial
            self._last = None


class RetryWithDeadline:
    """Retry 500s without a relist only inside a window (G65, `MaxInternalErrorRetryDuration`).

    The window opens at the first error and re-opens when `reset_after` has passed
    since the previous one. A zero `max_retry_duration` never retries.
    """

    def __init__(self, max_retry_duration: float, reset_after: float = 60.0,
                 clock: Clock | None = None) -> None:
        self.max_retry_duration = max_retry_duration
        self.reset_after = reset_after
        self.clock = clock or RealClock()
        self._first: float | None = None
        self._last: float | None = None

    def reset(self) -> None:
        """Close the window (client-go makes a fresh one for every watch loop)."""
        self._first = None
        self._last = None

    def after(self) -> None:
        """Record an error now."""
        now = self.clock.now()
        if self._last is None or now - self._last >= self.reset_after:
            self._first = now
        self._last = now

    def should_retry(self) -> bool:
        """True while inside the window; once past it the window closes, so the next
        error opens a new one (Go's `ShouldRetry` resets the same way)."""
        if self.max_retry_duration <= 0 or self._first is None:
            return False
        if self.clock.now() - self._first <= self.max_retry_duration:
            return True
        self.reset()
        return False
