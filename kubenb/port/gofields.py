"""The Go fields behind the JSON keys a reconcile reads most, for built-in kinds.

`deployment["spec"]["replicas"]` is `deployment.Spec.Replicas` (`*int32`) in Go. This
table covers the fields controllers commonly touch (object metadata, owner references,
ConfigMap and Secret data, the replicas and status of the workload kinds, a Pod's node,
phase and containers); a key it does not know leaves the statement a TODO. It is table
data, one row per field: `json-key  GoField  GoType` under `[struct]`.
"""

from __future__ import annotations

__all__ = ["EMBEDDED", "NAMED_STRINGS", "field_of", "struct_of"]

#: Named Go types whose underlying type is string (comparable to string literals).
NAMED_STRINGS = frozenset({
    "types.UID", "corev1.SecretType", "corev1.PodPhase", "corev1.ServiceType",
    "corev1.RestartPolicy", "corev1.NamespacePhase", "corev1.ConditionStatus",
    "corev1.PodConditionType", "appsv1.DeploymentConditionType",
})

#: Fields Go embeds, so `deployment.Name` reads `deployment.ObjectMeta.Name`.
EMBEDDED = frozenset({"ObjectMeta", "TypeMeta"})

_TABLE = """
[metav1.ObjectMeta]
name               Name               string
generateName       GenerateName       string
namespace          Namespace          string
uid                UID                types.UID
resourceVersion    ResourceVersion    string
generation         Generation         int64
labels             Labels             map[string]string
annotations        Annotations        map[string]string
ownerReferences    OwnerReferences    []metav1.OwnerReference
finalizers         Finalizers         []string
[metav1.OwnerReference]
apiVersion         APIVersion         string
kind               Kind               string
name               Name               string
uid                UID                types.UID
controller         Controller         *bool
blockOwnerDeletion BlockOwnerDeletion *bool
[metav1.LabelSelector]
matchLabels        MatchLabels        map[string]string
[corev1.ConfigMap]
data               Data               map[string]string
binaryData         BinaryData         map[string][]byte
immutable          Immutable          *bool
[corev1.Secret]
data               Data               map[string][]byte
stringData         StringData         map[string]string
type               Type               corev1.SecretType
immutable          Immutable          *bool
[corev1.ServiceAccount]
[corev1.Namespace]
status             Status             corev1.NamespaceStatus
[corev1.NamespaceStatus]
phase              Phase              corev1.NamespacePhase
[corev1.Pod]
spec               Spec               corev1.PodSpec
status             Status             corev1.PodStatus
[corev1.PodTemplateSpec]
metadata           ObjectMeta         metav1.ObjectMeta
spec               Spec               corev1.PodSpec
[corev1.PodSpec]
nodeName           NodeName           string
serviceAccountName ServiceAccountName string
restartPolicy      RestartPolicy      corev1.RestartPolicy
containers         Containers         []corev1.Container
volumes            Volumes            []corev1.Volume
[corev1.Volume]
name               Name               string
configMap          ConfigMap          *corev1.ConfigMapVolumeSource
secret             Secret             *corev1.SecretVolumeSource
[corev1.ConfigMapVolumeSource]
name               Name               string
[corev1.SecretVolumeSource]
secretName         SecretName         string
[corev1.Container]
name               Name               string
image              Image              string
command            Command            []string
args               Args               []string
[corev1.PodStatus]
phase              Phase              corev1.PodPhase
podIP              PodIP              string
hostIP             HostIP             string
[corev1.Service]
spec               Spec               corev1.ServiceSpec
[corev1.ServiceSpec]
type               Type               corev1.ServiceType
clusterIP          ClusterIP          string
selector           Selector           map[string]string
[appsv1.Deployment]
spec               Spec               appsv1.DeploymentSpec
status             Status             appsv1.DeploymentStatus
[appsv1.DeploymentSpec]
replicas           Replicas           *int32
selector           Selector           *metav1.LabelSelector
template           Template           corev1.PodTemplateSpec
paused             Paused             bool
[appsv1.DeploymentStatus]
observedGeneration ObservedGeneration int64
replicas           Replicas           int32
updatedReplicas    UpdatedReplicas    int32
readyReplicas      ReadyReplicas      int32
availableReplicas  AvailableReplicas  int32
[appsv1.ReplicaSet]
spec               Spec               appsv1.ReplicaSetSpec
status             Status             appsv1.ReplicaSetStatus
[appsv1.ReplicaSetSpec]
replicas           Replicas           *int32
selector           Selector           *metav1.LabelSelector
template           Template           corev1.PodTemplateSpec
[appsv1.ReplicaSetStatus]
replicas           Replicas           int32
readyReplicas      ReadyReplicas      int32
availableReplicas  AvailableReplicas  int32
[appsv1.StatefulSet]
spec               Spec               appsv1.StatefulSetSpec
status             Status             appsv1.StatefulSetStatus
[appsv1.StatefulSetSpec]
replicas           Replicas           *int32
serviceName        ServiceName        string
[appsv1.StatefulSetStatus]
replicas           Replicas           int32
readyReplicas      ReadyReplicas      int32
availableReplicas  AvailableReplicas  int32
[batchv1.Job]
spec               Spec               batchv1.JobSpec
status             Status             batchv1.JobStatus
[batchv1.JobSpec]
parallelism        Parallelism        *int32
completions        Completions        *int32
backoffLimit       BackoffLimit       *int32
activeDeadlineSeconds ActiveDeadlineSeconds *int64
suspend            Suspend            *bool
template           Template           corev1.PodTemplateSpec
[batchv1.JobStatus]
active             Active             int32
succeeded          Succeeded          int32
failed             Failed             int32
ready              Ready              *int32
terminating        Terminating        *int32
[coordinationv1.Lease]
spec               Spec               coordinationv1.LeaseSpec
[coordinationv1.LeaseSpec]
holderIdentity     HolderIdentity     *string
"""


def _parse(text: str) -> dict[str, dict[str, tuple[str, str]]]:
    structs: dict[str, dict[str, tuple[str, str]]] = {}
    current: dict[str, tuple[str, str]] = {}
    for line in text.strip().splitlines():
        if line.startswith("["):
            current = structs.setdefault(line.strip("[]"), {})
            continue
        key, field, go_type = line.split()
        current[key] = (field, go_type)
    return structs


_STRUCTS = _parse(_TABLE)
_OBJECT_FIELDS = {"metadata": ("ObjectMeta", "metav1.ObjectMeta"),
                  "apiVersion": ("APIVersion", "string"), "kind": ("Kind", "string")}


def struct_of(go_type: str) -> dict[str, tuple[str, str]] | None:
    """The JSON key -> (Go field, Go type) of a struct (or pointer to one), or None."""
    name = go_type.lstrip("*")
    fields = _STRUCTS.get(name)
    if fields is None:
        return None
    if name.split(".", 1)[0] in ("corev1", "appsv1", "batchv1", "coordinationv1") \
            and "Spec" not in name and "Status" not in name and name not in (
                "corev1.Container", "corev1.PodTemplateSpec", "corev1.Volume",
                "corev1.ConfigMapVolumeSource", "corev1.SecretVolumeSource"):
        return {**_OBJECT_FIELDS, **fields}  # an object kind: metadata, apiVersion, kind
    return fields


def field_of(go_type: str, key: str) -> tuple[str, str] | None:
    """(Go field, Go type) of JSON `key` in the struct `go_type`, or None if unknown."""
    fields = struct_of(go_type)
    return None if fields is None else fields.get(key)
