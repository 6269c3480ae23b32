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

import functools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from fractions import Fraction
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
    order: Callable[[Obj], Any] | None = field(default=None, compare=False)
    """A sort key for the rows of a list, for the kinds whose Go list printer sorts."""

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
    return _parse_rfc3339(text)


# A table or LiveFrame row parses the same few timestamps again and again (a pod's
# creationTimestamp twice per row, and again at every update of the pod): remembered,
# a parse is a cache lookup instead of ~6 µs, a fifth of a Pod row. The strings kept
# are the objects' own; 32k of them are a few MB at most.
@functools.lru_cache(maxsize=1 << 15)
def _parse_rfc3339(text: str) -> float | None:
    stripped = text.strip()
    match = _RFC3339.match(stripped)
    if match is None:
        return None
    midnight = _midnight(stripped[:10])
    if midnight is None:
        return None
    _, _, _, hour, minute, second, fraction, zone = match.groups()
    hours, minutes, seconds = int(hour), int(minute), int(second)
    if hours > 23 or minutes > 59 or seconds > 59:
        return None  # what datetime() refuses (no leap second either)
    offset = 0
    if zone != "Z" and zone != "z":
        offset = int(zone[1:3]) * 3600 + int(zone[4:6]) * 60
        if zone[0] == "-":
            offset = -offset
    # Whole seconds first, the fraction last: one rounding, as datetime's reading gives.
    stamp = midnight + (hours * 3600 + minutes * 60 + seconds - offset)
    return stamp + float(fraction) if fraction else stamp


@functools.lru_cache(maxsize=1024)
def _midnight(date: str) -> float | None:
    """Epoch seconds of midnight UTC of "YYYY-MM-DD"; None when there is no such day."""
    try:
        return datetime(int(date[:4]), int(date[5:7]), int(date[8:10]),
                        tzinfo=timezone.utc).timestamp()
    except ValueError:
        return None  # 2023-02-29, month 13


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


# -- quantities ------------------------------------------------------------------------------

_BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12,
                     "P": 15, "E": 18}
_DECIMAL_NAMES = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_NAMES = {exp: suffix for suffix, exp in _BINARY_SUFFIXES.items()}
_QUANTITY = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(.*)")
_EXPONENT = re.compile(r"[eE]([+-]?\d+)")


