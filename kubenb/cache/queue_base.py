"""What FIFO, DeltaFIFO and RealFIFO share: the lock and condition, `has_synced`, `close`.

All three queues of tools/cache sync the same way (the first `replace` counts the
items it queued; the queue has synced once a write came first or that many pops have
happened) and close the same way (blocked pops wake; queued items are still handed
out). Keeping it in one place keeps the three from drifting apart.
"""

from __future__ import annotations

import threading
from collections.abc import Sized

from kubenb.errors import FIFOClosedError

__all__ = [
    "QueueBase",
]


class QueueBase:
    """The shared state and lifecycle of the cache queues."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._waiters = 0  # threads blocked in pop; lets writers skip notify() when 0
        self._populated = False
        self._initial_population_count = 0
        self._closed = False

    def has_synced(self) -> bool:
        """True once a write came before any `replace`, or every item the first
        `replace` queued has been popped."""
        with self._lock:
            return self._populated and self._initial_population_count == 0

    def _wait_for_item_locked(self, items: Sized) -> None:
        """With the lock held: block until `items` is non-empty; `FIFOClosedError`
        once the queue is closed and empty. Counts the waiter, so writers notify
        only when someone waits."""
        while not items:
            if self._closed:
                raise FIFOClosedError()
            self._waiters += 1
            try:
                self._cond.wait()
            finally:
                self._waiters -= 1

    def _count_pop_locked(self) -> bool:
        """With the lock held: account for one pop; True while the popped item still
        belongs to the first `replace` (the `is_in_initial_list` of handlers)."""
        count = self._initial_population_count
        if count > 0:
            self._initial_population_count = count - 1
        return count != 0 or not self._populated

    def close(self) -> None:
        """Close the queue and wake every blocked `pop`. Queued items are still handed
        out, and writes still work; only a pop on an empty queue then fails."""
        with self._lock:
            self._closed = True
            self._cond.notify_all()

    def is_closed(self) -> bool:
        """Whether `close` was called."""
        with self._lock:
            return self._closed

    def __bool__(self) -> bool:
        # Always truthy, so `queue or default` never swaps out an empty queue.
        return True
