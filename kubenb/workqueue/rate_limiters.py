"""Rate limiters for the workqueue (client-go's `util/workqueue/default_rate_limiters.go`).

A rate limiter answers one question for a failed item: "how long should it wait before
it is retried?" (`when`). It also counts the retries (`num_requeues`) and can be told
that an item is done with, successfully or not, so its history is dropped (`forget`).

Delays are float seconds, not Go Durations. Every limiter is safe to call from many
threads at once; the per-item limiters keep one counter per item, so items must be
hashable (workqueue items always are).
"""

from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Hashable
from typing import Any, Protocol, runtime_checkable

from kubenb.clock import Clock, RealClock

__all__ = [
    "BucketRateLimiter",
    "ItemExponentialFailureRateLimiter",
    "ItemFastSlowRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "WithMaxWaitRateLimiter",
    "default_controller_rate_limiter",
    "default_item_based_rate_limiter",
]


@runtime_checkable
class RateLimiter(Protocol):
    """What a `RateLimitingQueue` needs from a limiter (client-go's `RateLimiter`)."""

    def when(self, item: Any) -> float:
        """How many seconds `item` should wait before it is retried; records a failure."""
        ...

    def forget(self, item: Any) -> None:
        """Stop tracking `item` (it succeeded or was given up on)."""
        ...

    def num_requeues(self, item: Any) -> int:
        """How many failures `item` has had since it was last forgotten."""
        ...


def _check_delay(name: str, value: float, owner: str) -> float:
    """Return `value` as a float, or raise a ValueError naming the bad argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a number of seconds, got {value!r}")
    value = float(value)
    if math.isnan(value) or value < 0:
        raise ValueError(f"{owner}: {name} must be >= 0 seconds, got {value!r}")
    return value


class _PerItemCounter:
    """A thread-safe failure count per item, shared by the per-item limiters."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[Hashable, int] = {}

    def forget(self, item: Any) -> None:
        with self._lock:
            self._failures.pop(item, None)

    def num_requeues(self, item: Any) -> int:
        with self._lock:
            return self._failures.get(item, 0)


class ItemExponentialFailureRateLimiter(_PerItemCounter):
    """Per-item exponential backoff: `base_delay * 2**n`, capped at `max_delay`.

    `n` is the number of earlier `when` calls for the item since it was last forgotten.
    The product is computed so that it can never overflow: when `base_delay * 2**n`
    is too large to represent, the result is `max_delay` (as client-go returns
    `maxDelay` when the nanosecond value would overflow int64).
    """

    def __init__(self, base_delay: float, max_delay: float) -> None:
        super().__init__()
        owner = type(self).__name__
        self.base_delay = _check_delay("base_delay", base_delay, owner)
        self.max_delay = _check_delay("max_delay", max_delay, owner)

    def when(self, item: Any) -> float:
        with self._lock:
            exp = self._failures.get(item, 0)
            self._failures[item] = exp + 1
        return self._backoff(exp)

    def _backoff(self, exp: int) -> float:
        if self.base_delay == 0:
            return 0.0
        # ldexp multiplies by an exact power of two, so 1 ms * 2**5 is exactly 0.032.
        # Clamping the exponent keeps ldexp away from absurd integers; anything past
        # 2**2100 overflows a float for every positive base, and then max_delay wins.
        try:
            backoff = math.ldexp(self.base_delay, min(exp, 2100))
        except OverflowError:
            return self.max_delay
        return min(backoff, self.max_delay)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(base_delay={self.base_delay!r}, max_delay={self.max_delay!r})"
        )


class ItemFastSlowRateLimiter(_PerItemCounter):
    """Per-item: `fast_delay` for the first `max_fast_attempts` failures, then `slow_delay`.

    The count is incremented before it is compared (as in client-go), so with
    `max_fast_attempts=3` the 1st, 2nd and 3rd failures are fast and the 4th is slow.
    """

    max_fast_attempts: int

    def __init__(self, fast_delay: float, slow_delay: float, max_fast_attempts: int) -> None:
        super().__init__()
        owner = type(self).__name__
        self.fast_delay = _check_delay("fast_delay", fast_delay, owner)
        self.slow_delay = _check_delay("slow_delay", slow_delay, owner)
        if isinstance(max_fast_attempts, bool) or not isinstance(
            max_fast_attempts, numbers.Integral
        ):
            raise TypeError(f"{owner}: max_fast_attempts must be an int, got {max_fast_attempts!r}")
        if max_fast_attempts < 0:
            raise ValueError(f"{owner}: max_fast_attempts must be >= 0, got {max_fast_attempts}")
        self.max_fast_attempts = int(max_fast_attempts)

    def when(self, item: Any) -> float:
        with self._lock:
            n = self._failures.get(item, 0) + 1
            self._failures[item] = n
        return self.fast_delay if n <= self.max_fast_attempts else self.slow_delay

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(fast_delay={self.fast_delay!r}, "
            f"slow_delay={self.slow_delay!r}, max_fast_attempts={self.max_fast_attempts!r})"
        )


