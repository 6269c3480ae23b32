"""Pacing: the Reflector waits, briefly, for the informer's own threads to catch up.

Why: CPython's cyclic collector runs when the young generation's *net* count of new
containers (allocations minus frees) passes 700. A cache that replaces one decoded
object with the next frees about as much as it allocates, so on one thread it never
triggers a collection. Across threads it does: the Reflector decodes a GIL slice's
worth of events (dozens) before the listener thread frees the objects they replace,
every collection then finds the fresh objects alive and promotes them, and every
cached object is walked again by the older generations' collections. Measured on
50k pod events: about half of an informer's CPU went to collections. Keeping the
Reflector at most `limit` events ahead of the slowest *keeping-up* stage, and having
it free the replaced objects one event's worth at a time (below), removes almost all
of it (see docs/performance.md, "Where the watch time goes").

What it never does: hold the cache back for a slow handler. A stage that does not
catch up within `patience` seconds is marked slow and ignored until it has drained
completely, so a sleeping handler costs the Reflector one `patience` per backlog,
not one per event. Pacing is off while the collector is disabled (nothing to save).
`patience` is in real seconds, not on the informer's clock: it bounds how long one
thread waits for another, which a FakeClock (never moving on its own) must not stall.

Where objects die: the last listener to deliver a notification (one goes to every
listener) hands it back through `progress(done)`, and the Reflector frees them in
`pace()`, just before it decodes the next event, so memory is freed on the thread (and
usually the core) that allocates it next: on 50k pod events the listener spends ~3 µs an
event rather than ~15 µs, the Reflector ~6 µs more, and the informer runs ~10% faster
than when each listener frees what it delivered. At most `limit` items wait there; more
(a slow handler's backlog going out while the watch is quiet) are freed where they were
delivered, and `close()` frees them at stop.

How many each `pace()` frees: about one event's worth (the oldest first), not all of
them. The collector's young count is allocations minus frees, but it never drops below
zero, so a batch freed at once mostly goes uncounted, and the events decoded next push
the count past the threshold again. Freeing one item per decoded event keeps the count
flat however far the Reflector runs ahead (and one hand-back per event, not one per
listener, keeps it so with several handlers), which lets it run ahead further
(`DEFAULT_PACE_LIMIT`) and hand over in bigger batches: half the thread switches, and a
watch rate closer to the raw one (docs/performance.md). The first event after `quiet`
seconds without one frees everything at once: no batch is being decoded ahead then.
(Freeing everything whenever the stages are idle does not work: they are idle after
every read the Reflector waits for, in the middle of a stream: that costs
~4,000 collections per 50k events.)

Not in client-go, whose queues are unbounded and whose runtime has no such collector
(and whose allocator does not care which thread frees).
"""

from __future__ import annotations

import gc
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "DEFAULT_PACE_LIMIT",
    "DEFAULT_PATIENCE",
    "QUIET",
    "Pacer",
    "Stages",
]

#: Events the Reflector may run ahead of the stages that keep up with it.
DEFAULT_PACE_LIMIT = 64
#: Real seconds a stage gets to catch up before it is counted as slow. Long enough
#: for a thread the scheduler queued behind another process's (or the recorder's)
#: busy thread: at 2 ms, a gzip recorder beside the informer made the pacer give up
#: 20-45 times per 20k events, each time bringing back collections (a full one per
#: run); at 10 ms, none (docs/informers.md).
DEFAULT_PATIENCE = 0.01
#: Real seconds without an event after which everything handed back is freed at once.
QUIET = 0.05

Stages = Callable[[], Iterable[tuple[Any, int]]]


class Pacer:
    """Bounds how far the Reflector runs ahead of the stages `stages()` reports.

    `stages()` returns `(stage, backlog)` pairs: the informer's queue and each
    listener, with how many items each holds. `pace()` is called by the Reflector
    after each watch event, `progress()` by a stage after it consumed an item.
    """

    def __init__(self, stages: Stages, limit: int = DEFAULT_PACE_LIMIT,
                 patience: float = DEFAULT_PATIENCE, quiet: float = QUIET) -> None:
        if limit < 1 or patience <= 0 or quiet < 0:
            raise ValueError(f"Pacer(limit={limit}, patience={patience}, quiet={quiet}): "
                             "need limit >= 1, patience > 0 and quiet >= 0")
        self.limit = limit
        self.patience = patience
        self.quiet = quiet
        self._stages = stages
        self._resume_at = limit // 2
        self._free_divisor = max(1, self._resume_at)
        self._cond = threading.Condition(threading.Lock())
        self._waiting = 0
        self._slow: set[Any] = set()
        self.waits = 0
        self.timeouts = 0
        # Delivered items for the Reflector to free (see the module docstring).
        self._done: deque[Any] = deque()
        self._done_limit = limit
        self._last_pace = float("-inf")

    def __repr__(self) -> str:
        return (f"Pacer(limit={self.limit}, waits={self.waits}, timeouts={self.timeouts}, "
                f"slow={len(self._slow)})")

    def backlog(self) -> int:
        """Items held by stages that keep up; a slow stage that drained is forgiven."""
        total = 0
        slow = self._slow
        for stage, held in self._stages():
            if stage in slow:
                if held == 0:
                    slow.discard(stage)
                continue
            total += held
        return total

    def pace(self) -> None:
        """Free about one event's worth of what the stages handed back; then wait until
        the keeping-up stages hold at most limit/2 items, if they hold more than
        `limit`; never longer than `patience`. (Called after every watch event: the
        common path is a handful of C calls.)"""
        if not gc.isenabled():
            self._done.clear()  # no collector count to keep flat
            return
        now = time.monotonic()
        done = self._done
        if done:
            if now - self._last_pace >= self.quiet:
                done.clear()  # nothing is being decoded ahead: all of it at once
            else:
                self._free_oldest(done)
        self._last_pace = now
        if self.backlog() <= self.limit:
            return
        with self._cond:
            self._waiting += 1
            try:
                caught_up = self._cond.wait_for(lambda: self.backlog() <= self._resume_at,
                                                self.patience)
            finally:
                self._waiting -= 1
            self.waits += 1
            if not caught_up:
                self.timeouts += 1
                self._slow.update(stage for stage, held in self._stages()
                                  if held > self._resume_at)

    def _free_oldest(self, done: deque[Any]) -> None:
        """The oldest len/(limit/2) items, at least one: in a stream, about one event's
        worth (see the module)."""
        popleft = done.popleft
        more = len(done) // self._free_divisor - 1
        try:
            popleft()
            for _ in range(more):
                popleft()
        except IndexError:  # close() cleared it meanwhile
            return

    def progress(self, done: Any = None) -> None:
        """A stage consumed an item: wake the Reflector if it waits and may go on.
        `done`, the item (the caller holding no other reference), is kept for the
        Reflector to free, while there is room."""
        if done is not None and len(self._done) < self._done_limit:
            self._done.append(done)
        if self._waiting and self.backlog() <= self._resume_at:
            with self._cond:
                self._cond.notify()

    def close(self) -> None:
        """The informer stopped: free what is held, keep nothing more (a listener still
        finishing a handler call frees what it delivered itself)."""
        self._done_limit = 0
        self._done.clear()

    def stats(self) -> dict[str, Any]:
        return {"limit": self.limit, "waits": self.waits, "timeouts": self.timeouts,
                "slow_stages": len(self._slow), "held_for_reflector": len(self._done)}
