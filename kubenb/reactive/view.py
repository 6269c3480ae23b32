"""What every live view shares: an informer feeding a publisher channel.

A view registers one event handler on an informer. The handler runs on the
informer's listener thread and only submits `(key, latest state)` to the view's
channel: the object, or `Deleted(final object)`. Resyncs that changed nothing (same
resourceVersion) are dropped there. The publisher thread later applies each batch
to the view (`_apply`), with the callbacks' prints captured for an Output widget.

Why not the kernel loop: it freezes while a cell runs. Why not one update per event:
the Jupyter server drops widget messages over its rate limit. See publisher.py.
"""

from __future__ import annotations

import itertools
import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from traitlets import Bool, HasTraits, Int

from kubenb.cache.keys import DeletedFinalStateUnknown, deletion_handling_meta_namespace_key_func
from kubenb.cache.wait import wait_for_cache_sync
from kubenb.clock import Clock
from kubenb.reactive.output import capture_output, make_output
from kubenb.reactive.publisher import DEFAULT_RATE, Channel, Publisher, PublisherError

if TYPE_CHECKING:
    from kubenb.cache import SharedInformer

__all__ = ["Deleted", "FeedHandler", "ReactiveView"]

log = logging.getLogger("kubenb.reactive")

_ids = itertools.count(1)
_SYNCED = object()  # a channel key: "every initial add was submitted before me"


@dataclass(frozen=True, slots=True)
class Deleted:
    """The pending state of a key whose object was deleted; `obj` is its final state
    (from a tombstone, if the deletion was missed while the watch was down)."""

    obj: Any


def _rv(obj: Any) -> str | None:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return meta.get("resourceVersion") if isinstance(meta, dict) else None


def unchanged(old: Any, new: Any) -> bool:
    """A resync or a no-op: same resourceVersion (or, without one, equal objects)."""
    if old is new:
        return True
    rv = _rv(new)
    if rv:
        return rv == _rv(old)
    return old == new


class FeedHandler:
    """The ResourceEventHandler of a view: submits each key's latest state to a channel.

    Public so a view can also be fed by hand or from other informers, from any
    number of threads. `key` restricts it to one object key.
    """

    def __init__(self, channel: Channel, key: str | None = None) -> None:
        self.channel = channel
        self.key = key
        self.dropped_resyncs = 0

    def _key(self, obj: Any) -> str | None:
        try:
            key = deletion_handling_meta_namespace_key_func(obj)
        except Exception as exc:
            log.warning("view %s: cannot key an object (%s); skipped", self.channel.name, exc)
            return None
        if self.key is not None and key != self.key:
            return None
        return key

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        key = self._key(obj)
        if key is not None:
            self.channel.submit(key, obj)

    def on_update(self, old: Any, new: Any) -> None:
        key = self._key(new)
        if key is None:
            return
        if unchanged(old, new):
            self.dropped_resyncs += 1
            return
        self.channel.submit(key, new)

    def on_delete(self, obj: Any) -> None:
        key = self._key(obj)
        if key is None:
            return
        final = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        self.channel.submit(key, Deleted(final))

    def __repr__(self) -> str:
        return f"FeedHandler({self.channel.name!r}" + (f", key={self.key!r})" if self.key
                                                         else ")")


