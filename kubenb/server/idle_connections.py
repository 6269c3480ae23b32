"""IdleConnections: kept-alive connections waiting for their next request, on no thread.

A client keeps its connection open between requests (HTTP/1.1 keep-alive), and every
client of the embedded cluster's own controllers keeps one or more. With a thread per
connection, each of those is a thread blocked in a read for as long as the client
holds the socket (two minutes by default). A connection thread that finds no next
request within `LINGER` seconds hands its socket here instead and ends: one selector
thread, running only while connections are parked, waits on all of them; when one
turns readable (its next request, or the client hanging up) it goes back to a fresh
connection thread (`resume`), and one left idle for `idle_timeout` seconds is closed,
as the connection thread's own read timeout would have closed it. A client sending
requests one after the other never waits here: its next request comes within `LINGER`.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from kubenb.server.work_thread import WorkThreads

__all__ = ["LINGER", "IdleConnections"]

log = logging.getLogger(__name__)

#: Seconds a connection thread waits for the next request before parking its socket.
LINGER = 1.0


class IdleConnections:
    """Parked keep-alive sockets; see the module docstring."""

    def __init__(self, name: str, resume: Callable[[socket.socket, Any], None],
                 close: Callable[[socket.socket], None], idle_timeout: float) -> None:
        self._resume = resume
        self._close = close
        self._idle_timeout = idle_timeout
        self._lock = threading.Lock()
        self._incoming: list[tuple[socket.socket, Any, float]] = []
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._work = WorkThreads(name)  # for join(): an ending thread too
        self._wake_w: socket.socket | None = None
        self._parked = 0  # the thread's count, published under the lock

    @property
    def count(self) -> int:
        """Connections parked now (or being taken in)."""
        with self._lock:
            return len(self._incoming) + self._parked

    def park(self, sock: socket.socket, client_address: Any) -> bool:
        """Take `sock` until its next request; False (not taken) once stopping."""
        with self._lock:
            if self._stopping:
                return False
            self._incoming.append((sock, client_address, time.monotonic()))
            if self._thread is None:
                self._start_thread()
            wake = self._wake_w
        if wake is not None:
            with contextlib.suppress(OSError):  # full: the thread is awake anyway
                wake.send(b"\0")
        return True

    def stop(self) -> None:
        """Close every parked connection; the thread ends after that."""
        with self._lock:
            self._stopping = True
            wake = self._wake_w
        if wake is not None:
            with contextlib.suppress(OSError):
                wake.send(b"\0")

    def join(self, timeout: float) -> threading.Thread | None:
        """Wait for the thread to end (after `stop()`); returns it if still alive."""
        return self._work.join(timeout)

    def _start_thread(self) -> None:
        """(The caller holds the lock.)"""
        wake_r, wake_w = socket.socketpair()
        wake_r.setblocking(False)
        wake_w.setblocking(False)
        self._wake_w = wake_w
        self._thread = self._work.start(self._run, wake_r, wake_w)

    def _run(self, wake_r: socket.socket, wake_w: socket.socket) -> None:
        selector = selectors.DefaultSelector()
        selector.register(wake_r, selectors.EVENT_READ, None)
        parked: dict[socket.socket, tuple[Any, float]] = {}  # sock -> client, parked at
        try:
            while True:
                timeout = None
                if parked:
                    oldest = min(since for _, since in parked.values())
                    timeout = max(0.0, oldest + self._idle_timeout - time.monotonic())
                for key, _ in selector.select(timeout):
                    sock = key.fileobj
                    if key.data is None or sock not in parked:
                        continue
                    selector.unregister(sock)
                    client, _ = parked.pop(sock)  # type: ignore[call-overload]
                    self._resume(sock, client)  # type: ignore[arg-type]
                with contextlib.suppress(BlockingIOError):
                    while wake_r.recv(4096):
                        pass
                with self._lock:
                    incoming, self._incoming = self._incoming, []
                    stopping = self._stopping
                for sock, client, since in incoming:
                    try:
                        selector.register(sock, selectors.EVENT_READ, client)
                    except (OSError, ValueError):  # closed meanwhile
                        self._close(sock)
                        continue
                    parked[sock] = (client, since)
                now = time.monotonic()
                for sock, (_, since) in list(parked.items()):
                    if stopping or now - since >= self._idle_timeout:
                        selector.unregister(sock)
                        del parked[sock]
                        self._close(sock)
                with self._lock:
                    self._parked = len(parked)
                    if not parked and not self._incoming:  # the next park() starts one
                        self._thread = None
                        self._wake_w = None
                        return
        except Exception:
            log.exception("kubenb server: the idle-connection holder failed; closing its "
                          "connections")
            with self._lock:  # the next park() starts a new thread
                self._thread = None
                self._wake_w = None
                self._parked = 0
                incoming, self._incoming = self._incoming, []
            for sock, _, _ in incoming:
                self._close(sock)
        finally:
            for sock in parked:
                self._close(sock)
            selector.close()
            wake_r.close()
            wake_w.close()
