"""Informers: time to a synced cache, watch throughput to a handler, memory per object.

Same run, interleaved, best of rounds, each against two baselines:

- sync N pods, N = 10k and 100k (server in its own process): kubenb `SharedIndexInformer` from start
  to `has_synced()`, vs the raw minimum (`requests.get` + `json.loads` of the same
  list) and vs the official client's `kubernetes.informer.SharedInformer` (v36+)
  until its first list is in its cache;
- a stream of E MODIFIED pod events (replayed byte for byte by a separate process):
  kubenb informer events handed to a handler per second, vs `requests` `iter_lines`
  + `json.loads`, and vs the official `watch.Watch().stream` (typed); the same
  informer with `cache_gc_policy()` and with pacing off (`pace_limit=0`) shows what
  each is worth, and pinned to one CPU (the server to another) what it costs that
  its threads otherwise run on both CPUs; a machine check (benchmarks/vcpu_check.py)
  shows how much a busy second CPU slows one-thread work on this machine, this run;
- memory per cached object (tracemalloc, retained after sync) vs the plain decoded
  dicts of the same list, and vs the official informer's typed cache.

kubenb decodes JSON with msgspec (kubenb/jsondecode.py); rows against the same raw
paths decoding with msgspec show what the rest of the pipeline costs (no target).
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec
import requests

from benchmarks import vcpu_check
from benchmarks.harness import Result, compare
from benchmarks.server_process import server_process
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import config_from_dict, load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.gc_policy import cache_gc_policy


def _wait(predicate: Callable[[], bool], timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step did not finish")
        time.sleep(0.002)


def _stop_official(informer: object) -> None:
    """Stop the official informer without `stop()`, which joins a thread blocked in its
    watch until the next event arrives (none will): ask it to stop and move on. Its
    thread ends when the server process goes; what it logs then is silenced."""
    logging.getLogger("kubernetes.informer").setLevel(logging.CRITICAL)
    informer._stop_event.set()  # type: ignore[attr-defined]
    if informer._watch is not None:  # type: ignore[attr-defined]
        informer._watch.stop()  # type: ignore[attr-defined]


def counting_handler(events: int) -> tuple[ResourceEventHandlerFuncs, threading.Event]:
    """A handler that ignores adds, and the event it sets at its `events`-th update:
    what a watch row waits for."""
    seen = [0]
    done = threading.Event()

    def on_update(old: object, new: object) -> None:
        seen[0] += 1
        if seen[0] == events:
            done.set()

    return ResourceEventHandlerFuncs(on_add=lambda obj: None, on_update=on_update), done


def _kubenb_informer(dynamic: DynamicClient, handler: object = None,
                     **options: object) -> SharedIndexInformer:
    informer = SharedIndexInformer(ListWatch.from_client(
        dynamic.resource("v1", "pods"), namespace="default"), **options)
    if handler is not None:
        informer.add_event_handler(handler)
    return informer


# -- sync --------------------------------------------------------------------------------


def sync_results(n: int, rounds: int, measure_memory: bool = True
                 ) -> tuple[list[Result], dict[str, float]]:
    import kubernetes
    from kubernetes.informer import SharedInformer

    with server_process(n) as server:
        dynamic = DynamicClient(load_config(server.kubeconfig))
        session = requests.Session()
        url = server.url + "/api/v1/namespaces/default/pods"
        api = kubernetes.client.CoreV1Api(
            kubernetes.config.new_client_from_config(server.kubeconfig))

        def kubenb_sync() -> None:
            informer = _kubenb_informer(dynamic).start()
            _wait(informer.has_synced)
            assert len(informer.get_indexer().list_keys()) == n
            informer.stop()

        def raw_list() -> None:
            assert len(json.loads(session.get(url).content)["items"]) == n

        def raw_list_msgspec() -> None:
            assert len(msgspec.json.decode(session.get(url).content)["items"]) == n

        def official_sync() -> None:
            informer = SharedInformer(api.list_namespaced_pod, namespace="default")
            informer.start()
            _wait(lambda: informer._resource_version is not None)  # its first list is in
            assert len(informer.cache.list_keys()) == n
            _stop_official(informer)

        label = f"informer sync {n} pods"
        results = [
            compare(label, n, kubenb_sync, "requests+json.loads", raw_list, rounds,
                    target_ratio=1 / 1.5),
            compare(label, n, kubenb_sync, "official SharedInformer", official_sync,
                    max(1, rounds - 1), target_ratio=1.0),
            # kubenb decodes with msgspec: the same raw path with that decoder, no target
            compare(label, n, kubenb_sync, "requests+msgspec", raw_list_msgspec, rounds),
        ]
        memory = memory_per_object(n, dynamic, session, url, api) if measure_memory else {}
        session.close()
        dynamic.rest.close()
        api.api_client.close()
    return results, memory


def _traced(build: Callable[[], object]) -> tuple[float, object]:
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = build()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return after - before, kept


def memory_per_object(n: int, dynamic: DynamicClient, session: requests.Session, url: str,
                      api: object) -> dict[str, float]:
    """Bytes retained per cached pod, measured with tracemalloc after a full sync."""
    from kubernetes.informer import SharedInformer

    content = session.get(url).content
    plain, _ = _traced(lambda: json.loads(content))

    def kubenb_cache() -> object:
        informer = _kubenb_informer(dynamic).start()
        _wait(informer.has_synced)
        informer.stop()
        return informer

    def official_cache() -> object:
        informer = SharedInformer(api.list_namespaced_pod, namespace="default")  # type: ignore
        informer.start()
        _wait(lambda: informer._resource_version is not None)
        _stop_official(informer)
        return informer

    ours, _ = _traced(kubenb_cache)
    theirs, _ = _traced(official_cache)
    return {"plain dicts": plain / n, "kubenb informer": ours / n,
            "official informer": theirs / n}


# -- watch throughput ------------------------------------------------------------------------


def make_stream(path: Path, events: int, pods: int = 1000) -> None:
    """`events` MODIFIED events over `pods` realistic pods, as the API server writes them."""
    from kubenb.server import EmbeddedServer

    server = EmbeddedServer()
    server.seed_objects(pods, kind="pods", namespace="default")
    rtype = server.types.lookup("", "v1", "pods")
    items = server.registry.list(rtype, "default", {})["items"]
    server.stop()
    with path.open("wb") as out:
        for i in range(events):
            pod = items[i % len(items)]
            pod["metadata"]["resourceVersion"] = str(100 + i)
            pod["metadata"].setdefault("labels", {})["revision"] = str(i)
            out.write(json.dumps({"type": "MODIFIED", "object": pod},
                                 separators=(",", ":")).encode() + b"\n")


@contextmanager
def replay_process(stream: Path, per_event: bool = False) -> Iterator[tuple[str, int]]:
    """The replay server's URL and process id, while it runs (`per_event`: each event
    its own HTTP chunk, as a kube-apiserver flushes them; else 64 KiB chunks)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if per_event:
        env["REPLAY_CHUNKS"] = "per-event"
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.replay_server", str(stream)],
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        yield line.rsplit(" ", 1)[-1].strip(), proc.pid
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)


