"""The embedded server at scale: objects held, a big list served, watch fan-out.

- hold: seed N small objects (configmaps) and report the time and memory it took;
- list: serve a list of 10k realistic pods over HTTP, against `json.dumps` of the same
  objects in the same process (the floor for any Python server);
- fan-out: 100 watchers (in another process, each counting lines) receive every event
  of a 10k-event burst; reported as events delivered per second across all watchers,
  against the rate the burst itself was written;
- storm: 200 connections opened at once (by another process, non-blocking, all
  connects issued before any answer is read), each sending one GET; reported as the
  p99 of the time to each connection's first answer byte, against a bare
  `http.server.ThreadingHTTPServer` with the same listen backlog answering the same
  bytes (and, for reference, one with socketserver's default backlog of 5).
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from benchmarks.harness import Result, compare
from kubenb.server import EmbeddedServer
from kubenb.server.http import listen_backlog

WATCHERS_SCRIPT = textwrap.dedent("""
    import sys, threading, requests
    url, count, expected = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    got = [0] * count
    ready = threading.Barrier(count + 1)
    def watch(i):
        s = requests.Session()
        r = s.get(url, params={"watch": "true", "resourceVersion": sys.argv[4]}, stream=True)
        ready.wait()
        for line in r.iter_lines():
            if line:
                got[i] += 1
                if got[i] >= expected:
                    break
        r.close()
    threads = [threading.Thread(target=watch, args=(i,)) for i in range(count)]
    for t in threads: t.start()
    ready.wait()
    print("ready", flush=True)
    for t in threads: t.join()
    print("done", sum(got), flush=True)
""")


STORM_SCRIPT = textwrap.dedent("""
    import json, selectors, socket, sys, time
    port, path, n, limit = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    request = ("GET " + path + " HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n"
               "Connection: close\\r\\n\\r\\n").encode()
    sel = selectors.DefaultSelector()
    first = {}
    done = 0
    start = time.perf_counter()
    for i in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        sel.register(s, selectors.EVENT_WRITE, i)
    while done < n and time.perf_counter() - start < limit:
        for key, events in sel.select(0.1):
            s, i = key.fileobj, key.data
            if events & selectors.EVENT_WRITE:
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    sel.unregister(s); s.close(); done += 1
                else:
                    s.sendall(request); sel.modify(s, selectors.EVENT_READ, i)
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data and i not in first:
                first[i] = time.perf_counter() - start
            if not data:
                sel.unregister(s); s.close(); done += 1
    print(json.dumps(sorted(first.values())), flush=True)
