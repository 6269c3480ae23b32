"""Churn: a seeded stream of creates, updates and deletes; `seed_objects` for a quick start.

Demos and benchmarks need a cluster that moves. `Churn` writes through the server's own
Registry (in-process, no HTTP), so every operation is a normal write with a normal
watch event. The same seed gives the same operations (names, order, choices).
`seed_objects` fills a server with realistic objects fast; its pods are born bound and
Running, as if restored from a snapshot of a running cluster.

Nothing here runs pods: that is the kubelet's job, a controller of its own
(`kubenb.controllermanager.Kubelet`) that `kubenb.embedded()` and `kubenb serve`
start beside the server.
"""

from __future__ import annotations

import base64
import logging
import random
import threading
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from kubenb.clock import Clock, RealClock
from kubenb.errors import ChurnConfigError
from kubenb.nodeinfo import NODE_NAME, image_id, image_ref, node_body, node_digest
from kubenb.server import errors
from kubenb.server.encoding import now_rfc3339
from kubenb.server.patch import MERGE_PATCH
from kubenb.server.registry import Registry
from kubenb.server.resources import ResourceType

__all__ = [
    "CHURN_KINDS",
    "GENERATOR_LABEL",
    "NODE_NAME",
    "Churn",
    "ChurnConfigError",
    "ChurnOp",
    "make_object",
    "running_status",
    "seed_objects",
]

log = logging.getLogger(__name__)

CHURN_KINDS = ("configmaps", "secrets", "pods", "services", "deployments")
GENERATOR_LABEL = "churn.kubenb.io/seed"
_GROUPS = {"deployments": "apps"}
_SAFE = "bcdfghjklmnpqrstvwxz2456789"  # the apiserver's generateName alphabet
_APPS = ("web", "api", "worker", "cache", "auth", "billing", "search", "frontend")
_IMAGES = {"web": "nginx:1.27", "api": "python:3.12-slim", "worker": "python:3.12-slim",
           "cache": "redis:7.4", "auth": "ghcr.io/example/auth:2.3.1",
           "billing": "ghcr.io/example/billing:1.8.0", "search": "opensearch:2.17.0",
           "frontend": "node:22-alpine"}
_CATCH_UP_SECONDS = 1.0  # after a stall, at most this much backlog of operations is made up


@dataclass(frozen=True)
class ChurnOp:
    """One operation the generator made: what, on which object."""

    op: str  # "create" | "update" | "delete"
    resource: str
    namespace: str
    name: str


# -- realistic objects --------------------------------------------------------------------


def _token(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_SAFE) for _ in range(n))


def _container(app: str, port: int) -> dict[str, Any]:
    return {
        "name": "app", "image": _IMAGES[app],
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
        "env": [{"name": "LOG_LEVEL", "value": "info"},
                {"name": "POD_NAME", "valueFrom": {"fieldRef": {
                    "apiVersion": "v1", "fieldPath": "metadata.name"}}},
                {"name": "APP_MODE", "valueFrom": {"configMapKeyRef": {
                    "name": f"{app}-config", "key": "mode"}}}],
        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"},
                      "requests": {"cpu": "100m", "memory": "128Mi"}},
        "volumeMounts": [{"name": "config", "readOnly": True, "mountPath": f"/etc/{app}"},
                         {"name": "cache", "mountPath": f"/var/cache/{app}"}],
        "livenessProbe": {"tcpSocket": {"port": port}, "initialDelaySeconds": 15,
                          "timeoutSeconds": 1, "periodSeconds": 20, "successThreshold": 1,
                          "failureThreshold": 3},
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
                           "initialDelaySeconds": 5, "timeoutSeconds": 1, "periodSeconds": 10,
                           "successThreshold": 1, "failureThreshold": 3},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent",
    }


