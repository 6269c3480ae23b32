"""The benchmark rows against a real cluster: the same rows, a Go server's stream.

`python -m benchmarks.real_cluster [--kubeconfig PATH] [--context NAME] [--pods 5000]
[--events 5000] [--rounds 3] [--only GROUP] [--client-go PROBE]` needs a cluster it
may fill: it creates a namespace of its own (`kubenb-bench-` and a random suffix),
fills it with `--pods` pods and deletes it at the end (`--keep` leaves it). It first
waits for earlier runs' namespaces that the cluster is still deleting
(`--wait-earlier`): that deletion loads the server. The pods
carry a scheduling gate, so no scheduler places them and no kubelet runs them. A
disposable cluster is the place for it, such as the real kube-apiserver the
maintainers build beside their checkout (docs/performance.md, "Against a real
kube-apiserver"). It is not part of `python -m benchmarks`: CI has no cluster.

The history it writes, with the resourceVersions between the steps:

    rv_empty -> create N pods (N ADDED) -> rv_created -> give each a status
    (N MODIFIED) -> rv_full -> patch a label, `--events` times (MODIFIED) -> rv_end

and then it reads parts of that history back, as fast as the server sends it from its
watch cache, with a fresh connection for every round, interleaved, best of rounds:

- **sync**: an informer from start to `has_synced()` against one `requests` GET of the
  whole list and `json.loads` (target: at most 0.7x its time, i.e. ratio >= 1.43x);
  the same informer with `use_watch_list=True` against the paged one (target >= 1x),
  and beside it the server's pace: the bytes of a watch-list against the bytes of the
  paged list, read and not decoded, which says how much of that row is the server's,
  and a sync of no pod both ways (what the server takes before a consistent
  watch-list can end, which no client can shorten), and the sync with
  `transform_strip_managed_fields()` against the default one; with `--client-go PROBE`,
  client-go's informer (exec to synced) against kubenb's (target: kubenb >= 2.5x),
  and client-go's own watch-list against its own paged list (its `WatchListClient`
  feature gate on and off);
- **updates**: a watch from rv_full, `--events` MODIFIED events of pods the informer's
  cache already holds (its list is the one taken at rv_full), against `requests`
  `iter_lines(64 KiB)` + `json.loads` from the same resourceVersion (target >= 0.9x),
  at 1, 2 and 4 handlers, with `cpu_affinity=True` and with
  `transform_strip_managed_fields()` too, and the official `kubernetes` client's typed
  `watch.stream`;
- **recording**: the updates to an informer with one handler, recorded by the flight
  recorder (gzip, then plain lines) against the same informer not recorded (target:
  at most 10% slower, >= 0.9x), the recorder's `stop()` inside the span;
- **new-keys**: a watch from rv_empty, N ADDED events into an empty cache, against the
  raw reader the same way, at 1, 2 and 4 handlers and 4 with `cpu_affinity=True`.

Every figure is first event to last, as in `benchmarks/bench_watch.py`; the server's
framing (a chunk per event, records per flush) is whatever the real server does.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import re
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import msgspec

from benchmarks import bench_sync
from benchmarks.bench_watch import _pods, _Span, informer_span, options_label
from benchmarks.harness import Result, compare, format_table
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.cache.transforms import transform_strip_managed_fields
from kubenb.client.chunked import ChunkedBodyReader
from kubenb.client.config import Config, load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.client.options import ListOptions
from kubenb.errors import Conflict
from kubenb.recording import Recorder, ResourceSpec

TARGET_WATCH = 0.9
TARGET_SYNC = 1 / 0.7
TARGET_RECORDING = 0.9
GATE = "kubenb.io/benchmark"
INITIAL_EVENTS_END = "k8s.io/initial-events-end"
_CONTINUE = re.compile(rb'"continue":"([^"]+)"')
_encode = msgspec.json.Encoder().encode


@dataclasses.dataclass
class History:
    """The namespace the run wrote and the resourceVersions between its steps."""

    namespace: str
    pods: int
    events: int
    rv_empty: str
    rv_created: str
    rv_full: str
    rv_end: str
    #: Mean size of a pod at rv_full as the server encodes it (managedFields included).
    pod_bytes: int = 0
    #: The namespace's pods at rv_full, as listed then (JSON).
    full_list: bytes = dataclasses.field(default=b"", repr=False)

    def list_at(self, resource_version: str) -> bytes:
        """The list an informer starts from to replay the history after
        `resource_version`: kept from when it was written, because etcd compacts
        old revisions every few minutes and an exact list of them then fails (410)."""
        if resource_version == self.rv_full:
            return self.full_list
        if resource_version == self.rv_empty:
            return _encode({"kind": "PodList", "apiVersion": "v1", "items": [],
                            "metadata": {"resourceVersion": self.rv_empty}})
        raise ValueError(f"no list kept at {resource_version}")


def _pod_bodies(n: int, namespace: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(pod to create, status to give it) for `n` realistic pods: the benchmarks'
    seed pods, with what the server sets left out and a scheduling gate added."""
    bodies = []
    for pod in _pods(n):
        meta = pod["metadata"]
        spec = dict(pod["spec"])
        spec.pop("nodeName", None)
        spec["schedulingGates"] = [{"name": GATE}]
        created = {"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": meta["name"], "namespace": namespace, "labels": meta.get("labels", {}),
            "annotations": meta.get("annotations", {})}, "spec": spec}
        bodies.append((created, pod.get("status", {})))
    return bodies


