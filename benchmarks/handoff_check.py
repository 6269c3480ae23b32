"""What does handing work from one Python thread to another cost on this machine? A
control for reading the per-event watch rows.

`python -m benchmarks.handoff_check` decodes the same pod watch lines (msgspec) and
keeps each object in a dict, replacing the one before it, in three ways, interleaved:
on one thread; decoded on one thread and kept by a second, handed over in batches of
up to 64 (what an informer's Pacer allows); and the same two threads both held on one
CPU. The collector is off during each pass: what it costs a hand-off is the Pacer's
business (docs/informers.md), not this check's. No kubenb code runs in what is timed.

Why: an informer has to hand each event from the thread that reads the watch to the
threads that apply it and call handlers (client-go's shape: a slow handler never stops
the cache). Under CPython's GIL those threads take turns, never run Python at once, so
two threads can be no faster than one; what they cost beyond it is the machine's (on
a 2-vCPU VM, 1.4x-1.8x the CPU of one thread: docs/performance.md, "Where the watch
time goes"). When the informer's watch rows fall short of the raw one-thread reader,
this row says how much of that any two-thread Python pipeline pays here.
"""

from __future__ import annotations

import collections
import gc
import os
import statistics
import threading
import time
from collections.abc import Callable

import msgspec

from benchmarks.harness import Result
from kubenb.cache.affinity import pinned

BATCH = 64

_decode = msgspec.json.Decoder().decode


def one_thread(lines: list[bytes]) -> dict[str, object]:
    kept: dict[str, object] = {}
    for line in lines:
        obj = _decode(line)["object"]
        kept[obj["metadata"]["name"]] = obj
    return kept


def two_threads(lines: list[bytes], batch: int = BATCH) -> dict[str, object]:
    """Decode here, keep on a second thread; this one waits while `batch` are queued."""
    kept: dict[str, object] = {}
    queue: collections.deque[dict] = collections.deque()
    ready = threading.Condition()
    finished = False

    def keep() -> None:
        while True:
            with ready:
                while not queue and not finished:
                    ready.wait()
                if not queue:
                    return
                taken = list(queue)
                queue.clear()
                ready.notify()
            for obj in taken:
                kept[obj["metadata"]["name"]] = obj
            del taken

    keeper = threading.Thread(target=keep, name="handoff-check-keeper")
    keeper.start()
    try:
        for line in lines:
            obj = _decode(line)["object"]
            with ready:
                queue.append(obj)
                if len(queue) == 1:
                    ready.notify()
                while len(queue) > batch:
                    ready.wait()
    finally:
        with ready:
            finished = True
            ready.notify()
        keeper.join()
    return kept


def _on_one_cpu(work: Callable[[list[bytes]], object]) -> Callable[[list[bytes]], object]:
    """`work` with this thread, and the threads it starts, held on one allowed CPU
    (kubenb's `pinned`, which gives the thread its own CPUs back: setup, not measured)."""
    def on_one_cpu(lines: list[bytes]) -> object:
        with pinned(min(os.sched_getaffinity(0))):
            return work(lines)
    return on_one_cpu


def _cpu_per_line(work: Callable[[list[bytes]], object], lines: list[bytes]) -> float:
    """Process CPU seconds per line for one pass, the collector off."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        work(lines)
        return (time.process_time() - start) / len(lines)
    finally:
        if was_enabled:
            gc.enable()


def check(lines: list[bytes], rounds: int = 5) -> dict[str, list[float]]:
    """CPU per line of each way, interleaved round by round."""
    ways: dict[str, Callable[[list[bytes]], object]] = {"one thread": one_thread,
                                                       "two threads": two_threads}
    if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2:
        ways["two threads, one CPU"] = _on_one_cpu(two_threads)
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(rounds):
        for name, work in ways.items():
            times[name].append(_cpu_per_line(work, lines))
    return times


def results(lines: list[bytes], rounds: int) -> list[Result]:
    """The check as rows (best of rounds): ratios below 1 are what a thread hand-off
    costs on this machine, during this run, against doing the same work on one thread."""
    times = check(lines, max(rounds, 3))
    base = times["one thread"]
    rows = []
    for name in ("two threads", "two threads, one CPU"):
        if name in times:
            rows.append(Result(
                f"machine check, no kubenb code: decode then keep, {name} "
                f"(hand-offs of {BATCH}), CPU time", len(lines), min(times[name]) * len(lines),
                "both on one thread", min(base) * len(lines), None,
                tuple(b / k for k, b in zip(times[name], base, strict=True))))
    return rows


def main() -> None:
    from benchmarks.bench_watch import _pods

    lines = []
    pods = _pods(1000)
    for i in range(20_000):
        pod = pods[i % len(pods)]
        pod["metadata"]["resourceVersion"] = str(100 + i)
        lines.append(msgspec.json.encode({"type": "MODIFIED", "object": pod}))
    for name, per_line in check(lines).items():
        print(f"{name}: median {statistics.median(per_line) * 1e6:.1f} µs of CPU an event "
              f"({', '.join(f'{t * 1e6:.1f}' for t in per_line)})")


if __name__ == "__main__":
    main()
