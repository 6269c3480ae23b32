"""What the embedded cluster costs, and how fast its API answers, beside a real server.

- start: `kubenb.embedded()` (every controller on) in a fresh process: the time it
  takes to return, the threads it then runs (by family), the process's CPU over a few
  idle seconds, and the time `close()` takes; the same for `controllers=False`;
- requests: 1,000 ConfigMaps created, read one by one, listed (the list of 1,000),
  and deleted, with kubenb's own client, serially, against `python -m kubenb serve`
  (every controller on, TLS as a real server) in a process of its own; beside the same
  client against a bare `http.server` answering the same bytes over plain HTTP (what
  any Python server costs) and, when one is named, a real kube-apiserver (the server a
  user would otherwise test on); each timed step starts on a quiet machine (`_settle`),
  the reads (gets, the 50 lists) after one untimed request: the first request after a
  quiet spell pays for waking idle CPUs, a cost that weighs on kubenb's short steps
  (50 lists in ~0.15 s) three times as much as on the real server's (~0.5 s);
  `kubenb serve` runs its controllers in a `kubenb controller-manager` process beside
  it, as kube-apiserver's kube-controller-manager and kubelet run; with a real server,
  then, the same steps against `kubenb serve --controllers-in-process` (as
  `kubenb.embedded()` runs them): what sharing the GIL with the controllers' informers
  costs the server's request path;
- fan-out: 50 watches (in another process, kubenb's client) of one namespace receive
  every event of a burst of merge patches; events delivered per second across all
  watchers, from the first write to the last event received.

A real server is named by `KUBENB_BENCH_REAL_KUBECONFIG` (or `python -m benchmarks
--real-kubeconfig PATH`); its rows are skipped otherwise. The run creates a namespace
of its own there (`kubenb-bench-` and a random suffix) and deletes it at the end.
"""

from __future__ import annotations

import json
import os
import secrets
import statistics
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from benchmarks.harness import Result
from benchmarks.server_process import server_process
from kubenb.cluster import Cluster, connect
from kubenb.errors import NotFound

__all__ = ["REAL_KUBECONFIG_ENV", "run"]

#: The environment variable naming a real server's kubeconfig (its rows run only then).
REAL_KUBECONFIG_ENV = "KUBENB_BENCH_REAL_KUBECONFIG"
#: The second kubenb target: the controllers (ControllerManager, the kubelet too) in the
#: server's process, as `kubenb.embedded()` runs them.
IN_PROCESS = "controllers in the server's process"

START_SCRIPT = textwrap.dedent("""
    import json, re, resource, sys, threading, time
    from collections import Counter

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def families():
        return dict(Counter(re.sub(r"^(kubenb-[a-z]+(-stop)?).*", r"\\1", t.name)
                            for t in threading.enumerate()))

    from kubenb.embedded_cluster import embedded  # imported before the clock starts
    controllers, idle = sys.argv[1] == "all", float(sys.argv[2])
    started = time.perf_counter()
    cluster = embedded(controllers=controllers)
    start = time.perf_counter() - started
    time.sleep(2.5)  # the first lists, resyncs and Events settle, and the threads that
                     # run on demand (a second past their last work) end
    threads = threading.active_count()
    kinds = families()
    used, wall = cpu(), time.perf_counter()
    time.sleep(idle)
    idle_cpu = (cpu() - used) / (time.perf_counter() - wall)
    started = time.perf_counter()
    cluster.close()
    close = time.perf_counter() - started
    print(json.dumps({"start": start, "threads": threads, "families": kinds,
                      "idle_cpu": idle_cpu, "close": close,
                      "left": threading.active_count()}), flush=True)
""")

WATCHERS_SCRIPT = textwrap.dedent("""
    import sys, threading
    import kubenb
    kubeconfig, namespace, count, expected, rv = sys.argv[1:6]
    count, expected = int(count), int(expected)
    cluster = kubenb.connect(kubeconfig)
    client = cluster.resource("configmaps", namespace=namespace)
    got = [0] * count
    ready = threading.Barrier(count + 1)
    def watch(i):
        w = client.watch(resource_version=rv)
        ready.wait()
        for event in w:
            if event.type == "MODIFIED":
                got[i] += 1
                if got[i] >= expected:
                    break
        w.stop()
    threads = [threading.Thread(target=watch, args=(i,)) for i in range(count)]
    for t in threads: t.start()
    ready.wait()
    print("ready", flush=True)
    for t in threads: t.join()
    print("done", sum(got), flush=True)
    cluster.close()
""")

WATCHERS = 50


