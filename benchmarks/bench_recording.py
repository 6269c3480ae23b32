"""Recording: what the flight recorder costs the informer it rides on.

The same stream of E MODIFIED pod events (replayed byte for byte by a separate process,
each event flushed as its own HTTP chunk, as a kube-apiserver does) is watched by a
kubenb informer handing every event to a handler, three ways in the same run: without
a recorder, with a `Recorder` on its ListerWatcher (kubenb.recording) writing gzip (the
default, level 1), and with one writing plain JSON lines (`compresslevel=0`). The three
are interleaved, their order rotating from round to round, for at least five rounds
even with --quick (one round on a shared machine is noise). A recorded run's time runs
from the recorder's start to the end of `stop()`: every queued line framed, compressed
and written, the file closed. Target: recording costs at most 10% (>= 0.9x).

Two measures of each path: wall-clock time (the target's) and the CPU time of the whole
process (every thread, the recorder's writer included; the replay server is a process
of its own and does the same work for every path). On a machine whose CPUs other jobs
keep busy, wall-clock time moves with their load from round to round; CPU time moves
much less, and shows what recording costs in work: on a machine with a CPU to spare,
the writer's compression (zlib, which runs without the GIL) overlaps the informer and
costs little wall-clock time; with no CPU to spare it costs its CPU time in full, and
on a VM whose CPUs slow each other (the machine-check row, benchmarks/vcpu_check.py)
it also slows the informer's own threads while it runs beside them.
"""

from __future__ import annotations

import contextlib
import gc
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from benchmarks import vcpu_check
from benchmarks.bench_informer import counting_handler, make_stream, replay_process
from benchmarks.harness import Result
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import config_from_dict
from kubenb.client.dynamic import DynamicClient
from kubenb.recording import Recorder, Recording, ResourceSpec

PODS = ResourceSpec("v1", "pods", "Pod", True, "default")
#: path -> the Recorder's compresslevel (None: no recorder)
PATHS = {"not recorded": None, "gzip": 1, "plain lines": 0}


#: Makes the Recorder of one timed run (or None: not recorded), given where to write.
RecorderFactory = Callable[[], "Recorder | None"]


@contextlib.contextmanager
def firehose(events: int) -> Iterator[tuple[Path, Path, DynamicClient]]:
    """A temporary folder, a stream of `events` pod updates in it, and a client of a
    replay process serving that stream one event per chunk: what every timed run
    watches."""
    with tempfile.TemporaryDirectory(prefix="kubenb-bench-") as tmp:
        stream = Path(tmp) / "stream.jsonl"
        make_stream(stream, events)
        with replay_process(stream, per_event=True) as (url, _pid):
            dynamic = DynamicClient(config_from_dict({
                "clusters": [{"name": "r", "cluster": {"server": url}}],
                "users": [{"name": "r", "user": {}}],
                "contexts": [{"name": "r", "context": {"cluster": "r", "user": "r"}}],
                "current-context": "r"}))
            try:
                yield Path(tmp), stream, dynamic
            finally:
                dynamic.rest.close()


def timed_watch(dynamic: DynamicClient, events: int,
                make_recorder: RecorderFactory) -> tuple[float, float, float]:
    """Watch the stream to a handler until its last update, recorded by what
    `make_recorder` returns (started first, stopped last, inside the span): wall and
    process CPU seconds, and the recorder's writer CPU seconds."""
    handler, done = counting_handler(events)
    list_watch = ListWatch.from_client(dynamic.resource("v1", "pods"), namespace="default")
    gc.collect()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    recorder = make_recorder()
    if recorder is not None:
        list_watch = recorder.start().list_watcher(0, list_watch)  # type: ignore[assignment]
    informer = SharedIndexInformer(list_watch)
    informer.add_event_handler(handler)
    informer.start()
    try:
        assert done.wait(600)
        if recorder is not None:
            recorder.stop()
        return (time.perf_counter() - wall0, time.process_time() - cpu0,
                recorder.writer_cpu if recorder is not None else 0.0)
    finally:
        informer.stop()


def interleaved(dynamic: DynamicClient, events: int, rounds: int,
                paths: dict[str, RecorderFactory]) -> dict[str, list[tuple[float, float, float]]]:
    """`timed_watch` of every path, round after round, the order rotating."""
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in paths}
    order = list(paths)
    for r in range(rounds):
        for name in order[r % len(order):] + order[:r % len(order)]:
            runs[name].append(timed_watch(dynamic, events, paths[name]))
    return runs


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    events = max(1000, int(50_000 * scale))
    rounds = max(rounds, 5)
    with firehose(events) as (tmp, stream, dynamic):
        outputs = {"gzip": tmp / "recorded.jsonl.gz", "plain lines": tmp / "recorded.jsonl"}

        def recorder_of(name: str) -> RecorderFactory:
            level = PATHS[name]
            if level is None:
                return lambda: None
            return lambda: Recorder(outputs[name], [PODS], compresslevel=level)

        runs = interleaved(dynamic, events, rounds, {name: recorder_of(name) for name in PATHS})
        wall = {name: [w for w, _, _ in times] for name, times in runs.items()}
        cpu = {name: [c for _, c, _ in times] for name, times in runs.items()}
        writer = {name: [k for _, _, k in times] for name, times in runs.items()}
        base = "not recorded"
        label = f"watch {events} events to a handler, recorded"
        results = []
        for name, target in (("gzip", 0.9), ("plain lines", None)):
            for measure, times in (("", wall), (" [CPU time]", cpu)):
                results.append(Result(
                    f"{label} ({name}){measure}", events, min(times[name]),
                    f"the same informer, not recorded{measure}", min(times[base]),
                    target if not measure else None,
                    tuple(b / k for k, b in zip(times[name], times[base], strict=True))))
        if len(os.sched_getaffinity(0)) >= 2:
            # how much this machine's CPUs slow each other during this run: the writer's
            # compression runs beside the informer, on the other CPU
            results.append(vcpu_check.result(stream.read_bytes().splitlines()[:10_000],
                                             rounds))
        per = {name: statistics.median(cpu[name]) / events * 1e6 for name in PATHS}
        print(f"recording: CPU time of the process per event, median of {rounds} rounds: "
              + ", ".join(f"{name} {us:.0f} µs" for name, us in per.items())
              + "; of which the recorder's writer thread: "
              + ", ".join(f"{name} {statistics.median(writer[name]) / events * 1e6:.1f} µs"
                          for name in outputs))
        for name in outputs:
            ratios = [b / k for k, b in zip(wall[name], wall[base], strict=True)]
            print(f"recording ({name}): median of the rounds' wall-clock ratios "
                  f"{statistics.median(ratios):.2f}x")
        for name, output in outputs.items():
            recorded = Recording.read(output)
            size = output.stat().st_size
            count = sum(1 for e in recorded.entries if e.op == "event")
            print(f"recording ({name}): {count} events in {size / 1024:.0f} KiB on disk "
                  f"({size / max(count, 1):.0f} bytes per event; a pod is "
                  f"{stream.stat().st_size / events:.0f} bytes of JSON)")
        print()
    return results
