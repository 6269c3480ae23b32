"""Test namespaces: valid, recognisable, unique names; created populated, deleted whole."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubenb.cluster import Cluster
from kubenb.errors import NotFound
from kubenb.testing import (
    create_namespace,
    delete_namespace,
    namespace_name,
    temporary_namespace,
    test_cluster,
)

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


@given(st.text(max_size=200))
def test_every_hint_gives_a_dns_label(hint: str) -> None:
    name = namespace_name(hint)
    assert len(name) <= 63 and DNS_LABEL.match(name), name


def test_the_name_says_which_test_made_it() -> None:
    assert namespace_name("test_scale[3-Replicas]").startswith("test-scale-3-replicas-")
    assert re.fullmatch(r"test-[a-z0-9]{6}", namespace_name("__"))


def test_a_long_name_is_cut_to_fit() -> None:
    name = namespace_name("test_" + "x" * 100)
    assert len(name) == 63 and name.startswith("test-xxxx")


def test_two_names_from_one_hint_differ() -> None:
    assert len({namespace_name("test_same") for _ in range(50)}) == 50


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with test_cluster(controllers="serviceaccount,root-ca-cert-publisher") as cluster:
        yield cluster


def test_a_created_namespace_is_populated(cluster: Cluster) -> None:
    name = create_namespace(cluster, "test_populated")
    try:
        assert cluster.resource("serviceaccounts", name).get("default")
        assert cluster.resource("configmaps", name).get("kube-root-ca.crt")
    finally:
        delete_namespace(cluster, name)


def test_deleting_takes_the_contents_and_waits_for_finalizers(cluster: Cluster) -> None:
    with temporary_namespace(cluster, "test_contents") as name:
        cluster.resource("configmaps", name).create({"metadata": {"name": "mine"}})
        namespaces = cluster.resource("namespaces")
        namespaces.patch(name, {"metadata": {"finalizers": ["example.com/hold"]}})
        held = namespaces.delete(name)                  # Terminating while held
        assert held["status"]["phase"] == "Terminating"
        namespaces.patch(name, {"metadata": {"finalizers": None}})
    with pytest.raises(NotFound):
        cluster.resource("namespaces").get(name)
    with pytest.raises(NotFound):
        cluster.resource("configmaps", name).get("mine")


def test_deleting_a_namespace_already_gone_is_fine(cluster: Cluster) -> None:
    name = create_namespace(cluster, "test_gone")
    cluster.resource("namespaces").delete(name)
    delete_namespace(cluster, name)
    with pytest.raises(NotFound):
        cluster.resource("namespaces").get(name)
