"""DeltaFIFO against client-go release-1.32 (spec items 6 and 20-39).

Test objects are dicts `o(name, val)` keyed by the default meta_namespace_key_func;
`Known` is client-go's literalListerGetter: a fixed list of known objects.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from kubenb.cache.delta_fifo import (
    Delta,
    DeltaFIFO,
    Deltas,
    DeltaType,
    newest,
    oldest,
)
from kubenb.cache.keys import DeletedFinalStateUnknown
from kubenb.errors import (
    FIFOClosedError,
    KeyFuncError,
    KubenbError,
    RequeueError,
    ZeroLengthDeltasError,
)
from tests.cache.fixtures import BrokenKnown, Known, o
from tests.helpers import pop_within, wait_until

ADDED, UPDATED, DELETED = DeltaType.ADDED, DeltaType.UPDATED, DeltaType.DELETED
REPLACED, SYNC = DeltaType.REPLACED, DeltaType.SYNC
DFSU = DeletedFinalStateUnknown





def noop(deltas: Deltas, initial: bool) -> None:
    pass


def pop(f: DeltaFIFO) -> Deltas:
    assert len(f) > 0, "pop on an empty queue would block"
    return f.pop(noop)


def pop2(f: DeltaFIFO) -> tuple[Deltas, bool]:
    seen: list[bool] = []
    deltas = f.pop(lambda d, initial: seen.append(initial))
    return deltas, seen[0]


def val(deltas: Deltas) -> Any:
    obj = deltas.newest().object
    return obj["val"]


# ----------------------------------------------------------------------- types


def test_delta_types_and_helpers():
    assert [t.value for t in DeltaType] == ["Added", "Updated", "Deleted", "Replaced", "Sync"]
    assert DeltaType.ADDED == "Added" and str(DeltaType.SYNC) == "Sync"
    d = Delta(ADDED, o("a", 1))
    with pytest.raises(AttributeError):
        d.type = UPDATED  # type: ignore[misc]
    assert d == Delta(DeltaType("Added"), o("a", 1))
    ds = Deltas([d, Delta(UPDATED, o("a", 2))])
    assert ds.oldest() is d and ds.newest().object == o("a", 2)
    assert oldest(list(ds)) is d and newest(list(ds)) is ds[1]
    assert Deltas().oldest() is None and Deltas().newest() is None
    assert oldest([]) is None and newest([]) is None


def test_popped_deltas_are_made_of_real_delta_instances():
    f = DeltaFIFO()
    f.add(o("a", 1))
    f.update(o("a", 2))
    got = pop(f)
    assert type(got) is Deltas
    assert all(type(d) is Delta for d in got)
    assert got == [Delta(ADDED, o("a", 1)), Delta(UPDATED, o("a", 2))]
    assert repr(got[0]).startswith("Delta(type=")


# ----------------------------------------------------------------------- A.6


def test_a006_key_of_understands_deltas_and_tombstones():
    f = DeltaFIFO()
    assert f.key_of(o("A")) == "A"
    assert f.key_of(DFSU("B", None)) == "B"
    assert f.key_of(Deltas([Delta(ADDED, o("C"))])) == "C"
    assert f.key_of([Delta(ADDED, o("X")), Delta(UPDATED, o("C"))]) == "C"  # the newest
    assert f.key_of(Deltas([Delta(DELETED, DFSU("D", None))])) == "D"
    ns = {"metadata": {"name": "n", "namespace": "ns"}}
    assert f.key_of(ns) == "ns/n"
    with pytest.raises(KeyFuncError) as err:
        f.key_of(Deltas())
    assert isinstance(err.value.err, ZeroLengthDeltasError)
    assert isinstance(err.value.__cause__, ZeroLengthDeltasError)
    assert "0 length Deltas object; can't get key" in str(err.value)


def test_a006_key_of_uses_the_custom_key_function_and_wraps_its_errors():
    f = DeltaFIFO(key_function=lambda obj: obj["id"])
    assert f.key_of({"id": "x"}) == "x"
    assert f.key_of(DFSU("t", {"no": "id"})) == "t"  # a tombstone's key wins
    with pytest.raises(KeyFuncError) as err:
        f.add({"no": "id"})
    assert isinstance(err.value.err, KeyError)
    assert "a dict with no metadata" in str(err.value)  # named, never printed
    assert len(f) == 0


def test_bad_input_object_without_name_raises_key_func_error_naming_it():
    f = DeltaFIFO()
    bad = {"metadata": {"namespace": "ns"}, "val": "nameless"}
    for write in (f.add, f.update, f.delete, f.get):
        with pytest.raises(KeyFuncError) as err:
            write(bad)
        assert 'object with no name in namespace "ns"' in str(err.value)
        assert "nameless" not in str(err.value)  # the contents are never printed
    with pytest.raises(KeyFuncError, match='with no name in namespace "ns"'):
        f.replace([o("fine", 1), bad], "1")
    for not_an_object in (None, "str", 5, {"metadata": "x"}, {"metadata": {"name": 7}}):
        with pytest.raises(KeyFuncError):
            f.add(not_an_object)
    assert f.list_keys() == ["fine"]  # replace stops at the bad item, as client-go does


# ----------------------------------------------------------------------- D.20-39


def test_d020_deltas_accumulate_per_key_and_pop_returns_them_all():
    f = DeltaFIFO()
    f.add(o("foo", 10))
    f.update(o("foo", 12))
    f.delete(o("foo", 15))
    assert f.list() == [o("foo", 15)]
    assert f.list_keys() == ["foo"]
    got = pop(f)
    assert got == [
        Delta(ADDED, o("foo", 10)),
        Delta(UPDATED, o("foo", 12)),
        Delta(DELETED, o("foo", 15)),
    ]
    assert val(got) == 15
    assert pop_within(f, 0.05) is None
    assert f.get(o("foo")) is None
    assert f.get_by_key("foo") is None


def test_d021_key_keeps_its_queue_position():
    f = DeltaFIFO()
    for name, v in [("foo", 10), ("bar", 1), ("foo", 11), ("foo", 13), ("zab", 30)]:
        f.add(o(name, v))
    assert val(pop(f)) == 13
    f.add(o("foo", 14))
    assert [val(pop(f)) for _ in range(3)] == [1, 30, 14]
    assert len(f) == 0


def test_d022_per_producer_order_holds_with_concurrent_producers():
    f = DeltaFIFO()
    amount = 500

    def produce(prefix: str) -> None:
        for i in range(amount):
            f.add(o(f"{prefix}{i}", (prefix, i + 1)))

    threads = [threading.Thread(target=produce, args=(p,)) for p in "ab"]
    for t in threads:
        t.start()
    last = {"a": 0, "b": 0}
    for _ in range(amount * 2):
        prefix, v = f.pop(noop).newest().object["val"]
        assert v > last[prefix], f"{prefix}{v} out of order after {last[prefix]}"
        last[prefix] = v
    for t in threads:
        t.join()
    assert last == {"a": amount, "b": amount}
    assert len(f) == 0


def test_d023_delete_of_unqueued_key_is_ignored_without_known_objects():
    f = DeltaFIFO()
    f.add(o("foo", 10))
    f.update(o("bar", 15))
    f.add(o("qux", 17))
    f.delete(o("qux", 18))
    f.delete(o("baz", 20))
    assert [val(pop(f)) for _ in range(3)] == [10, 15, 18]
    assert f.is_empty()
    f2 = DeltaFIFO()
    f2.add(o("qux", 17))
    f2.delete(o("qux", 18))
    assert pop(f2) == [Delta(ADDED, o("qux", 17)), Delta(DELETED, o("qux", 18))]


def test_d024_delete_is_queued_if_key_is_known_or_queued():
    f = DeltaFIFO(known_objects=Known(o("foo", 5), o("bar", 6), o("baz", 7)))
    f.add(o("foo", 10))
    f.update(o("bar", 15))
    f.delete(o("baz", 20))
    assert [val(pop(f)) for _ in range(3)] == [10, 15, 20]
    assert f.is_empty()

    f = DeltaFIFO(known_objects=Known())  # empty but not None
    f.add(o("foo", 5))
    f.delete(o("foo", 6))
    assert f.get_by_key("foo") == [Delta(ADDED, o("foo", 5)), Delta(DELETED, o("foo", 6))]

    f = DeltaFIFO(known_objects=Known(o("foo", 5)))
    f.delete(o("nope", 1))  # neither known nor queued: skipped ...
    assert f.is_empty()
    assert f.has_synced()  # ... but it still counts as the first write

    f = DeltaFIFO(known_objects=BrokenKnown(o("foo", 5)))
    f.delete(o("nope", 1))  # a failed lookup does not prove absence: queued
    assert pop(f) == [Delta(DELETED, o("nope", 1))]


def test_d025_deletion_dedup_keeps_older_unless_tombstone():
    # Two concrete deletions: the older is kept.
    f = DeltaFIFO()
    f.add(o("a", 1))
    f.delete(o("a", 2))
    f.delete(o("a", 3))
    assert pop(f) == [Delta(ADDED, o("a", 1)), Delta(DELETED, o("a", 2))]

    # A tombstone followed by a concrete deletion: the concrete one replaces it.
    f = DeltaFIFO()
    f.add(o("a", 1))
    f.replace([], "1")
    assert f.get_by_key("a") == [Delta(ADDED, o("a", 1)), Delta(DELETED, DFSU("a", o("a", 1)))]
    f.delete(o("a", 9))
    assert pop(f) == [Delta(ADDED, o("a", 1)), Delta(DELETED, o("a", 9))]

    # A concrete deletion followed by a tombstone: the concrete one stays.
    f = DeltaFIFO()
    f.add(o("a", 1))
    f.delete(o("a", 2))
    f.replace([], "1")
    assert pop(f) == [Delta(ADDED, o("a", 1)), Delta(DELETED, o("a", 2))]

    # Two tombstones: the newer wins.
    f = DeltaFIFO(known_objects=Known(o("k", 1)))
    f.replace([], "1")
    first = f.get_by_key("k")
    f.replace([], "2")
    second = f.get_by_key("k")
    assert first == second == [Delta(DELETED, DFSU("k", o("k", 1)))]
    assert first[0] is not second[0]  # the newer delta replaced the older

    # Nothing else merges: only the last two deltas, and only if both are Deleted.
    f = DeltaFIFO(known_objects=Known(o("a", 0)))
    f.update(o("a", 1))
    f.update(o("a", 1))
    f.delete(o("a", 2))
    f.add(o("a", 3))
    f.delete(o("a", 4))
    f.resync()  # queued: no Sync
    f.replace([o("a", 5)], "1")
    f.replace([o("a", 5)], "2")
    assert [d.type for d in pop(f)] == [UPDATED, UPDATED, DELETED, ADDED, DELETED, SYNC, SYNC]


@pytest.mark.parametrize("emit", [False, True])
def test_d026_replace_appends_sync_or_replaced(emit):
    f = DeltaFIFO(emit_delta_type_replaced=emit)
    f.add(o("foo", 10))
    f.replace([o("foo", 15)], "0")
    kind = REPLACED if emit else SYNC
    got = pop(f)
    assert got == [Delta(ADDED, o("foo", 10)), Delta(kind, o("foo", 15))]
    assert val(got) == 15
    assert pop_within(f, 0.05) is None


def test_d026_replace_delta_type_with_known_objects():
    f = DeltaFIFO(known_objects=Known(o("foo", 5)), emit_delta_type_replaced=True)
    f.replace([o("foo", 5)], "0")
    assert pop(f) == [Delta(REPLACED, o("foo", 5))]
    assert f.is_empty()


@pytest.mark.parametrize("known", [None, Known()], ids=["no-known", "empty-known"])
def test_d027_replace_tombstones_for_queued_missing(known):
    obj, obj2 = o("foo", 1), o("foo", 2)

    def fifo(emit: bool = False) -> DeltaFIFO:
        return DeltaFIFO(known_objects=known, emit_delta_type_replaced=emit)

    cases: list[tuple[str, DeltaFIFO, list[Delta]]] = []

    f = fifo()
    f.add(obj)
    f.replace([], "0")
    cases.append(("add, replace([])", f, [Delta(ADDED, obj), Delta(DELETED, DFSU("foo", obj))]))

    f = fifo(emit=True)
    f.add(obj)
    f.replace([obj], "0")
    f.replace([], "0")
    cases.append(
        (
            "emit-Replaced",
            f,
            [Delta(ADDED, obj), Delta(REPLACED, obj), Delta(DELETED, DFSU("foo", obj))],
        )
    )

    f = fifo()
    f.add(obj)
    f.delete(obj)
    f.replace([], "0")
    cases.append(("add, delete", f, [Delta(ADDED, obj), Delta(DELETED, obj)]))

    f = fifo()
    f.add(obj)
    f.replace([obj], "0")
    f.replace([obj], "0")
    f.replace([], "0")
    cases.append(
        (
            "two syncs",
            f,
            [
                Delta(ADDED, obj),
                Delta(SYNC, obj),
                Delta(SYNC, obj),
                Delta(DELETED, DFSU("foo", obj)),
            ],
        )
    )

    f = fifo()
    f.add(obj)
    f.replace([], "0")
    f.replace([], "1")
    cases.append(("two tombstones", f, [Delta(ADDED, obj), Delta(DELETED, DFSU("foo", obj))]))

    f = fifo()
    f.add(obj)
    f.delete(obj)
    f.add(obj2)
    f.replace([], "0")
    cases.append(
        (
            "re-added",
            f,
            [
                Delta(ADDED, obj),
                Delta(DELETED, obj),
                Delta(ADDED, obj2),
                Delta(DELETED, DFSU("foo", obj2)),
            ],
        )
    )

    for name, f, expected in cases:
        assert len(f) == 1, name
        assert pop(f) == expected, name
        assert f.is_empty(), name


def test_d028_replace_tombstones_for_known_only_keys():
    known = Known(o("foo", 5), o("bar", 6), o("baz", 7))
    f = DeltaFIFO(known_objects=known)
    f.delete(o("baz", 10))
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(3)] == [
        [Delta(DELETED, o("baz", 10))],
        [Delta(SYNC, o("foo", 5))],
        [Delta(DELETED, DFSU("bar", o("bar", 6)))],
    ]
    assert f.is_empty()


def test_d028_tombstone_object_is_none_when_known_lookup_fails_or_misses():
    class Vanishing(Known):
        def get_by_key(self, key: str) -> Any:
            return None  # listed, but gone by the time we look

    for known in (BrokenKnown(o("bar", 6)), Vanishing(o("bar", 6))):
        f = DeltaFIFO(known_objects=known)
        f.replace([], "0")
        assert pop(f) == [Delta(DELETED, DFSU("bar", None))]


def test_d029_tombstones_carry_newest_object_and_queue_in_fixed_order():
    def known() -> Known:
        return Known(o("foo", 5), o("bar", 6), o("baz", 7))

    # Scenario 1: the queued object beats the known one.
    f = DeltaFIFO(known_objects=known())
    f.add(o("baz", 10))
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(3)] == [
        [Delta(ADDED, o("baz", 10)), Delta(DELETED, DFSU("baz", o("baz", 10)))],
        [Delta(SYNC, o("foo", 5))],
        [Delta(DELETED, DFSU("bar", o("bar", 6)))],
    ]

    # Scenario 2: the newest queued object, after a concrete deletion.
    f = DeltaFIFO(known_objects=known())
    f.delete(o("bar", 6))
    f.add(o("bar", 100))
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(3)] == [
        [
            Delta(DELETED, o("bar", 6)),
            Delta(ADDED, o("bar", 100)),
            Delta(DELETED, DFSU("bar", o("bar", 100))),
        ],
        [Delta(SYNC, o("foo", 5))],
        [Delta(DELETED, DFSU("baz", o("baz", 7)))],
    ]

    # Scenario 3: a Sync-only queued key vanishes from the next list.
    f = DeltaFIFO(known_objects=known())
    f.replace([o("bar", 100), o("foo", 5)], "0")
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(3)] == [
        [Delta(SYNC, o("bar", 100)), Delta(DELETED, DFSU("bar", o("bar", 100)))],
        [Delta(SYNC, o("foo", 5)), Delta(SYNC, o("foo", 5))],
        [Delta(DELETED, DFSU("baz", o("baz", 7)))],
    ]

    # Scenario 4: no known objects.
    f = DeltaFIFO()
    f.add(o("baz", 10))
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(2)] == [
        [Delta(ADDED, o("baz", 10)), Delta(DELETED, DFSU("baz", o("baz", 10)))],
        [Delta(SYNC, o("foo", 5))],
    ]
    assert f.is_empty()

    # Scenario 5: emit-Replaced.
    f = DeltaFIFO(known_objects=known(), emit_delta_type_replaced=True)
    f.delete(o("baz", 10))
    f.replace([o("foo", 6)], "0")
    assert [pop(f) for _ in range(3)] == [
        [Delta(DELETED, o("baz", 10))],
        [Delta(REPLACED, o("foo", 6))],
        [Delta(DELETED, DFSU("bar", o("bar", 6)))],
    ]


def test_d029_enqueue_order_listed_then_queued_tombstones_then_known_tombstones():
    # Fresh keys only, so pop order is enqueue order.
    f = DeltaFIFO(known_objects=Known(o("k2", 0), o("k1", 0)))
    f.replace([o("l2", 1), o("l1", 1), o("q2", 1), o("q1", 1)], "0")
    while not f.is_empty():
        pop(f)
    f.add(o("q2", 2))
    f.add(o("q1", 2))
    f.replace([o("l2", 3), o("l1", 3)], "1")
    assert f.list_keys() == ["q2", "q1", "l2", "l1", "k2", "k1"]
    assert f.get_by_key("k2") == [Delta(DELETED, DFSU("k2", o("k2", 0)))]


def test_d030_pending_delete_does_not_suppress_later_sync():
    f = DeltaFIFO(known_objects=Known(o("foo", 1)))
    f.delete(o("foo", 1))
    f.replace([o("foo", 2)], "0")
    assert pop(f) == [Delta(DELETED, o("foo", 1)), Delta(SYNC, o("foo", 2))]
    assert f.is_empty()


def test_d031_resync_adds_sync_for_each_known_unqueued_key():
    f = DeltaFIFO(known_objects=Known(o("foo", 5)))
    f.resync()
    assert f.get_by_key("foo") == [Delta(SYNC, o("foo", 5))]
    f = DeltaFIFO()
    f.resync()  # no known objects: nothing to do
    assert f.is_empty() and not f.has_synced()


def test_d031_resync_skips_keys_whose_lookup_fails_or_misses():
    f = DeltaFIFO(known_objects=BrokenKnown(o("foo", 5)))
    f.resync()
    assert f.is_empty()


def test_d032_resync_skips_keys_that_are_queued():
    f = DeltaFIFO(known_objects=Known(o("foo", 5)))
    f.update(o("foo", 6))
    f.resync()
    assert pop(f) == [Delta(UPDATED, o("foo", 6))]
    assert f.is_empty()

    f = DeltaFIFO(known_objects=Known(o("foo", 5)))
    f.delete(o("foo", 10))
    f.resync()
    got = f.get_by_key("foo")
    assert len(got) == 1 and got[0].type is DELETED


def test_d033_has_synced_truth_table():
    def fresh() -> DeltaFIFO:
        return DeltaFIFO()

    assert not fresh().has_synced()
    f = fresh()
    f.add(o("a", 1))
    assert f.has_synced()
    f = fresh()
    f.replace([], "0")
    assert f.has_synced()
    f = fresh()
    f.replace([o("a", 1), o("b", 2)], "0")
    assert not f.has_synced()
    pop(f)
    assert not f.has_synced()
    pop(f)
    assert f.has_synced()
    f = fresh()
    f.replace([o("a", 1), o("a", 2)], "0")  # duplicate key: counted once
    pop(f)
    assert f.has_synced()
    # Only the first replace, before any other write, sets the count.
    f = fresh()
    f.update(o("x", 1))
    f.replace([o("a", 1), o("b", 2)], "0")
    assert f.has_synced()
    f = fresh()
    f.add_if_not_present(Deltas([Delta(ADDED, o("a", 1))]))
    assert f.has_synced()


def test_d033_each_pop_decrements_whichever_key_it_pops():
    f = DeltaFIFO()
    f.replace([o("a", 1), o("b", 2)], "0")
    f.add(o("c", 3))  # after the first replace: does not change the count
    assert [pop2(f)[1] for _ in range(3)] == [True, True, False]
    assert f.has_synced()


def test_d034_initial_list_deletions_count_toward_sync():
    f = DeltaFIFO(known_objects=Known(o("foo", 5), o("bar", 6), o("baz", 7)))
    f.replace([o("foo", 5)], "0")
    expected = [
        [Delta(SYNC, o("foo", 5))],
        [Delta(DELETED, DFSU("bar", o("bar", 6)))],
        [Delta(DELETED, DFSU("baz", o("baz", 7)))],
    ]
    for want in expected:
        assert not f.has_synced()
        got, initial = pop2(f)
        assert got == want
        assert initial is True
    assert f.has_synced()
    f.add(o("new", 1))
    assert pop2(f) == ([Delta(ADDED, o("new", 1))], False)


def test_d035_close_unblocks_ten_blocked_pops():
    f = DeltaFIFO(known_objects=Known(o("foo", 5)))
    results: list[BaseException | Any] = []
    lock = threading.Lock()

    def popper() -> None:
        try:
            r: Any = f.pop(noop)
        except BaseException as err:
            r = err
        with lock:
            results.append(r)

    threads = [threading.Thread(target=popper) for _ in range(10)]
    for t in threads:
        t.start()
    wait_until(lambda: f._waiters == 10, what="the poppers to block in pop")
    f.close()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads), "close() did not wake every popper"
    assert len(results) == 10
    for r in results:
        assert isinstance(r, FIFOClosedError)
        assert str(r) == "DeltaFIFO: manipulating with closed queue"
    assert f.is_closed()


def test_d035_closed_queue_still_hands_out_items_and_accepts_writes():
    f = DeltaFIFO()
    f.add(o("a", 1))
    f.close()
    assert f.is_closed()
    f.add(o("b", 2))
    f.update(o("a", 3))
    assert val(f.pop(noop)) == 3
    assert val(f.pop(noop)) == 2
    with pytest.raises(FIFOClosedError):
        f.pop(noop)


def test_d036_requeue_error_puts_the_item_back():
    f = DeltaFIFO()
    f.add(o("foo", 10))

    def requeue(err: BaseException | None):
        def process(deltas: Deltas, initial: bool) -> None:
            assert deltas[0].object["metadata"]["name"] == "foo"
            raise RequeueError(err)

        return process

    assert f.pop(requeue(None)) == [Delta(ADDED, o("foo", 10))]
    assert f.get_by_key("foo") is not None
    with pytest.raises(ValueError, match=r"^test error$"):
        f.pop(requeue(ValueError("test error")))
    assert f.get_by_key("foo") is not None
    f.pop(noop)
    assert f.get_by_key("foo") is None
    assert str(RequeueError()) == ("the popped item should be requeued without returning an error")


def test_d036_requeue_goes_to_the_tail_and_never_overwrites_newer_deltas():
    f = DeltaFIFO()
    f.add(o("a", 1))
    f.add(o("b", 2))

    def process(deltas: Deltas, initial: bool) -> None:
        raise RequeueError()

    f.pop(process)
    assert f.list_keys() == ["b", "a"]

    def readd_then_requeue(deltas: Deltas, initial: bool) -> None:
        f.add(o("b", 3))  # the lock is re-entrant: a process may write to its queue
        raise RequeueError()

    f.pop(readd_then_requeue)
    assert f.get_by_key("b") == [Delta(ADDED, o("b", 3))]


def test_d036_other_exceptions_from_process_propagate_and_consume_the_item():
    f = DeltaFIFO()
    f.add(o("a", 1))

    def boom(deltas: Deltas, initial: bool) -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        f.pop(boom)
    assert f.is_empty()


def test_d037_add_if_not_present_inserts_only_absent_keys():
    f = DeltaFIFO()
    with pytest.raises(KeyFuncError) as err:
        f.add_if_not_present(Deltas())
    assert isinstance(err.value.err, ZeroLengthDeltasError)
    assert not f.has_synced()

    f.add(o("b", 3))
    b3 = pop(f)
    f.add(o("c", 4))
    c4 = pop(f)
    assert len(f) == 0
    f.add(o("a", 1))
    f.add(o("b", 2))
    f.add_if_not_present(b3)
    f.add_if_not_present(c4)
    assert len(f) == 3
    assert [val(pop(f)) for _ in range(3)] == [1, 2, 4]


def test_d037_add_if_not_present_requires_deltas():
    f = DeltaFIFO()
    for bad in (o("a", 1), [o("a", 1)], (Delta(ADDED, o("a", 1)),), None):
        with pytest.raises(TypeError, match="object must be of type deltas, but got: "):
            f.add_if_not_present(bad)
    assert not f.has_synced()
    f.add_if_not_present([Delta(ADDED, o("a", 1))])  # any list of Delta will do
    got = pop(f)
    assert type(got) is Deltas and got == [Delta(ADDED, o("a", 1))]


def test_d038_transformer_runs_exactly_once_per_object():
    calls: list[Any] = []

    def xform(obj: Any) -> Any:
        calls.append(obj)
        if isinstance(obj, DFSU):
            raise AssertionError("tombstones must not be transformed")
        obj["xfrm"] = obj.get("xfrm", 0) + 1
        return obj

    f = DeltaFIFO(transformer=xform)
    f.add(o("foo", 10))
    f.add(o("bar", 11))
    f.update(o("foo", 12))
    f.delete(o("foo", 15))
    f.replace([], "")
    f.add(o("bar", 16))
    f.replace([], "")
    assert f.list_keys() == ["foo", "bar"]

    foo = pop(f).newest()
    assert foo.type is DELETED
    assert foo.object["val"] == 15 and foo.object["xfrm"] == 1
    bar = pop(f).newest()
    assert bar.type is DELETED and isinstance(bar.object, DFSU)
    assert bar.object.key == "bar"
    assert bar.object.obj["val"] == 16 and bar.object.obj["xfrm"] == 1
    assert len(calls) == 5


def test_d038_transformer_runs_on_replace_items_but_not_on_resync():
    seen: list[Any] = []

    def xform(obj: Any) -> Any:
        seen.append(obj["val"])
        return {**obj, "slim": True}

    f = DeltaFIFO(known_objects=Known(o("k", 1)), transformer=xform)
    f.replace([o("a", 2)], "0")  # emitted as Sync, still transformed
    f.resync()  # k is known-only: its tombstone from replace is queued, so no Sync
    assert seen == [2]
    assert f.get_by_key("a") == [Delta(SYNC, {**o("a", 2), "slim": True})]

    f = DeltaFIFO(known_objects=Known(o("k", 1)), transformer=xform)
    f.resync()
    assert seen == [2]  # known objects were transformed on their way in
    assert f.get_by_key("k") == [Delta(SYNC, o("k", 1))]


def test_d038_transformer_errors_queue_nothing():
    def xform(obj: Any) -> Any:
        if obj["val"] == "bad":
            raise ValueError("cannot slim")
        return obj

    f = DeltaFIFO(transformer=xform)
    for write in (f.add, f.update):
        with pytest.raises(ValueError, match="cannot slim"):
            write(o("a", "bad"))
    assert f.is_empty()
    f.add(o("a", 1))
    with pytest.raises(ValueError, match="cannot slim"):
        f.delete(o("a", "bad"))
    with pytest.raises(KubenbError, match=r"^couldn't enqueue object: cannot slim$") as err:
        f.replace([o("b", 2), o("c", "bad")], "0")
    assert isinstance(err.value.__cause__, ValueError)
    assert f.get_by_key("a") == [Delta(ADDED, o("a", 1))]
    assert f.get_by_key("c") is None


def test_d039_store_view_methods():
    f = DeltaFIFO()
    for name in ["c", "a", "b"]:
        f.add(o(name, 1))
    f.update(o("a", 2))
    assert f.list_keys() == ["c", "a", "b"]  # queue order
    assert f.list() == [o("c", 1), o("a", 2), o("b", 1)]
    got = f.get(o("a"))
    assert got == [Delta(ADDED, o("a", 1)), Delta(UPDATED, o("a", 2))]
    got.append(Delta(DELETED, o("a", 3)))  # a copy: the queue is unaffected
    got2 = f.get_by_key("a")
    assert len(got2) == 2 and got2 is not got
    assert type(got2) is Deltas
    assert f.get_by_key("missing") is None
    assert len(f) == 3 and not f.is_empty()
    assert bool(DeltaFIFO())  # an empty queue is still truthy
    assert "keys=3" in repr(f)


def test_d039_process_runs_under_the_queue_lock():
    f = DeltaFIFO()
    f.add(o("a", 1))
    entered, release = threading.Event(), threading.Event()
    added = threading.Event()

    def slow(deltas: Deltas, initial: bool) -> None:
        entered.set()
        assert release.wait(2)

    def producer() -> None:
        f.add(o("b", 2))
        added.set()

    popper = threading.Thread(target=f.pop, args=(slow,))
    popper.start()
    assert entered.wait(2)
    p = threading.Thread(target=producer)
    p.start()
    assert not added.wait(0.1), "add must wait while process holds the lock"
    release.set()
    assert added.wait(2)
    popper.join(2)
    p.join(2)
    assert f.list_keys() == ["b"]


def test_pop_blocks_until_an_item_arrives():
    f = DeltaFIFO()
    out: list[Deltas] = []
    t = threading.Thread(target=lambda: out.append(f.pop(noop)))
    t.start()
    wait_until(lambda: f._waiters == 1, what="the popper to block in pop")
    assert not out
    f.add(o("a", 1))
    t.join(2)
    assert out == [[Delta(ADDED, o("a", 1))]]


@pytest.mark.stress
def test_stress_many_producers_one_popper_loses_nothing_and_keeps_key_order():
    f = DeltaFIFO()
    producers, keys_per, writes_per_key = 6, 40, 25
    total = producers * keys_per * writes_per_key
    barrier = threading.Barrier(producers)

    def produce(p: int) -> None:
        rng = random.Random(p)
        seq = {k: 0 for k in range(keys_per)}
        barrier.wait()
        for _ in range(keys_per * writes_per_key):
            k = rng.choice([k for k, n in seq.items() if n < writes_per_key])
            seq[k] += 1
            write = f.add if seq[k] == 1 else f.update
            write(o(f"p{p}-k{k}", seq[k]))

    threads = [threading.Thread(target=produce, args=(p,)) for p in range(producers)]
    for t in threads:
        t.start()
    got: dict[str, list[int]] = {}
    count = 0
    while count < total:
        deltas = f.pop(noop)
        key = deltas[0].object["metadata"]["name"]
        if count % 50 == 0:
            keys = f.list_keys()
            assert len(keys) == len(set(keys))
        got.setdefault(key, []).extend(d.object["val"] for d in deltas)
        count += len(deltas)
    for t in threads:
        t.join(5)
    assert count == total and f.is_empty()
    assert len(got) == producers * keys_per
    for key, vals in got.items():
        assert vals == list(range(1, writes_per_key + 1)), key


@pytest.mark.stress
def test_stress_several_poppers_and_close_leave_no_thread_behind():
    f = DeltaFIFO()
    popped: list[str] = []
    lock = threading.Lock()

    def popper() -> None:
        while True:
            try:
                d = f.pop(noop)
            except FIFOClosedError:
                return
            with lock:
                popped.append(d[0].object["metadata"]["name"])

    poppers = [threading.Thread(target=popper) for _ in range(4)]
    for t in poppers:
        t.start()
    for i in range(2000):
        f.add(o(f"k{i}", i))
    wait_until(lambda: not len(f), timeout=30, what="the poppers to drain the FIFO")
    f.close()
    for t in poppers:
        t.join(2)
    assert not any(t.is_alive() for t in poppers)
    assert sorted(popped) == sorted(f"k{i}" for i in range(2000))
