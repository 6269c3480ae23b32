"""The HTTP side, on the standard library's ThreadingHTTPServer.

Requests are read as `http.server` reads them, except the header block, which
`kubenb.server.request_head` reads without the `email` package; a whole response
(header block and body) goes out in one write.

It listens with the kernel's backlog (net.core.somaxconn), as a Go server does, so a
storm of connections waits in the kernel, not on SYN retransmits. One named daemon
thread per connection, all tracked so `stop()` can close idle keep-alive sockets and
join every thread. Watches go out as chunked HTTP/1.1, and only their headers and first
chunk on the connection's thread: then the socket goes to the server's one WatchMux
thread (kubenb.server.watch_mux), which sends every live watch, so open watches cost no
thread each; a watch that ends cleanly hands its connection back to a connection thread
for the next request. A watch whose client stops reading is cut once the storage's
per-watcher bound is passed (kubenb.server.storage.WatchQueue). Pod logs (`-f`) stay on
their connection's thread. With an SSLContext the TLS handshake runs on the
connection's own thread, so a slow or broken client never holds up the accept loop; a
plain HTTP request sent to the TLS port gets the 400 Go's server writes, and a TLS
connection ends with the server's own close_notify, as a real API server's does.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import select
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from kubenb.server import errors
from kubenb.server.handlers import MAX_BODY, ApiHandler, Request, Response, status_response
from kubenb.server.idle_connections import LINGER, IdleConnections
from kubenb.server.pod_logs import LogStream
from kubenb.server.request_head import HeaderBlockError, read_headers
from kubenb.server.watch import WatchStream
from kubenb.server.watch_mux import LAST_CHUNK_TIMEOUT, WatchMux, frame_chunk
from kubenb.timeutil import http_date

__all__ = ["KubeHTTPServer", "listen_backlog"]

log = logging.getLogger(__name__)

# What Go's net/http writes (then closes) when a TLS port receives plain HTTP, and the
# first bytes by which it knows (tlsRecordHeaderLooksLikeHTTP).
_HTTP_ON_TLS_PORT = (b"HTTP/1.0 400 Bad Request\r\n\r\n"
                     b"Client sent an HTTP request to an HTTPS server.\n")
_HTTP_STARTS = (b"GET /", b"HEAD ", b"POST ", b"PUT /", b"OPTIO")
_TLS_HANDSHAKE_RECORD = 0x16
_MAX_REQUEST_HEAD = 65536


#: Bodies up to this size go out in the same write as their header block.
_JOINED_BODY = 65536


def listen_backlog() -> int:
    """The listen backlog a real server uses: the kernel's limit (net.core.somaxconn, as
    Go's net.Listen reads it), not socketserver's 5, with which a burst of connections
    waits on SYN retransmits (1 s, 3 s, 7 s ...) while the accept loop catches up."""
    try:
        limit = int(Path("/proc/sys/net/core/somaxconn").read_text())
    except (OSError, ValueError):
        limit = socket.SOMAXCONN
    return max(128, min(limit, 65535))


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kubenb"
    timeout = 120  # idle keep-alive connections go away after this many seconds
    server: KubeHTTPServer
    raw_requestline: bytes

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without NODELAY, Nagle's algorithm
        # and delayed ACKs add ~40 ms to every response.
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def handle(self) -> None:
        """Requests one after the other while the client keeps the connection; one that
        stays quiet for `LINGER` seconds is parked (`IdleConnections`) and this thread
        ends, and its next request starts another. (A park refused while the server
        stops closes the connection.)"""
        self.handle_one_request()
        while not self.close_connection:
            if not self._request_within(LINGER):
                self.server.park(self.connection, self.client_address)
                return
            self.handle_one_request()

    def _request_within(self, seconds: float) -> bool:
        """Whether the next request (or the client's hang-up) comes within `seconds`.
        Peeked into the connection's buffer, so a pipelined request already read counts
        and the request that comes is read by the same call (no select, then a read).
        After False the buffered reader refuses further reads (a timed-out `SocketIO`):
        the connection is parked with nothing of it buffered, or closed."""
        sock = self.connection
        if isinstance(sock, ssl.SSLSocket) and sock.pending():
            return True
        try:
            sock.settimeout(seconds)
            self.rfile.peek(1)  # type: ignore[attr-defined]
        except TimeoutError:
            return False
        except (OSError, ValueError):
            return True  # broken: the next read says so
        finally:
            with contextlib.suppress(OSError):
                sock.settimeout(self.timeout)
        return True  # a request, or the end (which the next read sees)

    def parse_request(self) -> bool:
        """`BaseHTTPRequestHandler.parse_request`, with the header block read by
        `read_headers`: the request line, the protocol version, keep-alive and
        `Expect: 100-continue` as it handles them."""
        self.command = None  # type: ignore[assignment]  # as the base class does
        self.request_version = version = self.default_request_version
        self.close_connection = True
        line = str(self.raw_requestline, "iso-8859-1").rstrip("\r\n")
        self.requestline = line
        words = line.split()
        if not words:
            return False
        if len(words) >= 3:
            version = words[-1]
            numbers = version[5:].split(".") if version.startswith("HTTP/") else []
            if (len(numbers) != 2 or not all(n.isdigit() and len(n) <= 10 for n in numbers)):
                self.send_error(400, f"Bad request version ({version!r})")
                return False
            number = (int(numbers[0]), int(numbers[1]))
            if number >= (2, 0):
                self.send_error(505, f"Invalid HTTP version ({version[5:]})")
                return False
            self.close_connection = number < (1, 1)
            self.request_version = version
        if not 2 <= len(words) <= 3:
            self.send_error(400, f"Bad request syntax ({line!r})")
            return False
        command, path = words[:2]
        if len(words) == 2:
            self.close_connection = True
            if command != "GET":
                self.send_error(400, f"Bad HTTP/0.9 request type ({command!r})")
                return False
        self.command = command
        self.path = "/" + path.lstrip("/") if path.startswith("//") else path
        try:
            self.headers = read_headers(self.rfile)  # type: ignore[assignment]
        except HeaderBlockError as err:
            self.send_error(err.status, str(err))
            return False
        connection = (self.headers.get("Connection") or "").lower()
        if connection == "close":
            self.close_connection = True
        elif connection == "keep-alive":
            self.close_connection = False
        expect = (self.headers.get("Expect") or "").lower()
        if expect == "100-continue" and self.request_version >= "HTTP/1.1":
            return self.handle_expect_100()
        return True

    def send_response(self, code: int, message: str | None = None) -> None:
        # Like the real apiserver: no Server header.
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Date", http_date(time.time()))

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """A request that is not HTTP (a TLS ClientHello on the plain port, a garbled
        line): Go's plain-text answer, `400 Bad Request`, then close; not an HTML page."""
        phrase = self.responses.get(code, ("",))[0]
        text = f"{code} {phrase}".strip()
        self.close_connection = True
        self.log_error("code %d, message %s", code, message)
        with contextlib.suppress(OSError):
            self.wfile.write(f"HTTP/1.1 {text}\r\nContent-Type: text/plain; charset=utf-8\r\n"
                             f"Connection: close\r\n\r\n{text}".encode("latin-1"))

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def _handle(self) -> None:
        split = urlsplit(self.path)
        params = dict(parse_qsl(split.query, keep_blank_values=True))
        body = b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            self.close_connection = True
            self._send(status_response(errors.bad_request(
                "chunked request bodies are not supported; send Content-Length")))
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True
            self._send(status_response(errors.bad_request("invalid Content-Length")))
            return
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            self._send(status_response(errors.too_large(MAX_BODY)))
            return
        if length:
            body = self.rfile.read(length)
        request = Request(self.command, split.path, params, self.headers, body)
        result = self.server.app.handle(request)
        if isinstance(result, WatchStream):
            self._stream(result)
        elif isinstance(result, LogStream):
            self._stream_log(result)
        else:
            self._send(result)

    def _send(self, response: Response) -> None:
        """The status line, header block and body in one write (two for a large body,
        which is not copied to join them)."""
        self.log_request(response.status)
        phrase = self.responses.get(response.status, ("",))[0]
        head = [f"HTTP/1.1 {response.status} {phrase}\r\nDate: {http_date(time.time())}\r\n"]
        if not any(name.lower() == "cache-control" for name, _ in response.headers):
            head.append("Cache-Control: no-cache, private\r\n")
        head.append(f"Content-Type: {response.content_type}\r\n")
        head.extend(f"{name}: {value}\r\n" for name, value in response.headers)
        if self.close_connection:
            # Say so: a client that is not told pools the socket, and its next request
            # on it fails (after a 413 that left the body unread, for one).
            head.append("Connection: close\r\n")
        body = response.body if self.command != "HEAD" else b""
        head.append(f"Content-Length: {len(response.body)}\r\n\r\n")
        data = "".join(head).encode("latin-1")
        if len(body) <= _JOINED_BODY:
            self.wfile.write(data + body)
        else:
            self.wfile.write(data)
            self.wfile.write(body)

    def _stream_log(self, stream: LogStream) -> None:
        """A kubelet's log, passed on chunked as it comes (what `kubectl logs -f` reads)."""
        try:
            self.send_response(200)
            self.send_header("Cache-Control", "no-cache, private")
            self.send_header("Content-Type", stream.content_type)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in stream.chunks(self._client_gone):
                self.wfile.write(frame_chunk(chunk))
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True  # the client went away
        finally:
            stream.close()

    def _client_gone(self) -> bool:
        conn = self.connection
        try:
            if isinstance(conn, ssl.SSLSocket):
                return _tls_peer_gone(conn)
            readable, _, _ = select.select([conn], [], [], 0)
            if not readable:
                return False
            return conn.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _stream(self, stream: WatchStream) -> None:
        """Write a watch's headers and first chunk here, then hand the connection to the
        server's WatchMux, which sends the rest; this thread then ends. A watch that
        fails at once (its ERROR line) or one the mux does not take (the server is
        stopping) ends here."""
        state = {"writing": False}
        state_lock = threading.Lock()
        conn = self.connection

        def cut() -> None:
            """The watcher fell too far behind (called on the writer's thread): a write
            its client is not reading is unblocked by shutting the socket down."""
            with state_lock:
                if state["writing"]:
                    with contextlib.suppress(OSError):
                        socket.socket.shutdown(conn, socket.SHUT_RDWR)

        stream.on_fall_behind(cut)
        handed_over = False
        try:
            self.send_response(200)
            self.send_header("Cache-Control", "no-cache, private")
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            first = stream.first_chunk()
            if first:
                with state_lock:
                    state["writing"] = True
                try:
                    self.wfile.write(frame_chunk(first))
                finally:
                    with state_lock:
                        state["writing"] = False
            if not stream.failed:
                stream.on_fall_behind(None)  # from now on the mux sees the queue overflow
                handed_over = self.server.hand_over_watch(conn, stream, self.client_address,
                                                          keep_alive=not self.close_connection)
                if handed_over:
                    self.close_connection = True  # this thread is done with the connection
                    return
            if stream.stopped_by_server:
                self.close_connection = True  # server stopping: do not wait for another request
            if stream.fell_behind:
                self.close_connection = True
                conn.settimeout(LAST_CHUNK_TIMEOUT)  # a client that reads nothing gets no more
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True  # the client went away; the watch is closed below
        finally:
            if not handed_over:
                stream.close()
                if stream.fell_behind:
                    host, port = self.client_address[:2]
                    log.info(stream.fell_behind_message(f"{host}:{port}"))


def _tls_peer_gone(conn: ssl.SSLSocket) -> bool:
    """Whether a TLS client hung up, read without blocking (MSG_PEEK is not allowed on
    TLS sockets). A watch client sends nothing while it reads, so a byte that does
    arrive is dropped; a close_notify or EOF means gone."""
    if not conn.pending():
        readable, _, _ = select.select([conn], [], [], 0)
        if not readable:
            return False
    timeout = conn.gettimeout()
    conn.settimeout(0)
    try:
        return conn.recv(1) == b""
    except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
        return False
    except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
        return True
    finally:
        with contextlib.suppress(OSError):
            conn.settimeout(timeout)


class KubeHTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer whose connection threads are named, tracked and joinable, and
    whose live watches are sent by one WatchMux thread (`watch_mux`)."""

    daemon_threads = True
    block_on_close = False
    allow_reuse_address = False
    handshake_timeout = 10.0

    def __init__(self, address: tuple[str, int], app: ApiHandler,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        self.app = app
        self.ssl_context = ssl_context
        self._lock = threading.Lock()
        self._conn_threads: set[threading.Thread] = set()
        self._sockets: set[socket.socket] = set()
        self._handed_over: set[threading.Thread] = set()  # threads whose socket the mux has
        self._closing = False
        self._counter = itertools.count(1)
        self.request_queue_size = listen_backlog()  # listen() is called by __init__ below
        super().__init__(address, _RequestHandler)
        self.watch_mux = WatchMux(f"kubenb-server-watches-{self.server_address[1]}",
                                  resume=self.resume_connection, close=self.shutdown_request,
                                  idle_timeout=_RequestHandler.timeout)
        self.idle = IdleConnections(f"kubenb-server-idle-{self.server_address[1]}",
                                    resume=self.resume_connection,
                                    close=self.shutdown_request,
                                    idle_timeout=_RequestHandler.timeout)

    def process_request(self, request: Any, client_address: Any) -> None:
        self._start_connection_thread(request, client_address, handshake=True)

    def resume_connection(self, request: socket.socket, client_address: Any) -> None:
        """Serve the next request of a connection whose watch ended cleanly (keep-alive);
        a TLS connection keeps its session (no second handshake). Closed instead once
        the server is closing its connections."""
        if not self._start_connection_thread(request, client_address, handshake=False):
            self.shutdown_request(request)

    def _start_connection_thread(self, request: Any, client_address: Any,
                                 handshake: bool) -> bool:
        thread = threading.Thread(target=self._run_connection,
                                  args=(request, client_address, handshake),
                                  name=f"kubenb-server-conn-{next(self._counter)}", daemon=True)
        with self._lock:  # started under the lock: join_connections() never sees it unstarted
            if self._closing and not handshake:
                return False
            self._conn_threads.add(thread)
            self._sockets.add(request)
            thread.start()
        return True

    def hand_over_watch(self, request: socket.socket, stream: WatchStream,
                        client_address: Any, keep_alive: bool) -> bool:
        """Give a watch whose first chunk is written to the WatchMux (called on the
        connection's thread, which must then leave the socket alone); False if the mux
        takes no more watches (the server is stopping)."""
        me = threading.current_thread()
        with self._lock:
            self._sockets.discard(request)
            self._handed_over.add(me)
        if self.watch_mux.add(request, stream, client_address, keep_alive):
            return True
        self._take_back(request, me)
        return False

    def park(self, request: socket.socket, client_address: Any) -> bool:
        """Give a connection waiting for its next request to `idle` (called on the
        connection's thread, which must then leave the socket alone); False if it
        takes no more (the server is stopping)."""
        me = threading.current_thread()
        with self._lock:
            if self._closing:
                return False
            self._sockets.discard(request)
            self._handed_over.add(me)
        if self.idle.park(request, client_address):
            return True
        self._take_back(request, me)
        return False

    def _take_back(self, request: socket.socket, me: threading.Thread) -> None:
        """A hand-over was refused (the server is stopping): the connection's thread
        owns it again. If `close_connections` went through the sockets meanwhile, it
        did not see this one: shut it down here, so the thread's next read ends."""
        with self._lock:
            self._handed_over.discard(me)
            self._sockets.add(request)
            closing = self._closing
        if closing:
            with contextlib.suppress(OSError):
                request.shutdown(socket.SHUT_RDWR)

    def _run_connection(self, request: Any, client_address: Any, handshake: bool) -> None:
        me = threading.current_thread()
        try:
            if handshake and self.ssl_context is not None:
                request = self._tls_handshake(request, client_address)
                if request is None:
                    return
            try:
                self.finish_request(request, client_address)
            except Exception:
                self.handle_error(request, client_address)
            finally:
                if me not in self._handed_over:  # the mux closes (or reuses) that one
                    self.shutdown_request(request)
        finally:
            with self._lock:
                self._conn_threads.discard(me)
                if me in self._handed_over:
                    self._handed_over.discard(me)
                else:
                    self._sockets.discard(request)

    def _speaks_plain_http(self, raw: socket.socket) -> bool:
        """Whether the client's first bytes are an HTTP request line, not a TLS record
        (peeked, so the handshake still reads them)."""
        first = b""
        with contextlib.suppress(OSError):  # a client that says nothing: the handshake fails
            first = raw.recv(len(_HTTP_STARTS[0]), socket.MSG_PEEK | socket.MSG_WAITALL)
        return first in _HTTP_STARTS

    def _tls_handshake(self, raw: socket.socket, client_address: Any) -> ssl.SSLSocket | None:
        """Wrap an accepted socket and shake hands; None (socket closed) if that fails."""
        assert self.ssl_context is not None
        try:
            raw.settimeout(self.handshake_timeout)
            if self._speaks_plain_http(raw):
                with contextlib.suppress(OSError):
                    raw.recv(_MAX_REQUEST_HEAD)  # read, so closing sends FIN, not RST
                    raw.sendall(_HTTP_ON_TLS_PORT)
                    raw.shutdown(socket.SHUT_WR)
                raise ConnectionError("a plain HTTP request on the TLS port")
            with self._lock:  # no I/O here; swapped under the lock so stop() sees one of them
                conn = self.ssl_context.wrap_socket(raw, server_side=True,
                                                    do_handshake_on_connect=False)
                self._sockets.discard(raw)
                self._sockets.add(conn)
        except OSError:
            with self._lock:
                self._sockets.discard(raw)
            raw.close()
            return None
        try:
            conn.do_handshake()
        except (OSError, ValueError) as exc:
            log.debug("kubenb server: TLS handshake with %s failed: %s", client_address, exc)
            with self._lock:
                self._sockets.discard(conn)
            conn.close()
            return None
        conn.settimeout(None)
        return conn

    def shutdown_request(self, request: Any) -> None:
        """Close a connection; a TLS one first sends the server's close_notify (without
        waiting for the client's), so the client sees a clean end, not a truncation."""
        if isinstance(request, ssl.SSLSocket):
            with contextlib.suppress(OSError, ValueError):
                request.settimeout(0)
                request.unwrap()
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("kubenb server: connection error from %s", client_address, exc_info=True)

    def close_connections(self) -> None:
        """End every watch the mux sends (each gets its terminating chunk, then its
        connection is closed) and shut every other open connection, so blocked reads
        return and threads end."""
        self.watch_mux.stop()
        self.idle.stop()
        with self._lock:
            self._closing = True
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def join_connections(self, timeout: float) -> list[threading.Thread]:
        """Join connection threads and the mux's; returns any still alive after
        `timeout`."""
        with self._lock:
            threads = list(self._conn_threads)
        for thread in threads:
            thread.join(timeout)
        left = [t for t in threads if t.is_alive()]
        for sender in (self.watch_mux, self.idle):
            still = sender.join(timeout)
            if still is not None:
                left.append(still)
        return left
