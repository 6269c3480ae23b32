"""kubenb: client-go's cache machinery in Python, live in Jupyter."""

from kubenb.clock import FakeClock, RealClock

__version__ = "0.1.0"

__all__ = ["FakeClock", "RealClock", "__version__"]
