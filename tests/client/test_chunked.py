"""kubenb.client.chunked: chunked transfer coding decoded from the socket, many chunks
per read, exactly what was sent, whatever the chunk and packet edges."""

from __future__ import annotations

import gzip
import itertools
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests
from hypothesis import given
from hypothesis import strategies as st

from kubenb.client.chunked import MAX_BATCH, READ_SIZE, ChunkedBodyReader, ChunkedFramingError
from tests.client.rawserver import chunked_server


def encode(chunks: list[bytes], extensions: bool = False, trailers: bool = False) -> bytes:
    out = []
    for i, chunk in enumerate(chunks):
        ext = b";name=value" if extensions and i % 2 else b""
        out.append(b"%x%s\r\n%s\r\n" % (len(chunk), ext, chunk))
    out.append(b"0\r\n")
    if trailers:
        out.append(b"X-Trailer: 1\r\nX-Other: two\r\n")
    out.append(b"\r\n")
    return b"".join(out)


@contextmanager
def socket_body(pieces: list[bytes], close: bool = True) -> Iterator[ChunkedBodyReader]:
    """A reader over one end of a socket pair; a thread writes `pieces` to the other."""
    ours, theirs = socket.socketpair()
    ours.settimeout(10)

    def write() -> None:
        for piece in pieces:
            theirs.sendall(piece)
        if close:
            theirs.shutdown(socket.SHUT_WR)

    writer = threading.Thread(target=write)
    writer.start()
    fp = ours.makefile("rb")
    try:
        yield ChunkedBodyReader(fp, ours)
    finally:
        writer.join(10)
        fp.close()
        ours.close()
        theirs.close()


def joined(reader: ChunkedBodyReader) -> bytes:
    """One `read()`, its chunks' payloads joined."""
    return b"".join(reader.read())


def read_all(reader: ChunkedBodyReader) -> bytes:
    out = []
    while data := joined(reader):
        out.append(data)
    return b"".join(out)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    edges = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(edges) if b > a]


@given(chunks=st.lists(st.binary(min_size=1, max_size=300), max_size=20),
       cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=30),
       extensions=st.booleans(), trailers=st.booleans())
def test_any_chunking_and_packet_edges_give_the_payload_back(
        chunks: list[bytes], cuts: list[int], extensions: bool, trailers: bool) -> None:
    body = encode(chunks, extensions, trailers)
    with socket_body(split(body, cuts)) as reader:
        assert read_all(reader) == b"".join(chunks)
        assert reader.done


def test_what_the_buffered_reader_already_holds_comes_first_then_the_socket() -> None:
    # http.client reads the headers through a buffered reader, which takes the start of
    # the body along; the reader hands that over before it reads the socket directly.
    chunks = [b"x" * 3000, b"y" * 7000, b"z" * 20]
    ours, theirs = socket.socketpair()
    ours.settimeout(10)
    try:
        theirs.sendall(b"HTTP/1.1 200 OK\r\n\r\n" + encode(chunks[:2])[:-5])
        fp = ours.makefile("rb")
        assert fp.readline() == b"HTTP/1.1 200 OK\r\n"
        assert fp.readline() == b"\r\n"  # the buffer now holds part of the body
        reader = ChunkedBodyReader(fp, ours)
        first = joined(reader)
        theirs.sendall(encode(chunks[2:]))
        assert first + read_all(reader) == b"".join(chunks)
        assert reader.done
    finally:
        ours.close()
        theirs.close()


def test_what_waits_in_the_socket_comes_in_one_read() -> None:
    events = [b'{"type":"MODIFIED","object":{"n":%d}}\n' % i for i in range(50)]
    ours, theirs = socket.socketpair()
    try:
        theirs.sendall(encode(events)[:-5])  # every event; the last chunk still to come
        reader = ChunkedBodyReader(ours.makefile("rb"), ours)
        assert reader.read() == events  # every chunk that waits, one piece each
        theirs.sendall(b"0\r\n\r\n")
        assert joined(reader) == b""
    finally:
        ours.close()
        theirs.close()


