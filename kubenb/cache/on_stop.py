"""Callbacks run when a stop Event is set, all from one shared thread.

A blocking call (a LIST, a watch read, a queue pop) does not see its stop Event; some
other thread must turn the Event into an abort. A thread per call, each in
`stop.wait()`, costs two threads per informer (one per ListAndWatch, one per process
loop). `on_stop` runs every such callback from one thread for the whole process, which
lives only while a callback is registered.

A `StopEvent` wakes that thread the moment it is set, so a process whose stops are all
StopEvents has no thread waking while idle. A plain `threading.Event` cannot say it was
set: while one has a callback, the thread looks at every Event each `POLL` seconds
(the promptness a per-call thread polling its Event had).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

__all__ = ["POLL", "OnStop", "StopEvent", "on_stop"]

log = logging.getLogger(__name__)

#: Real seconds between two looks at plain Events that have callbacks.
POLL = 0.05


class StopEvent(threading.Event):
    """A `threading.Event` that wakes the shared stop waiter when set (no polling)."""

    def set(self) -> None:
        super().set()
        _WAITER.poke()


class OnStop:
    """One registered callback; `cancel()` it once the call it guards is over."""

    __slots__ = ("callback", "event", "state")

    def __init__(self, event: threading.Event, callback: Callable[[], None]) -> None:
        self.event = event
        self.callback = callback
        self.state = "waiting"  # then "calling", "done" or "cancelled"

    def __repr__(self) -> str:
        return f"OnStop({self.callback!r}, {self.state})"

    def cancel(self) -> None:
        """Unregister. If the callback is running, return once it has returned; if
        this was the last callback, return once the shared thread has ended (so a
        stopped component leaves no thread behind)."""
        _WAITER.cancel(self)


class _Waiter:
    """The shared thread and its registry (one per process)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._entries: dict[OnStop, None] = {}  # an ordered set
        self._thread: threading.Thread | None = None

    def register(self, event: threading.Event, callback: Callable[[], None]) -> OnStop:
        entry = OnStop(event, callback)
        with self._cond:
            self._entries[entry] = None
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="kubenb-stop-waiter")
                self._thread.start()
            else:
                self._cond.notify_all()  # set already, or plain: look again now
        return entry

    def poke(self) -> None:
        with self._cond:
            if self._entries:
                self._cond.notify_all()

    def cancel(self, entry: OnStop) -> None:
        me = threading.current_thread()
        with self._cond:
            if entry.state == "waiting":
                entry.state = "cancelled"
                del self._entries[entry]
                self._cond.notify_all()
            elif entry.state == "calling" and self._thread is not me:
                self._cond.wait_for(lambda: entry.state == "done")
            thread = self._thread
            if thread is None or thread is me:
                return
            # The last one out waits for the thread to end, unless someone registers.
            self._cond.wait_for(lambda: self._thread is not thread or bool(self._entries))
            ended = self._thread is not thread
        if ended:
            thread.join()

    def _run(self) -> None:
        cond = self._cond
        with cond:
            while True:
                fired = [e for e in self._entries if e.event.is_set()]
                if fired:
                    for entry in fired:
                        del self._entries[entry]
                        entry.state = "calling"
                    cond.release()
                    try:
                        for entry in fired:
                            try:
                                entry.callback()
                            except Exception:  # one failing callback must not stop the rest
                                log.exception("stop callback %r failed", entry.callback)
                    finally:
                        cond.acquire()
                        for entry in fired:
                            entry.state = "done"
                        cond.notify_all()
                    continue
                if not self._entries:
                    self._thread = None
                    cond.notify_all()
                    return
                plain = any(not isinstance(e.event, StopEvent) for e in self._entries)
                cond.wait(POLL if plain else None)


_WAITER = _Waiter()


def on_stop(stop: threading.Event, callback: Callable[[], None]) -> OnStop:
    """Call `callback()` (on the shared thread) once `stop` is set; at once if it is.
    `cancel()` the returned handle when the guarded call is over."""
    return _WAITER.register(stop, callback)
