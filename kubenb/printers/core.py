"""The core group's printers: pods, services, nodes, events, volumes and the rest of v1.

One API group in one module; most of its length is the columns' descriptions, which
are kube-apiserver's text word for word (data, not logic).
"""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field, nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    CONTAINERS_DOC,
    IMAGES_DOC,
    NONE,
    UNKNOWN,
    Column,
    Obj,
    TablePrinter,
    as_int,
    as_str,
    containers_and_images,
    dicts,
    format_labels,
    name_column,
    object_age,
    object_name,
    spec_replicas,
    template_containers,
)
from kubenb.quantity import quantity_string
from kubenb.timeutil import age, human_duration, parse_time

__all__ = [
    "COMPONENTSTATUS_PRINTER",
    "CONFIGMAP_PRINTER",
    "ENDPOINTS_PRINTER",
    "EVENT_PRINTER",
    "NAMESPACE_PRINTER",
    "NODE_PRINTER",
    "PERSISTENTVOLUMECLAIM_PRINTER",
    "PERSISTENTVOLUME_PRINTER",
    "PODTEMPLATE_PRINTER",
    "POD_PRINTER",
    "REPLICATIONCONTROLLER_PRINTER",
    "RESOURCEQUOTA_PRINTER",
    "SECRET_PRINTER",
    "SERVICEACCOUNT_PRINTER",
    "SERVICE_PRINTER",
]

_POD_COMPLETED = {"type": "Completed", "status": "True"}


def _restartable_init(container: dict[str, Any] | None) -> bool:
    return bool(container) and container.get("restartPolicy") == "Always"  # type: ignore[union-attr]


def _terminated_reason(terminated: dict[str, Any], prefix: str = "") -> str:
    if terminated.get("reason"):
        return prefix + str(terminated["reason"])
    if terminated.get("signal"):
        return f"{prefix}Signal:{terminated['signal']}"
    return f"{prefix}ExitCode:{as_int(terminated.get('exitCode'))}"


def _condition_true(conditions: Any, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in dicts(conditions))


