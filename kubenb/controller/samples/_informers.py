"""Starting a factory's informers and waiting for them, as both samples do."""

from __future__ import annotations

from typing import Any

from kubenb.cache.wait import wait_for_cache_sync
from kubenb.errors import KubenbError

__all__ = ["start_and_sync"]


def start_and_sync(factory: Any, informers: list[Any], timeout: float, who: str) -> None:
    """Start the factory's informers and wait for these to list (Go: `factory.Start` +
    `cache.WaitForCacheSync`), polling often: a notebook cell should not idle 100 ms."""
    factory.start()
    if not wait_for_cache_sync(None, *(i.has_synced for i in informers), timeout=timeout,
                               poll_period=0.005):
        raise KubenbError(f"{who}: the informers did not sync within {timeout}s "
                          f"(is the API server reachable?)")
