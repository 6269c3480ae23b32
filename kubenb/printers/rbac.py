"""rbac.authorization.k8s.io's printers: RoleBindings and ClusterRoleBindings.

Roles and ClusterRoles have none in kube-apiserver either (they get the default table).
"""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field
from kubenb.printers.table import (
    AGE_COLUMN,
    Column,
    Obj,
    TablePrinter,
    as_str,
    dicts,
    name_column,
    object_age,
    object_name,
)

__all__ = ["CLUSTERROLEBINDING_PRINTER", "ROLEBINDING_PRINTER"]


def _binding_cells(binding: Obj, now: float) -> list[Any]:
    ref = dict_field(binding, "roleRef")
    users: list[str] = []
    groups: list[str] = []
    service_accounts: list[str] = []
    for subject in dicts(binding.get("subjects")):
        kind = subject.get("kind")
        if kind == "ServiceAccount":
            service_accounts.append(f"{as_str(subject.get('namespace'))}/"
                                    f"{as_str(subject.get('name'))}")
        elif kind == "User":
            users.append(as_str(subject.get("name")))
        elif kind == "Group":
            groups.append(as_str(subject.get("name")))
    return [object_name(binding), f"{as_str(ref.get('kind'))}/{as_str(ref.get('name'))}",
            object_age(binding, now), ", ".join(users), ", ".join(groups),
            ", ".join(service_accounts)]


ROLEBINDING_PRINTER = TablePrinter((
    name_column(),
    Column("Role", description=(
        "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
        "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.")),
    AGE_COLUMN,
    Column("Users", priority=1, description="Users in the roleBinding"),
    Column("Groups", priority=1, description="Groups in the roleBinding"),
    Column("ServiceAccounts", priority=1, description="ServiceAccounts in the roleBinding"),
), _binding_cells)

CLUSTERROLEBINDING_PRINTER = TablePrinter((
    name_column(),
    Column("Role", description=(
        "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef "
        "cannot be resolved, the Authorizer must return an error.")),
    AGE_COLUMN,
    Column("Users", priority=1, description="Users in the clusterRoleBinding"),
    Column("Groups", priority=1, description="Groups in the clusterRoleBinding"),
    Column("ServiceAccounts", priority=1, description=(
        "ServiceAccounts in the clusterRoleBinding")),
), _binding_cells)
