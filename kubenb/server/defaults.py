"""What kube-apiserver v1.32 fills in on a write: defaulting, admission, allocation.

A real apiserver decodes every body into its Go type, runs the type's `SetDefaults_*`
functions, then admission plugins, then its REST strategy (which allocates a Service's
cluster IP and node ports and sets the initial status). Clients rely on the result: a
created Pod has `restartPolicy: Always`, a Service has a `clusterIP`, a Deployment has a
rolling-update strategy. This module does the same on plain dicts, in three steps that
mirror the real order, because `managedFields` are computed between them:

- `set_defaults(rtype, obj)` the `SetDefaults_*` functions, on create and on every
  update (they are idempotent). The writer's managedFields include what they set.
- `admit_create(rtype, obj, storage)` what admission plugins and the REST strategy add on
  create only (pod tolerations and priority, a Service's cluster IP and node ports, the
  initial status). Not owned by the writer, as on a real server.
- `admit_update(rtype, old, new, storage)` what an update keeps from the stored object
  (allocated IPs and ports a PUT left out, admission-set pod fields).

Compare tests/fixtures/realapi/objects/*-create.json. Simplified: the ServiceAccount
admission plugin is off (pods get no token volume; the fixtures' first phase ran the same
way), one IPv4 service range (10.96.0.0/12), no LimitRanger, no ResourceQuota.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import ipaddress
import re
from collections.abc import Callable, Iterable
from typing import Any

from kubenb.server import errors, typeinfo
from kubenb.server.errors import cause
from kubenb.server.resources import ResourceType
from kubenb.server.storage import Storage

Obj = dict[str, Any]

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
KUBERNETES_SERVICE_IP = "10.96.0.1"  # the first address: the `default/kubernetes` Service
NODE_PORT_RANGE = (30000, 32767)
DEFAULT_TOLERATIONS: tuple[dict[str, Any], ...] = tuple(
    {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"))
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2000001000,
                           "system-cluster-critical": 2000000000}
_HTTP_GET_HOLDERS = ("livenessProbe", "readinessProbe", "startupProbe")


def _dict(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """parent[key] as a dict, created (and stored) when missing or not a dict."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


# -- pods and pod templates -------------------------------------------------------------------


def image_pull_policy(image: str) -> str:
    """Always for `:latest` or an untagged image, else IfNotPresent (a digest counts)."""
    if "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    tag = last.rpartition(":")[2] if ":" in last else ""
    return "Always" if tag in ("", "latest") else "IfNotPresent"


def _http_get(handler: Any) -> None:
    if isinstance(handler, dict) and isinstance(handler.get("httpGet"), dict):
        get = handler["httpGet"]
        get.setdefault("path", "/")
        get.setdefault("scheme", "HTTP")


def _probe(probe: Any) -> None:
    if not isinstance(probe, dict):
        return
    _http_get(probe)
    probe.setdefault("timeoutSeconds", 1)
    probe.setdefault("periodSeconds", 10)
    probe.setdefault("successThreshold", 1)
    probe.setdefault("failureThreshold", 3)


def _field_ref(holder: Any) -> None:
    if isinstance(holder, dict) and isinstance(holder.get("fieldRef"), dict):
        holder["fieldRef"].setdefault("apiVersion", "v1")


def _container(container: dict[str, Any], host_network: bool) -> None:
    for port in _dicts(container.get("ports")):
        port.setdefault("protocol", "TCP")
        if host_network and "containerPort" in port:
            port.setdefault("hostPort", port["containerPort"])
    for env in _dicts(container.get("env")):
        _field_ref(env.get("valueFrom"))
    for name in _HTTP_GET_HOLDERS:
        _probe(container.get(name))
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            _http_get(lifecycle.get(hook))
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    image = container.get("image")
    if isinstance(image, str) and image:
        container.setdefault("imagePullPolicy", image_pull_policy(image))