def quantity_string(value: Any) -> str:
    """apimachinery's `resource.Quantity.String()` of a quantity ("1.5Gi" -> "1536Mi",
    "1000" -> "1k", "0.5" -> "500m"): what the apiserver's printers show. A value that
    is not a quantity is returned as its text."""
    if isinstance(value, bool) or value is None:
        return str(value)
    text = str(value).strip() if not isinstance(value, (int, float)) else repr(value)
    match = _QUANTITY.fullmatch(text)
    if match is None or not (match.group(2) or match.group(3)):
        return text
    sign, whole, fraction, suffix = match.groups()
    fraction = fraction or ""
    amount = Fraction(int((whole or "0") + fraction), 10 ** len(fraction))
    if suffix in _BINARY_SUFFIXES:
        amount *= 1024 ** _BINARY_SUFFIXES[suffix]
        form = "binary"
    elif suffix in _DECIMAL_SUFFIXES:
        amount *= Fraction(10) ** _DECIMAL_SUFFIXES[suffix]
        form = "decimal"
    elif _EXPONENT.fullmatch(suffix):
        amount *= Fraction(10) ** int(suffix[1:])
        form = "exponent"
    else:
        return text
    if amount == 0:
        return "0"
    nanos = amount * 10 ** 9
    if nanos.denominator != 1:  # finer than nano: round up to the next nano, as Go does
        amount = Fraction(-(-nanos.numerator // nanos.denominator), 10 ** 9)
    if form == "binary" and (amount < 1024 or amount.denominator != 1):
        form = "decimal"  # small or fractional: no rounding, shown in decimal
    negative = sign == "-"
    if form == "binary":
        number, power = int(amount), 0
        while number % 1024 == 0 and power < 6:
            number //= 1024
            power += 1
        return f"{'-' if negative else ''}{number}{_BINARY_NAMES.get(power, '')}"
    # Decimal: the mantissa without trailing zeros, the exponent a multiple of 3.
    exponent = -9
    mantissa = int(amount * 10 ** 9)
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa *= 10 ** shift
    exponent -= shift
    if form == "exponent":
        suffix_text = f"e{exponent}" if exponent else ""
    else:
        suffix_text = _DECIMAL_NAMES.get(exponent, f"e{exponent}")
    return f"{'-' if negative else ''}{mantissa}{suffix_text}"


def _quantity_or(value: Any, missing: str) -> str:
    return missing if value is None else quantity_string(value)


def int_or_string(value: Any) -> str:
    """`intstr.IntOrString.String()`: an int as decimal digits, a string as it is."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(int(value))
    return "" if value is None else str(value)


def _bool_ptr(value: Any) -> str:
    """Go's `printBoolPtr`: "True", "False" or "<unset>"."""
    if value is None:
        return "<unset>"
    return "True" if value is True else "False"


def _list_with_more(items: list[str], limit: int = 3, empty: str = "<unset>") -> str:
    """The first `limit` items and "+ N more..." (Go's listWithMoreString)."""
    text = ",".join(items[:limit])
    if len(items) > limit:
        return f"{text} + {len(items) - limit} more..."
    return text or empty


# -- batch ----------------------------------------------------------------------------------


def _condition_is_true(conditions: Any, kind: str) -> bool:
    """Go's hasJobCondition: the first condition of `kind` decides."""
    for cond in _dicts(conditions):
        if cond.get("type") == kind:
            return cond.get("status") == "True"
    return False


def _job_status(job: Obj) -> str:
    conditions = _get(job, "status", "conditions")
    if _condition_is_true(conditions, "Complete"):
        return "Complete"
    if _condition_is_true(conditions, "Failed"):
        return "Failed"
    if _get(job, "metadata", "deletionTimestamp"):
        return "Terminating"
    if _condition_is_true(conditions, "Suspended"):
        return "Suspended"
    if _condition_is_true(conditions, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def _job_cells(job: Obj, now: float) -> list[Any]:
    spec = dict_field(job, "spec")
    status = dict_field(job, "status")
    succeeded = _int(status.get("succeeded"))
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{_int(spec.get('completions'))}"
    elif _int(spec.get("parallelism")) > 1:
        completions = f"{succeeded}/1 of {_int(spec.get('parallelism'))}"
    else:
        completions = f"{succeeded}/1"
    started = parse_time(status.get("startTime"))
    finished = parse_time(status.get("completionTime"))
    duration = "" if started is None else human_duration(
        (now if finished is None else finished) - started)
    names, images = _containers_and_images(_template_containers(job))
    return [_name(job), _job_status(job), completions, duration, _created(job, now), names,
            images, format_label_selector(spec.get("selector"))]


def _cronjob_cells(cronjob: Obj, now: float) -> list[Any]:
    spec = dict_field(cronjob, "spec")
    last = _get(cronjob, "status", "lastScheduleTime")
    job_spec = dict_field(dict_field(spec, "jobTemplate"), "spec")
    names, images = _containers_and_images(_get(job_spec, "template", "spec", "containers"))
    time_zone = spec.get("timeZone")
    return [_name(cronjob), _str(spec.get("schedule")),
            NONE if time_zone is None else _str(time_zone), _bool_ptr(spec.get("suspend")),
            len(_dicts(_get(cronjob, "status", "active"))),
            NONE if last is None else age(last, now), _created(cronjob, now), names, images,
            format_label_selector(job_spec.get("selector"))]


# -- more core kinds ---------------------------------------------------------------------------


def _replication_controller_cells(rc: Obj, now: float) -> list[Any]:
    status = dict_field(rc, "status")
    names, images = _containers_and_images(_template_containers(rc))
    return [_name(rc), _replicas(rc), _int(status.get("replicas")),
            _int(status.get("readyReplicas")), _created(rc, now), names, images,
            format_labels(_get(rc, "spec", "selector"))]


def _endpoints_text(endpoints: Obj) -> str:
    """Go's formatEndpoints: up to three ip:port, then "+ N more..."."""
    subsets = _dicts(endpoints.get("subsets"))
    if not subsets:
        return NONE
    shown: list[str] = []
    count = 0
    for subset in subsets:
        addresses = [_str(a.get("ip")) for a in _dicts(subset.get("addresses"))]
        ports = _dicts(subset.get("ports"))
        if not ports:  # a headless service without ports
            count += len(addresses)
            shown.extend(addresses[:max(3 - len(shown), 0)])
            continue
        for port in ports:
            count += len(addresses)
            for ip in addresses:
                if len(shown) < 3:
                    host = f"[{ip}]" if ":" in ip else ip
                    shown.append(f"{host}:{_int(port.get('port'))}")
    text = ",".join(shown)
    return f"{text} + {count - 3} more..." if count > 3 else text


def _access_modes(modes: Any) -> str:
    """Go's GetAccessModesAsString: RWO,ROX,RWX,RWOP in that order, each once."""
    present = set(modes) if isinstance(modes, list) else set()
    names = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
             ("ReadWriteOncePod", "RWOP"))
    return ",".join(short for mode, short in names if mode in present)


_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"


def _storage_class_of(obj: Obj, spec_value: Any) -> str:
    annotations = _get(obj, "metadata", "annotations")
    if isinstance(annotations, dict) and _BETA_STORAGE_CLASS in annotations:
        return _str(annotations[_BETA_STORAGE_CLASS])
    return _str(spec_value)


def _pv_cells(pv: Obj, now: float) -> list[Any]:
    spec = dict_field(pv, "spec")
    claim = spec.get("claimRef")
    claim_text = (f"{_str(claim.get('namespace'))}/{_str(claim.get('name'))}"
                  if isinstance(claim, dict) else "")
    phase = "Terminating" if _get(pv, "metadata", "deletionTimestamp") else _str(
        _get(pv, "status", "phase"))
    vac = spec.get("volumeAttributesClassName")
    return [_name(pv), quantity_string(_get(spec, "capacity", "storage") or "0"),
            _access_modes(spec.get("accessModes")),
            _str(spec.get("persistentVolumeReclaimPolicy")), phase, claim_text,
            _storage_class_of(pv, spec.get("storageClassName")),
            "<unset>" if vac is None else _str(vac), _str(_get(pv, "status", "reason")),
            _created(pv, now), _str(spec.get("volumeMode")) or "<unset>"]


def _pvc_cells(pvc: Obj, now: float) -> list[Any]:
    spec = dict_field(pvc, "spec")
    status = dict_field(pvc, "status")
    phase = "Terminating" if _get(pvc, "metadata", "deletionTimestamp") else _str(
        status.get("phase"))
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = _access_modes(status.get("accessModes"))
        capacity = quantity_string(_get(status, "capacity", "storage") or "0")
    vac = spec.get("volumeAttributesClassName")
    return [_name(pvc), phase, _str(spec.get("volumeName")), capacity, modes,
            _storage_class_of(pvc, spec.get("storageClassName")),
            "<unset>" if vac is None else _str(vac), _created(pvc, now),
            _str(spec.get("volumeMode")) or "<unset>"]


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
    return [_name(quota), _created(quota, now), ", ".join(requests), ", ".join(limits)]


def _pod_template_cells(template: Obj, now: float) -> list[Any]:
    names, images = _containers_and_images(_get(template, "template", "spec", "containers"))
    return [_name(template), names, images,
            format_labels(_get(template, "template", "metadata", "labels"))]


def _component_status_cells(component: Obj, now: float) -> list[Any]:
    status, message, error = "Unknown", "", ""
    for cond in _dicts(component.get("conditions")):
        if cond.get("type") == "Healthy":
            status = "Healthy" if cond.get("status") == "True" else "Unhealthy"
            message, error = _str(cond.get("message")), _str(cond.get("error"))
            break
    return [_name(component), status, message, error]


# -- apps ------------------------------------------------------------------------------------


def _controller_revision_cells(revision: Obj, now: float) -> list[Any]:
    ref = None
    for owner in _dicts(_get(revision, "metadata", "ownerReferences")):
        if owner.get("controller") is True:
            ref = owner
            break
    controller = NONE
    if ref is not None:
        api_version = _str(ref.get("apiVersion"))
        group = api_version.split("/", 1)[0] if "/" in api_version else ""
        kind = _str(ref.get("kind"))
        group_kind = f"{kind}.{group}" if group else kind
        controller = f"{group_kind.lower()}/{_str(ref.get('name'))}" if kind or group else _str(
            ref.get("name"))
    return [_name(revision), controller, _int(revision.get("revision")),
            _created(revision, now)]


# -- networking ------------------------------------------------------------------------------


def _ingress_hosts(rules: Any) -> str:
    """Go's formatHosts: up to three hosts, "*" when none names one."""
    rules = _dicts(rules)
    hosts = [_str(r.get("host")) for r in rules[:3] if r.get("host")]
    if not hosts:
        return "*"
    text = ",".join(hosts)
    return f"{text} + {len(rules) - 3} more..." if len(rules) > 3 else text


def _load_balancer_text(ingress: Any) -> str:
    """The sorted, de-duplicated IPs (else hostnames) of a load-balancer status; in full,
    as the apiserver prints wide."""
    return ",".join(sorted({_str(i.get("ip")) or _str(i.get("hostname"))
                            for i in _dicts(ingress)} - {""}))


def _ingress_cells(ingress: Obj, now: float) -> list[Any]:
    spec = dict_field(ingress, "spec")
    class_name = spec.get("ingressClassName")
    return [_name(ingress), NONE if class_name is None else _str(class_name),
            _ingress_hosts(spec.get("rules")),
            _load_balancer_text(_get(ingress, "status", "loadBalancer", "ingress")),
            "80, 443" if _dicts(spec.get("tls")) else "80", _created(ingress, now)]


def _ingress_class_cells(ingress_class: Obj, now: float) -> list[Any]:
    spec = dict_field(ingress_class, "spec")
    params = spec.get("parameters")
    text = NONE
    if isinstance(params, dict):
        text = _str(params.get("kind"))
        if params.get("apiGroup") is not None:
            text += "." + _str(params.get("apiGroup"))
        text += "/" + _str(params.get("name"))
    return [_name(ingress_class), _str(spec.get("controller")), text,
            _created(ingress_class, now)]


def _network_policy_cells(policy: Obj, now: float) -> list[Any]:
    return [_name(policy), format_label_selector(_get(policy, "spec", "podSelector") or {}),
            _created(policy, now)]


def _endpoint_slice_cells(slice_: Obj, now: float) -> list[Any]:
    ports = []
    for port in _dicts(slice_.get("ports")):
        if port.get("port") is not None:
            ports.append(str(_int(port.get("port"))))
        elif port.get("name") is not None:
            ports.append(_str(port.get("name")))
        else:
            ports.append("*")
    addresses = [str(a) for e in _dicts(slice_.get("endpoints"))
                 for a in (e.get("addresses") or [])]
    return [_name(slice_), _str(slice_.get("addressType")), _list_with_more(ports),
            _list_with_more(addresses), _created(slice_, now)]


# -- rbac ------------------------------------------------------------------------------------


def _binding_cells(binding: Obj, now: float) -> list[Any]:
    ref = dict_field(binding, "roleRef")
    users: list[str] = []
    groups: list[str] = []
    service_accounts: list[str] = []
    for subject in _dicts(binding.get("subjects")):
        kind = subject.get("kind")
        if kind == "ServiceAccount":
            service_accounts.append(f"{_str(subject.get('namespace'))}/"
                                    f"{_str(subject.get('name'))}")
        elif kind == "User":
            users.append(_str(subject.get("name")))
        elif kind == "Group":
            groups.append(_str(subject.get("name")))
    return [_name(binding), f"{_str(ref.get('kind'))}/{_str(ref.get('name'))}",
            _created(binding, now), ", ".join(users), ", ".join(groups),
            ", ".join(service_accounts)]


# -- certificates, apiregistration --------------------------------------------------------------


def _csr_condition(csr: Obj) -> str:
    """Go's extractCSRStatus: Denied / Approved / Pending, then ",Failed", ",Issued"."""
    types = {c.get("type") for c in _dicts(_get(csr, "status", "conditions"))}
    text = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        text += ",Failed"
    if _get(csr, "status", "certificate"):
        text += ",Issued"
    return text


def _csr_cells(csr: Obj, now: float) -> list[Any]:
    spec = dict_field(csr, "spec")
    seconds = spec.get("expirationSeconds")
    return [_name(csr), _created(csr, now), _str(spec.get("signerName")) or NONE,
            _str(spec.get("username")),
            NONE if seconds is None else human_duration(_int(seconds)), _csr_condition(csr)]


def _apiservice_cells(service: Obj, now: float) -> list[Any]:
    ref = _get(service, "spec", "service")
    where = (f"{_str(ref.get('namespace'))}/{_str(ref.get('name'))}"
             if isinstance(ref, dict) else "Local")
    available = "Unknown"
    for cond in _dicts(_get(service, "status", "conditions")):
        if cond.get("type") == "Available":
            status = _str(cond.get("status"))
            available = f"{status} ({cond['reason']})" if status != "True" and cond.get(
                "reason") else status
            break
    return [_name(service), where, available, _created(service, now)]


# -- storage ---------------------------------------------------------------------------------

_DEFAULT_CLASS = ("storageclass.kubernetes.io/is-default-class",
                  "storageclass.beta.kubernetes.io/is-default-class")


def _storage_class_cells(sc: Obj, now: float) -> list[Any]:
    annotations = _get(sc, "metadata", "annotations")
    default = isinstance(annotations, dict) and any(
        annotations.get(key) == "true" for key in _DEFAULT_CLASS)
    return [_name(sc) + (" (default)" if default else ""), _str(sc.get("provisioner")),
            _str(sc.get("reclaimPolicy")) or "Delete",
            _str(sc.get("volumeBindingMode")) or "Immediate",
            sc.get("allowVolumeExpansion") is True, _created(sc, now)]


def _csi_driver_cells(driver: Obj, now: float) -> list[Any]:
    spec = dict_field(driver, "spec")
    tokens = spec.get("tokenRequests")
    return [_name(driver), spec.get("attachRequired") is not False,
            spec.get("podInfoOnMount") is True, spec.get("storageCapacity") is True,
            "<unset>" if tokens is None else ",".join(
                _str(t.get("audience")) for t in _dicts(tokens)),
            spec.get("requiresRepublish") is True,
            ",".join(str(m) for m in spec.get("volumeLifecycleModes") or []) or NONE,
            _created(driver, now)]


def _csi_node_cells(node: Obj, now: float) -> list[Any]:
    return [_name(node), len(_dicts(_get(node, "spec", "drivers"))), _created(node, now)]


def _csi_storage_capacity_cells(capacity: Obj, now: float) -> list[Any]:
    return [_name(capacity), _str(capacity.get("storageClassName")),
            _quantity_or(capacity.get("capacity"), "<unset>")]


def _volume_attachment_cells(attachment: Obj, now: float) -> list[Any]:
    spec = dict_field(attachment, "spec")
    return [_name(attachment), _str(spec.get("attacher")),
            _str(_get(spec, "source", "persistentVolumeName")), _str(spec.get("nodeName")),
            _get(attachment, "status", "attached") is True, _created(attachment, now)]


# -- autoscaling, policy, scheduling, node ---------------------------------------------------------


def _hpa_metrics(hpa: Obj) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Spec metrics and current metrics as autoscaling/v2 has them; an autoscaling/v1
    object's CPU target (80% when it names none) converted as the apiserver does."""
    spec = dict_field(hpa, "spec")
    status = dict_field(hpa, "status")
    v1 = _str(hpa.get("apiVersion")) == "autoscaling/v1" or (
        "metrics" not in spec and "targetCPUUtilizationPercentage" in spec)
    if not v1:
        return _dicts(spec.get("metrics")), _dicts(status.get("currentMetrics"))
    target = spec.get("targetCPUUtilizationPercentage")
    metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 80 if target is None else target}}}]
    current = status.get("currentCPUUtilizationPercentage")
    statuses = [] if current is None else [{"type": "Resource", "resource": {
        "name": "cpu", "current": {"averageUtilization": current}}}]
    return metrics, statuses


