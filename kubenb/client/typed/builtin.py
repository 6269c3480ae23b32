"""The built-in resources of a Kubernetes 1.32 API server, known before any request.

Read once from a real kube-apiserver v1.32 aggregated discovery document
(tests/fixtures/realapi/discovery), so the clientset and the informer factory can offer
`core_v1().pods`, `apps_v1().deployments` ... to tab completion before they have
talked to a server. The embedded server serves a subset; discovery adds what a real
server has beyond this table (newer groups, CRDs).
"""

from __future__ import annotations

import re

from kubenb.client.discovery import ResourceInfo

__all__ = [
    "ALL_VERBS",
    "BUILTIN_RESOURCES",
    "builtin_group_versions",
]

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")

# One block per group version, in discovery's order; one row per resource:
# resource  Kind  scope (N: namespaced, C: cluster)  verbs  subresources ("-": none).
# verbs: "*" is every verb, "*-deletecollection" every verb but deletecollection.
# A row ending in "," continues on the next line.
_TABLE = """
[v1]
bindings                Binding                N  create              -
componentstatuses       ComponentStatus        C  get,list            -
configmaps              ConfigMap              N  *                   -
endpoints               Endpoints              N  *                   -
events                  Event                  N  *                   -
limitranges             LimitRange             N  *                   -
namespaces              Namespace              C  *-deletecollection  finalize,status
nodes                   Node                   C  *                   proxy,status
persistentvolumeclaims  PersistentVolumeClaim  N  *                   status
persistentvolumes       PersistentVolume       C  *                   status
pods                    Pod                    N  *                   attach,binding,
                                                                      ephemeralcontainers,eviction,
                                                                      exec,log,portforward,proxy,
                                                                      status
podtemplates            PodTemplate            N  *                   -
replicationcontrollers  ReplicationController  N  *                   scale,status
resourcequotas          ResourceQuota          N  *                   status
secrets                 Secret                 N  *                   -
serviceaccounts         ServiceAccount         N  *                   token
services                Service                N  *                   proxy,status
[apiregistration.k8s.io/v1]
apiservices  APIService  C  *  status
[apps/v1]
controllerrevisions  ControllerRevision  N  *  -
daemonsets           DaemonSet           N  *  status
deployments          Deployment          N  *  scale,status
replicasets          ReplicaSet          N  *  scale,status
statefulsets         StatefulSet         N  *  scale,status
[events.k8s.io/v1]
events  Event  N  *  -
[authentication.k8s.io/v1]
selfsubjectreviews  SelfSubjectReview  C  create  -
tokenreviews        TokenReview        C  create  -
[authorization.k8s.io/v1]
localsubjectaccessreviews  LocalSubjectAccessReview  N  create  -
selfsubjectaccessreviews   SelfSubjectAccessReview   C  create  -
selfsubjectrulesreviews    SelfSubjectRulesReview    C  create  -
subjectaccessreviews       SubjectAccessReview       C  create  -
[autoscaling/v2]
horizontalpodautoscalers  HorizontalPodAutoscaler  N  *  status
[autoscaling/v1]
horizontalpodautoscalers  HorizontalPodAutoscaler  N  *  status
[batch/v1]
cronjobs  CronJob  N  *  status
jobs      Job      N  *  status
[certificates.k8s.io/v1]
certificatesigningrequests  CertificateSigningRequest  C  *  approval,status
[networking.k8s.io/v1]
ingressclasses   IngressClass   C  *  -
ingresses        Ingress        N  *  status
networkpolicies  NetworkPolicy  N  *  -
[policy/v1]
poddisruptionbudgets  PodDisruptionBudget  N  *  status
[rbac.authorization.k8s.io/v1]
clusterrolebindings  ClusterRoleBinding  C  *  -
clusterroles         ClusterRole         C  *  -
rolebindings         RoleBinding         N  *  -
roles                Role                N  *  -
[storage.k8s.io/v1]
csidrivers            CSIDriver           C  *  -
csinodes              CSINode             C  *  -
csistoragecapacities  CSIStorageCapacity  N  *  -
storageclasses        StorageClass        C  *  -
volumeattachments     VolumeAttachment    C  *  status
[admissionregistration.k8s.io/v1]
mutatingwebhookconfigurations      MutatingWebhookConfiguration      C  *  -
validatingadmissionpolicies        ValidatingAdmissionPolicy         C  *  status
validatingadmissionpolicybindings  ValidatingAdmissionPolicyBinding  C  *  -
validatingwebhookconfigurations    ValidatingWebhookConfiguration    C  *  -
[apiextensions.k8s.io/v1]
customresourcedefinitions  CustomResourceDefinition  C  *  status
[scheduling.k8s.io/v1]
priorityclasses  PriorityClass  C  *  -
[coordination.k8s.io/v1]
leases  Lease  N  *  -
[node.k8s.io/v1]
runtimeclasses  RuntimeClass  C  *  -
[discovery.k8s.io/v1]
endpointslices  EndpointSlice  N  *  -
[flowcontrol.apiserver.k8s.io/v1]
flowschemas                  FlowSchema                  C  *  status
prioritylevelconfigurations  PriorityLevelConfiguration  C  *  status
"""


def _verbs(text: str) -> tuple[str, ...]:
    if text == "*":
        return ALL_VERBS
    if text.startswith("*-"):
        dropped = set(text[2:].split(","))
        return tuple(v for v in ALL_VERBS if v not in dropped)
    return tuple(text.split(","))


def _parse(table: str) -> tuple[ResourceInfo, ...]:
    out = []
    group = version = ""
    for line in re.sub(r",\n\s+", ",", table).strip().splitlines():
        if line.startswith("["):
            group, _, version = line.strip("[]").rpartition("/")
            continue
        resource, kind, scope, verbs, subresources = line.split()
        out.append(ResourceInfo(
            group=group, version=version, resource=resource, kind=kind,
            namespaced=scope == "N", singular=kind.lower(), verbs=_verbs(verbs),
            subresources=() if subresources == "-" else tuple(subresources.split(","))))
    return tuple(out)


BUILTIN_RESOURCES: tuple[ResourceInfo, ...] = _parse(_TABLE)
"""Every built-in resource of a 1.32 server, in discovery's order."""


def builtin_group_versions() -> dict[tuple[str, str], list[ResourceInfo]]:
    """(group, version) -> its resources, in discovery's order."""
    out: dict[tuple[str, str], list[ResourceInfo]] = {}
    for info in BUILTIN_RESOURCES:
        out.setdefault((info.group, info.version), []).append(info)
    return out
