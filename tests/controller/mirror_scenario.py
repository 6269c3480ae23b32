"""A ConfigMap → Secret mirror controller under random operations and server faults.

The controller (`kubenb.controller.Controller`, 3 workers) watches ConfigMaps and, through
`enqueue_owner("ConfigMap")`, the Secrets they own. For each ConfigMap labelled
`mirror=yes` it keeps a Secret `<name>-mirror` whose data is the ConfigMap's, controlled
by it; it deletes that Secret once the ConfigMap is gone or unlabelled. A reconcile that
raises is retried. The cluster is `kubenb.embedded()` with its defaults, so the garbage
collector runs too.

`run_scenario(seed)` makes 160 random operations (create, patch and relabel ConfigMaps,
delete them, delete or tamper with the Secrets) while the server fails 30% of one verb
with 500 or 429, drops every watch, and compacts its history, each at some point in the
run; then it clears the faults and waits for the cluster to converge. It returns what
was still wrong (nothing when it converged). `python -m tests.controller.mirror_scenario
--runs 200` repeats it.
"""

from __future__ import annotations

import argparse
import base64
import collections
import contextlib
import logging
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import kubenb
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.keys import DeletedFinalStateUnknown, split_meta_namespace_key
from kubenb.cluster import Cluster
from kubenb.controller import Controller, controller_of, enqueue_owner
from kubenb.errors import AlreadyExists, ApiError, NotFound

__all__ = ["MirrorController", "Outcome", "expected_secrets", "run_scenario"]

NS = "default"
LABEL = "mirror"


def _encoded(data: dict[str, str] | None) -> dict[str, str]:
    return {k: base64.b64encode(v.encode()).decode() for k, v in (data or {}).items()}


def _wanted(cm: dict[str, Any] | None) -> bool:
    return cm is not None and (cm["metadata"].get("labels") or {}).get(LABEL) == "yes"


class MirrorController:
    """The mirror controller over one cluster's shared informers."""

    def __init__(self, cluster: Cluster, workers: int = 3, trace: bool = False) -> None:
        self.cluster = cluster
        self.trace: collections.deque[str] | None = collections.deque(maxlen=5000) \
            if trace else None
        self.configmaps = cluster.informer("configmaps", namespace=NS)
        self.secret_informer = cluster.informer("secrets", namespace=NS)
        self.secrets = cluster.resource("secrets", namespace=NS)
        self.controller = Controller("mirror", self.reconcile, workers=workers)
        self.controller.watch(self.configmaps)
        self.controller.watch(self.secret_informer, enqueue_owner("ConfigMap"))
        if self.trace is not None:
            for informer, kind in ((self.configmaps, "cm"), (self.secret_informer, "secret")):
                informer.add_event_handler(ResourceEventHandlerFuncs(
                    on_add=lambda o, initial, k=kind: self._note(k, "add", o),
                    on_update=lambda old, new, k=kind: self._note(k, "update", new),
                    on_delete=lambda o, k=kind: self._note(k, "delete", o)))

    def _note(self, kind: str, what: str, obj: Any) -> None:
        assert self.trace is not None
        tomb = isinstance(obj, DeletedFinalStateUnknown)
        obj = obj.obj if tomb else obj
        m = obj.get("metadata") or {}
        ref = controller_of(obj) or {}
        self.trace.append(f"{time.monotonic():.3f} {kind} {what}{' (tombstone)' if tomb else ''}"
                          f" {m.get('name')} rv={m.get('resourceVersion')} uid="
                          f"{str(m.get('uid'))[:8]} owner={str(ref.get('uid'))[:8]} labels="
                          f"{m.get('labels')} data={obj.get('data')}")

    def _say(self, key: str, text: str) -> None:
        if self.trace is not None:
            self.trace.append(f"{time.monotonic():.3f} reconcile {key}: {text}")

    def reconcile(self, key: str) -> None:
        _, name = split_meta_namespace_key(key)
        cm = self.configmaps.get_indexer().get_by_key(key)
        mirror = f"{name}-mirror"
        secret = self.secret_informer.get_indexer().get_by_key(f"{NS}/{mirror}")
        cm_rv = None if cm is None else cm["metadata"]["resourceVersion"]
        secret_rv = None if secret is None else secret["metadata"]["resourceVersion"]
        self._say(key, f"cm={cm_rv} secret={secret_rv}")
        if not _wanted(cm):
            if secret is not None:
                with contextlib.suppress(NotFound):
                    self.secrets.delete(mirror)
                self._say(key, "deleted")
            return
        assert cm is not None
        owner = {"apiVersion": "v1", "kind": "ConfigMap", "name": name,
                 "uid": cm["metadata"]["uid"], "controller": True,
                 "blockOwnerDeletion": True}
        desired = {"apiVersion": "v1", "kind": "Secret",
                   "metadata": {"name": mirror, "namespace": NS, "ownerReferences": [owner]},
                   "data": _encoded(cm.get("data"))}
        if secret is None:
            try:
                self.secrets.create(desired)
            except AlreadyExists:
                raise  # the cache has not seen it yet: retried once it has
            self._say(key, "created")
            return
        ref = controller_of(secret) or {}
        if ref.get("uid") != owner["uid"] or (secret.get("data") or {}) != desired["data"]:
            desired["metadata"]["resourceVersion"] = secret["metadata"]["resourceVersion"]
            self.secrets.update(desired)
            self._say(key, "updated")
        else:
            self._say(key, "in step")


