"""A tiny real HTTP server that replays given bytes as a chunked response.

For watch-decoding tests that need exact control of chunk edges (a frame split
anywhere, a multi-megabyte line, a connection cut mid-frame): the bytes travel over
a real socket and real HTTP/1.1 chunked framing, so the client code under test is
exactly what runs against a cluster.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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
