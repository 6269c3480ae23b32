"""storage.k8s.io's printers: StorageClasses, CSI drivers, nodes and capacities, and
VolumeAttachments.

PersistentVolumes and their claims are the core group's, in `core`."""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field, nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    NONE,
    Column,
    Obj,
    TablePrinter,
    as_str,
    dicts,
    name_column,
    object_age,
    object_name,
    quantity_or,
)

__all__ = [
    "CSIDRIVER_PRINTER",
    "CSINODE_PRINTER",
    "CSISTORAGECAPACITY_PRINTER",
    "STORAGECLASS_PRINTER",
    "VOLUMEATTACHMENT_PRINTER",
]

_DEFAULT_CLASS = ("storageclass.kubernetes.io/is-default-class",
                  "storageclass.beta.kubernetes.io/is-default-class")


def _storage_class_cells(sc: Obj, now: float) -> list[Any]:
    annotations = nested_field(sc, "metadata", "annotations")
    default = isinstance(annotations, dict) and any(
        annotations.get(key) == "true" for key in _DEFAULT_CLASS)
    return [object_name(sc) + (" (default)" if default else ""), as_str(sc.get("provisioner")),
            as_str(sc.get("reclaimPolicy")) or "Delete",
            as_str(sc.get("volumeBindingMode")) or "Immediate",
            sc.get("allowVolumeExpansion") is True, object_age(sc, now)]


STORAGECLASS_PRINTER = TablePrinter((
    name_column(),
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
    AGE_COLUMN,
), _storage_class_cells)


def _csi_driver_cells(driver: Obj, now: float) -> list[Any]:
    spec = dict_field(driver, "spec")
    tokens = spec.get("tokenRequests")
    return [object_name(driver), spec.get("attachRequired") is not False,
            spec.get("podInfoOnMount") is True, spec.get("storageCapacity") is True,
            "<unset>" if tokens is None else ",".join(
                as_str(t.get("audience")) for t in dicts(tokens)),
            spec.get("requiresRepublish") is True,
            ",".join(str(m) for m in spec.get("volumeLifecycleModes") or []) or NONE,
            object_age(driver, now)]


CSIDRIVER_PRINTER = TablePrinter((
    name_column(),
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
    AGE_COLUMN,
), _csi_driver_cells)


def _csi_node_cells(node: Obj, now: float) -> list[Any]:
    return [object_name(node), len(dicts(nested_field(node, "spec", "drivers"))),
            object_age(node, now)]


CSINODE_PRINTER = TablePrinter((
    name_column(),
    Column("Drivers", "integer", description=(
        "Drivers indicates the number of CSI drivers registered on the node")),
    AGE_COLUMN,
), _csi_node_cells)


def _csi_storage_capacity_cells(capacity: Obj, now: float) -> list[Any]:
    return [object_name(capacity), as_str(capacity.get("storageClassName")),
            quantity_or(capacity.get("capacity"), "<unset>")]


CSISTORAGECAPACITY_PRINTER = TablePrinter((
    name_column(),
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


def _volume_attachment_cells(attachment: Obj, now: float) -> list[Any]:
    spec = dict_field(attachment, "spec")
    return [object_name(attachment), as_str(spec.get("attacher")),
            as_str(nested_field(spec, "source", "persistentVolumeName")),
            as_str(spec.get("nodeName")),
            nested_field(attachment, "status", "attached") is True, object_age(attachment, now)]


VOLUMEATTACHMENT_PRINTER = TablePrinter((
    name_column(),
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
    AGE_COLUMN,
), _volume_attachment_cells)
