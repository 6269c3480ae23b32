"""DeltaFIFO: the queue between a Reflector and its Controller (client-go `delta_fifo.go`).

Semantics follow client-go release-1.32, the last release whose DeltaFIFO still has
`add_if_not_present`, `RequeueError` and the full read-only Store view.

For every key the queue keeps a `Deltas` list (oldest first) of what happened to that
object since it was last popped, so a consumer sees each change at most once and sees
all of them. Only one kind of delta is merged: two `Deleted` deltas in a row. A `replace`
(a relist) adds `Sync`/`Replaced` deltas for the listed objects and tombstones
(`DeletedFinalStateUnknown`) for keys that vanished while the watch was down.

Threading: one re-entrant lock guards everything; `pop` waits on a Condition built on it
and runs `process` while holding it, so a producer never interleaves with a consumer's
bookkeeping (client-go relies on this to keep `known_objects` in step with the queue).
"""

from __future__ import annotations

import builtins
import enum
import logging
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Protocol

from kubenb.cache.keys import DeletedFinalStateUnknown, KeyFunc, meta_namespace_key_func
from kubenb.cache.queue_base import QueueBase
from kubenb.errors import (
    KeyFuncError,
    KubenbError,
    RequeueError,
    ZeroLengthDeltasError,
)

__all__ = [
    "Delta",
    "DeltaFIFO",
    "DeltaType",
    "Deltas",
    "KeyListerGetter",
    "PopProcessFunc",
    "TransformFunc",
    "newest",
    "oldest",
]

_log = logging.getLogger(__name__)

#: Called on every object before it is queued (client-go's `TransformFunc`); returns
#: the object to store, which may be the same dict mutated in place. Raise to refuse it.
TransformFunc = Callable[[Any], Any]


class DeltaType(str, enum.Enum):
    """What happened to an object. The values are client-go's strings."""

    ADDED = "Added"
    UPDATED = "Updated"
    DELETED = "Deleted"
    #: Emitted by `replace` (a relist) when `emit_delta_type_replaced=True`.
    REPLACED = "Replaced"
    #: A periodic resync, or a relist when `emit_delta_type_replaced=False`.
    SYNC = "Sync"

    def __str__(self) -> str:
        return self.value


ADDED = DeltaType.ADDED
UPDATED = DeltaType.UPDATED
DELETED = DeltaType.DELETED
REPLACED = DeltaType.REPLACED
SYNC = DeltaType.SYNC


class Delta(NamedTuple):
    """One change: its type and the object's state after it (for a deletion, the last
    state known before it; possibly a `DeletedFinalStateUnknown` tombstone).

    A named tuple rather than a dataclass: one is made per watch event, and a tuple
    is the cheapest immutable pair Python builds."""

    type: DeltaType
    object: Any


class Deltas(list[Delta]):
    """A list of `Delta` for one key, oldest first (client-go's `Deltas`)."""

    __slots__ = ()

    def oldest(self) -> Delta | None:
        """The first delta, or None when empty."""
        return self[0] if self else None

    def newest(self) -> Delta | None:
        """The last delta (the object's latest known state), or None when empty."""
        return self[-1] if self else None

def delta_key(key_function: KeyFunc, obj: Any) -> str:
    """The key an informer queue files `obj` under: a tombstone's `.key`, a Delta's or
    a Deltas list's newest object's key, else `key_function(obj)`; every failure is a
    `KeyFuncError` (DeltaFIFO and RealFIFO share this)."""
    if isinstance(obj, list):
        if not obj:
            err = ZeroLengthDeltasError()
            raise KeyFuncError(obj, err) from err
        if isinstance(obj[-1], Delta):
            obj = obj[-1]
    if isinstance(obj, Delta):
        obj = obj.object
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    try:
        return key_function(obj)
    except KeyFuncError:
        raise
    except Exception as err:
        raise KeyFuncError(obj, err) from err



def oldest(deltas: list[Delta]) -> Delta | None:
    """The oldest delta of any list of deltas, or None when it is empty."""
    return deltas[0] if deltas else None


def newest(deltas: list[Delta]) -> Delta | None:
    """The newest delta of any list of deltas, or None when it is empty."""
    return deltas[-1] if deltas else None


class KeyListerGetter(Protocol):
    """What DeltaFIFO needs from `known_objects` (normally the informer's Indexer)."""

    def list_keys(self) -> list[str]: ...

    def get_by_key(self, key: str) -> Any: ...


#: `process(deltas, is_in_initial_list)`; raise `RequeueError` to put the deltas back.
PopProcessFunc = Callable[[Deltas, bool], None]


