"""Workqueue metrics (client-go's `util/workqueue/metrics.go`): one concept in one
module, the metric interfaces, the no-op and in-process providers and what a queue
records through them, since each part is read beside the others.

A queue reports seven numbers through a `MetricsProvider`: depth, adds, queue latency,
work duration, unfinished work seconds, longest running processor seconds and (for
delaying queues) retries. As in client-go, only a *named* queue whose provider is not
the no-op provider records anything and runs the unfinished-work updater thread.

One deliberate difference: client-go's global provider defaults to a no-op, because a
Go program wires Prometheus in. A notebook has no Prometheus, so kubenb's global
provider defaults to `InProcessMetricsProvider`, which keeps the numbers in memory so
that `q.metrics()` (and a monitor widget) can show them. `set_provider()` keeps
client-go's rule: only its first call has an effect, on queues created afterwards.

Whatever the provider, `q.metrics()` returns a `MetricsSnapshot` read from numbers
the queue keeps itself (a foreign provider's metrics are fed alongside), so the
snapshot never depends on being able to read a third-party metric back.

Durations are measured on the queue's clock and rounded to whole nanoseconds, like
Go's `time.Duration`, so FakeClock steps give exact numbers (50 us is 5e-05, not
4.9999999999999996e-05).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Hashable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from kubenb.clock import Clock

__all__ = [
    "CounterMetric",
    "GaugeMetric",
    "HistogramMetric",
    "InProcessCounter",
    "InProcessGauge",
    "InProcessMetricsProvider",
    "InProcessSummary",
    "MetricsProvider",
    "MetricsSnapshot",
    "NoopMetricsProvider",
    "SettableGaugeMetric",
    "SummaryMetric",
    "SummarySnapshot",
    "get_provider",
    "set_provider",
]

#: How many recent observations a summary keeps for its quantiles.
DEFAULT_RECENT_OBSERVATIONS = 1024


# --- the metric interfaces (client-go's GaugeMetric, CounterMetric, ...) -----------


@runtime_checkable
class GaugeMetric(Protocol):
    """A value that goes up and down (queue depth)."""

    def inc(self) -> None: ...

    def dec(self) -> None: ...


@runtime_checkable
class SettableGaugeMetric(Protocol):
    """A value that is set outright (unfinished work seconds)."""

    def set(self, value: float) -> None: ...


@runtime_checkable
class CounterMetric(Protocol):
    """A value that only goes up (adds, retries)."""

    def inc(self) -> None: ...


@runtime_checkable
class SummaryMetric(Protocol):
    """Individual observations (latency, work duration)."""

    def observe(self, value: float) -> None: ...


@runtime_checkable
class HistogramMetric(Protocol):
    """Individual observations; the shape client-go uses for latency and duration."""

    def observe(self, value: float) -> None: ...


@runtime_checkable
class MetricsProvider(Protocol):
    """Makes the metrics of one named queue (client-go's `MetricsProvider`)."""

    def new_depth_metric(self, name: str) -> GaugeMetric: ...

    def new_adds_metric(self, name: str) -> CounterMetric: ...

    def new_latency_metric(self, name: str) -> HistogramMetric: ...

    def new_work_duration_metric(self, name: str) -> HistogramMetric: ...

    def new_unfinished_work_seconds_metric(self, name: str) -> SettableGaugeMetric: ...

    def new_longest_running_processor_seconds_metric(self, name: str) -> SettableGaugeMetric: ...

    def new_retries_metric(self, name: str) -> CounterMetric: ...


# --- no-op ---------------------------------------------------------------------------


class _NoopMetric:
    __slots__ = ()

    def inc(self) -> None:
        pass

    def dec(self) -> None:
        pass

    def set(self, value: float) -> None:
        pass

    def observe(self, value: float) -> None:
        pass


_NOOP = _NoopMetric()


class NoopMetricsProvider:
    """A provider that records nothing; queues using it start no metrics thread."""

    def new_depth_metric(self, name: str) -> GaugeMetric:
        return _NOOP

    def new_adds_metric(self, name: str) -> CounterMetric:
        return _NOOP

    def new_latency_metric(self, name: str) -> HistogramMetric:
        return _NOOP

    def new_work_duration_metric(self, name: str) -> HistogramMetric:
        return _NOOP

    def new_unfinished_work_seconds_metric(self, name: str) -> SettableGaugeMetric:
        return _NOOP

    def new_longest_running_processor_seconds_metric(self, name: str) -> SettableGaugeMetric:
        return _NOOP

    def new_retries_metric(self, name: str) -> CounterMetric:
        return _NOOP

    def __repr__(self) -> str:
        return "NoopMetricsProvider()"


# --- in-process metrics -----------------------------------------------------------------


class InProcessGauge:
    """A gauge kept in memory; serves as both `GaugeMetric` and `SettableGaugeMetric`."""

    __slots__ = ("_lock", "_value")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = 0.0

    def inc(self) -> None:
        with self._lock:
            self._value += 1

    def dec(self) -> None:
        with self._lock:
            self._value -= 1

    def set(self, value: float) -> None:
        with self._lock:
            self._value = float(value)

    @property
    def value(self) -> float:
        return self._value

    def __repr__(self) -> str:
        return f"InProcessGauge({self._value!r})"


class InProcessCounter:
    """A counter kept in memory."""

    __slots__ = ("_lock", "_value")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = 0

    def inc(self) -> None:
        with self._lock:
            self._value += 1

    @property
    def value(self) -> int:
        return self._value

    def __repr__(self) -> str:
        return f"InProcessCounter({self._value!r})"


@dataclass(frozen=True)
class SummarySnapshot:
    """Observations so far: totals since creation, quantiles over the recent ones.

    `count`, `sum`, `min` and `max` cover every observation; `last` is the latest one;
    `p50`/`p90`/`p99` are taken over the most recent observations only (at most
    `DEFAULT_RECENT_OBSERVATIONS`), so they follow what the queue does now. All the
    optional fields are None until the first observation.
    """

    count: int = 0
    sum: float = 0.0
    min: float | None = None
    max: float | None = None
    last: float | None = None
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None

    @property
    def mean(self) -> float | None:
        """Average of every observation, or None before the first one."""
        return self.sum / self.count if self.count else None


def _quantile(ordered: list[float], q: float) -> float:
    """Nearest-rank quantile of an ascending, non-empty list."""
    rank = max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))
    return ordered[rank]


