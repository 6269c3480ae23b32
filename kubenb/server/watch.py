"""Watch streams: one `{"type":..,"object":..}` JSON line per event, over chunked HTTP.

A WatchStream is opened (validated, registered with the storage) before any byte is
sent, so a bad request still gets a plain 4xx; then `chunks()` yields the bytes of
the body: initial ADDED events or the backlog after a resourceVersion, live events,
periodic BOOKMARKs, until timeoutSeconds, server stop, or the client going away.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Callable, Iterator
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
_CLIENT_CHECK_EVERY = 1.0


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

    def on_fall_behind(self, callback: Callable[[], None]) -> None:
        """Call `callback` (once, on the writer's thread) if this watcher falls too far
        behind; the HTTP side uses it to unblock a write its client is not reading."""
        if self._queue is not None:
            self._queue.on_overflow = callback

    def close(self) -> None:
        """Unregister from the storage (idempotent)."""
        if self._queue is not None:
            self._storage.stop_watch(self._queue)

    def chunks(self, client_gone: Callable[[], bool] = lambda: False) -> Iterator[bytes]:
        """The body, a chunk at a time; ends at timeout, server stop or disconnect."""
        if self._error is not None:
            yield self._error
            return
        queue = self._queue
        assert queue is not None
        try:
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
            if first:
                yield b"".join(first)
            started = time.monotonic()
            deadline = started + self._timeout if self._timeout else None
            next_bookmark = started + self._interval
            next_check = started + _CLIENT_CHECK_EVERY
            while not self._stop.is_set():
                now = time.monotonic()
                wake = min(next_check, next_bookmark if self._bookmarks else next_check)
                if deadline is not None:
                    wake = min(wake, deadline)
                events = queue.get(max(wake - now, 0.0))
                lines = [line for line in map(self._convert, events) if line is not None]
                if lines:
                    yield b"".join(lines)
                if queue.closed and not events:
                    return
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    return
                if self._bookmarks and now >= next_bookmark:
                    rv = self._storage_bookmark_rv()
                    if rv is not None:
                        yield self._bookmark(rv)
                    next_bookmark = now + self._interval
                if now >= next_check:
                    if client_gone():
                        return
                    next_check = now + _CLIENT_CHECK_EVERY
        finally:
            self.close()

    def _storage_bookmark_rv(self) -> int | None:
        """The current RV if every event up to it has been handed to this watcher."""
        queue = self._queue
        assert queue is not None
        return self._storage.bookmark_rv(queue)