def _volume(volume: dict[str, Any]) -> None:
    for kind in ("configMap", "secret", "downwardAPI", "projected"):
        if isinstance(volume.get(kind), dict):
            volume[kind].setdefault("defaultMode", 420)
    if isinstance(volume.get("hostPath"), dict):
        volume["hostPath"].setdefault("type", "")
    if isinstance(volume.get("downwardAPI"), dict):
        for item in _dicts(volume["downwardAPI"].get("items")):
            _field_ref(item)
    if isinstance(volume.get("projected"), dict):
        for source in _dicts(volume["projected"].get("sources")):
            if isinstance(source.get("serviceAccountToken"), dict):
                source["serviceAccountToken"].setdefault("expirationSeconds", 3600)
            if isinstance(source.get("downwardAPI"), dict):
                for item in _dicts(source["downwardAPI"].get("items")):
                    _field_ref(item)


def pod_spec_defaults(spec: dict[str, Any]) -> None:
    """SetDefaults_PodSpec and what it reaches (containers, probes, volumes)."""
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    if spec.get("serviceAccount") and not spec.get("serviceAccountName"):
        spec["serviceAccountName"] = spec["serviceAccount"]
    if spec.get("serviceAccountName"):
        spec["serviceAccount"] = spec["serviceAccountName"]  # the deprecated alias follows
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    host_network = bool(spec.get("hostNetwork"))
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in _dicts(spec.get(key)):
            _container(container, host_network)
    for volume in _dicts(spec.get("volumes")):
        _volume(volume)


def _requests_from_limits(spec: dict[str, Any]) -> None:
    """A Pod's containers request what they limit unless they say otherwise."""
    for key in ("initContainers", "containers"):
        for container in _dicts(spec.get(key)):
            resources = container.get("resources")
            if not isinstance(resources, dict) or not isinstance(resources.get("limits"), dict):
                continue
            requests = _dict(resources, "requests")
            for name, value in resources["limits"].items():
                requests.setdefault(name, value)


def _template(template: Any) -> None:
    """A PodTemplateSpec: pod spec defaults, and the null creationTimestamp Go writes."""
    if not isinstance(template, dict):
        return
    meta = _dict(template, "metadata")
    if "creationTimestamp" not in meta:
        template["metadata"] = {"creationTimestamp": None, **meta}
    pod_spec_defaults(_dict(template, "spec"))


def qos_class(spec: dict[str, Any]) -> str:
    """Guaranteed, Burstable or BestEffort, from the containers' requests and limits."""
    containers = _dicts(spec.get("containers")) + _dicts(spec.get("initContainers"))
    resources = [_as_dict(c.get("resources"))
                 for c in containers]
    requests = [r.get("requests") or {} for r in resources]
    limits = [r.get("limits") or {} for r in resources]
    if not any(req or lim for req, lim in zip(requests, limits, strict=True)):
        return "BestEffort"
    for req, lim in zip(requests, limits, strict=True):
        if not {"cpu", "memory"} <= set(lim):
            return "Burstable"
        if any(req.get(k, lim[k]) != lim[k] for k in ("cpu", "memory")):
            return "Burstable"
    return "Guaranteed"


# -- SetDefaults_* per kind ---------------------------------------------------------------------


def _pod(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    pod_spec_defaults(spec)
    spec.setdefault("enableServiceLinks", True)
    _requests_from_limits(spec)


def _workload_spec(obj: Obj) -> dict[str, Any]:
    spec = _dict(obj, "spec")
    _template(spec.get("template"))
    return spec


def _deployment(obj: Obj) -> None:
    spec = _workload_spec(obj)
    spec.setdefault("replicas", 1)
    strategy = _dict(spec, "strategy")
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = _dict(strategy, "rollingUpdate")
        rolling.setdefault("maxUnavailable", "25%")
        rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)


def _replica_set(obj: Obj) -> None:
    _workload_spec(obj).setdefault("replicas", 1)


