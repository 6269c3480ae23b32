"""The reconcile runner: informers feed keys into a rate-limited workqueue, workers call
`reconcile(key)` (sample-controller's `Controller`, made reusable).

A controller is three parts wired together, exactly as in Go:

* event handlers on shared informers turn every add, update and delete into a key
  (`enqueue_key`: the object's own "ns/name"; `enqueue_owner("Foo")`: the key of the
  Foo that controls it, as sample-controller's `handleObject` does for Deployments);
* a `RateLimitingQueue` de-duplicates keys and never hands one key to two workers;
* workers take a key, call `reconcile(key)`, and act on what it says:

  ================================  ==============================================
  `reconcile(key)` ...              the runner ...
  ================================  ==============================================
  returns None                      `forget(key)`: done, its backoff starts over
  returns `Result(requeue=True)`    `add_rate_limited(key)`: again, with backoff
  returns `Result(requeue_after=s)` `forget(key)`, then `add_after(key, s)`
  raises                            logs the key and error, counts it, and
                                    `add_rate_limited(key)`; after `max_retries`
                                    retries, `forget(key)` and a "dropping" log line
  ================================  ==============================================

`run()` starts the workers in the background; `run_until_idle()` runs them until there
is nothing left to do, for a notebook cell or a test; `stop()` drains and joins every
thread. `pause()` / `step(n)` / `resume()` hold a running controller's workers at a gate
before they take a key, so queued keys stay visible in the workqueue.
`run(leader_election=...)` runs the workers only while this process holds a
coordination.k8s.io Lease, so two kernels behave as two replicas of one controller.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import asdict, dataclass, field, replace
from datetime import timedelta
from typing import Any

from kubenb.cache.keys import DeletedFinalStateUnknown, deletion_handling_meta_namespace_key_func
from kubenb.cache.wait import wait_for_cache_sync
from kubenb.clock import Clock, RealClock
from kubenb.controller.leaderelection import (
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElector,
    LeaseLock,
)
from kubenb.errors import KubenbError
from kubenb.workqueue.metrics import InProcessSummary, MetricsSnapshot, SummarySnapshot
from kubenb.workqueue.rate_limiters import RateLimiter, default_controller_rate_limiter
from kubenb.workqueue.rate_limiting import RateLimitingQueue

__all__ = [
    "Controller",
    "ControllerMetrics",
    "ControllerStateError",
    "EnqueueFunc",
    "IdleTimeout",
    "Result",
    "controller_of",
    "enqueue_key",
    "enqueue_owner",
]

log = logging.getLogger("kubenb.controller")

#: Maps an object (or a `DeletedFinalStateUnknown`) to the key(s) to reconcile, or None.
EnqueueFunc = Callable[[Any], "str | Iterable[str] | None"]

#: How long (real seconds) a worker waiting for a key or at the gate sleeps at most
#: before looking again on its own (a safety net: every change notifies it).
_GATE_POLL = 1.0

#: How long (real seconds) an idle wait sleeps before re-checking on its own; changes
#: that do not notify (a delayed item falling due) are seen within this time.
_IDLE_POLL = 0.01


class ControllerStateError(KubenbError):
    """An operation the controller's state forbids (e.g. `run()` twice)."""


class IdleTimeout(KubenbError, TimeoutError):
    """`run_until_idle` ran out of time; the message says what was still going on."""


@dataclass(frozen=True)
class Result:
    """What a reconcile asks for besides "done" (controller-runtime's `reconcile.Result`).

    `requeue=True` retries the key with the rate limiter's backoff; `requeue_after`
    (seconds, or a timedelta) retries it after that long, with its backoff reset: a
    periodic re-check is not a failure. `requeue_after` wins when both are set.
    """

    requeue: bool = False
    requeue_after: float = 0.0

    def __post_init__(self) -> None:
        after = self.requeue_after
        if isinstance(after, timedelta):
            after = after.total_seconds()
        if isinstance(after, bool) or not isinstance(after, (int, float)) or math.isnan(after):
            raise KubenbError(f"Result: requeue_after must be a number of seconds, got {after!r}")
        if after < 0:
            raise KubenbError(f"Result: requeue_after must be >= 0 seconds, got {after!r}")
        object.__setattr__(self, "requeue_after", float(after))


