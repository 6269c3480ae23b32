"""In-memory object storage with one global resourceVersion, like etcd's revision.

Every write takes the next revision, is kept in a bounded event history (the window a
watch or an Exact list can reach back into) and is pushed to each open watch's own
buffer without blocking: a slow watcher never slows a writer. Stored objects are never
mutated after they are stored, so readers may serialize them without copying.
"""

from __future__ import annotations

import builtins
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from kubenb.server.encoding import dumps_line

__all__ = [
    "ADDED",
    "DEFAULT_WATCH_BUFFER_BYTES",
    "DELETED",
    "MODIFIED",
    "Event",
    "Obj",
    "Storage",
    "TooOldError",
    "WatchQueue",
]

ADDED = "ADDED"
MODIFIED = "MODIFIED"
DELETED = "DELETED"

Obj = dict[str, Any]

#: Default bound on the JSON bytes buffered for one watcher that is not reading.
DEFAULT_WATCH_BUFFER_BYTES = 32 * 1024 * 1024


class TooOldError(Exception):
    """The requested resourceVersion is older than the kept history.

    Internal: the registry and watches answer it as 410 Expired."""

    def __init__(self, requested: int, oldest: int) -> None:
        self.requested = requested
        self.oldest = oldest
        super().__init__(f"too old resource version: {requested} ({oldest})")


class Event:
    """One stored change. `obj` is the new state (for DELETED: the last state at `rv`)."""

    __slots__ = ("_encoded", "name", "namespace", "obj", "prev", "resource", "rv", "type")

    def __init__(self, type_: str, rv: int, resource: str, namespace: str, name: str,
                 obj: Obj, prev: Obj | None) -> None:
        self.type = type_
        self.rv = rv
        self.resource = resource
        self.namespace = namespace
        self.name = name
        self.obj = obj
        self.prev = prev
        self._encoded: bytes | None = None

    def encoded(self) -> bytes:
        """The object as compact JSON, encoded once and shared by every watcher."""
        if self._encoded is None:
            self._encoded = dumps_line(self.obj)
        return self._encoded

    def __repr__(self) -> str:
        return f"Event({self.type} {self.resource} {self.namespace}/{self.name} rv={self.rv})"


