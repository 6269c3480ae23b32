"""The recorder: it rides on informers over real HTTP, writes what they received, in
order, and stops cleanly (by hand, by duration, at max_events or max_bytes)."""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import os
import re
import threading
from pathlib import Path

import pytest

import kubenb
from kubenb.clock import FakeClock
from kubenb.recording import (
    REDACTED,
    REDACTED_BASE64,
    Recorder,
    Recording,
    RecordingError,
    RecordingListerWatcher,
)
from tests.helpers import wait_until


def _names(cluster: kubenb.Cluster, informer: object) -> list[str]:
    return sorted(informer.get_indexer().list_keys())  # type: ignore[attr-defined]


def test_it_rides_on_the_shared_informer_and_writes_what_it_received(tmp_path: Path) -> None:
    path = tmp_path / "cm.jsonl.gz"
    with kubenb.embedded(bookmark_interval=0.2) as cluster:
        configmaps = cluster.resource("configmaps", namespace="default")
        configmaps.create({"metadata": {"name": "before"}, "data": {"v": "0"}})
        recorder = cluster.record("cm", path, namespace="default", label_selector="")
        informer = cluster.informer("configmaps", namespace="default")
        assert isinstance(informer.list_watcher, RecordingListerWatcher), "one shared watch"
        seen: list[tuple[str, str, str]] = []
        from kubenb.cache.handlers import ResourceEventHandlerFuncs

        informer.add_event_handler(ResourceEventHandlerFuncs(
            on_add=lambda o: seen.append(("ADDED", o["metadata"]["name"],
                                          o["metadata"]["resourceVersion"])),
            on_update=lambda old, o: seen.append(("MODIFIED", o["metadata"]["name"],
                                                  o["metadata"]["resourceVersion"])),
            on_delete=lambda o: seen.append(("DELETED", o["metadata"]["name"],
                                             o["metadata"]["resourceVersion"]))))
        configmaps.create({"metadata": {"name": "a"}, "data": {"v": "1"}})
        configmaps.patch("a", {"data": {"v": "2"}})
        configmaps.delete("before")
        # the listed two (kube-root-ca.crt is in every namespace of a cluster), then three
        wait_until(lambda: len(seen) == 5, what="five notifications")
        assert sorted(n[1] for n in seen[:2]) == ["before", "kube-root-ca.crt"]
        wait_until(lambda: informer.stats()["reflector"].get("events_bookmark", 0) >= 1,
                   what="a bookmark")
        assert recorder.recording and "recording" in repr(recorder)
        recorder.stop()
        notified = list(seen)
        assert recorder.done and recorder.reason == "stopped"
        # the informer goes on without the recorder
        configmaps.create({"metadata": {"name": "after"}})
        wait_until(lambda: "default/after" in _names(cluster, informer), what="later event")
        cache = {k: informer.get_indexer().get_by_key(k) for k in _names(cluster, informer)}
    rec = Recording.read(path)
    assert rec.complete and rec.trailer is not None and rec.trailer["reason"] == "stopped"
    header = rec.header
    assert header["format"] == "kubenb-recording" and header["version"] == 1
    assert header["server_version"]["gitVersion"].startswith("v1.")
    assert header["resources"] == [{"api_version": "v1", "resource": "configmaps",
                                    "kind": "ConfigMap", "namespaced": True,
                                    "namespace": "default", "label_selector": "",
                                    "field_selector": ""}]
    assert header["started"].endswith("Z") and header["redaction"]["secrets"] is True
    events = [(e.type, e.key.split("/")[1], e.rv) for e in rec.entries if e.op == "event"]
    assert events == notified[2:], "the informer's own notifications, in order"
    assert [e.op for e in rec.entries][:2] == ["list", "watch"]
    assert any(e.op == "bookmark" for e in rec.entries)
    final = rec.final_state()
    assert all(cache[k] == v for k, v in final.items())
    assert "default/after" not in final


