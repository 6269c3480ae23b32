"""Replay: an informer over the replay server receives exactly what was recorded.

Each test replays a recording through a fresh embedded server to real informers over
HTTP, records those informers with the same recorder, and compares the two files:
the same lists (resourceVersion and objects), watches (from which resourceVersion),
events (type, key, resourceVersion), bookmarks, errors and ends, in the same order;
and the informers' caches equal the recorded final state, object for object.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import kubenb
from kubenb.client.watch import decode_event
from kubenb.clock import FakeClock
from kubenb.errors import Gone
from kubenb.recording import REDACTED, Recording, RecordingError
from kubenb.server import EmbeddedServer
from tests.helpers import Kubectl, needs_kubectl, wait_until
from tests.recording.support import (
    CONFIGMAPS,
    assert_replayed,
    configmap,
    replay_through_informers,
    write_recording,
)

GONE = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "too old resource version: 1 (2)", "reason": "Expired", "code": 410}


# -- generated recordings ------------------------------------------------------------------


class StreamBuilder:
    """Records as a Reflector over a real server would produce them for `ops`."""

    def __init__(self, first_rv: int) -> None:
        self.rv = first_rv
        self.t = 0.0
        self.state: dict[str, dict[str, Any]] = {}
        self.records: list[dict[str, Any]] = []
        self.last_sync = ""
        self.since_open = 0  # events (and bookmarks) on the open watch

    def at(self, dt: float) -> float:
        self.t = round(self.t + dt, 6)
        return self.t

    def emit(self, dt: float, **record: Any) -> None:
        self.records.append({"t": self.at(dt), "r": 0, **record})

    def write(self, kind: str, name: str, value: str) -> dict[str, Any] | None:
        """A change on the server; returns the event object (None: nothing to do)."""
        exists = name in self.state
        if kind == "DELETED" and not exists:
            return None
        if kind != "DELETED" and exists:
            kind = "MODIFIED"
        elif kind != "DELETED":
            kind = "ADDED"
        self.rv += 1
        obj = configmap(name, self.rv, value if kind != "DELETED" else
                        self.state[name]["data"]["v"])
        if kind == "DELETED":
            del self.state[name]
        else:
            self.state[name] = obj
        return {"type": kind, "object": obj}

    def listed(self) -> list[dict[str, Any]]:
        return [configmap(n, int(o["metadata"]["resourceVersion"]), o["data"]["v"], listed=True)
                for n, o in sorted(self.state.items())]

    def relist(self, dt: float) -> None:
        self.emit(dt, op="list", rv=str(self.rv), items=self.listed(), more=False,
                  **{"continue": False})
        self.last_sync = str(self.rv)
        self.emit(0.001, op="watch", rv=self.last_sync, initial=False)
        self.since_open = 0

    def build(self, initial: list[tuple[str, str]], ops: list[tuple[Any, ...]]
              ) -> list[dict[str, Any]]:
        for name, value in initial:
            self.write("ADDED", name, value)
        self.rv += 3  # other resources' writes
        self.relist(0.01)
        for op in ops:
            kind, dt = op[0], op[1]
            if kind in ("ADDED", "MODIFIED", "DELETED"):
                event = self.write(kind, op[2], op[3])
                if event is not None:
                    self.emit(dt, op="event", **event)
                    self.last_sync = str(self.rv)
                    self.since_open += 1
            elif kind == "gap":
                self.rv += op[2]
            elif kind == "bookmark":
                self.emit(dt, op="event", type="BOOKMARK", object={
                    "kind": "ConfigMap", "apiVersion": "v1",
                    "metadata": {"resourceVersion": str(self.rv), "creationTimestamp": None}})
                self.last_sync = str(self.rv)
                self.since_open += 1
            elif kind == "drop" and self.since_open:
                self.emit(dt, op="end", reason="closed")
                self.emit(0.001, op="watch", rv=self.last_sync, initial=False)
                self.since_open = 0
            elif kind == "gone":
                for name, value in op[2]:  # changes this informer never sees as events
                    self.write("DELETED" if value == "-" else "ADDED", name, value)
                self.rv += 1
                self.emit(dt, op="error", during="watch", code=410, reason="Expired",
                          message=GONE["message"], status=GONE)
                self.relist(0.2)
        return self.records


NAMES = st.sampled_from(["a", "b", "c", "d"])
VALUES = st.sampled_from(["1", "2", "3"])
DT = st.floats(min_value=0.0, max_value=0.05).map(lambda v: round(v, 4))
OPS = st.one_of(
    st.tuples(st.sampled_from(["ADDED", "MODIFIED", "DELETED"]), DT, NAMES, VALUES),
    st.tuples(st.just("gap"), DT, st.integers(1, 5)),
    st.tuples(st.just("bookmark"), DT),
    st.tuples(st.just("drop"), DT),
    st.tuples(st.just("gone"), DT, st.lists(st.tuples(NAMES, st.sampled_from(["-", "9"])),
                                            max_size=3)),
)


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(first_rv=st.integers(10, 10_000),
       initial=st.lists(st.tuples(NAMES, VALUES), max_size=4),
       ops=st.lists(OPS, min_size=1, max_size=25))
def test_a_generated_stream_replays_exactly(tmp_path_factory: pytest.TempPathFactory,
                                            first_rv: int, initial: list[tuple[str, str]],
                                            ops: list[tuple[Any, ...]]) -> None:
    folder = tmp_path_factory.mktemp("generated")
    records = StreamBuilder(first_rv).build(initial, ops)
    path = write_recording(folder / "in.jsonl.gz", [CONFIGMAPS], records)
    original = Recording.read(path)

    run = replay_through_informers(path, folder / "out.jsonl.gz")

    assert_replayed(run.recording, original)
    assert run.caches == [original.final_state()]
    assert run.replay.gate_timeouts == 0


def test_drops_and_410s_replay_as_such(tmp_path: Path) -> None:
    """A dropped watch is resumed (no relist), a 410 relists; both as in the recording."""
    ops = [("ADDED", 0.01, "a", "1"), ("ADDED", 0.01, "b", "1"), ("drop", 0.3),
           ("MODIFIED", 0.01, "a", "2"), ("bookmark", 0.01), ("gap", 0.0, 4),
           ("gone", 0.3, [("b", "-"), ("c", "9")]), ("MODIFIED", 0.01, "c", "3"),
           ("bookmark", 0.2)]
    path = write_recording(tmp_path / "in.jsonl.gz", [CONFIGMAPS],
                           StreamBuilder(100).build([("z", "0")], ops))
    original = Recording.read(path)
    run = replay_through_informers(path, tmp_path / "out.jsonl.gz")

    assert_replayed(run.recording, original)
    stats = run.reflector_stats[0]
    assert stats["lists"] == 2 and stats["gone"] == 1 and stats["resumes"] >= 1
    ops_seen = [e.op for e in run.recording.entries]
    assert ops_seen.count("end") == 1 and ops_seen.count("error") == 1
    assert run.caches == [original.final_state()]
    assert set(run.caches[0]) == {"default/a", "default/c", "default/z"}


@pytest.mark.slow
def test_a_real_informers_recording_replays_exactly(tmp_path: Path) -> None:
    """Record an informer over the embedded server (writes, a dropped watch, a 410 and a
    relist, periodic bookmarks), then replay that file and compare."""
    path = tmp_path / "live.jsonl.gz"
    # A bare server: the cluster's controllers would take the injected failures.
    with kubenb.embedded(controllers=False, bookmark_interval=0.2) as cluster:
        server = cluster.server
        configmaps = cluster.resource("configmaps", namespace="default")
        for i in range(3):
            configmaps.create({"metadata": {"name": f"seed-{i}"}, "data": {"v": "0"}})
        recorder = cluster.record("configmaps", path, namespace="default")
        informer = cluster.informer("configmaps", namespace="default")
        reflector = informer.get_controller().reflector
        for i in range(4):
            configmaps.create({"metadata": {"name": f"cm-{i}"}, "data": {"v": "1"}})
        wait_until(lambda: len(informer.get_indexer().list_keys()) == 7, what="creates")
        server.drop_watches()
        wait_until(lambda: reflector.stats().get("resumes", 0) >= 1
                   and server.storage.watch_count >= 1, what="resume")
        configmaps.patch("cm-0", {"data": {"v": "2"}})
        wait_until(lambda: informer.get_indexer().get_by_key("default/cm-0")["data"]["v"]
                   == "2", what="update")
        # a 500 on the resume (past the REST client's three retries): a relist
        server.faults.fail("watch", code=500, count=4)
        server.drop_watches()
        wait_until(lambda: reflector.stats().get("lists", 0) == 2
                   and server.storage.watch_count >= 1, 10, what="relist after 500")
        configmaps.patch("cm-1", {"data": {"v": "2"}})
        wait_until(lambda: informer.get_indexer().get_by_key("default/cm-1")["data"]["v"]
                   == "2", what="update after the relist")
        # a 410: the resume is held back while history moves on and is compacted
        server.faults.latency(30.0, verb="watch")
        server.drop_watches()
        wait_until(lambda: server.faults.stats()["delayed"] >= 1, what="held resume")
        configmaps.delete("seed-0")
        configmaps.create({"metadata": {"name": "late"}, "data": {"v": "1"}})
        server.compact()
        server.faults.clear()
        wait_until(lambda: reflector.stats().get("lists", 0) == 3
                   and "default/late" in informer.get_indexer().list_keys(), 10,
                   what="relist after 410")
        configmaps.patch("late", {"data": {"v": "3"}})
        wait_until(lambda: informer.get_indexer().get_by_key("default/late")["data"]["v"]
                   == "3", what="last update")
        wait_until(lambda: reflector.stats().get("events_bookmark", 0) >= 2, what="bookmarks")
        recorder.stop()
    original = Recording.read(path)
    ops = [e.op for e in original.entries]
    assert ops.count("list") == 3 and ops.count("end") >= 3
    errors = [e for e in original.entries if e.op == "error"]
    assert [(e.during, e.code) for e in errors] == [("watch-open", 500), ("watch", 410)]
    for error in errors:
        assert original.entries[original.entries.index(error) + 1].op == "list"

    run = replay_through_informers(path, tmp_path / "out.jsonl.gz")
    assert_replayed(run.recording, original)
    assert run.caches == [original.final_state()]


def _two_step_recording(tmp_path: Path) -> Path:
    records = [
        {"t": 0.0, "r": 0, "op": "list", "rv": "50", "items": [configmap("a", 40, "1",
                                                                       listed=True)]},
        {"t": 0.001, "r": 0, "op": "watch", "rv": "50"},
        {"t": 10.0, "r": 0, "op": "event", "type": "ADDED", "object": configmap("b", 51, "1")},
        {"t": 20.0, "r": 0, "op": "event", "type": "MODIFIED",
         "object": configmap("a", 55, "2")},
        {"t": 30.0, "r": 0, "op": "event", "type": "DELETED",
         "object": configmap("b", 60, "1")},
    ]
    return write_recording(tmp_path / "steps.jsonl.gz", [CONFIGMAPS], records)


def _rvs(cluster: kubenb.Cluster) -> dict[str, str]:
    items = cluster.resource("configmaps", namespace="default").list()["items"]
    return {i["metadata"]["name"]: i["metadata"]["resourceVersion"] for i in items
            if i["metadata"]["name"] in ("a", "b")}


def test_paced_by_a_fake_clock_and_stepped_by_hand(tmp_path: Path) -> None:
    path = _two_step_recording(tmp_path)
    clock = FakeClock()
    with kubenb.embedded(replay=path, speed=2.0,
                         replay_options={"clock": clock, "autoplay": False}) as cluster:
        replay = cluster.replay
        assert _rvs(cluster) == {"a": "40"}
        assert replay.position == 0.0
        stepped = replay.step()
        assert [(a.kind, a.type, a.key, a.rv) for a in stepped] == [
            ("apply", "ADDED", "default/b", 51)]
        assert _rvs(cluster) == {"a": "40", "b": "51"} and replay.position == 10.0
        replay.play()
        clock.step(4.0)  # 8 recorded seconds at speed 2: not yet at 20.0
        assert _rvs(cluster)["a"] == "40"
        wait_until(lambda: clock.has_waiters(), what="the player waiting on the clock")
        clock.step(1.0)
        wait_until(lambda: _rvs(cluster)["a"] == "55", what="the MODIFIED at 00:20")
        replay.pause()
        clock.step(100.0)
        assert "b" in _rvs(cluster), "paused: nothing happens however long"
        assert replay.position == 20.0
        assert replay.state_at().index.tolist() == ["default/a", "default/b"]
        replay.seek("00:30")
        assert _rvs(cluster) == {"a": "55"} and replay.done
        assert replay.state_at("00:15")["NAME"].tolist() == ["a", "b"]


def test_resource_versions_resume_and_410_after_a_replay(tmp_path: Path) -> None:
    path = _two_step_recording(tmp_path)
    with kubenb.embedded(replay=path, speed=None) as cluster:
        cluster.replay.play()
        assert cluster.replay.wait(10)
        configmaps = cluster.resource("configmaps", namespace="default")
        with configmaps.watch(resource_version="51") as watch:  # resume mid-history
            events = []
            for event in watch:
                events.append((event.type, event.object["metadata"]["name"],
                               event.object["metadata"]["resourceVersion"]))
                if len(events) == 2:
                    break
        assert events == [("MODIFIED", "a", "55"), ("DELETED", "b", "60")]
        with pytest.raises(Gone), configmaps.watch(resource_version="49") as watch:
            next(iter(watch))  # before the recording's first list: compacted away
        exact = configmaps.list(resource_version="51", resource_version_match="Exact")
        assert sorted(i["metadata"]["name"] for i in exact["items"]) == ["a", "b"]
        # kubectl-style raw request: the recorded objects, as recorded
        url = cluster.config.server + "/api/v1/namespaces/default/configmaps/a"
        assert requests.get(url, timeout=5).json()["data"] == {"v": "2"}


def test_recorded_bookmarks_and_errors_reach_raw_watches(tmp_path: Path) -> None:
    records = [
        {"t": 0.0, "r": 0, "op": "list", "rv": "10", "items": []},
        {"t": 0.0, "r": 0, "op": "watch", "rv": "10"},
        {"t": 0.1, "r": 0, "op": "event", "type": "BOOKMARK",
         "object": {"kind": "ConfigMap", "apiVersion": "v1",
                    "metadata": {"resourceVersion": "17"}}},
        {"t": 0.2, "r": 0, "op": "error", "during": "watch", "code": 410, "status": GONE},
    ]
    path = write_recording(tmp_path / "b.jsonl.gz", [CONFIGMAPS], records)
    with EmbeddedServer(bookmark_interval=1e9) as server:
        replay = server.replay(path, speed=None, autoplay=False)
        url = server.url + "/api/v1/namespaces/default/configmaps"
        with requests.get(url, params={"watch": "true", "resourceVersion": "10",
                                       "allowWatchBookmarks": "true"},
                          stream=True, timeout=10) as response:
            wait_until(lambda: server.storage.watch_count == 1, what="watch open")
            replay.play()
            lines = [line for line in response.iter_lines() if line]
        assert decode_event(lines[0]).type == "BOOKMARK"
        assert decode_event(lines[0]).object["metadata"]["resourceVersion"] == "17"
        with pytest.raises(Gone):
            decode_event(lines[1])
        assert len(lines) == 2, "the stream ends after the ERROR"
        assert server.storage.resource_version == 17


def test_snapshot_is_the_state_at_one_instant(tmp_path: Path) -> None:
    path = _two_step_recording(tmp_path)
    with kubenb.embedded(snapshot=path, at="00:25") as cluster:
        assert _rvs(cluster) == {"a": "55", "b": "51"}
        assert cluster.replay.done and cluster.replay.actions == []
        frame = cluster.frame("configmaps", namespace="default", progress=False)
        wait_until(lambda: len(frame.df) >= 2, what="frame rows")
        assert {"a", "b"} <= set(frame.df["NAME"])
    with kubenb.embedded(snapshot=path) as cluster:  # the end of the recording
        assert _rvs(cluster) == {"a": "55"}


def test_replay_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    path = _two_step_recording(tmp_path)
    with kubenb.embedded(replay=path, speed=None,
                         replay_options={"autoplay": False}) as cluster:
        cluster.replay.seek(20)
        with pytest.raises(RecordingError, match="cannot seek back"):
            cluster.replay.seek(5)
    with pytest.raises(kubenb.errors.KubenbError, match="not both"):
        kubenb.embedded(replay=path, snapshot=path)
    bad = write_recording(tmp_path / "bad.jsonl.gz", [CONFIGMAPS], [
        {"t": 0.0, "r": 0, "op": "list", "rv": "abc", "items": []}])
    with EmbeddedServer() as server, pytest.raises(RecordingError, match="integer"):
        server.replay(bad)
    from kubenb.recording import ResourceSpec

    crd = write_recording(tmp_path / "crd.jsonl.gz", [ResourceSpec(
        "example.com/v1", "foos", "Foo")], [])
    with EmbeddedServer() as server, pytest.raises(RecordingError, match="does not serve"):
        server.replay(crd)


# -- faults while recording a live informer ------------------------------------------------

STEPS = st.lists(st.sampled_from(["create", "update", "delete", "drop", "gone", "fail"]),
                 min_size=1, max_size=7)


def _record_live(path: Path, steps: list[str]) -> dict[str, int]:
    """Record an informer over the embedded server while `steps` happen; returns how
    many of each fault were made."""
    from kubenb.cache.backoff import ExponentialBackoff
    from kubenb.cache.listwatch import ListWatch
    from kubenb.cache.shared_informer import SharedIndexInformer
    from kubenb.client.config import load_config
    from kubenb.client.dynamic import DynamicClient
    from kubenb.recording import Recorder

    made = {"drop": 0, "gone": 0, "fail": 0}
    with EmbeddedServer(bookmark_interval=0.3, history_window=1000) as server:
        dynamic = DynamicClient(load_config(server.kubeconfig_path))
        recorder = Recorder(path, [CONFIGMAPS]).start()
        configmaps = dynamic.resource("v1", "configmaps").namespace("default")
        informer = SharedIndexInformer(
            recorder.list_watcher(0, ListWatch.from_client(
                dynamic.resource("v1", "configmaps"), namespace="default")),
            backoff=ExponentialBackoff(initial=0.01, cap=0.05))
        informer.start()
        try:
            wait_until(informer.has_synced, 10, what="sync")
            reflector = informer.get_controller().reflector
            names = iter(f"cm-{i}" for i in range(100))

            def counter(name: str) -> int:
                return int(reflector.stats().get(name, 0))

            def cached(name: str) -> Any:
                return informer.get_indexer().get_by_key(f"default/{name}")

            def create() -> str:
                name = next(names)
                configmaps.create({"metadata": {"name": name}, "data": {"v": "0"}})
                wait_until(lambda: cached(name) is not None, 10, what=f"{name} cached")
                return name

            def watching() -> None:
                wait_until(lambda: server.storage.watch_count == 1, 10, what="a watch")

            live: list[str] = []
            for step in steps:
                if step == "create" or (step in ("update", "delete") and not live):
                    live.append(create())
                elif step == "update":
                    configmaps.patch(live[0], {"data": {"v": step}})
                    wait_until(lambda: cached(live[0])["data"]["v"] == "update", 10,
                               what="update cached")
                elif step == "delete":
                    name = live.pop()
                    configmaps.delete(name)
                    wait_until(lambda n=name: cached(n) is None, 10, what="delete cached")
                else:
                    watching()
                    live.append(create())  # not a "very short watch": it had an event
                    lists, resumes = counter("lists"), counter("resumes")
                    if step == "drop":
                        server.drop_watches()
                        wait_until(lambda r=resumes: counter("resumes") > r, 10,
                                   what="resume")
                    elif step == "fail":  # past the REST client's three retries
                        server.faults.fail("watch", code=500, count=4)
                        server.drop_watches()
                        wait_until(lambda n=lists: counter("lists") > n, 10, what="relist")
                    else:  # gone: the resume is held while history is compacted
                        server.faults.latency(30.0, verb="watch")
                        server.drop_watches()
                        wait_until(lambda: server.faults.stats()["delayed"] >= 1, 10,
                                   what="held resume")
                        live.append(next(names))
                        configmaps.create({"metadata": {"name": live[-1]}})
                        server.compact()
                        server.faults.clear()
                        wait_until(lambda n=lists: counter("lists") > n, 10,
                                   what="relist after 410")
                    made[step] += 1
            watching()
            state = {f"default/{o['metadata']['name']}": o["metadata"]["resourceVersion"]
                     for o in configmaps.list()["items"]}
            wait_until(lambda: {k: informer.get_indexer().get_by_key(k)["metadata"][
                "resourceVersion"] for k in informer.get_indexer().list_keys()} == state,
                10, what="the cache to settle")
        finally:
            recorder.stop()
            informer.stop()
            dynamic.rest.close()
    return made


@pytest.mark.slow
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # no slow shrinking
@example(steps=["gone", "fail", "drop", "update", "delete"])  # every fault, always
@given(steps=STEPS)
def test_faults_while_recording_are_in_the_file_and_replay_as_such(
        tmp_path_factory: pytest.TempPathFactory, steps: list[str]) -> None:
    folder = tmp_path_factory.mktemp("live")
    made = _record_live(folder / "live.jsonl.gz", steps)
    original = Recording.read(folder / "live.jsonl.gz")
    entries = original.entries
    errors = [(e.during, e.code) for e in entries if e.op == "error"]
    assert errors.count(("watch", 410)) == made["gone"]
    assert errors.count(("watch-open", 500)) == made["fail"]
    assert [e.op for e in entries].count("list") == 1 + made["gone"] + made["fail"]
    for i, e in enumerate(entries):  # every error is followed by the relist it caused
        if e.op == "error":
            assert entries[i + 1].op == "list"
    closed = sum(1 for e in entries if e.op == "end" and e.reason == "closed")
    assert closed >= made["drop"] + made["gone"] + made["fail"]

    run = replay_through_informers(folder / "live.jsonl.gz", folder / "out.jsonl.gz")
    assert_replayed(run.recording, original)
    assert run.caches == [original.final_state()]


@needs_kubectl
def test_a_redacted_secret_replays_as_valid_data(tmp_path: Path) -> None:
    """Secret `data` must be base64: its values are redacted to "<redacted>" in base64."""
    path = tmp_path / "secrets.jsonl.gz"
    with kubenb.embedded(controllers=False) as cluster:
        recorder = cluster.record("secrets", path, namespace="default")
        cluster.informer("secrets", namespace="default")
        cluster.resource("secrets", namespace="default").create(
            {"metadata": {"name": "db"}, "data": {"apikey": "czNjcjN0"},
             "stringData": {"user": "admin"}})
        wait_until(lambda: recorder.events == 1, what="the Secret's ADDED")
        recorder.stop()
    with kubenb.embedded(replay=path, speed=None) as cluster:
        cluster.informer("secrets", namespace="default")
        assert cluster.replay.wait(10), cluster.replay
        kubectl = Kubectl(cluster.server.kubeconfig_path, tmp_path / "kube-cache")
        shown = kubectl("get", "secret", "db", "-n", "default", "-o",
                        "go-template={{range $k, $v := .data}}{{$k}}={{$v | base64decode}} "
                        "{{end}}").stdout
    assert shown.split() == [f"apikey={REDACTED}", f"user={REDACTED}"]
