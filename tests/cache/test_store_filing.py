"""How the store files objects: under their own namespace and name, with no key string.

The store answers exactly as a plain "namespace/name" -> object map with a set of keys per
index value would (a reference model of that, below), for every key function and every
object, including ones a real API server would refuse (a "/" in a namespace or in a
cluster-scoped name), whose keys collide with others'. The namespace index is answered
from the filing while every object's namespace agrees with its key, and by sets after.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.cache.keys import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    deletion_handling_meta_namespace_key_func,
    meta_namespace_index_func,
    meta_namespace_key_func,
)
from kubenb.cache.store import Indexer, ThreadSafeStore, new_indexer


def labels_index(obj: Any) -> list[str]:
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    return sorted((obj["metadata"].get("labels") or {}).values())


def uid_key(obj: Any) -> str:
    return obj["metadata"]["uid"]


def obj(namespace: str, name: str, *labels: str, uid: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "uid": uid or f"{namespace}.{name}",
                            "labels": {f"l{i}": v for i, v in enumerate(labels)}}
    if namespace:
        meta["namespace"] = namespace
    return {"metadata": meta}


class Model:
    """The plain map and sets the store must behave as."""

    def __init__(self, key_func: Any, indexers: dict[str, Any]) -> None:
        self.key_func = key_func
        self.indexers = indexers
        self.items: dict[str, Any] = {}

    def add(self, o: Any) -> None:
        self.items[self.key_func(o)] = o

    def delete(self, o: Any) -> None:
        self.items.pop(self.key_func(o), None)

    def replace(self, objs: list[Any]) -> None:
        self.items = {}
        for o in objs:
            self.add(o)

    def index_keys(self, name: str, value: str) -> list[str]:
        func = self.indexers[name]
        return sorted(k for k, o in self.items.items() if value in func(o))

    def values(self, name: str) -> set[str]:
        func = self.indexers[name]
        return {v for o in self.items.values() for v in func(o)}


def check(store: Indexer, model: Model) -> None:
    assert sorted(store.list_keys()) == sorted(model.items)
    assert len(store) == len(model.items)
    assert sorted(map(id, store.list())) == sorted(map(id, model.items.values()))
    for key, o in model.items.items():
        assert store.get_by_key(key) is o
        assert key in store
    for name in model.indexers:
        values = model.values(name)
        assert set(store.list_index_func_values(name)) == values
        for value in [*values, "", "a", "zz", None]:
            expected = model.index_keys(name, value)
            assert store.index_keys(name, value) == expected
            assert sorted(map(id, store.by_index(name, value))) == sorted(
                id(model.items[k]) for k in expected)
    for o in model.items.values():
        for name, func in model.indexers.items():
            wanted = {k for k, other in model.items.items() if set(func(other)) & set(func(o))}
            assert sorted(map(id, store.index(name, o))) == sorted(
                id(model.items[k]) for k in wanted)


namespaces = st.sampled_from(["a", "b", "", "a/b"])
names = st.sampled_from(["p", "q", "b/p", "a"])
objects = st.builds(obj, namespaces, names, st.sampled_from(["x", "y"]),
                    uid=st.sampled_from(["u1", "u2", "u3"]))
operations = st.lists(st.tuples(st.sampled_from(["add", "update", "delete", "replace"]),
                                st.lists(objects, min_size=1, max_size=4)), max_size=25)
key_funcs = st.sampled_from([deletion_handling_meta_namespace_key_func,
                             meta_namespace_key_func, uid_key])


@settings(max_examples=150, deadline=None)
@given(key_funcs, operations, st.booleans())
def test_the_store_answers_as_a_plain_map_with_index_sets(key_func: Any, ops: Any,
                                                          add_index_later: bool) -> None:
    indexers = {NAMESPACE_INDEX: meta_namespace_index_func, "labels": labels_index}
    store = new_indexer(key_func, {} if add_index_later else indexers)
    model = Model(key_func, indexers)
    for i, (op, objs) in enumerate(ops):
        if add_index_later and i == len(ops) // 2:
            store.add_indexers(indexers)
            add_index_later = False
        if op == "replace":
            store.replace(objs, str(i))
            model.replace(objs)
        for o in objs if op != "replace" else ():
            if op == "delete":
                store.delete(o)
                model.delete(o)
            else:
                (store.add if op == "add" else store.update)(o)
                model.add(o)
    if add_index_later:
        store.add_indexers(indexers)
    check(store, model)


def test_objects_are_filed_under_their_own_name_strings() -> None:
    """What saves a key string per cached object: the store's maps hold the object's own
    namespace and name, and after an update the new object's (the old one can die)."""
    store = new_indexer(deletion_handling_meta_namespace_key_func,
                        {NAMESPACE_INDEX: meta_namespace_index_func})
    document = '{"metadata": {"name": "web-5d7c9f8b6-x2k9p", "namespace": "default"}}'
    first = json.loads(document)  # each decode makes its own strings, as a watch does
    store.add(first)
    second = json.loads(document)
    assert second["metadata"]["name"] is not first["metadata"]["name"]
    store.update(second)
    ((space, inner),) = store._store._spaces.items()
    (filed,) = inner
    assert filed is second["metadata"]["name"] and space is first["metadata"]["namespace"]
    assert store.get_by_key("default/web-5d7c9f8b6-x2k9p") is second
    assert not store._store._indices  # the namespace index is answered by the filing
    assert store.by_index(NAMESPACE_INDEX, "default") == [second]