def _replication_controller(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    _template(spec.get("template"))
    template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    if not spec.get("selector") and isinstance(template_labels, dict):
        spec["selector"] = dict(template_labels)
    meta = _dict(obj, "metadata")
    if not meta.get("labels") and isinstance(template_labels, dict):
        meta["labels"] = dict(template_labels)
    spec.setdefault("replicas", 1)


def _stateful_set(obj: Obj) -> None:
    spec = _workload_spec(obj)
    spec.setdefault("replicas", 1)
    spec.setdefault("podManagementPolicy", "OrderedReady")
    strategy = _dict(spec, "updateStrategy")
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        _dict(strategy, "rollingUpdate").setdefault("partition", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    retention = _dict(spec, "persistentVolumeClaimRetentionPolicy")
    retention.setdefault("whenDeleted", "Retain")
    retention.setdefault("whenScaled", "Retain")
    for claim in _dicts(spec.get("volumeClaimTemplates")):
        _pvc(claim)
        claim.setdefault("status", {"phase": "Pending"})


def _daemon_set(obj: Obj) -> None:
    spec = _workload_spec(obj)
    strategy = _dict(spec, "updateStrategy")
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = _dict(strategy, "rollingUpdate")
        rolling.setdefault("maxUnavailable", 1)
        rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)


def _job_spec(spec: dict[str, Any], top_level: bool) -> None:
    _template(spec.get("template"))
    if not top_level:
        return
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    spec.setdefault("parallelism", 1)
    spec.setdefault("backoffLimit", 6)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault("podReplacementPolicy",
                    "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed")


def _job(obj: Obj) -> None:
    _job_spec(_dict(obj, "spec"), True)


def _cron_job(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    spec.setdefault("concurrencyPolicy", "Allow")
    spec.setdefault("suspend", False)
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)
    template = _dict(spec, "jobTemplate")
    meta = _dict(template, "metadata")
    if "creationTimestamp" not in meta:
        template["metadata"] = {"creationTimestamp": None, **meta}
    _job_spec(_dict(template, "spec"), False)


def _pod_template(obj: Obj) -> None:
    _template(obj.get("template"))


def _protocols(items: Any) -> None:
    for item in _dicts(items):
        item.setdefault("protocol", "TCP")


def _service(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    if spec["sessionAffinity"] == "ClientIP":
        config = _dict(_dict(spec, "sessionAffinityConfig"), "clientIP")
        config.setdefault("timeoutSeconds", 10800)
    for port in _dicts(spec.get("ports")):
        port.setdefault("protocol", "TCP")
        if port.get("targetPort") in (None, 0, "") and "port" in port:
            port["targetPort"] = port["port"]
    if spec["type"] in ("NodePort", "LoadBalancer"):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    if spec["type"] == "LoadBalancer":
        spec.setdefault("allocateLoadBalancerNodePorts", True)
    if spec["type"] != "ExternalName":
        spec.setdefault("internalTrafficPolicy", "Cluster")


def _endpoints(obj: Obj) -> None:
    for subset in _dicts(obj.get("subsets")):
        _protocols(subset.get("ports"))


def _endpoint_slice(obj: Obj) -> None:
    _protocols(obj.get("ports"))
    for endpoint in _dicts(obj.get("endpoints")):
        _dict(endpoint, "conditions")


def _pvc_spec(spec: dict[str, Any]) -> None:
    spec.setdefault("volumeMode", "Filesystem")


def _pvc(obj: Obj) -> None:
    _pvc_spec(_dict(obj, "spec"))


def _pv(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
    spec.setdefault("volumeMode", "Filesystem")


def _node(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    if spec.get("podCIDR") and not spec.get("podCIDRs"):
        spec["podCIDRs"] = [spec["podCIDR"]]


def _secret(obj: Obj) -> None:
    """stringData is write-only: merged into data (base64), never stored or returned."""
    obj.setdefault("type", "Opaque")
    string_data = obj.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = _dict(obj, "data")
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()
        obj["data"] = dict(sorted(data.items()))


def _network_policy(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    _dict(spec, "podSelector")
    for rule in _dicts(spec.get("ingress")) + _dicts(spec.get("egress")):
        _protocols(rule.get("ports"))
    if not spec.get("policyTypes"):
        types = ["Ingress"]
        if spec.get("egress"):
            types.append("Egress")
        spec["policyTypes"] = types


def _role_binding(obj: Obj) -> None:
    for subject in _dicts(obj.get("subjects")):
        if subject.get("kind") in ("User", "Group"):
            subject.setdefault("apiGroup", "rbac.authorization.k8s.io")


def _storage_class(obj: Obj) -> None:
    obj.setdefault("reclaimPolicy", "Delete")
    obj.setdefault("volumeBindingMode", "Immediate")


def _csi_driver(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    spec.setdefault("attachRequired", True)
    spec.setdefault("podInfoOnMount", False)
    spec.setdefault("volumeLifecycleModes", ["Persistent"])
    spec.setdefault("storageCapacity", False)
    spec.setdefault("fsGroupPolicy", "ReadWriteOnceWithFSType")
    spec.setdefault("requiresRepublish", False)
    spec.setdefault("seLinuxMount", False)


def _priority_class(obj: Obj) -> None:
    obj.setdefault("preemptionPolicy", "PreemptLowerPriority")


def _hpa_v2(obj: Obj) -> None:
    spec = _dict(obj, "spec")
    spec.setdefault("minReplicas", 1)
    if not spec.get("metrics"):
        spec["metrics"] = [{"type": "Resource", "resource": {
            "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
    behavior = _dict(spec, "behavior")
    up = _dict(behavior, "scaleUp")
    up.setdefault("stabilizationWindowSeconds", 0)
    up.setdefault("selectPolicy", "Max")
    up.setdefault("policies", [{"type": "Pods", "value": 4, "periodSeconds": 15},
                               {"type": "Percent", "value": 100, "periodSeconds": 15}])
    down = _dict(behavior, "scaleDown")
    down.setdefault("selectPolicy", "Max")
    down.setdefault("policies", [{"type": "Percent", "value": 100, "periodSeconds": 15}])


def _hpa_v1(obj: Obj) -> None:
    _dict(obj, "spec").setdefault("minReplicas", 1)


def _event(obj: Obj) -> None:
    obj.setdefault("eventTime", None)  # a MicroTime struct: Go writes null when unset


def _webhooks(obj: Obj) -> None:
    for hook in _dicts(obj.get("webhooks")):
        hook.setdefault("failurePolicy", "Fail")
        hook.setdefault("matchPolicy", "Equivalent")
        hook.setdefault("namespaceSelector", {})
        hook.setdefault("objectSelector", {})
        hook.setdefault("timeoutSeconds", 10)
        service = (hook.get("clientConfig") or {}).get("service")
        if isinstance(service, dict):
            service.setdefault("port", 443)
        for rule in _dicts(hook.get("rules")):
            rule.setdefault("scope", "*")
        if "reinvocationPolicy" in hook or obj.get("kind") == "MutatingWebhookConfiguration":
            hook.setdefault("reinvocationPolicy", "Never")


DEFAULTERS: dict[tuple[str, str], Callable[[Obj], None]] = {
    ("", "Pod"): _pod,
    ("", "PodTemplate"): _pod_template,
    ("", "ReplicationController"): _replication_controller,
    ("", "Service"): _service,
    ("", "Endpoints"): _endpoints,
    ("", "PersistentVolumeClaim"): _pvc,
    ("", "PersistentVolume"): _pv,
    ("", "Node"): _node,
    ("", "Secret"): _secret,
    ("", "Event"): _event,
    ("apps", "Deployment"): _deployment,
    ("apps", "ReplicaSet"): _replica_set,
    ("apps", "StatefulSet"): _stateful_set,
    ("apps", "DaemonSet"): _daemon_set,
    ("batch", "Job"): _job,
    ("batch", "CronJob"): _cron_job,
    ("discovery.k8s.io", "EndpointSlice"): _endpoint_slice,
    ("networking.k8s.io", "NetworkPolicy"): _network_policy,
    ("rbac.authorization.k8s.io", "RoleBinding"): _role_binding,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _role_binding,
    ("storage.k8s.io", "StorageClass"): _storage_class,
    ("storage.k8s.io", "CSIDriver"): _csi_driver,
    ("scheduling.k8s.io", "PriorityClass"): _priority_class,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): _webhooks,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): _webhooks,
}


def set_defaults(rtype: ResourceType, obj: Obj) -> None:
    """Run the type's defaulting on `obj` in place (custom resources: nothing here)."""
    if rtype.custom:
        return
    if rtype.group == "autoscaling" and rtype.kind == "HorizontalPodAutoscaler":
        defaulter: Callable[[Obj], None] | None = _hpa_v2 if rtype.version == "v2" else _hpa_v1
    else:
        defaulter = DEFAULTERS.get((rtype.group, rtype.kind))
    if defaulter is not None:
        defaulter(obj)
    # what a typed object can hold: no omitempty field with a zero value
    typeinfo.drop_omitted(obj, typeinfo.kind_struct(rtype.group, rtype.version, rtype.kind))


def as_written(rtype: ResourceType, obj: Obj, only: str = "") -> Obj:
    """`obj` as the apiserver's JSON writes a typed object (Go field order, map keys sorted,
    zero omitempty fields left out); `only="status"` orders just the status (a status
    write leaves the rest as stored). Custom resources are returned as they are."""
    if rtype.custom:
        return obj
    info = typeinfo.kind_struct(rtype.group, rtype.version, rtype.kind)
    if info is None:
        return obj
    if only:
        field = info.json_fields.get(only)
        if field is not None and field.ref is not None and only in obj:
            obj = dict(obj, **{only: typeinfo.ordered(obj[only], typeinfo.struct(field.ref))})
        return obj
    return typeinfo.order_object(rtype.group, rtype.version, rtype.kind, obj)


# -- create-time admission and allocation ------------------------------------------------------

INITIAL_STATUS: dict[tuple[str, str], dict[str, Any]] = {
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
    spec = _dict(obj, "spec")
    tolerations: list[Any] = (spec["tolerations"] if isinstance(spec.get("tolerations"), list)
                              else [])
    added = []
    for default in DEFAULT_TOLERATIONS:
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
        taken.update(p["nodePort"] for p in _dicts(spec.get("ports"))
                     if isinstance(p.get("nodePort"), int))
        if isinstance(spec.get("healthCheckNodePort"), int):
            taken.add(spec["healthCheckNodePort"])
    return taken


def _spread(seed: str, size: int) -> int:
    """A stable, evenly spread offset for `seed`: the same object gets the same address on
    every server (replays and churn with one seed stay identical), different ones differ."""
    return int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big") % size


def _allocate_ip(seed: str, taken: set[str]) -> str:
    first = int(SERVICE_CIDR.network_address) + 1
    size = SERVICE_CIDR.num_addresses - 2
    start = _spread(seed, size)
    for step in range(size):
        ip = str(ipaddress.ip_address(first + (start + step) % size))
        if ip not in taken:
            return ip
    raise errors.internal_error("failed to allocate a serviceIP: range is full")


def _allocate_port(seed: str, taken: set[int]) -> int:
    low, high = NODE_PORT_RANGE
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
    spec = _dict(obj, "spec")
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
        for port in _dicts(spec.get("ports")):
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
    if address not in SERVICE_CIDR:
        raise _invalid(obj, rtype, [cause(
            "FieldValueInvalid", field,
            f'Invalid value: []string{{"{ip}"}}: failed to allocate IP {ip}: the provided IP '
            f"({ip}) is not in the valid range. The range of valid IPs is {SERVICE_CIDR}")])
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
    spec = _dict(obj, "spec")
    if spec.get("manualSelector"):
        return
    meta = obj.get("metadata") or {}
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    template = _dict(spec, "template")
    tmeta = _dict(template, "metadata")
    labels = dict(tmeta.get("labels") or {})
    labels.update({"batch.kubernetes.io/controller-uid": uid,
                   "batch.kubernetes.io/job-name": name, "controller-uid": uid,
                   "job-name": name})
    tmeta["labels"] = labels
    if not spec.get("selector"):
        spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}


def _csr(obj: Obj, user: dict[str, Any]) -> None:
    spec = _dict(obj, "spec")
    spec["username"] = user.get("username", "")
    spec["groups"] = list(user.get("groups") or [])
    if user.get("uid"):
        spec["uid"] = user["uid"]


ADMIN_USER: dict[str, Any] = {"username": "kubenb-admin",
                              "groups": ["system:masters", "system:authenticated"]}
"""Who every request is: the embedded server has one user, an administrator."""


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
        spec = _dict(obj, "spec")
        if not spec.get("finalizers"):
            spec["finalizers"] = ["kubernetes"]
    if key in INITIAL_STATUS:
        obj["status"] = _merged_status(INITIAL_STATUS[key], obj.get("status"), rtype)


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
        old_spec, spec = old.get("spec") or {}, _dict(new, "spec")
        for field in ("priority", "preemptionPolicy", "tolerations"):
            if field in old_spec and field not in spec:
                spec[field] = old_spec[field]
    elif key == ("batch", "Job"):
        _keep_job_selector(old, new)


def _update_service(rtype: ResourceType, old: Obj, new: Obj, storage: Storage) -> None:
    old_spec, spec = old.get("spec") or {}, _dict(new, "spec")
    if _needs_cluster_ip(old_spec) and _needs_cluster_ip(spec):
        for field in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
            if field in old_spec and spec.get(field) in (None, "", []):
                spec[field] = old_spec[field]
        if old_spec.get("clusterIP") and spec.get("clusterIP") != old_spec["clusterIP"]:
            raise _invalid(new, rtype, [cause(
                "FieldValueInvalid", "spec.clusterIPs[0]",
                f'Invalid value: []string{{"{spec.get("clusterIP")}"}}: may not change once '
                "set")])
    old_ports = {(p.get("port"), p.get("protocol")): p for p in _dicts(old_spec.get("ports"))}
    for port in _dicts(spec.get("ports")):
        previous = old_ports.get((port.get("port"), port.get("protocol")))
        if previous and port.get("nodePort") in (None, 0) and previous.get("nodePort"):
            port["nodePort"] = previous["nodePort"]
    if spec.get("type") not in ("NodePort", "LoadBalancer"):
        for port in _dicts(spec.get("ports")):
            if spec.get("type") == "ClusterIP":
                port.pop("nodePort", None)
    meta = new.get("metadata") or {}
    skip = (str(meta.get("namespace") or ""), str(meta.get("name") or ""))
    old_ports_taken = {p.get("nodePort") for p in _dicts(old_spec.get("ports"))}
    taken = _taken_node_ports(storage, skip)
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        for port in _dicts(spec.get("ports")):
            if port.get("nodePort") in (None, 0):
                port["nodePort"] = _allocate_port(_seed(new, port.get("port")), taken)
            elif port["nodePort"] in taken and port["nodePort"] not in old_ports_taken:
                raise _invalid(new, rtype, [cause(
                    "FieldValueInvalid", "spec.ports[0].nodePort",
                    f"Invalid value: {port['nodePort']}: provided port is already allocated")])
    if _needs_cluster_ip(spec) and not spec.get("clusterIP"):
        _allocate_service(rtype, new, storage, skip)


def _keep_job_selector(old: Obj, new: Obj) -> None:
    old_spec, spec = old.get("spec") or {}, _dict(new, "spec")
    if "selector" in old_spec and not spec.get("selector"):
        spec["selector"] = old_spec["selector"]


# -- names the other modules use ------------------------------------------------------------------


def kinds_with_defaults() -> Iterable[tuple[str, str]]:
    """(group, kind) of every type with defaulting here (for the docs and tests)."""
    return [*DEFAULTERS, ("autoscaling", "HorizontalPodAutoscaler")]


_QUANTITY_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+|[kMGTPE]i?|[mun]|)$")


def is_quantity(value: Any) -> bool:
    """Whether a resource quantity (`100m`, `1Gi`, `2`) is well-formed."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return True
    return isinstance(value, str) and bool(_QUANTITY_RE.match(value))
