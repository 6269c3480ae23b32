"""EmbeddedServer: the in-memory Kubernetes API server on loopback, as a context manager."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from kubenb.clock import Clock
from kubenb.errors import ServerConfigError
from kubenb.recording.format import Recording
from kubenb.server import bootstrap
from kubenb.server.churn import Churn, seed_objects
from kubenb.server.errors import StatusError, as_api_error
from kubenb.server.faults import Faults
from kubenb.server.handlers import ApiHandler
from kubenb.server.http import KubeHTTPServer
from kubenb.server.kubeconfig import write_kubeconfig
from kubenb.server.registry import SYSTEM_NAMESPACES, Registry
from kubenb.server.replay import Replay
from kubenb.server.resources import ResourceRegistry
from kubenb.server.storage import DEFAULT_WATCH_BUFFER_BYTES, Storage
from kubenb.server.tls import (
    SERVING_NAMES,
    CertBundle,
    TLSSetupError,
    generate_self_signed,
    load_user_certificate,
)
from kubenb.server.tokens import TokenIssuer

__all__ = ["EmbeddedServer", "ServerConfigError"]

_WILDCARDS = ("", "0.0.0.0")


class EmbeddedServer:
    """A real HTTP server on 127.0.0.1 speaking the Kubernetes REST API from memory.

    Objects live in one `Storage` with an etcd-like global resourceVersion; the last
    `history_window` events are kept for watches and Exact/paged lists. Stop it (or
    leave the `with` block) to end every watch, close every connection and join every
    thread it started.

    `token` requires `Authorization: Bearer <token>` (401 without it; without `token`
    every request that carries no ServiceAccount token is the administrator's).
    ServiceAccount tokens (`serviceaccounts/token`, `kubectl create token`) are signed by
    `tokens` and expire by `clock` (a FakeClock steps them to expiry); requests that carry
    one are authorized by RBAC (kubenb.server.rbac). `tls=True` serves
    HTTPS with a throwaway CA made for this server (`ca_pem`, `ca_path`, and the
    kubeconfig's certificate-authority-data); `tls=(certfile, keyfile)` serves your own
    certificate, with `tls_ca=` naming the CA clients should trust (else the system's).
    `faults` holds the fault switches; `churn()` and `seed_objects()` make it move.

    A watcher that stops reading is closed once the events waiting for it pass
    `max_watch_buffer_bytes` of JSON (or `max_watch_buffer` events), as the real
    apiserver closes unresponsive watchers; its client resumes from its last
    resourceVersion. `watch_stats()` counts those closes.
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
        max_watch_buffer_bytes: int = DEFAULT_WATCH_BUFFER_BYTES,
        tls: bool | tuple[str | os.PathLike[str], str | os.PathLike[str]] = False,
        tls_ca: str | os.PathLike[str] | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self._token = token
        self.tokens = TokenIssuer(clock=clock)
        self._certs = _certificates(host, tls, tls_ca)
        self.bookmark_interval = bookmark_interval
        if max_watch_buffer_bytes < 0:
            raise ServerConfigError(
                f"EmbeddedServer(max_watch_buffer_bytes={max_watch_buffer_bytes}): give a "
                "number of bytes, or 0 for no byte bound")
        self.storage = Storage(history_window=history_window, max_watch_buffer=max_watch_buffer,
                               max_watch_buffer_bytes=max_watch_buffer_bytes)
        self.types = ResourceRegistry()
        self.registry = Registry(self.storage, self.types, too_large_rv_wait=too_large_rv_wait)
        for namespace in SYSTEM_NAMESPACES:
            self.registry.ensure_namespace(namespace)
        self.faults = Faults(self.storage)
        self._churns: list[Churn] = []
        self._replays: list[Replay] = []
        self._stop = threading.Event()
        self._httpd: KubeHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._tmpdir: Path | None = None
        self._kubeconfig: Path | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        state = f"url={self.url!r}" if self._httpd else "stopped"
        tls = f", tls={self._certs.backend}" if self._certs else ""
        return f"EmbeddedServer({state}, auth={'token' if self._token else 'none'}{tls})"

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> EmbeddedServer:
        """Bind, serve on a background thread and write the kubeconfig; returns self."""
        with self._lock:
            if self._httpd is not None:
                return self
            self._stop.clear()
            app = ApiHandler(self.storage, self.types, self.registry, self._stop,
                             token=self._token, bookmark_interval=self.bookmark_interval,
                             faults=self.faults, tokens=self.tokens)
            context = self._certs.server_context() if self._certs else None
            httpd = KubeHTTPServer((self.host, self.port), app, ssl_context=context)
            bound_port = httpd.server_address[1]
            app.server_address = f"{self._client_host}:{bound_port}"
            bootstrap.ensure_cluster_objects(self.registry, self._client_host, bound_port,
                                             tls=self._certs is not None)
            self._httpd = httpd
            self._thread = threading.Thread(target=httpd.serve_forever,
                                            kwargs={"poll_interval": 0.5},
                                            name=f"kubenb-server-http-{bound_port}",
                                            daemon=True)
            self._thread.start()
            self._tmpdir = Path(tempfile.mkdtemp(prefix="kubenb-server-"))
            if self.ca_pem:
                (self._tmpdir / "ca.crt").write_bytes(self.ca_pem)
            self._kubeconfig = write_kubeconfig(self._tmpdir / "kubeconfig", self.url,
                                                self._token, self.ca_pem)
            return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop churn, end watches, close connections, join all threads, remove the
        temp dir."""
        with self._lock:
            churns = list(self._churns)
            replays = list(self._replays)
        for churn in churns:
            churn.stop(timeout)
        for replay in replays:
            replay.stop(timeout)
        with self._lock:
            httpd, thread = self._httpd, self._thread
            if httpd is None:
                return
            self._stop.set()
            self.faults.release()
            self.storage.close_all_watches()
            stopper = threading.Thread(target=httpd.shutdown, name="kubenb-server-stopper",
                                       daemon=True)
            stopper.start()
            # shutdown() waits for the serve loop's next poll; a connection wakes it now.
            with contextlib.suppress(OSError), socket.create_connection(
                    (self._client_host, httpd.server_address[1]), timeout=1):
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
    def _client_host(self) -> str:
        """Where a local client connects (a wildcard bind is reached on loopback)."""
        return "127.0.0.1" if self.host in _WILDCARDS else self.host

    @property
    def url(self) -> str:
        """`http(s)://host:port` of the running server."""
        if self._httpd is None:
            raise RuntimeError("the server is not running; call start() first")
        scheme = "https" if self._certs else "http"
        return f"{scheme}://{self._client_host}:{self._httpd.server_address[1]}"

    @property
    def tls(self) -> bool:
        """Whether the server speaks HTTPS."""
        return self._certs is not None

    @property
    def ca_pem(self) -> bytes | None:
        """The CA certificate (PEM) clients should trust; None without TLS, or for a
        user certificate given without `tls_ca`."""
        return self._certs.ca_pem if self._certs else None

    @property
    def ca_path(self) -> str | None:
        """A file holding `ca_pem` while the server runs (for `requests`' `verify=`)."""
        if self._tmpdir is None or not self.ca_pem:
            return None
        return str(self._tmpdir / "ca.crt")

    @property
    def kubeconfig_path(self) -> str:
        """A kubeconfig kubectl can use (`--kubeconfig`), removed on stop()."""
        if self._kubeconfig is None:
            raise RuntimeError("the server is not running; call start() first")
        return str(self._kubeconfig)

    def write_kubeconfig(self, path: str | os.PathLike[str]) -> str:
        """Write a kubeconfig for this server to `path` (kept after stop)."""
        return str(write_kubeconfig(path, self.url, self._token, self.ca_pem))

    # -- instruments -----------------------------------------------------------------

    def watch_stats(self) -> dict[str, Any]:
        """`open` watches, `buffered_bytes` waiting for each, `closed_behind` (watchers
        closed so far for falling behind) and `max_buffer_bytes` (the bound)."""
        return self.storage.watch_stats()

    def drop_watches(self) -> int:
        """End every open watch now (clients see the stream close); returns how many.
        Same as `faults.drop_watches()`."""
        return self.faults.drop_watches()

    def compact(self) -> int:
        """Forget the event history, so resumes from older RVs get 410; returns the RV.
        Same as `faults.compact()`."""
        return self.faults.compact()

    def churn(self, rate: float = 100.0, kinds: Sequence[str] = ("configmaps", "pods"),
              namespaces: Sequence[str] = ("default",), seed: int = 0,
              max_objects: int = 200, clock: Clock | None = None) -> Churn:
        """A churn generator over this server's objects (not started: call `start()`, use
        it as a context manager, or `run(n)`). `stop()` of the server stops it too.
        Pods it makes run only if a kubelet runs (`kubenb.embedded()` starts one)."""
        churn = Churn(self.registry, rate=rate, kinds=kinds, namespaces=namespaces,
                      seed=seed, max_objects=max_objects, clock=clock)
        with self._lock:
            self._churns.append(churn)
        return churn

    def replay(self, recording: Recording | str | os.PathLike[str], *,
               speed: float | None = 1.0, autoplay: bool = True, start: Any = None,
               end: Any = None, clock: Clock | None = None, gate_timeout: float = 10.0,
               fail_attempts: int = 4, resources: Sequence[int | str] | None = None,
               warn_after: float | None = 5.0) -> Replay:
        """Play a recording (kubenb.recording) through this server, from its first lists
        (or the state at `start`) at `speed` (None: as fast as possible); returns the
        `Replay` to pause, step, seek and inspect. `stop()` of the server stops it too.
        `resources` replays only those recorded resources. See kubenb.server.replay."""
        player = Replay(self, recording if isinstance(recording, Recording) else
                        Recording.read(recording), speed=speed, autoplay=autoplay, start=start,
                        end=end, clock=clock, gate_timeout=gate_timeout,
                        fail_attempts=fail_attempts, resources=resources,
                        warn_after=warn_after)
        with self._lock:
            self._replays.append(player)
        return player.start()

    def seed_objects(self, n: int, kind: str = "pods", namespace: str = "default",
                     seed: int = 0, running: bool = True) -> list[str]:
        """Create `n` realistic objects fast (pods come bound and Running unless
        `running=False`); returns their names. A refusal raises the `ApiError` a client
        would get (an invalid namespace name: `Invalid`)."""
        try:
            return seed_objects(self.registry, n, kind, namespace, seed, running)
        except StatusError as exc:
            raise as_api_error(exc) from exc


def _certificates(host: str, tls: bool | tuple[str | os.PathLike[str], str | os.PathLike[str]],
                  tls_ca: str | os.PathLike[str] | None) -> CertBundle | None:
    """The serving certificate for `tls=` (made now, so `ca_pem` is known before start)."""
    if tls is False or tls is None:
        if tls_ca is not None:
            raise TLSSetupError("tls_ca= was given without tls=(certfile, keyfile)")
        return None
    if tls is True:
        if tls_ca is not None:
            raise TLSSetupError("tls_ca= goes with tls=(certfile, keyfile); with tls=True "
                                "the server makes its own CA")
        names = list(SERVING_NAMES)
        if host not in _WILDCARDS and host not in names:
            names.append(host)
        return generate_self_signed(names)
    if isinstance(tls, (tuple, list)) and len(tls) == 2:
        return load_user_certificate(tls[0], tls[1], tls_ca)
    raise TLSSetupError(f"tls= must be True, False or (certfile, keyfile), not {tls!r}")