def _list_rv(dynamic: DynamicClient, namespace: str) -> str:
    listed = dynamic.resource("v1", "pods").namespace(namespace).list_with_options(
        ListOptions(limit=1))
    return str(listed["metadata"]["resourceVersion"])


def write_history(dynamic: DynamicClient, namespace: str, pods: int, events: int,
                  workers: int = 8, status: bool = True) -> History:
    """Write the history the rows read back (see the module) into `namespace`, new."""
    client = dynamic.resource("v1", "pods").namespace(namespace)
    bodies = _pod_bodies(pods, namespace)
    rv_empty = _list_rv(dynamic, namespace)
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda body: client.create(body[0]), bodies))
        rv_created = _list_rv(dynamic, namespace)

        def give_status(body: tuple[dict[str, Any], dict[str, Any]]) -> None:
            for _ in range(10):  # client-go's RetryOnConflict: a cluster's own
                current = client.get(body[0]["metadata"]["name"])  # controllers write too
                current["status"] = {**current.get("status", {}), **body[1]}
                try:
                    client.update_status(current)
                    return
                except Conflict:
                    continue
            raise RuntimeError(f"pod {body[0]['metadata']['name']}: status kept conflicting")
        if status:  # without, rv_full is rv_created and the pods are smaller
            list(pool.map(give_status, bodies))
        full = client.list_with_options(ListOptions())
        rv_full = str(full["metadata"]["resourceVersion"])
        pod_bytes = sum(len(_encode(pod)) for pod in full["items"]) // max(1, pods)
        names = [body[0]["metadata"]["name"] for body in bodies]
        list(pool.map(lambda i: client.patch(names[i % pods], {"metadata": {"labels": {
            "revision": str(i)}}}), range(events)))
        rv_end = _list_rv(dynamic, namespace)
    return History(namespace, pods, events, rv_empty, rv_created, rv_full, rv_end,
                   pod_bytes, _encode(full))


def _pods_url(config: Config, namespace: str) -> str:
    return f"{str(config.server).rstrip('/')}/api/v1/namespaces/{namespace}/pods"


def _raw_watch(config: Config, history: History, resource_version: str, count: int,
               watch_kind: str) -> Callable[[], float]:
    """`requests` + `json.loads`, from the first event of a watch from there to the
    `count`-th of `watch_kind` (the informer rows count their handler calls the same
    way, whatever else a cluster's own controllers write in between)."""
    def go() -> float:
        session = config.new_session()
        try:
            resp = session.get(_pods_url(config, history.namespace), stream=True, params={
                "watch": "true", "resourceVersion": resource_version}, timeout=600)
            resp.raise_for_status()
            first, seen = 0.0, 0
            for line in resp.iter_lines(65536):
                if not line:
                    continue
                event = json.loads(line)
                if event["type"] == "ERROR":
                    raise RuntimeError(f"the watch failed: {event['object']}")
                if not first:
                    first = time.perf_counter()
                if event["type"] == watch_kind:
                    seen += 1
                    if seen == count:
                        break
            took = time.perf_counter() - first
            resp.close()
        finally:
            session.close()
        assert seen == count, f"the watch ended after {seen} of {count} events"
        return took
    return go