def _hpa_targets(hpa: Obj) -> str:
    """Go's formatHPAMetrics: "cpu: 40%/80%", at most two, then "+ N more..."."""
    specs, statuses = _hpa_metrics(hpa)
    if not specs:
        return NONE
    shown: list[str] = []
    for index, spec in enumerate(specs):
        status = statuses[index] if index < len(statuses) else {}
        kind = spec.get("type")
        if kind in ("External", "Object"):
            key = "external" if kind == "External" else "object"
            target = dict_field(dict_field(spec, key), "target")
            current = dict_field(dict_field(status, key), "current") if isinstance(
                status.get(key), dict) else None
            if target.get("averageValue") is not None:
                now_text = UNKNOWN if current is None or current.get(
                    "averageValue") is None else quantity_string(current["averageValue"])
                shown.append(f"{now_text}/{quantity_string(target['averageValue'])} (avg)")
            else:
                now_text = UNKNOWN if current is None else _quantity_or(
                    current.get("value"), "<nil>")
                shown.append(f"{now_text}/{_quantity_or(target.get('value'), '<nil>')}")
        elif kind == "Pods":
            target = dict_field(dict_field(spec, "pods"), "target")
            current = status.get("pods")
            now_text = UNKNOWN if not isinstance(current, dict) else _quantity_or(
                _get(current, "current", "averageValue"), "<nil>")
            shown.append(f"{now_text}/{_quantity_or(target.get('averageValue'), '<nil>')}")
        elif kind in ("Resource", "ContainerResource"):
            key = "resource" if kind == "Resource" else "containerResource"
            source = dict_field(spec, key)
            target = dict_field(source, "target")
            current = status.get(key)
            name = _str(source.get("name"))
            if target.get("averageValue") is not None:
                now_text = UNKNOWN if not isinstance(current, dict) else _quantity_or(
                    _get(current, "current", "averageValue"), "<nil>")
                shown.append(f"{name}: {now_text}/{quantity_string(target['averageValue'])}")
            else:
                utilization = _get(current, "current", "averageUtilization") if isinstance(
                    current, dict) else None
                now_text = UNKNOWN if utilization is None else f"{_int(utilization)}%"
                want = target.get("averageUtilization")
                want_text = "<auto>" if want is None else f"{_int(want)}%"
                shown.append(f"{name}: {now_text}/{want_text}")
        else:
            shown.append("<unknown type>")
    text = ", ".join(shown[:2])
    return f"{text} + {len(shown) - 2} more..." if len(shown) > 2 else text


