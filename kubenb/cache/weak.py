"""Callbacks that do not keep their object alive.

An informer hands its own bound methods to the parts it owns (the Controller's process
function, the Pacer's view of the stages, each listener's `has_synced`). Held strongly,
each is a reference cycle, and CPython frees a cycle only in a collection of the
generation it sits in: a stopped informer nobody references kept its whole cache (and
the cache lives in the oldest generation, kubenb.jsondecode) until the next full
collection, half a gigabyte for 20k pods in a notebook cell run twice. Held weakly,
dropping the last reference frees it at once.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

__all__ = [
    "weak_method",
]


def weak_method(method: Callable[..., Any], default: Any = None) -> Callable[..., Any]:
    """Call the bound `method` while its object lives; `default` once it is gone."""
    ref = weakref.WeakMethod(method)  # type: ignore[arg-type]

    def call(*args: Any, **kwargs: Any) -> Any:
        bound = ref()
        return default if bound is None else bound(*args, **kwargs)

    call.__name__ = getattr(method, "__name__", "weak_method")
    call.__qualname__ = getattr(method, "__qualname__", call.__name__)
    return call
