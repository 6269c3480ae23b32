"""Aborting in-flight HTTP requests from another thread (what cancelling a Go context does).

A thread blocked in `requests` (waiting for a slow LIST, reading a large body) cannot
be interrupted from outside, except by shutting its socket down. `AbortScope` makes
that possible without threading a cancel argument through every call:

    with AbortScope() as scope:      # on the thread that makes the requests
        client.list(...)             # another thread may call scope.abort()

While a scope is entered on a thread, every connection that thread sends a request
on is registered with it, by the connection classes that `install` puts into
kubenb's sessions. `abort()` (from any thread) shuts those sockets down: the blocked
call fails at once with `RequestAborted`, and later requests in the scope fail
before they are sent. A connection that went back to the pool belongs to whoever
sends on it next, so aborting one scope never breaks another thread's request.

What a request can block in, and how an abort ends each: reading an answer (the socket
is shut down), a TCP connect to an address that does not answer (the connecting socket
is known to the scope before it connects, and shutting it down wakes the connect), a TLS
handshake with a silent peer (the handshake runs on that same TCP socket), and a retry's
wait between attempts (`sleep_unless_aborted`).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any

from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.response import HTTPResponse
from urllib3.util.connection import allowed_gai_family

from kubenb.clock import Clock
from kubenb.errors import RequestAborted

__all__ = [
    "AbortScope",
    "AbortableHTTPConnection",
    "AbortableHTTPConnectionPool",
    "AbortableHTTPSConnection",
    "AbortableHTTPSConnectionPool",
    "RequestAborted",
    "ScopedConnection",
    "current_scope",
    "install",
    "sleep_unless_aborted",
]

_local = threading.local()
_lock = threading.Lock()  # who owns which connection; abort vs. a new request


class AbortScope:
    """Requests made on this thread while the scope is entered can be aborted."""

    def __init__(self, description: str = "") -> None:
        self.description = description
        self._connections: set[ScopedConnection] = set()
        self._aborted = False
        self._aborted_event = threading.Event()  # wakes a retry's wait
        self._closed = False
        self._previous: AbortScope | None = None

    def __repr__(self) -> str:
        state = "aborted" if self._aborted else "closed" if self._closed else "open"
        return f"AbortScope({self.description!r}, {state})"

    def __enter__(self) -> AbortScope:
        self._previous = getattr(_local, "scope", None)
        _local.scope = self
        return self

    def __exit__(self, *exc: object) -> None:
        _local.scope = self._previous
        with _lock:
            self._closed = True
            for conn in self._connections:
                if conn._kubenb_scope is self:
                    conn._kubenb_scope = None
            self._connections.clear()

    @property
    def aborted(self) -> bool:
        return self._aborted

    def abort(self) -> int:
        """Shut down the sockets of this scope's requests; returns how many were open.

        Idempotent, callable from any thread, a no-op once the scope was exited."""
        with _lock:
            if self._closed:
                return 0
            self._aborted = True
            self._aborted_event.set()
            owned = [c for c in self._connections if c._kubenb_scope is self]
            for conn in owned:
                conn._kubenb_shut = True
                # The TCP socket too: while it connects or shakes hands, `conn.sock`
                # is not set yet.
                for sock in (conn.sock, conn._kubenb_tcp):
                    if sock is not None:
                        with contextlib.suppress(OSError):
                            sock.shutdown(socket.SHUT_RDWR)
        return len(owned)

    def _error(self) -> RequestAborted:
        what = f" of {self.description}" if self.description else ""
        return RequestAborted(f"request{what} aborted: the caller stopped")


def current_scope() -> AbortScope | None:
    """The scope entered on this thread, if any."""
    return getattr(_local, "scope", None)


def sleep_unless_aborted(clock: Clock, seconds: float) -> None:
    """`clock.sleep(seconds)`, ended at once with `RequestAborted` when this thread's
    scope is aborted (a retry waiting out a Retry-After: 30 of a stopped informer)."""
    scope = current_scope()
    if scope is None:
        clock.sleep(seconds)
        return
    if clock.wait_event(scope._aborted_event, seconds) or scope.aborted:
        raise scope._error()


class ScopedConnection:
    """A connection an `AbortScope` can shut down: it registers with the sending thread's
    scope for each request (`claim`), and names its TCP socket before connecting it
    (`connecting`), so an abort reaches a connect or a TLS handshake too. `sock` is the
    socket requests are sent on once connected (TLS-wrapped for HTTPS)."""

    sock: Any = None
    _kubenb_scope: AbortScope | None = None
    _kubenb_shut = False  # its socket was shut down by an abort
    _kubenb_tcp: socket.socket | None = None  # the TCP socket, known before it connects

    def claim(self) -> bool:
        """Register with this thread's scope (raising if it was aborted); returns whether
        an abort shut this connection's socket while it sat idle in the pool."""
        scope = current_scope()
        with _lock:
            stale = self._kubenb_shut
            self._kubenb_shut = False
            self._kubenb_scope = None
            if scope is not None and not scope._closed:
                if scope._aborted:
                    raise scope._error()
                self._kubenb_scope = scope
                scope._connections.add(self)
        return stale

    def connecting(self, sock: socket.socket | None) -> None:
        """`sock` is about to connect (None: no socket yet); raises if the scope that
        claimed this connection was aborted."""
        scope = self._kubenb_scope
        with _lock:
            if scope is not None and scope._aborted:
                raise scope._error()
            self._kubenb_tcp = sock

    def raise_if_aborted(self, err: BaseException) -> None:
        """Raise `RequestAborted` for an error an abort caused."""
        scope = self._kubenb_scope
        if scope is not None and scope.aborted:
            raise scope._error() from err


