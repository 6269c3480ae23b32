"""Leader election with a coordination.k8s.io/v1 Lease on the embedded server, timed by a
FakeClock: acquire, renew, release on stop, lose on renew failure, and two controllers
of which exactly one reconciles at a time."""

from __future__ import annotations

import random
import threading

import pytest

from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.controller import (
    Controller,
    EventBroadcaster,
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElectionRecord,
    LeaderElector,
    LeaseLock,
)
from kubenb.controller.leaderelection import LeaderElectionConfigError, micro_time
from kubenb.errors import KubenbError
from tests.controller.conftest import realapi, wait_parked
from tests.helpers import wait_until

LOCK = "demo-controller"


def lease(cluster: Cluster) -> dict:
    return cluster.resource("leases").get(LOCK)


def test_record_round_trips_the_lease_spec_of_a_real_server() -> None:
    spec = realapi("objects/lease-create.json")["response"]["body"]["spec"]
    record = LeaderElectionRecord.from_lease_spec(spec)
    assert record.holder_identity == "kubenb-controller-1"
    assert record.lease_duration_seconds == 15
    assert record.to_lease_spec() == spec
    assert list(record.to_lease_spec()) == list(spec)  # the server's field order
    assert micro_time(0.5) == "1970-01-01T00:00:00.500000Z"


def test_config_is_checked_like_new_leader_elector(cluster: Cluster) -> None:
    lock = LeaseLock(cluster, "default", LOCK, "a")
    with pytest.raises(LeaderElectionConfigError, match=r"lease_duration .* must be greater "
                                                        r"than renew_deadline"):
        LeaderElector(LeaderElectionConfig(lock, lease_duration=10, renew_deadline=10))
    with pytest.raises(LeaderElectionConfigError, match="must be greater than retry_period"):
        LeaderElector(LeaderElectionConfig(lock, renew_deadline=2.4, retry_period=2))
    with pytest.raises(LeaderElectionConfigError, match="retry_period must be greater than"):
        LeaderElector(LeaderElectionConfig(lock, retry_period=0))
    with pytest.raises(LeaderElectionConfigError, match="identity must not be empty"):
        LeaseLock(cluster, "default", LOCK, "")


def test_acquire_renew_and_release_on_stop(cluster: Cluster, clock: FakeClock) -> None:
    broadcaster = EventBroadcaster()
    broadcaster.start_recording_to_sink(cluster)
    recorder = broadcaster.new_recorder("demo-controller")
    calls: list[str] = []
    leading = threading.Event()

    def started(stop: threading.Event) -> None:
        calls.append("started")
        leading.set()
        stop.wait()
        calls.append("work stopped")

    callbacks = LeaderCallbacks(on_started_leading=started,
                                on_stopped_leading=lambda: calls.append("stopped"),
                                on_new_leader=lambda who: calls.append(f"leader {who}"))
    lock = LeaseLock(cluster, "default", LOCK, "kernel-1", event_recorder=recorder)
    elector = LeaderElector(LeaderElectionConfig(lock, callbacks=callbacks), clock=clock,
                            rand=random.Random(7))
    elector.start()
    try:
        assert leading.wait(5)
        first = lease(cluster)["spec"]
        assert first["holderIdentity"] == "kernel-1"
        assert first["leaseDurationSeconds"] == 15
        assert first["leaseTransitions"] == 0
        assert first["acquireTime"] == first["renewTime"]
        wait_parked(clock, elector)
        clock.step(2.0)  # the retry period: the leader renews
        wait_until(lambda: lease(cluster)["spec"]["renewTime"] != first["renewTime"],
                   what="a renewal")
        renewed = lease(cluster)["spec"]
        assert renewed["acquireTime"] == first["acquireTime"]
        assert elector.is_leader() and elector.get_leader() == "kernel-1"
    finally:
        elector.stop()
        broadcaster.flush()
        broadcaster.shutdown()
    released = lease(cluster)["spec"]
    assert released["holderIdentity"] == ""
    assert released["leaseDurationSeconds"] == 1
    assert calls == ["leader kernel-1", "started", "work stopped", "stopped"]
    messages = sorted(e["message"] for e in cluster.resource("events").list()["items"])
    assert messages == ["kernel-1 became leader", "kernel-1 stopped leading"]


