"""A raw-socket HTTP server whose every answer a test scripts: hold it, reset it, close it.

`rawserver.chunked_server` replays bytes; this one hands each request to a function
that decides, so a test can answer LISTs normally while it accepts a watch and resets
the connection at once, or hold a request (no status line, no headers) until the test
releases it and see whether the client closed its end meanwhile. Every request is
recorded, and `wait_for` lets a test block until one arrived (a handshake, not a
sleep). Each connection gets one answer and is closed (`Connection: close`).
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from kubenb.client.config import Config
from kubenb.client.dynamic import ResourceClient
from kubenb.client.rest import RESTClient


@dataclass
class Request:
    method: str
    path: str
    params: dict[str, str]
    conn: socket.socket = field(repr=False)

    @property
    def verb(self) -> str:
        """"watch-list", "watch" or "list" (GETs of a collection, as the tests use them)."""
        if self.params.get("watch") in ("true", "1"):
            return "watch-list" if self.params.get("sendInitialEvents") == "true" else "watch"
        return "list"


class ScriptedServer:
    """See the module docstring; use `scripted_server(answer)`."""

    def __init__(self, answer: Callable[[ScriptedServer, Request], None]) -> None:
        self.answer = answer
        self._lock = threading.Condition()
        self.requests: list[Request] = []
        self.client_closed: list[Request] = []  # held requests whose client hung up
        self.answered: list[Request] = []
        self.release = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._threads: list[threading.Thread] = []
        self._closing = False
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def count(self, verb: str) -> int:
        with self._lock:
            return sum(r.verb == verb for r in self.requests)

    def wait_for(self, predicate: Callable[[ScriptedServer], bool], timeout: float = 10.0,
                 what: str = "") -> None:
        """Block until `predicate(self)` holds (re-checked on every server event)."""
        with self._lock:
            if not self._lock.wait_for(lambda: predicate(self), timeout):
                raise AssertionError(f"timed out after {timeout}s waiting for "
                                     f"{what or predicate}; requests: {self.requests}")

    # -- answers ----------------------------------------------------------------------

    def send_json(self, req: Request, obj: Any, status: str = "200 OK") -> None:
        body = json.dumps(obj).encode()
        req.conn.sendall(b"HTTP/1.1 " + status.encode() + b"\r\nContent-Type: application/json"
                         b"\r\nConnection: close\r\nContent-Length: " + str(len(body)).encode()
                         + b"\r\n\r\n" + body)
        self._note(self.answered, req)

    def start_stream(self, req: Request, body: bytes = b"") -> None:
        """A 200 with chunked framing (a watch), and `body` as its first chunk."""
        req.conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n")
        if body:
            req.conn.sendall(b"%x\r\n%s\r\n" % (len(body), body))
        self._note(self.answered, req)

    @staticmethod
    def end_stream(req: Request) -> None:
        req.conn.sendall(b"0\r\n\r\n")

    @staticmethod
    def reset(req: Request) -> None:
        """Close with a TCP RST (SO_LINGER 0): the client sees 'connection reset'."""
        req.conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        req.conn.close()

    def hold(self, req: Request) -> bool:
        """Send nothing until `release` is set or the client closes its end; True when
        the client hung up first (recorded in `client_closed`)."""
        while not self.release.is_set():
            readable, _, _ = select.select([req.conn], [], [], 0.02)
            if readable:
                try:
                    data = req.conn.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    self._note(self.client_closed, req)
                    return True
        return False

    # -- plumbing ---------------------------------------------------------------------

    def _note(self, where: list[Request], req: Request) -> None:
        with self._lock:
            where.append(req)
            self._lock.notify_all()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            if self._closing:
                conn.close()
                return
            thread = threading.Thread(target=self._handle, args=(conn,),
                                      name="scripted-server-conn")
            with self._lock:
                self._threads.append(thread)
            thread.start()

    def _handle(self, conn: socket.socket) -> None:
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                data = conn.recv(65536)
                if not data:
                    return
                head += data
            method, target, _ = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
            parts = urlsplit(target)
            req = Request(method, parts.path, dict(parse_qsl(parts.query)), conn)
            self._note(self.requests, req)
            self.answer(self, req)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                conn.close()

    def close(self) -> None:
        self.release.set()
        self._closing = True
        with contextlib.suppress(OSError):
            # Wake accept(): connect once, then close the listener.
            socket.create_connection(self._listener.getsockname(), timeout=1).close()
        self._listener.close()
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(5)


@contextmanager
def scripted_server(answer: Callable[[ScriptedServer, Request], None]
                    ) -> Iterator[ScriptedServer]:
    server = ScriptedServer(answer)
    acceptor = threading.Thread(target=server._serve, name="scripted-server")
    acceptor.start()
    try:
        yield server
    finally:
        server.close()
        acceptor.join(5)


# -- answers of ConfigMaps -------------------------------------------------------------------------

NAMESPACE = "kubenb-watch"


def configmap(name: str) -> dict[str, Any]:
    """A ConfigMap to create (no namespace: the client's)."""
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
            "data": {"v": "1"}}


def configmap_list(rv: str, *names: str) -> dict[str, Any]:
    """A ConfigMapList at `rv` of the ConfigMaps `names` in NAMESPACE, to answer a LIST."""
    return {"kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": rv},
            "items": [{**configmap(n), "metadata": {"name": n, "namespace": NAMESPACE,
                                                    "resourceVersion": rv}} for n in names]}


def client_for(url: str) -> ResourceClient:
    """A client of the configmaps in NAMESPACE on the server at `url`."""
    return ResourceClient(RESTClient(Config(server=url)), "v1", "configmaps", NAMESPACE)


def holding(held: str) -> Callable[[ScriptedServer, Request], None]:
    """Hold every request of kind `held`; answer a LIST, hold any other watch too."""

    def answer(srv: ScriptedServer, req: Request) -> None:
        if req.verb == "list" and held != "list":
            srv.send_json(req, configmap_list("10", "a"))
        else:
            srv.hold(req)

    return answer
