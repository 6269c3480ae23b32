"""The Deployment controller: roll a Pod template out through ReplicaSets.

kube-controller-manager's `pkg/controller/deployment`, small. A Deployment never makes
Pods itself. For each template it has run it keeps a ReplicaSet named
`<deployment>-<pod-template-hash>`, and a rollout is a matter of scaling:

* RollingUpdate (the default): the new ReplicaSet is scaled up while at most
  `replicas + maxSurge` Pods exist, old ones are scaled down while at least
  `replicas - maxUnavailable` Pods stay available (both 25% by default);
* Recreate: old ReplicaSets go to 0, and once their Pods are gone the new one is
  scaled to `replicas`.

Every ReplicaSet carries the `deployment.kubernetes.io/revision` annotation (the
Deployment too, for its current one), which is what `kubectl rollout history` lists and
`kubectl rollout undo` goes back to: undo copies an old ReplicaSet's template into the
Deployment, and the controller, finding a ReplicaSet with that template, makes it the
new one again with the next revision number. Old ReplicaSets beyond
`revisionHistoryLimit` (10) are deleted once a rollout completes.

The status is what `kubectl rollout status` and `kubectl wait --for=condition=Available`
read: observedGeneration, replicas, updatedReplicas, readyReplicas, availableReplicas,
unavailableReplicas, and the Available and Progressing conditions (Progressing turns
False with ProgressDeadlineExceeded when no progress is made for
`progressDeadlineSeconds`, measured on the controller's clock).

One concept, so one module past the usual length: the Deployment controller's sync,
rollout, scaling and status steps read one Deployment's state together.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import threading
from typing import Any

from kubenb.cache.keys import DeletedFinalStateUnknown, split_meta_namespace_key
from kubenb.clock import Clock, RealClock
from kubenb.cluster import Cluster
from kubenb.controller.runner import Controller, Result, controller_of
from kubenb.controllermanager.controller_utils import (
    POD_TEMPLATE_HASH_LABEL,
    ControllerError,
    ControllerRefManager,
    get_condition,
    is_being_deleted,
    is_controlled_by,
    meta,
    new_controller_ref,
    now_rfc3339,
    record_event,
    remove_condition,
    retry_after_conflict,
    selector_of,
    set_condition,
)
from kubenb.errors import AlreadyExists, Conflict, NotFound

__all__ = [
    "DESIRED_REPLICAS_ANNOTATION",
    "MAX_REPLICAS_ANNOTATION",
    "REVISION_ANNOTATION",
    "DeploymentController",
    "compute_hash",
    "equal_ignore_hash",
]

REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"
#: Deployment annotations not copied to its ReplicaSets (and kept by `rollout undo`).
SKIPPED_ANNOTATIONS = frozenset({
    "kubectl.kubernetes.io/last-applied-configuration", REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION, DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION,
    "deprecated.deployment.rollback.to"})
_SAFE = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's rand.SafeEncodeString alphabet


# -- templates and hashes ------------------------------------------------------------------


def _normalized(value: Any) -> Any:
    """`value` without null, {} and [] anywhere: how Go's typed structs compare them
    (a template round-tripped through kubectl gains `creationTimestamp: null`)."""
    if isinstance(value, dict):
        out = {k: _normalized(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, {}, [])}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


def _without_hash(template: dict[str, Any]) -> Any:
    template = copy.deepcopy(template or {})
    labels = (template.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(POD_TEMPLATE_HASH_LABEL, None)
    return _normalized(template)


def equal_ignore_hash(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two Pod templates are the same but for the pod-template-hash label
    (deploymentutil's `EqualIgnoreHash`)."""
    return bool(_without_hash(a) == _without_hash(b))


def compute_hash(template: dict[str, Any], collision_count: int = 0) -> str:
    """The pod-template-hash of a template: FNV-1a (32 bit) of its canonical JSON, plus
    the collision count, encoded as apimachinery's `SafeEncodeString` does (the real
    controller hashes the Go struct, so the strings differ, not their shape)."""
    digest = 0x811C9DC5
    data = json.dumps(_normalized(template), sort_keys=True, separators=(",", ":")).encode()
    if collision_count:
        data += collision_count.to_bytes(8, "little")
    for byte in data:
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE[ord(c) % len(_SAFE)] for c in str(digest))


