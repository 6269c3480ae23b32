"""The garbage collector: deletes what ownerReferences say belongs to something gone.

An object lists its owners in `metadata.ownerReferences` (a ReplicaSet's Pods name the
ReplicaSet, a Foo's Deployment names the Foo). How the owner is deleted decides what
happens to its dependents; `kubectl delete --cascade=...` and the DELETE's
`propagationPolicy` choose:

* Background (the default): the API server deletes the owner at once; the collector
  then sees dependents whose owners are all gone and deletes them (their own
  dependents follow the same way).
* Foreground: the API server only marks the owner (deletionTimestamp and the
  `foregroundDeletion` finalizer). The collector deletes its dependents; once none of
  those with `blockOwnerDeletion: true` is left, it removes the finalizer and the
  server deletes the owner.
* Orphan: the server marks the owner with the `orphan` finalizer. The collector removes
  the owner's ownerReference from each dependent, then the finalizer: the dependents
  stay, owned by nobody.

The collector watches resources through informers it calls *monitors*.
kube-controller-manager's watches every resource that can be listed, watched and
deleted; in Python each watch costs threads, so by default this one watches the
resources ownership is about in practice (`DEFAULT_RESOURCES`: workloads, their Pods,
config, services), every custom resource (a new CustomResourceDefinition adds a
monitor), and any other kind the moment an ownerReference names it as an owner.
`resources="*"` watches everything, as the real one does. An object whose owner is
missing from the caches is never deleted on the cache's word: the owner is looked up on
the server first (caches lag). The workqueue key is `<resource>:<namespace>/<name>`,
the one key `MONITORS_KEY` re-reads discovery.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import dataclass
from typing import Any

from kubenb.cache.keys import NAMESPACE_INDEX, DeletedFinalStateUnknown, meta_namespace_index_func
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.discovery import ResourceInfo
from kubenb.client.dynamic import ResourceClient
from kubenb.client.typed.builtin import builtin_group_versions
from kubenb.clock import Clock, RealClock
from kubenb.cluster import Cluster
from kubenb.controller.runner import Controller, Result
from kubenb.controllermanager.controller_utils import (
    ControllerError,
    is_being_deleted,
    meta,
    retry_after_conflict,
)
from kubenb.errors import Conflict, NotFound

__all__ = ["DEFAULT_RESOURCES", "FOREGROUND", "MONITORS_KEY", "ORPHAN", "GarbageCollector"]

log = logging.getLogger(__name__)

ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"
MONITORS_KEY = "(monitors)"
#: Resources the collector never watches (kube-controller-manager's default).
IGNORED = frozenset({"events", "events.events.k8s.io"})
#: The built-in resources watched by default (custom resources always are).
DEFAULT_RESOURCES = frozenset({
    "pods", "configmaps", "secrets", "services", "serviceaccounts", "persistentvolumeclaims",
    "deployments.apps", "replicasets.apps", "statefulsets.apps", "daemonsets.apps",
    "controllerrevisions.apps", "jobs.batch", "cronjobs.batch",
    "endpointslices.discovery.k8s.io", "leases.coordination.k8s.io",
    "customresourcedefinitions.apiextensions.k8s.io"})
_UID_INDEX = "kubenb.io/uid"
_OWNER_INDEX = "kubenb.io/owner-uid"


def _uid_index(obj: Any) -> list[str]:
    return [meta(obj)["uid"]] if meta(obj).get("uid") else []


def _owner_index(obj: Any) -> list[str]:
    return [r["uid"] for r in meta(obj).get("ownerReferences") or () if r.get("uid")]


def _builtin(info: ResourceInfo) -> bool:
    """A resource every kube-apiserver serves (not a custom resource)."""
    return any(info.resource == b.resource and info.kind == b.kind
               for b in builtin_group_versions().get((info.group, info.version), ()))


def _group(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


@dataclass
class _Monitor:
    """One watched resource: its informer, and how to reach it on the server."""

    info: ResourceInfo
    informer: SharedIndexInformer
    client: ResourceClient
    own: bool  # started by the collector (a custom resource), not the shared factory
    registration: Any = None

    def key(self, obj: dict[str, Any]) -> str:
        m = meta(obj)
        where = f"{m['namespace']}/{m['name']}" if m.get("namespace") else m["name"]
        return f"{self.info.group_resource}:{where}"

    def on_server(self, namespace: str) -> ResourceClient:
        return self.client.namespace(namespace) if self.info.namespaced else self.client


class _MonitorHandler:
    """A monitor's event handler: every add, update and delete goes to `_changed`."""

    def __init__(self, collector: GarbageCollector, monitor: _Monitor) -> None:
        self.collector = collector
        self.monitor = monitor

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        self.collector._changed(self.monitor, obj, gone=False)

    def on_update(self, old: Any, new: Any) -> None:
        self.collector._changed(self.monitor, new, gone=False)

    def on_delete(self, obj: Any) -> None:
        self.collector._changed(self.monitor, obj, gone=True)


