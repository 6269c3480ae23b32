"""The recorder's compression stays within a CPU budget: chunks past it are stored
(gzip's uncompressed blocks), in members any gzip reader takes, and nothing is lost."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest

import kubenb
from kubenb.recording import Recorder, Recording, RecordingError, ResourceSpec
from kubenb.recording.format import iter_lines
from kubenb.recording.recorder import _CREDIT_SECONDS, _Sink
from tests.helpers import wait_until


class Ticks:
    """A clock that moves only when told (wall time) or by a fixed step per reading
    pair (CPU time: each compression costs `cost`)."""

    def __init__(self, cost: float = 0.0) -> None:
        self.now = 0.0
        self.cost = cost
        self._reads = 0

    def wall(self) -> float:
        return self.now

    def cpu(self) -> float:
        self._reads += 1  # read before and after each compression
        return (self._reads // 2) * self.cost


def _members(raw: bytes) -> list[bool]:
    """For each gzip member of `raw`: True when it was compressed, False when stored."""
    kinds = []
    while raw:
        inflater = zlib.decompressobj(31)
        plain = inflater.decompress(raw)
        used = len(raw) - len(inflater.unused_data)
        kinds.append(used < len(plain))  # a stored member is larger than its content
        raw = inflater.unused_data
    return kinds


def _line(i: int) -> bytes:
    return b'{"i":%d,"pad":"%s"}\n' % (i, b"x" * 2000)


def test_past_the_budget_chunks_are_stored_and_the_credit_comes_back_with_time(
        tmp_path: Path) -> None:
    # binary fractions, so that the credit is counted exactly
    ticks = Ticks(cost=1 / 64)  # each compression costs ~16 ms of CPU
    path = tmp_path / "r.jsonl.gz"
    sink = _Sink(path, 1, budget=1 / 16, wall_time=ticks.wall, cpu_time=ticks.cpu)
    for i in range(8):  # 1/16 s of credit to start with: four compressions
        sink.write(_line(i))
    ticks.now += 0.5  # 1/32 s of credit back: two more
    for i in range(8, 11):
        sink.write(_line(i))
    ticks.now += 100.0  # a long quiet spell saves up one second's worth, no more
    for i in range(11, 18):
        sink.write(_line(i))
    sink.close(_line(18))
    per_second = round(_CREDIT_SECONDS / 16 * 64)
    assert _members(path.read_bytes()) == (
        [True] * 4 + [False] * 4 + [True] * 2 + [False] + [True] * per_second
        + [False] * (7 - per_second) + [False])
    assert gzip.decompress(path.read_bytes()) == b"".join(_line(i) for i in range(19))
    assert list(iter_lines(path)) == [_line(i).rstrip(b"\n") for i in range(19)]
    assert sink.stored == sum(len(_line(i)) for i in (4, 5, 6, 7, 10, 18)) + sum(
        len(_line(i)) for i in range(11 + per_second, 18))
    assert sink.compressed + sink.stored == len(b"".join(_line(i) for i in range(19)))


def test_a_budget_of_one_cpu_compresses_everything(tmp_path: Path) -> None:
    ticks = Ticks(cost=0.5)
    path = tmp_path / "r.jsonl.gz"
    sink = _Sink(path, 6, budget=1.0, wall_time=ticks.wall, cpu_time=ticks.cpu)
    for i in range(4):
        sink.write(_line(i))
        ticks.now += 0.5  # compression never costs more than the time that passed
    sink.close()
    assert _members(path.read_bytes()) == [True] * 4
    assert sink.stored == 0


def test_a_recording_past_its_budget_reads_back_whole(tmp_path: Path) -> None:
    """A real recorder with next to no budget: the first chunk is compressed, the rest
    stored; every event is in the file, in order, and the trailer says complete."""
    path = tmp_path / "firehose.jsonl.gz"
    with kubenb.embedded(controllers=False) as cluster:
        recorder = cluster.record("configmaps", path, namespace="default",
                                  compress_budget=1e-9, flush_interval=0.01)
        cluster.informer("configmaps", namespace="default")
        configmaps = cluster.resource("configmaps", namespace="default")
        for i in range(60):
            configmaps.create({"metadata": {"name": f"c{i:02d}"}, "data": {"v": "x" * 3000}})
        wait_until(lambda: recorder.events == 60, what="60 events recorded")
        recorder.stop()
    assert recorder.stats()["stored_bytes"] > 0
    kinds = _members(path.read_bytes())
    assert kinds.count(False) >= 1 and len(kinds) >= 2
    recording = Recording.read(path)
    assert recording.complete and recording.stop_reason == "stopped"
    added = [e.object["metadata"]["name"] for e in recording.entries
             if e.op == "event" and e.type == "ADDED"]
    assert added == [f"c{i:02d}" for i in range(60)]


def test_a_budget_that_is_not_a_positive_share_says_so(tmp_path: Path) -> None:
    spec = ResourceSpec("v1", "configmaps")
    for budget in (0, -0.1):
        with pytest.raises(RecordingError, match=f"compress_budget={budget!r}: must be > 0"):
            Recorder(tmp_path / "x.gz", [spec], compress_budget=budget)
