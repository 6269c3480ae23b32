"""The rate-limited workqueue (client-go's `util/workqueue/rate_limiting_queue.go`).

A controller re-queues a key that failed with `add_rate_limited(key)`: the queue asks
its rate limiter how long the key should wait and hands it to `add_after`. When the key
finally succeeds (or the controller gives up on it) the controller calls `forget(key)`
so the next failure starts the backoff from the beginning. `forget` only clears the
limiter's memory; `done(key)` is still required after every `get()`.
"""

from __future__ import annotations

from typing import Any

from kubenb.clock import Clock
from kubenb.workqueue.delaying import DelayingQueue
from kubenb.workqueue.rate_limiters import RateLimiter, default_controller_rate_limiter

__all__ = ["RateLimitingQueue"]


class RateLimitingQueue(DelayingQueue):
    """A `DelayingQueue` whose retries are spaced out by a `RateLimiter`.

    `rate_limiter=None` means `default_controller_rate_limiter()` (per-item exponential
    backoff from 5 ms to 1000 s, and 10 retries per second overall with a burst of
    100); that default bucket reads time from this queue's `clock`, so a FakeClock
    drives both the waiting and the limiting. Other keyword arguments (such as
    `metrics_provider`) are passed on to `DelayingQueue`.
    """

    def __init__(
        self,
        rate_limiter: RateLimiter | None = None,
        name: str = "",
        clock: Clock | None = None,
        **queue_options: Any,
    ) -> None:
        # Check before the base class starts its background threads.
        if rate_limiter is not None and not isinstance(rate_limiter, RateLimiter):
            raise TypeError(
                "RateLimitingQueue: rate_limiter must have when(), forget() and "
                f"num_requeues(), got {rate_limiter!r}"
            )
        super().__init__(name=name, clock=clock, **queue_options)
        if rate_limiter is None:
            rate_limiter = default_controller_rate_limiter(clock=self.clock)
        self.rate_limiter: RateLimiter = rate_limiter

    def add_rate_limited(self, item: Any) -> None:
        """Add `item` once the rate limiter says it may be retried."""
        self.add_after(item, self.rate_limiter.when(item))

    def forget(self, item: Any) -> None:
        """Tell the limiter `item` is done being retried; its backoff starts over."""
        self.rate_limiter.forget(item)

    def num_requeues(self, item: Any) -> int:
        """How many times `item` has been rate-limited since it was last forgotten."""
        return self.rate_limiter.num_requeues(item)
