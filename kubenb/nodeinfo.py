"""What a simulated node reports: the Node a kubelet registers, and containerd's image
references and ids.

Two writers describe the same node and its containers: the simulated kubelet (a
controller that reaches the API server over HTTP) and the server's churn generator
(which seeds running pods straight into storage for demos and benchmarks). Both read
these helpers from the ground floor, so neither reaches into the other.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from kubenb.timeutil import format_time

__all__ = ["NODE_NAME", "image_id", "image_ref", "node_body", "node_digest"]

NODE_NAME = "kubenb-node-1"


def image_ref(image: str) -> str:
    """`nginx:1.27` -> `docker.io/library/nginx:1.27`, as containerd reports it."""
    first = image.split("/", 1)[0]
    if "/" not in image:
        return f"docker.io/library/{image}"
    if "." not in first and ":" not in first and first != "localhost":
        return f"docker.io/{image}"
    return image


def image_id(image: str) -> str:
    """The `imageID` a container status carries for the image reference `image`."""
    return f"{image.rsplit(':', 1)[0]}@sha256:{node_digest('image', image)}"


def node_digest(*parts: str) -> str:
    """A stable sha256 hex digest of `parts`: machine ids, container ids, image digests."""
    return hashlib.sha256("/".join(parts).encode()).hexdigest()


def node_body(name: str = NODE_NAME, internal_ip: str = "172.18.0.2") -> dict[str, Any]:
    """The Node a kubelet registers: Ready, with capacity, addresses and nodeInfo (what
    pods get bound to)."""
    now = format_time(time.time())

    def condition(kind: str, status: str, reason: str, message: str) -> dict[str, Any]:
        return {"type": kind, "status": status, "lastHeartbeatTime": now,
                "lastTransitionTime": now, "reason": reason, "message": message}

    resources = {"cpu": "8", "ephemeral-storage": "102350Mi", "memory": "32827548Ki",
                 "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux", "node-role.kubernetes.io/worker": ""}},
        "spec": {"podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"]},
        "status": {
            "capacity": resources, "allocatable": dict(resources, memory="32725148Ki"),
            "conditions": [
                condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                          "kubelet has sufficient memory available"),
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                          "kubelet has no disk pressure"),
                condition("PIDPressure", "False", "KubeletHasSufficientPID",
                          "kubelet has sufficient PID available"),
                condition("Ready", "True", "KubeletReady",
                          "kubelet is posting ready status")],
            "addresses": [{"type": "InternalIP", "address": internal_ip},
                          {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": node_digest(name)[:32],
                         "systemUUID": node_digest("uuid", name)[:32],
                         "bootID": node_digest("boot", name)[:32],
                         "kernelVersion": "6.1.0-28-amd64",
                         "osImage": "Debian GNU/Linux 12 (bookworm)",
                         "containerRuntimeVersion": "containerd://1.7.24",
                         "kubeletVersion": "v1.32.0", "kubeProxyVersion": "v1.32.0",
                         "operatingSystem": "linux", "architecture": "amd64"}}}
