"""kubenb.printers.coordination: a Lease's holder."""

from __future__ import annotations

from tests.printers.support import cells


def test_leases_show_their_holder() -> None:
    assert cells("Lease", "coordination.k8s.io", {"spec": {"holderIdentity": "kcm-1"}}) == [
        "x", "kcm-1", "10s"]
    assert cells("Lease", "coordination.k8s.io", {})[1] == ""
