"""Timestamps and names a controller writes into API objects.

API objects carry wall time, yet tests and teaching notebooks step a FakeClock: a
`WallClock` is the wall time when made plus the clock's elapsed time, so stepping the
clock moves the timestamps too. `seconds_time` is metav1.Time's wire form; `event_name`
gives Events client-go's "<object>.<unix nanos in hex>" names, strictly increasing in
this process so two events at one FakeClock instant still get two names.
"""

from __future__ import annotations

import threading
import time

from kubenb.clock import Clock
from kubenb.timeutil import format_time

__all__ = ["WallClock", "event_name", "seconds_time"]


class WallClock:
    """Epoch seconds that advance with `clock`: the wall time when made, plus the clock's
    elapsed time. Timestamps in API objects must be wall time; a FakeClock still moves them."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._wall0 = time.time()
        self._clock0 = clock.now()

    def now(self) -> float:
        return self._wall0 + (self.clock.now() - self._clock0)


def seconds_time(epoch: float) -> str:
    """metav1.Time on the wire: whole seconds, UTC."""
    return format_time(int(epoch))


class _Names:
    """Event names "<object>.<unix nanos in hex>", strictly increasing per process so two
    events in one FakeClock instant still get two names."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last = 0

    def make(self, object_name: str, wall: float) -> str:
        with self._lock:
            nanos = max(int(wall * 1e9), self._last + 1)
            self._last = nanos
        return f"{object_name}.{nanos:x}"


_NAMES = _Names()


def event_name(object_name: str, wall: float) -> str:
    """A new Event's name: the object's name and the wall time in hex nanoseconds."""
    return _NAMES.make(object_name, wall)
