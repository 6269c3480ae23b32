"""The Foo scenario as a person runs it in a terminal: `python -m kubenb.controller.samples.foo`
serves an embedded API server with sample-controller running, and the real `kubectl`
applies the CRD and a Foo, sees the Deployment, scales it and deletes it by hand."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import kubenb
from kubenb.controller.samples.foo import main
from tests.helpers import needs_kubectl

pytestmark = needs_kubectl


class Kubectl:
    def __init__(self, kubeconfig: Path, cache: Path) -> None:
        self.base = ["kubectl", "--kubeconfig", str(kubeconfig), "--cache-dir", str(cache)]

    def __call__(self, *args: str, check: bool = True) -> str:
        done = subprocess.run([*self.base, *args], capture_output=True, text=True, timeout=30)
        if check:
            assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done.stdout if done.returncode == 0 else ""

    def json(self, *args: str) -> Any:
        out = self(*args, "-o", "json", check=False)
        return json.loads(out) if out else None


def eventually(check: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    """Poll a kubectl query until it answers truthy (the controller runs in real time)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[tuple[Kubectl, Path]]:
    """`python -m kubenb.controller.samples.foo --kubeconfig-out ...`, in a thread."""
    kubeconfig = tmp_path / "kubeconfig"
    stop = threading.Event()
    thread = threading.Thread(target=main, name="kubenb-test-foo-main", args=(
        ["--kubeconfig-out", str(kubeconfig), "--kubelet-delay", "0.05"], stop),
        kwargs={"embedded": kubenb.embedded})
    thread.start()
    try:
        kubectl = Kubectl(kubeconfig, tmp_path / "kube-cache")
        eventually(lambda: kubeconfig.exists() and kubectl("get", "ns", check=False),
                   "the embedded server")
        yield kubectl, tmp_path
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()


@pytest.mark.slow
def test_kubectl_drives_the_foo_controller(terminal: tuple[Kubectl, Path]) -> None:
    kubectl, manifests = terminal
    kubectl("apply", "-f", str(manifests / "foo-crd.yaml"))
    kubectl("wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io",
            "--timeout=20s")
    kubectl("apply", "-f", str(manifests / "example-foo.yaml"))

    foo = eventually(lambda: kubectl.json("get", "foo", "example-foo"), "the Foo")
    dep = eventually(lambda: kubectl.json("get", "deployment", "example-foo"), "the Deployment")
    assert dep["metadata"]["ownerReferences"][0] | {"uid": None} == {
        "apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo", "name": "example-foo",
        "uid": None, "controller": True, "blockOwnerDeletion": True}
    assert dep["metadata"]["ownerReferences"][0]["uid"] == foo["metadata"]["uid"]
    assert dep["spec"]["replicas"] == 1
    eventually(lambda: kubectl("get", "foo", "example-foo", "-o",
                               "jsonpath={.status.availableReplicas}") == "1",
               "the Foo's status to say 1 available")
    table = kubectl("get", "foos")
    assert table.split()[:5] == ["NAME", "DEPLOYMENT", "REPLICAS", "AVAILABLE", "AGE"]
    assert table.splitlines()[1].split()[:4] == ["example-foo", "example-foo", "1", "1"]

    # Scaled by hand: the controller scales it back to what the Foo says.
    kubectl("scale", "deployment", "example-foo", "--replicas=3")
    eventually(lambda: kubectl("get", "deployment", "example-foo", "-o",
                               "jsonpath={.spec.replicas}") == "1", "the scale to be undone")

    # Deleted by hand: made again, with a new uid.
    kubectl("delete", "deployment", "example-foo")
    again = eventually(lambda: (d := kubectl.json("get", "deployment", "example-foo"))
                       and d["metadata"]["uid"] != dep["metadata"]["uid"] and d,
                       "the Deployment to be made again")
    assert again["spec"]["replicas"] == 1

    # Scaling the Foo scales the Deployment, and its status follows the pods.
    kubectl("patch", "foo", "example-foo", "--type=merge", "-p", '{"spec":{"replicas":2}}')
    eventually(lambda: kubectl("get", "foo", "example-foo", "-o",
                               "jsonpath={.status.availableReplicas}") == "2",
               "2 available replicas")
    pods = [p for p in kubectl.json("get", "pods", "-l", "controller=example-foo")["items"]
            if not p["metadata"].get("deletionTimestamp")]  # the deleted Deployment's go
    assert [p["status"]["phase"] for p in pods] == ["Running", "Running"]

    events = kubectl.json("get", "events")["items"]
    synced = [e for e in events if e["reason"] == "Synced"
              and e["involvedObject"]["name"] == "example-foo"]
    assert synced and synced[0]["source"]["component"] == "sample-controller"
    assert synced[0]["message"] == "Foo synced successfully"
