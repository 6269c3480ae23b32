"""Memory per cached pod: decoded dicts, kubenb's informer with and without a transform,
the official client's informer (docs/informers.md, "Memory").

`python -m benchmarks.bench_memory [--pods N] [--no-official] [--trace FRAMES]`, or
`python -m benchmarks --only memory`. Two kinds of realistic pods, N of each, served by a
separate process (benchmarks/source_server.py) as a list and then, once released, one
MODIFIED event per pod (a new label and resourceVersion):

- *seeded*: the embedded server's `seed_objects` pods (bound, Running, two containers,
  probes, env, volumes; no managedFields: `seed_objects` records none);
- *realapi*: the four pods a real kube-apiserver v1.32 listed in
  tests/fixtures/realapi/lists/pods-all-namespaces.json, copied N/4 times with their own
  names and uids, managedFields included (~5.8 KB of JSON each).

A figure is tracemalloc's traced memory (after a garbage collection) at one point of a
build, everything allocated since the build began and still alive, less what the same
build retains over an empty list (threads, a connection, caches: its fixed cost, printed
too), divided by N. Points: "synced" (every initial add delivered, the watch open and
quiet), "updated, running" (every update delivered, idle: includes what the Pacer and the
listeners still hold, which depends on thread timing), "updated, stopped" (after
`stop()`, the cache alone). The informers run with one no-op event handler, as informers
do; "factory" is one made by SharedInformerFactory, with its namespace index.

Baselines, "the decoded dicts": the smallest cache, the same bytes decoded by msgspec
(kubenb's decoder, kubenb/jsondecode.py) and by `json.loads`, the objects kept in a
dict by name: the list decoded whole, then each event decoded on its own and kept in place
of its predecessor. Shared strings count once, when first allocated. msgspec shares dict
keys across documents through a process-wide cache of 512 strings (warmed before
measuring, as in a running process) but misses keys over 32 bytes and keys whose slot
another takes; `json.loads` shares keys within one document only. So for a whole list
json.loads' dicts are smaller (every key shared), for one event at a time much bigger
(none shared across events): compare like with like, msgspec against kubenb.

Targets: the kubenb informer's cache at most 1.00x the decoded dicts (two decimals; the
bytes per pod over are printed too), and `transform_strip_managed_fields()` at least 35%
less per pod, for pods that have managedFields (every pod a real API server serves).
What is retained, grouped by traceback, is printed with `--trace FRAMES`; mind that a
block CPython recycles from a free list (dicts, small lists) keeps the traceback of its
first allocation, so objects decoded from events can show as the list's.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.harness import Result
from kubenb.controllermanager.process import stop_child

SEEDED = "seeded"
REALAPI = "realapi"


# -- the pods ----------------------------------------------------------------------------------


def seeded_pods(n: int) -> list[dict[str, Any]]:
    """`n` pods as the embedded server holds them after `seed_objects` (wire form)."""
    from kubenb.server import EmbeddedServer

    server = EmbeddedServer()
    try:
        server.seed_objects(n, kind="pods", namespace="default")
        rtype = server.types.lookup("", "v1", "pods")
        items: list[dict[str, Any]] = server.registry.list(rtype, "default", {})["items"]
    finally:
        server.stop()
    return json.loads(json.dumps(items))  # nothing shared with the server's own copies


def realapi_pods(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """`n` copies of the real kube-apiserver's listed pods, each with its own name, uid and
    resourceVersion (what differs between two pods of one ReplicaSet)."""
    from tests.realapi import REALAPI as FIXTURES

    exchange = json.loads((FIXTURES / "lists" / "pods-all-namespaces.json").read_text())
    originals = exchange["response"]["body"]["items"]
    rng = random.Random(seed)
    pods = []
    for i in range(n):
        pod = json.loads(json.dumps(originals[i % len(originals)]))
        meta = pod["metadata"]
        meta["name"] = f"{meta['name']}-{i:05d}"
        meta["uid"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        pods.append(pod)
    return pods


def write_source(pods: list[dict[str, Any]], directory: Path) -> tuple[Path, Path]:
    """The list (resourceVersions 1000..) and a stream of one MODIFIED event per pod (a new
    label and resourceVersion, as a controller's label update makes)."""
    pods = json.loads(json.dumps(pods))
    compact = {"separators": (",", ":")}
    base = 1000
    for i, pod in enumerate(pods):
        pod["metadata"]["resourceVersion"] = str(base + i)
    listing = {"kind": "PodList", "apiVersion": "v1",
               "metadata": {"resourceVersion": str(base + len(pods))}, "items": pods}
    list_path, stream_path = directory / "list.json", directory / "stream.jsonl"
    list_path.write_text(json.dumps(listing, **compact))  # type: ignore[arg-type]
    with stream_path.open("w") as out:
        for i, pod in enumerate(pods):
            pod["metadata"]["resourceVersion"] = str(base + len(pods) + 1 + i)
            pod["metadata"].setdefault("labels", {})["revision"] = "2"
            out.write(json.dumps({"type": "MODIFIED", "object": pod}, **compact) + "\n")
    return list_path, stream_path


@dataclass
class Source:
    """A running benchmarks/source_server.py: its URL, and `release()` to let its watches
    send the stream."""

    url: str
    port: int

    def release(self) -> None:
        # A raw request: nothing of an HTTP client library is left behind in the traced
        # process (a library keeps pools and caches).
        with socket.create_connection(("127.0.0.1", self.port)) as conn:
            conn.sendall(b"POST /release HTTP/1.0\r\nContent-Length: 0\r\n\r\n")
            conn.recv(1024)


@contextmanager
def source_process(list_path: Path, stream_path: Path) -> Iterator[Source]:
    """benchmarks/source_server.py serving the list and (once released) the stream."""
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.source_server", str(list_path),
                             str(stream_path)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().rsplit(" ", 1)[-1].strip()
        yield Source(url, int(url.rsplit(":", 1)[1]))
    finally:
        stop_child(proc)


# -- measuring -------------------------------------------------------------------------------


@dataclass
class Measure:
    """Traced bytes still allocated at each named point of one build, and a snapshot."""

    points: dict[str, int] = field(default_factory=dict)
    snapshot: tracemalloc.Snapshot | None = None
    notes: dict[str, object] = field(default_factory=dict)

    def mark(self, name: str, take_snapshot: bool = False) -> None:
        gc.collect()
        self.points[name] = tracemalloc.get_traced_memory()[0]
        if take_snapshot and self.snapshot is None:
            self.snapshot = tracemalloc.take_snapshot()


def traced(build: Callable[[Measure], object], frames: int = 1,
           snapshot_at: str = "") -> tuple[Measure, object]:
    """Run `build(measure)` under tracemalloc; it calls `measure.mark(name)` wherever a
    figure is wanted, while what it built is still referenced. Returns what it returned
    too, so the caller decides when it dies."""
    gc.collect()
    measure = Measure()
    original = measure.mark

    def mark(name: str, take_snapshot: bool = False) -> None:
        original(name, take_snapshot or name == snapshot_at)

    measure.mark = mark  # type: ignore[method-assign]
    tracemalloc.start(frames)
    try:
        kept = build(measure)
    finally:
        tracemalloc.stop()
    return measure, kept


def _wait(predicate: Callable[[], bool], timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step did not finish")
        time.sleep(0.005)


class _Counter:
    """A no-op event handler that counts updates (for the kubenb informers)."""

    def __init__(self) -> None:
        self.adds = 0
        self.updates = 0

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        self.adds += 1

    def on_update(self, old: Any, new: Any) -> None:
        self.updates += 1

    def on_delete(self, obj: Any) -> None:
        pass


# -- the builds --------------------------------------------------------------------------------


def decoded_dicts(content: bytes, stream: list[bytes],
                  decode: Callable[[bytes], Any]) -> Callable[[Measure], object]:
    """The smallest cache: the decoded objects in a dict by name (the name strings the
    objects hold). "synced": the list decoded whole, its objects so kept; "updated": then
    each event's object decoded on its own and kept in place of the listed one, filed
    under its own name (re-filed, or the listed object's name would live on as the key)."""
    def build(measure: Measure) -> object:
        kept = {pod["metadata"]["name"]: pod for pod in decode(content)["items"]}
        measure.mark("synced")
        for line in stream:
            obj = decode(line)["object"]
            name = obj["metadata"]["name"]
            kept.pop(name, None)
            kept[name] = obj
        measure.mark("updated")
        return kept
    return build


def kubenb_informer(source: Source, n: int, *, factory: bool = False,
                    transform: Callable[[Any], Any] | None = None
                    ) -> Callable[[Measure], object]:
    """A kubenb informer over all namespaces with one handler: synced, after the stream
    (running, idle), and after stop. `factory`: made by SharedInformerFactory (with its
    namespace index) instead of directly (no index)."""
    from kubenb.cache.factory import SharedInformerFactory
    from kubenb.cache.listwatch import ListWatch
    from kubenb.cache.shared_informer import SharedIndexInformer
    from kubenb.client.config import config_from_dict
    from kubenb.client.dynamic import DynamicClient

    def build(measure: Measure) -> object:
        dynamic = DynamicClient(config_from_dict({
            "clusters": [{"name": "m", "cluster": {"server": source.url}}],
            "users": [{"name": "m", "user": {}}],
            "contexts": [{"name": "m", "context": {"cluster": "m", "user": "m"}}],
            "current-context": "m"}))
        counter = _Counter()
        if factory:
            made = SharedInformerFactory(dynamic, transform=transform)
            informer = made.for_resource("v1", "pods").informer()
        else:
            informer = SharedIndexInformer(
                ListWatch.from_client(dynamic.resource("v1", "pods"), namespace=""),
                transform=transform)
        informer.add_event_handler(counter)
        informer.start()
        _wait(informer.has_synced)
        _wait(lambda: counter.adds >= n)  # every add delivered: the pipeline is idle
        measure.mark("synced")
        source.release()
        _wait(lambda: counter.updates >= n)
        measure.mark("updated")
        measure.notes["notifications the Pacer held, running"] = informer.stats()[
            "pacing"].get("held_for_reflector", 0)
        informer.stop()
        measure.mark("stopped")
        dynamic.rest.close()
        return informer
    return build


def official_informer(source: Source, n: int, sample: bytes) -> Callable[[Measure], object]:
    """The official `kubernetes.informer.SharedInformer` (typed V1Pod models), all
    namespaces: synced and after the stream (its thread is left blocked in the held
    watch; it ends with the source process). `sample`, a list of one pod, is decoded
    first, untraced: what the client imports and caches on its first decode is not a
    cost per pod."""
    import logging

    import kubernetes
    from kubernetes.informer import MODIFIED, SharedInformer

    configuration = kubernetes.client.Configuration()
    configuration.host = source.url
    kubernetes.client.ApiClient(configuration).deserialize(sample.decode(), "V1PodList",
                                                           "application/json")

    def build(measure: Measure) -> object:
        api = kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(configuration))
        updates = [0]

        def on_modified(obj: object) -> None:
            updates[0] += 1

        informer = SharedInformer(api.list_pod_for_all_namespaces)
        informer.add_event_handler(MODIFIED, on_modified)
        informer.start()
        _wait(lambda: len(informer.cache.list_keys()) == n)
        measure.mark("synced")
        source.release()
        _wait(lambda: updates[0] >= n)
        measure.mark("updated")
        logging.getLogger("kubernetes.informer").setLevel(logging.CRITICAL)
        informer._stop_event.set()  # stop() would join a thread blocked in the quiet watch
        return informer, api
    return build


# -- the report --------------------------------------------------------------------------------


@dataclass
class Figures:
    """Bytes per pod, by row and point, for one kind of pod."""

    kind: str
    n: int
    json_bytes: float
    rows: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: dict[str, dict[str, object]] = field(default_factory=dict)
    #: Bytes each build retains over an empty list (taken off the rows).
    fixed: dict[str, float] = field(default_factory=dict)


@dataclass
class Data:
    """One source's files and what the decoded-dict baselines decode."""

    n: int
    list_path: Path
    stream_path: Path
    content: bytes
    stream: list[bytes]


def prepare(pods: list[dict[str, Any]], directory: Path) -> Data:
    directory.mkdir()
    list_path, stream_path = write_source(pods, directory)
    return Data(len(pods), list_path, stream_path, list_path.read_bytes(),
                stream_path.read_bytes().splitlines())


Make = Callable[[Source, Data], Callable[[Measure], object]]


def measure_kind(kind: str, n: int, official: bool = True, trace: int = 0,
                 trace_at: str = "updated") -> Figures:
    """Every row for one kind of pod. Each build runs over an empty list first, twice:
    what it retains the second time (threads, a connection, ...) is its fixed cost,
    reported and taken off, so the rows are the cost of each cached pod (the first time
    also pays what the process does once: imports, caches)."""
    from kubenb.cache.transforms import transform_strip_managed_fields

    pods = seeded_pods(n) if kind == SEEDED else realapi_pods(n)
    with tempfile.TemporaryDirectory(prefix="kubenb-bench-memory-") as tmp:
        data = prepare(pods, Path(tmp) / "pods")
        empty = prepare([], Path(tmp) / "empty")
        del pods
        figures = Figures(kind, n, len(data.content) / n)
        decoder = msgspec.json.Decoder()
        decoder.decode(data.content)  # msgspec's key cache as a running process has it
        slim = transform_strip_managed_fields()
        builds: list[tuple[str, Make]] = [
            ("json.loads dicts", lambda _, d: decoded_dicts(d.content, d.stream, json.loads)),
            ("msgspec dicts", lambda _, d: decoded_dicts(d.content, d.stream, decoder.decode)),
            ("kubenb informer", lambda source, d: kubenb_informer(source, d.n)),
            ("kubenb informer, factory (namespace index)",
             lambda source, d: kubenb_informer(source, d.n, factory=True)),
            ("kubenb informer + transform_strip_managed_fields()",
             lambda source, d: kubenb_informer(source, d.n, transform=slim)),
        ]
        if official:
            sample = json.dumps({"kind": "PodList", "apiVersion": "v1", "metadata": {},
                                 "items": [json.loads(data.stream[0])["object"]]}).encode()
            builds.append(("official informer (typed)",
                           lambda source, d: official_informer(source, d.n, sample)))
        for name, make in builds:
            run_build(make, empty)  # first use: imports and caches, paid once per process
            fixed, _ = run_build(make, empty)
            measure, snapshot = run_build(make, data, trace, trace_at)
            figures.rows[name] = {
                point: (size - fixed.points.get(point, fixed.points["synced"])) / n
                for point, size in measure.points.items()}
            figures.fixed[name] = fixed.points["synced"]
            if measure.notes:
                figures.notes[name] = measure.notes
            if snapshot is not None and "kubenb" in name:
                print_top(f"{kind}: {name}, {trace_at}", snapshot, n)
    return figures


def run_build(make: Make, data: Data, trace: int = 0, trace_at: str = ""
              ) -> tuple[Measure, tracemalloc.Snapshot | None]:
    """One build over a fresh source process (its watch holds the stream until
    released); what the build returned is dropped before the next."""
    with source_process(data.list_path, data.stream_path) as source:
        measure, kept = traced(make(source, data), frames=trace or 1,
                               snapshot_at=trace_at if trace else "")
        snapshot, measure.snapshot = measure.snapshot, None
        del kept
        gc.collect()
    return measure, snapshot


def print_top(title: str, snapshot: tracemalloc.Snapshot, n: int, limit: int = 12) -> None:
    """What is retained, grouped by traceback, biggest first (for finding overhead)."""
    print(f"-- {title}: top {limit} by traceback (bytes per pod)")
    for stat in snapshot.statistics("traceback")[:limit]:
        frames = [f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
                  for frame in list(stat.traceback)[::-1][:5]]  # the most recent first
        print(f"  {stat.size / n:9.1f}  {stat.count / n:7.2f} blocks  {' <- '.join(frames)}")


#: The columns of the table: where each figure is taken.
POINTS = {"synced": "synced", "updated": "updated, running", "stopped": "updated, stopped"}


def _ratio(points: dict[str, float], plain: dict[str, float], point: str) -> float:
    """`point` of an informer against the decoded dicts (which have one "updated")."""
    return points[point] / plain["updated" if point == "stopped" else point]


def format_figures(figures: Figures) -> str:
    rows = figures.rows
    plain = rows["msgspec dicts"]
    head = " ".join(f"{label:>17}" for label in POINTS.values())
    lines = [f"memory per cached pod, {figures.kind} pods (N={figures.n}, "
             f"{figures.json_bytes / 1024:.1f} KiB of JSON each; tracemalloc):",
             f"  {'KiB per pod (x msgspec dicts)':<51} {head}"]
    for name, points in rows.items():
        cells = " ".join(
            f"{points[p] / 1024:8.2f} ({_ratio(points, plain, p):.3f}x)" if p in points
            else f"{'-':>17}" for p in POINTS)
        lines.append(f"  {name:<51} {cells}")
    fixed = "; ".join(f"{name} {size / 1024:.0f} KiB" for name, size in figures.fixed.items())
    lines.append(f"  taken off each row, what it retains over an empty list: {fixed}")
    for name, notes in figures.notes.items():
        lines.append(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in notes.items()))
    return "\n".join(lines)


