"""RealFIFO: the informer queue of client-go 1.33+ (`the_real_fifo.go`, used when the
`InOrderInformers` feature gate is on, the default from 1.33 and locked from 1.36).

Where `DeltaFIFO` gathers everything that happened to a key into one `Deltas` entry,
`RealFIFO` queues every event on its own, in arrival order across all keys: a consumer
sees each add, update and delete as it happened, including deletions of objects it
never saw, in exactly the order the watch delivered them. Nothing is merged.

`pop` hands `process` a one-element `Deltas` list, so code written for `DeltaFIFO`
(an informer's `process_deltas`) works unchanged. A relist (`replace`) queues
tombstones for everything that vanished *first*, then a `Replaced` delta for each
listed object. Threading is as in `DeltaFIFO`: one re-entrant lock; `pop` runs
`process` while holding it, so the consumer's store stays in step with the queue.
"""

from __future__ import annotations

import builtins
import logging
from collections import deque
from collections.abc import Iterable
from typing import Any

from kubenb.cache.delta_fifo import (
    Delta,
    Deltas,
    DeltaType,
    KeyListerGetter,
    PopProcessFunc,
    TransformFunc,
    delta_key,
)
from kubenb.cache.keys import DeletedFinalStateUnknown, KeyFunc, meta_namespace_key_func
from kubenb.cache.queue_base import QueueBase
from kubenb.clock import Clock
from kubenb.errors import KubenbError

__all__ = ["RealFIFO"]

_log = logging.getLogger(__name__)

ADDED = DeltaType.ADDED
UPDATED = DeltaType.UPDATED
DELETED = DeltaType.DELETED
REPLACED = DeltaType.REPLACED
SYNC = DeltaType.SYNC


