"""The interfaces of tools/cache, as typing protocols: what a part needs from its neighbour.

client-go wires its cache through interfaces (`ReflectorStore`, `Queue`,
`SharedInformer`, `SharedIndexInformer`), so a Reflector fills a DeltaFIFO, a RealFIFO
or a plain Store alike, and a controller takes any informer. kubenb's classes are the
implementations; these protocols are the seams the Reflector, the controller, the
reactive views and the widgets are typed against, so a teaching notebook's stand-in (a
recording store, a queue that counts) fits wherever the real one does.

Go's `SharedIndexInformer` interface is kubenb's class of that name; its interface
is `SharedInformer` here, with the index accessors included, as notebooks use them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from kubenb.cache.store import Indexer

__all__ = ["Queue", "ReflectorStore", "SharedInformer"]


@runtime_checkable
class ReflectorStore(Protocol):
    """What a Reflector writes into (client-go's `ReflectorStore`): a store or a queue.

    A store may also offer `update_resource_version(rv)` (bookmarks) and `key_of(obj)`
    (the key a watch-list's temporary store uses); the Reflector looks for them."""

    def add(self, obj: Any, /) -> None: ...

    def update(self, obj: Any, /) -> None: ...

    def delete(self, obj: Any, /) -> None: ...

    def replace(self, items: Iterable[Any], resource_version: str, /) -> None: ...

    def resync(self) -> None: ...


@runtime_checkable
class Queue(ReflectorStore, Protocol):
    """What a controller pops (client-go's `cache.Queue`): a DeltaFIFO or a RealFIFO."""

    def pop(self, process: Callable[[Any, bool], Any], /) -> Any: ...

    def has_synced(self) -> bool: ...

    def close(self) -> None: ...

    def is_closed(self) -> bool: ...

    def is_empty(self) -> bool: ...

    def key_of(self, obj: Any, /) -> str: ...

    def list_keys(self) -> list[str]: ...

    def __len__(self) -> int: ...


@runtime_checkable
class SharedInformer(Protocol):
    """An informer as its users meet it (client-go's `SharedInformer` with the index
    accessors of `SharedIndexInformer`): handlers, sync state, the cache behind it."""

    def add_event_handler(self, handler: Any, /) -> Any: ...

    def remove_event_handler(self, registration: Any, /) -> None: ...

    def add_indexers(self, indexers: dict[str, Any], /) -> None: ...

    def get_store(self) -> Indexer: ...

    def get_indexer(self) -> Indexer: ...

    def has_synced(self) -> bool: ...

    def last_sync_resource_version(self) -> str: ...

    def run(self, stop: threading.Event, /) -> None: ...

    def is_stopped(self) -> bool: ...

    def set_transform(self, transform: Callable[[Any], Any] | None, /) -> None: ...

    def set_watch_error_handler(self, handler: Callable[..., None], /) -> None: ...
