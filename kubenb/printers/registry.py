"""Which printer a type gets: the built-in kinds' table, and the default for every other.

`printer_for(kind, group)` looks a kind up; `BUILTIN_RESOURCES` and `kind_for_resource`
answer the same for a resource name, for views that know an informer's resource but not
its kind. Table data: one line per built-in kind that kube-apiserver prints.
"""

from __future__ import annotations

from typing import Any

from kubenb.meta import nested_field
from kubenb.printers.admission import (
    MUTATINGWEBHOOK_PRINTER,
    VALIDATINGADMISSIONPOLICY_PRINTER,
    VALIDATINGADMISSIONPOLICYBINDING_PRINTER,
    VALIDATINGWEBHOOK_PRINTER,
)
from kubenb.printers.apiregistration import APISERVICE_PRINTER
from kubenb.printers.apps import (
    CONTROLLERREVISION_PRINTER,
    DAEMONSET_PRINTER,
    DEPLOYMENT_PRINTER,
    REPLICASET_PRINTER,
    STATEFULSET_PRINTER,
)
from kubenb.printers.autoscaling import HPA_PRINTER
from kubenb.printers.batch import CRONJOB_PRINTER, JOB_PRINTER
from kubenb.printers.certificates import CSR_PRINTER
from kubenb.printers.coordination import LEASE_PRINTER
from kubenb.printers.core import (
    COMPONENTSTATUS_PRINTER,
    CONFIGMAP_PRINTER,
    ENDPOINTS_PRINTER,
    EVENT_PRINTER,
    NAMESPACE_PRINTER,
    NODE_PRINTER,
    PERSISTENTVOLUME_PRINTER,
    PERSISTENTVOLUMECLAIM_PRINTER,
    POD_PRINTER,
    PODTEMPLATE_PRINTER,
    REPLICATIONCONTROLLER_PRINTER,
    RESOURCEQUOTA_PRINTER,
    SECRET_PRINTER,
    SERVICE_PRINTER,
    SERVICEACCOUNT_PRINTER,
)
from kubenb.printers.flowcontrol import FLOWSCHEMA_PRINTER, PRIORITYLEVEL_PRINTER
from kubenb.printers.networking import (
    ENDPOINTSLICE_PRINTER,
    INGRESS_PRINTER,
    INGRESSCLASS_PRINTER,
    NETWORKPOLICY_PRINTER,
)
from kubenb.printers.node import RUNTIMECLASS_PRINTER
from kubenb.printers.policy import PDB_PRINTER
from kubenb.printers.rbac import CLUSTERROLEBINDING_PRINTER, ROLEBINDING_PRINTER
from kubenb.printers.scheduling import PRIORITYCLASS_PRINTER
from kubenb.printers.storage import (
    CSIDRIVER_PRINTER,
    CSINODE_PRINTER,
    CSISTORAGECAPACITY_PRINTER,
    STORAGECLASS_PRINTER,
    VOLUMEATTACHMENT_PRINTER,
)
from kubenb.printers.table import AGE_DOC, Column, Obj, TablePrinter, name_column, object_name
from kubenb.timeutil import format_time, parse_time

__all__ = ["BUILTIN_RESOURCES", "DEFAULT_PRINTER", "kind_for_resource", "printer_for"]


def _created_at(obj: Obj, now: float) -> list[Any]:
    stamp = parse_time(nested_field(obj, "metadata", "creationTimestamp"))
    text = "" if stamp is None else format_time(stamp)
    return [object_name(obj), text]


DEFAULT_PRINTER = TablePrinter(
    (name_column(), Column("Created At", "date", description=AGE_DOC)), _created_at)
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