class RealFIFO(QueueBase):
    """A queue of every event, in order (client-go 1.33 `RealFIFO`).

    `known_objects` (normally the informer's Indexer) lets `replace` make tombstones
    for stored keys the new list lacks, and `resync` re-queue stored objects; unlike
    `DeltaFIFO` it never suppresses a `delete`. Go requires it; here None means "no
    known objects".

    A `transformer` runs on objects given to `add`, `update`, `delete` and `replace`,
    never on tombstones or on the stored objects `resync` re-queues (those were
    transformed on their way in).
    """

    def __init__(
        self,
        key_function: KeyFunc | None = meta_namespace_key_func,
        known_objects: KeyListerGetter | None = None,
        transformer: TransformFunc | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self._key_function: KeyFunc = key_function or meta_namespace_key_func
        self._known_objects = known_objects
        self._transformer = transformer
        # Accepted for interface parity with the informer's other parts; the queue
        # itself has no timers (client-go only uses time here to trace slow pops).
        self._clock = clock
        # (key, delta) in arrival order; the key is computed once, on the way in.
        self._items: deque[tuple[str, Delta]] = deque()

    # ------------------------------------------------------------------ keys

    def key_of(self, obj: Any) -> str:
        """The key of an object, a tombstone (its `.key`), a `Delta` (its object's) or
        a Deltas list (the key of its newest object). Raises `KeyFuncError`."""
        return delta_key(self._key_function, obj)

    # ---------------------------------------------------------------- writes

    def add(self, obj: Any) -> None:
        """Queue an `Added` delta for `obj`."""
        with self._lock:
            self._populated = True
            self._append_locked(ADDED, obj, True)

    def update(self, obj: Any) -> None:
        """Queue an `Updated` delta for `obj`."""
        with self._lock:
            self._populated = True
            self._append_locked(UPDATED, obj, True)

    def delete(self, obj: Any) -> None:
        """Queue a `Deleted` delta for `obj`, whether or not its key is known."""
        with self._lock:
            self._populated = True
            self._append_locked(DELETED, obj, True)

    def _append_locked(
        self, action: DeltaType, obj: Any, transform: bool, key: str | None = None
    ) -> None:
        """Queue one delta (client-go `addToItems_locked`); the key is taken before
        the transformer runs, as in Go."""
        if key is None:
            key = self.key_of(obj)
        if (
            transform
            and self._transformer is not None
            and not isinstance(obj, DeletedFinalStateUnknown)
        ):
            obj = self._transformer(obj)
        self._items.append((key, Delta(action, obj)))
        if self._waiters:
            self._cond.notify()
        elif self._consumer_idle:
            self._wake_consumer_locked()

    def replace(self, objs: Iterable[Any], resource_version: str = "") -> None:
        """Apply a relist: first a `Deleted` tombstone for every queued or known key
        the list lacks, then a `Replaced` delta for each listed object, in order.

        A queued key gets a tombstone (carrying its last queued object) unless its
        last queued event already is a deletion; a known key gets one (carrying the
        stored object, or None if the lookup fails) only when it is not queued.
        Every key is computed before anything is queued, so a bad object leaves the
        queue untouched. `resource_version` is accepted for the Store interface."""
        del resource_version
        new_items = list(objs)
        with self._lock:
            new_keys: list[str] = [self.key_of(obj) for obj in new_items]
            listed = set(new_keys)

            last_for_key: dict[str, Delta] = {}
            for key, delta in self._items:
                last_for_key[key] = delta  # dicts keep first-insertion order

            try:
                for key, last in last_for_key.items():
                    if key in listed or last.type == DELETED:
                        continue
                    self._append_locked(
                        DELETED, DeletedFinalStateUnknown(key, last.object), False, key
                    )

                known = self._known_objects
                if known is not None:
                    for key in known.list_keys():
                        if key in listed or key in last_for_key:
                            continue
                        try:
                            stored = known.get_by_key(key)
                        except Exception as err:
                            _log.error(
                                "error during lookup, placing DeletedFinalStateUnknown "
                                "marker without object: key=%r, err=%s",
                                key,
                                err,
                            )
                            stored = None
                        else:
                            if stored is None:
                                _log.error(
                                    "key does not exist in known objects store, placing "
                                    "DeletedFinalStateUnknown marker without object: key=%r",
                                    key,
                                )
                        self._append_locked(
                            DELETED, DeletedFinalStateUnknown(key, stored), False, key
                        )

                for key, obj in zip(new_keys, new_items, strict=True):
                    self._append_locked(REPLACED, obj, True, key)
            except KubenbError:
                raise
            except Exception as err:
                raise KubenbError(f"couldn't enqueue object: {err}") from err

            if not self._populated:
                self._populated = True
                self._initial_population_count = len(self._items)

    def resync(self) -> None:
        """Queue a `Sync` delta for every known object whose key has nothing queued
        (queued news is newer than the store). A no-op without known_objects."""
        with self._lock:
            known = self._known_objects
            if known is None:
                return
            queued = {key for key, _ in self._items}
            for key in known.list_keys():
                if key in queued:
                    continue
                try:
                    obj = known.get_by_key(key)
                except Exception as err:
                    _log.error("unable to queue object for sync: key=%r, err=%s", key, err)
                    continue
                if obj is None:
                    _log.error(
                        "key does not exist in known objects store, unable to queue object "
                        "for sync: key=%r",
                        key,
                    )
                    continue
                self._append_locked(SYNC, obj, False, key)

    # ------------------------------------------------------------------- pop

    def pop(self, process: PopProcessFunc) -> Deltas:
        """Block until an event is queued, remove it and call
        `process(Deltas([delta]), is_in_initial_list)` under the queue lock, then
        return that one-element Deltas. An exception from `process` propagates; the
        event is consumed either way (1.33 has no requeue). Raises `FIFOClosedError`
        once the queue is closed and empty."""
        with self._lock:
            self._wait_for_item_locked(self._items)
            is_in_initial_list = self._count_pop_locked()
            _, delta = self._items.popleft()
            deltas = Deltas((delta,))
            process(deltas, is_in_initial_list)
            return deltas

    # ----------------------------------------------------------------- reads

    def entries(self) -> list[Delta]:
        """Every queued delta, oldest first (what successive pops will return)."""
        with self._lock:
            return [delta for _, delta in self._items]

    def list(self) -> list[Any]:
        """The newest queued object of each queued key, keys in first-queued order
        (the same view `DeltaFIFO.list` gives)."""
        with self._lock:
            newest: dict[str, Any] = {}
            for key, delta in self._items:
                newest[key] = delta.object
            return list(newest.values())

    def list_keys(self) -> builtins.list[str]:
        """The distinct queued keys, in first-queued order."""
        with self._lock:
            return list(dict.fromkeys(key for key, _ in self._items))

    def get(self, obj: Any) -> Deltas | None:
        """The deltas queued for obj's key, oldest first, or None."""
        return self.get_by_key(self.key_of(obj))

    def get_by_key(self, key: str) -> Deltas | None:
        """The deltas queued for `key`, oldest first, or None. Treat the objects
        inside as read-only."""
        with self._lock:
            found = Deltas(delta for k, delta in self._items if k == key)
            return found or None

    def is_empty(self) -> bool:
        """Whether nothing is queued."""
        return not self._items

    def queue_depth(self) -> int:
        """How many events are queued (for metrics and teaching views)."""
        return len(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return (
            f"<RealFIFO events={len(self._items)} synced={self.has_synced()} "
            f"closed={self._closed}>"
        )
