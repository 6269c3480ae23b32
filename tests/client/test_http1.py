"""kubenb.client.http1 against a server that sends exactly the bytes each test scripts:
framing (Content-Length, chunks, the close of the connection), content codings, interim
answers, repeated header fields, keep-alive and a server closing it, broken answers,
and what the client refuses to send. Everything travels over a real loopback socket.
"""

from __future__ import annotations

import gzip
import socket
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
import requests

from kubenb.client.abort import AbortScope
from kubenb.client.http1 import Answer, ConnectionPool
from kubenb.errors import RequestAborted

Script = Callable[[bytes], bytes | None]  # the request's head and body -> the answer


@dataclass
class WireServer:
    """Answers the n-th request with the n-th script's bytes; `None` closes the
    connection without answering. Records each request and its connection's number."""

    scripts: list[Script]
    close_after: set[int] = field(default_factory=set)  # request numbers
    requests: list[tuple[int, bytes]] = field(default_factory=list)
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def serve(self, listener: socket.socket, stop: threading.Event) -> None:
        connection_number = 0
        threads = []
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                break
            connection_number += 1
            thread = threading.Thread(target=self._connection, args=(conn, connection_number))
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join(5)

    def _connection(self, conn: socket.socket, number: int) -> None:
        with conn:
            buffered = b""
            while True:
                while b"\r\n\r\n" not in buffered:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buffered += data
                head, _, buffered = buffered.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(buffered) < length:
                    buffered += conn.recv(65536)
                body, buffered = buffered[:length], buffered[length:]
                with self.lock:
                    index = len(self.requests)
                    self.requests.append((number, head + b"\r\n\r\n" + body))
                answer = self.scripts[index](head + body) if index < len(self.scripts) else None
                if answer is None:
                    return
                conn.sendall(answer)
                if index in self.close_after:
                    return


@contextmanager
def wire_server(*scripts: Script | bytes, close_after: set[int] | None = None
                ) -> Iterator[WireServer]:
    def fixed(answer: bytes) -> Script:
        return lambda _: answer

    server = WireServer([s if callable(s) else fixed(s) for s in scripts], close_after or set())
    listener = socket.create_server(("127.0.0.1", 0))
    server.port = listener.getsockname()[1]
    stop = threading.Event()
    thread = threading.Thread(target=server.serve, args=(listener, stop))
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        thread.join(10)


