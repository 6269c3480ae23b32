"""Live watches are sent by one server thread (kubenb.server.watch_mux), over real HTTP:
no thread per watch, a client that never reads holds up nobody, a client that goes away
is unregistered, TLS watches end with a reusable connection, stop leaves no thread."""

from __future__ import annotations

import json
import socket
import ssl
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubenb.server import EmbeddedServer, watch_mux
from tests.helpers import wait_until
from tests.server.conftest import port_of

CM = "/api/v1/namespaces/default/configmaps"


def server_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("kubenb-server-")]


def wait_for_the_sender(server: EmbeddedServer, watches: int) -> None:
    """Wait until `watches` watches are open and every connection thread has handed its
    watch over (and ended): the sender thread alone holds them."""
    wait_until(lambda: server.storage.watch_count == watches and not [
        name for name in server_threads() if name.startswith("kubenb-server-conn-")], 10,
        what=f"{watches} watches held by the sender thread alone (threads: "
             f"{server_threads()})")


class RawWatch:
    """A watch client on a bare (or TLS) socket that reads the chunked body frame by
    frame, so a test sees exactly what the server wrote."""

    def __init__(self, sock: socket.socket, path: str, extra_headers: str = "") -> None:
        self.sock = sock
        self.buffer = b""
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                     f"{extra_headers}\r\n".encode())
        head = self.read_until(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK"), head
        assert b"transfer-encoding: chunked" in head.lower(), head

    def _fill(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("the server closed the connection")
        self.buffer += data

    def read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        head, _, self.buffer = self.buffer.partition(marker)
        return head

    def read_exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self._fill()
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def chunk(self) -> bytes:
        """The next chunk's data; b"" for the terminating chunk."""
        size = int(self.read_until(b"\r\n"), 16)
        data = self.read_exactly(size)
        assert self.read_exactly(2) == b"\r\n"
        return data

    def events(self, n: int) -> list[dict[str, Any]]:
        """The next `n` events (lines may come several to a chunk)."""
        out: list[dict[str, Any]] = []
        while len(out) < n:
            data = self.chunk()
            assert data, f"the watch ended after {len(out)} of {n} events"
            out.extend(json.loads(line) for line in data.splitlines() if line)
        assert len(out) == n, out
        return out

    def rest(self) -> list[bytes]:
        """Every chunk up to and without the terminating one."""
        chunks = []
        while data := self.chunk():
            chunks.append(data)
        return chunks


def _connect(server: EmbeddedServer, timeout: float = 10) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port_of(server)), timeout=timeout)


def _put(server: EmbeddedServer, name: str, data: dict[str, str] | None = None) -> int:
    rtype = server.types.lookup("", "v1", "configmaps")
    assert rtype is not None
    body = {"metadata": {"name": name}, "data": data or {}}
    if server.storage.get("configmaps", "default", name) is None:
        obj = server.registry.create(rtype, "default", body)
    else:
        obj = server.registry.update(rtype, "default", name, body)
    return int(obj["metadata"]["resourceVersion"])


def _watch_path(server: EmbeddedServer, **params: str) -> str:
    query = {"watch": "true", "resourceVersion": str(server.storage.resource_version),
             **params}
    return CM + "?" + "&".join(f"{k}={v}" for k, v in query.items())


@pytest.fixture
def plain_server() -> Iterator[EmbeddedServer]:
    with EmbeddedServer(bookmark_interval=60) as srv:
        yield srv


def test_fifty_watches_are_sent_without_a_thread_each(plain_server: EmbeddedServer) -> None:
    server = plain_server
    before = len(server_threads())
    watches = [RawWatch(_connect(server), _watch_path(server)) for _ in range(50)]
    try:
        wait_until(lambda: server.storage.watch_count == 50, 10, what="50 watches open")
        # their connection threads have handed over and ended: one sender thread remains
        wait_until(lambda: len(server_threads()) == before + 1, 10,
                   what=f"one thread for 50 watches (have {server_threads()})")
        assert any(name.startswith("kubenb-server-watches-") for name in server_threads())
        rvs = [_put(server, "fan-out", {"n": str(i)}) for i in range(3)]
        for watch in watches:
            got = watch.events(3)
            assert [int(e["object"]["metadata"]["resourceVersion"]) for e in got] == rvs
            assert [e["type"] for e in got] == ["ADDED", "MODIFIED", "MODIFIED"]
        assert len(server_threads()) == before + 1
    finally:
        for watch in watches:
            watch.sock.close()
    wait_until(lambda: server.storage.watch_count == 0, 10, what="the watches to be freed")
    # with nothing to send, the sender thread ends too (the next watch starts another)
    wait_until(lambda: len(server_threads()) == before, 10, what="the sender thread to end")
    again = RawWatch(_connect(server), _watch_path(server))
    wait_for_the_sender(server, 1)
    rv = _put(server, "again", {})
    assert int(again.events(1)[0]["object"]["metadata"]["resourceVersion"]) == rv
    again.sock.close()


BOUND = 256 * 1024
BLOB = "x" * (16 * 1024)


