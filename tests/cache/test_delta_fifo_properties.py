"""Property tests: random operation sequences against a plain reference model of
client-go 1.32's DeltaFIFO (and FIFO), written from delta_fifo.go without any of the
real queue's shortcuts (no deque, no inlined key function, no in-place dedup)."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubenb.cache.delta_fifo import Delta, DeltaFIFO, Deltas, DeltaType
from kubenb.cache.fifo import FIFO
from kubenb.cache.keys import DeletedFinalStateUnknown, meta_namespace_key_func
from kubenb.errors import KeyFuncError, RequeueError
from tests.cache.fixtures import KnownStore

DFSU = DeletedFinalStateUnknown
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = ["a", "b", "c", "ns1/d", "ns2/d"]


def mk(name: str, val: int) -> dict[str, Any]:
    if "/" in name:
        ns, n = name.split("/")
        return {"metadata": {"name": n, "namespace": ns}, "val": val}
    return {"metadata": {"name": name}, "val": val}



class ModelDeltaFIFO:
    """client-go 1.32 DeltaFIFO, transcribed as literally as Python allows."""

    def __init__(self, known: KnownStore | None, emit: bool) -> None:
        self.items: dict[str, list[tuple[str, Any]]] = {}
        self.queue: list[str] = []
        self.populated = False
        self.count = 0
        self.known = known
        self.emit = emit

    @staticmethod
    def key_of(obj: Any) -> str:
        return obj.key if isinstance(obj, DFSU) else meta_namespace_key_func(obj)

    def queue_action(self, kind: str, obj: Any) -> None:
        key = self.key_of(obj)
        new = [*self.items.get(key, []), (kind, obj)]
        if len(new) >= 2 and new[-1][0] == "Deleted" and new[-2][0] == "Deleted":
            keep = new[-1] if isinstance(new[-2][1], DFSU) else new[-2]
            new = [*new[:-2], keep]
        if key not in self.items:
            self.queue.append(key)
        self.items[key] = new

    def add(self, obj: Any) -> None:
        self.populated = True
        self.queue_action("Added", obj)

    def update(self, obj: Any) -> None:
        self.populated = True
        self.queue_action("Updated", obj)

    def delete(self, obj: Any) -> None:
        key = self.key_of(obj)
        self.populated = True
        if self.known is None:
            if key not in self.items:
                return
        elif self.known.get_by_key(key) is None and key not in self.items:
            return
        self.queue_action("Deleted", obj)

    def replace(self, objs: list[Any]) -> None:
        action = "Replaced" if self.emit else "Sync"
        keys = set()
        for obj in objs:
            keys.add(self.key_of(obj))
            self.queue_action(action, obj)
        deletions = 0
        for key in list(self.items):
            if key in keys:
                continue
            last = self.items[key][-1][1]
            if isinstance(last, DFSU):
                last = last.obj
            deletions += 1
            self.queue_action("Deleted", DFSU(key, last))
        if self.known is not None:
            for key in self.known.list_keys():
                if key in keys or self.items.get(key):
                    continue
                deletions += 1
                self.queue_action("Deleted", DFSU(key, self.known.get_by_key(key)))
        if not self.populated:
            self.populated = True
            self.count = len(keys) + deletions

    def resync(self) -> None:
        if self.known is None:
            return
        for key in self.known.list_keys():
            obj = self.known.get_by_key(key)
            if self.items.get(self.key_of(obj)):
                continue
            self.queue_action("Sync", obj)

    def has_synced(self) -> bool:
        return self.populated and self.count == 0

    def pop(self, requeue: bool = False) -> tuple[list[tuple[str, Any]], bool]:
        initial = not self.has_synced()
        key = self.queue.pop(0)
        if self.count > 0:
            self.count -= 1
        deltas = self.items.pop(key)
        if requeue:
            self.populated = True
            if key not in self.items:
                self.queue.append(key)
                self.items[key] = deltas
        return deltas, initial


def as_pairs(deltas: list[Delta]) -> list[tuple[str, Any]]:
    return [(d.type.value, d.object) for d in deltas]


name_st = st.sampled_from(NAMES)
op_st = st.one_of(
    st.tuples(st.sampled_from(["add", "update", "delete"]), name_st),
    st.tuples(st.just("replace"), st.lists(name_st, max_size=4)),
    st.tuples(st.sampled_from(["resync", "pop", "pop_requeue"])),
)


@SETTINGS
@given(
    ops=st.lists(op_st, max_size=40),
    with_known=st.booleans(),
    emit=st.booleans(),
)
def test_random_ops_match_reference_model(ops, with_known, emit):
    known = KnownStore() if with_known else None
    real = DeltaFIFO(known_objects=known, emit_delta_type_replaced=emit)
    model = ModelDeltaFIFO(known, emit)
    counter = itertools.count(1)

    def requeue(deltas: Deltas, initial: bool) -> None:
        raise RequeueError()

    seen: list[bool] = []
    for op in ops:
        kind = op[0]
        if kind in ("add", "update", "delete"):
            obj = mk(op[1], next(counter))
            getattr(real, kind)(obj)
            getattr(model, kind)(obj)
        elif kind == "replace":
            objs = [mk(n, next(counter)) for n in op[1]]
            real.replace(objs, "1")
            model.replace(objs)
        elif kind == "resync":
            real.resync()
            model.resync()
        elif model.queue:
            seen.clear()
            if kind == "pop":
                got = real.pop(lambda d, initial: seen.append(initial))
            else:
                got = real.pop(lambda d, initial: (seen.append(initial), requeue(d, initial)))
            want, want_initial = model.pop(requeue=kind == "pop_requeue")
            assert as_pairs(got) == want
            assert seen == [want_initial]
            if known is not None and kind == "pop":
                known.apply(got)
        assert real.list_keys() == model.queue
        for key in model.queue:
            assert as_pairs(real.get_by_key(key)) == model.items[key]
        assert real.has_synced() == model.has_synced()
        assert len(real) == len(model.queue)


@SETTINGS
@given(ops=st.lists(op_st, max_size=40), with_known=st.booleans())
def test_invariants_hold_and_draining_preserves_per_key_order(ops, with_known):
    known = KnownStore() if with_known else None
    f = DeltaFIFO(known_objects=known)
    counter = itertools.count(1)
    popped: dict[str, list[int]] = {}
    written: dict[str, list[int]] = {}

    def record(deltas: list[Delta]) -> None:
        key = f.key_of(deltas)
        for d in deltas:
            obj = d.object.obj if isinstance(d.object, DFSU) else d.object
            if obj is not None and not isinstance(d.object, DFSU):
                popped.setdefault(key, []).append(obj["val"])
        if known is not None:
            known.apply(deltas)

    def check() -> None:
        keys = f.list_keys()
        assert len(keys) == len(set(keys))
        newest = [f.get_by_key(k)[-1].object for k in keys]
        assert f.list() == newest
        for k in keys:
            deltas = f.get_by_key(k)
            assert deltas, k
            for a, b in itertools.pairwise(deltas):
                assert not (a.type is DeltaType.DELETED and b.type is DeltaType.DELETED)

    for op in ops:
        kind = op[0]
        if kind in ("add", "update", "delete"):
            v = next(counter)
            getattr(f, kind)(mk(op[1], v))
            written.setdefault(meta_namespace_key_func(mk(op[1], 0)), []).append(v)
        elif kind == "replace":
            f.replace([mk(n, next(counter)) for n in op[1]], "1")
        elif kind == "resync":
            f.resync()
        elif len(f):
            record(f.pop(lambda d, initial: None))
        check()
    while len(f):
        record(f.pop(lambda d, initial: None))
    for key, vals in popped.items():
        # Values only grow, so popped deltas of a key keep the order they were written
        # in (resync may repeat an already-delivered object, never an older one).
        assert vals == sorted(vals), key
    for key, vals in written.items():
        # Every add/update is delivered exactly once (deletes may be dropped or merged).
        got = set(popped.get(key, []))
        for v in vals:
            assert v in got or _was_delete(ops, v), (key, v)


def _was_delete(ops: list[tuple[Any, ...]], v: int) -> bool:
    """Whether the v-th value (1-based over all written and replaced objects) came
    from a delete call."""
    n = 0
    for op in ops:
        if op[0] in ("add", "update", "delete"):
            n += 1
            if n == v:
                return op[0] == "delete"
        elif op[0] == "replace":
            n += len(op[1])
    return False


metadata_values = st.one_of(
    st.none(), st.just(""), st.text(max_size=3), st.integers(), st.lists(st.integers())
)


@SETTINGS
@given(
    obj=st.one_of(
        st.none(),
        st.integers(),
        st.text(max_size=3),
        st.dictionaries(
            st.sampled_from(["metadata", "val"]),
            st.one_of(
                metadata_values,
                st.dictionaries(st.sampled_from(["name", "namespace", "x"]), metadata_values),
            ),
        ),
    )
)
def test_inlined_default_key_matches_meta_namespace_key_func(obj):
    f = DeltaFIFO()
    try:
        expected = meta_namespace_key_func(obj)
    except KeyFuncError:
        expected = None
    if expected is None:
        try:
            f.add(obj)
        except KeyFuncError:
            return
        raise AssertionError(f"add accepted {obj!r}")
    f.add(obj)
    assert f.list_keys() == [expected]


class ModelFIFO:
    def __init__(self) -> None:
        self.items: dict[str, Any] = {}
        self.queue: list[str] = []
        self.populated = False
        self.count = 0

    def add(self, obj: Any) -> None:
        key = meta_namespace_key_func(obj)
        self.populated = True
        if key not in self.items:
            self.queue.append(key)
        self.items[key] = obj

    def delete(self, obj: Any) -> None:
        self.populated = True
        self.items.pop(meta_namespace_key_func(obj), None)

    def replace(self, objs: list[Any]) -> None:
        items = {meta_namespace_key_func(x): x for x in objs}
        if not self.populated:
            self.populated = True
            self.count = len(items)
        self.items = items
        self.queue = list(items)

    def pop(self) -> tuple[Any, bool] | None:
        while self.queue:
            initial = not (self.populated and self.count == 0)
            key = self.queue.pop(0)
            if self.count > 0:
                self.count -= 1
            if key in self.items:
                return self.items.pop(key), initial
        return None


fifo_op_st = st.one_of(
    st.tuples(st.sampled_from(["add", "update", "delete"]), name_st),
    st.tuples(st.just("replace"), st.lists(name_st, max_size=4)),
    st.tuples(st.just("pop")),
)


@SETTINGS
@given(ops=st.lists(fifo_op_st, max_size=40))
def test_fifo_random_ops_match_reference_model(ops):
    real, model = FIFO(), ModelFIFO()
    counter = itertools.count(1)
    seen: list[bool] = []
    for op in ops:
        kind = op[0]
        if kind in ("add", "update", "delete"):
            obj = mk(op[1], next(counter))
            getattr(real, kind)(obj)
            (model.delete if kind == "delete" else model.add)(obj)
        elif kind == "replace":
            objs = [mk(n, next(counter)) for n in op[1]]
            real.replace(objs, "1")
            model.replace(objs)
        elif model.items:
            seen.clear()
            got = real.pop(lambda obj, initial: seen.append(initial))
            want = model.pop()
            assert want is not None
            assert (got, seen[0]) == want
        assert real.list() == list(model.items.values())
        assert real.has_synced() == (model.populated and model.count == 0)
