"""SharedIndexInformer: one ListAndWatch, one indexed cache, any number of handlers.

client-go's `tools/cache/shared_informer.go` (section I of the spec). The Controller
pops deltas into `handle_deltas`, which writes the indexer and hands notifications to
the `SharedProcessor`; each handler has its own listener thread and unbounded
buffer, so a slow handler never holds up the cache or another handler. Handlers
added while running first get a synthetic add for every cached object (I82).

Differences from Go, on purpose: a handler that raises is logged and counted and
delivery goes on (Go re-panics); `start()` runs the informer on a background
thread for notebooks, next to the blocking `run(stop)`.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from kubenb.cache.affinity import CpuAffinity, choose_cpu, pinned
from kubenb.cache.controller import Controller, new_queue, process_deltas
from kubenb.cache.delta_fifo import Delta
from kubenb.cache.keys import deletion_handling_meta_namespace_key_func
from kubenb.cache.listwatch import ListerWatcher
from kubenb.cache.on_stop import StopEvent
from kubenb.cache.pacing import DEFAULT_PACE_LIMIT, Pacer
from kubenb.cache.processor import (
    AddNotification,
    DeleteNotification,
    ProcessorListener,
    SharedProcessor,
    UpdateNotification,
    adjust_requested_resync_period,
    determine_resync_period,
)
from kubenb.cache.protocols import Queue
from kubenb.cache.store import Indexer, new_indexer
from kubenb.cache.weak import weak_method
from kubenb.clock import Clock, RealClock
from kubenb.errors import InformerStateError

__all__ = [
    "InformerStateError",
    "PacingStages",
    "SharedIndexInformer",
]

log = logging.getLogger(__name__)


def _resource_version(obj: Any) -> str | None:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta.get("resourceVersion") if isinstance(meta, dict) else None


class PacingStages:
    """What the Pacer asks after every watch event: each listener and the informer's
    queue, with what each holds. The count functions are looked up again only when the
    listeners change (the processor's snapshot is a new tuple then), so the Reflector
    pays a call per stage, not a walk through the processor. Holds the processor weakly:
    the processor holds the Pacer (its `on_progress`), which holds this."""

    __slots__ = ("_counts", "_listeners", "_processor", "queue")

    def __init__(self, processor: SharedProcessor) -> None:
        self._processor = weakref.ref(processor)
        self._listeners: tuple[Any, ...] = ()
        self._counts: tuple[tuple[Any, Callable[[], int]], ...] = ()
        self.queue: Queue | None = None  # the controller's DeltaFIFO, once the informer runs

    def __call__(self) -> list[tuple[Any, int]]:
        processor = self._processor()
        if processor is None:
            return []
        listeners = processor.snapshot
        if listeners is not self._listeners:
            self._counts = tuple((listener, listener.pending) for listener in listeners)
            self._listeners = listeners
        stages = [(stage, count()) for stage, count in self._counts]
        queue = self.queue
        if queue is not None:
            stages.append((queue, len(queue)))
        return stages


class SharedIndexInformer:
    """A shared informer over one `ListerWatcher`, with an indexed cache."""

    def __init__(self, list_watcher: ListerWatcher, expected_type: tuple[str, str] | None = None,
                 default_event_handler_resync_period: float = 0.0,
                 indexers: dict[str, Any] | None = None, *, queue: str = "DeltaFIFO",
                 transform: Callable[[Any], Any] | None = None, name: str = "",
                 clock: Clock | None = None, pace_limit: int = DEFAULT_PACE_LIMIT,
                 cpu_affinity: CpuAffinity = None, **reflector_options: Any) -> None:
        if queue not in ("DeltaFIFO", "RealFIFO"):
            raise ValueError(f'queue must be "DeltaFIFO" or "RealFIFO", not {queue!r}')
        self.list_watcher = list_watcher
        self.expected_type = expected_type
        self.name = name or getattr(list_watcher, "description", "") or "informer"
        self.queue_kind = queue
        self.clock = clock or RealClock()
        self.indexer: Indexer = new_indexer(deletion_handling_meta_namespace_key_func,
                                            indexers or {})
        self.processor = SharedProcessor(self.clock)
        # One CPU for all of this informer's threads, or None (kubenb.cache.affinity).
        self.cpu: int | None = choose_cpu(cpu_affinity)
        self.processor.cpu = self.cpu
        # How far the Reflector may run ahead of the queue and the listeners that keep
        # up (kubenb.cache.pacing explains why); 0 turns pacing off.
        self._pacing_stages = PacingStages(self.processor)
        self.pacer: Pacer | None = Pacer(self._pacing_stages, pace_limit) \
            if pace_limit > 0 else None
        if self.pacer is not None:
            self.processor.on_progress = self.pacer.progress
        self.default_event_handler_resync_period = default_event_handler_resync_period
        self.resync_check_period = default_event_handler_resync_period
        self.reflector_options = reflector_options
        self._transform = transform
        self._watch_error_handler: Callable[..., None] | None = None
        self._relist_handlers: list[Callable[[], None]] = []
        self._lock = threading.Lock()  # started/stopped flags and the controller
        self._block_deltas = threading.Lock()  # handle_deltas vs. adding a handler (I82)
        self._controller: Controller | None = None
        self._started = False
        self._stopped = False
        self._thread: threading.Thread | None = None
        self._own_stop: threading.Event | None = None
        self.handler_errors = 0
        self.remove_timeout = 10.0  # how long remove_event_handler waits for a busy handler

    def __repr__(self) -> str:
        state = ("stopped" if self.is_stopped() else "running" if self._started else "new")
        return (f"SharedIndexInformer({self.name!r}, {state}, queue={self.queue_kind}, "
                f"objects={len(self.indexer.list_keys())}, handlers={len(self.processor)})")

    # -- configuration before start ------------------------------------------------------

    def set_transform(self, transform: Callable[[Any], Any] | None) -> None:
        """Slim objects before they are stored (H74-H75); only before `run`."""
        with self._lock:
            if self._started:
                raise InformerStateError("informer has already started")
            self._transform = transform

    def set_watch_error_handler(self, handler: Callable[..., None]) -> None:
        with self._lock:
            if self._started:
                raise InformerStateError("informer has already started")
            self._watch_error_handler = handler

    def add_relist_handler(self, handler: Callable[[], None]) -> None:
        """Call `handler()` (on the Reflector's thread) each time this informer lists
        again after its first list: after a watch that could not resume (410 Gone, an
        expired resourceVersion, a failed watch). An object created and deleted while
        the watch was down is in no list and reaches no event handler; a controller
        that maps these objects to other keys (an owner's) re-queues its keys here.
        kubenb only: client-go leaves this to a resync period."""
        with self._lock:
            self._relist_handlers.append(handler)

    def remove_relist_handler(self, handler: Callable[[], None]) -> None:
        """Forget a handler `add_relist_handler` added (unknown ones are ignored)."""
        with self._lock:
            if handler in self._relist_handlers:
                self._relist_handlers.remove(handler)

    def _relisted(self) -> None:
        with self._lock:
            handlers = list(self._relist_handlers)
        for handler in handlers:
            try:
                handler()
            except Exception:
                log.exception("%s: a relist handler failed", self.name)

    @property
    def watch_error_handler(self) -> Callable[..., None] | None:
        """The handler `set_watch_error_handler` set (None: the Reflector's default), so
        a new handler can chain to the one it replaces."""
        return self._watch_error_handler

    def add_indexers(self, indexers: dict[str, Any]) -> None:
        """Add indexes; allowed while running (client-go >= 1.30), not after stop (I95)."""
        with self._lock:
            if self._stopped:
                raise InformerStateError("indexer was not added because it has stopped already")
        self.indexer.add_indexers(indexers)

    # -- handlers ------------------------------------------------------------------------

    def add_event_handler(self, handler: Any) -> ProcessorListener:
        """Register `handler` with the informer's default resync period."""
        return self.add_event_handler_with_resync_period(
            handler, self.default_event_handler_resync_period)

    def add_event_handler_with_resync_period(self, handler: Any,
                                             resync_period: float) -> ProcessorListener:
        """Register `handler`; returns its registration (`has_synced()`, and the handle
        `remove_event_handler` takes). A running informer first sends it a synthetic
        add of every cached object (I82); a stopped one refuses (I94)."""
        with self._lock:
            if self._stopped:
                raise InformerStateError(
                    f"handler {handler!r} was not added to shared informer because it has "
                    "stopped already")
            started = self._started
            requested, check = adjust_requested_resync_period(
                resync_period, self.resync_check_period, started)
            if check != self.resync_check_period:
                self.resync_check_period = check
                self.processor.resync_check_period_changed(check)
            listener = ProcessorListener(
                handler, requested, determine_resync_period(requested, self.resync_check_period),
                self.clock, weak_method(self.has_synced, False),
                name=f"{self.name}-{len(self.processor) + 1}",
                on_error=weak_method(self._on_handler_error))
            if not started:
                return self.processor.add_listener(listener)
        with self._block_deltas:
            self.processor.add_listener(listener)
            for obj in self.indexer.list():
                listener.add(AddNotification(obj, True))
        return listener

    def remove_event_handler(self, registration: Any) -> None:
        """Stop delivering to a registration; unknown or repeated removals are no-ops.

        The listener is unregistered under the delta lock (no notification reaches it
        afterwards) but joined outside it, so a handler still finishing its current
        call cannot hold up the informer, nor deadlock if it waits on the informer.
        """
        with self._block_deltas:
            self.processor.remove_listener(registration, timeout=0)
        join = getattr(registration, "join", None)
        if join is not None and not join(self.remove_timeout):
            log.warning("%s: handler %r is still busy %.0fs after its removal; its thread "
                        "will end when the call returns", self.name, registration,
                        self.remove_timeout)

    def _on_handler_error(self, err: BaseException, notification: Any) -> None:
        with self._lock:
            self.handler_errors += 1

    # -- the delta path ----------------------------------------------------------------------

    def handle_deltas(self, deltas: Sequence[Delta], is_in_initial_list: bool) -> None:
        """The Controller's process function: store first, then notify (H73, I81)."""
        with self._block_deltas:
            process_deltas(self, self.indexer, deltas, is_in_initial_list)
        if self.pacer is not None:
            self.pacer.progress()

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        self.processor.distribute(AddNotification(obj, is_in_initial_list), False)

    def on_update(self, old: Any, new: Any) -> None:
        # An update that did not move the resourceVersion is a resync: it only goes to
        # listeners due a resync (I89).
        is_sync = old is not None and _resource_version(old) == _resource_version(new)
        self.processor.distribute(UpdateNotification(old, new), is_sync)

    def on_delete(self, old: Any) -> None:
        self.processor.distribute(DeleteNotification(old), False)

    # -- lifecycle -------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        """ListAndWatch and deliver until `stop`; joins every thread it started.
        With `cpu_affinity`, this thread and every thread it starts stay on `self.cpu`
        (the calling thread gets its own CPUs back when `run` returns)."""
        with pinned(self.cpu):
            self._run(stop)

    def _run(self, stop: threading.Event) -> None:
        with self._lock:
            if self._started:
                log.warning("%s: run more than once is not allowed", self.name)
                return
            if self._stopped:
                return
            queue = new_queue(self.queue_kind, self.indexer, self._transform, self.clock)
            options = dict(self.reflector_options)
            if self.expected_type is not None:
                options.setdefault("expected_type", self.expected_type)
            if self._watch_error_handler is not None:
                options.setdefault("watch_error_handler", self._watch_error_handler)
            if self.pacer is not None:
                options.setdefault("pace", self.pacer.pace)
            options.setdefault("on_relist", weak_method(self._relisted))
            self._pacing_stages.queue = queue
            self._controller = Controller(
                queue, self.list_watcher, weak_method(self.handle_deltas),
                full_resync_period=self.resync_check_period,
                should_resync=self.processor.should_resync, name=self.name, clock=self.clock,
                reflector_options=options)
            self._started = True
        self.processor.start()
        try:
            self._controller.run(stop)
        finally:
            self.processor.stop()
            if self.pacer is not None:
                self.pacer.close()
            with self._lock:
                self._stopped = True

    def start(self) -> SharedIndexInformer:
        """Run on a background thread (for notebooks); `stop()` ends it."""
        with self._lock:
            if self._thread is not None:
                return self
            self._own_stop = StopEvent()
            self._thread = threading.Thread(target=self.run, args=(self._own_stop,),
                                            daemon=True, name=f"kubenb-informer-{self.name}")
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop an informer started with `start()` and join its threads."""
        with self._lock:
            thread, stop = self._thread, self._own_stop
        if stop is not None:
            stop.set()
        if thread is not None:
            thread.join(timeout)

    def has_synced(self) -> bool:
        """True once the first list has been delivered to the cache (I94: False before run)."""
        with self._lock:
            controller = self._controller
        return controller is not None and controller.has_synced()

    def wait_for_cache_sync(self, timeout: float | None = None) -> bool:
        from kubenb.cache.wait import wait_for_cache_sync

        return wait_for_cache_sync(self._own_stop, self.has_synced, timeout=timeout)

    def last_sync_resource_version(self) -> str:
        with self._lock:
            controller = self._controller
        return "" if controller is None else controller.last_sync_resource_version()

    def is_stopped(self) -> bool:
        with self._lock:
            return self._stopped

    def is_started(self) -> bool:
        with self._lock:
            return self._started

    def get_store(self) -> Indexer:
        return self.indexer

    def get_indexer(self) -> Indexer:
        return self.indexer

    def get_controller(self) -> Controller | None:
        return self._controller

    def stats(self) -> dict[str, Any]:
        """Every stage's counters as one snapshot: reflector, queue, store, listeners."""
        controller = self._controller
        reflector = controller.reflector if controller is not None else None
        queue = controller.queue if controller is not None else None
        return {
            "name": self.name,
            "queue_kind": self.queue_kind,
            "cpu": self.cpu,
            "started": self.is_started(),
            "stopped": self.is_stopped(),
            "synced": self.has_synced(),
            "reflector": reflector.stats() if reflector is not None else {},
            "queue_depth": len(queue.list_keys()) if queue is not None else 0,
            "deltas_popped": controller.deltas_popped if controller is not None else 0,
            "process_errors": controller.process_errors if controller is not None else 0,
            "objects": len(self.indexer.list_keys()),
            "handler_errors": self.handler_errors,
            "pacing": self.pacer.stats() if self.pacer is not None else {},
            "listeners": self.processor.stats(),
        }
