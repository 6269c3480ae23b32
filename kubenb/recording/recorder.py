"""Recorder: writes down what informers receive, without changing what they receive.

A `RecordingListerWatcher` wraps the ListerWatcher an informer's Reflector uses.
Every list page it returns, every watch it opens, every event (bookmarks too) it hands
on, every error and every end of a watch is reported to the `Recorder` with the
moment it arrived, and passed on untouched. The Reflector cannot tell the difference.

On the informer's thread a report costs little: for a kubenb `Watch` the event's line
is written as the server sent it (no encoding; the line is taken as the Watch splits
its stream, see `RecordingWatch`), otherwise the object is encoded once (msgspec), as
it is for redacted resources. Compressing and writing happen on the recorder's own
thread, in batches, with a gzip sync flush every `flush_interval` and every MiB (so the
file is readable up to there at any time, whatever happens to the process).
Recording stops cleanly (a "stop" trailer, the file closed) on `stop()`, after
`duration`, or when `max_events` events or `max_bytes` bytes on disk are reached;
from then on the wrappers only pass things through.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec

from kubenb.cache.listwatch import ListerWatcher, Watcher
from kubenb.client.options import ListOptions
from kubenb.client.watch import Watch
from kubenb.clock import Clock, RealClock
from kubenb.errors import ApiError
from kubenb.recording.format import (
    RecordingError,
    RecordingWriter,
    ResourceSpec,
    encode_line,
    make_header,
)
from kubenb.recording.redact import Redactor

log = logging.getLogger(__name__)

_encode = msgspec.json.Encoder().encode
_BATCH_BYTES = 256 << 10  # wake the writer when this much is waiting (uncompressed)
_FLUSH_BYTES = 1 << 20  # sync-flush at least this often (uncompressed), besides by time
STOP_REASONS = ("stopped", "duration", "max-events", "max-bytes", "write-error")


class Recorder:
    """Records the list/watch traffic of informers of `resources` into `path`.

    Give each informer `recorder.list_watcher(index, its_list_watcher)` before it starts
    (`Cluster.record` does this for you), then `start()`. `stop()` (or leaving the
    `with` block) closes the file cleanly; `wait()` returns when recording has stopped
    for any reason, which `reason` names.

    `max_bytes` bounds the file on disk: checked after every flush, so the file may pass
    it by at most one batch (at most 1 MiB before compression). `max_events` counts
    watch events (bookmarks included). `redact` names fields to remove from every
    object; Secret values are removed unless `redact_secrets=False`. `compresslevel` is
    gzip's: 1 (the default) is the cheapest in CPU, 9 the smallest, 0 stores only.
    """

    def __init__(self, path: str | os.PathLike[str], resources: Sequence[ResourceSpec], *,
                 server_version: dict[str, Any] | None = None, max_bytes: int | None = None,
                 max_events: int | None = None, duration: float | None = None,
                 redact: Sequence[str | Sequence[str]] = (), redact_secrets: bool = True,
                 clock: Clock | None = None, flush_interval: float = 0.25,
                 compresslevel: int = 1) -> None:
        if not resources:
            raise RecordingError("nothing to record: give at least one resource")
        for name, value in (("max_bytes", max_bytes), ("max_events", max_events)):
            if value is not None and value < 1:
                raise RecordingError(f"{name}={value!r}: must be at least 1 (or None: no limit)")
        if duration is not None and duration < 0:
            raise RecordingError(f"duration={duration!r}: must be >= 0 seconds (or None)")
        self.path = Path(path)
        self.resources = list(resources)
        self.server_version = server_version or {}
        self.max_bytes = max_bytes
        self.max_events = max_events
        self.duration = duration
        self.redactor = Redactor(redact, secrets=redact_secrets)
        self.clock = clock or RealClock()
        self.flush_interval = flush_interval
        self.compresslevel = compresslevel
        self._redact = [self.redactor.for_resource(spec) for spec in self.resources]
        self._cond = threading.Condition(threading.Lock())
        # The lines not yet written, copied in at once: holding on to the Watch's own
        # line objects instead costs the informer more (fresh memory for every read)
        # than the copy does.
        self._buffer = bytearray()
        self._active = False
        self._stopping = False
        self.reason = ""
        self._t0 = 0.0
        self._writer: RecordingWriter | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self._owned: list[Any] = []  # informers made for this recording alone
        self.events = 0
        self.lists = 0
        self.errors = 0
        self.bytes_written = 0
        self.last_error = ""

    def __repr__(self) -> str:
        state = "recording" if self._active else (self.reason or "new")
        return (f"Recorder({str(self.path)!r}, {state}, events={self.events}, "
                f"bytes={self.bytes_written})")

    def __enter__(self) -> Recorder:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> Recorder:
        """Open the file, write the header and start the writer thread; returns self."""
        with self._cond:
            if self._writer is not None or self._done.is_set():
                return self
            limits = {"max_bytes": self.max_bytes, "max_events": self.max_events,
                      "duration": self.duration}
            header = make_header(self.resources, server_version=self.server_version,
                                 redaction=self.redactor.describe(), limits=limits)
            self._writer = RecordingWriter(self.path, header, self.compresslevel)
            self._writer.flush()
            self._t0 = self.clock.now()
            self._active = True
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"kubenb-recorder-{self.path.name}")
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop recording and close the file cleanly (idempotent); stops the informers
        made for this recording alone (never shared ones)."""
        self._finish("stopped")
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        for informer in self._owned:
            informer.stop(timeout)
        self._owned.clear()

    close = stop

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until recording has stopped and the file is closed; False on timeout."""
        return self._done.wait(timeout)

    @property
    def recording(self) -> bool:
        """Whether lines are still being recorded."""
        return self._active

    @property
    def done(self) -> bool:
        """Whether recording has stopped and the file is closed."""
        return self._done.is_set()

    def elapsed(self) -> float:
        """Seconds since recording started."""
        return self.clock.now() - self._t0 if self._writer is not None else 0.0

    def stats(self) -> dict[str, Any]:
        """Counters so far, as one snapshot (what the CLI's progress line shows)."""
        with self._cond:
            return {"path": str(self.path), "recording": self._active,
                    "reason": self.reason, "events": self.events, "lists": self.lists,
                    "errors": self.errors, "bytes": self.bytes_written,
                    "elapsed": round(self.elapsed(), 3), "last_error": self.last_error}

    def add_owned(self, informer: Any) -> None:
        """An informer this recording started for itself; `stop()` stops it."""
        self._owned.append(informer)

    def _finish(self, reason: str) -> None:
        with self._cond:
            if not self._active:
                if self._writer is None and not self._done.is_set():
                    self.reason = self.reason or reason
                    self._done.set()  # never started
                return
            self._active = False
            self.reason = reason
            self._cond.notify_all()

    # -- wrapping --------------------------------------------------------------------------

    def list_watcher(self, index: int, inner: ListerWatcher) -> RecordingListerWatcher:
        """`inner`, recorded as resource number `index` of this recording."""
        if not 0 <= index < len(self.resources):
            raise RecordingError(f"no resource number {index} in this recording (it has "
                                 f"{len(self.resources)})")
        return RecordingListerWatcher(inner, self, index)

    # -- reports (on informer threads) -----------------------------------------------------

    def _emit(self, tail: bytes, event: bool = False, index: int = -1) -> None:
        """Queue one line: `tail` is everything after the time stamp, or (with `index`)
        a raw watch event line of that resource."""
        with self._cond:
            if not self._active:
                return
            buffer = self._buffer
            if index < 0:
                buffer += b'{"t":%.6f,' % (self.clock.now() - self._t0)
                buffer += tail
            else:  # {"type":..,"object":..} -> {"t":..,"r":..,"op":"event","type":..}
                buffer += b'{"t":%.6f,"r":%d,"op":"event",' % (self.clock.now() - self._t0,
                                                               index)
                buffer += memoryview(tail)[1:]
                buffer += b"\n"
            if event:
                self.events += 1
                if self.max_events is not None and self.events >= self.max_events:
                    self._active = False
                    self.reason = "max-events"
                    self._cond.notify_all()
                    return
            if len(buffer) >= _BATCH_BYTES:
                self._cond.notify_all()

    def _object(self, index: int, obj: Any) -> bytes:
        redact = self._redact[index]
        return _encode(redact(obj) if redact is not None else obj)

    def record_list(self, index: int, options: ListOptions, result: dict[str, Any]) -> None:
        """One list page as returned to the Reflector (pages are joined when read)."""
        if not self._active:
            return
        meta = result.get("metadata") or {}
        redact = self._redact[index]
        items = result.get("items") or []
        if redact is not None:
            items = [redact(item) for item in items]
        more = bool(meta.get("continue"))
        body = {"r": index, "op": "list", "rv": str(meta.get("resourceVersion") or ""),
                "from": options.resource_version, "continue": bool(options.continue_),
                "more": more, "items": items}
        self._emit(encode_line(body)[1:])
        if not more:
            with self._cond:
                self.lists += 1

    def record_watch(self, index: int, options: ListOptions) -> None:
        if self._active:
            self._emit(encode_line({"r": index, "op": "watch", "rv": options.resource_version,
                                    "initial": bool(options.send_initial_events)})[1:])

    def record_event(self, index: int, kind: str, obj: Any) -> None:
        if self._active:
            self._emit(b'"r":%d,"op":"event","type":"%s","object":' % (index, kind.encode())
                       + self._object(index, obj) + b"}\n", event=True)

    def record_raw_event(self, index: int, line: bytes) -> None:
        """One watch event as its JSON line came from the server (`{"type":..,"object":..}`,
        stripped); only for resources with nothing to redact."""
        if self._active:
            self._emit(line, True, index)

    def raw_lines_ok(self, index: int) -> bool:
        """Whether events of resource `index` may be written as received (no redaction)."""
        return self._redact[index] is None

    def record_error(self, index: int, during: str, err: BaseException) -> None:
        if not self._active:
            return
        body: dict[str, Any] = {"r": index, "op": "error", "during": during}
        if isinstance(err, ApiError):
            body.update(code=err.status, reason=err.reason, message=err.message)
            if isinstance(err.body, dict):
                body["status"] = err.body
        else:
            body.update(code=None, reason=type(err).__name__, message=str(err)[:1000])
        with self._cond:
            self.errors += 1
        self._emit(encode_line(body)[1:])

    def record_end(self, index: int, reason: str) -> None:
        if self._active:
            self._emit(encode_line({"r": index, "op": "end", "reason": reason})[1:])

    # -- the writer thread -------------------------------------------------------------------

    def _run(self) -> None:
        writer = self._writer
        assert writer is not None
        deadline = None if self.duration is None else self._t0 + self.duration
        last_flush = time.monotonic()
        unflushed = 0
        try:
            while True:
                with self._cond:
                    while self._active and len(self._buffer) < _BATCH_BYTES:
                        wait = self.flush_interval - (time.monotonic() - last_flush)
                        if wait <= 0:
                            break
                        if deadline is not None and self.clock.now() >= deadline:
                            break
                        self._cond.wait(min(wait, self.flush_interval))
                    if self._active and deadline is not None and self.clock.now() >= deadline:
                        self._active = False
                        self.reason = "duration"
                    batch, self._buffer = self._buffer, bytearray()
                    active = self._active
                if batch:
                    writer.write(batch)
                    unflushed += len(batch)
                if not active or unflushed >= _FLUSH_BYTES or \
                        time.monotonic() - last_flush >= self.flush_interval:
                    writer.flush()
                    last_flush, unflushed = time.monotonic(), 0
                self.bytes_written = writer.size
                if active and self.max_bytes is not None and writer.size >= self.max_bytes:
                    with self._cond:
                        if self._active:
                            self._active = False
                            self.reason = "max-bytes"
                    active = False
                if not active:
                    break
            with self._cond:  # reports that raced with the stop are dropped, not half-kept
                self._buffer = bytearray()
                trailer = {"t": round(self.clock.now() - self._t0, 6), "op": "stop",
                           "reason": self.reason, "events": self.events, "lists": self.lists,
                           "errors": self.errors}
            writer.close(trailer)
            self.bytes_written = writer.size if not writer.closed else _size(self.path)
        except Exception as exc:  # a full disk, a removed folder: say so, stop recording
            log.warning("recording to %s failed: %s", self.path, exc)
            with self._cond:
                self._active = False
                self.reason = "write-error"
                self.last_error = str(exc)
            with contextlib.suppress(Exception):  # the first error is the one reported
                writer.close()
        finally:
            self._done.set()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


class RecordingListerWatcher:
    """A ListerWatcher that reports everything `inner` returns to a Recorder, unchanged."""

    def __init__(self, inner: ListerWatcher, recorder: Recorder, index: int) -> None:
        self.inner = inner
        self.recorder = recorder
        self.index = index
        self.description = getattr(inner, "description", "")

    def __repr__(self) -> str:
        return f"RecordingListerWatcher({self.inner!r}, resource={self.index})"

    def list(self, options: ListOptions) -> dict[str, Any]:
        try:
            result = self.inner.list(options)
        except Exception as err:
            self.recorder.record_error(self.index, "list", err)
            raise
        self.recorder.record_list(self.index, options, result)
        return result

    def watch(self, options: ListOptions, read_timeout: float | None = None) -> Watcher:
        try:
            watch = self.inner.watch(options, read_timeout)
        except Exception as err:
            self.recorder.record_error(self.index, "watch-open", err)
            raise
        self.recorder.record_watch(self.index, options)
        return RecordingWatch(watch, self.recorder, self.index)


class RecordingWatch:
    """One watch, its events reported as the Reflector takes them.

    For a kubenb `Watch` (kubenb.client.watch) and a resource with nothing to redact,
    each event is written as the very line the server sent: the Watch's line splitter
    (`_line_batches`) is tapped on this instance, and since the Watch decodes exactly one
    event from each non-blank line, in order, the n-th event taken is the n-th line.
    Anything else is encoded from the decoded object.
    """

    def __init__(self, inner: Watcher, recorder: Recorder, index: int) -> None:
        self.inner = inner
        self.recorder = recorder
        self.index = index
        self._ended = False
        self._lines: deque[bytes] | None = None
        batches = getattr(inner, "_line_batches", None)
        if isinstance(inner, Watch) and callable(batches) and recorder.raw_lines_ok(index):
            lines: deque[bytes] = deque()
            self._lines = lines

            def tapped() -> Iterator[list[bytes]]:
                for batch in batches():
                    lines.extend(line.strip() for line in batch if line.strip())
                    yield batch

            inner._line_batches = tapped  # type: ignore[method-assign]

    def __repr__(self) -> str:
        return f"RecordingWatch({self.inner!r})"

    @property
    def end_reason(self) -> str:
        return str(getattr(self.inner, "end_reason", ""))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)  # events_received, stopped, ...

    def __iter__(self) -> Iterator[Any]:
        recorder, index, lines = self.recorder, self.index, self._lines
        try:
            for event in self.inner:
                if lines is not None:
                    line = lines.popleft()
                    if recorder._active:
                        if line[:1] == b"{":
                            recorder.record_raw_event(index, line)
                        else:  # pragma: no cover - the Watch decoded it, so it is JSON
                            recorder.record_event(index, event.type, event.object)
                elif recorder._active:
                    recorder.record_event(index, event.type, event.object)
                yield event
        except Exception as err:
            self._end()
            recorder.record_error(index, "watch", err)
            raise
        self._end(self.end_reason or "closed")

    def _end(self, reason: str | None = None) -> None:
        if self._ended:
            return
        self._ended = True
        if reason is not None:
            self.recorder.record_end(self.index, reason)

    def stop(self) -> None:
        if not self._ended and self.recorder._active:
            self._end("stopped")
        self.inner.stop()
