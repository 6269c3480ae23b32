"""The simulated kubelet's HTTP endpoint: where the API server reads container logs.

A real kubelet serves an API on its node (port 10250, named in the Node's
`status.daemonEndpoints.kubeletEndpoint.Port`); kube-apiserver answers
`GET /api/v1/namespaces/NS/pods/NAME/log` by asking the pod's node's kubelet for
`/containerLogs/NS/NAME/CONTAINER` and passing the answer on. This is that endpoint for
the simulated kubelet, on loopback and a free port, in plain HTTP: the API server
(kubenb.server.pod_logs) reaches it the way kube-apiserver reaches a kubelet, so
neither imports the other. Only `containerLogs` is served; exec, attach and
port-forward stay unanswered (the server says so).

A request must carry the Authorization header the kubelet's own API connection sends
(the API server presents its token), when that connection sends one.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from kubenb.controllermanager.container_logs import LogOptions, LogOptionsError
from kubenb.controllermanager.container_runtime import ContainerRuntime, LogNotFound

__all__ = ["KubeletServer"]

log = logging.getLogger(__name__)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("kubelet %s " + format, self.address_string(), *args)

    def _text(self, code: int, message: str) -> None:
        body = (message + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _client_gone(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def do_GET(self) -> None:
        expected = self.server.authorization
        given = self.headers.get("Authorization") or ""
        if expected is not None and not hmac.compare_digest(given.encode(), expected.encode()):
            self._text(401, "Unauthorized")
            return
        split = urlsplit(self.path)
        parts = [unquote(p) for p in split.path.split("/") if p]
        if len(parts) != 4 or parts[0] != "containerLogs":
            self._text(404, f"404 page not found: the kubenb kubelet serves only "
                            f"/containerLogs/NAMESPACE/POD/CONTAINER, not {split.path}")
            return
        _, namespace, pod, container = parts
        try:
            options = LogOptions.from_query(dict(parse_qsl(split.query)))
            container_log = self.server.runtime.log(namespace, pod, container,
                                                    options.previous)
        except LogOptionsError as err:
            self._text(400, str(err))
            return
        except LogNotFound as err:
            self._text(err.code, str(err))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Connection", "close")  # the body ends when the connection does
        self.end_headers()
        stopping = self.server.stopping
        try:
            for data in options.read(container_log,
                                     lambda: stopping.is_set() or self._client_gone()):
                self.wfile.write(data)
        except OSError:
            pass  # the reader went away


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # joined at stop: a follower ends within a poll of it

    def __init__(self, runtime: ContainerRuntime, authorization: str | None) -> None:
        self.runtime = runtime
        self.authorization = authorization
        self.stopping = threading.Event()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        threading.current_thread().name = "kubenb-kubelet-http"
        super().process_request_thread(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("kubelet endpoint: error answering %s", client_address, exc_info=True)


class KubeletServer:
    """The kubelet endpoint on 127.0.0.1 (a free port, `port` once started)."""

    def __init__(self, runtime: ContainerRuntime, authorization: str | None = None) -> None:
        self.runtime = runtime
        self.authorization = authorization
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        where = f"127.0.0.1:{self.port}" if self._server is not None else "stopped"
        return f"KubeletServer({where})"

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("KubeletServer: not started")
        return int(self._server.server_address[1])

    def start(self) -> KubeletServer:
        if self._server is None:
            self._server = _Server(self.runtime, self.authorization)
            self._thread = threading.Thread(target=self._server.serve_forever,
                                            kwargs={"poll_interval": 0.5}, daemon=True,
                                            name="kubenb-kubelet-server")
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: followers end, every thread is joined."""
        server, self._server = self._server, None
        if server is None:
            return
        server.stopping.set()
        stopper = threading.Thread(target=server.shutdown, daemon=True,
                                   name="kubenb-kubelet-server-stopper")
        stopper.start()
        # shutdown() waits for the serve loop's next poll; a connection wakes it now.
        with contextlib.suppress(OSError), socket.create_connection(
                ("127.0.0.1", server.server_address[1]), timeout=1):
            pass
        stopper.join()
        with contextlib.suppress(OSError):
            server.server_close()  # joins the request threads
        if self._thread is not None:
            self._thread.join()
