"""WorkqueueView: a workqueue's depth, adds, retries, latency and work duration, live.

Reads `q.metrics()` (or a `kubenb.controller` Controller's `metrics()`) on the poll
thread every `interval` clock seconds, and keeps the last `history` samples for the
sparklines: depth, queue latency and work duration (the mean of the observations
made since the previous sample, so a sparkline shows what the queue does now).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import ipywidgets as widgets

from kubenb.clock import Clock
from kubenb.errors import KubenbError
from kubenb.reactive.publisher import DEFAULT_RATE, Publisher
from kubenb.widgets._feed import PolledView
from kubenb.widgets._html import counter, esc, fmt_seconds, sparkline
from kubenb.widgets._samples import workqueue_sample
from kubenb.widgets.table import scrolling

__all__ = ["WorkqueueView"]

#: Items processing now that the view lists by name; the count is always exact.
MAX_ITEMS_SHOWN = 50


def _window_mean(now: Any, before: Any) -> float:
    """Mean of the observations a summary got between two snapshots (0 if none)."""
    count = now.count - (before.count if before is not None else 0)
    total = now.sum - (before.sum if before is not None else 0.0)
    return total / count if count > 0 else 0.0


class WorkqueueView(PolledView):
    """A live monitor of one workqueue (see the module docstring). A queue records
    latency and durations only when it was made with a name (client-go's rule)."""

    def __init__(self, queue: Any, *, interval: float = 0.5, history: int = 60,
                 publisher: Publisher | None = None, rate: float = DEFAULT_RATE,
                 clock: Clock | None = None, name: str = "", poll: bool = True) -> None:
        if queue is None or not hasattr(queue, "metrics"):
            raise KubenbError(f"WorkqueueView needs a workqueue or a controller with "
                              f"metrics(), got {type(queue).__name__}")
        if history < 2:
            raise KubenbError(f"WorkqueueView(history={history!r}): must be >= 2 samples")
        self.queue = queue
        self.depths: deque[float] = deque(maxlen=history)
        self.latencies: deque[float] = deque(maxlen=history)
        self.durations: deque[float] = deque(maxlen=history)
        self.last_sample: dict[str, Any] = {}
        self._previous: Any = None
        self.counters = widgets.HTML()
        self.counters.add_class("kubenb-workqueue-counters")
        self.sparklines = widgets.HTML()
        self.sparklines.add_class("kubenb-workqueue-sparklines")
        self.processing = scrolling(widgets.HTML(), 130, "kubenb-workqueue-processing")
        title = widgets.HTML(f"<b>workqueue {esc(self._queue_name())}</b>")
        self.widget = widgets.VBox([title, self.counters, self.sparklines, self.processing])
        self.widget.add_class("kubenb-workqueue")
        self._start_feed(interval=interval, publisher=publisher, rate=rate, clock=clock,
                         name=name, poll=poll)

    def _queue_name(self) -> str:
        name = getattr(self.queue, "name", "")
        return name() if callable(name) else str(name or "")

    def _sample(self) -> dict[str, Any]:
        sample = workqueue_sample(self.queue)
        sample["time"] = self.clock.now()
        return sample

    def _render(self, sample: dict[str, Any]) -> None:
        metrics = sample["metrics"]
        previous, self._previous = self._previous, metrics
        self.last_sample = sample
        self.depths.append(float(sample["depth"]))
        latency = work = None
        if metrics is not None:
            self.latencies.append(_window_mean(metrics.latency, getattr(previous, "latency",
                                                                       None)))
            self.durations.append(_window_mean(metrics.work_duration,
                                               getattr(previous, "work_duration", None)))
            latency, work = metrics.latency.p50, metrics.work_duration.p50
        self.counters.value = "".join([
            counter("workqueue-depth", "depth", sample["depth"]),
            counter("workqueue-adds", "adds", sample["adds"]),
            counter("workqueue-retries", "retries", sample["retries"]),
            counter("workqueue-processing", "processing", sample["processing"]),
            counter("workqueue-latency-p50", "latency p50", fmt_seconds(latency)),
            counter("workqueue-work-p50", "work p50", fmt_seconds(work)),
        ])
        self.sparklines.value = (
            f"<div>depth {sparkline(list(self.depths), 'depth')}</div>"
            f"<div>latency {sparkline(list(self.latencies), 'latency')}</div>"
            f"<div>work {sparkline(list(self.durations), 'work-duration')}</div>")
        items = [str(i) for i in sample["items"]][:MAX_ITEMS_SHOWN]
        listed = "".join(f'<li class="kubenb-processing-item">{esc(i)}</li>' for i in items)
        self.processing.value = (f"<div>processing now ({sample['processing']}):</div>"
                                 f'<ul style="margin:2px 0">{listed}</ul>')

    def __repr__(self) -> str:
        return f"WorkqueueView({self._queue_name()!r}, renders={self.renders})"
