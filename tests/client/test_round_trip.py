"""RESTClient's plain requests go straight to the session's connection pool
(kubenb.client.round_trip): the same request on the wire as requests would send, and
requests itself wherever the session holds something the short path does not do.

The TLS side (CA, tls-server-name, client certificates, a wrong CA) is checked both
ways in tests/client/test_transport.py.
"""

from __future__ import annotations

import socket

import requests

from kubenb.client.config import Config
from kubenb.client.round_trip import RoundTripper
from kubenb.errors import ServerConnectionError
from kubenb.server import EmbeddedServer
from tests.client.conftest import rest_for
from tests.client.rawserver import answering_server, json_answer

TRICKY = {"labelSelector": "app in (web,db),tier!=cache,!legacy",
          "fieldSelector": "metadata.name=a b&c",
          "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTJ9+/=", "limit": "500"}


def test_a_round_trip_sends_what_the_session_would_send() -> None:
    with answering_server(lambda path, query: json_answer({"kind": "Status"})) as (url, seen):
        session = Config(server=url).new_session()
        try:
            sender = RoundTripper.for_session(session, url, proxied=False, rotating_cert=False)
            assert sender is not None
            headers = {"Accept": "application/json", "User-Agent": "kubenb/test"}
            assert session.get(url + "/api/v1/pods", params=TRICKY, headers=headers,
                               timeout=5).content
            response = sender.send("GET", "/api/v1/pods", params=TRICKY, headers=headers,
                                   timeout=5)
            assert response.content == b'{"kind": "Status"}'
        finally:
            session.close()
    by_session, by_round_trip = seen
    assert by_round_trip["path"] == by_session["path"] == "/api/v1/pods"
    assert by_round_trip["query"] == by_session["query"] == TRICKY
    sent = {k.lower(): v for k, v in by_round_trip["headers"].items()}
    expected = {k.lower(): v for k, v in by_session["headers"].items()}
    assert sent == expected  # Accept-Encoding, Connection, Host, User-Agent, Accept
    assert response.url.startswith(url + "/api/v1/pods?")
    assert response.request.method == "GET"


def test_a_server_url_with_a_path_keeps_it() -> None:
    with (answering_server(lambda path, query: json_answer({"items": []})) as (url, seen),
          rest_for(url + "/k8s/clusters/c-1") as rest):
        assert rest.get("/api/v1/namespaces", params={"limit": "1"}) == {"items": []}
    assert seen[0]["path"] == "/k8s/clusters/c-1/api/v1/namespaces"
    assert seen[0]["query"] == {"limit": "1"}


def test_a_hook_put_on_the_session_is_honoured() -> None:
    """A caller's hook on `client.session` sends that request through requests."""
    calls: list[int] = []
    with EmbeddedServer() as server, rest_for(server.url) as rest:
        assert rest.get("/version")["major"]  # the short path is set up
        rest.session.hooks["response"].append(
            lambda response, **kwargs: calls.append(response.status_code))
        rest.get("/version")
        assert calls == [200]


def test_a_session_changed_after_the_first_request_is_sent_by_requests() -> None:
    """A header, cookie or CA set on `client.session` later is honoured: the short path
    steps aside for whatever it was not made with, and keeps the session's headers."""
    with (answering_server(lambda path, query: json_answer({"kind": "Status"})) as (url, seen),
          rest_for(url) as rest):
        rest.get("/version")
        rest.session.headers["X-Trace"] = "on"
        rest.get("/version")
        rest.session.cookies.set("session", "abc")
        rest.get("/version")
    assert "X-Trace" not in seen[0]["headers"]
    assert seen[1]["headers"].get("X-Trace") == "on"
    assert seen[2]["headers"].get("Cookie") == "session=abc"
    session = Config(server="https://k.example").new_session()
    try:
        sender = RoundTripper.for_session(session, "https://k.example", proxied=False,
                                          rotating_cert=False)
        assert sender is not None and sender.fits()
        session.verify = "/some/other/ca.pem"
        assert not sender.fits()
    finally:
        session.close()


def test_a_proxied_session_or_rotating_certificates_keep_requests() -> None:
    session = requests.Session()
    try:
        assert RoundTripper.for_session(session, "https://k", proxied=False,
                                        rotating_cert=False) is None  # not a kubenb adapter
    finally:
        session.close()
    session = Config(server="https://k.example").new_session()
    try:
        for kind in ({"proxied": True, "rotating_cert": False},
                     {"proxied": False, "rotating_cert": True}):
            assert RoundTripper.for_session(session, "https://k.example", **kind) is None
        session.proxies["https"] = "http://proxy.example:3128"
        assert RoundTripper.for_session(session, "https://k.example", proxied=False,
                                        rotating_cert=False) is None
    finally:
        session.close()


def test_errors_name_the_server_as_before() -> None:
    """A refused connection is a ServerConnectionError with the OS's reason."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    with rest_for(f"http://127.0.0.1:{port}") as rest:
        rest.max_retries = 0
        try:
            rest.get("/version")
        except ServerConnectionError as err:
            message = str(err)
        else:  # pragma: no cover
            raise AssertionError("a refused connection did not raise")
    assert f"127.0.0.1:{port}" in message and "Connection refused" in message
