"""Section B of the client-go behaviour spec: Store and ThreadSafeStore."""

import pytest

from kubenb.cache.store import ThreadSafeStore, new_indexer, new_store


def o(name, val=None, rv=None):
    meta = {"name": name}
    if rv is not None:
        meta["resourceVersion"] = rv
    return {"metadata": meta, "val": val}


def name_key(obj):
    return obj["metadata"]["name"]


@pytest.fixture(params=["store", "indexer"])
def store(request):
    if request.param == "store":
        return new_store(name_key)
    return new_indexer(name_key, {"by_val": lambda obj: [str(obj["val"])]})


def test_b008_basic_crud(store):
    store.add(o("foo", "bar"))
    assert store.get(o("foo"))["val"] == "bar"
    store.update(o("foo", "baz"))
    assert store.get(o("foo"))["val"] == "baz"
    store.delete(o("foo"))
    assert store.get(o("foo")) is None
    for name in "ace":
        store.add(o(name))
    assert len(store.list()) == 3
    assert sorted(store.list_keys()) == ["a", "c", "e"]


def test_b009_replace_discards_previous_contents(store):
    for name in "ace":
        store.add(o(name))
    store.replace([o("foo"), o("bar")], "0")
    assert sorted(obj["metadata"]["name"] for obj in store.list()) == ["bar", "foo"]


def test_b009_replace_last_duplicate_wins_and_indices_rebuilt():
    indexer = new_indexer(name_key, {"by_val": lambda obj: [obj["val"]]})
    indexer.add(o("old", "x"))
    indexer.replace([o("a", "1"), o("a", "2"), o("b", "1")], "7")
    assert indexer.get_by_key("a")["val"] == "2"
    assert indexer.index_keys("by_val", "1") == ["b"]
    assert indexer.index_keys("by_val", "2") == ["a"]
    assert indexer.index_keys("by_val", "x") == []
    assert sorted(indexer.list_index_func_values("by_val")) == ["1", "2"]


def test_b010_edge_cases(store):
    store.update(o("new", 1))  # update of a missing key inserts it
    assert store.get_by_key("new")["val"] == 1
    store.delete(o("missing"))  # silent no-op
    assert store.list_keys() == ["new"]
    assert store.get_by_key("missing") is None  # get_by_key never raises
    assert store.resync() is None
    with pytest.raises(KeyError):
        store.get({"no": "meta"})


def test_b010_thread_safe_store_directly():
    tss = ThreadSafeStore()
    tss.add("k", 1)
    tss.update("k", 2)
    assert tss.get("k") == 2
    tss.delete("nope")
    assert tss.list() == [2]
    tss.replace({"a": 1, "b": 2}, "3")
    assert sorted(tss.list_keys()) == ["a", "b"]


def test_b011_transformer_and_last_resource_version():
    seen = []

    def transform(obj):
        seen.append(obj["metadata"]["name"])
        return {**obj, "transformed": True}

    store = new_store(name_key, transformer=transform)
    store.add(o("a", rv="10"))
    assert store.last_store_sync_resource_version() == "10"
    store.update(o("a", rv="10"))
    assert store.last_store_sync_resource_version() == "10"
    store.add(o("b", rv="20"))
    assert store.last_store_sync_resource_version() == "20"
    store.delete(o("b", rv="30"))  # delete with its object: recorded, not transformed
    assert store.last_store_sync_resource_version() == "30"
    store.add({"metadata": {"name": "x"}})  # no resourceVersion: unchanged
    assert store.last_store_sync_resource_version() == "30"
    store.add(o("c", rv="40"))
    assert store.last_store_sync_resource_version() == "40"
    store.replace([o("d", rv="41")], "50")
    assert store.last_store_sync_resource_version() == "50"
    store.bookmark("60")
    assert store.last_store_sync_resource_version() == "60"
    assert seen == ["a", "a", "b", "x", "c", "d"]
    assert all(obj["transformed"] for obj in store.list())
