"""The columns `kubectl get` shows for each kind, as pure functions over object dicts.

This is kube-apiserver's table printing (`pkg/printers/internalversion` and the CRD
table convertor) in one place, so the embedded server's `as=Table` answers, a notebook's
LiveFrame default columns and anything else that wants "what kubectl would show" agree
cell for cell. Nothing here imports the server: give it a dict and a `now` (epoch
seconds, so tests and notebooks can pin time) and get cells back.

- `printer_for(kind, group)`: the `TablePrinter` of a built-in kind (pods, deployments,
  ...), or the generic Name / Created At table every other type gets.
- `custom_resource_printer(additional_printer_columns)`: a CRD's columns.
- `to_table(printer, objects, now, ...)`: a `meta.k8s.io/v1` Table dict.
- `human_duration(seconds)`: apimachinery's `duration.HumanDuration` ("5s", "3m2s", "2d").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from kubenb.meta import dict_field

Obj = dict[str, Any]

NONE = "<none>"
UNKNOWN = "<unknown>"

_NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although "
    "some resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_AGE_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_CONTAINERS_DOC = "Names of each container in the template."
_IMAGES_DOC = "Images referenced by each container in the template."
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
CRD_COLUMN_DOC = "Custom resource definition column (in JSONPath format): "


@dataclass(frozen=True)
class Column:
    """One `TableColumnDefinition`; priority 1 columns only show with `-o wide`."""

    name: str
    type: str = "string"
    format: str = ""
    description: str = ""
    priority: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The wire shape, keys in the apiserver's order."""
        return {"name": self.name, "type": self.type, "format": self.format,
                "description": self.description, "priority": self.priority}


def _name_column(priority: int = 0) -> Column:
    return Column("Name", "string", "name", _NAME_DOC, priority)


_AGE = Column("Age", description=_AGE_DOC)

Cells = Callable[[Obj, float], list[Any]]
Conditions = Callable[[Obj], list[dict[str, str]]]


@dataclass(frozen=True)
class TablePrinter:
    """The columns of one kind and how to compute one object's cells (and row conditions)."""

    columns: tuple[Column, ...]
    cells: Cells
    conditions: Conditions | None = field(default=None, compare=False)

    def column_names(self, wide: bool = True) -> list[str]:
        """Column headers; without `wide`, only the priority-0 ones kubectl shows by default."""
        return [c.name for c in self.columns if wide or c.priority == 0]

    def row(self, obj: Obj, now: float) -> list[Any]:
        """The cells of `obj` (all columns, wide ones included, as the server sends them)."""
        return self.cells(obj, now)


# -- time ------------------------------------------------------------------------------

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|z|[+-]\d{2}:\d{2})$")


