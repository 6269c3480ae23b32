"""The recorder's buffers: records of any size, framed on the informer's thread into
reused 256 KiB buffers (or a segment of their own when larger), read back exactly and
in order, whatever the compression; the buffers are reused, not reallocated."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.recording import Recorder, Recording, ResourceSpec
from kubenb.recording.recorder import _BUFFER_BYTES, _FREE_BUFFERS

PODS = ResourceSpec("v1", "pods", "Pod", True, "default")

#: padding sizes around the buffer's edges, and one past it (a segment of its own)
pads = st.lists(st.sampled_from([0, 10, 3000, 60_000, _BUFFER_BYTES - 200,
                                 _BUFFER_BYTES + 5000]), min_size=1, max_size=12)


def _line(i: int, pad: int) -> bytes:
    obj = {"metadata": {"name": f"p{i}", "namespace": "default",
                        "resourceVersion": str(i + 1)}, "pad": "x" * pad}
    return json.dumps({"type": "MODIFIED", "object": obj}, separators=(",", ":")).encode()


@given(pads, st.lists(st.booleans(), min_size=12, max_size=12), st.sampled_from([0, 1]),
       st.sampled_from([1e-9, 10.0]))
@settings(max_examples=25, deadline=None)
def test_records_of_any_size_read_back_exactly_and_in_order(
        tmp_path_factory: object, sizes: list[int], raw: list[bool], level: int,
        budget: float) -> None:
    path = tmp_path_factory.mktemp("buffers") / "r.jsonl.gz"  # type: ignore[attr-defined]
    recorder = Recorder(path, [PODS], compresslevel=level, compress_budget=budget,
                        flush_interval=60).start()
    for i, pad in enumerate(sizes):
        line = _line(i, pad)
        if raw[i]:
            recorder.record_raw_event(0, line)  # the server's own line, framed
        else:
            event = json.loads(line)
            recorder.record_event(0, event["type"], event["object"])  # encoded
    recorder.stop()
    assert recorder.reason == "stopped" and recorder.events == len(sizes)
    recording = Recording.read(path)
    assert recording.complete
    events = [e for e in recording.entries if e.op == "event"]
    assert [(e.key, e.rv, len(e.object["pad"])) for e in events] == [
        (f"default/p{i}", str(i + 1), pad) for i, pad in enumerate(sizes)]
    if level == 0:
        lines = path.read_bytes().splitlines()
    else:
        lines = gzip.decompress(path.read_bytes()).splitlines()
    raw_lines = [line for line in lines if b'"op":"event"' in line]
    for i, line in enumerate(raw_lines):  # framed: time, resource, op, then the line
        assert line.startswith(b'{"t":') and b',"r":0,"op":"event","type":"MODIFIED",' in line
        assert json.loads(line)["object"]["metadata"]["name"] == f"p{i}"


def test_a_long_stream_reuses_a_few_buffers(tmp_path: Path) -> None:
    """Thousands of events through a handful of buffers: the informer allocates nothing
    for the recording once the writer gives buffers back."""
    path = tmp_path / "long.jsonl.gz"
    queued = 4 * _BUFFER_BYTES
    recorder = Recorder(path, [PODS], flush_interval=60, queue_bytes=queued).start()
    line = _line(0, 4000)
    made = {}  # id -> buffer (kept, so that no id is reused)
    for _ in range(3000):  # ~12 MB of lines: ~46 buffers' worth
        recorder.record_raw_event(0, line)
        made[id(recorder._buf)] = recorder._buf
    recorder.stop()
    assert recorder.events == 3000 and Recording.read(path).complete
    assert len(recorder._free) <= _FREE_BUFFERS
    # at most what may wait (queue_bytes), what the writer holds (as much again), the
    # current buffer and those kept for reuse: far fewer than 46
    bound = 2 * queued // _BUFFER_BYTES + 1 + _FREE_BUFFERS
    assert len(made) <= bound < 3000 * len(line) // _BUFFER_BYTES
