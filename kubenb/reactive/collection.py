"""ObservableCollection: a whole informer as traitlets, with add/update/delete callbacks.

Traits: `keys` (sorted), `count`, `last_event`, `synced`, `batch`. Callbacks
given to the constructor, or registered with `on_add(cb)`, `on_update(cb)`,
`on_delete(cb)` (ipywidgets style: `remove=True` unregisters; each also works as a
decorator). Callbacks given to the constructor see every cached object as an add;
callbacks registered later see the changes from then on.

Where callbacks run, and why not on the kernel loop: the kernel's main loop is
frozen while any cell runs, so a callback scheduled there would wait for the cell
(forever, for a cell that loops). They run on the publisher thread instead, once
per applied batch, in order, and at most `rate` batches a second. A batch carries
the *net* change of each key since the last one: a pod added and updated within a
batch is one `on_add` with its latest state; added and deleted, nothing; updated
five times, one `on_update(old, new)` from the state the collection last showed.
A resync that changed nothing calls nothing. What callbacks print goes to
`collection.output` (an ipywidgets.Output in a notebook); a callback that raises has
its traceback printed there and is counted in `stats()`, and delivery goes on.
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from traitlets import Dict, Int, List

from kubenb.clock import Clock
from kubenb.reactive.publisher import DEFAULT_RATE, Publisher
from kubenb.reactive.view import Deleted, ReactiveView, unchanged

if TYPE_CHECKING:
    from kubenb.cache import SharedInformer

__all__ = ["ObservableCollection"]

log = logging.getLogger("kubenb.reactive")

ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"


def _rv(obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return str((meta or {}).get("resourceVersion") or "") if isinstance(meta, dict) else ""


class ObservableCollection(ReactiveView):
    """A traitlets view of a whole informer (see the module docstring)."""

    keys: List[str] = List(help="the keys in the collection, sorted")
    count = Int(0, help="objects in the collection")
    last_event = Dict(help="{type, key, resource_version, batch} of the last change applied")

    def __init__(self, informer: SharedInformer | None = None, *,
                 on_add: Callable[[Any], Any] | None = None,
                 on_update: Callable[[Any, Any], Any] | None = None,
                 on_delete: Callable[[Any], Any] | None = None,
                 publisher: Publisher | None = None, rate: float = DEFAULT_RATE,
                 clock: Clock | None = None, output: Any = None, name: str = "") -> None:
        super().__init__(informer, publisher=publisher, rate=rate, clock=clock, output=output,
                         name=name)
        self._objects: dict[str, Any] = {}
        self._callbacks: dict[str, list[Callable[..., Any]]] = {
            ADDED: [], MODIFIED: [], DELETED: []}
        self.callback_errors = 0
        # Callbacks given here see the informer's cache as adds; ones registered
        # later see the changes from then on.
        if on_add is not None:
            self.on_add(on_add)
        if on_update is not None:
            self.on_update(on_update)
        if on_delete is not None:
            self.on_delete(on_delete)
        self._attach()

    # -- callbacks -------------------------------------------------------------------

    def _register(self, kind: str, callback: Callable[..., Any], remove: bool
                  ) -> Callable[..., Any]:
        if not callable(callback):
            from kubenb.reactive.publisher import PublisherError

            raise PublisherError(f"{type(self).__name__}: callback must be callable, got "
                                 f"{type(callback).__name__}")
        with self._channel._sink_lock:  # never change the list while a batch runs it
            callbacks = list(self._callbacks[kind])
            if remove:
                if callback in callbacks:
                    callbacks.remove(callback)
            elif callback not in callbacks:
                callbacks.append(callback)
            self._callbacks[kind] = callbacks
        return callback

    def on_add(self, callback: Callable[[Any], Any], remove: bool = False
               ) -> Callable[[Any], Any]:
        """Call `callback(obj)` for each object that appears (net, per batch)."""
        return self._register(ADDED, callback, remove)

    def on_update(self, callback: Callable[[Any, Any], Any], remove: bool = False
                  ) -> Callable[[Any, Any], Any]:
        """Call `callback(old, new)` for each object that changed (net, per batch)."""
        return self._register(MODIFIED, callback, remove)

    def on_delete(self, callback: Callable[[Any], Any], remove: bool = False
                  ) -> Callable[[Any], Any]:
        """Call `callback(obj)` (the final state) for each object that went away."""
        return self._register(DELETED, callback, remove)

    def _call(self, callback: Callable[..., Any], *args: Any) -> None:
        try:
            callback(*args)
        except Exception:
            self.callback_errors += 1
            name = getattr(callback, "__qualname__", type(callback).__name__)
            log.warning("collection %s: callback %s raised; delivery goes on", self.name, name,
                        exc_info=True)
            print(f"callback {name} raised:\n{traceback.format_exc()}", end="",
                  file=sys.stderr)

    # -- applying batches (publisher thread) ---------------------------------------------

    def _apply(self, batch: dict[Any, Any], synced: bool) -> None:
        objects = self._objects
        callbacks = self._callbacks
        membership_changed = False
        last: tuple[str, str, str] | None = None
        for key, value in batch.items():
            if isinstance(value, Deleted):
                old = objects.pop(key, None)
                if old is None:
                    continue  # added and deleted within one batch, or never seen
                membership_changed = True
                last = (DELETED, key, _rv(value.obj))
                for callback in callbacks[DELETED]:
                    self._call(callback, value.obj)
                continue
            old = objects.get(key)
            objects[key] = value
            if old is None:
                membership_changed = True
                last = (ADDED, key, _rv(value))
                for callback in callbacks[ADDED]:
                    self._call(callback, value)
            elif not unchanged(old, value):
                last = (MODIFIED, key, _rv(value))
                for callback in callbacks[MODIFIED]:
                    self._call(callback, old, value)
        with self.hold_trait_notifications():
            if membership_changed:
                self.keys = sorted(objects)
                self.count = len(objects)
            if last is not None:
                self.last_event = {"type": last[0], "key": last[1], "resource_version": last[2],
                                   "batch": self.batch + 1}
            if synced:
                self.synced = True
            self.batch += 1

    # -- reading -------------------------------------------------------------------------

    def get(self, key: str) -> Any:
        """The object of `key` as of the last applied batch, or None."""
        return self._objects.get(key)

    def list(self) -> list[Any]:
        return list(self._objects.values())

    def __len__(self) -> int:
        return len(self._objects)

    def __contains__(self, key: object) -> bool:
        return key in self._objects

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._objects))

    def stats(self) -> dict[str, Any]:
        return {**super().stats(), "objects": len(self._objects),
                "callback_errors": self.callback_errors}

    def __repr__(self) -> str:
        state = "closed" if self.closed else "synced" if self.synced else "syncing"
        return f"ObservableCollection({self.name!r}, count={self.count}, {state})"
