"""parallelize_until: spec item P132 (client-go parallelizer_test.go) and error handling."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.workqueue.parallelize import parallelize_until
from tests.helpers import wait_until


def _worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("parallelize-worker-")]


class _Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: Counter[int] = Counter()
        self.threads: set[str] = set()

    def __call__(self, piece: int) -> None:
        with self.lock:
            self.calls[piece] += 1
            self.threads.add(threading.current_thread().name)


@pytest.mark.parametrize(
    ("pieces", "workers", "chunk"),
    [(1000, 10, 1), (1000, 10, 10), (1000, 10, 100), (999, 10, 13)],
)
def test_p132_each_piece_exactly_once(pieces, workers, chunk):
    record = _Recorder()
    parallelize_until(workers, pieces, record, chunk_size=chunk)
    assert record.calls == Counter(range(pieces))
    assert _worker_threads() == []


def test_p132_zero_pieces_returns_at_once():
    before = threading.active_count()
    parallelize_until(10, 0, lambda p: pytest.fail("no piece should run"))
    assert threading.active_count() == before


@pytest.mark.parametrize("chunk", [0, -5])
def test_p132_chunk_below_one_is_one(chunk):
    record = _Recorder()
    parallelize_until(3, 10, record, chunk_size=chunk)
    assert record.calls == Counter(range(10))


def test_p132_workers_capped_at_chunk_count(monkeypatch):
    # 10 pieces in chunks of 4 are 3 chunks: 3 threads at most, whatever `workers` says.
    started: list[str] = []
    real_start = threading.Thread.start

    def counting_start(self: threading.Thread) -> None:
        if self.name.startswith("parallelize-worker-"):
            started.append(self.name)
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", counting_start)
    record = _Recorder()
    parallelize_until(50, 10, record, chunk_size=4)
    monkeypatch.undo()
    assert len(started) == 3
    assert record.calls == Counter(range(10))


def test_p132_runs_on_several_threads_and_blocks_until_done():
    # Two pieces that each wait for the other can only finish if they run concurrently.
    barrier = threading.Barrier(2, timeout=5)
    finished: list[int] = []

    def piece(p: int) -> None:
        barrier.wait()
        finished.append(p)

    parallelize_until(2, 2, piece)
    assert sorted(finished) == [0, 1]  # both done when the call returned


def test_p132_stop_stops_each_worker_before_its_next_piece():
    stop = threading.Event()
    record = _Recorder()

    def piece(p: int) -> None:
        record(p)
        if p == 4:
            stop.set()

    parallelize_until(1, 100, piece, stop=stop)
    assert record.calls == Counter(range(5))


def test_p132_stop_already_set_runs_nothing():
    stop = threading.Event()
    stop.set()
    record = _Recorder()
    parallelize_until(4, 100, record, stop=stop)
    assert record.calls == Counter()
    assert _worker_threads() == []


def test_p132_stop_with_many_workers_runs_each_piece_at_most_once():
    stop = threading.Event()
    record = _Recorder()

    def piece(p: int) -> None:
        record(p)
        if p == 50:
            stop.set()

    parallelize_until(8, 10_000, piece, chunk_size=7, stop=stop)
    assert 50 in record.calls
    assert max(record.calls.values()) == 1
    # Each of the 8 workers can at most finish the piece it was in when stop was set.
    assert len(record.calls) < 10_000


@settings(max_examples=40, deadline=None)
@given(
    pieces=st.integers(min_value=0, max_value=300),
    workers=st.integers(min_value=1, max_value=12),
    chunk=st.integers(min_value=-2, max_value=40),
)
def test_p132_property_covers_range_exactly_once(pieces, workers, chunk):
    record = _Recorder()
    parallelize_until(workers, pieces, record, chunk_size=chunk)
    assert record.calls == Counter(range(pieces))
    assert len(record.threads) <= min(workers, max(1, -(-pieces // max(1, chunk))))
    assert _worker_threads() == []


# --- errors: the first exception is re-raised after every worker has stopped --------------


def test_exception_is_reraised_after_workers_stop():
    ran: list[int] = []
    lock = threading.Lock()

    def piece(p: int) -> None:
        with lock:
            ran.append(p)
        if p == 3:
            raise RuntimeError("piece 3 broke")

    with pytest.raises(RuntimeError, match="piece 3 broke") as info:
        parallelize_until(1, 100, piece)
    # One worker: it stopped right after the failing piece; the rest were skipped.
    assert ran == [0, 1, 2, 3]
    assert _worker_threads() == []
    # The traceback still leads to the piece that raised.
    assert any(entry.name == "piece" for entry in info.traceback)


def test_exception_skips_remaining_pieces_with_many_workers():
    calls = _Recorder()

    def piece(p: int) -> None:
        calls(p)
        if p == 0:
            raise ValueError("first piece fails")

    with pytest.raises(ValueError, match="first piece fails"):
        parallelize_until(4, 100_000, piece, chunk_size=10)
    assert len(calls.calls) < 100_000
    assert max(calls.calls.values()) == 1
    assert _worker_threads() == []


def test_concurrent_exceptions_raise_one_and_note_the_rest():
    barrier = threading.Barrier(3, timeout=5)

    def piece(p: int) -> None:
        barrier.wait()  # all three pieces are running when they raise
        raise KeyError(f"piece {p}")

    with pytest.raises(KeyError) as info:
        parallelize_until(3, 3, piece)
    assert info.value.args[0] in {"piece 0", "piece 1", "piece 2"}
    if hasattr(info.value, "add_note"):  # Python 3.11+
        assert "2 other piece(s) also raised" in info.value.__notes__[0]
    assert _worker_threads() == []


def test_no_exception_leaves_no_threads():
    parallelize_until(16, 1000, lambda p: None, chunk_size=3)
    wait_until(lambda: _worker_threads() == [], what="parallelize workers to exit")
    assert _worker_threads() == []


@pytest.mark.parametrize(
    ("kwargs", "error", "argument"),
    [
        ({"workers": 0, "pieces": 1}, ValueError, "workers"),
        ({"workers": -1, "pieces": 1}, ValueError, "workers"),
        ({"workers": 1, "pieces": -1}, ValueError, "pieces"),
        ({"workers": 1.5, "pieces": 1}, TypeError, "workers"),
        ({"workers": 1, "pieces": "3"}, TypeError, "pieces"),
        ({"workers": 1, "pieces": 1, "chunk_size": 2.0}, TypeError, "chunk_size"),
    ],
)
def test_arguments_are_validated(kwargs, error, argument):
    with pytest.raises(error, match=argument):
        parallelize_until(do_work_piece=lambda p: None, **kwargs)


def test_do_work_piece_must_be_callable():
    with pytest.raises(TypeError, match="do_work_piece"):
        parallelize_until(1, 1, None)  # type: ignore[arg-type]


def test_thread_start_failure_stops_started_workers(monkeypatch):
    # If the machine refuses a thread, the ones already started are stopped and joined.
    real_start = threading.Thread.start
    calls = {"n": 0}

    def flaky_start(self: threading.Thread) -> None:
        if self.name.startswith("parallelize-worker-"):
            calls["n"] += 1
            if calls["n"] == 2:
                raise RuntimeError("can't start new thread")
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", flaky_start)
    record = _Recorder()
    with pytest.raises(RuntimeError, match="can't start new thread"):
        parallelize_until(3, 100_000, record)
    monkeypatch.undo()
    assert max(record.calls.values(), default=1) == 1
    assert _worker_threads() == []
