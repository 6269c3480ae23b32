"""Informer sync from a server that is not the bottleneck: list -> synced cache.

The replay server (benchmarks/replay_server.py) answers the list with the bytes of N
realistic pods at once and a watch-list (`sendInitialEvents=true`) with N ADDED
events, each its own chunk, then the initial-events-end bookmark, over TLS, as a real
kube-apiserver frames them. The embedded server would spend longer encoding 100k pods
than the client decoding them: this measures the client.

Rows, same run, interleaved, ratios of throughput (higher is better):
- kubenb `SharedIndexInformer` start -> `has_synced()` against the raw minimum
  (`requests` GET + `json.loads` of the same list): target >= 1/0.7 (sync in at most
  0.7x the raw list's time). client-go's informer takes 1.35x-2.1x the raw list's
  time against a real API server on the same kind of machine (docs/performance.md):
  2.5x faster than client-go is about 0.54x-0.85x of raw, the same bar;
- the same informer with `use_watch_list=True` against the paged list (target >= 1x:
  at least as fast);
- cost per pod from the smaller to the 10x larger list (a row of its own: the time
  ratio should stay <= 11x), and the same for the process's user CPU time and kernel
  time apart (`getrusage`, best round each). The split says whose cost grows: decoding
  a list takes fresh memory (~7 page faults per pod, at either size), and on a VM a
  fault can cost several times more at 100k pods than at 10k while the user CPU time
  per pod stays flat (docs/performance.md, "Big lists and page faults"). A last row
  (benchmarks/fault_check.py) times a page fault in fresh memory of about each cache's
  size, with no kubenb code: the machine's part of that row.
"""

from __future__ import annotations

import json
import logging
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import requests

from benchmarks import fault_check
from benchmarks.bench_watch import _client, _pods, replay
from benchmarks.harness import Result, compare
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.dynamic import DynamicClient

INITIAL_EVENTS_END = "k8s.io/initial-events-end"
#: Megabytes a synced cache of 1,000 of these pods takes (38.5 KB a pod, measured).
MB_PER_1K_PODS = 40


def write_files(folder: Path, n: int) -> tuple[Path, Path]:
    """(list file, watch-list stream file) for `n` pods."""
    pods = _pods(n)
    for i, pod in enumerate(pods):
        pod["metadata"]["resourceVersion"] = str(10 + i)
    rv = str(10 + n)
    listing, stream = folder / f"list-{n}.json", folder / f"watch-list-{n}.jsonl"
    with listing.open("wb") as out:
        out.write(json.dumps({"kind": "PodList", "apiVersion": "v1",
                              "metadata": {"resourceVersion": rv}, "items": pods},
                             separators=(",", ":")).encode())
    with stream.open("wb") as out:
        for pod in pods:
            out.write(json.dumps({"type": "ADDED", "object": pod},
                                 separators=(",", ":")).encode() + b"\n")
        out.write(json.dumps({"type": "BOOKMARK", "object": {
            "kind": "Pod", "apiVersion": "v1", "metadata": {
                "resourceVersion": rv, "annotations": {INITIAL_EVENTS_END: "true"}}}},
            separators=(",", ":")).encode() + b"\n")
    return listing, stream


def _cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def _sync(dynamic: DynamicClient, n: int, cpu: list[tuple[float, float]] | None = None,
          namespace: str = "default", label_selector: str | None = None,
          **options: object) -> Callable[[], float]:
    """A timed sync of the `n` pods in `namespace` (that `label_selector` selects); with
    `cpu`, each round's (user, kernel) seconds are appended to it."""
    def go() -> float:
        user, kernel = _cpu()
        started = time.perf_counter()
        informer = SharedIndexInformer(ListWatch.from_client(
            dynamic.resource("v1", "pods"), namespace=namespace,
            label_selector=label_selector), **options).start()
        try:
            deadline = started + 600
            while not informer.has_synced():
                if time.perf_counter() > deadline:
                    raise TimeoutError("the informer did not sync")
                time.sleep(0.001)
            took = time.perf_counter() - started
            if cpu is not None:
                now_user, now_kernel = _cpu()
                cpu.append((now_user - user, now_kernel - kernel))
            assert len(informer.get_indexer().list_keys()) == n
        finally:
            informer.stop()
        return took
    return go


def sync_rows(folder: Path, n: int, rounds: int
              ) -> tuple[list[Result], float, list[tuple[float, float]]]:
    listing, stream = write_files(folder, n)
    with replay(stream, listing, folder) as (url, ca_file):
        dynamic = _client(url, ca_file)
        session = requests.Session()
        session.trust_env = False  # REQUESTS_CA_BUNDLE would override verify
        session.verify = ca_file
        pods_url = url + "/api/v1/namespaces/default/pods"

        def raw_list() -> None:
            assert len(json.loads(session.get(pods_url).content)["items"]) == n

        label = f"informer sync {n} pods (TLS, server not the bottleneck)"
        cpu: list[tuple[float, float]] = []
        paged = _sync(dynamic, n, cpu)
        rows = [compare(label, n, paged, "requests+json.loads", raw_list, rounds,
                        target_ratio=1 / 0.7),
                compare(f"informer sync {n} pods, watch-list", n,
                        _sync(dynamic, n, use_watch_list=True), "kubenb paged list",
                        paged, rounds, target_ratio=1.0)]
        session.close()
        dynamic.rest.close()
    listing.unlink()
    stream.unlink()
    return rows, rows[0].kubenb_seconds, cpu


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    # The replay server's watch ends after the stream; the informer's next watch then
    # gets nothing and says so. Not what is measured.
    logging.getLogger("kubenb").setLevel(logging.ERROR)
    sizes = [max(500, int(n * scale)) for n in (5_000, 10_000, 20_000, 100_000)]
    results: list[Result] = []
    seconds = {}
    cpu = {}
    with tempfile.TemporaryDirectory(prefix="kubenb-bench-sync-") as tmp:
        for n in sizes:
            rows, seconds[n], cpu[n] = sync_rows(Path(tmp), n,
                                                 rounds if n < 50_000 else min(2, rounds))
            results += rows
    # Cost per pod from 10k to 100k pods: the baseline is the 10k sync scaled up 10x, so
    # 1.0x is perfectly flat and the target (at most 11x the time) is 10/11.
    small, large = sizes[1], sizes[-1]
    results.append(Result(f"informer sync cost per pod, {large} vs {small} pods", large,
                          seconds[large], f"{small} pods' time x {large // small}",
                          seconds[small] * large / small, target_ratio=10 / 11))
    for part, name, target in ((0, "user CPU", 10 / 11), (1, "kernel time", None)):
        results.append(Result(
            f"informer sync {name} per pod, {large} vs {small} pods", large,
            min(c[part] for c in cpu[large]), f"{small} pods' {name} x {large // small}",
            min(c[part] for c in cpu[small]) * large / small, target_ratio=target))
    # The same step in fresh memory with no kubenb code: what a page fault costs at
    # about the memory each sync takes (a cached pod is ~40 KB: MB_PER_1K_PODS).
    results.append(fault_check.result(small * MB_PER_1K_PODS // 1000,
                                      large * MB_PER_1K_PODS // 1000))
    return results
