"""EmbeddedServer: the in-memory Kubernetes API server on loopback, as a context manager."""

from __future__ import annotations

import contextlib
import shutil
import socket
import tempfile
import threading
from pathlib import Path
from types import TracebackType

from kubenb.server.handlers import ApiHandler
from kubenb.server.http import KubeHTTPServer
from kubenb.server.kubeconfig import write_kubeconfig
from kubenb.server.resources import ResourceRegistry
from kubenb.server.rest import SYSTEM_NAMESPACES, Registry
from kubenb.server.storage import Storage


class EmbeddedServer:
    """A real HTTP server on 127.0.0.1 speaking the Kubernetes REST API from memory.

    Objects live in one `Storage` with an etcd-like global resourceVersion; the last
    `history_window` events are kept for watches and Exact/paged lists. Stop it (or
    leave the `with` block) to end every watch, close every connection and join every
    thread it started.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        history_window: int = 10_000,
        bookmark_interval: float = 60.0,
        too_large_rv_wait: float = 3.0,
        max_watch_buffer: int = 100_000,
    ) -> None:
        self.host = host
        self.port = port
        self._token = token
        self.bookmark_interval = bookmark_interval
        self.storage = Storage(history_window=history_window, max_watch_buffer=max_watch_buffer)
        self.types = ResourceRegistry()
        self.registry = Registry(self.storage, self.types, too_large_rv_wait=too_large_rv_wait)
        for namespace in SYSTEM_NAMESPACES:
            self.registry.ensure_namespace(namespace)
        self._stop = threading.Event()
        self._httpd: KubeHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._tmpdir: Path | None = None
        self._kubeconfig: Path | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        state = f"url={self.url!r}" if self._httpd else "stopped"
        return f"EmbeddedServer({state}, auth={'token' if self._token else 'none'})"

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> EmbeddedServer:
        """Bind, serve on a background thread and write the kubeconfig; returns self."""
        with self._lock:
            if self._httpd is not None:
                return self
            self._stop.clear()
            app = ApiHandler(self.storage, self.types, self.registry, self._stop,
                             token=self._token, bookmark_interval=self.bookmark_interval)
            httpd = KubeHTTPServer((self.host, self.port), app)
            bound_port = httpd.server_address[1]
            app.server_address = f"{self.host}:{bound_port}"
            self._httpd = httpd
            self._thread = threading.Thread(target=httpd.serve_forever,
                                            kwargs={"poll_interval": 0.5},
                                            name=f"kubenb-server-http-{bound_port}",
                                            daemon=True)
            self._thread.start()
            self._tmpdir = Path(tempfile.mkdtemp(prefix="kubenb-server-"))
            self._kubeconfig = write_kubeconfig(self._tmpdir / "kubeconfig", self.url,
                                                self._token)
            return self

    def stop(self, timeout: float = 5.0) -> None:
        """End watches, close connections, join all threads, remove the temp dir."""
        with self._lock:
            httpd, thread = self._httpd, self._thread
            if httpd is None:
                return
            self._stop.set()
            self.storage.close_all_watches()
            stopper = threading.Thread(target=httpd.shutdown, name="kubenb-server-stopper",
                                       daemon=True)
            stopper.start()
            # shutdown() waits for the serve loop's next poll; a connection wakes it now.
            with contextlib.suppress(OSError), socket.create_connection(
                    (self.host, httpd.server_address[1]), timeout=1):
                pass
            stopper.join(timeout)
            if thread is not None:
                thread.join(timeout)
            httpd.close_connections()
            httpd.join_connections(timeout)
            httpd.server_close()
            self._httpd = None
            self._thread = None
            if self._tmpdir is not None:
                shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None
            self._kubeconfig = None

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- addresses -----------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._httpd is not None

    @property
    def url(self) -> str:
        """`http://host:port` of the running server."""
        if self._httpd is None:
            raise RuntimeError("the server is not running; call start() first")
        return f"http://{self.host}:{self._httpd.server_address[1]}"

    @property
    def kubeconfig_path(self) -> str:
        """A kubeconfig kubectl can use (`--kubeconfig`), removed on stop()."""
        if self._kubeconfig is None:
            raise RuntimeError("the server is not running; call start() first")
        return str(self._kubeconfig)

    def write_kubeconfig(self, path: str) -> str:
        """Write a kubeconfig for this server to `path` (kept after stop)."""
        return str(write_kubeconfig(path, self.url, self._token))

    # -- instruments -----------------------------------------------------------------

    def drop_watches(self) -> int:
        """End every open watch now (clients see the stream close); returns how many."""
        return self.storage.close_all_watches()

    def compact(self) -> int:
        """Forget the event history, so resumes from older RVs get 410; returns the RV."""
        return self.storage.compact()
