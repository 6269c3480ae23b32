"""The ReplicaSet controller: keep `spec.replicas` Pods running that match a template.

kube-controller-manager's `pkg/controller/replicaset`, small. For each ReplicaSet key:

1. list the Pods of its namespace from the Pod informer's cache, keep the active ones
   (not finished, not being deleted) and claim them: the ones it controls, plus orphans
   its selector matches (adopted), minus its own that the selector no longer matches
   (released);
2. if its expectations are satisfied, create or delete Pods until there are
   `spec.replicas` (creating in batches 1, 2, 4, ... that stop at the first error;
   deleting the least useful first: unscheduled, then Pending, then not Ready, then
   the youngest);
3. write `status`: replicas, fullyLabeledReplicas, readyReplicas, availableReplicas
   (Ready for `minReadySeconds`) and observedGeneration.

Expectations (see `controller_utils.Expectations`) are why it never creates a Pod twice
while its cache catches up. Pod events arrive through handlers written the way Go's
`addPod`, `updatePod` and `deletePod` are, so they can tell the expectations what came.
"""

from __future__ import annotations

import threading
from typing import Any

from kubenb.cache.keys import DeletedFinalStateUnknown, split_meta_namespace_key
from kubenb.clock import Clock, RealClock
from kubenb.cluster import Cluster
from kubenb.controller.runner import Controller, Result, controller_of
from kubenb.controllermanager.controller_utils import (
    ControllerRefManager,
    Expectations,
    PodOwnerController,
    get_condition,
    is_being_deleted,
    is_pod_active,
    is_pod_ready,
    meta,
    new_controller_ref,
    now_rfc3339,
    pod_from_template,
    record_event,
    remove_condition,
    retry_after_conflict,
    selector_of,
    set_condition,
)
from kubenb.errors import ApiError, Conflict, NotFound

__all__ = ["BURST_REPLICAS", "ReplicaSetController"]

#: At most this many Pods are created or deleted in one sync (Go's `BurstReplicas`).
BURST_REPLICAS = 500


def _key(obj: dict[str, Any]) -> str:
    return f"{meta(obj).get('namespace', '')}/{meta(obj)['name']}"


