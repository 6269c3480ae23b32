"""Reconcile throughput: keys through `Controller` with a no-op reconcile vs the bare workqueue.

The work is the same on both sides: N distinct keys are queued, W workers take each one,
"reconcile" it (nothing), `forget` it and mark it `done`, and the run ends once the queue
is drained and every worker has exited. The baseline is that loop written by hand over
the same kind of queue the controller uses (a named `RateLimitingQueue` with client-go's
default limiter, metrics on), so the ratio is the price of the runner itself: outcome
handling, per-controller metrics and durations, the idle bookkeeping, clean stop.
`run_until_idle` (the notebook path) is shown too, for information.
"""

from __future__ import annotations

import threading

from benchmarks.harness import Result, compare
from kubenb.controller import Controller
from kubenb.workqueue import RateLimitingQueue

TARGET = 0.5


def _noop(key: str) -> None:
    return None


def _run_controller(items: int, workers: int) -> None:
    ctrl = Controller("bench-controller", _noop, workers=workers)
    for i in range(items):
        ctrl.enqueue(f"ns/obj-{i}")
    ctrl.run()
    ctrl.stop()  # drains the queue, then joins every worker
    assert ctrl.metrics().reconciles == items


def _run_controller_until_idle(items: int, workers: int) -> None:
    ctrl = Controller("bench-controller-idle", _noop, workers=workers)
    for i in range(items):
        ctrl.enqueue(f"ns/obj-{i}")
    done = ctrl.run_until_idle(timeout=600, quiet=0)
    ctrl.stop()
    assert done == items


def _run_workqueue(items: int, workers: int) -> None:
    q = RateLimitingQueue(name="bench-controller-raw")
    for i in range(items):
        q.add(f"ns/obj-{i}")

    def worker() -> None:
        while True:
            key, shutdown = q.get()
            if shutdown:
                return
            _noop(key)
            q.forget(key)
            q.done(key)

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    q.shut_down_with_drain()
    q.shut_down()  # workers drain what is queued, then see shutdown
    for t in threads:
        t.join()


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    items = max(1000, int(50_000 * scale))
    results = []
    for workers in (1, 4):
        plural = "s" if workers > 1 else ""
        results.append(compare(
            f"controller no-op reconcile, {workers} worker{plural}", items,
            lambda w=workers: _run_controller(items, w),
            "workqueue get/forget/done", lambda w=workers: _run_workqueue(items, w),
            rounds, TARGET))
    results.append(compare(
        "controller run_until_idle, 4 workers", items,
        lambda: _run_controller_until_idle(items, 4),
        "workqueue get/forget/done", lambda: _run_workqueue(items, 4),
        rounds, None))  # informational: the notebook path polls instead of blocking
    return results