class InProcessSummary:
    """Keeps count, sum, min, max and a window of recent observations."""

    __slots__ = ("_count", "_lock", "_max", "_min", "_recent", "_sum")

    def __init__(self, recent: int = DEFAULT_RECENT_OBSERVATIONS) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._sum = 0.0
        self._min: float | None = None
        self._max: float | None = None
        self._recent: deque[float] = deque(maxlen=recent)

    def observe(self, value: float) -> None:
        value = float(value)
        with self._lock:
            self._count += 1
            self._sum += value
            if self._min is None or value < self._min:
                self._min = value
            if self._max is None or value > self._max:
                self._max = value
            self._recent.append(value)

    def snapshot(self) -> SummarySnapshot:
        with self._lock:
            if not self._count:
                return SummarySnapshot()
            recent = list(self._recent)
            count, total, lo, hi = self._count, self._sum, self._min, self._max
        last = recent[-1]
        recent.sort()
        return SummarySnapshot(
            count=count,
            sum=total,
            min=lo,
            max=hi,
            last=last,
            p50=_quantile(recent, 0.5),
            p90=_quantile(recent, 0.9),
            p99=_quantile(recent, 0.99),
        )

    def __repr__(self) -> str:
        return f"InProcessSummary(count={self._count}, sum={self._sum!r})"


@dataclass
class _MetricSet:
    """The in-process metrics of one queue."""

    depth: InProcessGauge = field(default_factory=InProcessGauge)
    adds: InProcessCounter = field(default_factory=InProcessCounter)
    latency: InProcessSummary = field(default_factory=InProcessSummary)
    work_duration: InProcessSummary = field(default_factory=InProcessSummary)
    unfinished_work_seconds: InProcessGauge = field(default_factory=InProcessGauge)
    longest_running_processor_seconds: InProcessGauge = field(default_factory=InProcessGauge)
    retries: InProcessCounter | None = None