def _pod_cells(pod: Obj, now: float) -> list[Any]:
    spec = dict_field(pod, "spec")
    status = dict_field(pod, "status")
    containers = dicts(spec.get("containers"))
    init_specs = {as_str(c.get("name")): c for c in dicts(spec.get("initContainers"))}
    total = len(containers) + sum(1 for c in init_specs.values() if _restartable_init(c))
    ready = 0
    restarts = 0
    sidecar_restarts = 0
    last_restart = 0.0
    sidecar_last_restart = 0.0
    phase = as_str(status.get("phase"))
    reason = as_str(status.get("reason")) or phase
    for cond in dicts(status.get("conditions")):
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    def finished(cs: dict[str, Any]) -> float:
        return parse_time(nested_field(cs, "lastState", "terminated", "finishedAt")) or 0.0

    initializing = False
    init_statuses = dicts(status.get("initContainerStatuses"))
    for index, cs in enumerate(init_statuses):
        restarts += as_int(cs.get("restartCount"))
        last_restart = max(last_restart, finished(cs))
        sidecar = _restartable_init(init_specs.get(as_str(cs.get("name"))))
        if sidecar:
            sidecar_restarts += as_int(cs.get("restartCount"))
            sidecar_last_restart = max(sidecar_last_restart, finished(cs))
        state = dict_field(cs, "state")
        terminated = state.get("terminated") if isinstance(state.get("terminated"), dict) else None
        waiting = state.get("waiting") if isinstance(state.get("waiting"), dict) else None
        if terminated is not None and as_int(terminated.get("exitCode")) == 0:
            continue
        if sidecar and cs.get("started") is True:
            if cs.get("ready"):
                ready += 1
            continue
        if terminated is not None:
            reason = _terminated_reason(terminated, "Init:")
        elif waiting is not None and waiting.get("reason") and waiting.get(
                "reason") != "PodInitializing":
            reason = "Init:" + str(waiting["reason"])
        else:
            reason = f"Init:{index}/{len(init_specs)}"
        initializing = True
        break
    if not initializing or _condition_true(status.get("conditions"), "Initialized"):
        restarts = sidecar_restarts
        last_restart = sidecar_last_restart
        has_running = False
        for cs in reversed(dicts(status.get("containerStatuses"))):
            restarts += as_int(cs.get("restartCount"))
            last_restart = max(last_restart, finished(cs))
            state = dict_field(cs, "state")
            waiting = state.get("waiting") if isinstance(state.get("waiting"), dict) else None
            terminated = state.get("terminated") if isinstance(
                state.get("terminated"), dict) else None
            if waiting is not None and waiting.get("reason"):
                reason = str(waiting["reason"])
            elif terminated is not None:
                reason = _terminated_reason(terminated)
            elif cs.get("ready") and isinstance(state.get("running"), dict):
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            reason = "Running" if _condition_true(status.get("conditions"), "Ready") else (
                "NotReady")
    if nested_field(pod, "metadata", "deletionTimestamp"):
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in ("Succeeded", "Failed"):
            reason = "Terminating"
    restarts_text = str(restarts)
    if restarts and last_restart:
        restarts_text = f"{restarts} ({human_duration(now - last_restart)} ago)"
    pod_ips = dicts(status.get("podIPs"))
    pod_ip = as_str(pod_ips[0].get("ip")) if pod_ips else ""
    gates = dicts(spec.get("readinessGates"))
    gates_text = NONE
    if gates:
        conditions = {c.get("type"): c.get("status") for c in dicts(status.get("conditions"))}
        true = sum(1 for g in gates if conditions.get(g.get("conditionType")) == "True")
        gates_text = f"{true}/{len(gates)}"
    return [object_name(pod), f"{ready}/{total}", reason, restarts_text, object_age(pod, now),
            pod_ip or NONE, as_str(spec.get("nodeName")) or NONE,
            as_str(status.get("nominatedNodeName")) or NONE, gates_text]


def _pod_conditions(pod: Obj) -> list[dict[str, str]]:
    phase = nested_field(pod, "status", "phase")
    if phase == "Succeeded":
        return [dict(_POD_COMPLETED, reason="Succeeded",
                     message="The pod has completed successfully.")]
    if phase == "Failed":
        return [dict(_POD_COMPLETED, reason="Failed", message="The pod failed.")]
    return []


POD_PRINTER = TablePrinter((
    name_column(),
    Column("Ready", description="The aggregate readiness state of this pod for accepting "
                                "traffic."),
    Column("Status", description="The aggregate status of the containers in this pod."),
    Column("Restarts", description="The number of times the containers in this pod have been "
                                   "restarted and when the last container in this pod has "
                                   "restarted."),
    AGE_COLUMN,
    Column("IP", priority=1, description="podIP address allocated to the pod. Routable at least "
                                         "within the cluster. Empty if not yet allocated."),
    Column("Node", priority=1, description=(
        "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
        "candidate for scheduling by the scheduler defined in schedulerName. Once this field is "
        "set, the kubelet for this node becomes responsible for the lifecycle of this pod. This "
        "field should not be used to express a desire for the pod to be scheduled on a specific "
        "node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/"
        "#nodename")),
    Column("Nominated Node", priority=1, description=(
        "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
        "cannot be scheduled right away as preemption victims receive their graceful "
        "termination periods. This field does not guarantee that the pod will be scheduled on "
        "this node. Scheduler may decide to place the pod elsewhere if other nodes become "
        "available sooner. Scheduler may also decide to give the resources on this node to a "
        "higher priority pod that is created after preemption. As a result, this field may be "
        "different than PodSpec.nodeName when the pod is scheduled.")),
    Column("Readiness Gates", priority=1, description=(
        "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready "
        "when all its containers are ready AND all conditions specified in the readiness gates "
        "have status equal to \"True\" More info: "
        "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates")),
), _pod_cells, _pod_conditions)

