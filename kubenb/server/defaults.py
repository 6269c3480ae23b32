"""What kube-apiserver v1.32's defaulting fills in on a write: the `SetDefaults_*` functions.

A real apiserver decodes every body into its Go type and runs the type's `SetDefaults_*`
functions before anything else. Clients rely on the result: a created Pod has
`restartPolicy: Always`, a Deployment has a rolling-update strategy. This module does the
same on plain dicts:

- `set_defaults(rtype, obj)` the `SetDefaults_*` functions, on create and on every
  update (they are idempotent). The writer's managedFields include what they set.
- `as_written(rtype, obj)` the object as the apiserver's JSON writes a typed object.

What admission plugins and the REST strategy add after managedFields are computed (a
Service's cluster IP, pod priority, the initial status) is kubenb.server.admission.
Compare tests/fixtures/realapi/objects/*-create.json.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from kubenb.server import typeinfo
from kubenb.server.resources import ResourceType
from kubenb.server.storage import Obj

__all__ = [
    "as_written",
    "dict_items",
    "ensure_dict",
    "image_pull_policy",
    "qos_class",
    "set_defaults",
]

_HTTP_GET_HOLDERS = ("livenessProbe", "readinessProbe", "startupProbe")


def ensure_dict(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """parent[key] as a dict, created (and stored) when missing or not a dict: defaulting
    and admission write into nested fields a body may have left out."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def dict_items(value: Any) -> list[dict[str, Any]]:
    """The dict elements of a list field (containers, ports), none when it is no list."""
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
    for port in dict_items(container.get("ports")):
        port.setdefault("protocol", "TCP")
        if host_network and "containerPort" in port:
            port.setdefault("hostPort", port["containerPort"])
    for env in dict_items(container.get("env")):
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
        for item in dict_items(volume["downwardAPI"].get("items")):
            _field_ref(item)
    if isinstance(volume.get("projected"), dict):
        for source in dict_items(volume["projected"].get("sources")):
            if isinstance(source.get("serviceAccountToken"), dict):
                source["serviceAccountToken"].setdefault("expirationSeconds", 3600)
            if isinstance(source.get("downwardAPI"), dict):
                for item in dict_items(source["downwardAPI"].get("items")):
                    _field_ref(item)


def _pod_spec_defaults(spec: dict[str, Any]) -> None:
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
        for container in dict_items(spec.get(key)):
            _container(container, host_network)
    for volume in dict_items(spec.get("volumes")):
        _volume(volume)


def _requests_from_limits(spec: dict[str, Any]) -> None:
    """A Pod's containers request what they limit unless they say otherwise."""
    for key in ("initContainers", "containers"):
        for container in dict_items(spec.get(key)):
            resources = container.get("resources")
            if not isinstance(resources, dict) or not isinstance(resources.get("limits"), dict):
                continue
            requests = ensure_dict(resources, "requests")
            for name, value in resources["limits"].items():
                requests.setdefault(name, value)


def _template(template: Any) -> None:
    """A PodTemplateSpec: pod spec defaults, and the null creationTimestamp Go writes."""
    if not isinstance(template, dict):
        return
    meta = ensure_dict(template, "metadata")
    if "creationTimestamp" not in meta:
        template["metadata"] = {"creationTimestamp": None, **meta}
    _pod_spec_defaults(ensure_dict(template, "spec"))


def qos_class(spec: dict[str, Any]) -> str:
    """Guaranteed, Burstable or BestEffort, from the containers' requests and limits."""
    containers = dict_items(spec.get("containers")) + dict_items(spec.get("initContainers"))
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
    spec = ensure_dict(obj, "spec")
    _pod_spec_defaults(spec)
    spec.setdefault("enableServiceLinks", True)
    _requests_from_limits(spec)


def _workload_spec(obj: Obj) -> dict[str, Any]:
    spec = ensure_dict(obj, "spec")
    _template(spec.get("template"))
    return spec


def _deployment(obj: Obj) -> None:
    spec = _workload_spec(obj)
    spec.setdefault("replicas", 1)
    strategy = ensure_dict(spec, "strategy")
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = ensure_dict(strategy, "rollingUpdate")
        rolling.setdefault("maxUnavailable", "25%")
        rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)


def _replica_set(obj: Obj) -> None:
    _workload_spec(obj).setdefault("replicas", 1)


def _replication_controller(obj: Obj) -> None:
    spec = ensure_dict(obj, "spec")
    _template(spec.get("template"))
    template_labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    if not spec.get("selector") and isinstance(template_labels, dict):
        spec["selector"] = dict(template_labels)
    meta = ensure_dict(obj, "metadata")
    if not meta.get("labels") and isinstance(template_labels, dict):
        meta["labels"] = dict(template_labels)
    spec.setdefault("replicas", 1)


