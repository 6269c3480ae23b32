"""HTTP/1.1 over kept-alive sockets: the least one request and its answer need.

A get through `urllib3` and `http.client` costs a Python client about 190 µs of CPU,
most of it layers: urllib3's pool, retry and timeout objects, http.client's request
state machine, and the `email` package parsing the answer's headers. Here a whole get
through kubenb's client, decoding included, costs about 100-140 µs (docs/client.md,
"Speed"): the request is one `sendall` of bytes built in one pass, the answer a
status line, header lines split at the first colon, and a body framed by
Content-Length or chunks, read through the connection's buffered reader. client-go's
transport is Go's own net/http; this is the same idea for the requests that are not
streamed (watches keep urllib3, whose reader `kubenb.client.chunked` takes over).

What it does, and no more: keep-alive connections to one origin (idle ones are checked
for a close by the server before reuse, and a request a reused connection could not
deliver is sent once more on a fresh one when nothing of an answer came back and the
method is idempotent); TLS from an `ssl.SSLContext` (`tls_context`); bodies framed by
Content-Length, chunks or the close of the connection, decoded from gzip or deflate;
connect and read timeouts; and `kubenb.client.abort`'s scopes, which can shut down a
request in flight from another thread. Errors are the exceptions requests raises for
the same failure (`ConnectionError`, `SSLError`, `ConnectTimeout`, `ReadTimeout`,
`ChunkedEncodingError` for an answer cut short).
"""

from __future__ import annotations

import os
import re
import select
import socket
import ssl
import threading
import zlib
from typing import Any, BinaryIO, NamedTuple

import requests

from kubenb.client.abort import ScopedConnection

__all__ = [
    "MAX_HEADER_LINES",
    "MAX_LINE",
    "Answer",
    "ConnectionPool",
    "tls_context",
]

#: The longest status, header or chunk-size line read (as http.client's 64 KiB).
MAX_LINE = 65536
#: The most header lines an answer may have (http.client allows 100).
MAX_HEADER_LINES = 100

_NO_BODY_STATUSES = frozenset({204, 304})
_NOT_IN_TARGET = re.compile(r"[\x00-\x20\x7f]")  # what http.client refuses in a URL
_IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
_EXPECTS_BODY = frozenset({"POST", "PUT", "PATCH"})


def _error(kind: str, message: str) -> requests.RequestException:
    """The exception requests raises for the same failure, so callers of either path
    handle both alike: "connect" (no connection), "tls" (the handshake or certificate
    failed), "connect-timeout", "read-timeout", "closed" (the server closed the
    connection before an answer), "broken" (an answer cut short or not HTTP/1.x)."""
    return _ERRORS[kind](message)


_ERRORS: dict[str, type[requests.RequestException]] = {
    "connect": requests.ConnectionError,
    "closed": requests.ConnectionError,
    "tls": requests.exceptions.SSLError,
    "connect-timeout": requests.ConnectTimeout,
    "read-timeout": requests.ReadTimeout,
    "broken": requests.exceptions.ChunkedEncodingError,
}


class Answer(NamedTuple):
    """A whole answer: status, reason, header fields (names as sent; a repeated field
    once, its values joined with ", ") and the decoded body."""

    status: int
    reason: str
    headers: dict[str, str]
    body: bytes


def tls_context(verify: Any, cert: Any, default_ca: str) -> ssl.SSLContext:
    """The TLS client context for requests' `verify` and `cert` settings: False trusts
    any certificate and name, True the `default_ca` bundle, a path that file or
    directory of CAs; `cert` a certificate file with its key inside, or (certificate,
    key). The name checked is the one `ConnectionPool` is given (tls-server-name)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies, checks the name
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if verify is False:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        location = default_ca if verify is True else str(verify)
        if os.path.isdir(location):
            context.load_verify_locations(capath=location)
        else:
            context.load_verify_locations(cafile=location)
    if cert:
        if isinstance(cert, tuple | list):
            context.load_cert_chain(cert[0], cert[1])
        else:
            context.load_cert_chain(cert)
    return context


class _Connection(ScopedConnection):
    """One socket to the origin and the buffered reader of its answers."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool
        self.reader: BinaryIO | None = None

    def open(self, timeout: float | None) -> None:
        pool = self.pool
        try:
            addresses = socket.getaddrinfo(pool.host, pool.port, 0, socket.SOCK_STREAM)
        except socket.gaierror as err:
            raise _error("connect", f"cannot resolve {pool.host}: {err}") from err
        last: OSError | None = None
        for family, kind, proto, _, address in addresses:
            tcp = socket.socket(family, kind, proto)
            try:
                tcp.settimeout(timeout)
                self.connecting(tcp)
                tcp.connect(address)
            except TimeoutError as err:
                tcp.close()
                self.raise_if_aborted(err)
                raise _error("connect-timeout", f"connecting to {pool.host}:{pool.port} "
                                 f"timed out (connect timeout={timeout})") from err
            except OSError as err:
                tcp.close()
                self.raise_if_aborted(err)
                last = err
                continue
            tcp.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            break
        else:
            raise _error("connect", f"cannot connect to {pool.host}:{pool.port}: {last}")
        wrapped: ssl.SSLSocket | None = None
        try:
            self.connecting(tcp)  # an abort that came during the connect, which a
            if pool.tls is None:  # shutdown could not reach, ends it here
                self.sock = tcp
            else:
                # The handshake runs on the wrapped socket (wrapping takes the TCP
                # socket's descriptor over), so that is the one an abort must shut down.
                wrapped = pool.tls.wrap_socket(tcp, server_hostname=pool.server_hostname,
                                               do_handshake_on_connect=False)
                self.connecting(wrapped)
                wrapped.do_handshake()
                self.sock = wrapped
        except BaseException as err:
            for sock in (wrapped, tcp):
                if sock is not None:
                    sock.close()
            self.raise_if_aborted(err)
            where = f"the TLS handshake with {pool.host}:{pool.port}"
            if isinstance(err, TimeoutError):
                raise _error("connect-timeout", f"{where} timed out") from err
            if isinstance(err, ssl.SSLError | ssl.CertificateError):
                raise _error("tls", str(err)) from err
            if isinstance(err, OSError):
                raise _error("connect", f"{where} failed: {err}") from err
            raise
        self.reader = self.sock.makefile("rb")

    def close(self) -> None:
        sock, reader, self.sock, self.reader = self.sock, None, None, None
        if reader is not None:
            reader.close()
        if sock is not None:
            sock.close()

    def dropped(self) -> bool:
        """Whether the server closed (or wrote to) this idle connection."""
        sock = self.sock
        if sock is None:
            return True
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(readable)