def _hpa_cells(hpa: Obj, now: float) -> list[Any]:
    spec = dict_field(hpa, "spec")
    ref = dict_field(spec, "scaleTargetRef")
    minimum = spec.get("minReplicas")
    return [_name(hpa), f"{_str(ref.get('kind'))}/{_str(ref.get('name'))}", _hpa_targets(hpa),
            "<unset>" if minimum is None else str(_int(minimum)), _int(spec.get("maxReplicas")),
            _int(_get(hpa, "status", "currentReplicas")), _created(hpa, now)]


def _pdb_cells(pdb: Obj, now: float) -> list[Any]:
    spec = dict_field(pdb, "spec")
    minimum, maximum = spec.get("minAvailable"), spec.get("maxUnavailable")
    return [_name(pdb), "N/A" if minimum is None else int_or_string(minimum),
            "N/A" if maximum is None else int_or_string(maximum),
            _int(_get(pdb, "status", "disruptionsAllowed")), _created(pdb, now)]


def _priority_class_cells(pc: Obj, now: float) -> list[Any]:
    return [_name(pc), _int(pc.get("value")), pc.get("globalDefault") is True,
            _created(pc, now), _str(pc.get("preemptionPolicy"))]


def _runtime_class_cells(rc: Obj, now: float) -> list[Any]:
    return [_name(rc), _str(rc.get("handler")), _created(rc, now)]


# -- admissionregistration -------------------------------------------------------------------------


def _webhook_configuration_cells(config: Obj, now: float) -> list[Any]:
    return [_name(config), len(_dicts(config.get("webhooks"))), _created(config, now)]


def _admission_policy_cells(policy: Obj, now: float) -> list[Any]:
    spec = dict_field(policy, "spec")
    kind = spec.get("paramKind")
    param_kind = (f"{_str(kind.get('apiVersion'))}/{_str(kind.get('kind'))}"
                  if isinstance(kind, dict) else "<unset>")
    return [_name(policy), len(_dicts(spec.get("validations"))), param_kind,
            _created(policy, now)]


def _admission_binding_cells(binding: Obj, now: float) -> list[Any]:
    spec = dict_field(binding, "spec")
    ref = spec.get("paramRef")
    param = "<unset>"
    if isinstance(ref, dict):
        if ref.get("name"):
            param = f"{_str(ref.get('namespace')) or '*'}/{_str(ref.get('name'))}"
        elif isinstance(ref.get("selector"), dict):
            param = _go_label_selector_string(ref["selector"])
    return [_name(binding), _str(spec.get("policyName")), param, _created(binding, now)]


# -- flowcontrol ---------------------------------------------------------------------------------


def _go_label_selector_string(selector: dict[str, Any]) -> str:
    """A LabelSelector as Go's generated `String()` prints it (what the apiserver shows
    for a policy binding's paramRef selector)."""
    labels = dict_field(selector, "matchLabels")
    pairs = "".join(f"{k}: {labels[k]}," for k in sorted(labels))
    exprs = "".join(
        f"LabelSelectorRequirement{{Key:{_str(e.get('key'))},"
        f"Operator:{_str(e.get('operator'))},"
        f"Values:[{' '.join(str(v) for v in e.get('values') or [])}],}},"
        for e in _dicts(selector.get("matchExpressions")))
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{pairs}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


def _flow_schema_cells(schema: Obj, now: float) -> list[Any]:
    spec = dict_field(schema, "spec")
    method = spec.get("distinguisherMethod")
    missing = "?"
    for cond in _dicts(_get(schema, "status", "conditions")):
        if cond.get("type") == "Dangling":
            missing = _str(cond.get("status"))
            break
    return [_name(schema), _str(_get(spec, "priorityLevelConfiguration", "name")),
            _int(spec.get("matchingPrecedence")),
            _str(method.get("type")) if isinstance(method, dict) else NONE,
            _created(schema, now), missing]


def _flow_schema_order(schema: Obj) -> tuple[int, str]:
    """FlowSchemaSequence: the lowest matchingPrecedence first, then by name."""
    return _int(_get(schema, "spec", "matchingPrecedence")), _name(schema)


def _priority_level_cells(level: Obj, now: float) -> list[Any]:
    spec = dict_field(level, "spec")
    shares: Any = NONE
    queues: Any = NONE
    hand_size: Any = NONE
    queue_length: Any = NONE
    limited = spec.get("limited")
    if isinstance(limited, dict):
        value = limited.get("nominalConcurrencyShares")
        shares = 30 if value is None else _int(value)  # v1's default
        queuing = _get(limited, "limitResponse", "queuing")
        if isinstance(queuing, dict):
            queues = _int(queuing.get("queues") or 64)
            hand_size = _int(queuing.get("handSize") or 8)
            queue_length = _int(queuing.get("queueLengthLimit") or 50)
    return [_name(level), _str(spec.get("type")), shares, queues, hand_size, queue_length,
            _created(level, now)]


# -- the printers of the kinds above (columns as kube-apiserver v1.32's printers.go) ----