def _start_figures(rounds: int, idle: float) -> None:
    """Print start time, threads, idle CPU and close time, each from fresh processes."""
    for controllers in ("all", "none"):
        runs = []
        for _ in range(rounds):
            done = subprocess.run([sys.executable, "-c", START_SCRIPT, controllers, str(idle)],
                                  capture_output=True, text=True, check=True, timeout=300)
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        starts = sorted(r["start"] for r in runs)
        last = runs[-1]
        families = ", ".join(f"{n} {k.removeprefix('kubenb-')}" for k, n in
                             sorted(last["families"].items(), key=lambda kv: -kv[1]))
        print(f"embedded(controllers={controllers!s}): start {statistics.median(starts):.3f} s "
              f"(min {starts[0]:.3f}), {last['threads']} threads ({families}), "
              f"idle CPU {100 * statistics.median(r['idle_cpu'] for r in runs):.2f}% of a core "
              f"over {idle:.0f} s, close {statistics.median(r['close'] for r in runs):.3f} s, "
              f"{last['left']} thread(s) left after close")


def _configmap(name: str, namespace: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace},
            "data": {"key": "value", "other": "x" * 64}}


class _Bare(BaseHTTPRequestHandler):
    """The least a Python HTTP server does per request: read it, answer fixed bytes."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes
    one = b""
    many = b""

    def _answer(self, code: int = 200) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        body = self.many if self.path.split("?")[0].endswith("/configmaps") and \
            self.command == "GET" else self.one
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer(201)

    def do_DELETE(self) -> None:
        self._answer()

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _bare_cluster(one: bytes, many: bytes) -> Iterator[Cluster]:
    """A stdlib ThreadingHTTPServer answering the same bytes; a Cluster connected to it."""
    handler = type("Bare", (_Bare,), {"one": one, "many": many})
    server_class = type("BareServer", (ThreadingHTTPServer,),
                        {"request_queue_size": 128, "daemon_threads": True})
    httpd = server_class(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    from kubenb.client.config import Config

    cluster = Cluster(Config(server=f"http://127.0.0.1:{httpd.server_address[1]}"))
    try:
        yield cluster
    finally:
        cluster.close()
        httpd.shutdown()
        thread.join(10)
        httpd.server_close()


#: A timed step starts once the machine's CPUs were this busy at most for SETTLE_SPAN s.
SETTLE_BUSY = 0.1
SETTLE_SPAN = 0.25
SETTLE_AT_MOST = 15.0


def _cpu_busy_and_total() -> tuple[int, int]:
    with open("/proc/stat") as stat:
        ticks = [int(n) for n in stat.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return sum(ticks) - idle, sum(ticks)


def _settle() -> None:
    """Wait until the servers' background work is done: the controllers of one server
    (kubenb's or kube-controller-manager) still at work on the deletes of its round
    share the cores with the next server's timed steps. Without /proc, no wait."""
    if not os.path.exists("/proc/stat"):
        return
    deadline = time.monotonic() + SETTLE_AT_MOST
    while time.monotonic() < deadline:
        busy0, total0 = _cpu_busy_and_total()
        time.sleep(SETTLE_SPAN)
        busy1, total1 = _cpu_busy_and_total()
        if total1 > total0 and (busy1 - busy0) / (total1 - total0) <= SETTLE_BUSY:
            return


class _Target:
    """One server's namespace, and the timed steps on it (each returns seconds)."""

    def __init__(self, name: str, cluster: Cluster, n: int, lists: int,
                 namespace: str | None = None) -> None:
        self.name, self.cluster, self.n, self.lists = name, cluster, n, lists
        self.namespace = namespace or f"kubenb-bench-{secrets.token_hex(3)}"
        self.own_namespace = namespace is None
        if self.own_namespace:
            cluster.resource("namespaces").create(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.namespace}})
        # The dynamic client itself (no discovery: the bare server answers none).
        self.client = cluster.dynamic.resource("v1", "configmaps").namespace(self.namespace)
        self.times: dict[str, list[float]] = {}

    def _timed(self, verb: str, work: Callable[[], object],
               warm: Callable[[], object] | None = None) -> None:
        _settle()
        if warm is not None:  # untimed: the first request after the quiet spell wakes
            warm()            # idle CPUs, a cost that is not the step's rate
        started = time.perf_counter()
        work()
        self.times.setdefault(verb, []).append(time.perf_counter() - started)

    def round(self) -> None:
        names = [f"cm-{i}" for i in range(self.n)]
        client, ns = self.client, self.namespace

        def each(call: Callable[[Any], object], args: list[Any]) -> None:
            for arg in args:  # each answer dropped before the next request, as a
                call(arg)     # loop that handles one and moves on drops it

        self._timed("create", lambda: each(client.create, [_configmap(n, ns) for n in names]))
        self._timed("get", lambda: each(client.get, names), warm=lambda: client.get(names[0]))
        self._timed("list", lambda: each(lambda _: client.list(), list(range(self.lists))),
                    warm=client.list)
        self._timed("delete", lambda: each(client.delete, names))

    def close(self) -> None:
        if self.own_namespace:
            with suppress(NotFound):
                self.cluster.resource("namespaces").delete(self.namespace)
        self.cluster.close()


