"""Section C of the client-go behaviour spec: Indexer."""

import pytest

from kubenb.cache.keys import NAMESPACE_INDEX, meta_namespace_index_func
from kubenb.cache.store import ThreadSafeStore, new_indexer
from kubenb.errors import IndexConflictError, IndexFuncError, IndexNotFoundError


def o(name, val):
    return {"metadata": {"name": name}, "val": val}


def name_key(obj):
    return obj["metadata"]["name"]


def by_val(obj):
    return [obj["val"]]


def names(objs):
    return sorted(obj["metadata"]["name"] for obj in objs)


def pod(name, labels=None, annotations=None, namespace="ns"):
    meta = {"name": name, "namespace": namespace, "labels": labels or {}}
    meta["annotations"] = annotations or {}
    return {"kind": "Pod", "metadata": meta}


def test_c012_index_returns_objects_sharing_a_value():
    indexer = new_indexer(name_key, {"by_val": by_val})
    for name, val in [("a", "b"), ("c", "b"), ("e", "f"), ("g", "h")]:
        indexer.add(o(name, val))
    assert names(indexer.index("by_val", o("", "b"))) == ["a", "c"]
    assert names(indexer.index("by_val", o("", "f"))) == ["e"]
    assert names(indexer.index("by_val", o("", "h"))) == ["g"]


def test_c012_index_with_several_values_deduplicates():
    indexer = new_indexer(name_key, {"split": lambda obj: obj["val"].split(",")})
    indexer.add(o("one", "x,y"))
    indexer.add(o("two", "y"))
    assert names(indexer.index("split", o("", "x,y"))) == ["one", "two"]


def test_c013_list_index_func_values():
    indexer = new_indexer(indexers={"by_foo": lambda p: [p["metadata"]["labels"]["foo"]]})
    indexer.add(pod("one", {"foo": "bar"}))
    indexer.add(pod("two", {"foo": "bar"}))
    indexer.add(pod("tre", {"foo": "biz"}))
    values = indexer.list_index_func_values("by_foo")
    assert len(values) == 2
    assert set(values) == {"bar", "biz"}


def users_index(obj):
    users = obj["metadata"]["annotations"].get("users", "")
    return users.split(",") if users else []


def test_c014_multi_valued_index_functions():
    indexer = new_indexer(indexers={"byUser": users_index})
    indexer.add(pod("one", annotations={"users": "ernie,bert"}))
    indexer.add(pod("two", annotations={"users": "bert,oscar"}))
    indexer.add(pod("tre", annotations={"users": "ernie,elmo"}))

    def expect(user, expected):
        assert names(indexer.by_index("byUser", user)) == sorted(expected)

    expect("ernie", ["one", "tre"])
    expect("bert", ["one", "two"])
    expect("elmo", ["tre"])
    expect("oscar", ["two"])
    expect("elmo1", [])
    indexer.delete(pod("tre"))
    expect("ernie", ["one"])
    expect("elmo", [])
    indexer.update(pod("two", annotations={"users": "oscar"}))
    expect("bert", ["one"])


def test_c015_updates_reindex_exactly():
    store = ThreadSafeStore({"testmodes": lambda obj: obj.split(",")})

    def check(expected):
        for value, keys in expected.items():
            assert store.index_keys("testmodes", value) == sorted(keys), value

    store.add("key1", "foo")
    store.add("key2", "bar")
    check({"foo": ["key1"], "bar": ["key2"]})
    store.update("key2", "foo,bar")
    check({"foo": ["key1", "key2"], "bar": ["key2"]})
    store.update("key1", "foo,bar")
    check({"foo": ["key1", "key2"], "bar": ["key1", "key2"]})
    store.add("key3", "foo,bar,baz")
    check({"foo": ["key1", "key2", "key3"], "bar": ["key1", "key2", "key3"], "baz": ["key3"]})
    store.update("key1", "foo")
    check({"foo": ["key1", "key2", "key3"], "bar": ["key2", "key3"], "baz": ["key3"]})
    store.update("key2", "bar")
    check({"foo": ["key1", "key3"], "bar": ["key2", "key3"], "baz": ["key3"]})
    store.delete("key1")
    check({"foo": ["key3"], "bar": ["key2", "key3"], "baz": ["key3"]})
    store.delete("key3")
    check({"foo": [], "bar": ["key2"], "baz": []})