def test_a_client_that_never_reads_holds_up_no_other_watcher_and_is_cut() -> None:
    with EmbeddedServer(max_watch_buffer_bytes=BOUND) as server:
        stuck = socket.socket()
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.connect(("127.0.0.1", port_of(server)))
        path = _watch_path(server)
        stuck.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        wait_until(lambda: server.storage.watch_count == 1, 10, what="the stuck watch open")
        good = RawWatch(_connect(server, timeout=5), path)  # a read waits 5 s at most
        wait_until(lambda: server.storage.watch_count == 2, 10, what="the good watch open")
        i = 0
        while not server.watch_stats()["closed_behind"]:
            assert i < 1000, "the watcher that never reads was never cut"
            rv = _put(server, f"cm-{i % 4}", {"blob": BLOB, "i": str(i)})
            started = time.monotonic()
            [event] = good.events(1)  # each event reaches the reader while the other sits
            assert int(event["object"]["metadata"]["resourceVersion"]) == rv
            assert time.monotonic() - started < 5
            i += 1
        assert i * len(BLOB) > BOUND  # it was cut for its buffer, not before
        wait_until(lambda: server.storage.watch_count == 1, 10, what="the stuck watch freed")
        stuck.settimeout(10)
        received = b""
        try:
            while data := stuck.recv(65536):  # what the kernel held, then the end
                received += data
        except ConnectionResetError:
            pass
        stuck.close()
        assert received.startswith(b"HTTP/1.1 200 OK")
        rv = _put(server, "after", {})
        [event] = good.events(1)
        assert int(event["object"]["metadata"]["resourceVersion"]) == rv
        good.sock.close()


