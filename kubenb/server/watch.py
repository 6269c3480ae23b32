"""Watch streams: one `{"type":..,"object":..}` JSON line per event, over chunked HTTP.

A WatchStream is opened (validated, registered with the storage) before any byte is
sent, so a bad request still gets a plain 4xx. Its body comes in pieces that never
block, so one thread can send every live watch (kubenb.server.watch_mux): the first
chunk (initial ADDED events or the backlog after a resourceVersion), then, each time
the storage says events are queued, those events as lines, periodic BOOKMARKs when due,
until timeoutSeconds, the storage closing the watch, or the client going away.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Callable
from typing import Any

from kubenb.server import errors
from kubenb.server.encoding import dumps, dumps_line
from kubenb.server.filters import make_predicate
from kubenb.server.params import bool_param, parse_rv
from kubenb.server.resources import ResourceType
from kubenb.server.storage import ADDED, DELETED, MODIFIED, Event, Storage, TooOldError
from kubenb.server.validation import list_options_problems

__all__ = ["WatchStream"]

_INITIAL_EVENTS_END = "k8s.io/initial-events-end"
_LIST_BLUEPRINT = "kubernetes.io/initial-events-list-blueprint"


def _line(type_: str, encoded_object: bytes) -> bytes:
    return b'{"type":"' + type_.encode() + b'","object":' + encoded_object + b"}\n"


class WatchStream:
    """One open watch. Raises StatusError from the constructor for invalid options."""

    def __init__(self, storage: Storage, rtype: ResourceType, namespace: str | None,
                 params: dict[str, str], bookmark_interval: float,
                 stop: threading.Event) -> None:
        problems = list_options_problems(params, watch=True)
        if problems:
            raise errors.invalid_list_options(problems)
        self._storage = storage
        self._rtype = rtype
        self._namespace = namespace if rtype.namespaced else None
        self._predicate = make_predicate(rtype, params.get("labelSelector", ""),
                                         params.get("fieldSelector", ""))
        self._bookmarks = bool(bool_param(params, "allowWatchBookmarks"))
        self._interval = max(bookmark_interval, 0.01)
        self._stop = stop
        timeout = params.get("timeoutSeconds", "")
        try:
            self._timeout = float(timeout) if timeout else None
        except ValueError:
            raise errors.bad_request(f'invalid value "{timeout}" for timeoutSeconds') from None
        rv_text = params.get("resourceVersion", "")
        send_initial = bool_param(params, "sendInitialEvents")
        self._initial_end_bookmark = send_initial is True and self._bookmarks
        legacy_initial = rv_text in ("", "0") and send_initial is None
        wants_initial = send_initial is True or legacy_initial
        from_rv = None if rv_text in ("", "0") or wants_initial else parse_rv(rv_text)
        if wants_initial and rv_text not in ("", "0"):
            parse_rv(rv_text)
        self._error: bytes | None = None
        self._initial: list[dict[str, Any]] = []
        self._backlog: list[Event] = []
        self._queue = None
        self._start_rv = 0
        self._deadline: float | None = None
        self._next_bookmark = 0.0
        try:
            initial, backlog, start_rv, queue = storage.watch(rtype.key, self._namespace,
                                                              from_rv)
        except TooOldError as exc:
            status = errors.expired(f"too old resource version: {exc.requested} "
                                    f"({exc.oldest})").status
            self._error = _line("ERROR", dumps_line(status))
            return
        self._min_rv = from_rv or 0  # a future RV: wait for it, send only later events
        self._initial = initial if wants_initial else []
        self._backlog = backlog
        self._start_rv = start_rv
        self._queue = queue

    def _convert(self, event: Event) -> bytes | None:
        if event.type == "BOOKMARK":  # sent by a replay (Storage.signal_watches)
            return self._bookmark(event.rv) if self._bookmarks else None
        if event.type == "ERROR":
            return _line("ERROR", event.encoded())
        if event.rv <= self._min_rv:
            return None
        if self._namespace is not None and event.namespace != self._namespace:
            return None
        predicate = self._predicate
        if predicate is None:
            return _line(event.type, event.encoded())
        if event.type == ADDED:
            return _line(ADDED, event.encoded()) if predicate(event.obj) else None
        if event.type == DELETED:
            return _line(DELETED, event.encoded()) if predicate(event.obj) else None
        now, before = predicate(event.obj), event.prev is not None and predicate(event.prev)
        if now:
            return _line(MODIFIED if before else ADDED, event.encoded())
        if before:
            assert event.prev is not None
            gone = dict(event.prev, metadata=dict(event.prev["metadata"],
                                                  resourceVersion=str(event.rv)))
            return _line(DELETED, dumps_line(gone))
        return None

    def _bookmark(self, rv: int, initial_end: bool = False) -> bytes:
        meta: dict[str, Any] = {"resourceVersion": str(rv), "creationTimestamp": None}
        if initial_end:
            blueprint = dumps({"kind": self._rtype.list_kind,
                               "apiVersion": self._rtype.group_version,
                               "metadata": {}, "items": None})
            meta["annotations"] = {_INITIAL_EVENTS_END: "true",
                                   _LIST_BLUEPRINT: base64.b64encode(blueprint).decode()}
        return _line("BOOKMARK", dumps_line({"kind": self._rtype.kind,
                                             "apiVersion": self._rtype.group_version,
                                             "metadata": meta}))

    @property
    def stopped_by_server(self) -> bool:
        """Whether the stream ended because the server is stopping."""
        return self._stop.is_set()

    @property
    def resource(self) -> str:
        """What is watched (`plural` or `plural.group`), for log lines."""
        return self._rtype.key

    @property
    def fell_behind(self) -> bool:
        """Whether the server closed this watch because its client fell too far behind
        (more than the storage's per-watcher bound was waiting for it)."""
        return self._queue is not None and self._queue.overflowed

    def on_fall_behind(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` (once, on the writer's thread) if this watcher falls too far
        behind; the HTTP side uses it to unblock a write its client is not reading.
        None: no call."""
        if self._queue is not None:
            self._queue.on_overflow = callback

    def close(self) -> None:
        """Unregister from the storage (idempotent)."""
        if self._queue is not None:
            self._storage.stop_watch(self._queue)

    # -- the body, in the pieces a sender calls ---------------------------------------

    @property
    def failed(self) -> bool:
        """Whether the watch ends with its first chunk (an ERROR line: the resourceVersion
        asked for is older than the kept history)."""
        return self._error is not None

    def first_chunk(self) -> bytes:
        """The first chunk of the body: the initial ADDED events or the backlog after the
        resourceVersion asked for, and the initial-events-end bookmark; or the ERROR line
        of a watch that `failed`. b"" when there is nothing to send yet. Starts the
        watch's clock (timeoutSeconds, periodic bookmarks)."""
        if self._error is not None:
            return self.reshape(self._error)
        first: list[bytes] = []
        predicate = self._predicate
        for obj in self._initial:
            if predicate is None or predicate(obj):
                first.append(_line(ADDED, dumps_line(obj)))
        for event in self._backlog:
            line = self._convert(event)
            if line is not None:
                first.append(line)
        if self._initial_end_bookmark:
            first.append(self._bookmark(self._start_rv, initial_end=True))
        self._initial = []
        self._backlog = []
        started = time.monotonic()
        self._deadline = started + self._timeout if self._timeout else None
        self._next_bookmark = started + self._interval
        return self.reshape(b"".join(first)) if first else b""

    def set_ready_callback(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` (on the writer's thread) whenever an event is queued for this
        watch or it is closed: the sender's cue to call `take_chunk()`."""
        if self._queue is not None:
            self._queue.on_ready = callback

    def take_chunk(self) -> bytes:
        """The queued live events as one chunk of lines, without waiting; b"" if none
        (or none this watch's filters pass)."""
        if self._queue is None:
            return b""
        lines = [line for line in map(self._convert, self._queue.drain()) if line is not None]
        return self.reshape(b"".join(lines)) if lines else b""

    @property
    def finished(self) -> bool:
        """Whether the storage closed the watch (server stop, dropped, fell behind) and
        every event it queued before that has been taken."""
        queue = self._queue
        return queue is None or (queue.closed and not queue.pending())

    def timed_out(self, now: float) -> bool:
        """Whether the watch's timeoutSeconds have passed at `now` (time.monotonic())."""
        return self._deadline is not None and now >= self._deadline

    def bookmark_chunk(self, now: float) -> bytes:
        """A BOOKMARK line if one is due at `now` and the watch asked for bookmarks (none
        while events wait for this watch: see Storage.bookmark_rv); else b""."""
        if not self._bookmarks or now < self._next_bookmark:
            return b""
        self._next_bookmark = now + self._interval
        rv = self._storage_bookmark_rv()
        return self.reshape(self._bookmark(rv)) if rv is not None else b""

    def skip_bookmark(self, now: float) -> None:
        """Send no bookmark for a while: one due at `now` would wait behind events its
        client is still being written; the next is due an interval later."""
        if self._bookmarks and now >= self._next_bookmark:
            self._next_bookmark = now + self._interval

    def next_timer(self) -> float | None:
        """When (time.monotonic()) the watch next needs its sender without an event:
        a bookmark or timeoutSeconds; None if never."""
        wake = self._next_bookmark if self._bookmarks else None
        if self._deadline is not None:
            wake = self._deadline if wake is None else min(wake, self._deadline)
        return wake

    def reshape(self, chunk: bytes) -> bytes:
        """A chunk of event lines as this watch's client asked for them: as they are here;
        a subclass re-shapes the objects (Table rows, metadata only, another version)."""
        return chunk

    def fell_behind_message(self, client: str) -> str:
        """The log line of a watch closed because its client (`host:port`) fell behind."""
        storage = self._storage
        return (f"kubenb server: closed the watch of {self.resource} for {client}: it fell "
                f"behind, more events waited for it than max_watch_buffer_bytes="
                f"{storage.max_watch_buffer_bytes} or max_watch_buffer="
                f"{storage.max_watch_buffer} allow; its client resumes from its last "
                "resourceVersion")

    def _storage_bookmark_rv(self) -> int | None:
        """The current RV if every event up to it has been handed to this watcher."""
        queue = self._queue
        assert queue is not None
        return self._storage.bookmark_rv(queue)
