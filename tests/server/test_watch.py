"""Watch semantics over real chunked HTTP: resume, initial state, bookmarks, 410, selectors,
and the bound on what a watcher that stops reading may hold."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
from typing import Any

import pytest
import requests

from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.server import EmbeddedServer
from kubenb.server.server import ServerConfigError
from kubenb.server.watch import WatchStream
from tests.helpers import assert_no_new_threads, wait_until
from tests.server.conftest import REALAPI, Api, port_of, raw_get, watch_lines
from tests.server.test_crud import assert_status_like

CM = "/api/v1/namespaces/default/configmaps"


def watch(api: Api, path: str = CM, **params: Any) -> requests.Response:
    params.setdefault("watch", "true")
    resp = api.get(path, params=params, stream=True)
    assert resp.status_code == 200, resp.text
    return resp


def test_resume_from_rv_gets_exactly_the_later_events(api: Api) -> None:
    a = api.create_cm("a")
    rv = a["metadata"]["resourceVersion"]
    b = api.create_cm("b")
    api.put(f"{CM}/a", dict(a, data={"k": "2"}))
    api.delete(f"{CM}/b")
    events = watch_lines(watch(api, resourceVersion=rv, timeoutSeconds="0.3"))
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "b"), ("MODIFIED", "a"), ("DELETED", "b")]
    rvs = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert rvs == sorted(rvs) and rvs[0] == int(b["metadata"]["resourceVersion"])
    assert events[0]["object"]["kind"] == "ConfigMap"
    # DELETED carries the last state, stamped with the deletion's resourceVersion
    assert events[2]["object"]["metadata"]["uid"] == b["metadata"]["uid"]


def test_watch_without_rv_starts_with_synthetic_added(api: Api) -> None:
    api.create_cm("x")
    api.create_cm("y")
    resp = watch(api, timeoutSeconds="0.3")
    api.create_cm("z")
    events = watch_lines(resp)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "x"), ("ADDED", "y"), ("ADDED", "z")]
    zero = watch_lines(watch(api, resourceVersion="0", timeoutSeconds="0.2"))
    assert len(zero) == 3 and {e["type"] for e in zero} == {"ADDED"}


def test_events_are_one_json_object_per_line(api: Api) -> None:
    rv = str(api.create_cm("x")["metadata"]["resourceVersion"])
    api.create_cm("y", data={"v": "<tag>"})
    resp = watch(api, resourceVersion=rv, timeoutSeconds="0.3")
    assert resp.headers["Transfer-Encoding"] == "chunked"
    assert resp.headers["Content-Type"] == "application/json"
    raw = resp.raw.read()
    lines = raw.split(b"\n")
    assert lines[-1] == b"" and len(lines) == 2
    assert lines[0].startswith(b'{"type":"ADDED","object":{"kind":"ConfigMap"')
    assert b"\\u003ctag\\u003e" in lines[0]


@pytest.mark.slow
def test_timeout_ends_the_stream_cleanly(api: Api, server: EmbeddedServer) -> None:
    """The stream stays open (an event written meanwhile arrives), then ends by itself at
    timeoutSeconds with a clean end of the chunked body."""
    rv = str(api.create_cm("q")["metadata"]["resourceVersion"])
    resp = watch(api, resourceVersion=rv, timeoutSeconds="2")
    events: list[dict[str, Any]] = []
    ended = threading.Event()
    reader = threading.Thread(target=lambda: (events.extend(watch_lines(resp)), ended.set()),
                              name="test-reader")
    reader.start()
    wait_until(lambda: server.storage.watch_count == 1, what="the server to hold the watch")
    api.create_cm("during")
    assert ended.wait(60), "the watch did not end at its timeoutSeconds"
    reader.join(10)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "during")]
    wait_until(lambda: server.storage.watch_count == 0, what="the server to free the watch")


def test_bookmarks_carry_the_current_rv(api: Api, server: EmbeddedServer) -> None:
    rv = api.create_cm("a")["metadata"]["resourceVersion"]
    resp = watch(api, resourceVersion=rv, allowWatchBookmarks="true", timeoutSeconds="0.7")
    last = api.create_cm("b")["metadata"]["resourceVersion"]
    events = watch_lines(resp)
    assert events[0]["type"] == "ADDED"
    bookmarks = [e for e in events if e["type"] == "BOOKMARK"]
    assert bookmarks, events
    real = next(json.loads(line) for line in (
        REALAPI / "watch/configmaps-from-list-rv-with-bookmarks.jsonl").read_text().splitlines()
        if '"BOOKMARK"' in line)
    assert bookmarks[-1]["object"].keys() == real["object"].keys()
    assert bookmarks[-1]["object"]["metadata"] == {"resourceVersion": last,
                                                   "creationTimestamp": None}
    no_bookmarks = watch_lines(watch(api, resourceVersion=rv, timeoutSeconds="0.5"))
    assert all(e["type"] != "BOOKMARK" for e in no_bookmarks)


def test_send_initial_events_then_end_bookmark(api: Api) -> None:
    api.create_cm("w-1", labels={"fixture": "watch"})
    api.create_cm("w-2", labels={"fixture": "watch"})
    api.create_cm("other")
    resp = watch(api, sendInitialEvents="true", resourceVersionMatch="NotOlderThan",
                 allowWatchBookmarks="true", labelSelector="fixture=watch",
                 timeoutSeconds="0.5")
    api.create_cm("w-3", labels={"fixture": "watch"})
    events = watch_lines(resp)
    kinds = [e["type"] for e in events]
    assert kinds[:3] == ["ADDED", "ADDED", "BOOKMARK"]
    end = events[2]["object"]["metadata"]
    real = [json.loads(line) for line in (
        REALAPI / "watch/watchlist-sendinitialevents.jsonl").read_text().splitlines()][3]
    assert end.keys() == real["object"]["metadata"].keys()
    assert end["annotations"]["k8s.io/initial-events-end"] == "true"
    assert end["annotations"].keys() == real["object"]["metadata"]["annotations"].keys()
    assert events[3]["type"] == "ADDED" and events[3]["object"]["metadata"]["name"] == "w-3"


def test_watch_option_errors_match_fixtures(api: Api) -> None:
    assert_status_like(api.get(CM, params={"watch": "true", "resourceVersion": "1",
                                           "resourceVersionMatch": "NotOlderThan"}),
                       "errors/watch-rvmatch-without-sendinitialevents-422.json")
    assert_status_like(api.get(CM, params={"watch": "true", "sendInitialEvents": "true",
                                           "allowWatchBookmarks": "true"}),
                       "errors/watch-sendinitialevents-without-rvmatch-422.json")


def test_too_old_rv_gets_an_error_event_410(api: Api, server: EmbeddedServer) -> None:
    old = api.create_cm("a")["metadata"]["resourceVersion"]
    api.create_cm("b")
    server.compact()
    resp = watch(api, resourceVersion=old, allowWatchBookmarks="true")
    events = watch_lines(resp)
    real = json.loads((REALAPI / "watch/too-old-resourceversion-410.jsonl").read_text())
    assert len(events) == 1 and events[0]["type"] == "ERROR"
    status = events[0]["object"]
    assert list(status) == list(real["object"])
    assert (status["code"], status["reason"]) == (410, "Expired")
    assert status["message"].startswith(f"too old resource version: {old} (")


def test_history_window_decides_410(api: Api) -> None:
    with EmbeddedServer(history_window=5) as small:
        client = Api(small.url)
        rvs = [client.create_cm(f"c{i}")["metadata"]["resourceVersion"] for i in range(10)]
        inside = watch_lines(watch(client, resourceVersion=rvs[-5], timeoutSeconds="0.2"))
        assert [e["object"]["metadata"]["name"] for e in inside] == ["c6", "c7", "c8", "c9"]
        outside = watch_lines(watch(client, resourceVersion=rvs[2], timeoutSeconds="0.2"))
        assert outside[0]["type"] == "ERROR" and outside[0]["object"]["code"] == 410
        client.close()


def test_selectors_turn_transitions_into_added_and_deleted(api: Api) -> None:
    cm = api.create_cm("x", labels={"app": "a"})
    rv = cm["metadata"]["resourceVersion"]
    cm = api.put(f"{CM}/x", dict(cm, metadata=dict(cm["metadata"], labels={"app": "b"}))).json()
    cm = api.put(f"{CM}/x", dict(cm, data={"n": "1"})).json()
    api.put(f"{CM}/x", dict(cm, metadata=dict(cm["metadata"], labels={"app": "a"})))
    events = watch_lines(watch(api, resourceVersion=rv, labelSelector="app=b",
                               timeoutSeconds="0.3"))
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert events[2]["object"]["metadata"]["labels"] == {"app": "b"}
    by_name = watch_lines(watch(api, resourceVersion="0", fieldSelector="metadata.name=x",
                                timeoutSeconds="0.2"))
    assert [e["object"]["metadata"]["name"] for e in by_name] == ["x"]


def test_namespace_scoped_and_all_namespaces_watches(api: Api) -> None:
    api.post("/api/v1/namespaces", {"metadata": {"name": "other"}})
    rv = api.get(CM).json()["metadata"]["resourceVersion"]
    api.create_cm("here")
    api.create_cm("there", ns="other")
    scoped = watch_lines(watch(api, resourceVersion=rv, timeoutSeconds="0.2"))
    assert [e["object"]["metadata"]["name"] for e in scoped] == ["here"]
    everywhere = watch_lines(watch(api, "/api/v1/configmaps", resourceVersion=rv,
                                   timeoutSeconds="0.2"))
    assert [e["object"]["metadata"]["name"] for e in everywhere] == ["here", "there"]


def test_stopping_the_server_ends_watches() -> None:
    srv = EmbeddedServer()
    srv.start()
    resp = requests.get(srv.url + CM, params={"watch": "true"}, stream=True, timeout=10)
    lines: list[bytes] = []
    done = threading.Event()

    def read() -> None:
        with contextlib.suppress(requests.RequestException):
            lines.extend(resp.iter_lines())
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wait_until(lambda: srv.storage.watch_count == 1, what="the server to hold the watch")
    srv.stop()
    assert done.wait(30), "stopping the server did not end its watch"
    assert srv.storage.watch_count == 0
    assert not [t for t in threading.enumerate() if t.name.startswith("kubenb-server")]


def test_client_disconnect_frees_the_watch(api: Api, server: EmbeddedServer) -> None:
    resp = watch(api)
    wait_until(lambda: server.storage.watch_count == 1, what="the server to hold the watch")
    resp.close()
    api.session.close()
    wait_until(lambda: server.storage.watch_count == 0, timeout=30,
               what="the server to free the watch of a client that went away")


def test_slow_watcher_does_not_block_writers(api: Api, server: EmbeddedServer) -> None:
    """200 writes while nobody reads the stream: each answers (a blocked writer would run
    into the client's 10 s request timeout and fail the test), and the watch is still held."""
    resp = watch(api, resourceVersion=api.get(CM).json()["metadata"]["resourceVersion"])
    created = [api.create_cm(f"n{i}", data={"pad": "x" * 2000}) for i in range(200)]
    assert len({c["metadata"]["name"] for c in created}) == 200
    resp.close()


@pytest.mark.stress
def test_no_lost_or_repeated_events_with_concurrent_writers_and_watchers(
        server: EmbeddedServer) -> None:
    writers, per_writer, watchers = 4, 40, 4
    start_rv = Api(server.url).get(CM).json()["metadata"]["resourceVersion"]
    received: list[list[tuple[str, str, int]]] = [[] for _ in range(watchers)]
    expected_total = writers * per_writer * 2  # each object created then modified

    def watch_all(index: int) -> None:
        resp = requests.get(server.url + CM, params={"watch": "true",
                                                     "resourceVersion": start_rv,
                                                     "timeoutSeconds": "15"},
                            stream=True, timeout=20)
        for line in resp.iter_lines():
            event = json.loads(line)
            meta = event["object"]["metadata"]
            received[index].append((event["type"], meta["name"], int(meta["resourceVersion"])))
            if len(received[index]) == expected_total:
                break
        resp.close()

    def write(index: int) -> None:
        client = Api(server.url)
        for i in range(per_writer):
            cm = client.create_cm(f"w{index}-{i}")
            assert client.put(f"{CM}/w{index}-{i}", dict(cm, data={"v": "2"})).status_code == 200
        client.close()

    watch_threads = [threading.Thread(target=watch_all, args=(i,)) for i in range(watchers)]
    for t in watch_threads:
        t.start()
    # half the watchers start before the writes, the rest resume from start_rv mid-way
    write_threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    for t in write_threads:
        t.start()
    for t in write_threads:
        t.join(30)
    for t in watch_threads:
        t.join(30)
    final = Api(server.url).get(CM).json()
    assert len(final["items"]) == writers * per_writer
    for events in received:
        assert len(events) == expected_total
        rvs = [rv for _, _, rv in events]
        assert rvs == sorted(rvs) and len(set(rvs)) == len(rvs)
        assert sum(1 for t, _, _ in events if t == "ADDED") == writers * per_writer
        assert sum(1 for t, _, _ in events if t == "MODIFIED") == writers * per_writer


def test_watch_from_a_future_rv_waits_for_it(api: Api) -> None:
    current = int(api.get(CM).json()["metadata"]["resourceVersion"])
    resp = watch(api, resourceVersion=str(current + 2), timeoutSeconds="0.4")
    for name in ("f1", "f2", "f3"):
        api.create_cm(name)
    assert [e["object"]["metadata"]["name"] for e in watch_lines(resp)] == ["f3"]


def test_no_bookmark_carries_a_write_a_dropped_watch_never_got(server: EmbeddedServer) -> None:
    """Dropping watches takes them out of the watcher set first and closes their queues
    after; a write in between never reaches the queue. A bookmark sent in that window
    carried the write's RV, so the client resumed past it and lost the event (seen as a
    cache that never converged in the chaos test, one run in a few hundred)."""
    storage = server.storage
    rtype = server.types.by_key("configmaps")
    assert rtype is not None
    rv = str(storage.resource_version)
    stream = WatchStream(storage, rtype, None, {"resourceVersion": rv,
                                                "allowWatchBookmarks": "true"},
                         bookmark_interval=0.01, stop=threading.Event())
    queue = stream._queue
    assert queue is not None
    assert stream._storage_bookmark_rv() == storage.resource_version  # a live, idle watch
    with storage.lock:
        storage._watchers.discard(queue)  # the first half of close_all_watches
    storage.put("configmaps", "default", "in-the-window", {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "in-the-window", "namespace": "default"}})
    assert queue.pending() == 0  # the write did not reach the dropped watch ...
    assert stream._storage_bookmark_rv() is None  # ... so no bookmark may claim it
    queue.close()
    assert stream._storage_bookmark_rv() is None


