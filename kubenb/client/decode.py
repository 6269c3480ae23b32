"""JSON decoding with the cyclic garbage collector paused.

A large `json.loads` allocates millions of containers and CPython's cyclic collector
runs again and again during it, for nothing: fresh JSON has no cycles. Pausing it
cuts list decoding about 3x (see the benchmarks). The pause is reference-counted
across threads, and the collector is always restored, even when decoding fails.
"""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block (nesting and threads are safe)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()


def loads(data: bytes | str) -> Any:
    """`json.loads`, with the collector paused when the document is large."""
    if len(data) < 64 * 1024:
        return json.loads(data)
    with gc_paused():
        return json.loads(data)
