"""FIFO: a coalescing producer/consumer queue (client-go `fifo.go`, release-1.32).

Unlike `DeltaFIFO` it keeps only the latest object per key: a consumer that only needs
"the current state of every key that changed" pops each key once, however often it was
written meanwhile. `replace` silently drops what is not in the new list, and `delete`
removes the stored object without telling the consumer.

Faithful to 1.32, `delete` leaves the key in the pop order (pop skips it), so a key that
is deleted and then added again pops at its old place, and its later duplicate in the
order is skipped. Threading is as in `DeltaFIFO`: one re-entrant lock, `pop` waits on a
Condition and runs `process` while holding the lock.
"""

from __future__ import annotations

import builtins
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from kubenb.cache.keys import KeyFunc, meta_namespace_key_func
from kubenb.cache.queue_base import QueueBase
from kubenb.errors import KeyFuncError, RequeueError

__all__ = ["FIFO", "FIFOPopProcessFunc"]

#: `process(obj, is_in_initial_list)`; raise `RequeueError` to put the object back.
FIFOPopProcessFunc = Callable[[Any, bool], None]

_MISSING = object()


class FIFO(QueueBase):
    """A queue of the latest object per key, popped in first-added order."""

    def __init__(self, key_function: KeyFunc | None = meta_namespace_key_func) -> None:
        super().__init__()
        self._key_function: KeyFunc = key_function or meta_namespace_key_func
        self._items: dict[str, Any] = {}
        # Pop order. May hold keys whose item was deleted (pop skips them), and after a
        # delete + add even the same key twice, exactly as client-go's FIFO does.
        self._queue: deque[str] = deque()

    def _key(self, obj: Any) -> str:
        try:
            return self._key_function(obj)
        except KeyFuncError:
            raise
        except Exception as err:
            raise KeyFuncError(obj, err) from err

    def _wake_one(self) -> None:
        self._wake_consumer_locked()

    # ---------------------------------------------------------------- writes

    def add(self, obj: Any) -> None:
        """Store `obj` as its key's latest object, queueing the key if it is new."""
        key = self._key(obj)
        with self._lock:
            self._populated = True
            if key not in self._items:
                self._queue.append(key)
            self._items[key] = obj
            self._wake_one()

    def update(self, obj: Any) -> None:
        """The same as `add`."""
        self.add(obj)

    def delete(self, obj: Any) -> None:
        """Forget obj's key's object; nothing is delivered for it (pop skips the key)."""
        key = self._key(obj)
        with self._lock:
            self._populated = True
            self._items.pop(key, None)

    def add_if_not_present(self, obj: Any) -> None:
        """Queue `obj` only if its key holds no object, so a consumer's retry never
        overwrites a newer object from the producer."""
        key = self._key(obj)
        with self._lock:
            self._add_if_not_present_locked(key, obj)

    def _add_if_not_present_locked(self, key: str, obj: Any) -> None:
        self._populated = True
        if key in self._items:
            return
        self._queue.append(key)
        self._items[key] = obj
        self._wake_one()

    def replace(self, objs: Iterable[Any], resource_version: str = "") -> None:
        """Make the listed objects the whole content, dropping everything else without
        notification. `resource_version` is accepted for the Store interface, unused."""
        del resource_version
        items: dict[str, Any] = {}
        for obj in objs:
            items[self._key(obj)] = obj
        with self._lock:
            if not self._populated:
                self._populated = True
                self._initial_population_count = len(items)
            self._items = items
            self._queue = deque(items)
            if items:
                self._cond.notify_all()
                self._wake_consumer_locked()

    def resync(self) -> None:
        """Queue again every stored key that is missing from the pop order (normally
        there is none)."""
        with self._lock:
            in_queue = set(self._queue)
            for key in self._items:
                if key not in in_queue:
                    self._queue.append(key)
            if self._queue:
                self._cond.notify_all()
                self._wake_consumer_locked()

    # ------------------------------------------------------------------- pop

    def pop(self, process: FIFOPopProcessFunc) -> Any:
        """Block until an object is queued, remove it, call `process(obj,
        is_in_initial_list)` under the lock and return the object.

        `RequeueError(err)` from `process` puts the object back unless its key was
        written meanwhile, then raises `err` (or returns when it is None); any other
        exception propagates with the object consumed. Raises `FIFOClosedError` once
        the queue is closed and empty."""
        with self._lock:
            while True:
                self._wait_for_item_locked(self._queue)
                is_in_initial_list = self._count_pop_locked()
                key = self._queue.popleft()
                obj = self._items.pop(key, _MISSING)
                if obj is _MISSING:
                    continue  # deleted after it was queued
                try:
                    process(obj, is_in_initial_list)
                except RequeueError as requeue:
                    self._add_if_not_present_locked(key, obj)
                    if requeue.err is not None:
                        raise requeue.err from requeue
                return obj

    # ----------------------------------------------------------------- reads

    def list(self) -> list[Any]:
        """Every stored object."""
        with self._lock:
            return list(self._items.values())

    def list_keys(self) -> builtins.list[str]:
        """The keys of every stored object."""
        with self._lock:
            return list(self._items)

    def get(self, obj: Any) -> Any:
        """The object stored under obj's key, or None."""
        return self.get_by_key(self._key(obj))

    def get_by_key(self, key: str) -> Any:
        """The object stored under `key`, or None."""
        with self._lock:
            return self._items.get(key)

    def __len__(self) -> int:
        """The number of stored objects (what pop will still hand out)."""
        return len(self._items)

    def __repr__(self) -> str:
        return f"<FIFO items={len(self._items)} closed={self._closed}>"
