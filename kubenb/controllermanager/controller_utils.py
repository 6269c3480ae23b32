"""What the built-in controllers share: kube-controller-manager's `controller_utils.go`, small.

* pod helpers: `is_pod_active`, `is_pod_ready`, `pod_from_template`;
* owner references: `new_controller_ref`, `is_controlled_by`, and `ControllerRefManager`,
  which adopts orphans a selector matches and releases what it no longer matches;
* `Expectations`: what a controller waits to see in its cache after its own writes;
* conditions: `get_condition`, `set_condition`;
* `retry_after_conflict`: what a sync returns when a write met 409 Conflict;
* `now_rfc3339`: API timestamps (conditions, startTime) are wall-clock strings, as the
  API wants; every *timer* of a controller runs on its `clock` instead.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kubenb.clock import Clock
from kubenb.cluster import Cluster
from kubenb.controller.owners import controller_of, is_controlled_by, new_controller_ref
from kubenb.controller.record import get_reference
from kubenb.controller.result import Result
from kubenb.errors import Conflict, ControllerError, KubenbError, NotFound
from kubenb.labels import LabelSelector, label_selector_from_dict
from kubenb.timeutil import now_rfc3339

__all__ = [
    "CACHE_SYNC_POLL",
    "CONFLICT_RETRY",
    "POD_TEMPLATE_HASH_LABEL",
    "ControllerError",
    "ControllerRefManager",
    "Expectations",
    "get_condition",
    "is_being_deleted",
    "is_controlled_by",
    "is_pod_active",
    "is_pod_ready",
    "new_controller_ref",
    "now_rfc3339",
    "pod_from_template",
    "record_event",
    "retry_after_conflict",
    "selector_of",
    "set_condition",
]

log = logging.getLogger(__name__)

#: The label a Deployment adds to its ReplicaSets and their Pods (apps/v1
#: `DefaultDeploymentUniqueLabelKey`): the hash of the Pod template.
POD_TEMPLATE_HASH_LABEL = "pod-template-hash"

#: Seconds after which a key whose write met 409 Conflict is synced again.
CONFLICT_RETRY = 0.5

#: Real seconds between looks at a cache the cluster's start waits for. client-go polls
#: every 0.1 s; a first look that came a moment too early made one `kubenb.embedded()`
#: in four take 0.13 s instead of 0.05 s. (Users' controllers keep client-go's poll.)
CACHE_SYNC_POLL = 0.005


def retry_after_conflict() -> Result:
    """What a sync returns when a write met 409 Conflict: its cache was behind the
    server. The informer's next event brings the key back with the newer object; this
    retry, `CONFLICT_RETRY` seconds later and not counted as a failure, is the safety
    net. kube-controller-manager rate-limits a conflict like an error (5 ms doubling to
    1000 s per key); while an informer relists, every sync of a busy key conflicts, and
    a key that collected a dozen conflicts waited minutes for its next try when that
    try failed too."""
    return Result(requeue_after=CONFLICT_RETRY)


def meta(obj: dict[str, Any]) -> dict[str, Any]:
    """`obj["metadata"]`, or {} when it has none."""
    return obj.get("metadata") or {}


def is_being_deleted(obj: dict[str, Any]) -> bool:
    """Whether a DELETE has been accepted (deletionTimestamp set): it is on its way out."""
    return bool(meta(obj).get("deletionTimestamp"))


def record_event(recorder: Any, obj: dict[str, Any], api_version: str, kind: str,
                 event_type: str, reason: str, message: str) -> None:
    """Record an Event about `obj` with `recorder` (None: no Events). Cached objects may
    carry no kind (a relisted cache holds list items), so the reference is built with
    `kind` and `api_version`. An Event is a report, not part of the work: a failure to
    record one is logged and never fails a sync."""
    if recorder is None:
        return
    try:
        reference = get_reference(obj, kind=kind, api_version=api_version)
        recorder.event(reference, event_type, reason, message)
    except KubenbError as err:
        log.warning("could not record event %s about %s %s: %s", reason, kind,
                    meta(obj).get("name"), err)


# -- pods --------------------------------------------------------------------------------


def is_pod_active(pod: dict[str, Any]) -> bool:
    """Not finished and not being deleted: a Pod that counts as a replica
    (controller_utils' `IsPodActive`)."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not is_being_deleted(pod)


def is_pod_ready(pod: dict[str, Any]) -> bool:
    """The Pod's Ready condition is True (podutil's `IsPodReady`)."""
    condition = get_condition(pod.get("status") or {}, "Ready")
    return condition is not None and condition.get("status") == "True"


def pod_from_template(template: dict[str, Any], owner: dict[str, Any],
                      controller_ref: dict[str, Any]) -> dict[str, Any]:
    """A new Pod for `owner` from its Pod template (controller_utils' `GetPodFromTemplate`):
    the template's labels, annotations, finalizers and spec, named `<owner>-<random>`
    by the server (generateName), and controlled by `owner`."""
    template_meta = template.get("metadata") or {}
    pod_meta: dict[str, Any] = {"generateName": f"{meta(owner)['name']}-",
                                "namespace": meta(owner).get("namespace")}
    for key in ("labels", "annotations", "finalizers"):
        if template_meta.get(key):
            pod_meta[key] = copy.deepcopy(template_meta[key])
    pod_meta["ownerReferences"] = [controller_ref]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta,
            "spec": copy.deepcopy(template.get("spec") or {})}


