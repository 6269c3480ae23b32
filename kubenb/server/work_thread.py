"""WorkThreads: the threads of one on-demand server thread, for `join()`.

The watch sender and the idle-connection holder each run one thread only while they
have work: the thread ends when the work does, and the next piece of work starts a
new one. A `join()` at stop must wait for every one of them that may still be ending,
not only the newest, so each start is recorded here (and forgotten once ended).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["WorkThreads"]


class WorkThreads:
    """Starts `name`d daemon threads one after another; joins whichever are alive."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def start(self, target: Callable[..., None], *args: Any) -> threading.Thread:
        """Start a thread running `target(*args)` and return it."""
        thread = threading.Thread(target=target, args=args, name=self.name, daemon=True)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()]
            self._threads.append(thread)
        thread.start()
        return thread

    def join(self, timeout: float) -> threading.Thread | None:
        """Wait up to `timeout` seconds for each thread started; one still alive, if any."""
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout)
        alive = [thread for thread in threads if thread.is_alive()]
        return alive[0] if alive else None