def _kubenb_watch(dynamic: DynamicClient, history: History, resource_version: str,
                  count: int) -> Callable[[], float]:
    """kubenb's `Watch` iterator over the same events."""
    pods = dynamic.resource("v1", "pods").namespace(history.namespace)

    def go() -> float:
        watch = pods.watch(resource_version=resource_version)
        first, seen = 0.0, 0
        try:
            for _ in watch:
                if not seen:
                    first = time.perf_counter()
                seen += 1
                if seen == count:
                    break
            took = time.perf_counter() - first
        finally:
            watch.stop()
        assert seen == count
        return took
    return go


def _list_watch_at(dynamic: DynamicClient, history: History, resource_version: str
                   ) -> ListWatch:
    """A ListWatch whose list is the namespace as it was at `resource_version` (kept
    in memory, see `History.list_at`), so the Reflector's watch, from the server,
    replays the history after it from the server's watch cache."""
    base = ListWatch.from_client(dynamic.resource("v1", "pods"), namespace=history.namespace)
    listed = history.list_at(resource_version)

    def list_func(options: ListOptions) -> dict[str, Any]:
        decoded: dict[str, Any] = msgspec.json.decode(listed)
        return decoded

    return ListWatch(list_func, base.watch_func,
                     f"pods in {history.namespace} from {resource_version}")


def _informer_watch(dynamic: DynamicClient, history: History, resource_version: str,
                    count: int, handlers: int, watch_kind: str,
                    **options: Any) -> Callable[[], float]:
    return informer_span(lambda: _list_watch_at(dynamic, history, resource_version),
                         count, handlers, watch_kind, **options)


def _recorded_watch(dynamic: DynamicClient, history: History, count: int,
                    compresslevel: int | None, folder: Path) -> Callable[[], float]:
    """The updates watched by an informer with one handler, recorded by a `Recorder`
    on its ListerWatcher (`compresslevel` None: not recorded), from the first event to
    the last and the recorder stopped (every line written, the file closed)."""
    def go() -> float:
        span = _Span(count, 1)
        list_watch: Any = _list_watch_at(dynamic, history, history.rv_full)
        recorder = None
        if compresslevel is not None:
            name = "recorded.jsonl.gz" if compresslevel else "recorded.jsonl"
            recorder = Recorder(folder / name, [
                ResourceSpec("v1", "pods", "Pod", True, history.namespace)],
                compresslevel=compresslevel).start()
            list_watch = recorder.list_watcher(0, list_watch)
        informer = SharedIndexInformer(list_watch)
        informer.add_event_handler(span.handler("MODIFIED"))
        informer.start()
        try:
            assert span.done.wait(600), "the informer did not deliver"
            if recorder is not None:
                recorder.stop()
                assert recorder.reason == "stopped" and recorder.events >= count, recorder
            return (time.perf_counter() if recorder else span.last) - span.first
        finally:
            informer.stop()
    return go


def _official_watch(kubeconfig: str | None, context: str | None, history: History,
                    resource_version: str, count: int) -> Callable[[], float]:
    import kubernetes
    from kubernetes import watch

    api = kubernetes.client.CoreV1Api(
        kubernetes.config.new_client_from_config(kubeconfig, context=context))

    def go() -> float:
        first = 0.0
        stream = watch.Watch().stream(api.list_namespaced_pod, namespace=history.namespace,
                                      resource_version=resource_version,
                                      _request_timeout=600)
        for seen, _ in enumerate(stream, 1):
            if seen == 1:
                first = time.perf_counter()
            if seen == count:
                break
        return time.perf_counter() - first
    return go


def _sync(dynamic: DynamicClient, history: History, **options: Any) -> Callable[[], float]:
    return bench_sync._sync(dynamic, history.pods, namespace=history.namespace, **options)


#: Selects none of the history's pods: a sync that receives nothing still waits for
#: whatever the server does before it answers, and that is all it times.
_NO_POD = "kubenb-bench/selects=nothing"


def _sync_of_nothing(dynamic: DynamicClient, history: History,
                     **options: Any) -> Callable[[], float]:
    return bench_sync._sync(dynamic, 0, namespace=history.namespace,
                            label_selector=_NO_POD, **options)


def _raw_list(config: Config, history: History) -> Callable[[], None]:
    def go() -> None:
        session = config.new_session()
        try:
            resp = session.get(_pods_url(config, history.namespace), timeout=600)
            resp.raise_for_status()
            assert len(json.loads(resp.content)["items"]) == history.pods
        finally:
            session.close()
    return go


