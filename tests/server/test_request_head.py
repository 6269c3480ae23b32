"""The server reads a request's header block itself (kubenb.server.request_head): fields
matched case-insensitively, repeated fields all kept, folded lines joined, the limits
and refusals of a real server, keep-alive and 100-continue; each over a raw socket to a
running embedded server, and the answers are whole (one write each)."""

from __future__ import annotations

import io
import json
import socket

import pytest

from kubenb.server import EmbeddedServer
from kubenb.server.request_head import HeaderBlockError, read_headers
from tests.server.conftest import port_of


def _exchange(server: EmbeddedServer, data: bytes) -> bytes:
    """Send `data`, read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port_of(server)), timeout=10) as sock:
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def _body(answer: bytes) -> dict[str, object]:
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])  # type: ignore[no-any-return]


def test_fields_are_found_whatever_their_case_and_repeats_are_kept() -> None:
    headers = read_headers(io.BytesIO(
        b"content-TYPE: application/json\r\nImpersonate-Group: a\r\n"
        b"impersonate-group: b\r\nX-Folded: one\r\n\ttwo\r\n\r\nbody"))
    assert headers.get("Content-Type") == "application/json"
    assert headers["CONTENT-TYPE"] == "application/json" and "content-type" in headers
    assert headers.get("Missing") is None and headers["Missing"] is None
    assert headers.get_all("Impersonate-Group") == ["a", "b"]
    assert headers.get_all("Missing") is None
    assert headers.get("X-Folded") == "one two"
    assert list(headers) == ["content-TYPE", "Impersonate-Group", "impersonate-group",
                             "X-Folded"]


@pytest.mark.parametrize(("block", "status", "message"), [
    (b"X: " + b"a" * 70000 + b"\r\n\r\n", 431, "Line too long"),
    (b"".join(b"X-%d: 1\r\n" % i for i in range(101)) + b"\r\n", 431, "Too many headers"),
    (b"no colon\r\n\r\n", 400, "malformed header line"),
    (b"Bad Name : v\r\n\r\n", 400, "malformed header line"),
])
def test_a_header_block_a_server_refuses(block: bytes, status: int, message: str) -> None:
    with pytest.raises(HeaderBlockError, match=message) as caught:
        read_headers(io.BytesIO(block))
    assert caught.value.status == status


def test_repeated_impersonate_group_fields_all_reach_the_server(
        server: EmbeddedServer) -> None:
    answer = _exchange(server, (
        b"POST /apis/authentication.k8s.io/v1/selfsubjectreviews HTTP/1.1\r\n"
        b"Host: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        b"impersonate-user: jane\r\nImpersonate-Group: a\r\nImpersonate-Group: b\r\n"
        b"Connection: close\r\n\r\n{}"))
    assert _status(answer) == 201
    user = _body(answer)["status"]["userInfo"]  # type: ignore[index]
    assert user["username"] == "jane"
    assert user["groups"] == ["a", "b", "system:authenticated"]


def test_keep_alive_is_http_1_1_unless_the_request_says_close(
        server: EmbeddedServer) -> None:
    get = b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    answer = _exchange(server, get + b"\r\n" + get + b"connection: Close\r\n\r\n")
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 2  # both on one connection, then closed
    one_zero = _exchange(server, b"GET /version HTTP/1.0\r\n\r\n")
    assert _status(one_zero) == 200
    assert b'"major"' in one_zero


def test_expect_100_continue_is_answered_before_the_body(server: EmbeddedServer) -> None:
    body = b'{"metadata":{"name":"after-100"},"data":{"a":"b"}}'
    with socket.create_connection(("127.0.0.1", port_of(server)), timeout=10) as sock:
        sock.sendall(b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\n"
                     b"Host: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Expect: 100-continue\r\nConnection: close\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body))
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue\r\n")
        sock.sendall(body)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert b"HTTP/1.1 201 Created\r\n" in received
    assert b'"name":"after-100"' in received


@pytest.mark.parametrize(("request_line", "status"), [
    (b"GET /version HTTP/2.0\r\n\r\n", 505),
    (b"GET /version HTTP/1.x\r\n\r\n", 400),
    (b"GET /version HTTP/1.1 extra\r\n\r\n", 400),
    (b"GET /version HTTP/1.1\r\nno colon\r\n\r\n", 400),
])
def test_a_request_the_server_cannot_read_gets_a_plain_error(
        server: EmbeddedServer, request_line: bytes, status: int) -> None:
    answer = _exchange(server, request_line)
    assert _status(answer) == status
    assert b"Connection: close" in answer


def test_an_answer_is_one_write_with_its_length(server: EmbeddedServer) -> None:
    answer = _exchange(server, b"GET /api/v1/namespaces/default HTTP/1.1\r\n"
                               b"Host: 127.0.0.1\r\nConnection: close\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 200 OK"
    fields = dict(line.split(": ", 1) for line in lines[1:])
    assert int(fields["Content-Length"]) == len(body)
    assert fields["Content-Type"] == "application/json"
    assert fields["Cache-Control"] == "no-cache, private"
    assert fields["Date"].endswith(" GMT")
    assert json.loads(body)["metadata"]["name"] == "default"
