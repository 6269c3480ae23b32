"""A process that serves one recorded watch stream, for watch-throughput benchmarks.

`python -m benchmarks.replay_server STREAM_FILE [--list LIST_FILE] [--tls DIR]
[--per-event]` answers every GET with `watch=true` with the stream file's bytes
(chunked, then the end of the stream), and every other GET with the list file's bytes
(an empty PodList at resourceVersion 1 by default). Every client under test reads the
very same bytes, as fast as it can decode them: the measure is the client's decoding
and delivery, not the server's.

Framing: `--per-event` (or `REPLAY_CHUNKS=per-event` in the environment) sends each
line as its own HTTP chunk, written and flushed on its own, as a real kube-apiserver
does (it flushes every watch event): many small reads for every client. Without it
the stream goes out 64 KiB at a time, which flatters a client (few reads, full ones).

`--tls DIR` serves HTTPS with a fresh self-signed certificate, its CA written to
DIR/ca.crt for the clients to trust: every event is then its own TLS record too, as
from a real server.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

EMPTY_LIST = (b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},'
              b'"items":[]}')


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.replay_server")
    parser.add_argument("stream")
    parser.add_argument("--list", dest="list_file")
    parser.add_argument("--tls", metavar="DIR")
    parser.add_argument("--per-event", action="store_true")
    args = parser.parse_args(argv)
    stream = Path(args.stream).read_bytes()
    listing = Path(args.list_file).read_bytes() if args.list_file else EMPTY_LIST
    per_event = args.per_event or os.environ.get("REPLAY_CHUNKS") == "per-event"
    lines = stream.splitlines(keepends=True)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            try:
                self._respond()
            except OSError:  # the client went away (an informer stopping): nothing to say
                self.close_connection = True

        def _respond(self) -> None:
            watching = "watch=true" in self.path.lower() or "watch=1" in self.path
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if not watching:
                self.send_header("Content-Length", str(len(listing)))
                self.end_headers()
                self.wfile.write(listing)
                return
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.close_connection = True
            if per_event:
                for line in lines:
                    self.wfile.write(b"%x\r\n" % len(line) + line + b"\r\n")
            else:
                view = memoryview(stream)
                for start in range(0, len(stream), 65536):
                    chunk = view[start:start + 65536]
                    self.wfile.write(b"%x\r\n" % len(chunk) + bytes(chunk) + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    scheme = "http"
    if args.tls:
        from kubenb.server.tls import generate_self_signed

        bundle = generate_self_signed(["127.0.0.1", "localhost"])
        assert bundle.ca_pem is not None
        (Path(args.tls) / "ca.crt").write_bytes(bundle.ca_pem)
        httpd.socket = bundle.server_context().wrap_socket(httpd.socket, server_side=True)
        scheme = "https"
    print(f"replaying on {scheme}://127.0.0.1:{httpd.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        httpd.serve_forever()


if __name__ == "__main__":
    main()