def test_an_informer_already_running_gets_a_twin_for_the_recording(tmp_path: Path) -> None:
    path = tmp_path / "twin.jsonl.gz"
    with kubenb.embedded() as cluster:
        configmaps = cluster.resource("configmaps", namespace="default")
        configmaps.create({"metadata": {"name": "x"}})
        shared = cluster.informer("configmaps", namespace="default")
        with cluster.record("configmaps", path, namespace="default") as recorder:
            assert not isinstance(shared.list_watcher, RecordingListerWatcher)
            wait_until(lambda: recorder.lists == 1, what="the twin's list")
            configmaps.create({"metadata": {"name": "y"}})
            wait_until(lambda: recorder.events >= 1, what="the twin's event")
        assert recorder.done
        configmaps.create({"metadata": {"name": "z"}})
        wait_until(lambda: "default/z" in _names(cluster, shared), what="shared goes on")
    rec = Recording.read(path)
    assert sorted(rec.entries[0].items[i]["metadata"]["name"]
                  for i in range(len(rec.entries[0].items))) == ["kube-root-ca.crt", "x"]
    assert sorted(rec.final_state()) == ["default/kube-root-ca.crt", "default/x", "default/y"]


def test_max_events_stops_cleanly_and_the_informer_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "max.jsonl.gz"
    with kubenb.embedded() as cluster:
        recorder = cluster.record("configmaps", path, namespace="default", max_events=3)
        informer = cluster.informer("configmaps", namespace="default")
        configmaps = cluster.resource("configmaps", namespace="default")
        for i in range(6):
            configmaps.create({"metadata": {"name": f"c{i}"}})
        assert recorder.wait(10) and recorder.reason == "max-events"
        wait_until(lambda: {f"default/c{i}" for i in range(6)} <= set(_names(cluster, informer)),
                   what="all six in the cache")
    rec = Recording.read(path)
    assert rec.stop_reason == "max-events"
    assert [e.key for e in rec.entries if e.op == "event"] == [
        "default/c0", "default/c1", "default/c2"]


def test_a_refused_first_list_stops_the_recording_with_the_servers_message(
        tmp_path: Path) -> None:
    path = tmp_path / "refused.jsonl.gz"
    with kubenb.embedded(controllers=False) as cluster:
        assert cluster.server is not None
        cluster.server.faults.fail(verb="list", code=403, resource="secrets", user="jane")
        recorder = cluster.record(["configmaps", "secrets"], path, namespace="")
        assert recorder.wait(30) and recorder.reason == "refused"
        assert recorder.last_error.startswith('secrets (all namespaces): 403 Forbidden: '
                                              'secrets is forbidden: User "jane"')
    assert Recording.read(path).stop_reason == "refused"


def test_max_bytes_bounds_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bytes.jsonl.gz"
    with kubenb.embedded() as cluster:
        cluster.server.seed_objects(30, kind="configmaps", namespace="default")
        recorder = cluster.record("configmaps", path, namespace="default", max_bytes=2000,
                                  flush_interval=0.01)
        configmaps = cluster.resource("configmaps", namespace="default")
        i = 0
        while not recorder.wait(0.001) and i < 2000:
            configmaps.patch(f"{configmaps.list()['items'][i % 30]['metadata']['name']}",
                             {"metadata": {"labels": {"round": str(i)}}})
            i += 1
        assert recorder.reason == "max-bytes"
    rec = Recording.read(path)
    assert rec.stop_reason == "max-bytes"
    # checked after each flush: at most one flush past the limit (tiny flushes here)
    assert path.stat().st_size < 2000 + 8000


def test_duration_runs_on_the_recorders_clock(tmp_path: Path) -> None:
    clock = FakeClock()
    path = tmp_path / "dur.jsonl.gz"
    with kubenb.embedded() as cluster:
        recorder = cluster.record("configmaps", path, namespace="default", duration=60,
                                  clock=clock, flush_interval=0.01)
        informer = cluster.informer("configmaps", namespace="default")
        clock.step(30)
        cluster.resource("configmaps", namespace="default").create({"metadata": {"name": "a"}})
        wait_until(lambda: recorder.events == 1, what="an event at 00:30")
        assert not recorder.wait(0.05)
        clock.step(31)
        assert recorder.wait(10) and recorder.reason == "duration"
        assert informer.has_synced()
    rec = Recording.read(path)
    assert [round(e.t) for e in rec.entries if e.op == "event"] == [30]
    assert rec.stop_reason == "duration"