def _sidecar() -> dict[str, Any]:
    return {
        "name": "sidecar", "image": "busybox:1.36",
        "command": ["sh", "-c", "touch /var/run/healthy; while true; do sleep 3600; done"],
        "ports": [{"name": "metrics", "containerPort": 9090, "protocol": "TCP"}],
        "env": [{"name": "SIDECAR_MODE", "value": "log-shipper"}],
        "resources": {"limits": {"memory": "32Mi"},
                      "requests": {"cpu": "10m", "memory": "16Mi"}},
        "volumeMounts": [{"name": "cache", "mountPath": "/cache"}],
        "livenessProbe": {"exec": {"command": ["cat", "/var/run/healthy"]},
                          "timeoutSeconds": 1, "periodSeconds": 30, "successThreshold": 1,
                          "failureThreshold": 3},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent",
    }


def _pod_spec(app: str, port: int) -> dict[str, Any]:
    """A pod spec as the apiserver stores it after defaulting (2 containers, probes,
    env, volumes), like tests/fixtures/realapi/objects/pod-get-later."""
    return {
        "volumes": [{"name": "config", "configMap": {"name": f"{app}-config",
                                                     "defaultMode": 420}},
                    {"name": "cache", "emptyDir": {"sizeLimit": "64Mi"}}],
        "containers": [_container(app, port), _sidecar()],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst", "securityContext": {},
        "schedulerName": "default-scheduler",
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300}],
        "priority": 0, "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
    }


