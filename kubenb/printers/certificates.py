"""certificates.k8s.io's printer: CertificateSigningRequests."""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field, nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    NONE,
    Column,
    Obj,
    TablePrinter,
    as_int,
    as_str,
    dicts,
    name_column,
    object_age,
    object_name,
)
from kubenb.timeutil import human_duration

__all__ = ["CSR_PRINTER"]


def _csr_condition(csr: Obj) -> str:
    """Go's extractCSRStatus: Denied / Approved / Pending, then ",Failed", ",Issued"."""
    types = {c.get("type") for c in dicts(nested_field(csr, "status", "conditions"))}
    text = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        text += ",Failed"
    if nested_field(csr, "status", "certificate"):
        text += ",Issued"
    return text


def _csr_cells(csr: Obj, now: float) -> list[Any]:
    spec = dict_field(csr, "spec")
    seconds = spec.get("expirationSeconds")
    return [object_name(csr), object_age(csr, now), as_str(spec.get("signerName")) or NONE,
            as_str(spec.get("username")),
            NONE if seconds is None else human_duration(as_int(seconds)), _csr_condition(csr)]


CSR_PRINTER = TablePrinter((
    name_column(),
    AGE_COLUMN,
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
