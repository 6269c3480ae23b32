"""Stores and indexers (client-go `tools/cache/store.go`, `thread_safe_store.go`, `index.go`).

`ThreadSafeStore` is the map key -> object plus secondary indexes, behind one lock.
`Store` puts a key function in front of it; `Indexer` adds the index queries. Objects
are stored as given (never copied): callers must treat them as read-only.

Unlike client-go, where a failing index function panics half-way through an update,
every index value is computed before anything changes, so an `IndexFuncError`
leaves the store and its indexes exactly as they were.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kubenb.cache.keys import IndexFunc, KeyFunc, meta_namespace_key_func
from kubenb.errors import IndexConflictError, IndexFuncError, IndexNotFoundError, KeyFuncError

__all__ = [
    "Indexer",
    "Indexers",
    "Store",
    "ThreadSafeStore",
    "TransformFunc",
    "new_indexer",
    "new_store",
]

Indexers = Mapping[str, IndexFunc]
TransformFunc = Callable[[Any], Any]
#: Per index: the values an object has under it.
_IndexValues = list[tuple[str, list[str]]]
#: Per index: the values to drop and the values to add for one change.
_IndexPlan = list[tuple[str, list[str], list[str]]]

# name -> indexed value -> keys holding that value
_Indices = dict[str, dict[str, set[str]]]


class ThreadSafeStore:
    """A key -> object map with secondary indexes, safe for concurrent use."""

    def __init__(self, indexers: Indexers | None = None) -> None:
        self._lock = threading.Lock()
        self._items: dict[str, Any] = {}
        self._indexers: dict[str, IndexFunc] = dict(indexers or {})
        self._indices: _Indices = {name: {} for name in self._indexers}

    # -- writes -------------------------------------------------------------

    def add(self, key: str, obj: Any) -> None:
        """Insert or replace `obj` under `key` (the same as `update`)."""
        self.update(key, obj)

    def update(self, key: str, obj: Any) -> None:
        """Insert or replace `obj` under `key`, re-indexing it."""
        with self._lock:
            if not self._indexers:
                self._items[key] = obj
                return
            old = self._items.get(key)
            plan = self._index_plan(key, old, obj)
            self._items[key] = obj
            self._apply(key, plan)

    def delete(self, key: str) -> None:
        """Remove `key`; a missing key is a silent no-op."""
        with self._lock:
            if key not in self._items:
                return
            if self._indexers:
                plan = self._index_plan(key, self._items[key], None)
                self._apply(key, plan)
            del self._items[key]

    def replace(self, items: Mapping[str, Any], resource_version: str = "") -> None:
        """Discard everything and hold exactly `items`; all indexes are rebuilt."""
        new_items = dict(items)
        new_indices: _Indices = {name: {} for name in self._indexers}
        with self._lock:
            for key, obj in new_items.items():
                for name, values in self._values_for(self._indexers, key, obj):
                    index = new_indices[name]
                    for value in values:
                        index.setdefault(value, set()).add(key)
            self._items = new_items
            self._indices = new_indices

    # -- reads --------------------------------------------------------------

    def get(self, key: str) -> Any | None:
        """The object under `key`, or None."""
        return self._items.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def list(self) -> list[Any]:
        """A snapshot of every stored object, in no particular order."""
        with self._lock:
            return list(self._items.values())

    def list_keys(self) -> builtins.list[str]:
        """A snapshot of every key, in no particular order."""
        with self._lock:
            return list(self._items)

    # -- indexes ------------------------------------------------------------

    def index(self, index_name: str, obj: Any) -> builtins.list[Any]:
        """The stored objects sharing any `index_name` value with `obj`."""
        with self._lock:
            index_func = self._indexer(index_name)
            values = index_func(obj)
            index = self._indices[index_name]
            if len(values) == 1:
                keys: Iterable[str] = index.get(values[0], ())
            else:
                merged: set[str] = set()
                for value in values:
                    merged.update(index.get(value, ()))
                keys = merged
            return [self._items[k] for k in keys]

    def index_keys(self, index_name: str, indexed_value: str) -> builtins.list[str]:
        """The keys whose `index_name` values include `indexed_value`, sorted."""
        with self._lock:
            self._indexer(index_name)
            return sorted(self._indices[index_name].get(indexed_value, ()))

    def list_index_func_values(self, index_name: str) -> builtins.list[str]:
        """The distinct values currently indexed; [] for an unknown index."""
        with self._lock:
            return list(self._indices.get(index_name, {}))

    def by_index(self, index_name: str, indexed_value: str) -> builtins.list[Any]:
        """The stored objects whose `index_name` values include `indexed_value`."""
        with self._lock:
            self._indexer(index_name)
            keys = self._indices[index_name].get(indexed_value, ())
            return [self._items[k] for k in keys]

    def get_indexers(self) -> dict[str, IndexFunc]:
        """A copy of the registered index functions."""
        with self._lock:
            return dict(self._indexers)

    def add_indexers(self, new_indexers: Indexers) -> None:
        """Register more indexes and build them over the items already stored.

        A name that is already registered fails the whole call with
        `IndexConflictError`, and nothing from the call is added.
        """
        with self._lock:
            conflicts = set(new_indexers) & set(self._indexers)
            if conflicts:
                raise IndexConflictError(conflicts)
            built: _Indices = {name: {} for name in new_indexers}
            for key, obj in self._items.items():
                for name, values in self._values_for(new_indexers, key, obj):
                    for value in values:
                        built[name].setdefault(value, set()).add(key)
            self._indexers.update(new_indexers)
            self._indices.update(built)

    # -- internals ----------------------------------------------------------

    def _indexer(self, index_name: str) -> IndexFunc:
        try:
            return self._indexers[index_name]
        except KeyError:
            raise IndexNotFoundError(index_name) from None

    @staticmethod
    def _values_for(
        indexers: Mapping[str, IndexFunc], key: str, obj: Any
    ) -> _IndexValues:
        out = []
        for name, index_func in indexers.items():
            try:
                values = index_func(obj)
            except Exception as err:
                raise IndexFuncError(key, name, err) from err
            out.append((name, values))
        return out

    def _index_plan(
        self, key: str, old: Any | None, new: Any | None
    ) -> _IndexPlan:
        """Per index: values to drop and values to add, computed before any change."""
        plan = []
        for name, index_func in self._indexers.items():
            try:
                old_values = index_func(old) if old is not None else []
                new_values = index_func(new) if new is not None else []
            except Exception as err:
                raise IndexFuncError(key, name, err) from err
            if old_values == new_values:
                continue
            if len(old_values) <= 1 and len(new_values) <= 1:
                plan.append((name, old_values, new_values))
            else:
                old_set, new_set = set(old_values), set(new_values)
                plan.append((name, list(old_set - new_set), list(new_set - old_set)))
        return plan

    def _apply(self, key: str, plan: _IndexPlan) -> None:
        for name, drop, add in plan:
            index = self._indices[name]
            for value in drop:
                keys = index.get(value)
                if keys is not None:
                    keys.discard(key)
                    if not keys:
                        del index[value]
            for value in add:
                index.setdefault(value, set()).add(key)


class Store:
    """A thread-safe object store keyed by a key function (client-go `NewStore`).

    `transformer`, when given, is applied to every object added, updated or
    replaced (not deleted) before it is stored.
    """

    def __init__(
        self,
        key_func: KeyFunc = meta_namespace_key_func,
        indexers: Indexers | None = None,
        transformer: TransformFunc | None = None,
    ) -> None:
        self._key_func = key_func
        self._transformer = transformer
        self._store = ThreadSafeStore(indexers)
        self._last_rv = ""

    def key_of(self, obj: Any) -> str:
        """The key of `obj`; errors become `KeyFuncError` naming the object."""
        try:
            return self._key_func(obj)
        except KeyFuncError:
            raise
        except Exception as err:
            raise KeyFuncError(obj, err) from err

    def _note_rv(self, obj: Any) -> None:
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        if isinstance(meta, dict) and meta.get("resourceVersion"):
            self._last_rv = meta["resourceVersion"]

    def add(self, obj: Any) -> None:
        """Insert or replace `obj` under its key."""
        if self._transformer is not None:
            obj = self._transformer(obj)
        self._store.add(self.key_of(obj), obj)
        self._note_rv(obj)

    def update(self, obj: Any) -> None:
        """The same as `add`: an upsert."""
        self.add(obj)

    def delete(self, obj: Any) -> None:
        """Remove the object with `obj`'s key; a missing key is a no-op."""
        self._store.delete(self.key_of(obj))
        self._note_rv(obj)

    def get(self, obj: Any) -> Any | None:
        """The stored object with `obj`'s key, or None."""
        return self._store.get(self.key_of(obj))

    def get_by_key(self, key: str) -> Any | None:
        """The stored object under `key`, or None."""
        return self._store.get(key)

    def list(self) -> list[Any]:
        return self._store.list()

    def list_keys(self) -> builtins.list[str]:
        return self._store.list_keys()

    def __len__(self) -> int:
        return len(self._store)

    def __contains__(self, key: object) -> bool:
        return key in self._store

    def replace(self, objs: Iterable[Any], resource_version: str = "") -> None:
        """Hold exactly `objs` (the last of duplicate keys wins); rebuild indexes."""
        items: dict[str, Any] = {}
        transformer = self._transformer
        for obj in objs:
            if transformer is not None:
                obj = transformer(obj)
            items[self.key_of(obj)] = obj
        self._store.replace(items, resource_version)
        self._last_rv = resource_version

    def resync(self) -> None:
        """Nothing to do for a plain store (queues implement it)."""

    def bookmark(self, resource_version: str) -> None:
        """Record that the store is current as of `resource_version`."""
        self._last_rv = resource_version

    def last_store_sync_resource_version(self) -> str:
        """The resourceVersion of the last object written, replace or bookmark."""
        return self._last_rv