class GarbageCollector:
    """kube-controller-manager's garbage collector, over kubenb's client (see the module
    docstring). `resources`: the built-in resources to watch ("*": all, as the real one;
    default `DEFAULT_RESOURCES`); `workers` objects are processed at once; `clock`
    drives the backoff."""

    def __init__(self, cluster: Cluster, *, resources: str | frozenset[str] | set[str] = (
                     DEFAULT_RESOURCES), clock: Clock | None = None, workers: int = 2) -> None:
        self.cluster = cluster
        self.resources = resources
        self._owners: set[str] = set()  # built-in resources watched because owners are
        self.clock: Clock = clock if clock is not None else RealClock()
        self._lock = threading.Lock()
        self._sync_lock = threading.Lock()
        self._first_sync = threading.Event()
        self._monitors: dict[str, _Monitor] = {}
        self._by_kind: dict[tuple[str, str], _Monitor] = {}
        self._running = False
        self.controller = Controller("garbage-collector", self.sync, workers=workers,
                                     clock=self.clock)

    def __repr__(self) -> str:
        return f"GarbageCollector(monitors={len(self._monitors)}, {self.controller!r})"

    # -- running --------------------------------------------------------------------------

    def run(self) -> GarbageCollector:
        """Start the workers and have one of them start the monitors (a discovery read
        and an informer per resource: most of a cluster's start time, and nothing a
        caller waits on); returns self. `monitored()` waits for that first sync."""
        with self._lock:
            self._running = True
        self.controller.run()
        self.controller.enqueue(MONITORS_KEY)
        return self

    def stop(self) -> None:
        """Stop the workers, remove the handlers, stop the collector's own informers."""
        with self._lock:
            self._running = False
            monitors = list(self._monitors.values())
            self._monitors.clear()
            self._by_kind.clear()
        for monitor in monitors:  # first: a handler must not queue into a stopped queue
            self._unmonitor(monitor)
        self.controller.stop()

    def has_synced(self) -> bool:
        """Whether every monitor has listed its resource once."""
        with self._lock:
            monitors = list(self._monitors.values())
        return bool(monitors) and all(m.informer.has_synced() for m in monitors)

    def monitored(self, timeout: float = 10.0) -> list[str]:
        """The resources watched now, e.g. ["configmaps", "deployments.apps", ...];
        right after `run()`, once the first sync of the monitors is done (up to
        `timeout` seconds)."""
        with self._lock:
            running = self._running
        if running:
            self._first_sync.wait(timeout)
        with self._lock:
            return sorted(self._monitors)

    # -- monitors ---------------------------------------------------------------------------

    def sync_monitors(self) -> None:
        """Watch every deletable resource discovery lists; stop watching what is gone."""
        with self._sync_lock:  # one at a time: two would start the same monitor twice
            self._sync_monitors()
        self._first_sync.set()

    def _sync_monitors(self) -> None:
        discovery = self.cluster.discovery
        discovery.invalidate()
        wanted = {i.group_resource: i for i in discovery.server_preferred_resources()
                  if {"delete", "list", "watch"} <= set(i.verbs)
                  and i.group_resource not in IGNORED and self._wanted(i)}
        with self._lock:
            if not self._running:
                return
            gone = [m for name, m in self._monitors.items() if name not in wanted]
            new = [i for name, i in wanted.items() if name not in self._monitors]
        for monitor in gone:
            with self._lock:
                self._monitors.pop(monitor.info.group_resource, None)
                self._by_kind.pop((monitor.info.group, monitor.info.kind), None)
            self._unmonitor(monitor)
        for info in new:
            monitor = self._monitor(info)
            with self._lock:
                if not self._running:
                    break
                self._monitors[info.group_resource] = monitor
                self._by_kind[(info.group, info.kind)] = monitor
            monitor.registration = monitor.informer.add_event_handler(
                _MonitorHandler(self, monitor))
            if monitor.own:
                monitor.informer.start()
            with self._lock:
                stopped = not self._running
            if stopped:  # stop() ran meanwhile and did not see this one
                self._unmonitor(monitor)
                break
        self.cluster.factory.start()

    def _wanted(self, info: ResourceInfo) -> bool:
        return (self.resources == "*" or not _builtin(info)
                or info.group_resource in self.resources or info.group_resource in self._owners)

    def _watch_owner_kind(self, ref: dict[str, Any]) -> None:
        """An ownerReference names a kind not watched yet: watch its resource from now on."""
        group, kind = _group(str(ref.get("apiVersion", ""))), str(ref.get("kind", ""))
        for info in self.cluster.discovery.server_preferred_resources():
            if (info.group, info.kind) == (group, kind):
                with self._lock:
                    self._owners.add(info.group_resource)
        self.sync_monitors()

    def _monitor(self, info: ResourceInfo) -> _Monitor:
        client = self.cluster.dynamic.resource(info.api_version, info.resource)
        builtin = _builtin(info)
        if builtin:  # shared with every other controller
            informer = self.cluster.factory.for_resource(info.api_version,
                                                         info.resource).informer()
        else:  # a custom resource: its own informer, stopped when its CRD goes
            informer = SharedIndexInformer(
                ListWatch.from_client(client), None, 0.0,
                {NAMESPACE_INDEX: meta_namespace_index_func}, clock=self.clock,
                name=f"garbage-collector-{info.group_resource}")
        with contextlib.suppress(Exception):  # already there when the collector restarts
            informer.add_indexers({_UID_INDEX: _uid_index, _OWNER_INDEX: _owner_index})
        return _Monitor(info, informer, client, own=not builtin)

    @staticmethod
    def _unmonitor(monitor: _Monitor) -> None:
        if monitor.registration is not None:
            monitor.informer.remove_event_handler(monitor.registration)
        if monitor.own:
            monitor.informer.stop()

    # -- event handlers: which keys an event concerns ----------------------------------------

    def _changed(self, monitor: _Monitor, obj: Any, gone: bool) -> None:
        if isinstance(obj, DeletedFinalStateUnknown):
            obj, gone = obj.obj, True
        if not isinstance(obj, dict):
            return
        m = meta(obj)
        if monitor.info.group_resource == "customresourcedefinitions.apiextensions.k8s.io":
            self.controller.enqueue(MONITORS_KEY)  # a resource may have come or gone
        keys = []
        finalizers = set(m.get("finalizers") or ())
        if not gone and (m.get("ownerReferences") or (
                is_being_deleted(obj) and finalizers & {ORPHAN, FOREGROUND})):
            keys.append(monitor.key(obj))
        if gone or (is_being_deleted(obj) and FOREGROUND in finalizers):
            keys += [mon.key(d) for mon, d in self._dependents(m.get("uid", ""))]
        if gone:  # an owner deleting in the foreground may have waited for this one
            for ref in m.get("ownerReferences") or ():
                found = self._cached_owner(ref)
                if found is not None and is_being_deleted(found[1]):
                    keys.append(found[0].key(found[1]))
        for key in keys:
            self.controller.enqueue(key)

    def _dependents(self, uid: str) -> list[tuple[_Monitor, dict[str, Any]]]:
        """Everything in the caches that names `uid` among its owners."""
        with self._lock:
            monitors = list(self._monitors.values())
        return [(mon, obj) for mon in monitors
                for obj in mon.informer.get_indexer().by_index(_OWNER_INDEX, uid)] if uid else []

    def _cached_owner(self, ref: dict[str, Any]) -> tuple[_Monitor, dict[str, Any]] | None:
        monitor = self._monitor_of(ref)
        if monitor is None:
            return None
        found = monitor.informer.get_indexer().by_index(_UID_INDEX, ref.get("uid", ""))
        return (monitor, found[0]) if found else None

    def _monitor_of(self, ref: dict[str, Any]) -> _Monitor | None:
        """The monitor of the resource an ownerReference's apiVersion and kind name."""
        kind = (_group(str(ref.get("apiVersion", ""))), str(ref.get("kind", "")))
        with self._lock:
            return self._by_kind.get(kind)

    # -- reconcile ------------------------------------------------------------------------------

    def sync(self, key: str) -> Result | None:
        """Look at one object: finish its foreground / orphan deletion, or delete it when
        none of its owners is left."""
        if key == MONITORS_KEY:
            self.sync_monitors()
            return None
        resource, _, where = key.partition(":")
        with self._lock:
            monitor = self._monitors.get(resource)
        obj = monitor.informer.get_indexer().get_by_key(where) if monitor else None
        if monitor is None or obj is None:
            return None  # gone: its delete event already queued its dependents
        finalizers = meta(obj).get("finalizers") or ()
        try:
            if is_being_deleted(obj):
                if ORPHAN in finalizers:
                    self.orphan_dependents(monitor, obj)
                elif FOREGROUND in finalizers:
                    self.delete_dependents_first(monitor, obj)
            elif meta(obj).get("ownerReferences"):
                self.attempt_to_delete(monitor, obj)
        except Conflict:  # written meanwhile: look again once the cache has caught up
            return retry_after_conflict()
        return None

    def attempt_to_delete(self, monitor: _Monitor, obj: dict[str, Any]) -> None:
        """Delete `obj` if no owner of it is left (an owner being deleted in the foreground
        does not count); else drop the references to owners that are gone."""
        solid, dangling, waiting = self._classify(obj)
        if solid and not dangling and not waiting:
            return  # the common case, decided from the caches alone
        m = meta(obj)
        client = monitor.on_server(m.get("namespace", ""))
        try:
            latest = client.get(m["name"])  # act on the object as it is now, not as cached
        except NotFound:
            return
        if meta(latest)["uid"] != m["uid"] or not meta(latest).get("ownerReferences"):
            return  # a new object of that name, or orphaned since it was cached: not ours
        solid, dangling, waiting = self._classify(latest)
        if solid:
            if dangling or waiting:  # keep the owners that are still there
                keep = [ref for ref in meta(latest).get("ownerReferences") or ()
                        if ref in solid]
                client.patch(m["name"], {"metadata": {
                    "ownerReferences": keep, "uid": m["uid"],
                    "resourceVersion": meta(latest)["resourceVersion"]}})
            return
        finalizers = meta(latest).get("finalizers") or ()
        if waiting and self._dependents(m["uid"]):
            policy = "Foreground"  # so the waiting owner also waits for our dependents
        elif ORPHAN in finalizers:
            policy = "Orphan"
        elif FOREGROUND in finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        log.debug("garbage collector: deleting %s (%s), its owners are gone",
                  monitor.key(latest), policy)
        with contextlib.suppress(NotFound, Conflict):  # Conflict: a new object, same name
            client.delete(m["name"], propagation_policy=policy,
                          preconditions={"uid": m["uid"]})

    def delete_dependents_first(self, monitor: _Monitor, owner: dict[str, Any]) -> None:
        """Foreground deletion: wait for the dependents that block the owner's deletion,
        then remove the `foregroundDeletion` finalizer."""
        uid = meta(owner)["uid"]
        blocking = []
        for mon, dependent in self._dependents(uid):
            ref = next(r for r in meta(dependent)["ownerReferences"] if r.get("uid") == uid)
            if ref.get("blockOwnerDeletion"):
                blocking.append(dependent)
                if not is_being_deleted(dependent):
                    self.controller.enqueue(mon.key(dependent))
        if not blocking:
            self._remove_finalizer(monitor, owner, FOREGROUND)

    def orphan_dependents(self, monitor: _Monitor, owner: dict[str, Any]) -> None:
        """Orphan deletion: remove the owner from every dependent's ownerReferences, then
        the `orphan` finalizer."""
        uid = meta(owner)["uid"]
        for mon, dependent in self._dependents(uid):
            m = meta(dependent)
            keep = [r for r in m.get("ownerReferences") or () if r.get("uid") != uid]
            with contextlib.suppress(NotFound):
                mon.on_server(m.get("namespace", "")).patch(m["name"], {"metadata": {
                    "ownerReferences": keep or None, "uid": m["uid"],
                    "resourceVersion": m["resourceVersion"]}})
        self._remove_finalizer(monitor, owner, ORPHAN)

    # -- helpers --------------------------------------------------------------------------------

    def _classify(self, obj: dict[str, Any]) -> tuple[list[Any], list[Any], list[Any]]:
        """The owner references of `obj` split into owners that exist (solid), that are
        gone (dangling) and that are being deleted in the foreground (waiting)."""
        solid, dangling, waiting = [], [], []
        for ref in meta(obj).get("ownerReferences") or ():
            owner = self._owner(ref, meta(obj).get("namespace", ""))
            if owner is None:
                dangling.append(ref)
            elif is_being_deleted(owner) and FOREGROUND in (meta(owner).get("finalizers") or ()):
                waiting.append(ref)
            else:
                solid.append(ref)
        return solid, dangling, waiting

    def _owner(self, ref: dict[str, Any], namespace: str) -> dict[str, Any] | None:
        """The owner `ref` names, from the caches, else from the server; None if gone."""
        found = self._cached_owner(ref)
        if found is not None:
            return found[1]
        monitor = self._monitor_of(ref)
        if monitor is None:  # a kind not watched yet, or served since the last look
            self._watch_owner_kind(ref)
            monitor = self._monitor_of(ref)
        if monitor is None:
            raise ControllerError(
                f"ownerReference to {ref.get('kind')} {ref.get('name')!r} (apiVersion "
                f"{ref.get('apiVersion')!r}): no served resource has that kind")
        if monitor.info.namespaced and not namespace:
            return None  # a cluster-scoped object cannot be owned by a namespaced one
        try:
            owner = monitor.on_server(namespace).get(str(ref.get("name", "")))
        except NotFound:
            return None
        return owner if meta(owner).get("uid") == ref.get("uid") else None

    @staticmethod
    def _remove_finalizer(monitor: _Monitor, obj: dict[str, Any], finalizer: str) -> None:
        m = meta(obj)
        keep = [f for f in m.get("finalizers") or () if f != finalizer]
        with contextlib.suppress(NotFound):
            monitor.on_server(m.get("namespace", "")).patch(m["name"], {"metadata": {
                "finalizers": keep or None, "uid": m["uid"],
                "resourceVersion": m["resourceVersion"]}})