def test_a_namespace_index_over_other_keys_becomes_an_ordinary_index() -> None:
    store = new_indexer(uid_key, {NAMESPACE_INDEX: meta_namespace_index_func})
    store.add(obj("a", "p", uid="u1"))
    store.add(obj("b", "p", uid="u2"))
    assert store.index_keys(NAMESPACE_INDEX, "a") == ["u1"]
    assert store.by_index(NAMESPACE_INDEX, "b")[0]["metadata"]["uid"] == "u2"
    assert sorted(store.list_index_func_values(NAMESPACE_INDEX)) == ["a", "b"]


def test_keys_of_any_shape_round_trip() -> None:
    store = ThreadSafeStore()
    keys = ["x", "/x", "x/", "a/b/c", "a/b", "", "/"]
    for i, key in enumerate(keys):
        store.update(key, {"i": i})
    assert sorted(store.list_keys()) == sorted(keys)
    assert [store.get(key)["i"] for key in keys] == list(range(len(keys)))
    store.delete("a/b")
    assert "a/b" not in store and "a/b/c" in store and len(store) == len(keys) - 1


def test_readers_never_miss_an_object_being_replaced() -> None:
    """An update re-files the object under the new one's name (delete, insert): a reader
    must never see the key missing in between."""
    store = new_indexer(deletion_handling_meta_namespace_key_func,
                        {NAMESPACE_INDEX: meta_namespace_index_func})
    for i in range(20):
        store.add(obj("ns", f"p{i}"))
    stop = threading.Event()
    misses: list[str] = []

    def read() -> None:
        while not stop.is_set():
            for i in range(20):
                if store.get_by_key(f"ns/p{i}") is None or f"ns/p{i}" not in store:
                    misses.append(f"ns/p{i}")
            if len(store.by_index(NAMESPACE_INDEX, "ns")) != 20 or len(store) != 20:
                misses.append("count")

    readers = [threading.Thread(target=read) for _ in range(2)]
    for reader in readers:
        reader.start()
    try:
        for _ in range(300):
            for i in range(20):
                store.update(obj("ns", f"p{i}", "v"))  # a fresh object, fresh name string
    finally:
        stop.set()
        for reader in readers:
            reader.join(30)
    assert not any(reader.is_alive() for reader in readers)
    assert misses == []
