"""`ControllerManager`: kube-controller-manager, a scheduler and a kubelet for one API server.

It runs a chosen set of the cluster's own controllers (`--controllers=*,-job` works as
kube-controller-manager's does) over a connection of its own, and starts and stops them
in order.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from typing import Any

from kubenb.cache.factory import SharedInformerFactory
from kubenb.client.config import Config, load_config
from kubenb.clock import Clock, RealClock
from kubenb.cluster import Cluster
from kubenb.controller.record import EventBroadcaster, EventSource
from kubenb.controllermanager.deployment import DeploymentController
from kubenb.controllermanager.garbage_collector import GarbageCollector
from kubenb.controllermanager.job import JobController
from kubenb.controllermanager.kubelet import NODE_NAME, Kubelet
from kubenb.controllermanager.replicaset import ReplicaSetController
from kubenb.controllermanager.root_ca_publisher import RootCAPublisher
from kubenb.controllermanager.serviceaccounts import ServiceAccountsController
from kubenb.errors import KubenbError

__all__ = ["CONTROLLERS", "ControllerManager", "controller_names"]

log = logging.getLogger(__name__)

#: Every controller a ControllerManager can run, in this order (`start()` starts the
#: two that fill namespaces first, then the others in this order).
CONTROLLERS = ("kubelet", "garbagecollector", "replicaset", "deployment", "job",
               "serviceaccount", "root-ca-cert-publisher")

#: The controllers that fill every namespace: `start()` returns once they have.
_POPULATING = ("serviceaccount", "root-ca-cert-publisher")


def _attribute(name: str) -> str:
    """The ControllerManager attribute of a controller name (dashes are underscores)."""
    return name.replace("-", "_")


def controller_names(controllers: bool | str | Iterable[str] | None) -> tuple[str, ...]:
    """The controllers a `controllers=` option asks for, in `CONTROLLERS` order.

    True or "*": all; False or None: none; otherwise names from `CONTROLLERS`, where
    "*" means all and "-name" takes one away (kube-controller-manager's --controllers),
    e.g. ("*", "-job"). A comma-separated string works too ("" means none).
    """
    if controllers is True:
        return CONTROLLERS
    if controllers is False or controllers is None:
        return ()
    items = controllers.split(",") if isinstance(controllers, str) else list(controllers)
    chosen: set[str] = set()
    for name in (str(i).strip() for i in items if str(i).strip()):
        if name == "*":
            chosen |= set(CONTROLLERS)
            continue
        bare = name.removeprefix("-")
        if bare not in CONTROLLERS:
            raise KubenbError(f"controllers: unknown controller {bare!r}; choose from "
                              f"{', '.join(CONTROLLERS)} (or '*', and '-name' to leave one out)")
        if name.startswith("-"):
            chosen.discard(bare)
        else:
            chosen.add(bare)
    return tuple(n for n in CONTROLLERS if n in chosen)


class ControllerManager:
    """kube-controller-manager and a kubelet for one API server.

    `cluster_or_kubeconfig` is a `kubenb.Cluster` or a kubeconfig path; the manager
    opens a connection of its own either way (its own client, informer factory and
    watches), so closing a notebook's Cluster does not pull the rug from under it.
    `controllers` chooses which run (see `controller_names`). `clock` drives every
    timer of every controller (a FakeClock steps them in tests). `kubelet` passes
    options to the `Kubelet` (e.g. `{"start_delay": 0.5}`). `events=False` records no
    Events.

    `start()` registers the Node and starts everything once the caches have listed,
    and returns once every namespace has its `default` ServiceAccount and
    `kube-root-ca.crt` ConfigMap (when those controllers run); `root_ca` is the PEM that
    ConfigMap publishes (None: the CA this manager's connection trusts, "" over plain
    HTTP). `stop()` stops every controller and joins every thread. The controllers are
    attributes: `manager.deployment`, `manager.kubelet`, `manager.root_ca_cert_publisher`,
    ... (None when off).
    """

    def __init__(self, cluster_or_kubeconfig: Cluster | Config | str | os.PathLike[str],
                 controllers: bool | str | Iterable[str] | None = True, *,
                 clock: Clock | None = None, workers: int = 2, events: bool = True,
                 kubelet: dict[str, Any] | None = None,
                 root_ca: bytes | str | None = None) -> None:
        self.names = controller_names(controllers)
        self.clock: Clock = clock if clock is not None else RealClock()
        source = cluster_or_kubeconfig
        if isinstance(source, Cluster):
            config = source.config
        elif isinstance(source, Config):
            config = source
        else:
            config = load_config(os.fspath(source))
        self.cluster = Cluster(config)
        self.cluster.factory = SharedInformerFactory(self.cluster.dynamic, clock=self.clock)
        self.broadcaster = EventBroadcaster(clock=self.clock) if events and self.names else None
        if self.broadcaster is not None:
            self.broadcaster.start_recording_to_sink(self.cluster)

        def recorder(component: str, host: str = "") -> Any:
            if self.broadcaster is None:
                return None
            return self.broadcaster.new_recorder(EventSource(component=component, host=host))

        on = set(self.names)
        clock_, n = self.clock, workers
        kubelet_options: dict[str, Any] = {"clock": clock_, "workers": n, **(kubelet or {})}
        node = kubelet_options.get("node_name", NODE_NAME)
        self.kubelet = Kubelet(self.cluster, recorder=recorder("kubelet", node),
                               scheduler_recorder=recorder("default-scheduler"),
                               **kubelet_options) if "kubelet" in on else None
        self.garbagecollector = GarbageCollector(self.cluster, clock=clock_, workers=n) \
            if "garbagecollector" in on else None
        self.replicaset = ReplicaSetController(
            self.cluster, clock=clock_, workers=n, recorder=recorder("replicaset-controller")) \
            if "replicaset" in on else None
        self.deployment = DeploymentController(
            self.cluster, clock=clock_, workers=n, recorder=recorder("deployment-controller")) \
            if "deployment" in on else None
        self.job = JobController(self.cluster, clock=clock_, workers=n,
                                 recorder=recorder("job-controller")) if "job" in on else None
        self.serviceaccount = ServiceAccountsController(self.cluster, clock=clock_, workers=1) \
            if "serviceaccount" in on else None
        self.root_ca_cert_publisher = RootCAPublisher(
            self.cluster, clock=clock_, workers=1, root_ca=root_ca) \
            if "root-ca-cert-publisher" in on else None
        self._started: list[Any] = []

    def __repr__(self) -> str:
        state = "running" if self._started else "stopped"
        return f"ControllerManager({state}, controllers={list(self.names)})"

    def __enter__(self) -> ControllerManager:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __getitem__(self, name: str) -> Any:
        if name not in CONTROLLERS:
            raise KeyError(f"no controller {name!r}; there are {', '.join(CONTROLLERS)}")
        return getattr(self, _attribute(name))

    @property
    def controllers(self) -> dict[str, Any]:
        """The running set: name -> controller object."""
        return {name: self[name] for name in self.names}

    def start(self, timeout: float = 60.0) -> ControllerManager:
        """Start every chosen controller (the informers list first); returns self once
        every namespace holds what the namespace controllers put there."""
        if self._started:
            return self
        deadline = time.monotonic() + timeout
        # The namespace fillers first: their work overlaps the others' start, and
        # start() waits for it. The garbage collector last, after that wait: its
        # monitors (a discovery read and an informer per resource) start on its worker
        # while start() returns, as nothing a caller does needs them at once (an object
        # whose owner went meanwhile is collected when its monitor lists it).
        order = sorted(self.names, key=lambda n: (n == "garbagecollector",
                                                  n not in _POPULATING))
        try:
            for name in order:
                if name == "garbagecollector":
                    self._wait_populated(deadline)
                controller = self[name]
                if name in ("replicaset", "job"):
                    controller.run(timeout=timeout)
                else:
                    controller.run()
                self._started.append(controller)
            self._wait_populated(deadline)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_populated(self, deadline: float) -> None:
        for name in _POPULATING:
            if name in self.names and self[name] in self._started:
                self[name].wait_populated(max(deadline - time.monotonic(), 1.0))

    def stop(self) -> None:
        """Stop every controller, the Event broadcaster and the informers; join all."""
        started, self._started = self._started, []
        for controller in reversed(started):
            try:
                controller.stop()
            except Exception:  # stop the rest regardless
                log.exception("controller manager: stopping %r failed", controller)
        if self.broadcaster is not None:
            self.broadcaster.shutdown(timeout=5.0)
        self.cluster.close()

    def wait_idle(self, timeout: float = 30.0, quiet: float = 0.05) -> None:
        """Return once no controller has had anything to do for `quiet` real seconds
        (a notebook cell or a test waits here before it looks, or steps a FakeClock).
        Work waiting for a later clock time does not count. Raises `IdleTimeout`."""
        deadline = time.monotonic() + timeout
        while True:
            ran = 0
            for controller in self.controllers.values():
                left = max(deadline - time.monotonic(), 0.001)
                # The kubelet's own also waits for its containers' programs.
                until_idle = getattr(controller, "run_until_idle", None) or \
                    controller.controller.run_until_idle
                ran += until_idle(timeout=left, quiet=quiet)
            if ran == 0:
                return

    def metrics(self) -> dict[str, Any]:
        """Each running controller's `ControllerMetrics`, by name."""
        return {name: c.controller.metrics() for name, c in self.controllers.items()}