@dataclass(frozen=True)
class MetricsSnapshot:
    """A queue's metrics at one moment (what a monitor widget displays).

    `enabled` is False for a queue that records no metrics (unnamed, or the no-op
    provider): then only `depth` is meaningful, read from the queue itself, and every
    other field stays at zero. `depth` always counts items waiting to be handed out,
    including an item re-added while it is processing (client-go's depth gauge);
    `retries` counts `add_after` calls on a named delaying queue.
    """

    name: str
    enabled: bool
    depth: int
    adds: int = 0
    retries: int = 0
    unfinished_work_seconds: float = 0.0
    longest_running_processor_seconds: float = 0.0
    latency: SummarySnapshot = field(default_factory=SummarySnapshot)
    work_duration: SummarySnapshot = field(default_factory=SummarySnapshot)

    def as_dict(self) -> dict[str, Any]:
        """Flat dict (e.g. one DataFrame row): summaries become `latency_count`, ..."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if isinstance(value, dict):
                for sub, subvalue in value.items():
                    out[f"{key}_{sub}"] = subvalue
            else:
                out[key] = value
        return out


def _snapshot_of(name: str, metrics: _MetricSet) -> MetricsSnapshot:
    return MetricsSnapshot(
        name=name,
        enabled=True,
        depth=int(metrics.depth.value),
        adds=metrics.adds.value,
        retries=metrics.retries.value if metrics.retries is not None else 0,
        unfinished_work_seconds=metrics.unfinished_work_seconds.value,
        longest_running_processor_seconds=metrics.longest_running_processor_seconds.value,
        latency=metrics.latency.snapshot(),
        work_duration=metrics.work_duration.snapshot(),
    )


class InProcessMetricsProvider:
    """Keeps every named queue's metrics in memory (kubenb's default provider).

    Each queue gets metric objects of its own. The provider also remembers them by
    queue name, so a monitor can list `names()` and read `snapshot(name)` without a
    reference to the queue; a later queue with the same name takes the name over.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_name: dict[str, _MetricSet] = {}

    def _register(self, name: str, attr: str, metric: Any) -> Any:
        with self._lock:
            metrics = self._by_name.setdefault(name, _MetricSet())
            setattr(metrics, attr, metric)
        return metric

    def new_depth_metric(self, name: str) -> InProcessGauge:
        return self._register(name, "depth", InProcessGauge())

    def new_adds_metric(self, name: str) -> InProcessCounter:
        return self._register(name, "adds", InProcessCounter())

    def new_latency_metric(self, name: str) -> InProcessSummary:
        return self._register(name, "latency", InProcessSummary())

    def new_work_duration_metric(self, name: str) -> InProcessSummary:
        return self._register(name, "work_duration", InProcessSummary())

    def new_unfinished_work_seconds_metric(self, name: str) -> InProcessGauge:
        return self._register(name, "unfinished_work_seconds", InProcessGauge())

    def new_longest_running_processor_seconds_metric(self, name: str) -> InProcessGauge:
        return self._register(name, "longest_running_processor_seconds", InProcessGauge())

    def new_retries_metric(self, name: str) -> InProcessCounter:
        return self._register(name, "retries", InProcessCounter())

    def names(self) -> list[str]:
        """Names of the queues this provider has made metrics for."""
        with self._lock:
            return sorted(self._by_name)

    def snapshot(self, name: str) -> MetricsSnapshot:
        """The latest queue called `name`; KeyError if there was none."""
        with self._lock:
            metrics = self._by_name[name]
        return _snapshot_of(name, metrics)

    def __repr__(self) -> str:
        return f"InProcessMetricsProvider(queues={self.names()!r})"


# --- the global provider (client-go's SetProvider) --------------------------------------

_provider_lock = threading.Lock()
_global_provider: MetricsProvider = InProcessMetricsProvider()
_provider_set = False


def set_provider(provider: MetricsProvider) -> None:
    """Set the provider for queues created from now on; only the first call counts.

    This is client-go's `SetProvider` rule: it lets a program (or a notebook's first
    cell) choose once, and stops a library from silently switching it later.
    """
    global _global_provider, _provider_set
    with _provider_lock:
        if _provider_set:
            return
        _global_provider = provider
        _provider_set = True


def get_provider() -> MetricsProvider:
    """The provider queues use when none is given (an `InProcessMetricsProvider` unless
    `set_provider` chose another)."""
    return _global_provider


# --- what a queue uses (client-go's queueMetrics / retryMetrics) -------------------------


def _seconds_between(start: float, end: float) -> float:
    """Elapsed seconds rounded to whole nanoseconds, as a Go Duration would be."""
    return round((end - start) * 1e9) / 1e9


class _Tee:
    """Feeds one metric to the queue's own in-process copy and to a foreign provider's."""

    __slots__ = ("_local", "_remote")

    def __init__(self, local: Any, remote: Any) -> None:
        self._local = local
        self._remote = remote

    def inc(self) -> None:
        self._local.inc()
        self._remote.inc()

    def dec(self) -> None:
        self._local.dec()
        self._remote.dec()

    def set(self, value: float) -> None:
        self._local.set(value)
        self._remote.set(value)

    def observe(self, value: float) -> None:
        self._local.observe(value)
        self._remote.observe(value)


_READABLE = (InProcessGauge, InProcessCounter, InProcessSummary)