# -- numbers of a deployment ---------------------------------------------------------------


def _replicas(obj: dict[str, Any] | None) -> int:
    replicas = ((obj or {}).get("spec") or {}).get("replicas")
    return 1 if replicas is None else int(replicas)


def _status_count(obj: dict[str, Any] | None, field: str) -> int:
    return int(((obj or {}).get("status") or {}).get(field) or 0)


def _revision(obj: dict[str, Any]) -> int:
    try:
        return int((meta(obj).get("annotations") or {}).get(REVISION_ANNOTATION, 0))
    except ValueError:
        return 0


def _is_rolling(d: dict[str, Any]) -> bool:
    return ((d["spec"].get("strategy") or {}).get("type") or "RollingUpdate") == "RollingUpdate"


def _resolve(value: Any, total: int, round_up: bool) -> int:
    """An int-or-percent ("25%") of `total` (intstr's `GetScaledValueFromIntOrPercent`)."""
    if isinstance(value, str) and value.endswith("%"):
        scaled = int(value[:-1]) * total / 100
        return math.ceil(scaled) if round_up else math.floor(scaled)
    return int(value)


def _fenceposts(d: dict[str, Any]) -> tuple[int, int]:
    rolling = (d["spec"].get("strategy") or {}).get("rollingUpdate") or {}
    surge = _resolve(rolling.get("maxSurge", "25%"), _replicas(d), True)
    unavailable = _resolve(rolling.get("maxUnavailable", "25%"), _replicas(d), False)
    if surge == 0 and unavailable == 0:
        unavailable = 1  # a rollout must be able to make progress
    return surge, unavailable


def max_surge(d: dict[str, Any]) -> int:
    """How many Pods above `replicas` a rolling update may run (0 for Recreate)."""
    return _fenceposts(d)[0] if _is_rolling(d) else 0


def max_unavailable(d: dict[str, Any]) -> int:
    """How many of `replicas` may be unavailable during a rolling update."""
    if not _is_rolling(d) or _replicas(d) == 0:
        return 0
    return min(_fenceposts(d)[1], _replicas(d))


