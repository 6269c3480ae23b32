"""Workqueue throughput: add/get/done through kubenb's Queue vs `queue.Queue`.

The work is the same on both sides: one producer adds N distinct items while
W worker threads take each item and mark it done, then the queue is shut down and
the workers exit. A named queue also records client-go's metrics (depth, adds,
latency, work duration), which a controller normally has on. `queue.Queue`
(put/get/task_done) is the floor: it does no de-duplication and keeps no processing
set, which the workqueue must.
"""

from __future__ import annotations

import queue
import threading

from benchmarks.harness import Result, compare
from kubenb.workqueue.queue import Queue

TARGET = 0.5


def _run_kubenb(items: int, workers: int, name: str = "") -> None:
    q = Queue(name)

    def worker() -> None:
        while True:
            item, shutdown = q.get()
            if shutdown:
                return
            q.done(item)

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    for i in range(items):
        q.add(i)
    q.shut_down_with_drain()
    q.shut_down()
    for t in threads:
        t.join()


_STOP = object()


def _run_baseline(items: int, workers: int) -> None:
    q: queue.Queue = queue.Queue()

    def worker() -> None:
        while True:
            item = q.get()
            q.task_done()
            if item is _STOP:
                return

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    for i in range(items):
        q.put(i)
    for _ in threads:
        q.put(_STOP)
    for t in threads:
        t.join()


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    items = max(1000, int(100_000 * scale))
    results = []
    for workers in (1, 4):
        results.append(
            compare(
                f"workqueue add/get/done, {workers} worker{'s' if workers > 1 else ''}",
                items,
                lambda w=workers: _run_kubenb(items, w),
                "queue.Queue",
                lambda w=workers: _run_baseline(items, w),
                rounds,
                TARGET,
            )
        )
    results.append(
        compare(
            "workqueue add/get/done, 4 workers, named (metrics on)",
            items,
            lambda: _run_kubenb(items, 4, "bench"),
            "queue.Queue",
            lambda: _run_baseline(items, 4),
            rounds,
            None,  # informational: the target is for the bare queue
        )
    )
    return results