def _client_go_sync(probe: str, kubeconfig: str, history: History,
                    watch_list: bool = False) -> Callable[[], float]:
    """client-go 1.32's dynamic informer (the realapi probe), exec to its SYNCED line,
    so the process's start counts as a Go program's would. `watch_list` turns on
    client-go's WatchListClient feature gate (its environment variable), so that the
    probe's informer streams its initial state instead of listing it."""
    env = {**os.environ, "KUBE_FEATURE_WatchListClient": "true" if watch_list else "false"}

    def go() -> float:
        started = time.perf_counter()
        proc = subprocess.Popen([probe, "-kubeconfig", kubeconfig, "-namespace",
                                 history.namespace, "-resource", "pods", "-duration", "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                if b'"SYNCED"' in line:
                    took = time.perf_counter() - started
                    assert json.loads(line)["items"] == history.pods
                    return took
            raise RuntimeError(f"{probe} ended before its cache synced")
        finally:
            if proc.stdout is not None:  # its handler may still print: a closed pipe ends it
                proc.stdout.close()
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return go


def _bytes_paged_list(config: Config, history: History) -> Callable[[], None]:
    """The list's bytes page by page (500 a page, as an informer lists), not decoded:
    the server's and the connection's pace, not a client's."""
    def go() -> None:
        session = config.new_session()
        try:
            params, pages = {"limit": "500"}, 0
            while True:
                resp = session.get(_pods_url(config, history.namespace), params=params,
                                   stream=True, timeout=600)
                resp.raise_for_status()
                head = b""
                for piece in resp.iter_content(1 << 20):
                    head = head or piece[:4096]  # the list's metadata comes first
                pages += 1
                token = _CONTINUE.search(head)
                if not token:
                    break
                params = {"limit": "500", "continue": token.group(1).decode()}
            assert pages == -(-history.pods // 500)
        finally:
            session.close()
    return go


def _bytes_watch_list(config: Config, history: History) -> Callable[[], None]:
    """A watch-list's bytes up to the initial-events-end bookmark, not decoded, read
    with kubenb's chunk reader (whole reads, the framing undone in one step each), so
    that the reader is not what sets the pace."""
    def go() -> None:
        session = config.new_session()
        try:
            resp = session.get(_pods_url(config, history.namespace), stream=True, params={
                "watch": "true", "sendInitialEvents": "true", "allowWatchBookmarks": "true",
                "resourceVersionMatch": "NotOlderThan"}, timeout=600)
            resp.raise_for_status()
            added_mark, end_mark = b'{"type":"ADDED"', INITIAL_EVENTS_END.encode()
            # A mark split between two pieces is found once: the piece is read with the
            # last len(mark) - 1 bytes before it, too few to hold a whole mark twice.
            tail, added = b"", 0
            reader = ChunkedBodyReader.from_response(resp)
            pieces = (b"".join(read) for read in iter(reader.read, [])) if reader \
                else resp.iter_content(1 << 16)
            for piece in pieces:
                window = tail + piece
                added += window[max(0, len(tail) - len(added_mark) + 1):].count(added_mark)
                if end_mark in window:
                    break
                tail = window[-(len(end_mark) - 1):]
            resp.close()
            assert added == history.pods, (added, history.pods)
        finally:
            session.close()
    return go


@dataclasses.dataclass
class Run:
    """What every group of rows needs."""

    config: Config
    dynamic: DynamicClient
    history: History
    rounds: int
    kubeconfig: str | None = None
    context: str | None = None
    client_go_probe: str | None = None


RAW = "iter_lines+json.loads"


def sync_rows(run: Run) -> list[Result]:
    n, dynamic, history, rounds = run.history.pods, run.dynamic, run.history, run.rounds
    results = [compare(f"real: informer sync {n} pods", n, _sync(dynamic, history),
                       "requests+json.loads", _raw_list(run.config, history), rounds,
                       target_ratio=TARGET_SYNC),
               compare(f"real: informer sync {n} pods, use_watch_list=True", n,
                       _sync(dynamic, history, use_watch_list=True),
                       "informer, paged list", _sync(dynamic, history), rounds,
                       target_ratio=1.0),
               # The server's pods carry managedFields (more than half of a decoded pod):
               # what leaving them out of the cache saves a sync (docs/informers.md).
               compare(f"real: informer sync {n} pods, transform_strip_managed_fields()",
                       n, _sync(dynamic, history, transform=transform_strip_managed_fields()),
                       "informer, paged list", _sync(dynamic, history), rounds),
               compare(f"real: server's pace, a watch-list of {n} pods (bytes only)",
                       n, _bytes_watch_list(run.config, history), "paged list (bytes only)",
                       _bytes_paged_list(run.config, history), rounds),
               # Before it sends the end bookmark, a consistent watch-list may wait for
               # the server's watch cache to catch up with etcd (right after a write,
               # up to 0.2 s); a list from the cache ("0") does not. Timed alone: one
               # sync a round, of no pod.
               compare("real: informer sync of no pod (a selector matching none), "
                       "use_watch_list=True: the server's own time", 1,
                       _sync_of_nothing(dynamic, history, use_watch_list=True),
                       "informer, paged list", _sync_of_nothing(dynamic, history), rounds)]
    if run.client_go_probe:
        kubeconfig = run.kubeconfig or os.environ["KUBECONFIG"]
        paged_go = _client_go_sync(run.client_go_probe, kubeconfig, history)
        results += [compare(f"real: informer sync {n} pods", n, _sync(dynamic, history),
                            "client-go informer (exec)", paged_go, rounds, target_ratio=2.5),
                    # The reference implementation's own watch-list against its own paged
                    # list, no kubenb code: what the protocol costs a client on this server.
                    compare(f"real: client-go informer sync {n} pods, WatchListClient", n,
                            _client_go_sync(run.client_go_probe, kubeconfig, history,
                                            watch_list=True),
                            "client-go informer, paged list", paged_go, rounds)]
    return results


def update_rows(run: Run) -> list[Result]:
    m, dynamic, history, rounds = run.history.events, run.dynamic, run.history, run.rounds
    updates = _raw_watch(run.config, history, history.rv_full, m, "MODIFIED")
    results = [compare(f"real: watch {m} updates, kubenb Watch", m,
                       _kubenb_watch(dynamic, history, history.rv_full, m),
                       RAW, updates, rounds)]
    strip = {"transform": transform_strip_managed_fields()}
    for handlers, options in ((1, {}), (2, {}), (4, {}),
                              (1, {"cpu_affinity": True}), (4, {"cpu_affinity": True}),
                              (1, strip), (4, strip)):
        label = f"real: watch {m} updates, informer, {handlers} handler" + (
            "s" if handlers > 1 else "") + options_label(options)
        results.append(compare(label, m, _informer_watch(
            dynamic, history, history.rv_full, m, handlers, "MODIFIED", **options),
            RAW, updates, rounds, target_ratio=None if options else TARGET_WATCH))
    results.append(compare(f"real: watch {m} updates, official watch.stream (typed)", m,
                           _official_watch(run.kubeconfig, run.context, history,
                                           history.rv_full, m),
                           RAW, updates, rounds))
    return results


def recording_rows(run: Run) -> list[Result]:
    m, dynamic, history, rounds = run.history.events, run.dynamic, run.history, run.rounds
    results = []
    with tempfile.TemporaryDirectory(prefix="kubenb-bench-") as tmp:
        not_recorded = _recorded_watch(dynamic, history, m, None, Path(tmp))
        for name, level in (("gzip", 1), ("plain lines", 0)):
            results.append(compare(
                f"real: watch {m} updates, informer, 1 handler, recorded ({name})", m,
                _recorded_watch(dynamic, history, m, level, Path(tmp)),
                "the same, not recorded", not_recorded, rounds,
                target_ratio=TARGET_RECORDING if level else None))
    return results


def new_key_rows(run: Run) -> list[Result]:
    n, history = run.history.pods, run.history
    new_keys = _raw_watch(run.config, history, history.rv_empty, n, "ADDED")
    results = []
    # The extra row pins the informer's threads to one CPU: with the server on the same
    # machine, the other is left to it (docs/informers.md).
    for handlers, options in ((1, {}), (2, {}), (4, {}), (4, {"cpu_affinity": True})):
        label = f"real: watch {n} new keys, informer, {handlers} handler" + (
            "s" if handlers > 1 else "") + options_label(options)
        results.append(compare(label, n, _informer_watch(
            run.dynamic, history, history.rv_empty, n, handlers, "ADDED", **options),
            RAW, new_keys, run.rounds, target_ratio=None if options else TARGET_WATCH))
    return results


GROUPS: dict[str, Callable[[Run], list[Result]]] = {
    "sync": sync_rows, "updates": update_rows, "recording": recording_rows,
    "new-keys": new_key_rows}


NAMESPACE_PREFIX = "kubenb-bench-"


def wait_for_earlier_runs(dynamic: DynamicClient, timeout: float, poll: float = 2.0,
                          sleep: Callable[[float], None] = time.sleep) -> list[str]:
    """Wait until no namespace of an earlier run is still being deleted, up to `timeout`
    seconds; return the names of those still there (being deleted, or left behind).

    Why: the cluster deletes a run's pods after the run has ended (100k pods took about
    20 minutes here), and that deletion loads the server and etcd; rows measured
    meanwhile measure it too. Namespaces left behind (`--keep`, a killed run) are only
    named: the one who kept them decides."""
    namespaces = dynamic.resource("v1", "namespaces")
    deadline = time.monotonic() + timeout
    said = False
    while True:
        earlier = [ns for ns in namespaces.list()["items"]
                   if ns["metadata"]["name"].startswith(NAMESPACE_PREFIX)]
        deleting = sorted(ns["metadata"]["name"] for ns in earlier
                          if (ns.get("status") or {}).get("phase") == "Terminating")
        if not deleting or time.monotonic() >= deadline:
            kept = sorted(ns["metadata"]["name"] for ns in earlier
                          if ns["metadata"]["name"] not in deleting)
            if kept:
                print(f"left behind by earlier runs (kubectl delete namespace ...): "
                      f"{', '.join(kept)}", flush=True)
            if deleting:
                print(f"still being deleted after {timeout:.0f} s, measuring anyway: "
                      f"{', '.join(deleting)}", flush=True)
            return deleting + kept
        if not said:
            print(f"waiting for earlier runs' namespaces to be deleted (that loads the "
                  f"server): {', '.join(deleting)}", flush=True)
            said = True
        sleep(poll)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.real_cluster",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--kubeconfig", help="default: $KUBECONFIG, then ~/.kube/config")
    parser.add_argument("--context")
    parser.add_argument("--pods", type=int, default=5000)
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--client-go", metavar="PROBE",
                        help="also time client-go's informer sync with this program: it "
                             "is run as PROBE -kubeconfig PATH -namespace NS -resource pods "
                             "-duration 0 and prints a JSON line with \"event\": \"SYNCED\" "
                             "and \"items\" once synced (the maintainers' realapi-probe)")
    parser.add_argument("--only", action="append", choices=list(GROUPS),
                        help="run these groups of rows (repeatable; default: all)")
    parser.add_argument("--no-status", action="store_true",
                        help="skip giving the pods a status (half the writes, for large "
                             "--pods; the pods are smaller)")
    parser.add_argument("--keep", action="store_true",
                        help="leave the namespace and its pods behind")
    parser.add_argument("--wait-earlier", type=float, default=1800, metavar="SECONDS",
                        help="wait this long at most for earlier runs' namespaces that "
                             "are still being deleted (default 1800; 0: do not wait)")
    args = parser.parse_args(argv)
    config = load_config(args.kubeconfig, args.context)
    dynamic = DynamicClient(config)
    version = dynamic.rest.get("/version")
    print(f"kubenb against {version.get('gitVersion')} — Python "
          f"{platform.python_version()}, {platform.machine()}", flush=True)
    wait_for_earlier_runs(dynamic, args.wait_earlier)
    namespace = f"{NAMESPACE_PREFIX}{secrets.token_hex(3)}"
    dynamic.resource("v1", "namespaces").create(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    try:
        started = time.perf_counter()
        history = write_history(dynamic, namespace, args.pods, args.events,
                                status=not args.no_status)
        print(f"wrote {history} in {time.perf_counter() - started:.0f} s", flush=True)
        run = Run(config, dynamic, history, args.rounds, args.kubeconfig, args.context,
                  args.client_go)
        results = [row for name in (args.only or GROUPS) for row in GROUPS[name](run)]
        print("ratio = kubenb throughput / baseline throughput, same run, best of rounds\n")
        print(format_table(results))
    finally:
        if not args.keep:
            dynamic.resource("v1", "namespaces").delete(namespace)
        dynamic.rest.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
