"""From informer events to workqueue keys: the enqueue functions and the handler that
`Controller.watch()` registers.

An enqueue function maps an object (or a `DeletedFinalStateUnknown` tombstone) to the
key or keys to reconcile: `enqueue_key` is the object's own "ns/name" (sample-
controller's `enqueueFoo`), `enqueue_owner("Foo")` the key of the Foo that controls it
(sample-controller's `handleObject`, through `controller_of` in owners.py).
`EnqueueHandler` runs one on every add, update and delete and hands the keys on; it
knows nothing of the controller but a callable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kubenb.cache.keys import DeletedFinalStateUnknown, deletion_handling_meta_namespace_key_func
from kubenb.controller.owners import controller_of
from kubenb.errors import KubenbError

__all__ = ["EnqueueFunc", "EnqueueHandler", "enqueue_key", "enqueue_owner"]

#: Maps an object (or a `DeletedFinalStateUnknown`) to the key(s) to reconcile, or None.
EnqueueFunc = Callable[[Any], "str | Iterable[str] | None"]


def enqueue_key(obj: Any) -> str:
    """The object's own key, "ns/name" or "name" (sample-controller's `enqueueFoo`);
    a tombstone's key for a deletion seen late."""
    return deletion_handling_meta_namespace_key_func(obj)


def _group_of(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def enqueue_owner(kind: str, group: str | None = None) -> EnqueueFunc:
    """An enqueue function mapping an owned object to its controller owner's key.

    Only an owner of `kind` (and of API `group`, when given) counts; other objects map
    to nothing. The owner is looked up in the object's namespace, as sample-controller's
    `handleObject` does (a Deployment controlled by Foo "web" in "ns" enqueues "ns/web").
    A tombstone is unwrapped first, so deleting an owned object wakes its owner.
    """
    if not kind:
        raise KubenbError("enqueue_owner: kind must name the owner's kind, e.g. 'Foo'")

    def owner_key(obj: Any) -> str | None:
        if isinstance(obj, DeletedFinalStateUnknown):
            obj = obj.obj
        ref = controller_of(obj)
        if ref is None or ref.get("kind") != kind or not ref.get("name"):
            return None
        if group is not None and _group_of(str(ref.get("apiVersion") or "")) != group:
            return None
        namespace = (obj.get("metadata") or {}).get("namespace") or ""
        return f"{namespace}/{ref['name']}" if namespace else str(ref["name"])

    owner_key.__qualname__ = owner_key.__name__ = f"enqueue_owner({kind!r})"
    return owner_key


def _keys(enqueue: EnqueueFunc, obj: Any) -> list[str]:
    keys = enqueue(obj)
    if keys is None:
        return []
    if isinstance(keys, str):
        return [keys]
    return [k for k in keys if k is not None]


def _unwrap(obj: Any) -> Any:
    return obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj


class EnqueueHandler:
    """A resource event handler that maps objects to keys and passes them to `add_keys`.

    `predicate(obj) -> bool` filters objects first; an update counts when the old or
    the new object passes, since an object leaving the predicate is news too. `name`
    (the controller's) is for its repr, which the informer diagram shows.
    """

    def __init__(self, name: str, add_keys: Callable[[list[str]], None], enqueue: EnqueueFunc,
                 predicate: Callable[[Any], bool] | None) -> None:
        self._name = name
        self._add_keys = add_keys
        self._enqueue = enqueue
        self._predicate = predicate

    def _passes(self, obj: Any) -> bool:
        if self._predicate is None:
            return True
        inner = _unwrap(obj)
        return True if inner is None else bool(self._predicate(inner))

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        if self._passes(obj):
            self._add_keys(_keys(self._enqueue, obj))

    def on_update(self, old_obj: Any, new_obj: Any) -> None:
        if self._passes(new_obj) or self._passes(old_obj):
            keys = _keys(self._enqueue, new_obj)
            for key in _keys(self._enqueue, old_obj):  # e.g. the owner changed
                if key not in keys:
                    keys.append(key)
            self._add_keys(keys)

    def on_delete(self, obj: Any) -> None:
        if self._passes(obj):
            self._add_keys(_keys(self._enqueue, obj))

    def __repr__(self) -> str:
        name = getattr(self._enqueue, "__qualname__", repr(self._enqueue))
        return f"EnqueueHandler({self._name!r}, {name})"
