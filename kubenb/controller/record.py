"""Event recording (client-go's `tools/record`): what the controller did, as `Event`
objects that `kubectl describe` and `kubectl get events` show.

The shape is client-go's, so a port is mechanical:

    broadcaster = EventBroadcaster()
    broadcaster.start_structured_logging()
    broadcaster.start_recording_to_sink(cluster)          # Events go to the API server
    recorder = broadcaster.new_recorder(EventSource(component="foo-controller"))
    recorder.event(foo, "Normal", "Synced", "Foo synced successfully")
    ...
    broadcaster.shutdown()

`recorder.event` never blocks on the network: each sink or logger has its own thread
(`kubenb-events-...`) and bounded buffer (1000; full means dropped, as in Go). Before an
event is written, the `EventCorrelator` (events_cache.py) does what the real recorder
does about repeats: counts them, combines similar ones and filters spam.

Timestamps come from the recorder's clock anchored to the wall clock (timestamps.py), so
a FakeClock steps the aggregation and spam windows without sleeping. The correlator's
names and `WallClock` are re-exported here, where code has imported them from.
"""

from __future__ import annotations

import copy
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.clock import Clock, RealClock
from kubenb.controller.events_cache import (
    CorrelatorOptions,
    EventCorrelateResult,
    EventCorrelator,
    involved_object,
)
from kubenb.controller.timestamps import WallClock, event_name, seconds_time
from kubenb.errors import ApiError, EventRecordError, KubenbError, NotFound

__all__ = [
    "EVENT_TYPE_NORMAL",
    "EVENT_TYPE_WARNING",
    "CorrelatorOptions",
    "EventBroadcaster",
    "EventCorrelateResult",
    "EventCorrelator",
    "EventRecordError",
    "EventRecorder",
    "EventSink",
    "EventSource",
    "EventWatcher",
    "FakeRecorder",
    "WallClock",
    "get_reference",
    "resource_client",
]

log = logging.getLogger("kubenb.controller.record")

EVENT_TYPE_NORMAL = "Normal"
EVENT_TYPE_WARNING = "Warning"

#: client-go's limits (tools/record/event.go).
MAX_TRIES_PER_EVENT = 12
DEFAULT_SLEEP_DURATION = 10.0
MAX_QUEUED_EVENTS = 1000


# -- helpers shared with leaderelection ------------------------------------------------------


def resource_client(client: Any, api_version: str, resource: str) -> ResourceClient:
    """A `ResourceClient` for `resource` from a Cluster, a DynamicClient or a
    ResourceClient (used as it is)."""
    if isinstance(client, ResourceClient):
        return client
    if isinstance(client, DynamicClient):
        return client.resource(api_version, resource)
    dynamic = getattr(client, "dynamic", None)  # a kubenb Cluster
    if isinstance(dynamic, DynamicClient):
        return dynamic.resource(api_version, resource)
    raise KubenbError(f"expected a Cluster, DynamicClient or ResourceClient for {resource}, "
                      f"got {type(client).__name__}")


_REFERENCE_FIELDS = ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion",
                     "fieldPath")


def get_reference(obj: Any, *, kind: str | None = None,
                  api_version: str | None = None) -> dict[str, str]:
    """An ObjectReference to `obj` (client-go `reference.GetReference`).

    `obj` is an object dict, or already a reference (`{"kind", "name", ...}`). Objects
    read from a list (and so from an informer's cache) may carry no `kind` and
    `apiVersion`; pass them as `kind=` and `api_version=` then.
    """
    if not isinstance(obj, dict):
        raise EventRecordError(f"cannot reference a {type(obj).__name__}; give an object dict")
    if "metadata" not in obj and obj.get("name") and obj.get("kind"):
        return {k: str(obj[k]) for k in _REFERENCE_FIELDS if obj.get(k)}
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not meta.get("name"):
        raise EventRecordError("cannot reference an object without metadata.name")
    kind = obj.get("kind") or kind
    api_version = obj.get("apiVersion") or api_version
    if not kind or not api_version:
        raise EventRecordError(
            f"object {meta.get('namespace', '')}/{meta['name']} has no kind/apiVersion "
            "(objects from a list or an informer cache often have none): pass kind= and "
            "api_version=, or a reference dict")
    ref = {"kind": str(kind)}
    if meta.get("namespace"):
        ref["namespace"] = str(meta["namespace"])
    ref["name"] = str(meta["name"])
    if meta.get("uid"):
        ref["uid"] = str(meta["uid"])
    ref["apiVersion"] = str(api_version)
    if meta.get("resourceVersion"):
        ref["resourceVersion"] = str(meta["resourceVersion"])
    return ref