JOB_PRINTER = TablePrinter((
    _name_column(),
    Column("Status", description="Status of the job."),
    Column("Completions", description=(
        "The number of pods which reached phase Succeeded. The value increases monotonically "
        "for a given spec. However, it may decrease in reaction to scale down of elastic "
        "indexed jobs.")),
    Column("Duration", description="Time required to complete the job."),
    _AGE,
    Column("Containers", priority=1, description=_CONTAINERS_DOC),
    Column("Images", priority=1, description=_IMAGES_DOC),
    Column("Selector", priority=1, description=(
        "A label query over pods that should match the pod count. Normally, the system sets "
        "this field for you. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
        "#label-selectors")),
), _job_cells)

CRONJOB_PRINTER = TablePrinter((
    _name_column(),
    Column("Schedule", description=(
        "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.")),
    Column("Timezone", description=(
        "The time zone name for the given schedule, see "
        "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this "
        "will default to the time zone of the kube-controller-manager process. The set of "
        "valid time zone names and the time zone offset is loaded from the system-wide time "
        "zone database by the API server during CronJob validation and the controller manager "
        "during execution. If no system-wide time zone database can be found a bundled version "
        "of the database is used instead. If the time zone name becomes invalid during the "
        "lifetime of a CronJob or due to a change in host configuration, the controller will "
        "stop creating new new Jobs and will create a system event with the reason "
        "UnknownTimeZone. More information can be found in "
        "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones")),
    Column("Suspend", "boolean", description=(
        "This flag tells the controller to suspend subsequent executions, it does not apply to "
        "already started executions.  Defaults to false.")),
    Column("Active", "integer", description="A list of pointers to currently running jobs."),
    Column("Last Schedule", description=(
        "Information when was the last time the job was successfully scheduled.")),
    _AGE,
    Column("Containers", priority=1, description=_CONTAINERS_DOC),
    Column("Images", priority=1, description=_IMAGES_DOC),
    Column("Selector", priority=1, description=(
        "A label query over pods that should match the pod count. Normally, the system sets "
        "this field for you. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
        "#label-selectors")),
), _cronjob_cells)

REPLICATIONCONTROLLER_PRINTER = TablePrinter((
    _name_column(),
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
    _AGE,
    Column("Containers", priority=1, description=_CONTAINERS_DOC),
    Column("Images", priority=1, description=_IMAGES_DOC),
    Column("Selector", priority=1, description=(
        "Selector is a label query over pods that should match the Replicas count. If Selector "
        "is empty, it is defaulted to the labels present on the Pod template. Label keys and "
        "values that must match in order to be controlled by this replication controller, if "
        "empty defaulted to labels on Pod template. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
        "#label-selectors")),
), _replication_controller_cells)

INGRESS_PRINTER = TablePrinter((
    _name_column(),
    Column("Class", description=(
        "The name of the IngressClass resource that should be used for additional configuration")),
    Column("Hosts", description=(
        "Hosts that incoming requests are matched against before the ingress rule")),
    Column("Address", description=(
        "Address is a list containing ingress points for the load-balancer")),
    Column("Ports", description="Ports of TLS configurations that open"),
    _AGE,
), _ingress_cells)

INGRESSCLASS_PRINTER = TablePrinter((
    _name_column(),
    Column("Controller", description="Controller that is responsible for handling this class"),
    Column("Parameters", description="A reference to a resource with additional parameters"),
    _AGE,
), _ingress_class_cells)

NETWORKPOLICY_PRINTER = TablePrinter((
    _name_column(),
    Column("Pod-Selector", description=(
        "Selects the pods to which this NetworkPolicy object applies.  The array of ingress "
        "rules is applied to any pods selected by this field. Multiple network policies can "
        "select the same set of pods.  In this case, the ingress rules for each are combined "
        "additively. This field is NOT optional and follows standard label selector semantics. "
        "An empty podSelector matches all pods in this namespace.")),
    _AGE,
), _network_policy_cells)

ROLEBINDING_PRINTER = TablePrinter((
    _name_column(),
    Column("Role", description=(
        "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
        "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.")),
    _AGE,
    Column("Users", priority=1, description="Users in the roleBinding"),
    Column("Groups", priority=1, description="Groups in the roleBinding"),
    Column("ServiceAccounts", priority=1, description="ServiceAccounts in the roleBinding"),
), _binding_cells)

CLUSTERROLEBINDING_PRINTER = TablePrinter((
    _name_column(),
    Column("Role", description=(
        "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef "
        "cannot be resolved, the Authorizer must return an error.")),
    _AGE,
    Column("Users", priority=1, description="Users in the clusterRoleBinding"),
    Column("Groups", priority=1, description="Groups in the clusterRoleBinding"),
    Column("ServiceAccounts", priority=1, description=(
        "ServiceAccounts in the clusterRoleBinding")),
), _binding_cells)

CSR_PRINTER = TablePrinter((
    _name_column(),
    _AGE,
    Column("SignerName", description=(
        "Requested signer for the request. It is a qualified name in the form: "
        "`scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet "
        "client certificate, it is assigned\n    "
        "\"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving "
        "certificate, it is assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, "
        "it is assigned \"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers "
        "happens out of band. You can select on this field using `spec.signerName`.")),
    Column("Requestor", description="Base64-encoded PKCS#10 CSR data"),
    Column("RequestedDuration", description=(
        "expirationSeconds is the requested duration of validity of the issued certificate. "
        "The certificate signer may issue a certificate with a different validity duration so "
        "a client must check the delta between the notBefore and and notAfter fields in the "
        "issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree "
        "implementations of the well-known Kubernetes signers will honor this field as long as "
        "the requested duration is not greater than the maximum duration they will honor per "
        "the --cluster-signing-duration CLI flag to the Kubernetes controller "
        "manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. "
        "Old signer that is unaware of the field (such as the in-tree\n     implementations "
        "prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested "
        "duration\n  3. Signer whose configured minimum is longer than the requested "
        "duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.")),
    Column("Condition", description=(
        "Conditions applied to the request, such as approval or denial.")),
), _csr_cells)

STORAGECLASS_PRINTER = TablePrinter((
    _name_column(),
    Column("Provisioner", description="provisioner indicates the type of the provisioner."),
    Column("ReclaimPolicy", description=(
        "reclaimPolicy controls the reclaimPolicy for dynamically provisioned "
        "PersistentVolumes of this storage class. Defaults to Delete.")),
    Column("VolumeBindingMode", description=(
        "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and "
        "bound.  When unset, VolumeBindingImmediate is used. This field is only honored by "
        "servers that enable the VolumeScheduling feature.")),
    Column("AllowVolumeExpansion", description=(
        "allowVolumeExpansion shows whether the storage class allow volume expand.")),
    _AGE,
), _storage_class_cells)