class AbortableHTTPConnection(ScopedConnection, HTTPConnection):
    """Registers itself with the sending thread's `AbortScope` for each request."""

    def connect(self) -> None:
        # An HTTPS pool connects before it sends (urllib3's _validate_conn): the scope
        # must know the connection from here on.
        self.claim()
        try:
            super().connect()
        except Exception as err:  # the connect or TLS handshake an abort cut short
            self.raise_if_aborted(err)
            raise

    def request(self, method: str, url: str, body: Any = None,
                headers: Any = None, **kwargs: Any) -> None:
        if self.claim():  # aborted while it was idle in the pool: start on a fresh socket
            self.close()
        try:
            super().request(method, url, body=body, headers=headers, **kwargs)
        except Exception as err:
            self.raise_if_aborted(err)
            raise

    def _new_conn(self) -> socket.socket:
        """urllib3's connect, with the socket handed to the scope before it connects, so
        an abort can shut it down mid-connect (or mid-handshake, which uses it next)."""
        self.connecting(None)
        scope = self._kubenb_scope
        if scope is None:
            return super()._new_conn()
        try:
            addresses = socket.getaddrinfo(self._dns_host.strip("[]"), self.port,
                                           allowed_gai_family(), socket.SOCK_STREAM)
        except socket.gaierror as err:
            raise NameResolutionError(self.host, self, err) from err
        last: OSError | None = None
        for family, kind, proto, _, address in addresses:
            sock = socket.socket(family, kind, proto)
            try:
                for option in self.socket_options or ():
                    sock.setsockopt(*option)
                if self.timeout is None or isinstance(self.timeout, int | float):
                    sock.settimeout(self.timeout)
                if self.source_address:
                    sock.bind(self.source_address)
                self.connecting(sock)
                sock.connect(address)
                return sock
            except TimeoutError as err:
                sock.close()
                raise ConnectTimeoutError(self, f"Connection to {self.host} timed out. "
                                                f"(connect timeout={self.timeout})") from err
            except OSError as err:
                sock.close()
                if scope.aborted:
                    raise scope._error() from err
                last = err
        raise NewConnectionError(self, f"Failed to establish a new connection: {last}")

    def getresponse(self) -> HTTPResponse:  # type: ignore[override]  # (as urllib3 does)
        try:
            return super().getresponse()
        except Exception as err:
            self.raise_if_aborted(err)
            raise


class AbortableHTTPSConnection(AbortableHTTPConnection, HTTPSConnection):
    pass


class AbortableHTTPConnectionPool(HTTPConnectionPool):
    ConnectionCls = AbortableHTTPConnection


class AbortableHTTPSConnectionPool(HTTPSConnectionPool):
    ConnectionCls = AbortableHTTPSConnection


_DEFAULT_POOLS = {"http": HTTPConnectionPool, "https": HTTPSConnectionPool}
_ABORTABLE_POOLS = {"http": AbortableHTTPConnectionPool, "https": AbortableHTTPSConnectionPool}


def install(pool_manager: Any) -> None:
    """Make the pools `pool_manager` creates from now on abortable (a urllib3 PoolManager
    or ProxyManager; managers with their own pool classes, e.g. SOCKS, are left alone)."""
    if dict(getattr(pool_manager, "pool_classes_by_scheme", {})) == _DEFAULT_POOLS:
        pool_manager.pool_classes_by_scheme = dict(_ABORTABLE_POOLS)
