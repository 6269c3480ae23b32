"""Stores and indexers (client-go `tools/cache/store.go`, `thread_safe_store.go`, `index.go`).

`ThreadSafeStore` is the map key -> object plus secondary indexes, behind one lock.
`Store` puts a key function in front of it; `Indexer` adds the index queries. Objects
are stored as given (never copied): callers must treat them as read-only.

Unlike client-go, where a failing index function panics half-way through an update,
every index value is computed before anything changes, so an `IndexFuncError`
leaves the store and its indexes exactly as they were.

Memory: keys are "namespace/name" strings, yet the store keeps none per object. It files
each object in one dict per key namespace (the part of the key before its first "/"),
under the rest of the key; for the informers' key functions those are the object's own
`metadata.namespace` and `metadata.name` strings, so an object costs its slots and no
string of its own. A namespace index (`meta_namespace_index_func`, on every informer a
factory makes) is answered from that filing instead of a set of keys per namespace, as
long as every object's namespace agrees with its key (an object that does not makes it
an ordinary index). Measured with 4000 pods: 80-125 bytes less per cached object, which
is 10-15% of a small object such as a namespace's default ServiceAccount (~0.8 KiB
decoded; docs/informers.md, "Memory").
Keys are made when asked for (`list_keys`, `index_keys`).
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kubenb.cache.keys import (
    IndexFunc,
    KeyFunc,
    deletion_handling_meta_namespace_key_func,
    meta_namespace_index_func,
    meta_namespace_key_func,
)
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
#: The part of a key before its first "/" (None for a key without one): what the store
#: files an object under, next to the rest of the key.
_Space = str | None
#: Per set-index: the values to drop and the values to add for one change.
_IndexPlan = list[tuple[str, list[str], list[str]]]

# name -> indexed value -> keys holding that value (the indexes not served by spaces)
_Indices = dict[str, dict[str, set[str]]]


def _split_key(key: Any) -> tuple[_Space, Any]:
    """"ns/name" -> ("ns", "name"); "name" -> (None, "name"); at the first "/", so that
    `_join_key` gives back exactly `key` (a key that is not a string is kept whole)."""
    if not isinstance(key, str):
        return None, key
    space, slash, name = key.partition("/")
    return (space, name) if slash else (None, key)


def _join_key(space: _Space, name: Any) -> Any:
    return name if space is None else f"{space}/{name}"


def _servable(index_func: IndexFunc) -> bool:
    """An index the spaces can answer: by namespace, as the key's first part says."""
    return index_func is meta_namespace_index_func


def _space_value(space: _Space) -> str | None:
    """The namespace index value of the objects in `space` (None: no single value)."""
    if space is None:
        return ""
    return space or None  # a key "/name" says nothing about a namespace