def ok(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    lines = [f"HTTP/1.1 {status}", *headers, f"Content-Length: {len(body)}", "", ""]
    return "\r\n".join(lines).encode() + body


def get(pool: ConnectionPool, target: str = "/x", method: str = "GET",
        body: bytes | None = None, headers: dict[str, str] | None = None) -> Answer:
    return pool.request(method, target, headers or {"Accept": "application/json"}, body,
                        5, 5)


@contextmanager
def pool_for(server: WireServer) -> Iterator[ConnectionPool]:
    pool = ConnectionPool("127.0.0.1", server.port)
    try:
        yield pool
    finally:
        pool.close()


def test_a_request_is_written_as_http_1_1_with_host_and_length() -> None:
    with wire_server(ok(b"{}")) as server, pool_for(server) as pool:
        answer = get(pool, "/api/v1/pods?limit=5", "POST", b'{"a":1}',
                     {"Content-Type": "application/json", "User-Agent": "kubenb/test"})
    assert answer.status == 200 and answer.reason == "OK" and answer.body == b"{}"
    sent = server.requests[0][1]
    assert sent == (f"POST /api/v1/pods?limit=5 HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                    f"Content-Type: application/json\r\nUser-Agent: kubenb/test\r\n"
                    f"Content-Length: 7\r\n\r\n{{\"a\":1}}").encode()


def test_a_post_without_a_body_says_its_length_is_zero() -> None:
    with wire_server(ok(b"")) as server, pool_for(server) as pool:
        get(pool, method="POST")
    assert b"\r\nContent-Length: 0\r\n" in server.requests[0][1]


def test_kept_alive_requests_share_one_connection() -> None:
    with wire_server(*[ok(b"%d" % i) for i in range(5)]) as server, pool_for(server) as pool:
        assert [get(pool).body for _ in range(5)] == [b"0", b"1", b"2", b"3", b"4"]
    assert {number for number, _ in server.requests} == {1}


def test_a_connection_the_server_closed_while_idle_is_not_reused() -> None:
    with (wire_server(ok(b"a"), ok(b"b"), close_after={0}) as server,
          pool_for(server) as pool):
        assert get(pool).body == b"a"
        assert get(pool).body == b"b"
    assert [number for number, _ in server.requests] == [1, 2]


def test_an_answer_with_connection_close_ends_its_connection() -> None:
    with wire_server(ok(b"a", "Connection: close"), ok(b"b")) as server, \
            pool_for(server) as pool:
        assert get(pool).body == b"a"
        assert get(pool).body == b"b"
    assert [number for number, _ in server.requests] == [1, 2]


def test_a_get_on_a_connection_dropped_unseen_is_sent_again_on_a_fresh_one() -> None:
    """The server takes the request and closes without a byte (what a keep-alive
    timeout racing the request looks like): an idempotent request goes once more."""
    with wire_server(ok(b"a"), lambda _: None, ok(b"b")) as server, pool_for(server) as pool:
        assert get(pool).body == b"a"
        assert get(pool).body == b"b"
    assert [number for number, _ in server.requests] == [1, 1, 2]


def test_a_post_on_a_connection_dropped_unseen_is_not_sent_twice() -> None:
    with wire_server(ok(b"a"), lambda _: None, ok(b"b")) as server, pool_for(server) as pool:
        assert get(pool).body == b"a"
        with pytest.raises(requests.ConnectionError, match="without answering"):
            get(pool, method="POST", body=b"{}")
    assert len(server.requests) == 2


def test_chunked_answers_with_extensions_and_trailers() -> None:
    answer = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
              b"5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\n\r\n")
    with wire_server(answer, ok(b"next")) as server, pool_for(server) as pool:
        assert get(pool).body == b"hello world"
        assert get(pool).body == b"next"  # the connection is whole after the trailers
    assert {number for number, _ in server.requests} == {1}


def test_gzip_and_deflate_bodies_are_decoded() -> None:
    doc = b'{"items": [' + b",".join(b'{"n": %d}' % i for i in range(500)) + b"]}"
    chunked_gzip = gzip.compress(doc)
    framed = b"".join(b"%x\r\n%s\r\n" % (len(chunked_gzip[i:i + 700]), chunked_gzip[i:i + 700])
                      for i in range(0, len(chunked_gzip), 700))
    with wire_server(
            b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
            + framed + b"0\r\n\r\n",
            ok(zlib.compress(doc), "Content-Encoding: deflate"),
            ok(zlib.compress(doc)[2:-4], "Content-Encoding: deflate"),  # raw deflate
    ) as server, pool_for(server) as pool:
        assert [get(pool).body for _ in range(3)] == [doc, doc, doc]


def test_a_body_read_to_the_close_of_the_connection() -> None:
    with wire_server(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\": 1}",
                     ok(b"b"), close_after={0}) as server, pool_for(server) as pool:
        assert get(pool).body == b'{"a": 1}'
        assert get(pool).body == b"b"


def test_head_204_and_304_answers_have_no_body() -> None:
    with wire_server(ok(b"", "X: 1"), b"HTTP/1.1 204 No Content\r\n\r\n",
                     b"HTTP/1.1 304 Not Modified\r\n\r\n", ok(b"after")) as server, \
            pool_for(server) as pool:
        assert get(pool, method="HEAD").body == b""
        assert get(pool).status == 204
        assert get(pool).status == 304
        assert get(pool).body == b"after"
    assert {number for number, _ in server.requests} == {1}


def test_an_interim_100_continue_is_skipped() -> None:
    with wire_server(b"HTTP/1.1 100 Continue\r\n\r\n" + ok(b"done")) as server, \
            pool_for(server) as pool:
        answer = get(pool)
    assert (answer.status, answer.body) == (200, b"done")


