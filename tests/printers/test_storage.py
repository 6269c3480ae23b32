"""kubenb.printers.storage: storage classes, CSI objects and volume attachments."""

from __future__ import annotations

from kubenb.printers import printer_for
from tests.printers.support import META, NOW, cells


def test_storage_classes_csi_and_attachments() -> None:
    sc = {"metadata": {**META, "annotations": {
        "storageclass.kubernetes.io/is-default-class": "true"}}, "provisioner": "p"}
    assert printer_for("StorageClass", "storage.k8s.io").cells(sc, NOW) == [
        "x (default)", "p", "Delete", "Immediate", False, "10s"]
    driver = {"spec": {"tokenRequests": [{"audience": "a"}, {"audience": "b"}],
                       "storageCapacity": True}}
    assert cells("CSIDriver", "storage.k8s.io", driver) == [
        "x", True, False, True, "a,b", False, "<none>", "10s"]
    assert cells("CSIStorageCapacity", "storage.k8s.io", {}) == ["x", "", "<unset>"]
    attachment = {"spec": {"attacher": "csi.x", "nodeName": "n1", "source": {
        "persistentVolumeName": "pv-1"}}, "status": {"attached": True}}
    assert cells("VolumeAttachment", "storage.k8s.io", attachment) == [
        "x", "csi.x", "pv-1", "n1", True, "10s"]
