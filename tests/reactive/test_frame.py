"""LiveFrame: equal to the informer cache after churn (many seeds, relists, real HTTP),
never corrupted by concurrent updates, one observe() per batch, history, snapshots."""

from __future__ import annotations

import gc
import json
import random
import threading
import weakref
from typing import Any

import pytest

import kubenb
from kubenb.cache.keys import DeletedFinalStateUnknown
from kubenb.cache.shared_informer import InformerStateError
from kubenb.clock import FakeClock
from kubenb.errors import NoResourceMatchError
from kubenb.reactive import LiveFrame, Publisher, build_frame
from kubenb.reactive.columns import ColumnError, crd_printer_columns
from tests.cache.fake_source import FakeSource
from tests.helpers import collector, wait_until
from tests.reactive.support import (
    NOW,
    cache_matches,
    churn,
    make_pod,
    normalize,
    running_informer,
    settle,
)
from tests.realapi import REALAPI

EXTRA = {"NODE": "spec.nodeName", "IMAGES": "spec.containers[*].image",
         "APP": "metadata.labels.app"}


def assert_frame_equals_cache(frame: LiveFrame, informer: Any) -> None:
    expected = build_frame(informer.get_indexer().list(), frame.columns, NOW)
    actual = frame.df
    assert list(actual.columns) == list(frame.columns.names)
    assert normalize(actual) == normalize(expected)
    assert frame.count == len(expected) == len(frame)


@pytest.mark.parametrize("seed", range(16))
def test_liveframe_equals_the_informer_cache_after_churn(seed: int) -> None:
    rng = random.Random(seed)
    source = FakeSource()
    for i in range(20):
        source.add(make_pod(rng, f"seed{i}"))
    clock = FakeClock()
    with running_informer(source, clock) as informer:
        frame = LiveFrame(informer, kind="Pod", with_namespace=True, extra_columns=EXTRA,
                          history="STATUS", now=lambda: NOW, rate=200)
        try:
            churn(source, rng, 150)
            if seed % 4 == 0:
                # changes the watch never shows, then a 410: the relist must fix the frame
                victim = source.items[sorted(source.items)[0]]
                source.delete_drop_watch(victim)
                source.add_drop_watch(make_pod(rng, "hidden"))
                source.reset_watch()
                reflector = informer.get_controller().reflector
                wait_until(lambda: reflector.state == "backoff" and clock.has_waiters(),
                           what="the reflector to back off")
                clock.step(2.0)
            churn(source, rng, 150)
            wait_until(lambda: cache_matches(informer, source), what="the informer to catch up")
            settle(frame)
            assert_frame_equals_cache(frame, informer)
            wait_until(lambda: frame.synced, what="the frame to be marked synced")
            status = frame.df["STATUS"].value_counts().to_dict()
            assert frame.history is not None and frame.history.iloc[-1].to_dict() == status
        finally:
            frame.close()


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_liveframe_equals_the_cache_over_http_with_the_embedded_server(seed: int) -> None:
    clock = FakeClock()
    with kubenb.embedded(controllers={"kubelet"}, clock=clock) as cluster:
        cluster.server.seed_objects(30, seed=seed)
        informer = cluster.informer("pods")
        frame = LiveFrame(informer, kind="Pod", with_namespace=True, extra_columns=EXTRA,
                          now=lambda: NOW)
        try:
            generator = cluster.server.churn(kinds=("pods",), seed=seed, max_objects=60)
            for _ in range(4):
                generator.run(40)
                cluster.controllers.wait_idle()  # the kubelet bound what was made
                clock.step(1.0)  # and starts it now
            cluster.controllers.wait_idle()
            pods = cluster.resource("pods").list()
            want = {p["metadata"]["name"]: p["metadata"]["resourceVersion"]
                    for p in pods["items"]}
            wait_until(lambda: {o["metadata"]["name"]: o["metadata"]["resourceVersion"]
                                for o in informer.get_indexer().list()} == want,
                       what="the informer to catch up with the server")
            settle(frame)
            assert_frame_equals_cache(frame, informer)
            assert set(frame.df["STATUS"]) <= {"Pending", "Running", "ContainerCreating"}
        finally:
            frame.close()