def _stateful_set(obj: Obj) -> None:
    spec = _workload_spec(obj)
    spec.setdefault("replicas", 1)
    spec.setdefault("podManagementPolicy", "OrderedReady")
    strategy = ensure_dict(spec, "updateStrategy")
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        ensure_dict(strategy, "rollingUpdate").setdefault("partition", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    retention = ensure_dict(spec, "persistentVolumeClaimRetentionPolicy")
    retention.setdefault("whenDeleted", "Retain")
    retention.setdefault("whenScaled", "Retain")
    for claim in dict_items(spec.get("volumeClaimTemplates")):
        _pvc(claim)
        claim.setdefault("status", {"phase": "Pending"})


def _daemon_set(obj: Obj) -> None:
    spec = _workload_spec(obj)
    strategy = ensure_dict(spec, "updateStrategy")
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = ensure_dict(strategy, "rollingUpdate")
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
    _job_spec(ensure_dict(obj, "spec"), True)


def _cron_job(obj: Obj) -> None:
    spec = ensure_dict(obj, "spec")
    spec.setdefault("concurrencyPolicy", "Allow")
    spec.setdefault("suspend", False)
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)
    template = ensure_dict(spec, "jobTemplate")
    meta = ensure_dict(template, "metadata")
    if "creationTimestamp" not in meta:
        template["metadata"] = {"creationTimestamp": None, **meta}
    _job_spec(ensure_dict(template, "spec"), False)


def _pod_template(obj: Obj) -> None:
    _template(obj.get("template"))


def _protocols(items: Any) -> None:
    for item in dict_items(items):
        item.setdefault("protocol", "TCP")


def _service(obj: Obj) -> None:
    spec = ensure_dict(obj, "spec")
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    if spec["sessionAffinity"] == "ClientIP":
        config = ensure_dict(ensure_dict(spec, "sessionAffinityConfig"), "clientIP")
        config.setdefault("timeoutSeconds", 10800)
    for port in dict_items(spec.get("ports")):
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
    for subset in dict_items(obj.get("subsets")):
        _protocols(subset.get("ports"))


def _endpoint_slice(obj: Obj) -> None:
    _protocols(obj.get("ports"))
    for endpoint in dict_items(obj.get("endpoints")):
        ensure_dict(endpoint, "conditions")


def _pvc_spec(spec: dict[str, Any]) -> None:
    spec.setdefault("volumeMode", "Filesystem")


def _pvc(obj: Obj) -> None:
    _pvc_spec(ensure_dict(obj, "spec"))


def _pv(obj: Obj) -> None:
    spec = ensure_dict(obj, "spec")
    spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
    spec.setdefault("volumeMode", "Filesystem")


def _node(obj: Obj) -> None:
    spec = ensure_dict(obj, "spec")
    if spec.get("podCIDR") and not spec.get("podCIDRs"):
        spec["podCIDRs"] = [spec["podCIDR"]]


def _secret(obj: Obj) -> None:
    """stringData is write-only: merged into data (base64), never stored or returned."""
    obj.setdefault("type", "Opaque")
    string_data = obj.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = ensure_dict(obj, "data")
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()
        obj["data"] = dict(sorted(data.items()))


def _network_policy(obj: Obj) -> None:
    spec = ensure_dict(obj, "spec")
    ensure_dict(spec, "podSelector")
    for rule in dict_items(spec.get("ingress")) + dict_items(spec.get("egress")):
        _protocols(rule.get("ports"))
    if not spec.get("policyTypes"):
        types = ["Ingress"]
        if spec.get("egress"):
            types.append("Egress")
        spec["policyTypes"] = types


def _role_binding(obj: Obj) -> None:
    for subject in dict_items(obj.get("subjects")):
        if subject.get("kind") in ("User", "Group"):
            subject.setdefault("apiGroup", "rbac.authorization.k8s.io")


def _storage_class(obj: Obj) -> None:
    obj.setdefault("reclaimPolicy", "Delete")
    obj.setdefault("volumeBindingMode", "Immediate")


def _csi_driver(obj: Obj) -> None:
    spec = ensure_dict(obj, "spec")
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
    spec = ensure_dict(obj, "spec")
    spec.setdefault("minReplicas", 1)
    if not spec.get("metrics"):
        spec["metrics"] = [{"type": "Resource", "resource": {
            "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]
    behavior = ensure_dict(spec, "behavior")
    up = ensure_dict(behavior, "scaleUp")
    up.setdefault("stabilizationWindowSeconds", 0)
    up.setdefault("selectPolicy", "Max")
    up.setdefault("policies", [{"type": "Pods", "value": 4, "periodSeconds": 15},
                               {"type": "Percent", "value": 100, "periodSeconds": 15}])
    down = ensure_dict(behavior, "scaleDown")
    down.setdefault("selectPolicy", "Max")
    down.setdefault("policies", [{"type": "Percent", "value": 100, "periodSeconds": 15}])


def _hpa_v1(obj: Obj) -> None:
    ensure_dict(obj, "spec").setdefault("minReplicas", 1)


def _event(obj: Obj) -> None:
    obj.setdefault("eventTime", None)  # a MicroTime struct: Go writes null when unset


def _webhooks(obj: Obj) -> None:
    for hook in dict_items(obj.get("webhooks")):
        hook.setdefault("failurePolicy", "Fail")
        hook.setdefault("matchPolicy", "Equivalent")
        hook.setdefault("namespaceSelector", {})
        hook.setdefault("objectSelector", {})
        hook.setdefault("timeoutSeconds", 10)
        service = (hook.get("clientConfig") or {}).get("service")
        if isinstance(service, dict):
            service.setdefault("port", 443)
        for rule in dict_items(hook.get("rules")):
            rule.setdefault("scope", "*")
        if "reinvocationPolicy" in hook or obj.get("kind") == "MutatingWebhookConfiguration":
            hook.setdefault("reinvocationPolicy", "Never")


_DEFAULTERS: dict[tuple[str, str], Callable[[Obj], None]] = {
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
        defaulter = _DEFAULTERS.get((rtype.group, rtype.kind))
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