""")
STORM = 200


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def hold(n: int) -> None:
    server = EmbeddedServer(history_window=1000)
    before = _rss_mib()
    started = time.perf_counter()
    server.seed_objects(n, kind="configmaps", namespace="default")
    took = time.perf_counter() - started
    print(f"hold {n} configmaps: seeded in {took:.1f} s ({n / took:,.0f}/s), "
          f"peak RSS +{_rss_mib() - before:,.0f} MiB")
    server.stop()


def list_results(n: int, rounds: int) -> list[Result]:
    with EmbeddedServer(history_window=1000) as server:
        server.seed_objects(n, kind="pods", namespace="default")
        rtype = server.types.lookup("", "v1", "pods")
        items = server.registry.list(rtype, None, {})
        session = requests.Session()
        url = server.url + "/api/v1/pods"

        def serve() -> None:
            assert len(session.get(url).content) > n

        def dumps() -> None:
            json.dumps(items, separators=(",", ":"))

        result = compare(f"serve a {n}-pod list over HTTP", n, serve, "json.dumps", dumps,
                         rounds, target_ratio=None)
        session.close()
        return [result]


def fan_out(watchers: int, events: int) -> None:
    with EmbeddedServer(history_window=events + 1000,
                        max_watch_buffer=events + 1000) as server:
        rtype = server.types.lookup("", "v1", "configmaps")
        server.registry.create(rtype, "default", {"metadata": {"name": "burst"}, "data": {}})
        rv = server.registry.get(rtype, "default", "burst")["metadata"]["resourceVersion"]
        proc = subprocess.Popen(
            [sys.executable, "-c", WATCHERS_SCRIPT,
             server.url + "/api/v1/namespaces/default/configmaps", str(watchers), str(events),
             rv], stdout=subprocess.PIPE, text=True, env={**os.environ})
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        started = time.perf_counter()
        for i in range(events):
            server.registry.patch(rtype, "default", "burst", "application/merge-patch+json",
                                  {"data": {"i": str(i)}})
        written = time.perf_counter() - started
        line = proc.stdout.readline().split()
        delivered = time.perf_counter() - started
        proc.wait(60)
        total = int(line[1])
        print(f"fan-out: {watchers} watchers x {events} events: written at "
              f"{events / written:,.0f}/s, all delivered in {delivered:.1f} s "
              f"({total / delivered:,.0f} events/s across watchers, "
              f"{total}/{watchers * events} received)")


def _storm(port: int, path: str, limit: float = 30.0) -> list[float]:
    """Seconds from the storm's start to each connection's first answer byte, sorted;
    a connection unanswered within `limit` counts as `limit` (so it shows in the p99)."""
    done = subprocess.run([sys.executable, "-c", STORM_SCRIPT, str(port), path, str(STORM),
                           str(limit)], capture_output=True, text=True, check=True,
                          timeout=limit + 60)
    firsts: list[float] = json.loads(done.stdout)
    return firsts + [limit] * (STORM - len(firsts))


def _quantile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, math.ceil(q * len(values)) - 1)]


class _Bare(BaseHTTPRequestHandler):
    """The least a Python HTTP server does per request: fixed bytes, no routing."""

    protocol_version = "HTTP/1.1"
    body = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _bare_server(body: bytes, backlog: int) -> Iterator[int]:
    """A stdlib ThreadingHTTPServer answering `body` to every GET; yields its port."""
    handler = type("Bare", (_Bare,), {"body": body})
    server_class = type("BareServer", (ThreadingHTTPServer,),
                        {"request_queue_size": backlog, "daemon_threads": True})
    httpd = server_class(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        thread.join(10)
        httpd.server_close()


def storm_results(rounds: int) -> list[Result]:
    """200 connections at once against the embedded server and a bare http.server."""
    path = "/api/v1/namespaces/default/configmaps/storm"
    with EmbeddedServer() as server:
        rtype = server.types.lookup("", "v1", "configmaps")
        server.registry.create(rtype, "default", {"metadata": {"name": "storm"},
                                                  "data": {"k": "v"}})
        body = requests.get(server.url + path, timeout=10).content
        port = int(server.url.rsplit(":", 1)[1])
        backlog = listen_backlog()
        kubenb_runs, bare_runs = [], []
        with _bare_server(body, backlog) as bare_port:
            for _ in range(rounds):
                kubenb_runs.append(_storm(port, path))
                bare_runs.append(_storm(bare_port, path))
        with _bare_server(body, 5) as small_port:
            small = _storm(small_port, path, limit=10.0)
    k_p99 = [_quantile(r, 0.99) for r in kubenb_runs]
    b_p99 = [_quantile(r, 0.99) for r in bare_runs]
    best_k, best_b = kubenb_runs[k_p99.index(min(k_p99))], bare_runs[b_p99.index(min(b_p99))]

    def figures(run: list[float]) -> str:
        return (f"p50 {_quantile(run, 0.5) * 1000:.0f} ms, p99 {_quantile(run, 0.99) * 1000:.0f}"
                f" ms, max {run[-1] * 1000:.0f} ms")

    print(f"storm: {STORM} connections at once, time to each first answer byte: kubenb "
          f"{figures(best_k)}; bare http.server (backlog {backlog}) {figures(best_b)}; bare "
          f"http.server with socketserver's backlog 5: {figures(small)}, "
          f"{sum(1 for t in small if t >= 10.0)} unanswered after 10 s")
    return [Result(f"{STORM}-connection storm (1/p99 first answer)", 1, min(k_p99),
                   f"http.server, backlog {backlog}", min(b_p99), None,
                   tuple(b / k for k, b in zip(k_p99, b_p99, strict=True)))]


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    hold(max(1000, int(100_000 * scale)))
    results = list_results(max(500, int(10_000 * scale)), rounds)
    fan_out(100, max(1000, int(10_000 * scale)))
    results += storm_results(rounds)
    print()
    return results