def expected_secrets(cluster: Cluster) -> dict[str, tuple[str, dict[str, str]]]:
    """Secret name -> (owner uid, data) that the server's ConfigMaps ask for now."""
    cms = cluster.resource("configmaps", namespace=NS).list()["items"]
    return {f"{cm['metadata']['name']}-mirror": (cm["metadata"]["uid"], _encoded(cm.get("data")))
            for cm in cms if _wanted(cm)}


def _differences(cluster: Cluster) -> list[str]:
    want = expected_secrets(cluster)
    have = {s["metadata"]["name"]: s for s in cluster.resource("secrets", namespace=NS)
            .list()["items"] if s["metadata"]["name"].endswith("-mirror")}
    wrong = []
    for name, (uid, data) in sorted(want.items()):
        secret = have.get(name)
        if secret is None:
            wrong.append(f"{name}: missing")
        elif (controller_of(secret) or {}).get("uid") != uid:
            wrong.append(f"{name}: owned by another uid")
        elif (secret.get("data") or {}) != data:
            wrong.append(f"{name}: data differs")
    wrong += [f"{name}: should not exist" for name in sorted(set(have) - set(want))]
    return wrong


@dataclass
class Outcome:
    """What a run left wrong after the deadline (nothing: it converged), and why."""

    seed: int
    wrong: list[str] = field(default_factory=list)
    diagnosis: list[str] = field(default_factory=list)
    converged_after: float = 0.0


def _operate(cluster: Cluster, rng: random.Random, names: list[str],
             note: Any = None) -> None:
    cms = cluster.resource("configmaps", namespace=NS)
    secrets = cluster.resource("secrets", namespace=NS)
    name = rng.choice(names)
    op = rng.choice(["create", "create", "patch", "relabel", "relabel", "delete",
                     "delete-secret", "tamper-secret"])
    if note is not None:
        note.append(f"{time.monotonic():.3f} load {op} {name} ")
    with contextlib.suppress(ApiError):  # the faults fail the load's requests too
        if op == "create":
            labels = {LABEL: rng.choice(["yes", "yes", "no"])}
            cms.create({"metadata": {"name": name, "labels": labels},
                        "data": {"v": str(rng.randrange(1000))}})
        elif op == "patch":
            cms.patch(name, {"data": {"v": str(rng.randrange(1000))}})
        elif op == "relabel":
            cms.patch(name, {"metadata": {"labels": {LABEL: rng.choice(["yes", "no"])}}})
        elif op == "delete":
            cms.delete(name)
        elif op == "delete-secret":
            secrets.delete(f"{name}-mirror")
        else:
            secrets.patch(f"{name}-mirror", {"data": {"v": "dGFtcGVyZWQ="}})


