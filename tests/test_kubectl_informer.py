"""Informers watching while the real kubectl changes the embedded server.

kubectl (a client nobody here wrote) creates, applies, labels, annotates, patches,
scales and deletes; the informers must end equal to what `kubectl get -o json` shows.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import kubenb
from kubenb.cache import ResourceEventHandlerFuncs
from tests.helpers import Kubectl, needs_kubectl

pytestmark = [needs_kubectl, pytest.mark.slow]  # a kubectl process per call

MANIFEST = """\
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  mode: fast
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: web, image: "nginx:1.27"}
"""


def keyed(items: list[dict[str, Any]]) -> dict[str, str]:
    return {f"{o['metadata'].get('namespace', '')}/{o['metadata']['name']}":
            o["metadata"]["resourceVersion"] for o in items}


def test_informers_end_equal_to_kubectl_get() -> None:
    # A bare server: controllers would keep writing the Deployment's status meanwhile.
    with kubenb.embedded(controllers=False) as cluster:
        kubectl = Kubectl(cluster.server.kubeconfig_path)
        configmaps = cluster.informer("configmaps")
        deployments = cluster.informer("deployments")
        seen: list[tuple[str, str]] = []
        configmaps.add_event_handler(ResourceEventHandlerFuncs(
            on_add=lambda o: seen.append(("add", o["metadata"]["name"])),
            on_update=lambda a, b: seen.append(("update", b["metadata"]["name"])),
            on_delete=lambda o: seen.append(("delete", o["metadata"]["name"]))))

        kubectl("apply", "-f", "-", stdin=MANIFEST)
        kubectl("-n", "shop", "label", "configmap", "settings", "tier=backend")
        kubectl("-n", "shop", "annotate", "configmap", "settings", "owner=team-a")
        kubectl("-n", "shop", "patch", "configmap", "settings", "--type=merge",
                "-p", '{"data":{"mode":"slow"}}')
        kubectl("-n", "shop", "create", "configmap", "extra", "--from-literal=a=1")
        kubectl("-n", "shop", "scale", "deployment", "web", "--replicas=3")
        kubectl("-n", "shop", "delete", "configmap", "extra")

        def kubectl_state(resource: str) -> dict[str, str]:
            return keyed(json.loads(kubectl("get", resource, "-A",
                                            "-o", "json").stdout)["items"])

        def cache(informer: Any) -> dict[str, str]:
            return keyed(informer.get_indexer().list())

        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if (cache(configmaps) == kubectl_state("configmaps")
                    and cache(deployments) == kubectl_state("deployments")):
                break
            time.sleep(0.05)
        assert cache(configmaps) == kubectl_state("configmaps")
        assert cache(deployments) == kubectl_state("deployments")
        settings = configmaps.get_indexer().get_by_key("shop/settings")
        assert settings["data"] == {"mode": "slow"}
        assert settings["metadata"]["labels"]["tier"] == "backend"
        assert deployments.get_indexer().get_by_key("shop/web")["spec"]["replicas"] == 3
        assert ("add", "extra") in seen and ("delete", "extra") in seen