class Replica:
    """One copy of a controller, as a second notebook kernel would run it."""

    def __init__(self, cluster: Cluster, clock: FakeClock, identity: str, log: list,
                 lock: threading.Lock, active: set, overlaps: list, **config) -> None:
        self.identity = identity
        self.keys: list[str] = []

        def reconcile(key: str) -> None:
            with lock:
                if active:
                    overlaps.append((identity, sorted(active)))
                active.add(identity)
                self.keys.append(key)
                log.append(identity)
            with lock:
                active.discard(identity)

        self.controller = Controller(f"demo-{identity}", reconcile, workers=2, clock=clock)
        self.controller.watch(cluster.informer("configmaps"))
        self.config = LeaderElectionConfig(
            LeaseLock(cluster, "default", LOCK, identity), **config)

    def run(self) -> Replica:
        self.controller.run(leader_election=self.config)
        return self

    @property
    def elector(self) -> LeaderElector:
        assert self.controller.leader_elector is not None
        return self.controller.leader_elector


def _replicas(cluster: Cluster, clock: FakeClock, **config) -> tuple[Replica, Replica, dict]:
    shared = {"log": [], "lock": threading.Lock(), "active": set(), "overlaps": []}
    one = Replica(cluster, clock, "kernel-1", **shared, **config)
    two = Replica(cluster, clock, "kernel-2", **shared, **config)
    return one, two, shared


def _step_until(clock: FakeClock, electors: list[LeaderElector], done, limit: float,
                step: float = 1.0) -> float:
    """Step the clock until `done()`; return the clock time that took."""
    start = clock.now()
    while not done():
        assert clock.now() - start < limit, f"not done after {limit}s of clock time"
        wait_parked(clock, *electors)
        clock.step(step)
        wait_parked(clock, *electors)
    return clock.now() - start


def test_two_controllers_one_reconciles_then_the_other_takes_over(
        cluster: Cluster, clock: FakeClock) -> None:
    cms = cluster.resource("configmaps")
    for i in range(3):
        cms.create({"metadata": {"name": f"cm-{i}"}})
    one, two, shared = _replicas(cluster, clock)
    one.run()
    try:
        wait_until(lambda: one.controller.is_leader(), what="kernel-1 to lead")
        two.run()
        wait_parked(clock, one.elector, two.elector)
        assert two.controller.is_leader() is False
        one.controller.run_until_idle()
        assert sorted(one.keys) == ["default/cm-0", "default/cm-1", "default/cm-2"]

        # 30 s of clock time: the leader renews, the candidate keeps waiting.
        _step_until(clock, [one.elector, two.elector], lambda: clock.now() >= 30, 40)
        cms.create({"metadata": {"name": "cm-late"}})
        wait_until(lambda: "default/cm-late" in one.keys, what="the leader to reconcile")
        assert two.keys == [] and two.controller.is_leader() is False
        assert lease(cluster)["spec"]["holderIdentity"] == "kernel-1"
        assert two.elector.get_leader() == "kernel-1"

        one.controller.stop()  # releases the Lease
        assert lease(cluster)["spec"]["holderIdentity"] == ""
        took = _step_until(clock, [two.elector], two.elector.is_leading, 15, step=0.2)
        assert took <= 2.0 * (1 + 1.2) + 0.2  # a retry period plus jitter: well within 15 s
        wait_until(lambda: two.controller.is_leader(), what="kernel-2's workers")
        two.controller.run_until_idle()
        assert sorted(two.keys) == ["default/cm-0", "default/cm-1", "default/cm-2",
                                    "default/cm-late"]
        spec = lease(cluster)["spec"]
        assert (spec["holderIdentity"], spec["leaseTransitions"]) == ("kernel-2", 1)
    finally:
        one.controller.stop()
        two.controller.stop()
    assert shared["overlaps"] == []
    # The log of who reconciled is kernel-1's run, then kernel-2's: never interleaved.
    switch = shared["log"].index("kernel-2")
    assert set(shared["log"][:switch]) == {"kernel-1"}
    assert set(shared["log"][switch:]) == {"kernel-2"}


