"""Composing the cluster: which controllers run with kubenb.embedded() and
`python -m kubenb serve`, switching them off, and stopping them cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
import requests

import kubenb
from kubenb.controllermanager import CONTROLLERS, ControllerManager, controller_names
from kubenb.errors import KubenbError
from tests.controllermanager.conftest import MakeCluster, deployment, eventually, settle
from tests.helpers import assert_no_new_threads, kubenb_threads, wait_until
from tests.server.test_cli import ROOT, serve


def test_controller_names_follow_kube_controller_manager() -> None:
    assert controller_names(True) == CONTROLLERS
    assert controller_names(False) == controller_names(None) == controller_names("") == ()
    assert controller_names({"job", "kubelet"}) == ("kubelet", "job")
    assert controller_names("*,-job") == ("kubelet", "garbagecollector", "replicaset",
                                          "deployment", "serviceaccount",
                                          "root-ca-cert-publisher")
    assert controller_names(["*", "-kubelet", "-garbagecollector", "-serviceaccount"]) == (
        "replicaset", "deployment", "job", "root-ca-cert-publisher")
    with pytest.raises(KubenbError, match=r"unknown controller 'cronjob'.*garbagecollector"):
        controller_names("deployment,cronjob")


def test_embedded_runs_every_controller_and_stops_them_all() -> None:
    before = set(threading.enumerate())
    with kubenb.embedded() as cluster:
        manager = cluster.controllers
        assert isinstance(manager, ControllerManager)
        assert manager.names == CONTROLLERS
        assert set(manager.controllers) == set(CONTROLLERS)
        assert cluster.resource("nodes").list()["items"]  # the kubelet registered
        assert all(t.name.startswith("kubenb") for t in threading.enumerate()
                   if t not in before)
        assert repr(manager).startswith("ControllerManager(running")
    assert_no_new_threads(before, grace=5.0)
    assert not [t for t in kubenb_threads() if t not in before]


def test_a_bare_server_leaves_pods_pending(make_cluster: MakeCluster) -> None:
    bare = make_cluster(controllers=False)
    assert bare.controllers is None
    assert not bare.resource("nodes").list()["items"]
    bare.resource("deployments").create(deployment(replicas=2))
    bare.resource("pods").create({"metadata": {"name": "p"}, "spec": {
        "containers": [{"name": "c", "image": "nginx"}]}})
    assert not bare.resource("replicasets").list()["items"]
    assert bare.resource("pods").get("p")["status"] == {"phase": "Pending",
                                                        "qosClass": "BestEffort"}


def test_only_the_chosen_controllers_run(make_cluster: MakeCluster) -> None:
    cluster = make_cluster(controllers={"kubelet", "replicaset"})
    assert cluster.controllers is not None
    assert cluster.controllers.deployment is None and cluster.controllers.job is None
    with pytest.raises(KeyError, match="no controller 'cronjob'"):
        cluster.controllers["cronjob"]
    cluster.resource("deployments").create(deployment(replicas=1))
    settle(cluster)
    assert not cluster.resource("replicasets").list()["items"]  # no deployment controller
    assert cluster.controllers.metrics()["kubelet"].errors == 0


def test_serve_runs_the_controllers_and_can_leave_them_out() -> None:
    body = deployment(replicas=2)
    with serve("--plain-http") as (proc, url):
        requests.post(url + "/apis/apps/v1/namespaces/default/deployments", json=body,
                      timeout=10).raise_for_status()

        def available() -> bool:
            got = requests.get(url + "/apis/apps/v1/namespaces/default/deployments/web",
                               timeout=10).json()
            return bool((got.get("status") or {}).get("availableReplicas") == 2)

        eventually(available, "the deployment to become available", timeout=30)
    with serve("--plain-http", "--controllers", "") as (proc, url):
        assert proc.stdout is not None
        assert requests.get(url + "/api/v1/nodes", timeout=10).json()["items"] == []
    with serve("--plain-http", "--controllers", "*,-kubelet") as (proc, url):
        assert requests.get(url + "/api/v1/nodes", timeout=10).json()["items"] == []
        wait_until(lambda: proc.poll() is None, what="serve to keep running")


def test_serve_rejects_an_unknown_controller() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "kubenb", "serve", "--port", "0",
                           "--controllers", "deployment,cron"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 2
    assert "unknown controller 'cron'" in done.stderr
