"""Helpers for the reactive tests: pods that exercise kubectl's columns, a seeded churn
over FakeSource, a running informer, waiting for a view to settle, comparing frames."""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd

from kubenb.cache.keys import meta_namespace_key_func
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.clock import FakeClock
from kubenb.reactive.view import ReactiveView
from tests.cache.fake_source import FakeSource
from tests.helpers import wait_until

#: Wall-clock "now" pinned for AGE columns (2026-11-22T12:00:00Z).
NOW = 1_795_348_800.0

PHASES = ("Pending", "Running", "Succeeded", "Failed")


def make_pod(rng: random.Random, name: str, namespace: str = "ns") -> dict[str, Any]:
    """A pod with random phase, readiness and restarts (what READY/STATUS/RESTARTS show)."""
    containers = [{"name": f"c{i}", "image": rng.choice(["nginx:1.27", "redis:7.4", "busybox"])}
                  for i in range(rng.randint(1, 2))]
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": namespace,
                        "creationTimestamp": f"2026-11-22T1{rng.randint(0, 1)}:"
                                             f"{rng.randint(10, 59)}:00Z",
                        "labels": {"app": rng.choice(["web", "api"])}},
           "spec": {"nodeName": rng.choice(["n1", "n2", ""]), "containers": containers}}
    mutate(rng, pod)
    return pod


def mutate(rng: random.Random, pod: dict[str, Any]) -> None:
    """Give `pod` a new random status."""
    pod["status"] = {
        "phase": rng.choice(PHASES),
        "containerStatuses": [
            {"name": c["name"], "ready": rng.random() < 0.6, "restartCount": rng.randint(0, 3),
             "state": {"running": {}}} for c in pod["spec"]["containers"]]}


def churn(source: FakeSource, rng: random.Random, n_ops: int, prefix: str = "p") -> None:
    """n seeded creates, updates and deletes through the source (so through watches)."""
    created = len(source.items)
    for _ in range(n_ops):
        keys = sorted(source.items)
        roll = rng.random()
        if not keys or roll < 0.35:
            created += 1
            source.add(make_pod(rng, f"{prefix}{created}", rng.choice(["ns", "other"])))
        elif roll < 0.85:
            pod = copy.deepcopy(source.items[rng.choice(keys)])
            mutate(rng, pod)
            source.modify(pod)
        else:
            source.delete(source.items[rng.choice(keys)])


@contextmanager
def running_informer(source: FakeSource, clock: FakeClock | None = None
                     ) -> Iterator[SharedIndexInformer]:
    informer = SharedIndexInformer(source, None, 0.0, clock=clock or FakeClock())
    informer.start()
    try:
        wait_until(informer.has_synced, what="informer sync")
        yield informer
    finally:
        informer.stop()


def cache_matches(informer: SharedIndexInformer, source: FakeSource) -> bool:
    ours = {meta_namespace_key_func(o): o["metadata"]["resourceVersion"]
            for o in informer.indexer.list()}
    theirs = {k: o["metadata"]["resourceVersion"] for k, o in list(source.items.items())}
    return ours == theirs


def settle(view: ReactiveView) -> None:
    """Wait until the view's listener has handed over everything, then apply it."""
    registration = view._registration
    if registration is not None:
        wait_until(lambda: registration.pending() == 0 and not registration.stats()["busy"],
                   what="the view's listener to go idle")
    view.flush()


def _plain(value: Any) -> Any:
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def normalize(df: pd.DataFrame) -> dict[Any, dict[str, Any]]:
    """Rows as plain {key: {column: value}}, NaN/NaT as None, dtypes forgotten."""
    rows = df.sort_index().astype(object).to_dict("index")
    return {key: {c: _plain(v) for c, v in row.items()} for key, row in rows.items()}
