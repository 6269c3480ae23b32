"""The work queue's interfaces as typing protocols (client-go's `TypedInterface`,
`TypedDelayingInterface` and `TypedRateLimitingInterface` in util/workqueue).

Code that only uses a queue (a controller, a view) types it with these, so anything
with the same methods fits: a test double, a wrapper that logs, a queue of another
make. `Queue`, `DelayingQueue` and `RateLimitingQueue` are kubenb's implementations;
the protocols keep client-go's names because `Queue` is already the plain queue class.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import timedelta
from typing import Any, Protocol, runtime_checkable

__all__ = ["DelayingInterface", "Interface", "RateLimitingInterface"]


@runtime_checkable
class Interface(Protocol):
    """A de-duplicating work queue (client-go's `TypedInterface`)."""

    def add(self, item: Hashable) -> None: ...

    def __len__(self) -> int: ...

    def get(self) -> tuple[Any, bool]: ...

    def done(self, item: Hashable) -> None: ...

    def shut_down(self) -> None: ...

    def shut_down_with_drain(self) -> None: ...

    def shutting_down(self) -> bool: ...


@runtime_checkable
class DelayingInterface(Interface, Protocol):
    """An `Interface` that can add an item later (client-go's `TypedDelayingInterface`)."""

    def add_after(self, item: Hashable, seconds: float | timedelta) -> None: ...


@runtime_checkable
class RateLimitingInterface(DelayingInterface, Protocol):
    """A `DelayingInterface` whose retries a rate limiter spaces out (client-go's
    `TypedRateLimitingInterface`): what a controller's workers need."""

    def add_rate_limited(self, item: Hashable) -> None: ...

    def forget(self, item: Hashable) -> None: ...

    def num_requeues(self, item: Hashable) -> int: ...