def pinned(run: Callable[[], None], server_pid: int) -> Callable[[], None]:
    """`run` with this thread (and the threads it starts) on one CPU and the server on
    another, restored afterwards: what it costs that the informer's threads otherwise
    run on both CPUs (docs/performance.md, "Where the watch time goes").
    """
    def run_pinned() -> None:
        mine, theirs = os.sched_getaffinity(0), os.sched_getaffinity(server_pid)
        cpus = sorted(mine)
        os.sched_setaffinity(0, {cpus[0]})
        os.sched_setaffinity(server_pid, {cpus[1]})
        try:
            run()
        finally:
            os.sched_setaffinity(0, mine)
            os.sched_setaffinity(server_pid, theirs)
    return run_pinned


def watch_results(events: int, rounds: int) -> list[Result]:
    import kubernetes
    from kubernetes import watch

    with tempfile.TemporaryDirectory(prefix="kubenb-bench-") as tmp:
        stream = Path(tmp) / "stream.jsonl"
        make_stream(stream, events)
        with replay_process(stream) as (url, server_pid):
            config = config_from_dict({
                "clusters": [{"name": "r", "cluster": {"server": url}}],
                "users": [{"name": "r", "user": {}}],
                "contexts": [{"name": "r", "context": {"cluster": "r", "user": "r"}}],
                "current-context": "r"})
            dynamic = DynamicClient(config)
            session = requests.Session()
            configuration = kubernetes.client.Configuration()
            configuration.host = url
            api = kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(configuration))

            def kubenb_watch(**options: object) -> None:
                handler, done = counting_handler(events)
                informer = _kubenb_informer(dynamic, handler, **options).start()
                assert done.wait(600)
                informer.stop()

            def raw_watch(decode: Callable[[bytes], object] = json.loads) -> None:
                resp = session.get(url + "/api/v1/namespaces/default/pods",
                                   params={"watch": "true"}, stream=True)
                count = sum(1 for line in resp.iter_lines() if line and decode(line))
                assert count == events

            def raw_watch_msgspec() -> None:
                raw_watch(msgspec.json.decode)

            def kubenb_plain_watch() -> None:
                kept: dict[str, object] = {}  # keep objects, as any cache does
                with dynamic.resource("v1", "pods").namespace("default").watch(
                        resource_version="1") as events_:
                    for count, event in enumerate(events_, 1):
                        kept[event.object["metadata"]["name"]] = event.object
                        if count == events:
                            break
                assert len(kept) > 0

            def raw_watch_kept() -> None:
                kept: dict[str, object] = {}
                resp = session.get(url + "/api/v1/namespaces/default/pods",
                                   params={"watch": "true"}, stream=True)
                for line in resp.iter_lines():
                    if line:
                        obj = json.loads(line)["object"]
                        kept[obj["metadata"]["name"]] = obj
                assert len(kept) > 0

            def official_watch() -> None:
                count = 0
                for _ in watch.Watch().stream(api.list_namespaced_pod, namespace="default",
                                              resource_version="1", _request_timeout=600):
                    count += 1
                    if count == events:
                        break
                assert count == events

            def kubenb_watch_tuned() -> None:
                with cache_gc_policy():
                    kubenb_watch()

            def kubenb_watch_unpaced() -> None:
                kubenb_watch(pace_limit=0)

            label = f"watch {events} events to a handler"
            results = [
                compare(label, events, kubenb_watch, "iter_lines+json.loads", raw_watch,
                        rounds, target_ratio=0.7),
                compare(label, events, kubenb_watch, "official watch.stream (typed)",
                        official_watch, max(1, rounds - 1), target_ratio=1.0),
                # the same raw path with kubenb's decoder: what the pipeline costs, no target
                compare(label, events, kubenb_watch, "iter_lines+msgspec", raw_watch_msgspec,
                        rounds),
                compare(label + " (cache_gc_policy)", events, kubenb_watch_tuned,
                        "iter_lines+json.loads", raw_watch, rounds, target_ratio=0.7),
                # What pacing (kubenb.cache.pacing) is worth: the same informer without it.
                compare(label + " (pace_limit=0)", events, kubenb_watch_unpaced,
                        "iter_lines+json.loads", raw_watch, rounds),
            ]
            if len(os.sched_getaffinity(0)) >= 2:  # no target: a library does not pin
                results.append(compare(
                    label + " (pinned: client to one CPU, server to another)", events,
                    pinned(kubenb_watch, server_pid), "iter_lines+json.loads, pinned",
                    pinned(raw_watch, server_pid), rounds))
                # how much this machine's CPUs slow each other during this run
                results.append(vcpu_check.result(stream.read_bytes().splitlines(), rounds))
            results += [
                compare(f"Watch iterator, {events} events kept in a dict", events,
                        kubenb_plain_watch, "iter_lines+json.loads, kept", raw_watch_kept,
                        rounds, target_ratio=1.0),
            ]
            session.close()
            dynamic.rest.close()
            api.api_client.close()
    return results


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    n = max(200, int(10_000 * scale))
    events = max(1000, int(50_000 * scale))
    results, memory = sync_results(n, rounds)
    # The 10x list: fewer rounds, the official informer alone takes minutes there.
    results += sync_results(10 * n, min(rounds, 2), measure_memory=False)[0]
    results += watch_results(events, rounds)
    print("memory per cached pod (tracemalloc, retained after sync):")
    base = memory["plain dicts"]
    for name, per in memory.items():
        print(f"  {name:<18} {per / 1024:6.1f} KiB  ({per / base:.2f}x plain dicts)")
    print()
    return results
