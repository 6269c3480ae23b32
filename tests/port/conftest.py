"""The port tests share one run of each scenario (the runs are the slow part; every test
reads what they left)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import kubenb
from kubenb.cluster import Cluster
from kubenb.controller import Controller
from kubenb.port import describe, render
from tests.port.scenarios import SCENARIOS

#: The embedded cluster's own controllers (kubenb.controllermanager), ported as they run.
CLUSTER_CONTROLLERS = ("deployment", "replicaset", "job", "serviceaccount",
                       "garbagecollector", "root_ca_cert_publisher", "kubelet")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A cluster for porting the cluster's own controllers."""
    with kubenb.embedded() as c:
        yield c


@pytest.fixture(scope="module")
def controllers() -> dict[str, Controller]:
    """Each scenario's controller after it ran, each on a cluster of its own (one
    controller's writes would be another's cache), stopped."""
    out = {}
    for name, (scenario, _, _) in SCENARIOS.items():
        with kubenb.embedded() as cluster:
            out[name] = scenario(cluster)
    return out


@pytest.fixture(scope="module")
def cluster_projects(cluster: Cluster) -> dict[str, dict[str, str]]:
    """The Go projects of the cluster's own controllers, as they run beside the API server."""
    manager = cluster.controllers
    assert manager is not None
    return {name: render(describe(getattr(manager, name)), module=f"example.com/{name}")[0]
            for name in CLUSTER_CONTROLLERS}


@pytest.fixture(scope="module")
def projects(controllers: dict[str, Controller]) -> dict[str, dict[str, str]]:
    """Each scenario's Go project as {relative path: text}."""
    out: dict[str, dict[str, str]] = {}
    for name, (_, module, _) in SCENARIOS.items():
        files, *_rest = render(describe(controllers[name]), module=module)
        out[name] = files
    return out


def rbac(project: dict[str, str]) -> list[dict[str, Any]]:
    import yaml

    return list(yaml.safe_load_all(project["deploy/rbac.yaml"]))
