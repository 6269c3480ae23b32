"""Decoding a watch stream into `WatchEvent(type, object)`, stoppable from any thread.

A watch response is chunked HTTP carrying one JSON `WatchEvent` per line (W1). Chunk
edges fall anywhere, lines can be megabytes long, and the server may end the stream
at any time (its `timeoutSeconds`, a restart, a dropped connection). This module
turns that into an iterator that:

- yields ADDED, MODIFIED, DELETED and BOOKMARK events, in order;
- raises the matching `ApiError` for an ERROR event (a 410 becomes `Gone`) and
  `WatchDecodeError` for a frame that is not a watch event;
- ends cleanly when the server closes the stream, when the connection drops, when
  nothing arrives within the read timeout, or when `stop()` is called from another
  thread (which shuts the socket down, so a blocked read returns at once).

`end_reason` says which of those ended it, so a Reflector can count and explain it.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import requests
from urllib3.exceptions import ProtocolError, ReadTimeoutError

from kubenb.client.chunked import ChunkedBodyReader
from kubenb.errors import ApiError, WatchDecodeError, api_error_from_status
from kubenb.jsondecode import decode_json

__all__ = [
    "EVENT_TYPES",
    "Watch",
    "WatchEvent",
    "decode_event",
    "event_from_frame",
]

log = logging.getLogger(__name__)

EVENT_TYPES = frozenset({"ADDED", "MODIFIED", "DELETED", "BOOKMARK"})
_READ_SIZE = 256 * 1024


class WatchEvent(NamedTuple):
    """One event of a watch: `type` is ADDED, MODIFIED, DELETED or BOOKMARK."""

    type: str
    object: dict[str, Any]


def decode_event(line: bytes | str) -> WatchEvent:
    """Decode one frame; ERROR events raise their `ApiError` (W2, W3)."""
    try:
        frame = decode_json(line)
    except ValueError as exc:
        raise WatchDecodeError(
            f"unable to decode an event from the watch stream: {exc} "
            f"(frame starts {_preview(line)})") from None
    return event_from_frame(frame, line)


def event_from_frame(frame: Any, line: bytes | str = b"") -> WatchEvent:
    if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
        raise WatchDecodeError(
            f"unable to decode an event from the watch stream: not a watch event "
            f"(frame starts {_preview(line)})")
    kind = frame["type"]
    obj = frame.get("object")
    if kind in EVENT_TYPES and isinstance(obj, dict):
        meta = obj.get("metadata")
        if meta is not None and not _meta_ok(meta):
            raise WatchDecodeError(_malformed_metadata(kind, meta, line))
        return WatchEvent(kind, obj)
    if kind == "ERROR":
        if isinstance(obj, dict) and obj.get("kind") == "Status":
            raise api_error_from_status(int(obj.get("code") or 500), obj)
        raise ApiError(500, "InternalError",
                       f"watch ERROR event without a Status object: {_preview(line)}")
    if kind in EVENT_TYPES:
        raise WatchDecodeError(f"watch event {kind} has no object (frame starts "
                               f"{_preview(line)})")
    raise WatchDecodeError(f"got invalid watch event type: {kind}")


_META_STRINGS = ("name", "namespace", "resourceVersion", "uid")


def _meta_ok(meta: Any) -> bool:
    """An object whose identity fields, where present, are strings (what a Go client's
    decode of ObjectMeta demands; cache keys and resourceVersions are built from them).
    Spelled out: it runs for every event, and a loop here cost a quarter of a decode."""
    if type(meta) is not dict:
        return False
    get = meta.get
    name, namespace, rv, uid = get("name"), get("namespace"), get("resourceVersion"), get("uid")
    return ((name is None or type(name) is str) and (rv is None or type(rv) is str)
            and (namespace is None or type(namespace) is str)
            and (uid is None or type(uid) is str))


def _malformed_metadata(kind: str, meta: Any, line: bytes | str) -> str:
    """Which part of the object's metadata is not what an ObjectMeta can be."""
    if not isinstance(meta, dict):
        what, got = "`metadata`", type(meta).__name__
        expected = "an object"
    else:
        field = next(f for f in _META_STRINGS if not isinstance(meta.get(f), str | None))
        what, got = f"`metadata.{field}`", type(meta[field]).__name__
        expected = "a string"
    return (f"{what} of a watch event ({kind}) is a {got}, expected {expected} "
            f"(frame starts {_preview(line)})")


def _preview(line: bytes | str, limit: int = 120) -> str:
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