def test_repeated_header_fields_are_joined_and_names_keep_their_case() -> None:
    with wire_server(ok(b"", "Warning: 299 - \"one\"", "warning: 299 - \"two\"",
                        "Audit-ID: abc")) as server, pool_for(server) as pool:
        answer = get(pool)
    assert answer.headers["Warning"] == '299 - "one", 299 - "two"'
    assert answer.headers["Audit-ID"] == "abc"


@pytest.mark.parametrize(("answer", "error"), [
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "5 of its 10 bytes"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", "inside a chunk"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "not a chunk size"),
    (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1.x status line"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "not a number"),
    (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "not a header line"),
    (b"HTTP/1.1 200 OK\r\nContent-Type: a", "inside its headers"),
    (ok(b"not gzip", "Content-Encoding: gzip"), "does not decode"),
])
def test_a_broken_answer_is_an_error_naming_what_broke(answer: bytes, error: str) -> None:
    with wire_server(answer, close_after={0}) as server, pool_for(server) as pool, \
            pytest.raises(requests.exceptions.ChunkedEncodingError, match=error):
        get(pool)


def test_too_many_header_lines_are_refused() -> None:
    headers = [f"X-{i}: {i}" for i in range(150)]
    with wire_server(ok(b"", *headers), close_after={0}) as server, pool_for(server) as pool, \
            pytest.raises(requests.exceptions.ChunkedEncodingError, match="over 100 header"):
        get(pool)


@pytest.mark.parametrize(("target", "headers"), [
    ("/a b", {}),
    ("/a\r\nX: 1", {}),
    ("/ok", {"X-Token": "abc\r\nEvil: 1"}),
    ("/ok", {"Bad\nName": "v"}),
])
def test_a_request_that_would_inject_a_line_is_refused_before_it_is_sent(
        target: str, headers: dict[str, str]) -> None:
    with wire_server(ok(b"")) as server, pool_for(server) as pool, \
            pytest.raises(ValueError, match="can't"):
        get(pool, target, headers=headers)
    assert server.requests == []


def test_a_refused_connection_and_a_silent_server_are_the_errors_requests_raises() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()
    with pytest.raises(requests.ConnectionError, match=f"cannot connect to 127.0.0.1:{port}"):
        ConnectionPool("127.0.0.1", port).request("GET", "/", {}, None, 5, 5)
    silent = socket.create_server(("127.0.0.1", 0))
    try:
        pool = ConnectionPool("127.0.0.1", silent.getsockname()[1])
        with pytest.raises(requests.ReadTimeout, match=r"read timeout=0\.2"):
            pool.request("GET", "/", {}, None, 5, 0.2)
    finally:
        silent.close()


def test_an_abort_from_another_thread_ends_a_request_waiting_for_its_answer() -> None:
    arrived = threading.Event()
    release = threading.Event()

    def hold(_: bytes) -> bytes:
        arrived.set()
        release.wait(10)
        return ok(b"late")

    with wire_server(hold) as server, pool_for(server) as pool:
        scope = AbortScope("a held get")
        errors: list[BaseException] = []

        def call() -> None:
            with scope:
                for _ in range(2):  # the second fails before it is sent
                    try:
                        get(pool)
                    except BaseException as err:  # checked below
                        errors.append(err)

        thread = threading.Thread(target=call)
        thread.start()
        assert arrived.wait(10)
        assert scope.abort() == 1
        thread.join(10)
        release.set()
        assert not thread.is_alive()
        assert [type(err) for err in errors] == [RequestAborted, RequestAborted]
    assert len(server.requests) == 1


def test_concurrent_requests_each_get_their_own_answer() -> None:
    def echo(request: bytes) -> bytes:
        return ok(request.split(b" ")[1])

    with wire_server(*[echo] * 200) as server, pool_for(server) as pool:
        results: dict[int, bytes] = {}

        def worker(k: int) -> None:
            for i in range(25):
                results[k * 100 + i] = get(pool, f"/{k}/{i}").body

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert results == {k * 100 + i: f"/{k}/{i}".encode() for k in range(8) for i in range(25)}
    assert len({number for number, _ in server.requests}) <= 8
