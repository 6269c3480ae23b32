"""The publisher: updates from any thread, coalesced per key, published from one
background thread at a bounded rate per view.

Why it exists (measured on this stack): the Jupyter server silently drops widget
messages above its IOPub rate limit (1000 messages/s over 3 s) and never resyncs
them, and callbacks scheduled on the kernel's main loop freeze while any cell runs.
So a live view can neither forward every informer event to the browser nor hand its
updates to the main loop. Instead:

- informer and worker threads `submit(key, value)` to a `Channel` (one per view);
  only the latest value of each key is kept until the next batch (`merge=` changes
  that), so a burst of 20k updates to one key costs one publish;
- one background thread (`kubenb-publisher-<name>`) hands each channel's pending
  values to its *sink* as one batch (a dict), at most `rate` batches per second per
  channel, and always publishes what is left after a burst: the last state wins;
- a sink is any callable taking the batch; `hold_sync_sink` wraps a widget update in
  `widget.hold_sync()` so the whole batch leaves as one comm message.

Every timer goes through a `Clock`, so tests drive the rate bound with `FakeClock`.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from kubenb.clock import Clock, RealClock
from kubenb.errors import PublisherError

__all__ = [
    "DEFAULT_RATE",
    "DROP",
    "Channel",
    "Publisher",
    "PublisherError",
    "hold_sync_sink",
    "latest",
]

log = logging.getLogger("kubenb.reactive.publisher")

#: Batches per second per view unless told otherwise: well under the IOPub limit even
#: with dozens of live views, and fast enough to look live.
DEFAULT_RATE = 10.0

Sink = Callable[[dict[Any, Any]], None]
Merge = Callable[[Any, Any], Any]


class _Drop:
    """Returned by a merge function: forget the pending value of this key."""

    def __repr__(self) -> str:
        return "DROP"


DROP = _Drop()


def latest(previous: Any, new: Any) -> Any:
    """The default merge: only the newest value of a key matters."""
    return new


def _describe(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


_ids = itertools.count(1)


def _closed_sink(batch: dict[Any, Any]) -> None:
    """A closed channel's sink: nothing reaches it (a closed channel takes no values)."""