def test_updates_from_ten_threads_at_once_never_corrupt_the_frame() -> None:
    """Ten writers on their own keys, a reader taking snapshots all along: every row of
    every snapshot comes from one version of one object, and the end state is exact."""
    frame = LiveFrame(None, {"V": "spec.v", "W": "status.v"}, rate=500)
    model: dict[str, int | None] = {}
    model_lock = threading.Lock()
    errors: list[str] = []
    stop_reading = threading.Event()

    def obj(key: str, version: int) -> dict[str, Any]:
        name = key.split("/")[1]
        return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": str(version)},
                "spec": {"v": version}, "status": {"v": version}}

    def writer(thread: int) -> None:
        rng = random.Random(thread)
        keys = [f"ns/t{thread}-{i}" for i in range(30)]
        state: dict[str, int | None] = dict.fromkeys(keys)
        for step in range(1, 600):
            key = rng.choice(keys)
            old = state[key]
            if old is None:
                frame.handler.on_add(obj(key, step), False)
                state[key] = step
            elif rng.random() < 0.2:
                frame.handler.on_delete(obj(key, old))
                state[key] = None
            else:
                frame.handler.on_update(obj(key, old), obj(key, step))
                state[key] = step
        with model_lock:
            model.update(state)

    def reader() -> None:
        while not stop_reading.is_set():
            df = frame.df
            torn = df[df["V"] != df["W"]]
            if len(torn) or not df.index.is_unique:
                errors.append(f"torn rows: {torn.head().to_dict('index')}")
                return

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(10)]
    watcher = threading.Thread(target=reader)
    watcher.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop_reading.set()
    watcher.join()
    frame.close()  # applies what is pending
    assert errors == []
    live = {k: v for k, v in model.items() if v is not None}
    assert normalize(frame.df) == {k: {"V": v, "W": v} for k, v in live.items()}
    assert frame.stats()["submitted"] > frame.stats()["published"]  # coalescing happened


def pod_obj(name: str, rv: str, phase: str = "Running") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": rv,
                         "creationTimestamp": "2026-11-22T11:00:00Z"},
            "spec": {"containers": [{"name": "c"}]}, "status": {"phase": phase}}


def test_observe_fires_once_per_applied_batch_on_the_publisher_thread() -> None:
    frame = LiveFrame(None, kind="Pod", now=lambda: NOW)
    calls: list[tuple[int, str, int]] = []
    done = threading.Event()

    def on_batch(change: Any) -> None:
        calls.append((change.new, threading.current_thread().name, len(change.owner.df)))
        done.set()

    frame.observe(on_batch)
    frame.handler.on_add(pod_obj("a", "1"), True)
    frame.handler.on_add(pod_obj("b", "2"), True)
    frame.handler.on_update(pod_obj("a", "1"), pod_obj("a", "3", "Failed"))
    assert done.wait(5)
    wait_until(lambda: frame.pending() == 0, what="everything applied")
    frame.flush()
    total = sum(n for _, _, n in calls[-1:])
    assert total == 2
    assert [n for n, _, _ in calls] == list(range(1, frame.batch + 1))
    assert calls[0][1].startswith("kubenb-publisher-")
    df = frame.df
    assert df.loc["ns/a", "STATUS"] == "Failed"
    assert df.loc["ns/a", "AGE"].total_seconds() == 3600
    frame.unobserve(on_batch)
    frame.handler.on_delete(pod_obj("a", "4"))
    frame.flush()
    assert len(calls) == frame.batch - 1 and list(frame.df.index) == ["ns/b"]
    frame.close()


def test_deletes_tombstones_and_no_op_resyncs() -> None:
    frame = LiveFrame(None, {"PHASE": "status.phase"}, publisher=Publisher(
        "manual", clock=FakeClock()))
    calls: list[int] = []
    frame.observe(lambda change: calls.append(change.new))
    a = pod_obj("a", "5")
    frame.handler.on_add(a, False)
    frame.flush()
    frame.handler.on_update(a, dict(a))  # a resync: same resourceVersion
    assert frame.pending() == 0 and frame.stats()["dropped_resyncs"] == 1
    frame.handler.on_delete(DeletedFinalStateUnknown("ns/a", a))  # missed while down
    frame.handler.on_add(pod_obj("b", "6"), False)
    frame.handler.on_delete(pod_obj("b", "7"))  # added and deleted within one batch
    frame.flush()
    assert len(frame) == 0 and frame.last_changes == {"added": 0, "updated": 0,
                                                      "deleted": 1}
    assert calls == [1, 2]
    frame.close()
    frame.publisher.stop()


