"""kubenb: client-go's cache machinery in Python, live in Jupyter.

`Cluster`, `connect` and `embedded` are loaded on first use (PEP 562): importing a
submodule (`kubenb.server`, the `kubenb.testing` pytest plugin that pytest loads in
every session) then costs only what that submodule needs, not the client tower.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kubenb._version import __version__
from kubenb.clock import FakeClock, RealClock
from kubenb.gc_policy import CacheGCPolicy, cache_gc_policy

if TYPE_CHECKING:
    from kubenb.cluster import Cluster, connect
    from kubenb.embedded_cluster import embedded

__all__ = [
    "CacheGCPolicy",
    "Cluster",
    "FakeClock",
    "RealClock",
    "__version__",
    "cache_gc_policy",
    "connect",
    "embedded",
]

_LAZY = {"Cluster": "kubenb.cluster", "connect": "kubenb.cluster",
         "embedded": "kubenb.embedded_cluster"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kubenb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
