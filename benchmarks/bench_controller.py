"""Reconcile throughput: keys through `Controller` with a no-op reconcile vs the bare workqueue.

The work is the same on both sides: N distinct keys are queued, W workers take each one,
"reconcile" it (nothing), `forget` it and mark it `done`, and the run ends once the queue
is drained and every worker has exited. The baseline is that loop written by hand over
the same kind of queue the controller uses (a named `RateLimitingQueue` with client-go's
default limiter, metrics on), so the ratio is the price of the runner itself: outcome
handling, per-controller metrics and durations, the idle bookkeeping, clean stop.
`run_until_idle` (the notebook path) is shown too, for information.

Then the whole of sample-controller (`kubenb.controller.samples.foo`) over the embedded
server: the time for N Foos (1000 at full scale), created before the controller starts,
to converge (each one's Deployment made, its status written by the `DeploymentSimulator`
stand-in with `pods=False`, and the Foo's status updated), as ratios against (a) the raw
workqueue pushing the same N keys through get/forget/done, and (b) the bare minimum of
HTTP that convergence needs: the same three writes per Foo (create the Deployment, write
its /status, write the Foo's /status) with `requests`, one after another. Only the
convergence is timed: the server, the CRD and the Foos are set up before the clock starts.
"""

from __future__ import annotations

import copy
import gc
import threading
import time
from typing import Any

import requests

import kubenb
from benchmarks.harness import Result, best_time, compare
from kubenb.controller import Controller
from kubenb.controller.samples import (
    GROUP_VERSION,
    DeploymentSimulator,
    install_foo_crd,
    new_deployment,
    new_foo,
    new_foo_controller,
)
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


def _cluster_with_foos(n: int) -> Any:
    """An embedded server serving the Foo CRD, with `n` Foos (replicas 1-3) in it; bare
    (no cluster controllers): the DeploymentSimulator writes the Deployments' status."""
    cluster = kubenb.embedded(controllers=False)
    install_foo_crd(cluster)
    foos = cluster.clientset.samplecontroller_v1alpha1().foos("default")
    for i in range(n):
        foos.create(new_foo(f"foo-{i:04d}", replicas=1 + i % 3))
    return cluster


def _foo_convergence_seconds(n: int, workers: int) -> float:
    """Seconds from `run()` until every Foo's status shows its replicas available."""
    with _cluster_with_foos(n) as cluster:
        controller = new_foo_controller(cluster, workers=workers, install_crd=False)
        simulator = DeploymentSimulator(cluster, pods=False, workers=workers)
        lister = controller.foos_lister

        def converged() -> bool:
            items = lister.list()
            return len(items) == n and all(
                (f.get("status") or {}).get("availableReplicas") == f["spec"]["replicas"]
                for f in items)

        gc.collect()
        start = time.perf_counter()
        simulator.run()
        controller.run()
        while not converged():
            time.sleep(0.005)
        elapsed = time.perf_counter() - start
        controller.close()
        simulator.stop()
    return elapsed


def _raw_http_writes_seconds(n: int) -> float:
    """The three writes per Foo that convergence needs, with plain `requests`."""
    with _cluster_with_foos(n) as cluster:
        base = cluster.server.url.rstrip("/")
        foos = cluster.clientset.samplecontroller_v1alpha1().foos("default").list()["items"]
        session = requests.Session()
        deployments = f"{base}/apis/apps/v1/namespaces/default/deployments"
        foos_url = f"{base}/apis/{GROUP_VERSION}/namespaces/default/foos"

        def work() -> None:
            for foo in foos:
                foo = {"apiVersion": GROUP_VERSION, "kind": "Foo", **foo}
                dep = session.post(deployments, json=new_deployment(foo)).json()
                replicas = foo["spec"]["replicas"]
                dep["status"] = {"replicas": replicas, "availableReplicas": replicas}
                session.put(f"{deployments}/{dep['metadata']['name']}/status", json=dep
                            ).raise_for_status()
                status = copy.deepcopy(foo)
                status["status"] = {"availableReplicas": replicas}
                session.put(f"{foos_url}/{foo['metadata']['name']}/status", json=status
                            ).raise_for_status()

        seconds = best_time(work, 1)
        session.close()
    return seconds


def foo_convergence(scale: float = 1.0, rounds: int = 3, workers: int = 4) -> list[Result]:
    """N Foos converging, against the raw workqueue and against raw HTTP writes."""
    n = max(100, int(1000 * scale))
    rounds = min(rounds, 2)  # a round of 1000 Foos takes tens of seconds
    foo_seconds = min(_foo_convergence_seconds(n, workers) for _ in range(rounds))
    queue_seconds = best_time(lambda: _run_workqueue(n, workers), rounds)
    http_seconds = min(_raw_http_writes_seconds(n) for _ in range(rounds))
    name = f"sample-controller: {n} Foos converge, {workers} workers"
    return [
        Result(name, n, foo_seconds, "workqueue get/forget/done", queue_seconds, None),
        Result(name, n, foo_seconds, "requests: the 3 writes per Foo", http_seconds, None),
    ]


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
    results.extend(foo_convergence(scale, rounds))  # informational: end to end
    return results