def test_df_is_a_consistent_cached_snapshot_the_caller_may_change() -> None:
    frame = LiveFrame(None, {"PHASE": "status.phase"}, publisher=Publisher(
        "snap", clock=FakeClock()))
    frame.handler.on_add(pod_obj("a", "1"), False)
    frame.flush()
    first = frame.df
    first.loc["ns/a", "PHASE"] = "changed by the user"
    first["EXTRA"] = 1
    assert frame.df.loc["ns/a", "PHASE"] == "Running" and list(frame.df.columns) == ["PHASE"]
    assert frame._cache is not None
    cached = frame._cache
    again = frame.df  # no batch since: the same snapshot is reused
    assert frame._cache is cached and again.loc["ns/a", "PHASE"] == "Running"
    frame.handler.on_update(pod_obj("a", "1"), pod_obj("a", "2", "Succeeded"))
    frame.flush()
    assert frame.df.loc["ns/a", "PHASE"] == "Succeeded" and frame._cache is not cached
    assert frame.row("ns/a") == {"PHASE": "Succeeded"} and "ns/a" in frame
    frame.close()
    frame.publisher.stop()


def test_history_counts_rows_per_group_over_time() -> None:
    times = iter(range(1000, 2000))
    frame = LiveFrame(None, {"PHASE": "status.phase"}, history="PHASE",
                      now=lambda: float(next(times)), publisher=Publisher(
                          "history", clock=FakeClock()))
    frame.handler.on_add(pod_obj("a", "1", "Pending"), False)
    frame.handler.on_add(pod_obj("b", "2", "Pending"), False)
    frame.flush()
    frame.handler.on_update(pod_obj("a", "1", "Pending"), pod_obj("a", "3", "Running"))
    frame.flush()
    frame.handler.on_delete(pod_obj("b", "4", "Pending"))
    frame.flush()
    history = frame.history
    assert history is not None
    assert history.to_dict("list") == {"Pending": [2, 1, 0], "Running": [0, 1, 1]}
    assert history.index.name == "time" and str(history.index.tz) == "UTC"
    by_path = LiveFrame(None, {"NAME": "metadata.name"}, history="spec.nodeName",
                        publisher=Publisher("h2", clock=FakeClock()))
    by_path.handler.on_add({"metadata": {"name": "x", "resourceVersion": "1"},
                            "spec": {"nodeName": "n1"}}, False)
    by_path.flush()
    assert by_path.history.iloc[-1].to_dict() == {"n1": 1}
    assert LiveFrame(None, {"N": "metadata.name"}, publisher=by_path.publisher).history is None
    with pytest.raises(ColumnError, match="history= must be"):
        LiveFrame(None, {"N": "metadata.name"}, history=3, publisher=by_path.publisher)
    for view in (frame, by_path):
        view.close()
        view.publisher.stop()


def test_repr_and_kind_guess() -> None:
    source = FakeSource()
    source.add(pod_obj("a", ""))
    with running_informer(source) as informer:
        frame = LiveFrame(informer, now=lambda: NOW)
        try:
            settle(frame)
            assert frame.kind == "Pod" and frame.columns.names[:3] == ("NAME", "READY",
                                                                        "STATUS")
            assert "LiveFrame(Pod, rows=1" in repr(frame) and "<table" in frame._repr_html_()
        finally:
            frame.close()
    assert "closed" in repr(frame)


def test_a_custom_resource_gets_its_crds_printer_columns_over_http() -> None:
    objects = REALAPI / "objects"
    crd = json.loads((objects / "crd-create.json").read_text())["request"]["body"]
    foo = json.loads((objects / "foo-create.json").read_text())["request"]["body"]
    with kubenb.embedded() as cluster:
        cluster.resource("customresourcedefinitions").create(crd)
        wait_until(lambda: _served(cluster, "foos"), what="the CRD to be served")
        cluster.resource("foos").create(foo)
        info = cluster.resource_info("foos")
        stored = cluster.resource("customresourcedefinitions").get(
            f"{info.resource}.{info.group}")
        frame = LiveFrame(cluster.informer("foos"), kind=info.kind, group=info.group,
                          printer_columns=crd_printer_columns(stored, info.version))
        try:
            wait_until(lambda: frame.synced, what="the frame to sync")
            df = frame.df
            assert list(df.columns) == ["NAME", "DEPLOYMENT", "REPLICAS", "AVAILABLE", "AGE"]
            row = normalize(df)[f"default/{foo['metadata']['name']}"]
            assert (row["DEPLOYMENT"], row["REPLICAS"]) == (foo["spec"]["deploymentName"],
                                                            foo["spec"]["replicas"])
            assert row["AVAILABLE"] is None and 0 <= row["AGE"].total_seconds() < 600
        finally:
            frame.close()


