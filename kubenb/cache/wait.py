"""Waiting for caches to sync (client-go `WaitForCacheSync`).

A controller must not act on a half-filled cache: it would "fix" objects it simply
has not seen yet. `wait_for_cache_sync` blocks until every informer (or handler
registration) given reports `has_synced`, polling as client-go does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kubenb.clock import Clock, RealClock
from kubenb.errors import KubenbError

__all__ = [
    "SYNCED_POLL_PERIOD",
    "InformerSynced",
    "wait_for_cache_sync",
    "wait_for_named_cache_sync",
]

_log = logging.getLogger(__name__)

#: How often the sync functions are polled (client-go `syncedPollPeriod`), in seconds.
SYNCED_POLL_PERIOD = 0.1

#: A function telling whether a cache has synced (client-go `InformerSynced`).
InformerSynced = Callable[[], bool]


def _as_synced_func(index: int, source: Any) -> InformerSynced:
    """Accept a `has_synced` function or anything with a `has_synced()` method (an
    informer, a handler registration), which is what one types in a notebook."""
    method = getattr(source, "has_synced", None)
    if callable(method):
        return method
    if callable(source):
        return source
    raise KubenbError(
        f"wait_for_cache_sync: argument {index + 1} ({type(source).__name__}) is neither "
        "a has_synced function nor an object with a has_synced() method"
    )


def wait_for_cache_sync(
    stop: threading.Event | None,
    *has_synced: InformerSynced | Any,
    timeout: float | None = None,
    clock: Clock | None = None,
    poll_period: float = SYNCED_POLL_PERIOD,
) -> bool:
    """Block until every `has_synced` returns true (then True), or `stop` is set or
    `timeout` clock seconds pass first (then False).

    The functions are checked at once and then every `poll_period` clock seconds,
    so with a `FakeClock` each `step(poll_period)` is one more check.
    """
    if poll_period <= 0:
        raise KubenbError(f"wait_for_cache_sync: poll_period must be > 0, got {poll_period}")
    funcs = [_as_synced_func(i, f) for i, f in enumerate(has_synced)]
    clk: Clock = clock if clock is not None else RealClock()
    stop_event = stop if stop is not None else threading.Event()
    deadline = None if timeout is None else clk.now() + timeout
    while True:
        if all(f() for f in funcs):
            return True
        if stop_event.is_set():
            return False
        wait = poll_period
        if deadline is not None:
            remaining = deadline - clk.now()
            if remaining <= 0:
                return False
            wait = min(wait, remaining)
        if clk.wait_event(stop_event, wait):
            return False


def wait_for_named_cache_sync(
    controller_name: str,
    stop: threading.Event | None,
    *has_synced: InformerSynced | Any,
    timeout: float | None = None,
    clock: Clock | None = None,
    poll_period: float = SYNCED_POLL_PERIOD,
) -> bool:
    """`wait_for_cache_sync` that logs its start and outcome under `controller_name`
    (client-go `WaitForNamedCacheSync`)."""
    _log.info("waiting for caches to sync for %s", controller_name)
    ok = wait_for_cache_sync(
        stop, *has_synced, timeout=timeout, clock=clock, poll_period=poll_period
    )
    if ok:
        _log.info("caches are synced for %s", controller_name)
    else:
        _log.error("unable to sync caches for %s", controller_name)
    return ok