class DeltaFIFO(QueueBase):
    """A producer/consumer queue of per-key `Deltas` (client-go's `DeltaFIFO`).

    `known_objects` (anything with `list_keys()` and `get_by_key(key)`, usually the
    Indexer the consumer maintains) changes three things: `delete` of a key that is
    neither queued nor known is dropped, `replace` makes tombstones for known keys that
    the new list lacks, and `resync` re-queues every known object as `Sync`.
    """

    def __init__(
        self,
        key_function: KeyFunc | None = meta_namespace_key_func,
        known_objects: KeyListerGetter | None = None,
        emit_delta_type_replaced: bool = False,
        transformer: TransformFunc | None = None,
    ) -> None:
        super().__init__()
        self._key_function: KeyFunc = key_function or meta_namespace_key_func
        # add()/update() compute meta_namespace_key_func's result inline for plain dicts.
        self._default_key = self._key_function is meta_namespace_key_func
        self._known_objects = known_objects
        self._emit_delta_type_replaced = emit_delta_type_replaced
        self._transformer = transformer
        # key -> Deltas (never empty); a key is in _items iff it is in _queue.
        self._items: dict[str, Deltas] = {}
        self._queue: deque[str] = deque()

    # ------------------------------------------------------------------ keys

    def key_of(self, obj: Any) -> str:
        """The key of an object, a tombstone (its `.key`), a `Delta` (its object's) or
        a Deltas list (the key of its newest object). Raises `KeyFuncError`."""
        return delta_key(self._key_function, obj)

    # ---------------------------------------------------------------- writes

    def add(self, obj: Any) -> None:
        """Queue an `Added` delta for `obj`."""
        self._write(ADDED, obj)

    def update(self, obj: Any) -> None:
        """Queue an `Updated` delta for `obj`."""
        self._write(UPDATED, obj)

    def _write(self, action: DeltaType, obj: Any) -> None:
        """`add`/`update`: the hot path, one call per watch event. Neither type ever
        merges (only Deleted does), so this is `_append_locked` without the merge, with
        meta_namespace_key_func's plain-dict case inlined (anything unusual goes
        through `key_of`, which raises the proper KeyFuncError)."""
        with self._lock:
            self._populated = True
            key = None
            if self._default_key and obj.__class__ is dict:
                meta = obj.get("metadata")
                if meta.__class__ is dict:
                    name = meta.get("name")
                    if name.__class__ is str and name:
                        ns = meta.get("namespace")
                        key = f"{ns}/{name}" if ns else name
            if key is None:
                key = self.key_of(obj)
            if self._transformer is not None and not isinstance(obj, DeletedFinalStateUnknown):
                obj = self._transformer(obj)
            deltas = self._items.get(key)
            if deltas is None:
                self._items[key] = Deltas((Delta(action, obj),))
                self._queue.append(key)
                if self._waiters:
                    self._cond.notify()
                elif self._consumer_idle:
                    self._wake_consumer_locked()
            else:
                deltas.append(Delta(action, obj))

    def delete(self, obj: Any) -> None:
        """Queue a `Deleted` delta for `obj`, unless the key is neither queued nor
        known: then the deletion was presumably already reported by a relist."""
        key = self.key_of(obj)
        with self._lock:
            self._populated = True
            if key not in self._items:
                known = self._known_objects
                if known is None:
                    return
                try:
                    exists = known.get_by_key(key) is not None
                except Exception:
                    # client-go queues the deletion when the lookup fails.
                    exists = True
                if not exists:
                    return
            self._append_locked(key, DELETED, obj, True)

    def add_if_not_present(self, obj_or_deltas: list[Delta]) -> None:
        """Re-queue deltas (as returned by `pop`) unless their key is queued again
        already, so a retry never overwrites newer news from the producer."""
        deltas = obj_or_deltas
        if not isinstance(deltas, list) or not all(isinstance(d, Delta) for d in deltas):
            raise TypeError(f"object must be of type deltas, but got: {obj_or_deltas!r}")
        key = self.key_of(deltas)
        with self._lock:
            self._add_if_not_present_locked(key, deltas)

    def _add_if_not_present_locked(self, key: str, deltas: list[Delta]) -> None:
        self._populated = True
        if key in self._items:
            return
        self._items[key] = deltas if type(deltas) is Deltas else Deltas(deltas)
        self._queue.append(key)
        if self._waiters:
            self._cond.notify()
        elif self._consumer_idle:
            self._wake_consumer_locked()

    def _append_locked(self, key: str, action: DeltaType, obj: Any, transform: bool) -> None:
        """Append `Delta(action, obj)` to `key`'s deltas, merging a repeated deletion
        (client-go's queueActionInternalLocked + dedupDeltas).

        `transform` is False for resync's Sync deltas, whose objects come from
        known_objects and were transformed on their way in; tombstones are never
        transformed either (their object already was)."""
        if (
            transform
            and self._transformer is not None
            and not isinstance(obj, DeletedFinalStateUnknown)
        ):
            obj = self._transformer(obj)
        deltas = self._items.get(key)
        if deltas is None:
            self._items[key] = Deltas((Delta(action, obj),))
            self._queue.append(key)
            if self._waiters:
                self._cond.notify()
            elif self._consumer_idle:
                self._wake_consumer_locked()
            return
        if action is DELETED and deltas[-1].type == DELETED:
            # isDeletionDup: of two deletions in a row keep the older, unless the older
            # is only a tombstone and the newer may know more.
            if isinstance(deltas[-1].object, DeletedFinalStateUnknown):
                deltas[-1] = Delta(action, obj)
            return
        deltas.append(Delta(action, obj))

    def replace(self, objs: Iterable[Any], resource_version: str = "") -> None:
        """Apply a relist: a `Sync` (or `Replaced`) delta for each listed object, then a
        `Deleted` tombstone for every queued or known key the list does not contain.

        `resource_version` is accepted for the Store interface and ignored."""
        del resource_version
        action = REPLACED if self._emit_delta_type_replaced else SYNC
        with self._lock:
            items = self._items
            keys: set[str] = set()
            for obj in objs:
                key = self.key_of(obj)
                keys.add(key)
                try:
                    self._append_locked(key, action, obj, True)
                except Exception as err:
                    raise KubenbError(f"couldn't enqueue object: {err}") from err

            # Keys queued but missing from the list (a watch Delete we never saw). Only
            # values change below, never the key set, so iterating the dict is safe.
            queued_deletions = 0
            for key, deltas in items.items():
                if key in keys:
                    continue
                last = deltas[-1].object if deltas else None
                if isinstance(last, DeletedFinalStateUnknown):
                    last = last.obj
                queued_deletions += 1
                self._append_locked(key, DELETED, DeletedFinalStateUnknown(key, last), False)

            known = self._known_objects
            if known is not None:
                for key in known.list_keys():
                    if key in keys or items.get(key):
                        continue
                    try:
                        last = known.get_by_key(key)
                    except Exception as err:
                        _log.error(
                            "unexpected error %s during lookup of key %s, placing "
                            "DeletedFinalStateUnknown marker without object",
                            err,
                            key,
                        )
                        last = None
                    else:
                        if last is None:
                            _log.info(
                                "key %s does not exist in known objects store, placing "
                                "DeletedFinalStateUnknown marker without object",
                                key,
                            )
                    queued_deletions += 1
                    self._append_locked(key, DELETED, DeletedFinalStateUnknown(key, last), False)

            if not self._populated:
                self._populated = True
                self._initial_population_count = len(keys) + queued_deletions

    def resync(self) -> None:
        """Queue a `Sync` delta for every known object whose key is not queued (queued
        news is newer than what known_objects holds). A no-op without known_objects."""
        with self._lock:
            known = self._known_objects
            if known is None:
                return
            for key in known.list_keys():
                try:
                    obj = known.get_by_key(key)
                except Exception as err:
                    _log.error(
                        "unexpected error %s during lookup of key %s, unable to queue "
                        "object for sync",
                        err,
                        key,
                    )
                    continue
                if obj is None:
                    _log.info(
                        "key %s does not exist in known objects store, unable to queue "
                        "object for sync",
                        key,
                    )
                    continue
                obj_key = self.key_of(obj)
                if self._items.get(obj_key):
                    continue
                self._append_locked(obj_key, SYNC, obj, False)

    # ------------------------------------------------------------------- pop

    def pop(self, process: PopProcessFunc) -> Deltas:
        """Block until a key is queued, remove it and call `process(deltas,
        is_in_initial_list)` under the queue lock, then return the deltas.

        If `process` raises `RequeueError(err)`, the deltas go back to the tail unless
        the key was queued again meanwhile, and `pop` raises `err` (returns when it is
        None). Any other exception propagates; the item is consumed either way.
        Raises `FIFOClosedError` once the queue is closed and empty."""
        with self._lock:
            self._wait_for_item_locked(self._queue)
            is_in_initial_list = self._count_pop_locked()
            key = self._queue.popleft()
            deltas = self._items.pop(key)  # _items and _queue always move together
            try:
                process(deltas, is_in_initial_list)
            except RequeueError as requeue:
                self._add_if_not_present_locked(key, deltas)
                if requeue.err is not None:
                    raise requeue.err from requeue
            return deltas

    # ----------------------------------------------------------------- reads

    def list(self) -> list[Any]:
        """The newest object of each queued key, in queue order."""
        with self._lock:
            return [deltas[-1].object for deltas in self._items.values()]

    def list_keys(self) -> builtins.list[str]:
        """The queued keys, in queue (pop) order."""
        with self._lock:
            return list(self._queue)

    def get(self, obj: Any) -> Deltas | None:
        """A copy of the deltas queued for obj's key, or None."""
        return self.get_by_key(self.key_of(obj))

    def get_by_key(self, key: str) -> Deltas | None:
        """A copy of the deltas queued for `key`, or None. The copy is shallow: treat
        the objects inside as read-only."""
        with self._lock:
            deltas = self._items.get(key)
            return None if deltas is None else Deltas(deltas)

    def is_empty(self) -> bool:
        """Whether no key is queued."""
        return not self._queue

    def __len__(self) -> int:
        return len(self._queue)

    def __repr__(self) -> str:
        return (
            f"<DeltaFIFO keys={len(self._queue)} synced={self.has_synced()} closed={self._closed}>"
        )