NAMESPACE_PRINTER = TablePrinter(
    (name_column(), Column("Status", description="The status of the namespace"), AGE_COLUMN),
    lambda o, now: [object_name(o), as_str(nested_field(o, "status", "phase")), object_age(o, now)])

CONFIGMAP_PRINTER = TablePrinter((
    name_column(),
    Column("Data", description=(
        "Data contains the configuration data. Each key must consist of alphanumeric "
        "characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the "
        "BinaryData field. The keys stored in Data must not overlap with the keys in the "
        "BinaryData field, this is enforced during validation process.")),
    AGE_COLUMN,
), lambda o, now: [object_name(o), len(o.get("data") or {}) + len(o.get("binaryData") or {}),
                   object_age(o, now)])

SECRET_PRINTER = TablePrinter((
    name_column(),
    Column("Type", description="Used to facilitate programmatic handling of secret data. More "
                               "info: https://kubernetes.io/docs/concepts/configuration/secret/"
                               "#secret-types"),
    Column("Data", description=(
        "Data contains the secret data. Each key must consist of alphanumeric characters, '-', "
        "'_' or '.'. The serialized form of the secret data is a base64 encoded string, "
        "representing the arbitrary (possibly non-string) data value here. Described in "
        "https://tools.ietf.org/html/rfc4648#section-4")),
    AGE_COLUMN,
), lambda o, now: [object_name(o), as_str(o.get("type")), len(o.get("data") or {}),
                   object_age(o, now)])

SERVICEACCOUNT_PRINTER = TablePrinter((
    name_column(),
    Column("Secrets", description=(
        "Secrets is a list of the secrets in the same namespace that pods running using this "
        "ServiceAccount are allowed to use. More info: "
        "https://kubernetes.io/docs/concepts/configuration/secret")),
    AGE_COLUMN,
), lambda o, now: [object_name(o), len(dicts(o.get("secrets"))), object_age(o, now)])


def _service_external_ip(svc: Obj) -> str:
    spec = dict_field(svc, "spec")
    external = [str(ip) for ip in spec.get("externalIPs") or []]
    kind = spec.get("type") or "ClusterIP"
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else NONE
    if kind == "LoadBalancer":
        ingress = dicts(nested_field(svc, "status", "loadBalancer", "ingress"))
        lb = sorted({as_str(i.get("ip")) or as_str(i.get("hostname")) for i in ingress} - {""})
        if external:
            return ",".join(lb + external)
        return ",".join(lb) if lb else "<pending>"
    if kind == "ExternalName":
        return as_str(spec.get("externalName"))
    return UNKNOWN


def _service_ports(svc: Obj) -> str:
    pieces = []
    for port in dicts(nested_field(svc, "spec", "ports")):
        protocol = port.get("protocol") or "TCP"
        if as_int(port.get("nodePort")) > 0:
            pieces.append(f"{as_int(port.get('port'))}:{as_int(port.get('nodePort'))}/{protocol}")
        else:
            pieces.append(f"{as_int(port.get('port'))}/{protocol}")
    return ",".join(pieces) or NONE


def _service_cells(svc: Obj, now: float) -> list[Any]:
    spec = dict_field(svc, "spec")
    cluster_ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
    return [object_name(svc), as_str(spec.get("type")) or "ClusterIP",
            str(cluster_ips[0]) if cluster_ips else NONE, _service_external_ip(svc),
            _service_ports(svc), object_age(svc, now), format_labels(spec.get("selector"))]


SERVICE_PRINTER = TablePrinter((
    name_column(),
    Column("Type", description=(
        "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are "
        "ExternalName, ClusterIP, NodePort, and LoadBalancer.")),
    Column("Cluster-IP", description=(
        "clusterIP is the IP address of the service and is usually assigned randomly.")),
    Column("External-IP", description=(
        "externalIPs is a list of IP addresses for which nodes in the cluster will also accept "
        "traffic for this service.  These IPs are not managed by Kubernetes.")),
    Column("Port(s)", description=(
        "The list of ports that are exposed by this service. More info: "
        "https://kubernetes.io/docs/concepts/services-networking/service/"
        "#virtual-ips-and-service-proxies")),
    AGE_COLUMN,
    Column("Selector", priority=1, description=(
        "Route service traffic to pods with label keys and values matching this selector. If "
        "empty or not present, the service is assumed to have an external process managing "
        "its endpoints, which Kubernetes will not modify.")),
), _service_cells)


