"""The bootstrap RBAC objects a server stores at start are what its registry would make.

A server copies them from kubenb/server/default_rbac_stored.json (making 123 objects
through the registry takes a third of a cluster's start); this checks that file against
the registry, object by object. `python -m tests.server.test_bootstrap` rewrites it.
"""

from __future__ import annotations

import json
import sys

from kubenb.server import EmbeddedServer
from kubenb.server.bootstrap import (
    STORED_DEFAULT_RBAC,
    default_rbac,
    make_default_rbac,
    stored_default_rbac,
    unstamped,
)
from kubenb.server.registry import SYSTEM_NAMESPACES, Registry
from kubenb.server.resources import ResourceRegistry
from kubenb.server.storage import Storage


def _made_by_a_registry() -> list[tuple[str, str, str, dict]]:
    registry = Registry(Storage(), ResourceRegistry())
    for namespace in SYSTEM_NAMESPACES:  # as a server's registry starts
        registry.ensure_namespace(namespace)
    return [unstamped(made) for made in make_default_rbac(registry)]


def test_the_stored_objects_are_what_the_registry_makes() -> None:
    made = _made_by_a_registry()
    assert len(made) == len(default_rbac())
    stored = [tuple(row) for row in stored_default_rbac()]
    assert stored == made, ("kubenb/server/default_rbac_stored.json is out of date: run "
                            "`python -m tests.server.test_bootstrap`")


def test_a_server_stores_each_with_its_own_uid_time_and_resource_version() -> None:
    with EmbeddedServer() as one, EmbeddedServer() as two:
        key = "clusterroles.rbac.authorization.k8s.io"
        a = one.storage.get(key, "", "cluster-admin")
        b = two.storage.get(key, "", "cluster-admin")
        assert a is not None and b is not None
        assert a["metadata"]["uid"] and a["metadata"]["uid"] != b["metadata"]["uid"]
        assert a["metadata"]["resourceVersion"] and a["metadata"]["creationTimestamp"]
        assert all(entry["time"] for entry in a["metadata"]["managedFields"])
        stored = next(row for row in stored_default_rbac()
                      if row[0] == key and row[2] == "cluster-admin")
        assert unstamped((key, "", "cluster-admin", a))[3] == stored[3]


if __name__ == "__main__":
    rows = _made_by_a_registry()
    STORED_DEFAULT_RBAC.write_text("[\n" + ",\n".join(
        json.dumps(list(row), separators=(",", ":")) for row in rows) + "\n]\n",
        encoding="utf-8")
    sys.stdout.write(f"wrote {STORED_DEFAULT_RBAC} ({len(rows)} objects)\n")
