"""An in-memory ListerWatcher for Reflector / Controller / informer tests.

client-go tests its reflector against `FakeControllerSource` and hand-written
`ListWatch` fakes; this is both in one. `FakeSource` keeps objects and a change log
like an API server: every write gets the next resourceVersion, `list()` answers a List
(paginated with `limit`/`continue`), and `watch()` replays the changes after the
requested resourceVersion and then streams live ones. Tests can also script it:

- `fail_list(*errs)` / `fail_watch(*errs)`: the next calls raise these;
- `script_watch(*items, close=...)`: the next `watch()` yields these items instead
  of replaying the change log (a `WatchEvent`, or an exception that is raised inside
  the iteration the way a decoded ERROR event is), then goes live;
- `list_hook` / `watch_hook`: called with each `ListOptions` first; a hook may raise,
  or return a List (or a watch) to answer instead of the source;
- `close_watches()` ends every open watch as a server would (normal end of stream);
  `flush()` forgets the change log so a resume gets 410 Gone; `reset_watch()` does both
  (client-go's `ResetWatch`);
- every `ListOptions` passed to `list` and `watch` is recorded in `list_calls` and
  `watch_calls`, and every watch handed out is kept in `watches`.

It starts no thread: a watch's iteration blocks on a Condition that writes, `close`
and `stop` notify.
"""

from __future__ import annotations

import copy
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from kubenb.cache.keys import meta_namespace_key_func
from kubenb.client.options import ListOptions
from kubenb.client.watch import WatchEvent
from kubenb.errors import ApiError, Gone

INITIAL_EVENTS_END = "k8s.io/initial-events-end"


def pod(name: str, rv: str = "", namespace: str = "ns", **fields: Any) -> dict[str, Any]:
    """A minimal Pod dict; `labels=`/`annotations=` go into metadata, the rest at top."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if rv:
        meta["resourceVersion"] = rv
    for key in ("labels", "annotations", "uid", "generation"):
        if key in fields:
            meta[key] = fields.pop(key)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, **fields}


def name_of(obj: Any) -> str:
    """The name of an object or of a tombstone's object (or its key)."""
    inner = getattr(obj, "obj", obj)
    if isinstance(inner, dict):
        return inner["metadata"]["name"]
    return getattr(obj, "key", repr(obj))


def rv_of(obj: Any) -> str:
    return (obj.get("metadata") or {}).get("resourceVersion", "")


class FakeWatch:
    """One watch: an iterator of `WatchEvent`s (and scripted exceptions)."""

    def __init__(self, options: ListOptions, items: list[Any] | None = None) -> None:
        self.options = options
        self._cond = threading.Condition()
        self._queue: deque[Any] = deque(items or ())
        self._closed = False
        self._stopped = False
        self.end_reason = ""  # "closed" (server end), "stopped" (client), "error"
        self.delivered: list[WatchEvent] = []

    def __repr__(self) -> str:
        return (f"FakeWatch(rv={self.options.resource_version!r}, queued={len(self._queue)}, "
                f"stopped={self._stopped}, closed={self._closed})")

    def push(self, item: Any) -> None:
        """Queue an event (or an exception to raise when it is reached)."""
        with self._cond:
            if not (self._closed or self._stopped):
                self._queue.append(item)
                self._cond.notify_all()

    def close(self) -> None:
        """End the stream from the server side: what is queued is still delivered."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def stop(self) -> None:
        """End the iteration from any thread (client side)."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    @property
    def stopped(self) -> bool:
        with self._cond:
            return self._stopped

    @property
    def is_open(self) -> bool:
        with self._cond:
            return not (self._closed or self._stopped)

    def __iter__(self) -> Iterator[WatchEvent]:
        while True:
            with self._cond:
                while not self._queue and not self._closed and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    self.end_reason = self.end_reason or "stopped"
                    return
                if not self._queue:
                    self.end_reason = "closed"
                    return
                item = self._queue.popleft()
            if isinstance(item, BaseException):
                with self._cond:
                    self._closed = True
                    self.end_reason = "error"
                raise item
            self.delivered.append(item)
            yield item


