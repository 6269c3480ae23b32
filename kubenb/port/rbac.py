"""Least-privilege RBAC from what the prototype did.

Three sources: the requests its reconciles made (recorded by kubenb.client.request_log:
verb, group, resource, subresource, namespace), its informers (list and watch, in the
namespace they watch or cluster-wide), and leader election (get, create and update of
its Lease). Events, when the reconcile records them, add create and patch of `events` in
the namespaces of the keys it reconciled: client-go's recorder creates an Event and
patches its count when it repeats; it never updates one. A verb on a resource whose every
use stayed in one namespace is granted by a Role in that namespace; anything else
(cluster-scoped resources, informers over all namespaces, calls in several namespaces)
by the ClusterRole.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

from kubenb.port.spec import ControllerSpec

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Permission", "permissions", "permissions_table", "rbac_documents", "rbac_yaml"]

_VERB_ORDER = ["get", "list", "watch", "create", "update", "patch", "delete",
               "deletecollection"]


@dataclass(frozen=True, order=True)
class Permission:
    """One verb on one resource, where it was used ("" namespace: cluster-wide)."""

    group: str
    resource: str  # "deployments" or "foos/status"
    verb: str
    namespace: str
    source: str  # "informer", "reconcile", "leader election", "events"


def permissions(spec: ControllerSpec, *, events: bool = False) -> list[Permission]:
    """Every permission the controller used, one row per verb and place."""
    found: set[Permission] = set()
    for watched in spec.watched:
        info = watched.resource.info
        namespace = watched.namespace if info.namespaced else ""
        for verb in ("list", "watch"):
            found.add(Permission(info.group, info.resource, verb, namespace, "informer"))
    for record in spec.requests:
        resource = record.resource + (f"/{record.subresource}" if record.subresource else "")
        found.add(Permission(record.group, resource, record.verb, record.namespace,
                             "reconcile"))
    election = spec.leader_election
    if election is not None:
        for verb in ("get", "create", "update"):
            found.add(Permission("coordination.k8s.io", "leases", verb, election.namespace,
                                 "leader election"))
    if events:
        # An Event goes to its object's namespace ("default" for cluster-scoped ones):
        # the namespaces of the keys the prototype reconciled.
        namespaces = {key.split("/", 1)[0] if "/" in key else "default"
                      for key in spec.requests_by_key} or {""}
        for namespace in namespaces:
            for verb in ("create", "patch"):  # record.EventSink: Create, then Patch
                found.add(Permission("", "events", verb, namespace, "events"))
    return sorted(found)


def _scopes(perms: list[Permission]) -> dict[tuple[str, str, str], str]:
    """(group, resource, verb) -> the one namespace of all its uses, or "" (cluster)."""
    places: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for perm in perms:
        places[(perm.group, perm.resource, perm.verb)].add(perm.namespace)
    return {key: next(iter(ns)) if len(ns) == 1 else "" for key, ns in places.items()}


def _rules(perms: list[Permission]) -> list[dict[str, Any]]:
    verbs: dict[tuple[str, str], set[str]] = defaultdict(set)
    for perm in perms:
        verbs[(perm.group, perm.resource)].add(perm.verb)
    return [{"apiGroups": [group], "resources": [resource],
             "verbs": sorted(v, key=lambda x: (_VERB_ORDER.index(x)
                                               if x in _VERB_ORDER else 99, x))}
            for (group, resource), v in sorted(verbs.items())]


def rbac_documents(spec: ControllerSpec, name: str, namespace: str, *,
                   events: bool = False) -> list[dict[str, Any]]:
    """The ServiceAccount, Roles, ClusterRole and their bindings, as YAML-ready dicts."""
    perms = permissions(spec, events=events)
    scopes = _scopes(perms)
    by_scope: dict[str, list[Permission]] = defaultdict(list)
    for perm in perms:
        by_scope[scopes[(perm.group, perm.resource, perm.verb)]].append(perm)
    subject = {"kind": "ServiceAccount", "name": name, "namespace": namespace}
    docs: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "ServiceAccount",
                                   "metadata": {"name": name, "namespace": namespace}}]
    if "" in by_scope:
        docs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                     "metadata": {"name": name}, "rules": _rules(by_scope[""])})
        docs.append({"apiVersion": "rbac.authorization.k8s.io/v1",
                     "kind": "ClusterRoleBinding", "metadata": {"name": name},
                     "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                 "kind": "ClusterRole", "name": name},
                     "subjects": [subject]})
    for scope in sorted(s for s in by_scope if s):
        meta = {"name": name, "namespace": scope}
        docs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                     "metadata": meta, "rules": _rules(by_scope[scope])})
        docs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                     "metadata": dict(meta),
                     "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                 "name": name},
                     "subjects": [subject]})
    return docs


def rbac_yaml(docs: list[dict[str, Any]]) -> str:
    return "---\n".join(yaml.safe_dump(d, sort_keys=False) for d in docs)


def permissions_table(spec: ControllerSpec, *, events: bool = False) -> pd.DataFrame:
    """One row per resource and place: its verbs, where they were used, and why."""
    import pandas as pd

    perms = permissions(spec, events=events)
    scopes = _scopes(perms)
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for perm in perms:
        scope = scopes[(perm.group, perm.resource, perm.verb)]
        key = (perm.group, perm.resource, scope)
        row = rows.setdefault(key, {"api_group": perm.group, "resource": perm.resource,
                                    "verbs": set(), "scope": scope or "cluster",
                                    "kind": "Role" if scope else "ClusterRole",
                                    "source": set()})
        row["verbs"].add(perm.verb)
        row["source"].add(perm.source)
    out = []
    for row in rows.values():
        row["verbs"] = ", ".join(sorted(row["verbs"], key=lambda v: (
            _VERB_ORDER.index(v) if v in _VERB_ORDER else 99, v)))
        row["source"] = ", ".join(sorted(row["source"]))
        out.append(row)
    return pd.DataFrame(out, columns=["api_group", "resource", "verbs", "scope", "kind",
                                      "source"])
