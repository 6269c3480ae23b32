"""The cluster's controllers in a process of their own: `kubenb controller-manager`,
`ControllerManagerProcess`, and `kubenb serve`, which runs them that way by default."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import requests

import kubenb
from kubenb.controllermanager.process import READY_LINE, ControllerManagerProcess
from kubenb.errors import KubenbError
from tests.controllermanager.conftest import deployment, eventually
from tests.helpers import Kubectl, wait_until
from tests.server.test_cli import ROOT, serve

pytestmark = pytest.mark.slow  # each test starts Python processes

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _gone(pid: int) -> bool:
    """No such process, or only its zombie (a parent that has not reaped it yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"


def _available(cluster: kubenb.Cluster, name: str, replicas: int) -> bool:
    got = cluster.resource("deployments", namespace="default").get(name)
    return bool((got.get("status") or {}).get("availableReplicas") == replicas)


def test_a_controller_manager_process_runs_a_bare_servers_cluster(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])
    with kubenb.embedded(controllers=False) as cluster:
        kubeconfig = str(cluster.server.kubeconfig_path)
        with ControllerManagerProcess(kubeconfig, "*,-job") as manager:
            assert manager.running and repr(manager).startswith(
                f"ControllerManagerProcess(running, pid={manager.proc.pid}")
            assert manager.names == ("kubelet", "garbagecollector", "replicaset",
                                     "deployment", "serviceaccount", "root-ca-cert-publisher")
            cluster.resource("deployments", namespace="default").create(deployment(replicas=2))
            eventually(lambda: _available(cluster, "web", 2), "two available pods")
            kubectl = Kubectl(kubeconfig, tmp_path)
            pods = kubectl("get", "pods", "-o", "name").stdout.split()
            assert len(pods) == 2
            kubectl("logs", pods[0])  # the kubelet's log endpoint answers across processes
            assert cluster.resource("nodes").list()["items"]
        assert not manager.running and manager.proc is not None
        assert manager.proc.returncode == 0


def test_start_names_the_exit_code_when_the_child_cannot_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])
    manager = ControllerManagerProcess(tmp_path / "no-such-kubeconfig", "*")
    with pytest.raises(KubenbError, match=r"controller-manager \(for .*no-such-kubeconfig\) "
                                          r"ended with exit code 2"):
        manager.start(timeout=60)
    assert not manager.running
    with pytest.raises(KubenbError, match="unknown controller 'cron'"):
        ControllerManagerProcess("unused", "deployment,cron")


def test_the_child_ends_when_its_parent_is_killed(tmp_path: Path) -> None:
    parent = textwrap.dedent("""
        import sys, time
        import kubenb
        from kubenb.controllermanager.process import ControllerManagerProcess
        cluster = kubenb.embedded(controllers=False)
        child = ControllerManagerProcess(str(cluster.server.kubeconfig_path), "kubelet").start()
        print(child.proc.pid, flush=True)
        time.sleep(600)
    """)
    proc = subprocess.Popen([sys.executable, "-c", parent], stdout=subprocess.PIPE, text=True,
                            env=ENV)
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        assert not _gone(child)
    finally:
        proc.kill()
        proc.wait()
    wait_until(lambda: _gone(child), timeout=15, what="the orphaned controller-manager to end")


def test_controller_manager_command_stops_on_sigterm_and_says_what_is_wrong(
        tmp_path: Path) -> None:
    bad = subprocess.run([sys.executable, "-m", "kubenb", "controller-manager", "--kubeconfig",
                          str(tmp_path / "missing"), "--controllers", "kubelet"],
                         capture_output=True, text=True, env=ENV, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.startswith("kubenb controller-manager: ") and "missing" in bad.stderr
    with kubenb.embedded(controllers=False) as cluster:
        proc = subprocess.Popen([sys.executable, "-m", "kubenb", "controller-manager",
                                 "--kubeconfig", str(cluster.server.kubeconfig_path),
                                 "--controllers", "serviceaccount"],
                                stdout=subprocess.PIPE, text=True, env=ENV)
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == READY_LINE
            assert cluster.resource("serviceaccounts", namespace="default").get("default")
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(15) == 0


def test_serve_runs_its_controllers_beside_it_unless_told_otherwise() -> None:
    with serve("--plain-http", "--controllers", "kubelet,serviceaccount") as (proc, url):
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(2)]
        said = next(line for line in lines if line.startswith("controllers ("))
        child = int(said.split("in process ", 1)[1].split(")", 1)[0])
        assert child != proc.pid
        cmdline = Path(f"/proc/{child}/cmdline").read_text().split("\0")
        assert "controller-manager" in cmdline and "--exit-with-stdin" in cmdline
        assert said.rstrip().endswith("): kubelet, serviceaccount")
        assert requests.get(url + "/api/v1/nodes", timeout=10).json()["items"]
    wait_until(lambda: _gone(child), timeout=15, what="the controllers to stop with serve")
    with serve("--plain-http", "--controllers", "serviceaccount",
               "--controllers-in-process") as (proc, url):
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(2)]
        assert "controllers (in this process): serviceaccount\n" in lines