class BucketRateLimiter:
    """An overall token bucket: `qps` tokens per second, at most `burst` stored.

    This is golang.org/x/time/rate's `Limiter.Reserve().Delay()`: the bucket starts
    full, every `when` takes one token whether or not one is available (tokens may go
    negative), and the delay is the time until the bucket is back at zero, so calls
    made at the same instant past the burst wait 1/qps, 2/qps, ... seconds.
    It limits the queue as a whole, not items: `num_requeues` is always 0 and `forget`
    does nothing.

    `qps=math.inf` never delays. `burst=0` (with a finite qps) can never grant a token;
    like Go, whose delay is then `InfDuration`, `when` returns `math.inf` and the bucket
    is left unchanged.
    """

    qps: float
    burst: int
    _tokens: float
    _last: float
    _lock: threading.Lock

    def __init__(self, qps: float, burst: int, clock: Clock | None = None) -> None:
        owner = type(self).__name__
        if isinstance(qps, bool) or not isinstance(qps, numbers.Real):
            raise TypeError(f"{owner}: qps must be a number, got {qps!r}")
        if math.isnan(qps) or qps <= 0:
            raise ValueError(f"{owner}: qps must be > 0, got {qps!r}")
        if isinstance(burst, bool) or not isinstance(burst, numbers.Integral):
            raise TypeError(f"{owner}: burst must be an int, got {burst!r}")
        if burst < 0:
            raise ValueError(f"{owner}: burst must be >= 0, got {burst}")
        self.qps = float(qps)
        self.burst = int(burst)
        self._clock: Clock = clock if clock is not None else RealClock()
        self._lock = threading.Lock()
        self._tokens = float(self.burst)
        self._last = self._clock.now()

    def when(self, item: Any) -> float:
        if math.isinf(self.qps):
            return 0.0
        with self._lock:
            now = self._clock.now()
            last = min(self._last, now)
            tokens = min(float(self.burst), self._tokens + (now - last) * self.qps)
            if self.burst < 1:
                return math.inf
            tokens -= 1.0
            self._tokens = tokens
            self._last = now
        return -tokens / self.qps if tokens < 0 else 0.0

    def tokens(self) -> float:
        """Tokens in the bucket now (negative while reservations are outstanding)."""
        if math.isinf(self.qps):
            return float(self.burst)
        with self._lock:
            now = self._clock.now()
            last = min(self._last, now)
            return min(float(self.burst), self._tokens + (now - last) * self.qps)

    def forget(self, item: Any) -> None:
        """Nothing to forget: the bucket does not track items."""

    def num_requeues(self, item: Any) -> int:
        return 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(qps={self.qps!r}, burst={self.burst!r})"


class MaxOfRateLimiter:
    """The largest delay of several limiters; every one of them is asked each time.

    Asking all of them (not stopping at the first) is what client-go does, so every
    sub-limiter's count advances together. `num_requeues` is the largest count and
    `forget` forgets in all of them.
    """

    def __init__(self, *limiters: RateLimiter) -> None:
        if not limiters:
            raise ValueError(f"{type(self).__name__}: limiters must name at least one limiter")
        for i, limiter in enumerate(limiters):
            if not isinstance(limiter, RateLimiter):
                raise TypeError(
                    f"{type(self).__name__}: limiters[{i}] is not a rate limiter: {limiter!r}"
                )
        self.limiters: tuple[RateLimiter, ...] = tuple(limiters)

    def when(self, item: Any) -> float:
        return max([limiter.when(item) for limiter in self.limiters])

    def num_requeues(self, item: Any) -> int:
        return max(limiter.num_requeues(item) for limiter in self.limiters)

    def forget(self, item: Any) -> None:
        for limiter in self.limiters:
            limiter.forget(item)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self.limiters))})"


class WithMaxWaitRateLimiter:
    """Another limiter's delay, but never more than `max_delay`.

    Useful to bound a limiter whose delays can grow without limit (such as a bucket
    under a long burst of failures). `forget` and `num_requeues` delegate.
    """

    def __init__(self, limiter: RateLimiter, max_delay: float) -> None:
        owner = type(self).__name__
        if not isinstance(limiter, RateLimiter):
            raise TypeError(f"{owner}: limiter is not a rate limiter: {limiter!r}")
        self.limiter = limiter
        self.max_delay = _check_delay("max_delay", max_delay, owner)

    def when(self, item: Any) -> float:
        return min(self.limiter.when(item), self.max_delay)

    def forget(self, item: Any) -> None:
        self.limiter.forget(item)

    def num_requeues(self, item: Any) -> int:
        return self.limiter.num_requeues(item)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.limiter!r}, max_delay={self.max_delay!r})"


def default_controller_rate_limiter(clock: Clock | None = None) -> MaxOfRateLimiter:
    """client-go's `DefaultControllerRateLimiter`: per-item and overall limits together.

    Per item, retries back off 5 ms, 10 ms, 20 ms, ... up to 1000 s; overall, retries
    are held to 10 per second with a burst of 100. `clock` drives the bucket.
    """
    return MaxOfRateLimiter(
        ItemExponentialFailureRateLimiter(0.005, 1000.0),
        BucketRateLimiter(10.0, 100, clock=clock),
    )


def default_item_based_rate_limiter() -> ItemExponentialFailureRateLimiter:
    """client-go's `DefaultItemBasedRateLimiter`: exponential per item, 1 ms .. 1000 s."""
    return ItemExponentialFailureRateLimiter(0.001, 1000.0)
