"""The shared processor: one informer's notifications fanned out to many handlers
(client-go `shared_informer.go`: `sharedProcessor`, `processorListener`).

Every handler registered on a shared informer gets a `ProcessorListener`: an unbounded
buffer plus one thread that calls the handler with one notification at a time, in
order. `add` never blocks, so a slow handler never holds up the informer or any other
handler; it only grows its own backlog (visible in `stats()`).

The listener is also the registration handle: its `has_synced()` is true once the
informer has synced *and* the handler has returned from every initial-list add.

Two deliberate differences from Go:
- a handler that raises is logged (logger "kubenb.cache.processor", with the
  traceback but never the object, which may be a Secret), counted in `stats()`,
  passed to `on_error` if one was given, and skipped; delivery goes on with the next
  notification at once. Go re-panics by default, and otherwise skips and sleeps 1 s.
- an initial-list add whose handler raised still counts as handled for
  `has_synced()`; in Go it would never count, and the registration would never sync.
"""

from __future__ import annotations

import itertools
import logging
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubenb.cache.affinity import pin_current_thread
from kubenb.cache.handlers import ResourceEventHandler
from kubenb.cache.keys import DeletedFinalStateUnknown
from kubenb.cache.synctrack import SingleFileTracker
from kubenb.clock import Clock, RealClock
from kubenb.errors import KubenbError

__all__ = [
    "INITIAL_BUFFER_SIZE",
    "LISTENER_IDLE_EXIT",
    "MINIMUM_RESYNC_PERIOD",
    "AddNotification",
    "DeleteNotification",
    "ErrorCallback",
    "Notification",
    "ProcessorListener",
    "SharedProcessor",
    "UpdateNotification",
    "adjust_requested_resync_period",
    "determine_resync_period",
]

_log = logging.getLogger("kubenb.cache.processor")

#: The smallest resync period a handler may ask for (client-go `minimumResyncPeriod`).
MINIMUM_RESYNC_PERIOD = 1.0
#: client-go's initial ring-buffer size; kept for `stats()` (a deque needs no sizing).
INITIAL_BUFFER_SIZE = 1024
#: Real seconds a listener's delivery thread waits for the next notification before it
#: ends; the next notification starts another. So a listener costs a thread only while
#: it has something to deliver (a cluster's informers are mostly idle), and a stream of
#: notifications keeps one thread, not one per notification.
LISTENER_IDLE_EXIT = 1.0


@dataclass(frozen=True, slots=True)
class AddNotification:
    """An object appeared; `is_in_initial_list` marks adds from the first list (or
    the synthetic adds a late-joining handler gets)."""

    new_obj: Any
    is_in_initial_list: bool = False


@dataclass(frozen=True, slots=True)
class UpdateNotification:
    """An object changed (or was resynced, when both have the same resourceVersion)."""

    old_obj: Any
    new_obj: Any


@dataclass(frozen=True, slots=True)
class DeleteNotification:
    """An object went away; `old_obj` may be a `DeletedFinalStateUnknown`."""

    old_obj: Any


Notification = AddNotification | UpdateNotification | DeleteNotification

#: `on_error(exc, notification)`: told about every exception a handler raised.
ErrorCallback = Callable[[BaseException, Notification], None]


def determine_resync_period(desired: float, check: float) -> float:
    """A listener's effective resync period (client-go `determineResyncPeriod`): 0 if
    it asked for none or the informer never resyncs (`check == 0`), else at least
    the informer's resync check period."""
    if desired == 0:
        return 0.0
    if check == 0:
        _log.info(
            "the requested resync period %ss is ignored: this shared informer does not resync",
            desired,
        )
        return 0.0
    if desired < check:
        _log.info(
            "the requested resync period %ss is raised to the resync check period %ss",
            desired,
            check,
        )
        return float(check)
    return float(desired)