class Channel:
    """One view's queue on a `Publisher`: pending values by key, a sink, a rate.

    Made by `Publisher.channel()`. `submit` never blocks on the sink, only on a short
    lock, so informer threads are never held up by the UI.
    """

    def __init__(self, publisher: Publisher, sink: Sink, rate: float, merge: Merge | None,
                 name: str) -> None:
        if not callable(sink):
            raise PublisherError(f"channel {name!r}: sink must be callable, got "
                                 f"{type(sink).__name__}")
        if merge is not None and not callable(merge):
            raise PublisherError(f"channel {name!r}: merge must be callable or None, got "
                                 f"{type(merge).__name__}")
        rate = float(rate)
        if not rate > 0:  # also rejects NaN
            raise PublisherError(f"channel {name!r}: rate must be > 0 batches per second, "
                                 f"got {rate!r}")
        self.publisher = publisher
        self.name = name
        self.rate = rate
        self.interval = 0.0 if math.isinf(rate) else 1.0 / rate
        self._sink = sink
        self._merge = merge or latest
        # Guarded by the publisher's condition lock:
        self._pending: dict[Any, Any] = {}
        self._next_allowed = -math.inf
        self._closed = False
        self._counts = {"submitted": 0, "coalesced": 0, "batches": 0, "published": 0,
                        "sink_errors": 0}
        # Held from taking a batch until its sink returns: batches reach the sink one
        # at a time and in the order they were taken, whichever thread publishes.
        self._sink_lock = threading.RLock()
        self.last_error = ""

    def __repr__(self) -> str:
        return (f"Channel({self.name!r}, rate={self.rate:g}/s, pending={len(self._pending)}, "
                f"batches={self._counts['batches']})")

    # -- producers (any thread) ----------------------------------------------------------

    def submit(self, key: Hashable, value: Any) -> None:
        """Queue `value` for `key`, merged with a value already pending for it.
        Dropped silently once the channel is closed (a late informer event)."""
        cond = self.publisher._cond
        with cond:
            if self._closed:
                return
            self._put(key, value)

    def submit_many(self, items: Iterable[tuple[Hashable, Any]]) -> None:
        """`submit` for many (key, value) pairs under one lock acquisition."""
        cond = self.publisher._cond
        with cond:
            if self._closed:
                return
            for key, value in items:
                self._put(key, value)

    def _put(self, key: Hashable, value: Any) -> None:
        pending = self._pending
        self._counts["submitted"] += 1
        if key in pending:
            self._counts["coalesced"] += 1
            merged = self._merge(pending[key], value)
            if merged is DROP:
                del pending[key]
            else:
                pending[key] = merged
            return
        pending[key] = value
        if len(pending) == 1:  # was idle: the publisher may be waiting for work
            self.publisher._cond.notify_all()

    # -- publishing ------------------------------------------------------------------------

    def flush(self) -> int:
        """Publish what is pending now, on the calling thread, ignoring the rate (the
        next timed batch still waits a full interval). Returns the batch size."""
        return self._publish()

    def _publish(self) -> int:
        cond = self.publisher._cond
        with self._sink_lock:
            with cond:
                batch = self._pending
                if not batch:
                    return 0
                self._pending = {}
                self._next_allowed = self.publisher.clock.now() + self.interval
                self._counts["batches"] += 1
                self._counts["published"] += len(batch)
            try:
                self._sink(batch)
            except Exception as exc:
                # Never the batch itself in the log: it may hold Secrets.
                with cond:
                    self._counts["sink_errors"] += 1
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.error("publisher %s: sink %s of channel %r raised on a batch of %d; "
                          "the batch is dropped", self.publisher.name, _describe(self._sink),
                          self.name, len(batch), exc_info=exc)
            return len(batch)

    def _due(self, now: float) -> float | None:
        """With the publisher lock held: when this channel may publish next (None: idle)."""
        if not self._pending:
            return None
        return self._next_allowed if self._next_allowed > now else now

    # -- lifecycle & stats ----------------------------------------------------------------

    def close(self, flush: bool = True) -> None:
        """Stop accepting values; with `flush`, publish what is pending first.

        The sink is let go: a view's sink is its own bound method, and the view holds
        its channel, so keeping it would leave a closed view (and the informer and
        cache it refers to) in a reference cycle until a full collection."""
        if flush:
            self.flush()
        with self._sink_lock:  # not while a batch is on its way to the sink
            with self.publisher._cond:
                self._closed = True
                self._pending = {}
                self.publisher._forget(self)
            self._sink = _closed_sink

    @property
    def closed(self) -> bool:
        return self._closed

    def pending(self) -> int:
        """Keys waiting for the next batch."""
        with self.publisher._cond:
            return len(self._pending)

    def stats(self) -> dict[str, Any]:
        """Counters: submitted values, coalesced ones (merged into a pending key),
        batches and values published, sink errors, and what is pending now."""
        with self.publisher._cond:
            return {"name": self.name, "rate": self.rate, **self._counts,
                    "pending": len(self._pending), "closed": self._closed,
                    "last_error": self.last_error}


