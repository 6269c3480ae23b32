"""A prototype to port: each ConfigMap is annotated with how many Pods mount it.

Pods are indexed by the ConfigMaps they mount (a custom index), and a Pod's events map
to the keys of those ConfigMaps (a custom mapping); the count is written with a merge
patch and checked again every five minutes.
"""

from __future__ import annotations

import logging
from typing import Any

from kubenb.cache import split_meta_namespace_key
from kubenb.controller import Controller, Result
from kubenb.errors import NotFound

BY_CONFIG_MAP = "by-config-map"
USED_BY = "kubenb.dev/used-by-pods"

log = logging.getLogger("configmap-usage")


def config_map_keys(pod: dict[str, Any]) -> list[str]:
    """The keys of the ConfigMaps a Pod mounts as volumes."""
    namespace = pod["metadata"].get("namespace") or ""
    return [f"{namespace}/{volume['configMap']['name']}"
            for volume in (pod.get("spec") or {}).get("volumes") or []
            if "configMap" in volume]


def by_config_map(pod: dict[str, Any]) -> list[str]:
    """Index function: a Pod under each ConfigMap key it mounts."""
    return config_map_keys(pod)


def pod_to_config_maps(obj: Any) -> list[str]:
    """Event mapping: a Pod's change concerns the ConfigMaps it mounts."""
    pod = getattr(obj, "obj", obj)  # a deleted Pod's tombstone
    return config_map_keys(pod)


def new_controller(cluster: Any) -> Controller:
    """The controller over `cluster`'s shared informers (start the factory after)."""
    clientset = cluster.clientset
    config_maps = cluster.factory.core().v1().config_maps()
    config_maps_lister = config_maps.lister()
    pods_informer = cluster.factory.core().v1().pods().informer()
    pods_informer.add_indexers({BY_CONFIG_MAP: by_config_map})

    def sync(key: str) -> Result | None:
        namespace, name = split_meta_namespace_key(key)
        try:
            cm = config_maps_lister.config_maps(namespace).get(name)
        except NotFound:
            return None
        users = pods_informer.get_indexer().by_index(BY_CONFIG_MAP, key)
        count = str(len(users))
        if (cm["metadata"].get("annotations") or {}).get(USED_BY) != count:
            patch = {"metadata": {"annotations": {USED_BY: count}}}
            clientset.core_v1().config_maps(namespace).patch(name, patch)
            log.info("ConfigMap %s is mounted by %s Pod(s)", key, count)
        return Result(requeue_after=300)

    return (Controller("configmap-usage", sync)
            .watch(config_maps.informer())
            .watch(pods_informer, enqueue=pod_to_config_maps))