def test_c016_empty_index_sets_are_deleted():
    store = ThreadSafeStore({"testmodes": lambda obj: [obj]})
    store.add("testKey", "testKey")
    store.delete("testKey")
    assert "testKey" not in store._indices["testmodes"]
    assert store.list_index_func_values("testmodes") == []


def test_c016_non_empty_set_is_kept():
    store = ThreadSafeStore({"testmodes": lambda obj: ["shared"]})
    store.add("k1", "v")
    store.add("k2", "v")
    store.delete("k1")
    assert store._indices["testmodes"]["shared"] == {"k2"}


def test_c017_unknown_index_name_errors_and_ordering():
    indexer = new_indexer(name_key, {"by_val": by_val})
    for name in ["c", "a", "b"]:
        indexer.add(o(name, "same"))
    for call in (
        lambda: indexer.index("nope", o("a", "same")),
        lambda: indexer.by_index("nope", "same"),
        lambda: indexer.index_keys("nope", "same"),
    ):
        with pytest.raises(IndexNotFoundError, match="Index with name nope does not exist"):
            call()
    with pytest.raises(KeyError):  # catchable as the builtin too
        indexer.by_index("nope", "same")
    assert indexer.list_index_func_values("nope") == []
    assert indexer.index_keys("by_val", "same") == ["a", "b", "c"]


def test_c018_add_indexers_on_populated_store():
    indexer = new_indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    indexer.add(pod("pod1", {"a": "a"}))
    indexer.add(pod("pod2", {"a": "b"}))
    indexer.add(pod("pod3", {"a": "a"}))
    indexer.add_indexers({"labels-again": lambda p: [p["metadata"]["labels"]["a"]]})
    assert names(indexer.by_index("labels-again", "a")) == ["pod1", "pod3"]
    assert set(indexer.get_indexers()) == {NAMESPACE_INDEX, "labels-again"}


def test_c018_conflicting_add_indexers_adds_nothing():
    indexer = new_indexer(name_key, {"by_val": by_val})
    with pytest.raises(IndexConflictError, match=r"indexer conflict: \['by_val'\]"):
        indexer.add_indexers({"fresh": by_val, "by_val": by_val})
    assert set(indexer.get_indexers()) == {"by_val"}


def test_c019_index_function_error_raises_and_changes_nothing():
    def picky(obj):
        if obj["val"] == "bad":
            raise ValueError("val is bad")
        return [obj["val"]]

    indexer = new_indexer(name_key, {"picky": picky})
    indexer.add(o("a", "good"))
    with pytest.raises(IndexFuncError) as info:
        indexer.update(o("a", "bad"))
    assert str(info.value).startswith(
        'unable to calculate an index entry for key "a" on index "picky": val is bad'
    )
    # Unlike Go's panic, nothing was half-applied.
    assert indexer.get_by_key("a")["val"] == "good"
    assert indexer.index_keys("picky", "good") == ["a"]
    with pytest.raises(IndexFuncError):
        indexer.replace([o("b", "good"), o("c", "bad")], "1")
    assert indexer.list_keys() == ["a"]
    with pytest.raises(IndexFuncError):
        indexer.add(o("z", "bad"))
    assert indexer.get_by_key("z") is None


def test_c019_failing_new_indexer_is_not_added():
    indexer = new_indexer(name_key, {"by_val": by_val})
    indexer.add(o("a", "x"))

    def broken(obj):
        raise RuntimeError("no")

    with pytest.raises(IndexFuncError, match='on index "broken"'):
        indexer.add_indexers({"fine": by_val, "broken": broken})
    assert set(indexer.get_indexers()) == {"by_val"}