# -- enqueue functions -----------------------------------------------------------------


def enqueue_key(obj: Any) -> str:
    """The object's own key, "ns/name" or "name" (sample-controller's `enqueueFoo`);
    a tombstone's key for a deletion seen late."""
    return deletion_handling_meta_namespace_key_func(obj)


def controller_of(obj: Any) -> dict[str, Any] | None:
    """The ownerReference with `controller: true`, or None (apimachinery's `GetControllerOf`)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    refs = meta.get("ownerReferences") if isinstance(meta, dict) else None
    for ref in refs or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def _group_of(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def enqueue_owner(kind: str, group: str | None = None) -> EnqueueFunc:
    """An enqueue function mapping an owned object to its controller owner's key.

    Only an owner of `kind` (and of API `group`, when given) counts; other objects map
    to nothing. The owner is looked up in the object's namespace, as sample-controller's
    `handleObject` does (a Deployment controlled by Foo "web" in "ns" enqueues "ns/web").
    A tombstone is unwrapped first, so deleting an owned object wakes its owner.
    """
    if not kind:
        raise KubenbError("enqueue_owner: kind must name the owner's kind, e.g. 'Foo'")

    def owner_key(obj: Any) -> str | None:
        if isinstance(obj, DeletedFinalStateUnknown):
            obj = obj.obj
        ref = controller_of(obj)
        if ref is None or ref.get("kind") != kind or not ref.get("name"):
            return None
        if group is not None and _group_of(str(ref.get("apiVersion") or "")) != group:
            return None
        namespace = (obj.get("metadata") or {}).get("namespace") or ""
        return f"{namespace}/{ref['name']}" if namespace else str(ref["name"])

    owner_key.__qualname__ = owner_key.__name__ = f"enqueue_owner({kind!r})"
    return owner_key


def _keys(enqueue: EnqueueFunc, obj: Any) -> list[str]:
    keys = enqueue(obj)
    if keys is None:
        return []
    if isinstance(keys, str):
        return [keys]
    return [k for k in keys if k is not None]


def _unwrap(obj: Any) -> Any:
    return obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj


class _EnqueueHandler:
    """The event handler `watch()` registers: objects in, keys into the queue."""

    def __init__(self, controller: Controller, enqueue: EnqueueFunc,
                 predicate: Callable[[Any], bool] | None) -> None:
        self._controller = controller
        self._enqueue = enqueue
        self._predicate = predicate

    def _passes(self, obj: Any) -> bool:
        if self._predicate is None:
            return True
        inner = _unwrap(obj)
        return True if inner is None else bool(self._predicate(inner))

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        if self._passes(obj):
            self._controller._add_keys(_keys(self._enqueue, obj))

    def on_update(self, old_obj: Any, new_obj: Any) -> None:
        # Either side passing matters: an object leaving the predicate is news too.
        if self._passes(new_obj) or self._passes(old_obj):
            keys = _keys(self._enqueue, new_obj)
            for key in _keys(self._enqueue, old_obj):  # e.g. the owner changed
                if key not in keys:
                    keys.append(key)
            self._controller._add_keys(keys)

    def on_delete(self, obj: Any) -> None:
        if self._passes(obj):
            self._controller._add_keys(_keys(self._enqueue, obj))

    def __repr__(self) -> str:
        name = getattr(self._enqueue, "__qualname__", repr(self._enqueue))
        return f"_EnqueueHandler({self._controller.name!r}, {name})"


@dataclass
class _Watch:
    informer: Any
    handler: _EnqueueHandler
    registration: Any = None


class _ControllerQueue(RateLimitingQueue):
    """The controller's queue: tells the controller about every add, so an idle wait
    wakes the moment work arrives (also when a delayed key falls due)."""

    def __init__(self, on_add: Callable[[], None], rate_limiter: RateLimiter, name: str,
                 clock: Clock) -> None:
        self._on_add = on_add
        super().__init__(rate_limiter, name=name, clock=clock)

    def add(self, item: Hashable) -> None:
        super().add(item)
        self._on_add()

    def busy(self) -> bool:
        """Whether any key is queued, or handed out and not yet done (one atomic look)."""
        with self._lock:
            return bool(len(self._queue)) or bool(self._processing)


# -- metrics -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ControllerMetrics:
    """A controller's numbers at one moment (what a monitor widget shows).

    `reconciles` counts every call; `successes`, `errors`, `requeues` (Result.requeue)
    and `requeues_after` (Result.requeue_after) split them by outcome; `dropped` counts
    keys given up after `max_retries`. `duration` summarizes reconcile durations on the
    controller's clock; `queue` is the workqueue's own snapshot. `leader` is None
    without leader election.
    """

    name: str
    workers: int
    active_workers: int
    running: bool
    leader: bool | None
    reconciles: int
    successes: int
    errors: int
    requeues: int
    requeues_after: int
    dropped: int
    duration: SummarySnapshot = field(default_factory=SummarySnapshot)
    queue: MetricsSnapshot | None = None
    last_error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """One flat dict (a DataFrame row): `duration_p50`, `queue_depth`, ..."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if key == "queue":
                continue
            if isinstance(value, dict):
                out.update({f"{key}_{sub}": v for sub, v in value.items()})
            else:
                out[key] = value
        if self.queue is not None:
            out.update({f"queue_{k}": v for k, v in self.queue.as_dict().items()
                        if k not in ("name",)})
        return out


