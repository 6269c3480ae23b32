"""Event correlation (client-go's tools/record/events_cache.go): what the recorder does
about repeats before an Event is written.

* the same event again (same object, type, reason and message) PATCHes the existing
  Event's `count`, `lastTimestamp` and `message` instead of creating a new one;
* more than 10 events in 10 minutes that differ only in message become one Event
  "(combined from similar events): <latest message>", counted the same way;
* a source may emit 25 events about one object at once, then 1 per 5 minutes (spam
  filter); the rest are dropped.

Time comes from the correlator's clock, so a FakeClock steps the aggregation and spam
windows without sleeping.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from kubenb.clock import Clock, RealClock
from kubenb.controller.timestamps import WallClock, event_name, seconds_time

__all__ = [
    "DEFAULT_AGGREGATE_INTERVAL_SECONDS",
    "DEFAULT_AGGREGATE_MAX_EVENTS",
    "DEFAULT_SPAM_BURST",
    "DEFAULT_SPAM_QPS",
    "MAX_LRU_CACHE_ENTRIES",
    "CorrelatorOptions",
    "EventCorrelateResult",
    "EventCorrelator",
    "aggregate_by_reason",
    "aggregate_message",
    "involved_object",
]

#: client-go's limits (tools/record/events_cache.go).
MAX_LRU_CACHE_ENTRIES = 4096
DEFAULT_AGGREGATE_MAX_EVENTS = 10
DEFAULT_AGGREGATE_INTERVAL_SECONDS = 600
DEFAULT_SPAM_BURST = 25
DEFAULT_SPAM_QPS = 1.0 / 300.0


class _LRU:
    """A bounded mapping that forgets the least recently used key (k8s.io/utils/lru)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._data: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def add(self, key: Hashable, value: Any) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self._size:
            self._data.popitem(last=False)


class _TokenBucket:
    """A passive token bucket: `try_accept` takes a token if one is there (flowcontrol's
    `TokenBucketPassiveRateLimiter`). Starts full."""

    def __init__(self, qps: float, burst: int, clock: Clock) -> None:
        self._qps = qps
        self._burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock.now()

    def try_accept(self) -> bool:
        now = self._clock.now()
        self._tokens = min(float(self._burst), self._tokens + (now - self._last) * self._qps)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


def involved_object(event: dict[str, Any]) -> dict[str, Any]:
    """The reference to the object an Event is about (`{}` when it has none)."""
    return event.get("involvedObject") or {}


def _source(event: dict[str, Any]) -> dict[str, Any]:
    return event.get("source") or {}


def _event_key(event: dict[str, Any]) -> tuple[str, ...]:
    """Identical events (client-go `getEventKey`): same source, object, type, reason, message."""
    ref, src = involved_object(event), _source(event)
    return (src.get("component", ""), src.get("host", ""), ref.get("kind", ""),
            ref.get("namespace", ""), ref.get("name", ""), ref.get("fieldPath", ""),
            ref.get("uid", ""), ref.get("apiVersion", ""), event.get("type", ""),
            event.get("reason", ""), event.get("message", ""))


def _spam_key(event: dict[str, Any]) -> tuple[str, ...]:
    """client-go `getSpamKey`: source, object and type (not reason or message)."""
    ref, src = involved_object(event), _source(event)
    return (src.get("component", ""), src.get("host", ""), ref.get("kind", ""),
            ref.get("namespace", ""), ref.get("name", ""), ref.get("uid", ""),
            ref.get("apiVersion", ""), event.get("type", ""))


def aggregate_by_reason(event: dict[str, Any]) -> tuple[tuple[str, ...], str]:
    """client-go `EventAggregatorByReasonFunc`: events equal but for their message."""
    ref, src = involved_object(event), _source(event)
    key = (src.get("component", ""), src.get("host", ""), ref.get("kind", ""),
           ref.get("namespace", ""), ref.get("name", ""), ref.get("uid", ""),
           ref.get("apiVersion", ""), event.get("type", ""), event.get("reason", ""),
           event.get("reportingComponent", ""), event.get("reportingInstance", ""))
    return key, event.get("message", "")


def aggregate_message(event: dict[str, Any]) -> str:
    """client-go `EventAggregatorByReasonMessageFunc`."""
    return "(combined from similar events): " + event.get("message", "")


