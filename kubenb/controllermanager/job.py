"""The Job controller: run Pods until enough of them succeed, or too many fail.

kube-controller-manager's `pkg/controller/job`, small (NonIndexed completion mode). For
each Job key:

* count its Pods: active, ready, succeeded, failed (with restartPolicy OnFailure a
  container restart counts as a failure too);
* failed more than `backoffLimit` (6) times, or active longer than
  `activeDeadlineSeconds`: delete the active Pods, condition FailureTarget then Failed;
* `completions` (1) succeeded, or with completions unset one succeeded and none
  active: condition SuccessCriteriaMet then Complete, and completionTime;
* otherwise keep `min(parallelism, completions - succeeded)` Pods active; after a
  failure a new Pod waits 10 s, doubling per failure up to 6 min (on the clock).

The status holds startTime, active, ready, succeeded, failed, terminating,
completionTime and the conditions, which is what `kubectl get jobs` and
`kubectl wait --for=condition=complete` read. The Pods get the labels the API server
would put in the Job's template (`batch.kubernetes.io/job-name`, `controller-uid`, ...).

Simplified: the real controller makes sure it counts every finished Pod (the
`batch.kubernetes.io/job-tracking` finalizer and `uncountedTerminatedPods`); this one
counts the finished Pods it sees and never lowers a count, so a Pod deleted before the
controller saw it finish is not counted. Indexed Jobs, podFailurePolicy, successPolicy
and suspend are not implemented.
"""

from __future__ import annotations

import threading
from typing import Any

from kubenb.cache.keys import DeletedFinalStateUnknown, split_meta_namespace_key
from kubenb.clock import Clock, RealClock
from kubenb.cluster import Cluster
from kubenb.controller.runner import Controller, Result, controller_of
from kubenb.controllermanager.controller_utils import (
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
    retry_after_conflict,
)
from kubenb.errors import ApiError, Conflict, NotFound

__all__ = ["JobController"]

#: After a failed Pod, the next one waits this long, doubling per failure, up to the cap.
BACKOFF_SECONDS = 10.0
MAX_BACKOFF_SECONDS = 360.0


def _key(obj: dict[str, Any]) -> str:
    return f"{meta(obj).get('namespace', '')}/{meta(obj)['name']}"


