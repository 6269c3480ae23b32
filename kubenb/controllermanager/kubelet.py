"""A simulated kubelet (and scheduler) for one Node, written with kubenb.controller.

A real kubelet runs containers; this one only reports what a kubelet would, so a
cluster made by `kubenb.embedded()` behaves like a one-node cluster (kind, minikube):

* at start it registers its Node, Ready (`kubectl get nodes` shows it at once);
* as the scheduler, it binds each Pending pod to its Node with a Binding (unless the
  Node is cordoned);
* as the kubelet, it reports a bound pod ContainerCreating at once and Running + Ready
  `start_delay` clock seconds later;
* a pod that does not restart (restartPolicy Never or OnFailure, e.g. a Job's) runs for
  a while and finishes: `sleep N` / `exit N` in its command, or the annotations
  `kubenb.io/run-seconds` / `kubenb.io/exit-code`, say for how long and how;
  otherwise it runs `run_seconds` and exits 0. OnFailure restarts a failed container;
* a pod deleted with a grace period (the API server sets deletionTimestamp and
  deletionGracePeriodSeconds) is removed once that period has passed on the clock, as
  a kubelet does for a container that ignores SIGTERM: DELETE with gracePeriodSeconds=0.
  With `stop_seconds` set, containers stop that long after SIGTERM instead (as nginx
  does at once), when that is sooner.

Everything goes through kubenb's client over HTTP, like any other controller: the pods
come from a shared informer, each pod's key goes through the workqueue, and a waiting
pod is a `Result(requeue_after=...)` on the kubelet's clock (a FakeClock in tests).
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from typing import Any

from kubenb.cache.keys import split_meta_namespace_key
from kubenb.clock import Clock, RealClock
from kubenb.cluster import Cluster
from kubenb.controller.runner import Controller, Result
from kubenb.controllermanager.controller_utils import (
    get_condition,
    is_being_deleted,
    meta,
    now_rfc3339,
    record_event,
)
from kubenb.errors import AlreadyExists, Conflict, KubenbError, NotFound

# The same Node, image references and ids, whoever writes them (seeded pods or this kubelet).
from kubenb.nodeinfo import NODE_NAME, image_id, image_ref, node_body, node_digest

__all__ = ["NODE_NAME", "Kubelet", "node_body"]

log = logging.getLogger(__name__)

RUN_SECONDS_ANNOTATION = "kubenb.io/run-seconds"
EXIT_CODE_ANNOTATION = "kubenb.io/exit-code"
_SLEEP = re.compile(r"\bsleep\s+(\d+(?:\.\d+)?)")
_EXIT = re.compile(r"\bexit\s+(\d+)")


# -- what a kubelet reports -------------------------------------------------------------------


def _condition(kind: str, status: bool, at: str, reason: str = "",
               message: str = "") -> dict[str, Any]:
    condition: dict[str, Any] = {"type": kind, "status": "True" if status else "False",
                                 "lastProbeTime": None, "lastTransitionTime": at}
    if reason:
        condition["reason"] = reason
    if message:
        condition["message"] = message
    return condition


def _container_status(pod: dict[str, Any], container: dict[str, Any], state: dict[str, Any],
                      ready: bool, restarts: int = 0,
                      last: dict[str, Any] | None = None) -> dict[str, Any]:
    image = image_ref(str(container.get("image") or ""))
    running = "waiting" not in state
    status: dict[str, Any] = {"name": container.get("name", ""), "state": state,
                              "lastState": last or {}, "ready": ready, "restartCount": restarts,
                              "image": image,
                              "imageID": image_id(image) if running else "",
                              "started": "running" in state}
    if running:
        status["containerID"] = "containerd://" + node_digest(
            meta(pod).get("uid", ""), container.get("name", ""), str(restarts))
    return status


def pod_status(pod: dict[str, Any], phase: str, host_ip: str, pod_ip: str | None,
               started_at: str, exit_code: int | None = None, restarts: int = 0,
               last_exit: int | None = None) -> dict[str, Any]:
    """The status a kubelet writes for `pod` in `phase`:
    Pending (containers being created), Running (all ready), Succeeded or Failed."""
    now = now_rfc3339()
    containers = [c for c in (pod.get("spec") or {}).get("containers") or []
                  if isinstance(c, dict)]
    names = ", ".join(str(c.get("name", "")) for c in containers)
    old = pod.get("status") or {}
    scheduled = get_condition(old, "PodScheduled")
    scheduled_at = (scheduled or {}).get("lastTransitionTime") or started_at
    if phase == "Pending":
        states: list[dict[str, Any]] = [{"waiting": {"reason": "ContainerCreating"}}
                                        for _ in containers]
        ready, why = False, ("ContainersNotReady", f"containers with unready status: [{names}]")
    elif phase == "Running":
        states = [{"running": {"startedAt": now}} for _ in containers]
        ready, why = True, ("", "")
    else:
        reason = "Completed" if exit_code == 0 else "Error"
        states = [{"terminated": {"exitCode": exit_code, "reason": reason,
                                  "startedAt": started_at, "finishedAt": now}}
                  for _ in containers]
        ready, why = False, ("PodCompleted", "")
    last = None
    if last_exit is not None:
        last = {"terminated": {"exitCode": last_exit, "reason": "Error",
                               "startedAt": started_at, "finishedAt": now}}
    status: dict[str, Any] = {
        "phase": phase,
        "conditions": [
            _condition("PodReadyToStartContainers", phase == "Running", now),
            _condition("Initialized", True, started_at,
                       "PodCompleted" if phase in ("Succeeded", "Failed") else ""),
            _condition("Ready", ready, now, *why),
            _condition("ContainersReady", ready, now, *why),
            _condition("PodScheduled", True, scheduled_at)],
        "hostIP": host_ip, "hostIPs": [{"ip": host_ip}],
    }
    if pod_ip:
        status["podIP"] = pod_ip
        status["podIPs"] = [{"ip": pod_ip}]
    status["startTime"] = old.get("startTime") or started_at
    status["containerStatuses"] = [
        _container_status(pod, c, state, ready, restarts, last)
        for c, state in zip(containers, states, strict=True)]
    if old.get("qosClass"):
        status["qosClass"] = old["qosClass"]
    return status


def planned_run(pod: dict[str, Any], default_seconds: float) -> tuple[float, int]:
    """How long a pod that does not restart runs, and its exit code: from the
    annotations, else `sleep N` / `exit N` in its first container's command and args."""
    annotations = meta(pod).get("annotations") or {}
    containers = (pod.get("spec") or {}).get("containers") or [{}]
    words = " ".join(str(w) for w in [*(containers[0].get("command") or []),
                                      *(containers[0].get("args") or [])])
    seconds, code = default_seconds, 0
    if (found := _SLEEP.search(words)) is not None:
        seconds = float(found.group(1))
    if (exited := _EXIT.search(words)) is not None:
        code = int(exited.group(1))
    try:
        seconds = float(annotations.get(RUN_SECONDS_ANNOTATION, seconds))
        code = int(annotations.get(EXIT_CODE_ANNOTATION, code))
    except ValueError as err:
        raise KubenbError(f"pod {meta(pod).get('namespace')}/{meta(pod).get('name')}: "
                          f"{RUN_SECONDS_ANNOTATION} must be a number and "
                          f"{EXIT_CODE_ANNOTATION} an integer ({err})") from None
    return max(seconds, 0.0), code


