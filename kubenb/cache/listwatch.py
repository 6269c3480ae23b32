"""ListWatch: the two calls a Reflector makes, bound to one resource and its selectors.

client-go's `cache.ListWatch` / `NewFilteredListWatchFromClient`: whatever options the
Reflector passes (resourceVersion, limit, continue, timeouts, bookmarks), the label
and field selectors of this ListWatch are added, so an informer over `app=web` pods
never sees another pod.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Protocol

from kubenb.client.options import ListOptions
from kubenb.labels import selector_string

__all__ = [
    "ListWatch",
    "ListerWatcher",
    "Watcher",
]


class Watcher(Protocol):
    """What `watch` returns: an iterable of WatchEvents that `stop()` ends from any thread.

    The Reflector calls `iter()` on a watch once and reads everything through that one
    iterator (a watch-list's initial events, then its live ones), so a Watcher need not
    support being iterated twice."""

    def __iter__(self) -> Any: ...

    def stop(self) -> None: ...


class ListerWatcher(Protocol):
    def list(self, options: ListOptions) -> dict[str, Any]: ...

    def watch(self, options: ListOptions, read_timeout: float | None = None) -> Watcher: ...


class ListWatch:
    """A `ListerWatcher` from two functions (`list_func(options)`, `watch_func(options,
    read_timeout)`), or from a resource client with `from_client`."""

    def __init__(self, list_func: Callable[[ListOptions], dict[str, Any]],
                 watch_func: Callable[[ListOptions, float | None], Watcher],
                 description: str = "") -> None:
        self.list_func = list_func
        self.watch_func = watch_func
        self.description = description

    def __repr__(self) -> str:
        return f"ListWatch({self.description or '<functions>'})"

    @classmethod
    def from_client(cls, client: Any, namespace: str | None = None,
                    label_selector: Any = None, field_selector: Any = None) -> ListWatch:
        """Over a `ResourceClient` (`namespace=None` keeps the client's own namespace;
        pass "" for all namespaces); selectors may be strings, parsed selectors or dicts."""
        if namespace is not None:
            client = client.namespace(namespace or None)
        labels, fields = selector_string(label_selector), selector_string(field_selector)

        def with_selectors(options: ListOptions) -> ListOptions:
            return dataclasses.replace(options, label_selector=labels, field_selector=fields)

        def list_func(options: ListOptions) -> dict[str, Any]:
            return client.list_with_options(with_selectors(options))

        def watch_func(options: ListOptions, read_timeout: float | None = None) -> Watcher:
            return client.watch_with_options(with_selectors(options), read_timeout=read_timeout)

        where = client.namespace_name or "all namespaces"
        parts = [f"{client.api_version} {client.resource} in {where}"]
        if labels:
            parts.append(f"labels {labels!r}")
        if fields:
            parts.append(f"fields {fields!r}")
        return cls(list_func, watch_func, ", ".join(parts))

    def list(self, options: ListOptions) -> dict[str, Any]:
        return self.list_func(options)

    def watch(self, options: ListOptions, read_timeout: float | None = None) -> Watcher:
        return self.watch_func(options, read_timeout)