def _phase(pod: dict[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def _finished(job: dict[str, Any]) -> bool:
    status = job.get("status") or {}
    return any((get_condition(status, kind) or {}).get("status") == "True"
               for kind in ("Complete", "Failed"))


def _condition(kind: str, reason: str = "", message: str = "") -> dict[str, Any]:
    now = now_rfc3339()
    condition: dict[str, Any] = {"type": kind, "status": "True", "lastProbeTime": now,
                                 "lastTransitionTime": now}
    if reason:
        condition["reason"] = reason
    if message:
        condition["message"] = message
    return condition


class JobController(PodOwnerController):
    """kube-controller-manager's Job controller (see the module docstring).

    `clock` drives the failure backoff, activeDeadlineSeconds and the workqueue;
    `recorder` (optional) gets SuccessfulCreate, Completed and BackoffLimitExceeded.
    """

    name = "job"

    def __init__(self, cluster: Cluster, *, clock: Clock | None = None, workers: int = 2,
                 recorder: Any = None) -> None:
        self.cluster = cluster
        self.clock: Clock = clock if clock is not None else RealClock()
        self.recorder = recorder
        self.batch = cluster.clientset.batch_v1()
        self.core = cluster.clientset.core_v1()
        jobs = cluster.factory.batch().v1().jobs()
        pods = cluster.factory.core().v1().pods()
        self.job_lister = jobs.lister()
        self.pod_lister = pods.lister()
        self.pod_informer = pods.informer()
        self.expectations = Expectations(self.clock)
        self._lock = threading.Lock()
        self._started: dict[str, float] = {}  # key -> clock time the Job was first synced
        self._failures: dict[str, tuple[int, float]] = {}  # key -> (failed, when seen)
        self.controller = Controller("job", self.sync_job, workers=workers,
                                     clock=self.clock).watch(jobs.informer())

    def __repr__(self) -> str:
        return f"JobController({self.controller!r})"

    # -- Pod event handlers (Go: addPod, updatePod, deletePod) --------------------------------

    def _owner_key(self, pod: dict[str, Any]) -> str | None:
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != "Job":
            return None
        return f"{meta(pod).get('namespace', '')}/{ref.get('name', '')}"

    def add_pod(self, pod: dict[str, Any], is_in_initial_list: bool = False) -> None:
        key = self._owner_key(pod)
        if key is not None:
            if is_being_deleted(pod):
                self.expectations.deletion_observed(key, _key(pod))
            else:
                self.expectations.creation_observed(key)
            self.controller.enqueue(key)

    def update_pod(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        key = self._owner_key(new)
        if key is not None and meta(old).get("resourceVersion") != meta(new).get(
                "resourceVersion"):
            if is_being_deleted(new):
                self.expectations.deletion_observed(key, _key(new))
            self.controller.enqueue(key)

    def delete_pod(self, obj: Any) -> None:
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        key = self._owner_key(pod) if isinstance(pod, dict) else None
        if key is not None:
            self.expectations.deletion_observed(key, _key(pod))
            self.controller.enqueue(key)

    # -- reconcile (Go: syncJob) ---------------------------------------------------------------

    def sync_job(self, key: str) -> Result | None:
        """Count one Job's Pods, start or stop Pods, and write its status."""
        namespace, name = split_meta_namespace_key(key)
        try:
            job = self.job_lister.jobs(namespace).get(name)
        except NotFound:
            self.expectations.delete(key)
            with self._lock:
                self._started.pop(key, None)
                self._failures.pop(key, None)
            return None
        if _finished(job):
            return None
        spec = job.get("spec") or {}
        pods = [p for p in self.pod_lister.pods(namespace).list()
                if (controller_of(p) or {}).get("uid") == meta(job)["uid"]]
        active = [p for p in pods if is_pod_active(p)]
        succeeded = sum(1 for p in pods if _phase(p) == "Succeeded")
        failed = sum(1 for p in pods if _phase(p) == "Failed")
        if spec.get("template", {}).get("spec", {}).get("restartPolicy") == "OnFailure":
            failed += sum(int(c.get("restartCount") or 0) for p in pods
                          if _phase(p) not in ("Succeeded", "Failed")  # terminating too
                          for c in (p.get("status") or {}).get("containerStatuses") or ())
        status = dict(job.get("status") or {})
        # Counts never go down: a finished Pod deleted since keeps counting.
        succeeded = max(succeeded, int(status.get("succeeded") or 0))
        failed = max(failed, int(status.get("failed") or 0))
        status.setdefault("startTime", now_rfc3339())
        completions = spec.get("completions")
        parallelism = int(spec.get("parallelism", 1))
        result: Result | None = None
        failure = self._failure(key, spec, failed)
        if failure is not None:
            self._delete_pods(key, active)
            status["conditions"] = [*status.get("conditions", []),
                                    _condition("FailureTarget", *failure),
                                    _condition("Failed", *failure)]
            self._event(job, "Warning", failure[0], failure[1])
        elif (succeeded >= int(completions) if completions is not None
              else succeeded > 0 and not active):
            self._delete_pods(key, active)  # more ran at once than were still needed
            status["conditions"] = [*status.get("conditions", []),
                                    _condition("SuccessCriteriaMet", "CompletionsReached",
                                               "Reached expected number of succeeded pods"),
                                    _condition("Complete", "CompletionsReached",
                                               "Reached expected number of succeeded pods")]
            status["completionTime"] = now_rfc3339()
            self._event(job, "Normal", "Completed", "Job completed")
        elif self.expectations.satisfied(key):
            if completions is None:  # a work queue: once one succeeded, start no more
                want = len(active) if succeeded else parallelism
            else:
                want = min(parallelism, int(completions) - succeeded)
            result = self.manage_job(key, job, active, want, failed)
        if failure is None and spec.get("activeDeadlineSeconds") is not None:
            with self._lock:  # come back when the deadline passes
                left = self._started[key] + float(spec["activeDeadlineSeconds"]) - \
                    self.clock.now()
            result = Result(requeue_after=min(left, result.requeue_after if result else left))
        counts = {"active": len(active), "succeeded": succeeded, "failed": failed}
        status.update((k, v) for k, v in counts.items() if v)
        for k, v in counts.items():
            if not v:
                status.pop(k, None)  # Go omits zero counts
        status["terminating"] = sum(1 for p in pods if is_being_deleted(p)
                                    and _phase(p) not in ("Succeeded", "Failed"))
        status["ready"] = sum(1 for p in active if is_pod_ready(p))
        status.setdefault("uncountedTerminatedPods", {})
        if status != (job.get("status") or {}):
            try:
                self.batch.jobs(namespace).update_status(dict(job, status=status))
            except NotFound:
                return None
            except Conflict:
                return retry_after_conflict()
        return result

    def _failure(self, key: str, spec: dict[str, Any], failed: int) -> tuple[str, str] | None:
        """Why the Job has failed (reason, message), or None."""
        if failed > int(spec.get("backoffLimit", 6)):
            return "BackoffLimitExceeded", "Job has reached the specified backoff limit"
        deadline = spec.get("activeDeadlineSeconds")
        if deadline is not None:
            with self._lock:
                started = self._started.setdefault(key, self.clock.now())
            if self.clock.now() - started >= float(deadline):
                return "DeadlineExceeded", "Job was active longer than specified deadline"
        return None

    def manage_job(self, key: str, job: dict[str, Any], active: list[dict[str, Any]],
                   want: int, failed: int) -> Result | None:
        """Create or delete Pods so that `want` are active, waiting out the failure
        backoff before creating (Go: manageJob)."""
        if len(active) > want:
            self._delete_pods(key, sorted(active, key=is_pod_ready)[:len(active) - want])
            return None
        if len(active) == want:
            return None
        wait = self._backoff(key, failed)
        if wait > 0:
            return Result(requeue_after=wait)
        count = want - len(active)
        self.expectations.expect_creations(key, count)
        template = dict((job.get("spec") or {}).get("template") or {})
        labels = {**((template.get("metadata") or {}).get("labels") or {}),
                  "batch.kubernetes.io/controller-uid": meta(job)["uid"],
                  "batch.kubernetes.io/job-name": meta(job)["name"],
                  "controller-uid": meta(job)["uid"], "job-name": meta(job)["name"]}
        template["metadata"] = {**(template.get("metadata") or {}), "labels": labels}
        ref = new_controller_ref(job, "batch/v1", "Job")
        pods = self.core.pods(meta(job)["namespace"])
        for made in range(count):
            try:
                pod = pods.create(pod_from_template(template, job, ref))
            except ApiError as err:
                for _ in range(count - made):
                    self.expectations.creation_observed(key)
                self._event(job, "Warning", "FailedCreate", f"Error creating: {err}")
                raise
            self._event(job, "Normal", "SuccessfulCreate", f"Created pod: {meta(pod)['name']}")
        return None

    def _backoff(self, key: str, failed: int) -> float:
        """Clock seconds still to wait before a new Pod after `failed` failures."""
        if failed == 0:
            return 0.0
        now = self.clock.now()
        with self._lock:
            seen, since = self._failures.get(key, (0, now))
            if failed != seen:
                seen, since = failed, now
                self._failures[key] = (seen, since)
        delay = min(BACKOFF_SECONDS * 2 ** (failed - 1), MAX_BACKOFF_SECONDS)
        return max(since + delay - now, 0.0)

    def _delete_pods(self, key: str, pods: list[dict[str, Any]]) -> None:
        pods = [p for p in pods if not is_being_deleted(p)]
        if not pods:
            return
        self.expectations.expect_deletions(key, [_key(p) for p in pods])
        for pod in pods:
            m = meta(pod)
            try:
                self.core.pods(m["namespace"]).delete(m["name"], preconditions={"uid": m["uid"]})
            except NotFound:
                self.expectations.deletion_observed(key, _key(pod))

    def _event(self, obj: dict[str, Any], event_type: str, reason: str, message: str) -> None:
        record_event(self.recorder, obj, "batch/v1", "Job", event_type, reason, message)
