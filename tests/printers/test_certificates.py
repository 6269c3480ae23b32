"""kubenb.printers.certificates: a CSR's signer, duration and condition."""

from __future__ import annotations

from tests.printers.support import cells


def test_certificate_signing_requests() -> None:
    csr = {"spec": {"signerName": "kubernetes.io/kubelet-serving", "username": "system:node:a",
                    "expirationSeconds": 3600},
           "status": {"conditions": [{"type": "Approved"}, {"type": "Failed"}],
                      "certificate": "LS0t"}}
    assert cells("CertificateSigningRequest", "certificates.k8s.io", csr) == [
        "x", "10s", "kubernetes.io/kubelet-serving", "system:node:a", "60m",
        "Approved,Failed,Issued"]
    assert cells("CertificateSigningRequest", "certificates.k8s.io", {
        "status": {"conditions": [{"type": "Approved"}, {"type": "Denied"}]}})[2:] == [
        "<none>", "", "<none>", "Denied"]
