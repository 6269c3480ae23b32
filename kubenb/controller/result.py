"""What a reconcile returns besides "done": controller-runtime's `reconcile.Result`.

The runner reads it after every `reconcile(key)` (see kubenb/controller/runner.py for
the table of outcomes); it is its own module so a reconcile function can import it
without the runner's machinery.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

from kubenb.errors import KubenbError

__all__ = ["Result"]


@dataclass(frozen=True)
class Result:
    """What a reconcile asks for besides "done" (controller-runtime's `reconcile.Result`).

    `requeue=True` retries the key with the rate limiter's backoff; `requeue_after`
    (seconds, or a timedelta) retries it after that long, with its backoff reset: a
    periodic re-check is not a failure. `requeue_after` wins when both are set.
    """

    requeue: bool = False
    requeue_after: float = 0.0

    def __post_init__(self) -> None:
        after = self.requeue_after
        if isinstance(after, timedelta):
            after = after.total_seconds()
        if isinstance(after, bool) or not isinstance(after, (int, float)) or math.isnan(after):
            raise KubenbError(f"Result: requeue_after must be a number of seconds, got {after!r}")
        if after < 0:
            raise KubenbError(f"Result: requeue_after must be >= 0 seconds, got {after!r}")
        object.__setattr__(self, "requeue_after", float(after))
