"""The ServiceAccounts controller: a `default` ServiceAccount in every namespace.

kube-controller-manager's `pkg/controller/serviceaccount` (ServiceAccountsController),
small. Pods run as a ServiceAccount, `default` unless they name another, so every
namespace needs one from the moment it exists; nobody writes it by hand. The key is a
namespace's name:

* a namespace added or updated queues itself;
* a ServiceAccount this controller ensures (`default`) deleted queues its namespace,
  so it comes back at once (adds and updates of it queue the namespace too: a sync
  that finds it there does nothing);
* `sync_namespace(name)`: a namespace that is gone or not Active (Terminating) is left
  alone; otherwise each ServiceAccount missing from the cache is created, as
  `{"metadata": {"name": "default"}}` and nothing else, which is exactly what a real
  cluster holds (no token Secrets since v1.24). AlreadyExists (the cache was behind)
  and a namespace that went away meanwhile are not errors.

`wait_populated()` is what `ControllerManager.start()` waits on, so a cluster fresh
from `kubenb.embedded()` already has `default` in default, kube-system, kube-public
and kube-node-lease; a namespace created later gets it a moment later, as on a real
cluster (a test waits for it).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable
from typing import Any

from kubenb.cache.keys import DeletedFinalStateUnknown
from kubenb.cache.wait import wait_for_cache_sync
from kubenb.clock import Clock, RealClock
from kubenb.cluster import Cluster
from kubenb.controller.runner import Controller
from kubenb.controllermanager.controller_utils import CACHE_SYNC_POLL, is_being_deleted, meta
from kubenb.errors import AlreadyExists, ApiError, KubenbError, NotFound

__all__ = ["DEFAULT_SERVICE_ACCOUNTS", "FIELD_MANAGER", "ServiceAccountsController",
           "is_namespace_terminating"]

#: What every namespace gets (Go: `DefaultServiceAccountsControllerOptions`).
DEFAULT_SERVICE_ACCOUNTS: tuple[dict[str, Any], ...] = ({"metadata": {"name": "default"}},)

#: The field manager of what the namespace controllers write, as on a real cluster.
FIELD_MANAGER = "kube-controller-manager"


def is_namespace_terminating(err: ApiError) -> bool:
    """Whether a create failed because its namespace is being deleted (the apiserver's
    NamespaceLifecycle admission: a 403 whose cause has reason `NamespaceTerminating`)."""
    details = (err.body or {}).get("details") or {}
    return any(isinstance(c, dict) and c.get("reason") == "NamespaceTerminating"
               for c in details.get("causes") or ())


def namespace_is_active(namespace: dict[str, Any]) -> bool:
    """Active and not being deleted: a namespace objects may be created in."""
    phase = (namespace.get("status") or {}).get("phase") or "Active"
    return phase == "Active" and not is_being_deleted(namespace)


def namespace_of(obj: Any) -> str | None:
    """The namespace an object lives in (a tombstone unwrapped), as a workqueue key."""
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    return (meta(obj).get("namespace") or None) if isinstance(obj, dict) else None


class ServiceAccountsController:
    """kube-controller-manager's ServiceAccounts controller (see the module docstring).

    `service_accounts` are the objects every Active namespace must hold (default: one
    named `default`). `clock` drives the workqueue's retry backoff.
    """

    def __init__(self, cluster: Cluster, *, clock: Clock | None = None, workers: int = 1,
                 service_accounts: Iterable[dict[str, Any]] = DEFAULT_SERVICE_ACCOUNTS
                 ) -> None:
        self.cluster = cluster
        self.clock: Clock = clock if clock is not None else RealClock()
        self.service_accounts = tuple(copy.deepcopy(dict(sa)) for sa in service_accounts)
        names = [meta(sa).get("name") for sa in self.service_accounts]
        if not all(isinstance(n, str) and n for n in names):
            raise KubenbError("ServiceAccountsController: every ServiceAccount to ensure "
                              f"needs a metadata.name, got {names!r}")
        self._names = frozenset(str(n) for n in names)
        self.core = cluster.clientset.core_v1()
        namespaces = cluster.factory.core().v1().namespaces()
        service_accounts_ = cluster.factory.core().v1().service_accounts()
        self.ns_lister = namespaces.lister()
        self.sa_lister = service_accounts_.lister()
        self.ns_informer = namespaces.informer()
        self.sa_informer = service_accounts_.informer()
        self.controller = (
            Controller("serviceaccount", self.sync_namespace, workers=workers, clock=self.clock)
            .watch(self.ns_informer)
            .watch(self.sa_informer, namespace_of,
                   predicate=lambda sa: meta(sa).get("name") in self._names))

    def __repr__(self) -> str:
        return f"ServiceAccountsController({self.controller!r})"

    def run(self) -> ServiceAccountsController:
        """Sync in the background (after the caches have listed); returns self."""
        self.cluster.factory.start()
        self.controller.run()
        return self

    def stop(self) -> None:
        """Stop and join the workers."""
        self.controller.stop()

    def sync_namespace(self, key: str) -> None:
        """Create what `key`'s namespace lacks (Go: syncNamespace)."""
        try:
            namespace = self.ns_lister.get(key)
        except NotFound:
            return
        if not namespace_is_active(namespace):
            return  # being deleted: creating anything there is refused
        failures: list[ApiError] = []
        for sa in self.service_accounts:
            name = meta(sa)["name"]
            try:
                self.sa_lister.service_accounts(key).get(name)
                continue
            except NotFound:
                pass
            body = copy.deepcopy(sa)
            body["metadata"]["namespace"] = key
            try:
                self.core.service_accounts(key).create(body, field_manager=FIELD_MANAGER)
            except (AlreadyExists, NotFound):
                pass  # the cache was behind, or the namespace is gone
            except ApiError as err:
                if not is_namespace_terminating(err):
                    failures.append(err)
        if failures:
            raise failures[0]  # retried with backoff

    def missing(self) -> list[str]:
        """"namespace/name" of each ServiceAccount an Active namespace still lacks (by the
        caches)."""
        return [f"{meta(ns)['name']}/{name}" for ns in self.ns_lister.list()
                if namespace_is_active(ns) for name in sorted(self._names)
                if not _cached(self.sa_lister.service_accounts(meta(ns)["name"]), name)]

    def wait_populated(self, timeout: float = 60.0) -> None:
        """Return once every Active namespace in the cache has its ServiceAccounts (what
        `ControllerManager.start()` waits for); `KubenbError` after `timeout` seconds."""
        wait_populated("serviceaccount", self.ns_informer, self.missing, timeout)


def _cached(namespace_lister: Any, name: str) -> bool:
    try:
        namespace_lister.get(name)
    except NotFound:
        return False
    return True


def wait_populated(controller: str, ns_informer: Any, missing: Any, timeout: float) -> None:
    """Wait (real time) until `missing()` is empty; the message names what is still
    missing and why that may be."""
    deadline = time.monotonic() + timeout
    if not wait_for_cache_sync(None, ns_informer.has_synced, timeout=timeout,
                               poll_period=CACHE_SYNC_POLL):
        raise KubenbError(f"{controller} controller: the namespace cache did not sync in "
                          f"{timeout}s")
    while True:
        left = missing()
        if not left:
            return
        if time.monotonic() >= deadline:
            raise KubenbError(f"{controller} controller: after {timeout}s still missing "
                              f"{', '.join(left[:5])}{' ...' if len(left) > 5 else ''} "
                              "(does the server refuse the create? see the controller's log)")
        time.sleep(0.005)  # a poll: nothing signals "the cache caught up"
