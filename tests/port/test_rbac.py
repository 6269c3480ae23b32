"""RBAC comes from what the prototypes did: their informers' list and watch, the
requests their reconciles made, and leader election's Lease; a verb whose every use
stayed in one namespace is granted by a Role there, anything else by the ClusterRole."""

from __future__ import annotations

import pytest

from kubenb.controller import Controller
from tests.port.conftest import rbac

pytestmark = pytest.mark.xdist_group("port")


def _rules(docs: list[dict], kind: str, namespace: str | None = None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for doc in docs:
        if doc["kind"] != kind:
            continue
        if namespace is not None and doc["metadata"].get("namespace") != namespace:
            continue
        for rule in doc["rules"]:
            for resource in rule["resources"]:
                key = f"{resource}.{rule['apiGroups'][0]}" if rule["apiGroups"][0] else resource
                out.setdefault(key, []).extend(rule["verbs"])
    return out


def test_foo_is_granted_what_its_reconciles_and_informers_used(
        projects: dict[str, dict[str, str]]) -> None:
    docs = rbac(projects["foo"])
    cluster = _rules(docs, "ClusterRole")
    role = _rules(docs, "Role", "default")
    assert cluster == {"deployments.apps": ["list", "watch"],
                       "foos.samplecontroller.k8s.io": ["list", "watch"]}
    assert role["deployments.apps"] == ["create", "update"]
    assert role["foos/status.samplecontroller.k8s.io"] == ["update"]
    # Its EventRecorder: client-go's creates an Event, then patches its count; an Event is
    # never updated (taking update away broke nothing against kube-apiserver).
    assert role["events"] == ["create", "patch"]
    assert "delete" not in str(docs)  # it never deleted anything


def test_leader_election_adds_its_lease_verbs_in_its_namespace(
        projects: dict[str, dict[str, str]]) -> None:
    docs = rbac(projects["configmap-mirror"])
    role = _rules(docs, "Role", "default")
    assert role["leases.coordination.k8s.io"] == ["get", "create", "update"]
    assert role["secrets"] == ["create", "update"]
    assert _rules(docs, "ClusterRole") == {"configmaps": ["list", "watch"],
                                          "secrets": ["list", "watch"]}
    [binding] = [d for d in docs if d["kind"] == "RoleBinding"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "configmap-mirror",
                                    "namespace": "default"}]


def test_no_lease_verbs_without_leader_election(projects: dict[str, dict[str, str]]) -> None:
    assert "leases" not in projects["configmap-usage"]["deploy/rbac.yaml"]


def test_permissions_shows_the_same_rules_as_a_table(
        controllers: dict[str, Controller]) -> None:
    table = controllers["configmap-mirror"].permissions()
    rows = {(r.resource, r.scope): r for r in table.itertuples()}
    assert rows[("secrets", "default")].verbs == "create, update"
    assert rows[("secrets", "default")].kind == "Role"
    assert rows[("secrets", "cluster")].verbs == "list, watch"
    assert rows[("secrets", "cluster")].kind == "ClusterRole"
    assert rows[("leases", "default")].source == "leader election"