# -- watchers that stop reading ------------------------------------------------------------
# A watcher that never reads is cut once its buffer holds max_watch_buffer_bytes; the
# others never notice, and an informer cut off for falling behind resumes from its RV.

BOUND = 256 * 1024


BLOB = "x" * (16 * 1024)


class LineWatcher:
    """A well-behaved watch client on a thread: reads every event, records each RV, and
    returns once it sees the configmap named `last`."""

    def __init__(self, url: str, rv: str, last: str) -> None:
        self.rvs: list[int] = []
        self.error: BaseException | None = None
        self._args = (url, rv, last)
        self.thread = threading.Thread(target=self._run, name="test-line-watcher")
        self.thread.start()

    def _run(self) -> None:
        url, rv, last = self._args
        try:
            with requests.get(url, params={"watch": "true", "resourceVersion": rv},
                              stream=True, timeout=60) as resp:
                for line in resp.iter_lines():
                    if not line:
                        continue
                    obj = json.loads(line)["object"]
                    self.rvs.append(int(obj["metadata"]["resourceVersion"]))
                    if obj["metadata"]["name"] == last:
                        return
        except BaseException as exc:  # reported by the test
            self.error = exc


def _stuck_watch(port: int, rv: str) -> socket.socket:
    """A watch client that sends its request and never reads a byte (tiny receive
    buffer, so the kernel holds little for it)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(raw_get(f"{CM}?watch=true&resourceVersion={rv}").replace(
        b"Connection: close\r\n", b""))
    return sock


def _put_blob(server: EmbeddedServer, name: str, i: int) -> int:
    rtype = server.types.lookup("", "v1", "configmaps")
    assert rtype is not None
    body = {"metadata": {"name": name}, "data": {"blob": BLOB, "i": str(i)}}
    if server.storage.get("configmaps", "default", name) is None:
        obj = server.registry.create(rtype, "default", body)
    else:
        obj = server.registry.update(rtype, "default", name, body)
    return int(obj["metadata"]["resourceVersion"])


def test_a_watcher_that_never_reads_is_closed_its_buffer_bounded_in_bytes(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="kubenb.server")
    before = set(threading.enumerate())
    with EmbeddedServer(max_watch_buffer_bytes=BOUND, history_window=100) as server:
        assert server.watch_stats()["max_buffer_bytes"] == BOUND
        rv = str(server.storage.resource_version)
        stuck = _stuck_watch(port_of(server), rv)
        wait_until(lambda: server.watch_stats()["open"] == 1, 10, what="stuck watch open")
        good = LineWatcher(server.url + CM, rv, "last")
        wait_until(lambda: server.watch_stats()["open"] == 2, 10, what="good watch open")
        written: list[int] = []
        peak = 0
        for i in range(3000):  # 48 MiB at most; the stuck watcher goes long before
            written.append(_put_blob(server, f"cm-{i % 8}", i))
            stats = server.watch_stats()
            peak = max([peak, *stats["buffered_bytes"]])
            if stats["closed_behind"]:
                break
            if i % 8 == 7:  # the good watcher keeps up: wait for it every 8 events
                wait_until(lambda: len(good.rvs) >= len(written) or good.error is not None,
                           30, what="good watcher caught up")
        assert server.watch_stats()["closed_behind"] == 1, "the stuck watcher was never cut"
        assert peak <= BOUND
        # the stuck watcher's connection is gone (its thread unblocked and ended)...
        wait_until(lambda: server.watch_stats()["open"] == 1, 10, what="stuck watch closed")
        stuck.settimeout(30)
        with contextlib.suppress(ConnectionResetError):
            while stuck.recv(65536):
                pass  # what the kernel still held, then the end of the connection
        stuck.close()
        # ... and the good one never noticed: every event, in order, on one connection
        written.append(_put_blob(server, "last", 0))
        good.thread.join(30)
        assert good.error is None and not good.thread.is_alive()
        assert good.rvs == written
    closes = [r for r in caplog.records if "fell behind" in r.getMessage()]
    assert len(closes) == 1 and closes[0].levelno == logging.INFO
    assert "configmaps" in closes[0].getMessage()
    assert "max_watch_buffer_bytes" in closes[0].getMessage()
    assert_no_new_threads(before)


def test_the_watch_buffer_byte_bound_is_configurable_and_checked() -> None:
    assert EmbeddedServer().watch_stats()["max_buffer_bytes"] == 32 * 1024 * 1024
    assert EmbeddedServer(max_watch_buffer_bytes=0).watch_stats()["max_buffer_bytes"] == 0
    with pytest.raises(ServerConfigError, match="max_watch_buffer_bytes=-1"):
        EmbeddedServer(max_watch_buffer_bytes=-1)


def test_an_informer_cut_off_for_falling_behind_resumes_and_converges() -> None:
    with EmbeddedServer(max_watch_buffer_bytes=BOUND, history_window=100_000) as server:
        configmaps = DynamicClient(load_config(server.kubeconfig_path)).resource(
            "v1", "configmaps").namespace("default")
        for i in range(3):
            _put_blob(server, f"cm-{i}", i)
        hold = threading.Event()
        release = threading.Event()
        held = threading.Event()

        def transform(obj: Any) -> Any:
            """Runs on the reflector's thread: while held, the informer reads nothing."""
            if hold.is_set() and not release.is_set():
                held.set()
                release.wait(60)
            return obj

        informer = SharedIndexInformer(ListWatch.from_client(configmaps), None, 0.0,
                                       transform=transform)
        informer.start()
        try:
            wait_until(informer.has_synced, 10, what="informer sync")
            reflector = informer.get_controller().reflector
            hold.set()
            _put_blob(server, "cm-0", -1)
            wait_until(held.is_set, 10, what="the informer held in its transform")
            for i in range(4000):  # 64 MiB at most
                _put_blob(server, f"cm-{i % 50}", i)
                if server.watch_stats()["closed_behind"]:
                    break
            assert server.watch_stats()["closed_behind"] == 1
            release.set()
            wait_until(lambda: reflector.stats().get("resumes", 0) >= 1, 30, what="resume")
            _put_blob(server, "after", 0)

            def converged() -> bool:
                listed = configmaps.list()["items"]
                want = {f"default/{o['metadata']['name']}": o["metadata"]["resourceVersion"]
                        for o in listed}
                have = {key: informer.get_indexer().get_by_key(key)["metadata"][
                    "resourceVersion"] for key in informer.get_indexer().list_keys()}
                return have == want

            wait_until(converged, 30, what="cache converged")
            assert reflector.stats()["lists"] == 1  # resumed from its RV: no relist
        finally:
            release.set()
            informer.stop()