# -- owner references ----------------------------------------------------------------------


def selector_of(obj: dict[str, Any]) -> LabelSelector:
    """`spec.selector` as a selector; a missing selector selects nothing."""
    return label_selector_from_dict((obj.get("spec") or {}).get("selector"))


class ControllerRefManager:
    """Adopts and releases objects for one owner (controller_ref_manager.go's `ClaimObjects`).

    A controller owns what carries its controllerRef. An orphan (no controller) that
    its selector matches is adopted: the controllerRef is added, guarded by the orphan's
    UID and resourceVersion. An object it controls that the selector no longer matches
    is released: the controllerRef is removed. An owner being deleted adopts nothing.
    `patch(obj, body)` sends a JSON merge patch to `obj` (the controller's own client).
    """

    def __init__(self, owner: dict[str, Any], selector: LabelSelector, api_version: str,
                 kind: str, patch: Callable[[dict[str, Any], dict[str, Any]], Any]) -> None:
        self.owner = owner
        self.selector = selector
        self.controller_ref = new_controller_ref(owner, api_version, kind)
        self._patch = patch

    def claim(self, objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """The objects this owner controls after adopting and releasing."""
        claimed = []
        for obj in objects:
            labels = meta(obj).get("labels") or {}
            ref = controller_of(obj)
            if ref is not None:
                if ref.get("uid") != meta(self.owner)["uid"]:
                    continue  # someone else's
                if self.selector.matches(labels) or is_being_deleted(self.owner):
                    claimed.append(obj)
                else:
                    self._release(obj)
                continue
            if (self.selector.matches(labels) and not is_being_deleted(self.owner)
                    and not is_being_deleted(obj)):
                adopted = self._adopt(obj)
                if adopted is not None:
                    claimed.append(adopted)
        return claimed

    def _adopt(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        refs = [*(meta(obj).get("ownerReferences") or []), self.controller_ref]
        try:
            return self._patch(obj, {"metadata": {
                "ownerReferences": refs, "uid": meta(obj)["uid"],
                "resourceVersion": meta(obj)["resourceVersion"]}})
        except (NotFound, Conflict):
            return None  # gone or changed meanwhile: the next sync looks again

    def _release(self, obj: dict[str, Any]) -> None:
        refs = [r for r in meta(obj).get("ownerReferences") or []
                if r.get("uid") != meta(self.owner)["uid"]]
        with contextlib.suppress(NotFound):
            self._patch(obj, {"metadata": {"ownerReferences": refs or None,
                                           "uid": meta(obj)["uid"]}})


# -- expectations --------------------------------------------------------------------------


@dataclass
class _Expected:
    adds: int
    deletes: set[str]
    since: float
    extra: dict[str, Any] = field(default_factory=dict)


class Expectations:
    """What a controller waits to see in its cache after its own writes (client-go's
    `UIDTrackingControllerExpectations`, in one small class).

    Informer caches lag behind the server. Right after a ReplicaSet controller creates
    three Pods its Pod cache may not hold them yet, and a second sync would create
    three more. So before writing, the controller says what it expects
    (`expect_creations(key, 3)`, `expect_deletions(key, pod_keys)`); the Pod event
    handlers report what arrives (`creation_observed`, `deletion_observed`), and a sync
    changes Pods only when `satisfied(key)`. After `timeout` clock seconds an
    expectation lapses, so a lost event cannot wedge a controller forever.
    """

    def __init__(self, clock: Clock, timeout: float = 300.0) -> None:
        self.clock = clock
        self.timeout = timeout
        self._lock = threading.Lock()
        self._items: dict[str, _Expected] = {}

    def __repr__(self) -> str:
        with self._lock:
            pending = {k: (e.adds, len(e.deletes)) for k, e in self._items.items()
                       if e.adds > 0 or e.deletes}
        return f"Expectations(pending={pending})"

    def expect_creations(self, key: str, adds: int) -> None:
        """Expect `adds` new objects for `key` (replacing what was expected before)."""
        with self._lock:
            self._items[key] = _Expected(adds, set(), self.clock.now())

    def expect_deletions(self, key: str, deleted_keys: Iterable[str]) -> None:
        """Expect the objects with these cache keys ("ns/name") to go away."""
        with self._lock:
            self._items[key] = _Expected(0, set(deleted_keys), self.clock.now())

    def creation_observed(self, key: str) -> None:
        """One expected object arrived (or its create failed: it never will)."""
        with self._lock:
            item = self._items.get(key)
            if item is not None and item.adds > 0:
                item.adds -= 1

    def deletion_observed(self, key: str, deleted_key: str) -> None:
        """An object with cache key `deleted_key` went away (or its delete failed)."""
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                item.deletes.discard(deleted_key)

    def satisfied(self, key: str) -> bool:
        """Nothing is pending for `key`, or what was pending has lapsed."""
        with self._lock:
            item = self._items.get(key)
            if item is None or (item.adds <= 0 and not item.deletes):
                return True
            return self.clock.now() - item.since > self.timeout

    def delete(self, key: str) -> None:
        """Forget `key` (its owner is gone)."""
        with self._lock:
            self._items.pop(key, None)


# -- conditions ------------------------------------------------------------------------------


def get_condition(status: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """The condition of type `kind` in `status["conditions"]`, or None."""
    for condition in status.get("conditions") or ():
        if isinstance(condition, dict) and condition.get("type") == kind:
            return condition
    return None


def set_condition(status: dict[str, Any], condition: dict[str, Any]) -> None:
    """Put `condition` into `status` as deploymentutil's `SetDeploymentCondition` does:
    nothing changes when status and reason are the same; lastTransitionTime is kept
    while the status stays the same; a changed condition moves to the end."""
    current = get_condition(status, condition["type"])
    if current is not None and (current.get("status"), current.get("reason")) == (
            condition.get("status"), condition.get("reason")):
        return
    condition = dict(condition)
    if current is not None and current.get("status") == condition.get("status") \
            and "lastTransitionTime" in condition:
        condition["lastTransitionTime"] = current.get("lastTransitionTime",
                                                      condition["lastTransitionTime"])
    others = [c for c in status.get("conditions") or () if c.get("type") != condition["type"]]
    status["conditions"] = [*others, condition]


def remove_condition(status: dict[str, Any], kind: str) -> None:
    """Drop the condition of type `kind` (and the list, when it ends up empty)."""
    kept = [c for c in status.get("conditions") or () if c.get("type") != kind]
    if kept:
        status["conditions"] = kept
    else:
        status.pop("conditions", None)


class PodOwnerController:
    """What the ReplicaSet and Job controllers share: they own pods, so their pod
    handlers (`add_pod`, `update_pod`, `delete_pod`) go on the shared pod informer
    once its cache has synced, and come off again before the workers stop (so nothing
    is queued any more). Subclasses set `name`, `cluster`, `pod_informer` and
    `controller` (a `kubenb.controller.runner.Controller`)."""

    name = ""
    cluster: Cluster
    pod_informer: Any
    controller: Any
    add_pod: Callable[..., None]
    update_pod: Callable[[Any, Any], None]
    delete_pod: Callable[[Any], None]
    _registration: Any = None

    def run(self, timeout: float = 60.0) -> Any:
        """Wait for the Pod cache, then sync in the background; returns self."""
        from kubenb.cache.handlers import ResourceEventHandlerFuncs
        from kubenb.cache.wait import wait_for_cache_sync

        self.cluster.factory.start()
        if not wait_for_cache_sync(None, self.pod_informer.has_synced, timeout=timeout,
                                   poll_period=CACHE_SYNC_POLL):
            raise KubenbError(f"{self.name} controller: the pod cache did not sync in "
                              f"{timeout}s")
        self._registration = self.pod_informer.add_event_handler(ResourceEventHandlerFuncs(
            on_add=self.add_pod, on_update=self.update_pod, on_delete=self.delete_pod))
        self.controller.run()
        return self

    def stop(self) -> None:
        """Stop the Pod handler (so nothing is queued any more), then the workers."""
        if self._registration is not None:
            self.pod_informer.remove_event_handler(self._registration)
            self._registration = None
        self.controller.stop()