def run_scenario(seed: int, operations: int = 160, deadline: float = 60.0,
                 trace: bool = False) -> Outcome:
    """One run (see the module docstring)."""
    rng = random.Random(seed)
    names = [f"cm-{i}" for i in range(12)]
    outcome = Outcome(seed)
    with kubenb.embedded() as cluster:
        assert cluster.server is not None
        faults = cluster.server.faults
        mirror = MirrorController(cluster, trace=trace)
        mirror.controller.run()
        moments = sorted(rng.sample(range(operations), 3))
        failing = rng.choice(["create", "update", "patch", "delete", "list", "watch", "get"])
        for i in range(operations):
            note = mirror.trace.append if mirror.trace is not None else None
            if i == moments[0]:
                faults.fail(verb=failing, fraction=0.3, code=rng.choice([500, 429]),
                            seed=seed)
                if note:
                    note(f"{time.monotonic():.3f} fault fail {failing} ")
            if i == moments[1]:
                faults.drop_watches()
                if note:
                    note(f"{time.monotonic():.3f} fault drop watches ")
            if i == moments[2]:
                faults.compact()
                if note:
                    note(f"{time.monotonic():.3f} fault compact ")
            _operate(cluster, rng, names, mirror.trace)
        faults.clear()
        started = time.monotonic()
        wrong = _differences(cluster)
        while wrong and time.monotonic() - started < deadline:
            time.sleep(0.2)
            wrong = _differences(cluster)
        outcome.converged_after = time.monotonic() - started
        outcome.wrong = wrong
        if wrong:
            outcome.diagnosis = _diagnose(mirror, wrong)
        mirror.controller.stop()
    return outcome


def _diagnose(mirror: MirrorController, wrong: list[str]) -> list[str]:
    """Where each wrong key stands in the controller: queued, waiting, in flight, cached."""
    queue = mirror.controller.current_queue
    snapshot = queue.snapshot() if queue is not None else None
    lines = [f"queue: {snapshot}", f"metrics: {mirror.controller.metrics()}",
             f"recent errors: {mirror.controller.recent_errors()[-5:]}"]
    for line in wrong:
        secret = line.split(":")[0]
        key = f"{NS}/{secret.removesuffix('-mirror')}"
        cm = mirror.configmaps.get_indexer().get_by_key(key)
        cached = mirror.secret_informer.get_indexer().get_by_key(f"{NS}/{secret}")
        lines.append(f"{line}: cached cm={None if cm is None else cm['metadata']} "
                     f"cached secret={None if cached is None else cached['metadata']}")
        name = key.split("/")[1]
        lines += [t for t in mirror.trace or () if f" {name} " in t or f" {name}-mirror " in t
                  or f"/{name}:" in t or " fault " in t]
    for informer, what in ((mirror.configmaps, "cm"), (mirror.secret_informer, "secret")):
        stats = informer.stats()["reflector"]
        lines.append(f"{what} reflector: " + ", ".join(
            f"{k}={v}" for k, v in sorted(stats.items()) if k != "last_error"))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--same-seed", action="store_true", help="repeat one seed")
    parser.add_argument("--trace", action="store_true", help="print a failing key's events")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.CRITICAL)  # the faults make every informer complain
    failures = 0
    for run in range(args.runs):
        seed = args.seed if args.same_seed else args.seed + run
        outcome = run_scenario(seed, trace=args.trace)
        status = "ok" if not outcome.wrong else "FAILED"
        print(f"run {run} seed {seed}: {status} after {outcome.converged_after:.1f}s",
              flush=True)
        if outcome.wrong:
            failures += 1
            for line in outcome.wrong + outcome.diagnosis:
                print("   ", line, flush=True)
    print(f"{failures} of {args.runs} runs did not converge", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
