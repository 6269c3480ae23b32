"""Reflector: keeps a store equal to the server by ListAndWatch, through every failure.

client-go's `tools/cache/reflector.go` (1.32 semantics, section G of the spec):

- list (paginated through `ListPager`, resourceVersion "0" first, then the last
  synced one, "" after an Expired or too-large answer), `store.replace` the result;
- watch from the list's resourceVersion with bookmarks on and a random server
  timeout in [5, 10] min; every event moves the last synced resourceVersion on;
- a watch that ends normally (server timeout, dropped connection, silence longer
  than `idle_timeout`) is resumed from the last resourceVersion, with no relist;
- a 410 Expired, an ERROR event, a decode error or a "very short watch" ends
  ListAndWatch, and `run` relists after an exponential, jittered backoff;
- 429 and refused connections back off and re-watch without a relist;
- every `resync_period` the store is asked to `resync()` (if `should_resync` agrees);
- with `use_watch_list`, one watch streams the initial state and then goes on as the
  live watch (the same stream, read by the same iterator: nothing read after the
  initial-events-end bookmark is lost).

A watch is "very short" when it ends within a second with no event, however it
ended (a clean close or a reset connection): like client-go, that is an error and
the next attempt waits for the backoff, so a server that accepts and drops every
watch meets a backoff, not a hot loop. Stopping (`stop` set) aborts the requests
in flight, a LIST included (kubenb.client.abort), so it takes effect at once.

The differences from Go: `idle_timeout` closes a watch that has delivered nothing,
not even a bookmark, for that long (default 70 s; servers send a bookmark about
every minute), because a silently dead connection is otherwise never noticed. A
failure that repeats is logged at WARNING once per `_WARN_INTERVAL` (the repeats in
between at DEBUG, counted in the next warning), not once per attempt. Counters of
every stage are kept in `stats()` for the pipeline view.

One concept, so one module past the usual length, as reflector.go is: listing, watching,
resuming and healing share one loop and its state.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import requests

from kubenb.cache.backoff import ExponentialBackoff, RetryWithDeadline
from kubenb.cache.keys import meta_namespace_key_func
from kubenb.cache.listwatch import ListerWatcher, Watcher
from kubenb.cache.on_stop import on_stop
from kubenb.cache.protocols import ReflectorStore
from kubenb.client.abort import AbortScope
from kubenb.client.options import ListOptions
from kubenb.client.pager import ListPager, PageInfo
from kubenb.clock import Clock, RealClock
from kubenb.errors import (
    ApiError,
    Gone,
    ListError,
    ServerError,
    TooManyRequests,
    VeryShortWatchError,
    WatchDecodeError,
    is_too_large_resource_version,
)
from kubenb.jsondecode import gc_paused, promote_young

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "INITIAL_EVENTS_END",
    "ListError",
    "Reflector",
    "VeryShortWatchError",
    "default_watch_error_handler",
]

log = logging.getLogger(__name__)

INITIAL_EVENTS_END = "k8s.io/initial-events-end"
DEFAULT_PAGE_SIZE = 500
_VERY_SHORT_WATCH = 1.0
#: Kept objects (ADDED, MODIFIED) arriving closer than this (real seconds) are a busy
#: stream: each one promotes the young objects to the oldest generation
#: (kubenb.jsondecode).
_BURST_GAP = 0.05
#: Lists at least this long are replaced with the collector paused (`_replace`).
_PROMOTE_LISTED = 1000
_EVENT_COUNTERS = {kind: f"events_{kind.lower()}"
                   for kind in ("ADDED", "MODIFIED", "DELETED", "BOOKMARK")}
_WARN_INTERVAL = 300.0  # clock seconds between two WARNINGs about the same failure
_NOT_SHORT_ENDS = ("stopped", "idle-timeout")  # ends the client chose, not the server


class _StopRequested(Exception):
    pass


class _RepeatedWarnings:
    """One WARNING per `interval` for a failure that keeps coming back.

    client-go logs every failed attempt; with the backoff that is one line per 30-60 s
    for as long as a server misbehaves. Here the first failure of a kind is a WARNING,
    the same kind again within `interval` goes to DEBUG and is counted, and the next
    WARNING says how many there were. `reset()` (a watch that works) re-arms it.
    """

    def __init__(self, clock: Clock, interval: float = _WARN_INTERVAL) -> None:
        self.clock = clock
        self.interval = interval
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._folded: Counter[str] = Counter()

    def warning(self, key: str, msg: str, *args: Any) -> None:
        now = self.clock.now()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self.interval:
                self._folded[key] += 1
                level, folded = logging.DEBUG, 0
            else:
                self._last[key] = now
                level, folded = logging.WARNING, self._folded.pop(key, 0)
        if folded:
            msg += " (and %d more times since the last warning; repeats are logged at DEBUG)"
            args = (*args, folded)
        log.log(level, msg, *args)

    def reset(self) -> None:
        with self._lock:
            if self._last:
                self._last.clear()
                self._folded.clear()


def _failure_kind(err: BaseException) -> str:
    return f"{type(err).__name__}:{getattr(err, 'reason', '')}"


def default_watch_error_handler(reflector: Reflector, err: BaseException) -> None:
    """Log the error the way client-go's `DefaultWatchErrorHandler` does (a failure
    that repeats is a WARNING once per interval, see `_RepeatedWarnings`)."""
    if isinstance(err, Gone):
        log.info("%s: watch of %s closed with: %s", reflector.name, reflector.description, err)
    else:
        reflector._warnings.warning(_failure_kind(err), "%s: failed to watch %s: %s",
                                    reflector.name, reflector.description, err)


class Reflector:
    """Watches one ListerWatcher and mirrors it into `store` (a DeltaFIFO, RealFIFO or Store)."""

    def __init__(self, list_watcher: ListerWatcher, store: ReflectorStore,
                 resync_period: float = 0.0, *,
                 name: str = "", expected_type: tuple[str, str] | None = None,
                 clock: Clock | None = None, page_size: int = 0,
                 should_resync: Callable[[], bool] | None = None,
                 watch_error_handler: Callable[[Reflector, BaseException], None] | None = None,
                 min_watch_timeout: float = 300.0, idle_timeout: float | None = 70.0,
                 max_internal_error_retry_duration: float = 0.0,
                 use_watch_list: bool = False, backoff: ExponentialBackoff | None = None,
                 on_list_page: Callable[[PageInfo], None] | None = None,
                 rand: random.Random | None = None,
                 pace: Callable[[], None] | None = None,
                 on_relist: Callable[[], None] | None = None) -> None:
        self.list_watcher = list_watcher
        self.store = store
        self.resync_period = resync_period
        self.name = name or getattr(list_watcher, "description", "") or "reflector"
        self.description = getattr(list_watcher, "description", "") or self.name
        self.expected_type = expected_type  # (apiVersion, kind); others are dropped (G57)
        self.clock = clock or RealClock()
        self.page_size = page_size  # client-go's WatchListPageSize
        self.should_resync = should_resync
        self.watch_error_handler = watch_error_handler or default_watch_error_handler
        self.min_watch_timeout = max(300.0, min_watch_timeout)
        self.idle_timeout = idle_timeout
        self.use_watch_list = use_watch_list
        self.backoff = backoff or ExponentialBackoff(clock=self.clock, rand=rand)
        self.retry_internal = RetryWithDeadline(max_internal_error_retry_duration,
                                                clock=self.clock)
        self.on_list_page = on_list_page
        self.on_relist = on_relist  # called after each list but the first (kubenb only)
        self._listed = False
        self.pace = pace  # called after each watch event (the informer's Pacer)
        self._last_kept = float("-inf")
        self._random = rand or random.Random()
        self._lock = threading.Lock()
        self._last_sync_rv = ""
        self._rv_unavailable = False
        self._paginated_result = False
        self._watch: Watcher | None = None
        self._cancel: threading.Event | None = None
        self._scope: AbortScope | None = None  # aborts this ListAndWatch's requests
        self._warnings = _RepeatedWarnings(self.clock)
        self._counts: Counter[str] = Counter()
        self.state = "new"
        self.last_error: str = ""

    def __repr__(self) -> str:
        return (f"Reflector({self.description!r}, state={self.state}, "
                f"rv={self.last_sync_resource_version()!r})")

    # -- public ------------------------------------------------------------------------

    def last_sync_resource_version(self) -> str:
        """The resourceVersion the store is known to be current at ("" before a list)."""
        with self._lock:
            return self._last_sync_rv

    def stats(self) -> dict[str, Any]:
        """Counters of every stage (lists, pages, objects listed, events by type, resumes,
        410s, idle timeouts, errors) plus the state and the last error, as one snapshot."""
        with self._lock:
            snapshot: dict[str, Any] = dict(self._counts)
        snapshot.update(state=self.state, resource_version=self.last_sync_resource_version(),
                        last_error=self.last_error)
        return snapshot

    def run(self, stop: threading.Event) -> None:
        """ListAndWatch until `stop` is set, backing off between attempts (G66)."""
        try:
            while not stop.is_set():
                try:
                    self.list_and_watch(stop)
                except Exception as err:  # every failure is retried
                    if stop.is_set():
                        break  # what stopping aborted is no error
                    self._count("errors")
                    self.last_error = str(err)
                    self.watch_error_handler(self, err)
                if stop.is_set():
                    break
                self.state = "backoff"
                self.clock.wait_event(stop, self.backoff.next())
        finally:
            self.state = "stopped"

    def _abort_all(self) -> None:
        """Abort every request in flight (the LIST, the watch call, the open watch) at
        once: the caller's stop Event was set."""
        with self._lock:
            scope = self._scope
        if scope is not None:
            scope.abort()
        self._interrupt()

    def _interrupt(self) -> None:
        with self._lock:
            watch, cancel = self._watch, self._cancel
        if cancel is not None:
            cancel.set()
        if watch is not None:
            watch.stop()

    # -- ListAndWatch ----------------------------------------------------------------------

    def list_and_watch(self, stop: threading.Event) -> None:
        """One list (or streaming list), then watches until one fails; raises list errors.

        Setting `stop` ends it promptly, also in the middle of a watch (G68) or of a
        LIST (its connection is shut down); it then returns without an error."""
        if stop.is_set():
            return
        scope = AbortScope(self.description)
        with self._lock:
            self._scope = scope
        stopping = on_stop(stop, self._abort_all)
        try:
            with scope:
                self._list_and_watch(stop)
        except Exception:
            if not stop.is_set():
                raise
        finally:
            stopping.cancel()
            with self._lock:
                self._scope = None

    def _list_and_watch(self, stop: threading.Event) -> None:
        opened: tuple[Watcher, Iterator[Any]] | None = None
        if self.use_watch_list:
            opened = self._watch_list(stop)
        if opened is None:
            if stop.is_set():
                return
            self._list(stop)
        cancel = threading.Event()
        with self._lock:
            self._cancel = cancel
        resync = None
        if self.resync_period > 0:
            resync = threading.Thread(target=self._resync_loop, args=(cancel,), daemon=True,
                                      name=f"kubenb-reflector-resync-{self.name}")
            resync.start()
        try:
            self._watch_loop(stop, cancel, opened)
        finally:
            cancel.set()
            with self._lock:
                self._cancel = None
            if resync is not None:
                resync.join()

    def relist_resource_version(self) -> str:
        """"0" for the first list, "" after an unavailable-RV error, else the last RV (G49)."""
        with self._lock:
            if self._rv_unavailable:
                return ""
            return self._last_sync_rv or "0"

    def _list(self, stop: threading.Event) -> None:
        self.state = "listing"
        options = ListOptions(resource_version=self.relist_resource_version())
        pager = ListPager(self.list_watcher.list, page_size=DEFAULT_PAGE_SIZE)
        if self.page_size:
            pager.page_size = self.page_size
        elif self._paginated_result:
            pass  # an earlier "0" list came back paginated: keep 500 (G53b)
        elif options.resource_version not in ("", "0"):
            pager.page_size = 0  # may be served from the watch cache (G53c)
        self._count("lists")
        try:
            try:
                result, paginated = pager.list(options, on_page=self._on_page)
            except ApiError as err:
                if not (isinstance(err, Gone) or is_too_large_resource_version(err)):
                    raise
                with self._lock:
                    self._rv_unavailable = True
                self._count("relists_unavailable_rv")
                options = ListOptions(resource_version=self.relist_resource_version())
                result, paginated = pager.list(options, on_page=self._on_page)
        except Exception as err:
            if stop.is_set():
                raise _StopRequested from err
            raise ListError(self.description, err) from err
        if stop.is_set():
            raise _StopRequested  # client-go's list() drops a result that came after stop
        if options.resource_version == "0" and paginated:
            self._paginated_result = True
        with self._lock:
            self._rv_unavailable = False
        rv = (result.get("metadata") or {}).get("resourceVersion", "")
        items = result.get("items") or []
        self._count("objects_listed", len(items))
        self._replace(items, rv)
        self._set_last_sync_rv(rv)
        self._listed_again()

    def _listed_again(self) -> None:
        """Tell `on_relist` about every list after the first. A relist follows a watch
        that could not go on (410 Gone, an expired resourceVersion, an error): what was
        created and deleted meanwhile is in no list and reaches no handler."""
        if self._listed and self.on_relist is not None:
            self._count("relist_notifications")
            self.on_relist()
        self._listed = True

    def _on_page(self, page: PageInfo) -> None:
        self._count("list_pages")
        if self.on_list_page is not None:
            self.on_list_page(page)

    # -- watching ----------------------------------------------------------------------

    def _watch_loop(self, stop: threading.Event, cancel: threading.Event,
                    opened: tuple[Watcher, Iterator[Any]] | None) -> None:
        """Watch (resuming after normal ends) until a watch fails, `stop` or `cancel`.

        `opened` is the watch-list stream and its iterator, already past the initial
        events: it is read on with the same iterator, as client-go reuses the stream."""
        self.retry_internal.reset()  # a window per ListAndWatch, as Go's per-watch() retry
        while not (stop.is_set() or cancel.is_set()):
            started = self.clock.now()
            if opened is None:
                try:
                    watch = self._open_watch()
                except (TooManyRequests, requests.ConnectionError) as err:
                    self._note_retriable(err)
                    self.clock.wait_event(stop, self.backoff.next())
                    continue
                events = iter(watch)
            else:
                (watch, events), opened = opened, None
            self.state = "watching"
            try:
                self._handle_watch(watch, events, started, stop, cancel)
            except _StopRequested:
                return
            except TooManyRequests as err:
                self._note_retriable(err)
                self.clock.wait_event(stop, self.backoff.next())
                continue
            except ServerError as err:
                if err.reason == "InternalError":
                    self.retry_internal.after()
                if err.reason == "InternalError" and self.retry_internal.should_retry():
                    self._count("internal_error_retries")
                    continue
                self._watch_failed(err)
                return
            except (ApiError, WatchDecodeError, VeryShortWatchError) as err:
                self._watch_failed(err)
                return
            finally:
                watch.stop()
                with self._lock:
                    self._watch = None
                end = getattr(watch, "end_reason", "")
                if end and not stop.is_set():
                    self._count(f"watch_end_{end.replace('-', '_')}")
                del watch, events
            if not (stop.is_set() or cancel.is_set()):
                self._count("resumes")
        if opened is not None:  # stopped before the watch-list stream was read on
            opened[0].stop()
            with self._lock:
                self._watch = None

    def _open_watch(self) -> Watcher:
        timeout = int(self.min_watch_timeout * (1 + self._random.random()))
        options = ListOptions(resource_version=self.last_sync_resource_version(),
                              timeout_seconds=timeout, allow_watch_bookmarks=True)
        self._count("watches")
        watch = self.list_watcher.watch(options, self.idle_timeout)
        with self._lock:
            self._watch = watch
        return watch

    def _note_retriable(self, err: BaseException) -> None:
        self._count("watch_retries")
        self.last_error = str(err)
        log.info("%s: watch of %s will be retried: %s", self.name, self.description, err)

    def _watch_failed(self, err: BaseException) -> None:
        """Log like client-go's watch(): the caller returns and `run` relists after backoff."""
        self.last_error = str(err)
        if isinstance(err, Gone):
            self._count("gone")
            log.info("%s: watch of %s closed with: %s", self.name, self.description, err)
        else:
            self._count("watch_errors")
            self._warnings.warning(_failure_kind(err), "%s: watch of %s ended with: %s",
                                   self.name, self.description, err)

    def _handle_watch(self, watch: Watcher, events: Iterator[Any], started: float,
                      stop: threading.Event, cancel: threading.Event) -> None:
        # The stop bridge may have fired before this watch was registered (G68).
        if stop.is_set():
            raise _StopRequested
        if cancel.is_set():
            return
        count = 0
        pace = self.pace
        for event in events:
            if stop.is_set():
                raise _StopRequested
            if self._apply_event(event.type, event.object):
                count += 1
                if pace is not None:
                    pace()
        if stop.is_set():
            raise _StopRequested
        if cancel.is_set():
            return  # a resync error ends the watch; ListAndWatch still returns normally
        if count:
            self._warnings.reset()  # the server serves watches again
        else:
            self._check_very_short(watch, started)

    def _check_very_short(self, watch: Watcher, started: float) -> None:
        """client-go's handleAnyWatch: a watch that ended within a second with no event is
        an error, whatever ended it (a clean close, a reset connection); only the ends the
        client chose itself (stop, kubenb's idle timeout) are not the server's doing."""
        if getattr(watch, "end_reason", "closed") in _NOT_SHORT_ENDS:
            return
        if self.clock.since(started) < _VERY_SHORT_WATCH:
            self._count("very_short_watches")
            raise VeryShortWatchError(
                f"very short watch: {self.description}: Unexpected watch close - "
                "watch lasted less than a second and no items received")

    def _apply_event(self, kind: str, obj: dict[str, Any]) -> bool:
        if (self.expected_type is not None and "kind" in obj and kind != "BOOKMARK"
                and (obj.get("apiVersion"), obj.get("kind")) != self.expected_type):
            self._count("events_dropped_wrong_type")
            return False
        rv = (obj.get("metadata") or {}).get("resourceVersion", "")
        if kind == "ADDED":
            self.store.add(obj)
            self._promote_if_busy()
        elif kind == "MODIFIED":
            self.store.update(obj)
            self._promote_if_busy()
        elif kind == "DELETED":
            self.store.delete(obj)
        elif kind != "BOOKMARK":  # pragma: no cover - the decoder rejects other types
            raise WatchDecodeError(f"got invalid watch event type: {kind}")
        with self._lock:  # one lock round per event: the counter and the RV together
            self._counts[_EVENT_COUNTERS[kind]] += 1
            self._last_sync_rv = rv
        # Every event, not only bookmarks, is reported to a ResourceVersionUpdater (G58).
        updater = getattr(self.store, "update_resource_version", None)
        if updater is not None:
            updater(rv)
        return True

    def _replace(self, items: list[Any], rv: str) -> None:
        """`store.replace`; for a large list with the collector paused, and what it
        queued (one Deltas per object, until the informer's other thread takes it)
        promoted at once. Else young collections during the replace and while the
        queue drains promote it the counted way, and past a quarter of the oldest
        generation's size at its last full collection that schedules one, which walks
        the whole new cache (measured: 3.3-3.8 s of a 100k-pod sync). Promoted at
        once, the queue is not counted, and reference counting frees it as it is
        taken (see kubenb.jsondecode)."""
        if len(items) < _PROMOTE_LISTED:
            self.store.replace(items, rv)
            return
        with gc_paused():
            self.store.replace(items, rv)
            promote_young()

    def _promote_if_busy(self) -> None:
        """Every object a watch delivers is kept by the cache, so it outlives every young
        collection and each one walks it again. In a burst of new objects (a
        watch-list's initial events, a mass create) the cache grows by every event, and
        each growth step would make the collector walk the whole cache; in a steady
        stream of updates the replaced objects are freed as fast as new ones come, so
        the collector's young count hardly moves while its young list fills with kept
        objects: a young collection every ~0.3 s walked ~60k of them, a middle one
        every few seconds up to ~600k (20-200 ms pauses with 10k pods at 2k updates/s,
        the LiveFrame p99 of docs/reactive.md). Promoting what is young after each
        event of a busy stream keeps both out of the collector's schedule (see
        kubenb.jsondecode). An isolated event is left to the collector: in a quiet
        cluster, young collections of the rest of the program go on as usual."""
        now = time.monotonic()
        if now - self._last_kept < _BURST_GAP:
            promote_young()
        self._last_kept = now

    def _set_last_sync_rv(self, rv: str) -> None:
        with self._lock:
            self._last_sync_rv = rv

    # -- streaming initial list (WatchList, G71-G72) -------------------------------------

    def _watch_list(self, stop: threading.Event) -> tuple[Watcher, Iterator[Any]] | None:
        """Stream the initial state; return the still-open watch and the iterator that
        read it (the live events follow on the same one), or None to fall back to LIST."""
        key_of = getattr(self.store, "key_of", None) or meta_namespace_key_func
        while not stop.is_set():
            self.state = "listing"
            with self._lock:
                rv = "" if self._rv_unavailable else self._last_sync_rv
            options = ListOptions(resource_version=rv, resource_version_match="NotOlderThan",
                                  send_initial_events=True, allow_watch_bookmarks=True,
                                  timeout_seconds=int(self.min_watch_timeout *
                                                      (1 + self._random.random())))
            self._count("watch_lists")
            started = self.clock.now()
            try:
                watch = self.list_watcher.watch(options, self.idle_timeout)
            except Exception as err:  # G72: retry, or fall back to LIST
                if stop.is_set():
                    return None
                if self._watch_list_retriable(err, stop):
                    continue
                log.info("%s: watch-list failed (%s); falling back to list", self.name, err)
                return None
            with self._lock:
                self._watch = watch
            # client-go's temporary store, as a plain dict: one thread fills it, and
            # nothing reads it before the end bookmark (no lock, no indexes needed).
            temp: dict[str, Any] = {}
            # One iterator for the whole stream: a second `iter(watch)` would start a new
            # read of the response, and a real Watch closes its response when the first
            # iterator is dropped, so the live part would be lost.
            events = iter(watch)
            try:
                done_rv = None if stop.is_set() else self._stream_initial(
                    watch, events, temp, key_of, started, stop)
            except Exception as err:  # G72: retry, or fall back to LIST
                watch.stop()
                with self._lock:
                    self._watch = None
                if stop.is_set():
                    return None
                if self._watch_list_retriable(err, stop):
                    continue
                log.info("%s: watch-list failed (%s); falling back to list", self.name, err)
                return None
            if done_rv is None:
                watch.stop()
                with self._lock:
                    self._watch = None
                if stop.is_set():
                    return None
                continue  # closed before the end bookmark: ask again
            with self._lock:
                self._rv_unavailable = False
            items = list(temp.values())
            self._count("objects_listed", len(items))
            self._replace(items, done_rv)
            self._set_last_sync_rv(done_rv)
            self._listed_again()
            return watch, events
        return None

    def _watch_list_retriable(self, err: BaseException, stop: threading.Event) -> bool:
        """client-go's `isErrorRetriableWithSideEffectsFn`: back off on 429 and refused
        connections, ask again from RV "" after an unavailable RV; else fall back."""
        if isinstance(err, (TooManyRequests, requests.ConnectionError)):
            self._note_retriable(err)
            self.clock.wait_event(stop, self.backoff.next())
            return True
        if isinstance(err, Gone) or is_too_large_resource_version(err):
            with self._lock:
                self._rv_unavailable = True
            return True
        return False

    def _stream_initial(self, watch: Watcher, events: Iterator[Any], temp: dict[str, Any],
                        key_of: Callable[[Any], str], started: float,
                        stop: threading.Event) -> str | None:
        """Read the initial events into `temp` up to the initial-events-end bookmark and
        return its resourceVersion; None when the stream ended (or `stop`) before it.
        A stream that ends within a second with no event is a very short watch (raised,
        so the caller falls back to LIST as client-go's watchList does)."""
        count = 0
        for event in events:
            if stop.is_set():
                return None
            count += 1
            obj = event.object
            if event.type == "ADDED":
                temp[key_of(obj)] = obj
                self._promote_if_busy()
            elif event.type == "MODIFIED":
                temp[key_of(obj)] = obj
            elif event.type == "DELETED":
                temp.pop(key_of(obj), None)
            elif event.type == "BOOKMARK":
                annotations = (obj.get("metadata") or {}).get("annotations") or {}
                if annotations.get(INITIAL_EVENTS_END) == "true":
                    return (obj.get("metadata") or {}).get("resourceVersion", "")
        if count == 0 and not stop.is_set():
            self._check_very_short(watch, started)
        return None

    # -- resync ------------------------------------------------------------------------------

    def _resync_loop(self, cancel: threading.Event) -> None:
        while not self.clock.wait_event(cancel, self.resync_period):
            if self.should_resync is None or self.should_resync():
                try:
                    self.store.resync()
                    self._count("resyncs")
                except Exception as err:  # a resync error ends this watch (G67)
                    self.last_error = f"resync failed: {err}"
                    log.warning("%s: resync failed: %s", self.name, err)
                    self._interrupt()
                    return

    def _count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._counts[name] += n