class WatchQueue:
    """A watcher's private buffer: writers append, the watch's sender drains.

    Bounded twice: in events (`max_buffer`) and in the bytes of their JSON
    (`max_bytes`, 0 for no byte bound). A watcher that falls behind either bound is
    closed, as the apiserver closes an unresponsive watcher, and its client resumes
    from its last resourceVersion (or relists on 410). `on_overflow`, when set, is
    called once at that moment (outside the queue's lock), so the HTTP side can unblock
    a write the client is not reading. `on_ready`, when set, is called (outside the
    lock, on the writer's thread) after every push and on close, so a sender that does
    not block in `get()` (kubenb.server.watch_mux) knows when to `drain()`.
    """

    def __init__(self, resource: str, max_buffer: int, max_bytes: int = 0) -> None:
        self.resource = resource
        self._max = max_buffer
        self._max_bytes = max_bytes
        self._events: deque[Event] = deque()
        self._bytes = 0
        self._cond = threading.Condition(threading.Lock())
        self.closed = False
        self.overflowed = False
        self.counted = False  # overflow counted in Storage.watch_stats()
        self.on_overflow: Callable[[], None] | None = None
        self.on_ready: Callable[[], None] | None = None

    def push(self, event: Event) -> None:
        """Append without blocking; a watcher that falls too far behind is closed."""
        size = len(event.encoded()) if self._max_bytes else 0
        hook = None
        with self._cond:
            if self.closed:
                return
            if len(self._events) >= self._max or (
                    self._max_bytes and self._bytes + size > self._max_bytes):
                self._events.clear()
                self._bytes = 0
                self.overflowed = True
                self.closed = True
                hook = self.on_overflow
            else:
                self._events.append(event)
                self._bytes += size
            self._cond.notify()
        if hook is not None:
            hook()
        ready = self.on_ready
        if ready is not None:
            ready()

    def get(self, timeout: float) -> list[Event]:
        """Everything buffered, waiting up to `timeout` s for the first event."""
        with self._cond:
            if not self._events and not self.closed:
                self._cond.wait(timeout)
            out = list(self._events)
            self._events.clear()
            self._bytes = 0
            return out

    def drain(self) -> list[Event]:
        """Everything buffered, without waiting."""
        with self._cond:
            out = list(self._events)
            self._events.clear()
            self._bytes = 0
            return out

    def pending(self) -> int:
        """How many events wait to be sent."""
        with self._cond:
            return len(self._events)

    def pending_bytes(self) -> int:
        """The JSON bytes of the events waiting to be sent (0 without a byte bound)."""
        with self._cond:
            return self._bytes

    def close(self) -> None:
        """End the watch; the consumer sees `closed` after draining."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()
        ready = self.on_ready
        if ready is not None:
            ready()


class Storage:
    """Objects by resource key, namespace and name, plus the event history window."""

    def __init__(self, history_window: int = 10_000, max_watch_buffer: int = 100_000,
                 max_watch_buffer_bytes: int = DEFAULT_WATCH_BUFFER_BYTES) -> None:
        if history_window < 1:
            raise ValueError("history_window must be at least 1 event")
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._rv = 0
        self._objects: dict[str, dict[str, dict[str, Obj]]] = {}
        self._history: deque[Event] = deque()
        self._window = history_window
        self._oldest_rv = 0
        self._watchers: set[WatchQueue] = set()
        self.max_watch_buffer = max_watch_buffer
        self.max_watch_buffer_bytes = max_watch_buffer_bytes
        self._closed_behind = 0
        self._writes: dict[str, int] = {}  # resource -> writes so far (caches key on it)
        # Told ("list" | "watch" | "initial", resource, the revision it was read at)
        # after each list or watch; a replay (kubenb.server.replay) waits on it.
        self.observer: Callable[[str, str, int], None] | None = None

    # -- reads ---------------------------------------------------------------

    @property
    def resource_version(self) -> int:
        """The current revision (the RV of the last write)."""
        return self._rv

    @property
    def oldest_resource_version(self) -> int:
        """The oldest RV a watch or an Exact list may still start from."""
        return self._oldest_rv

    def get(self, resource: str, namespace: str, name: str) -> Obj | None:
        """The stored object, or None."""
        with self.lock:
            return self._objects.get(resource, {}).get(namespace, {}).get(name)

    def count(self, resource: str) -> int:
        """How many objects of a resource are stored."""
        with self.lock:
            return sum(len(v) for v in self._objects.get(resource, {}).values())

    def list(self, resource: str, namespace: str | None) -> tuple[list[Obj], int]:
        """Current objects sorted by (namespace, name), and the RV they were read at."""
        with self.lock:
            result = self._current_sorted(resource, namespace), self._rv
        if self.observer is not None:
            self.observer("list", resource, result[1])
        return result

    def list_at(self, resource: str, namespace: str | None, rv: int) -> builtins.list[Obj]:
        """Objects as they were at revision `rv` (rolled back through the history)."""
        with self.lock:
            if rv < self._oldest_rv:
                raise TooOldError(rv, self._oldest_rv)
            state = self._current(resource, namespace)
            for event in reversed(self._history):
                if event.rv <= rv:
                    break
                if event.resource != resource or (
                        namespace is not None and event.namespace != namespace):
                    continue
                key = (event.namespace, event.name)
                if event.prev is None:
                    state.pop(key, None)
                else:
                    state[key] = event.prev
            result = self._sorted(state)
            current = self._rv
        if self.observer is not None:
            self.observer("list", resource, current)
        return result

    def _current_sorted(self, resource: str, namespace: str | None) -> builtins.list[Obj]:
        """(Under the lock) the current objects in (namespace, name) order, sorted a
        namespace at a time: no (namespace, name) key is built per object."""
        by_ns = self._objects.get(resource, {})
        if namespace is not None:
            objs = by_ns.get(namespace, {})
            return [objs[name] for name in sorted(objs)]
        return [objs[name] for _, objs in sorted(by_ns.items()) for name in sorted(objs)]

    def _current(self, resource: str, namespace: str | None) -> dict[tuple[str, str], Obj]:
        by_ns = self._objects.get(resource, {})
        spaces = by_ns.items() if namespace is None else [(namespace, by_ns.get(namespace, {}))]
        return {(ns, name): obj for ns, objs in spaces for name, obj in objs.items()}

    @staticmethod
    def _sorted(state: dict[tuple[str, str], Obj]) -> builtins.list[Obj]:
        return [state[k] for k in sorted(state)]

    def wait_for(self, rv: int, timeout: float) -> bool:
        """Wait until the store reaches `rv`; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: self._rv >= rv, timeout)

    # -- writes (callers hold `lock` around read-modify-write) ----------------

    def put(self, resource: str, namespace: str, name: str, obj: Obj) -> Obj:
        """Store `obj` (a fresh dict the store now owns) at the next revision."""
        with self.lock:
            objs = self._objects.setdefault(resource, {}).setdefault(namespace, {})
            prev = objs.get(name)
            self._rv += 1
            obj["metadata"]["resourceVersion"] = str(self._rv)
            objs[name] = obj
            self._record(Event(MODIFIED if prev is not None else ADDED, self._rv, resource,
                               namespace, name, obj, prev))
            return obj

    def delete(self, resource: str, namespace: str, name: str) -> Obj | None:
        """Remove an object; returns its last state stamped with the deletion RV."""
        with self.lock:
            by_ns = self._objects.get(resource, {})
            objs = by_ns.get(namespace, {})
            prev = objs.pop(name, None)
            if prev is None:
                return None
            if not objs:
                by_ns.pop(namespace, None)
            self._rv += 1
            final = dict(prev)
            final["metadata"] = dict(prev["metadata"], resourceVersion=str(self._rv))
            self._record(Event(DELETED, self._rv, resource, namespace, name, final, prev))
            return final

    def writes(self, resource: str) -> int:
        """How many times objects of `resource` changed: a cache built from them (the
        RBAC authorizer's) is current while this number is."""
        return self._writes.get(resource, 0)

    def _record(self, event: Event) -> None:
        self._writes[event.resource] = self._writes.get(event.resource, 0) + 1
        self._history.append(event)
        while len(self._history) > self._window:
            self._oldest_rv = self._history.popleft().rv
        for queue in self._watchers:
            if queue.resource == event.resource:
                queue.push(event)
        self._changed.notify_all()

    # -- watches ---------------------------------------------------------------

    def watch(self, resource: str, namespace: str | None, from_rv: int | None
              ) -> tuple[builtins.list[Obj], builtins.list[Event], int, WatchQueue]:
        """Open a watch atomically with its starting point.

        With `from_rv=None` returns the current objects (for synthetic ADDED events);
        otherwise the buffered events after `from_rv`. Everything later arrives in the
        returned queue, so nothing is lost or repeated between the two.
        """
        with self.lock:
            initial: list[Obj] = []
            backlog: list[Event] = []
            if from_rv is None:
                initial = self._current_sorted(resource, namespace)
            else:
                if from_rv < self._oldest_rv:
                    raise TooOldError(from_rv, self._oldest_rv)
                for event in reversed(self._history):
                    if event.rv <= from_rv:
                        break
                    if event.resource == resource:
                        backlog.append(event)
                backlog.reverse()
            queue = WatchQueue(resource, self.max_watch_buffer, self.max_watch_buffer_bytes)
            self._watchers.add(queue)
            rv = self._rv
        if self.observer is not None:
            self.observer("initial" if from_rv is None else "watch", resource, rv)
        return initial, backlog, rv, queue

    def stop_watch(self, queue: WatchQueue) -> None:
        """Unregister and close one watch."""
        with self.lock:
            self._watchers.discard(queue)
            if queue.overflowed and not queue.counted:
                queue.counted = True
                self._closed_behind += 1
        queue.close()

    def close_all_watches(self) -> int:
        """End every open watch (server stop, or the 'drop watches' fault); returns count."""
        with self.lock:
            queues = list(self._watchers)
            self._watchers.clear()
        for queue in queues:
            queue.close()
        return len(queues)

    def bookmark_rv(self, queue: WatchQueue) -> int | None:
        """The resourceVersion a BOOKMARK on `queue`'s watch may carry: the current one,
        if every event up to it was handed to that queue (none waits in it) and the queue
        still receives writes; else None (no bookmark this time).

        A dropped or cut-off watch leaves the watcher set before its queue is closed, and
        writes in between never reach it: a bookmark then would carry an RV past events
        the client never got, and the client, resuming from it, would never see them.
        """
        with self.lock:
            if queue.closed or queue.pending() or queue not in self._watchers:
                return None
            return self._rv

    @property
    def watch_count(self) -> int:
        """Open watches."""
        with self.lock:
            return len(self._watchers)

    def watch_stats(self) -> dict[str, Any]:
        """Open watches, the bytes buffered for each, and how many were closed for
        falling more than `max_watch_buffer_bytes` (or `max_watch_buffer` events) behind."""
        with self.lock:
            queues = list(self._watchers)
            closed_behind = self._closed_behind + sum(
                1 for q in queues if q.overflowed and not q.counted)
        return {"open": len(queues),
                "buffered_bytes": [q.pending_bytes() for q in queues],
                "closed_behind": closed_behind,
                "max_buffer_bytes": self.max_watch_buffer_bytes}

    def compact(self) -> int:
        """Forget the whole history: later resumes from older RVs get 410."""
        with self.lock:
            self._history.clear()
            self._oldest_rv = self._rv
            return self._rv

    def advance_revision(self) -> int:
        """Take the next revision without changing any object (as the apiserver's
        compactor write moves etcd's revision); returns it. Used by the "expire
        continue tokens" fault so tokens issued after it carry a newer RV."""
        with self.lock:
            self._rv += 1
            self._changed.notify_all()
            return self._rv

    # -- replay (kubenb.server.replay): recorded history, resourceVersions kept ----------

    def load(self, states: dict[str, builtins.list[Obj]], rv: int,
             error: Obj | None = None) -> int:
        """Replace all objects of each resource in `states` (objects keep their own
        resourceVersions) and set the revision to `rv`: a replay's first state, or a
        recorded relist. The history is forgotten, as after a compaction, and every open
        watch of those resources ends (seeing `error`, an ERROR Status, first if given),
        so its client relists. Returns how many watches ended."""
        with self.lock:
            queues = [q for q in self._watchers if q.resource in states]
            for queue in queues:
                self._watchers.discard(queue)
                if error is not None:
                    queue.push(Event("ERROR", rv, queue.resource, "", "", error, None))
                queue.close()
            for resource, objects in states.items():
                by_ns: dict[str, dict[str, Obj]] = {}
                for obj in objects:
                    meta = obj["metadata"]
                    by_ns.setdefault(meta.get("namespace") or "", {})[meta["name"]] = obj
                self._objects[resource] = by_ns
                self._writes[resource] = self._writes.get(resource, 0) + 1
            self._rv = rv
            self._history.clear()
            self._oldest_rv = rv
            self._changed.notify_all()
        return len(queues)

    def apply_event(self, type_: str, resource: str, obj: Obj) -> Event:
        """Write one recorded event as it was: its type, its object and the object's
        resourceVersion, which must be newer than the current revision."""
        meta = obj["metadata"]
        rv = int(meta["resourceVersion"])
        namespace, name = meta.get("namespace") or "", meta["name"]
        with self.lock:
            if rv <= self._rv:
                raise ValueError(f"resourceVersion {rv} of {type_} {resource} "
                                 f"{namespace}/{name} is not newer than {self._rv}")
            by_ns = self._objects.setdefault(resource, {})
            objs = by_ns.setdefault(namespace, {})
            prev = objs.get(name)
            if type_ == DELETED:
                objs.pop(name, None)
            else:
                objs[name] = obj
            if not objs:
                by_ns.pop(namespace, None)
            self._rv = rv
            event = Event(type_, rv, resource, namespace, name, obj, prev)
            self._record(event)
            return event

    def signal_watches(self, resource: str, type_: str | None = None, obj: Obj | None = None,
                       rv: int = 0, close: bool = False) -> int:
        """Send every open watch of `resource` a BOOKMARK at `rv` or an ERROR (`obj`, a
        Status), and/or end them (`close`); not kept in the history. A BOOKMARK newer
        than the revision moves the revision to it. Returns how many watches were open."""
        with self.lock:
            if type_ == "BOOKMARK" and rv > self._rv:
                self._rv = rv
                self._changed.notify_all()
            queues = [q for q in self._watchers if q.resource == resource]
            for queue in queues:
                if type_ is not None:
                    queue.push(Event(type_, rv, resource, "", "", obj or {}, None))
                if close:
                    self._watchers.discard(queue)
                    queue.close()
        return len(queues)

    def iter_all(self) -> Iterator[tuple[str, str, str, Obj]]:
        """Every stored (resource, namespace, name, object); a snapshot."""
        with self.lock:
            items = [(r, ns, n, o) for r, by_ns in self._objects.items()
                     for ns, objs in by_ns.items() for n, o in objs.items()]
        return iter(items)