def parse_time(text: Any) -> float | None:
    """An RFC 3339 timestamp (metav1.Time or MicroTime) as epoch seconds, or None."""
    if not isinstance(text, str):
        return None
    match = _RFC3339.match(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction = float(match.group(7)) if match.group(7) else 0.0
    zone = match.group(8)
    try:
        stamp = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError:
        return None
    offset = 0
    if zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return stamp.timestamp() - offset + fraction


def human_duration(seconds: float) -> str:
    """apimachinery's `duration.HumanDuration`: short, coarser as it grows ("3m2s", "4h")."""
    whole = int(seconds)  # Go's int(d.Seconds()) truncates toward zero
    if whole < -1:
        return "<invalid>"  # more than the tolerated 2 s of clock skew
    if whole < 0:
        return "0s"
    if whole < 60 * 2:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        years = hours // 24 // 365
        return f"{years}y" if days == 0 else f"{years}y{days}d"
    return f"{hours // 24 // 365}y"


def age(timestamp: Any, now: float) -> str:
    """`translateTimestampSince`: "<unknown>" for a missing time, else a human duration."""
    stamp = parse_time(timestamp)
    if stamp is None:
        return UNKNOWN
    return human_duration(now - stamp)


# -- small helpers -------------------------------------------------------------------------


def _get(obj: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return int(value)
    return 0


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _name(obj: Obj) -> str:
    return _str(_get(obj, "metadata", "name"))


def _created(obj: Obj, now: float) -> str:
    return age(_get(obj, "metadata", "creationTimestamp"), now)


def format_labels(labels: Any) -> str:
    """`labels.FormatLabels`: sorted `k=v` pairs, "<none>" when empty."""
    if not isinstance(labels, dict) or not labels:
        return NONE
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def format_label_selector(selector: Any) -> str:
    """`metav1.FormatLabelSelector` of a LabelSelector dict ("<none>" if it selects all)."""
    text = label_selector_string(selector)
    return text or NONE


def label_selector_string(selector: Any) -> str:
    """A LabelSelector dict as a selector string (`LabelSelectorAsSelector(...).String()`)."""
    if not isinstance(selector, dict):
        return ""
    parts: list[tuple[str, str]] = []
    for key, value in (selector.get("matchLabels") or {}).items():
        parts.append((str(key), f"{key}={value}"))
    for expr in _dicts(selector.get("matchExpressions")):
        key = str(expr.get("key", ""))
        op = str(expr.get("operator", ""))
        values = sorted(str(v) for v in expr.get("values") or [])
        if op == "In":
            parts.append((key, f"{key} in ({','.join(values)})"))
        elif op == "NotIn":
            parts.append((key, f"{key} notin ({','.join(values)})"))
        elif op == "Exists":
            parts.append((key, key))
        elif op == "DoesNotExist":
            parts.append((key, f"!{key}"))
    return ",".join(text for _, text in sorted(parts))


def _containers_and_images(containers: Any) -> tuple[str, str]:
    items = _dicts(containers)
    return (",".join(_str(c.get("name")) for c in items),
            ",".join(_str(c.get("image")) for c in items))


def _template_containers(obj: Obj) -> Any:
    return _get(obj, "spec", "template", "spec", "containers")


# -- pods ---------------------------------------------------------------------------------

_POD_COMPLETED = {"type": "Completed", "status": "True"}


def _restartable_init(container: dict[str, Any] | None) -> bool:
    return bool(container) and container.get("restartPolicy") == "Always"  # type: ignore[union-attr]


def _terminated_reason(terminated: dict[str, Any], prefix: str = "") -> str:
    if terminated.get("reason"):
        return prefix + str(terminated["reason"])
    if terminated.get("signal"):
        return f"{prefix}Signal:{terminated['signal']}"
    return f"{prefix}ExitCode:{_int(terminated.get('exitCode'))}"


def _condition_true(conditions: Any, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in _dicts(conditions))


def _pod_cells(pod: Obj, now: float) -> list[Any]:
    spec = dict_field(pod, "spec")
    status = dict_field(pod, "status")
    containers = _dicts(spec.get("containers"))
    init_specs = {_str(c.get("name")): c for c in _dicts(spec.get("initContainers"))}
    total = len(containers) + sum(1 for c in init_specs.values() if _restartable_init(c))
    ready = 0
    restarts = 0
    sidecar_restarts = 0
    last_restart = 0.0
    sidecar_last_restart = 0.0
    phase = _str(status.get("phase"))
    reason = _str(status.get("reason")) or phase
    for cond in _dicts(status.get("conditions")):
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    def finished(cs: dict[str, Any]) -> float:
        return parse_time(_get(cs, "lastState", "terminated", "finishedAt")) or 0.0

    initializing = False
    init_statuses = _dicts(status.get("initContainerStatuses"))
    for index, cs in enumerate(init_statuses):
        restarts += _int(cs.get("restartCount"))
        last_restart = max(last_restart, finished(cs))
        sidecar = _restartable_init(init_specs.get(_str(cs.get("name"))))
        if sidecar:
            sidecar_restarts += _int(cs.get("restartCount"))
            sidecar_last_restart = max(sidecar_last_restart, finished(cs))
        state = dict_field(cs, "state")
        terminated = state.get("terminated") if isinstance(state.get("terminated"), dict) else None
        waiting = state.get("waiting") if isinstance(state.get("waiting"), dict) else None
        if terminated is not None and _int(terminated.get("exitCode")) == 0:
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
        for cs in reversed(_dicts(status.get("containerStatuses"))):
            restarts += _int(cs.get("restartCount"))
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
    if _get(pod, "metadata", "deletionTimestamp"):
        if status.get("reason") == "NodeLost":
            reason = "Unknown"
        elif phase not in ("Succeeded", "Failed"):
            reason = "Terminating"
    restarts_text = str(restarts)
    if restarts and last_restart:
        restarts_text = f"{restarts} ({human_duration(now - last_restart)} ago)"
    pod_ips = _dicts(status.get("podIPs"))
    pod_ip = _str(pod_ips[0].get("ip")) if pod_ips else ""
    gates = _dicts(spec.get("readinessGates"))
    gates_text = NONE
    if gates:
        conditions = {c.get("type"): c.get("status") for c in _dicts(status.get("conditions"))}
        true = sum(1 for g in gates if conditions.get(g.get("conditionType")) == "True")
        gates_text = f"{true}/{len(gates)}"
    return [_name(pod), f"{ready}/{total}", reason, restarts_text, _created(pod, now),
            pod_ip or NONE, _str(spec.get("nodeName")) or NONE,
            _str(status.get("nominatedNodeName")) or NONE, gates_text]


def _pod_conditions(pod: Obj) -> list[dict[str, str]]:
    phase = _get(pod, "status", "phase")
    if phase == "Succeeded":
        return [dict(_POD_COMPLETED, reason="Succeeded",
                     message="The pod has completed successfully.")]
    if phase == "Failed":
        return [dict(_POD_COMPLETED, reason="Failed", message="The pod failed.")]
    return []


POD_PRINTER = TablePrinter((
    _name_column(),
    Column("Ready", description="The aggregate readiness state of this pod for accepting "
                                "traffic."),
    Column("Status", description="The aggregate status of the containers in this pod."),
    Column("Restarts", description="The number of times the containers in this pod have been "
                                   "restarted and when the last container in this pod has "
                                   "restarted."),
    _AGE,
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


# -- other core kinds ----------------------------------------------------------------------

NAMESPACE_PRINTER = TablePrinter(
    (_name_column(), Column("Status", description="The status of the namespace"), _AGE),
    lambda o, now: [_name(o), _str(_get(o, "status", "phase")), _created(o, now)])

CONFIGMAP_PRINTER = TablePrinter((
    _name_column(),
    Column("Data", description=(
        "Data contains the configuration data. Each key must consist of alphanumeric "
        "characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the "
        "BinaryData field. The keys stored in Data must not overlap with the keys in the "
        "BinaryData field, this is enforced during validation process.")),
    _AGE,
), lambda o, now: [_name(o), len(o.get("data") or {}) + len(o.get("binaryData") or {}),
                   _created(o, now)])

SECRET_PRINTER = TablePrinter((
    _name_column(),
    Column("Type", description="Used to facilitate programmatic handling of secret data. More "
                               "info: https://kubernetes.io/docs/concepts/configuration/secret/"
                               "#secret-types"),
    Column("Data", description=(
        "Data contains the secret data. Each key must consist of alphanumeric characters, '-', "
        "'_' or '.'. The serialized form of the secret data is a base64 encoded string, "
        "representing the arbitrary (possibly non-string) data value here. Described in "
        "https://tools.ietf.org/html/rfc4648#section-4")),
    _AGE,
), lambda o, now: [_name(o), _str(o.get("type")), len(o.get("data") or {}), _created(o, now)])

SERVICEACCOUNT_PRINTER = TablePrinter((
    _name_column(),
    Column("Secrets", description=(
        "Secrets is a list of the secrets in the same namespace that pods running using this "
        "ServiceAccount are allowed to use. More info: "
        "https://kubernetes.io/docs/concepts/configuration/secret")),
    _AGE,
), lambda o, now: [_name(o), len(_dicts(o.get("secrets"))), _created(o, now)])


def _service_external_ip(svc: Obj) -> str:
    spec = dict_field(svc, "spec")
    external = [str(ip) for ip in spec.get("externalIPs") or []]
    kind = spec.get("type") or "ClusterIP"
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else NONE
    if kind == "LoadBalancer":
        ingress = _dicts(_get(svc, "status", "loadBalancer", "ingress"))
        lb = sorted({_str(i.get("ip")) or _str(i.get("hostname")) for i in ingress} - {""})
        if external:
            return ",".join(lb + external)
        return ",".join(lb) if lb else "<pending>"
    if kind == "ExternalName":
        return _str(spec.get("externalName"))
    return UNKNOWN


def _service_ports(svc: Obj) -> str:
    pieces = []
    for port in _dicts(_get(svc, "spec", "ports")):
        protocol = port.get("protocol") or "TCP"
        if _int(port.get("nodePort")) > 0:
            pieces.append(f"{_int(port.get('port'))}:{_int(port.get('nodePort'))}/{protocol}")
        else:
            pieces.append(f"{_int(port.get('port'))}/{protocol}")
    return ",".join(pieces) or NONE


def _service_cells(svc: Obj, now: float) -> list[Any]:
    spec = dict_field(svc, "spec")
    cluster_ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
    return [_name(svc), _str(spec.get("type")) or "ClusterIP",
            str(cluster_ips[0]) if cluster_ips else NONE, _service_external_ip(svc),
            _service_ports(svc), _created(svc, now), format_labels(spec.get("selector"))]


SERVICE_PRINTER = TablePrinter((
    _name_column(),
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
    _AGE,
    Column("Selector", priority=1, description=(
        "Route service traffic to pods with label keys and values matching this selector. If "
        "empty or not present, the service is assumed to have an external process managing "
        "its endpoints, which Kubernetes will not modify.")),
), _service_cells)


def _event_source(event: Obj) -> str:
    component = _str(_get(event, "source", "component")) or _str(event.get("reportingComponent"))
    host = _str(_get(event, "source", "host")) or _str(event.get("reportingInstance"))
    return f"{component}, {host}" if host else component


def _event_cells(event: Obj, now: float) -> list[Any]:
    first = age(event.get("firstTimestamp"), now) if parse_time(
        event.get("firstTimestamp")) is not None else age(event.get("eventTime"), now)
    last = age(event.get("lastTimestamp"), now) if parse_time(
        event.get("lastTimestamp")) is not None else first
    count = _int(event.get("count"))
    series = event.get("series")
    if isinstance(series, dict):
        last = age(series.get("lastObservedTime"), now)
        count = _int(series.get("count"))
    elif count == 0:
        count = 1  # singleton events have no count in the new API
    involved = dict_field(event, "involvedObject")
    kind = _str(involved.get("kind")).lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    return [last, _str(event.get("type")), _str(event.get("reason")), target,
            _str(involved.get("fieldPath")), _event_source(event),
            _str(event.get("message")).strip(), first, count, _name(event)]


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
    _name_column(priority=1),
), _event_cells)


def _node_address(node: Obj, kind: str) -> str:
    for address in _dicts(_get(node, "status", "addresses")):
        if address.get("type") == kind:
            return _str(address.get("address"))
    return NONE


def _node_cells(node: Obj, now: float) -> list[Any]:
    status: list[str] = []
    for cond in _dicts(_get(node, "status", "conditions")):
        if cond.get("type") == "Ready":
            status = ["Ready" if cond.get("status") == "True" else "NotReady"]
    if not status:
        status = ["Unknown"]
    if _get(node, "spec", "unschedulable"):
        status.append("SchedulingDisabled")
    roles = set()
    for key, value in (_get(node, "metadata", "labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/") and key[len("node-role.kubernetes.io/"):]:
            roles.add(key[len("node-role.kubernetes.io/"):])
        elif key == "kubernetes.io/role" and value:
            roles.add(str(value))
    info = _get(node, "status", "nodeInfo") or {}
    return [_name(node), ",".join(status), ",".join(sorted(roles)) or NONE, _created(node, now),
            _str(info.get("kubeletVersion")), _node_address(node, "InternalIP"),
            _node_address(node, "ExternalIP"), _str(info.get("osImage")) or UNKNOWN,
            _str(info.get("kernelVersion")) or UNKNOWN,
            _str(info.get("containerRuntimeVersion")) or UNKNOWN]


NODE_PRINTER = TablePrinter((
    _name_column(),
    Column("Status", description="The status of the node"),
    Column("Roles", description="The roles of the node"),
    _AGE,
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


# -- apps ----------------------------------------------------------------------------------


def _replicas(obj: Obj) -> int:
    value = _get(obj, "spec", "replicas")
    return 1 if value is None else _int(value)  # the API defaults spec.replicas to 1


def _deployment_cells(obj: Obj, now: float) -> list[Any]:
    status = dict_field(obj, "status")
    names, images = _containers_and_images(_template_containers(obj))
    return [_name(obj), f"{_int(status.get('readyReplicas'))}/{_replicas(obj)}",
            _int(status.get("updatedReplicas")), _int(status.get("availableReplicas")),
            _created(obj, now), names, images, label_selector_string(_get(obj, "spec",
                                                                          "selector"))]


_SELECTOR_DOC = ("Label selector for pods. Existing ReplicaSets whose pods are selected by "
                 "this will be the ones affected by this deployment.")

DEPLOYMENT_PRINTER = TablePrinter((
    _name_column(),
    Column("Ready", description="Number of the pod with ready state"),
    Column("Up-to-date", description="Total number of non-terminated pods targeted by this "
                                     "deployment that have the desired template spec."),
    Column("Available", description="Total number of available pods (ready for at least "
                                    "minReadySeconds) targeted by this deployment."),
    _AGE,
    Column("Containers", priority=1, description=_CONTAINERS_DOC),
    Column("Images", priority=1, description=_IMAGES_DOC),
    Column("Selector", priority=1, description=_SELECTOR_DOC),
), _deployment_cells)


def _replicaset_cells(obj: Obj, now: float) -> list[Any]:
    status = dict_field(obj, "status")
    names, images = _containers_and_images(_template_containers(obj))
    return [_name(obj), _replicas(obj), _int(status.get("replicas")),
            _int(status.get("readyReplicas")), _created(obj, now), names, images,
            format_label_selector(_get(obj, "spec", "selector"))]


REPLICASET_PRINTER = TablePrinter((
    _name_column(),
    Column("Desired", "integer", description="Replicas is the number of desired replicas. This "
                                             "is a pointer to distinguish between explicit zero "
                                             "and unspecified. Defaults to 1."),
    Column("Current", "integer", description="Replicas is the most recently observed number of "
                                             "replicas."),
    Column("Ready", "integer", description="The number of ready replicas for this replica "
                                           "set."),
    _AGE,
    Column("Containers", priority=1, description=_CONTAINERS_DOC),
    Column("Images", priority=1, description=_IMAGES_DOC),
    Column("Selector", priority=1, description="Selector is a label query over pods that "
                                               "should match the replica count."),
), _replicaset_cells)


def _statefulset_cells(obj: Obj, now: float) -> list[Any]:
    names, images = _containers_and_images(_template_containers(obj))
    ready = _int(_get(obj, "status", "readyReplicas"))
    return [_name(obj), f"{ready}/{_replicas(obj)}", _created(obj, now), names, images]


STATEFULSET_PRINTER = TablePrinter((
    _name_column(),
    Column("Ready", description="Number of the pod with ready state"),
    _AGE,
    Column("Containers", priority=1, description=_CONTAINERS_DOC),
    Column("Images", priority=1, description=_IMAGES_DOC),
), _statefulset_cells)


def _daemonset_cells(obj: Obj, now: float) -> list[Any]:
    status = dict_field(obj, "status")
    names, images = _containers_and_images(_template_containers(obj))
    return [_name(obj), _int(status.get("desiredNumberScheduled")),
            _int(status.get("currentNumberScheduled")), _int(status.get("numberReady")),
            _int(status.get("updatedNumberScheduled")), _int(status.get("numberAvailable")),
            format_labels(_get(obj, "spec", "template", "spec", "nodeSelector")),
            _created(obj, now), names, images,
            format_label_selector(_get(obj, "spec", "selector"))]


DAEMONSET_PRINTER = TablePrinter((
    _name_column(),
    Column("Desired", "integer", description="The total number of nodes that should be running "
                                             "the daemon pod (including nodes correctly running "
                                             "the daemon pod)."),
    Column("Current", "integer", description="The number of nodes that are running at least 1 "
                                             "daemon pod and are supposed to run the daemon "
                                             "pod."),
    Column("Ready", "integer", description="The number of nodes that should be running the "
                                           "daemon pod and have one or more of the daemon pod "
                                           "running and ready."),
    Column("Up-to-date", "integer", description="The total number of nodes that are running "
                                                "updated daemon pod"),
    Column("Available", "integer", description="The number of nodes that should be running the "
                                               "daemon pod and have one or more of the daemon "
                                               "pod running and available (ready for at least "
                                               "spec.minReadySeconds)"),
    Column("Node Selector", description="NodeSelector is a selector which must be true for the "
                                        "pod to fit on a node. Selector which must match a "
                                        "node's labels for the pod to be scheduled on that "
                                        "node."),
    _AGE,
    Column("Containers", priority=1, description=_CONTAINERS_DOC),
    Column("Images", priority=1, description=_IMAGES_DOC),
    Column("Selector", priority=1, description="A label query over pods that are managed by "
                                               "the daemon set."),
), _daemonset_cells)


# -- coordination.k8s.io -------------------------------------------------------------------


def _lease_cells(obj: Obj, now: float) -> list[Any]:
    return [_name(obj), _str(_get(obj, "spec", "holderIdentity")), _created(obj, now)]


LEASE_PRINTER = TablePrinter((
    _name_column(),
    Column("Holder", description="holderIdentity contains the identity of the holder of a "
                                 "current lease. If Coordinated Leader Election is used, the "
                                 "holder identity must be equal to the elected "
                                 "LeaseCandidate.metadata.name field."),
    _AGE,
), _lease_cells)


def _created_at(obj: Obj, now: float) -> list[Any]:
    stamp = parse_time(_get(obj, "metadata", "creationTimestamp"))
    text = "" if stamp is None else datetime.fromtimestamp(
        stamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return [_name(obj), text]


DEFAULT_PRINTER = TablePrinter(
    (_name_column(), Column("Created At", "date", description=_AGE_DOC)), _created_at)
"""apiserver's default table convertor: every type without a printer (CRDs included)."""

_BUILTIN: dict[tuple[str, str], TablePrinter] = {
    ("", "Pod"): POD_PRINTER,
    ("", "Namespace"): NAMESPACE_PRINTER,
    ("", "Service"): SERVICE_PRINTER,
    ("", "ConfigMap"): CONFIGMAP_PRINTER,
    ("", "Secret"): SECRET_PRINTER,
    ("", "Event"): EVENT_PRINTER,
    ("", "Node"): NODE_PRINTER,
    ("", "ServiceAccount"): SERVICEACCOUNT_PRINTER,
    ("apps", "Deployment"): DEPLOYMENT_PRINTER,
    ("apps", "ReplicaSet"): REPLICASET_PRINTER,
    ("apps", "StatefulSet"): STATEFULSET_PRINTER,
    ("apps", "DaemonSet"): DAEMONSET_PRINTER,
    ("coordination.k8s.io", "Lease"): LEASE_PRINTER,
}


def printer_for(kind: str, group: str = "") -> TablePrinter:
    """The printer of a built-in kind, else the default Name / Created At table."""
    return _BUILTIN.get((group, kind), DEFAULT_PRINTER)


#: The built-in resources that have kubectl columns here: (group, plural) -> kind.
BUILTIN_RESOURCES: dict[tuple[str, str], str] = {
    ("", "pods"): "Pod", ("", "namespaces"): "Namespace", ("", "services"): "Service",
    ("", "configmaps"): "ConfigMap", ("", "secrets"): "Secret", ("", "events"): "Event",
    ("", "nodes"): "Node", ("", "serviceaccounts"): "ServiceAccount",
    ("apps", "deployments"): "Deployment", ("apps", "replicasets"): "ReplicaSet",
    ("apps", "statefulsets"): "StatefulSet", ("apps", "daemonsets"): "DaemonSet",
    ("coordination.k8s.io", "leases"): "Lease",
}


def kind_for_resource(resource: str, group: str = "") -> str | None:
    """The kind of a built-in resource with kubectl columns ("pods" -> "Pod"), for
    views that know an informer's resource but not its kind; None for any other."""
    return BUILTIN_RESOURCES.get((group, resource))


# -- JSONPath (the subset CRD printer columns use) --------------------------------------------

_NAME_CHARS = re.compile(r"(?:\\.|[^.\[\]\\])+")
_FILTER = re.compile(r"\?\(\s*@((?:\.[\w\-/]+)*)\s*(==|!=)\s*(.+?)\s*\)$")


@dataclass(frozen=True)
class JSONPath:
    """A parsed simple JSONPath: `.a.b`, `[0]`, `[*]`, `['k.e.y']`, `[?(@.type=="Ready")]`."""

    text: str
    steps: tuple[tuple[str, Any], ...]

    def find(self, obj: Any) -> list[Any]:
        """Every value the path reaches in `obj` (empty when nothing matches)."""
        current = [obj]
        for op, arg in self.steps:
            nxt: list[Any] = []
            for value in current:
                if op == "key":
                    if isinstance(value, dict) and arg in value:
                        nxt.append(value[arg])
                elif op == "index":
                    if isinstance(value, list) and -len(value) <= arg < len(value):
                        nxt.append(value[arg])
                elif op == "all":
                    if isinstance(value, list):
                        nxt.extend(value)
                    elif isinstance(value, dict):
                        nxt.extend(value.values())
                elif op == "filter" and isinstance(value, list):
                    path, negate, want = arg
                    for item in value:
                        got = JSONPath("", path).find(item)
                        hit = bool(got) and got[0] == want
                        if hit != negate:
                            nxt.append(item)
            current = nxt
        return current


def parse_jsonpath(text: str) -> JSONPath:
    """Parse a simple JSONPath; ValueError (saying where) for anything outside the subset."""
    src = text.strip()
    if src.startswith("{") and src.endswith("}"):
        src = src[1:-1].strip()
    if not src.startswith(".") and not src.startswith("["):
        raise ValueError(f"JSONPath {text!r} must start with '.'")
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(src):
        char = src[pos]
        if char == ".":
            if src.startswith("..", pos):
                raise ValueError(f"JSONPath {text!r}: recursive descent '..' is not supported")
            match = _NAME_CHARS.match(src, pos + 1)
            if match is None:
                raise ValueError(f"JSONPath {text!r}: expected a field name at {pos + 1}")
            steps.append(("key", re.sub(r"\\(.)", r"\1", match.group(0))))
            pos = match.end()
        elif char == "[":
            end = _closing_bracket(src, pos, text)
            steps.append(_bracket_step(src[pos + 1:end].strip(), text))
            pos = end + 1
        else:
            raise ValueError(f"JSONPath {text!r}: unexpected {char!r} at {pos}")
    return JSONPath(text, tuple(steps))


def _closing_bracket(src: str, start: int, text: str) -> int:
    depth = 0
    quote = ""
    for index in range(start, len(src)):
        char = src[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index
    raise ValueError(f"JSONPath {text!r}: unclosed '['")


def _bracket_step(inner: str, text: str) -> tuple[str, Any]:
    if inner == "*":
        return ("all", None)
    if re.fullmatch(r"-?\d+", inner):
        return ("index", int(inner))
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        return ("key", inner[1:-1])
    match = _FILTER.match(inner)
    if match:
        path = parse_jsonpath(match.group(1) or ".").steps if match.group(1) else ()
        raw = match.group(3)
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            want: Any = raw[1:-1]
        else:
            try:
                want = json.loads(raw)
            except ValueError:
                raise ValueError(f"JSONPath {text!r}: cannot compare with {raw!r}") from None
        return ("filter", (path, match.group(2) == "!=", want))
    raise ValueError(f"JSONPath {text!r}: unsupported expression [{inner}]")


# -- custom resources ------------------------------------------------------------------------


def _cell_for(column_type: str, value: Any, now: float) -> Any:
    """The CRD table convertor's `cellForJSONValue` (strings via the JSONPath printer)."""
    if value is None:
        return None
    if column_type == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return str(value)
        return json.dumps(value, separators=(",", ":"))
    if column_type == "integer":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value)
        return None
    if column_type == "number":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return None
    if column_type == "boolean":
        return value if isinstance(value, bool) else None
    if column_type == "date":
        if not isinstance(value, str):
            return None
        stamp = parse_time(value)
        return "<invalid>" if stamp is None else human_duration(now - stamp)
    return None


DEFAULT_CR_COLUMNS: tuple[dict[str, Any], ...] = (
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},)
"""What a CRD version without additionalPrinterColumns shows besides the name."""


def custom_resource_printer(additional_printer_columns: Sequence[dict[str, Any]] | None
                            ) -> TablePrinter:
    """The table of a CRD version: Name, then its additionalPrinterColumns (default: Age)."""
    specs = list(additional_printer_columns or DEFAULT_CR_COLUMNS)
    columns = [_name_column()]
    paths = []
    for spec in specs:
        json_path = str(spec.get("jsonPath", ""))
        paths.append((parse_jsonpath(json_path), str(spec.get("type", "string"))))
        columns.append(Column(str(spec.get("name", "")), str(spec.get("type", "string")),
                              str(spec.get("format", "")),
                              str(spec.get("description") or CRD_COLUMN_DOC + json_path),
                              int(spec.get("priority", 0) or 0)))

    def cells(obj: Obj, now: float) -> list[Any]:
        row: list[Any] = [_name(obj)]
        for path, column_type in paths:
            found = path.find(obj)
            row.append(_cell_for(column_type, found[0], now) if found else None)
        return row

    return TablePrinter(tuple(columns), cells)


# -- the Table object ------------------------------------------------------------------------


def partial_object_metadata(obj: Obj, api_version: str = "meta.k8s.io/v1") -> Obj:
    """`PartialObjectMetadata` of an object: its metadata, nothing else."""
    return {"kind": "PartialObjectMetadata", "apiVersion": api_version,
            "metadata": obj.get("metadata") or {}}


def table_row(printer: TablePrinter, obj: Obj, now: float, include_object: str = "Metadata",
              api_version: str = "meta.k8s.io/v1") -> Obj:
    """One `TableRow`: cells, conditions when the printer has some, and the object."""
    row: Obj = {"cells": printer.cells(obj, now)}
    if printer.conditions is not None:
        conditions = printer.conditions(obj)
        if conditions:
            row["conditions"] = conditions
    if include_object == "None":
        row["object"] = None
    elif include_object == "Object":
        row["object"] = obj
    else:
        row["object"] = partial_object_metadata(obj, api_version)
    return row


def to_table(printer: TablePrinter, objects: Iterable[Obj], now: float,
             list_meta: dict[str, Any] | None = None, include_object: str = "Metadata",
             api_version: str = "meta.k8s.io/v1", with_columns: bool = True) -> Obj:
    """A `meta.k8s.io/v1` Table (the shape `kubectl get` asks for with `as=Table`).

    `include_object` is the TableOptions value: "Metadata" (default, PartialObjectMetadata
    rows), "Object" (the whole object) or "None". `with_columns=False` gives the
    `columnDefinitions: null` of watch events after the first.
    """
    return {"kind": "Table", "apiVersion": api_version, "metadata": dict(list_meta or {}),
            "columnDefinitions": [c.to_dict() for c in printer.columns] if with_columns
            else None,
            "rows": [table_row(printer, obj, now, include_object, api_version)
                     for obj in objects]}
