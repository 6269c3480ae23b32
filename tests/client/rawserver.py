"""Tiny real HTTP servers for the client tests, on loopback.

`chunked_server` replays given bytes as a chunked response, for watch-decoding tests that
need exact control of chunk edges (a frame split anywhere, a multi-megabyte line, a
connection cut mid-frame): the bytes travel over a real socket and real HTTP/1.1 chunked
framing, so the client code under test is exactly what runs against a cluster.

`answering_server` answers each GET with what a function returns, for answers no API
server would give (an HTML page, a 200 that is not a List).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@contextmanager
def chunked_server(chunks: list[bytes], hold_open: threading.Event | None = None,
                   status: int = 200, finish: bool = True) -> Iterator[str]:
    """Serve `chunks` (one HTTP chunk each) to every GET; yields the base URL.

    `hold_open`, when given, keeps the stream open after the chunks until it is set
    (a watch that goes silent). `finish=False` cuts the connection without the final
    zero-length chunk (a dropped connection).
    """

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for chunk in chunks:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                if hold_open is not None:
                    hold_open.wait(10)
                if finish:
                    self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                pass
            self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        if hold_open is not None:
            hold_open.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


Answer = tuple[int, str, bytes]  # status, content type, body


@contextmanager
def answering_server(answer: Callable[[str, dict[str, str]], Answer], keep_alive: bool = False
                    ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A real HTTP server on loopback answering each GET with `answer(path, query)`;
    yields its URL and the requests it saw (path, query, headers, the client's port).
    It closes each connection after its answer unless `keep_alive` (then the client
    must close its connections before the server stops)."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            seen.append({"path": parts.path, "query": query, "headers": dict(self.headers),
                         "client_port": self.client_address[1]})
            status, content_type, body = answer(parts.path, query)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if not keep_alive:
                self.send_header("Connection", "close")  # no handler thread outlives it
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = not keep_alive

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def json_answer(doc: Any, status: int = 200) -> Answer:
    """`doc` as a JSON answer."""
    return status, "application/json", json.dumps(doc).encode()
