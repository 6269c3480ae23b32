"""kubenb.printers.rbac: a binding's role and subjects, split by kind."""

from __future__ import annotations

from tests.printers.support import cells


def test_role_bindings() -> None:
    binding = {"roleRef": {"kind": "ClusterRole", "name": "view"}, "subjects": [
        {"kind": "User", "name": "jane"}, {"kind": "User", "name": "joe"},
        {"kind": "Group", "name": "devs"},
        {"kind": "ServiceAccount", "name": "ci", "namespace": "build"}]}
    assert cells("RoleBinding", "rbac.authorization.k8s.io", binding) == [
        "x", "ClusterRole/view", "10s", "jane, joe", "devs", "build/ci"]