def adjust_requested_resync_period(
    requested: float, resync_check_period: float, started: bool
) -> tuple[float, float]:
    """Clamp a handler's requested resync period as `AddEventHandlerWithResyncPeriod`
    does; return `(requested, resync_check_period)`, both possibly changed.

    A positive request below `MINIMUM_RESYNC_PERIOD` becomes the minimum. One below
    the check period is raised to it once the informer has started; before start it
    lowers the check period instead (the caller must then call
    `SharedProcessor.resync_check_period_changed` with the new value).
    """
    if requested < 0:
        raise KubenbError(f"resync period must be >= 0 seconds, got {requested}")
    if requested > 0:
        if requested < MINIMUM_RESYNC_PERIOD:
            _log.info(
                "resync period %ss is too small; using the minimum %ss",
                requested,
                MINIMUM_RESYNC_PERIOD,
            )
            requested = MINIMUM_RESYNC_PERIOD
        if requested < resync_check_period:
            if started:
                _log.info(
                    "resync period %ss is below the resync check period %ss of a started "
                    "informer; using the check period",
                    requested,
                    resync_check_period,
                )
                requested = resync_check_period
            else:
                resync_check_period = requested
    return float(requested), float(resync_check_period)


def _describe_obj(obj: Any) -> str:
    """Namespace/name of an object for log lines: never its content (Secrets)."""
    if isinstance(obj, DeletedFinalStateUnknown):
        return f"tombstone {obj.key}"
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if isinstance(meta, dict):
        name = meta.get("name") or "?"
        ns = meta.get("namespace")
        return f"{ns}/{name}" if ns else str(name)
    return type(obj).__name__


_listener_ids = itertools.count(1)


