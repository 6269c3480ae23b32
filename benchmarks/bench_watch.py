"""Watch throughput through an informer, framed as a real API server frames it.

A real kube-apiserver flushes every watch event as its own HTTP chunk, over TLS: a
client makes one read (and one TLS record decrypt) per event, and an informer's
threads hand over one event at a time unless they are built not to. The replay
server (benchmarks/replay_server.py) sends the same bytes that way (`--per-event`,
`--tls`), and every client reads the very same stream.

Measured: first -> last watch event, in events per second, in two cases, each with 1,
2 and 4 handlers:

- updates: E MODIFIED events of pods the informer already holds (its list returned
  them), the steady state of a busy cluster;
- new keys: E ADDED events of pods the cache has never seen, as the initial events of
  a watch-list (`sendInitialEvents`) are.

Baselines, same run, interleaved: `requests` `iter_lines` + `json.loads` of the same
stream (the raw minimum: target >= 0.9x), and the official client's
`watch.Watch().stream` (typed), for updates with one handler. Extra rows run the same
informers with `cpu_affinity=True` (their threads on one CPU, kubenb.cache.affinity),
and a diagnostic row runs the informer's stages on one thread (what its threads cost).
Then machine-check rows with no kubenb code (benchmarks/handoff_check.py): the same
decode-and-keep work on one thread, on two threads taking turns, and on two threads
held on one CPU, for what a thread hand-off itself costs on the machine at hand.
Last, extra rows over updates of pods as a real v1.32 server sends them
(managedFields included; the seeded pods above have none): the informer with its
defaults and with `transform_strip_managed_fields()`, one handler each.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests

from benchmarks import handoff_check
from benchmarks.harness import Result, compare
from kubenb.cache.controller import new_queue, process_deltas
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.keys import deletion_handling_meta_namespace_key_func
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.cache.store import new_indexer
from kubenb.cache.transforms import transform_strip_managed_fields
from kubenb.client.config import config_from_dict
from kubenb.client.dynamic import DynamicClient

TARGET = 0.9


def _pods(n: int) -> list[dict]:
    from kubenb.server import EmbeddedServer

    server = EmbeddedServer()
    try:
        server.seed_objects(n, kind="pods", namespace="default")
        rtype = server.types.lookup("", "v1", "pods")
        return server.registry.list(rtype, "default", {})["items"]
    finally:
        server.stop()


def write_streams(folder: Path, events: int, cached: int) -> dict[str, tuple[Path, Path]]:
    """(stream, list) files for the two cases: updates of `cached` listed pods, and
    `events` ADDED events of pods nobody listed."""
    pods = _pods(max(cached, events))
    files = {"updates": write_updates(folder, "updates", pods[:cached], events)}
    empty = folder / "empty-list.json"
    empty.write_bytes(b'{"kind":"PodList","apiVersion":"v1","metadata":'
                      b'{"resourceVersion":"1"},"items":[]}')
    stream = folder / "new-keys.jsonl"
    with stream.open("wb") as out:
        for i, pod in enumerate(pods[:events]):
            pod["metadata"]["resourceVersion"] = str(100 + i)
            out.write(json.dumps({"type": "ADDED", "object": pod},
                                 separators=(",", ":")).encode() + b"\n")
    files["new keys"] = (stream, empty)
    return files


def write_updates(folder: Path, name: str, listed: list[dict], events: int
                  ) -> tuple[Path, Path]:
    """(stream, list) files: `listed` as the list, then `events` MODIFIED events that
    update them in turn (a new label and resourceVersion, as a controller's patch)."""
    listed = json.loads(json.dumps(listed))
    for i, pod in enumerate(listed):
        pod["metadata"]["resourceVersion"] = str(10 + i)
    list_file = folder / f"{name}-list.json"
    list_file.write_bytes(json.dumps({
        "kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "99"},
        "items": listed}, separators=(",", ":")).encode())
    stream = folder / f"{name}.jsonl"
    with stream.open("wb") as out:
        for i in range(events):
            pod = json.loads(json.dumps(listed[i % len(listed)]))
            pod["metadata"]["resourceVersion"] = str(100 + i)
            pod["metadata"].setdefault("labels", {})["revision"] = str(i)
            out.write(json.dumps({"type": "MODIFIED", "object": pod},
                                 separators=(",", ":")).encode() + b"\n")
    return stream, list_file


@contextmanager
def replay(stream: Path, listing: Path, tls_dir: Path) -> Iterator[tuple[str, str]]:
    """(url, CA file) of a per-event, TLS replay server of `stream`, while it runs."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.replay_server", str(stream), "--list",
         str(listing), "--tls", str(tls_dir), "--per-event"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        yield line.rsplit(" ", 1)[-1].strip(), str(tls_dir / "ca.crt")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)


@contextmanager
def _replayed(stream: Path, listing: Path, folder: Path, events: int
              ) -> Iterator[tuple[str, str, DynamicClient, Callable[[], float]]]:
    """(url, CA file, kubenb client, timed raw watch of `events`) over a replay of
    `stream`, while it runs; the clients are closed after."""
    with replay(stream, listing, folder) as (url, ca_file):
        dynamic = _client(url, ca_file)
        session = requests.Session()
        session.trust_env = False  # REQUESTS_CA_BUNDLE would override verify
        session.verify = ca_file
        try:
            yield url, ca_file, dynamic, _raw_run(
                session, url + "/api/v1/namespaces/default/pods", events)
        finally:
            session.close()
            dynamic.rest.close()


def options_label(options: dict[str, Any]) -> str:
    """How a row names the informer options it runs with (none: the defaults)."""
    if "transform" in options:
        return ", transform_strip_managed_fields()"
    return "".join(f", {name}={value!r}" for name, value in options.items())


class _Span:
    """First and last time any handler saw a watch event; done when all saw `events`."""

    def __init__(self, events: int, handlers: int) -> None:
        self.events = events
        self.first = float("inf")
        self.last = 0.0
        self._left = handlers
        self._lock = threading.Lock()
        self.done = threading.Event()

    def handler(self, watch_kind: str) -> ResourceEventHandlerFuncs:
        seen = [0]
        target = self.events

        def on_event(*args: object) -> None:
            if len(args) == 2 and watch_kind == "ADDED":
                return  # an update on the ADDED stream cannot happen; not counted
            if seen[0] == 0:
                now = time.perf_counter()
                if now < self.first:
                    self.first = now
            seen[0] += 1
            if seen[0] == target:
                now = time.perf_counter()
                with self._lock:
                    self.last = max(self.last, now)
                    self._left -= 1
                    if self._left == 0:
                        self.done.set()

        if watch_kind == "ADDED":
            def on_add(obj: object, is_in_initial_list: bool = False) -> None:
                on_event(obj)
            return ResourceEventHandlerFuncs(on_add=on_add)
        return ResourceEventHandlerFuncs(
            on_add=lambda obj, is_in_initial_list=False: None,
            on_update=lambda old, new: on_event(new))


def _client(url: str, ca_file: str) -> DynamicClient:
    return DynamicClient(config_from_dict({
        "clusters": [{"name": "r", "cluster": {"server": url, "certificate-authority": ca_file}}],
        "users": [{"name": "r", "user": {}}],
        "contexts": [{"name": "r", "context": {"cluster": "r", "user": "r"}}],
        "current-context": "r"}))


def _informer_run(dynamic: DynamicClient, events: int, handlers: int,
                  watch_kind: str, **options: Any) -> Callable[[], float]:
    return informer_span(lambda: ListWatch.from_client(
        dynamic.resource("v1", "pods"), namespace="default"), events, handlers, watch_kind,
        **options)


def informer_span(make_list_watch: Callable[[], Any], events: int, handlers: int,
                  watch_kind: str, **options: Any) -> Callable[[], float]:
    """A timed run: an informer over `make_list_watch()` with `handlers` handlers, from
    the first event any of them sees to the `events`-th of `watch_kind` in all."""
    def go() -> float:
        span = _Span(events, handlers)
        informer = SharedIndexInformer(make_list_watch(), **options)
        for _ in range(handlers):
            informer.add_event_handler(span.handler(watch_kind))
        informer.start()
        try:
            assert span.done.wait(600), "the informer did not deliver"
        finally:
            informer.stop()
        return span.last - span.first
    return go


def _one_thread_run(dynamic: DynamicClient, events: int) -> Callable[[], float]:
    """Diagnostic, not a product path: the informer's stages on one thread. Each watch
    event goes through a DeltaFIFO into the indexer and to the handler
    (`process_deltas`, the informer's own function) before the next one is read. The
    gap to the threaded informer is what its threads cost."""
    pods = dynamic.resource("v1", "pods").namespace("default")

    def go() -> float:
        indexer = new_indexer(deletion_handling_meta_namespace_key_func, {})
        queue = new_queue("DeltaFIFO", indexer, None)
        listed = pods.list()
        indexer.replace(listed["items"], listed["metadata"]["resourceVersion"])
        seen = [0]

        def on_update(old: object, new: object) -> None:
            seen[0] += 1

        handler = ResourceEventHandlerFuncs(on_add=lambda obj: None, on_update=on_update)

        def process(deltas: Any, is_in_initial_list: bool) -> None:
            process_deltas(handler, indexer, deltas, is_in_initial_list)

        watch = pods.watch(resource_version=listed["metadata"]["resourceVersion"])
        first = 0.0
        try:
            for count, event in enumerate(watch, 1):
                if count == 1:
                    first = time.perf_counter()
                queue.update(event.object)
                queue.pop(process)
                if count == events:
                    break
            took = time.perf_counter() - first
        finally:
            watch.stop()
        assert seen[0] == events
        return took
    return go


def _raw_run(session: requests.Session, url: str, events: int) -> Callable[[], float]:
    def go() -> float:
        resp = session.get(url, params={"watch": "true"}, stream=True)
        first, count = 0.0, 0
        for line in resp.iter_lines(65536):
            if line and json.loads(line):
                if not count:
                    first = time.perf_counter()
                count += 1
        assert count == events
        return time.perf_counter() - first
    return go


def _official_run(url: str, ca_file: str, events: int) -> tuple[Callable[[], float], object]:
    import kubernetes
    from kubernetes import watch

    configuration = kubernetes.client.Configuration()
    configuration.host = url
    configuration.ssl_ca_cert = ca_file
    api = kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(configuration))

    def go() -> float:
        first = 0.0
        for count, _ in enumerate(watch.Watch().stream(
                api.list_namespaced_pod, namespace="default", resource_version="1",
                _request_timeout=600), 1):
            if count == 1:
                first = time.perf_counter()
            if count == events:
                break
        return time.perf_counter() - first
    return go, api


def case_results(case: str, stream: Path, listing: Path, folder: Path, events: int,
                 rounds: int) -> list[Result]:
    watch_kind = "MODIFIED" if case == "updates" else "ADDED"
    results = []
    with _replayed(stream, listing, folder, events) as (url, ca_file, dynamic, raw):
        label = f"watch {events} {case}, per-event TLS"
        for handlers in (1, 2, 4):
            name = f"{label}, {handlers} handler" + ("s" if handlers > 1 else "")
            results.append(compare(name, events, _informer_run(dynamic, events, handlers,
                                                               watch_kind),
                                   "iter_lines+json.loads", raw, rounds, target_ratio=TARGET))
        for handlers in (1, 2, 4):  # the informer's threads on one CPU (opt-in)
            name = f"{label}, {handlers} handler" + ("s" if handlers > 1 else "")
            results.append(compare(f"{name}, cpu_affinity=True", events,
                                   _informer_run(dynamic, events, handlers, watch_kind,
                                                 cpu_affinity=True),
                                   "iter_lines+json.loads", raw, rounds))
        if case == "updates":
            results.append(compare(f"{label}, the informer's stages on one thread "
                                   "(diagnostic)", events, _one_thread_run(dynamic, events),
                                   "iter_lines+json.loads", raw, rounds))
            official, api = _official_run(url, ca_file, events)
            results.append(compare(f"{label}, 1 handler", events,
                                   _informer_run(dynamic, events, 1, watch_kind),
                                   "official watch.stream (typed)", official,
                                   max(1, rounds - 1), target_ratio=1.0))
            api.api_client.close()  # type: ignore[attr-defined]
    return results


def real_pod_results(folder: Path, events: int, cached: int, rounds: int) -> list[Result]:
    """Updates of pods as a real kube-apiserver v1.32 serves them, managedFields
    included (tests/fixtures/realapi, via benchmarks/bench_memory.py): the informer with
    its defaults, and with `transform_strip_managed_fields()`, which leaves about half
    of each pod out of the cache, so that each update frees half as much of the cold
    pod it replaces (docs/informers.md). Extra rows: no target."""
    from benchmarks.bench_memory import realapi_pods

    stream, listing = write_updates(folder, "real-pod-updates", realapi_pods(cached), events)
    results = []
    with _replayed(stream, listing, folder, events) as (_url, _ca_file, dynamic, raw):
        label = f"watch {events} updates of real v1.32 pods (managedFields), per-event TLS"
        for options in ({}, {"transform": transform_strip_managed_fields()}):
            results.append(compare(label + ", 1 handler" + options_label(options), events,
                                   _informer_run(dynamic, events, 1, "MODIFIED", **options),
                                   "iter_lines+json.loads", raw, rounds))
    stream.unlink()
    listing.unlink()
    return results


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    events = max(2000, int(20_000 * scale))
    cached = max(200, int(1_000 * scale))
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="kubenb-bench-watch-") as tmp:
        folder = Path(tmp)
        streams = write_streams(folder, events, cached)
        for case, (stream, listing) in streams.items():
            results += case_results(case, stream, listing, folder, events, rounds)
        # What any two Python threads taking turns cost on this machine (no kubenb code):
        # the ceiling of a threaded informer against the one-thread raw reader.
        results += handoff_check.results(streams["updates"][0].read_bytes().splitlines(),
                                         rounds)
        results += real_pod_results(folder, events, cached, rounds)
    return results
