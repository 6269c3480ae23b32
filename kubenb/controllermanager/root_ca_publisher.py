"""The root CA publisher: a `kube-root-ca.crt` ConfigMap in every namespace.

kube-controller-manager's `pkg/controller/certificates/rootcacertpublisher`, small. A
Pod that talks to the API server from inside the cluster must know which CA to trust
for it; every namespace holds that CA bundle in the ConfigMap `kube-root-ca.crt`, key
`ca.crt` (the kube-api-access volume of every real Pod mounts it at
/var/run/secrets/kubernetes.io/serviceaccount/ca.crt). The key is a namespace's name:

* a namespace added, or updated while Active, queues itself;
* the `kube-root-ca.crt` ConfigMap changed or deleted queues its namespace;
* `sync_namespace(name)`: no ConfigMap: create it (a namespace that is gone or
  terminating is not an error); a ConfigMap whose data is not exactly
  `{"ca.crt": <the CA>}`, or without the `kubernetes.io/description` annotation:
  put both back (other annotations and labels stay). Editing it is undone at once.

What `ca.crt` holds is the CA this controller's own connection trusts for the server,
as kube-controller-manager publishes its client config's CA when no `--root-ca-file`
is given: for `kubenb.embedded(tls=True)` the server's CA (`server.ca_pem`), for
`tls=(cert, key), tls_ca=...` that CA. Over plain HTTP there is no CA: `ca.crt` is the
empty string, which is what kube-controller-manager publishes without a CA too. The
ConfigMap is still there, so whatever lists or mounts it finds it. `root_ca=` overrides.
"""

from __future__ import annotations

import copy
from typing import Any

from kubenb.clock import Clock, RealClock
from kubenb.cluster import Cluster
from kubenb.controller.runner import Controller, Result
from kubenb.controllermanager.controller_utils import meta, retry_after_conflict
from kubenb.controllermanager.serviceaccounts import (
    FIELD_MANAGER,
    is_namespace_terminating,
    namespace_is_active,
    namespace_of,
    wait_populated,
)
from kubenb.errors import AlreadyExists, ApiError, Conflict, KubenbError, NotFound

__all__ = ["DESCRIPTION", "DESCRIPTION_ANNOTATION", "ROOT_CA_CONFIGMAP", "RootCAPublisher",
           "root_ca_of"]

ROOT_CA_CONFIGMAP = "kube-root-ca.crt"
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters.")


def root_ca_of(config: Any) -> str:
    """The CA (PEM text) a client `Config` trusts for its server: its
    certificate-authority data or file; "" when it names none (plain HTTP, or the
    system's trust store)."""
    data = getattr(config, "ca_data", None)
    if data is None and getattr(config, "ca_file", None):
        try:
            with open(config.ca_file, "rb") as handle:
                data = handle.read()
        except OSError as err:
            raise KubenbError(f"root CA publisher: cannot read the CA file "
                              f"{config.ca_file}: {err.strerror or err}") from None
    if not data:
        return ""
    return data.decode("utf-8") if isinstance(data, bytes) else str(data)


def _is_wanted(obj: Any) -> bool:
    return meta(obj).get("name") == ROOT_CA_CONFIGMAP


class RootCAPublisher:
    """kube-controller-manager's root-ca-cert-publisher (see the module docstring).

    `root_ca` is the PEM to publish (bytes or text); None: the CA of the cluster's own
    client config. `clock` drives the workqueue's retry backoff.
    """

    def __init__(self, cluster: Cluster, *, clock: Clock | None = None, workers: int = 1,
                 root_ca: bytes | str | None = None) -> None:
        self.cluster = cluster
        self.clock: Clock = clock if clock is not None else RealClock()
        if root_ca is None:
            root_ca = root_ca_of(cluster.config)
        self.root_ca = root_ca.decode("utf-8") if isinstance(root_ca, bytes) else str(root_ca)
        self.core = cluster.clientset.core_v1()
        namespaces = cluster.factory.core().v1().namespaces()
        config_maps = cluster.factory.core().v1().config_maps()
        self.ns_lister = namespaces.lister()
        self.cm_lister = config_maps.lister()
        self.ns_informer = namespaces.informer()
        self.controller = (
            Controller("root-ca-cert-publisher", self.sync_namespace, workers=workers,
                       clock=self.clock)
            .watch(self.ns_informer, predicate=namespace_is_active)
            .watch(config_maps.informer(), namespace_of, predicate=_is_wanted))

    def __repr__(self) -> str:
        return f"RootCAPublisher({self.controller!r})"

    def run(self) -> RootCAPublisher:
        """Sync in the background (after the caches have listed); returns self."""
        self.cluster.factory.start()
        self.controller.run()
        return self

    def stop(self) -> None:
        """Stop and join the workers."""
        self.controller.stop()

    @property
    def data(self) -> dict[str, str]:
        """What every `kube-root-ca.crt` holds."""
        return {"ca.crt": self.root_ca}

    def sync_namespace(self, key: str) -> Result | None:
        """Create or repair `key`'s `kube-root-ca.crt` (Go: syncNamespace)."""
        try:
            cm = self.cm_lister.config_maps(key).get(ROOT_CA_CONFIGMAP)
        except NotFound:
            self._create(key)
            return None
        annotations = meta(cm).get("annotations") or {}
        if cm.get("data") == self.data and annotations.get(DESCRIPTION_ANNOTATION):
            return None
        fixed = copy.deepcopy(cm)
        fixed["data"] = self.data
        fixed.pop("binaryData", None)
        fixed["metadata"]["annotations"] = {**annotations, DESCRIPTION_ANNOTATION: DESCRIPTION}
        try:
            self.core.config_maps(key).update(fixed, field_manager=FIELD_MANAGER)
        except NotFound:
            return None  # deleted meanwhile: its delete event queues a create
        except Conflict:
            return retry_after_conflict()  # our cache is behind: look again once it caught up
        return None

    def _create(self, namespace: str) -> None:
        try:
            active = namespace_is_active(self.ns_lister.get(namespace))
        except NotFound:
            return
        if not active:
            return
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": ROOT_CA_CONFIGMAP, "namespace": namespace,
                             "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}},
                "data": self.data}
        try:
            self.core.config_maps(namespace).create(body, field_manager=FIELD_MANAGER)
        except (AlreadyExists, NotFound):
            pass  # the cache was behind (a change event follows), or the namespace is gone
        except ApiError as err:
            if not is_namespace_terminating(err):
                raise

    def missing(self) -> list[str]:
        """The Active namespaces whose `kube-root-ca.crt` is missing or differs (by the
        caches)."""
        out = []
        for ns in self.ns_lister.list():
            name = meta(ns)["name"]
            if not namespace_is_active(ns):
                continue
            try:
                cm = self.cm_lister.config_maps(name).get(ROOT_CA_CONFIGMAP)
            except NotFound:
                out.append(f"{name}/{ROOT_CA_CONFIGMAP}")
                continue
            if cm.get("data") != self.data:
                out.append(f"{name}/{ROOT_CA_CONFIGMAP}")
        return out

    def wait_populated(self, timeout: float = 60.0) -> None:
        """Return once every Active namespace in the cache has its `kube-root-ca.crt`
        (what `ControllerManager.start()` waits for); `KubenbError` after `timeout`."""
        wait_populated("root-ca-cert-publisher", self.ns_informer, self.missing, timeout)
