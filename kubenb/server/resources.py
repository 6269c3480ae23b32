"""The registry of resource types the server serves: names, scope, verbs, subresources.

Discovery, routing, storage keys, field selectors and table printing all read from here,
so adding a built-in type (or serving a CRD's versions) is one `ResourceType` each.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kubenb.meta import nested_field
from kubenb.printers import (
    TablePrinter,
    custom_resource_printer,
    label_selector_string,
    printer_for,
)

__all__ = [
    "BUILTIN_TYPES",
    "CR_VERBS",
    "ResourceRegistry",
    "ResourceType",
    "scale_of",
    "with_replicas",
]

_ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
CR_VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")
"""Custom resources list their verbs in this order (apiextensions-apiserver's)."""


def _pod_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {
        "spec.nodeName": str(nested_field(obj, "spec", "nodeName") or ""),
        "spec.restartPolicy": str(nested_field(obj, "spec", "restartPolicy") or ""),
        "spec.schedulerName": str(nested_field(obj, "spec", "schedulerName") or ""),
        "spec.serviceAccountName": str(nested_field(obj, "spec", "serviceAccountName") or ""),
        "spec.hostNetwork": "true" if nested_field(obj, "spec", "hostNetwork") else "false",
        "status.phase": str(nested_field(obj, "status", "phase") or ""),
        "status.podIP": str(nested_field(obj, "status", "podIP") or ""),
        "status.nominatedNodeName": str(nested_field(obj, "status", "nominatedNodeName") or ""),
    }


def _event_fields(obj: dict[str, Any]) -> dict[str, str]:
    involved = obj.get("involvedObject") or {}
    source = obj.get("source") or {}
    out = {f"involvedObject.{k}": str(involved.get(k) or "") for k in (
        "kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")}
    out.update({"reason": str(obj.get("reason") or ""),
                "reportingComponent": str(obj.get("reportingComponent") or ""),
                "source": str(source.get("component") or ""),
                "type": str(obj.get("type") or "")})
    return out


def _secret_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {"type": str(obj.get("type") or "")}


def _namespace_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {"status.phase": str(nested_field(obj, "status", "phase") or "")}


def _node_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {"spec.unschedulable": "true" if nested_field(obj, "spec", "unschedulable") else "false"}


def _replicas_fields(obj: dict[str, Any]) -> dict[str, str]:
    replicas = nested_field(obj, "status", "replicas")
    return {"status.replicas": str(replicas if replicas is not None else 0)}


@dataclass(frozen=True)
class ResourceType:
    """One served resource (a row of an APIResourceList plus what the server needs)."""

    group: str
    version: str
    plural: str
    singular: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = _ALL_VERBS
    subresources: tuple[str, ...] = ()  # "status", "scale"
    has_generation: bool = False  # spec/status types bump metadata.generation on spec change
    returns_deleted_object: bool = False  # DELETE answers with the object, not a Status
    extra_fields: Callable[[dict[str, Any]], dict[str, str]] | None = field(
        default=None, compare=False)
    custom: bool = False  # served for a CRD (unstructured: keys sorted, no strategic merge)
    stored: bool = True  # False: answered, never stored (reviews, bindings, computed lists)
    crd_name: str = ""  # the CustomResourceDefinition serving it
    storage_version: str = ""  # CRs: the version objects are stored in ("" = this one)
    printer_columns: tuple[dict[str, Any], ...] = field(default=(), compare=False)
    scale_paths: tuple[str, str, str] = field(default=(".spec.replicas", ".status.replicas",
                                                       ""), compare=False)
    """specReplicasPath, statusReplicasPath, labelSelectorPath ("" for built-ins: the
    label selector object at .spec.selector)."""

    @property
    def group_version(self) -> str:
        """`apps/v1`, or `v1` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def key(self) -> str:
        """Storage key: `plural.group` (or `plural` in the core group)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def stored_version(self) -> str:
        """The version objects are stored in (conversion strategy None: only apiVersion)."""
        return self.storage_version or self.version

    @property
    def stored_group_version(self) -> str:
        return f"{self.group}/{self.stored_version}" if self.group else self.stored_version

    def printer(self) -> TablePrinter:
        """What `kubectl get` shows for this type (CRDs: additionalPrinterColumns)."""
        if self.custom:
            return custom_resource_printer(self.printer_columns)
        return printer_for(self.kind, self.group)

    def field_set(self, obj: dict[str, Any]) -> dict[str, str]:
        """The fields a fieldSelector may test on `obj` (apiserver's GetAttrs)."""
        meta = obj.get("metadata") or {}
        fields = {"metadata.name": str(meta.get("name") or "")}
        if self.namespaced:
            fields["metadata.namespace"] = str(meta.get("namespace") or "")
        if self.extra_fields is not None:
            fields.update(self.extra_fields(obj))
        return fields

    def selectable_fields(self) -> list[str]:
        """Field names a fieldSelector may use, in the order the 400 message lists them."""
        names = ["metadata.name", "metadata.namespace"]
        if self.extra_fields is not None:
            names += sorted(self.extra_fields({}))
        return names


def _job_fields(obj: dict[str, Any]) -> dict[str, str]:
    succeeded = nested_field(obj, "status", "succeeded")
    return {"status.successful": str(succeeded if succeeded is not None else 0)}


def _service_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {"spec.clusterIP": str(nested_field(obj, "spec", "clusterIP") or ""),
            "spec.type": str(nested_field(obj, "spec", "type") or "")}


def _csr_fields(obj: dict[str, Any]) -> dict[str, str]:
    return {"spec.signerName": str(nested_field(obj, "spec", "signerName") or "")}


_FIELDS: dict[str, Callable[[dict[str, Any]], dict[str, str]]] = {
    "pods": _pod_fields, "events": _event_fields, "secrets": _secret_fields,
    "namespaces": _namespace_fields, "nodes": _node_fields, "replicasets.apps": _replicas_fields,
    "replicationcontrollers": _replicas_fields, "jobs.batch": _job_fields,
    "services": _service_fields, "certificatesigningrequests.certificates.k8s.io": _csr_fields,
}
# Types whose writes bump metadata.generation when anything but metadata and status changes.
_GENERATION = {
    "deployments.apps", "replicasets.apps", "statefulsets.apps", "daemonsets.apps",
    "replicationcontrollers", "jobs.batch", "cronjobs.batch",
    "horizontalpodautoscalers.autoscaling", "poddisruptionbudgets.policy",
    "ingresses.networking.k8s.io", "ingressclasses.networking.k8s.io",
    "networkpolicies.networking.k8s.io", "endpointslices.discovery.k8s.io",
    "customresourcedefinitions.apiextensions.k8s.io",
    "validatingadmissionpolicies.admissionregistration.k8s.io",
    "validatingadmissionpolicybindings.admissionregistration.k8s.io",
    "mutatingwebhookconfigurations.admissionregistration.k8s.io",
    "validatingwebhookconfigurations.admissionregistration.k8s.io",
    "flowschemas.flowcontrol.apiserver.k8s.io",
    "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io",
}
_RETURNS_DELETED = {"namespaces", "pods", "services"}
_NO_DELETECOLLECTION = ("create", "delete", "get", "list", "patch", "update", "watch")

# Every resource kube-apiserver v1.32 serves (fixtures/realapi/discovery/aggregated-*-v2):
# group/version, then one row per resource:
#   plural  Kind  scope (N namespaced, C cluster)  verbs  short names  categories  subresources
# "*" is every verb, "*-dc" every verb but deletecollection; "-" is none; a row ending in ","
# goes on. Rows marked "virtual" are not stored: their POSTs are answered (reviews,
# bindings) or their lists computed.
_TABLE = """
v1
  bindings                Binding                N create  - - -                  virtual
  componentstatuses       ComponentStatus        C get,list cs - -                virtual
  configmaps              ConfigMap              N *     cm     -   -
  endpoints               Endpoints              N *     ep     -   -
  events                  Event                  N *     ev     -   -
  limitranges             LimitRange             N *     limits -   -
  namespaces              Namespace              C *-dc  ns     -   finalize,status
  nodes                   Node                   C *     no     -   proxy,status
  persistentvolumeclaims  PersistentVolumeClaim  N *     pvc    -   status
  persistentvolumes       PersistentVolume       C *     pv     -   status
  pods                    Pod                    N *     po     all attach,binding,
                                                                  ephemeralcontainers,eviction,
                                                                  exec,log,portforward,proxy,status
  podtemplates            PodTemplate            N *     -      -   -
  replicationcontrollers  ReplicationController  N *     rc     all scale,status
  resourcequotas          ResourceQuota          N *     quota  -   status
  secrets                 Secret                 N *     -      -   -
  serviceaccounts         ServiceAccount         N *     sa     -   token
  services                Service                N *     svc    all proxy,status
apiregistration.k8s.io/v1
  apiservices  APIService  C *  -  api-extensions  status
apps/v1
  controllerrevisions  ControllerRevision  N *  -       -    -
  daemonsets           DaemonSet           N *  ds      all  status
  deployments          Deployment          N *  deploy  all  scale,status
  replicasets          ReplicaSet          N *  rs      all  scale,status
  statefulsets         StatefulSet         N *  sts     all  scale,status
events.k8s.io/v1
  events  Event  N *  ev  -  -
authentication.k8s.io/v1
  selfsubjectreviews  SelfSubjectReview  C create  -  -  -  virtual
  tokenreviews        TokenReview        C create  -  -  -  virtual
authorization.k8s.io/v1
  localsubjectaccessreviews  LocalSubjectAccessReview  N create  -  -  -  virtual
  selfsubjectaccessreviews   SelfSubjectAccessReview   C create  -  -  -  virtual
  selfsubjectrulesreviews    SelfSubjectRulesReview    C create  -  -  -  virtual
  subjectaccessreviews       SubjectAccessReview       C create  -  -  -  virtual
autoscaling/v2
  horizontalpodautoscalers  HorizontalPodAutoscaler  N *  hpa  all  status
autoscaling/v1
  horizontalpodautoscalers  HorizontalPodAutoscaler  N *  hpa  all  status
batch/v1
  cronjobs  CronJob  N *  cj  all  status
  jobs      Job      N *  -   all  status
certificates.k8s.io/v1
  certificatesigningrequests  CertificateSigningRequest  C *  csr  -  approval,status
networking.k8s.io/v1
  ingressclasses   IngressClass   C *  -       -  -
  ingresses        Ingress        N *  ing     -  status
  networkpolicies  NetworkPolicy  N *  netpol  -  -
policy/v1
  poddisruptionbudgets  PodDisruptionBudget  N *  pdb  -  status
rbac.authorization.k8s.io/v1
  clusterrolebindings  ClusterRoleBinding  C *  -  -  -
  clusterroles         ClusterRole         C *  -  -  -
  rolebindings         RoleBinding         N *  -  -  -
  roles                Role                N *  -  -  -
storage.k8s.io/v1
  csidrivers            CSIDriver           C *  -   -  -
  csinodes              CSINode             C *  -   -  -
  csistoragecapacities  CSIStorageCapacity  N *  -   -  -
  storageclasses        StorageClass        C *  sc  -  -
  volumeattachments     VolumeAttachment    C *  -   -  status
admissionregistration.k8s.io/v1
  mutatingwebhookconfigurations      MutatingWebhookConfiguration      C * - api-extensions -
  validatingadmissionpolicies        ValidatingAdmissionPolicy         C * - api-extensions status
  validatingadmissionpolicybindings  ValidatingAdmissionPolicyBinding  C * - api-extensions -
  validatingwebhookconfigurations    ValidatingWebhookConfiguration    C * - api-extensions -
apiextensions.k8s.io/v1
  customresourcedefinitions  CustomResourceDefinition  C *  crd,crds  api-extensions  status
scheduling.k8s.io/v1
  priorityclasses  PriorityClass  C *  pc  -  -
coordination.k8s.io/v1
  leases  Lease  N *  -  -  -
node.k8s.io/v1
  runtimeclasses  RuntimeClass  C *  -  -  -
discovery.k8s.io/v1
  endpointslices  EndpointSlice  N *  -  -  -
flowcontrol.apiserver.k8s.io/v1
  flowschemas                  FlowSchema                  C *  -  -  status
  prioritylevelconfigurations  PriorityLevelConfiguration  C *  -  -  status
"""


def _names(cell: str) -> tuple[str, ...]:
    return () if cell == "-" else tuple(cell.split(","))


def _parse_table(text: str) -> tuple[ResourceType, ...]:
    types: list[ResourceType] = []
    group = version = ""
    for line in re.sub(r",\n\s+", ",", text.strip()).splitlines():
        if not line.startswith(" "):
            group, _, version = line.strip().rpartition("/")
            continue
        plural, kind, scope, verbs, short, categories, subs, *flags = line.split()
        key = f"{plural}.{group}" if group else plural
        verb_list = (_ALL_VERBS if verbs == "*" else _NO_DELETECOLLECTION if verbs == "*-dc"
                     else tuple(verbs.split(",")))
        types.append(ResourceType(
            group, version, plural, kind.lower(), kind, scope == "N", short_names=_names(short),
            categories=_names(categories), verbs=verb_list, subresources=_names(subs),
            has_generation=key in _GENERATION, returns_deleted_object=key in _RETURNS_DELETED,
            extra_fields=_FIELDS.get(key), stored="virtual" not in flags))
    return tuple(types)


BUILTIN_TYPES: tuple[ResourceType, ...] = _parse_table(_TABLE)
"""Every built-in resource, in discovery's order (kube-apiserver v1.32's)."""


_GROUP_ORDER = ("", "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io",
                "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io",
                "networking.k8s.io", "policy", "rbac.authorization.k8s.io", "storage.k8s.io",
                "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
                "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io",
                "flowcontrol.apiserver.k8s.io")
_VERSION_RE = re.compile(r"v(\d+)(?:(alpha|beta)(\d+))?")


def _group_sort_key(group: str) -> tuple[int, str]:
    """Built-in groups in kube-apiserver's priority order, then the rest by name."""
    if group in _GROUP_ORDER:
        return (_GROUP_ORDER.index(group), "")
    return (len(_GROUP_ORDER), group)


def _version_sort_key(version: str) -> tuple[int, int, int, str]:
    """Kubernetes version priority: GA > beta > alpha, higher numbers first, others last."""
    match = _VERSION_RE.fullmatch(version)
    if match is None:
        return (3, 0, 0, version)
    level = {None: 0, "beta": 1, "alpha": 2}[match.group(2)]
    return (level, -int(match.group(1)), -int(match.group(3) or 0), "")


class ResourceRegistry:
    """Thread-safe lookup of served types by group, version and plural."""

    def __init__(self, types: Iterable[ResourceType] = BUILTIN_TYPES) -> None:
        self._lock = threading.Lock()
        self._types: dict[tuple[str, str, str], ResourceType] = {}
        self._group_versions: frozenset[tuple[str, str]] | None = None  # made on demand
        for rtype in types:
            self.add(rtype)

    def add(self, rtype: ResourceType) -> None:
        """Serve `rtype` (replacing a type of the same group/version/plural)."""
        with self._lock:
            self._types[(rtype.group, rtype.version, rtype.plural)] = rtype
            self._group_versions = None

    def remove(self, group: str, version: str, plural: str) -> None:
        """Stop serving a type (e.g. when its CRD is deleted)."""
        with self._lock:
            self._types.pop((group, version, plural), None)
            self._group_versions = None

    def replace_crd(self, crd_name: str, types: Iterable[ResourceType]) -> None:
        """Serve exactly `types` for one CRD (none: the CRD is gone), atomically."""
        with self._lock:
            for key in [k for k, t in self._types.items() if t.crd_name == crd_name]:
                del self._types[key]
            for rtype in types:
                self._types[(rtype.group, rtype.version, rtype.plural)] = rtype
            self._group_versions = None

    def crd_types(self, crd_name: str) -> list[ResourceType]:
        """The types one CRD serves now."""
        with self._lock:
            return [t for t in self._types.values() if t.crd_name == crd_name]

    def lookup(self, group: str, version: str, plural: str) -> ResourceType | None:
        """The type at `/apis/{group}/{version}/{plural}`, or None."""
        with self._lock:
            return self._types.get((group, version, plural))

    def by_key(self, key: str) -> ResourceType | None:
        """The type whose storage key is `key`."""
        with self._lock:
            for rtype in self._types.values():
                if rtype.key == key:
                    return rtype
        return None

    def types(self) -> list[ResourceType]:
        """All served types, sorted by group, version, plural."""
        with self._lock:
            return [self._types[k] for k in sorted(self._types)]

    def group_versions(self) -> dict[str, list[str]]:
        """Group name -> versions served ("" is the core group), in discovery's order.

        Groups come as kube-apiserver lists them (built-in groups by priority, CRD groups
        after them by name); versions newest-first by Kubernetes version priority, so the
        first one is the preferred version.
        """
        found: dict[str, set[str]] = {}
        for rtype in self.types():
            found.setdefault(rtype.group, set()).add(rtype.version)
        groups = sorted(found, key=_group_sort_key)
        return {g: sorted(found[g], key=_version_sort_key) for g in groups}

    def serves(self, group: str, version: str) -> bool:
        """Whether any type of `group`/`version` is served (asked by every request: a
        set lookup, not a sorted walk of every type)."""
        with self._lock:
            if self._group_versions is None:
                self._group_versions = frozenset((g, v) for g, v, _ in self._types)
            return (group, version) in self._group_versions

    def in_group_version(self, group: str, version: str) -> list[ResourceType]:
        """The types of one group-version, sorted by plural as discovery lists them."""
        return [t for t in self.types() if t.group == group and t.version == version]


# -- the /scale subresource (autoscaling/v1 Scale) ------------------------------------------


def _dotted(path: str) -> list[str]:
    return [p for p in path.split(".") if p]


def _at(obj: Any, path: str) -> Any:
    for part in _dotted(path):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def scale_of(rtype: ResourceType, obj: dict[str, Any]) -> dict[str, Any]:
    """The autoscaling/v1 Scale view of an object with a /scale subresource."""
    spec_path, status_path, selector_path = rtype.scale_paths
    replicas = _at(obj, spec_path)
    if replicas is None and not rtype.custom:
        replicas = 1  # built-in workloads default spec.replicas to 1
    meta = obj.get("metadata") or {}
    scale_meta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion",
                                       "creationTimestamp") if k in meta}
    spec: dict[str, Any] = {}
    if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas:
        spec["replicas"] = replicas  # ScaleSpec.replicas is omitempty
    current = _at(obj, status_path)
    status: dict[str, Any] = {"replicas": current if isinstance(current, int) else 0}
    built_in = _at(obj, ".spec.selector")
    if rtype.kind == "ReplicationController" and isinstance(built_in, dict):
        built_in = {"matchLabels": built_in}  # a plain label map, not a LabelSelector
    selector = (_at(obj, selector_path) if selector_path
                else label_selector_string(built_in) if not rtype.custom else "")
    if isinstance(selector, str) and selector:
        status["selector"] = selector
    return {"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": scale_meta,
            "spec": spec, "status": status}


def with_replicas(rtype: ResourceType, obj: dict[str, Any], replicas: int) -> dict[str, Any]:
    """A deep copy of `obj` with the desired replicas set where the type keeps them."""
    out = copy.deepcopy(obj)
    node = out
    parts = _dotted(rtype.scale_paths[0])
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[parts[-1]] = replicas
    return out
