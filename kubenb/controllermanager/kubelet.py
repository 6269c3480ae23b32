"""A simulated kubelet (and scheduler) for one Node, written with kubenb.controller.

A cluster made by `kubenb.embedded()` behaves like a one-node cluster (kind, minikube):

* at start it registers its Node, Ready (`kubectl get nodes` shows it at once), with
  the port of its own small HTTP endpoint in `status.daemonEndpoints`, where the API
  server asks for container logs (kubenb.controllermanager.kubelet_server);
* as the scheduler, it binds each Pending pod to its Node with a Binding (unless the
  Node is cordoned);
* as the kubelet, it reports a bound pod ContainerCreating at once, then starts its
  containers `start_delay` clock seconds later in its container runtime
  (kubenb.controllermanager.container_runtime: what each image does, restarts with
  back-off, logs) and reports what they do: Running, Ready or not, restarted,
  `CrashLoopBackOff`, Succeeded or Failed, as a kubelet's status manager does;
* a pod deleted with a grace period (the API server sets deletionTimestamp and
  deletionGracePeriodSeconds) has its containers stopped as on SIGTERM, at once unless
  their image ignores SIGTERM (then SIGKILL when the grace period ends, exit 137); the
  kubelet writes the stopped containers, Ready False and the final phase, then removes
  the pod: DELETE with gracePeriodSeconds=0 and the pod's UID as precondition.

Everything goes through kubenb's client over HTTP, like any other controller: the pods
come from a shared informer, each pod's key goes through the workqueue, and a waiting
pod is a `Result(requeue_after=...)` on the kubelet's clock (a FakeClock in tests).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Any

from kubenb.cache.keys import split_meta_namespace_key
from kubenb.clock import Clock, RealClock
from kubenb.cluster import Cluster
from kubenb.controller.runner import Controller, Result
from kubenb.controllermanager.container_runtime import (
    EXIT_CODE_ANNOTATION,
    RUN_SECONDS_ANNOTATION,
    ContainerRuntime,
    Image,
    Run,
    planned_run,
)
from kubenb.controllermanager.controller_utils import (
    get_condition,
    is_being_deleted,
    meta,
    now_rfc3339,
    record_event,
    retry_after_conflict,
)
from kubenb.controllermanager.kubelet_server import KubeletServer
from kubenb.errors import AlreadyExists, Conflict, IdleTimeout, KubenbError, NotFound

# The same Node, image references and ids, whoever writes them (seeded pods or this kubelet).
from kubenb.nodeinfo import NODE_NAME, image_ref, node_body

__all__ = ["EXIT_CODE_ANNOTATION", "NODE_NAME", "RUN_SECONDS_ANNOTATION", "Kubelet",
           "node_body", "planned_run", "pod_phase"]

log = logging.getLogger(__name__)


# -- what a kubelet reports -------------------------------------------------------------------


def pod_phase(statuses: list[dict[str, Any]] | None, restart_policy: str,
              terminal: bool = False) -> str:
    """The pod phase a kubelet derives from its container statuses (Go: getPhase).
    A crash-looping container counts as stopped; `terminal`: the pod is being removed
    and none of its containers will run again."""
    if statuses is None:
        return "Pending"
    running = stopped = succeeded = waiting = 0
    for status in statuses:
        state = status.get("state") or {}
        if "running" in state:
            running += 1
        elif "terminated" in state:
            stopped += 1
            succeeded += state["terminated"].get("exitCode") == 0
        elif (status.get("lastState") or {}).get("terminated"):
            stopped += 1
        else:
            waiting += 1
    if waiting:
        return "Pending"
    if running:
        return "Running"
    if terminal:
        return "Succeeded" if stopped == succeeded else "Failed"
    if restart_policy == "Always":
        return "Running"  # every container is on its way to a restart
    if stopped == succeeded:
        return "Succeeded"
    return "Running" if restart_policy == "OnFailure" else "Failed"


def _condition(old: dict[str, Any], kind: str, status: bool, reason: str = "",
               message: str = "") -> dict[str, Any]:
    """A pod condition; its lastTransitionTime moves only when its status does."""
    text = "True" if status else "False"
    previous = get_condition(old, kind) or {}
    at = previous.get("lastTransitionTime") if previous.get("status") == text else None
    condition: dict[str, Any] = {"type": kind, "status": text, "lastProbeTime": None,
                                 "lastTransitionTime": at or now_rfc3339()}
    if reason:
        condition["reason"] = reason
    if message:
        condition["message"] = message
    return condition


def _authorization(cluster: Cluster) -> str | None:
    """The Authorization header this kubelet's own connection sends: what it asks of
    the API server when the server comes for logs (None: its connection sends none)."""
    headers: dict[str, str] = {}
    if cluster.config.auth is not None:
        cluster.config.auth.apply(headers)
    return headers.get("Authorization")


# -- the controller ----------------------------------------------------------------------------


class Kubelet:
    """The simulated kubelet and scheduler of Node `node_name` (see the module docstring).

    `start_delay`: clock seconds from binding to containers started. `run_seconds`: how
    long a container that finishes runs when nothing says otherwise. `stop_seconds`:
    how long containers take to stop on SIGTERM (0: at once, as nginx, pause or a Go
    binary; None: every image ignores SIGTERM, so pods take their whole grace period).
    `clock` drives every wait. `serve_logs=False` runs no HTTP endpoint (then the API
    server answers log requests with a Status saying no kubelet answers).
    Declare what an image does with `image()`.
    """

    def __init__(self, cluster: Cluster, *, node_name: str = NODE_NAME, start_delay: float = 1.0,
                 run_seconds: float = 1.0, stop_seconds: float | None = 0.0,
                 clock: Clock | None = None, workers: int = 2, serve_logs: bool = True,
                 recorder: Any = None, scheduler_recorder: Any = None) -> None:
        if start_delay < 0 or run_seconds < 0 or (stop_seconds is not None and stop_seconds < 0):
            raise KubenbError(f"Kubelet: start_delay, run_seconds and stop_seconds must be >= 0 "
                              f"seconds, got {start_delay!r}, {run_seconds!r} and "
                              f"{stop_seconds!r}")
        self.cluster = cluster
        self.node_name = node_name
        self.start_delay = start_delay
        self.run_seconds = run_seconds
        self.stop_seconds = stop_seconds
        self.clock: Clock = clock if clock is not None else RealClock()
        self.recorder = recorder
        self.scheduler_recorder = scheduler_recorder
        self.core = cluster.clientset.core_v1()
        pods = cluster.factory.core().v1().pods()
        nodes = cluster.factory.core().v1().nodes()
        self.pod_lister = pods.lister()
        self.node_lister = nodes.lister()
        self.host_ip = "172.18.0.2"
        self._lock = threading.Lock()
        self._timers: dict[tuple[str, str], tuple[str, float]] = {}  # (key, stage) -> (uid, due)
        self._ips = 0
        self._ip_of: dict[str, int] = {}  # pod uid -> its number (its IP)
        self._backoffs: set[tuple[str, str, int]] = set()  # (uid, container, restarts) told
        self.runtime = ContainerRuntime(self.clock, self._container_changed,
                                        run_seconds=run_seconds, stop_seconds=stop_seconds)
        self.server = KubeletServer(self.runtime, authorization=_authorization(cluster)) \
            if serve_logs else None
        self._written: dict[str, dict[str, Any]] = {}  # pod uid -> the status last written
        self.controller = (
            Controller("kubelet", self.sync_pod, workers=workers, clock=self.clock)
            .watch(pods.informer(), predicate=self._mine)
            .watch(nodes.informer(), enqueue=self._pods_waiting_for_node))

    def __repr__(self) -> str:
        return f"Kubelet({self.node_name!r}, {self.controller!r})"

    # -- images -------------------------------------------------------------------------------

    def image(self, name: str, run: Run | None = None, *, ignores_sigterm: bool = False,
              ready: bool = True) -> Image:
        """Declare what containers of image `name` do: `run(ctx)` is their program (see
        kubenb.controllermanager.container_runtime.ContainerContext), `ignores_sigterm`
        makes them take the pod's whole grace period on deletion, `ready` is their
        readiness once started. Returns the `Image`; a later call replaces it."""
        return self.runtime.image(name, run, ignores_sigterm=ignores_sigterm, ready=ready)

    def logs(self, name: str, container: str | None = None, namespace: str = "default",
             previous: bool = False) -> str:
        """What a container of pod `name` wrote (its first container by default), as
        `kubectl logs` shows it."""
        if container is None:
            pod = self.core.pods(namespace).get(name)
            container = str(((pod.get("spec") or {}).get("containers") or [{}])[0].get("name"))
        return self.runtime.log(namespace, name, container, previous).text()

    # -- running ------------------------------------------------------------------------------

    def run(self) -> Kubelet:
        """Open the log endpoint, register the Node, then sync pods in the background."""
        if self.server is not None:
            self.server.start()
        self.register_node()
        self.cluster.factory.start()
        self.controller.run()
        return self

    def stop(self) -> None:
        """Stop syncing and kill every container (the Node stays registered, as a stopped
        kubelet's does)."""
        self.controller.stop()
        self.runtime.stop()
        if self.server is not None:
            self.server.stop()

    def run_until_idle(self, timeout: float = 10.0, quiet: float = 0.05) -> int:
        """Wait until every container program waits on the clock (or has returned) and no
        pod has anything to do now; how many things happened meanwhile."""
        deadline = time.monotonic() + timeout
        before = self.runtime.changes()
        if not self.runtime.wait_idle(timeout):
            raise IdleTimeout(f"kubelet: container programs still running after {timeout}s "
                              "(a run(ctx) that does not wait with ctx.sleep?)")
        ran = self.controller.run_until_idle(
            timeout=max(deadline - time.monotonic(), 0.001), quiet=quiet)
        return ran + self.runtime.changes() - before

    def register_node(self) -> dict[str, Any]:
        """Create this kubelet's Node, or report an existing one Ready again."""
        nodes = self.core.nodes()
        body = node_body(self.node_name, self.host_ip)
        if self.server is not None:
            body["status"]["daemonEndpoints"] = {"kubeletEndpoint": {"Port": self.server.port}}
        try:
            return dict(nodes.create(body))
        except AlreadyExists:
            return dict(nodes.patch(self.node_name, {"status": body["status"]},
                                    subresource="status"))

    # -- event handlers -----------------------------------------------------------------------

    def _mine(self, pod: dict[str, Any]) -> bool:
        """Pods waiting for a node, and pods on this one."""
        return (pod.get("spec") or {}).get("nodeName") in (None, "", self.node_name)

    def _pods_waiting_for_node(self, node: Any) -> list[str]:
        """This Node changed (e.g. uncordoned): the pods still waiting for a node."""
        node = getattr(node, "obj", node)  # a tombstone's last state
        if not isinstance(node, dict) or meta(node).get("name") != self.node_name:
            return []
        return [f"{meta(p).get('namespace')}/{meta(p)['name']}" for p in self.pod_lister.list()
                if not (p.get("spec") or {}).get("nodeName") and not is_being_deleted(p)]

    def _container_changed(self, key: str) -> None:
        """A container program returned or changed its readiness: look at its pod."""
        self.controller.enqueue(key)

    # -- reconcile ----------------------------------------------------------------------------

    def sync_pod(self, key: str) -> Result | None:
        """Move one pod a step along its life: bind, start, report, stop, or remove."""
        namespace, name = split_meta_namespace_key(key)
        try:
            pod = self.pod_lister.pods(namespace).get(name)
        except NotFound:
            self._forget(key)
            return None
        try:
            return self._sync(key, pod)
        except NotFound:  # deleted meanwhile: its delete event comes next
            return None
        except Conflict:  # a pod of the same name, or our cache was behind
            return retry_after_conflict()

    def _sync(self, key: str, pod: dict[str, Any]) -> Result | None:
        spec, status = pod.get("spec") or {}, pod.get("status") or {}
        if is_being_deleted(pod):
            return self.terminate(key, pod) if spec.get("nodeName") else None
        if not spec.get("nodeName"):
            if spec.get("schedulerName", "default-scheduler") == "default-scheduler":
                self.schedule(pod)  # (another scheduler's pod is not ours to bind)
            return None
        if status.get("phase") in ("Succeeded", "Failed"):
            return None  # done: its containers' logs stay readable until it is deleted
        return self.start(key, pod)

    def schedule(self, pod: dict[str, Any]) -> None:
        """The scheduler's part: bind the pod to this Node, if the Node takes pods (a
        Binding POSTed to the pod's `binding` subresource, as kube-scheduler does)."""
        try:
            node = self.node_lister.get(self.node_name)
        except NotFound:
            return  # not registered yet: the node's add event brings the pod back
        if (node.get("spec") or {}).get("unschedulable"):
            return  # cordoned: the pod stays Pending until the node is uncordoned
        m = meta(pod)
        pods = self.cluster.dynamic.resource("v1", "pods").namespace(m["namespace"])
        binding = {"apiVersion": "v1", "kind": "Binding",  # a pod already bound: Conflict
                   "metadata": {"name": m["name"], "namespace": m["namespace"]},
                   "target": {"apiVersion": "v1", "kind": "Node", "name": self.node_name}}
        pods.rest.post(pods.path(m["name"], "binding"), binding)
        record_event(self.scheduler_recorder, pod, "v1", "Pod", "Normal", "Scheduled",
                     f"Successfully assigned {m['namespace']}/{m['name']} to {self.node_name}")

    def start(self, key: str, pod: dict[str, Any]) -> Result | None:
        """Admit the pod (ContainerCreating), start its containers after `start_delay`,
        then keep its status in step with them."""
        m, status = meta(pod), pod.get("status") or {}
        self.runtime.admit(pod)
        if not status.get("startTime"):  # just bound: the kubelet admits the pod
            self._report(pod, started_at=now_rfc3339())
            return self._wait(key, m["uid"], "start", self.start_delay)
        wait = self._wait(key, m["uid"], "start", self.start_delay)
        if wait is not None:
            return wait
        first = not self.runtime.started(m["uid"])
        adopted = first and self.runtime.adopt(pod)
        due = self.runtime.sync(pod)
        if adopted:  # running already: its status is the runtime's until something changes
            status = self.pod_status(pod)
            with self._lock:
                self._written[m["uid"]] = status
        else:
            status = self._report(pod)
        self._backoff_events(pod, status)
        if first and not adopted:
            names = ", ".join(c.get("name", "") for c in (pod.get("spec") or {}).get(
                "containers") or [])
            record_event(self.recorder, pod, "v1", "Pod", "Normal", "Started",
                         f"Started container(s) {names}")
        return Result(requeue_after=due) if due is not None else None

    def terminate(self, key: str, pod: dict[str, Any]) -> Result | None:
        """A pod being deleted: stop its containers (SIGTERM, then SIGKILL when the grace
        period ends), report them stopped and the pod not Ready, then remove it."""
        m = meta(pod)
        uid = m["uid"]
        grace = float(m.get("deletionGracePeriodSeconds") or 0)
        if not self.runtime.started(uid):
            if grace == 0 and m.get("finalizers"):
                return None  # already let go of; the finalizers' owners finish the deletion
            self._remove(pod)
            return None
        if not self._has_timer(key, "terminate", uid):
            self._wait(key, uid, "terminate", 0)
            names = ", ".join(c.get("name", "") for c in (pod.get("spec") or {}).get(
                "containers") or [])
            record_event(self.recorder, pod, "v1", "Pod", "Normal", "Killing",
                         f"Stopping container(s) {names}")
        due = self.runtime.kill(pod, grace)
        if due is not None:
            self._report(pod)
            return Result(requeue_after=due)
        self._report(pod, terminal=True)
        self._remove(pod)
        self.runtime.forget(uid)
        with self._lock:
            self._written.pop(uid, None)
            self._ip_of.pop(uid, None)
            self._backoffs = {b for b in self._backoffs if b[0] != uid}
        return None

    # -- helpers ------------------------------------------------------------------------------

    def _remove(self, pod: dict[str, Any]) -> None:
        m = meta(pod)
        with contextlib.suppress(NotFound):
            self.core.pods(m["namespace"]).delete(
                m["name"], grace_period_seconds=0, preconditions={"uid": m["uid"]})

    def _backoff_events(self, pod: dict[str, Any], status: dict[str, Any]) -> None:
        """A Warning `BackOff` Event once per crash that made a container wait."""
        m = meta(pod)
        for container in status.get("containerStatuses") or ():
            waiting = (container.get("state") or {}).get("waiting") or {}
            if waiting.get("reason") != "CrashLoopBackOff":
                continue
            crash = (m["uid"], str(container.get("name")), int(container.get("restartCount") or 0))
            with self._lock:
                seen = crash in self._backoffs
                self._backoffs.add(crash)
            if not seen:
                record_event(self.recorder, pod, "v1", "Pod", "Warning", "BackOff",
                             f"Back-off restarting failed container {crash[1]} in pod "
                             f"{m['name']}_{m['namespace']}({m['uid']})")

    def _report(self, pod: dict[str, Any], started_at: str | None = None,
                terminal: bool = False) -> dict[str, Any]:
        """Write the status the pod's containers call for, if it differs from the
        pod's (the status manager's job); returns that status."""
        status = self.pod_status(pod, started_at=started_at, terminal=terminal)
        uid = meta(pod)["uid"]
        with self._lock:
            same = self._written.get(uid) == status
        if not same and status != (pod.get("status") or {}):
            self._write_status(pod, status)
            with self._lock:
                self._written[uid] = status
        return status

    def pod_status(self, pod: dict[str, Any], started_at: str | None = None,
                   terminal: bool = False) -> dict[str, Any]:
        """The status a kubelet writes for `pod` from its containers' state."""
        spec, old = pod.get("spec") or {}, pod.get("status") or {}
        statuses = self.runtime.container_statuses(pod)
        phase = pod_phase(statuses, spec.get("restartPolicy", "Always"), terminal)
        done = phase in ("Succeeded", "Failed")
        shown = statuses if statuses is not None else [
            self._creating(c) for c in spec.get("containers") or [] if isinstance(c, dict)]
        unready = [str(s.get("name")) for s in shown if not s.get("ready")]
        if done:
            why: tuple[str, str] = ("PodCompleted", "")
        elif unready:
            why = ("ContainersNotReady", f"containers with unready status: [{' '.join(unready)}]")
        else:
            why = ("", "")
        started = old.get("startTime") or started_at or now_rfc3339()
        status: dict[str, Any] = {
            "phase": phase,
            "conditions": [
                _condition(old, "PodReadyToStartContainers", statuses is not None and not done),
                _condition(old, "Initialized", True, "PodCompleted" if done else ""),
                _condition(old, "Ready", not unready and not done, *why),
                _condition(old, "ContainersReady", not unready and not done, *why),
                _condition(old, "PodScheduled", True)],
            "hostIP": self.host_ip, "hostIPs": [{"ip": self.host_ip}],
        }
        pod_ip = old.get("podIP") or (self._pod_ip(meta(pod)["uid"]) if statuses is not None
                                      else None)
        if pod_ip:
            status["podIP"] = pod_ip
            status["podIPs"] = [{"ip": pod_ip}]
        status["startTime"] = started
        status["containerStatuses"] = shown
        if old.get("qosClass"):
            status["qosClass"] = old["qosClass"]
        return status

    @staticmethod
    def _creating(container: dict[str, Any]) -> dict[str, Any]:
        return {"name": container.get("name", ""), "image": image_ref(str(
            container.get("image") or "")), "imageID": "", "lastState": {}, "ready": False,
            "restartCount": 0, "started": False,
            "state": {"waiting": {"reason": "ContainerCreating"}}}

    def _wait(self, key: str, uid: str, stage: str, seconds: float) -> Result | None:
        """None once `seconds` have passed since this stage of this pod began, else the
        Result that brings the pod back then."""
        now = self.clock.now()
        with self._lock:
            timer = self._timers.get((key, stage))
            if timer is None or timer[0] != uid:
                timer = (uid, now + seconds)
                self._timers[(key, stage)] = timer
            due = timer[1]
        return None if now >= due else Result(requeue_after=due - now)

    def _has_timer(self, key: str, stage: str, uid: str) -> bool:
        with self._lock:
            return self._timers.get((key, stage), ("", 0.0))[0] == uid

    def _forget(self, key: str) -> None:
        with self._lock:
            uids = {uid for (k, _), (uid, _) in self._timers.items() if k == key}
            for timer in [t for t in self._timers if t[0] == key]:
                del self._timers[timer]
            for uid in uids:
                self._written.pop(uid, None)
                self._ip_of.pop(uid, None)
            self._backoffs = {b for b in self._backoffs if b[0] not in uids}
        for uid in uids:
            self.runtime.forget(uid)

    def _write_status(self, pod: dict[str, Any], status: dict[str, Any]) -> None:
        """PATCH the status of the pod as we saw it: if it changed since (our cache was
        behind), the server answers Conflict and the pod is looked at again."""
        m = meta(pod)
        self.core.pods(m["namespace"]).patch(
            m["name"], {"metadata": {"uid": m["uid"], "resourceVersion": m["resourceVersion"]},
                        "status": status}, subresource="status")

    def _pod_ip(self, uid: str) -> str:
        """The pod's IP: given once, the same however often its status is written."""
        with self._lock:
            if uid not in self._ip_of:
                self._ips += 1
                self._ip_of[uid] = self._ips
            n = self._ip_of[uid]
        return f"10.244.0.{n % 254 + 1}" if n < 254 else f"10.244.{n // 254}.{n % 254 + 1}"