class ProcessorListener:
    """Delivers notifications to one handler on its own thread, in order, without
    ever blocking the sender. Also the handle `add_event_handler` returns.

    The thread runs only while there is something to deliver: it ends after
    `LISTENER_IDLE_EXIT` idle seconds, and the next notification starts a new one
    (never two at once, so the order holds).

    `requested_resync_period` is what the handler asked for (after clamping);
    `resync_period` is what is used (0 when the informer does not resync).
    """

    def __init__(
        self,
        handler: ResourceEventHandler,
        requested_resync_period: float,
        resync_period: float,
        clock: Clock | None,
        upstream_has_synced: Callable[[], bool],
        name: str = "",
        buffer_size: int = INITIAL_BUFFER_SIZE,
        on_error: ErrorCallback | None = None,
    ) -> None:
        for method in ("on_add", "on_update", "on_delete"):
            if not callable(getattr(handler, method, None)):
                raise KubenbError(
                    f"handler {type(handler).__name__} has no {method}() method; wrap plain "
                    "functions in ResourceEventHandlerFuncs"
                )
        self.handler = handler
        self.name = name or f"{next(_listener_ids)}"
        self.buffer_size = buffer_size
        self.on_error = on_error
        self._clock: Clock = clock if clock is not None else RealClock()
        self._sync_tracker = SingleFileTracker(upstream_has_synced)

        # The lock is taken directly on the hot path (a Condition's own `with` is two
        # Python-level calls more per notification, on the sender and on this thread),
        # and `add` notifies only while the thread waits.
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._waiting = False
        self._pending: deque[Notification] = deque()
        #: `pending()`: notifications queued and not yet handed to the handler. The
        #: queue's own `len` (`_pending` is never replaced), so no Python frame: the
        #: Pacer asks after every watch event.
        self.pending: Callable[[], int] = self._pending.__len__
        self._stopped = False
        self._busy = False
        self._started = False
        # The delivery thread while one runs; the last one started (and the one before
        # it, which may still be returning), for join().
        self._thread: threading.Thread | None = None
        self._threads: tuple[threading.Thread, ...] = ()
        self._counts = {"adds": 0, "updates": 0, "deletes": 0, "handler_errors": 0}
        self.last_error: BaseException | None = None
        # Called after each delivery (the informer's Pacer), with the notification when
        # no other listener still holds it, else None; set before start.
        self.on_progress: Callable[[Notification | None], None] | None = None
        # Whether other listeners get the same notifications (kept by the processor).
        self.shared = False
        # The CPU the delivery thread runs on, or None (set by the processor).
        self.cpu: int | None = None

        self._resync_lock = threading.Lock()
        self.requested_resync_period = float(requested_resync_period)
        self.resync_period = float(resync_period)
        self._next_resync = 0.0
        self.determine_next_resync(self._clock.now())

    # ---------------------------------------------------------------- delivery

    def add(self, notification: Notification) -> None:
        """Queue a notification; never blocks. Dropped once the listener stopped."""
        with self._lock:
            if self._stopped:
                return
            if notification.__class__ is AddNotification and notification.is_in_initial_list:
                self._sync_tracker.start()
            self._pending.append(notification)
            if self._waiting:
                self._cond.notify()
            elif self._thread is None and self._started:
                self._start_thread()

    def run(self) -> None:
        """Deliver notifications until `stop()`, or until none came for
        `LISTENER_IDLE_EXIT` seconds; what is still queued at a stop is dropped (as in
        Go, where closing the listener discards its buffer)."""
        pin_current_thread(self.cpu)  # a listener added later starts on the caller's CPUs
        pending = self._pending
        cond = self._cond
        lock = self._lock
        while True:
            with lock:
                if not pending and not self._stopped:
                    self._busy = False
                    self._waiting = True
                    try:
                        cond.wait(LISTENER_IDLE_EXIT)
                    finally:
                        self._waiting = False
                    if not pending and not self._stopped:
                        self._thread = None  # idle: the next add() starts another
                        return
                if self._stopped:
                    self._busy = False
                    return
                notification = pending.popleft()
                self._busy = True
            self._deliver(notification)
            if self.on_progress is not None:
                # The Pacer keeps it for the Reflector to free (kubenb.cache.pacing),
                # from the last listener to deliver it only (one notification goes to
                # every listener): one hand-back per event, whatever the listeners.
                # A sole listener is the last by definition: the distributor may not
                # have dropped its own reference yet, which is no reason to free it here.
                last = not self.shared or sys.getrefcount(notification) <= 2
                self.on_progress(notification if last else None)
            del notification  # else free the replaced object now, not after the next wait

    def _deliver(self, notification: Notification) -> None:
        handler = self.handler
        initial = False
        try:
            if type(notification) is UpdateNotification:
                self._counts["updates"] += 1
                handler.on_update(notification.old_obj, notification.new_obj)
            elif type(notification) is AddNotification:
                self._counts["adds"] += 1
                initial = notification.is_in_initial_list
                handler.on_add(notification.new_obj, initial)
            elif type(notification) is DeleteNotification:
                self._counts["deletes"] += 1
                handler.on_delete(notification.old_obj)
            else:
                _log.error("listener %s: unrecognized notification type %s", self.name,
                           type(notification).__name__)
        except Exception as exc:
            self._handler_failed(exc, notification)
        finally:
            if initial:
                self._sync_tracker.finished()

    def _handler_failed(self, exc: Exception, notification: Notification) -> None:
        self._counts["handler_errors"] += 1
        self.last_error = exc
        obj = notification.old_obj if isinstance(notification, DeleteNotification) else (
            notification.new_obj
        )
        _log.error(
            "listener %s: handler %s raised on %s of %s; skipped",
            self.name,
            type(self.handler).__name__,
            type(notification).__name__,
            _describe_obj(obj),
            exc_info=exc,
        )
        if self.on_error is not None:
            try:
                self.on_error(exc, notification)
            except Exception:
                _log.exception("listener %s: on_error callback raised", self.name)

    def start(self) -> None:
        """Start delivering (idempotent), on a thread `kubenb-listener-<name>` that runs
        while there is something to deliver."""
        with self._cond:
            if self._stopped:
                raise KubenbError(
                    f"listener {self.name} was stopped and cannot be started again; "
                    "register the handler anew"
                )
            if self._started:
                return
            self._started = True
            if self._pending:
                self._start_thread()

    def _start_thread(self) -> None:
        """Called with the lock held, when no delivery thread runs."""
        thread = threading.Thread(target=self.run, name=f"kubenb-listener-{self.name}",
                                  daemon=True)
        self._thread = thread
        self._threads = (*self._threads[-1:], thread)
        thread.start()

    def stop(self) -> None:
        """Stop delivering: the handler call in progress finishes, the rest is
        dropped. Does not wait; see `join`."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the delivery thread to end; True when it has (or never ran).
        Returns at once when called from the handler's own thread."""
        with self._lock:
            threads = self._threads
        me = threading.current_thread()
        for thread in threads:
            if thread is not me:
                thread.join(timeout)
        return not any(t.is_alive() for t in threads if t is not me)

    def is_stopped(self) -> bool:
        """Whether `stop()` was called."""
        with self._cond:
            return self._stopped

    # ------------------------------------------------------------------- sync

    def has_synced(self) -> bool:
        """The informer has synced and the handler returned from every initial add."""
        return self._sync_tracker.has_synced()

    # ----------------------------------------------------------------- resync

    def should_resync(self, now: float) -> bool:
        """Whether this listener is due a resync at clock time `now` (never when its
        resync period is 0)."""
        with self._resync_lock:
            if self.resync_period == 0:
                return False
            return now >= self._next_resync

    def determine_next_resync(self, now: float) -> None:
        """Schedule the next resync one period after `now`."""
        with self._resync_lock:
            self._next_resync = now + self.resync_period

    def set_resync_period(self, period: float) -> None:
        """Change the effective period; the next resync time is kept as it was."""
        with self._resync_lock:
            self.resync_period = float(period)

    @property
    def next_resync(self) -> float:
        """Clock time of the next resync this listener is due."""
        with self._resync_lock:
            return self._next_resync

    # ------------------------------------------------------------------ stats

    def stats(self) -> dict[str, Any]:
        """A snapshot for metrics and teaching views. adds/updates/deletes count the
        notifications handed to the handler, including ones it raised on."""
        with self._cond:
            counts = dict(self._counts)
            pending = len(self._pending)
            busy = self._busy
            stopped = self._stopped
            started = self._started
            threads = self._threads
        return {
            "name": self.name,
            **counts,
            "pending": pending,
            "busy": busy,
            # Started and not stopped (its thread runs only while it has work), or stopped
            # with its last delivery still running.
            "running": started and (not stopped or any(t.is_alive() for t in threads)),
            "stopped": stopped,
            "has_synced": self.has_synced(),
            "requested_resync_period": self.requested_resync_period,
            "resync_period": self.resync_period,
        }

    def __repr__(self) -> str:
        return (
            f"<ProcessorListener {self.name} handler={type(self.handler).__name__} "
            f"pending={len(self._pending)} stopped={self._stopped}>"
        )


