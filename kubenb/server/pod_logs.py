"""`pods/log`: the API server asks the pod's node's kubelet, and passes its answer on.

kube-apiserver keeps no logs. For `GET /api/v1/namespaces/NS/pods/NAME/log` it checks
the container, finds the pod's node, reads the kubelet's port from the Node
(`status.daemonEndpoints.kubeletEndpoint.Port`) and streams the kubelet's answer to
`/containerLogs/NS/NAME/CONTAINER` back (Go: LogREST, LogLocation, LocationStreamer).
This server does the same, over plain HTTP, and finds every kubelet on loopback: the
nodes of a kubenb cluster are simulated on the machine the server runs on (the
addresses in a Node's status, a kind-like 172.18.0.x, are what its pods see, not where
its kubelet listens). HTTP is the seam, as in a real cluster: the server imports nothing
of the simulated kubelet (kubenb.controllermanager), which serves that endpoint.

When no kubelet answers for the node, the answer is the 400 Status the server gives for
every request that needs a container runtime: it runs none itself.
"""

from __future__ import annotations

import contextlib
import http.client
import queue
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, urlencode

from kubenb.server import errors
from kubenb.server.registry import Registry
from kubenb.server.resources import ResourceType

__all__ = ["LOG_OPTIONS", "LogStream", "open_log"]

#: The PodLogOptions passed on to the kubelet.
LOG_OPTIONS = ("follow", "previous", "timestamps", "tailLines", "limitBytes", "sinceSeconds",
               "sinceTime")
_NO_RUNTIME = "the kubenb embedded API server has no container runtime"
_CONNECT_TIMEOUT = 5.0
_POLL = 0.25  # real seconds between looks at the client and the server's stop
_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound"}


class LogStream:
    """A kubelet's log answer on its way to the client: `chunks()` yields its bytes as
    they come (a reader thread reads the kubelet's socket, so a client that left or a
    stopping server is noticed while the log is quiet); `close()` ends it."""

    content_type = "text/plain"

    def __init__(self, connection: http.client.HTTPConnection,
                 response: http.client.HTTPResponse, stop: threading.Event) -> None:
        self._connection = connection
        self._response = response
        self._stop = stop
        self._chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=64)
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True,
                                        name="kubenb-server-log-reader")
        self._reader.start()

    def __repr__(self) -> str:
        return f"LogStream({'closed' if self._closed.is_set() else 'open'})"

    def _read(self) -> None:
        try:
            while not self._closed.is_set():
                data = self._response.read1(65536)
                if not data:
                    break
                while not self._closed.is_set():
                    try:
                        self._chunks.put(data, timeout=_POLL)
                        break
                    except queue.Full:
                        continue
        except (OSError, http.client.HTTPException, ValueError):
            pass  # the kubelet went away, or close() shut the socket
        finally:
            with contextlib.suppress(queue.Full):
                self._chunks.put_nowait(None)

    def chunks(self, client_gone: Callable[[], bool] = lambda: False) -> Iterator[bytes]:
        """The log's bytes until the kubelet ends it, the client goes or the server stops."""
        while not self._stop.is_set():
            try:
                data = self._chunks.get(timeout=_POLL)
            except queue.Empty:
                if client_gone():
                    return
                continue
            if data is None:
                return
            yield data

    def close(self) -> None:
        """Stop reading from the kubelet and join the reader."""
        self._closed.set()
        sock = self._connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self._reader.join()
        self._connection.close()


def _no_kubelet(name: str, node: str, detail: str) -> errors.StatusError:
    return errors.bad_request(f'cannot read the logs of pod "{name}": {_NO_RUNTIME}, and no '
                              f'kubelet answers for its node "{node}" ({detail})')


def _container(pod: dict[str, Any], name: str, params: dict[str, str]) -> str:
    """The container asked for, or the pod's only one (Go: podLogLocation's checks)."""
    spec = pod.get("spec") or {}
    names = {key: [str(c.get("name")) for c in spec.get(key) or [] if isinstance(c, dict)]
             for key in ("containers", "initContainers", "ephemeralContainers")}
    wanted = params.get("container", "")
    if not wanted:
        if len(names["containers"]) == 1:
            return names["containers"][0]
        message = (f"a container name must be specified for pod {name}, choose one of: "
                   f"[{' '.join(names['containers'])}]")
        if names["initContainers"]:
            message += f" or one of the init containers: [{' '.join(names['initContainers'])}]"
        raise errors.bad_request(message)
    if not any(wanted in group for group in names.values()):
        raise errors.bad_request(f"container {wanted} is not valid for pod {name}")
    return wanted


def open_log(registry: Registry, pods: ResourceType, namespace: str, name: str,
             params: dict[str, str], authorization: str | None,
             stop: threading.Event) -> LogStream:
    """Ask the kubelet of the pod's node for a container's log (StatusError if it cannot
    be had); `authorization` is the header the server presents to the kubelet."""
    pod = registry.get(pods, namespace, name)
    container = _container(pod, name, params)
    node_name = str((pod.get("spec") or {}).get("nodeName") or "")
    if not node_name:
        raise errors.bad_request(f"pod {name} does not have a host assigned: no kubelet "
                                 f"serves its logs ({_NO_RUNTIME} of its own)")
    nodes = registry.types.lookup("", "v1", "nodes")
    assert nodes is not None
    try:
        node = registry.get(nodes, "", node_name)
    except errors.StatusError:
        raise _no_kubelet(name, node_name, "the Node does not exist") from None
    port = (((node.get("status") or {}).get("daemonEndpoints") or {})
            .get("kubeletEndpoint") or {}).get("Port")
    if not isinstance(port, int) or not 0 < port < 65536:
        raise _no_kubelet(name, node_name, "its status names no kubelet port")
    query = urlencode({k: params[k] for k in LOG_OPTIONS if k in params})
    path = "/containerLogs/" + "/".join(quote(p, safe="") for p in (namespace, name, container))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=_CONNECT_TIMEOUT)
    try:
        connection.request("GET", path + (f"?{query}" if query else ""),
                           headers={"Authorization": authorization} if authorization else {})
        response = connection.getresponse()
    except (OSError, http.client.HTTPException) as err:
        connection.close()
        raise _no_kubelet(name, node_name, f"127.0.0.1:{port}: {err}") from None
    if response.status != 200:
        text = response.read(65536).decode(errors="replace").strip()
        connection.close()
        code = response.status if response.status in _REASONS else 500
        if code == 401:  # the kubelet did not take the server's credentials: the server's fault
            code = 500
        raise errors.StatusError(errors.status_body(
            code, _REASONS.get(code, "InternalError"), text or f"kubelet answered "
            f"{response.status}"))
    if connection.sock is not None:
        connection.sock.settimeout(None)  # a followed log may be quiet for long
    return LogStream(connection, response, stop)
