"""What kube-apiserver v1.32 adds on a write after defaulting: admission and allocation.

After the `SetDefaults_*` functions (kubenb.server.defaults) and the writer's
managedFields, a real apiserver runs its admission plugins and its REST strategy: pods
get default tolerations and a priority, a Service gets its cluster IP and node ports, a
Job a selector on its own uid, a new object its initial status. None of it is owned by
the writer, as on a real server.

- `admit_create(rtype, obj, storage)` on create only.
- `admit_update(rtype, old, new, storage)` what an update keeps from the stored object
  (allocated IPs and ports a PUT left out, admission-set pod fields), and allocation for
  what it adds.

Simplified: the ServiceAccount admission plugin is off (pods get no token volume), one
IPv4 service range (10.96.0.0/12), no LimitRanger, no ResourceQuota. Allocation is
stable: the same object gets the same address on every server, so replays and churn with
one seed stay identical.
"""

from __future__ import annotations

import copy
import hashlib
import ipaddress
from typing import Any

from kubenb.server import errors
from kubenb.server.authentication import ADMIN
from kubenb.server.defaults import dict_items, ensure_dict, qos_class
from kubenb.server.errors import cause
from kubenb.server.resources import ResourceType
from kubenb.server.storage import Obj, Storage

__all__ = [
    "ADMIN_USER",
    "KUBERNETES_SERVICE_IP",
    "SYSTEM_PRIORITY_CLASSES",
    "admit_create",
    "admit_update",
]

_SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
KUBERNETES_SERVICE_IP = "10.96.0.1"  # the first address: the `default/kubernetes` Service
_NODE_PORT_RANGE = (30000, 32767)
_DEFAULT_TOLERATIONS: tuple[dict[str, Any], ...] = tuple(
    {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"))
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2000001000,
                           "system-cluster-critical": 2000000000}

ADMIN_USER: dict[str, Any] = ADMIN.to_dict()
"""The administrator (kubenb.server.authentication.ADMIN), whom a CertificateSigningRequest
names as its requester: the registry is not told who writes (a simplification)."""

_INITIAL_STATUS: dict[tuple[str, str], dict[str, Any]] = {
    ("", "Namespace"): {"phase": "Active"},
    ("", "Service"): {"loadBalancer": {}},
    ("", "ReplicationController"): {"replicas": 0},
    ("", "PersistentVolumeClaim"): {"phase": "Pending"},
    ("", "PersistentVolume"): {"phase": "Pending"},
    ("", "ResourceQuota"): {},
    ("", "Node"): {"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}}, "nodeInfo": {
        k: "" for k in ("machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
                        "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion",
                        "operatingSystem", "architecture")}},
    ("apps", "Deployment"): {},
    ("apps", "ReplicaSet"): {"replicas": 0},
    ("apps", "StatefulSet"): {"replicas": 0, "availableReplicas": 0},
    ("apps", "DaemonSet"): {"currentNumberScheduled": 0, "numberMisscheduled": 0,
                            "desiredNumberScheduled": 0, "numberReady": 0},
    ("batch", "Job"): {},
    ("batch", "CronJob"): {},
    ("autoscaling", "HorizontalPodAutoscaler"): {"currentReplicas": 0, "desiredReplicas": 0},
    ("policy", "PodDisruptionBudget"): {"disruptionsAllowed": 0, "currentHealthy": 0,
                                        "desiredHealthy": 0, "expectedPods": 0},
    ("networking.k8s.io", "Ingress"): {"loadBalancer": {}},
    ("certificates.k8s.io", "CertificateSigningRequest"): {},
    ("apiregistration.k8s.io", "APIService"): {},
    ("storage.k8s.io", "VolumeAttachment"): {"attached": False},
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): {},
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): {},
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): {},
}