# -- the controller ----------------------------------------------------------------------


class Controller:
    """Run `reconcile(key)` for every key the watched informers produce.

    `workers` threads reconcile at once (never the same key twice at once).
    `rate_limiter` spaces out retries (default: client-go's
    `default_controller_rate_limiter`: 5 ms doubling to 1000 s per key, 10 qps overall).
    `max_retries=None` retries a failing key forever, as sample-controller does; a
    number drops the key after that many retries (client-go's workqueue example uses 5).
    `clock` drives the queue's delays, the limiter and the durations, so a `FakeClock`
    makes backoff visible step by step.
    """

    def __init__(self, name: str, reconcile: Callable[[str], Any], *, workers: int = 1,
                 rate_limiter: RateLimiter | None = None, max_retries: int | None = None,
                 clock: Clock | None = None) -> None:
        if not name or not isinstance(name, str):
            raise KubenbError(f"Controller: name must be a non-empty string, got {name!r}")
        if not callable(reconcile):
            raise KubenbError(f"Controller {name!r}: reconcile must be callable, got "
                              f"{type(reconcile).__name__}")
        _check_workers(name, workers)
        if max_retries is not None and (isinstance(max_retries, bool)
                                        or not isinstance(max_retries, int) or max_retries < 0):
            raise KubenbError(f"Controller {name!r}: max_retries must be None or an int >= 0, "
                              f"got {max_retries!r}")
        if rate_limiter is not None and not isinstance(rate_limiter, RateLimiter):
            raise KubenbError(f"Controller {name!r}: rate_limiter must have when(), forget() "
                              f"and num_requeues(), got {rate_limiter!r}")
        self.name = name
        self.reconcile = reconcile
        self.workers = workers
        self.max_retries = max_retries
        self.clock: Clock = clock if clock is not None else RealClock()
        # One limiter for the controller's lifetime: backoff survives a new queue.
        self.rate_limiter: RateLimiter = (rate_limiter if rate_limiter is not None
                                          else default_controller_rate_limiter(clock=self.clock))

        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)  # idle waits, polling workers
        self._get_lock = threading.Lock()  # run_until_idle workers: check-then-get
        self._handlers_lock = threading.Lock()  # registering vs removing handlers
        self._waiters = 0
        self._queue: _ControllerQueue | None = None
        self._watches: list[_Watch] = []
        self._handlers_on = False
        self._in_flight: dict[str, float] = {}
        # The gate before queue.get() (pause/step/resume), guarded by _lock.
        self._paused = False
        self._permits = 0  # keys step() still lets through while paused
        self._parked = 0  # workers waiting at the closed gate

        self._stop: threading.Event | None = None
        self._supervisor: threading.Thread | None = None
        self._idle_session = False
        # A term of work: "none", "starting" (handlers syncing) or "ready" (workers up).
        self._term = "none"
        self.leader_elector: LeaderElector | None = None

        self._reconciles = self._successes = self._errors = 0
        self._requeues = self._requeues_after = self._dropped = 0
        self._durations = InProcessSummary()
        self._recent_errors: deque[tuple[str, str]] = deque(maxlen=50)

    def __repr__(self) -> str:
        state = "running" if self.is_running() else "stopped"
        queued = len(self._queue) if self._queue is not None else 0
        return (f"Controller({self.name!r}, {state}, workers={self.workers}, queued={queued}, "
                f"reconciles={self._reconciles}, errors={self._errors})")

    def __enter__(self) -> Controller:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- wiring --------------------------------------------------------------------------

    def watch(self, informer: Any, enqueue: EnqueueFunc = enqueue_key,
              predicate: Callable[[Any], bool] | None = None) -> Controller:
        """Reconcile the keys `enqueue` maps `informer`'s objects to (returns self).

        `predicate(obj) -> bool` filters objects first (an update passes when the old
        or the new object does). Handlers are registered when the controller runs and
        removed when it stops, so each run starts with every cached object queued.
        """
        if not callable(getattr(informer, "add_event_handler", None)):
            raise KubenbError(f"Controller {self.name!r}: watch() needs a shared informer "
                              f"(e.g. cluster.informer('pods')), got {type(informer).__name__}")
        if not callable(enqueue):
            raise KubenbError(f"Controller {self.name!r}: enqueue must be callable, got "
                              f"{type(enqueue).__name__}")
        if predicate is not None and not callable(predicate):
            raise KubenbError(f"Controller {self.name!r}: predicate must be callable or None")
        watch = _Watch(informer, _EnqueueHandler(self, enqueue, predicate))
        with self._handlers_lock:
            with self._lock:
                self._watches.append(watch)
                register = self._handlers_on
            if register:
                watch.registration = informer.add_event_handler(watch.handler)
        return self

    @property
    def queue(self) -> RateLimitingQueue:
        """The current workqueue (made on first use; a new one after each stop)."""
        with self._lock:
            if self._queue is None:
                self._queue = self._new_queue()
            return self._queue

    def enqueue(self, key: str) -> None:
        """Queue one key by hand (e.g. from a notebook cell)."""
        self._live_queue().add(key)

    def _new_queue(self) -> _ControllerQueue:
        return _ControllerQueue(self._notify, self.rate_limiter, self.name, self.clock)

    def _live_queue(self) -> _ControllerQueue:
        """The queue, replaced by a fresh one if the last run shut it down."""
        with self._lock:
            if self._queue is None or self._queue.shutting_down():
                self._queue = self._new_queue()
            return self._queue

    def _add_keys(self, keys: list[str]) -> None:
        queue = self._queue
        if queue is None:
            return
        for key in keys:
            queue.add(key)

    def _notify(self) -> None:
        if self._waiters:
            with self._cond:
                self._cond.notify_all()

    def _register_handlers(self) -> list[Any]:
        with self._handlers_lock:
            with self._lock:
                self._handlers_on = True
                watches = list(self._watches)
            for watch in watches:
                if watch.registration is None:
                    watch.registration = watch.informer.add_event_handler(watch.handler)
            return [w.registration for w in watches]

    def _unregister_handlers(self) -> None:
        with self._handlers_lock:
            with self._lock:
                self._handlers_on = False
                watches = list(self._watches)
            for watch in watches:
                registration, watch.registration = watch.registration, None
                if registration is not None:
                    watch.informer.remove_event_handler(registration)

    # -- processing one key ----------------------------------------------------------------

    def _process(self, queue: _ControllerQueue, key: Any) -> None:
        """sample-controller's processNextWorkItem, after the Get."""
        clock = self.clock
        start = clock.now()
        in_flight = self._in_flight
        in_flight[key] = start  # for diagnostics; one dict operation is atomic, no lock
        outcome = "error"
        try:
            try:
                result = self.reconcile(key)
            except Exception as err:
                self._handle_error(queue, key, err)
            else:
                outcome = self._handle_result(queue, key, result)
        finally:
            elapsed = clock.now() - start
            with self._lock:  # counted before done(): an idle wait then sees the count
                self._reconciles += 1
                if outcome == "success":
                    self._successes += 1
                elif outcome == "requeue":
                    self._requeues += 1
                elif outcome == "requeue_after":
                    self._requeues_after += 1
            self._durations.observe(elapsed if elapsed > 0 else 0.0)
            queue.done(key)
            in_flight.pop(key, None)
            if self._waiters:
                with self._cond:
                    self._cond.notify_all()

    def _handle_result(self, queue: _ControllerQueue, key: Any, result: Any) -> str:
        if result is None:
            queue.forget(key)
            return "success"
        if not isinstance(result, Result):
            self._handle_error(queue, key, TypeError(
                f"reconcile({key!r}) returned {type(result).__name__}; it must return None "
                "or a kubenb.controller.Result"))
            return "error"
        if result.requeue_after > 0:
            queue.forget(key)
            queue.add_after(key, result.requeue_after)
            return "requeue_after"
        if result.requeue:
            queue.add_rate_limited(key)
            return "requeue"
        queue.forget(key)
        return "success"

    def _handle_error(self, queue: _ControllerQueue, key: Any, err: BaseException) -> None:
        retries = queue.num_requeues(key)
        with self._lock:
            self._errors += 1
            self._recent_errors.append((key, f"{type(err).__name__}: {err}"))
        if self.max_retries is None or retries < self.max_retries:
            log.error("controller %s: error syncing %r: %s, requeuing (retry %d)",
                      self.name, key, err, retries + 1, exc_info=err)
            queue.add_rate_limited(key)
            return
        queue.forget(key)
        with self._lock:
            self._dropped += 1
        log.error("controller %s: dropping %r out of the queue after %d retries: %s",
                  self.name, key, retries, err, exc_info=err)

    # -- run in the background ---------------------------------------------------------------

    def run(self, workers: int | None = None, *,
            leader_election: LeaderElectionConfig | LeaseLock | None = None) -> Controller:
        """Start reconciling in the background (returns self); `stop()` ends it.

        Waits (in the background) for every watched informer and handler to sync
        first, like sample-controller's `WaitForCacheSync`. With `leader_election`
        (a `LeaseLock`, or a `LeaderElectionConfig` for other timings), workers run
        only while this controller holds the Lease; after losing it the controller
        stops its workers and campaigns again, as a restarted replica would. A config's
        own callbacks are called too (`on_started_leading` first, and it must return
        promptly: the workers start after it).
        """
        n = self.workers if workers is None else workers
        _check_workers(self.name, n)
        elector = None
        if leader_election is not None:
            elector = self._make_elector(leader_election, n)
        with self._lock:
            if self._supervisor is not None:
                raise ControllerStateError(f"controller {self.name!r} is already running; "
                                           "stop() it first")
            if self._idle_session:
                raise ControllerStateError(f"controller {self.name!r} is inside "
                                           "run_until_idle() on another thread")
            stop = threading.Event()
            self._stop = stop
            self.leader_elector = elector
            if elector is None:
                self._term = "starting"  # so an idle wait right after run() waits for it
            self._supervisor = threading.Thread(
                target=self._supervise, args=(stop, n, elector), daemon=True,
                name=f"kubenb-controller-{self.name}")
            self._supervisor.start()
        return self

    def _make_elector(self, leader_election: LeaderElectionConfig | LeaseLock,
                      workers: int) -> LeaderElector:
        if isinstance(leader_election, LeaseLock):
            config = LeaderElectionConfig(lock=leader_election, name=self.name)
        elif isinstance(leader_election, LeaderElectionConfig):
            config = leader_election
        else:
            raise KubenbError(f"controller {self.name!r}: leader_election must be a LeaseLock "
                              f"or a LeaderElectionConfig, got {type(leader_election).__name__}")
        user = config.callbacks

        def started(term_stop: threading.Event) -> None:
            if user.on_started_leading is not None:
                user.on_started_leading(term_stop)
            self._lead(term_stop, workers)

        callbacks = LeaderCallbacks(on_started_leading=started,
                                    on_stopped_leading=user.on_stopped_leading,
                                    on_new_leader=user.on_new_leader)
        return LeaderElector(replace(config, callbacks=callbacks), clock=self.clock)

    def _supervise(self, stop: threading.Event, workers: int,
                   elector: LeaderElector | None) -> None:
        try:
            if elector is None:
                self._lead(stop, workers)
                return
            while not stop.is_set():
                elector.run(stop)  # returns when leadership ends; then campaign again
        except Exception:
            log.exception("controller %s: stopped by an unexpected error", self.name)
        finally:
            with self._cond:
                self._term = "none"
                self._cond.notify_all()

    def _lead(self, stop: threading.Event, workers: int) -> None:
        """One term of work: handlers on, workers until `stop`, then drain and join."""
        queue = self._live_queue()
        threads: list[threading.Thread] = []
        with self._lock:
            self._term = "starting"
        try:
            registrations = self._register_handlers()
            if not wait_for_cache_sync(stop, *registrations, poll_period=_IDLE_POLL):
                return
            log.info("controller %s: starting %d worker(s)", self.name, workers)
            for i in range(workers):
                thread = threading.Thread(target=self._run_worker, args=(queue, stop),
                                          daemon=True,
                                          name=f"kubenb-controller-{self.name}-worker-{i + 1}")
                threads.append(thread)
                thread.start()
            with self._cond:
                self._term = "ready"
                self._cond.notify_all()
            stop.wait()
        finally:
            # No new keys, finish the ones handed out (Go: workers drain the queue).
            self._unregister_handlers()
            with self._cond:  # workers paused at the gate leave now
                self._cond.notify_all()
            queue.shut_down_with_drain()
            queue.shut_down()
            with self._cond:  # idle workers see the shut-down queue and leave
                self._cond.notify_all()
            for thread in threads:
                thread.join()
            with self._cond:
                self._term = "none"
                self._cond.notify_all()
            log.info("controller %s: workers stopped", self.name)

    def _run_worker(self, queue: _ControllerQueue, stop: threading.Event) -> None:
        while True:
            key, shutdown = self._take(queue, stop)
            if shutdown:
                return
            self._process(queue, key)

    def _take(self, queue: _ControllerQueue, stop: threading.Event) -> tuple[Any, bool]:
        """Pass the gate, then `queue.get()`; `(None, True)` means leave.

        A worker waits here (not inside `get()`) until a key is queued, so a `pause()`
        holds back the very next key: it stays queued, in plain sight. Keys are taken
        under the controller's lock only when one is queued, so `get()` never blocks.
        A paused worker leaves when the term stops, without draining the queue.
        """
        with self._cond:
            self._waiters += 1
            try:
                while True:
                    closed = self._paused and self._permits == 0
                    if closed:
                        if stop.is_set() or queue.shutting_down():
                            return None, True
                    elif len(queue) or queue.shutting_down():
                        key, shutdown = queue.get()  # a key is queued: returns at once
                        if not shutdown and self._paused:
                            self._permits -= 1
                        return key, shutdown
                    if closed:
                        self._parked += 1
                        self._cond.notify_all()  # wakes a test waiting for parked workers
                    try:
                        self._cond.wait(_GATE_POLL)
                    finally:
                        if closed:
                            self._parked -= 1
            finally:
                self._waiters -= 1

    # -- the gate: pause / step / resume -----------------------------------------------

    def pause(self) -> None:
        """Hold the workers before they take their next key (reconciles running now
        finish). Queued keys stay in the workqueue; `step(n)` lets n through, `resume()`
        opens the gate. Lasts until `resume()`, also across `stop()` and `run()`.

        Only `run()`'s workers stop at the gate: `run_until_idle()` on a stopped
        controller ignores it (it is the by-hand way to drain the queue).
        """
        with self._cond:
            if not self._paused:
                self._paused = True
                self._permits = 0
            self._cond.notify_all()

    def resume(self) -> None:
        """Open the gate: workers take keys as they come again."""
        with self._cond:
            self._paused = False
            self._permits = 0
            self._cond.notify_all()

    def step(self, n: int = 1) -> None:
        """While paused, let exactly `n` more keys be taken, one worker each.

        A key not yet queued is taken when it comes; the gate then closes again.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise KubenbError(f"controller {self.name!r}: step(n) needs an int n >= 1, "
                              f"got {n!r}")
        with self._cond:
            if not self._paused:
                raise ControllerStateError(f"controller {self.name!r} is not paused: its "
                                           "workers take every key; pause() it first")
            self._permits += n
            self._cond.notify_all()

    @property
    def paused(self) -> bool:
        """True between `pause()` and `resume()`."""
        with self._lock:
            return self._paused

    @property
    def parked_workers(self) -> int:
        """Workers waiting at the closed gate now (all idle workers, once paused)."""
        with self._lock:
            return self._parked

    @property
    def pending_steps(self) -> int:
        """Keys `step()` allowed that no worker has taken yet."""
        with self._lock:
            return self._permits

    def stop(self, timeout: float | None = None) -> None:
        """Stop reconciling: no new keys, keys in hand finish, every thread is joined.

        Keys still queued are reconciled first (as Go's workers drain a shut-down queue);
        keys waiting for a retry are dropped. A `pause()`d controller's workers leave at
        the gate without draining. The controller can `run()` again later.
        """
        with self._lock:
            stop, supervisor = self._stop, self._supervisor
            self._stop = self._supervisor = None
        if stop is not None:
            stop.set()
        if supervisor is not None and supervisor is not threading.current_thread():
            supervisor.join(timeout)
            if supervisor.is_alive():
                log.warning("controller %s: still stopping after %ss (a reconcile is slow)",
                            self.name, timeout)
        self._unregister_handlers()
        with self._lock:
            queue = self._queue
        if queue is not None:
            queue.shut_down()

    def is_running(self) -> bool:
        """True between `run()` and `stop()`."""
        with self._lock:
            return self._supervisor is not None

    def is_leader(self) -> bool | None:
        """With leader election: whether this controller's workers run now; else None."""
        with self._lock:
            if self.leader_elector is None:
                return None
            return self._term != "none"

    # -- run until idle (a notebook cell, a test) ---------------------------------------------

    def run_until_idle(self, timeout: float = 10.0, quiet: float = 0.05,
                       workers: int | None = None) -> int:
        """Reconcile until nothing is left to do now; return how many reconciles ran.

        Idle means: no key queued or being reconciled, no retry already due, and every
        handler has passed on what its informer delivered, for `quiet` real seconds in
        a row (so an event already on its way is not missed). Keys waiting for a later
        retry do not count; `clock.step()` a FakeClock and call again to see them run.
        Raises `IdleTimeout` after `timeout` real seconds. Handlers stay registered
        afterwards, so the next call sees what changed meanwhile; `stop()` ends that.
        If the controller is already `run()`ning, this only waits for it to be idle (so
        it times out while `pause()` holds queued keys back). On a stopped controller its
        own workers ignore the gate: `pause()` holds back only `run()`'s workers.
        """
        n = self.workers if workers is None else workers
        _check_workers(self.name, n)
        deadline = time.monotonic() + timeout
        with self._lock:
            if self._idle_session:
                raise ControllerStateError(f"controller {self.name!r} is already inside "
                                           "run_until_idle()")
            running = self._supervisor is not None
            self._idle_session = True
            before = self._reconciles
        session = threading.Event()
        threads: list[threading.Thread] = []
        try:
            if not running:
                queue = self._live_queue()
                registrations = self._register_handlers()
                self._wait_synced(registrations, deadline, timeout)
                for i in range(n):
                    thread = threading.Thread(
                        target=self._poll_worker, args=(queue, session), daemon=True,
                        name=f"kubenb-controller-{self.name}-idle-{i + 1}")
                    threads.append(thread)
                    thread.start()
            self._wait_idle(deadline, timeout, quiet)
        finally:
            session.set()
            with self._cond:
                self._cond.notify_all()
            for thread in threads:
                thread.join()
            with self._lock:
                self._idle_session = False
                done = self._reconciles - before
        return done

    def _wait_synced(self, registrations: list[Any], deadline: float, timeout: float) -> None:
        with self._cond:
            while not all(r.has_synced() for r in registrations):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise IdleTimeout(f"controller {self.name!r}: the watched informers did "
                                      f"not sync within {timeout}s (are they started?)")
                self._cond.wait(min(_IDLE_POLL, remaining))

    def _poll_worker(self, queue: _ControllerQueue, session: threading.Event) -> None:
        """A worker that never blocks in `get()`, so it can leave when the session ends."""
        while not session.is_set():
            key: Any = None
            with self._get_lock:
                if len(queue):
                    key, shutdown = queue.get()
                    if shutdown:
                        return
            if key is not None:
                self._process(queue, key)
                continue
            with self._cond:
                if session.is_set():
                    return
                self._waiters += 1
                try:
                    self._cond.wait(_IDLE_POLL)
                finally:
                    self._waiters -= 1

    def _idle_now(self) -> bool:
        """Called with the lock held."""
        if self._term == "starting":
            return False
        queue = self._queue
        if queue is not None and not queue.shutting_down():
            if not queue.waiting_settled():  # a delayed key is due, or being moved
                return False
            if queue.busy():
                return False
        elif self._in_flight:
            return False
        for watch in self._watches:
            registration = watch.registration
            if registration is None:
                continue
            stats = registration.stats()
            if stats["pending"] or stats["busy"]:
                return False
        return True

    def _wait_idle(self, deadline: float, timeout: float, quiet: float) -> None:
        quiet_since: float | None = None
        with self._cond:
            self._waiters += 1
            try:
                while True:
                    now = time.monotonic()
                    if self._idle_now():
                        if quiet_since is None:
                            quiet_since = now
                        if now - quiet_since >= quiet:
                            return
                        wait = min(_IDLE_POLL, quiet - (now - quiet_since))
                    else:
                        quiet_since = None
                        wait = _IDLE_POLL
                    remaining = deadline - now
                    if remaining <= 0:
                        raise IdleTimeout(self._busy_message(timeout))
                    self._cond.wait(min(wait, remaining))
            finally:
                self._waiters -= 1

    def _busy_message(self, timeout: float) -> str:
        queue = self._queue
        queued = len(queue) if queue is not None else 0
        now = self.clock.now()
        busy = ", ".join(f"{k!r} for {now - t:.3g}s" for k, t in
                         list(self._in_flight.items())[:5])
        return (f"controller {self.name!r} was not idle after {timeout}s: {queued} key(s) "
                f"queued, {len(self._in_flight)} reconciling{': ' + busy if busy else ''}")

    # -- numbers -------------------------------------------------------------------------

    def metrics(self) -> ControllerMetrics:
        """A snapshot of this controller's counters and its queue's metrics."""
        with self._lock:
            queue = self._queue
            last = self._recent_errors[-1] if self._recent_errors else None
            snapshot = ControllerMetrics(
                name=self.name, workers=self.workers,
                active_workers=len(self._in_flight),
                running=self._supervisor is not None,
                leader=None if self.leader_elector is None else self._term != "none",
                reconciles=self._reconciles, successes=self._successes, errors=self._errors,
                requeues=self._requeues, requeues_after=self._requeues_after,
                dropped=self._dropped,
                last_error=None if last is None else f"{last[0]}: {last[1]}")
        return replace(snapshot, duration=self._durations.snapshot(),
                       queue=queue.metrics() if queue is not None else None)

    def recent_errors(self) -> list[tuple[str, str]]:
        """The latest reconcile errors as (key, "Type: message"), oldest first (max 50)."""
        with self._lock:
            return list(self._recent_errors)


def _check_workers(name: str, workers: Any) -> None:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise KubenbError(f"Controller {name!r}: workers must be an int >= 1, got {workers!r}")