class Publisher:
    """One background thread publishing the batches of many channels, each channel at
    most `rate` times per second (see the module docstring).

    `start()` runs the thread; `stop()` publishes what is pending (unless told not
    to), ends the thread and closes every channel.
    """

    def __init__(self, name: str = "", clock: Clock | None = None) -> None:
        self.name = name or f"publisher-{next(_ids)}"
        self.clock: Clock = clock if clock is not None else RealClock()
        self._cond = threading.Condition(threading.Lock())
        self._channels: list[Channel] = []
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._flush_on_stop = True
        self._stopped = False
        self.wakeups = 0

    def __repr__(self) -> str:
        state = "stopped" if self._stopped else "running" if self._thread else "new"
        return f"Publisher({self.name!r}, {state}, channels={len(self._channels)})"

    def __enter__(self) -> Publisher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def channel(self, sink: Sink, rate: float = DEFAULT_RATE, merge: Merge | None = None,
                name: str = "") -> Channel:
        """A new channel publishing to `sink` at most `rate` batches per second;
        `merge(pending, new)` combines two values of one key (default: keep the new)."""
        channel = Channel(self, sink, rate, merge, name or f"channel-{next(_ids)}")
        with self._cond:
            if self._stopping or self._stopped:
                raise PublisherError(f"publisher {self.name!r} is stopped: make a new one")
            self._channels.append(channel)
        return channel

    def channels(self) -> list[Channel]:
        with self._cond:
            return list(self._channels)

    def _forget(self, channel: Channel) -> None:
        if channel in self._channels:
            self._channels.remove(channel)

    # -- the thread --------------------------------------------------------------------

    def start(self) -> Publisher:
        """Run the publishing thread (idempotent); returns self."""
        with self._cond:
            if self._stopped or self._stopping:
                raise PublisherError(f"publisher {self.name!r} was stopped and cannot start "
                                     "again")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name=f"kubenb-publisher-{self.name}")
                self._thread.start()
        return self

    def _next_work(self) -> list[Channel] | None:
        """Wait (lock held) until some channel is due; None once stopping."""
        clock = self.clock
        while True:
            if self._stopping:
                return None
            now = clock.now()
            due: list[Channel] = []
            soonest = math.inf
            for channel in self._channels:
                at = channel._due(now)
                if at is None:
                    continue
                if at <= now:
                    due.append(channel)
                else:
                    soonest = min(soonest, at)
            if due:
                return due
            self.wakeups += 1
            if soonest == math.inf:
                self._cond.wait()
            else:
                clock.wait_until(self._cond, soonest)

    def _run(self) -> None:
        try:
            while True:
                with self._cond:
                    due = self._next_work()
                if due is None:
                    break
                for channel in due:
                    channel._publish()
        finally:
            self._finish()

    def _finish(self) -> None:
        """Last publish (unless told not to), then close every channel."""
        if self._flush_on_stop:
            self.flush()
        for channel in self.channels():
            channel.close(flush=False)
        with self._cond:
            self._stopped = True

    def flush(self) -> int:
        """Publish every channel's pending values now, on the calling thread."""
        return sum(channel.flush() for channel in self.channels())

    def stop(self, flush: bool = True, timeout: float = 10.0) -> None:
        """Publish what is pending (with `flush`), end the thread and close every
        channel. Safe to call twice, and from a sink (then it does not wait: the thread
        finishes once the sink returns)."""
        with self._cond:
            if self._stopped or self._stopping:
                return
            self._stopping = True
            self._flush_on_stop = flush
            thread = self._thread
            self._cond.notify_all()
        if thread is None:
            self._finish()
        elif thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("publisher %s: a sink did not return within %ss of stop()",
                            self.name, timeout)

    def on_publisher_thread(self) -> bool:
        """True when called from a sink run by this publisher's thread."""
        return self._thread is threading.current_thread()

    def is_running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive() and not self._stopping

    def stats(self) -> dict[str, Any]:
        """The thread's state and every channel's counters."""
        return {"name": self.name, "running": self.is_running(), "wakeups": self.wakeups,
                "channels": [c.stats() for c in self.channels()]}


def hold_sync_sink(widget: Any, apply: Callable[[dict[Any, Any]], None]) -> Sink:
    """A sink that runs `apply(batch)` inside `widget.hold_sync()`: every trait it sets
    on `widget` during the batch leaves as one comm message, not one per trait."""
    hold = getattr(widget, "hold_sync", None)
    if not callable(hold):
        raise PublisherError(f"hold_sync_sink: {type(widget).__name__} has no hold_sync(); "
                             "pass an ipywidgets widget")

    def sink(batch: dict[Any, Any]) -> None:
        with widget.hold_sync():
            apply(batch)

    sink.__qualname__ = f"hold_sync_sink({type(widget).__name__}, {_describe(apply)})"
    return sink
