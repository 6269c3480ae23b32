"""A STAND-IN for kube-controller-manager's Deployment and ReplicaSet controllers, for a
bare embedded server: not part of sample-controller, and not needed against a real
cluster (or with `kubenb.embedded()`'s own controllers). It gives each Deployment its
Pods and a status, so the Foo sample can be run and tested on a server with nothing
else; it is itself a kubenb `Controller`.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
from typing import TYPE_CHECKING, Any

from kubenb.cache.keys import split_meta_namespace_key
from kubenb.clock import Clock
from kubenb.controller.enqueue import enqueue_owner
from kubenb.controller.owners import controller_of, new_controller_ref
from kubenb.controller.runner import Controller
from kubenb.controller.samples._informers import start_and_sync
from kubenb.errors import NotFound
from kubenb.timeutil import now_rfc3339

if TYPE_CHECKING:
    from kubenb.cluster import Cluster

__all__ = ["DeploymentSimulator"]

_TEMPLATE_HASH_LABEL = "pod-template-hash"
_MAX_UNAVAILABLE = 0.25  # a Deployment's default rollingUpdate.maxUnavailable


def _template_hash(template: dict[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps(template, sort_keys=True).encode()).hexdigest()
    return digest[:10]


def _pod_available(pod: dict[str, Any]) -> bool:
    status = pod.get("status") or {}
    if status.get("phase") != "Running":
        return False
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in status.get("conditions") or ())


def _without_times(status: dict[str, Any]) -> dict[str, Any]:
    out = dict(status)
    out["conditions"] = [{k: v for k, v in c.items() if not k.endswith("Time")}
                         for c in status.get("conditions") or ()]
    return out


class DeploymentSimulator:
    """A STAND-IN for kube-controller-manager's deployment + replicaset controllers.

    Not part of sample-controller, and not needed against a real cluster. The embedded
    server has no controller manager; this gives each Deployment its Pods and a status:

    * `pods=True`: it creates `spec.replicas` Pods from the template (owned directly by
      the Deployment: no ReplicaSet in between), deletes extra ones, and deletes the Pods
      of a Deployment that is gone (the garbage collector's job). A kubelet
      (`kubenb.controllermanager.Kubelet`) binds them and reports them Running;
      the status counts Running + Ready Pods as available.
    * `pods=False`: no Pods; the status says every replica is available at once (for
      benchmarks and quick demos where Pods are beside the point).

    It writes `/status` as the real controller does: replicas, updatedReplicas,
    readyReplicas, availableReplicas, unavailableReplicas, observedGeneration and the
    Available / Progressing conditions. It is itself a kubenb `Controller`.
    """

    def __init__(self, cluster: Cluster, *, pods: bool = True, workers: int = 2,
                 clock: Clock | None = None, name: str = "deployment-simulator") -> None:
        self.cluster = cluster
        self.pods = pods
        self.clientset = cluster.clientset
        factory = cluster.factory
        deployments = factory.apps().v1().deployments()
        self.deployments_lister = deployments.lister()
        informers = [deployments.informer()]
        if pods:
            informers.append(factory.core().v1().pods().informer())
        start_and_sync(factory, informers, 30.0, "DeploymentSimulator")
        self.controller = Controller(name, self.sync_deployment, workers=workers, clock=clock)
        self.controller.watch(informers[0])
        if pods:  # a Pod starting or going away changes its Deployment's status
            self.controller.watch(informers[1], enqueue=enqueue_owner("Deployment", "apps"))

    def __repr__(self) -> str:
        m = self.controller.metrics()
        return (f"DeploymentSimulator(pods={self.pods}, running={m.running}, "
                f"reconciles={m.reconciles})")

    def run(self, workers: int | None = None) -> DeploymentSimulator:
        """Reconcile Deployments in the background; returns self."""
        self.controller.run(workers)
        return self

    def run_until_idle(self, timeout: float = 10.0, quiet: float = 0.05) -> int:
        """Reconcile until nothing is left to do now."""
        return self.controller.run_until_idle(timeout=timeout, quiet=quiet)

    def stop(self) -> None:
        """Stop and join the workers."""
        self.controller.stop()

    def sync_deployment(self, key: str) -> None:
        """Make the Deployment's Pods (pods=True) and write its status."""
        namespace, name = split_meta_namespace_key(key)
        try:
            deployment = self.deployments_lister.deployments(namespace).get(name)
        except NotFound:
            deployment = None
        pods = self._sync_pods(namespace, name, deployment) if self.pods else None
        if deployment is not None:
            self._write_status(deployment, pods)
        return None

    # -- pods ----------------------------------------------------------------------------

    def _sync_pods(self, namespace: str, name: str, deployment: dict[str, Any] | None
                   ) -> list[dict[str, Any]]:
        """The Deployment's live Pods after creating / deleting what differs. Read from
        the server, not a cache: a stand-in has no business with expectations."""
        pods_client = self.clientset.core_v1().pods(namespace)
        uid = (deployment or {}).get("metadata", {}).get("uid")
        mine: list[dict[str, Any]] = []
        for pod in pods_client.list()["items"]:
            ref = controller_of(pod)
            if ref is None or ref.get("kind") != "Deployment" or ref.get("name") != name:
                continue
            if pod["metadata"].get("deletionTimestamp"):
                continue
            if ref.get("uid") == uid:
                mine.append(pod)
            else:  # the Pod of a Deployment that is gone: garbage-collect it
                self._delete_pod(pods_client, pod)
        if deployment is None:
            return []
        want = self._replicas(deployment)
        if len(mine) < want:
            template = (deployment.get("spec") or {}).get("template") or {}
            for _ in range(want - len(mine)):
                mine.append(pods_client.create(self._new_pod(deployment, template)))
        elif len(mine) > want:
            # Not-ready ones first, then the newest: what the ReplicaSet controller prefers.
            order = sorted(mine, key=lambda p: (_pod_available(p),
                                                p["metadata"].get("creationTimestamp", ""),
                                                p["metadata"]["name"]), reverse=True)
            extra = order[want:]
            for pod in extra:
                self._delete_pod(pods_client, pod)
            mine = order[:want]
        return mine

    @staticmethod
    def _delete_pod(pods_client: Any, pod: dict[str, Any]) -> None:
        with contextlib.suppress(NotFound):  # someone else deleted it first
            pods_client.delete(pod["metadata"]["name"])

    @staticmethod
    def _replicas(deployment: dict[str, Any]) -> int:
        replicas = (deployment.get("spec") or {}).get("replicas")
        return 1 if replicas is None else int(replicas)

    @staticmethod
    def _new_pod(deployment: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
        meta = deployment["metadata"]
        pod_hash = _template_hash(template)
        labels = {**((template.get("metadata") or {}).get("labels") or {}),
                  _TEMPLATE_HASH_LABEL: pod_hash}
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"generateName": f"{meta['name']}-{pod_hash}-", "labels": labels,
                             "ownerReferences": [new_controller_ref(deployment, "apps/v1",
                                                                    "Deployment")]},
                "spec": copy.deepcopy(template.get("spec") or {})}

    # -- status --------------------------------------------------------------------------

    def _write_status(self, deployment: dict[str, Any],
                      pods: list[dict[str, Any]] | None) -> None:
        want = self._replicas(deployment)
        if pods is None:
            total = ready = want
        else:
            total, ready = len(pods), sum(1 for p in pods if _pod_available(p))
        status: dict[str, Any] = {
            "observedGeneration": deployment["metadata"].get("generation", 1),
            "replicas": total, "updatedReplicas": total}
        if ready:  # zero counts are omitted on the wire, as Go's omitempty does
            status["readyReplicas"] = ready
            status["availableReplicas"] = ready
        if total - ready > 0:
            status["unavailableReplicas"] = total - ready
        status["conditions"] = self._conditions(deployment, want, total, ready)
        current = deployment.get("status") or {}
        if _without_times(current) == _without_times(status):
            return
        fresh = copy.deepcopy(deployment)
        fresh["status"] = status
        namespace = deployment["metadata"].get("namespace") or ""
        self.clientset.apps_v1().deployments(namespace).update_status(fresh)

    @staticmethod
    def _conditions(deployment: dict[str, Any], want: int, total: int, ready: int
                    ) -> list[dict[str, Any]]:
        name = deployment["metadata"]["name"]
        minimum = want - int(want * _MAX_UNAVAILABLE)
        done = ready >= want and total == want
        wanted = [
            ("Available", "True", "MinimumReplicasAvailable",
             "Deployment has minimum availability.") if ready >= minimum else
            ("Available", "False", "MinimumReplicasUnavailable",
             "Deployment does not have minimum availability."),
            ("Progressing", "True", "NewReplicaSetAvailable" if done else "ReplicaSetUpdated",
             f'Pods of Deployment "{name}" are {"available" if done else "progressing"} '
             "(kubenb DeploymentSimulator: no ReplicaSet)."),
        ]
        old = {c.get("type"): c for c in (deployment.get("status") or {}).get("conditions") or ()}
        now = now_rfc3339()
        out = []
        for kind, status, reason, message in wanted:
            prev = old.get(kind)
            if prev is not None and (prev.get("status"), prev.get("reason"),
                                     prev.get("message")) == (status, reason, message):
                out.append(prev)
                continue
            changed = prev is None or prev.get("status") != status
            out.append({"type": kind, "status": status,
                        "lastUpdateTime": now,
                        "lastTransitionTime": (now if changed or prev is None
                                               else prev.get("lastTransitionTime", now)),
                        "reason": reason, "message": message})
        return out