class ThreadSafeStore:
    """A key -> object map with secondary indexes, safe for concurrent use.

    Objects are filed by their key's namespace part, then the rest (see the module
    docstring); a namespace index is answered from that filing while every object's
    namespace agrees with its key, and becomes an ordinary index the moment one does not.
    """

    def __init__(self, indexers: Indexers | None = None) -> None:
        self._lock = threading.Lock()
        self._spaces: dict[_Space, dict[Any, Any]] = {}
        self._count = 0
        self._indexers: dict[str, IndexFunc] = dict(indexers or {})
        self._served: set[str] = {n for n, f in self._indexers.items() if _servable(f)}
        self._indices: _Indices = {n: {} for n in self._indexers if n not in self._served}

    # -- writes -------------------------------------------------------------

    def add(self, key: str, obj: Any) -> None:
        """Insert or replace `obj` under `key` (the same as `update`)."""
        self.update(key, obj)

    def update(self, key: str, obj: Any) -> None:
        """Insert or replace `obj` under `key`, re-indexing it."""
        space, name = _split_key(key)
        with self._lock:
            self._put(space, name, key, obj, False)

    def _put(self, space: _Space, name: Any, key: Any, obj: Any, own: bool) -> None:
        """With the lock held. `own`: `space` and `name` are `obj`'s own metadata strings
        (its namespace and name), filed under those so no key string is kept."""
        inner = self._spaces.get(space)
        present = inner is not None and name in inner
        if self._indexers:
            old = inner.get(name) if inner is not None else None
            plan = self._index_plan(space, name, key, old, obj, own)
        if inner is None:
            self._spaces[space] = {name: obj}
            self._count += 1
        elif present and own:
            # A dict keeps the key it was first given: re-file under this object's own
            # name, or the replaced object's name string would live on as the key.
            del inner[name]
            inner[name] = obj
        else:
            if not present:
                self._count += 1
            inner[name] = obj
        if self._indexers and plan:
            self._apply(space, name, key, plan)

    def delete(self, key: str) -> None:
        """Remove `key`; a missing key is a silent no-op."""
        space, name = _split_key(key)
        with self._lock:
            self._remove(space, name, key)

    def _remove(self, space: _Space, name: Any, key: Any) -> None:
        inner = self._spaces.get(space)
        if inner is None or name not in inner:
            return
        if self._indices:
            plan = self._index_plan(space, name, key, inner[name], None, False)
            if plan:
                self._apply(space, name, key, plan)
        del inner[name]
        self._count -= 1
        if not inner:
            del self._spaces[space]

    def replace(self, items: Mapping[str, Any], resource_version: str = "") -> None:
        """Discard everything and hold exactly `items`; all indexes are rebuilt."""
        self._replace([(*_split_key(key), key, obj, False) for key, obj in items.items()])

    def _replace(self, entries: Iterable[tuple[_Space, Any, Any, Any, bool]]) -> None:
        """`replace` from (space, name, key or None, obj, own) entries; the last of
        duplicates wins. Every index value is computed before anything changes."""
        spaces: dict[_Space, dict[Any, Any]] = {}
        keys: dict[tuple[_Space, Any], Any] = {}  # the keys given, where not own
        for space, name, key, obj, own in entries:
            inner = spaces.get(space)
            if inner is None:
                inner = spaces[space] = {}
            elif own and name in inner:
                del inner[name]  # re-filed under this object's own name (see _put)
            inner[name] = obj
            if own:
                keys.pop((space, name), None)
            else:
                keys[(space, name)] = key
        served = {n for n, f in self._indexers.items() if _servable(f)}
        indices: _Indices = {}
        for index_name, index_func in self._indexers.items():
            built = self._build_index(spaces, keys, index_name, index_func,
                                      index_name in served)
            if built is not None:
                served.discard(index_name)
                indices[index_name] = built
        with self._lock:
            self._spaces = spaces
            self._count = sum(len(inner) for inner in spaces.values())
            self._served = served
            self._indices = indices

    @staticmethod
    def _build_index(spaces: Mapping[_Space, Mapping[Any, Any]],
                     given_keys: Mapping[tuple[_Space, Any], Any], index_name: str,
                     index_func: IndexFunc, servable: bool,
                     ask_all: bool = False) -> dict[str, set[str]] | None:
        """The sets of one index over `spaces`, or None when the spaces can serve it
        (every object's values agree with its key's namespace part). `given_keys`: the
        key of each object filed by a key rather than under its own names; those filed
        under their own names agree by construction and are not asked, unless `ask_all`
        (the stored objects, whose filing is not recorded)."""
        values_of: list[tuple[_Space, Any, Any, list[str]]] = []
        for space, inner in spaces.items():
            for name, obj in inner.items():
                given = given_keys.get((space, name))
                if servable and given is None and not ask_all:
                    continue
                try:
                    values = index_func(obj)
                except Exception as err:
                    key = _join_key(space, name) if given is None else given
                    raise IndexFuncError(key, index_name, err) from err
                values_of.append((space, name, given, values))
        if servable:
            if all(values == [_space_value(space)] for space, _, _, values in values_of):
                return None
            # not every object agrees: an ordinary index after all
            return ThreadSafeStore._build_index(spaces, given_keys, index_name, index_func,
                                                False)
        built: dict[str, set[str]] = {}
        for space, name, given, values in values_of:
            if values:
                key = _join_key(space, name) if given is None else given
                for value in values:
                    built.setdefault(value, set()).add(key)
        return built

    # -- reads --------------------------------------------------------------

    def get(self, key: str) -> Any | None:
        """The object under `key`, or None."""
        space, name = _split_key(key)
        return self._get(space, name)

    def _get(self, space: _Space, name: Any) -> Any | None:
        inner = self._spaces.get(space)
        obj = None if inner is None else inner.get(name)
        if obj is not None:
            return obj
        # A miss is only sure under the lock: `_put` re-files a replaced object (delete,
        # then insert), and a reader without the lock may look in between.
        with self._lock:
            inner = self._spaces.get(space)
            return None if inner is None else inner.get(name)

    def _get_locked(self, key: Any) -> Any:
        space, name = _split_key(key)
        return self._spaces[space][name]

    def __contains__(self, key: object) -> bool:
        space, name = _split_key(key)
        inner = self._spaces.get(space)
        if inner is not None and name in inner:
            return True
        with self._lock:  # a miss is only sure under the lock (see `_get`)
            inner = self._spaces.get(space)
            return inner is not None and name in inner

    def __len__(self) -> int:
        return self._count

    def list(self) -> list[Any]:
        """A snapshot of every stored object, in no particular order."""
        with self._lock:
            return [obj for inner in self._spaces.values() for obj in inner.values()]

    def list_keys(self) -> builtins.list[str]:
        """A snapshot of every key, in no particular order (made on each call)."""
        with self._lock:
            return [name if space is None else f"{space}/{name}"
                    for space, inner in self._spaces.items() for name in inner]

    # -- indexes ------------------------------------------------------------

    def _served_space(self, value: str) -> dict[Any, Any]:
        """The objects a served index holds under `value` (a namespace, "" for none)."""
        if value == "":
            return self._spaces.get(None, {})
        return self._spaces.get(value, {}) if isinstance(value, str) else {}

    def index(self, index_name: str, obj: Any) -> builtins.list[Any]:
        """The stored objects sharing any `index_name` value with `obj`."""
        with self._lock:
            index_func = self._indexer(index_name)
            values = index_func(obj)
            if index_name in self._served:
                return [o for value in dict.fromkeys(values)
                        for o in self._served_space(value).values()]
            index = self._indices[index_name]
            if len(values) == 1:
                keys: Iterable[str] = index.get(values[0], ())
            else:
                merged: set[str] = set()
                for value in values:
                    merged.update(index.get(value, ()))
                keys = merged
            return [self._get_locked(k) for k in keys]

    def index_keys(self, index_name: str, indexed_value: str) -> builtins.list[str]:
        """The keys whose `index_name` values include `indexed_value`, sorted."""
        with self._lock:
            self._indexer(index_name)
            if index_name in self._served:
                space = indexed_value if indexed_value else None
                return sorted(_join_key(space, name) for name in self._served_space(indexed_value))
            return sorted(self._indices[index_name].get(indexed_value, ()))

    def list_index_func_values(self, index_name: str) -> builtins.list[str]:
        """The distinct values currently indexed; [] for an unknown index."""
        with self._lock:
            if index_name in self._served:
                return ["" if space is None else space for space in self._spaces]
            return list(self._indices.get(index_name, {}))

    def by_index(self, index_name: str, indexed_value: str) -> builtins.list[Any]:
        """The stored objects whose `index_name` values include `indexed_value`."""
        with self._lock:
            self._indexer(index_name)
            if index_name in self._served:
                return list(self._served_space(indexed_value).values())
            keys = self._indices[index_name].get(indexed_value, ())
            return [self._get_locked(k) for k in keys]

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
            built: _Indices = {}
            served: set[str] = set()
            for name, index_func in new_indexers.items():
                index = self._build_index(self._spaces, {}, name, index_func,
                                          _servable(index_func), ask_all=True)
                if index is None:
                    served.add(name)
                else:
                    built[name] = index
            self._indexers.update(new_indexers)
            self._served |= served
            self._indices.update(built)

    # -- internals ----------------------------------------------------------

    def _indexer(self, index_name: str) -> IndexFunc:
        try:
            return self._indexers[index_name]
        except KeyError:
            raise IndexNotFoundError(index_name) from None

    def _index_plan(self, space: _Space, name: Any, key: Any, old: Any | None,
                    new: Any | None, own: bool) -> _IndexPlan:
        """Per set-index: values to drop and values to add, computed before any change.
        A served index is checked instead: an object whose values disagree with its key
        turns it into a set index first (the plan then covers it)."""
        for index_name in [n for n in self._served if not own and new is not None]:
            index_func = self._indexers[index_name]
            try:
                values = index_func(new)
            except Exception as err:
                raise IndexFuncError(_join_key(space, name) if key is None else key,
                                     index_name, err) from err
            if values != [_space_value(space)]:
                built = self._build_index(self._spaces, {}, index_name, index_func, False)
                assert built is not None
                self._served.discard(index_name)
                self._indices[index_name] = built
        plan = []
        for index_name in self._indices:
            index_func = self._indexers[index_name]
            try:
                old_values = index_func(old) if old is not None else []
                new_values = index_func(new) if new is not None else []
            except Exception as err:
                raise IndexFuncError(_join_key(space, name) if key is None else key,
                                     index_name, err) from err
            if old_values == new_values:
                continue
            if len(old_values) <= 1 and len(new_values) <= 1:
                plan.append((index_name, old_values, new_values))
            else:
                old_set, new_set = set(old_values), set(new_values)
                plan.append((index_name, list(old_set - new_set), list(new_set - old_set)))
        return plan

    def _apply(self, space: _Space, name: Any, key: Any, plan: _IndexPlan) -> None:
        if key is None:
            key = _join_key(space, name)
        for index_name, drop, add in plan:
            index = self._indices[index_name]
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
        # Keys are "namespace/name" from the object's metadata: file objects under their
        # own strings (`_parts`) instead of making a key string for each.
        self._own_names = key_func in (meta_namespace_key_func,
                                       deletion_handling_meta_namespace_key_func)

    def key_of(self, obj: Any) -> str:
        """The key of `obj`; errors become `KeyFuncError` naming the object."""
        try:
            return self._key_func(obj)
        except KeyFuncError:
            raise
        except Exception as err:
            raise KeyFuncError(obj, err) from err

    def _parts(self, obj: Any) -> tuple[_Space, Any, Any, bool]:
        """(space, name, key, own) of `obj` for the ThreadSafeStore. `own`: space and
        name are the object's metadata.namespace and metadata.name themselves (the key
        is then not made); else the key function's key, split."""
        if self._own_names and obj.__class__ is dict:
            meta = obj.get("metadata")
            if meta.__class__ is dict:
                name = meta.get("name")
                if name.__class__ is str and name:
                    ns = meta.get("namespace")
                    if ns:
                        # "ns/name" splits back to exactly these two at its first "/"
                        if ns.__class__ is str and "/" not in ns:
                            return ns, name, None, True
                    elif "/" not in name:
                        return None, name, None, True
        key = self.key_of(obj)
        space, name = _split_key(key)
        return space, name, key, False

    def _note_rv(self, obj: Any) -> None:
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        if isinstance(meta, dict) and meta.get("resourceVersion"):
            self._last_rv = meta["resourceVersion"]

    def add(self, obj: Any) -> None:
        """Insert or replace `obj` under its key."""
        if self._transformer is not None:
            obj = self._transformer(obj)
        space, name, key, own = self._parts(obj)
        store = self._store
        with store._lock:
            store._put(space, name, key, obj, own)
        self._note_rv(obj)

    def update(self, obj: Any) -> None:
        """The same as `add`: an upsert."""
        self.add(obj)

    def delete(self, obj: Any) -> None:
        """Remove the object with `obj`'s key; a missing key is a no-op."""
        space, name, key, _ = self._parts(obj)
        store = self._store
        with store._lock:
            store._remove(space, name, key)
        self._note_rv(obj)

    def get(self, obj: Any) -> Any | None:
        """The stored object with `obj`'s key, or None."""
        space, name, _, _ = self._parts(obj)
        return self._store._get(space, name)

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
        entries = []
        transformer = self._transformer
        for obj in objs:
            if transformer is not None:
                obj = transformer(obj)
            space, name, key, own = self._parts(obj)
            entries.append((space, name, key, obj, own))
        self._store._replace(entries)
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
