"""Recorder: writes down what informers receive, without changing what they receive.

A `RecordingListerWatcher` wraps the ListerWatcher an informer's Reflector uses.
Every list page it returns, every watch it opens, every event (bookmarks too) it hands
on, every error and every end of a watch is reported to the `Recorder` with the
moment it arrived, and passed on untouched. The Reflector cannot tell the difference.

On the informer's thread a watch event costs three appends to a list under a lock:
its arrival time, its resource and the very line the server sent (the Watch's own
bytes object: not copied, not decoded again, see `RecordingWatch`). Objects that must
be redacted are the exception: they are encoded once (msgspec). Everything else
happens on the recorder's own thread, in batches: framing each line (`{"t":..,"r":..,
"op":"event",` + the line), gzip (zlib level 1, which runs without the GIL) in
chunks of about 256 KiB each written as a complete gzip member (so the file is readable
up to there at any time, whatever happens to the process; compressed within a CPU
budget, stored past it, see `_Sink`) and the write. The queue is bounded
(`queue_bytes`): when the writer falls that far behind, the informer waits for it
(backpressure: nothing is dropped), and if the writer makes no progress at all for
`stall_timeout` seconds, recording stops ("write-stalled") rather than hold the
informer any longer. Recording stops cleanly (a "stop" trailer, the file closed) on
`stop()`, after `duration`, or when `max_events` events or `max_bytes` bytes on disk
are reached; from then on the wrappers only pass things through.

One concept, so one module past the usual length: the wrappers that observe an informer
and the writer thread that frames and compresses what they saw share one queue and its
backpressure.
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
from kubenb.errors import ApiError, BadRequest, Forbidden, Unauthorized
from kubenb.recording.format import (
    RecordingError,
    ResourceSpec,
    encode_line,
    make_header,
)
from kubenb.recording.gzipio import Buffer, compressed_member, stored_member
from kubenb.recording.redactor import Redactor

__all__ = [
    "DEFAULT_COMPRESS_BUDGET",
    "DEFAULT_QUEUE_BYTES",
    "DEFAULT_STALL_TIMEOUT",
    "STOP_REASONS",
    "Recorder",
    "RecordingListerWatcher",
    "RecordingWatch",
]

log = logging.getLogger(__name__)

_encode = msgspec.json.Encoder().encode
_TAIL, _EVENT_TAIL = -1, -2  # the resource of a queued line that is not a raw event
_BATCH_BYTES = 512 << 10  # wake the writer when this much is waiting (uncompressed)
_CHUNK_BYTES = 256 << 10  # compress, sync-flush and check max_bytes this often (fits L2)
DEFAULT_QUEUE_BYTES = 32 << 20
DEFAULT_STALL_TIMEOUT = 30.0
STOP_REASONS = ("stopped", "duration", "max-events", "max-bytes", "write-error",
                "write-stalled")


#: Share of one CPU the writer may spend compressing, by default (see _Sink).
DEFAULT_COMPRESS_BUDGET = 0.05
#: Seconds of budget a quiet spell saves up for the next burst.
_CREDIT_SECONDS = 1.0


class _Sink:
    """The recorder's file: gzip, one member per chunk, or plain JSON lines at
    compresslevel 0. Counts the bytes it wrote (pipes have no tell).

    Why a member per chunk: each is complete on disk as soon as it is written (the file
    reads back up to there, whatever happens to the process), and each may be
    compressed or not. Compression is what recording costs (docs/recording.md), so it
    gets a CPU budget: a chunk is compressed while the writer's compression CPU time
    stays within `budget` of the time that passed (credit saved up for at most
    `_CREDIT_SECONDS`); past it (a stream faster than ~`budget` x 300 MB/s of JSON
    lines), chunks are stored, still gzip, until the credit is back. A real cluster's
    stream is compressed whole; a firehose's compression stays bounded (what it still
    costs the informer beside that is measured in docs/recording.md). `budget=1.0` (or
    more) compresses everything.
    """

    def __init__(self, path: Path, compresslevel: int,
                 budget: float = DEFAULT_COMPRESS_BUDGET,
                 wall_time: Any = time.monotonic, cpu_time: Any = time.thread_time) -> None:
        try:
            self._fh = open(path, "wb", buffering=0)  # noqa: SIM115 - closed in close()
        except OSError as exc:
            raise RecordingError(f"cannot write the recording {path}: "
                                 f"{exc.strerror or exc}") from None
        self.level = compresslevel
        self.budget = budget
        self._wall, self._cpu = wall_time, cpu_time
        self._credit = budget * _CREDIT_SECONDS
        self._last = wall_time()
        self.size = 0
        self.stored = 0  # bytes of lines written in stored (uncompressed) gzip members
        self.compressed = 0  # bytes of lines written in compressed members
        self.closed = False

    def _encode(self, data: bytes) -> list[Buffer]:
        """`data` as what goes to the file: itself, or a gzip member's pieces."""
        level = self.level
        if not level:
            return [data]
        now = self._wall()
        credit = min(self.budget * _CREDIT_SECONDS,
                     self._credit + self.budget * (now - self._last))
        self._last = now
        if credit <= 0:  # over budget: stored blocks, one CRC pass without the GIL
            self._credit = credit
            self.stored += len(data)
            return stored_member(data)
        started = self._cpu()
        out = compressed_member(data, level)
        self._credit = credit - (self._cpu() - started)
        self.compressed += len(data)
        return [out]

    def write(self, data: bytes) -> None:
        """Write complete lines; every one of them reads back from the file alone.

        `data` is the chunk's lines joined once by the caller (one C-level copy): the
        CRC, zlib and the write then each make one call without the GIL, where a loop
        over the many small buffers (three an event) held it for each (measured: a
        stored chunk took ~180 CRC calls)."""
        pieces = self._encode(data)
        total = sum(map(len, pieces))
        done = os.writev(self._fh.fileno(), pieces) if len(pieces) > 1 else 0
        if done < total:  # one buffer, or a short writev: the rest
            view = memoryview(pieces[0] if len(pieces) == 1 else b"".join(pieces))[done:]
            while view:
                view = view[self._fh.write(view) or 0:]
        self.size += total

    def close(self, last: bytes = b"") -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if last:
                self.write(last)
        finally:
            self._fh.close()


