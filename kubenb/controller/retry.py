"""Optimistic concurrency helpers (client-go's `util/retry` over apimachinery's `wait.Backoff`).

Every write to the API server carries the `metadata.resourceVersion` it was based on; if
someone else wrote in between, the server answers 409 Conflict. The cure is always the
same: read the object again, re-apply the change, try again after a short wait.
`retry_on_conflict(fn)` runs that loop, where `fn` does the whole read-modify-write.

Waits go through a clock, so a test (or a teaching notebook) steps a `FakeClock`
instead of sleeping.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from kubenb.clock import Clock, RealClock
from kubenb.errors import Conflict, KubenbError

__all__ = [
    "DEFAULT_BACKOFF",
    "DEFAULT_RETRY",
    "Backoff",
    "on_error",
    "retry_on_conflict",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Backoff:
    """How often and how long to wait between tries (apimachinery's `wait.Backoff`).

    `steps` is the number of tries; the first wait is `duration` seconds and each
    next one is `factor` times the previous (never above `cap`, when `cap` > 0, after
    which the waits stop growing). `jitter` adds up to `jitter * wait` at random, so
    clients that collided once do not collide again in lockstep.
    """

    duration: float
    factor: float = 1.0
    jitter: float = 0.0
    steps: int = 1
    cap: float = 0.0

    def __post_init__(self) -> None:
        for name in ("duration", "factor", "jitter", "cap"):
            value = getattr(self, name)
            if value < 0:
                raise KubenbError(f"Backoff: {name} must be >= 0, got {value!r}")

    def delays(self, rand: random.Random | None = None) -> list[float]:
        """The waits `on_error` makes between tries if every try fails, in order."""
        out: list[float] = []
        steps, duration = self.steps, self.duration
        while steps > 1:
            wait, duration, steps = _step(steps, duration, self, rand or random)
            if steps == 0:
                break
            out.append(wait)
        return out


def _step(steps: int, duration: float, backoff: Backoff,
          rng: random.Random | Any) -> tuple[float, float, int]:
    """One `wait.Backoff.Step()`: (this wait, next duration, steps left). Hitting `cap`
    sets the steps left to 0: no try follows (Go still sleeps before giving up; kubenb
    gives up at once)."""
    wait = duration
    if steps >= 1:
        steps -= 1
        if backoff.factor != 0:
            duration = duration * backoff.factor
            if backoff.cap > 0 and duration > backoff.cap:
                duration, steps = backoff.cap, 0
    if backoff.jitter > 0:
        wait = wait + rng.random() * backoff.jitter * wait
    return wait, duration, steps


#: client-go's `retry.DefaultRetry`: for a conflict among clients editing one object.
DEFAULT_RETRY = Backoff(duration=0.010, factor=1.0, jitter=0.1, steps=5)
#: client-go's `retry.DefaultBackoff`: when a controller may be changing the object too.
DEFAULT_BACKOFF = Backoff(duration=0.010, factor=5.0, jitter=0.1, steps=4)


def on_error(backoff: Backoff, retriable: Callable[[BaseException], bool], fn: Callable[[], T],
             *, clock: Clock | None = None, rand: random.Random | None = None) -> T:
    """Call `fn` until it returns, retrying while it raises what `retriable` accepts
    (client-go's `retry.OnError`).

    Returns what `fn` returned. An exception `retriable` rejects is raised at once;
    after `backoff.steps` retriable failures the last one is raised.
    """
    if backoff.steps < 1:
        raise KubenbError(f"on_error: backoff.steps must be >= 1, got {backoff.steps}")
    clk: Clock = clock if clock is not None else RealClock()
    rng = rand or random
    steps, duration = backoff.steps, backoff.duration
    while True:
        try:
            return fn()
        except Exception as err:
            # wait.ExponentialBackoff: no wait after the last try (steps == 1).
            if not retriable(err) or steps <= 1:
                raise
            last = err
        wait, duration, steps = _step(steps, duration, backoff, rng)
        if steps == 0:
            raise last
        clk.sleep(wait)


def _is_conflict(err: BaseException) -> bool:
    return isinstance(err, Conflict)


def retry_on_conflict(fn: Callable[[], T], backoff: Backoff = DEFAULT_RETRY, *,
                      clock: Clock | None = None, rand: random.Random | None = None) -> T:
    """Run the read-modify-write `fn` again whenever it raises `kubenb.errors.Conflict`
    (client-go's `retry.RetryOnConflict`).

    `fn` must fetch the object itself on every try: the copy that conflicted is stale.
    Any other error is raised at once; after `backoff.steps` conflicts (5 with the
    default) the last `Conflict` is raised. Returns what `fn` returned.
    """
    return on_error(backoff, _is_conflict, fn, clock=clock, rand=rand)

