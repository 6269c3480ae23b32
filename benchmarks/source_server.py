"""A process that serves one list and one watch stream, then keeps the watch open, quiet.

`python -m benchmarks.source_server LIST_FILE STREAM_FILE` answers a GET without
`watch=true` with the list file's bytes, and a watch with the stream's events whose
resourceVersion is newer than the request's, then holds the connection open without a
byte more until the client goes, as a real apiserver holds a watch on a resource that
does not change. An informer over it therefore ends up idle with exactly the objects
the list and the stream make, which is what the memory benchmark measures (the replay
server, made for throughput, sends its stream again on every watch instead).

Watches send nothing until a `POST /release`, so that a client can be looked at synced
and idle before the stream arrives; from then on every watch gets its events at once.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import select
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.source_server")
    parser.add_argument("list_file")
    parser.add_argument("stream_file")
    args = parser.parse_args(argv)
    listing = Path(args.list_file).read_bytes()
    lines = Path(args.stream_file).read_bytes().splitlines(keepends=True)
    versions = [int(json.loads(line)["object"]["metadata"]["resourceVersion"]) for line in lines]
    stopping = threading.Event()
    released = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            released.set()
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            query = parse_qs(urlsplit(self.path).query)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if query.get("watch", [""])[0] not in ("true", "1"):
                self.send_header("Content-Length", str(len(listing)))
                self.end_headers()
                self.wfile.write(listing)
                return
            since = int(query.get("resourceVersion", ["0"])[0] or 0)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                self.wfile.flush()
                while not released.wait(0.5):
                    if stopping.is_set():
                        return
                for line, version in zip(lines, versions, strict=True):
                    if version > since:
                        self.wfile.write(b"%x\r\n" % len(line) + line + b"\r\n")
                self.wfile.flush()
                # Quiet from now on: wait for the client to hang up (or the server to stop).
                while not stopping.is_set():
                    readable, _, _ = select.select([self.connection], [], [], 0.5)
                    if readable and not self.connection.recv(1024):
                        break
            except OSError:
                pass
            self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    print(f"serving on http://127.0.0.1:{httpd.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        httpd.serve_forever()
    stopping.set()


if __name__ == "__main__":
    main()
