"""kubenb: client-go's cache machinery in Python, live in Jupyter."""

from kubenb.clock import FakeClock, RealClock
from kubenb.cluster import Cluster, connect, embedded

__version__ = "0.1.0"

__all__ = ["Cluster", "FakeClock", "RealClock", "__version__", "connect", "embedded"]