def test_without_release_the_candidate_waits_out_the_lease(cluster: Cluster,
                                                           clock: FakeClock) -> None:
    one, two, shared = _replicas(cluster, clock, release_on_cancel=False)
    one.run()
    try:
        wait_until(lambda: one.controller.is_leader(), what="kernel-1 to lead")
        two.run()
        _step_until(clock, [one.elector, two.elector], lambda: clock.now() >= 9, 20)
        last_renew = lease(cluster)["spec"]["renewTime"]
        one.controller.stop()  # a crash, as far as the Lease can tell
        assert lease(cluster)["spec"]["holderIdentity"] == "kernel-1"
        stopped_at = clock.now()
        _step_until(clock, [two.elector], two.elector.is_leading, 30)
        took = clock.now() - stopped_at
        # The last renewal was at 8 s; the candidate may take over only a full lease
        # duration after it saw that renewal, which it did within one retry (+ jitter).
        assert 8 + 15 <= clock.now() <= 8 + 15 + 2 * 2.0 * (1 + 1.2) + 1.0
        assert took >= 14
        spec = lease(cluster)["spec"]
        assert spec["holderIdentity"] == "kernel-2" and spec["renewTime"] != last_renew
        assert spec["leaseTransitions"] == 1
    finally:
        one.controller.stop()
        two.controller.stop()
    assert shared["overlaps"] == []


def test_leader_stops_when_it_cannot_renew_and_comes_back(cluster: Cluster,
                                                          clock: FakeClock) -> None:
    one, _, shared = _replicas(cluster, clock)
    stopped = threading.Event()
    one.config.callbacks = LeaderCallbacks(on_stopped_leading=stopped.set)
    one.run()
    try:
        wait_until(lambda: one.controller.is_leader(), what="kernel-1 to lead")
        wait_parked(clock, one.elector)
        rule = cluster.server.faults.fail("update", resource="leases.coordination.k8s.io")
        took = _step_until(clock, [one.elector], lambda: not one.elector.is_leading(), 20)
        # The last good renewal was at 0 s; the next try at 2 s starts a renew_deadline
        # (10 s) of failing tries: leadership ends at 12 s, before the lease (15 s) ends.
        assert took == 12.0
        assert stopped.is_set() and rule.injected >= 5
        cluster.resource("configmaps").create({"metadata": {"name": "while-lost"}})
        assert one.keys == []  # not leading: nothing is reconciled
        # The healthz check: the Lease it last saw change (at 2 s) is 16 s old at 18 s.
        _step_until(clock, [one.elector], lambda: clock.now() >= 18, 10)
        one.elector.check(max_tolerable_expired_lease=5)
        with pytest.raises(KubenbError, match="failed election to renew leadership"):
            one.elector.check(max_tolerable_expired_lease=0)

        cluster.server.faults.clear()
        _step_until(clock, [one.elector], one.elector.is_leading, 10)
        wait_until(lambda: one.controller.is_leader(), what="kernel-1's workers")
        one.controller.run_until_idle()
        assert one.keys == ["default/while-lost"]
        assert lease(cluster)["spec"]["leaseTransitions"] == 0  # it renewed its own lease
    finally:
        one.controller.stop()
    assert shared["overlaps"] == []


def test_the_embedded_server_serves_leases_like_a_real_one(cluster: Cluster) -> None:
    v2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    mine = cluster.rest.get("/apis", accept=v2)
    real = realapi("discovery/aggregated-apis-v2.json")["response"]["body"]

    def group(doc: dict, name: str) -> dict:
        return next(g for g in doc["items"] if g["metadata"]["name"] == name)

    assert group(mine, "coordination.k8s.io") == group(real, "coordination.k8s.io")
    names = [g["metadata"]["name"] for g in mine["items"]]
    assert names.index("apiextensions.k8s.io") < names.index("coordination.k8s.io")

    exchange = realapi("objects/lease-create.json")
    body = dict(exchange["request"]["body"], metadata={"name": "fixture-lock"})
    created = cluster.resource("leases").create(body)
    assert list(created) == list(exchange["response"]["body"])
    assert created["spec"] == exchange["response"]["body"]["spec"]  # MicroTime kept as sent
    table = cluster.rest.get("/apis/coordination.k8s.io/v1/namespaces/default/leases",
                             accept="application/json;as=Table;v=v1;g=meta.k8s.io")
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Holder", "Age"]
    assert table["rows"][0]["cells"][:2] == ["fixture-lock", "kubenb-controller-1"]