class ReactiveView(HasTraits):
    """Base of LiveFrame, ObservableCollection and ObservableObject.

    `synced` turns true with the first batch applied after the informer's initial
    list reached this view; `batch` counts applied batches.
    """

    synced = Bool(False, help="the informer's initial list has been applied")
    batch = Int(0, help="batches applied so far")

    def __init__(self, informer: SharedInformer | None = None, *,
                 key: str | None = None,
                 publisher: Publisher | None = None, rate: float = DEFAULT_RATE,
                 clock: Clock | None = None, output: Any = None, name: str = "",
                 **traits: Any) -> None:
        super().__init__(**traits)
        self.name = name or f"{type(self).__name__.lower()}-{next(_ids)}"
        self.informer = informer
        self.output = make_output(output)
        self.apply_errors = 0
        self._own_publisher = publisher is None
        if publisher is None:
            publisher = Publisher(self.name, clock=clock)
        elif clock is not None:
            raise PublisherError("give clock= to the shared publisher, not to the view")
        self.publisher = publisher
        self.rate = rate
        self._channel = publisher.channel(self._publish, rate=rate, name=self.name)
        self.handler = FeedHandler(self._channel, key)
        self._registration: Any = None
        self._sync_stop = threading.Event()
        self._sync_submitted = threading.Event()
        self._sync_thread: threading.Thread | None = None
        self._closed = False

    # -- wiring (subclasses call _attach at the end of __init__) ---------------------

    def _attach(self) -> None:
        # Register first: an informer that refuses (stopped) leaves no thread behind.
        if self.informer is not None:
            try:
                self._registration = self.informer.add_event_handler(self.handler)
            except BaseException:
                self._channel.close(flush=False)
                if self._own_publisher:
                    self.publisher.stop(flush=False)
                raise
        if self._own_publisher:
            self.publisher.start()
        if self.informer is None:
            return
        self._sync_thread = threading.Thread(target=self._wait_for_sync, daemon=True,
                                             name=f"kubenb-view-sync-{self.name}")
        self._sync_thread.start()

    def _wait_for_sync(self) -> None:
        # Poll fast for a second (a synced informer's cache reaches a new view within
        # milliseconds), then at client-go's pace for an informer still listing.
        has_synced = self._registration.has_synced
        synced = wait_for_cache_sync(self._sync_stop, has_synced, timeout=1.0, poll_period=0.005)
        if not synced and not self._sync_stop.is_set():
            synced = wait_for_cache_sync(self._sync_stop, has_synced)
        if synced:
            self._channel.submit(_SYNCED, True)
            self._sync_submitted.set()

    def _publish(self, batch: dict[Any, Any]) -> None:
        synced = batch.pop(_SYNCED, None) is not None
        with capture_output(self.output):
            try:
                self._apply(batch, synced)
            except Exception:
                self.apply_errors += 1  # the channel logs it and goes on
                raise

    def _apply(self, batch: dict[Any, Any], synced: bool) -> None:  # pragma: no cover
        raise NotImplementedError

    # -- public --------------------------------------------------------------------------

    def flush(self, timeout: float = 10.0) -> int:
        """Apply what is pending now, on this thread (tests, or before reading a final
        state); returns how many keys were applied. Normally the publisher does it.

        A view made on an informer that has synced gets its first rows from the
        informer's listener thread, a moment later: flush waits (up to `timeout`) for
        that listener to hand over every object of the synced cache, so the view is
        never short of it afterwards."""
        self.wait_for_initial_list(timeout)
        return self._channel.flush()

    def wait_for_initial_list(self, timeout: float = 10.0) -> bool:
        """When the informer has synced, wait until this view's handler has been given
        every object of its cache (client-go's registration HasSynced); True once it
        has, False if the informer has not synced yet or `timeout` passed."""
        if self._sync_submitted.is_set():
            return True
        informer, registration = self.informer, self._registration
        if informer is None or registration is None or self._closed:
            return False
        if not informer.has_synced() or self.publisher.on_publisher_thread():
            return False
        return self._sync_submitted.wait(timeout)

    def pending(self) -> int:
        """Keys waiting for the next batch."""
        return self._channel.pending()

    def close(self) -> None:
        """Stop following the informer, apply what is pending, end the threads this
        view started. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._sync_stop.set()
        if self._registration is not None and self.informer is not None:
            self.informer.remove_event_handler(self._registration)
        if self._sync_thread is not None and self._sync_thread is not threading.current_thread():
            self._sync_thread.join()
        if self._own_publisher:
            self.publisher.stop()
        else:  # from one of our own callbacks: no nested batch in the middle of this one
            self._channel.close(flush=not self.publisher.on_publisher_thread())

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> ReactiveView:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stats(self) -> dict[str, Any]:
        """The channel's counters plus this view's."""
        return {**self._channel.stats(), "batch": self.batch, "synced": self.synced,
                "apply_errors": self.apply_errors,
                "dropped_resyncs": self.handler.dropped_resyncs}
