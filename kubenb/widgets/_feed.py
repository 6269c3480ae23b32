"""PolledView: counters read on a timer, rendered through the reactive publisher.

Why polling: the pipeline and workqueue views show counters (stats() snapshots), not
a stream of objects, and several of them (relists, 410s, backoff) change without
any event reaching a handler. A `kubenb-widget-poll-<name>` thread samples them
every `interval` seconds of the view's clock and submits the sample to a publisher
channel; the publisher thread renders it inside `hold_sync()`, at most `rate` times a
second. Rendering never runs on an informer thread nor on the kernel's main loop.
"""

from __future__ import annotations

import itertools
import logging
import threading
from typing import TYPE_CHECKING, Any

from kubenb.clock import Clock, RealClock
from kubenb.reactive.publisher import Publisher, PublisherError, hold_sync_sink

if TYPE_CHECKING:
    from kubenb.cache import SharedIndexInformer

__all__ = ["PolledView", "gone_reason"]

log = logging.getLogger("kubenb.widgets")

_ids = itertools.count(1)
_SAMPLE = "sample"


def gone_reason(informer: SharedIndexInformer) -> str:
    """Why a button over `informer` can do nothing now ("" when it can): the informer
    was stopped (`cluster.close()` stops every informer), or never started."""
    if informer.is_stopped():
        return ("the informer has stopped: cluster.close() (or factory.shutdown()) was "
                "run, so there is nothing left to pause or step; run the notebook again "
                "from the top for a live cluster")
    if informer.get_controller() is None:
        return "the informer is not running yet: start it first (cluster.informer(...) does)"
    return ""


class PolledView:
    """Base of PipelineView and WorkqueueView: `_sample()` on the poll thread (only
    thread-safe reads), `_render(sample)` on the publisher thread (widget traits)."""

    widget: Any

    def _start_feed(self, *, interval: float, publisher: Publisher | None, rate: float,
                    clock: Clock | None, name: str, poll: bool) -> None:
        if not interval > 0:
            raise PublisherError(f"{type(self).__name__}: interval must be > 0 seconds, "
                                 f"got {interval!r}")
        self.name = name or f"{type(self).__name__.lower()}-{next(_ids)}"
        self.interval = float(interval)
        self._own_publisher = publisher is None
        if publisher is None:
            publisher = Publisher(self.name, clock=clock)
        self.publisher = publisher
        self.clock: Clock = clock or publisher.clock or RealClock()
        self._channel = publisher.channel(hold_sync_sink(self.widget, self._publish),
                                          rate=rate, name=self.name)
        self.renders = 0
        self._render_lock = threading.RLock()  # renders vs. clicks on the kernel thread
        self._stop = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None
        if self._own_publisher:
            publisher.start()
        if poll:
            self._thread = threading.Thread(target=self._poll, daemon=True,
                                            name=f"kubenb-widget-poll-{self.name}")
            self._thread.start()

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                self._channel.submit(_SAMPLE, self._sample())
            except Exception:  # a view must never kill its thread over one bad read
                log.exception("view %s: sampling failed", self.name)
            self.clock.wait_event(self._stop, self.interval)

    def _publish(self, batch: dict[Any, Any]) -> None:
        sample = batch.get(_SAMPLE)
        if sample is not None:
            with self._render_lock:
                self._render(sample)
                self.renders += 1

    def _sample(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _render(self, sample: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def refresh(self) -> None:
        """Sample and render now, on the calling thread (tests, or a notebook cell that
        wants the view current before reading it)."""
        self._channel.submit(_SAMPLE, self._sample())
        self._channel.flush()

    def close(self) -> None:
        """Stop polling and publishing; joins the threads this view started."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._own_publisher:
            self.publisher.stop()
        else:
            self._channel.close(flush=not self.publisher.on_publisher_thread())

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
