"""Listers: read-only queries over an informer's cache (client-go `listers.go`).

A lister answers "which objects match this label selector" and "get this one by name"
from the local Indexer, without a request to the API server. A miss raises the same
`NotFound` (404) the server would, so code that handles one handles the other.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from kubenb.cache.keys import NAMESPACE_INDEX
from kubenb.cache.store import Indexer, Store
from kubenb.errors import IndexNotFoundError, KubenbError, NotFound, SelectorError
from kubenb.labels import (
    LabelSelector,
    everything,
    parse_label_selector,
    selector_from_set,
)

__all__ = [
    "AppendFunc",
    "Lister",
    "NamespaceLister",
    "SelectorLike",
    "as_label_selector",
    "list_all",
    "list_all_by_namespace",
    "new_not_found",
]

_log = logging.getLogger(__name__)

#: Called with each matching object (client-go `AppendFunc`).
AppendFunc = Callable[[Any], None]
#: What a lister accepts as a selector: a parsed one, its text, a label dict, or None.
SelectorLike = LabelSelector | str | Mapping[str, str] | None


def as_label_selector(selector: SelectorLike) -> LabelSelector:
    """Turn any `SelectorLike` into a `LabelSelector`; None and "" mean everything."""
    if selector is None:
        return everything()
    if isinstance(selector, LabelSelector):
        return selector
    if isinstance(selector, str):
        return parse_label_selector(selector)
    if isinstance(selector, Mapping):
        return selector_from_set(selector)
    raise SelectorError(
        "a label selector must be a LabelSelector, a selector string, a dict of labels "
        f"or None, got {type(selector).__name__}"
    )


def _labels_of(obj: Any) -> Mapping[str, str]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        raise KubenbError(f"object has no meta: {type(obj).__name__}")
    return meta.get("labels") or {}


def _namespace_of(obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        raise KubenbError(f"object has no meta: {type(obj).__name__}")
    return meta.get("namespace") or ""


def _append_matching(
    items: list[Any], selector: LabelSelector, append_fn: AppendFunc
) -> None:
    if selector.empty():
        # Every object matches: skip reading labels (the common "list all" case).
        for obj in items:
            append_fn(obj)
        return
    matches = selector.matches
    for obj in items:
        if matches(_labels_of(obj)):
            append_fn(obj)


def list_all(store: Store, selector: SelectorLike, append_fn: AppendFunc) -> None:
    """Call `append_fn` on every object in `store` whose labels match `selector`
    (client-go `ListAll`). An object without metadata raises `KubenbError`."""
    sel = as_label_selector(selector)
    if sel.requirements() is None:  # nothing(): matches no object
        return
    _append_matching(store.list(), sel, append_fn)


def list_all_by_namespace(
    indexer: Indexer, namespace: str, selector: SelectorLike, append_fn: AppendFunc
) -> None:
    """`list_all` restricted to one namespace (client-go `ListAllByNamespace`); ""
    means all namespaces. Uses the `NAMESPACE_INDEX` index, or scans everything
    (with a warning) when the indexer has no such index."""
    sel = as_label_selector(selector)
    if not namespace:
        list_all(indexer, sel, append_fn)
        return
    if sel.requirements() is None:  # nothing(): matches no object
        return
    try:
        items = indexer.by_index(NAMESPACE_INDEX, namespace)
    except (IndexNotFoundError, AttributeError) as err:
        _log.warning(
            "can not retrieve list of objects using index: %s; scanning every object", err
        )
        matches = sel.matches
        for obj in indexer.list():
            if _namespace_of(obj) == namespace and matches(_labels_of(obj)):
                append_fn(obj)
        return
    _append_matching(items, sel, append_fn)


def _qualified(resource: str, group: str) -> str:
    return f"{resource}.{group}" if group else resource


def new_not_found(resource: str, name: str, group: str = "") -> NotFound:
    """The 404 the API server answers for a missing object (apimachinery
    `NewNotFound`), with the same message and Status body."""
    qualified = _qualified(resource, group)
    quoted = json.dumps(name, ensure_ascii=False)
    message = f"{qualified} {quoted} not found" if qualified else f"{quoted} not found"
    details: dict[str, Any] = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = resource
    body = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "NotFound",
        "details": details,
        "code": 404,
    }
    return NotFound(404, "NotFound", message, body)


class NamespaceLister:
    """Lists and gets objects of one namespace (client-go `GenericNamespaceLister`)."""

    __slots__ = ("group", "indexer", "namespace", "resource")

    def __init__(self, indexer: Indexer, namespace: str, resource: str = "",
                 group: str = "") -> None:
        self.indexer = indexer
        self.namespace = namespace
        self.resource = resource
        self.group = group

    def list(self, selector: SelectorLike = None) -> list[Any]:
        """The objects of this namespace whose labels match `selector`."""
        out: list[Any] = []
        list_all_by_namespace(self.indexer, self.namespace, selector, out.append)
        return out

    def get(self, name: str) -> Any:
        """The object `name` of this namespace; raises `NotFound` when absent."""
        obj = self.indexer.get_by_key(f"{self.namespace}/{name}")
        if obj is None:
            raise new_not_found(self.resource, name, self.group)
        return obj

    def __repr__(self) -> str:
        what = _qualified(self.resource, self.group) or "objects"
        return f"<NamespaceLister {what} in {self.namespace!r}>"


class Lister:
    """Lists and gets objects from an Indexer (client-go `GenericLister`).

    `resource` and `group` only shape the `NotFound` message, as the server words
    it: `deployments.apps "web" not found`. `get(name)` looks `name` up as the key
    itself, so for namespaced objects use `namespace(ns).get(name)` (or pass
    "ns/name").
    """

    __slots__ = ("group", "indexer", "resource")

    def __init__(self, indexer: Indexer, resource: str = "", group: str = "") -> None:
        self.indexer = indexer
        self.resource = resource
        self.group = group

    def list(self, selector: SelectorLike = None) -> list[Any]:
        """Every object, in every namespace, whose labels match `selector`."""
        out: list[Any] = []
        list_all(self.indexer, selector, out.append)
        return out

    def get(self, name: str) -> Any:
        """The object whose key is `name`; raises `NotFound` when absent."""
        obj = self.indexer.get_by_key(name)
        if obj is None:
            raise new_not_found(self.resource, name, self.group)
        return obj

    def by_namespace(self, namespace: str) -> NamespaceLister:
        """A lister for one namespace (client-go `ByNamespace`)."""
        return NamespaceLister(self.indexer, namespace, self.resource, self.group)

    def namespace(self, namespace: str) -> NamespaceLister:
        """The same as `by_namespace`."""
        return self.by_namespace(namespace)

    def __repr__(self) -> str:
        what = _qualified(self.resource, self.group) or "objects"
        return f"<Lister {what}>"
