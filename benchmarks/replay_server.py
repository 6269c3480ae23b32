"""A process that serves one recorded watch stream, for watch-throughput benchmarks.

`python -m benchmarks.replay_server STREAM_FILE` answers every GET with `watch=true`
with the file's bytes (chunked, 64 KiB at a time, then the end of the stream), and
every other GET with an empty PodList at resourceVersion 1. Every client under test
reads the very same bytes, as fast as it can decode them: the measure is the
client's decoding and delivery, not the server's.

With `REPLAY_CHUNKS=per-event` in the environment each line goes out as its own
HTTP chunk instead, the framing a real kube-apiserver uses (it flushes every event):
more, smaller reads for every client.
"""

from __future__ import annotations

import contextlib
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EMPTY_LIST = (b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},'
              b'"items":[]}')


def main(path: str) -> None:
    with open(path, "rb") as fh:
        stream = fh.read()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            watching = "watch=true" in self.path.lower() or "watch=1" in self.path
            body = stream if watching else EMPTY_LIST
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if not watching:
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                if os.environ.get("REPLAY_CHUNKS") == "per-event":
                    for line in body.splitlines(keepends=True):
                        self.wfile.write(b"%x\r\n" % len(line) + line + b"\r\n")
                else:
                    view = memoryview(body)
                    for start in range(0, len(body), 65536):
                        chunk = view[start:start + 65536]
                        self.wfile.write(b"%x\r\n" % len(chunk) + bytes(chunk) + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"replaying on http://127.0.0.1:{httpd.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        httpd.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