def _event_source(event: Obj) -> str:
    component = (as_str(nested_field(event, "source", "component"))
                 or as_str(event.get("reportingComponent")))
    host = as_str(nested_field(event, "source", "host")) or as_str(event.get("reportingInstance"))
    return f"{component}, {host}" if host else component


def _event_cells(event: Obj, now: float) -> list[Any]:
    first = age(event.get("firstTimestamp"), now) if parse_time(
        event.get("firstTimestamp")) is not None else age(event.get("eventTime"), now)
    last = age(event.get("lastTimestamp"), now) if parse_time(
        event.get("lastTimestamp")) is not None else first
    count = as_int(event.get("count"))
    series = event.get("series")
    if isinstance(series, dict):
        last = age(series.get("lastObservedTime"), now)
        count = as_int(series.get("count"))
    elif count == 0:
        count = 1  # singleton events have no count in the new API
    involved = dict_field(event, "involvedObject")
    kind = as_str(involved.get("kind")).lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    return [last, as_str(event.get("type")), as_str(event.get("reason")), target,
            as_str(involved.get("fieldPath")), _event_source(event),
            as_str(event.get("message")).strip(), first, count, object_name(event)]


EVENT_PRINTER = TablePrinter((
    Column("Last Seen", description="The time at which the most recent occurrence of this "
                                    "event was recorded."),
    Column("Type", description="Type of this event (Normal, Warning), new types could be "
                               "added in the future"),
    Column("Reason", description="This should be a short, machine understandable string that "
                                 "gives the reason for the transition into the object's "
                                 "current status."),
    Column("Object", description="The object that this event is about."),
    Column("Subobject", priority=1, description=(
        "If referring to a piece of an object instead of an entire object, this string should "
        "contain a valid JSON/Go field access statement, such as "
        "desiredState.manifest.containers[2]. For example, if the object reference is to a "
        "container within a pod, this would take on a value like: \"spec.containers{name}\" "
        "(where \"name\" refers to the name of the container that triggered the event) or if "
        "no container name is specified \"spec.containers[2]\" (container with index 2 in this "
        "pod). This syntax is chosen only to have some well-defined way of referencing a part "
        "of an object.")),
    Column("Source", priority=1, description="The component reporting this event. Should be a "
                                             "short machine understandable string."),
    Column("Message", description="A human-readable description of the status of this "
                                  "operation."),
    Column("First Seen", priority=1, description="The time at which the event was first "
                                                 "recorded. (Time of server receipt is in "
                                                 "TypeMeta.)"),
    Column("Count", priority=1, description="The number of times this event has occurred."),
    name_column(priority=1),
), _event_cells)

_ADDRESSES_DOC = (
    "List of addresses reachable to the node. Queried from cloud provider, if available. More "
    "info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is "
    "declared as mergeable, but the merge key is not sufficiently unique, which can cause data "
    "corruption when it is merged. Callers should instead use a full-replacement patch. See "
    "https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change "
    "during the lifetime of a Node. However, there are some exceptions where this may not be "
    "possible, such as Pods that inherit a Node's address in its own status or consumers of the "
    "downward API (status.hostIP)."
)


def _node_address(node: Obj, kind: str) -> str:
    for address in dicts(nested_field(node, "status", "addresses")):
        if address.get("type") == kind:
            return as_str(address.get("address"))
    return NONE


