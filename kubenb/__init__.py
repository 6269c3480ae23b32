"""kubenb: client-go's cache machinery in Python, live in Jupyter."""

from kubenb._version import __version__
from kubenb.clock import FakeClock, RealClock
from kubenb.cluster import Cluster, connect
from kubenb.embedded_cluster import embedded
from kubenb.gc_policy import CacheGCPolicy, cache_gc_policy

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