def _pod_admission(obj: Obj, storage: Storage) -> None:
    """DefaultTolerationSeconds and Priority admission, and the status a new Pod starts in."""
    spec = ensure_dict(obj, "spec")
    tolerations: list[Any] = (spec["tolerations"] if isinstance(spec.get("tolerations"), list)
                              else [])
    added = []
    for default in _DEFAULT_TOLERATIONS:
        covered = any(isinstance(t, dict) and (
            t.get("key") == default["key"] or (not t.get("key") and t.get("operator") == "Exists"))
            and t.get("effect") in ("NoExecute", None, "") for t in tolerations)
        if not covered:
            added.append(dict(default))
    if added:
        spec["tolerations"] = [*tolerations, *added]
    class_name = spec.get("priorityClassName")
    if "priority" not in spec:
        spec["priority"] = _priority_of(class_name, storage,
                                        str((obj.get("metadata") or {}).get("name") or ""))
    if "preemptionPolicy" not in spec:
        spec["preemptionPolicy"] = _preemption_of(class_name, storage)
    obj["status"] = {"phase": "Pending", "qosClass": qos_class(spec)}


def _priority_class_obj(name: Any, storage: Storage) -> Obj | None:
    if not isinstance(name, str) or not name:
        return None
    return storage.get("priorityclasses.scheduling.k8s.io", "", name)


def _priority_of(class_name: Any, storage: Storage, pod: str) -> int:
    found = _priority_class_obj(class_name, storage)
    if found is not None and isinstance(found.get("value"), int):
        return int(found["value"])
    if isinstance(class_name, str) and class_name in SYSTEM_PRIORITY_CLASSES:
        return SYSTEM_PRIORITY_CLASSES[class_name]
    if class_name:
        raise errors.StatusError(errors.status_body(
            403, "Forbidden", f'pods "{pod}" is forbidden: no PriorityClass with name '
            f"{class_name} was found", {"name": pod, "kind": "pods"}))
    return 0


def _preemption_of(class_name: Any, storage: Storage) -> str:
    found = _priority_class_obj(class_name, storage)
    if found is not None and isinstance(found.get("preemptionPolicy"), str):
        return str(found["preemptionPolicy"])
    return "PreemptLowerPriority"


def _services(storage: Storage) -> list[Obj]:
    return storage.list("services", None)[0]


def _taken_ips(storage: Storage, skip: tuple[str, str] | None = None) -> set[str]:
    taken = {KUBERNETES_SERVICE_IP}
    for svc in _services(storage):
        meta = svc.get("metadata") or {}
        if skip == (meta.get("namespace"), meta.get("name")):
            continue
        spec = svc.get("spec") or {}
        taken.update(ip for ip in spec.get("clusterIPs") or [spec.get("clusterIP")]
                     if isinstance(ip, str))
    return taken


def _taken_node_ports(storage: Storage, skip: tuple[str, str] | None = None) -> set[int]:
    taken: set[int] = set()
    for svc in _services(storage):
        meta = svc.get("metadata") or {}
        if skip == (meta.get("namespace"), meta.get("name")):
            continue
        spec = svc.get("spec") or {}
        taken.update(p["nodePort"] for p in dict_items(spec.get("ports"))
                     if isinstance(p.get("nodePort"), int))
        if isinstance(spec.get("healthCheckNodePort"), int):
            taken.add(spec["healthCheckNodePort"])
    return taken


def _spread(seed: str, size: int) -> int:
    """A stable, evenly spread offset for `seed`: the same object gets the same address on
    every server (replays and churn with one seed stay identical), different ones differ."""
    return int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big") % size


def _allocate_ip(seed: str, taken: set[str]) -> str:
    first = int(_SERVICE_CIDR.network_address) + 1
    size = _SERVICE_CIDR.num_addresses - 2
    start = _spread(seed, size)
    for step in range(size):
        ip = str(ipaddress.ip_address(first + (start + step) % size))
        if ip not in taken:
            return ip
    raise errors.internal_error("failed to allocate a serviceIP: range is full")


def _allocate_port(seed: str, taken: set[int]) -> int:
    low, high = _NODE_PORT_RANGE
    size = high - low + 1
    start = _spread(seed, size)
    for step in range(size):
        port = low + (start + step) % size
        if port not in taken:
            taken.add(port)
            return port
    raise errors.internal_error("failed to allocate a nodePort: range is full")


def _seed(obj: Obj, *more: Any) -> str:
    meta = obj.get("metadata") or {}
    return "/".join(str(p) for p in (meta.get("namespace"), meta.get("name"), *more))


def _invalid(obj: Obj, rtype: ResourceType, causes: list[dict[str, str]]) -> errors.StatusError:
    return errors.invalid(rtype.kind, str((obj.get("metadata") or {}).get("name") or ""),
                          causes, rtype.group)


