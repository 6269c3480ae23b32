"""The embedded server at scale: objects held, a big list served, watch fan-out.

- hold: seed N small objects (configmaps) and report the time and memory it took;
- list: serve a list of 10k realistic pods over HTTP, against `json.dumps` of the same
  objects in the same process (the floor for any Python server);
- fan-out: 100 watchers (in another process, each counting lines) receive every event
  of a 10k-event burst; reported as events delivered per second across all watchers,
  against the rate the burst itself was written.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
import time

import requests

from benchmarks.harness import Result, compare
from kubenb.server import EmbeddedServer

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


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    hold(max(1000, int(100_000 * scale)))
    results = list_results(max(500, int(10_000 * scale)), rounds)
    fan_out(100, max(1000, int(10_000 * scale)))
    print()
    return results