def test_a_batch_stops_growing_when_the_server_sends_faster_than_it_is_read() -> None:
    # The socket never runs dry while a writer keeps it full: without a bound the first
    # read would take the whole stream before the consumer saw its first event.
    events = [b'{"type":"MODIFIED","object":{"n":%d,"pad":"%s"}}\n' % (i, b"p" * 4000)
              for i in range(1000)]
    with socket_body([encode(events)]) as reader:
        reads = []
        while data := joined(reader):
            reads.append(data)
        assert b"".join(reads) == b"".join(events)
        assert max(map(len, reads)) <= MAX_BATCH + READ_SIZE
        assert len(reads) >= len(b"".join(events)) // (MAX_BATCH + READ_SIZE)


@pytest.mark.parametrize("body, message", [
    (b"zz\r\nabc\r\n0\r\n\r\n", "invalid chunk size"),
    (b"-3\r\nabc\r\n0\r\n\r\n", "invalid chunk size"),
    (b"1_0\r\n" + b"a" * 16 + b"\r\n0\r\n\r\n", "invalid chunk size"),
    (b"\r\nabc\r\n0\r\n\r\n", "invalid chunk size"),
    (b"3\r\nabcXY0\r\n\r\n", "not followed by CRLF"),
    (b"f" * 5000, "chunk-size line longer"),
])
def test_bad_framing_names_what_is_wrong(body: bytes, message: str) -> None:
    with socket_body([body]) as reader, pytest.raises(ChunkedFramingError, match=message):
        read_all(reader)


def test_a_body_cut_short_is_a_lost_connection_after_what_came() -> None:
    with socket_body([encode([b"abc", b"defg"])[:-5]]) as reader:
        assert joined(reader) == b"abcdefg"
        with pytest.raises(ConnectionResetError):
            joined(reader)
    with socket_body([b"5\r\nab"]) as reader:
        assert joined(reader) == b"ab"
        with pytest.raises(ChunkedFramingError, match="middle of a chunk"):
            joined(reader)


def test_used_for_a_plain_chunked_response_only() -> None:
    with chunked_server([b"one\n", b"two\n"]) as url:
        plain = requests.get(url + "/x", stream=True)
        reader = ChunkedBodyReader.from_response(plain)
        assert reader is not None
        assert read_all(reader) == b"one\ntwo\n"
        plain.close()
        started = requests.get(url + "/x", stream=True)
        started.raw.read(1)  # urllib3 has begun reading: the framing state is its own
        assert ChunkedBodyReader.from_response(started) is None
        started.close()


def test_not_used_when_a_content_coding_applies() -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    body = gzip.compress(b'{"type":"ADDED","object":{}}\n')

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
            self.close_connection = True

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        resp = requests.get(f"http://127.0.0.1:{server.server_address[1]}/", stream=True)
        assert ChunkedBodyReader.from_response(resp) is None
        resp.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_descriptor_above_1024_is_read_without_blocking() -> None:
    """select() cannot watch descriptors past FD_SETSIZE; poll() can: a watch in a process
    with many files open must still hand over what came without waiting for more."""
    import os
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if max(soft, hard if hard != resource.RLIM_INFINITY else 4096) < 1600:
        pytest.skip("the descriptor limit does not reach 1600")
    if soft < 1600:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1600, hard))
    ours, theirs = socket.socketpair()
    high = os.dup2(ours.fileno(), 1500)
    ours.close()
    sock = socket.socket(fileno=high)
    sock.settimeout(10)
    try:
        theirs.sendall(encode([b"one\n", b"two\n"])[:-5])  # the body goes on later
        reader = ChunkedBodyReader(sock.makefile("rb"), sock)
        assert joined(reader) == b"one\ntwo\n"  # returned: not blocked on the next read
    finally:
        sock.close()
        theirs.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_what_came_is_handed_over_when_the_socket_cannot_be_asked() -> None:
    class Broken:
        def poll(self, timeout: int) -> list[object]:
            raise OSError("cannot poll")

    ours, theirs = socket.socketpair()
    ours.settimeout(10)
    try:
        theirs.sendall(encode([b"abc\n"])[:-5])
        reader = ChunkedBodyReader(ours.makefile("rb"), ours)
        reader._poll = Broken()  # type: ignore[assignment]
        assert joined(reader) == b"abc\n"
    finally:
        ours.close()
        theirs.close()
