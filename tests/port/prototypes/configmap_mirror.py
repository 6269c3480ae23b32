"""A prototype to port: every labelled ConfigMap gets a Secret of the same name with its
data, owned by the ConfigMap, so deleting the ConfigMap deletes the Secret.

Owner-based: Secrets map to the key of the ConfigMap that controls them
(`enqueue_owner("ConfigMap")`); it runs under leader election.
"""

from __future__ import annotations

import copy
from typing import Any

from kubenb.cache import split_meta_namespace_key
from kubenb.controller import Controller, enqueue_owner
from kubenb.controller.owners import is_controlled_by, new_controller_ref
from kubenb.errors import KubenbError, NotFound

MIRROR_LABEL = "kubenb.dev/mirror"
SOURCE_VERSION = "kubenb.dev/source-version"
FIELD_MANAGER = "configmap-mirror"


class SecretTakenError(KubenbError):
    """A Secret of the ConfigMap's name exists and something else owns it."""


class ConfigMapMirror:
    """ConfigMap -> Secret, over the shared informers of a cluster's factory."""

    def __init__(self, cluster: Any) -> None:
        self.kubeclientset = cluster.clientset
        config_maps = cluster.factory.core().v1().config_maps()
        secrets = cluster.factory.core().v1().secrets()
        self.config_maps_lister = config_maps.lister()
        self.secrets_lister = secrets.lister()
        self.controller = (
            Controller("configmap-mirror", self.sync, workers=2)
            .watch(config_maps.informer())
            .watch(secrets.informer(), enqueue=enqueue_owner("ConfigMap")))

    def sync(self, key: str) -> None:
        namespace, name = split_meta_namespace_key(key)
        try:
            cm = self.config_maps_lister.config_maps(namespace).get(name)
        except NotFound:
            return None  # its Secret goes with it (garbage collection)
        if (cm["metadata"].get("labels") or {}).get(MIRROR_LABEL) != "secret":
            return None
        secrets = self.kubeclientset.core_v1().secrets(namespace)
        wanted = dict(cm.get("data") or {})
        source_version = cm["metadata"]["resourceVersion"]
        try:
            secret = self.secrets_lister.secrets(namespace).get(name)
        except NotFound:
            secret = {
                "metadata": {"name": name, "namespace": namespace,
                             "annotations": {SOURCE_VERSION: source_version},
                             "ownerReferences": [new_controller_ref(cm, "v1", "ConfigMap")]},
                "stringData": wanted,
            }
            secrets.create(secret, field_manager=FIELD_MANAGER)
            return None
        if not is_controlled_by(secret, cm):
            raise SecretTakenError(f"Secret {namespace}/{name} exists and is not ours")
        if (secret["metadata"].get("annotations") or {}).get(SOURCE_VERSION) == source_version:
            return None
        update = copy.deepcopy(secret)
        annotations = dict(update["metadata"].get("annotations") or {})
        annotations[SOURCE_VERSION] = source_version
        update["metadata"]["annotations"] = annotations
        update["stringData"] = wanted
        secrets.update(update, field_manager=FIELD_MANAGER)
        return None