def _readable(metric: Any, make_local: type) -> tuple[Any, Any]:
    """Return (metric to write, in-process metric to read) for a provider's metric."""
    if isinstance(metric, _READABLE):
        return metric, metric
    local = make_local()
    return _Tee(local, metric), local


def is_noop(provider: MetricsProvider) -> bool:
    """True for the no-op provider, under which a queue records nothing."""
    return isinstance(provider, NoopMetricsProvider)


class QueueMetrics:
    """The metrics of one named queue (client-go's `defaultQueueMetrics`).

    Not thread-safe by itself: the queue calls it while holding its own lock, as
    client-go does.
    """

    enabled = True

    def __init__(self, provider: MetricsProvider, name: str, clock: Clock) -> None:
        self.name = name
        self._clock = clock
        self._add_times: dict[Hashable, float] = {}
        self._processing_start_times: dict[Hashable, float] = {}
        self._read = _MetricSet()
        self._depth, self._read.depth = _readable(provider.new_depth_metric(name), InProcessGauge)
        self._adds, self._read.adds = _readable(provider.new_adds_metric(name), InProcessCounter)
        self._latency, self._read.latency = _readable(
            provider.new_latency_metric(name), InProcessSummary
        )
        self._work_duration, self._read.work_duration = _readable(
            provider.new_work_duration_metric(name), InProcessSummary
        )
        self._unfinished, self._read.unfinished_work_seconds = _readable(
            provider.new_unfinished_work_seconds_metric(name), InProcessGauge
        )
        self._longest, self._read.longest_running_processor_seconds = _readable(
            provider.new_longest_running_processor_seconds_metric(name), InProcessGauge
        )

    def add(self, item: Hashable) -> None:
        self._adds.inc()
        self._depth.inc()
        if item not in self._add_times:
            self._add_times[item] = self._clock.now()

    def get(self, item: Hashable) -> None:
        now = self._clock.now()
        self._depth.dec()
        self._processing_start_times[item] = now
        start = self._add_times.pop(item, None)
        if start is not None:
            self._latency.observe(_seconds_between(start, now))

    def done(self, item: Hashable) -> None:
        start = self._processing_start_times.pop(item, None)
        if start is not None:
            self._work_duration.observe(_seconds_between(start, self._clock.now()))

    def update_unfinished_work(self) -> None:
        now = self._clock.now()
        total = 0.0
        oldest = 0.0
        for start in self._processing_start_times.values():
            age = _seconds_between(start, now)
            total += age
            oldest = max(oldest, age)
        self._unfinished.set(total)
        self._longest.set(oldest)

    def attach_retries(self, counter: InProcessCounter) -> None:
        """Let the snapshot read the delaying queue's retries counter."""
        self._read.retries = counter

    def snapshot(self, depth: int) -> MetricsSnapshot:
        """`depth` is ignored: the depth gauge is the recorded value."""
        del depth
        return _snapshot_of(self.name, self._read)


class NoMetrics:
    """Stands in for `QueueMetrics` on a queue that records nothing (client-go's noMetrics)."""

    enabled = False

    def __init__(self, name: str = "") -> None:
        self.name = name

    def add(self, item: Hashable) -> None:
        pass

    def get(self, item: Hashable) -> None:
        pass

    def done(self, item: Hashable) -> None:
        pass

    def update_unfinished_work(self) -> None:
        pass

    def snapshot(self, depth: int) -> MetricsSnapshot:
        return MetricsSnapshot(name=self.name, enabled=False, depth=depth)


def new_queue_metrics(
    provider: MetricsProvider | None, name: str, clock: Clock
) -> QueueMetrics | NoMetrics:
    """Metrics for a queue: real ones only for a named queue and a real provider."""
    if provider is None:
        provider = get_provider()
    if not name or is_noop(provider):
        return NoMetrics(name)
    return QueueMetrics(provider, name, clock)


class RetryMetrics:
    """The retries counter of a named delaying queue (client-go's `defaultRetryMetrics`)."""

    def __init__(self, provider: MetricsProvider, name: str) -> None:
        self.retries, self.readable = _readable(provider.new_retries_metric(name), InProcessCounter)

    def retry(self) -> None:
        self.retries.inc()


def new_retry_metrics(provider: MetricsProvider | None, name: str) -> RetryMetrics | None:
    """A retries counter for a named delaying queue, or None when nothing is recorded.

    client-go also makes one under the no-op provider; it records nothing there, so
    kubenb simply makes none.
    """
    if provider is None:
        provider = get_provider()
    if not name or is_noop(provider):
        return None
    return RetryMetrics(provider, name)