def _fan_out(kubeconfig: str, cluster: Cluster, events: int) -> float:
    """Events per second delivered to WATCHERS watches of one ConfigMap's namespace."""
    namespace = f"kubenb-bench-{secrets.token_hex(3)}"
    namespaces = cluster.resource("namespaces")
    namespaces.create({"apiVersion": "v1", "kind": "Namespace",
                       "metadata": {"name": namespace}})
    try:
        client = cluster.resource("configmaps", namespace=namespace)
        rv = client.create(_configmap("burst", namespace))["metadata"]["resourceVersion"]
        proc = subprocess.Popen(
            [sys.executable, "-c", WATCHERS_SCRIPT, kubeconfig, namespace, str(WATCHERS),
             str(events), rv], stdout=subprocess.PIPE, text=True, env={**os.environ})
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        started = time.perf_counter()
        for i in range(events):
            client.patch("burst", {"data": {"i": str(i)}})
        line = proc.stdout.readline().split()
        delivered = time.perf_counter() - started
        proc.wait(60)
        total = int(line[1])
        if total != WATCHERS * events:
            print(f"fan-out: {total} of {WATCHERS * events} events received")
        return total / delivered
    finally:
        namespaces.delete(namespace)


def _rounds(targets: list[_Target], rounds: int) -> None:
    for _ in range(rounds):
        for target in targets:
            target.round()


def _rows(label: str, kubenb: _Target, others: list[_Target], n: int,
          lists: int) -> list[Result]:
    results = []
    for verb in ("create", "get", "list", "delete"):
        ops = lists if verb == "list" else n
        what = f"a list of {n}" if verb == "list" else f"{n} configmaps"
        for other in others:
            k, b = kubenb.times[verb], other.times[verb]
            results.append(Result(f"{label}: {verb} {what}", ops, min(k), other.name, min(b),
                                  None, tuple(y / x for x, y in zip(k, b, strict=True))))
    return results


def _request_rows(n: int, rounds: int, lists: int, events: int) -> list[Result]:
    real_kubeconfig = os.environ.get(REAL_KUBECONFIG_ENV)
    with server_process(controllers="*", tls=True) as proc:
        kubenb_cluster = connect(proc.kubeconfig)
        probe = kubenb_cluster.resource("configmaps", namespace="default")
        probe.create(_configmap("probe", "default"))
        one = json.dumps(probe.get("probe")).encode()
        many = json.dumps({"apiVersion": "v1", "kind": "ConfigMapList",
                           "metadata": {"resourceVersion": "1"},
                           "items": [_configmap(f"cm-{i}", "x") for i in range(n)]}).encode()
        probe.delete("probe")
        with _bare_cluster(one, many) as bare_cluster:
            targets = [_Target("kubenb", kubenb_cluster, n, lists),
                       _Target("bare http.server", bare_cluster, n, lists, namespace="bench")]
            if real_kubeconfig:
                targets.append(_Target("kube-apiserver", connect(real_kubeconfig), n, lists))
            else:
                print(f"cluster: no real server ({REAL_KUBECONFIG_ENV} unset): its rows skipped")
            try:
                _rounds(targets, rounds)
                fan = {"kubenb": _fan_out(proc.kubeconfig, kubenb_cluster, events)}
                if real_kubeconfig:
                    fan["kube-apiserver"] = _fan_out(real_kubeconfig, targets[2].cluster,
                                                     events)
            finally:
                for target in targets:
                    target.close()
    results = _rows("cluster", targets[0], targets[1:], n, lists)
    line = f"fan-out: {WATCHERS} watches x {events} events: kubenb {fan['kubenb']:,.0f} events/s"
    if "kube-apiserver" in fan:
        line += (f", kube-apiserver {fan['kube-apiserver']:,.0f} events/s "
                 f"({fan['kubenb'] / fan['kube-apiserver']:.2f}x)")
        results.append(Result(f"cluster: fan-out to {WATCHERS} watches (events)",
                              WATCHERS * events, WATCHERS * events / fan["kubenb"],
                              "kube-apiserver", WATCHERS * events / fan["kube-apiserver"]))
    print(line)
    if real_kubeconfig:
        results += _in_process_rows(real_kubeconfig, n, rounds, lists)
    return results


def _in_process_rows(real_kubeconfig: str, n: int, rounds: int, lists: int) -> list[Result]:
    """The same steps against a server that runs its controllers in its own process,
    beside the real server again, after the first servers have stopped (a run with all
    of them up at once cost the first server's lists a fifth of their rate)."""
    with server_process(0, "--controllers-in-process", controllers="*", tls=True) as one:
        targets = [_Target("kubenb", connect(one.kubeconfig), n, lists),
                   _Target("kube-apiserver", connect(real_kubeconfig), n, lists)]
        try:
            _rounds(targets, rounds)
        finally:
            for target in targets:
                target.close()
    return _rows(f"cluster, {IN_PROCESS}", targets[0], targets[1:], n, lists)


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    _start_figures(rounds, idle=max(2.0, 5.0 * scale))
    results = _request_rows(max(100, int(1000 * scale)), rounds, lists=max(5, int(50 * scale)),
                            events=max(100, int(1000 * scale)))
    print()
    return results
