"""RowStore: the column-wise rows behind LiveFrame, against a plain dict model."""

from __future__ import annotations

import math

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.reactive.rows import RowStore

ops = st.lists(st.tuples(st.sampled_from(["upsert", "delete"]), st.integers(0, 40),
                         st.integers(0, 5)), max_size=300)


@settings(max_examples=60, deadline=None)
@given(ops)
def test_rows_match_a_dict_model_after_any_sequence(operations: list[tuple[str, int, int]]
                                                    ) -> None:
    store = RowStore(["A", "B", "AGE"], [False, False, True])
    model: dict[str, tuple[object, ...]] = {}
    for op, k, v in operations:
        key = f"ns/{k}"
        if op == "upsert":
            row = (v, f"s{v}", None if v == 0 else 1000.0 + v)
            assert store.upsert(key, row) == (key not in model)
            model[key] = row
        else:
            assert store.delete(key) == (key in model)
            model.pop(key, None)
    assert len(store) == len(model)
    assert store.keys() == list(model)  # arrival order survives deletes and compaction
    for key, row in model.items():
        assert store.get(key) == row
    df = store.frame(now=2000.0)
    assert list(df.index) == list(model)
    assert df["A"].tolist() == [r[0] for r in model.values()]
    ages = [None if r[2] is None else pd.Timedelta(seconds=2000.0 - r[2])
            for r in model.values()]
    assert [None if pd.isna(a) else a for a in df["AGE"]] == ages


def test_many_deletes_compact_and_keep_order() -> None:
    store = RowStore(["V"])
    for i in range(5000):
        store.upsert(i, (i,))
    for i in range(0, 5000):
        if i % 5:
            store.delete(i)
    assert store._used < 5000  # dead slots were compacted away
    assert store.keys() == list(range(0, 5000, 5))
    assert store.frame()["V"].tolist() == list(range(0, 5000, 5))
    store.upsert(1, (1,))
    assert store.keys()[-1] == 1 and len(store) == 1001


def test_a_snapshot_is_independent_of_later_changes() -> None:
    store = RowStore(["V"], index_name="key")
    store.upsert("a", ("one",))
    df = store.frame()
    store.upsert("a", ("two",))
    store.upsert("b", ("three",))
    assert df.to_dict("index") == {"a": {"V": "one"}}
    assert df.index.name == "key"
    assert store.version == 3
    empty = RowStore(["A", "AGE"], [False, True]).frame(now=0.0)
    assert list(empty.columns) == ["A", "AGE"] and len(empty) == 0
    nan_age = RowStore(["AGE"], [True])
    nan_age.upsert("x", (None,))
    assert math.isnan(nan_age._cols[0][0]) and nan_age.get("x") == (None,)