class ReplicaSetController(PodOwnerController):
    """kube-controller-manager's ReplicaSet controller (see the module docstring).

    `clock` drives the workqueue's backoff, the expectations' timeout and
    `minReadySeconds`; `recorder` (an EventRecorder, optional) gets the
    SuccessfulCreate / SuccessfulDelete Events `kubectl describe rs` shows.
    """

    name = "replicaset"

    def __init__(self, cluster: Cluster, *, clock: Clock | None = None, workers: int = 2,
                 recorder: Any = None) -> None:
        self.cluster = cluster
        self.clock: Clock = clock if clock is not None else RealClock()
        self.recorder = recorder
        self.apps = cluster.clientset.apps_v1()
        self.core = cluster.clientset.core_v1()
        replica_sets = cluster.factory.apps().v1().replica_sets()
        pods = cluster.factory.core().v1().pods()
        self.rs_lister = replica_sets.lister()
        self.pod_lister = pods.lister()
        self.pod_informer = pods.informer()
        self.expectations = Expectations(self.clock)
        self._ready_since: dict[str, float] = {}  # pod uid -> clock time it was seen Ready
        self._lock = threading.Lock()
        self.controller = Controller("replicaset", self.sync_replica_set, workers=workers,
                                     clock=self.clock).watch(replica_sets.informer())

    def __repr__(self) -> str:
        return f"ReplicaSetController({self.controller!r})"

    # -- Pod event handlers (Go: addPod, updatePod, deletePod) ---------------------------------

    def _owner_key(self, pod: dict[str, Any]) -> str | None:
        """The key of the ReplicaSet controlling `pod`, if that ReplicaSet exists (by UID)."""
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return None
        try:
            rs = self.rs_lister.replica_sets(meta(pod)["namespace"]).get(ref.get("name", ""))
        except NotFound:
            return None
        return _key(rs) if meta(rs)["uid"] == ref.get("uid") else None

    def _matching_keys(self, pod: dict[str, Any]) -> list[str]:
        """An orphan Pod: the ReplicaSets whose selector matches it (one may adopt it)."""
        labels = meta(pod).get("labels") or {}
        return [_key(rs) for rs in self.rs_lister.replica_sets(meta(pod)["namespace"]).list()
                if selector_of(rs).matches(labels)]

    def add_pod(self, pod: dict[str, Any], is_in_initial_list: bool = False) -> None:
        if is_being_deleted(pod):
            self.delete_pod(pod)  # e.g. seen for the first time after a restart
            return
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.creation_observed(key)
            self.controller.enqueue(key)
        elif controller_of(pod) is None:
            for key in self._matching_keys(pod):
                self.controller.enqueue(key)

    def update_pod(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        if meta(old).get("resourceVersion") == meta(new).get("resourceVersion"):
            return  # a resync: nothing changed
        if is_being_deleted(new):
            self.delete_pod(new)  # graceful deletion: it no longer counts
            return
        if not is_pod_ready(new):
            with self._lock:
                self._ready_since.pop(meta(new).get("uid", ""), None)
        old_key, new_key = self._owner_key(old), self._owner_key(new)
        for key in {old_key, new_key} - {None}:
            self.controller.enqueue(str(key))
        if new_key is None and controller_of(new) is None:
            for key in self._matching_keys(new):
                self.controller.enqueue(key)

    def delete_pod(self, obj: Any) -> None:
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        if not isinstance(pod, dict):
            return
        with self._lock:
            self._ready_since.pop(meta(pod).get("uid", ""), None)
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.deletion_observed(key, _key(pod))
            self.controller.enqueue(key)

    # -- reconcile (Go: syncReplicaSet) ---------------------------------------------------------

    def sync_replica_set(self, key: str) -> Result | None:
        """Bring one ReplicaSet's Pods to `spec.replicas` and write its status."""
        namespace, name = split_meta_namespace_key(key)
        try:
            rs = self.rs_lister.replica_sets(namespace).get(name)
        except NotFound:
            self.expectations.delete(key)
            return None
        needs_sync = self.expectations.satisfied(key) and not is_being_deleted(rs)
        selector = selector_of(rs)
        pods = [p for p in self.pod_lister.pods(namespace).list() if is_pod_active(p)]
        pods = ControllerRefManager(rs, selector, "apps/v1", "ReplicaSet",
                                    self._patch_pod).claim(pods)
        error: ApiError | None = None
        if needs_sync:
            error = self.manage_replicas(key, rs, pods)
        requeue = self.update_status(rs, pods, error)
        if error is not None:
            raise error  # retried with backoff
        return requeue

    def manage_replicas(self, key: str, rs: dict[str, Any],
                        pods: list[dict[str, Any]]) -> ApiError | None:
        """Create or delete Pods so that `spec.replicas` are active; the first API
        error, if any (Go: manageReplicas)."""
        want = int((rs.get("spec") or {}).get("replicas", 1))
        diff = len(pods) - want
        if diff < 0:
            count = min(-diff, BURST_REPLICAS)
            self.expectations.expect_creations(key, count)
            return self._create_pods(key, rs, count)
        if diff > 0:
            victims = self.pods_to_delete(pods, min(diff, BURST_REPLICAS))
            self.expectations.expect_deletions(key, [_key(p) for p in victims])
            return self._delete_pods(key, rs, victims)
        return None

    def _create_pods(self, key: str, rs: dict[str, Any], count: int) -> ApiError | None:
        """Slow start: batches of 1, 2, 4, ... stop at the first failure, so a quota or
        a bad template costs one failed request, not `count` of them."""
        template = (rs.get("spec") or {}).get("template") or {}
        ref = new_controller_ref(rs, "apps/v1", "ReplicaSet")
        pods = self.core.pods(meta(rs)["namespace"])
        created, batch = 0, 1
        while created < count:
            for _ in range(min(batch, count - created)):
                try:
                    pod = pods.create(pod_from_template(template, rs, ref))
                except ApiError as err:
                    for _ in range(count - created):  # none of those will arrive
                        self.expectations.creation_observed(key)
                    self._event(rs, "Warning", "FailedCreate", f"Error creating: {err}")
                    return err
                created += 1
                self._event(rs, "Normal", "SuccessfulCreate", f"Created pod: {meta(pod)['name']}")
            batch *= 2
        return None

    def _delete_pods(self, key: str, rs: dict[str, Any],
                     victims: list[dict[str, Any]]) -> ApiError | None:
        error = None
        for pod in victims:
            m = meta(pod)
            try:
                self.core.pods(m["namespace"]).delete(m["name"],
                                                      preconditions={"uid": m["uid"]})
                self._event(rs, "Normal", "SuccessfulDelete", f"Deleted pod: {m['name']}")
            except NotFound:
                self.expectations.deletion_observed(key, _key(pod))
            except ApiError as err:
                self.expectations.deletion_observed(key, _key(pod))
                self._event(rs, "Warning", "FailedDelete", f"Error deleting: {err}")
                error = error or err
        return error

    @staticmethod
    def pods_to_delete(pods: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
        """The `count` Pods whose loss hurts least (Go's ActivePods ranking, shortened):
        unscheduled before scheduled, Pending before Running, not Ready before Ready,
        then the most restarted, then the youngest."""
        phases = {"Pending": 0, "Unknown": 1, "Running": 2}

        def rank(pod: dict[str, Any]) -> tuple[bool, int, bool, int]:
            status = pod.get("status") or {}
            restarts = sum(int(c.get("restartCount") or 0)
                           for c in status.get("containerStatuses") or ())
            return (bool((pod.get("spec") or {}).get("nodeName")),
                    phases.get(status.get("phase", ""), 0), is_pod_ready(pod), -restarts)

        youngest_first = sorted(pods, key=lambda p: meta(p).get("creationTimestamp", ""),
                                reverse=True)
        return sorted(youngest_first, key=rank)[:count]  # stable: age breaks the ties

    # -- status ------------------------------------------------------------------------------

    def update_status(self, rs: dict[str, Any], pods: list[dict[str, Any]],
                      error: ApiError | None) -> Result | None:
        """Write status when it changed (Go: calculateStatus + updateReplicaSetStatus);
        asks to come back when a Ready Pod is about to become available."""
        spec = rs.get("spec") or {}
        template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        min_ready = float(spec.get("minReadySeconds") or 0)
        ready = [p for p in pods if is_pod_ready(p)]
        available, waits = self._available(ready, min_ready)
        status: dict[str, Any] = {"replicas": len(pods)}
        labeled = sum(1 for p in pods if template_labels.items() <= (
            meta(p).get("labels") or {}).items())
        for field, value in (("fullyLabeledReplicas", labeled), ("readyReplicas", len(ready)),
                             ("availableReplicas", available)):
            if value:
                status[field] = value  # Go omits zero counts
        status["observedGeneration"] = meta(rs).get("generation", 1)
        old = rs.get("status") or {}
        if old.get("conditions"):
            status["conditions"] = old["conditions"]
        if error is not None:
            set_condition(status, {"type": "ReplicaFailure", "status": "True",
                                   "lastTransitionTime": now_rfc3339(),
                                   "reason": "FailedCreate" if len(pods) < int(spec.get(
                                       "replicas", 1)) else "FailedDelete",
                                   "message": str(error)})
        elif get_condition(status, "ReplicaFailure") is not None:
            remove_condition(status, "ReplicaFailure")
        if status != old:
            try:
                self.apps.replica_sets(meta(rs)["namespace"]).update_status(
                    dict(rs, status=status))
            except NotFound:
                return None
            except Conflict:  # our cache is behind: sync again once it has caught up
                return retry_after_conflict()
        return Result(requeue_after=min(waits)) if waits else None

    def _available(self, ready: list[dict[str, Any]], min_ready: float) -> tuple[int, list[float]]:
        """How many Ready Pods count as available (Ready for `min_ready` clock seconds,
        from when this controller first saw them Ready), and how long the others wait."""
        if min_ready <= 0:
            return len(ready), []
        now = self.clock.now()
        available, waits = 0, []
        with self._lock:
            for pod in ready:
                since = self._ready_since.setdefault(meta(pod)["uid"], now)
                if now - since >= min_ready:
                    available += 1
                else:
                    waits.append(since + min_ready - now)
        return available, waits

    # -- helpers ------------------------------------------------------------------------------

    def _patch_pod(self, pod: dict[str, Any], body: dict[str, Any]) -> Any:
        return self.core.pods(meta(pod)["namespace"]).patch(meta(pod)["name"], body)

    def _event(self, obj: dict[str, Any], event_type: str, reason: str, message: str) -> None:
        record_event(self.recorder, obj, "apps/v1", "ReplicaSet", event_type, reason, message)
