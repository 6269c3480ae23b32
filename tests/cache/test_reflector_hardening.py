"""Reflector and informer under hostile servers (issue 17, items 1, 3 and 5).

Over real HTTP only: the embedded server, the byte-for-byte watch-list stream of
kube-apiserver 1.32 replayed by `rawserver.chunked_server`, and a raw-socket server
(`scripted_server`) that resets watches or holds requests. Time the reflector waits
(backoff) is a FakeClock; the tests wait for server-side handshakes or reflector
states, never for wall-clock durations.

1. watch-list: the stream that carried the initial events goes on as the live watch
   (no second request, nothing read after the initial-events-end bookmark is lost);
3. a watch that ends within a second with no event, by a clean close or a reset
   connection, is a "very short watch": backoff, not a hot loop, and one WARNING;
5. stopping aborts the request in flight (a held LIST, watch or watch-list) at once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from kubenb.cache.backoff import ExponentialBackoff
from kubenb.cache.factory import SharedInformerFactory
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.reflector import Reflector
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.cache.store import new_store
from kubenb.client.abort import AbortScope, RequestAborted
from kubenb.client.config import Config, load_config
from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.client.rest import RESTClient
from kubenb.clock import FakeClock
from kubenb.server import EmbeddedServer
from tests.client.rawserver import chunked_server
from tests.client.scripted_server import Request, ScriptedServer, scripted_server
from tests.helpers import assert_no_new_threads, wait_until
from tests.realapi import REALAPI

NAMESPACE = "kubenb-watch"


def configmap(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
            "data": {"v": "1"}}


def configmap_list(rv: str, *names: str) -> dict[str, Any]:
    return {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": rv},
            "items": [{**configmap(n), "metadata": {"name": n, "namespace": NAMESPACE,
                                                    "resourceVersion": rv}} for n in names]}


def client_for(url: str) -> ResourceClient:
    return ResourceClient(RESTClient(Config(server=url)), "v1", "configmaps", NAMESPACE)


@contextmanager
def running(reflector: Reflector) -> Iterator[threading.Event]:
    """`reflector.run` on a thread; stop and join it after."""
    stop = threading.Event()
    thread = threading.Thread(target=reflector.run, args=(stop,), name="test-reflector")
    thread.start()
    try:
        yield stop
    finally:
        stop.set()
        thread.join(10)
        assert not thread.is_alive(), "the reflector did not stop"


def in_backoff(reflector: Reflector, clock: FakeClock) -> bool:
    return reflector.state == "backoff" and clock.has_waiters()


# -- 1. a watch-list informer keeps its stream -----------------------------------------


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


# -- 3. very short watches back off --------------------------------------------------------


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


# -- 5. stopping aborts the request in flight --------------------------------------------


def holding(held: str) -> Callable[[ScriptedServer, Request], None]:
    """Hold every request of kind `held`; answer a LIST, hold any other watch too."""

    def answer(srv: ScriptedServer, req: Request) -> None:
        if req.verb == "list" and held != "list":
            srv.send_json(req, configmap_list("10", "a"))
        else:
            srv.hold(req)

    return answer


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


# -- the abort scope itself ----------------------------------------------------------------


def test_an_aborted_scope_fails_its_held_request_and_every_later_one() -> None:
    with scripted_server(holding("list")) as srv:
        client = client_for(srv.url)
        outcome: list[BaseException] = []
        scope = AbortScope("test list")

        def lister() -> None:
            with scope:
                for _ in range(2):
                    try:
                        client.list()
                    except BaseException as err:
                        outcome.append(err)

        thread = threading.Thread(target=lister, name="test-lister")
        thread.start()
        srv.wait_for(lambda s: s.count("list") == 1, what="the list")
        assert scope.abort() == 1
        thread.join(10)
        assert not thread.is_alive()
        assert [type(e) for e in outcome] == [RequestAborted, RequestAborted]
        assert str(outcome[0]) == "request of test list aborted: the caller stopped"
        assert srv.count("list") == 1  # the second one was never sent
        srv.wait_for(lambda s: len(s.client_closed) == 1, what="the client to hang up")


def test_a_scope_reaches_only_the_requests_of_its_own_thread() -> None:
    def answer(srv: ScriptedServer, req: Request) -> None:
        if req.params.get("labelSelector") == "held":
            srv.hold(req)
        else:
            srv.send_json(req, configmap_list("10", "a"))

    with scripted_server(answer) as srv:
        client = client_for(srv.url)
        scope = AbortScope()
        errors: list[BaseException] = []

        def held() -> None:
            with scope:
                try:
                    client.list(label_selector="held")
                except RequestAborted as err:
                    errors.append(err)

        thread = threading.Thread(target=held, name="test-held")
        thread.start()
        srv.wait_for(lambda s: s.count("list") == 1, what="the held list")
        scope.abort()
        thread.join(10)
        assert len(errors) == 1
        # Another thread, the same client and pool: unaffected, before and after exit.
        assert [o["metadata"]["name"] for o in client.list()["items"]] == ["a"]
        assert scope.abort() == 0  # exited: a no-op
