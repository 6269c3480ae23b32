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
is nothing left to do, for a notebook cell or a test; `process_next_work_item()` runs
one key by hand; `stop()` drains and joins every thread. `pause()` / `step(n)` /
`resume()` hold a running controller's workers at a gate before they take a key, so
queued keys stay visible in the workqueue (kubenb/controller/gate.py).
`run(leader_election=...)` runs the workers only while this process holds a
coordination.k8s.io Lease, so two kernels behave as two replicas of one controller
(kubenb/controller/leadership.py).

This module is the `Controller` alone: one concept, whose methods share its state. What
it is built from has a module each: `result` (what a reconcile returns), `enqueue`
(events to keys), `owners` (owner references), `metrics` (its numbers), `gate` and
`leadership`. Their public names are re-exported here, where code has imported them
from.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from kubenb.cache.on_stop import StopEvent, on_stop
from kubenb.cache.wait import wait_for_cache_sync
from kubenb.client.request_log import (
    RequestBuffer,
    RequestLog,
    RequestRecord,
    record_requests,
)
from kubenb.clock import Clock, RealClock
from kubenb.controller.enqueue import EnqueueFunc, EnqueueHandler, enqueue_key, enqueue_owner
from kubenb.controller.gate import WorkerGate
from kubenb.controller.leaderelection import LeaderElectionConfig, LeaderElector, LeaseLock
from kubenb.controller.leadership import new_elector, supervise
from kubenb.controller.metrics import ControllerMetrics
from kubenb.controller.owners import controller_of
from kubenb.controller.result import Result
from kubenb.errors import ControllerStateError, IdleTimeout, KubenbError
from kubenb.workqueue.interface import RateLimitingInterface
from kubenb.workqueue.metrics import InProcessSummary
from kubenb.workqueue.rate_limiters import RateLimiter, default_controller_rate_limiter
from kubenb.workqueue.rate_limiting import RateLimitingQueue

if TYPE_CHECKING:
    import pandas as pd

    from kubenb.cache import SharedInformer
    from kubenb.port import PortReport

__all__ = [
    "Controller",
    "ControllerMetrics",
    "ControllerStateError",
    "EnqueueFunc",
    "IdleTimeout",
    "Result",
    "WatchedInformer",
    "controller_of",
    "enqueue_key",
    "enqueue_owner",
]

log = logging.getLogger("kubenb.controller")

#: How many keys' last reconcile requests `requests_by_key` keeps.
_KEYS_REMEMBERED = 1000

#: How long (real seconds) an idle wait sleeps before re-checking on its own; changes
#: that do not notify (a delayed item falling due) are seen within this time.
_IDLE_POLL = 0.01


@dataclass
class _Watch:
    informer: SharedInformer
    handler: EnqueueHandler
    enqueue: EnqueueFunc
    predicate: Callable[[Any], bool] | None
    registration: Any = None


