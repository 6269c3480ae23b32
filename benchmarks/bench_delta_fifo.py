"""DeltaFIFO add+pop throughput vs a plain dict + deque doing the same bookkeeping.

Both sides take N pod-shaped dicts, key each one as "namespace/name", append an
("Added", obj) delta under its key (queueing the key the first time it is seen), then
pop every key in order and hand its deltas to a no-op process function. A second row
updates every key three times before popping, so deltas accumulate per key.
"""

from __future__ import annotations

from collections import deque

from benchmarks.harness import Result, compare
from kubenb.cache.delta_fifo import DeltaFIFO

TARGET = 0.3


def _pods(n: int) -> list[dict]:
    return [
        {"metadata": {"name": f"pod-{i}", "namespace": f"ns-{i % 10}", "resourceVersion": str(i)}}
        for i in range(n)
    ]


def _noop(deltas, is_in_initial_list) -> None:
    return None


def _run_kubenb(objs: list[dict], updates: int) -> None:
    fifo = DeltaFIFO()
    for obj in objs:
        fifo.add(obj)
    for _ in range(updates):
        for obj in objs:
            fifo.update(obj)
    for _ in range(len(objs)):
        fifo.pop(_noop)


def _run_baseline(objs: list[dict], updates: int) -> None:
    items: dict[str, list] = {}
    order: deque[str] = deque()

    def enqueue(kind: str, obj: dict) -> None:
        meta = obj["metadata"]
        ns = meta.get("namespace")
        key = f"{ns}/{meta['name']}" if ns else meta["name"]
        deltas = items.get(key)
        if deltas is None:
            items[key] = [(kind, obj)]
            order.append(key)
        else:
            deltas.append((kind, obj))

    for obj in objs:
        enqueue("Added", obj)
    for _ in range(updates):
        for obj in objs:
            enqueue("Updated", obj)
    while order:
        key = order.popleft()
        _noop(items.pop(key), False)


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    objs = _pods(max(1000, int(100_000 * scale)))
    results = []
    for updates in (0, 3):
        ops = len(objs) * (1 + updates)
        label = "DeltaFIFO add+pop" if not updates else f"DeltaFIFO add+{updates} updates+pop"
        results.append(
            compare(
                label,
                ops,
                lambda u=updates: _run_kubenb(objs, u),
                "dict+deque",
                lambda u=updates: _run_baseline(objs, u),
                rounds,
                TARGET,
            )
        )
    return results
