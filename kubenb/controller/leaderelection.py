"""Leader election over a coordination.k8s.io/v1 Lease (client-go's `tools/leaderelection`).

Several copies of one controller (replicas, or notebook kernels) compete for one Lease;
the holder works, the others wait. The holder renews the Lease every `retry_period`;
if it cannot renew for `renew_deadline` it stops leading. A candidate takes the Lease
over once it has seen no change to it for `lease_duration` (or at once when the holder
released it on stop, by writing an empty holder).

As in client-go, nobody trusts anyone's clock: a candidate measures "no change for
`lease_duration`" on its *own* clock, from when it last saw the Lease record change,
never by comparing `renewTime` with its time. That is also why the timing can run on a
`FakeClock`: tests step time instead of waiting 15 seconds.

This does not fence: a leader that stalls longer than `lease_duration - renew_deadline`
can overlap with the next one. Keep `renew_deadline` well under `lease_duration`.
"""

from __future__ import annotations

import copy
import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

from kubenb.cache.on_stop import StopEvent
from kubenb.clock import Clock, RealClock
from kubenb.controller.record import resource_client
from kubenb.controller.timestamps import WallClock
from kubenb.errors import Conflict, KubenbError, LeaderElectionConfigError, NotFound

__all__ = [
    "DEFAULT_LEASE_DURATION",
    "DEFAULT_RENEW_DEADLINE",
    "DEFAULT_RETRY_PERIOD",
    "JITTER_FACTOR",
    "LeaderCallbacks",
    "LeaderElectionConfig",
    "LeaderElectionConfigError",
    "LeaderElectionRecord",
    "LeaderElector",
    "LeaseLock",
    "micro_time",
]

log = logging.getLogger("kubenb.controller.leaderelection")

#: client-go's defaults for core components ("Core clients default this value to ...").
DEFAULT_LEASE_DURATION = 15.0
DEFAULT_RENEW_DEADLINE = 10.0
DEFAULT_RETRY_PERIOD = 2.0
#: How much random extra wait a candidate adds to `retry_period` (client-go `JitterFactor`).
JITTER_FACTOR = 1.2

LEASE_API_VERSION = "coordination.k8s.io/v1"