def _served(cluster: Any, name: str) -> bool:
    try:
        cluster.resource_info(name)  # the mapper asks discovery again when it misses
    except NoResourceMatchError:
        return False
    return True


def test_a_stopped_informer_is_refused_without_leaving_a_thread() -> None:
    source = FakeSource()
    with running_informer(source) as informer:
        pass
    with pytest.raises(InformerStateError, match="stopped already"):
        LiveFrame(informer, kind="Pod")


@pytest.mark.parametrize("shared", [False, True])
def test_a_view_may_close_itself_from_its_own_observer(shared: bool) -> None:
    publisher = Publisher("shared").start() if shared else None
    frame = LiveFrame(None, {"N": "metadata.name"}, publisher=publisher)
    closed = threading.Event()

    def close_on_first_batch(change: Any) -> None:
        change.owner.close()
        closed.set()

    frame.observe(close_on_first_batch)
    frame.handler.on_add({"metadata": {"name": "a", "resourceVersion": "1"}})
    assert closed.wait(5) and frame.closed
    frame.handler.on_add({"metadata": {"name": "b", "resourceVersion": "2"}})  # dropped
    assert frame.pending() == 0 and list(frame.df.index) == ["a"]
    if publisher is not None:
        publisher.stop()


def test_a_frame_of_a_built_in_informer_gets_kubectls_columns_even_when_empty() -> None:
    """List items carry no kind, and an empty cache has no object to ask: the frame reads
    the kind from the informer's resource, so pods show READY / STATUS / RESTARTS."""
    with kubenb.embedded() as cluster:
        informer = cluster.informer("pods", namespace="empty")
        frame = LiveFrame(informer, with_namespace=True)
        try:
            assert frame.kind == "Pod"
            assert {"READY", "STATUS", "RESTARTS", "AGE"} <= set(frame.columns.names)
        finally:
            frame.close()


def test_a_closed_frame_and_its_stopped_informer_are_freed_without_the_collector() -> None:
    rng = random.Random(7)
    source = FakeSource()
    for i in range(20):
        source.add(make_pod(rng, f"p{i}"))
    gc.collect()
    with collector(False):
        with running_informer(source) as informer:
            frame = LiveFrame(informer, kind="Pod", with_namespace=True, now=lambda: NOW)
            settle(frame)
            assert frame.count == 20
            frame.close()
        frame_ref, informer_ref = weakref.ref(frame), weakref.ref(informer)
        del frame, informer
        wait_until(lambda: frame_ref() is None and informer_ref() is None,
                   what="the closed frame and the stopped informer to be freed")


def test_a_new_frame_holds_the_whole_synced_cache_when_made_and_after_flush() -> None:
    """The first rows of a frame on a synced informer come on the informer's listener
    thread; `cluster.frame` and `flush()` wait for that listener's initial adds, so a
    frame never starts short of its cache."""
    with kubenb.embedded(controllers=False) as cluster:
        cluster.server.seed_objects(40, kind="pods", namespace="default")
        cluster.informer("pods")  # the informer has synced before each frame is made
        for _ in range(15):
            frame = cluster.frame("pods", progress=False, rate=0.5)
            assert len(frame.df) == 40
            frame.close()
        informer = cluster.informer("pods")
        for _ in range(15):
            view = LiveFrame(informer, rate=0.5)
            view.flush()
            assert len(view.df) == 40 and view.synced
            view.close()


def test_a_frame_shows_kubectls_none_where_a_path_finds_nothing_and_keeps_none_in_df() -> None:
    with kubenb.embedded(controllers=False) as cluster:
        cluster.resource("pods").create({"metadata": {"name": "p"},
                                         "spec": {"containers": [{"name": "c", "image": "x"}]}})
        frame = cluster.frame("pods", extra_columns={"NODE": "spec.nodeName"}, progress=False)
        assert frame.df["NODE"].isna().all()  # pandas' missing value, for isna()
        html = frame._repr_html_()
        assert "&lt;none&gt;" in html and "None" not in html
