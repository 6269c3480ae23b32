"""The Reflector against client-go's ListAndWatch behaviours (spec section G, 49-72).

Scenarios mirror client-go's reflector_test.go and reflector_watchlist_test.go. The
ListerWatcher is `FakeSource` (tests/cache/fake_source.py); time (backoff, resync,
very short watches) is a FakeClock, stepped by the test. Real time is spent only in
`wait_until`, waiting for the reflector thread to reach a state.

The sections at the end go over real HTTP instead: the embedded server, kube-apiserver's
recorded watch-list stream replayed by `chunked_server`, and a raw-socket server
(`scripted_server`) that resets watches or holds requests, so that very short watches and
stopping in the middle of a request are seen as a cluster would cause them.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import random
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import requests

from kubenb.cache.backoff import ExponentialBackoff
from kubenb.cache.factory import SharedInformerFactory
from kubenb.cache.fifo import FIFO
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.reflector import ListError, Reflector
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.cache.store import Store, new_store
from kubenb.client.config import Config, load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.client.options import ListOptions
from kubenb.client.rest import RESTClient
from kubenb.client.watch import WatchEvent, event_from_frame
from kubenb.clock import FakeClock
from kubenb.errors import (
    ApiError,
    Forbidden,
    Gone,
    Invalid,
    ServerError,
    TooManyRequests,
    api_error_from_status,
)
from kubenb.server import EmbeddedServer
from tests.cache.fake_source import INITIAL_EVENTS_END, FakeSource, FakeWatch, pod, rv_of
from tests.client.rawserver import Answer, answering_server, chunked_server, json_answer
from tests.client.scripted_server import (
    NAMESPACE,
    Request,
    ScriptedServer,
    client_for,
    configmap,
    configmap_list,
    holding,
    scripted_server,
)
from tests.helpers import assert_no_new_threads, wait_until
from tests.realapi import REALAPI


class CountingBackoff:
    """Stands in for the backoff manager: counts calls and never waits."""

    def __init__(self) -> None:
        self.calls = 0

    def next(self) -> float:
        self.calls += 1
        return 0.0


class FixedRandom(random.Random):
    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def pods(n: int, start: int = 0) -> list[dict[str, Any]]:
    return [pod(f"pod-{i}", str(i)) for i in range(start, start + n)]


def pod_list(rv: str, items: list[dict[str, Any]], cont: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"resourceVersion": rv}
    if cont:
        meta["continue"] = cont
    return {"kind": "PodList", "apiVersion": "v1", "metadata": meta, "items": items}


def stop_on_watch(source: FakeSource, stop: threading.Event, after: int = 0) -> None:
    """Like the Go tests' WatchFunc that closes stopCh: once `after` watches were
    served normally, every further watch call sets `stop` (and gets an idle watch)."""
    served = [0]

    def hook(options: ListOptions) -> Any:
        if served[0] < after:
            served[0] += 1
            return None
        stop.set()
        return FakeWatch(options)

    source.watch_hook = hook


def list_once(reflector: Reflector, source: FakeSource) -> None:
    """One `list_and_watch` that lists, opens its watch and stops there."""
    stop = threading.Event()
    stop_on_watch(source, stop)
    reflector.list_and_watch(stop)


def lister(answers: dict[Any, Any], key: Callable[[ListOptions], Any] = lambda o: (
        o.resource_version)) -> Callable[[ListOptions], dict[str, Any]]:
    """A list_hook answering by `key(options)`; an exception value is raised."""

    def hook(options: ListOptions) -> dict[str, Any]:
        answer = answers[key(options)]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return hook


class RecordingStore(Store):
    """A Store that records replace() and update_resource_version() calls."""

    def __init__(self) -> None:
        super().__init__()
        self.replaced: list[tuple[list[str], str]] = []
        self.resource_versions: list[str] = []
        self.before_replace: Callable[[str], None] | None = None

    def replace(self, objs: Any, resource_version: str = "") -> None:
        objs = list(objs)
        if self.before_replace is not None:
            self.before_replace(resource_version)
        super().replace(objs, resource_version)
        self.replaced.append((sorted(self.list_keys()), resource_version))

    def update_resource_version(self, resource_version: str) -> None:
        self.resource_versions.append(resource_version)


@contextmanager
def running(reflector: Reflector, method: str = "run") -> Iterator[dict[str, Any]]:
    """Run `reflector.run` (or `list_and_watch`) on a thread; stop and join it after."""
    stop = threading.Event()
    result: dict[str, Any] = {"stop": stop}

    def target() -> None:
        try:
            getattr(reflector, method)(stop)
        except BaseException as err:
            result["error"] = err

    thread = threading.Thread(target=target, name="test-reflector")
    result["thread"] = thread
    thread.start()
    try:
        yield result
    finally:
        stop.set()
        thread.join(5)
        assert not thread.is_alive(), "the reflector did not stop"


def in_backoff(reflector: Reflector, clock: FakeClock) -> bool:
    return reflector.state == "backoff" and clock.has_waiters()


# -- G49-G55: listing -------------------------------------------------------------------


def test_g049_first_list_uses_rv_0_then_the_last_synced_rv() -> None:
    source = FakeSource()
    source.list_hook = lister({"0": pod_list("10", pods(4)), "10": pod_list("11", pods(8))})
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock())
    assert reflector.last_sync_resource_version() == ""

    list_once(reflector, source)
    assert len(store.list()) == 4
    assert reflector.last_sync_resource_version() == "10"
    list_once(reflector, source)
    assert len(store.list()) == 8
    assert [o.resource_version for o in source.list_calls] == ["0", "10"]


def test_g050_expired_exact_rv_list_retries_at_once_with_empty_rv() -> None:
    source = FakeSource()
    source.list_hook = lister({
        "0": pod_list("10", pods(4)),
        "10": Gone(410, "Expired", "The resourceVersion for the provided watch is too old."),
        "": pod_list("11", pods(8)),
    })
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock())
    list_once(reflector, source)
    assert len(store.list()) == 4
    list_once(reflector, source)  # one list_and_watch: both requests, no error
    assert len(store.list()) == 8
    assert [o.resource_version for o in source.list_calls] == ["0", "10", ""]
    assert reflector.relist_resource_version() == "11"  # a good list clears the flag


def too_large(form: str) -> ApiError:
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                            "code": 504, "reason": "Timeout",
                            "message": "too large resource version", "details": {}}
    if form == "cause-type":
        body["details"]["causes"] = [{"type": "ResourceVersionTooLarge"}]
    elif form == "cause-message":
        body["details"]["causes"] = [{"message": "Too large resource version"}]
    else:
        body["message"] = "Too large resource version"
    return api_error_from_status(504, body)


def test_g051_too_large_rv_in_all_three_forms_relists_with_empty_rv() -> None:
    version = [30]

    def hook(options: ListOptions) -> dict[str, Any]:
        rv = options.resource_version
        if rv == "0":
            return pod_list("20", [])
        if rv in ("20", "30", "40"):
            raise too_large({"20": "cause-type", "30": "cause-message", "40": "message"}[rv])
        assert rv == ""
        answer = pod_list(str(version[0]), [])
        version[0] += 10
        return answer

    source = FakeSource()
    source.list_hook = hook
    reflector = Reflector(source, new_store(), clock=FakeClock())
    for _ in range(4):
        list_once(reflector, source)
    assert [o.resource_version for o in source.list_calls] == [
        "0", "20", "", "30", "", "40", ""]


def test_g052_expired_continuation_falls_back_to_a_full_list_at_the_original_rv() -> None:
    all_pods = pods(8)
    source = FakeSource()
    source.list_hook = lister({
        ("0", "", 4): pod_list("10", all_pods[:4]),
        ("10", "", 4): pod_list("11", all_pods[:4], cont="C1"),
        ("", "C1", 4): Gone(410, "Expired", "The provided continue parameter is too old"),
        ("10", "", 0): pod_list("11", all_pods),
    }, key=lambda o: (o.resource_version, o.continue_, o.limit))
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock(), page_size=4)
    list_once(reflector, source)
    assert len(store.list()) == 4
    list_once(reflector, source)
    assert len(store.list()) == 8
    assert [o.resource_version for o in source.list_calls] == ["0", "10", "", "10"]


def test_g053a_explicit_page_size_is_used_on_every_page_whatever_the_rv() -> None:
    source = FakeSource()
    for p in pods(10):
        source.add(p)
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock(), page_size=4)
    list_once(reflector, source)  # RV "0"
    list_once(reflector, source)  # RV "10"
    assert len(store.list()) == 10
    calls = source.list_calls
    assert [o.limit for o in calls] == [4] * 6
    assert [o.resource_version for o in calls] == ["0", "", "", "10", "", ""]
    # G54: continuation pages carry `continue` and drop resourceVersion(Match)
    assert [bool(o.continue_) for o in calls] == [False, True, True] * 2
    assert all(o.resource_version_match == "" for o in calls)


def test_g053b_paginated_rv0_list_keeps_the_default_page_size_later() -> None:
    items = pods(10)
    pages = {"": pod_list("10", items[0:4], "C1"), "C1": pod_list("10", items[4:8], "C2"),
             "C2": pod_list("10", items[8:10])}
    source = FakeSource()
    source.list_hook = lister(pages, key=lambda o: o.continue_)
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock())
    list_once(reflector, source)
    assert len(store.list()) == 10
    list_once(reflector, source)
    assert len(store.list()) == 10
    assert [o.limit for o in source.list_calls] == [500] * 6
    assert source.list_calls[3].resource_version == "10"


def test_g053c_non_paginated_relist_at_an_rv_sends_no_limit() -> None:
    source = FakeSource()
    for p in pods(3):
        source.add(p)
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock())
    list_once(reflector, source)
    list_once(reflector, source)
    first, second = source.list_calls
    assert (first.resource_version, first.limit) == ("0", 500)  # G53d
    assert (second.resource_version, second.limit) == ("3", 0)  # may use the watch cache
    assert len(store.list()) == 3


# -- G56-G58: the watch and its events ---------------------------------------------------


@pytest.mark.parametrize(("min_timeout", "low"), [(None, 300), (1.0, 300), (1800.0, 1800)])
def test_g056_watch_parameters(min_timeout: float | None, low: int) -> None:
    for value in (0.0, 0.5, 0.999999):
        source = FakeSource()
        source.list_hook = lister({"0": pod_list("10", [])})
        options: dict[str, Any] = {} if min_timeout is None else {
            "min_watch_timeout": min_timeout}
        reflector = Reflector(source, new_store(), clock=FakeClock(), rand=FixedRandom(value),
                              **options)
        list_once(reflector, source)
        (watch,) = source.watch_calls
        assert watch.resource_version == "10"
        assert watch.allow_watch_bookmarks is True
        assert watch.timeout_seconds is not None
        assert low <= watch.timeout_seconds <= 2 * low
        (listed,) = source.list_calls
        assert listed.resource_version_match == ""  # regular lists never send a match
        assert listed.timeout_seconds is None and not listed.allow_watch_bookmarks


def test_g057_watch_events_reach_the_store_and_move_the_rv() -> None:
    source = FakeSource()
    source.list_hook = lister({"0": pod_list("1", [pod("foo", "1"), pod("bar", "1")])})
    rejected = {"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": "rejected", "namespace": "ns", "resourceVersion": "99"}}
    source.script_watch(WatchEvent("ADDED", rejected),
                        WatchEvent("DELETED", pod("foo", "2")),
                        WatchEvent("MODIFIED", pod("bar", "55")),
                        WatchEvent("ADDED", pod("baz", "32")), close=True)
    stop = threading.Event()
    stop_on_watch(source, stop, after=1)
    store = new_store()
    reflector = Reflector(source, store, expected_type=("v1", "Pod"), clock=FakeClock())
    reflector.list_and_watch(stop)

    assert store.get_by_key("ns/foo") is None
    assert store.get_by_key("ns/rejected") is None
    assert rv_of(store.get_by_key("ns/bar")) == "55"
    assert rv_of(store.get_by_key("ns/baz")) == "32"
    assert reflector.last_sync_resource_version() == "32"
    assert reflector.stats()["events_dropped_wrong_type"] == 1
    # the closed watch was resumed from the last accepted event's RV
    assert source.watch_calls[1].resource_version == "32"


def test_g058_every_event_rv_reaches_a_resource_version_updater() -> None:
    source = FakeSource()
    source.list_hook = lister({"0": pod_list("10", [])})
    bookmark = {"apiVersion": "v1", "kind": "Pod", "metadata": {"resourceVersion": "30"}}
    source.script_watch(WatchEvent("ADDED", pod("a", "10")), WatchEvent("MODIFIED", pod("a", "20")),
                        WatchEvent("BOOKMARK", bookmark), WatchEvent("DELETED", pod("a", "40")),
                        close=True)
    stop = threading.Event()
    stop_on_watch(source, stop, after=1)
    store = RecordingStore()
    reflector = Reflector(source, store, clock=FakeClock())
    reflector.list_and_watch(stop)
    assert store.resource_versions == ["10", "20", "30", "40"]
    assert reflector.last_sync_resource_version() == "40"
    assert store.list() == []  # a bookmark is not an object


def test_g059_closed_watch_resumes_from_the_last_rv_without_relist() -> None:
    source = FakeSource()
    source.last_rv = 1
    fifo = FIFO()
    reflector = Reflector(source, fifo, clock=FakeClock())
    with running(reflector):
        wait_until(lambda: len(source.open_watches()) == 1, what="first watch")
        source.add(pod("foo"))
        source.add(pod("bar"))
        wait_until(lambda: reflector.last_sync_resource_version() == "3", what="rv 3")
        source.close_watches()  # the server ends the stream
        wait_until(lambda: len(source.watch_calls) == 2 and source.open_watches(),
                   what="second watch")
        for name in ("baz", "qux", "zoo"):
            source.add(pod(name))
        popped = [fifo.pop(lambda obj, initial: None) for _ in range(5)]

    assert [o.resource_version for o in source.watch_calls] == ["1", "3"]
    assert len(source.list_calls) == 1
    assert [(p["metadata"]["name"], rv_of(p)) for p in popped] == [
        ("foo", "2"), ("bar", "3"), ("baz", "4"), ("qux", "5"), ("zoo", "6")]
    assert reflector.stats()["resumes"] >= 1


# -- G60-G65: watch errors ---------------------------------------------------------------


def test_g060_error_event_ends_and_stops_the_watch() -> None:
    with pytest.raises(ApiError) as caught:  # an ERROR event carrying a Pod, not a Status
        event_from_frame({"type": "ERROR", "object": pod("bar")})
    source = FakeSource()
    source.list_hook = lister({"0": pod_list("1", [])})
    source.script_watch(caught.value)
    reflector = Reflector(source, new_store(), clock=FakeClock())
    reflector.list_and_watch(threading.Event())  # returns: run() would relist

    (watch,) = source.watches
    assert watch.stopped
    assert reflector.stats()["watch_errors"] == 1
    assert "without a Status" in reflector.last_error


def test_g061_watch_error_relists_after_backoff_from_the_last_rv() -> None:
    clock = FakeClock()
    source = FakeSource()
    source.add(pod("a"))
    source.add(pod("b"))
    store = new_store()
    errors: list[BaseException] = []
    reflector = Reflector(source, store, clock=clock,
                          watch_error_handler=lambda r, err: errors.append(err))
    with running(reflector):
        wait_until(lambda: source.open_watches(), what="watch")
        source.add(pod("c"))
        wait_until(lambda: reflector.last_sync_resource_version() == "3", what="event")
        source.open_watches()[0].push(Gone(410, "Expired", "too old resource version: 1 (2)"))
        wait_until(lambda: in_backoff(reflector, clock), what="backoff")
        assert len(source.list_calls) == 1
        clock.step(1.601)  # past the first backoff, which is < 1.6 s
        wait_until(lambda: len(source.list_calls) == 2, what="relist")
        wait_until(lambda: len(source.open_watches()) == 1, what="watch after relist")
    assert source.list_calls[1].resource_version == "3"  # the last RV, not ""
    assert errors == []  # a watch-time 410 is not a ListAndWatch error
    assert sorted(store.list_keys()) == ["ns/a", "ns/b", "ns/c"]
    assert reflector.stats()["gone"] == 1


def test_g061_watch_call_error_goes_to_the_handler_and_relists_after_backoff() -> None:
    clock = FakeClock()
    source = FakeSource()
    denied = Forbidden(403, "Forbidden", "watch is forbidden")
    source.fail_watch(denied)
    errors: list[BaseException] = []
    reflector = Reflector(source, new_store(), clock=clock,
                          watch_error_handler=lambda r, err: errors.append(err))
    with running(reflector):
        wait_until(lambda: in_backoff(reflector, clock), what="backoff")
        assert errors == [denied]
        clock.step(1.601)
        wait_until(lambda: source.open_watches(), what="watch after relist")
    assert len(source.list_calls) == 2


def test_g062_very_short_watch_is_an_error_that_ends_list_and_watch() -> None:
    source = FakeSource()
    source.script_watch(close=True)  # closed at once, nothing delivered
    reflector = Reflector(source, new_store(), clock=FakeClock())
    reflector.list_and_watch(threading.Event())
    assert reflector.last_error == (
        "very short watch: fake pods: Unexpected watch close - watch lasted less than a "
        "second and no items received")
    assert len(source.watch_calls) == 1


def test_g062_a_quiet_watch_longer_than_a_second_is_resumed() -> None:
    clock = FakeClock()
    source = FakeSource()
    source.add(pod("a"))
    reflector = Reflector(source, new_store(), clock=clock)
    with running(reflector, "list_and_watch") as run:
        wait_until(lambda: source.open_watches(), what="watch")
        clock.step(1.0)
        source.close_watches()
        wait_until(lambda: len(source.watch_calls) == 2, what="resume")
    assert "error" not in run
    assert len(source.list_calls) == 1
    assert source.watch_calls[1].resource_version == "1"


def test_g063_429_on_the_watch_call_backs_off_without_relist() -> None:
    source = FakeSource()
    source.fail_watch(*[TooManyRequests(429, "TooManyRequests", "too many requests")] * 4)
    source.script_watch(close=True)  # the 5th watch ends at once (very short)
    backoff = CountingBackoff()
    reflector = Reflector(source, new_store(), clock=FakeClock(), backoff=backoff)
    reflector.list_and_watch(threading.Event())
    assert (len(source.list_calls), len(source.watch_calls)) == (1, 5)
    assert backoff.calls == 4


def test_g063_429_as_call_error_then_as_error_event_backs_off_twice() -> None:
    too_many = TooManyRequests(429, "TooManyRequests", "too many requests")
    source = FakeSource()
    source.fail_watch(too_many)
    source.script_watch(too_many)
    source.script_watch(close=True)
    backoff = CountingBackoff()
    reflector = Reflector(source, new_store(), clock=FakeClock(), backoff=backoff)
    reflector.list_and_watch(threading.Event())  # no error
    assert backoff.calls == 2
    assert len(source.list_calls) == 1


def test_g063_connection_refused_is_retried_like_429() -> None:
    source = FakeSource()
    source.fail_watch(requests.ConnectionError("[Errno 111] Connection refused"))
    source.script_watch(close=True)
    backoff = CountingBackoff()
    reflector = Reflector(source, new_store(), clock=FakeClock(), backoff=backoff)
    reflector.list_and_watch(threading.Event())
    assert (len(source.list_calls), len(source.watch_calls), backoff.calls) == (1, 2, 1)


def test_g064_list_error_is_wrapped_and_watch_call_error_returned_unchanged() -> None:
    source = FakeSource()
    cause = RuntimeError("a list error")
    source.fail_list(cause)
    reflector = Reflector(source, new_store(), clock=FakeClock())
    with pytest.raises(ListError) as listed:
        reflector.list_and_watch(threading.Event())
    assert listed.value.err is cause and listed.value.__cause__ is cause
    assert str(listed.value) == "failed to list fake pods: a list error"

    watch_error = Invalid(422, "Invalid", "a watch error")
    source.fail_watch(watch_error)
    with pytest.raises(Invalid) as watched:
        reflector.list_and_watch(threading.Event())
    assert watched.value is watch_error


def test_g064_table_of_list_and_watch_results_over_one_fifo() -> None:
    """client-go's TestReflectorListAndWatchWithErrors: each line's list is what the
    store holds after the previous line."""
    fifo = FIFO()
    table: list[dict[str, Any]] = [
        {"list": pod_list("1", []), "events": [("ADDED", pod("foo", "2")),
                                               ("ADDED", pod("bar", "3"))]},
        {"list": pod_list("3", [pod("foo", "2"), pod("bar", "3")]),
         "events": [("DELETED", pod("foo", "4")), ("ADDED", pod("qux", "5"))]},
        {"list_error": RuntimeError("a list error")},
        {"list": pod_list("5", [pod("bar", "3"), pod("qux", "5")]),
         "watch_error": Invalid(422, "Invalid", "a watch error")},
        {"list": pod_list("5", [pod("bar", "3"), pod("qux", "5")]),
         "events": [("ADDED", pod("baz", "6"))]},
        {"list": pod_list("6", [pod("bar", "3"), pod("qux", "5"), pod("baz", "6")])},
    ]
    for line in table:
        if "list" in line:
            have = {p["metadata"]["name"]: rv_of(p) for p in fifo.list()}
            want = {p["metadata"]["name"]: rv_of(p) for p in line["list"]["items"]}
            assert have == want
        source = FakeSource()
        stop = threading.Event()
        if "list_error" in line:
            source.fail_list(line["list_error"])
        else:
            source.list_hook = lambda options, answer=line["list"]: answer
        if "watch_error" in line:
            source.fail_watch(line["watch_error"])
        source.script_watch(*[WatchEvent(t, o) for t, o in line.get("events", [])], close=True)
        stop_on_watch(source, stop, after=1)
        reflector = Reflector(source, fifo, clock=FakeClock())
        if "list_error" in line:
            with pytest.raises(ListError):
                reflector.list_and_watch(stop)
        elif "watch_error" in line:
            with pytest.raises(Invalid):
                reflector.list_and_watch(stop)
        else:
            reflector.list_and_watch(stop)


@pytest.mark.parametrize(("max_duration", "rewind_at", "retries"),
                         [(0.0, 0, 0), (30.0, 0, 31), (30.0, 10, 40)])
def test_g065_internal_errors_are_rewatched_inside_the_retry_window(
        max_duration: float, rewind_at: int, retries: int) -> None:
    clock = FakeClock(1000.0)
    internal = api_error_from_status(500, {
        "kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 500,
        "reason": "InternalError", "message": "etcdserver: no leader"})
    assert isinstance(internal, ServerError)
    source = FakeSource()
    calls = [0]

    def hook(options: ListOptions) -> FakeWatch:
        calls[0] += 1
        if calls[0] == rewind_at:
            clock.step(60.0)
        clock.step(1.0)
        return FakeWatch(options, [internal])

    source.watch_hook = hook
    backoff = CountingBackoff()
    reflector = Reflector(source, new_store(), clock=clock, backoff=backoff,
                          max_internal_error_retry_duration=max_duration)
    reflector.list_and_watch(threading.Event())
    assert calls[0] - 1 == retries
    assert len(source.list_calls) == 1
    assert backoff.calls == 0  # internal-error re-watches do not back off


# -- G66-G69: backoff, resync, stop, relist ----------------------------------------------


@pytest.mark.parametrize(("failures", "low", "high"), [(5, 0.032, 0.064), (40, 3.5, 4.0)])
def test_g066_connection_refused_backoff_on_the_clock(failures: int, low: float,
                                                      high: float) -> None:
    clock = FakeClock()
    cap = 0.05
    backoff = ExponentialBackoff(initial=0.001, cap=cap, reset_after=0.1, factor=2.0,
                                 jitter=1.0, clock=clock, rand=random.Random(1))
    source = FakeSource()
    source.fail_watch(*[requests.ConnectionError("Connection refused")] * failures)
    reflector = Reflector(source, new_store(), clock=clock, backoff=backoff)
    with running(reflector, "list_and_watch") as run:
        steps = 0
        while len(source.watch_calls) <= failures:
            wait_until(lambda: clock.has_waiters() or len(source.watch_calls) > failures,
                       what="a backoff wait")
            if clock.has_waiters():
                clock.step(min(0.001 * 2 ** (steps + 1), 2 * cap))
                steps += 1
        elapsed = clock.now()
        wait_until(lambda: source.open_watches(), what="the watch after the failures")
    assert "error" not in run
    assert low <= elapsed <= high
    assert len(source.list_calls) == 1


def test_g066_run_lists_at_once_and_backs_off_from_when_list_and_watch_returned() -> None:
    clock = FakeClock()
    source = FakeSource()
    source.fail_list(RuntimeError("down"), RuntimeError("down"))
    backoff = ExponentialBackoff(clock=clock, rand=FixedRandom(0.0))  # 0.8 s, 1.6 s, ...
    reflector = Reflector(source, new_store(), clock=clock, backoff=backoff)
    with running(reflector):
        wait_until(lambda: in_backoff(reflector, clock), what="first backoff")
        assert len(source.list_calls) == 1  # the first attempt did not wait
        clock.step(0.78)
        assert len(source.list_calls) == 1
        clock.step(0.03)
        wait_until(lambda: len(source.list_calls) == 2, what="second list")
        wait_until(lambda: in_backoff(reflector, clock), what="second backoff")
        clock.step(1.57)
        assert len(source.list_calls) == 2
        clock.step(0.04)
        wait_until(lambda: source.open_watches(), what="watch")
    assert len(source.list_calls) == 3


class ResyncStore(Store):
    def __init__(self, fail_on: int = 0) -> None:
        super().__init__()
        self.resyncs = 0
        self.fail_on = fail_on

    def resync(self) -> None:
        self.resyncs += 1
        if self.resyncs == self.fail_on:
            raise RuntimeError("expected resync reached")


def test_g067_resync_every_period_and_a_resync_error_ends_the_watch() -> None:
    clock = FakeClock()
    source = FakeSource()
    store = ResyncStore(fail_on=2)
    reflector = Reflector(source, store, resync_period=0.001, clock=clock)
    with running(reflector, "list_and_watch") as run:
        # the watch first: a resync error that came before it would end ListAndWatch
        # with no watch to stop
        wait_until(lambda: source.watches, what="the watch to open")
        for expected in (1, 2):
            wait_until(clock.has_waiters, what="resync timer")
            clock.step(0.001)
            wait_until(lambda expected=expected: store.resyncs == expected, what="resync")
        run["thread"].join(5)
        assert not run["thread"].is_alive()  # ListAndWatch returned by itself
    assert "error" not in run
    assert store.resyncs == 2
    assert source.watches[0].stopped


def test_g067_should_resync_false_skips_and_period_zero_never_fires() -> None:
    clock = FakeClock()
    store = ResyncStore()
    asked: list[bool] = []

    def should_resync() -> bool:
        asked.append(True)
        return False

    reflector = Reflector(FakeSource(), store, resync_period=1.0, clock=clock,
                          should_resync=should_resync)
    with running(reflector):
        for n in (1, 2, 3):
            wait_until(clock.has_waiters, what="resync timer")
            clock.step(1.0)
            wait_until(lambda n=n: len(asked) == n, what="should_resync")
    assert store.resyncs == 0

    quiet = ResyncStore()
    source = FakeSource()
    reflector = Reflector(source, quiet, resync_period=0.0, clock=clock)
    with running(reflector):
        wait_until(lambda: source.open_watches(), what="watch")
        assert not clock.has_waiters()
        assert not [t for t in threading.enumerate() if "resync" in t.name]
    assert quiet.resyncs == 0


def test_g068_stop_before_list_and_watch_calls_nothing() -> None:
    source = FakeSource()
    stop = threading.Event()
    stop.set()
    Reflector(source, new_store(), clock=FakeClock()).list_and_watch(stop)
    assert source.list_calls == [] and source.watch_calls == []


def test_g068_stop_during_a_watch_stops_the_watcher() -> None:
    source = FakeSource()
    reflector = Reflector(source, new_store(), clock=FakeClock())
    with running(reflector, "list_and_watch") as run:
        wait_until(lambda: source.open_watches(), what="watch")
        run["stop"].set()
        run["thread"].join(2)
        assert not run["thread"].is_alive()
    assert "error" not in run
    assert source.watches[0].stopped


def test_g068_run_returns_after_stop_with_the_watch_stopped() -> None:
    source = FakeSource()
    reflector = Reflector(source, new_store(), clock=FakeClock())
    with running(reflector) as run:
        wait_until(lambda: source.open_watches(), what="watch")
        source.add(pod("bar"))
        wait_until(lambda: reflector.last_sync_resource_version() == "1", what="event")
        run["stop"].set()
        run["thread"].join(2)
        assert not run["thread"].is_alive()
    assert all(w.stopped for w in source.watches)
    assert reflector.state == "stopped"


def test_g069_relist_after_a_watch_error_replaces_the_store() -> None:
    clock = FakeClock()
    existing = [pod("foo-1", "1"), pod("foo-2", "2"), pod("foo-3", "3")]
    lists = [pod_list("3", existing), pod_list("5", existing)]
    source = FakeSource()
    source.last_rv = 5
    source.list_hook = lambda options: lists.pop(0)
    store_read_error = api_error_from_status(500, {
        "kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 500,
        "reason": "StoreReadError", "message": "failed to prepare current and previous "
        "objects: corrupt object has been deleted"})
    source.script_watch(WatchEvent("ADDED", pod("foo", "4")), store_read_error)
    store = RecordingStore()
    seen_before: list[list[str]] = []
    store.before_replace = lambda rv: seen_before.append(sorted(store.list_keys()))
    reflector = Reflector(source, store, clock=clock)
    with running(reflector):
        wait_until(lambda: in_backoff(reflector, clock), what="backoff")
        clock.step(1.601)
        wait_until(lambda: len(store.replaced) == 2, what="relist")
    assert seen_before[1] == ["ns/foo", "ns/foo-1", "ns/foo-2", "ns/foo-3"]
    assert store.replaced[1] == (["ns/foo-1", "ns/foo-2", "ns/foo-3"], "5")
    assert reflector.last_sync_resource_version() == "5"


def test_g070_last_sync_rv_is_empty_until_the_first_list() -> None:
    source = FakeSource()
    source.fail_list(RuntimeError("no"))
    reflector = Reflector(source, new_store(), clock=FakeClock())
    assert reflector.last_sync_resource_version() == ""
    with pytest.raises(ListError):
        reflector.list_and_watch(threading.Event())
    assert reflector.last_sync_resource_version() == ""
    assert reflector.relist_resource_version() == "0"


# -- G71-G72: streaming lists ----------------------------------------------------------


def end_bookmark(rv: str, value: str = "true") -> WatchEvent:
    return WatchEvent("BOOKMARK", {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "resourceVersion": rv, "annotations": {INITIAL_EVENTS_END: value}}})


def is_watch_list(options: ListOptions) -> bool:
    return bool(options.send_initial_events)


def test_g071_watch_list_streams_into_a_temporary_store_then_keeps_watching() -> None:
    source = FakeSource()
    source.script_watch(
        WatchEvent("ADDED", pod("p1", "1")), WatchEvent("ADDED", pod("p2", "2")),
        end_bookmark("2", "false"),
        WatchEvent("MODIFIED", pod("p1", "3", spec={"activeDeadlineSeconds": 12})),
        WatchEvent("ADDED", pod("p3", "4")), WatchEvent("DELETED", pod("p3", "5")),
        end_bookmark("5"))
    store = RecordingStore()
    reflector = Reflector(source, store, clock=FakeClock(), use_watch_list=True)
    with running(reflector, "list_and_watch") as run:
        wait_until(lambda: store.replaced, what="sync")
        assert store.replaced == [(["ns/p1", "ns/p2"], "5")]
        assert rv_of(store.get_by_key("ns/p1")) == "3"
        assert store.get_by_key("ns/p1")["spec"] == {"activeDeadlineSeconds": 12}
        source.watches[0].push(WatchEvent("ADDED", pod("p4", "6")))  # same stream goes on
        wait_until(lambda: reflector.last_sync_resource_version() == "6", what="event")
    assert "error" not in run
    assert source.list_calls == []
    (options,) = source.watch_calls
    assert options.send_initial_events is True
    assert options.resource_version_match == "NotOlderThan"
    assert options.allow_watch_bookmarks is True
    assert options.resource_version == ""
    assert options.timeout_seconds is not None and 300 <= options.timeout_seconds <= 600
    assert sorted(store.list_keys()) == ["ns/p1", "ns/p2", "ns/p4"]


@pytest.mark.parametrize("error", [Invalid(422, "Invalid", "streaming is not allowed"),
                                   RuntimeError("dummy error")])
def test_g072_watch_list_call_error_falls_back_to_list_then_watch(error: Exception) -> None:
    source = FakeSource()
    source.add(pod("p1"))
    source.fail_watch(error)
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock(), use_watch_list=True)
    with running(reflector, "list_and_watch") as run:
        wait_until(lambda: source.open_watches(), what="plain watch")
        source.add(pod("p2"))
        wait_until(lambda: len(store.list_keys()) == 2, what="p2")
    assert "error" not in run
    (listed,) = source.list_calls
    assert (listed.resource_version, listed.limit) == ("0", 500)
    first, second = source.watch_calls
    assert is_watch_list(first) and not is_watch_list(second)
    assert (second.resource_version, second.allow_watch_bookmarks) == ("1", True)


def test_g072_error_inside_the_stream_also_falls_back_to_list() -> None:
    source = FakeSource()
    source.add(pod("p1"))
    source.script_watch(WatchEvent("ADDED", pod("p1", "1")),
                        Invalid(422, "Invalid", "streaming broke"))
    reflector = Reflector(source, new_store(), clock=FakeClock(), use_watch_list=True)
    with running(reflector, "list_and_watch"):
        wait_until(lambda: source.open_watches(), what="plain watch")
    assert len(source.list_calls) == 1
    assert [is_watch_list(o) for o in source.watch_calls] == [True, False]


def test_g072_expired_retries_the_watch_list_from_rv_empty_without_fallback() -> None:
    source = FakeSource()
    source.add(pod("p1"))
    source.fail_watch(Gone(410, "Expired", "rv already expired"), too_large("cause-type"))
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock(), use_watch_list=True)
    with running(reflector, "list_and_watch"):
        wait_until(lambda: store.list_keys(), what="sync")
    assert source.list_calls == []
    assert [is_watch_list(o) for o in source.watch_calls] == [True, True, True]
    assert [o.resource_version for o in source.watch_calls] == ["", "", ""]


def test_g072_429_backs_off_and_retries_the_same_watch_list() -> None:
    source = FakeSource()
    source.add(pod("p1"))
    source.fail_watch(*[TooManyRequests(429, "TooManyRequests", "busy")] * 2)
    backoff = CountingBackoff()
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock(), use_watch_list=True,
                          backoff=backoff)
    with running(reflector, "list_and_watch"):
        wait_until(lambda: store.list_keys(), what="sync")
    assert backoff.calls == 2
    assert len(source.watch_calls) == 3
    assert len({(o.send_initial_events, o.resource_version, o.resource_version_match)
                for o in source.watch_calls}) == 1


def test_g072_stream_closed_before_the_bookmark_asks_again() -> None:
    source = FakeSource()
    source.add(pod("p1"))
    source.script_watch(WatchEvent("ADDED", pod("p1", "1")), close=True)
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock(), use_watch_list=True)
    with running(reflector, "list_and_watch"):
        wait_until(lambda: store.list_keys(), what="sync")
    assert [is_watch_list(o) for o in source.watch_calls] == [True, True]
    assert source.list_calls == []


def test_g072_after_sync_a_closed_stream_becomes_a_plain_watch_and_410_is_returned() -> None:
    source = FakeSource()
    source.script_watch(WatchEvent("ADDED", pod("p1", "1")), WatchEvent("ADDED", pod("p2", "2")),
                        end_bookmark("2"), WatchEvent("ADDED", pod("p3", "3")), close=True)
    expired = Gone(410, "Expired", "rv already expired")
    calls = [0]

    def hook(options: ListOptions) -> Any:
        calls[0] += 1
        if calls[0] == 2:
            raise expired
        return None

    source.watch_hook = hook
    store = new_store()
    reflector = Reflector(source, store, clock=FakeClock(), use_watch_list=True)
    with pytest.raises(Gone) as caught:
        reflector.list_and_watch(threading.Event())
    assert caught.value is expired
    first, second = source.watch_calls
    assert is_watch_list(first)
    assert not is_watch_list(second)
    assert (second.resource_version, second.allow_watch_bookmarks) == ("3", True)
    assert sorted(store.list_keys()) == ["ns/p1", "ns/p2", "ns/p3"]


# -- what the Reflector logs -----------------------------------------------------------------------

SECRET = "s3cr3t-pw"
SECRET_B64 = base64.b64encode(SECRET.encode()).decode()


def test_reflector_log_never_shows_a_malformed_secrets_data(
        caplog: pytest.LogCaptureFixture) -> None:
    """A list with a nameless Secret: the Reflector cannot file it and logs the failure
    at WARNING; the log names the Secret, not its data."""
    before = set(threading.enumerate())
    secret = {"apiVersion": "v1", "kind": "Secret",
              "metadata": {"namespace": "default", "resourceVersion": "3"},
              "data": {"password": SECRET_B64}, "stringData": {"plain": SECRET}}

    def answer(path: str, query: dict[str, str]) -> Answer:
        return json_answer({"kind": "SecretList", "apiVersion": "v1",
                      "metadata": {"resourceVersion": "3"}, "items": [secret]})

    with answering_server(answer) as (url, _), \
            caplog.at_level(logging.WARNING, logger="kubenb"):
        rest = RESTClient(Config(server=url))
        informer = SharedIndexInformer(
            ListWatch.from_client(DynamicClient(rest).resource("v1", "secrets")), name="s")
        informer.start()
        try:
            wait_until(lambda: "couldn't create key" in caplog.text, timeout=30,
                       what="the Reflector to log the key error")
        finally:
            informer.stop()
            rest.close()
    assert 'Secret with no name in namespace "default"' in caplog.text
    assert SECRET not in caplog.text and SECRET_B64 not in caplog.text
    assert_no_new_threads(before)


# -- a watch-list informer keeps its stream --------------------------------------------------------
# Over real HTTP: the stream that carried the initial events goes on as the live watch (no
# second request, nothing read after the initial-events-end bookmark is lost).


def test_watch_list_informer_keeps_its_one_stream_and_sees_a_new_object(
        server: EmbeddedServer) -> None:
    configmaps = DynamicClient(load_config(server.kubeconfig_path)).resource(
        "v1", "configmaps").namespace("default")
    configmaps.create(configmap("a"))
    # A FakeClock: a reflector that fell into backoff would wait here for ever.
    informer = SharedIndexInformer(ListWatch.from_client(configmaps), None, 0.0,
                                   clock=FakeClock(), use_watch_list=True)
    informer.start()
    try:
        wait_until(informer.has_synced, timeout=10, what="sync from the watch-list")
        configmaps.create(configmap("b"))
        wait_until(lambda: informer.get_indexer().get_by_key("default/b") is not None,
                   timeout=10, what="b in the cache")
        assert server.storage.watch_count == 1  # the server serves one watch: the stream
        stats = informer.stats()["reflector"]
    finally:
        informer.stop()
    assert stats["watch_lists"] == 1
    assert stats.get("lists", 0) == 0 and stats.get("watches", 0) == 0
    assert stats.get("resumes", 0) == 0 and stats.get("watch_errors", 0) == 0
    assert sorted(informer.get_indexer().list_keys()) == ["default/a", "default/b"]


def realapi_watch_list() -> tuple[bytes, list[int]]:
    """The recorded stream and where its chunks started."""
    import json

    meta = json.loads((REALAPI / "watch/watchlist-sendinitialevents.meta.json").read_text())
    body = (REALAPI / "watch/watchlist-sendinitialevents.jsonl").read_bytes()
    return body, [c["offset"] for c in meta["response"]["chunks"]]


@pytest.mark.parametrize("framing", ["as-recorded", "one-chunk"])
def test_watch_list_over_the_real_apiserver_stream_reads_on_after_the_bookmark(
        framing: str) -> None:
    """As recorded: the initial events and the end bookmark in one chunk, the live w-4
    1.5 s later, then a bookmark. In one chunk, w-4 arrives in the same read as the end
    bookmark, so it must not be lost with a dropped read buffer either."""
    body, offsets = realapi_watch_list()
    if framing == "one-chunk":
        chunks = [body]
    else:
        chunks = [body[a:b] for a, b in zip(offsets, [*offsets[1:], len(body)], strict=True)]
    hold_open = threading.Event()  # the server keeps the stream open after the chunks
    with chunked_server(chunks, hold_open=hold_open) as url:
        store = new_store()
        list_watch = ListWatch.from_client(client_for(url), label_selector="fixture=watch")
        reflector = Reflector(list_watch, store, clock=FakeClock(), use_watch_list=True)
        with running(reflector):
            wait_until(lambda: store.get_by_key(f"{NAMESPACE}/w-4") is not None
                       and reflector.stats().get("events_bookmark") == 1,
                       timeout=10, what="w-4 and the last bookmark")
            stats = reflector.stats()
            assert reflector.state == "watching"
            assert reflector.last_sync_resource_version() == "378"
    assert stats["watch_lists"] == 1
    assert stats.get("lists", 0) == 0 and stats.get("watches", 0) == 0
    assert (stats["objects_listed"], stats["events_added"], stats["events_bookmark"]) == (
        3, 1, 1)
    assert sorted(store.list_keys()) == [f"{NAMESPACE}/w-{n}" for n in ("2", "3", "4", "other")]
    assert store.get_by_key(f"{NAMESPACE}/w-4")["metadata"]["resourceVersion"] == "378"


# -- very short watches back off -------------------------------------------------------------------
# A watch that ends within a second with no event, by a clean close or a reset connection,
# is a "very short watch": backoff, not a hot loop, and one WARNING.


def answering(on_watch: Callable[[ScriptedServer, Request], None],
              watch_verbs: tuple[str, ...] = ("watch",)
              ) -> Callable[[ScriptedServer, Request], None]:
    """LISTs get an empty list at RV 10; the watch kinds in `watch_verbs` go to
    `on_watch`, and any other watch is held (never used by these tests)."""

    def answer(srv: ScriptedServer, req: Request) -> None:
        if req.verb == "list":
            srv.send_json(req, configmap_list("10"))
        elif req.verb in watch_verbs:
            on_watch(srv, req)
        else:
            srv.hold(req)

    return answer


def reset_at_once(srv: ScriptedServer, req: Request) -> None:
    srv.start_stream(req)
    srv.reset(req)


def close_at_once(srv: ScriptedServer, req: Request) -> None:
    srv.start_stream(req)
    srv.end_stream(req)


@pytest.mark.parametrize("end", [reset_at_once, close_at_once], ids=["reset", "close"])
def test_a_watch_dropped_at_once_is_very_short_and_waits_for_the_backoff(
        end: Callable[[ScriptedServer, Request], None],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="kubenb.cache.reflector")
    clock = FakeClock()
    with scripted_server(answering(end)) as srv:
        reflector = Reflector(ListWatch.from_client(client_for(srv.url)), new_store(),
                              clock=clock, backoff=ExponentialBackoff(clock=clock, jitter=0))
        with running(reflector):
            for cycle, delay in enumerate((0.8, 1.6, 3.2), start=1):
                wait_until(lambda c=cycle: in_backoff(reflector, clock)
                           and srv.count("watch") == c, timeout=10,
                           what=f"backoff after watch {cycle}")
                assert (srv.count("list"), srv.count("watch")) == (cycle, cycle)
                assert reflector.stats()["very_short_watches"] == cycle
                # Short of the delay the reflector still waits on the clock: it cannot
                # send anything before the clock reaches its backoff deadline.
                clock.step(delay - 0.05)
                assert in_backoff(reflector, clock)
                assert (srv.count("list"), srv.count("watch")) == (cycle, cycle)
                clock.step(0.1)  # past the deadline (an exact sum may round below it)
            wait_until(lambda: srv.count("watch") == 4 and in_backoff(reflector, clock),
                       timeout=10, what="backoff after the 4th watch")
    assert reflector.stats().get("resumes", 0) == 0  # each one was a relist, none a resume
    mine = [r for r in caplog.records if r.name == "kubenb.cache.reflector"]
    warnings = [r.getMessage() for r in mine if r.levelno >= logging.WARNING]
    repeats = [r.getMessage() for r in mine
               if r.levelno == logging.DEBUG and "very short watch" in r.getMessage()]
    assert len(warnings) == 1 and "very short watch" in warnings[0], warnings
    assert len(repeats) == 3


def test_a_watch_list_reset_at_once_falls_back_to_list_and_then_backs_off() -> None:
    """client-go's watchList: a very short watch-list is an error that falls back to
    LIST/WATCH (not a new watch-list at once); the very short watch after it backs off."""
    clock = FakeClock()
    answer = answering(reset_at_once, watch_verbs=("watch", "watch-list"))
    with scripted_server(answer) as srv:
        reflector = Reflector(ListWatch.from_client(client_for(srv.url)), new_store(),
                              clock=clock, use_watch_list=True,
                              backoff=ExponentialBackoff(clock=clock, jitter=0))
        with running(reflector):
            wait_until(lambda: in_backoff(reflector, clock), timeout=10, what="backoff")
            assert [r.verb for r in srv.requests] == ["watch-list", "list", "watch"]
            assert reflector.stats()["very_short_watches"] == 2


def test_failures_between_warnings_are_counted_in_the_next_one(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="kubenb.cache.reflector")
    clock = FakeClock()
    with scripted_server(answering(reset_at_once)) as srv:
        reflector = Reflector(ListWatch.from_client(client_for(srv.url)), new_store(),
                              clock=clock, backoff=ExponentialBackoff(clock=clock, jitter=0))
        with running(reflector):
            for cycle, delay in enumerate((0.8, 1.6, 300.0), start=1):
                wait_until(lambda c=cycle: in_backoff(reflector, clock)
                           and srv.count("watch") == c, timeout=10, what=f"watch {cycle}")
                clock.step(delay)
            wait_until(lambda: srv.count("watch") == 4 and in_backoff(reflector, clock),
                       timeout=10, what="the 4th watch")
    warnings = [r.getMessage() for r in caplog.records
                if r.name == "kubenb.cache.reflector" and r.levelno >= logging.WARNING]
    assert len(warnings) == 2, warnings
    assert "(and 2 more times since the last warning" in warnings[1]


# -- stopping aborts the request in flight ---------------------------------------------------------


@pytest.mark.parametrize("held", ["list", "watch", "watch-list"])
def test_stopping_an_informer_aborts_the_held_request(held: str) -> None:
    before = set(threading.enumerate())
    with scripted_server(holding(held)) as srv:
        informer = SharedIndexInformer(ListWatch.from_client(client_for(srv.url)), None, 0.0,
                                       clock=FakeClock(), use_watch_list=held == "watch-list")
        informer.start()
        srv.wait_for(lambda s: s.count(held) == 1, what=f"the {held} request")
        informer.stop()
        # stop() returned with every informer thread joined, while the server still
        # held the request: it has not answered it, and it saw the client hang up.
        assert informer.is_stopped()
        assert not srv.release.is_set()
        (request,) = [r for r in srv.requests if r.verb == held]
        assert request not in srv.answered
        srv.wait_for(lambda s: request in s.client_closed, what="the client to hang up")
        stats = informer.stats()["reflector"]
        assert stats["state"] == "stopped"
        assert stats.get("errors", 0) == 0 and stats["last_error"] == ""
    assert_no_new_threads(before)


def test_factory_shutdown_aborts_a_list_the_server_delays(server: EmbeddedServer) -> None:
    server.faults.latency(3600.0, verb="list")  # held until faults.clear() below
    dynamic = DynamicClient(load_config(server.kubeconfig_path))
    factory = SharedInformerFactory(dynamic, clock=FakeClock())
    informer = factory.for_resource("v1", "configmaps").informer()
    factory.start()
    wait_until(lambda: server.faults.stats()["delayed"] == 1, timeout=10,
               what="the list held by the server")
    factory.shutdown()
    assert informer.is_stopped() and not informer.has_synced()
    stats = informer.stats()["reflector"]
    assert (stats["lists"], stats.get("errors", 0), stats["state"]) == (1, 0, "stopped")
    server.faults.clear()
    # The shared client's pool is still good after the abort.
    assert dynamic.resource("v1", "configmaps").namespace("default").list()["items"] == []


@contextmanager
def _unanswered_connects() -> Iterator[str]:
    """A loopback address whose TCP connects hang: a listener with a full backlog that
    never accepts (Linux drops the SYNs, as a firewall that drops packets does)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    host, port = listener.getsockname()
    fillers = []
    for _ in range(3):
        filler = socket.socket()
        filler.settimeout(0.3)
        with contextlib.suppress(OSError):  # the ones past the backlog time out
            filler.connect((host, port))
        fillers.append(filler)
    try:
        yield f"http://{host}:{port}"
    finally:
        for sock in (*fillers, listener):
            sock.close()