def make_object(resource: str, name: str, rng: random.Random, seed: int = 0) -> dict[str, Any]:
    """A realistic body for one of CHURN_KINDS, chosen by `rng` (so it is repeatable)."""
    app = rng.choice(_APPS)
    labels = {"app": app, "tier": "backend" if app in ("api", "worker", "cache") else "frontend",
              GENERATOR_LABEL: str(seed)}
    meta: dict[str, Any] = {"name": name, "labels": labels}
    port = rng.choice((8080, 8000, 3000, 6379, 9200))
    if resource == "configmaps":
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {
            "mode": rng.choice(("production", "staging", "canary")),
            "log_level": rng.choice(("info", "debug", "warn")),
            "app.properties": f"greeting=hello\nretries={rng.randint(1, 5)}\n",
            "revision": "1"}}
    if resource == "secrets":
        password = base64.b64encode(_token(rng, 16).encode()).decode()
        return {"apiVersion": "v1", "kind": "Secret", "metadata": meta, "type": "Opaque",
                "data": {"username": base64.b64encode(app.encode()).decode(),
                         "password": password}}
    if resource == "pods":
        meta["labels"] = dict(labels, **{"pod-template-hash": _token(rng, 9)})
        meta["annotations"] = {"prometheus.io/scrape": "true", "prometheus.io/port": "9090"}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": _pod_spec(app, port)}
    if resource == "services":
        return {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": {
            "selector": {"app": app},
            "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": port}],
            "type": "ClusterIP", "sessionAffinity": "None"}}
    if resource == "deployments":
        template_meta = {"labels": {"app": app}}
        return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {
            "replicas": rng.randint(1, 5), "selector": {"matchLabels": {"app": app}},
            "template": {"metadata": template_meta, "spec": _pod_spec(app, port)},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {
                "maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}}
    raise ChurnConfigError(f"churn/seed kind {resource!r} is not supported; choose from "
                           f"{', '.join(CHURN_KINDS)}")


def _update_patch(resource: str, rng: random.Random, revision: int) -> dict[str, Any]:
    """A merge patch that changes something a watcher can see."""
    note = {"metadata": {"annotations": {"churn.kubenb.io/revision": str(revision)}}}
    if resource == "configmaps":
        return {"data": {"revision": str(revision), "log_level": rng.choice(
            ("info", "debug", "warn"))}}
    if resource == "secrets":
        return {"data": {"password": base64.b64encode(_token(rng, 16).encode()).decode()}}
    if resource == "deployments":
        return dict(note, spec={"replicas": rng.randint(1, 5)})
    return note


def _rtype(registry: Registry, resource: str) -> ResourceType:
    if resource not in CHURN_KINDS:
        raise ChurnConfigError(f"churn/seed kind {resource!r} is not supported; choose from "
                               f"{', '.join(CHURN_KINDS)}")
    rtype = registry.types.lookup(_GROUPS.get(resource, ""), "v1", resource)
    if rtype is None:  # pragma: no cover - every CHURN_KIND is a built-in type
        raise ChurnConfigError(f"the server does not serve {resource!r}")
    return rtype


# -- what seeded pods look like: bound to a node, Running -------------------------------


def running_status(pod: dict[str, Any], host_ip: str, pod_ip: str,
                   scheduled_at: str | None = None) -> dict[str, Any]:
    """The status a kubelet reports once every container runs and is ready."""
    now = now_rfc3339()
    meta, spec = pod["metadata"], pod.get("spec") or {}

    def cond(kind: str, at: str = now) -> dict[str, Any]:
        return {"type": kind, "status": "True", "lastProbeTime": None, "lastTransitionTime": at}

    def container_status(c: dict[str, Any], init: bool) -> dict[str, Any]:
        image = image_ref(str(c.get("image") or ""))
        cid = "containerd://" + node_digest(meta.get("uid", ""), meta["name"], c.get("name", ""))
        state = ({"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": now,
                                 "finishedAt": now, "containerID": cid}}
                 if init else {"running": {"startedAt": now}})
        return {"name": c.get("name", ""), "state": state, "lastState": {},
                "ready": not init, "restartCount": 0, "image": image,
                "imageID": image_id(image),
                "containerID": cid, "started": not init}

    status: dict[str, Any] = {
        "phase": "Running",
        "conditions": [cond("PodReadyToStartContainers"), cond("Initialized"), cond("Ready"),
                       cond("ContainersReady"), cond("PodScheduled", scheduled_at or now)],
        "hostIP": host_ip, "hostIPs": [{"ip": host_ip}],
        "podIP": pod_ip, "podIPs": [{"ip": pod_ip}],
        "startTime": now,
    }
    inits = [c for c in spec.get("initContainers") or [] if isinstance(c, dict)]
    if inits:
        status["initContainerStatuses"] = [container_status(c, True) for c in inits]
    status["containerStatuses"] = [container_status(c, False) for c in
                                   spec.get("containers") or [] if isinstance(c, dict)]
    status["qosClass"] = (pod.get("status") or {}).get("qosClass", "BestEffort")
    return status


# -- the churn generator ------------------------------------------------------------------


class Churn:
    """Creates, updates and deletes objects at `rate` per second, repeatably from `seed`.

    `start()`/`stop()` run it on a `kubenb-churn` thread, paced by `clock`; `run(n)`
    makes exactly n operations now, on the caller's thread. Deletes are immediate
    (gracePeriodSeconds=0, like `kubectl delete --now`), so a churned pod never waits
    for a kubelet to stop it.
    """

    def __init__(self, registry: Registry, rate: float = 100.0,
                 kinds: Sequence[str] = ("configmaps", "pods"),
                 namespaces: Sequence[str] = ("default",), seed: int = 0,
                 max_objects: int = 200, clock: Clock | None = None,
                 journal_size: int = 10_000) -> None:
        if isinstance(kinds, str):
            kinds = (kinds,)
        if isinstance(namespaces, str):
            namespaces = (namespaces,)
        if not kinds:
            raise ChurnConfigError("churn(kinds=()): give at least one kind, e.g. ('pods',)")
        if not namespaces:
            raise ChurnConfigError("churn(namespaces=()): give at least one namespace")
        if rate < 0:
            raise ChurnConfigError(f"churn(rate={rate!r}): must be >= 0 operations/second")
        if max_objects < 1:
            raise ChurnConfigError(f"churn(max_objects={max_objects!r}): must be >= 1")
        self._registry = registry
        self._types = {k: _rtype(registry, k) for k in kinds}
        self.kinds = tuple(kinds)
        self.namespaces = tuple(namespaces)
        self.rate = float(rate)
        self.seed = seed
        self.max_objects = max_objects
        self._clock: Clock = clock or RealClock()
        self._rng = random.Random(seed)
        self._pools: dict[tuple[str, str], list[str]] = {
            (k, ns): [] for k in self.kinds for ns in self.namespaces}
        self._created = 0
        self._done = 0
        self._counts: Counter[str] = Counter()
        self.journal: deque[ChurnOp] = deque(maxlen=journal_size)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._namespaces_ready = False

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return (f"Churn({state}, rate={self.rate:g}/s, kinds={list(self.kinds)}, "
                f"seed={self.seed}, ops={self.ops})")

    # -- counters ----------------------------------------------------------------

    @property
    def ops(self) -> dict[str, int]:
        """Operations made so far: create/update/delete, and errors."""
        with self._lock:
            return {"create": self._counts["create"], "update": self._counts["update"],
                    "delete": self._counts["delete"], "errors": self._counts["errors"]}

    @property
    def running(self) -> bool:
        """Whether the background thread runs."""
        return self._thread is not None and self._thread.is_alive()

    # -- synchronous use -----------------------------------------------------------

    def run(self, n_ops: int) -> list[ChurnOp]:
        """Make exactly `n_ops` operations now (no pacing); returns them."""
        return [self.step() for _ in range(n_ops)]

    def step(self) -> ChurnOp:
        """Make one operation (the next in the seeded sequence); a refusal raises the
        `ApiError` a client would get."""
        try:
            return self._step()
        except errors.StatusError as exc:
            raise errors.as_api_error(exc) from exc

    def _step(self) -> ChurnOp:
        with self._lock:
            self._ensure_namespaces()
            rng = self._rng
            kind = rng.choice(self.kinds)
            namespace = rng.choice(self.namespaces)
            roll = rng.random()
            total = sum(len(p) for p in self._pools.values())
            pool = self._pools[(kind, namespace)]
            if not pool and total >= self.max_objects:
                kind, namespace = next(k for k, p in self._pools.items() if p)
                pool = self._pools[(kind, namespace)]
            self._done += 1
            if not pool or (total < self.max_objects and roll < 0.45):
                return self._create(kind, namespace)
            index = rng.randrange(len(pool))
            op = "update" if roll < 0.8 else "delete"
            try:
                return self._update(kind, namespace, pool, index) if op == "update" else \
                    self._delete(kind, namespace, pool, index)
            except errors.StatusError as exc:
                if exc.code != 404:
                    raise
                pool.pop(index)  # someone else deleted it: make something new instead
                return self._create(kind, namespace)

    def _ensure_namespaces(self) -> None:
        if not self._namespaces_ready:
            for namespace in self.namespaces:
                self._registry.ensure_namespace(namespace)
            self._namespaces_ready = True

    def _record(self, op: str, kind: str, namespace: str, name: str) -> ChurnOp:
        entry = ChurnOp(op, kind, namespace, name)
        self._counts[op] += 1
        self.journal.append(entry)
        return entry

    def _create(self, kind: str, namespace: str) -> ChurnOp:
        rtype = self._types[kind]
        body = make_object(kind, "", self._rng, self.seed)
        for _ in range(1000):
            self._created += 1
            name = f"churn-{rtype.singular}-{self._created:05d}"
            if self._registry.storage.get(rtype.key, namespace, name) is None:
                break
        body["metadata"]["name"] = name
        try:
            self._registry.create(rtype, namespace, body)
        except errors.StatusError as exc:
            if exc.code != 404:
                raise
            self._registry.ensure_namespace(namespace)  # deleted under us: bring it back
            self._registry.create(rtype, namespace, body)
        self._pools[(kind, namespace)].append(name)
        return self._record("create", kind, namespace, name)

    def _update(self, kind: str, namespace: str, pool: list[str], index: int) -> ChurnOp:
        name = pool[index]
        patch = _update_patch(kind, self._rng, self._done)
        self._registry.patch(self._types[kind], namespace, name, MERGE_PATCH, patch)
        return self._record("update", kind, namespace, name)

    def _delete(self, kind: str, namespace: str, pool: list[str], index: int) -> ChurnOp:
        name = pool[index]
        self._registry.delete(self._types[kind], namespace, name, {"gracePeriodSeconds": 0})
        pool.pop(index)
        return self._record("delete", kind, namespace, name)

    # -- background ----------------------------------------------------------------

    def start(self) -> Churn:
        """Run on a `kubenb-churn` thread until `stop()`; returns self."""
        with self._lock:
            if self.running:
                return self
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="kubenb-churn",
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread and join it."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        self._thread = None

    def __enter__(self) -> Churn:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def _loop(self) -> None:
        clock = self._clock
        next_op = clock.now()
        while not self._stop.is_set():
            now = clock.now()
            rate = self.rate
            if rate > 0:
                next_op = max(next_op, now - _CATCH_UP_SECONDS)
                while next_op <= now and not self._stop.is_set():
                    self._safely(self._step)
                    next_op += 1.0 / rate
            else:
                next_op = now + 1.0  # paused: look again at the rate in a second
            clock.wait_event(self._stop, max(next_op - clock.now(), 0.001))

    def _safely(self, action: Any) -> None:
        """Run one step on the thread; a failure is counted and logged, never fatal."""
        try:
            action()
        except Exception as exc:
            with self._lock:
                self._counts["errors"] += 1
                first = self._counts["errors"] == 1
            if isinstance(exc, errors.StatusError):
                log.debug("kubenb churn: operation failed: %s", exc)
            else:  # a bug: say so once, loudly, without flooding the log at `rate`/s
                log.log(logging.WARNING if first else logging.DEBUG,
                        "kubenb churn: unexpected error", exc_info=True)


def seed_objects(registry: Registry, n: int, kind: str = "pods", namespace: str = "default",
                 seed: int = 0, running: bool = True) -> list[str]:
    """Create `n` realistic objects of `kind` in `namespace` (named like a Deployment's
    pods: `web-5d7c9f8b6-x2k9p`); pods are bound and Running unless `running=False`.
    Repeatable from `seed`; returns the names."""
    if n < 0:
        raise ChurnConfigError(f"seed_objects(n={n!r}): must be >= 0")
    rtype = _rtype(registry, kind)
    registry.ensure_namespace(namespace)
    rng = random.Random(seed)
    node = _seed_node(registry) if kind == "pods" and running else None
    template_hash = {app: _token(rng, 10) for app in _APPS}  # one "ReplicaSet" per app
    names: list[str] = []
    for _ in range(n):
        body = make_object(kind, "", rng, seed)
        labels = body["metadata"]["labels"]
        app = labels["app"]
        if kind == "pods":
            labels["pod-template-hash"] = template_hash[app]
            suffix = f"{template_hash[app]}-{_token(rng, 5)}"
        else:
            suffix = _token(rng, 5)
        name = f"{app}-{suffix}"
        while registry.storage.get(rtype.key, namespace, name) is not None:
            name = f"{app}-{suffix}-{_token(rng, 3)}"
        body["metadata"]["name"] = name
        with registry.storage.lock:  # one step: nobody (a kubelet) sees it half made
            obj = registry.create(rtype, namespace, body)
            if node is not None:
                _born_running(registry, rtype, obj, node, len(names) + 1)
        names.append(name)
    return names


def _seed_node(registry: Registry) -> dict[str, Any]:
    """The node seeded pods run on: an existing schedulable one, else `kubenb-node-1`."""
    nodes = [n for n in registry.storage.list("nodes", None)[0]
             if not (n.get("spec") or {}).get("unschedulable")]
    if nodes:
        return nodes[0]
    node_type = registry.types.lookup("", "v1", "nodes")
    assert node_type is not None
    return registry.create(node_type, "", node_body())


def _born_running(registry: Registry, pods: ResourceType, pod: dict[str, Any],
                  node: dict[str, Any], n: int) -> None:
    """Bind `pod` to `node` and give it a Running status, as a snapshot of a running
    cluster would hold it (no kubelet involved)."""
    meta = pod["metadata"]
    host_ip = next((a.get("address") for a in (node.get("status") or {}).get("addresses") or []
                    if a.get("type") == "InternalIP"), "172.18.0.2")
    bound = registry.patch(pods, meta["namespace"], meta["name"], MERGE_PATCH,
                           {"spec": {"nodeName": node["metadata"]["name"]}})
    status = running_status(bound, str(host_ip), f"10.244.{1 + n // 254}.{n % 254 + 1}")
    registry.patch(pods, meta["namespace"], meta["name"], MERGE_PATCH, {"status": status},
                   subresource="status")