def _needs_cluster_ip(spec: dict[str, Any]) -> bool:
    return spec.get("type") != "ExternalName"


def _allocate_service(rtype: ResourceType, obj: Obj, storage: Storage,
                      skip: tuple[str, str] | None = None) -> None:
    """Cluster IP (unless ExternalName or headless), IP families, node ports."""
    spec = ensure_dict(obj, "spec")
    if _needs_cluster_ip(spec):
        if spec.get("clusterIP") and not spec.get("clusterIPs"):
            spec["clusterIPs"] = [spec["clusterIP"]]
        wanted = spec.get("clusterIP")
        if wanted in (None, ""):
            ip = _allocate_ip(_seed(obj), _taken_ips(storage, skip))
            spec["clusterIP"], spec["clusterIPs"] = ip, [ip]
        elif wanted != "None":
            _check_requested_ip(rtype, obj, str(wanted), storage, skip)
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
    if spec.get("type") in ("NodePort", "LoadBalancer") and (
            spec.get("type") == "NodePort" or spec.get("allocateLoadBalancerNodePorts", True)):
        taken = _taken_node_ports(storage, skip)
        for port in dict_items(spec.get("ports")):
            if port.get("nodePort") in (None, 0):
                port["nodePort"] = _allocate_port(_seed(obj, port.get("port")), taken)
            elif port["nodePort"] in taken:
                raise _invalid(obj, rtype, [cause(
                    "FieldValueInvalid", "spec.ports[0].nodePort",
                    f"Invalid value: {port['nodePort']}: provided port is already allocated")])
        if (spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"
                and not spec.get("healthCheckNodePort")):
            spec["healthCheckNodePort"] = _allocate_port(_seed(obj, "health"), taken)


def _check_requested_ip(rtype: ResourceType, obj: Obj, ip: str, storage: Storage,
                        skip: tuple[str, str] | None) -> None:
    field = "spec.clusterIPs"
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        raise _invalid(obj, rtype, [cause(
            "FieldValueInvalid", f"{field}[0]",
            f'Invalid value: "{ip}": must be a valid IP address, (e.g. 10.9.8.7 or '
            '2001:db8::ffff)')]) from None
    if address not in _SERVICE_CIDR:
        raise _invalid(obj, rtype, [cause(
            "FieldValueInvalid", field,
            f'Invalid value: []string{{"{ip}"}}: failed to allocate IP {ip}: the provided IP '
            f"({ip}) is not in the valid range. The range of valid IPs is {_SERVICE_CIDR}")])
    if ip in _taken_ips(storage, skip) and not (
            ip == KUBERNETES_SERVICE_IP and _is_kubernetes_service(obj)):
        raise _invalid(obj, rtype, [cause(
            "FieldValueInvalid", field,
            f'Invalid value: []string{{"{ip}"}}: failed to allocate IP {ip}: provided IP is '
            "already allocated")])


def _is_kubernetes_service(obj: Obj) -> bool:
    meta = obj.get("metadata") or {}
    return (meta.get("namespace"), meta.get("name")) == ("default", "kubernetes")


def _job_selector(obj: Obj) -> None:
    """A Job without manualSelector gets a selector on its own uid, and labels to match."""
    spec = ensure_dict(obj, "spec")
    if spec.get("manualSelector"):
        return
    meta = obj.get("metadata") or {}
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    template = ensure_dict(spec, "template")
    tmeta = ensure_dict(template, "metadata")
    labels = dict(tmeta.get("labels") or {})
    labels.update({"batch.kubernetes.io/controller-uid": uid,
                   "batch.kubernetes.io/job-name": name, "controller-uid": uid,
                   "job-name": name})
    tmeta["labels"] = labels
    if not spec.get("selector"):
        spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}


def _csr(obj: Obj, user: dict[str, Any]) -> None:
    spec = ensure_dict(obj, "spec")
    spec["username"] = user.get("username", "")
    spec["groups"] = list(user.get("groups") or [])
    if user.get("uid"):
        spec["uid"] = user["uid"]


