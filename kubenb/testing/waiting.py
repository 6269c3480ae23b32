"""`wait_for`: wait until an object on the server is as a test expects, by watching it.

An operator acts asynchronously: after a test creates an object, the status, child or
deletion it expects comes later. Sleeping a fixed time makes a test slow and flaky;
polling hammers the server. This reads the object once, then watches it (a field
selector on its name), so the test goes on the moment the change arrives. A condition
still false at `timeout` is a failed expectation: it raises `AssertionError` (a test
failure, not an error) showing the object as it was last seen.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: the client is imported by whoever made `client`
    from kubenb.client.dynamic import ResourceClient

__all__ = ["wait_for", "wait_for_deletion"]

_ABSENT = "(absent)"


def wait_for(client: ResourceClient, name: str,
             condition: Callable[[dict[str, Any]], Any] | None = None, *,
             timeout: float = 30.0) -> dict[str, Any]:
    """Return object `name` of `client` (e.g. `cluster.resource("pods", ns)`) once it
    exists and `condition(obj)` is true (no condition: once it exists)."""
    def met(obj: dict[str, Any] | None) -> bool:
        return obj is not None and (condition is None or bool(condition(obj)))

    found = _watch_until(client, name, met, timeout, _describe(condition))
    assert found is not None
    return found


def wait_for_deletion(client: ResourceClient, name: str, *, timeout: float = 30.0) -> None:
    """Return once object `name` of `client` is gone (finalizers may hold it a while)."""
    _watch_until(client, name, lambda obj: obj is None, timeout, "to be deleted")


def _describe(condition: Callable[..., Any] | None) -> str:
    if condition is None:
        return "to exist"
    return f"to satisfy {getattr(condition, '__qualname__', repr(condition))}"


def _watch_until(client: ResourceClient, name: str,
                 met: Callable[[dict[str, Any] | None], bool], timeout: float,
                 what: str) -> dict[str, Any] | None:
    """List (by name), then watch from the listed resourceVersion until `met`; a
    watch that ends early (the server dropped it) is followed by a fresh list."""
    if timeout <= 0:
        raise ValueError(f"wait_for(timeout={timeout!r}): give a positive number of seconds")
    by_name = f"metadata.name={name}"
    deadline = time.monotonic() + timeout
    while True:
        listed = client.list(field_selector=by_name)
        items = listed.get("items") or []
        last: dict[str, Any] | None = items[0] if items else None
        if met(last):
            return last
        left = deadline - time.monotonic()
        if left <= 0:
            break
        with client.watch(resource_version=listed["metadata"].get("resourceVersion"),
                          field_selector=by_name,
                          timeout_seconds=max(1, math.ceil(left))) as watch:
            for event in watch:
                if event.type == "BOOKMARK":
                    continue
                last = None if event.type == "DELETED" else event.object
                if met(last):
                    return last
                if time.monotonic() >= deadline:
                    break
        if time.monotonic() >= deadline:
            break
    shown = _ABSENT if last is None else _summary(last)
    raise AssertionError(f"waited {timeout:g}s for {client!r} {name!r} {what}; "
                         f"last seen: {shown}")


def _summary(obj: dict[str, Any]) -> str:
    """The parts of an object a failed wait should show: labels, annotations, spec
    and status (not managedFields, which only bury them)."""
    meta = obj.get("metadata") or {}
    parts = {"resourceVersion": meta.get("resourceVersion")}
    for key in ("labels", "annotations", "finalizers", "deletionTimestamp"):
        if meta.get(key):
            parts[key] = meta[key]
    for key in ("spec", "status", "data"):
        if key in obj:
            parts[key] = obj[key]
    return repr(parts)
