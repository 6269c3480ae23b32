"""A work queue that can add an item later (client-go's `util/workqueue/delaying_queue.go`).

`add_after(item, seconds)` parks the item in a heap ordered by ready time; one
background thread per queue adds each item when the queue's clock reaches its time.
That is how a controller requeues after a failure without a hot loop. Waiting runs
on the queue's clock, so a FakeClock `step()` releases items without sleeping, and
`waiting_settled()` tells a test (or an idle wait) when nothing more is due until the
clock moves again.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from kubenb.clock import Clock
from kubenb.workqueue.metrics import (
    MetricsProvider,
    QueueMetrics,
    RetryMetrics,
    new_retry_metrics,
)
from kubenb.workqueue.queue import (
    DEFAULT_UNFINISHED_WORK_UPDATE_PERIOD,
    Queue,
    QueueSnapshot,
    QueueStorage,
    _check_limit,
    _unhashable,
)

__all__ = ["MAX_WAIT", "DelayingQueue"]

_log = logging.getLogger(__name__)

#: The waiting loop re-checks the heap at least this often (client-go's `maxWait`):
#: insurance that a ready item never sits for longer, whatever happens to a timer.
MAX_WAIT = 10.0


@dataclass(order=True)
class _WaitFor:
    ready_at: float
    seq: int
    item: Any = field(compare=False)
    cancelled: bool = field(default=False, compare=False)


class DelayingQueue(Queue):
    """A `Queue` plus `add_after(item, seconds)`.

    Built to be subclassed (`RateLimitingQueue` is one): call
    `super().__init__(name=name, clock=clock)`. `shut_down()` drops the items still
    waiting and joins the waiting thread, so no thread is left behind.
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
        super().__init__(
            name,
            clock,
            metrics_provider=metrics_provider,
            queue=queue,
            unfinished_work_update_period=unfinished_work_update_period,
        )
        # Retries are counted only where the queue records metrics at all.
        self._retry_metrics: RetryMetrics | None = None
        if isinstance(self._metrics, QueueMetrics):
            self._retry_metrics = new_retry_metrics(metrics_provider, name)
            if self._retry_metrics is not None:
                self._metrics.attach_retries(self._retry_metrics.readable)

        # The heap and its index are guarded by _waiting_cond (its own lock; the
        # waiting thread may call add(), which takes the queue lock, while holding it).
        self._waiting_cond = threading.Condition()
        self._waiting: list[_WaitFor] = []
        self._waiting_by_item: dict[Hashable, _WaitFor] = {}
        # Items the loop took off the heap and is handing to add(), so a snapshot taken
        # meanwhile still shows them waiting until add() has queued them.
        self._moving: deque[_WaitFor] = deque()
        self._seq = itertools.count()
        self._waiting_stop = False
        # How many changes the loop has seen, and the clock time it will wake at next
        # (see waiting_settled).
        self._generation = 0
        self._seen_generation = -1
        self._next_wake = float("-inf")

        # Started by the first add_after that must wait: a queue never asked to wait
        # (most of a cluster's, most of the time) costs no thread.
        self._waiting_thread = threading.Thread(
            target=self._waiting_loop,
            name=f"kubenb-workqueue-delaying-{name}" if name else "kubenb-workqueue-delaying",
            daemon=True,
        )
        self._waiting_started = False

    def add_after(self, item: Hashable, seconds: float | timedelta) -> None:
        """Add `item` once `seconds` of clock time have passed.

        `seconds <= 0` adds at once. An item already waiting keeps the earlier of its
        two ready times. Ignored once the queue is shutting down. On a named queue
        every call that is not ignored counts as a retry in the metrics.
        """
        if isinstance(seconds, timedelta):
            seconds = seconds.total_seconds()
        try:
            hash(item)
        except TypeError:
            raise _unhashable(item) from None
        if self.shutting_down():
            return
        if self._retry_metrics is not None:
            self._retry_metrics.retry()
        if seconds <= 0:
            self.add(item)
            return
        with self._waiting_cond:
            if self._waiting_stop:
                return
            self._insert(item, self._clock.now() + seconds)
            self._generation += 1
            if not self._waiting_started:
                self._waiting_started = True
                self._waiting_thread.start()
            self._waiting_cond.notify()

    def waiting_settled(self) -> bool:
        """True when nothing waiting will be added until the clock moves: the waiting
        loop has taken in every `add_after` and sleeps until a clock time not yet
        reached (also True once the queue is shut down).

        Lets a test step a FakeClock and then know that nothing else is due, and lets
        an idle wait tell "a delayed item is about to be added" from "all is quiet".
        """
        with self._waiting_cond:
            if self._waiting_stop or not self._waiting_thread.is_alive():
                return True
            return self._seen_generation == self._generation and self._clock.now() < self._next_wake

    def snapshot(self, limit: int | None = None) -> QueueSnapshot:
        """`Queue.snapshot`, with the items parked by `add_after` in `waiting`.

        Reads the waiting heap and the queue under both their locks at once (the
        waiting loop takes them in that order too). An item the loop is handing to
        `add()` at that instant still shows as waiting, unless it is already dirty.
        """
        _check_limit(limit)
        with self._waiting_cond, self._lock:
            parked, dirty, processing = self._waiting_by_item, self._dirty, self._processing
            in_transit = [e for e in self._moving if e.item not in dirty
                          and e.item not in processing and e.item not in parked]
            count = len(parked) + len(in_transit)
            waiting: tuple[tuple[Hashable, float], ...] = ()
            if limit != 0:
                entries = [*parked.values(), *in_transit]
                soonest = sorted(entries) if limit is None else heapq.nsmallest(limit, entries)
                waiting = tuple((e.item, e.ready_at) for e in soonest)
            return self._snapshot_locked(limit, waiting, count)

    # --- internals -------------------------------------------------------------------

    def _insert(self, item: Hashable, ready_at: float) -> None:
        """Park `item` until `ready_at`, or move it earlier if it already waits."""
        existing = self._waiting_by_item.get(item)
        if existing is not None:
            if existing.ready_at <= ready_at:
                return
            existing.cancelled = True  # lazily dropped when it reaches the top
        entry = _WaitFor(ready_at, next(self._seq), item)
        heapq.heappush(self._waiting, entry)
        self._waiting_by_item[item] = entry

    def _waiting_loop(self) -> None:
        clock = self._clock
        heap = self._waiting
        cond = self._waiting_cond
        with cond:
            while not self._waiting_stop and not self.shutting_down():
                self._seen_generation = self._generation
                now = clock.now()
                ready: list[_WaitFor] = []
                while heap and (heap[0].cancelled or heap[0].ready_at <= now):
                    entry = heapq.heappop(heap)
                    if not entry.cancelled:
                        del self._waiting_by_item[entry.item]
                        ready.append(entry)
                if ready:
                    # Add without the heap's lock, so add() (or a subclass's override)
                    # may call add_after; the loop then looks at the heap again.
                    moving = self._moving
                    moving.extend(ready)
                    cond.release()
                    try:
                        for entry in ready:
                            try:
                                self.add(entry.item)
                            except Exception:
                                # A failing add() override must not kill the loop
                                # and strand every other waiting item.
                                _log.exception("workqueue %r: adding %r failed",
                                               self._name, entry.item)
                            finally:
                                with cond:
                                    moving.popleft()
                    finally:
                        cond.acquire()
                        moving.clear()
                    continue
                deadline = now + MAX_WAIT
                if heap and heap[0].ready_at < deadline:
                    deadline = heap[0].ready_at
                self._next_wake = deadline
                clock.wait_until(cond, deadline)

    def _stop_background(self) -> None:
        with self._waiting_cond:
            self._waiting_stop = True
            self._waiting.clear()
            self._waiting_by_item.clear()
            self._waiting_cond.notify_all()
            started = self._waiting_started
        if started and self._waiting_thread is not threading.current_thread():
            self._waiting_thread.join()
        super()._stop_background()

    def _waiting_count(self) -> int:
        """How many items wait for their time (for teaching views)."""
        with self._waiting_cond:
            return len(self._waiting_by_item)