def targets(figures: Figures) -> list[str]:
    """The target lines: the informer's cache against the decoded dicts (kubenb's own
    decoder's, and json.loads' for reference), the transform's saving."""
    rows = figures.rows
    lines = []
    ours = rows["kubenb informer"]
    for point, label in POINTS.items():
        ratio = _ratio(ours, rows["msgspec dicts"], point)
        over = ours[point] - rows["msgspec dicts"]["updated" if point == "stopped" else point]
        reference = _ratio(ours, rows["json.loads dicts"], point)
        verdict = "ok" if round(ratio, 2) <= 1.0 else "MISSED"
        lines.append(f"  {figures.kind} {label}: kubenb informer = {ratio:.4f}x msgspec dicts, "
                     f"{over:+.0f} B per pod (target <= 1.00x: {verdict}); "
                     f"{reference:.3f}x json.loads dicts")
    slim = rows["kubenb informer + transform_strip_managed_fields()"]
    for point, label in POINTS.items():
        saved = 1 - slim[point] / ours[point]
        verdict = ("ok" if saved >= 0.35 else "MISSED") if figures.kind == REALAPI else \
            "n/a: seed_objects pods carry no managedFields"
        lines.append(f"  {figures.kind} {label}: transform_strip_managed_fields() saves "
                     f"{saved:.1%} (target >= 35%: {verdict})")
    return lines