def _node_cells(node: Obj, now: float) -> list[Any]:
    status: list[str] = []
    for cond in dicts(nested_field(node, "status", "conditions")):
        if cond.get("type") == "Ready":
            status = ["Ready" if cond.get("status") == "True" else "NotReady"]
    if not status:
        status = ["Unknown"]
    if nested_field(node, "spec", "unschedulable"):
        status.append("SchedulingDisabled")
    roles = set()
    for key, value in (nested_field(node, "metadata", "labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/") and key[len("node-role.kubernetes.io/"):]:
            roles.add(key[len("node-role.kubernetes.io/"):])
        elif key == "kubernetes.io/role" and value:
            roles.add(str(value))
    info = nested_field(node, "status", "nodeInfo") or {}
    return [object_name(node), ",".join(status), ",".join(sorted(roles)) or NONE,
            object_age(node, now), as_str(info.get("kubeletVersion")),
            _node_address(node, "InternalIP"),
            _node_address(node, "ExternalIP"), as_str(info.get("osImage")) or UNKNOWN,
            as_str(info.get("kernelVersion")) or UNKNOWN,
            as_str(info.get("containerRuntimeVersion")) or UNKNOWN]


NODE_PRINTER = TablePrinter((
    name_column(),
    Column("Status", description="The status of the node"),
    Column("Roles", description="The roles of the node"),
    AGE_COLUMN,
    Column("Version", description="Kubelet Version reported by the node."),
    Column("Internal-IP", priority=1, description=_ADDRESSES_DOC),
    Column("External-IP", priority=1, description=_ADDRESSES_DOC),
    Column("OS-Image", priority=1, description="OS Image reported by the node from "
                                               "/etc/os-release (e.g. Debian GNU/Linux 7 "
                                               "(wheezy))."),
    Column("Kernel-Version", priority=1, description="Kernel Version reported by the node from "
                                                     "'uname -r' (e.g. "
                                                     "3.16.0-0.bpo.4-amd64)."),
    Column("Container-Runtime", priority=1, description="ContainerRuntime Version reported by "
                                                        "the node through runtime remote API "
                                                        "(e.g. containerd://1.4.2)."),
), _node_cells)


def _replication_controller_cells(rc: Obj, now: float) -> list[Any]:
    status = dict_field(rc, "status")
    names, images = containers_and_images(template_containers(rc))
    return [object_name(rc), spec_replicas(rc), as_int(status.get("replicas")),
            as_int(status.get("readyReplicas")), object_age(rc, now), names, images,
            format_labels(nested_field(rc, "spec", "selector"))]


REPLICATIONCONTROLLER_PRINTER = TablePrinter((
    name_column(),
    Column("Desired", "integer", description=(
        "Replicas is the number of desired replicas. This is a pointer to distinguish between "
        "explicit zero and unspecified. Defaults to 1. More info: "
        "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller"
        "#what-is-a-replicationcontroller")),
    Column("Current", "integer", description=(
        "Replicas is the most recently observed number of replicas. More info: "
        "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller"
        "#what-is-a-replicationcontroller")),
    Column("Ready", "integer", description=(
        "The number of ready replicas for this replication controller.")),
    AGE_COLUMN,
    Column("Containers", priority=1, description=CONTAINERS_DOC),
    Column("Images", priority=1, description=IMAGES_DOC),
    Column("Selector", priority=1, description=(
        "Selector is a label query over pods that should match the Replicas count. If Selector "
        "is empty, it is defaulted to the labels present on the Pod template. Label keys and "
        "values that must match in order to be controlled by this replication controller, if "
        "empty defaulted to labels on Pod template. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
        "#label-selectors")),
), _replication_controller_cells)


def _endpoints_text(endpoints: Obj) -> str:
    """Go's formatEndpoints: up to three ip:port, then "+ N more..."."""
    subsets = dicts(endpoints.get("subsets"))
    if not subsets:
        return NONE
    shown: list[str] = []
    count = 0
    for subset in subsets:
        addresses = [as_str(a.get("ip")) for a in dicts(subset.get("addresses"))]
        ports = dicts(subset.get("ports"))
        if not ports:  # a headless service without ports
            count += len(addresses)
            shown.extend(addresses[:max(3 - len(shown), 0)])
            continue
        for port in ports:
            count += len(addresses)
            for ip in addresses:
                if len(shown) < 3:
                    host = f"[{ip}]" if ":" in ip else ip
                    shown.append(f"{host}:{as_int(port.get('port'))}")
    text = ",".join(shown)
    return f"{text} + {count - 3} more..." if count > 3 else text


ENDPOINTS_PRINTER = TablePrinter((
    name_column(),
    Column("Endpoints", description=(
        "The set of all endpoints is the union of all subsets. Addresses are placed into "
        "subsets according to the IPs they share. A single address with multiple ports, some "
        "of which are ready and some of which are not (because they come from different "
        "containers) will result in the address being displayed in different subsets for the "
        "different ports. No address will appear in both Addresses and NotReadyAddresses in "
        "the same subset. Sets of addresses and ports that comprise a service.")),
    AGE_COLUMN,
), lambda o, now: [object_name(o), _endpoints_text(o), object_age(o, now)])


def _access_modes(modes: Any) -> str:
    """Go's GetAccessModesAsString: RWO,ROX,RWX,RWOP in that order, each once."""
    present = set(modes) if isinstance(modes, list) else set()
    names = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
             ("ReadWriteOncePod", "RWOP"))
    return ",".join(short for mode, short in names if mode in present)


