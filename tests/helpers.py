"""Small test helpers shared across test packages."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0, what: str = "") -> None:
    """Poll `predicate` until true; fail after `timeout` real seconds.

    Used only to wait for a background thread to reach a state, never to let
    timers fire: timers are driven with FakeClock.
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")
        time.sleep(0.001)


def kubenb_threads() -> list[threading.Thread]:
    """Live threads started by kubenb (they are all named kubenb-...)."""
    return [t for t in threading.enumerate() if t.name.startswith("kubenb")]
