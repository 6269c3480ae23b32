"""WatchMux: one thread sends every live watch of a server.

A watch spends its life waiting for events, so a thread per watch is a thread blocked
per watch (the embedded cluster alone holds ~18 watches) and, in a fan-out, many threads
taking turns at the GIL. Once a watch's headers and first chunk are written on its
connection thread, that thread hands the socket and the WatchStream here and ends. The
mux waits in one selector on every such socket (non-blocking) and on a wake-up
socketpair that the storage's writers poke through `WatchQueue.on_ready`; it takes the
queued events of the watches that are ready, frames them as HTTP chunks and writes
them without blocking.

Back-pressure stays with the storage: a watch's queue is drained only once everything
taken from it before is written, so the events a client does not read wait in its
WatchQueue, whose bounds decide when it has fallen behind. A chunk partly written
stays the next thing written. A watch ends with the terminating chunk: at its
timeoutSeconds, or when the storage closes it, the connection goes back to a connection
thread for the client's next request (HTTP/1.1 keep-alive); when it fell behind or the
server stops, the partial chunk and the terminator get `LAST_CHUNK_TIMEOUT` seconds and
the connection is closed. A client that hangs up is noticed by its socket turning
readable; one that sends bytes mid-watch (none should) is no longer polled for reads.

Events of a burst are sent in batches. A wake-up that comes less than `BURST_GAP` after
the one before waits `BATCH_WINDOW` before the queues are taken: under a stream of
writes, each event costs a wake of the mux, one send per watch and, in every informer
downstream, a wake of its reflector, process loop and listeners; in Python each wake is
a turn at the GIL taken from the request threads. Batched, a few events share each of
those (a stream of creates with every controller on costs the server about 40% less
CPU). An event after a quiet spell is sent at once; one in a burst waits at most
`BATCH_WINDOW`.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any

from kubenb.server.watch import WatchStream
from kubenb.server.work_thread import WorkThreads

__all__ = ["BATCH_WINDOW", "BURST_GAP", "LAST_CHUNK_TIMEOUT", "WatchMux", "frame_chunk"]

log = logging.getLogger(__name__)

#: Seconds a watch cut for falling behind (or by the server's stop) gets to take the end.
LAST_CHUNK_TIMEOUT = 1.0
#: Seconds a wake-up within a burst waits for more events before they are sent.
BATCH_WINDOW = 0.002
#: Wake-ups closer than this many seconds to the one before are a burst.
BURST_GAP = 0.01
_TERMINATOR = b"0\r\n\r\n"
_SEND_AT_MOST = 256 * 1024  # bytes per send(); a TLS retry repeats the same length
_LONGEST_WAIT = 3600.0  # seconds one select() may wait; a poke wakes it before

# Why a watch ends.
_TIMED_OUT = "timeoutSeconds passed"
_CLOSED = "closed by the storage"
_BEHIND = "fell behind"
_STOPPED = "server stopping"
_REUSABLE = (_TIMED_OUT, _CLOSED)

# What a blocked write waits for.
_WAIT_NONE, _WAIT_WRITABLE, _WAIT_READABLE = 0, 1, 2


def frame_chunk(data: bytes) -> bytes:
    """`data` as one chunk of a chunked HTTP/1.1 body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


class _Watch:
    """One watch the mux sends: its socket, its stream and the bytes not yet written."""

    __slots__ = ("client", "close_by", "ending", "events", "keep_alive", "open", "out",
                 "poll_reads", "retry_size", "sock", "stream", "tls", "wait")

    def __init__(self, sock: socket.socket, stream: WatchStream, client: Any,
                 keep_alive: bool) -> None:
        self.sock = sock
        self.stream = stream
        self.client = client
        self.keep_alive = keep_alive
        self.tls = isinstance(sock, ssl.SSLSocket)
        self.out = bytearray()
        self.retry_size = 0  # a TLS write that must be repeated with this many bytes
        self.wait = _WAIT_NONE
        self.poll_reads = True  # read to notice the client hanging up
        self.events = 0  # what the selector waits for on the socket now
        self.ending: str | None = None
        self.close_by = 0.0  # with `ending`: closed then, written or not
        self.open = True

    def peer(self) -> str:
        host, port = self.client[:2]
        return f"{host}:{port}"