# -- the controller ----------------------------------------------------------------------------


class Kubelet:
    """The simulated kubelet and scheduler of Node `node_name` (see the module docstring).

    `start_delay`: clock seconds from binding to Running. `run_seconds`: how long a
    container that finishes runs when nothing says otherwise. `stop_seconds`: how long
    containers take to stop once a pod is deleted (None: they ignore SIGTERM, so the
    pod goes when its grace period ends). `clock` drives every wait.
    """

    def __init__(self, cluster: Cluster, *, node_name: str = NODE_NAME, start_delay: float = 1.0,
                 run_seconds: float = 1.0, stop_seconds: float | None = None,
                 clock: Clock | None = None, workers: int = 2,
                 recorder: Any = None, scheduler_recorder: Any = None) -> None:
        if start_delay < 0 or run_seconds < 0:
            raise KubenbError(f"Kubelet: start_delay and run_seconds must be >= 0 seconds, got "
                              f"{start_delay!r} and {run_seconds!r}")
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
        self.controller = (
            Controller("kubelet", self.sync_pod, workers=workers, clock=self.clock)
            .watch(pods.informer(), predicate=self._mine)
            .watch(nodes.informer(), enqueue=self._pods_waiting_for_node))

    def __repr__(self) -> str:
        return f"Kubelet({self.node_name!r}, {self.controller!r})"

    # -- running ------------------------------------------------------------------------------

    def run(self) -> Kubelet:
        """Register the Node, then sync pods in the background; returns self."""
        self.register_node()
        self.cluster.factory.start()
        self.controller.run()
        return self

    def stop(self) -> None:
        """Stop syncing (the Node stays registered, as a stopped kubelet's does)."""
        self.controller.stop()

    def register_node(self) -> dict[str, Any]:
        """Create this kubelet's Node, or report an existing one Ready again."""
        nodes = self.core.nodes()
        body = node_body(self.node_name, self.host_ip)
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

    # -- reconcile ----------------------------------------------------------------------------

    def sync_pod(self, key: str) -> Result | None:
        """Move one pod a step along its life: bind, start, finish, or remove."""
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
        except Conflict:  # a pod of the same name, not the one we looked at
            return Result(requeue=True)

    def _sync(self, key: str, pod: dict[str, Any]) -> Result | None:
        spec, status = pod.get("spec") or {}, pod.get("status") or {}
        if is_being_deleted(pod):
            return self.terminate(key, pod) if spec.get("nodeName") else None
        if not spec.get("nodeName"):
            if spec.get("schedulerName", "default-scheduler") == "default-scheduler":
                self.schedule(pod)  # (another scheduler's pod is not ours to bind)
            return None
        phase = status.get("phase")
        if phase == "Pending":
            return self.start(key, pod)
        if phase == "Running" and spec.get("restartPolicy", "Always") != "Always":
            return self.run_to_completion(key, pod)
        return None

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
        """Report the containers being created, then (after `start_delay`) Running."""
        m, status = meta(pod), pod.get("status") or {}
        if not status.get("startTime"):  # just bound: the kubelet admits the pod
            self._write_status(pod, pod_status(pod, "Pending", self.host_ip, None,
                                               now_rfc3339()))
            return self._wait(key, m["uid"], "start", self.start_delay)
        wait = self._wait(key, m["uid"], "start", self.start_delay)
        if wait is not None:
            return wait
        self._write_status(pod, pod_status(pod, "Running", self.host_ip, self._next_pod_ip(),
                                           status["startTime"]))
        names = ", ".join(c.get("name", "") for c in (pod.get("spec") or {}).get(
            "containers") or [])
        record_event(self.recorder, pod, "v1", "Pod", "Normal", "Started",
                     f"Started container(s) {names}")
        return None

    def run_to_completion(self, key: str, pod: dict[str, Any]) -> Result | None:
        """A container that finishes: Succeeded or Failed after its run time; with
        restartPolicy OnFailure a failed container runs again (restartCount + 1)."""
        m, status = meta(pod), pod.get("status") or {}
        restarts = max([int(c.get("restartCount") or 0)
                        for c in status.get("containerStatuses") or []] or [0])
        seconds, code = planned_run(pod, self.run_seconds)
        wait = self._wait(key, f"{m['uid']}/{restarts}", "run", seconds)
        if wait is not None:
            return wait
        pod_ip = status.get("podIP")
        if code != 0 and (pod.get("spec") or {}).get("restartPolicy") == "OnFailure":
            self._write_status(pod, pod_status(pod, "Running", self.host_ip, pod_ip,
                                               status["startTime"], restarts=restarts + 1,
                                               last_exit=code))
            return None
        phase = "Succeeded" if code == 0 else "Failed"
        self._write_status(pod, pod_status(pod, phase, self.host_ip, pod_ip,
                                           status["startTime"], exit_code=code,
                                           restarts=restarts))
        return None

    def terminate(self, key: str, pod: dict[str, Any]) -> Result | None:
        """A pod being deleted: remove it once its grace period has passed."""
        m = meta(pod)
        grace = float(m.get("deletionGracePeriodSeconds") or 0)
        if grace == 0 and m.get("finalizers"):
            return None  # already let go of; the finalizers' owners finish the deletion
        if self.stop_seconds is not None:
            grace = min(grace, self.stop_seconds)
        first = not self._has_timer(key, "terminate", m["uid"])
        wait = self._wait(key, m["uid"], "terminate", grace)
        if first:
            names = ", ".join(c.get("name", "") for c in (pod.get("spec") or {}).get(
                "containers") or [])
            record_event(self.recorder, pod, "v1", "Pod", "Normal", "Killing",
                         f"Stopping container(s) {names}")
        if wait is not None:
            return wait
        with contextlib.suppress(NotFound):
            self.core.pods(m["namespace"]).delete(
                m["name"], grace_period_seconds=0, preconditions={"uid": m["uid"]})
        return None

    # -- helpers ------------------------------------------------------------------------------

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
            for timer in [t for t in self._timers if t[0] == key]:
                del self._timers[timer]

    def _write_status(self, pod: dict[str, Any], status: dict[str, Any]) -> None:
        """PATCH the status of the pod as we saw it: if it changed since (our cache was
        behind), the server answers Conflict and the pod is looked at again."""
        m = meta(pod)
        self.core.pods(m["namespace"]).patch(
            m["name"], {"metadata": {"uid": m["uid"], "resourceVersion": m["resourceVersion"]},
                        "status": status}, subresource="status")

    def _next_pod_ip(self) -> str:
        with self._lock:
            self._ips += 1
            n = self._ips
        return f"10.244.0.{n % 254 + 1}" if n < 254 else f"10.244.{n // 254}.{n % 254 + 1}"