def admit_create(rtype: ResourceType, obj: Obj, storage: Storage) -> None:
    """Admission and allocation on create (after managedFields were computed)."""
    if rtype.custom:
        return
    key = (rtype.group, rtype.kind)
    if key == ("", "Pod"):
        _pod_admission(obj, storage)
    elif key == ("", "Service"):
        _allocate_service(rtype, obj, storage)
    elif key == ("batch", "Job"):
        _job_selector(obj)
    elif key == ("certificates.k8s.io", "CertificateSigningRequest"):
        _csr(obj, ADMIN_USER)
    elif key == ("", "Namespace"):  # the namespace strategy's, after managedFields
        spec = ensure_dict(obj, "spec")
        if not spec.get("finalizers"):
            spec["finalizers"] = ["kubernetes"]
    if key in _INITIAL_STATUS:
        obj["status"] = _merged_status(_INITIAL_STATUS[key], obj.get("status"), rtype)


def _merged_status(initial: dict[str, Any], given: Any, rtype: ResourceType) -> dict[str, Any]:
    """Status a create keeps: none when the type has a status subresource (the create's
    status is reset), else what was sent (nodes keep theirs) over the zero values."""
    status = copy.deepcopy(initial)
    if isinstance(given, dict) and ("status" not in rtype.subresources or rtype.key == "nodes"):
        status.update(given)
    return status


def admit_update(rtype: ResourceType, old: Obj, new: Obj, storage: Storage) -> None:
    """What an update keeps from the stored object, and allocation for what it adds."""
    if rtype.custom:
        return
    key = (rtype.group, rtype.kind)
    if key == ("", "Service"):
        _update_service(rtype, old, new, storage)
    elif key == ("", "Pod"):
        old_spec, spec = old.get("spec") or {}, ensure_dict(new, "spec")
        for field in ("priority", "preemptionPolicy", "tolerations"):
            if field in old_spec and field not in spec:
                spec[field] = old_spec[field]
    elif key == ("batch", "Job"):
        _keep_job_selector(old, new)


def _update_service(rtype: ResourceType, old: Obj, new: Obj, storage: Storage) -> None:
    old_spec, spec = old.get("spec") or {}, ensure_dict(new, "spec")
    if _needs_cluster_ip(old_spec) and _needs_cluster_ip(spec):
        for field in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
            if field in old_spec and spec.get(field) in (None, "", []):
                spec[field] = old_spec[field]
        if old_spec.get("clusterIP") and spec.get("clusterIP") != old_spec["clusterIP"]:
            raise _invalid(new, rtype, [cause(
                "FieldValueInvalid", "spec.clusterIPs[0]",
                f'Invalid value: []string{{"{spec.get("clusterIP")}"}}: may not change once '
                "set")])
    old_ports = {(p.get("port"), p.get("protocol")): p for p in dict_items(old_spec.get("ports"))}
    for port in dict_items(spec.get("ports")):
        previous = old_ports.get((port.get("port"), port.get("protocol")))
        if previous and port.get("nodePort") in (None, 0) and previous.get("nodePort"):
            port["nodePort"] = previous["nodePort"]
    if spec.get("type") not in ("NodePort", "LoadBalancer"):
        for port in dict_items(spec.get("ports")):
            if spec.get("type") == "ClusterIP":
                port.pop("nodePort", None)
    meta = new.get("metadata") or {}
    skip = (str(meta.get("namespace") or ""), str(meta.get("name") or ""))
    old_ports_taken = {p.get("nodePort") for p in dict_items(old_spec.get("ports"))}
    taken = _taken_node_ports(storage, skip)
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        for port in dict_items(spec.get("ports")):
            if port.get("nodePort") in (None, 0):
                port["nodePort"] = _allocate_port(_seed(new, port.get("port")), taken)
            elif port["nodePort"] in taken and port["nodePort"] not in old_ports_taken:
                raise _invalid(new, rtype, [cause(
                    "FieldValueInvalid", "spec.ports[0].nodePort",
                    f"Invalid value: {port['nodePort']}: provided port is already allocated")])
    if _needs_cluster_ip(spec) and not spec.get("clusterIP"):
        _allocate_service(rtype, new, storage, skip)


def _keep_job_selector(old: Obj, new: Obj) -> None:
    old_spec, spec = old.get("spec") or {}, ensure_dict(new, "spec")
    if "selector" in old_spec and not spec.get("selector"):
        spec["selector"] = old_spec["selector"]