class FakeSource:
    """An API server for one resource, in memory (see the module docstring)."""

    def __init__(self, kind: str = "Pod", api_version: str = "v1",
                 description: str = "fake pods") -> None:
        self.kind = kind
        self.api_version = api_version
        self.description = description
        self._lock = threading.RLock()
        self.items: dict[str, dict[str, Any]] = {}
        self.changes: list[WatchEvent] = []  # one per resourceVersion since the last flush
        self.last_rv = 0
        self.list_calls: list[ListOptions] = []
        self.watch_calls: list[ListOptions] = []
        self.watches: list[FakeWatch] = []
        self._list_errors: deque[BaseException] = deque()
        self._watch_errors: deque[BaseException] = deque()
        self._scripts: deque[tuple[list[Any], bool]] = deque()
        self._snapshots: dict[str, tuple[str, list[dict[str, Any]]]] = {}
        self._next_token = 0
        self.list_hook: Callable[[ListOptions], dict[str, Any] | None] | None = None
        self.watch_hook: Callable[[ListOptions], Any] | None = None
        self.on_watch: Callable[[FakeWatch], None] | None = None

    def __repr__(self) -> str:
        return f"FakeSource({self.description!r}, rv={self.last_rv}, items={len(self.items)})"

    # -- writes (like FakeControllerSource) -------------------------------------------

    def add(self, obj: dict[str, Any], broadcast: bool = True) -> dict[str, Any]:
        return self._change("ADDED", obj, broadcast)

    def modify(self, obj: dict[str, Any], broadcast: bool = True) -> dict[str, Any]:
        return self._change("MODIFIED", obj, broadcast)

    def delete(self, obj: dict[str, Any], broadcast: bool = True) -> dict[str, Any]:
        return self._change("DELETED", obj, broadcast)

    def add_drop_watch(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Add without telling watchers: only a relist shows it."""
        return self.add(obj, broadcast=False)

    def modify_drop_watch(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.modify(obj, broadcast=False)

    def delete_drop_watch(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.delete(obj, broadcast=False)

    def _change(self, kind: str, obj: dict[str, Any], broadcast: bool) -> dict[str, Any]:
        obj = copy.deepcopy(obj)
        obj.setdefault("apiVersion", self.api_version)
        obj.setdefault("kind", self.kind)
        with self._lock:
            self.last_rv += 1
            obj["metadata"]["resourceVersion"] = str(self.last_rv)
            key = meta_namespace_key_func(obj)
            if kind == "DELETED":
                self.items.pop(key, None)
            else:
                self.items[key] = obj
            event = WatchEvent(kind, obj)
            self.changes.append(event)
            if broadcast:
                for w in self.watches:
                    w.push(WatchEvent(kind, copy.deepcopy(obj)))
        return copy.deepcopy(obj)

    def bookmark(self, annotations: dict[str, str] | None = None) -> None:
        """Send a BOOKMARK at the current resourceVersion to watches that asked for one."""
        with self._lock:
            mark = self._bookmark_obj(annotations)
            for w in self.watches:
                if w.options.allow_watch_bookmarks:
                    w.push(WatchEvent("BOOKMARK", copy.deepcopy(mark)))

    def _bookmark_obj(self, annotations: dict[str, str] | None) -> dict[str, Any]:
        meta: dict[str, Any] = {"resourceVersion": str(self.last_rv)}
        if annotations:
            meta["annotations"] = dict(annotations)
        return {"apiVersion": self.api_version, "kind": self.kind, "metadata": meta}

    # -- faults ----------------------------------------------------------------------

    def fail_list(self, *errors: BaseException) -> None:
        """The next `len(errors)` list calls raise these, in order."""
        with self._lock:
            self._list_errors.extend(errors)

    def fail_watch(self, *errors: BaseException) -> None:
        """The next `len(errors)` watch calls raise these, in order."""
        with self._lock:
            self._watch_errors.extend(errors)

    def script_watch(self, *items: Any, close: bool = False) -> None:
        """The next watch yields `items` (an exception is raised when reached) instead
        of replaying the change log; with `close=True` the stream then ends instead of
        going live."""
        with self._lock:
            self._scripts.append((list(items), close))

    def close_watches(self) -> int:
        """End every open watch as a server does (a normal end of stream)."""
        with self._lock:
            open_watches = [w for w in self.watches if w.is_open]
        for w in open_watches:
            w.close()
        return len(open_watches)

    def flush(self) -> None:
        """Forget the change log: a resume from any older resourceVersion gets 410."""
        with self._lock:
            self.changes = []

    def reset_watch(self) -> None:
        """client-go's `ResetWatch`: close every watch and flush the change log."""
        with self._lock:
            self.flush()
            self.close_watches()

    def expire_continue_tokens(self) -> None:
        """Continue tokens handed out so far answer 410 Gone."""
        with self._lock:
            self._snapshots.clear()

    def open_watches(self) -> list[FakeWatch]:
        with self._lock:
            return [w for w in self.watches if w.is_open]

    # -- ListerWatcher -----------------------------------------------------------------

    def list(self, options: ListOptions) -> dict[str, Any]:
        with self._lock:
            self.list_calls.append(options)
            if self._list_errors:
                raise self._list_errors.popleft()
        if self.list_hook is not None:
            answer = self.list_hook(options)
            if answer is not None:
                return copy.deepcopy(answer)
        with self._lock:
            if options.continue_:
                token, _, offset = options.continue_.rpartition(":")
                if token not in self._snapshots:
                    raise Gone(410, "Expired", "The provided continue parameter is too old")
                rv, items = self._snapshots[token]
                start = int(offset)
            else:
                rv = str(self.last_rv)
                items = [copy.deepcopy(self.items[k]) for k in sorted(self.items)]
                token, start = "", 0
            page = items[start:]
            meta: dict[str, Any] = {"resourceVersion": rv}
            if options.limit and len(page) > options.limit:
                if not token:
                    self._next_token += 1
                    token = f"c{self._next_token}"
                    self._snapshots[token] = (rv, items)
                page = page[:options.limit]
                end = start + options.limit
                meta["continue"] = f"{token}:{end}"
                meta["remainingItemCount"] = len(items) - end
            return {"kind": f"{self.kind}List", "apiVersion": self.api_version,
                    "metadata": meta, "items": copy.deepcopy(page)}

    def watch(self, options: ListOptions, read_timeout: float | None = None) -> Any:
        with self._lock:
            self.watch_calls.append(options)
            if self._watch_errors:
                raise self._watch_errors.popleft()
        if self.watch_hook is not None:
            answer = self.watch_hook(options)
            if answer is not None:
                return answer
        with self._lock:
            if self._scripts:  # a scripted watch yields its script, then goes live
                items, close = self._scripts.popleft()
            else:
                items, close = self._start_events(options), False
            w = FakeWatch(options, items)
            if close:
                w.close()
            self.watches.append(w)
        if self.on_watch is not None:
            self.on_watch(w)
        return w

    def _start_events(self, options: ListOptions) -> list[Any]:
        """Synthetic ADDEDs + end bookmark for a streaming list, else the changes after
        the requested resourceVersion (410 if they were flushed)."""
        if options.send_initial_events:
            events: list[Any] = [WatchEvent("ADDED", copy.deepcopy(self.items[k]))
                                 for k in sorted(self.items)]
            events.append(WatchEvent("BOOKMARK",
                                     self._bookmark_obj({INITIAL_EVENTS_END: "true"})))
            return events
        text = options.resource_version
        if text in ("", "0"):
            return []
        rv = int(text)
        if rv > self.last_rv:
            raise ApiError(504, "Timeout", "Too large resource version", {
                "kind": "Status", "apiVersion": "v1", "code": 504, "reason": "Timeout",
                "details": {"causes": [{"type": "ResourceVersionTooLarge"}]}})
        if rv == self.last_rv:
            return []
        oldest = int(rv_of(self.changes[0].object)) if self.changes else self.last_rv + 1
        if rv < oldest - 1:
            raise Gone(410, "Expired", f"too old resource version: {rv} ({oldest})")
        return [WatchEvent(e.type, copy.deepcopy(e.object)) for e in self.changes
                if int(rv_of(e.object)) > rv]