class WatchMux:
    """Sends every watch handed to it from one thread, which runs while there are
    watches to send (started by `add()`, ended once the last watch is gone).

    `resume(sock, client_address)` gives a connection whose watch ended cleanly back to
    a connection thread (its next request); `close(sock)` closes one (for TLS, with the
    server's close_notify). A connection whose terminating chunk is not taken within
    `idle_timeout` seconds is closed.
    """

    def __init__(self, name: str, resume: Callable[[socket.socket, Any], None],
                 close: Callable[[socket.socket], None], idle_timeout: float) -> None:
        self._resume = resume
        self._close = close
        self._idle_timeout = idle_timeout
        self._lock = threading.Lock()
        self._incoming: list[_Watch] = []
        self._ready: set[_Watch] = set()
        self._poked = False
        self._stopping = threading.Event()  # set under the lock; also ends a batch wait
        self._thread: threading.Thread | None = None  # the one running now, if any
        self._work = WorkThreads(name)  # for join(): an ending thread too
        self._wake_w: socket.socket | None = None
        self._selector: selectors.BaseSelector | None = None
        self._watches: set[_Watch] = set()  # the mux thread's own

    # -- any thread ------------------------------------------------------------------

    def add(self, sock: socket.socket, stream: WatchStream, client_address: Any,
            keep_alive: bool) -> bool:
        """Take over a watch whose headers and first chunk are written; False (nothing
        taken) once the mux is stopping."""
        watch = _Watch(sock, stream, client_address, keep_alive)
        with self._lock:
            if self._stopping.is_set():
                return False
            self._incoming.append(watch)
            if self._thread is None:
                self._start_thread()
        self._poke()
        return True

    def _start_thread(self) -> None:
        """Start the sending thread (the caller holds the lock): it runs while it has
        watches to send, so a server with none has no thread for them."""
        wake_r, wake_w = socket.socketpair()
        wake_r.setblocking(False)
        wake_w.setblocking(False)
        selector = selectors.DefaultSelector()
        selector.register(wake_r, selectors.EVENT_READ, None)
        self._wake_w = wake_w
        self._selector = selector
        self._poked = False
        self._thread = self._work.start(self._run, selector, wake_r, wake_w)

    def stop(self) -> None:
        """End every watch: its partial chunk and terminator get LAST_CHUNK_TIMEOUT
        seconds, then its connection is closed; the thread ends after the last one."""
        with self._lock:
            self._stopping.set()
        self._poke()

    def join(self, timeout: float) -> threading.Thread | None:
        """Wait for the thread to end (after `stop()`); returns it if still alive."""
        return self._work.join(timeout)

    @property
    def watch_count(self) -> int:
        """Watches the mux sends now (those handed over and not yet taken in too)."""
        with self._lock:
            return len(self._watches) + len(self._incoming)

    def _mark_ready(self, watch: _Watch) -> None:
        """A storage writer queued an event for `watch` (or closed it)."""
        with self._lock:
            self._ready.add(watch)
            if self._poked:
                return
            self._poked = True
        self._send_wake()

    def _poke(self) -> None:
        with self._lock:
            if self._poked:
                return
            self._poked = True
        self._send_wake()

    def _send_wake(self) -> None:
        wake = self._wake_w
        if wake is not None:
            with contextlib.suppress(OSError):  # full: the mux is awake anyway
                wake.send(b"\0")

    # -- the mux thread ----------------------------------------------------------------

    def _run(self, selector: selectors.BaseSelector, wake_r: socket.socket,
             wake_w: socket.socket) -> None:
        stop_seen = False
        timeout: float | None = 0.0
        last_wake = float("-inf")
        try:
            while True:
                selected = selector.select(timeout)
                if any(key.data is None for key, _ in selected):  # poked
                    woken = time.monotonic()
                    if woken - last_wake < BURST_GAP:
                        self._stopping.wait(BATCH_WINDOW)  # a stop ends the wait
                    last_wake = woken
                for key, mask in selected:
                    watch = key.data
                    if watch is None or not watch.open:
                        continue
                    if mask & selectors.EVENT_READ:
                        self._on_readable(watch)
                    if mask & selectors.EVENT_WRITE and watch.open:
                        self._service(watch, time.monotonic())
                with contextlib.suppress(BlockingIOError):  # before the sets are taken
                    while wake_r.recv(4096):
                        pass
                with self._lock:
                    incoming, self._incoming = self._incoming, []
                    ready, self._ready = self._ready, set()
                    self._poked = False
                    stopping = self._stopping.is_set()
                now = time.monotonic()
                for watch in incoming:
                    self._take_in(watch)
                    ready.add(watch)
                if stopping and not stop_seen:
                    stop_seen = True
                    for watch in list(self._watches):
                        self._end(watch, _STOPPED, now)
                        ready.add(watch)
                for watch in ready:
                    if watch.open:
                        self._service(watch, now)
                timeout = self._run_timers(time.monotonic())
                if timeout is not None:  # epoll takes at most ~24 days (a far-off bookmark)
                    timeout = min(timeout, _LONGEST_WAIT)
                if not self._watches:
                    with self._lock:
                        if not self._incoming:  # nothing to send: the next add() starts one
                            self._thread = None
                            self._wake_w = None
                            self._ready.clear()
                            return
        except Exception:
            log.exception("kubenb server: the watch sender failed; closing its watches")
            with self._lock:
                self._thread = None
                self._wake_w = None
                incoming, self._incoming = self._incoming, []
            for watch in list(self._watches):
                self._drop(watch)
            for watch in incoming:
                watch.stream.close()
                self._close(watch.sock)
        finally:
            selector.close()
            wake_r.close()
            wake_w.close()

    def _take_in(self, watch: _Watch) -> None:
        watch.sock.setblocking(False)
        self._watches.add(watch)
        watch.stream.set_ready_callback(lambda: self._mark_ready(watch))
        self._update_selector(watch)

    def _run_timers(self, now: float) -> float | None:
        """Serve the watches whose bookmark, timeout or closing deadline has come; the
        seconds until the next one (None: none)."""
        soonest: float | None = None
        for watch in list(self._watches):
            if watch.ending is not None:
                when: float | None = watch.close_by
                if now >= watch.close_by:
                    self._drop(watch)  # it did not take its end in time
                    continue
            else:
                when = watch.stream.next_timer()
                if when is not None and now >= when:
                    self._service(watch, now)
                    if not watch.open:
                        continue
                    when = watch.close_by if watch.ending else watch.stream.next_timer()
            if when is not None and (soonest is None or when < soonest):
                soonest = when
        return None if soonest is None else max(soonest - now, 0.0)

    def _service(self, watch: _Watch, now: float) -> None:
        """Take what the watch has to send (when nothing is left to write) and write
        until the socket would block or nothing is left. A watch that fails here is
        closed alone; the others go on."""
        try:
            while watch.open:
                if watch.ending is None:
                    self._fill(watch, now)
                if not watch.out:
                    if watch.ending is not None:
                        self._complete(watch)
                    return
                if not self._write(watch):
                    return
        except Exception:
            log.exception("kubenb server: sending the watch of %s for %s failed; closing it",
                          watch.stream.resource, watch.peer())
            self._drop(watch)

    def _fill(self, watch: _Watch, now: float) -> None:
        stream = watch.stream
        if watch.out:
            # Still writing what was taken before: new events wait in the queue, whose
            # bounds decide when this client has fallen behind.
            if stream.fell_behind:
                self._end(watch, _BEHIND, now)
            elif stream.timed_out(now):
                self._end(watch, _TIMED_OUT, now)
            else:
                stream.skip_bookmark(now)
            return
        chunk = stream.take_chunk()
        if chunk:
            watch.out += frame_chunk(chunk)
        if stream.finished:
            self._end(watch, _BEHIND if stream.fell_behind else
                      _STOPPED if stream.stopped_by_server else _CLOSED, now)
        elif stream.timed_out(now):
            self._end(watch, _TIMED_OUT, now)
        else:
            bookmark = stream.bookmark_chunk(now)
            if bookmark:
                watch.out += frame_chunk(bookmark)

    def _end(self, watch: _Watch, why: str, now: float) -> None:
        """Queue the terminating chunk after whatever is being written."""
        if watch.ending is not None:
            if why == _STOPPED:  # already ending: the stop still closes it soon
                watch.close_by = min(watch.close_by, now + LAST_CHUNK_TIMEOUT)
            return
        watch.ending = why
        watch.out += _TERMINATOR
        watch.close_by = now + (self._idle_timeout if why in _REUSABLE else LAST_CHUNK_TIMEOUT)
        watch.stream.close()

    def _write(self, watch: _Watch) -> bool:
        """Write without blocking; True once the out-buffer is empty."""
        sock, out = watch.sock, watch.out
        while out:
            size = watch.retry_size or min(len(out), _SEND_AT_MOST)
            try:
                with memoryview(out) as view, view[:size] as part:
                    sent = sock.send(part)
            except ssl.SSLWantWriteError:
                watch.retry_size = size
                self._wait_for(watch, _WAIT_WRITABLE)
                return False
            except ssl.SSLWantReadError:
                watch.retry_size = size
                self._wait_for(watch, _WAIT_READABLE)
                return False
            except BlockingIOError:
                self._wait_for(watch, _WAIT_WRITABLE)
                return False
            except (OSError, ValueError):  # the client went away
                self._drop(watch)
                return False
            watch.retry_size = 0
            del out[:sent]
        self._wait_for(watch, _WAIT_NONE)
        return True

    def _on_readable(self, watch: _Watch) -> None:
        if watch.wait == _WAIT_READABLE:  # a TLS write that needed to read first
            self._service(watch, time.monotonic())
            return
        sock = watch.sock
        try:
            # TLS cannot peek (what a client sends mid-watch is dropped); plain TCP
            # peeks, so bytes sent early stay for the connection's next request.
            data = sock.recv(4096) if watch.tls else sock.recv(1, socket.MSG_PEEK)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
            return  # part of a TLS record, or nothing after all
        except (OSError, ValueError):  # reset, or a TLS close_notify / EOF
            data = b""
        if not data:
            self._drop(watch)  # the client hung up
            return
        watch.poll_reads = False  # it talks mid-watch: stop polling rather than spin
        self._update_selector(watch)

    def _wait_for(self, watch: _Watch, wait: int) -> None:
        if watch.wait != wait:
            watch.wait = wait
            self._update_selector(watch)

    def _update_selector(self, watch: _Watch) -> None:
        events = 0
        if watch.poll_reads or watch.wait == _WAIT_READABLE:
            events |= selectors.EVENT_READ
        if watch.wait == _WAIT_WRITABLE:
            events |= selectors.EVENT_WRITE
        if events == watch.events or not watch.open:
            return
        selector = self._selector
        assert selector is not None
        if not events:
            selector.unregister(watch.sock)
        elif not watch.events:
            selector.register(watch.sock, events, watch)
        else:
            selector.modify(watch.sock, events, watch)
        watch.events = events

    def _forget(self, watch: _Watch) -> None:
        """Take a watch out of the mux, its stream closed (and logged if cut)."""
        watch.open = False
        self._watches.discard(watch)
        if watch.events:
            assert self._selector is not None
            with contextlib.suppress(KeyError, ValueError, OSError):
                self._selector.unregister(watch.sock)
            watch.events = 0
        watch.stream.set_ready_callback(None)
        watch.stream.close()
        if watch.stream.fell_behind:
            log.info(watch.stream.fell_behind_message(watch.peer()))

    def _complete(self, watch: _Watch) -> None:
        """The terminating chunk is written: reuse the connection or close it."""
        self._forget(watch)
        with self._lock:
            stopping = self._stopping.is_set()
        if (watch.ending in _REUSABLE and watch.keep_alive and not stopping
                and not watch.stream.stopped_by_server):
            try:
                watch.sock.setblocking(True)
            except OSError:
                self._close(watch.sock)
                return
            self._resume(watch.sock, watch.client)
        else:
            self._close(watch.sock)

    def _drop(self, watch: _Watch) -> None:
        """End a watch whose client went away or did not take its end in time."""
        if watch.open:
            self._forget(watch)
            self._close(watch.sock)