def run(scale: float = 1.0, rounds: int = 3, official: bool = True, trace: int = 0,
        trace_at: str = "updated", kinds: tuple[str, ...] = (SEEDED, REALAPI)) -> list[Result]:
    """Print the memory tables (deterministic: `rounds` is not needed); no timed rows."""
    del rounds
    n = max(1000, int(4000 * scale)) // 4 * 4
    report = []
    for kind in kinds:
        figures = measure_kind(kind, n, official=official, trace=trace, trace_at=trace_at)
        report.append(format_figures(figures))
        report.append("\n".join(targets(figures)))
    print("\n\n".join(report))
    print()
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_memory",
                                     description=__doc__)
    parser.add_argument("--pods", type=int, default=4000)
    parser.add_argument("--no-official", action="store_true",
                        help="leave out the official client's informer (slow to list)")
    parser.add_argument("--trace", type=int, default=0, metavar="FRAMES",
                        help="also print what each kubenb informer retains after the "
                             "stream, grouped by tracebacks of FRAMES frames")
    parser.add_argument("--trace-at", choices=("synced", "updated", "stopped"),
                        default="updated")
    parser.add_argument("--kind", choices=(SEEDED, REALAPI), action="append")
    args = parser.parse_args(argv)
    run(scale=args.pods / 4000, official=not args.no_official, trace=args.trace,
        trace_at=args.trace_at, kinds=tuple(args.kind or (SEEDED, REALAPI)))
    return 0


if __name__ == "__main__":
    threading.current_thread().name = "bench-memory"
    sys.exit(main())
