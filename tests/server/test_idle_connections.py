"""Kept-alive connections wait for their next request on no thread of their own
(kubenb.server.idle_connections): parked after LINGER seconds of quiet, answered on the
same connection when the next request comes (plain and TLS), closed when the client
hangs up, after the idle timeout, or when the server stops; never parked with a
request already buffered."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.client.config import load_config
from kubenb.client.rest import RESTClient
from kubenb.server import EmbeddedServer
from kubenb.server.idle_connections import LINGER, IdleConnections
from tests.helpers import wait_until
from tests.server.conftest import port_of


def _connection_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("kubenb-server-conn-")]


def _get(sock: Any, path: str = "/version") -> bytes:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    received = b""
    while b"\r\n\r\n" not in received:
        received += sock.recv(65536)
    head, _, body = received.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += sock.recv(65536)
    assert head.startswith(b"HTTP/1.1 200"), head
    return body


@pytest.fixture
def tls_server() -> Iterator[EmbeddedServer]:
    server = EmbeddedServer(tls=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("secure", [False, True], ids=["plain", "tls"])
def test_a_quiet_connection_holds_no_thread_and_its_next_request_is_answered(
        server: EmbeddedServer, tls_server: EmbeddedServer, secure: bool) -> None:
    target = tls_server if secure else server
    raw = socket.create_connection(("127.0.0.1", port_of(target)), timeout=10)
    sock: Any = raw
    if secure:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        sock = context.wrap_socket(raw, server_hostname="127.0.0.1")
    with sock:
        assert b'"major"' in _get(sock)
        wait_until(lambda: not _connection_threads(), timeout=LINGER + 5,
                   what="the connection thread to end once the connection is parked")
        assert b'"major"' in _get(sock)  # the same connection, a fresh thread
        assert b'"major"' in _get(sock)


def test_requests_one_after_the_other_stay_on_one_thread(server: EmbeddedServer) -> None:
    with socket.create_connection(("127.0.0.1", port_of(server)), timeout=10) as sock:
        _get(sock)
        (first,) = _connection_threads()
        for _ in range(20):
            _get(sock)
        assert _connection_threads() == [first]


def test_a_pipelined_request_is_answered_not_parked(server: EmbeddedServer) -> None:
    request = b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port_of(server)), timeout=10) as sock:
        sock.sendall(request * 3)
        received = b""
        deadline = time.monotonic() + 10
        while received.count(b"HTTP/1.1 200 OK") < 3 and time.monotonic() < deadline:
            received += sock.recv(65536)
    assert received.count(b"HTTP/1.1 200 OK") == 3


def test_a_client_of_the_server_keeps_working_across_parks(server: EmbeddedServer) -> None:
    rest = RESTClient(load_config(server.kubeconfig_path))
    try:
        assert rest.get("/version")["major"]
        wait_until(lambda: not _connection_threads(), timeout=LINGER + 5,
                   what="the connection to be parked")
        assert rest.get("/api/v1/namespaces/default")["metadata"]["name"] == "default"
    finally:
        rest.close()


def test_a_parked_connection_the_client_closes_is_let_go(server: EmbeddedServer) -> None:
    sock = socket.create_connection(("127.0.0.1", port_of(server)), timeout=10)
    _get(sock)
    wait_until(lambda: not _connection_threads(), timeout=LINGER + 5, what="a park")
    sock.close()
    wait_until(lambda: not [t for t in threading.enumerate()
                            if t.name.startswith(("kubenb-server-conn-",
                                                  "kubenb-server-idle-"))],
               timeout=10, what="the hang-up to end every thread of the connection")


def test_stopping_the_server_closes_parked_connections(server: EmbeddedServer) -> None:
    sock = socket.create_connection(("127.0.0.1", port_of(server)), timeout=10)
    with sock:
        _get(sock)
        wait_until(lambda: not _connection_threads(), timeout=LINGER + 5, what="a park")
        server.stop()
        assert sock.recv(100) == b""  # closed by the server
    assert not [t for t in threading.enumerate() if t.name.startswith("kubenb-server-")]


def _parker(idle_timeout: float) -> tuple[IdleConnections, list[socket.socket],
                                          list[socket.socket]]:
    resumed: list[socket.socket] = []
    closed: list[socket.socket] = []

    def close(sock: socket.socket) -> None:
        closed.append(sock)
        sock.close()

    parker = IdleConnections("kubenb-test-idle", resume=lambda s, _: resumed.append(s),
                             close=close, idle_timeout=idle_timeout)
    return parker, resumed, closed


def test_the_idle_timeout_closes_a_parked_connection_and_the_thread_ends() -> None:
    parker, resumed, closed = _parker(idle_timeout=0.2)
    ours, theirs = socket.socketpair()
    with theirs:
        assert parker.park(ours, ("peer", 1))
        wait_until(lambda: closed == [ours], timeout=5, what="the idle timeout")
        assert theirs.recv(10) == b""
        assert resumed == []
        assert parker.join(5) is None  # nothing parked: the thread ended
        assert parker.count == 0


def test_a_readable_connection_is_resumed_and_others_stay_parked() -> None:
    parker, resumed, closed = _parker(idle_timeout=60)
    pairs = [socket.socketpair() for _ in range(5)]
    try:
        for ours, _ in pairs:
            assert parker.park(ours, ("peer", 1))
        wait_until(lambda: parker.count == 5, timeout=5, what="five parked")
        pairs[2][1].sendall(b"GET / HTTP/1.1\r\n")
        wait_until(lambda: resumed == [pairs[2][0]], timeout=5, what="the resume")
        assert parker.count == 4 and closed == []
        parker.stop()
        assert parker.join(5) is None
        assert sorted(map(id, closed)) == sorted(id(p[0]) for i, p in enumerate(pairs)
                                                 if i != 2)
        with socket.socket() as late:
            assert not parker.park(late, ("late", 1))  # stopping: not taken
    finally:
        for ours, theirs in pairs:
            ours.close()
            theirs.close()


def test_a_close_notify_right_after_an_answer_gets_the_servers_own(
        tls_server: EmbeddedServer) -> None:
    """A TLS client that ends its connection just after an answer (as `unwrap()` does)
    gets the server's close_notify back, however its close races the server's look for
    a next request (a close_notify read there must not be taken for quiet)."""
    context = ssl.create_default_context(cafile=tls_server.ca_path)
    for attempt in range(200):
        raw = socket.create_connection(("127.0.0.1", port_of(tls_server)), timeout=5)
        conn = context.wrap_socket(raw, server_hostname="localhost",
                                   suppress_ragged_eofs=False)
        _get(conn)
        time.sleep(attempt % 4 * 0.0005)  # closes at different points of the server's look
        conn.unwrap().close()  # raises TimeoutError if the server's close_notify never came


def test_a_holder_whose_resume_fails_closes_its_connections_and_parks_again() -> None:
    calls: list[socket.socket] = []
    closed: list[socket.socket] = []

    def resume(sock: socket.socket, _: Any) -> None:
        calls.append(sock)
        if len(calls) == 1:
            raise RuntimeError("cannot start a thread")

    def close(sock: socket.socket) -> None:
        closed.append(sock)
        sock.close()

    parker = IdleConnections("kubenb-test-idle", resume=resume, close=close, idle_timeout=60)
    first, second = socket.socketpair(), socket.socketpair()
    try:
        assert parker.park(first[0], ("peer", 1))
        first[1].sendall(b"x")
        wait_until(lambda: parker.join(0.1) is None, timeout=5, what="the failed holder to end")
        assert calls == [first[0]]
        assert parker.park(second[0], ("peer", 2))  # a new holder takes it
        second[1].sendall(b"x")
        wait_until(lambda: calls == [first[0], second[0]], timeout=5, what="the resume")
    finally:
        parker.stop()
        for pair in (first, second):
            for sock in pair:
                sock.close()