CSIDRIVER_PRINTER = TablePrinter((
    _name_column(),
    Column("AttachRequired", "boolean", description=(
        "attachRequired indicates this CSI volume driver requires an attach operation (because "
        "it implements the CSI ControllerPublishVolume() method), and that the Kubernetes "
        "attach detach controller should call the attach volume interface which checks the "
        "volumeattachment status and waits until the volume is attached before proceeding to "
        "mounting. The CSI external-attacher coordinates with CSI volume driver and updates "
        "the volumeattachment status when the attach operation is complete. If the "
        "CSIDriverRegistry feature gate is enabled and the value is specified to false, the "
        "attach operation will be skipped. Otherwise the attach operation will be "
        "called.\n\nThis field is immutable.")),
    Column("PodInfoOnMount", "boolean", description=(
        "podInfoOnMount indicates this CSI volume driver requires additional pod information "
        "(like podName, podUID, etc.) during mount operations, if set to true. If set to "
        "false, pod information will not be passed on mount. Default is false.\n\nThe CSI "
        "driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will "
        "pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI "
        "driver is responsible for parsing and validating the information passed in as "
        "VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set "
        "to true. This list might grow, but the prefix will be used. "
        "\"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": "
        "pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) "
        "\"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline "
        "volume\n                                defined by a CSIVolumeSource, otherwise "
        "\"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It "
        "is only required for drivers which support both the \"Persistent\" and \"Ephemeral\" "
        "VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this "
        "field. As Kubernetes 1.15 doesn't support this field, drivers can only support one "
        "mode when deployed on such a cluster and the deployment determines which mode that "
        "is, for example via a command line parameter of the driver.\n\nThis field was "
        "immutable in Kubernetes < 1.29 and now is mutable.")),
    Column("StorageCapacity", "boolean", description=(
        "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider "
        "the storage capacity that the driver deployment will report by creating "
        "CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check "
        "can be enabled immediately when deploying a driver. In that case, provisioning new "
        "volumes with late binding will pause until the driver deployment has published some "
        "suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with "
        "the field unset or false and it can be flipped later when storage capacity "
        "information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and "
        "now is mutable.")),
    Column("TokenRequests", description=(
        "tokenRequests indicates the CSI driver needs pods' service account tokens it is "
        "mounting volume for to do necessary authentication. Kubelet will pass the tokens in "
        "VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and "
        "validate the following VolumeContext: \"csi.storage.k8s.io/serviceAccount.tokens\": "
        "{\n  \"<audience>\": {\n    \"token\": <token>,\n    \"expirationTimestamp\": "
        "<expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each "
        "TokenRequest should be different and at most one token is empty string. To receive a "
        "new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume "
        "periodically.")),
    Column("RequiresRepublish", "boolean", description=(
        "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being "
        "periodically called to reflect any possible change in the mounted volume. This field "
        "defaults to false.\n\nNote: After a successful initial NodePublishVolume call, "
        "subsequent calls to NodePublishVolume should only update the contents of the volume. "
        "New mount points will not be seen by a running container.")),
    Column("Modes", description=(
        "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. "
        "The default if the list is empty is \"Persistent\", which is the usage defined by the "
        "CSI specification and implemented in Kubernetes via the usual PV/PVC "
        "mechanism.\n\nThe other mode is \"Ephemeral\". In this mode, volumes are defined "
        "inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the "
        "lifecycle of that pod. A driver has to be aware of this because it is only going to "
        "get a NodePublishVolume call for such a volume.\n\nFor more information about "
        "implementing this mode, see "
        "https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can "
        "support one or more of these modes and more modes may be added in the future.\n\nThis "
        "field is beta. This field is immutable.")),
    _AGE,
), _csi_driver_cells)

CSINODE_PRINTER = TablePrinter((
    _name_column(),
    Column("Drivers", "integer", description=(
        "Drivers indicates the number of CSI drivers registered on the node")),
    _AGE,
), _csi_node_cells)

CSISTORAGECAPACITY_PRINTER = TablePrinter((
    _name_column(),
    Column("StorageClassName", description=(
        "storageClassName represents the name of the StorageClass that the reported capacity "
        "applies to. It must meet the same requirements as the name of a StorageClass object "
        "(non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity "
        "object is obsolete and should be removed by its creator. This field is immutable.")),
    Column("Capacity", description=(
        "capacity is the value reported by the CSI driver in its GetCapacityResponse for a "
        "GetCapacityRequest with topology and parameters that match the previous "
        "fields.\n\nThe semantic is currently (CSI spec 1.2) defined as: The available "
        "capacity, in bytes, of the storage that can be used to provision volumes. If not set, "
        "that information is currently unavailable.")),
), _csi_storage_capacity_cells)

VOLUMEATTACHMENT_PRINTER = TablePrinter((
    _name_column(),
    Column("Attacher", "string", "name", description=(
        "attacher indicates the name of the volume driver that MUST handle this request. This "
        "is the name returned by GetPluginName().")),
    Column("PV", description=(
        "persistentVolumeName represents the name of the persistent volume to attach.")),
    Column("Node", description=(
        "nodeName represents the node that the volume should be attached to.")),
    Column("Attached", "boolean", description=(
        "attached indicates the volume is successfully attached. This field must only be set "
        "by the entity completing the attach operation, i.e. the external-attacher.")),
    _AGE,
), _volume_attachment_cells)

PERSISTENTVOLUME_PRINTER = TablePrinter((
    _name_column(),
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
    _AGE,
    Column("VolumeMode", priority=1, description=(
        "volumeMode defines if a volume is intended to be used with a formatted filesystem or "
        "to remain in raw block state. Value of Filesystem is implied when not included in "
        "spec.")),
), _pv_cells)

PERSISTENTVOLUMECLAIM_PRINTER = TablePrinter((
    _name_column(),
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
    _AGE,
    Column("VolumeMode", priority=1, description=(
        "volumeMode defines what type of volume is required by the claim. Value of Filesystem "
        "is implied when not included in claim spec.")),
), _pvc_cells)

HPA_PRINTER = TablePrinter((
    _name_column(),
    Column("Reference", description=(
        "scaleTargetRef points to the target resource to scale, and is used to the pods for "
        "which metrics should be collected, as well as to actually change the replica count.")),
    Column("Targets", description=(
        "metrics contains the specifications for which to use to calculate the desired replica "
        "count (the maximum replica count across all metrics will be used).  The desired "
        "replica count is calculated multiplying the ratio between the target value and the "
        "current value by the current number of pods.  Ergo, metrics used must decrease as the "
        "pod count is increased, and vice-versa.  See the individual metric source types for "
        "more information about how each type of metric must respond.")),
    Column("MinPods", description=(
        "minReplicas is the lower limit for the number of replicas to which the autoscaler can "
        "scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha "
        "feature gate HPAScaleToZero is enabled and at least one Object or External metric is "
        "configured.  Scaling is active as long as at least one metric value is available.")),
    Column("MaxPods", description=(
        "maxReplicas is the upper limit for the number of replicas to which the autoscaler can "
        "scale up. It cannot be less that minReplicas.")),
    Column("Replicas", description=(
        "currentReplicas is current number of replicas of pods managed by this autoscaler, as "
        "last seen by the autoscaler.")),
    _AGE,
), _hpa_cells)

