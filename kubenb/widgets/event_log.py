"""EventLog: the recent changes an informer delivered, filterable and bounded.

One handler on the informer records each notification (ADDED / MODIFIED / DELETED,
key, resourceVersion) into a publisher channel; unlike a LiveFrame nothing is
coalesced away (every event is a line), but the log keeps only the newest `size`
lines, and the publisher renders at most `rate` times a second. Resyncs that
changed nothing are left out, as in the reactive views. Times are wall-clock
(14:03:07.215); the lines sit in a fixed-height scrolling box.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from kubenb.cache.keys import DeletedFinalStateUnknown, deletion_handling_meta_namespace_key_func
from kubenb.clock import Clock, RealClock
from kubenb.errors import KubenbError
from kubenb.reactive.publisher import DEFAULT_RATE, Publisher, hold_sync_sink
from kubenb.reactive.view import unchanged
from kubenb.widgets._html import esc, wall_time
from kubenb.widgets.table import scrolling

if TYPE_CHECKING:
    from kubenb.cache import SharedInformer

__all__ = ["EVENT_TYPES", "EventLog", "LogEntry"]

EVENT_TYPES = ("ADDED", "MODIFIED", "DELETED")
ALL = "(all)"
_COLOURS = {"ADDED": "#2e7d32", "MODIFIED": "#1565c0", "DELETED": "#c62828"}
_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the log."""

    seq: int
    time: float
    type: str
    key: str
    resource_version: str
    wall: float = 0.0  # epoch seconds, what the log shows (time is the view's clock)


def _rv(obj: Any) -> str:
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return str((meta or {}).get("resourceVersion") or "") if isinstance(meta, dict) else ""


class _Recorder:
    """The ResourceEventHandler: runs on the listener thread, only submits."""

    def __init__(self, log: EventLog) -> None:
        self.log = log

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        self.log.record("ADDED", obj)

    def on_update(self, old: Any, new: Any) -> None:
        if not unchanged(old, new):
            self.log.record("MODIFIED", new)

    def on_delete(self, obj: Any) -> None:
        self.log.record("DELETED", obj)


class EventLog:
    """A bounded, filterable log of an informer's events (see the module docstring).

    `informer=None` makes a log fed by hand with `record()`."""

    def __init__(self, informer: SharedInformer | None = None, *, size: int = 200,
                 shown: int = 50,
                 publisher: Publisher | None = None, rate: float = DEFAULT_RATE,
                 clock: Clock | None = None, name: str = "", height: int = 260) -> None:
        if size < 1 or shown < 1:
            raise KubenbError(f"EventLog(size={size!r}, shown={shown!r}): both must be >= 1")
        self.name = name or f"eventlog-{next(_ids)}"
        self.informer = informer
        self.size = size
        self.shown = shown
        self.height = height
        self.entries: deque[LogEntry] = deque(maxlen=size)
        self.total = 0
        self._seq = itertools.count(1)
        self._seq_lock = threading.Lock()
        self.type_filter = widgets.Dropdown(options=[ALL, *EVENT_TYPES], value=ALL,
                                            description="type")
        self.type_filter.add_class("kubenb-event-type-filter")
        self.text_filter = widgets.Text(placeholder="key contains", description="key",
                                        continuous_update=False)
        self.text_filter.add_class("kubenb-event-filter")
        self.count = widgets.HTML()
        self.count.add_class("kubenb-event-count")
        self.lines = scrolling(widgets.HTML(), height, "kubenb-event-lines")
        self.widget = widgets.VBox([widgets.HBox([self.type_filter, self.text_filter,
                                                  self.count]), self.lines])
        self.widget.add_class("kubenb-event-log")
        self._lock = threading.RLock()
        self._own_publisher = publisher is None
        self.publisher = publisher or Publisher(self.name, clock=clock)
        self.clock: Clock = clock or self.publisher.clock or RealClock()
        self._channel = self.publisher.channel(hold_sync_sink(self.widget, self._apply),
                                               rate=rate, merge=self._merge, name=self.name)
        self.type_filter.observe(lambda _c: self.render(), names="value")
        self.text_filter.observe(lambda _c: self.render(), names="value")
        self._registration = None
        self._closed = False
        if self._own_publisher:
            self.publisher.start()
        if informer is not None:
            self._registration = informer.add_event_handler(_Recorder(self))
        self.render()

    def _merge(self, pending: list[LogEntry], new: list[LogEntry]) -> list[LogEntry]:
        merged = pending + new
        return merged[-self.size:]

    def record(self, type_: str, obj: Any) -> None:
        """Log one event (any thread); it shows with the next published batch."""
        if type_ not in EVENT_TYPES:
            raise KubenbError(f"EventLog.record: type must be one of {EVENT_TYPES}, got "
                              f"{type_!r}")
        try:
            key = deletion_handling_meta_namespace_key_func(obj)
        except Exception:
            key = "?"
        with self._seq_lock:
            seq = next(self._seq)
        self._channel.submit("events", [LogEntry(seq, self.clock.now(), type_, key,
                                                  _rv(obj), time.time())])

    def _apply(self, batch: dict[Any, Any]) -> None:
        new = batch.get("events") or []
        with self._lock:
            self.entries.extend(new)
            if new:  # merged batches keep only the newest lines: count by sequence number
                self.total = max(self.total, new[-1].seq)
        self.render()

    def visible(self) -> list[LogEntry]:
        """The entries the filters let through, newest first, at most `shown`."""
        type_, text = self.type_filter.value, self.text_filter.value.strip().lower()
        out = []
        with self._lock:
            entries = list(self.entries)
        for entry in reversed(entries):
            if type_ != ALL and entry.type != type_:
                continue
            if text and text not in entry.key.lower():
                continue
            out.append(entry)
            if len(out) >= self.shown:
                break
        return out

    def render(self) -> None:
        """Redraw the lines and the count (filters changed, or a batch arrived)."""
        with self._lock:
            visible = self.visible()
            rows = "".join(
                f'<tr class="kubenb-event kubenb-event-{e.type.lower()}"><td>{e.seq}</td>'
                f"<td>{wall_time(e.wall) if e.wall else f'{e.time:.3f}'}</td>"
                f'<td style="color:{_COLOURS[e.type]}">{e.type}</td><td>{esc(e.key)}</td>'
                f"<td>{esc(e.resource_version)}</td></tr>" for e in visible)
            head = "".join(f'<th style="position:sticky;top:0;background:#eceff1;'
                           f'text-align:left;padding-right:10px">{h}</th>'
                           for h in ("#", "time", "type", "key", "rv"))
            self.lines.value = ('<table class="kubenb-event-table" style="font-size:12px;'
                                f'border-collapse:collapse"><thead><tr>{head}</tr></thead>'
                                f"<tbody>{rows}</tbody></table>")
            self.count.value = (f'<span data-count="{len(visible)}">{len(visible)} shown, '
                                f"{len(self.entries)} kept, {self.total} seen</span>")

    def flush(self) -> int:
        """Publish what is pending now, on this thread."""
        return self._channel.flush()

    def close(self) -> None:
        """Stop following the informer and end the threads this log started."""
        if self._closed:
            return
        self._closed = True
        if self._registration is not None and self.informer is not None:
            self.informer.remove_event_handler(self._registration)
        if self._own_publisher:
            self.publisher.stop()
        else:
            self._channel.close(flush=not self.publisher.on_publisher_thread())

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EventLog({self.name!r}, kept={len(self.entries)}, seen={self.total})"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
