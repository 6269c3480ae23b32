"""AbortScope: aborting a scope fails the request it holds and every later one on its thread,
and reaches no other thread's request on the same client and pool."""

from __future__ import annotations

import threading

from kubenb.client.abort import AbortScope, RequestAborted
from tests.client.scripted_server import (
    Request,
    ScriptedServer,
    client_for,
    configmap_list,
    holding,
    scripted_server,
)


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

