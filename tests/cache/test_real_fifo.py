"""RealFIFO against client-go release-1.33 (spec items 46-48, plus the rest of
`the_real_fifo_test.go`) and a property test against a literal reference model.

Test objects are dicts `o(name, val)` keyed by the default meta_namespace_key_func;
`Known` is client-go's literalListerGetter.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubenb.cache.delta_fifo import Delta, Deltas, DeltaType
from kubenb.cache.keys import DeletedFinalStateUnknown, meta_namespace_key_func
from kubenb.cache.real_fifo import RealFIFO
from kubenb.errors import FIFOClosedError, KeyFuncError, KubenbError, ZeroLengthDeltasError
from tests.cache.fixtures import BrokenKnown, Known, KnownStore, o
from tests.helpers import pop_within, wait_until

ADDED, UPDATED, DELETED = DeltaType.ADDED, DeltaType.UPDATED, DeltaType.DELETED
REPLACED, SYNC = DeltaType.REPLACED, DeltaType.SYNC
DFSU = DeletedFinalStateUnknown





def pop(f: RealFIFO) -> Deltas:
    assert len(f) > 0, "pop on an empty queue would block"
    return f.pop(lambda d, initial: None)


def pop2(f: RealFIFO) -> tuple[Deltas, bool]:
    seen: list[bool] = []
    deltas = f.pop(lambda d, initial: seen.append(initial))
    return deltas, seen[0]


def val(deltas: Deltas) -> Any:
    return deltas.newest().object["val"]


def known3() -> Known:
    return Known(o("foo", 5), o("bar", 6), o("baz", 7))


# ------------------------------------------------------------------------ F.46


def test_f046_no_coalescing_every_write_is_its_own_entry():
    f = RealFIFO(known_objects=Known())
    f.add(o("foo", 10))
    f.update(o("foo", 12))
    f.delete(o("foo", 15))
    assert f.entries() == [
        Delta(ADDED, o("foo", 10)),
        Delta(UPDATED, o("foo", 12)),
        Delta(DELETED, o("foo", 15)),
    ]
    got = [pop(f) for _ in range(3)]
    assert [len(d) for d in got] == [1, 1, 1]
    assert all(type(d) is Deltas for d in got)
    assert [(d[0].type, val(d)) for d in got] == [(ADDED, 10), (UPDATED, 12), (DELETED, 15)]
    assert pop_within(f, 0.05) is None  # nothing more; pop_within closes the queue
    assert len(f) == 0


def test_f046_no_line_jumping_every_event_in_arrival_order():
    f = RealFIFO(known_objects=Known())
    for name, v in [("foo", 10), ("bar", 1), ("foo", 11), ("foo", 13), ("zab", 30)]:
        f.add(o(name, v))
    assert val(pop(f)) == 10
    f.add(o("foo", 14))  # foo does not jump back in line
    assert [val(pop(f)) for _ in range(5)] == [1, 11, 13, 30, 14]


def test_f046_per_producer_order_holds_with_concurrent_producers():
    f = RealFIFO(known_objects=Known())
    amount = 500

    def produce(prefix: str) -> None:
        for i in range(amount):
            f.add(o(f"{prefix}{i}", (prefix, i)))

    threads = [threading.Thread(target=produce, args=(p,)) for p in "ab"]
    for t in threads:
        t.start()
    last = {"a": -1, "b": -1}
    for _ in range(amount * 2):
        prefix, i = f.pop(lambda d, initial: None)[0].object["val"]
        assert i > last[prefix]
        last[prefix] = i
    for t in threads:
        t.join()
    assert last == {"a": amount - 1, "b": amount - 1}


# ------------------------------------------------------------------------ F.47


def test_f047_delete_is_always_queued_even_for_unknown_keys():
    f = RealFIFO(known_objects=Known())
    f.add(o("foo", 10))
    f.update(o("bar", 15))
    f.add(o("qux", 17))
    f.delete(o("qux", 18))
    f.delete(o("baz", 20))  # never seen, not known: still queued
    assert [val(pop(f)) for _ in range(5)] == [10, 15, 17, 18, 20]
    assert len(f) == 0


def test_f047_delete_is_queued_without_any_known_objects():
    f = RealFIFO()
    f.delete(o("ghost", 1))
    assert pop(f) == [Delta(DELETED, o("ghost", 1))]


def test_f047_with_known_objects_everything_is_queued_in_order():
    f = RealFIFO(known_objects=known3())
    f.add(o("foo", 10))
    f.update(o("bar", 15))
    f.delete(o("baz", 20))
    assert [val(pop(f)) for _ in range(3)] == [10, 15, 20]
    assert len(f) == 0


def test_f047_add_then_delete_keeps_both_entries():
    f = RealFIFO(known_objects=Known())
    f.add(o("foo", 5))
    f.delete(o("foo", 6))
    assert [d.type for d in f.entries()] == [ADDED, DELETED]


# ------------------------------------------------------------------------ F.48


def test_f048_replace_queues_tombstones_first_then_replaced():
    f = RealFIFO(known_objects=known3())
    f.add(o("baz", 10))
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(4)] == [
        [Delta(ADDED, o("baz", 10))],
        [Delta(DELETED, DFSU("baz", o("baz", 10)))],
        [Delta(DELETED, DFSU("bar", o("bar", 6)))],
        [Delta(REPLACED, o("foo", 5))],
    ]
    assert len(f) == 0


def test_f048_replace_with_a_queued_delete_adds_no_second_tombstone():
    f = RealFIFO(known_objects=known3())
    f.delete(o("baz", 10))
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(3)] == [
        [Delta(DELETED, o("baz", 10))],
        [Delta(DELETED, DFSU("bar", o("bar", 6)))],
        [Delta(REPLACED, o("foo", 5))],
    ]


def test_f048_tombstone_carries_the_last_queued_object():
    f = RealFIFO(known_objects=known3())
    f.delete(o("bar", 6))
    f.add(o("bar", 100))
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(5)] == [
        [Delta(DELETED, o("bar", 6))],
        [Delta(ADDED, o("bar", 100))],
        [Delta(DELETED, DFSU("bar", o("bar", 100)))],
        [Delta(DELETED, DFSU("baz", o("baz", 7)))],
        [Delta(REPLACED, o("foo", 5))],
    ]


def test_f048_replace_twice_orders_across_all_keys():
    f = RealFIFO(known_objects=known3())
    f.replace([o("bar", 100), o("foo", 5)], "0")
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(5)] == [
        [Delta(DELETED, DFSU("baz", o("baz", 7)))],
        [Delta(REPLACED, o("bar", 100))],
        [Delta(REPLACED, o("foo", 5))],
        [Delta(DELETED, DFSU("bar", o("bar", 100)))],
        [Delta(REPLACED, o("foo", 5))],
    ]


def test_f048_replace_with_empty_known_objects():
    f = RealFIFO(known_objects=Known())
    f.add(o("baz", 10))
    f.replace([o("foo", 5)], "0")
    assert [pop(f) for _ in range(3)] == [
        [Delta(ADDED, o("baz", 10))],
        [Delta(DELETED, DFSU("baz", o("baz", 10)))],
        [Delta(REPLACED, o("foo", 5))],
    ]


def test_f048_pending_delete_does_not_suppress_a_later_replaced():
    # TestRealFIFO_replaceWithDeleteDeltaIn (issue #83810)
    f = RealFIFO(known_objects=Known(o("foo", 1)))
    f.delete(o("foo", 1))
    f.replace([o("foo", 2)], "")
    assert f.entries() == [Delta(DELETED, o("foo", 1)), Delta(REPLACED, o("foo", 2))]


@pytest.mark.parametrize(
    ("ops", "expected"),
    [
        (
            lambda f, x, x2: (f.add(x), f.replace([], "0")),
            lambda x, x2: [Delta(ADDED, x), Delta(DELETED, DFSU("foo", x))],
        ),
        (
            lambda f, x, x2: (f.add(x), f.delete(x), f.replace([], "0")),
            lambda x, x2: [Delta(ADDED, x), Delta(DELETED, x)],
        ),
        (
            lambda f, x, x2: (
                f.add(x), f.replace([x], "0"), f.replace([x], "0"), f.replace([], "0")
            ),
            lambda x, x2: [
                Delta(ADDED, x),
                Delta(REPLACED, x),
                Delta(REPLACED, x),
                Delta(DELETED, DFSU("foo", x)),
            ],
        ),
        (
            lambda f, x, x2: (f.add(x), f.replace([], "0"), f.replace([], "1")),
            lambda x, x2: [Delta(ADDED, x), Delta(DELETED, DFSU("foo", x))],
        ),
        (
            lambda f, x, x2: (f.add(x), f.delete(x), f.add(x2), f.replace([], "0")),
            lambda x, x2: [
                Delta(ADDED, x),
                Delta(DELETED, x),
                Delta(ADDED, x2),
                Delta(DELETED, DFSU("foo", x2)),
            ],
        ),
    ],
    ids=["added", "deleted", "synced-twice", "two-replaces", "added-deleted-added"],
)
def test_f048_replace_makes_deletions_for_objects_only_in_queue(ops, expected):
    x, x2 = o("foo", 2), o("foo", 3)
    f = RealFIFO(known_objects=Known())
    ops(f, x, x2)
    got = [d for _ in range(len(f)) for d in pop(f)]
    assert got == expected(x, x2)
    assert len(f) == 0


def test_f048_known_tombstone_has_no_object_when_lookup_fails_or_misses():
    class Missing(Known):
        def get_by_key(self, key: str) -> Any:
            return None

    for known in (BrokenKnown(o("a", 1)), Missing(o("a", 1))):
        f = RealFIFO(known_objects=known)
        f.replace([], "0")
        assert f.entries() == [Delta(DELETED, DFSU("a", None))]


def test_f048_initial_population_counts_every_queued_entry():
    f = RealFIFO(known_objects=Known())
    f.replace([o("a", 1), o("a", 2)], "0")
    assert not f.has_synced()
    pop(f)
    assert not f.has_synced()  # DeltaFIFO would be synced here: it merges the two
    pop(f)
    assert f.has_synced()


@pytest.mark.parametrize(
    ("actions", "synced"),
    [
        ([], False),
        ([lambda f: f.add(o("a", 1))], True),
        ([lambda f: f.replace([], "0")], True),
        ([lambda f: f.replace([o("a", 1), o("b", 2)], "0")], False),
        ([lambda f: f.replace([o("a", 1), o("b", 2)], "0"), pop], False),
        ([lambda f: f.replace([o("a", 1), o("b", 2)], "0"), pop, pop], True),
        ([lambda f: f.replace([o("a", 1), o("a", 2)], "0"), pop, pop], True),
        ([lambda f: f.delete(o("a", 1))], True),
        ([lambda f: f.update(o("a", 1)), lambda f: f.replace([o("b", 1)], "0")], True),
    ],
)
def test_f048_has_synced_truth_table(actions, synced):
    f = RealFIFO(known_objects=Known())
    for action in actions:
        action(f)
    assert f.has_synced() is synced


def test_f048_initial_list_tombstones_count_toward_sync_and_are_initial():
    f = RealFIFO(known_objects=known3())
    f.replace([o("foo", 5)], "0")
    expected = [
        [Delta(DELETED, DFSU("bar", o("bar", 6)))],
        [Delta(DELETED, DFSU("baz", o("baz", 7)))],
        [Delta(REPLACED, o("foo", 5))],
    ]
    for want in expected:
        assert not f.has_synced()
        got, initial = pop2(f)
        assert got == want
        assert initial is True
    assert f.has_synced()
    f.add(o("late", 1))
    assert pop2(f)[1] is False


def test_f048_replace_with_a_bad_object_queues_nothing():
    f = RealFIFO(known_objects=Known(o("k", 1)))
    f.add(o("a", 1))
    with pytest.raises(KeyFuncError):
        f.replace([o("b", 1), {"no": "metadata"}], "0")
    assert f.entries() == [Delta(ADDED, o("a", 1))]


# --------------------------------------------------------------- resync & misc


def test_resync_queues_sync_for_each_known_unqueued_key():
    f = RealFIFO(known_objects=Known(o("foo", 5)))
    f.resync()
    assert f.entries() == [Delta(SYNC, o("foo", 5))]


def test_resync_skips_keys_with_queued_events():
    f = RealFIFO(known_objects=Known(o("foo", 5)))
    f.update(o("foo", 6))
    f.resync()
    assert pop(f) == [Delta(UPDATED, o("foo", 6))]
    assert len(f) == 0

    f = RealFIFO(known_objects=Known(o("foo", 5)))
    f.delete(o("foo", 10))
    f.resync()
    assert [d.type for d in f.entries()] == [DELETED]


def test_resync_is_a_noop_without_known_objects_and_skips_failed_lookups():
    f = RealFIFO()
    f.resync()
    assert len(f) == 0
    f = RealFIFO(known_objects=BrokenKnown(o("a", 1)))
    f.resync()
    assert len(f) == 0


def test_transformer_runs_on_writes_and_replace_but_not_tombstones_or_resync():
    calls: list[Any] = []

    def xfrm(obj: Any) -> Any:
        assert not isinstance(obj, DFSU), "tombstones must not be transformed"
        calls.append(obj["val"])
        return {**obj, "xfrm": obj.get("xfrm", 0) + 1}

    known = Known()
    f = RealFIFO(known_objects=known, transformer=xfrm)
    f.add(o("foo", 10))
    f.add(o("bar", 11))
    f.update(o("foo", 12))
    f.delete(o("foo", 15))
    f.replace([], "")
    f.add(o("bar", 16))
    f.replace([], "")
    entries = f.entries()
    # TestRealFIFO_transformer: no compression, bar is deleted twice.
    assert [(d.type, f.key_of(d)) for d in entries] == [
        (ADDED, "foo"),
        (ADDED, "bar"),
        (UPDATED, "foo"),
        (DELETED, "foo"),
        (DELETED, "bar"),
        (ADDED, "bar"),
        (DELETED, "bar"),
    ]
    assert calls == [10, 11, 12, 15, 16]
    assert entries[4].object == DFSU("bar", {**o("bar", 11), "xfrm": 1})
    assert all(
        (d.object.obj if isinstance(d.object, DFSU) else d.object)["xfrm"] == 1 for d in entries
    )
    f.replace([o("baz", 20)], "")
    assert f.entries()[-1] == Delta(REPLACED, {**o("baz", 20), "xfrm": 1})
    calls.clear()
    known.objs["stored"] = {**o("stored", 1), "xfrm": 1}
    f.resync()
    assert calls == []
    assert f.entries()[-1] == Delta(SYNC, {**o("stored", 1), "xfrm": 1})


def test_transformer_error_propagates_from_replace_as_kubenb_error():
    def xfrm(obj: Any) -> Any:
        raise ValueError("nope")

    f = RealFIFO(known_objects=Known(), transformer=xfrm)
    with pytest.raises(KubenbError, match="couldn't enqueue object: nope"):
        f.replace([o("a", 1)], "0")
    with pytest.raises(ValueError, match="nope"):
        f.add(o("a", 1))


def test_key_of_understands_deltas_delta_and_tombstones():
    f = RealFIFO()
    assert f.key_of(o("A")) == "A"
    assert f.key_of(DFSU("B", None)) == "B"
    assert f.key_of(Deltas([Delta(ADDED, o("C"))])) == "C"
    assert f.key_of(Deltas([Delta(ADDED, DFSU("D", None))])) == "D"
    assert f.key_of(Delta(ADDED, o("E"))) == "E"
    with pytest.raises(KeyFuncError) as info:
        f.key_of(Deltas())
    assert isinstance(info.value.err, ZeroLengthDeltasError)
    with pytest.raises(KeyFuncError, match="couldn't create key"):
        f.add({"metadata": {}})
    assert len(f) == 0


def test_custom_key_function_is_used():
    f = RealFIFO(key_function=lambda obj: obj["id"])
    f.add({"id": "x1"})
    assert f.list_keys() == ["x1"]


def test_store_view_methods():
    f = RealFIFO(known_objects=Known())
    f.add(o("a", 1))
    f.add(o("b", 1))
    f.update(o("a", 2))
    assert f.list_keys() == ["a", "b"]
    assert f.list() == [o("a", 2), o("b", 1)]
    assert f.get(o("a")) == [Delta(ADDED, o("a", 1)), Delta(UPDATED, o("a", 2))]
    assert f.get_by_key("b") == [Delta(ADDED, o("b", 1))]
    assert f.get_by_key("zzz") is None
    assert len(f) == 3 and f.queue_depth() == 3 and not f.is_empty()
    assert bool(RealFIFO()) is True
    assert "events=3" in repr(f)


def test_pop_blocks_until_an_item_arrives_and_process_runs_under_the_lock():
    f = RealFIFO()
    got: list[Any] = []
    inside = threading.Event()
    release = threading.Event()

    def process(d: Deltas, initial: bool) -> None:
        got.append(d)
        inside.set()
        release.wait(5)

    t = threading.Thread(target=lambda: f.pop(process))
    t.start()
    f.add(o("a", 1))
    assert inside.wait(5)
    writer = threading.Thread(target=lambda: f.add(o("b", 1)))
    writer.start()
    writer.join(0.05)
    assert writer.is_alive()  # the write waits for process to finish
    release.set()
    t.join(5)
    writer.join(5)
    assert got == [[Delta(ADDED, o("a", 1))]]
    assert f.entries() == [Delta(ADDED, o("b", 1))]


def test_process_exception_propagates_and_consumes_the_item():
    f = RealFIFO()
    f.add(o("a", 1))

    def boom(d: Deltas, initial: bool) -> None:
        raise RuntimeError("handler failed")

    with pytest.raises(RuntimeError, match="handler failed"):
        f.pop(boom)
    assert len(f) == 0


def test_close_unblocks_ten_blocked_pops():
    f = RealFIFO(known_objects=Known(o("foo", 5)))
    errors: list[BaseException] = []

    def popper() -> None:
        try:
            f.pop(lambda d, i: None)
        except FIFOClosedError as err:
            errors.append(err)

    threads = [threading.Thread(target=popper) for _ in range(10)]
    for t in threads:
        t.start()
    wait_until(lambda: f._waiters == 10, what="10 blocked pops")
    f.close()
    for t in threads:
        t.join(2)
    assert len(errors) == 10 and f.is_closed()
    assert "manipulating with closed queue" in str(errors[0])


def test_closed_queue_still_hands_out_items_and_accepts_writes():
    f = RealFIFO()
    f.add(o("a", 1))
    f.close()
    f.add(o("b", 2))
    assert val(pop(f)) == 1 and val(pop(f)) == 2
    with pytest.raises(FIFOClosedError):
        f.pop(lambda d, i: None)


@pytest.mark.stress
def test_stress_producers_and_poppers_lose_nothing_and_keep_order():
    f = RealFIFO(known_objects=Known())
    producers, per = 4, 2000
    seen: dict[int, list[int]] = {p: [] for p in range(producers)}
    lock = threading.Lock()

    def produce(p: int) -> None:
        for i in range(per):
            f.add(o(f"p{p}-{i % 7}", (p, i)))

    def consume() -> None:
        while True:
            try:
                d = f.pop(lambda d, i: None)
            except FIFOClosedError:
                return
            p, i = d[0].object["val"]
            with lock:
                seen[p].append(i)

    consumer = threading.Thread(target=consume)
    consumer.start()
    threads = [threading.Thread(target=produce, args=(p,)) for p in range(producers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wait_until(lambda: f.is_empty(), what="the queue to drain")
    f.close()
    consumer.join(5)
    assert not consumer.is_alive()
    for p in range(producers):
        assert seen[p] == list(range(per))


# ------------------------------------------------------- property-based model



class ModelRealFIFO:
    """client-go 1.33 RealFIFO transcribed literally: a flat list of (type, obj)."""

    def __init__(self, known: KnownStore | None) -> None:
        self.items: list[tuple[str, Any]] = []
        self.populated = False
        self.count = 0
        self.known = known

    @staticmethod
    def key_of(obj: Any) -> str:
        return obj.key if isinstance(obj, DFSU) else meta_namespace_key_func(obj)

    def write(self, kind: str, obj: Any) -> None:
        self.populated = True
        self.items.append((kind, obj))

    def replace(self, objs: list[Any]) -> None:
        new_keys = {self.key_of(x) for x in objs}
        last: dict[str, tuple[str, Any]] = {}
        order: list[str] = []
        for kind, obj in self.items:
            k = self.key_of(obj)
            if k not in last:
                order.append(k)
            last[k] = (kind, obj)
        for k in order:
            if k in new_keys or last[k][0] == "Deleted":
                continue
            self.items.append(("Deleted", DFSU(k, last[k][1])))
        if self.known is not None:
            for k in self.known.list_keys():
                if k in new_keys or k in last:
                    continue
                self.items.append(("Deleted", DFSU(k, self.known.get_by_key(k))))
        for x in objs:
            self.items.append(("Replaced", x))
        if not self.populated:
            self.populated = True
            self.count = len(self.items)

    def resync(self) -> None:
        if self.known is None:
            return
        queued = {self.key_of(obj) for _, obj in self.items}
        for k in self.known.list_keys():
            if k not in queued:
                self.items.append(("Sync", self.known.get_by_key(k)))

    def has_synced(self) -> bool:
        return self.populated and self.count == 0

    def pop(self) -> tuple[tuple[str, Any], bool]:
        initial = not self.has_synced()
        item = self.items.pop(0)
        if self.count > 0:
            self.count -= 1
        return item, initial


NAMES = ["a", "b", "c", "ns1/d", "ns2/d"]


def mk(name: str, v: int) -> dict[str, Any]:
    if "/" in name:
        ns, n = name.split("/")
        return {"metadata": {"name": n, "namespace": ns}, "val": v}
    return {"metadata": {"name": name}, "val": v}


name_st = st.sampled_from(NAMES)
op_st = st.one_of(
    st.tuples(st.sampled_from(["add", "update", "delete"]), name_st),
    st.tuples(st.just("replace"), st.lists(name_st, max_size=4)),
    st.tuples(st.sampled_from(["resync", "pop", "pop"])),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(op_st, max_size=40), with_known=st.booleans())
def test_f046_f048_random_ops_match_reference_model(ops, with_known):
    known = KnownStore() if with_known else None
    real = RealFIFO(known_objects=known)
    model = ModelRealFIFO(known)
    counter = itertools.count(1)
    for op in ops:
        kind = op[0]
        if kind in ("add", "update", "delete"):
            obj = mk(op[1], next(counter))
            getattr(real, kind)(obj)
            model.write({"add": "Added", "update": "Updated", "delete": "Deleted"}[kind], obj)
        elif kind == "replace":
            objs = [mk(n, next(counter)) for n in op[1]]
            real.replace(objs, "1")
            model.replace(objs)
        elif kind == "resync":
            real.resync()
            model.resync()
        elif model.items:
            got, initial = pop2(real)
            want, want_initial = model.pop()
            assert [(d.type.value, d.object) for d in got] == [want]
            assert initial is want_initial
            if known is not None:
                known.apply(got)
        assert [(d.type.value, d.object) for d in real.entries()] == model.items
        assert real.has_synced() is model.has_synced()
        assert real.list_keys() == list(dict.fromkeys(model.key_of(x) for _, x in model.items))
