"""The three controllers the port is checked on, each run through a short scenario on a
cluster, so the port sees what a prototype that really ran has seen and done.

`foo`: sample-controller (a CRD owning Deployments, typed and dynamic together);
`configmap-mirror`: owner-based, with leader election; `configmap-usage`: a custom
index, a custom event mapping and a requeue. Every scenario makes each reconcile path
worth granting happen (a create, an update after a hand edit, a patch), then returns
the controller, stopped. `python -m tests.port.regenerate` writes their projects.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kubenb.cluster import Cluster
from kubenb.controller import Controller, LeaseLock
from kubenb.controller.samples import new_foo, new_foo_controller
from tests.helpers import wait_until
from tests.port.prototypes.configmap_mirror import MIRROR_LABEL, SOURCE_VERSION, ConfigMapMirror
from tests.port.prototypes.configmap_usage import USED_BY, new_controller

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"

Scenario = Callable[[Cluster], Controller]


def _idle_until(controller: Controller, done: Callable[[], bool], what: str) -> None:
    for _ in range(100):
        controller.run_until_idle()
        if done():
            # and once more, a little longer: the events of its own last writes come back,
            # so the last reconcile of each key is the steady one the Go test replays
            controller.run_until_idle(quiet=0.2)
            return
    raise AssertionError(f"the controller never got to: {what}")


def foo(cluster: Cluster) -> Controller:
    """Create a Foo, scale its Deployment by hand, let the controller scale it back."""
    sample = new_foo_controller(cluster, record_events=False)
    foos = cluster.clientset.samplecontroller_v1alpha1().foos("default")
    deployments = cluster.clientset.apps_v1().deployments("default")
    foos.create(new_foo("example-foo", replicas=2))
    _idle_until(sample.controller, lambda: "availableReplicas" in (
        foos.get("example-foo").get("status") or {}), "the Foo's status written")
    deployments.patch("example-foo", {"spec": {"replicas": 3}})
    _idle_until(sample.controller, lambda: deployments.get("example-foo")["spec"][
        "replicas"] == 2, "the Deployment scaled back to 2")
    sample.close()
    return sample.controller


def configmap_mirror(cluster: Cluster) -> Controller:
    """Under a Lease: a labelled ConfigMap gets its Secret, then an edit updates it."""
    mirror = ConfigMapMirror(cluster)
    cluster.factory.start()
    controller = mirror.controller
    controller.run(leader_election=LeaseLock(cluster, "default", "configmap-mirror",
                                             "prototype"))
    try:
        wait_until(lambda: bool(controller.is_leader()), timeout=30, what="leadership")
        cms = cluster.resource("configmaps", namespace="default")
        secrets = cluster.resource("secrets", namespace="default")
        cms.create({"metadata": {"name": "settings", "labels": {MIRROR_LABEL: "secret"}},
                    "data": {"mode": "fast"}})
        _idle_until(controller, lambda: any(
            s["metadata"]["name"] == "settings" for s in secrets.list()["items"]),
            "the Secret created")
        cm = cms.get("settings")
        cm["data"] = {"mode": "slow"}
        version = cms.update(cm)["metadata"]["resourceVersion"]
        _idle_until(controller, lambda: secrets.get("settings")["metadata"].get(
            "annotations", {}).get(SOURCE_VERSION) == version, "the Secret updated")
    finally:
        controller.stop()
    return controller


def configmap_usage(cluster: Cluster) -> Controller:
    """A Pod mounting a ConfigMap: the ConfigMap is annotated with the count."""
    controller = new_controller(cluster)
    cluster.factory.start()
    cms = cluster.resource("configmaps", namespace="default")
    cms.create({"metadata": {"name": "app-config"}, "data": {"greeting": "hello"}})
    cluster.resource("pods", namespace="default").create({
        "metadata": {"name": "app"},
        "spec": {"containers": [{"name": "app", "image": "nginx"}],
                 "volumes": [{"name": "config", "configMap": {"name": "app-config"}}]}})
    _idle_until(controller, lambda: cms.get("app-config")["metadata"].get(
        "annotations", {}).get(USED_BY) == "1", "the ConfigMap annotated")
    controller.stop()
    return controller


SCENARIOS: dict[str, tuple[Scenario, str, Path]] = {
    "foo": (foo, "example.com/foo-controller", ROOT / "examples" / "foo-controller"),
    "configmap-mirror": (configmap_mirror, "example.com/configmap-mirror",
                         GOLDEN / "configmap-mirror"),
    "configmap-usage": (configmap_usage, "example.com/configmap-usage",
                        GOLDEN / "configmap-usage"),
}


def read_project(directory: Path) -> dict[str, str]:
    """Every file of a written project, as {relative path: text}."""
    return {str(p.relative_to(directory)): p.read_text(encoding="utf-8")
            for p in sorted(directory.rglob("*")) if p.is_file()}