def _by_creation(replica_sets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(replica_sets, key=lambda rs: (meta(rs).get("creationTimestamp", ""),
                                                meta(rs)["name"]))


def _condition(kind: str, status: str, reason: str, message: str) -> dict[str, Any]:
    now = now_rfc3339()
    return {"type": kind, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
            "reason": reason, "message": message}


# -- the controller --------------------------------------------------------------------------


class DeploymentController:
    """kube-controller-manager's Deployment controller (see the module docstring).

    `clock` drives the workqueue's backoff and the progress deadline; `recorder`
    (optional) gets the ScalingReplicaSet Events `kubectl describe deployment` shows.
    """

    def __init__(self, cluster: Cluster, *, clock: Clock | None = None, workers: int = 2,
                 recorder: Any = None) -> None:
        self.cluster = cluster
        self.clock: Clock = clock if clock is not None else RealClock()
        self.recorder = recorder
        self.apps = cluster.clientset.apps_v1()
        apps = cluster.factory.apps().v1()
        deployments, replica_sets = apps.deployments(), apps.replica_sets()
        pods = cluster.factory.core().v1().pods()
        self.d_lister = deployments.lister()
        self.rs_lister = replica_sets.lister()
        self.pod_lister = pods.lister()
        self._lock = threading.Lock()
        self._progress: dict[str, float] = {}  # key -> clock time of the last progress
        self.controller = (
            Controller("deployment", self.sync_deployment, workers=workers, clock=self.clock)
            .watch(deployments.informer())
            .watch(replica_sets.informer(), enqueue=self._replica_set_keys)
            .watch(pods.informer(), enqueue=self._recreate_pod_key))

    def __repr__(self) -> str:
        return f"DeploymentController({self.controller!r})"

    def run(self) -> DeploymentController:
        """Sync in the background (after the caches have listed); returns self."""
        self.cluster.factory.start()
        self.controller.run()
        return self

    def stop(self) -> None:
        """Stop and join the workers."""
        self.controller.stop()

    # -- event handlers ------------------------------------------------------------------------

    def _replica_set_keys(self, obj: Any) -> list[str]:
        """A ReplicaSet changed: its Deployment, or for an orphan the Deployments whose
        selector matches it (one of them may adopt it)."""
        rs = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        if not isinstance(rs, dict):
            return []
        namespace = meta(rs).get("namespace", "")
        ref = controller_of(rs)
        if ref is not None:
            return [f"{namespace}/{ref['name']}"] if ref.get("kind") == "Deployment" else []
        labels = meta(rs).get("labels") or {}
        return [f"{namespace}/{meta(d)['name']}"
                for d in self.d_lister.deployments(namespace).list()
                if selector_of(d).matches(labels)]

    def _recreate_pod_key(self, obj: Any) -> str | None:
        """A Pod changed: a Recreate Deployment waits for its old Pods to go."""
        pod = obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj
        ref = controller_of(pod) if isinstance(pod, dict) else None
        if ref is None or ref.get("kind") != "ReplicaSet":
            return None
        namespace = meta(pod).get("namespace", "")
        try:
            rs = self.rs_lister.replica_sets(namespace).get(ref.get("name", ""))
            owner = controller_of(rs)
            d = self.d_lister.deployments(namespace).get((owner or {}).get("name", ""))
        except NotFound:
            return None
        return None if _is_rolling(d) else f"{namespace}/{meta(d)['name']}"

    # -- reconcile (Go: syncDeployment) --------------------------------------------------------

    def sync_deployment(self, key: str) -> Result | None:
        """Move one Deployment's rollout a step and write its status."""
        namespace, name = split_meta_namespace_key(key)
        try:
            d = copy.deepcopy(self.d_lister.deployments(namespace).get(name))
        except NotFound:
            with self._lock:
                self._progress.pop(key, None)
            return None
        d.setdefault("status", {})
        if not (d["spec"].get("selector") or {}):
            self._event(d, "Warning", "SelectingAll",
                        "This deployment is selecting all pods. A non-empty selector is "
                        "required.")
            return self._write_status(d, dict(d["status"], observedGeneration=meta(d).get(
                "generation", 1)))
        try:
            return self._sync(key, d)
        except Conflict:  # our cache was behind the server: try again once it caught up
            return retry_after_conflict()

    def _sync(self, key: str, d: dict[str, Any]) -> Result | None:
        rs_list = self.get_replica_sets_for_deployment(d)
        if is_being_deleted(d):
            new_rs, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, create=False)
            return self._write_status(d, self.calculate_status(old, new_rs, d))
        self._paused_condition(d)
        if d["spec"].get("paused"):
            return self.sync_paused(d, rs_list)
        if not _is_rolling(d):
            return self.rollout_recreate(key, d, rs_list)
        return self.rollout_rolling(key, d, rs_list)

    def get_replica_sets_for_deployment(self, d: dict[str, Any]) -> list[dict[str, Any]]:
        """The ReplicaSets this Deployment controls, after adopting and releasing
        (copies: this sync may change them)."""
        candidates = self.rs_lister.replica_sets(meta(d)["namespace"]).list()
        claimed = ControllerRefManager(d, selector_of(d), "apps/v1", "Deployment",
                                       self._patch_rs).claim(candidates)
        return [copy.deepcopy(rs) for rs in claimed]

    # -- rollouts ------------------------------------------------------------------------------

    def rollout_rolling(self, key: str, d: dict[str, Any],
                        rs_list: list[dict[str, Any]]) -> Result | None:
        """RollingUpdate: scale the new ReplicaSet up and the old ones down, within
        maxSurge and maxUnavailable (Go: rolloutRolling)."""
        new_rs, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, create=True)
        assert new_rs is not None
        all_rs = [*old, new_rs]
        if self.reconcile_new_replica_set(all_rs, new_rs, d):
            return self.sync_rollout_status(key, all_rs, new_rs, d)
        active_old = [rs for rs in old if _replicas(rs) > 0]
        if self.reconcile_old_replica_sets(all_rs, active_old, new_rs, d):
            return self.sync_rollout_status(key, all_rs, new_rs, d)
        if self._complete(d, d["status"]):
            self.cleanup_deployment(old, d)
        return self.sync_rollout_status(key, all_rs, new_rs, d)

    def rollout_recreate(self, key: str, d: dict[str, Any],
                         rs_list: list[dict[str, Any]]) -> Result | None:
        """Recreate: old ReplicaSets to 0, wait for their Pods to go, then the new one
        to `replicas` (Go: rolloutRecreate)."""
        new_rs, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, create=False)
        all_rs = [*old, *([new_rs] if new_rs else [])]
        scaled = False
        for rs in old:
            if _replicas(rs) > 0:
                scaled = self.scale_replica_set(rs, 0, d, "down") or scaled
        if scaled or self._old_pods_running(new_rs, old):
            return self.sync_rollout_status(key, all_rs, new_rs, d)
        if new_rs is None:
            new_rs, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, create=True)
            assert new_rs is not None
            all_rs = [*old, new_rs]
        self.scale_replica_set(new_rs, _replicas(d), d, "up")
        if self._complete(d, d["status"]):
            self.cleanup_deployment(old, d)
        return self.sync_rollout_status(key, all_rs, new_rs, d)

    def sync_paused(self, d: dict[str, Any], rs_list: list[dict[str, Any]]) -> Result | None:
        """A paused Deployment rolls nothing out; it still scales and reports status.
        Scaling follows Go's `scale` when one ReplicaSet is active (or none is); the
        proportional spreading over several is not done here."""
        new_rs, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, create=False)
        all_rs = [*old, *([new_rs] if new_rs else [])]
        active = [rs for rs in all_rs if _replicas(rs) > 0]
        target = active[0] if len(active) == 1 else (
            _by_creation(all_rs)[-1] if not active and all_rs else None)
        if target is not None and _replicas(target) != _replicas(d):
            self.scale_replica_set(target, _replicas(d), d,
                                   "up" if _replicas(d) > _replicas(target) else "down")
        self.cleanup_deployment(old, d)
        return self._write_status(d, self.calculate_status(all_rs, new_rs, d))

    def reconcile_new_replica_set(self, all_rs: list[dict[str, Any]], new_rs: dict[str, Any],
                                  d: dict[str, Any]) -> bool:
        """Scale the new ReplicaSet towards `replicas` as far as maxSurge allows."""
        want, have = _replicas(d), _replicas(new_rs)
        if have == want:
            return False
        if have > want:
            return self.scale_replica_set(new_rs, want, d, "down")
        return self.scale_replica_set(new_rs, self.new_rs_new_replicas(d, all_rs, new_rs),
                                      d, "up")

    def reconcile_old_replica_sets(self, all_rs: list[dict[str, Any]],
                                   old: list[dict[str, Any]], new_rs: dict[str, Any],
                                   d: dict[str, Any]) -> bool:
        """Scale old ReplicaSets down as far as maxUnavailable allows: first their
        unavailable Pods, then available ones (Go: reconcileOldReplicaSets)."""
        if sum(_replicas(rs) for rs in old) == 0:
            return False
        min_available = _replicas(d) - max_unavailable(d)
        new_unavailable = _replicas(new_rs) - _status_count(new_rs, "availableReplicas")
        max_scaled_down = sum(_replicas(rs) for rs in all_rs) - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        cleaned = 0
        for rs in _by_creation(old):  # Pods that are not available cost nothing to remove
            if cleaned >= max_scaled_down:
                break
            unhealthy = _replicas(rs) - _status_count(rs, "availableReplicas")
            if _replicas(rs) == 0 or unhealthy <= 0:
                continue
            step = min(max_scaled_down - cleaned, unhealthy)
            self.scale_replica_set(rs, _replicas(rs) - step, d, "down")
            cleaned += step
        available = sum(_status_count(rs, "availableReplicas") for rs in all_rs)
        allowed = available - min_available
        scaled = 0
        for rs in _by_creation(old):
            if scaled >= allowed:
                break
            if _replicas(rs) == 0:
                continue
            step = min(_replicas(rs), allowed - scaled)
            self.scale_replica_set(rs, _replicas(rs) - step, d, "down")
            scaled += step
        return cleaned + scaled > 0

    def new_rs_new_replicas(self, d: dict[str, Any], all_rs: list[dict[str, Any]],
                            new_rs: dict[str, Any] | None) -> int:
        """The new ReplicaSet's next size: up to `replicas`, without more than
        `replicas + maxSurge` Pods in all (Go: NewRSNewReplicas)."""
        if not _is_rolling(d):
            return _replicas(d)
        current = sum(_replicas(rs) for rs in all_rs)
        have = _replicas(new_rs) if new_rs is not None else 0
        room = _replicas(d) + max_surge(d) - current
        if room <= 0:
            return have
        return have + min(room, _replicas(d) - have)

    def scale_replica_set(self, rs: dict[str, Any], replicas: int, d: dict[str, Any],
                          direction: str) -> bool:
        """Set a ReplicaSet's replicas (and its desired/max-replicas annotations);
        whether its size changed. `rs` is updated in place with what the server says."""
        annotations = dict(meta(rs).get("annotations") or {})
        wanted = {DESIRED_REPLICAS_ANNOTATION: str(_replicas(d)),
                  MAX_REPLICAS_ANNOTATION: str(_replicas(d) + max_surge(d))}
        resize = _replicas(rs) != replicas
        if not resize and wanted.items() <= annotations.items():
            return False
        before = _replicas(rs)
        body = copy.deepcopy(rs)
        body["spec"]["replicas"] = replicas
        body["metadata"]["annotations"] = {**annotations, **wanted}
        updated = self.apps.replica_sets(meta(rs)["namespace"]).update(body)
        rs.clear()
        rs.update(updated)
        if resize:
            self._event(d, "Normal", "ScalingReplicaSet",
                        f"Scaled {direction} replica set {meta(rs)['name']} from {before} "
                        f"to {replicas}")
        return resize

    # -- revisions -----------------------------------------------------------------------------

    def get_all_replica_sets_and_sync_revision(
            self, d: dict[str, Any], rs_list: list[dict[str, Any]], create: bool,
    ) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """The new ReplicaSet (the one running the Deployment's template; made when
        `create`) and the old ones; the new one gets the next revision."""
        template = d["spec"].get("template") or {}
        matching = [rs for rs in _by_creation(rs_list)
                    if equal_ignore_hash((rs.get("spec") or {}).get("template") or {}, template)]
        new_rs = matching[0] if matching else None
        old = [rs for rs in rs_list if rs is not new_rs]
        revision = max([_revision(rs) for rs in old] or [0]) + 1
        if new_rs is not None:
            self._sync_revision(d, new_rs, revision)
        elif create:
            new_rs = self._create_new_replica_set(d, old, revision)
        else:
            return None, old
        self._set_deployment_revision(d, str(_revision(new_rs)))
        return new_rs, old

    def _sync_revision(self, d: dict[str, Any], rs: dict[str, Any], revision: int) -> None:
        """An existing new ReplicaSet (e.g. after `rollout undo`): give it the next
        revision, remember the old one, copy the Deployment's annotations."""
        annotations = dict(meta(rs).get("annotations") or {})
        wanted = self._copied_annotations(d, annotations)
        old_revision = _revision(rs)
        if old_revision < revision:
            wanted[REVISION_ANNOTATION] = str(revision)
            if old_revision > 0:
                history = [h for h in annotations.get(REVISION_HISTORY_ANNOTATION, "").split(",")
                           if h]
                wanted[REVISION_HISTORY_ANNOTATION] = ",".join([*history, str(old_revision)])
        min_ready = d["spec"].get("minReadySeconds")
        if wanted == annotations and (rs.get("spec") or {}).get("minReadySeconds") == min_ready:
            if get_condition(d["status"], "Progressing") is None:
                set_condition(d["status"], _condition(
                    "Progressing", "True", "FoundNewReplicaSet",
                    f'Found new replica set "{meta(rs)["name"]}"'))
            return
        body = copy.deepcopy(rs)
        body["metadata"]["annotations"] = wanted
        if min_ready is not None:
            body["spec"]["minReadySeconds"] = min_ready
        updated = self.apps.replica_sets(meta(rs)["namespace"]).update(body)
        rs.clear()
        rs.update(updated)

    def _create_new_replica_set(self, d: dict[str, Any], old: list[dict[str, Any]],
                                revision: int) -> dict[str, Any]:
        collisions = int(d["status"].get("collisionCount") or 0)
        template = copy.deepcopy(d["spec"].get("template") or {})
        pod_hash = compute_hash(template, collisions)
        template.setdefault("metadata", {})
        template["metadata"]["labels"] = {**(template["metadata"].get("labels") or {}),
                                          POD_TEMPLATE_HASH_LABEL: pod_hash}
        selector = copy.deepcopy(d["spec"]["selector"])
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}),
                                   POD_TEMPLATE_HASH_LABEL: pod_hash}
        annotations = self._copied_annotations(d, {})
        annotations[REVISION_ANNOTATION] = str(revision)
        annotations[DESIRED_REPLICAS_ANNOTATION] = str(_replicas(d))
        annotations[MAX_REPLICAS_ANNOTATION] = str(_replicas(d) + max_surge(d))
        replicas = self.new_rs_new_replicas(d, old, None)
        name = f"{meta(d)['name']}-{pod_hash}"
        spec: dict[str, Any] = {"replicas": replicas, "selector": selector, "template": template}
        if d["spec"].get("minReadySeconds") is not None:
            spec["minReadySeconds"] = d["spec"]["minReadySeconds"]
        body = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
            "name": name, "namespace": meta(d)["namespace"],
            "labels": dict(template["metadata"]["labels"]), "annotations": annotations,
            "ownerReferences": [new_controller_ref(d, "apps/v1", "Deployment")]},
            "spec": spec}
        client = self.apps.replica_sets(meta(d)["namespace"])
        try:
            rs = dict(client.create(body))
        except AlreadyExists:
            rs = dict(client.get(name))
            if is_controlled_by(rs, d) and equal_ignore_hash(
                    (rs.get("spec") or {}).get("template") or {}, template):
                return rs  # ours: our cache had not seen it yet
            # Another template hashed to the same name: the next sync hashes differently.
            self._write_status(d, dict(d["status"], collisionCount=collisions + 1))
            raise ControllerError(f"deployment {meta(d)['namespace']}/{meta(d)['name']}: "
                                  f"replica set {name} exists with another template (hash "
                                  f"collision); retrying with collisionCount "
                                  f"{collisions + 1}") from None
        if replicas > 0:
            self._event(d, "Normal", "ScalingReplicaSet",
                        f"Scaled up replica set {name} from 0 to {replicas}")
        set_condition(d["status"], _condition("Progressing", "True", "NewReplicaSetCreated",
                                              f'Created new replica set "{name}"'))
        self._progressed(d)
        return rs

    @staticmethod
    def _copied_annotations(d: dict[str, Any], onto: dict[str, str]) -> dict[str, str]:
        """`onto` plus the Deployment's annotations that ReplicaSets carry too (e.g.
        kubernetes.io/change-cause, which `kubectl rollout history` shows)."""
        out = dict(onto)
        for key, value in (meta(d).get("annotations") or {}).items():
            if key not in SKIPPED_ANNOTATIONS:
                out[key] = value
        return out

    def _set_deployment_revision(self, d: dict[str, Any], revision: str) -> None:
        if (meta(d).get("annotations") or {}).get(REVISION_ANNOTATION) == revision:
            return
        patched = self.apps.deployments(meta(d)["namespace"]).patch(meta(d)["name"], {
            "metadata": {"annotations": {REVISION_ANNOTATION: revision},
                         "resourceVersion": meta(d)["resourceVersion"]}})
        d["metadata"] = patched["metadata"]

    def cleanup_deployment(self, old: list[dict[str, Any]], d: dict[str, Any]) -> None:
        """Delete the oldest scaled-down ReplicaSets beyond `revisionHistoryLimit`."""
        limit = d["spec"].get("revisionHistoryLimit")
        limit = 10 if limit is None else int(limit)
        alive = [rs for rs in old if not is_being_deleted(rs)]
        for rs in sorted(alive, key=_revision)[:max(len(alive) - limit, 0)]:
            if (_replicas(rs) != 0 or _status_count(rs, "replicas") != 0
                    or meta(rs).get("generation", 1) > _status_count(rs, "observedGeneration")):
                continue
            with contextlib.suppress(NotFound, Conflict):
                self.apps.replica_sets(meta(rs)["namespace"]).delete(
                    meta(rs)["name"], preconditions={"uid": meta(rs)["uid"]})

    # -- status --------------------------------------------------------------------------------

    def calculate_status(self, all_rs: list[dict[str, Any]], new_rs: dict[str, Any] | None,
                         d: dict[str, Any]) -> dict[str, Any]:
        """The status the ReplicaSets add up to, with the Available condition."""
        all_rs = [*all_rs, *([new_rs] if new_rs is not None and new_rs not in all_rs else [])]
        available = sum(_status_count(rs, "availableReplicas") for rs in all_rs)
        status: dict[str, Any] = {"observedGeneration": meta(d).get("generation", 1)}
        counts = {
            "replicas": sum(_status_count(rs, "replicas") for rs in all_rs),
            "updatedReplicas": _status_count(new_rs, "replicas"),
            "readyReplicas": sum(_status_count(rs, "readyReplicas") for rs in all_rs),
            "availableReplicas": available,
            "unavailableReplicas": max(sum(_replicas(rs) for rs in all_rs) - available, 0)}
        status.update((k, v) for k, v in counts.items() if v)  # Go omits zero counts
        if d["status"].get("conditions"):
            status["conditions"] = copy.deepcopy(d["status"]["conditions"])
        if d["status"].get("collisionCount") is not None:
            status["collisionCount"] = d["status"]["collisionCount"]
        if available >= _replicas(d) - max_unavailable(d):
            set_condition(status, _condition("Available", "True", "MinimumReplicasAvailable",
                                             "Deployment has minimum availability."))
        else:
            set_condition(status, _condition("Available", "False",
                                             "MinimumReplicasUnavailable",
                                             "Deployment does not have minimum availability."))
        return status

    def sync_rollout_status(self, key: str, all_rs: list[dict[str, Any]],
                            new_rs: dict[str, Any] | None, d: dict[str, Any]) -> Result | None:
        """Write the status and the Progressing condition: NewReplicaSetAvailable when
        the rollout is done, ReplicaSetUpdated while it moves, ProgressDeadlineExceeded
        when it has not moved for progressDeadlineSeconds (Go: syncRolloutStatus)."""
        status = self.calculate_status(all_rs, new_rs, d)
        deadline = d["spec"].get("progressDeadlineSeconds", 600)
        current = get_condition(d["status"], "Progressing")
        name = f'ReplicaSet "{meta(new_rs)["name"]}"' if new_rs else (
            f'Deployment "{meta(d)["name"]}"')
        done = (status.get("replicas", 0) == status.get("updatedReplicas", 0)
                and current is not None and current.get("reason") == "NewReplicaSetAvailable")
        if deadline is None:
            remove_condition(status, "Progressing")
        elif not done:
            if self._complete(d, status):
                set_condition(status, _condition("Progressing", "True", "NewReplicaSetAvailable",
                                                 f"{name} has successfully progressed."))
            elif self._progressing(d, status):
                condition = _condition("Progressing", "True", "ReplicaSetUpdated",
                                       f"{name} is progressing.")
                if current is not None and current.get("status") == "True":
                    condition["lastTransitionTime"] = current.get("lastTransitionTime")
                remove_condition(status, "Progressing")
                set_condition(status, condition)
                self._progressed(d)
            elif self._timed_out(key, d, float(deadline)):
                set_condition(status, _condition("Progressing", "False",
                                                 "ProgressDeadlineExceeded",
                                                 f"{name} has timed out progressing."))
        failure = next((c for rs in all_rs for c in (rs.get("status") or {}).get(
            "conditions") or () if c.get("type") == "ReplicaFailure"
            and c.get("status") == "True"), None)
        if failure is not None:
            set_condition(status, {"type": "ReplicaFailure", "status": "True",
                                   "lastUpdateTime": now_rfc3339(),
                                   "lastTransitionTime": failure.get("lastTransitionTime"),
                                   "reason": failure.get("reason"),
                                   "message": failure.get("message")})
        else:
            remove_condition(status, "ReplicaFailure")
        written = self._write_status(d, status)
        if written is not None:
            return written
        return self._requeue_stuck(key, d, status, deadline)

    def _progressing(self, d: dict[str, Any], new: dict[str, Any]) -> bool:
        old = d["status"]

        def olds(status: dict[str, Any]) -> int:
            return int(status.get("replicas") or 0) - int(status.get("updatedReplicas") or 0)

        return any(int(new.get(f) or 0) > int(old.get(f) or 0)
                   for f in ("updatedReplicas", "readyReplicas", "availableReplicas")) \
            or olds(new) < olds(old)

    @staticmethod
    def _complete(d: dict[str, Any], status: dict[str, Any]) -> bool:
        want = _replicas(d)
        return (int(status.get("updatedReplicas") or 0) == want
                and int(status.get("replicas") or 0) == want
                and int(status.get("availableReplicas") or 0) == want
                and int(status.get("observedGeneration") or 0) >= meta(d).get("generation", 1))

    def _progressed(self, d: dict[str, Any]) -> None:
        with self._lock:
            self._progress[f"{meta(d)['namespace']}/{meta(d)['name']}"] = self.clock.now()

    def _timed_out(self, key: str, d: dict[str, Any], deadline: float) -> bool:
        current = get_condition(d["status"], "Progressing")
        if current is None or current.get("reason") == "NewReplicaSetAvailable":
            return False
        if current.get("reason") == "ProgressDeadlineExceeded":
            return True
        with self._lock:
            since = self._progress.setdefault(key, self.clock.now())
        return self.clock.now() - since > deadline

    def _requeue_stuck(self, key: str, d: dict[str, Any], status: dict[str, Any],
                       deadline: Any) -> Result | None:
        """Come back when the progress deadline would pass, in case nothing else does."""
        current = get_condition(status, "Progressing")
        if deadline is None or current is None or current.get("reason") in (
                "ProgressDeadlineExceeded", "NewReplicaSetAvailable") or self._complete(d, status):
            return None
        with self._lock:
            since = self._progress.setdefault(key, self.clock.now())
        return Result(requeue_after=max(since + float(deadline) - self.clock.now(), 0.0) + 1.0)

    def _paused_condition(self, d: dict[str, Any]) -> None:
        """Progressing is Unknown (DeploymentPaused / DeploymentResumed) around a pause."""
        if d["spec"].get("progressDeadlineSeconds", 600) is None:
            return
        current = get_condition(d["status"], "Progressing")
        if current is not None and current.get("reason") == "ProgressDeadlineExceeded":
            return
        paused_shown = current is not None and current.get("reason") == "DeploymentPaused"
        if d["spec"].get("paused") and not paused_shown:
            set_condition(d["status"], _condition("Progressing", "Unknown", "DeploymentPaused",
                                                  "Deployment is paused"))
        elif not d["spec"].get("paused") and paused_shown:
            set_condition(d["status"], _condition("Progressing", "Unknown",
                                                  "DeploymentResumed", "Deployment is resumed"))

    def _write_status(self, d: dict[str, Any], status: dict[str, Any]) -> Result | None:
        """PUT the status if it differs from what the cache holds; a Conflict means the
        cache is behind, so the key comes back once it has caught up."""
        try:
            cached = self.d_lister.deployments(meta(d)["namespace"]).get(meta(d)["name"])
        except NotFound:
            return None
        if (cached.get("status") or {}) == status:
            return None
        try:
            self.apps.deployments(meta(d)["namespace"]).update_status(dict(d, status=status))
        except NotFound:
            return None
        except Conflict:
            return retry_after_conflict()
        d["status"] = status
        return None

    # -- helpers -------------------------------------------------------------------------------

    def _old_pods_running(self, new_rs: dict[str, Any] | None,
                          old: list[dict[str, Any]]) -> bool:
        if sum(_status_count(rs, "replicas") for rs in old):
            return True
        old_uids = {meta(rs)["uid"] for rs in old} - {meta(new_rs)["uid"] if new_rs else ""}
        for pod in self.pod_lister.list():
            ref = controller_of(pod)
            if ref is not None and ref.get("uid") in old_uids and (
                    pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
                return True
        return False

    def _patch_rs(self, rs: dict[str, Any], body: dict[str, Any]) -> Any:
        return self.apps.replica_sets(meta(rs)["namespace"]).patch(meta(rs)["name"], body)

    def _event(self, obj: dict[str, Any], event_type: str, reason: str, message: str) -> None:
        record_event(self.recorder, obj, "apps/v1", "Deployment", event_type, reason, message)