def micro_time(epoch_seconds: float) -> str:
    """A metav1.MicroTime as the API writes it: "2026-11-22T11:43:39.858098Z"."""
    stamp = datetime.fromtimestamp(epoch_seconds, timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class LeaderElectionRecord:
    """What the Lease spec says about the election (client-go `LeaderElectionRecord`).

    Times are kept as the MicroTime strings read or written: only whether the record
    *changed* matters to the algorithm.
    """

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: str | None = None
    renew_time: str | None = None
    leader_transitions: int = 0
    preferred_holder: str = ""
    strategy: str = ""

    @classmethod
    def from_lease_spec(cls, spec: dict[str, Any] | None) -> LeaderElectionRecord:
        """client-go `LeaseSpecToLeaderElectionRecord`."""
        spec = spec or {}
        return cls(holder_identity=spec.get("holderIdentity") or "",
                   lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
                   acquire_time=spec.get("acquireTime"), renew_time=spec.get("renewTime"),
                   leader_transitions=int(spec.get("leaseTransitions") or 0),
                   preferred_holder=spec.get("preferredHolder") or "",
                   strategy=spec.get("strategy") or "")

    def to_lease_spec(self) -> dict[str, Any]:
        """client-go `LeaderElectionRecordToLeaseSpec` (field order as the API server's)."""
        spec: dict[str, Any] = {"holderIdentity": self.holder_identity,
                                "leaseDurationSeconds": self.lease_duration_seconds,
                                "acquireTime": self.acquire_time,
                                "renewTime": self.renew_time,
                                "leaseTransitions": self.leader_transitions}
        if self.preferred_holder:
            spec["preferredHolder"] = self.preferred_holder
        if self.strategy:
            spec["strategy"] = self.strategy
        return spec


class LeaseLock:
    """The Lease `namespace/name` as a lock held by `identity` (client-go `LeaseLock`).

    `client` is a `Cluster`, a `DynamicClient` or a leases `ResourceClient`. Writes are
    optimistic: `update` sends the resourceVersion last read, so a concurrent writer
    makes it fail with `Conflict` instead of being overwritten. `labels` are set on the
    Lease by whoever holds it; `event_recorder` (optional) gets "became leader" and
    "stopped leading" events about the Lease.
    """

    def __init__(self, client: Any, namespace: str, name: str, identity: str, *,
                 labels: dict[str, str] | None = None, event_recorder: Any = None) -> None:
        if not namespace or not name:
            raise LeaderElectionConfigError(
                f"LeaseLock: namespace and name are required, got {namespace!r}/{name!r}")
        if not identity:
            raise LeaderElectionConfigError("LeaseLock: identity must not be empty")
        self.namespace = namespace
        self.name = name
        self._identity = identity
        self.labels = dict(labels) if labels else None
        self.event_recorder = event_recorder
        self._client = resource_client(client, LEASE_API_VERSION, "leases").namespace(namespace)
        self._lease: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"LeaseLock({self.describe()!r}, identity={self._identity!r})"

    @property
    def lease(self) -> dict[str, Any] | None:
        """The Lease as last read or written (None before the first get/create)."""
        return self._lease

    def get(self) -> LeaderElectionRecord:
        """Read the Lease; raises `NotFound` when it does not exist yet."""
        self._lease = self._client.get(self.name)
        return LeaderElectionRecord.from_lease_spec(self._lease.get("spec"))

    def create(self, record: LeaderElectionRecord) -> None:
        """Create the Lease holding `record` (`AlreadyExists` if someone was faster)."""
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if self.labels:
            metadata["labels"] = dict(self.labels)
        self._lease = self._client.create({"apiVersion": LEASE_API_VERSION, "kind": "Lease",
                                           "metadata": metadata,
                                           "spec": record.to_lease_spec()})

    def update(self, record: LeaderElectionRecord) -> None:
        """Write `record` over the Lease last read (`Conflict` if it changed since)."""
        if self._lease is None:
            raise KubenbError(f"LeaseLock {self.describe()}: lease not initialized, call get "
                              "or create first")
        lease = copy.deepcopy(self._lease)
        lease.setdefault("apiVersion", LEASE_API_VERSION)
        lease.setdefault("kind", "Lease")
        lease["spec"] = record.to_lease_spec()
        if self.labels:
            meta = lease.setdefault("metadata", {})
            meta["labels"] = {**(meta.get("labels") or {}), **self.labels}
        self._lease = self._client.update(lease)

    def record_event(self, message: str) -> None:
        """Report `"<identity> <message>"` as a Normal LeaderElection event on the Lease."""
        if self.event_recorder is None or self._lease is None:
            return
        meta = self._lease.get("metadata") or {}
        subject = {"kind": "Lease", "apiVersion": LEASE_API_VERSION, "name": self.name,
                   "namespace": self.namespace, "uid": meta.get("uid", ""),
                   "resourceVersion": meta.get("resourceVersion", "")}
        try:
            self.event_recorder.event(subject, "Normal", "LeaderElection",
                                      f"{self._identity} {message}")
        except Exception:
            log.exception("lease %s: could not record event %r", self.describe(), message)

    def identity(self) -> str:
        return self._identity

    def describe(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass
class LeaderCallbacks:
    """What to do as leadership comes and goes (client-go `LeaderCallbacks`).

    `on_started_leading(stop)` runs on its own thread `kubenb-leader-...` and must
    return soon after the `threading.Event` `stop` is set: leadership is released only
    after it returned. `on_stopped_leading()` is called whenever `run` ends, also when
    it never led. `on_new_leader(identity)` is called on the elector's thread each
    time another holder is seen (keep it quick).
    """

    on_started_leading: Callable[[threading.Event], Any] | None = None
    on_stopped_leading: Callable[[], Any] | None = None
    on_new_leader: Callable[[str], Any] | None = None


@dataclass
class LeaderElectionConfig:
    """client-go's `LeaderElectionConfig`; times in seconds of the elector's clock.

    `release_on_cancel` defaults to True here (False in Go): a notebook kernel that
    stops its controller should hand over at once, not after `lease_duration`.
    """

    lock: LeaseLock
    lease_duration: float = DEFAULT_LEASE_DURATION
    renew_deadline: float = DEFAULT_RENEW_DEADLINE
    retry_period: float = DEFAULT_RETRY_PERIOD
    callbacks: LeaderCallbacks = field(default_factory=LeaderCallbacks)
    release_on_cancel: bool = True
    name: str = ""


class LeaderElector:
    """Campaigns for a Lease and calls the callbacks as leadership comes and goes.

    `run(stop)` blocks: acquire, lead until `stop` is set or renewing fails, then
    (optionally) release. `start()`/`stop()` run it on a thread for notebooks. `rand`
    (a `random.Random`) makes the jitter repeatable.
    """

    def __init__(self, config: LeaderElectionConfig, *, clock: Clock | None = None,
                 rand: random.Random | None = None) -> None:
        _validate(config)
        self.config = config
        self.clock: Clock = clock if clock is not None else RealClock()
        self._wall = WallClock(self.clock)
        self._rand = rand or random.Random()
        self._lock = threading.Lock()
        self._observed_record = LeaderElectionRecord()
        self._observed_raw: LeaderElectionRecord | None = None
        self._observed_time = float("-inf")
        self._reported_leader = ""
        self._leading = False
        self.last_error: str | None = None
        self.transitions = 0  # times this elector became leader
        # Test and teaching hook: the clock time this elector is parked until, if any.
        self._parked_until: float | None = None
        self._thread: threading.Thread | None = None
        self._own_stop: threading.Event | None = None

    def __repr__(self) -> str:
        return (f"LeaderElector({self.config.lock.describe()!r}, "
                f"identity={self.config.lock.identity()!r}, leading={self._leading}, "
                f"leader={self.get_leader()!r})")

    # -- what is known ---------------------------------------------------------------------

    def get_leader(self) -> str:
        """The identity of the last observed leader ("" if none yet)."""
        with self._lock:
            return self._observed_record.holder_identity

    def is_leader(self) -> bool:
        """Whether the last observed leader is this elector (client-go `IsLeader`)."""
        return self.get_leader() == self.config.lock.identity()

    def is_leading(self) -> bool:
        """True from `on_started_leading` until leadership ended (what the callbacks see)."""
        with self._lock:
            return self._leading

    def observed_record(self) -> LeaderElectionRecord:
        with self._lock:
            return self._observed_record

    def check(self, max_tolerable_expired_lease: float) -> None:
        """Raise if this leader has not renewed for longer than the lease plus the given
        slack (client-go `Check`, the healthz adaptor's test)."""
        if not self.is_leader():
            return
        with self._lock:
            last = self._observed_time
        if self.clock.now() - last > self.config.lease_duration + max_tolerable_expired_lease:
            raise KubenbError(f"failed election to renew leadership on lease "
                              f"{self.config.name or self.config.lock.describe()}")

    # -- running ---------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """Acquire, lead, and return when `stop` is set or leadership is lost."""
        callbacks = self.config.callbacks
        try:
            if not self._acquire(stop):
                return
            term_stop = StopEvent()  # wakes the term's leading worker when set
            with self._lock:
                self._leading = True
                self.transitions += 1
            leader = threading.Thread(target=self._lead, args=(term_stop,), daemon=True,
                                      name=f"kubenb-leader-{self.config.lock.name}")
            leader.start()
            try:
                self._renew(stop)
            finally:
                # Stop the guarded work before anyone else may take the Lease over.
                term_stop.set()
                leader.join()
                with self._lock:
                    self._leading = False
                if self.config.release_on_cancel and stop.is_set():
                    self._release()
                self.config.lock.record_event("stopped leading")
        finally:
            if callbacks.on_stopped_leading is not None:
                try:
                    callbacks.on_stopped_leading()
                except Exception:
                    log.exception("%s: on_stopped_leading raised", self._desc())

    def start(self) -> LeaderElector:
        """Run on a background thread `kubenb-leaderelection-...`; `stop()` ends it."""
        with self._lock:
            if self._thread is not None:
                return self
            self._own_stop = threading.Event()
            self._thread = threading.Thread(
                target=self.run, args=(self._own_stop,), daemon=True,
                name=f"kubenb-leaderelection-{self.config.name or self.config.lock.name}")
        self._thread.start()
        return self

    def stop(self, timeout: float | None = None) -> None:
        """Stop a `start()`ed elector (releasing the Lease if configured) and join it."""
        with self._lock:
            thread, stop = self._thread, self._own_stop
            self._thread = self._own_stop = None
        if stop is not None:
            stop.set()
        if thread is not None:
            thread.join(timeout)

    def _lead(self, term_stop: threading.Event) -> None:
        started = self.config.callbacks.on_started_leading
        if started is None:
            return
        try:
            started(term_stop)
        except Exception:
            log.exception("%s: on_started_leading raised", self._desc())

    def _desc(self) -> str:
        return f"lease {self.config.lock.describe()} ({self.config.lock.identity()})"

    def _acquire(self, stop: threading.Event) -> bool:
        """Try now, then every retry_period (+ up to 1.2x jitter), until acquired."""
        log.info("%s: attempting to acquire leader lease...", self._desc())
        while not stop.is_set():
            succeeded = self._try_acquire_or_renew()
            self._maybe_report_transition()
            if succeeded:
                self.config.lock.record_event("became leader")
                log.info("%s: successfully acquired lease", self._desc())
                return True
            period = self.config.retry_period
            if self._sleep(stop, period + self._rand.random() * JITTER_FACTOR * period):
                return False
        return False

    def _renew(self, stop: threading.Event) -> None:
        """Renew every retry_period; return when stopped or renewing failed for
        renew_deadline (then leadership is lost)."""
        config = self.config
        while not stop.is_set():
            start = self.clock.now()
            deadline = start + config.renew_deadline
            next_try = start
            renewed = False
            while not stop.is_set():
                if self._try_acquire_or_renew():
                    renewed = True
                    break
                next_try += config.retry_period
                if next_try >= deadline:
                    self._sleep(stop, deadline - self.clock.now())
                    break
                self._sleep(stop, next_try - self.clock.now())
            self._maybe_report_transition()
            if stop.is_set():
                return
            if not renewed:
                log.info("%s: failed to renew lease within %ss: %s", self._desc(),
                         config.renew_deadline, self.last_error or "held by another")
                return
            if self._sleep(stop, config.retry_period):
                return

    def _sleep(self, stop: threading.Event, seconds: float) -> bool:
        """Wait `seconds` of clock time or until `stop`; True when stopped."""
        deadline = self.clock.now() + seconds
        self._parked_until = deadline
        try:
            while not stop.is_set() and self.clock.now() < deadline:
                self.clock.wait_event(stop, deadline - self.clock.now())
        finally:
            self._parked_until = None
        return stop.is_set()

    # -- the algorithm (client-go tryAcquireOrRenew) -----------------------------------------

    def _new_record(self) -> LeaderElectionRecord:
        stamp = micro_time(self._wall.now())
        return LeaderElectionRecord(holder_identity=self.config.lock.identity(),
                                    lease_duration_seconds=int(self.config.lease_duration),
                                    acquire_time=stamp, renew_time=stamp)

    def _try_acquire_or_renew(self) -> bool:
        lock = self.config.lock
        now = self.clock.now()
        record = self._new_record()

        # 1. The leader's fast path: update assuming the Lease is as last written.
        if self.is_leader() and self._is_lease_valid(now):
            old = self.observed_record()
            record = _with(record, acquire_time=old.acquire_time,
                           leader_transitions=old.leader_transitions)
            try:
                lock.update(record)
            except Exception as err:
                log.debug("%s: optimistic renew failed, falling back to get: %s",
                          self._desc(), err)
            else:
                self._set_observed(record)
                self.last_error = None
                return True

        # 2. Read the Lease, or create it.
        try:
            old = lock.get()
        except NotFound:
            try:
                lock.create(record)
            except Exception as err:
                return self._failed(f"error initially creating lease lock: {err}")
            self._set_observed(record)
            self.last_error = None
            return True
        except Exception as err:
            return self._failed(f"error retrieving lease lock: {err}")

        # 3. A changed record restarts the expiry count, on *our* clock.
        if self._observed_raw != old:
            self._set_observed(old)
            self._observed_raw = old
        if old.holder_identity and self._is_lease_valid(now) and not self.is_leader():
            self.last_error = f"lease is held by {old.holder_identity} and has not yet expired"
            return False

        # 4. Take it over (or renew it the slow way).
        if self.is_leader():
            record = _with(record, acquire_time=old.acquire_time,
                           leader_transitions=old.leader_transitions)
        else:
            record = _with(record, leader_transitions=old.leader_transitions + 1)
        try:
            lock.update(record)
        except Exception as err:
            return self._failed(f"failed to update lease: {err}")
        self._set_observed(record)
        self.last_error = None
        return True

    def _failed(self, message: str) -> bool:
        self.last_error = message
        log.error("%s: %s", self._desc(), message)
        return False

    def _release(self) -> bool:
        """Write an empty holder (lease 1 s) so a candidate takes over at once.

        Unlike client-go, which trusts its last observation, the Lease is released
        only if the server still names this elector as holder: a leader that lost the
        Lease meanwhile must not clear the next leader's.
        """
        lock = self.config.lock
        for _ in range(5):
            try:
                old = lock.get()
            except NotFound:
                log.info("%s: lease lock not found on release", self._desc())
                return False
            except Exception as err:
                return self._failed(f"error retrieving lease lock on release: {err}")
            if old.holder_identity != lock.identity():
                return True
            stamp = micro_time(self._wall.now())
            record = LeaderElectionRecord(lease_duration_seconds=1, acquire_time=stamp,
                                          renew_time=stamp,
                                          leader_transitions=old.leader_transitions)
            try:
                lock.update(record)
            except Conflict:
                log.debug("%s: conflict when releasing lease, retrying", self._desc())
                continue
            except Exception as err:
                return self._failed(f"failed to release lease: {err}")
            self._set_observed(record)
            log.info("%s: released lease", self._desc())
            return True
        return self._failed("failed to release lease: conflicts kept happening")

    def _maybe_report_transition(self) -> None:
        holder = self.get_leader()
        if holder == self._reported_leader:
            return
        self._reported_leader = holder
        callback = self.config.callbacks.on_new_leader
        if callback is not None:
            try:
                callback(holder)
            except Exception:
                log.exception("%s: on_new_leader raised", self._desc())

    def _is_lease_valid(self, now: float) -> bool:
        with self._lock:
            return self._observed_time + self._observed_record.lease_duration_seconds > now

    def _set_observed(self, record: LeaderElectionRecord) -> None:
        with self._lock:
            self._observed_record = record
            self._observed_time = self.clock.now()


def _with(record: LeaderElectionRecord, **changes: Any) -> LeaderElectionRecord:
    return replace(record, **changes)


def _validate(config: LeaderElectionConfig) -> None:
    """client-go NewLeaderElector's checks, with messages naming the settings."""
    if not isinstance(config.lock, LeaseLock):
        raise LeaderElectionConfigError(
            f"leader election needs a LeaseLock, got {type(config.lock).__name__}")
    for name in ("lease_duration", "renew_deadline", "retry_period"):
        if not getattr(config, name) > 0:
            raise LeaderElectionConfigError(
                f"{name} must be greater than zero, got {getattr(config, name)!r}")
    if config.lease_duration <= config.renew_deadline:
        raise LeaderElectionConfigError(
            f"lease_duration ({config.lease_duration}s) must be greater than renew_deadline "
            f"({config.renew_deadline}s)")
    if config.renew_deadline <= JITTER_FACTOR * config.retry_period:
        raise LeaderElectionConfigError(
            f"renew_deadline ({config.renew_deadline}s) must be greater than retry_period * "
            f"{JITTER_FACTOR} ({config.retry_period * JITTER_FACTOR}s)")