def _linger_zero(sock: socket.socket) -> None:
    """Closing the socket then sends RST instead of FIN."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


@pytest.mark.parametrize("how", ["close", "reset"])
def test_a_client_that_goes_away_is_unregistered(plain_server: EmbeddedServer, how: str
                                                 ) -> None:
    server = plain_server
    watch = RawWatch(_connect(server), _watch_path(server))
    wait_for_the_sender(server, 1)
    if how == "reset":
        _linger_zero(watch.sock)
    watch.sock.close()
    wait_until(lambda: server.storage.watch_count == 0, 5,
               what="the server to free the watch of a client that went away")


def _thread_cpu_seconds(thread: threading.Thread) -> float:
    fields = Path(f"/proc/self/task/{thread.native_id}/stat").read_text().rsplit(")", 1)[1]
    utime, stime = fields.split()[11:13]
    return (int(utime) + int(stime)) / 100  # clock ticks (USER_HZ, 100 on Linux)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc")
def test_a_client_that_talks_mid_watch_does_not_make_the_sender_spin(
        plain_server: EmbeddedServer) -> None:
    server = plain_server
    watch = RawWatch(_connect(server), _watch_path(server, timeoutSeconds="30"))
    wait_for_the_sender(server, 1)
    [mux] = [t for t in threading.enumerate() if t.name.startswith("kubenb-server-watches-")]
    watch.sock.sendall(b"unexpected bytes")
    rv = _put(server, "still-served", {})
    [event] = watch.events(1)
    assert int(event["object"]["metadata"]["resourceVersion"]) == rv
    cpu, started = _thread_cpu_seconds(mux), time.monotonic()
    deadline = started + 0.5
    while time.monotonic() < deadline:
        time.sleep(0.05)
    used = _thread_cpu_seconds(mux) - cpu
    assert used < 0.25, f"the sender used {used:.2f} s of CPU in 0.5 s while idle"
    assert server.storage.watch_count == 1
    watch.sock.close()


@pytest.fixture
def tls_server() -> Iterator[EmbeddedServer]:
    with EmbeddedServer(tls=True, bookmark_interval=0.2) as srv:
        yield srv


def _tls_connect(server: EmbeddedServer) -> ssl.SSLSocket:
    context = ssl.create_default_context(cafile=server.ca_path)
    return context.wrap_socket(_connect(server), server_hostname="localhost",
                               suppress_ragged_eofs=False)


def test_a_tls_watch_is_sent_and_its_connection_reused_after_its_timeout(
        tls_server: EmbeddedServer) -> None:
    server = tls_server
    sock = _tls_connect(server)
    before = server.storage.watch_count
    watch = RawWatch(sock, _watch_path(server, timeoutSeconds="1",
                                       allowWatchBookmarks="true"))
    wait_for_the_sender(server, 1)
    rv = _put(server, "over-tls", {"a": "b"})
    events: list[dict[str, Any]] = []
    for data in watch.rest():  # until the terminating chunk, at timeoutSeconds
        events.extend(json.loads(line) for line in data.splitlines() if line)
    changes = [e for e in events if e["type"] != "BOOKMARK"]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in changes] == [
        ("ADDED", "over-tls")]
    assert int(changes[0]["object"]["metadata"]["resourceVersion"]) == rv
    assert any(e["type"] == "BOOKMARK" for e in events)  # the server's 0.2 s interval
    wait_until(lambda: server.storage.watch_count == before, 5, what="the watch closed")
    # the same TLS connection (no new handshake) serves the next request
    sock.sendall(b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    head = watch.read_until(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK"), head
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    assert json.loads(watch.read_exactly(length))["gitVersion"]
    # and another watch after that, on the same connection again
    again = RawWatch(sock, _watch_path(server, timeoutSeconds="0.3"))
    assert again.rest() == []
    sock.close()


def test_a_plain_watch_ends_at_its_timeout_and_the_connection_is_reused(
        plain_server: EmbeddedServer) -> None:
    server = plain_server
    sock = _connect(server)
    watch = RawWatch(sock, _watch_path(server, timeoutSeconds="0.5"))
    wait_for_the_sender(server, 1)
    _put(server, "one", {})
    assert [e["object"]["metadata"]["name"] for e in watch.events(1)] == ["one"]
    assert watch.rest() == []  # ended by its timeoutSeconds
    sock.sendall(b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    head = watch.read_until(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK"), head
    sock.close()


def test_stop_ends_every_watch_with_its_terminator_and_leaves_no_thread() -> None:
    server = EmbeddedServer(bookmark_interval=60).start()
    watches = [RawWatch(_connect(server), _watch_path(server)) for _ in range(5)]
    stuck = socket.socket()
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.connect(("127.0.0.1", port_of(server)))
    stuck.sendall(f"GET {_watch_path(server)} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    wait_for_the_sender(server, 6)
    for i in range(40):  # 640 KiB the stuck client never reads: the mux holds a part
        _put(server, f"blob-{i}", {"blob": BLOB})
    for watch in watches:
        assert len(watch.events(40)) == 40
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 4  # the stuck one got about a second
    for watch in watches:
        assert watch.rest() == []  # the terminating chunk came ...
        assert watch.sock.recv(1) == b""  # ... then the end of the connection
        watch.sock.close()
    stuck.close()
    assert server.storage.watch_count == 0
    assert not server_threads()


def test_a_bookmark_interval_beyond_what_select_can_wait_keeps_the_sender_alive() -> None:
    """A bookmark days away (bookmark_interval=1e9) is not a select() timeout epoll
    refuses: the sender waits at most an hour at a time and goes on sending."""
    with EmbeddedServer(bookmark_interval=1e9) as server:
        sock = _connect(server)
        watch = RawWatch(sock, _watch_path(server, allowWatchBookmarks="true"))
        wait_for_the_sender(server, 1)
        for name in ("one", "two", "three"):
            _put(server, name, {})
            assert [e["object"]["metadata"]["name"] for e in watch.events(1)] == [name]
        assert server.storage.watch_count == 1
        sock.close()


def test_events_of_a_burst_are_sent_together_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every wake-up after the first counts as a burst here, and its window is long: the
    writes made meanwhile, each of which would be sent alone otherwise (they are 20 ms
    apart), reach the client together, every event in order. (The first of them may
    still go alone: the sender takes what is queued once more after each write, and the
    first write can come just then.)"""
    monkeypatch.setattr(watch_mux, "BURST_GAP", 3600.0)
    monkeypatch.setattr(watch_mux, "BATCH_WINDOW", 1.0)
    with EmbeddedServer(bookmark_interval=60) as server:
        sock = _connect(server)
        watch = RawWatch(sock, _watch_path(server))
        wait_for_the_sender(server, 1)
        # Held or not (the hand-over may have woken the sender first), this one makes
        # every later wake-up part of a burst.
        first = _put(server, "first", {})
        assert int(watch.events(1)[0]["object"]["metadata"]["resourceVersion"]) == first
        rvs = []
        for i in range(5):
            rvs.append(_put(server, "burst", {"n": str(i)}))
            time.sleep(0.02)
        chunks: list[list[int]] = []
        while sum(map(len, chunks)) < len(rvs):
            chunks.append([int(json.loads(line)["object"]["metadata"]["resourceVersion"])
                           for line in watch.chunk().splitlines()])
        assert [rv for chunk in chunks for rv in chunk] == rvs
        assert len(chunks) <= 2, chunks
        sock.close()


def test_an_event_after_a_quiet_spell_is_not_held_and_stop_ends_a_window(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With a window longer than the client waits (its socket times out after 10 s),
    the first event after a quiet spell still comes; a stop during a window ends it."""
    monkeypatch.setattr(watch_mux, "BURST_GAP", 0.05)
    monkeypatch.setattr(watch_mux, "BATCH_WINDOW", 3600.0)
    server = EmbeddedServer(bookmark_interval=60).start()
    sock = _connect(server)
    watch = RawWatch(sock, _watch_path(server))
    wait_for_the_sender(server, 1)
    time.sleep(0.5)  # a quiet spell: ten times BURST_GAP since the hand-over woke the sender
    rv = _put(server, "after-a-pause", {})
    assert int(watch.events(1)[0]["object"]["metadata"]["resourceVersion"]) == rv
    _put(server, "in-a-burst", {})  # may open a window of an hour
    server.stop()  # ... which the stop ends: the watch gets its end, no thread is left
    assert [json.loads(line)["object"]["metadata"]["name"]
            for chunk in watch.rest() for line in chunk.splitlines()] in (["in-a-burst"], [])
    sock.close()
    assert not server_threads()