class Indexer(Store):
    """A Store with secondary indexes (client-go `NewIndexer`)."""

    def index(self, index_name: str, obj: Any) -> list[Any]:
        return self._store.index(index_name, obj)

    def index_keys(self, index_name: str, indexed_value: str) -> list[str]:
        return self._store.index_keys(index_name, indexed_value)

    def list_index_func_values(self, index_name: str) -> list[str]:
        return self._store.list_index_func_values(index_name)

    def by_index(self, index_name: str, indexed_value: str) -> list[Any]:
        return self._store.by_index(index_name, indexed_value)

    def get_indexers(self) -> dict[str, IndexFunc]:
        return self._store.get_indexers()

    def add_indexers(self, indexers: Indexers) -> None:
        self._store.add_indexers(indexers)


def new_store(
    key_func: KeyFunc = meta_namespace_key_func, transformer: TransformFunc | None = None
) -> Store:
    """A Store keyed by `key_func` (client-go `NewStore`)."""
    return Store(key_func, transformer=transformer)


def new_indexer(
    key_func: KeyFunc = meta_namespace_key_func,
    indexers: Indexers | None = None,
    transformer: TransformFunc | None = None,
) -> Indexer:
    """An Indexer keyed by `key_func` with `indexers` (client-go `NewIndexer`)."""
    return Indexer(key_func, indexers, transformer)