class WatchedInformer(NamedTuple):
    """One `watch()` of a controller: what `kubenb port` turns into an event handler."""

    informer: SharedInformer
    enqueue: EnqueueFunc
    predicate: Callable[[Any], bool] | None


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
        self._gate = WorkerGate(self._cond)  # before queue.get(): pause/step/resume

        self._stop: threading.Event | None = None
        self._supervisor: threading.Thread | None = None
        self._idle_session = False
        # A term of work: "none", "starting" (handlers syncing) or "ready" (workers up).
        self._term = "none"
        self.leader_elector: LeaderElector | None = None

        self._reconciles = self._successes = self._errors = 0
        self._requeues = self._requeues_after = self._dropped = 0
        self._relist_requeues = 0  # times a watched informer's relist re-queued every key
        self._durations = InProcessSummary()
        self._recent_errors: deque[tuple[str, str]] = deque(maxlen=50)
        #: Every request the reconciles made (kubenb.client.request_log), for RBAC.
        self.requests = RequestLog()
        #: Each key's last reconcile's requests, in order (the last 1000 keys).
        self.requests_by_key: dict[str, list[RequestRecord]] = {}

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

    def watch(self, informer: SharedInformer, enqueue: EnqueueFunc = enqueue_key,
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
        watch = _Watch(informer, EnqueueHandler(self.name, self._add_keys, enqueue, predicate),
                       enqueue, predicate)
        with self._handlers_lock:
            with self._lock:
                self._watches.append(watch)
                register = self._handlers_on
            if register:
                watch.registration = informer.add_event_handler(watch.handler)
        return self

    @property
    def watches(self) -> list[WatchedInformer]:
        """The informers `watch()` was given, with their enqueue and predicate."""
        with self._lock:
            return [WatchedInformer(w.informer, w.enqueue, w.predicate) for w in self._watches]

    def port(self, out_dir: str, module: str = "example.com/controller",
             **options: Any) -> PortReport:
        """Write a client-go project for this controller (see `kubenb.port.port`)."""
        # kubenb.port stands above this layer (it reads controllers); the import runs
        # only when a notebook asks a controller to port itself.
        from kubenb.port import port

        return port(self, out_dir, module=module, **options)

    def permissions(self, **options: Any) -> pd.DataFrame:
        """The RBAC rules this controller needs, from what it did (`kubenb.port`)."""
        from kubenb.port import permissions_frame  # above this layer, as in port()

        return permissions_frame(self, **options)

    @property
    def queue(self) -> RateLimitingQueue:
        """The current workqueue (made on first use; a new one after each stop)."""
        with self._lock:
            if self._queue is None:
                self._queue = self._new_queue()
            return self._queue

    @property
    def current_queue(self) -> RateLimitingQueue | None:
        """The workqueue now, or None before the first is made: unlike `queue`, reading
        it never makes one (a view polling a controller leaves no queue behind)."""
        with self._lock:
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
                    add_relist_handler = getattr(watch.informer, "add_relist_handler", None)
                    if add_relist_handler is not None:
                        add_relist_handler(self._requeue_all)
            return [w.registration for w in watches]

    def _requeue_all(self) -> None:
        """A watched informer listed again after its watch failed: queue every key of
        every watched informer, as a resync would. What was created and deleted while
        that watch was down reached no handler, and it may have been the only news of
        a key (a Secret this controller made for its ConfigMap, deleted in the gap,
        would otherwise never be made again). Keys are de-duplicated by the queue."""
        with self._lock:
            watches = list(self._watches) if self._handlers_on else []
            self._relist_requeues += 1
        for watch in watches:
            for obj in watch.informer.get_indexer().list():
                watch.handler.on_add(obj)

    def _unregister_handlers(self) -> None:
        with self._handlers_lock:
            with self._lock:
                self._handlers_on = False
                watches = list(self._watches)
            for watch in watches:
                registration, watch.registration = watch.registration, None
                if registration is not None:
                    watch.informer.remove_event_handler(registration)
                    remove_relist_handler = getattr(watch.informer, "remove_relist_handler",
                                                    None)
                    if remove_relist_handler is not None:
                        remove_relist_handler(self._requeue_all)

    # -- processing one key ----------------------------------------------------------------

    def process_next_work_item(self) -> bool:
        """Reconcile one key by hand: client-go's processNextWorkItem.

        Takes the next key from the workqueue (blocking until one is queued, as Go's
        does), calls `reconcile(key)`, forgets or requeues the key as the result says
        (the table in this module's docstring), and marks it done; the reconcile is
        counted in `metrics()` like a worker's. Returns False, without reconciling,
        when the queue is shut down and empty. Meant for a stopped controller, a key
        at a time (the informer diagram's "process next key"); on a running one it
        competes with the workers for keys.
        """
        queue = self.queue
        key, shutdown = queue.get()
        if shutdown:
            return False
        self._process(queue, key)
        return True

    def _process(self, queue: RateLimitingInterface, key: Any,
                 buffer: RequestBuffer | None = None) -> None:
        """processNextWorkItem after the Get: reconcile, forget or requeue, done.

        `buffer` is the worker thread's request recorder, active for its whole life
        (see `_run_worker`); without one (a key run by hand) one is made for this key."""
        if buffer is None:
            buffer = RequestBuffer()
            with record_requests(buffer):
                self._process(queue, key, buffer)
            return
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
            self._remember_requests(key, buffer.take())
            queue.done(key)
            in_flight.pop(key, None)
            if self._waiters:
                with self._cond:
                    self._cond.notify_all()

    def _remember_requests(self, key: Any, records: list[RequestRecord]) -> None:
        for record in records:
            self.requests.add(record)
        by_key = self.requests_by_key
        with self._lock:
            by_key.pop(key, None)
            by_key[key] = records
            if len(by_key) > _KEYS_REMEMBERED:  # one key in, at most one out
                del by_key[next(iter(by_key))]

    def _handle_result(self, queue: RateLimitingInterface, key: Any, result: Any) -> str:
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

    def _handle_error(self, queue: RateLimitingInterface, key: Any, err: BaseException) -> None:
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
            elector = new_elector(self.name, leader_election, self.clock,
                                  lambda term_stop: self._lead(term_stop, n))
        with self._lock:
            if self._supervisor is not None:
                raise ControllerStateError(f"controller {self.name!r} is already running; "
                                           "stop() it first")
            if self._idle_session:
                raise ControllerStateError(f"controller {self.name!r} is inside "
                                           "run_until_idle() on another thread")
            stop = StopEvent()
            self._stop = stop
            self.leader_elector = elector
            if elector is None:
                self._term = "starting"  # so an idle wait right after run() waits for it
            self._supervisor = threading.Thread(
                target=self._supervise, args=(stop, n, elector), daemon=True,
                name=f"kubenb-controller-{self.name}")
            self._supervisor.start()
        return self

    def _supervise(self, stop: threading.Event, workers: int,
                   elector: LeaderElector | None) -> None:
        try:
            supervise(stop, elector, lambda term_stop: self._lead(term_stop, workers))
        except Exception:
            log.exception("controller %s: stopped by an unexpected error", self.name)
        finally:
            with self._cond:
                self._term = "none"
                self._cond.notify_all()

    def _lead(self, stop: threading.Event, workers: int) -> None:
        """One term of work: handlers on, workers until `stop`, then drain and join.

        The thread that leads is the first worker too (one thread fewer per controller
        than a leader waiting for `stop`): it leaves its loop when `stop` is set (the
        shared stop waiter wakes it), ends the term, and drains with the others."""
        queue = self._live_queue()
        threads: list[threading.Thread] = []
        working = False
        with self._lock:
            self._term = "starting"
        waking = on_stop(stop, self._wake_workers)
        try:
            registrations = self._register_handlers()
            if not wait_for_cache_sync(stop, *registrations, poll_period=_IDLE_POLL):
                return
            log.info("controller %s: starting %d worker(s)", self.name, workers)
            for i in range(1, workers):
                thread = threading.Thread(target=self._run_worker, args=(queue, stop),
                                          daemon=True,
                                          name=f"kubenb-controller-{self.name}-worker-{i + 1}")
                threads.append(thread)
                thread.start()
            with self._cond:
                self._term = "ready"
                self._cond.notify_all()
            working = True
            self._run_worker(queue, stop, until_stop=True)
        finally:
            waking.cancel()
            # No new keys, finish the ones handed out (Go: workers drain the queue).
            self._unregister_handlers()
            with self._cond:  # workers paused at the gate leave now
                self._cond.notify_all()
            queue.shut_down_with_drain()
            queue.shut_down()
            with self._cond:  # idle workers see the shut-down queue and leave
                self._cond.notify_all()
            if working:
                self._run_worker(queue, stop)  # drain with the others (or alone)
            for thread in threads:
                thread.join()
            with self._cond:
                self._term = "none"
                self._cond.notify_all()
            log.info("controller %s: workers stopped", self.name)

    def _run_worker(self, queue: RateLimitingInterface, stop: threading.Event,
                    until_stop: bool = False) -> None:
        """Reconcile keys until the queue shuts down (or, `until_stop`, `stop` is set)."""
        buffer = RequestBuffer()
        with record_requests(buffer):  # this thread's requests: its reconciles'
            while True:
                key, shutdown = self._take(queue, stop, until_stop)
                if shutdown:
                    return
                self._process(queue, key, buffer)

    def _take(self, queue: RateLimitingInterface, stop: threading.Event,
              until_stop: bool = False) -> tuple[Any, bool]:
        """Pass the gate, then `queue.get()`; `(None, True)` means leave (see gate.py)."""
        with self._cond:
            self._waiters += 1  # so an add notifies this worker
            try:
                return self._gate.take(queue, stop, until_stop)
            finally:
                self._waiters -= 1

    def _wake_workers(self) -> None:
        """`stop` was set: the leading worker leaves its wait for a key."""
        with self._cond:
            self._cond.notify_all()

    # -- the gate: pause / step / resume -----------------------------------------------

    def pause(self) -> None:
        """Hold the workers before they take their next key (reconciles running now
        finish). Queued keys stay in the workqueue; `step(n)` lets n through, `resume()`
        opens the gate. Lasts until `resume()`, also across `stop()` and `run()`.

        Only `run()`'s workers stop at the gate: `run_until_idle()` on a stopped
        controller ignores it (it is the by-hand way to drain the queue).
        """
        self._gate.pause()

    def resume(self) -> None:
        """Open the gate: workers take keys as they come again."""
        self._gate.resume()

    def step(self, n: int = 1) -> None:
        """While paused, let exactly `n` more keys be taken, one worker each.

        A key not yet queued is taken when it comes; the gate then closes again.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise KubenbError(f"controller {self.name!r}: step(n) needs an int n >= 1, "
                              f"got {n!r}")
        if not self._gate.step(n):
            raise ControllerStateError(f"controller {self.name!r} is not paused: its "
                                       "workers take every key; pause() it first")

    @property
    def paused(self) -> bool:
        """True between `pause()` and `resume()`."""
        return self._gate.paused

    @property
    def parked_workers(self) -> int:
        """Workers waiting at the closed gate now (all idle workers, once paused)."""
        return self._gate.parked

    @property
    def pending_steps(self) -> int:
        """Keys `step()` allowed that no worker has taken yet."""
        return self._gate.pending_steps

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

    def _poll_worker(self, queue: RateLimitingInterface, session: threading.Event) -> None:
        """A worker that never blocks in `get()`, so it can leave when the session ends."""
        buffer = RequestBuffer()
        with record_requests(buffer):  # reset when the session ends: this thread may be
            self._poll(queue, session, buffer)  # the caller's own

    def _poll(self, queue: RateLimitingInterface, session: threading.Event,
              buffer: RequestBuffer) -> None:
        while not session.is_set():
            key: Any = None
            with self._get_lock:
                if len(queue):
                    key, shutdown = queue.get()
                    if shutdown:
                        return
            if key is not None:
                self._process(queue, key, buffer)
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
            look = queue.snapshot(limit=0)  # counts only: one atomic look, no copies
            if look.queued_count or look.processing_count:
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
                dropped=self._dropped, relist_requeues=self._relist_requeues,
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