@dataclass(frozen=True)
class EventSource:
    """Who reports the events (v1 `EventSource`): the controller's name, and its host."""

    component: str = ""
    host: str = ""


# -- sinks and watchers ----------------------------------------------------------------------


class EventSink:
    """Writes Events to an API server (client-go's `EventSinkImpl` over core/v1 events).

    `client` is a `Cluster`, a `DynamicClient` or an events `ResourceClient`.
    """

    def __init__(self, client: Any) -> None:
        self._events = resource_client(client, "v1", "events")

    def create(self, event: dict[str, Any]) -> dict[str, Any]:
        namespace = (event.get("metadata") or {}).get("namespace") or "default"
        return self._events.namespace(namespace).create(event)

    def patch(self, event: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        meta = event.get("metadata") or {}
        namespace = meta.get("namespace") or "default"
        return self._events.namespace(namespace).patch(meta["name"], data, "strategic")

    def __repr__(self) -> str:
        return f"EventSink({self._events!r})"


class EventWatcher:
    """One consumer of a broadcaster's events, on its own thread, with a bounded buffer."""

    def __init__(self, handler: Callable[[dict[str, Any]], None], name: str,
                 max_queued: int = MAX_QUEUED_EVENTS) -> None:
        self.name = name
        self._handler = handler
        self._max = max_queued
        self._cond = threading.Condition()
        self._pending: list[dict[str, Any]] = []
        self._busy = False
        self._closed = False
        self.delivered = 0
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name=f"kubenb-events-{name}",
                                        daemon=True)
        self._thread.start()

    def __repr__(self) -> str:
        return (f"EventWatcher({self.name!r}, pending={len(self._pending)}, "
                f"delivered={self.delivered}, dropped={self.dropped})")

    def deliver(self, event: dict[str, Any]) -> bool:
        """Queue one event; False (and dropped) when full or closed."""
        with self._cond:
            if self._closed or len(self._pending) >= self._max:
                self.dropped += 1
                return False
            self._pending.append(event)
            self._cond.notify_all()
            return True

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._busy = False
                    self._cond.notify_all()
                    self._cond.wait()
                if not self._pending:
                    self._busy = False
                    self._cond.notify_all()
                    return
                event = self._pending.pop(0)
                self._busy = True
            try:
                self._handler(event)
            except Exception:
                log.exception("event watcher %s: handler raised", self.name)
            with self._cond:
                self.delivered += 1

    def wait_empty(self, timeout: float | None) -> bool:
        """Block until every queued event was handled; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._pending or self._busy:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    def stop(self, timeout: float | None = None) -> None:
        """Handle what is queued, then end the thread and join it."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)