_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"


def _storage_class_of(obj: Obj, spec_value: Any) -> str:
    annotations = nested_field(obj, "metadata", "annotations")
    if isinstance(annotations, dict) and _BETA_STORAGE_CLASS in annotations:
        return as_str(annotations[_BETA_STORAGE_CLASS])
    return as_str(spec_value)


def _pv_cells(pv: Obj, now: float) -> list[Any]:
    spec = dict_field(pv, "spec")
    claim = spec.get("claimRef")
    claim_text = (f"{as_str(claim.get('namespace'))}/{as_str(claim.get('name'))}"
                  if isinstance(claim, dict) else "")
    phase = "Terminating" if nested_field(pv, "metadata", "deletionTimestamp") else as_str(
        nested_field(pv, "status", "phase"))
    vac = spec.get("volumeAttributesClassName")
    return [object_name(pv), quantity_string(nested_field(spec, "capacity", "storage") or "0"),
            _access_modes(spec.get("accessModes")),
            as_str(spec.get("persistentVolumeReclaimPolicy")), phase, claim_text,
            _storage_class_of(pv, spec.get("storageClassName")),
            "<unset>" if vac is None else as_str(vac), as_str(nested_field(pv, "status", "reason")),
            object_age(pv, now), as_str(spec.get("volumeMode")) or "<unset>"]