@dataclass
class CorrelatorOptions:
    """client-go `CorrelatorOptions`; zero values mean client-go's defaults."""

    lru_cache_size: int = MAX_LRU_CACHE_ENTRIES
    burst_size: int = DEFAULT_SPAM_BURST
    qps: float = DEFAULT_SPAM_QPS
    max_events: int = DEFAULT_AGGREGATE_MAX_EVENTS
    max_interval_seconds: float = DEFAULT_AGGREGATE_INTERVAL_SECONDS
    key_func: Callable[[dict[str, Any]], tuple[Hashable, str]] = aggregate_by_reason
    message_func: Callable[[dict[str, Any]], str] = aggregate_message
    spam_key_func: Callable[[dict[str, Any]], Hashable] = _spam_key


@dataclass
class EventCorrelateResult:
    """What to write: the event, a patch for an existing Event (or None), or skip it."""

    event: dict[str, Any] | None
    patch: dict[str, Any] | None = None
    skip: bool = False


@dataclass
class _Observation:
    count: int
    first_timestamp: str
    name: str
    resource_version: str


class EventCorrelator:
    """Aggregates, counts and filters events before they are written (client-go
    `EventCorrelator`). Thread-safe; time comes from `clock`."""

    def __init__(self, clock: Clock | None = None,
                 options: CorrelatorOptions | None = None) -> None:
        self.clock: Clock = clock if clock is not None else RealClock()
        self._wall = WallClock(self.clock)
        self.options = options or CorrelatorOptions()
        size = self.options.lru_cache_size
        self._lock = threading.Lock()
        self._aggregates = _LRU(size)  # aggregate key -> (set of local keys, last time)
        self._observations = _LRU(size)  # event key -> _Observation
        self._spam = _LRU(size)  # spam key -> _TokenBucket

    def correlate(self, event: dict[str, Any]) -> EventCorrelateResult:
        """client-go `EventCorrelate`: aggregate, then count, then spam-filter."""
        with self._lock:
            aggregated, key = self._aggregate(event)
            observed, patch = self._observe(aggregated, key)
            if self._filter(observed):
                return EventCorrelateResult(None, None, True)
            return EventCorrelateResult(observed, patch)

    def update_state(self, event: dict[str, Any]) -> None:
        """Remember what the server answered (name, count, resourceVersion)."""
        meta = event.get("metadata") or {}
        with self._lock:
            self._observations.add(_event_key(event), _Observation(
                int(event.get("count") or 0), event.get("firstTimestamp") or "",
                meta.get("name", ""), meta.get("resourceVersion", "")))

    def _aggregate(self, event: dict[str, Any]) -> tuple[dict[str, Any], Hashable]:
        now = self.clock.now()
        options = self.options
        aggregate_key, local_key = options.key_func(event)
        record = self._aggregates.get(aggregate_key)
        if record is None or now - record[1] > options.max_interval_seconds:
            record = (set(), now)
        local_keys: set[str] = record[0]
        local_keys.add(local_key)
        self._aggregates.add(aggregate_key, (local_keys, now))
        if len(local_keys) < options.max_events:
            return event, _event_key(event)
        local_keys.pop()  # do not grow the set past the threshold
        wall = self._wall.now()
        stamp = seconds_time(wall)
        ref = involved_object(event)
        combined = {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": event_name(ref.get("name", ""), wall),
                         "namespace": (event.get("metadata") or {}).get("namespace", "")},
            "involvedObject": ref, "reason": event.get("reason", ""),
            "message": options.message_func(event), "source": event.get("source") or {},
            "firstTimestamp": stamp, "lastTimestamp": stamp, "count": 1,
            "type": event.get("type", ""),
        }
        return combined, aggregate_key

    def _observe(self, event: dict[str, Any], key: Hashable
                 ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        event = copy.deepcopy(event)
        patch = None
        last: _Observation | None = self._observations.get(key)
        if last is not None and last.count > 0:
            meta = event.setdefault("metadata", {})
            meta["name"] = last.name
            if last.resource_version:
                meta["resourceVersion"] = last.resource_version
            else:
                meta.pop("resourceVersion", None)
            event["firstTimestamp"] = last.first_timestamp
            event["count"] = last.count + 1
            # The two-way strategic merge patch client-go computes for this change.
            patch = {"count": event["count"], "lastTimestamp": event.get("lastTimestamp")}
            if event.get("message"):
                patch["message"] = event["message"]
        meta = event.get("metadata") or {}
        self._observations.add(key, _Observation(
            int(event.get("count") or 0), event.get("firstTimestamp") or "",
            meta.get("name", ""), meta.get("resourceVersion", "")))
        return event, patch

    def _filter(self, event: dict[str, Any]) -> bool:
        key = self.options.spam_key_func(event)
        bucket = self._spam.get(key)
        if bucket is None:
            bucket = _TokenBucket(self.options.qps, self.options.burst_size, self.clock)
        self._spam.add(key, bucket)
        return not bucket.try_accept()
