"""`ClusterPool`: the embedded clusters of one test process, one per set of controllers.

Starting a cluster takes a fraction of a second; a suite of hundreds of tests must not
pay that per test. A pool starts a cluster the first time a set of controllers is asked
for and hands the same one out afterwards, so tests that want the same cluster share
it (each in a namespace of its own) and a test that asks for another set gets its own.
Each pytest-xdist worker is a process with its own pool, hence its own clusters.

Nothing heavy is imported until a cluster is started: the pytest plugin imports this
module in every test run, also in runs that never use a cluster.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: the cluster is composed lazily, in `get`
    from kubenb.cluster import Cluster

__all__ = ["ClusterPool", "ControllerSpec", "controller_set"]

#: What chooses a cluster's controllers, as `kubenb.embedded(controllers=...)` takes it:
#: True or "*" (all), False or "" (none), or names with "-name" leaving one out.
ControllerSpec = bool | str | Iterable[str] | None


def controller_set(controllers: ControllerSpec) -> tuple[str, ...]:
    """The controllers `controllers` asks for, in start order: the pool's key, so that
    "*,-job" and ("*", "-job") share one cluster. Raises `KubenbError` naming an
    unknown controller."""
    from kubenb.controllermanager import controller_names  # lazy: see the module docstring
    return controller_names(controllers)


class ClusterPool:
    """Embedded clusters started on first use, one per controller set, all stopped by
    `close()`. `options` go to every `kubenb.embedded()` it calls (server options,
    `kubelet={"start_delay": 0}` ...)."""

    def __init__(self, default: ControllerSpec = True, **options: Any) -> None:
        self.default = controller_set(default)
        self.options = options
        self._clusters: dict[tuple[str, ...], Cluster] = {}
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        with self._lock:
            sets = [",".join(key) or "(none)" for key in self._clusters]
        return f"ClusterPool(default={','.join(self.default) or '(none)'!r}, running={sets})"

    def __enter__(self) -> ClusterPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, controllers: ControllerSpec | None = None) -> Cluster:
        """The running cluster for `controllers` (None: the pool's default set), started
        now if this pool has none yet, or if a test closed the one it had."""
        key = self.default if controllers is None else controller_set(controllers)
        with self._lock:
            if self._closed:
                raise RuntimeError("this ClusterPool is closed; start a new one")
            cluster = self._clusters.get(key)
            if cluster is not None and cluster.server is not None and cluster.server.running:
                return cluster
            from kubenb.embedded_cluster import embedded  # lazy: see the module docstring
            cluster = embedded(controllers=key if key else False, **self.options)
            self._clusters[key] = cluster
            return cluster

    def running(self) -> dict[tuple[str, ...], Cluster]:
        """The clusters started so far, by controller set."""
        with self._lock:
            return dict(self._clusters)

    def close(self) -> None:
        """Stop every cluster of the pool (its controllers, its server, their threads)."""
        with self._lock:
            clusters, self._clusters = list(self._clusters.values()), {}
            self._closed = True
        for cluster in clusters:
            cluster.close()