class ConnectionPool:
    """Kept-alive connections to one origin; any thread may send on it."""

    def __init__(self, host: str, port: int, tls: ssl.SSLContext | None = None,
                 server_hostname: str | None = None, maxsize: int = 32) -> None:
        self.host = host.strip("[]")
        self.port = port
        self.tls = tls
        self.server_hostname = server_hostname or self.host
        self.maxsize = maxsize
        default_port = 443 if tls is not None else 80
        shown = f"[{self.host}]" if ":" in self.host else self.host
        self.host_header = shown if port == default_port else f"{shown}:{port}"
        self._idle: list[_Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def close(self) -> None:
        """Close the idle connections; ones in use close when their request ends."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _take(self) -> _Connection:
        while True:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                return _Connection(self)
            if not conn.dropped():
                return conn
            conn.close()

    def _give_back(self, conn: _Connection) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < self.maxsize:
                self._idle.append(conn)
                return
        conn.close()

    def request(self, method: str, target: str, headers: dict[str, str],
                body: bytes | None, connect_timeout: float | None,
                read_timeout: float | None) -> Answer:
        """Send one request and read its whole answer. `target` is the path and query,
        already quoted; `headers` must not name Host or Content-Length."""
        head = _request_head(method, target, self.host_header, headers, body)
        conn = self._take()
        while True:
            reused = conn.sock is not None
            try:
                if conn.claim() and reused:  # an abort shut it while it sat idle
                    conn.close()
                    reused = False
            except BaseException:  # this thread's scope was aborted: nothing was sent
                if reused:
                    self._give_back(conn)
                raise
            try:
                if not reused:
                    conn.open(connect_timeout)
                answer, keep = _exchange(conn, method, head, body, read_timeout, reused)
            except _Stale:
                conn.close()
                conn = _Connection(self)  # the server had closed it: once more, fresh
                continue
            except BaseException as err:
                conn.close()
                conn.raise_if_aborted(err)
                raise
            if keep:
                self._give_back(conn)
            else:
                conn.close()
            return answer


class _Stale(Exception):
    """A reused connection the server had closed: nothing of an answer came back."""


def _request_head(method: str, target: str, host: str, headers: dict[str, str],
                  body: bytes | None) -> bytes:
    """The request line and header block, checked as http.client checks them: no
    control characters or spaces in the target, no line breaks in a header."""
    if not target.startswith("/") or _NOT_IN_TARGET.search(target):
        raise ValueError(f"can't send a request target with a space or a control "
                         f"character: {target!r}")
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    for name, value in headers.items():
        value = str(value)
        if ("\r" in value or "\n" in value or "\r" in name or "\n" in name
                or ":" in name or not name):
            raise ValueError(f"invalid header {name!r}: a header can't hold a line break")
        lines.append(f"{name}: {value}")
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    elif method in _EXPECTS_BODY:
        lines.append("Content-Length: 0")
    lines.append("\r\n")
    return "\r\n".join(lines).encode("latin-1")


def _exchange(conn: _Connection, method: str, head: bytes, body: bytes | None,
              read_timeout: float | None, reused: bool) -> tuple[Answer, bool]:
    """Write the request, read the answer; whether the connection can carry another."""
    sock, reader = conn.sock, conn.reader
    assert sock is not None and reader is not None
    sock.settimeout(read_timeout)
    status_line = b""
    try:
        if body and len(body) < 16384:
            sock.sendall(head + body)
        else:
            sock.sendall(head)
            if body:
                sock.sendall(body)
        status_line = reader.readline(MAX_LINE + 1)
        if status_line:
            return _read_answer(reader, method, status_line)
    except requests.RequestException:
        raise  # an answer that is not HTTP/1.x, said as such (an OSError too)
    except TimeoutError as err:
        conn.raise_if_aborted(err)
        raise _error("read-timeout", f"no whole answer in {read_timeout} s (read timeout="
                                     f"{read_timeout})") from err
    except OSError as err:
        conn.raise_if_aborted(err)
        if status_line:
            raise _error("broken", f"the connection broke while reading the answer: "
                                   f"{err}") from err
        if isinstance(err, ssl.SSLError):  # TLS 1.3: a refused client certificate
            raise _error("tls", str(err)) from err
        if reused and method in _IDEMPOTENT:
            raise _Stale() from err
        raise _error("closed", f"the connection broke before an answer: {err}") from err
    conn.raise_if_aborted(ConnectionResetError())
    if reused and method in _IDEMPOTENT:
        raise _Stale()
    raise _error("closed", "the server closed the connection without answering")


def _read_answer(reader: BinaryIO, method: str, status_line: bytes) -> tuple[Answer, bool]:
    version, _, rest = status_line.partition(b" ")
    code, _, reason = rest.partition(b" ")
    if (len(status_line) > MAX_LINE or not version.startswith(b"HTTP/1.")
            or not code.isdigit() or len(code) != 3):
        raise _error("broken", f"not an HTTP/1.x status line: {status_line[:80]!r}")
    status = int(code)
    headers: dict[str, str] = {}
    lower: dict[str, str] = {}  # lower-case name -> the name as first sent
    for _ in range(MAX_HEADER_LINES + 1):
        line = reader.readline(MAX_LINE + 1)
        if line in (b"\r\n", b"\n"):
            break
        if not line:
            raise _error("broken", "the answer ended inside its headers")
        if len(line) > MAX_LINE:
            raise _error("broken", "a header line of the answer is too long")
        name, colon, value = line.decode("latin-1").partition(":")
        if not colon:
            raise _error("broken", f"not a header line: {line[:80]!r}")
        name, value = name.strip(), value.strip()
        key = name.lower()
        if key in lower:
            first = lower[key]
            headers[first] = f"{headers[first]}, {value}"
        else:
            lower[key] = name
            headers[name] = value
    else:
        raise _error("broken", f"the answer has over {MAX_HEADER_LINES} header lines")
    if 100 <= status < 200:  # an interim answer (100 Continue): the real one follows
        next_line = reader.readline(MAX_LINE + 1)
        if not next_line:
            raise _error("broken", "the answer ended after an interim status")
        return _read_answer(reader, method, next_line)

    def field(key: str) -> str:
        name = lower.get(key)
        return headers[name] if name is not None else ""

    connection = field("connection").lower()
    keep = (version == b"HTTP/1.1" and "close" not in connection) or \
        "keep-alive" in connection
    if method == "HEAD" or status in _NO_BODY_STATUSES:
        body = b""
    elif "chunked" in field("transfer-encoding").lower():
        body = _read_chunks(reader)
    elif (length := field("content-length")):
        if not length.isdigit():
            raise _error("broken", f"a Content-Length that is not a number: {length!r}")
        size = int(length)
        body = reader.read(size) if size else b""
        if len(body) != size:
            raise _error("broken", f"the answer ended after {len(body)} of its "
                                       f"{size} bytes")
    else:
        body = reader.read()  # to the close of the connection
        keep = False
    coding = field("content-encoding").lower()
    if coding in ("gzip", "x-gzip", "deflate") and body:
        body = _decoded(body, coding)
    return Answer(status, reason.decode("latin-1").strip(), headers, body), keep


def _read_chunks(reader: BinaryIO) -> bytes:
    pieces = []
    while True:
        line = reader.readline(MAX_LINE + 1)
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise _error("broken", f"not a chunk size: {line[:80]!r}") from None
        if size == 0:
            break
        piece = reader.read(size)
        if len(piece) != size or reader.read(2) != b"\r\n":
            raise _error("broken", "the answer ended inside a chunk")
        pieces.append(piece)
    while True:  # trailer fields, up to the blank line
        line = reader.readline(MAX_LINE + 1)
        if line in (b"\r\n", b"\n"):
            break
        if not line:
            raise _error("broken", "the answer ended before its last chunk's end")
    return b"".join(pieces)


def _decoded(body: bytes, coding: str) -> bytes:
    try:
        if coding == "deflate":
            try:
                return zlib.decompress(body)
            except zlib.error:
                return zlib.decompress(body, -zlib.MAX_WBITS)  # raw deflate, as some send
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    except zlib.error as err:
        raise _error("broken", f"the {coding} body does not decode: {err}") from err