class SharedProcessor:
    """Fans notifications out to listeners (client-go `sharedProcessor`).

    Each listener carries a "syncing" mark, set by `should_resync`: a sync
    notification (an update that did not change the resourceVersion) goes only to
    listeners marked syncing; everything else goes to all. A new listener starts
    marked syncing, as in Go.
    """

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock: Clock = clock if clock is not None else RealClock()
        self._lock = threading.RLock()
        # listener -> currently syncing; insertion-ordered, so delivery order is stable.
        self._listeners: dict[ProcessorListener, bool] = {}
        self._snapshot: tuple[ProcessorListener, ...] = ()  # read without the lock
        self._started = False
        #: Given to every listener as its `on_progress` (the informer's Pacer).
        self.on_progress: Callable[[Notification | None], None] | None = None
        #: The CPU every listener's thread runs on (the informer's `cpu_affinity`).
        self.cpu: int | None = None

    def add_listener(self, listener: ProcessorListener) -> ProcessorListener:
        """Register a listener, starting it if the processor is running."""
        with self._lock:
            listener.on_progress = self.on_progress
            listener.cpu = self.cpu
            if self._started:
                listener.start()
            self._listeners[listener] = True
            self._listeners_changed()
        return listener

    def _listeners_changed(self) -> None:
        self._snapshot = snapshot = tuple(self._listeners)
        for listener in snapshot:
            listener.shared = len(snapshot) > 1

    def remove_listener(self, listener: Any, timeout: float | None = None) -> None:
        """Unregister, stop and join a listener. Unknown or already removed listeners
        (including another processor's) are a no-op."""
        with self._lock:
            if listener not in self._listeners:
                return
            del self._listeners[listener]
            self._listeners_changed()
            listener.stop()
        listener.join(timeout)

    def distribute(self, notification: Notification, sync: bool) -> None:
        """Hand `notification` to every listener, or, when `sync` is true, only to
        those marked syncing by the last `should_resync`."""
        with self._lock:
            if not sync:
                for listener in self._listeners:
                    listener.add(notification)
            else:
                for listener, syncing in self._listeners.items():
                    if syncing:
                        listener.add(notification)

    def start(self) -> None:
        """Start every listener's thread; later listeners start as they are added."""
        with self._lock:
            if self._started:
                return
            for listener in self._listeners:
                listener.start()
            self._started = True

    def stop(self, timeout: float | None = None) -> bool:
        """Stop and join every listener and forget them (a listener cannot be
        reused, as in Go). True when every thread ended within `timeout`."""
        with self._lock:
            listeners = list(self._listeners)
            for listener in listeners:
                listener.stop()
            self._listeners = {}
            self._snapshot = ()
            self._started = False
        all_joined = True
        for listener in listeners:
            all_joined = listener.join(timeout) and all_joined
        return all_joined

    def run(self, stop: threading.Event) -> None:
        """Run the listeners until `stop` is set, then stop and join them."""
        self.start()
        try:
            stop.wait()
        finally:
            self.stop()

    def is_running(self) -> bool:
        """Whether the processor has been started and not stopped."""
        with self._lock:
            return self._started

    def should_resync(self) -> bool:
        """Mark each listener syncing iff it is due now, schedule the next resync of
        those that are, and say whether any is (client-go `shouldResync`)."""
        with self._lock:
            now = self._clock.now()
            needed = False
            for listener in self._listeners:
                due = listener.should_resync(now)
                self._listeners[listener] = due
                if due:
                    needed = True
                    listener.determine_next_resync(now)
            return needed

    def resync_check_period_changed(self, resync_check_period: float) -> None:
        """Re-derive every listener's effective period from its requested one."""
        with self._lock:
            for listener in self._listeners:
                listener.set_resync_period(
                    determine_resync_period(listener.requested_resync_period, resync_check_period)
                )

    def is_syncing(self, listener: ProcessorListener) -> bool:
        """Whether `listener` is currently marked to receive sync notifications."""
        with self._lock:
            return self._listeners.get(listener, False)

    @property
    def snapshot(self) -> tuple[ProcessorListener, ...]:
        """The registered listeners, read without the lock (for the Pacer): a new tuple
        whenever they change."""
        return self._snapshot

    def listeners(self) -> list[ProcessorListener]:
        """The registered listeners, in registration order."""
        with self._lock:
            return list(self._listeners)

    def stats(self) -> list[dict[str, Any]]:
        """`stats()` of every listener."""
        return [listener.stats() for listener in self.listeners()]

    def __len__(self) -> int:
        return len(self._listeners)

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<SharedProcessor listeners={len(self._listeners)} running={self._started}>"
