"""FIFO against client-go release-1.32 (spec items 40-45, and 36 for FIFO)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from kubenb.cache.fifo import FIFO
from kubenb.errors import FIFOClosedError, KeyFuncError, RequeueError
from tests.cache.fixtures import o
from tests.helpers import pop_within, wait_until


def noop(obj: Any, initial: bool) -> None:
    pass


def pop(f: FIFO) -> Any:
    assert len(f) > 0, "pop on an empty queue would block"
    return f.pop(noop)


def pop_val(f: FIFO) -> Any:
    return pop(f)["val"]


def test_e040_writes_coalesce_to_the_latest_object():
    f = FIFO()
    f.add(o("foo", 10))
    f.update(o("foo", 15))
    assert f.list() == [o("foo", 15)]
    assert f.list_keys() == ["foo"]
    assert f.pop(noop) == o("foo", 15)
    assert pop_within(f, 0.05) is None
    assert f.get(o("foo")) is None


def test_e041_queue_position_is_kept_and_pop_returns_latest():
    f = FIFO()
    for name, v in [("foo", 10), ("bar", 1), ("foo", 11), ("foo", 13), ("zab", 30)]:
        f.add(o(name, v))
    assert pop_val(f) == 13
    f.add(o("foo", 14))
    assert [pop_val(f) for _ in range(3)] == [1, 30, 14]
    assert len(f) == 0


def test_e042_replace_drops_without_notification():
    f = FIFO()
    f.add(o("foo", 10))
    f.add(o("gone", 1))
    f.replace([o("foo", 15)], "0")
    assert f.pop(noop) == o("foo", 15)
    assert pop_within(f, 0.05) is None


def test_e042_replace_keeps_last_of_duplicates_and_fails_before_changing_anything():
    f = FIFO()
    f.add(o("keep", 1))
    with pytest.raises(KeyFuncError):
        f.replace([o("a", 1), {"metadata": {}}], "0")
    assert f.list_keys() == ["keep"]
    f.replace([o("a", 1), o("b", 2), o("a", 3)], "1")
    assert sorted(f.list_keys()) == ["a", "b"]
    assert f.get_by_key("a") == o("a", 3)


def test_e043_delete_leaves_the_key_queued_and_pop_skips_it():
    f = FIFO()
    f.add(o("a", 1))
    f.add(o("b", 2))
    f.delete(o("a"))
    assert f.get_by_key("a") is None and f.list_keys() == ["b"] and len(f) == 1
    assert f.pop(noop) == o("b", 2)  # "a" was skipped
    assert pop_within(f, 0.05) is None


def test_e043_readd_after_delete_pops_at_the_old_place_and_skips_the_duplicate():
    f = FIFO()
    f.add(o("a", 1))
    f.add(o("b", 2))
    f.delete(o("a"))
    f.add(o("a", 3))  # "a" is now in the pop order twice
    assert [f.pop(noop)["val"] for _ in range(2)] == [3, 2]
    assert pop_within(f, 0.05) is None  # the second "a" is skipped


def test_e043_resync_requeues_stored_keys_missing_from_the_order():
    f = FIFO()
    f.add(o("a", 1))
    f.add(o("b", 2))
    f.resync()  # normally a no-op
    assert list(f._queue) == ["a", "b"]
    f._queue.clear()  # no public operation loses a stored key; simulate it
    f.resync()
    assert [pop_val(f) for _ in range(2)] == [1, 2]
    assert pop_within(f, 0.05) is None


def test_e044_has_synced_truth_table():
    assert not FIFO().has_synced()
    f = FIFO()
    f.add(o("a", 1))
    assert f.has_synced()
    f = FIFO()
    f.replace([], "0")
    assert f.has_synced()
    f = FIFO()
    f.replace([o("a", 1), o("b", 2)], "0")
    assert not f.has_synced()
    pop(f)
    assert not f.has_synced()
    pop(f)
    assert f.has_synced()
    f = FIFO()
    f.replace([o("a", 1), o("a", 2)], "0")  # distinct keys: 1
    pop(f)
    assert f.has_synced()
    f = FIFO()
    f.delete(o("a"))
    assert f.has_synced()


def test_e044_pop_skipping_a_deleted_key_still_decrements_the_count():
    f = FIFO()
    f.replace([o("a", 1), o("b", 2), o("c", 3)], "0")
    f.delete(o("a"))
    seen: list[bool] = []
    assert f.pop(lambda obj, initial: seen.append(initial)) == o("b", 2)  # skipped "a"
    assert not f.has_synced()
    f.pop(lambda obj, initial: seen.append(initial))
    assert seen == [True, True]
    assert f.has_synced()


def test_e045_add_if_not_present_keeps_existing_objects():
    f = FIFO()
    f.add(o("a", 1))
    f.add(o("b", 2))
    f.add_if_not_present(o("b", 3))
    f.add_if_not_present(o("c", 4))
    assert len(f) == 3
    assert [pop_val(f) for _ in range(3)] == [1, 2, 4]
    f = FIFO()
    f.add_if_not_present(o("x", 1))
    assert f.has_synced()


def test_e045_close_unblocks_waiting_pops():
    f = FIFO()
    errors: list[BaseException] = []
    lock = threading.Lock()

    def popper() -> None:
        try:
            f.pop(noop)
        except FIFOClosedError as err:
            with lock:
                errors.append(err)

    threads = [threading.Thread(target=popper) for _ in range(10)]
    for t in threads:
        t.start()
    wait_until(lambda: f._waiters == 10, what="the poppers to block in pop")
    f.close()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads), "close() did not wake every popper"
    assert len(errors) == 10
    assert all(str(e) == "DeltaFIFO: manipulating with closed queue" for e in errors)
    assert f.is_closed()


def test_e045_closed_queue_still_hands_out_items():
    f = FIFO()
    f.add(o("a", 1))
    f.close()
    f.add(o("b", 2))
    assert [pop_val(f) for _ in range(2)] == [1, 2]
    with pytest.raises(FIFOClosedError):
        f.pop(noop)


def test_d036_fifo_requeue_on_pop():
    f = FIFO()
    f.add(o("foo", 10))

    def requeue(err: BaseException | None):
        def process(obj: Any, initial: bool) -> None:
            assert obj["metadata"]["name"] == "foo"
            raise RequeueError(err)

        return process

    assert f.pop(requeue(None)) == o("foo", 10)
    assert f.get_by_key("foo") is not None
    with pytest.raises(ValueError, match=r"^test error$"):
        f.pop(requeue(ValueError("test error")))
    assert f.get_by_key("foo") is not None
    f.pop(noop)
    assert f.get_by_key("foo") is None


def test_fifo_requeue_never_overwrites_a_newer_write_and_other_errors_consume():
    f = FIFO()
    f.add(o("a", 1))

    def write_then_requeue(obj: Any, initial: bool) -> None:
        f.update(o("a", 2))
        raise RequeueError()

    f.pop(write_then_requeue)
    assert f.get_by_key("a") == o("a", 2)

    def boom(obj: Any, initial: bool) -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        f.pop(boom)
    assert len(f) == 0


def test_fifo_bad_input_and_custom_key_function():
    f = FIFO()
    with pytest.raises(KeyFuncError, match="object with no name"):
        f.add({"metadata": {}, "val": "nameless"})
    g = FIFO(key_function=lambda obj: obj["id"])
    g.add({"id": "x", "v": 1})
    assert g.get({"id": "x"}) == {"id": "x", "v": 1}
    with pytest.raises(KeyFuncError) as err:
        g.delete({"v": 1})
    assert isinstance(err.value.err, KeyError)
    assert bool(FIFO())  # an empty queue is still truthy
    assert "items=1" in repr(g)


def test_fifo_concurrent_producers_keep_per_producer_order():
    f = FIFO()
    amount = 300

    def produce(prefix: str) -> None:
        for i in range(amount):
            f.add(o(f"{prefix}{i}", (prefix, i + 1)))

    threads = [threading.Thread(target=produce, args=(p,)) for p in "ab"]
    for t in threads:
        t.start()
    last = {"a": 0, "b": 0}
    for _ in range(amount * 2):
        prefix, v = f.pop(noop)["val"]
        assert v > last[prefix]
        last[prefix] = v
    for t in threads:
        t.join()
    assert last == {"a": amount, "b": amount}