def test_the_file_is_readable_while_recording(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl.gz"
    with kubenb.embedded() as cluster:
        recorder = cluster.record("configmaps", path, namespace="default", flush_interval=0.01)
        cluster.informer("configmaps", namespace="default")
        cluster.resource("configmaps", namespace="default").create({"metadata": {"name": "a"}})
        wait_until(lambda: any(e.op == "event" for e in Recording.read(path).entries),
                   what="the event on disk before the recording ends")
        partial = Recording.read(path)
        assert not partial.complete and partial.stop_reason == "truncated"
        recorder.stop()
    assert Recording.read(path).complete


def test_secret_data_never_reaches_the_file_unless_asked(tmp_path: Path) -> None:
    secret = {"metadata": {"name": "db"}, "data": {"password": "czNjcjN0LXB3"},
              "stringData": {"token": "plain-t0ken"}}
    for keep in (False, True):
        path = tmp_path / f"secrets-{keep}.jsonl.gz"
        with kubenb.embedded() as cluster:
            secrets = cluster.resource("secrets", namespace="default")
            secrets.create({"metadata": {"name": "listed"}, "data": {"k": "bGlzdGVk"}})
            recorder = cluster.record("secrets", path, namespace="default",
                                      redact_secrets=not keep, redact=["metadata.labels"])
            informer = cluster.informer("secrets", namespace="default")
            secrets.create(dict(secret, metadata={"name": "db", "labels": {"a": "b"}}))
            keys = informer.get_indexer().list_keys
            wait_until(lambda k=keys: "default/db" in k(), what="the secret")
            cached = informer.get_indexer().get_by_key("default/db")
            assert cached["data"]["password"] == "czNjcjN0LXB3", "the cache keeps the data"
            assert "czNjcjN0" not in repr(recorder)
            recorder.stop()
        raw = gzip.decompress(path.read_bytes()).decode()
        assert ("czNjcjN0LXB3" in raw) is keep and ("bGlzdGVk" in raw) is keep
        rec = Recording.read(path)
        db = rec.final_state()["default/db"]
        assert db["metadata"]["labels"] == REDACTED
        if not keep:
            assert set(db["data"].values()) == {REDACTED_BASE64}
            assert base64.b64decode(db["data"]["password"]) == REDACTED.encode()
            assert json.loads(raw.splitlines()[0])["redaction"]["secrets"] is True


@pytest.mark.slow
def test_errors_and_ends_of_watches_are_recorded(tmp_path: Path) -> None:
    """A dropped watch shows as its end and a resume (no list); a 500 on the resume as an
    error, then the relist the Reflector makes."""
    path = tmp_path / "errors.jsonl.gz"
    # A bare server: the cluster's controllers would take the injected failures.
    with kubenb.embedded(controllers=False) as cluster:
        recorder = cluster.record("configmaps", path, namespace="default")
        informer = cluster.informer("configmaps", namespace="default")
        reflector = informer.get_controller().reflector
        configmaps = cluster.resource("configmaps", namespace="default")
        configmaps.create({"metadata": {"name": "a"}})
        wait_until(lambda: recorder.events == 1, what="event")
        cluster.server.drop_watches()
        wait_until(lambda: reflector.stats().get("resumes", 0) == 1
                   and cluster.server.storage.watch_count == 1, what="resume")
        configmaps.create({"metadata": {"name": "b"}})  # not a "very short watch" then
        wait_until(lambda: recorder.events == 2, what="event on the resumed watch")
        # the REST client retries a 500 three times; the fourth reaches the Reflector
        cluster.server.faults.fail("watch", code=500, count=4)
        cluster.server.drop_watches()
        wait_until(lambda: reflector.stats().get("lists", 0) == 2
                   and cluster.server.storage.watch_count == 1, 10, what="relist")
        recorder.stop()
    rec = Recording.read(path)
    ops = [(e.op, e.during or e.reason, e.code) for e in rec.entries
           if e.op in ("list", "end", "error")]
    assert ops == [("list", "", None), ("end", "closed", None), ("end", "closed", None),
                   ("error", "watch-open", 500), ("list", "", None)]


def test_bad_options_say_what_is_wrong(tmp_path: Path) -> None:
    from kubenb.recording import ResourceSpec

    spec = ResourceSpec("v1", "configmaps")
    with pytest.raises(RecordingError, match="nothing to record"):
        Recorder(tmp_path / "x.gz", [])
    with pytest.raises(RecordingError, match="max_events=0"):
        Recorder(tmp_path / "x.gz", [spec], max_events=0)
    with pytest.raises(RecordingError, match="cannot write the recording"):
        Recorder(tmp_path / "no" / "such" / "dir.gz", [spec]).start()
    recorder = Recorder(tmp_path / "x.gz", [spec])
    with pytest.raises(RecordingError, match="no resource number 3"):
        recorder.list_watcher(3, None)  # type: ignore[arg-type]
    recorder.stop()  # never started: nothing to close, and done
    assert recorder.done
    with kubenb.embedded() as cluster, pytest.raises(kubenb.errors.NoResourceMatchError):
        cluster.record("nosuchthings", tmp_path / "y.gz")


def test_events_are_written_as_the_server_sent_them(tmp_path: Path) -> None:
    """No re-encoding on the informer's thread: the line the server sent goes into the
    file (the server escapes <, > and & as Go does; an encoder would not)."""
    path = tmp_path / "raw.jsonl.gz"
    with kubenb.embedded() as cluster:
        recorder = cluster.record(["configmaps", "secrets"], path, namespace="default")
        cluster.informer("configmaps", namespace="default")
        cluster.informer("secrets", namespace="default")
        cluster.resource("configmaps", namespace="default").create(
            {"metadata": {"name": "html"}, "data": {"v": "<b>&amp;</b>"}})
        cluster.resource("secrets", namespace="default").create(
            {"metadata": {"name": "s"}, "data": {"k": "PGI+"}})
        wait_until(lambda: recorder.events == 2, what="both events")
        recorder.stop()
    lines = gzip.decompress(path.read_bytes()).splitlines()
    (configmap,) = [line for line in lines if b'"op":"event"' in line and b'"r":0' in line]
    assert b'"v":"\\u003cb\\u003e\\u0026amp;\\u003c/b\\u003e"' in configmap
    (secret,) = [line for line in lines if b'"op":"event"' in line and b'"r":1' in line]
    assert b"PGI+" not in secret and REDACTED_BASE64.encode() in secret  # re-encoded
    rec = Recording.read(path)
    assert rec.final_state("configmaps")["default/html"]["data"] == {"v": "<b>&amp;</b>"}


class _SlowDisk:
    """The far end of a named pipe at `path`: open at once, but nothing is read until
    `release()` (a disk that cannot keep up), then everything, into `data`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path)
        self.data = bytearray()
        self._go = threading.Event()
        self._thread = threading.Thread(target=self._run, name="test-slow-disk")
        self._thread.start()

    def _run(self) -> None:
        with open(self.path, "rb") as fh:  # returns once the recorder opens it to write
            self._go.wait(60)
            while chunk := fh.read(65536):
                self.data += chunk

    def release(self) -> None:
        self._go.set()

    def finish(self, copy: Path) -> Path:
        """Join the reader (unblocking its open if nobody ever wrote) and keep what it
        read in a regular file, for `Recording.read`."""
        self.release()
        if self._thread.is_alive():
            # (if the recorder has it open, the reader ends when the recorder closes it)
            with contextlib.suppress(OSError):
                os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
        self._thread.join(30)
        copy.write_bytes(bytes(self.data))
        return copy


def _created(informer: object) -> list[str]:
    keys = informer.get_indexer().list_keys()  # type: ignore[attr-defined]
    return sorted(k for k in keys if re.fullmatch(r"default/c\d\d", k))


def _create_big_configmaps(cluster: kubenb.Cluster, n: int) -> list[str]:
    """`n` ConfigMaps of ~12 KB that hardly compress: far more than a pipe holds."""
    configmaps = cluster.resource("configmaps", namespace="default")
    for i in range(n):
        configmaps.create({"metadata": {"name": f"c{i:02d}"},
                           "data": {"v": os.urandom(6000).hex()}})
    return [f"default/c{i:02d}" for i in range(n)]


@pytest.mark.slow
def test_a_writer_that_cannot_keep_up_holds_the_informer_back_and_loses_nothing(
        tmp_path: Path) -> None:
    """Backpressure: with the queue full the informer's thread waits for the writer,
    and once the writer goes on every event is in the file, in order."""
    path = tmp_path / "slow.jsonl.gz"
    disk = _SlowDisk(path)
    n = 40
    with kubenb.embedded() as cluster:
        try:
            recorder = cluster.record("configmaps", path, namespace="default",
                                      queue_bytes=16 << 10)
            informer = cluster.informer("configmaps", namespace="default")
            keys = _create_big_configmaps(cluster, n)
            wait_until(lambda: recorder.stats()["stalls"] >= 1, 30,
                       what="the informer waiting for room in the recorder's queue")
            assert len(_created(informer)) < n, "held back while the writer is stuck"
            assert recorder.recording
        finally:
            disk.release()
        wait_until(lambda: _created(informer) == keys, 30, what="every event, released")
        recorder.stop()
        assert recorder.reason == "stopped"
    rec = Recording.read(disk.finish(tmp_path / "copy.jsonl.gz"))
    assert rec.complete and rec.stop_reason == "stopped"
    assert [e.key for e in rec.entries if e.op == "event" and e.key in keys] == keys


def test_a_writer_stuck_for_stall_timeout_stops_the_recording_not_the_informer(
        tmp_path: Path) -> None:
    """A writer that makes no progress at all for `stall_timeout` ends the recording
    ("write-stalled"), so the informer goes on; what was queued is still written, and
    compresslevel=0 writes plain JSON lines."""
    path = tmp_path / "stuck.jsonl"
    disk = _SlowDisk(path)
    n = 40
    with kubenb.embedded() as cluster:
        try:
            recorder = cluster.record("configmaps", path, namespace="default", compresslevel=0,
                                      queue_bytes=16 << 10, stall_timeout=0.5)
            informer = cluster.informer("configmaps", namespace="default")
            keys = _create_big_configmaps(cluster, n)
            wait_until(lambda: recorder.reason == "write-stalled", 30, what="the stall")
            wait_until(lambda: _created(informer) == keys, 30,
                       what="the informer going on without the recording")
            assert not recorder.done, "the writer is still stuck"
        finally:
            disk.release()
        assert recorder.wait(30)
        accepted = recorder.events
    copy = disk.finish(tmp_path / "copy.jsonl")
    assert copy.read_bytes().startswith(b'{"format":"kubenb-recording"'), "plain lines"
    rec = Recording.read(copy)
    assert rec.complete and rec.stop_reason == "write-stalled"
    got = [e.key for e in rec.entries if e.op == "event" and e.key in keys]
    assert 0 < len(got) < n and got == keys[:len(got)]
    assert rec.trailer is not None and rec.trailer["events"] == accepted


def test_bad_queue_options_say_what_is_wrong(tmp_path: Path) -> None:
    from kubenb.recording import ResourceSpec

    spec = ResourceSpec("v1", "configmaps")
    with pytest.raises(RecordingError, match="queue_bytes=0"):
        Recorder(tmp_path / "x.gz", [spec], queue_bytes=0)
    with pytest.raises(RecordingError, match="stall_timeout=0"):
        Recorder(tmp_path / "x.gz", [spec], stall_timeout=0)
    with pytest.raises(RecordingError, match="compresslevel=10"):
        Recorder(tmp_path / "x.gz", [spec], compresslevel=10)
