"""Store and indexes stay consistent under many writer threads."""

import random
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.cache.store import ThreadSafeStore, new_indexer


def tags(obj):
    return list(obj["tags"])


def expected_index(items):
    index = {}
    for key, obj in items.items():
        for tag in obj["tags"]:
            index.setdefault(tag, set()).add(key)
    return index


def assert_consistent(store: ThreadSafeStore):
    items = {key: store.get(key) for key in store.list_keys()}
    actual = {
        value: set(store.index_keys("tags", value))
        for value in store.list_index_func_values("tags")
    }
    assert actual == expected_index(items)
    assert all(keys for keys in actual.values()), "empty index sets must be dropped"


def test_many_writers_keep_indexes_consistent():
    store = ThreadSafeStore({"tags": tags})
    keys = [f"k{i}" for i in range(40)]
    values = ["a", "b", "c", "d", "e"]
    barrier = threading.Barrier(8)
    errors = []

    def writer(seed):
        rng = random.Random(seed)
        barrier.wait()
        try:
            for _ in range(3000):
                key = rng.choice(keys)
                op = rng.random()
                if op < 0.6:
                    store.update(key, {"tags": rng.sample(values, rng.randint(0, 3))})
                elif op < 0.9:
                    store.delete(key)
                elif op < 0.95:
                    store.by_index("tags", rng.choice(values))
                else:
                    snapshot = {k: {"tags": ["a"]} for k in rng.sample(keys, 5)}
                    store.replace(snapshot, "1")
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=writer, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert_consistent(store)


operations = st.lists(
    st.tuples(
        st.sampled_from(["add", "update", "delete", "replace"]),
        st.sampled_from(["a", "b", "c", "d"]),
        st.lists(st.sampled_from(["x", "y", "z"]), max_size=3),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(operations)
def test_indexer_matches_reference_model(ops):
    indexer = new_indexer(lambda obj: obj["name"], {"tags": tags})
    model = {}
    for op, name, values in ops:
        obj = {"name": name, "tags": values}
        if op in ("add", "update"):
            indexer.add(obj) if op == "add" else indexer.update(obj)
            model[name] = obj
        elif op == "delete":
            indexer.delete(obj)
            model.pop(name, None)
        else:
            indexer.replace([obj], "1")
            model = {name: obj}
    assert sorted(indexer.list_keys()) == sorted(model)
    for value, keys in expected_index(model).items():
        assert indexer.index_keys("tags", value) == sorted(keys)
    assert set(indexer.list_index_func_values("tags")) == set(expected_index(model))