class Watch:
    """The events of one watch request; iterate it, or use it as a context manager.

    Iterate from one thread; `stop()` may be called from any thread and makes the
    iteration end promptly (within one read) without raising. Each `iter()` starts a
    new read of the response, and dropping an iterator (leaving its `for` loop early)
    closes the response: code that reads a watch in phases keeps one iterator.
    """

    def __init__(self, response: requests.Response) -> None:
        self._response = response
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._closed = False
        self._readers = 0  # iterations inside a read; the last one out closes the response
        self._read_sock: socket.socket | None = None  # the socket a direct reader reads
        self.end_reason: str = ""  # "", "closed", "stopped", "idle-timeout", "connection-lost"
        self.events_received = 0
        self._line_tap: Callable[[list[bytes]], object] | None = None

    def __repr__(self) -> str:
        state = self.end_reason or ("open" if not self._closed else "closed")
        return f"Watch({self._response.url!r}, {state}, events={self.events_received})"

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def tap_lines(self, tap: Callable[[list[bytes]], object] | None) -> None:
        """Call `tap` with the complete lines of each read, as the server sent them (blank
        ones included, newlines cut), before any of them is decoded; None removes it.

        The flight recorder keeps the very bytes it is shown this way: the Watch decodes
        exactly one event from each non-blank line, in order, so the n-th event iterated
        comes from the n-th non-blank line tapped. Set it before iterating."""
        self._line_tap = tap

    def __iter__(self) -> Iterator[WatchEvent]:
        # Each frame is decoded only when the consumer asks for it: decoding a whole read
        # ahead keeps dozens of fresh objects alive at once, the collections that follow
        # promote them, and a consumer that keeps its objects (any cache) then pays for
        # repeated full collections.
        with self._lock:
            self._readers += 1
        try:
            for lines in self._line_batches():
                if self._line_tap is not None:
                    self._line_tap(lines)
                for line in lines:
                    if self._stopped.is_set():
                        return
                    if not line.strip():
                        continue
                    event = decode_event(line)
                    self.events_received += 1
                    yield event
        finally:
            with self._lock:
                self._readers -= 1
            self._close()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def stop(self) -> None:
        """End the watch from any thread: the socket is shut down so a blocked read wakes.

        The response (and its socket) is closed here only when no thread is reading it;
        otherwise the reader closes it on its way out. Closed under a reader, the socket's
        descriptor could be reused by a new connection before the reader's next recv,
        which would then wait on that connection forever."""
        self._stopped.set()
        for sock in (_socket_of(self._response), self._read_sock):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        with self._lock:
            reading = self._readers > 0
        if not reading:
            self._close()

    def _close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            self._response.close()
        except Exception:  # closing a half-read response may fail in any way
            log.debug("closing a watch response failed", exc_info=True)

    def _reads(self) -> Iterator[list[bytes]]:
        """The body, one read at a time, as its chunks' payloads: every chunk that waits,
        where the connection can be read directly (kubenb.client.chunked), else
        whatever urllib3 returns (one piece)."""
        body = ChunkedBodyReader.from_response(self._response)
        if body is not None:
            self._read_sock = body.sock
            read = body.read
        else:
            def read() -> list[bytes]:
                data = self._response.raw.read1(_READ_SIZE)
                return [data] if data else []
        while not self._stopped.is_set():
            try:
                pieces = read()
            except (ReadTimeoutError, TimeoutError):
                self.end_reason = self.end_reason or "idle-timeout"
                return
            except (ProtocolError, OSError, ValueError, AttributeError) as exc:
                if self._stopped.is_set():
                    break
                log.info("watch connection lost: %s", exc)
                self.end_reason = "connection-lost"
                return
            if not pieces:
                break
            yield pieces
        if not self.end_reason:
            self.end_reason = "stopped" if self._stopped.is_set() else "closed"

    def _line_batches(self) -> Iterator[list[bytes]]:
        """The complete lines of each read, as one list per read. A chunk that is one
        whole line (a server flushes each event as one) is taken as it is, its newline
        cut: one copy, where joining the read and splitting it again made two."""
        partial: list[bytes] = []  # the pieces of a line still to end
        for pieces in self._reads():
            lines: list[bytes] = []
            for piece in pieces:
                if (not partial and piece[-1:] == b"\n"
                        and piece.find(b"\n", 0, -1) < 0):
                    lines.append(piece[:-1])
                    continue
                if b"\n" not in piece:
                    partial.append(piece)  # a long line: join once, when it ends
                    continue
                if partial:
                    partial.append(piece)
                    piece = b"".join(partial)
                    partial = []
                ended = piece.split(b"\n")
                tail = ended.pop()
                if tail:
                    partial.append(tail)
                lines += ended
            if self._stopped.is_set():
                return
            if lines:
                yield lines
        if partial and not self._stopped.is_set() and self.end_reason == "closed":
            yield [b"".join(partial)]  # a last frame without its newline


def _socket_of(response: requests.Response) -> socket.socket | None:
    raw = response.raw
    conn = getattr(raw, "_connection", None) or getattr(raw, "connection", None)
    sock = getattr(conn, "sock", None)
    if sock is not None:
        return sock
    fp = getattr(getattr(raw, "_fp", None), "fp", None)
    return getattr(getattr(fp, "raw", None), "_sock", None)