PDB_PRINTER = TablePrinter((
    _name_column(),
    Column("Min Available", description="The minimum number of pods that must be available."),
    Column("Max Unavailable", description=(
        "The maximum number of pods that may be unavailable.")),
    Column("Allowed Disruptions", "integer", description=(
        "Calculated number of pods that may be disrupted at this time.")),
    _AGE,
), _pdb_cells)

PRIORITYCLASS_PRINTER = TablePrinter((
    _name_column(),
    Column("Value", "integer", description=(
        "value represents the integer value of this priority class. This is the actual "
        "priority that pods receive when they have the name of this class in their pod spec.")),
    Column("Global-Default", "boolean", description=(
        "globalDefault specifies whether this PriorityClass should be considered as the "
        "default priority for pods that do not have any priority class. Only one PriorityClass "
        "can be marked as `globalDefault`. However, if more than one PriorityClasses exists "
        "with their `globalDefault` field set to true, the smallest value of such global "
        "default PriorityClasses will be used as the default priority.")),
    _AGE,
    Column("PreemptionPolicy", description=(
        "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, "
        "PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.")),
), _priority_class_cells)

ENDPOINTSLICE_PRINTER = TablePrinter((
    _name_column(),
    Column("AddressType", description=(
        "addressType specifies the type of address carried by this EndpointSlice. All "
        "addresses in this slice must be the same type. This field is immutable after "
        "creation. The following address types are currently supported: * IPv4: Represents an "
        "IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully "
        "Qualified Domain Name.")),
    Column("Ports", description=(
        "ports specifies the list of network ports exposed by each endpoint in this slice. "
        "Each port must have a unique name. When ports is empty, it indicates that there are "
        "no defined ports. When a port is defined with a nil port value, it indicates \"all "
        "ports\". Each slice may include a maximum of 100 ports.")),
    Column("Endpoints", description=(
        "endpoints is a list of unique endpoints in this slice. Each slice may include a "
        "maximum of 1000 endpoints.")),
    _AGE,
), _endpoint_slice_cells)

ENDPOINTS_PRINTER = TablePrinter((
    _name_column(),
    Column("Endpoints", description=(
        "The set of all endpoints is the union of all subsets. Addresses are placed into "
        "subsets according to the IPs they share. A single address with multiple ports, some "
        "of which are ready and some of which are not (because they come from different "
        "containers) will result in the address being displayed in different subsets for the "
        "different ports. No address will appear in both Addresses and NotReadyAddresses in "
        "the same subset. Sets of addresses and ports that comprise a service.")),
    _AGE,
), lambda o, now: [_name(o), _endpoints_text(o), _created(o, now)])

RESOURCEQUOTA_PRINTER = TablePrinter((
    _name_column(),
    _AGE,
    Column("Request", description=(
        "Request represents a minimum amount of cpu/memory that a container may consume.")),
    Column("Limit", description=(
        "Limits control the maximum amount of cpu/memory that a container may use independent "
        "of contention on the node.")),
), _resource_quota_cells)

MUTATINGWEBHOOK_PRINTER = TablePrinter((
    _name_column(),
    Column("Webhooks", "integer", description=(
        "Webhooks indicates the number of webhooks registered in this configuration")),
    _AGE,
), _webhook_configuration_cells)

#: kube-apiserver prints both kinds of webhook configuration alike.
VALIDATINGWEBHOOK_PRINTER = MUTATINGWEBHOOK_PRINTER

VALIDATINGADMISSIONPOLICY_PRINTER = TablePrinter((
    _name_column(),
    Column("Validations", "integer", description=(
        "Validations indicates the number of validation rules defined in this configuration")),
    Column("ParamKind", description=(
        "ParamKind specifies the kind of resources used to parameterize this policy")),
    _AGE,
), _admission_policy_cells)

VALIDATINGADMISSIONPOLICYBINDING_PRINTER = TablePrinter((
    _name_column(),
    Column("PolicyName", description=(
        "PolicyName indicates the policy definition which the policy binding binded to")),
    Column("ParamRef", description=(
        "ParamRef indicates the param resource which sets the configration param")),
    _AGE,
), _admission_binding_cells)

RUNTIMECLASS_PRINTER = TablePrinter((
    _name_column(),
    Column("Handler", description=""),
    _AGE,
), _runtime_class_cells)

FLOWSCHEMA_PRINTER = TablePrinter((
    _name_column(),
    Column("PriorityLevel", description=(
        "`name` is the name of the priority level configuration being referenced Required.")),
    Column("MatchingPrecedence", description=(
        "`matchingPrecedence` is used to choose among the FlowSchemas that match a given "
        "request. The chosen FlowSchema is among those with the numerically lowest (which we "
        "take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must "
        "be ranged in [1,10000]. Note that if the precedence is not specified, it will be set "
        "to 1000 as default.")),
    Column("DistinguisherMethod", description=(
        "`distinguisherMethod` defines how to compute the flow distinguisher for requests that "
        "match this schema. `nil` specifies that the distinguisher is disabled and thus will "
        "always be the empty string.")),
    _AGE,
    Column("MissingPL", description=(
        "references a broken or non-existent PriorityLevelConfiguration")),
), _flow_schema_cells, order=_flow_schema_order)

PRIORITYLEVEL_PRINTER = TablePrinter((
    _name_column(),
    Column("Type", description=(
        "`type` indicates whether this priority level is subject to limitation on request "
        "execution.  A value of `\"Exempt\"` means that requests of this priority level are "
        "not subject to a limit (and thus are never queued) and do not detract from the "
        "capacity made available to other priority levels.  A value of `\"Limited\"` means "
        "that (a) requests of this priority level _are_ subject to limits and (b) some of the "
        "server's limited capacity is made available exclusively to this priority level. "
        "Required.")),
    Column("NominalConcurrencyShares", description=(
        "`nominalConcurrencyShares` (NCS) contributes to the computation of the "
        "NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution "
        "seats available at this priority level. This is used both for requests dispatched "
        "from this priority level as well as requests dispatched from other priority levels "
        "borrowing seats from this level. The server's concurrency limit (ServerCL) is divided "
        "among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  "
        "= ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] "
        "NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of "
        "every other priority level.\n\nIf not specified, this field defaults to a value of "
        "30.\n\nSetting this field to zero supports the construction of a \"jail\" for this "
        "priority level that is used to hold some request(s)")),
    Column("Queues", description=(
        "`queues` is the number of queues for this priority level. The queues exist "
        "independently at each apiserver. The value must be positive.  Setting it to 1 "
        "effectively precludes shufflesharding and thus makes the distinguisher method of "
        "associated flow schemas irrelevant.  This field has a default value of 64.")),
    Column("HandSize", description=(
        "`handSize` is a small positive number that configures the shuffle sharding of "
        "requests into queues.  When enqueuing a request at this priority level the request's "
        "flow identifier (a string pair) is hashed and the hash value is used to shuffle the "
        "list of queues and deal a hand of the size specified here.  The request is put into "
        "one of the shortest queues in that hand. `handSize` must be no larger than `queues`, "
        "and should be significantly smaller (so that a few heavy flows do not saturate most "
        "of the queues).  See the user-facing documentation for more extensive guidance on "
        "setting this field.  This field has a default value of 8.")),
    Column("QueueLengthLimit", description=(
        "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given "
        "queue of this priority level at a time; excess requests are rejected.  This value "
        "must be positive.  If not specified, it will be defaulted to 50.")),
    _AGE,
), _priority_level_cells)