PERSISTENTVOLUME_PRINTER = TablePrinter((
    name_column(),
    Column("Capacity", description=(
        "capacity is the description of the persistent volume's resources and capacity. More "
        "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity")),
    Column("Access Modes", description=(
        "accessModes contains all ways the volume can be mounted. More info: "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes")),
    Column("Reclaim Policy", description=(
        "persistentVolumeReclaimPolicy defines what happens to a persistent volume when "
        "released from its claim. Valid options are Retain (default for manually created "
        "PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), "
        "and Recycle (deprecated). Recycle must be supported by the volume plugin underlying "
        "this PersistentVolume. More info: "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming")),
    Column("Status", description=(
        "phase indicates if a volume is available, bound to a claim, or released by a claim. "
        "More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase")),
    Column("Claim", description=(
        "claimRef is part of a bi-directional binding between PersistentVolume and "
        "PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the "
        "authoritative bind between PV and PVC. More info: "
        "https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding")),
    Column("StorageClass", description="StorageClass of the pv"),
    Column("VolumeAttributesClass", description="VolumeAttributesClass of the pv"),
    Column("Reason", description=(
        "reason is a brief CamelCase string that describes any failure and is meant for "
        "machine parsing and tidy display in the CLI.")),
    AGE_COLUMN,
    Column("VolumeMode", priority=1, description=(
        "volumeMode defines if a volume is intended to be used with a formatted filesystem or "
        "to remain in raw block state. Value of Filesystem is implied when not included in "
        "spec.")),
), _pv_cells)


def _pvc_cells(pvc: Obj, now: float) -> list[Any]:
    spec = dict_field(pvc, "spec")
    status = dict_field(pvc, "status")
    phase = "Terminating" if nested_field(pvc, "metadata", "deletionTimestamp") else as_str(
        status.get("phase"))
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = _access_modes(status.get("accessModes"))
        capacity = quantity_string(nested_field(status, "capacity", "storage") or "0")
    vac = spec.get("volumeAttributesClassName")
    return [object_name(pvc), phase, as_str(spec.get("volumeName")), capacity, modes,
            _storage_class_of(pvc, spec.get("storageClassName")),
            "<unset>" if vac is None else as_str(vac), object_age(pvc, now),
            as_str(spec.get("volumeMode")) or "<unset>"]


PERSISTENTVOLUMECLAIM_PRINTER = TablePrinter((
    name_column(),
    Column("Status", description=(
        "phase represents the current phase of PersistentVolumeClaim.")),
    Column("Volume", description=(
        "volumeName is the binding reference to the PersistentVolume backing this claim.")),
    Column("Capacity", description=(
        "capacity represents the actual resources of the underlying volume.")),
    Column("Access Modes", description=(
        "accessModes contains the actual access modes the volume backing the PVC has. More "
        "info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1")),
    Column("StorageClass", description="StorageClass of the pvc"),
    Column("VolumeAttributesClass", description="VolumeAttributesClass of the pvc"),
    AGE_COLUMN,
    Column("VolumeMode", priority=1, description=(
        "volumeMode defines what type of volume is required by the claim. Value of Filesystem "
        "is implied when not included in claim spec.")),
), _pvc_cells)


def _resource_quota_cells(quota: Obj, now: float) -> list[Any]:
    status = dict_field(quota, "status")
    hard = dict_field(status, "hard")
    used = dict_field(status, "used")
    requests: list[str] = []
    limits: list[str] = []
    for resource in sorted(hard):
        pieces = str(resource).split(".")
        column = limits if len(pieces) > 1 and pieces[0] == "limits" else requests
        column.append(f"{resource}: {quantity_string(used.get(resource) or '0')}/"
                      f"{quantity_string(hard[resource])}")
    return [object_name(quota), object_age(quota, now), ", ".join(requests), ", ".join(limits)]


RESOURCEQUOTA_PRINTER = TablePrinter((
    name_column(),
    AGE_COLUMN,
    Column("Request", description=(
        "Request represents a minimum amount of cpu/memory that a container may consume.")),
    Column("Limit", description=(
        "Limits control the maximum amount of cpu/memory that a container may use independent "
        "of contention on the node.")),
), _resource_quota_cells)


def _pod_template_cells(template: Obj, now: float) -> list[Any]:
    names, images = containers_and_images(nested_field(template, "template", "spec", "containers"))
    return [object_name(template), names, images,
            format_labels(nested_field(template, "template", "metadata", "labels"))]


PODTEMPLATE_PRINTER = TablePrinter((
    name_column(),
    Column("Containers", description=CONTAINERS_DOC),
    Column("Images", description=IMAGES_DOC),
    Column("Pod Labels", description="The labels for the pod template."),
), _pod_template_cells)


def _component_status_cells(component: Obj, now: float) -> list[Any]:
    status, message, error = "Unknown", "", ""
    for cond in dicts(component.get("conditions")):
        if cond.get("type") == "Healthy":
            status = "Healthy" if cond.get("status") == "True" else "Unhealthy"
            message, error = as_str(cond.get("message")), as_str(cond.get("error"))
            break
    return [object_name(component), status, message, error]


COMPONENTSTATUS_PRINTER = TablePrinter((
    name_column(),
    Column("Status", description="Status of the component conditions"),
    Column("Message", description="Message of the component conditions"),
    Column("Error", description="Error of the component conditions"),
), _component_status_cells)
