"""The work queue (client-go's `util/workqueue/queue.go`, the `Typed` queue).

Three structures under one lock give the workqueue its guarantees:

* the *dirty* set: every item that needs processing. Adding an item already dirty
  does nothing, so a burst of events for one key collapses into one reconcile;
* the *processing* set: items handed out by `get()` and not yet `done()`. An item
  re-added while processing is marked dirty but not queued, so no two workers ever
  hold the same item; `done()` queues it again;
* the FIFO of dirty items that are not processing, in the order they became dirty.

Items must be hashable (Go requires `comparable`); object keys ("ns/name") are the
usual items. `snapshot()` reads all three at one instant, for views and tests.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol, runtime_checkable

from kubenb.clock import Clock, RealClock
from kubenb.workqueue.metrics import (
    MetricsProvider,
    MetricsSnapshot,
    NoMetrics,
    QueueMetrics,
    new_queue_metrics,
)

__all__ = [
    "DEFAULT_UNFINISHED_WORK_UPDATE_PERIOD",
    "UPDATER_LINGER",
    "FifoQueueStorage",
    "Queue",
    "QueueSnapshot",
    "QueueStorage",
    "default_queue",
]

#: How often a named queue refreshes its unfinished-work metrics (clock seconds).
DEFAULT_UNFINISHED_WORK_UPDATE_PERIOD = 0.5
#: Real seconds the metrics updater stays parked with nothing processing before it
#: ends (the next `get()` starts it again).
UPDATER_LINGER = 1.0


@runtime_checkable
class QueueStorage(Protocol):
    """The order in which queued items are handed out (client-go's `Queue[T]` interface).

    Called only with the work queue's lock held. `touch` is called when an item that
    is already queued is added again, so a storage that orders by priority can react.
    """

    def touch(self, item: Hashable) -> None: ...

    def push(self, item: Hashable) -> None: ...

    def __len__(self) -> int: ...

    def pop(self) -> Hashable: ...


class FifoQueueStorage:
    """First in, first out: the default storage (client-go's slice-based `queue`)."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: deque[Hashable] = deque()

    def touch(self, item: Hashable) -> None:
        pass

    def push(self, item: Hashable) -> None:
        self._items.append(item)

    def __len__(self) -> int:
        return len(self._items)

    def pop(self) -> Hashable:
        return self._items.popleft()

    def __iter__(self) -> Iterator[Hashable]:
        """The queued items in the order `pop` hands them out (lets a snapshot list them)."""
        return iter(self._items)

    def __repr__(self) -> str:
        return f"FifoQueueStorage({list(self._items)!r})"


def default_queue() -> QueueStorage:
    """A new FIFO storage (client-go's `DefaultQueue`)."""
    return FifoQueueStorage()


@dataclass(frozen=True)
class QueueSnapshot:
    """What a work queue holds at one instant (`Queue.snapshot()`); never changes after.

    `queued`: items waiting to be handed out, in hand-out order when `ordered` (the
    storage can be iterated, as the default FIFO can); `dirty`: items that need
    processing (queued, or processing and added again); `processing`: items handed out
    and not yet done; `redo`: the processing items that are dirty too (queued again on
    `done`); `waiting`: `(item, ready_at)` pairs parked by `add_after`, soonest first,
    `ready_at` on the queue's clock, whose time at the snapshot is `now`. The listed
    collections hold at most the snapshot's `limit` items each; the `*_count` fields
    are always exact.
    """

    queued: tuple[Hashable, ...]
    ordered: bool
    dirty: frozenset[Hashable]
    processing: frozenset[Hashable]
    redo: frozenset[Hashable]
    waiting: tuple[tuple[Hashable, float], ...]
    shutting_down: bool
    now: float
    queued_count: int
    dirty_count: int
    processing_count: int
    waiting_count: int


def _unhashable(item: Any) -> TypeError:
    return TypeError(
        f"workqueue items must be hashable (Go requires comparable), "
        f"got unhashable {type(item).__name__}: {item!r:.80}; use a key such as 'ns/name'"
    )


class Queue:
    """A work queue: dedup while waiting, never one item in two workers, fair FIFO.

    `name` turns metrics on (see `kubenb.workqueue.metrics`); `clock` times them.
    Keyword-only extras mirror client-go's `QueueConfig`: `metrics_provider` (default:
    the global provider), `queue` (the storage, default FIFO) and
    `unfinished_work_update_period` (how often, in clock seconds, a named queue
    refreshes its unfinished-work metrics, on a background thread that runs while
    items are processing).
    """

    def __init__(
        self,
        name: str = "",
        clock: Clock | None = None,
        *,
        metrics_provider: MetricsProvider | None = None,
        queue: QueueStorage | None = None,
        unfinished_work_update_period: float = DEFAULT_UNFINISHED_WORK_UPDATE_PERIOD,
    ) -> None:
        self._name = name
        self._clock: Clock = clock if clock is not None else RealClock()
        self._queue: QueueStorage = queue if queue is not None else default_queue()
        self._dirty: set[Hashable] = set()
        self._processing: set[Hashable] = set()
        self._lock = threading.Lock()
        # Getters wait on _cond; shut_down_with_drain waits on _drained. Two
        # conditions, one lock: a wake-up meant for a getter can't be eaten by the drain.
        self._cond = threading.Condition(self._lock)
        self._drained = threading.Condition(self._lock)
        self._shutting_down = False
        self._drain = False
        self._metrics: QueueMetrics | NoMetrics = new_queue_metrics(
            metrics_provider, name, self._clock
        )

        # Background threads stop through _bg_cond (its own lock: the queue lock is
        # never held while waiting for them).
        self._bg_cond = threading.Condition()
        self._bg_stop = False
        self._updater: threading.Thread | None = None
        # The updater runs while items are processing: get() starts it, and it sleeps
        # (off the clock) once nothing is, then ends after UPDATER_LINGER idle seconds,
        # so a cluster of idle controllers holds no metrics thread.
        self._updater_alive = False
        self._updater_parked = False
        if self._metrics.enabled and unfinished_work_update_period <= 0:
            raise ValueError(
                f"unfinished_work_update_period must be > 0, "
                f"got {unfinished_work_update_period!r}"
            )
        self._update_period = float(unfinished_work_update_period)

    # --- the Interface -----------------------------------------------------------

    def add(self, item: Hashable) -> None:
        """Mark `item` as needing processing; ignored once shutting down."""
        with self._lock:
            if self._shutting_down:
                return
            try:
                dirty = item in self._dirty
            except TypeError:
                raise _unhashable(item) from None
            if dirty:
                # Queued already (or processing and due again): collapse into one.
                if item not in self._processing:
                    self._queue.touch(item)
                return
            self._metrics.add(item)
            self._dirty.add(item)
            if item in self._processing:
                return  # queued again by done()
            self._queue.push(item)
            self._cond.notify()

    def __len__(self) -> int:
        """Items waiting to be handed out (not those processing); informational only."""
        with self._lock:
            return len(self._queue)

    def processing_items(self) -> list[Hashable]:
        """Items handed out by `get` and not yet `done`: what the workers hold now
        (for monitors; a snapshot taken under the queue's lock)."""
        with self._lock:
            return list(self._processing)

    def snapshot(self, limit: int | None = None) -> QueueSnapshot:
        """Everything the queue holds, read under its lock in one go: a consistent
        picture for a view or a test, never one that changes while it is read.

        `limit` bounds how many items each listed collection copies (counts stay
        exact), so sampling a deep queue stays cheap.
        """
        _check_limit(limit)
        with self._lock:
            return self._snapshot_locked(limit, (), 0)

    def __bool__(self) -> bool:
        # An empty queue is still a queue: `q or default` must not replace it.
        return True

    def get(self) -> tuple[Any, bool]:
        """Block until an item is ready; return `(item, False)`, or `(None, True)` once
        the queue is shutting down and empty. Call `done(item)` when finished."""
        with self._lock:
            while not len(self._queue) and not self._shutting_down:
                self._cond.wait()
            if not len(self._queue):
                return None, True
            item = self._queue.pop()
            self._metrics.get(item)
            self._processing.add(item)
            self._dirty.discard(item)
            wake = self._updater_parked
            self._updater_parked = False
            if self._metrics.enabled and not self._updater_alive and not self._shutting_down:
                # Started under the lock, so a shut_down() never finds it unstarted (the
                # new thread blocks on this lock until get() returns).
                self._updater_alive = True
                self._updater = threading.Thread(
                    target=self._update_unfinished_work_loop,
                    name=f"kubenb-workqueue-metrics-{self._name}",
                    daemon=True,
                )
                self._updater.start()
                wake = False
        if wake:  # outside the queue lock: the updater takes _bg_cond, then it
            with self._bg_cond:
                self._bg_cond.notify_all()
        return item, False

    def done(self, item: Hashable) -> None:
        """Finish processing `item`; if it was re-added meanwhile, queue it again."""
        with self._lock:
            try:
                processing = item in self._processing
            except TypeError:
                raise _unhashable(item) from None
            self._metrics.done(item)
            if not processing:
                # Misuse (done without get, or twice). client-go would queue a dirty
                # item a second time here; kubenb keeps "queued at most once".
                return
            self._processing.discard(item)
            if item in self._dirty:
                self._queue.push(item)
                self._cond.notify()
            elif not self._processing:
                self._drained.notify_all()

    def shut_down(self) -> None:
        """Stop accepting items; getters drain what is queued, then get `(None, True)`.

        Returns without waiting for items being processed, and ends an ongoing
        `shut_down_with_drain`. Stops (and joins) the queue's background threads.
        """
        self._begin_shut_down(drain=False)
        self._stop_background()

    def shut_down_with_drain(self) -> None:
        """Like `shut_down`, then block until every item being processed is `done`.

        Items still queued are not waited for. A later `shut_down()` (e.g. from a
        second Ctrl-C) makes it return early. Workers must call `done`.
        """
        self._begin_shut_down(drain=True)
        self._stop_background()
        with self._lock:
            while self._processing and self._drain:
                self._drained.wait()

    def shutting_down(self) -> bool:
        """True once `shut_down` or `shut_down_with_drain` was called."""
        with self._lock:
            return self._shutting_down

    # --- metrics and introspection -------------------------------------------------

    @property
    def name(self) -> str:
        """The queue's name ("" for an unnamed queue, which records no metrics)."""
        return self._name

    @property
    def clock(self) -> Clock:
        """The clock that times this queue."""
        return self._clock

    def metrics(self) -> MetricsSnapshot:
        """A snapshot of this queue's metrics.

        For an unnamed queue (or the no-op provider) `enabled` is False and only
        `depth` is filled in: the number of dirty items, which is what the depth
        gauge of a named queue counts.
        """
        with self._lock:
            return self._metrics.snapshot(len(self._dirty))

    def __repr__(self) -> str:
        with self._lock:
            queued, processing, down = len(self._queue), len(self._processing), self._shutting_down
        return (
            f"{type(self).__name__}(name={self._name!r}, len={queued}, "
            f"processing={processing}, shutting_down={down})"
        )

    # --- internals -------------------------------------------------------------------

    def _snapshot_locked(
        self,
        limit: int | None,
        waiting: tuple[tuple[Hashable, float], ...],
        waiting_count: int,
    ) -> QueueSnapshot:
        """The snapshot, with the queue's lock held; subclasses pass what waits."""
        storage, dirty, processing = self._queue, self._dirty, self._processing
        ordered = False
        if isinstance(storage, Iterable):
            ordered, queued = True, tuple(islice(storage, limit))
        else:
            queued = tuple(islice((d for d in dirty if d not in processing), limit))
        listed_processing = frozenset(islice(processing, limit))
        return QueueSnapshot(
            queued=queued,
            ordered=ordered,
            dirty=frozenset(islice(dirty, limit)),
            processing=listed_processing,
            redo=frozenset(p for p in listed_processing if p in dirty),
            waiting=waiting,
            shutting_down=self._shutting_down,
            now=self._clock.now(),
            queued_count=len(storage),
            dirty_count=len(dirty),
            processing_count=len(processing),
            waiting_count=waiting_count,
        )

    def _begin_shut_down(self, drain: bool) -> None:
        with self._lock:
            self._drain = drain
            self._shutting_down = True
            self._cond.notify_all()
            self._drained.notify_all()

    def _stop_background(self) -> None:
        """Stop and join the background threads; subclasses extend it. Idempotent."""
        with self._bg_cond:
            self._bg_stop = True
            self._bg_cond.notify_all()
        updater = self._updater
        if updater is not None and updater is not threading.current_thread():
            updater.join()

    def _update_unfinished_work_loop(self) -> None:
        """Every `period`, while some item is processing; while none is, the gauges
        read 0 and the loop sleeps until `get()` hands one out (an idle queue wakes
        nothing)."""
        clock = self._clock
        period = self._update_period
        stale = False  # the gauges may still show work that has finished
        idle_since: float | None = None
        with self._bg_cond:
            while not self._bg_stop:
                with self._lock:
                    parked = not self._processing and not self._shutting_down
                    self._updater_parked = parked
                    if parked and stale:
                        self._metrics.update_unfinished_work()  # to 0, as the next tick would
                        stale = False
                    if not parked:
                        idle_since = None
                    elif idle_since is None:
                        idle_since = time.monotonic()
                    elif time.monotonic() - idle_since >= UPDATER_LINGER:
                        # Decided under the queue lock: a get() from now on starts another.
                        self._updater_parked = False
                        self._updater_alive = False
                        return
                if parked:
                    self._bg_cond.wait(UPDATER_LINGER)
                    continue
                deadline = clock.now() + period
                while not self._bg_stop and clock.now() < deadline:
                    clock.wait_until(self._bg_cond, deadline)
                if self._bg_stop:
                    return
                with self._lock:
                    if not self._shutting_down:
                        self._metrics.update_unfinished_work()
                        stale = True


def _check_limit(limit: int | None) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 0):
        raise ValueError(f"snapshot: limit must be None or an int >= 0, got {limit!r}")
