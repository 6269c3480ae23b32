"""What kube-controller-manager puts in every namespace: the `default` ServiceAccount
(serviceaccount controller) and the `kube-root-ca.crt` ConfigMap (root-ca-cert-publisher),
compared with a real v1.32 cluster's (tests/fixtures/realapi), and kept there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import kubenb
from kubenb.cluster import Cluster
from kubenb.controllermanager import ControllerManager
from kubenb.controllermanager.root_ca_publisher import DESCRIPTION, DESCRIPTION_ANNOTATION
from kubenb.errors import NotFound
from kubenb.server.tls import generate_self_signed
from tests.controllermanager.conftest import MakeCluster, eventually, settle
from tests.helpers import Kubectl, needs_kubectl
from tests.realapi import REALAPI

SYSTEM = ("default", "kube-system", "kube-public", "kube-node-lease")


def real(name: str) -> Any:
    return json.loads((REALAPI / name).read_text())["response"]["body"]


def get(cluster: Cluster, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
    try:
        return dict(cluster.resource(resource, namespace=namespace).get(name))
    except NotFound:
        return None


def test_a_new_cluster_has_them_in_every_namespace_as_a_real_one(cluster: Cluster) -> None:
    """No waiting: `kubenb.embedded()` returns once every namespace has both."""
    real_sa, real_cm = real("objects/serviceaccount-default-get.json"), real(
        "objects/configmap-kube-root-ca-metadata.json")
    for ns in SYSTEM:
        sa = get(cluster, "serviceaccounts", ns, "default")
        assert sa is not None, ns
        assert list(sa) == list(real_sa) and list(sa["metadata"]) == list(real_sa["metadata"])
        cm = get(cluster, "configmaps", ns, "kube-root-ca.crt")
        assert cm is not None, ns
        assert cm["metadata"]["annotations"] == real_cm["metadata"]["annotations"]
        assert list(cm["metadata"]) == list(real_cm["metadata"])
        (entry,) = cm["metadata"]["managedFields"]
        (real_entry,) = real_cm["metadata"]["managedFields"]
        assert {k: v for k, v in entry.items() if k != "time"} == {
            k: v for k, v in real_entry.items() if k != "time"}
        assert cm["data"] == {"ca.crt": ""}  # plain HTTP: no CA to trust


def test_a_new_namespace_gets_both_and_they_come_back(make_cluster: MakeCluster) -> None:
    cluster = make_cluster(controllers="serviceaccount,root-ca-cert-publisher")
    cluster.resource("namespaces").create({"metadata": {"name": "team"}})
    first = eventually(lambda: get(cluster, "serviceaccounts", "team", "default"),
                       "the default ServiceAccount in a new namespace")
    eventually(lambda: get(cluster, "configmaps", "team", "kube-root-ca.crt"),
               "kube-root-ca.crt in a new namespace")

    cluster.resource("serviceaccounts", namespace="team").delete("default")
    again = eventually(lambda: get(cluster, "serviceaccounts", "team", "default"),
                       "the default ServiceAccount to be made again")
    assert again["metadata"]["uid"] != first["metadata"]["uid"]
    other = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "builder"}}
    cluster.resource("serviceaccounts", namespace="team").create(other)
    cluster.resource("serviceaccounts", namespace="team").delete("builder")
    settle(cluster)
    assert get(cluster, "serviceaccounts", "team", "builder") is None  # only default is kept

    configmaps = cluster.resource("configmaps", namespace="team")
    configmaps.delete("kube-root-ca.crt")
    eventually(lambda: get(cluster, "configmaps", "team", "kube-root-ca.crt"),
               "kube-root-ca.crt to be made again")


def test_an_edited_kube_root_ca_is_put_back(make_cluster: MakeCluster) -> None:
    cluster = make_cluster(controllers="root-ca-cert-publisher")
    configmaps = cluster.resource("configmaps", namespace="default")
    configmaps.patch("kube-root-ca.crt", {
        "data": {"ca.crt": "not a CA", "extra": "x"},
        "metadata": {"labels": {"mine": "yes"},
                     "annotations": {DESCRIPTION_ANNOTATION: None, "note": "kept"}}})

    def restored() -> dict[str, Any] | None:
        cm = configmaps.get("kube-root-ca.crt")
        return cm if cm["data"] == {"ca.crt": ""} else None

    cm = eventually(restored, "the publisher to put the data back")
    settle(cluster)
    cm = configmaps.get("kube-root-ca.crt")
    assert cm["data"] == {"ca.crt": ""}
    assert cm["metadata"]["annotations"] == {DESCRIPTION_ANNOTATION: DESCRIPTION,
                                             "note": "kept"}
    assert cm["metadata"]["labels"] == {"mine": "yes"}  # only the data and description
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"},
             "data": {"ca.crt": "mine"}}
    configmaps.create(other)
    settle(cluster)
    assert configmaps.get("app")["data"] == {"ca.crt": "mine"}  # not its ConfigMap


def test_ca_crt_is_the_ca_clients_trust_for_the_server(tmp_path: Path) -> None:
    with kubenb.embedded(tls=True, controllers="root-ca-cert-publisher") as cluster:
        assert cluster.server is not None and cluster.server.ca_pem
        for ns in SYSTEM:
            cm = get(cluster, "configmaps", ns, "kube-root-ca.crt")
            assert cm is not None
            assert cm["data"]["ca.crt"].encode() == cluster.server.ca_pem
    # A certificate of one's own: the CA given as tls_ca= is published.
    bundle = generate_self_signed(["127.0.0.1", "localhost"])
    assert bundle.ca_pem
    (tmp_path / "tls.crt").write_bytes(bundle.cert_pem)
    (tmp_path / "tls.key").write_bytes(bundle.key_pem)
    (tmp_path / "ca.crt").write_bytes(bundle.ca_pem)
    with kubenb.embedded(tls=(tmp_path / "tls.crt", tmp_path / "tls.key"),
                         tls_ca=tmp_path / "ca.crt",
                         controllers="root-ca-cert-publisher") as cluster:
        cm = get(cluster, "configmaps", "default", "kube-root-ca.crt")
        assert cm is not None and cm["data"]["ca.crt"].encode() == bundle.ca_pem


def test_root_ca_can_be_given(make_cluster: MakeCluster) -> None:
    bare = make_cluster(controllers=False)
    assert bare.server is not None
    with ControllerManager(bare.server.kubeconfig_path, "root-ca-cert-publisher",
                           root_ca=b"-----BEGIN CERTIFICATE-----\n...\n") as manager:
        assert manager.root_ca_cert_publisher is not None
        assert manager["root-ca-cert-publisher"] is manager.root_ca_cert_publisher
        cm = get(bare, "configmaps", "kube-public", "kube-root-ca.crt")
        assert cm is not None
        assert cm["data"] == {"ca.crt": "-----BEGIN CERTIFICATE-----\n...\n"}


@pytest.mark.parametrize(("controllers", "has_sa", "has_cm"), [
    ("*,-serviceaccount", False, True),
    ("*,-root-ca-cert-publisher", True, False),
    (False, False, False),
])
def test_each_can_be_switched_off(make_cluster: MakeCluster, controllers: Any, has_sa: bool,
                                  has_cm: bool) -> None:
    cluster = make_cluster(controllers=controllers)
    if cluster.controllers is not None:
        settle(cluster)
    assert (get(cluster, "serviceaccounts", "default", "default") is not None) == has_sa
    assert (get(cluster, "configmaps", "default", "kube-root-ca.crt") is not None) == has_cm


def test_a_terminating_namespace_gets_nothing_new(make_cluster: MakeCluster) -> None:
    cluster = make_cluster(controllers="serviceaccount,root-ca-cert-publisher")
    namespaces = cluster.resource("namespaces")
    namespaces.create({"metadata": {"name": "held", "finalizers": ["kubenb.io/hold"]}})
    eventually(lambda: get(cluster, "configmaps", "held", "kube-root-ca.crt")
               and get(cluster, "serviceaccounts", "held", "default"), "both in 'held'")
    namespaces.delete("held")  # Terminating (the finalizer holds it), its contents removed
    settle(cluster)
    assert namespaces.get("held")["status"]["phase"] == "Terminating"
    assert cluster.resource("serviceaccounts", namespace="held").list()["items"] == []
    assert cluster.resource("configmaps", namespace="held").list()["items"] == []
    metrics = cluster.controllers.metrics() if cluster.controllers else {}
    assert all(m.errors == 0 for m in metrics.values())  # skipped, not failed
    namespaces.patch("held", {"metadata": {"finalizers": None}})


@needs_kubectl
def test_kubectl_sees_them(make_cluster: MakeCluster, tmp_path: Path) -> None:
    cluster = make_cluster(controllers="serviceaccount,root-ca-cert-publisher")
    assert cluster.server is not None
    kubectl = Kubectl(cluster.server.kubeconfig_path, tmp_path / "cache")
    kubectl("create", "namespace", "shop")
    eventually(lambda: "default" in kubectl("get", "serviceaccounts", "-n", "shop",
                                             "-o", "name").stdout, "kubectl to see default")
    eventually(lambda: "kube-root-ca.crt" in kubectl("get", "configmaps", "-n", "shop",
                                                      "-o", "name").stdout,
               "kubectl to see kube-root-ca.crt")
    sa = kubectl("get", "serviceaccounts", "-n", "shop").stdout.split()
    assert sa[:3] == ["NAME", "SECRETS", "AGE"] and sa[3:5] == ["default", "0"]
    cm = kubectl("get", "configmaps", "-n", "shop").stdout.split()
    assert cm[:3] == ["NAME", "DATA", "AGE"] and cm[3:5] == ["kube-root-ca.crt", "1"]
