"""Convergence under chaos: informers over real HTTP while the server churns and misbehaves.

For each seed: churn creates, updates and deletes configmaps and pods
in bursts as fast as the server takes them. Between bursts the server drops every watch,
compacts its history (so resumes get 410 and the Reflector relists), fails a fraction of
list calls with 500 and adds latency. Then the churn stops, the faults are cleared,
and every informer's cache must come to equal the server's state (the deadline,
CONVERGENCE_DEADLINE, is generous: it catches a cache that never converges, not a slow
machine; how fast churn runs is a benchmark's business, not this test's). Every handler
must also have seen, for each key, only increasing resourceVersions (an unchanged
object re-sent after a relist keeps its own), and a delete (or
a tombstone) for every object that is gone. Its own replay of the events must equal
the server's state. No thread may be left behind.

The Reflector's backoff is shortened here (50 ms doubling to 400 ms instead of 800 ms
to 30 s), so that a run's length depends on convergence, not the backoff schedule.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from kubenb.cache import DeletedFinalStateUnknown, ResourceEventHandlerFuncs
from kubenb.cache.backoff import ExponentialBackoff
from kubenb.cache.factory import SharedInformerFactory
from kubenb.client.config import load_config
from kubenb.cluster import Cluster
from kubenb.server import EmbeddedServer
from tests.helpers import assert_no_new_threads

pytestmark = pytest.mark.slow

SEEDS = range(50)
CONVERGENCE_DEADLINE = 30.0  # seconds; a converging run takes well under one
KINDS = ("configmaps", "pods")


def key_of(obj: Any) -> str:
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    meta = obj["metadata"]
    return f"{meta['namespace']}/{meta['name']}"


class RecordingHandler:
    """Replays what it is told into its own view and checks per-key RV order."""

    def __init__(self) -> None:
        self.view: dict[str, str] = {}
        self.last_rv: dict[str, int] = {}
        self.problems: list[str] = []
        self.deletes = 0
        self.lock = threading.Lock()

    def _saw(self, key: str, rv: str, resync: bool = False) -> None:
        value = int(rv)
        last = self.last_rv.get(key)
        if last is not None and (value < last or (value == last and not resync)):
            self.problems.append(f"{key}: resourceVersion went from {last} to {value}")
        self.last_rv[key] = value

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        with self.lock:
            key = key_of(obj)
            self._saw(key, obj["metadata"]["resourceVersion"])
            self.view[key] = obj["metadata"]["resourceVersion"]

    def on_update(self, old: Any, new: Any) -> None:
        with self.lock:
            key = key_of(new)
            # After a relist, an unchanged object comes as an update with the same RV
            # (a sync notification: client-go sends it to listeners marked syncing,
            # which every listener is when the informer never resyncs).
            same = old["metadata"]["resourceVersion"] == new["metadata"]["resourceVersion"]
            self._saw(key, new["metadata"]["resourceVersion"], resync=same)
            self.view[key] = new["metadata"]["resourceVersion"]

    def on_delete(self, obj: Any) -> None:
        with self.lock:
            self.deletes += 1
            self.view.pop(key_of(obj), None)


def server_state(server: EmbeddedServer, kind: str) -> dict[str, str]:
    rtype = server.types.lookup("", "v1", kind)
    items = server.registry.list(rtype, None, {})["items"]
    return {key_of(o): o["metadata"]["resourceVersion"] for o in items}


def cache_state(informer: Any) -> dict[str, str]:
    return {key_of(o): o["metadata"]["resourceVersion"]
            for o in informer.get_indexer().list()}


def differences(cache: dict[str, str], server: dict[str, str]) -> str:
    """What a failing run needs to say: which keys are missing, extra or stale."""
    missing = sorted(set(server) - set(cache))
    extra = sorted(set(cache) - set(server))
    stale = sorted(f"{k} at {cache[k]}, server {server[k]}"
                   for k in set(cache) & set(server) if cache[k] != server[k])
    return f"missing {missing[:5]}, extra {extra[:5]}, stale {stale[:5]}"


@pytest.mark.parametrize("seed", SEEDS)
def test_informers_converge_under_churn_and_faults(seed: int) -> None:
    rng = random.Random(seed)
    queue = "RealFIFO" if seed % 2 else "DeltaFIFO"
    before = set(threading.enumerate())
    server = EmbeddedServer(history_window=300, bookmark_interval=0.2).start()
    cluster = Cluster(load_config(str(server.kubeconfig_path)), server=server,
                      max_retries=1, retry_backoff=0.01)
    cluster.factory = SharedInformerFactory(
        cluster.dynamic, queue=queue,
        backoff=ExponentialBackoff(initial=0.05, cap=0.4, rand=random.Random(seed)))
    handlers: dict[str, RecordingHandler] = {}
    try:
        churn = server.churn(rate=0, kinds=KINDS, seed=seed, max_objects=40)
        churn.run(30)  # some objects exist before the informers start
        informers = {}
        for kind in KINDS:
            informers[kind] = cluster.informer(kind, timeout=10)
            handlers[kind] = RecordingHandler()
            informers[kind].add_event_handler(ResourceEventHandlerFuncs(
                on_add=handlers[kind].on_add, on_update=handlers[kind].on_update,
                on_delete=handlers[kind].on_delete))

        for _ in range(6):
            churn.run(rng.randint(40, 80))
            fault = rng.choice(["drop", "compact", "fail", "latency", "none"])
            if fault == "drop":
                server.faults.drop_watches()
            elif fault == "compact":
                server.faults.compact()
                server.faults.drop_watches()
            elif fault == "fail":
                server.faults.fail(verb="list", fraction=0.3, code=500, seed=seed)
            elif fault == "latency":
                server.faults.latency(0.005, verb="watch")
            time.sleep(0.02)  # let the informers see part of the mess
        server.faults.clear()

        deadline = time.monotonic() + CONVERGENCE_DEADLINE
        while True:
            states = {kind: server_state(server, kind) for kind in KINDS}
            converged = all(cache_state(informers[k]) == states[k]
                            and handlers[k].view == states[k] for k in KINDS)
            if converged or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        for kind in KINDS:
            cache = cache_state(informers[kind])
            if cache != states[kind]:
                pytest.fail(f"{kind} cache still differs {CONVERGENCE_DEADLINE:.0f} s after "
                            f"the churn: {differences(cache, states[kind])}; "
                            f"{informers[kind].stats()}")
            with handlers[kind].lock:
                assert handlers[kind].view == states[kind], f"{kind} handler view differs"
                assert handlers[kind].problems == []
        assert sum(h.deletes for h in handlers.values()) > 0  # deletions did reach handlers
    finally:
        cluster.close()
    assert_no_new_threads(before, grace=5.0)