class Recorder:
    """Records the list/watch traffic of informers of `resources` into `path`.

    Give each informer `recorder.list_watcher(index, its_list_watcher)` before it starts
    (`Cluster.record` does this for you), then `start()`. `stop()` (or leaving the
    `with` block) closes the file cleanly; `wait()` returns when recording has stopped
    for any reason, which `reason` names. A resource whose first list the server
    refuses for good (401, 403: the user may not list it there; 400) stops the
    recording at once with reason "refused" and the server's message in `last_error`:
    nothing would be recorded however long it ran.

    `max_bytes` bounds the file on disk: checked after every chunk written, so the file
    may pass it by at most one chunk (256 KiB of lines before compression, or one list
    page if that is larger). `max_events` counts watch events (bookmarks included).
    `redact` names fields whose values are replaced by "<redacted>" in every object;
    Secret values are replaced too unless `redact_secrets=False` (see redactor.py).
    `definitions`: the CustomResourceDefinitions of recorded custom resources, kept in
    the header so a replay can serve them (`Cluster.record` fetches them).
    `compresslevel` is gzip's: 1 (the default) is the cheapest in CPU, 9 the smallest;
    0 writes plain JSON lines (no gzip). Compression may use `compress_budget` of one
    CPU (5%); chunks past it are stored in the gzip file uncompressed
    (`stats()["stored_bytes"]`), see `_Sink`. `queue_bytes` bounds what waits for the
    writer; an informer that finds it full waits (and `stalls` counts it);
    `stall_timeout` seconds without any progress of the writer stop the recording
    instead.
    """

    def __init__(self, path: str | os.PathLike[str], resources: Sequence[ResourceSpec], *,
                 server_version: dict[str, Any] | None = None, max_bytes: int | None = None,
                 max_events: int | None = None, duration: float | None = None,
                 redact: Sequence[str | Sequence[str]] = (), redact_secrets: bool = True,
                 clock: Clock | None = None, flush_interval: float = 0.25,
                 compresslevel: int = 1, queue_bytes: int = DEFAULT_QUEUE_BYTES,
                 stall_timeout: float = DEFAULT_STALL_TIMEOUT,
                 compress_budget: float = DEFAULT_COMPRESS_BUDGET,
                 definitions: Sequence[dict[str, Any]] = ()) -> None:
        if not resources:
            raise RecordingError("nothing to record: give at least one resource")
        for name, value in (("max_bytes", max_bytes), ("max_events", max_events)):
            if value is not None and value < 1:
                raise RecordingError(f"{name}={value!r}: must be at least 1 (or None: no limit)")
        if duration is not None and duration < 0:
            raise RecordingError(f"duration={duration!r}: must be >= 0 seconds (or None)")
        if not 0 <= compresslevel <= 9:
            raise RecordingError(f"compresslevel={compresslevel!r}: must be 0 (plain lines) "
                                 "to 9")
        if not compress_budget > 0:
            raise RecordingError(f"compress_budget={compress_budget!r}: must be > 0 (a "
                                 "share of one CPU; compresslevel=0 compresses nothing)")
        if queue_bytes < 1:
            raise RecordingError(f"queue_bytes={queue_bytes!r}: must be at least 1")
        if not stall_timeout > 0:
            raise RecordingError(f"stall_timeout={stall_timeout!r}: must be > 0 seconds")
        self.path = Path(path)
        self.resources = list(resources)
        self.server_version = server_version or {}
        self.definitions = list(definitions)
        self.max_bytes = max_bytes
        self.max_events = max_events
        self.duration = duration
        self.redactor = Redactor(redact, secrets=redact_secrets)
        self.clock = clock or RealClock()
        self.flush_interval = flush_interval
        self.compresslevel = compresslevel
        self.compress_budget = compress_budget
        self.queue_bytes = queue_bytes
        self.stall_timeout = stall_timeout
        self._redact = [self.redactor.for_resource(spec) for spec in self.resources]
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._now = self.clock.now
        # What waits for the writer, flat: time, resource, line, time, resource, line...
        # (resource < 0: the line is the rest of a record after its time stamp). Floats,
        # small ints and the Watch's own bytes: nothing the cyclic collector tracks.
        self._queue: list[Any] = []
        self._pending = 0  # bytes of lines in the queue
        self._woken = False  # the writer was told a batch is waiting
        self._progress = 0  # chunks written so far (a stalled writer makes none)
        self._active = False
        self.reason = ""
        self._t0 = 0.0
        self._sink: _Sink | None = None
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self._owned: list[Any] = []  # informers made for this recording alone
        self.events = 0
        self.lists = 0
        self._listed: set[int] = set()  # resources with a complete list recorded
        self.errors = 0
        self.stalls = 0
        self.bytes_written = 0
        self.writer_cpu = 0.0  # CPU seconds the writer thread has used (framing, gzip)
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
        with self._lock:
            if self._sink is not None or self._done.is_set():
                return self
            limits = {"max_bytes": self.max_bytes, "max_events": self.max_events,
                      "duration": self.duration}
            header = make_header(self.resources, server_version=self.server_version,
                                 redaction=self.redactor.describe(), limits=limits,
                                 definitions=self.definitions)
            sink = _Sink(self.path, self.compresslevel, self.compress_budget)
            try:
                sink.write(encode_line(header))
            except OSError as exc:
                with contextlib.suppress(OSError):
                    sink.close()
                raise RecordingError(f"cannot write the recording {self.path}: "
                                     f"{exc.strerror or exc}") from None
            self._sink = sink
            self.bytes_written = sink.size
            self._t0 = self._now()
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
        return self._now() - self._t0 if self._sink is not None else 0.0

    def stats(self) -> dict[str, Any]:
        """Counters so far, as one snapshot (what the CLI's progress line shows)."""
        with self._lock:
            return {"path": str(self.path), "recording": self._active,
                    "reason": self.reason, "events": self.events, "lists": self.lists,
                    "errors": self.errors, "bytes": self.bytes_written,
                    "queued": self._pending, "stalls": self.stalls,
                    "writer_cpu": round(self.writer_cpu, 6),
                    "stored_bytes": self._sink.stored if self._sink is not None else 0,
                    "elapsed": round(self.elapsed(), 3), "last_error": self.last_error}

    def add_owned(self, informer: Any) -> None:
        """An informer this recording started for itself; `stop()` stops it."""
        self._owned.append(informer)

    def _finish(self, reason: str) -> None:
        with self._lock:
            if not self._active:
                if self._sink is None and not self._done.is_set():
                    self.reason = self.reason or reason
                    self._done.set()  # never started
                return
            self._stop_locked(reason)

    def _stop_locked(self, reason: str) -> None:
        """Stop taking lines (the lock held): the writer writes what is queued, then the
        trailer; informers waiting for room go on."""
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

    def record_raw_event(self, index: int, line: bytes) -> None:
        """One watch event as its JSON line came from the server (`{"type":..,"object":..}`,
        stripped); only for resources with nothing to redact. The hot path: the line is
        kept as it is, framed and compressed by the writer."""
        with self._lock:
            if not self._active or (self._pending >= self.queue_bytes
                                    and not self._wait_for_room()):
                return
            queue = self._queue
            queue.append(self._now() - self._t0)
            queue.append(index)
            queue.append(line)
            self._pending += len(line)
            self.events += 1
            if self.max_events is not None and self.events >= self.max_events:
                self._stop_locked("max-events")
            elif self._pending >= _BATCH_BYTES and not self._woken:
                self._woken = True
                self._cond.notify_all()

    def _emit(self, tail: bytes, event: bool = False) -> None:
        """Queue one record: `tail` is everything after its time stamp."""
        with self._lock:
            if not self._active or (self._pending >= self.queue_bytes
                                    and not self._wait_for_room()):
                return
            self._queue += (self._now() - self._t0, _EVENT_TAIL if event else _TAIL, tail)
            self._pending += len(tail)
            if event:
                self.events += 1
                if self.max_events is not None and self.events >= self.max_events:
                    self._stop_locked("max-events")
                    return
            if self._pending >= _BATCH_BYTES and not self._woken:
                self._woken = True
                self._cond.notify_all()

    def _wait_for_room(self) -> bool:
        """Backpressure (the lock held): the queue is full, so the informer waits until
        the writer takes it. A writer that makes no progress for `stall_timeout` stops
        the recording instead. False: recording stopped meanwhile."""
        self.stalls += 1
        progress = self._progress
        deadline = time.monotonic() + self.stall_timeout
        self._cond.notify_all()  # the writer, if it is waiting for a batch
        while self._active and self._pending >= self.queue_bytes:
            now = time.monotonic()
            if self._progress != progress:
                progress, deadline = self._progress, now + self.stall_timeout
            elif now >= deadline:
                log.warning("recording to %s stopped: the writer made no progress for %.0f s "
                            "with %d bytes queued", self.path, self.stall_timeout,
                            self._pending)
                self._stop_locked("write-stalled")
                break
            self._cond.wait(min(deadline - now, 1.0))
        return self._active

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
            with self._lock:
                self.lists += 1
                self._listed.add(index)

    def record_watch(self, index: int, options: ListOptions) -> None:
        if self._active:
            self._emit(encode_line({"r": index, "op": "watch", "rv": options.resource_version,
                                    "initial": bool(options.send_initial_events)})[1:])

    def record_event(self, index: int, kind: str, obj: Any) -> None:
        if self._active:
            self._emit(b'"r":%d,"op":"event","type":"%s","object":' % (index, kind.encode())
                       + self._object(index, obj) + b"}\n", event=True)

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
        with self._lock:
            self.errors += 1
            refused = (during == "list" and index not in self._listed
                       and isinstance(err, Forbidden | Unauthorized | BadRequest))
        self._emit(encode_line(body)[1:])
        if refused:
            self.last_error = f"{self.resources[index].describe()}: {err}"
            self._finish("refused")

    def record_end(self, index: int, reason: str) -> None:
        if self._active:
            self._emit(encode_line({"r": index, "op": "end", "reason": reason})[1:])

    # -- the writer thread -------------------------------------------------------------------

    def _run(self) -> None:
        sink = self._sink
        assert sink is not None
        deadline = None if self.duration is None else self._t0 + self.duration
        try:
            while True:
                with self._lock:
                    if self._active and self._pending < _BATCH_BYTES:
                        # woken by a full batch, a stop or a waiting informer; else the
                        # flush interval: what is queued goes to disk at least that often
                        self._cond.wait(self.flush_interval)
                    if self._active and deadline is not None and self._now() >= deadline:
                        self._stop_locked("duration")
                    batch, self._queue = self._queue, []
                    self._pending = 0
                    self._woken = False
                    active = self._active
                    if self.stalls:
                        self._cond.notify_all()  # informers waiting for room
                if batch and not self._write(sink, batch):
                    break  # max-bytes
                self.writer_cpu = time.thread_time()
                if not active:
                    break
            with self._lock:
                trailer = {"t": round(self._now() - self._t0, 6), "op": "stop",
                           "reason": self.reason, "events": self.events, "lists": self.lists,
                           "errors": self.errors}
            sink.close(encode_line(trailer))
            self.bytes_written = sink.size
            self.writer_cpu = time.thread_time()
        except Exception as exc:  # a full disk, a removed folder: say so, stop recording
            log.warning("recording to %s failed: %s", self.path, exc)
            with self._lock:
                self._active = False
                self.reason = "write-error"
                self.last_error = str(exc)
                self._cond.notify_all()
            with contextlib.suppress(Exception):  # the first error is the one reported
                sink.close()
        finally:
            self._done.set()

    def _write(self, sink: _Sink, batch: list[Any]) -> bool:
        """Frame, compress and write `batch` in chunks; False once max_bytes is reached
        (what is left is dropped, its events uncounted: the file ends there)."""
        pieces: list[Any] = []
        size = 0
        it = iter(batch)
        for t, r, line in zip(it, it, it, strict=True):
            if r >= 0:  # {"type":..,"object":..} -> {"t":..,"r":..,"op":"event","type":..}
                pieces.append(b'{"t":%.6f,"r":%d,"op":"event",' % (t, r))
                pieces.append(memoryview(line)[1:])
                pieces.append(b"\n")
            else:
                pieces.append(b'{"t":%.6f,' % t)
                pieces.append(line)
            size += len(line)
            if size >= _CHUNK_BYTES:
                if not self._write_chunk(sink, pieces, it):
                    return False
                pieces, size = [], 0
        return not pieces or self._write_chunk(sink, pieces, it)

    def _write_chunk(self, sink: _Sink, pieces: list[Any], rest: Iterator[Any]) -> bool:
        sink.write(b"".join(pieces))
        self.bytes_written = sink.size
        self._progress += 1
        if self.max_bytes is None or sink.size < self.max_bytes:
            return True
        dropped = list(rest)
        with self._lock:
            dropped += self._queue
            self._queue, self._pending = [], 0
            self.events -= sum(1 for r in dropped[1::3] if r != _TAIL)
            if self._active:
                self._stop_locked("max-bytes")
            elif dropped:
                self.reason = "max-bytes"  # the file ends before what was queued at stop
        return False


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
    each event is written as the very line the server sent: the Watch's lines are tapped
    (`Watch.tap_lines`), and since the Watch decodes exactly one event from each
    non-blank line, in order, the n-th event taken is the n-th line.
    Anything else is encoded from the decoded object.
    """

    def __init__(self, inner: Watcher, recorder: Recorder, index: int) -> None:
        self.inner = inner
        self.recorder = recorder
        self.index = index
        self._ended = False
        self._lines: deque[bytes] | None = None
        if isinstance(inner, Watch) and recorder.raw_lines_ok(index):
            lines: deque[bytes] = deque()
            self._lines = lines
            keep, strip = lines.extend, bytes.strip

            def tap(batch: list[bytes]) -> None:
                keep(filter(None, map(strip, batch)))  # the non-blank lines, as is

            inner.tap_lines(tap)

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
            if lines is None:
                for event in self.inner:
                    if recorder._active:
                        recorder.record_event(index, event.type, event.object)
                    yield event
            else:
                take, raw = lines.popleft, recorder.record_raw_event
                for event in self.inner:
                    line = take()
                    if recorder._active:
                        if line[0] == 123:  # b"{"
                            raw(index, line)
                        else:  # pragma: no cover - the Watch decoded it, so it is JSON
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