class EventBroadcaster:
    """Fans recorded events out to sinks and loggers (client-go `EventBroadcaster`).

    `sleep_duration` is the wait between tries of an event the server could not take
    (10 s, the first one randomized, at most 12 tries); waits run on `clock`.
    """

    def __init__(self, *, clock: Clock | None = None,
                 sleep_duration: float = DEFAULT_SLEEP_DURATION,
                 correlator_options: CorrelatorOptions | None = None,
                 max_queued: int = MAX_QUEUED_EVENTS) -> None:
        self.clock: Clock = clock if clock is not None else RealClock()
        self.sleep_duration = sleep_duration
        self.correlator_options = correlator_options
        self.max_queued = max_queued
        self._lock = threading.Lock()
        self._watchers: list[EventWatcher] = []
        self._shutdown = threading.Event()
        self._ids = 0
        self.written = 0
        self.patched = 0
        self.skipped = 0
        self.failed = 0

    def __repr__(self) -> str:
        return (f"EventBroadcaster(watchers={len(self._watchers)}, written={self.written}, "
                f"patched={self.patched}, skipped={self.skipped}, failed={self.failed})")

    def _add_watcher(self, handler: Callable[[dict[str, Any]], None], kind: str) -> EventWatcher:
        with self._lock:
            if self._shutdown.is_set():
                raise KubenbError("EventBroadcaster: already shut down")
            self._ids += 1
            watcher = EventWatcher(handler, f"{kind}-{self._ids}", self.max_queued)
            self._watchers.append(watcher)
        return watcher

    def start_event_watcher(self, handler: Callable[[dict[str, Any]], None]) -> EventWatcher:
        """Call `handler(event)` for every event, on a thread of its own."""
        return self._add_watcher(handler, "watcher")

    def start_logging(self, logf: Callable[[str], Any] | None = None) -> EventWatcher:
        """Log every event with `logf` (default: this module's logger at INFO)."""
        emit = logf or log.info

        def handler(event: dict[str, Any]) -> None:
            emit(f"Event({involved_object(event)!r}): type: '{event.get('type')}' reason: "
                 f"'{event.get('reason')}' {event.get('message')}")

        return self._add_watcher(handler, "log")

    def start_structured_logging(self, level: int = logging.INFO) -> EventWatcher:
        """Log every event as one structured line (client-go `StartStructuredLogging`)."""

        def handler(event: dict[str, Any]) -> None:
            ref = involved_object(event)
            target = "/".join(p for p in (ref.get("namespace"), ref.get("name")) if p)
            log.log(level, "Event occurred object=%s kind=%s apiVersion=%s type=%s reason=%s "
                           "message=%r", target, ref.get("kind"), ref.get("apiVersion"),
                    event.get("type"), event.get("reason"), event.get("message"))

        return self._add_watcher(handler, "log")

    def start_recording_to_sink(self, sink: Any) -> EventWatcher:
        """Write every event to `sink` (an `EventSink`, or a Cluster / DynamicClient)."""
        is_client = isinstance(sink, (ResourceClient, DynamicClient)) or hasattr(sink, "dynamic")
        if is_client or not (callable(getattr(sink, "create", None))
                             and callable(getattr(sink, "patch", None))):
            sink = EventSink(sink)
        correlator = EventCorrelator(self.clock, self.correlator_options)
        return self._add_watcher(lambda e: self._record_to_sink(sink, e, correlator), "sink")

    def new_recorder(self, source: EventSource | str) -> EventRecorder:
        """A recorder reporting as `source` (an `EventSource`, or just the component)."""
        if isinstance(source, str):
            source = EventSource(component=source)
        return EventRecorder(self, source, self.clock)

    def action(self, event: dict[str, Any]) -> bool:
        """Hand `event` to every watcher; False when one had to drop it."""
        with self._lock:
            if self._shutdown.is_set():
                return False
            watchers = list(self._watchers)
        sent = True
        for watcher in watchers:
            sent = watcher.deliver(event) and sent
        return sent

    def flush(self, timeout: float | None = 10.0) -> bool:
        """Wait until every watcher has handled what was recorded so far."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            watchers = list(self._watchers)
        for watcher in watchers:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not watcher.wait_empty(remaining):
                return False
        return True

    def shutdown(self, timeout: float | None = 10.0) -> None:
        """Stop taking events, finish the queued ones (a retry wait is cut short), and
        join every watcher thread."""
        with self._lock:
            self._shutdown.set()
            watchers, self._watchers = self._watchers, []
        for watcher in watchers:
            watcher.stop(timeout)

    # -- writing (client-go recordToSink / recordEvent) --------------------------------------

    def _record_to_sink(self, sink: Any, event: dict[str, Any],
                        correlator: EventCorrelator) -> None:
        result = correlator.correlate(event)
        if result.skip or result.event is None:
            with self._lock:
                self.skipped += 1
            return
        tries = 0
        while True:
            if self._record_event(sink, result.event, result.patch, correlator):
                return
            tries += 1
            if tries >= MAX_TRIES_PER_EVENT:
                log.error("unable to write event %s (retry limit exceeded!)",
                          _describe(result.event))
                break
            delay = self.sleep_duration
            if tries == 1:
                delay *= random.random()
            if self.clock.wait_event(self._shutdown, delay):
                log.error("unable to write event %s (broadcaster is shut down)",
                          _describe(result.event))
                break
        with self._lock:
            self.failed += 1

    def _record_event(self, sink: Any, event: dict[str, Any], patch: dict[str, Any] | None,
                      correlator: EventCorrelator) -> bool:
        """One try; True when done (written, or rejected for good)."""
        written: dict[str, Any] | None = None
        patched = False
        try:
            if patch and int(event.get("count") or 0) > 1:
                try:
                    written = sink.patch(event, patch)
                    patched = True
                except NotFound:  # the Event expired on the server: create it again
                    written = None
            if written is None:
                fresh = copy.deepcopy(event)
                (fresh.get("metadata") or {}).pop("resourceVersion", None)
                written = sink.create(fresh)
        except ApiError as err:
            level = logging.DEBUG if err.reason == "AlreadyExists" else logging.ERROR
            log.log(level, "server rejected event %s (will not retry!): %s",
                    _describe(event), err)
            with self._lock:
                self.failed += 1
            return True
        except Exception as err:
            log.error("unable to write event %s (may retry after sleeping): %s",
                      _describe(event), err)
            return False
        correlator.update_state(written)
        with self._lock:
            if patched:
                self.patched += 1
            else:
                self.written += 1
        return True


def _describe(event: dict[str, Any]) -> str:
    ref = involved_object(event)
    return (f"'{event.get('reason')}' for {ref.get('kind')} "
            f"{'/'.join(p for p in (ref.get('namespace'), ref.get('name')) if p)}")


# -- recorders -------------------------------------------------------------------------------


class EventRecorder:
    """Records events about objects (client-go `EventRecorder`); made by
    `EventBroadcaster.new_recorder`. Never blocks on the API server."""

    def __init__(self, broadcaster: EventBroadcaster, source: EventSource,
                 clock: Clock | None = None) -> None:
        self.broadcaster = broadcaster
        self.source = source
        self.clock: Clock = clock if clock is not None else RealClock()
        self._wall = WallClock(self.clock)

    def __repr__(self) -> str:
        return f"EventRecorder(component={self.source.component!r}, host={self.source.host!r})"

    def event(self, obj: Any, event_type: str, reason: str, message: str) -> None:
        """Record that `reason` happened to `obj` ("Normal" or "Warning").

        Raises `EventRecordError` for another type or an object that cannot be
        referenced (client-go logs and drops those; a notebook should see them).
        """
        self._generate(obj, None, event_type, reason, message)

    def eventf(self, obj: Any, event_type: str, reason: str, message_fmt: str,
               *args: Any) -> None:
        """`event` with a %-format message (Go's Eventf)."""
        self._generate(obj, None, event_type, reason, message_fmt % args if args
                       else message_fmt)

    def annotated_eventf(self, obj: Any, annotations: dict[str, str], event_type: str,
                         reason: str, message_fmt: str, *args: Any) -> None:
        """`eventf` whose Event carries `annotations`."""
        self._generate(obj, annotations, event_type, reason, message_fmt % args if args
                       else message_fmt)

    def make_event(self, ref: dict[str, str], annotations: dict[str, str] | None,
                   event_type: str, reason: str, message: str) -> dict[str, Any]:
        """The v1 Event dict for one occurrence (client-go `makeEvent`)."""
        wall = self._wall.now()
        stamp = seconds_time(wall)
        metadata: dict[str, Any] = {"name": event_name(ref["name"], wall),
                                    "namespace": ref.get("namespace") or "default"}
        if annotations:
            metadata["annotations"] = dict(annotations)
        source: dict[str, str] = {"component": self.source.component}
        if self.source.host:
            source["host"] = self.source.host
        return {"apiVersion": "v1", "kind": "Event", "metadata": metadata,
                "involvedObject": dict(ref), "reason": reason, "message": message,
                "source": source, "firstTimestamp": stamp, "lastTimestamp": stamp,
                "count": 1, "type": event_type, "eventTime": None,
                "reportingComponent": self.source.component,
                "reportingInstance": self.source.host}

    def _generate(self, obj: Any, annotations: dict[str, str] | None, event_type: str,
                  reason: str, message: str) -> None:
        if event_type not in (EVENT_TYPE_NORMAL, EVENT_TYPE_WARNING):
            raise EventRecordError(f"unsupported event type {event_type!r}: use 'Normal' or "
                                   "'Warning'")
        ref = get_reference(obj)
        event = self.make_event(ref, annotations, event_type, reason, message)
        if not self.broadcaster.action(event):
            log.error("unable to record event %s: too many queued events or shut down; "
                      "dropped", _describe(event))


class FakeRecorder:
    """Keeps "<type> <reason> <message>" strings instead of writing Events (client-go
    `record.FakeRecorder`), for testing reconcile logic without a server."""

    def __init__(self, buffer_size: int = 100, include_object: bool = False) -> None:
        self.buffer_size = buffer_size
        self.include_object = include_object
        self.events: list[str] = []
        self._lock = threading.Lock()

    def event(self, obj: Any, event_type: str, reason: str, message: str) -> None:
        self._write(obj, f"{event_type} {reason} {message}")

    def eventf(self, obj: Any, event_type: str, reason: str, message_fmt: str,
               *args: Any) -> None:
        self.event(obj, event_type, reason, message_fmt % args if args else message_fmt)

    def annotated_eventf(self, obj: Any, annotations: dict[str, str], event_type: str,
                         reason: str, message_fmt: str, *args: Any) -> None:
        self.eventf(obj, event_type, reason, message_fmt, *args)

    def _write(self, obj: Any, text: str) -> None:
        if self.include_object:
            ref = get_reference(obj) if isinstance(obj, dict) and obj.get("kind") else {}
            text += (f" involvedObject{{kind={ref.get('kind', '')},"
                     f"apiVersion={ref.get('apiVersion', '')}}}")
        with self._lock:
            if len(self.events) < self.buffer_size:
                self.events.append(text)
