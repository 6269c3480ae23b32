"""Clocks: every timer in kubenb reads time and waits through one of these.

`RealClock` is the monotonic wall of the machine. `FakeClock` only moves when a test
or a teaching notebook calls `step()`, so backoff, resync and delaying-queue timers
can be driven deterministically instead of slept through (client-go's
`k8s.io/utils/clock/testing.FakeClock`).

Waiting is expressed against a `threading.Condition` the caller already holds, so a
component can wait for "either my state changed or this much clock time passed" with
one primitive, whichever clock it was given.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "FakeClock", "RealClock"]

#: How often an Event-based wait on a FakeClock re-checks its event (real seconds).
_EVENT_POLL_SECONDS = 0.01


@runtime_checkable
class Clock(Protocol):
    """What kubenb needs from a clock (client-go's `clock.WithTicker`, reduced)."""

    def now(self) -> float: ...

    def since(self, t: float) -> float: ...

    def sleep(self, seconds: float) -> None: ...

    def wait(self, cond: threading.Condition, timeout: float | None) -> None: ...

    def wait_until(self, cond: threading.Condition, deadline: float) -> None: ...

    def wait_event(self, event: threading.Event, timeout: float | None) -> bool: ...


class RealClock:
    """Monotonic time of this machine, in seconds."""

    def now(self) -> float:
        return time.monotonic()

    def since(self, t: float) -> float:
        return self.now() - t

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def wait(self, cond: threading.Condition, timeout: float | None) -> None:
        """Wait on `cond` (held by the caller) until notified or `timeout` passes."""
        if timeout is not None and timeout <= 0:
            return
        cond.wait(timeout)

    def wait_until(self, cond: threading.Condition, deadline: float) -> None:
        """Wait on `cond` (held by the caller) until notified or `deadline` (clock time)."""
        self.wait(cond, deadline - self.now())

    def wait_event(self, event: threading.Event, timeout: float | None) -> bool:
        """Wait until `event` is set or `timeout` passes; return whether it is set."""
        if timeout is not None and timeout <= 0:
            return event.is_set()
        return event.wait(timeout)

    def __repr__(self) -> str:
        return "RealClock()"


class FakeClock:
    """A clock that moves only when `step()` or `set_time()` is called.

    Threads waiting on it (through `sleep`, `wait` or `wait_event`) are woken as soon
    as the time they wait for is reached; `has_waiters()` lets a test know that a
    background thread is parked on the clock before it steps time.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._lock = threading.Lock()
        self._now = float(start)
        # Each waiter is a one-element list holding (deadline, condition); the
        # condition is notified once the deadline is reached. The list object is the
        # waiter's identity, so two waits on one condition stay independent.
        self._waiters: list[list[tuple[float, threading.Condition]]] = []
        self._sleep_cond = threading.Condition()

    def now(self) -> float:
        with self._lock:
            return self._now

    def since(self, t: float) -> float:
        return self.now() - t

    def step(self, seconds: float) -> None:
        """Advance time by `seconds` and wake every waiter whose time has come."""
        if seconds < 0:
            raise ValueError(f"FakeClock.step: cannot step back in time ({seconds} s)")
        with self._lock:
            self._now += seconds
        self._fire()

    def set_time(self, t: float) -> None:
        """Jump to absolute time `t` (never backwards) and wake due waiters."""
        with self._lock:
            if t < self._now:
                raise ValueError(f"FakeClock.set_time: {t} is before now ({self._now})")
            self._now = float(t)
        self._fire()

    def has_waiters(self) -> bool:
        """True while any thread waits on this clock for a future time."""
        with self._lock:
            return bool(self._waiters)

    def waiters(self) -> int:
        """How many waits are parked on this clock (for tests and teaching views)."""
        with self._lock:
            return len(self._waiters)

    def _fire(self) -> None:
        with self._lock:
            due = [w[0] for w in self._waiters if w[0][0] <= self._now]
            self._waiters = [w for w in self._waiters if w[0][0] > self._now]
        # Notify outside the clock lock: the waiter holds its condition while it
        # registers, so taking the condition here cannot miss its wait().
        for _, cond in due:
            with cond:
                cond.notify_all()

    def _register(
        self, deadline: float, cond: threading.Condition
    ) -> list[tuple[float, threading.Condition]] | None:
        """Register a waiter and return its token; None when the deadline has passed."""
        with self._lock:
            if deadline <= self._now:
                return None
            token = [(deadline, cond)]
            self._waiters.append(token)
            return token

    def _unregister(self, token: list[tuple[float, threading.Condition]]) -> None:
        with self._lock:
            self._waiters = [w for w in self._waiters if w is not token]

    def wait(self, cond: threading.Condition, timeout: float | None) -> None:
        """Wait on `cond` (held by the caller) until notified or clock time passes.

        Like `Condition.wait`, it may return early; callers re-check their state.
        """
        if timeout is None:
            cond.wait()
            return
        self.wait_until(cond, self.now() + timeout)

    def wait_until(self, cond: threading.Condition, deadline: float) -> None:
        """Wait on `cond` (held by the caller) until notified or the clock reaches
        `deadline`. Prefer this over `wait` when the deadline was computed earlier:
        a `step` in between cannot push it later."""
        token = self._register(deadline, cond)
        if token is None:
            return
        try:
            cond.wait()
        finally:
            self._unregister(token)

    def sleep(self, seconds: float) -> None:
        """Block until the clock has moved `seconds` forward."""
        deadline = self.now() + seconds
        with self._sleep_cond:
            while self.now() < deadline:
                self.wait(self._sleep_cond, deadline - self.now())

    def wait_event(self, event: threading.Event, timeout: float | None) -> bool:
        """Wait until `event` is set or the clock passes `timeout`.

        An Event cannot notify the clock, so the event is re-checked every few real
        milliseconds; the clock deadline itself is exact.
        """
        if timeout is None:
            return event.wait()
        deadline = self.now() + timeout
        cond = threading.Condition()
        with cond:
            token = self._register(deadline, cond)
            if token is None:
                return event.is_set()
            try:
                while not event.is_set() and self.now() < deadline:
                    cond.wait(_EVENT_POLL_SECONDS)
            finally:
                self._unregister(token)
        return event.is_set()

    def __repr__(self) -> str:
        return f"FakeClock(now={self.now()!r})"