@contextmanager
def _silent_tls_peer() -> Iterator[str]:
    """A loopback port that accepts TCP and never answers a TLS ClientHello."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        listener.settimeout(0.05)
        while not done.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, name="test-silent-tls-peer")
    thread.start()
    try:
        host, port = listener.getsockname()
        yield f"https://{host}:{port}"
    finally:
        done.set()
        thread.join(5)
        for sock in (*accepted, listener):
            sock.close()


@pytest.mark.parametrize("where", ["connect", "tls-handshake"])
def test_stopping_an_informer_aborts_a_connect_or_handshake_in_progress(where: str) -> None:
    """A connect to an address that does not answer, or a TLS handshake with a peer that
    says nothing, runs to its 60 s timeout unless stopping aborts it."""
    before = set(threading.enumerate())
    peer = _unanswered_connects() if where == "connect" else _silent_tls_peer()
    with peer as url:
        rest = RESTClient(Config(server=url, insecure_skip_tls_verify=True, timeout=(60, 60)))
        informer = SharedIndexInformer(
            ListWatch.from_client(DynamicClient(rest).resource("v1", "configmaps")), name="c")
        informer.start()
        wait_until(lambda: informer.stats()["reflector"].get("lists", 0) == 1,
                   what="the first list to be under way")
        informer.stop()
        stopped = set(threading.enumerate())
        stats = informer.stats()["reflector"]
        assert stats["state"] == "stopped" and stats.get("errors", 0) == 0
        rest.close()
    assert not [t for t in stopped - before if t.name.startswith("kubenb-")]
    assert_no_new_threads(before, grace=5.0)


def test_stopping_an_informer_aborts_the_wait_for_a_retry_after(
        server: EmbeddedServer) -> None:
    """A 429 with Retry-After: 30 makes the REST client wait 30 s before it retries;
    stopping ends that wait at once."""
    before = set(threading.enumerate())
    rule = server.faults.fail(verb="list", code=429, retry_after=30)
    rest = RESTClient(load_config(server.kubeconfig_path))
    informer = SharedIndexInformer(
        ListWatch.from_client(DynamicClient(rest).resource("v1", "configmaps")), name="c")
    informer.start()
    wait_until(lambda: rule.injected == 1, what="the first 429")
    informer.stop()
    assert_no_new_threads(before, grace=5.0)
    assert rule.injected == 1  # no retry was sent after the stop
    assert informer.stats()["reflector"].get("errors", 0) == 0
    rest.close()


# -- a watch event whose metadata is not an object ---------------------------------------------


def test_an_event_whose_metadata_is_not_an_object_is_named_and_the_informer_relists(
        caplog: pytest.LogCaptureFixture) -> None:
    """`metadata` a string: the Reflector says which field of which watch is malformed,
    keeps its cache as it was, and relists, as for any other malformed stream."""
    before = set(threading.enumerate())
    lists: list[int] = []

    def cm(name: str, rv: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": "default", "resourceVersion": rv}}

    def answer(path: str, query: dict[str, str]) -> Answer:
        if query.get("watch") != "true":
            lists.append(1)
            items = [cm("a", "5")] + ([cm("c", "7")] if len(lists) > 1 else [])
            return json_answer({"kind": "ConfigMapList", "apiVersion": "v1",
                                "metadata": {"resourceVersion": str(5 + 2 * len(lists))},
                                "items": items})
        if len(lists) == 1:
            bad = {"type": "ADDED", "object": {"apiVersion": "v1", "kind": "ConfigMap",
                                               "metadata": "b"}}
            return 200, "application/json", json.dumps(bad).encode() + b"\n"
        return 200, "application/json", b""

    with answering_server(answer) as (url, _), \
            caplog.at_level(logging.INFO, logger="kubenb"):
        rest = RESTClient(Config(server=url))
        informer = SharedIndexInformer(
            ListWatch.from_client(DynamicClient(rest).resource("v1", "configmaps")), name="c")
        informer.start()
        try:
            wait_until(lambda: len(lists) >= 2 and "default/c" in informer.indexer.list_keys(),
                       timeout=30, what="the informer to relist after the malformed event")
            assert sorted(informer.indexer.list_keys()) == ["default/a", "default/c"]
            assert not informer.is_stopped()
        finally:
            informer.stop()
            rest.close()
    assert ("watch of v1 configmaps in all namespaces ended with: `metadata` of a watch "
            "event (ADDED) is a str, expected an object") in caplog.text, caplog.text
    assert "has no attribute" not in caplog.text
    assert_no_new_threads(before)
