"""`kubenb.embedded()`: an API server on loopback and the cluster's own controllers.

A real cluster is an API server plus processes that talk to it over HTTP; this module
composes kubenb's two halves the same way, at the top of the house: the embedded
`kubenb.server` (which imports no client code) and a `kubenb.controllermanager`
(which reaches that server only through a `Cluster`, as any controller does).
"""

from __future__ import annotations

from typing import Any

from kubenb.client.config import load_config
from kubenb.cluster import Cluster
from kubenb.controllermanager import ControllerManager
from kubenb.errors import KubenbError
from kubenb.jsondecode import gc_paused, promote_young
from kubenb.recording.format import Recording
from kubenb.server import EmbeddedServer

__all__ = ["embedded"]


def embedded(*, controllers: Any = None, clock: Any = None, kubelet: Any = None,
             replay: Any = None, snapshot: Any = None, speed: float | None = 1.0,
             at: Any = None, replay_options: dict[str, Any] | None = None,
             **server_options: Any) -> Cluster:
    """Start an embedded API server (options as `EmbeddedServer`) and connect to it.

    The cluster's controllers run beside it, as in a real cluster: the garbage
    collector, the Deployment, ReplicaSet and Job controllers, a simulated kubelet, and
    the two that give every namespace its `default` ServiceAccount and `kube-root-ca.crt`
    ConfigMap (`cluster.controllers`, a `kubenb.controllermanager.ControllerManager`; this
    returns once every namespace has both). `controllers=False`
    gives a bare API server; a set of names runs only those (e.g. {"kubelet"}); by
    default all run, and none with `replay=` or `snapshot=` (they would rewrite the
    recorded history). `clock` drives their timers; `kubelet` is a dict of `Kubelet`
    options.

    `replay=path` plays a recording through it at `speed` (None: as fast as possible;
    `replay_options` as `EmbeddedServer.replay`, e.g. `{"resources": ["pods"]}` to
    replay only what your clients watch: playback waits for a client of every replayed
    resource), `snapshot=path` loads the recorded state at `at` (default: the end) and
    stays there; `cluster.replay` controls either. Recorded CustomResourceDefinitions
    are created first, so recorded custom resources are served.
    Replays send only the recorded bookmarks unless `bookmark_interval` is given.
    """
    if replay is not None and snapshot is not None:
        raise KubenbError("give replay= or snapshot=, not both")
    if replay is not None or snapshot is not None:
        server_options.setdefault("bookmark_interval", 1e9)
    # What a start makes lives as long as the cluster: the collector waits until it is
    # done, and what it made goes to the oldest generation unwalked (promote_young).
    # Otherwise a fresh process's first full collection, walking everything imported,
    # came in the middle of the start (12-24 ms of about 60).
    with gc_paused():
        server = EmbeddedServer(**server_options).start()
        try:
            cluster = Cluster(load_config(str(server.kubeconfig_path)), server=server)
            if replay is not None:
                cluster.replay = server.replay(replay, speed=speed, **(replay_options or {}))
            elif snapshot is not None:
                recording = snapshot if isinstance(snapshot, Recording) else \
                    Recording.read(snapshot)
                moment = recording.time_of(at)
                cluster.replay = server.replay(recording, start=moment, end=moment)
            if controllers is None:
                controllers = replay is None and snapshot is None
            if controllers:
                cluster.controllers = ControllerManager(cluster, controllers, clock=clock,
                                                        kubelet=kubelet).start()
            promote_young()
            return cluster
        except BaseException:
            server.stop()
            raise
