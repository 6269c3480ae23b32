"""kubenb's version, in a module of its own so that any layer can read it.

The package root imports `cluster.py`, the top of the house; a low module that only
needs the version string would drag the whole package in through it.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
