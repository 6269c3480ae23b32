"""Controller: a Reflector filling a queue, and `process_loop` draining it.

client-go's `tools/cache/controller.go`. `run(stop)` runs the Reflector on the
caller's thread until `stop` is set, when the queue is closed. The queues of
tools/cache are popped by a `kubenb-process-<name>` thread that runs only while
deltas flow (it ends after PROCESS_IDLE seconds with nothing queued, and the next
write starts another: a blocked goroutine costs Go nothing, a Python thread does, and
most informers of a cluster are idle); another queue is popped by a thread that lives
as long as the Reflector, as in client-go. `process_deltas` is the one place deltas
become store writes and handler calls, store first (H73).
`new_informer`/`new_indexer_informer` wire a queue, a store and a handler the way
client-go's constructors of the same names do.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from kubenb.cache.delta_fifo import Delta, DeltaFIFO, DeltaType
from kubenb.cache.keys import deletion_handling_meta_namespace_key_func
from kubenb.cache.listwatch import ListerWatcher
from kubenb.cache.on_stop import on_stop
from kubenb.cache.protocols import Queue
from kubenb.cache.queue_base import QueueBase
from kubenb.cache.reflector import Reflector
from kubenb.cache.store import Indexer, Store, new_indexer, new_store
from kubenb.cache.weak import weak_method
from kubenb.clock import Clock, RealClock
from kubenb.errors import FIFOClosedError, QueueIdleError

__all__ = [
    "PROCESS_IDLE",
    "Controller",
    "ProcessFunc",
    "new_indexer_informer",
    "new_informer",
    "new_queue",
    "process_deltas",
]

log = logging.getLogger(__name__)

ProcessFunc = Callable[[Sequence[Delta], bool], None]

#: Real seconds a process loop waits on an empty queue before its thread ends.
PROCESS_IDLE = 1.0


def new_queue(kind: str, known_objects: Any, transformer: Callable[[Any], Any] | None,
              clock: Clock | None = None) -> Any:
    """The informer queue: "DeltaFIFO" (client-go <= 1.32) or "RealFIFO" (1.33+)."""
    if kind == "DeltaFIFO":
        return DeltaFIFO(known_objects=known_objects, emit_delta_type_replaced=True,
                         transformer=transformer)
    if kind == "RealFIFO":
        from kubenb.cache.real_fifo import RealFIFO

        return RealFIFO(known_objects=known_objects, transformer=transformer, clock=clock)
    raise ValueError(f'queue must be "DeltaFIFO" or "RealFIFO", not {kind!r}')


def process_deltas(handler: Any, store: Store, deltas: Sequence[Delta],
                   is_in_initial_list: bool) -> None:
    """Apply deltas oldest first: write the store, then call the handler (H73)."""
    for delta in deltas:
        obj = delta.object
        if delta.type is DeltaType.DELETED:
            store.delete(obj)
            handler.on_delete(obj)
            continue
        old = store.get(obj)
        if old is not None:
            store.update(obj)
            handler.on_update(old, obj)
        else:
            store.add(obj)
            handler.on_add(obj, is_in_initial_list)


class Controller:
    """Runs a Reflector into `queue` and pops it through `process` (client-go's controller)."""

    def __init__(self, queue: Queue, list_watcher: ListerWatcher, process: ProcessFunc, *,
                 full_resync_period: float = 0.0,
                 should_resync: Callable[[], bool] | None = None,
                 retry_on_error: bool = False, name: str = "",
                 clock: Clock | None = None, reflector_options: dict[str, Any] | None = None
                 ) -> None:
        self.queue = queue
        self.list_watcher = list_watcher
        self.process = process
        self.full_resync_period = full_resync_period
        self.should_resync = should_resync
        self.retry_on_error = retry_on_error
        self.name = name or getattr(list_watcher, "description", "") or "controller"
        self.clock = clock or RealClock()
        self.reflector_options = dict(reflector_options or {})
        self.reflector: Reflector | None = None
        self._lock = threading.Lock()
        self.process_errors = 0
        self.deltas_popped = 0
        # The teaching gate (pause / step / resume): see `pause`. Only consulted
        # while paused, so the normal loop pays one attribute read per pop.
        self._gate = threading.Condition()
        self._paused = False
        self._step_grants = 0
        self._held: tuple[Any, bool] | None = None
        self._last_step: Any = None
        self.steps = 0
        self._process_threads: list[threading.Thread] = []

    def __repr__(self) -> str:
        return f"Controller({self.name!r}, synced={self.has_synced()})"

    def run(self, stop: threading.Event) -> None:
        """Block until `stop`, running the Reflector here and `process_loop` on a thread
        of its own (H78); every thread started is joined before this returns."""
        reflector = Reflector(self.list_watcher, self.queue, self.full_resync_period,
                              name=self.name, clock=self.clock,
                              should_resync=self.should_resync, **self.reflector_options)
        with self._lock:
            self.reflector = reflector
            self._process_threads = []
        closing = on_stop(stop, self._close)
        try:
            if isinstance(self.queue, QueueBase):
                # weakly: the queue must not keep its Controller (and cache) alive
                self.queue.consume_on_demand(weak_method(self._start_process_thread),
                                             PROCESS_IDLE)
            else:
                self._start_process_thread()
            reflector.run(stop)
        finally:
            self.queue.close()
            closing.cancel()
            with self._lock:
                threads, self._process_threads = self._process_threads, []
            for thread in threads:
                thread.join()

    def _start_process_thread(self) -> None:
        """Start a thread running `process_loop` (for an on-demand queue: called under
        its lock, by the write that found no consumer)."""
        thread = threading.Thread(target=self.process_loop, daemon=True,
                                  name=f"kubenb-process-{self.name}")
        with self._lock:
            self._process_threads = [t for t in self._process_threads if t.is_alive()]
            self._process_threads.append(thread)
        thread.start()

    def _close(self) -> None:
        """Stop was set: end a `pop` blocked on the empty queue, and a paused loop."""
        self.queue.close()
        with self._gate:
            self._gate.notify_all()

    # -- the teaching gate ---------------------------------------------------------------

    def pause(self) -> None:
        """Stop applying deltas: the Reflector keeps filling the queue, `process_loop`
        waits. An item popped while the loop was already blocked in `pop` is held
        (not applied) and is the first one `step()` applies. Not in client-go: it is
        for notebooks that show one delta at a time."""
        with self._gate:
            self._paused = True

    def resume(self) -> None:
        """Apply deltas again (a held item first)."""
        with self._gate:
            self._paused = False
            self._gate.notify_all()

    def is_paused(self) -> bool:
        return self._paused

    def held(self) -> Any:
        """The deltas popped but held by a pause (applied by the next step), or None."""
        held = self._held
        return None if held is None else held[0]

    def step(self, timeout: float = 5.0) -> Any:
        """While paused, apply exactly one queued item; returns its deltas, or None
        when nothing is queued (or the loop did not take it within `timeout` real
        seconds). Raises `RuntimeError` unless paused."""
        with self._gate:
            if not self._paused:
                raise RuntimeError(f"{self.name}: step() needs pause() first")
            if self._held is None and self.queue.is_empty():
                return None
            done = self.steps
            self._last_step = None
            self._step_grants += 1
            self._gate.notify_all()
            if not self._gate.wait_for(lambda: self.steps > done, timeout):
                self._step_grants = max(self._step_grants - 1, 0)
                return None
            return self._last_step

    def _gated(self, apply: Callable[[Any, bool], None]) -> bool:
        """One turn of the paused loop; False once the queue is closed."""
        with self._gate:
            while self._paused and not self._step_grants:
                if self.queue.is_closed():
                    return False
                self._gate.wait(0.1)
            held, self._held = self._held, None
        if held is not None:
            self._apply_step(held[0], held[1])
            return True
        if not self._paused:
            return True
        try:
            deltas = self.queue.pop(apply)
        except (FIFOClosedError, QueueIdleError):
            return False
        except Exception:
            with self._gate:  # the step happened, and failed: step() must not hang
                self._finish_step(None)
            raise
        self.deltas_popped += 1
        with self._gate:
            self._finish_step(deltas)
        return True

    def _apply_step(self, deltas: Any, is_in_initial_list: bool) -> None:
        try:
            self.process(deltas, is_in_initial_list)
            self.deltas_popped += 1
        except Exception as err:
            self.process_errors += 1
            log.error("%s: processing a held item failed: %s", self.name, err, exc_info=err)
        with self._gate:
            self._finish_step(deltas)

    def _finish_step(self, deltas: Any) -> None:
        """With the gate held: count a step taken while paused."""
        if self._paused and self._step_grants:
            self._step_grants -= 1
            self._last_step = deltas
            self.steps += 1
            self._gate.notify_all()

    def process_loop(self) -> None:
        """Pop until the queue closes (or, on demand, stays empty a while); a failing
        `process` is logged and, with `retry_on_error` (DeltaFIFO only), its deltas are
        put back."""
        popped: list[Any] = []

        def process(deltas: Any, is_in_initial_list: bool) -> None:
            popped[:] = [deltas]
            if self._paused:
                # Paused while blocked in pop: hold it, apply nothing. Even with a step
                # granted: that step is counted on the gated path, which applies the
                # held item first; applying it here would go uncounted and the step
                # would take the next item.
                with self._gate:
                    if self._paused:
                        self._held = (deltas, is_in_initial_list)
                        return
            self.process(deltas, is_in_initial_list)

        def apply_step(deltas: Any, is_in_initial_list: bool) -> None:
            popped[:] = [deltas]
            self.process(deltas, is_in_initial_list)

        while True:
            popped.clear()  # never blame (or retry) the previous item
            if self._paused or self._held is not None:
                try:
                    if not self._gated(apply_step):
                        return
                except Exception as err:
                    self.process_errors += 1
                    log.error("%s: processing %s failed: %s", self.name,
                              self._describe(popped), err, exc_info=err)
                continue
            try:
                self.queue.pop(process)
                if self._held is None:  # a held item is counted when a step applies it
                    self.deltas_popped += 1
            except (FIFOClosedError, QueueIdleError):
                return
            except Exception as err:  # one bad item must not stop the loop
                self.process_errors += 1
                log.error("%s: processing %s failed: %s", self.name, self._describe(popped),
                          err, exc_info=err)
                if self.retry_on_error and popped and hasattr(self.queue, "add_if_not_present"):
                    self.queue.add_if_not_present(popped[0])

    def _describe(self, popped: list[Any]) -> str:
        """The key of the failed item, never its content (it may be a Secret)."""
        if not popped:
            return "an item"
        try:
            return repr(self.queue.key_of(popped[0]))
        except Exception:  # a key function that fails here failed before, too
            return "an item"

    def has_synced(self) -> bool:
        """True once the first list has been popped and processed (H77)."""
        return self.queue.has_synced()

    def last_sync_resource_version(self) -> str:
        with self._lock:
            reflector = self.reflector
        return "" if reflector is None else reflector.last_sync_resource_version()


def new_informer(list_watcher: ListerWatcher, handler: Any, resync_period: float = 0.0, *,
                 transform: Callable[[Any], Any] | None = None, queue: str = "DeltaFIFO",
                 clock: Clock | None = None, **reflector_options: Any
                 ) -> tuple[Store, Controller]:
    """A store and a controller that keeps it current and calls `handler` (H79)."""
    store = new_store(deletion_handling_meta_namespace_key_func)
    return store, _informer(list_watcher, handler, resync_period, store, transform, queue,
                            clock, reflector_options)


def new_indexer_informer(list_watcher: ListerWatcher, handler: Any, resync_period: float = 0.0,
                         indexers: dict[str, Any] | None = None, *,
                         transform: Callable[[Any], Any] | None = None,
                         queue: str = "DeltaFIFO", clock: Clock | None = None,
                         **reflector_options: Any) -> tuple[Indexer, Controller]:
    """`new_informer` with an Indexer (and its `indexers`) as the store."""
    indexer = new_indexer(deletion_handling_meta_namespace_key_func, indexers or {})
    return indexer, _informer(list_watcher, handler, resync_period, indexer, transform, queue,
                              clock, reflector_options)


def _informer(list_watcher: ListerWatcher, handler: Any, resync_period: float, store: Store,
              transform: Callable[[Any], Any] | None, queue_kind: str, clock: Clock | None,
              reflector_options: dict[str, Any]) -> Controller:
    queue = new_queue(queue_kind, store, transform, clock)

    def process(deltas: Sequence[Delta], is_in_initial_list: bool) -> None:
        process_deltas(handler, store, deltas, is_in_initial_list)

    return Controller(queue, list_watcher, process, full_resync_period=resync_period,
                      clock=clock, reflector_options=reflector_options)
