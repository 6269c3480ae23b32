"""Watch decoding: chunk edges, long lines, ERROR events, stop from another thread, ends."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.client.dynamic import ResourceClient
from kubenb.client.rest import RESTClient
from kubenb.client.watch import Watch, WatchEvent, decode_event, event_from_frame
from kubenb.errors import ApiError, Gone, ServerError, WatchDecodeError
from kubenb.server import EmbeddedServer
from tests import realapi
from tests.client.conftest import configmap
from tests.client.rawserver import chunked_server
from tests.helpers import wait_until
from tests.realapi import REALAPI

WATCH_FIXTURES = REALAPI / "watch"


def open_raw(url: str, read_timeout: float = 5.0) -> Watch:
    return Watch(requests.get(url, stream=True, timeout=(5, read_timeout)))


def frames(n: int, size: int = 0) -> list[bytes]:
    return [json.dumps({"type": "ADDED", "object": {
        "kind": "ConfigMap", "metadata": {"name": f"cm-{i}", "resourceVersion": str(i + 1)},
        "data": {"pad": "x" * size}}}).encode() + b"\n" for i in range(n)]


@pytest.mark.parametrize("step", [1, 7, 64, 4096])
def test_frames_split_at_any_chunk_edge_decode_in_order(step: int) -> None:
    stream = b"".join(frames(20))
    chunks = [stream[i:i + step] for i in range(0, len(stream), step)]
    with chunked_server(chunks) as url:
        events = list(open_raw(url))
    assert [e.object["metadata"]["name"] for e in events] == [f"cm-{i}" for i in range(20)]
    assert all(isinstance(e, WatchEvent) and e.type == "ADDED" for e in events)


def test_a_five_megabyte_line_arrives_whole() -> None:
    big, small = frames(1, size=5 * 1024 * 1024)[0], frames(2)[1]
    chunks = [big[i:i + 65536] for i in range(0, len(big), 65536)] + [small]
    with chunked_server(chunks) as url:
        events = list(open_raw(url))
    assert len(events[0].object["data"]["pad"]) == 5 * 1024 * 1024
    assert events[1].object["metadata"]["name"] == "cm-1"


@pytest.mark.parametrize("name", [p.stem for p in realapi.files("watch/*.jsonl")])
def test_real_apiserver_streams_decode(name: str) -> None:
    """Every byte-for-byte stream from kube-apiserver 1.32 decodes; 410 becomes Gone."""
    data = (WATCH_FIXTURES / f"{name}.jsonl").read_bytes()
    with chunked_server([data[i:i + 1000] for i in range(0, len(data), 1000)]) as url:
        watch = open_raw(url)
        events: list[WatchEvent] = []
        if name == "too-old-resourceversion-410":
            with pytest.raises(Gone) as info:
                events.extend(watch)
            assert info.value.reason == "Expired" and info.value.status == 410
            assert "too old resource version" in info.value.message
            return
        events.extend(watch)
    expected = [json.loads(line) for line in data.splitlines() if line.strip()]
    assert [e.type for e in events] == [f["type"] for f in expected]
    assert [e.object for e in events] == [f["object"] for f in expected]


def test_error_event_without_status_and_unknown_type() -> None:
    with pytest.raises(ApiError, match="without a Status"):
        decode_event(b'{"type":"ERROR","object":{"kind":"Pod"}}')
    with pytest.raises(WatchDecodeError, match="invalid watch event type: CHANGED"):
        decode_event(b'{"type":"CHANGED","object":{}}')
    with pytest.raises(ServerError) as info:
        decode_event(json.dumps({"type": "ERROR", "object": {
            "kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "InternalError",
            "message": "boom", "code": 500}}))
    err = info.value
    assert (err.status, err.reason, err.message) == (500, "InternalError", "boom")


def test_malformed_frame_names_what_came() -> None:
    chunks = [*frames(1), b'{"type":"ADDED","object":{"kind":\n']
    with chunked_server(chunks) as url:
        watch = open_raw(url)
        it = iter(watch)
        assert next(it).type == "ADDED"
        with pytest.raises(WatchDecodeError, match=r"unable to decode an event.*kind"):
            next(it)


@pytest.mark.parametrize(("metadata", "message"), [
    ("b", r"`metadata` of a watch event \(MODIFIED\) is a str, expected an object"),
    ([1], r"`metadata` of a watch event \(MODIFIED\) is a list, expected an object"),
    ({"name": 7}, r"`metadata.name` of a watch event \(MODIFIED\) is a int, expected a string"),
    ({"name": "x", "resourceVersion": 12},
     r"`metadata.resourceVersion` of a watch event \(MODIFIED\) is a int, expected a string"),
])
def test_metadata_that_no_object_meta_can_be_is_named(metadata: Any, message: str) -> None:
    frame = {"type": "MODIFIED", "object": {"kind": "ConfigMap", "metadata": metadata}}
    with pytest.raises(WatchDecodeError, match=message):
        event_from_frame(frame, json.dumps(frame))


def test_connection_cut_mid_frame_ends_quietly() -> None:
    chunks = [*frames(2), b'{"type":"ADD']
    with chunked_server(chunks, finish=False) as url:
        watch = open_raw(url)
        events = list(watch)
    assert [e.object["metadata"]["name"] for e in events] == ["cm-0", "cm-1"]
    assert watch.end_reason in ("connection-lost", "closed")


def test_silent_stream_ends_with_idle_timeout() -> None:
    hold = threading.Event()
    with chunked_server(frames(1), hold_open=hold) as url:
        watch = open_raw(url, read_timeout=0.3)
        events = list(watch)
        hold.set()
    assert len(events) == 1
    assert watch.end_reason == "idle-timeout"


def test_stop_from_another_thread_ends_a_blocked_read() -> None:
    """The read would block for 30 s; stop() must end it long before (no timing asserted:
    the reader is given 10 s, a third of the read timeout)."""
    hold = threading.Event()
    with chunked_server(frames(1), hold_open=hold) as url:
        watch = open_raw(url, read_timeout=30)
        seen: list[WatchEvent] = []
        reader = threading.Thread(target=lambda: seen.extend(watch), name="test-reader")
        reader.start()
        wait_until(lambda: bool(seen), what="the first event")
        watch.stop()
        reader.join(10)
        assert not reader.is_alive(), "stop() did not end the blocked read"
        hold.set()
    assert watch.end_reason == "stopped" and watch.stopped
    assert len(seen) == 1


# -- against the embedded server -------------------------------------------------------


def test_events_in_order_from_a_list_rv(configmaps: ResourceClient) -> None:
    rv = configmaps.list()["metadata"]["resourceVersion"]
    configmaps.create(configmap("a"))
    configmaps.patch("a", {"data": {"k": "v"}})
    configmaps.delete("a")
    with configmaps.watch(resource_version=rv, timeout_seconds=1) as watch:
        events = [(e.type, e.object["metadata"]["name"]) for e in watch]
    assert events == [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "a")]
    assert watch.end_reason == "closed"  # the server's timeoutSeconds: a clean end


def test_bookmarks_are_delivered(configmaps: ResourceClient) -> None:
    rv = configmaps.list()["metadata"]["resourceVersion"]
    with configmaps.watch(resource_version=rv, allow_watch_bookmarks=True,
                          timeout_seconds=1) as watch:
        kinds = {e.type for e in watch}
    assert "BOOKMARK" in kinds


def test_too_old_rv_raises_gone(server: EmbeddedServer, configmaps: ResourceClient) -> None:
    rv = configmaps.create(configmap("old"))["metadata"]["resourceVersion"]
    for i in range(5):
        configmaps.patch("old", {"data": {"i": str(i)}})
    server.compact()
    with pytest.raises(Gone) as info, configmaps.watch(resource_version=rv) as watch:
        list(watch)
    assert info.value.reason == "Expired"


def test_stop_an_embedded_watch_from_another_thread(server: EmbeddedServer,
                                                   configmaps: ResourceClient) -> None:
    watch = configmaps.watch(resource_version="0", read_timeout=30)
    reader = threading.Thread(target=lambda: list(watch), name="test-reader")
    reader.start()
    wait_until(lambda: server.storage.watch_count == 1, what="the server to hold the watch")
    watch.stop()
    reader.join(10)
    assert not reader.is_alive()
    assert watch.end_reason == "stopped"


def test_dropped_watch_ends_the_iteration(server: EmbeddedServer,
                                          configmaps: ResourceClient) -> None:
    watch = configmaps.watch(resource_version="0", read_timeout=30)
    done = threading.Event()
    reader = threading.Thread(target=lambda: (list(watch), done.set()), name="test-reader")
    reader.start()
    wait_until(lambda: server.storage.watch_count == 1, what="the server to hold the watch")
    server.drop_watches()
    assert done.wait(10)
    reader.join(10)
    assert not reader.is_alive()


def test_watch_read_timeout_via_rest(rest: RESTClient, configmaps: ResourceClient) -> None:
    query = {"resourceVersion": "0", "labelSelector": "matches=nothing"}
    with rest.watch(configmaps.path(), query, read_timeout=0.3) as watch:
        assert list(watch) == []
    assert watch.end_reason == "idle-timeout"


class _ScriptedReads(Watch):
    """A Watch whose reads are given: each a list of the chunks' payload pieces."""

    def __init__(self, reads: list[list[bytes]]) -> None:
        super().__init__(requests.Response())
        self._scripted = reads

    def _reads(self):  # type: ignore[no-untyped-def]
        yield from self._scripted
        self.end_reason = "closed"


@given(lines=st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")),
                      max_size=12),
       tail=st.binary(max_size=5).map(lambda b: b.replace(b"\n", b"")),
       data=st.data())
@settings(max_examples=300, deadline=None)
def test_any_pieces_and_reads_give_the_body_lines_back(lines: list[bytes], tail: bytes,
                                                        data: st.DataObject) -> None:
    """Whole-line chunks taken as they are, lines cut across pieces and reads, several
    lines in one piece, blank lines: the lines come back exactly, in order, and a last
    line without its newline when the stream closed."""
    body = b"".join(line + b"\n" for line in lines) + tail
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(body)), max_size=10))))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True) if b > a]
    groups = sorted(set(data.draw(st.lists(st.integers(1, max(1, len(pieces))),
                                           max_size=4))))
    bounds = zip([0, *groups], [*groups, len(pieces)], strict=True)
    reads = [pieces[a:b] for a, b in bounds if b > a]
    batches = list(_ScriptedReads(reads)._line_batches())
    assert all(batches)
    assert [line for batch in batches for line in batch] == lines + ([tail] if tail else [])