CONTROLLERREVISION_PRINTER = TablePrinter((
    _name_column(),
    Column("Controller", description="Controller of the object"),
    Column("Revision", description=(
        "revision indicates the revision of the state represented by Data.")),
    _AGE,
), _controller_revision_cells)

PODTEMPLATE_PRINTER = TablePrinter((
    _name_column(),
    Column("Containers", description=_CONTAINERS_DOC),
    Column("Images", description=_IMAGES_DOC),
    Column("Pod Labels", description="The labels for the pod template."),
), _pod_template_cells)

COMPONENTSTATUS_PRINTER = TablePrinter((
    _name_column(),
    Column("Status", description="Status of the component conditions"),
    Column("Message", description="Message of the component conditions"),
    Column("Error", description="Error of the component conditions"),
), _component_status_cells)

APISERVICE_PRINTER = TablePrinter((
    _name_column(),
    Column("Service", description="The reference to the service that hosts this API endpoint."),
    Column("Available", description="Whether this service is available."),
    _AGE,
), _apiservice_cells)
"""kube-aggregator's table for APIServices (its own convertor, not printers.go)."""


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
    ("", "ReplicationController"): REPLICATIONCONTROLLER_PRINTER,
    ("", "Endpoints"): ENDPOINTS_PRINTER,
    ("", "PersistentVolume"): PERSISTENTVOLUME_PRINTER,
    ("", "PersistentVolumeClaim"): PERSISTENTVOLUMECLAIM_PRINTER,
    ("", "ResourceQuota"): RESOURCEQUOTA_PRINTER,
    ("", "PodTemplate"): PODTEMPLATE_PRINTER,
    ("", "ComponentStatus"): COMPONENTSTATUS_PRINTER,
    ("apps", "ControllerRevision"): CONTROLLERREVISION_PRINTER,
    ("batch", "Job"): JOB_PRINTER,
    ("batch", "CronJob"): CRONJOB_PRINTER,
    ("networking.k8s.io", "Ingress"): INGRESS_PRINTER,
    ("networking.k8s.io", "IngressClass"): INGRESSCLASS_PRINTER,
    ("networking.k8s.io", "NetworkPolicy"): NETWORKPOLICY_PRINTER,
    ("discovery.k8s.io", "EndpointSlice"): ENDPOINTSLICE_PRINTER,
    ("rbac.authorization.k8s.io", "RoleBinding"): ROLEBINDING_PRINTER,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): CLUSTERROLEBINDING_PRINTER,
    ("certificates.k8s.io", "CertificateSigningRequest"): CSR_PRINTER,
    ("apiregistration.k8s.io", "APIService"): APISERVICE_PRINTER,
    ("storage.k8s.io", "StorageClass"): STORAGECLASS_PRINTER,
    ("storage.k8s.io", "CSIDriver"): CSIDRIVER_PRINTER,
    ("storage.k8s.io", "CSINode"): CSINODE_PRINTER,
    ("storage.k8s.io", "CSIStorageCapacity"): CSISTORAGECAPACITY_PRINTER,
    ("storage.k8s.io", "VolumeAttachment"): VOLUMEATTACHMENT_PRINTER,
    ("autoscaling", "HorizontalPodAutoscaler"): HPA_PRINTER,
    ("policy", "PodDisruptionBudget"): PDB_PRINTER,
    ("scheduling.k8s.io", "PriorityClass"): PRIORITYCLASS_PRINTER,
    ("node.k8s.io", "RuntimeClass"): RUNTIMECLASS_PRINTER,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): MUTATINGWEBHOOK_PRINTER,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"):
        VALIDATINGWEBHOOK_PRINTER,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"):
        VALIDATINGADMISSIONPOLICY_PRINTER,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"):
        VALIDATINGADMISSIONPOLICYBINDING_PRINTER,
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): FLOWSCHEMA_PRINTER,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): PRIORITYLEVEL_PRINTER,
}
"""Roles, ClusterRoles, LimitRanges and custom resources have no printer in kube-apiserver
either: they get `DEFAULT_PRINTER` (Name, Created At)."""


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
BUILTIN_RESOURCES.update({
    ("", "replicationcontrollers"): "ReplicationController", ("", "endpoints"): "Endpoints",
    ("", "persistentvolumes"): "PersistentVolume",
    ("", "persistentvolumeclaims"): "PersistentVolumeClaim",
    ("", "resourcequotas"): "ResourceQuota", ("", "podtemplates"): "PodTemplate",
    ("", "componentstatuses"): "ComponentStatus",
    ("apps", "controllerrevisions"): "ControllerRevision",
    ("batch", "jobs"): "Job", ("batch", "cronjobs"): "CronJob",
    ("networking.k8s.io", "ingresses"): "Ingress",
    ("networking.k8s.io", "ingressclasses"): "IngressClass",
    ("networking.k8s.io", "networkpolicies"): "NetworkPolicy",
    ("discovery.k8s.io", "endpointslices"): "EndpointSlice",
    ("rbac.authorization.k8s.io", "rolebindings"): "RoleBinding",
    ("rbac.authorization.k8s.io", "clusterrolebindings"): "ClusterRoleBinding",
    ("certificates.k8s.io", "certificatesigningrequests"): "CertificateSigningRequest",
    ("apiregistration.k8s.io", "apiservices"): "APIService",
    ("storage.k8s.io", "storageclasses"): "StorageClass",
    ("storage.k8s.io", "csidrivers"): "CSIDriver", ("storage.k8s.io", "csinodes"): "CSINode",
    ("storage.k8s.io", "csistoragecapacities"): "CSIStorageCapacity",
    ("storage.k8s.io", "volumeattachments"): "VolumeAttachment",
    ("autoscaling", "horizontalpodautoscalers"): "HorizontalPodAutoscaler",
    ("policy", "poddisruptionbudgets"): "PodDisruptionBudget",
    ("scheduling.k8s.io", "priorityclasses"): "PriorityClass",
    ("node.k8s.io", "runtimeclasses"): "RuntimeClass",
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"):
        "MutatingWebhookConfiguration",
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"):
        "ValidatingWebhookConfiguration",
    ("admissionregistration.k8s.io", "validatingadmissionpolicies"): "ValidatingAdmissionPolicy",
    ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"):
        "ValidatingAdmissionPolicyBinding",
    ("flowcontrol.apiserver.k8s.io", "flowschemas"): "FlowSchema",
    ("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"):
        "PriorityLevelConfiguration",
})


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
                     for obj in (sorted(objects, key=printer.order) if printer.order
                                 else objects)]}
