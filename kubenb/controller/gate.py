"""The gate a controller's workers pass before they take a key: what
`Controller.pause()`, `step(n)` and `resume()` drive.

A worker waits here, not inside `queue.get()`, until a key is queued, so a pause holds
back the very next key: it stays in the workqueue, in plain sight, for a learner (or
the informer diagram) to look at, and `step(n)` lets exactly n keys through. The gate
waits on the controller's own condition, so the notify that wakes an idle wait also
wakes the gate.
"""

from __future__ import annotations

import threading
from typing import Any

from kubenb.workqueue.interface import RateLimitingInterface

__all__ = ["GATE_POLL", "WorkerGate"]

#: How long (real seconds) a worker waiting for a key or at the gate sleeps at most
#: before looking again on its own. A safety net only: every change that can let it
#: pass notifies it (an add, a done that queues a key again, pause/step/resume, a
#: stop), so it is long, and idle workers do not wake the process.
GATE_POLL = 30.0


class WorkerGate:
    """Pause, step and resume for a controller's workers, on `cond` (the controller's
    condition: its lock guards the gate's state too)."""

    def __init__(self, cond: threading.Condition) -> None:
        self._cond = cond
        self._paused = False
        self._permits = 0  # keys step() still lets through while paused
        self._parked = 0  # workers waiting at the closed gate

    def take(self, queue: RateLimitingInterface, stop: threading.Event,
             until_stop: bool = False) -> tuple[Any, bool]:
        """Pass the gate, then `queue.get()`; `(None, True)` means leave. Called with
        the condition held.

        Keys are taken only when one is queued, so `get()` never blocks here. A worker
        at the closed gate leaves when the term stops, without draining the queue; with
        `until_stop`, a worker leaves once the term stops, open gate or not (between
        keys: the one it reconciles is done).
        """
        cond = self._cond
        while True:
            if until_stop and stop.is_set():
                return None, True
            closed = self._paused and self._permits == 0
            if closed:
                if stop.is_set() or queue.shutting_down():
                    return None, True
            elif len(queue) or queue.shutting_down():
                key, shutdown = queue.get()  # a key is queued: returns at once
                if not shutdown and self._paused:
                    self._permits -= 1
                return key, shutdown
            if closed:
                self._parked += 1
                cond.notify_all()  # wakes a test waiting for parked workers
            try:
                cond.wait(GATE_POLL)
            finally:
                if closed:
                    self._parked -= 1

    def pause(self) -> None:
        """Close the gate (a no-op when closed already: steps allowed stay allowed)."""
        with self._cond:
            if not self._paused:
                self._paused = True
                self._permits = 0
            self._cond.notify_all()

    def resume(self) -> None:
        """Open the gate: workers take keys as they come again."""
        with self._cond:
            self._paused = False
            self._permits = 0
            self._cond.notify_all()

    def step(self, n: int) -> bool:
        """While closed, let exactly `n` more keys be taken, one worker each; False
        (and nothing changes) when the gate is open."""
        with self._cond:
            if not self._paused:
                return False
            self._permits += n
            self._cond.notify_all()
            return True

    @property
    def paused(self) -> bool:
        with self._cond:
            return self._paused

    @property
    def parked(self) -> int:
        with self._cond:
            return self._parked

    @property
    def pending_steps(self) -> int:
        with self._cond:
            return self._permits
