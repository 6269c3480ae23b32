"""Sync tracking: "has every item of the initial list been handled?" (client-go
`tools/cache/synctrack`).

An informer is synced once its initial list is in its store, but a handler behind it
is synced only once it has also *handled* every add of that list. These trackers hold
that second half: a count (or set) of initial-list items started and not finished,
combined with the upstream's own `has_synced`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from kubenb.errors import KubenbError

__all__ = ["AsyncTracker", "SingleFileTracker"]

K = TypeVar("K", bound=Hashable)


class SingleFileTracker:
    """Counts initial-list items handed to a consumer that handles them in order
    (a processor listener), so `has_synced` can wait for the last one.

    Call `start()` when an initial-list item is queued and `finished()` once it has
    been handled. `finished()` without a matching `start()` is a logic error: it
    raises (client-go panics) and leaves the counter negative, so `has_synced` keeps
    answering true rather than ever going back to false.
    """

    __slots__ = ("_count", "_lock", "upstream_has_synced")

    def __init__(self, upstream_has_synced: Callable[[], bool]) -> None:
        self.upstream_has_synced = upstream_has_synced
        self._count = 0
        self._lock = threading.Lock()

    def start(self) -> None:
        """One more initial-list item is on its way to the consumer."""
        with self._lock:
            self._count += 1

    def finished(self) -> None:
        """One initial-list item has been handled. Raises on a negative counter."""
        with self._lock:
            self._count -= 1
            count = self._count
        if count < 0:
            raise KubenbError(
                "synctrack: negative counter; this logic error means has_synced may "
                "return an incorrect value"
            )

    def has_synced(self) -> bool:
        """True when upstream has synced and no started item is still unfinished.

        Upstream is asked first and without our lock held: it may take its own
        locks, and the count read afterwards can then not be stale."""
        if not self.upstream_has_synced():
            return False
        with self._lock:
            return self._count <= 0

    def pending(self) -> int:
        """Initial-list items started and not yet finished (for stats and views)."""
        with self._lock:
            return max(self._count, 0)

    def __repr__(self) -> str:
        return f"<SingleFileTracker pending={self.pending()}>"


class AsyncTracker(Generic[K]):
    """Tracks initial-list items by key, for consumers that handle them out of order
    (several workers behind a workqueue).

    Unlike `SingleFileTracker`, `finished(key)` without `start(key)` is harmless, so
    it can be called for every processed key without plumbing `is_in_initial_list`
    through the queue.
    """

    def __init__(self, upstream_has_synced: Callable[[], bool]) -> None:
        self.upstream_has_synced = upstream_has_synced
        self._waiting: set[K] = set()
        self._lock = threading.Lock()

    def start(self, key: K) -> None:
        """`key` is part of the initial list and is about to be processed."""
        with self._lock:
            self._waiting.add(key)

    def finished(self, key: K) -> None:
        """`key` has been processed (a no-op for a key never started)."""
        with self._lock:
            self._waiting.discard(key)

    def has_synced(self) -> bool:
        """True when upstream has synced and every started key has finished."""
        if not self.upstream_has_synced():
            return False
        with self._lock:
            return not self._waiting

    def pending(self) -> int:
        """Keys started and not yet finished."""
        with self._lock:
            return len(self._waiting)

    def __repr__(self) -> str:
        return f"<AsyncTracker pending={self.pending()}>"
