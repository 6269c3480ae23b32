"""KubeHTTPServer under connection storms: a listen backlog sized for a server, and 200
simultaneous connections all answered.

Raw non-blocking sockets open every connection before any answer is read; waits are
event-based with generous deadlines.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import threading
from pathlib import Path

import pytest

from kubenb.server import EmbeddedServer
from kubenb.server.handlers import ApiHandler
from kubenb.server.http import KubeHTTPServer
from tests.helpers import assert_no_new_threads, wait_until
from tests.server.conftest import port_of, raw_get

CM = "/api/v1/namespaces/default/configmaps"
STORM = 200


def _somaxconn() -> int:
    with contextlib.suppress(OSError, ValueError):
        return int(Path("/proc/sys/net/core/somaxconn").read_text())
    return socket.SOMAXCONN


def _storm(port: int, path: str, n: int, deadline: float = 60.0) -> dict[int, bytes]:
    """Open `n` connections at once (non-blocking connects, all issued before any
    answer is read), send one GET on each as its handshake completes and read every
    answer to its end; returns the answers received before `deadline` (seconds)."""
    sel = selectors.DefaultSelector()
    received: dict[int, list[bytes]] = {}
    answers: dict[int, bytes] = {}
    socks = []
    try:
        for i in range(n):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            socks.append(sock)
            sel.register(sock, selectors.EVENT_WRITE, i)
        request = raw_get(path)

        def step() -> bool:
            for key, events in sel.select(0.2):
                sock, i = key.fileobj, key.data
                assert isinstance(sock, socket.socket)
                if events & selectors.EVENT_WRITE:
                    assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                    sock.sendall(request)
                    received[i] = []
                    sel.modify(sock, selectors.EVENT_READ, i)
                    continue
                data = sock.recv(65536)
                if data:
                    received[i].append(data)
                else:
                    answers[i] = b"".join(received[i])
                    sel.unregister(sock)
            return len(answers) == n

        with contextlib.suppress(AssertionError):
            wait_until(step, deadline, what=f"{n} answers")
        return answers
    finally:
        sel.close()
        for sock in socks:
            sock.close()


def test_the_listen_backlog_holds_200_connections_the_accept_loop_has_not_taken() -> None:
    """With the standard library's backlog of 5, connections beyond the sixth wait for
    SYN retransmits (1 s, 3 s, 7 s ...) while the accept loop is busy; a server-sized
    backlog completes all 200 handshakes before a single one is accepted."""
    if _somaxconn() < STORM:
        pytest.skip(f"net.core.somaxconn is {_somaxconn()}, below {STORM}")
    before = set(threading.enumerate())
    holder = EmbeddedServer()  # never started: lends its storage and registry
    app = ApiHandler(holder.storage, holder.types, holder.registry, threading.Event())
    httpd = KubeHTTPServer(("127.0.0.1", 0), app)
    port = httpd.server_address[1]
    sel = selectors.DefaultSelector()
    socks: list[socket.socket] = []
    serving = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                               name="kubenb-test-serve")
    try:
        for _ in range(STORM):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))
            sel.register(sock, selectors.EVENT_WRITE)
            socks.append(sock)
        connected: set[socket.socket] = set()

        def handshakes_done() -> bool:
            for key, _ in sel.select(0.05):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                connected.add(sock)
                sel.unregister(sock)
            return len(connected) == STORM

        wait_until(handshakes_done, 20.0, what=f"{STORM} handshakes with accept() not running")
        serving.start()
        for sock in socks:
            sock.setblocking(True)
            sock.settimeout(30)
            sock.sendall(raw_get("/healthz"))
        for sock in socks:
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"\r\n\r\nok")
    finally:
        sel.close()
        for sock in socks:
            sock.close()
        if serving.is_alive():
            httpd.shutdown()
            serving.join(10)
        httpd.close_connections()
        assert httpd.join_connections(10) == []
        httpd.server_close()
    assert_no_new_threads(before)


def test_a_storm_of_200_simultaneous_connections_is_all_answered(
        server: EmbeddedServer) -> None:
    server.seed_objects(3, kind="configmaps")
    answers = _storm(port_of(server), CM, STORM)
    assert len(answers) == STORM
    for answer in answers.values():
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 "), head
        assert len(json.loads(body)["items"]) == 3

