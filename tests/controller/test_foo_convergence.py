"""sample-controller in Python (kubenb.controller.samples.foo), end to end over the embedded
server: every Foo ends with its Deployment (right replicas, owned by the Foo), the
Deployment's Pods Running, and the Foo's status matching, from a cold start, after the
Deployment is deleted or scaled by hand, and across 20 seeds of churn and faults
(injected 500s / 429s, 409s from concurrent writers, dropped watches, 410 relists).

The workqueues, rate limiters and the embedded kubelet run on one FakeClock; the test
steps it while it polls the server for the converged state.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

import kubenb
from kubenb.cache.factory import SharedInformerFactory
from kubenb.cache.keys import DeletedFinalStateUnknown
from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from kubenb.controller import controller_of
from kubenb.controller.samples import (
    GROUP_VERSION,
    DeploymentSimulator,
    FooController,
    new_deployment,
    new_foo,
    new_foo_controller,
)
from kubenb.errors import ApiError, Conflict, NotFound
from kubenb.server.churn import Churn
from tests.helpers import wait_until

pytestmark = pytest.mark.slow

NS = "default"


@dataclass
class Env:
    """One embedded server with the Foo controller, the Deployment stand-in and a kubelet."""

    cluster: Cluster
    clock: FakeClock
    foo: FooController
    sim: DeploymentSimulator
    churn: Churn

    @property
    def foos(self) -> Any:
        return self.cluster.clientset.samplecontroller_v1alpha1().foos(NS)

    @property
    def deployments(self) -> Any:
        return self.cluster.clientset.apps_v1().deployments(NS)

    @property
    def pods(self) -> Any:
        return self.cluster.clientset.core_v1().pods(NS)

    def run(self) -> None:
        self.sim.run()
        self.foo.run()


@contextmanager
def foo_env(seed: int = 0, *, pods: bool = True) -> Iterator[Env]:
    clock = FakeClock()
    # A bare server but for the kubelet: the DeploymentSimulator stands in for the rest.
    with kubenb.embedded(controllers={"kubelet"}, clock=clock,
                         kubelet={"stop_seconds": 0}) as cluster:
        # Informers on the FakeClock too: a Reflector's backoff after a dropped watch is
        # stepped like every other timer instead of slept in real time.
        cluster.factory = SharedInformerFactory(cluster.dynamic, clock=clock)
        foo = new_foo_controller(cluster, clock=clock)
        sim = DeploymentSimulator(cluster, clock=clock, pods=pods)
        churn = cluster.server.churn(rate=0, kinds=("configmaps", "pods"), seed=seed,
                                     max_objects=30, clock=clock)
        try:
            yield Env(cluster, clock, foo, sim, churn)
        finally:
            cluster.server.faults.clear()
            foo.close()
            sim.stop()


# -- what "converged" means, read from the server (not from any cache) -------------------------


def mismatch(env: Env) -> str | None:
    """Why the cluster is not converged yet, or None when it is."""
    deployments = {d["metadata"]["name"]: d for d in env.deployments.list()["items"]}
    pods = env.pods.list()["items"]
    for foo in env.foos.list()["items"]:
        name, spec = foo["metadata"]["name"], foo["spec"]
        want = spec["replicas"]
        dep = deployments.get(spec["deploymentName"])
        if dep is None:
            return f"Foo {name}: no Deployment {spec['deploymentName']}"
        ref = controller_of(dep)
        if ref is None or (ref["apiVersion"], ref["kind"], ref["name"], ref["uid"]) != (
                GROUP_VERSION, "Foo", name, foo["metadata"]["uid"]):
            return f"Foo {name}: Deployment owned by {ref}"
        if dep["spec"]["replicas"] != want:
            return f"Foo {name}: Deployment has {dep['spec']['replicas']} replicas, want {want}"
        owned = [p for p in pods if (controller_of(p) or {}).get("uid") == dep["metadata"]["uid"]]
        running = [p for p in owned if p["status"].get("phase") == "Running"]
        if len(owned) != want or len(running) != want:
            return f"Foo {name}: {len(running)}/{len(owned)} pods running, want {want}"
        available = (dep.get("status") or {}).get("availableReplicas", 0)
        if available != want:
            return f"Foo {name}: Deployment status says {available} available, want {want}"
        if (foo.get("status") or {}).get("availableReplicas") != available:
            return f"Foo {name}: status {foo.get('status')}, Deployment has {available}"
    # Every pod a Deployment owns belongs to a Deployment that still exists.
    uids = {d["metadata"]["uid"] for d in deployments.values()}
    strays = [p["metadata"]["name"] for p in pods
              if (controller_of(p) or {}).get("kind") == "Deployment"
              and controller_of(p)["uid"] not in uids]
    return f"pods of deleted Deployments: {strays}" if strays else None


def step(env: Env, n: int = 1) -> None:
    """Let `n` seconds pass on the FakeClock: backoffs fall due, the kubelet acts."""
    for _ in range(n):
        env.clock.step(1.0)


def converge(env: Env, timeout: float = 15.0) -> None:
    """Step time until the server shows the converged state *and* it still holds once
    both controllers are idle (a passing state mid-flight does not count)."""
    deadline = time.monotonic() + timeout
    while True:
        why = mismatch(env)
        if why is None:
            env.sim.run_until_idle(quiet=0.02)
            env.foo.run_until_idle(quiet=0.02)
            why = mismatch(env)
            if why is None:
                return
        if time.monotonic() > deadline:
            raise AssertionError(f"not converged after {timeout}s: {why}; "
                                 f"foo errors: {env.foo.controller.recent_errors()[-3:]}")
        step(env)
        time.sleep(0.002)


def retrying(fn: Callable[[], Any], tries: int = 20) -> Any:
    """A person's write while faults are on: try again after an injected failure."""
    for attempt in range(tries):
        try:
            return fn()
        except (ApiError, OSError):
            if attempt == tries - 1:
                raise
    return None


# -- the scenarios of the issue -----------------------------------------------------------------


def test_foo_converges_from_a_cold_start_with_owner_reference_status_and_events() -> None:
    with foo_env() as env:
        for i in range(3):  # present before the controller starts
            env.foos.create(new_foo(f"foo-{i}", replicas=i + 1, deployment_name=f"web-{i}"))
        env.run()
        converge(env)

        dep = env.deployments.get("web-1")
        foo = env.foos.get("foo-1")
        assert dep["metadata"]["ownerReferences"] == [{
            "apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo", "name": "foo-1",
            "uid": foo["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
        assert dep["spec"]["replicas"] == 2
        assert dep["spec"]["template"]["metadata"]["labels"] == {"app": "nginx",
                                                                 "controller": "foo-1"}
        assert foo["status"] == {"availableReplicas": 2}
        assert dep["status"]["availableReplicas"] == 2
        # The stand-in wrote a real-shaped Deployment status.
        conditions = {c["type"]: (c["status"], c["reason"]) for c in dep["status"]["conditions"]}
        assert conditions == {"Available": ("True", "MinimumReplicasAvailable"),
                              "Progressing": ("True", "NewReplicaSetAvailable")}
        assert dep["status"]["observedGeneration"] == dep["metadata"]["generation"]

        assert env.foo.broadcaster is not None and env.foo.broadcaster.flush()
        events = [e for e in env.cluster.resource("events").list()["items"]
                  if e["involvedObject"]["name"] == "foo-1"]
        assert {(e["type"], e["reason"], e["message"]) for e in events} == {
            ("Normal", "Synced", "Foo synced successfully")}
        assert events[0]["source"] == {"component": "sample-controller"}
        assert events[0]["involvedObject"]["kind"] == "Foo"


def test_foo_brings_back_its_deleted_deployment() -> None:
    with foo_env() as env:
        env.foos.create(new_foo("web", replicas=2))
        env.run()
        converge(env)
        old = env.deployments.get("web")
        env.deployments.delete("web")
        converge(env)
        new = env.deployments.get("web")
        assert new["metadata"]["uid"] != old["metadata"]["uid"]
        # The old Deployment's pods went with it; the new one has fresh pods.
        owners = {controller_of(p)["uid"] for p in env.pods.list()["items"]}
        assert owners == {new["metadata"]["uid"]}
        assert env.foos.get("web")["status"] == {"availableReplicas": 2}


def test_foo_undoes_a_manual_scale_of_its_deployment() -> None:
    with foo_env() as env:
        env.foos.create(new_foo("web", replicas=3))
        env.run()
        converge(env)
        # `kubectl scale deployment web --replicas=1`
        scale = env.deployments.get_scale("web")
        scale["spec"]["replicas"] = 1
        env.deployments.update_scale("web", scale)
        converge(env)
        assert env.deployments.get("web")["spec"]["replicas"] == 3
        assert len(env.pods.list()["items"]) == 3
        # Scaling the Foo is what changes the Deployment.
        env.foos.patch("web", {"spec": {"replicas": 5}})
        converge(env)
        assert env.deployments.get("web")["spec"]["replicas"] == 5
        assert env.foos.get("web")["status"] == {"availableReplicas": 5}


def test_a_409_from_a_concurrent_writer_is_requeued_and_converges() -> None:
    with foo_env(pods=False) as env:
        env.foos.create(new_foo("web", replicas=2))
        real = env.foo.update_foo_status
        conflicts: list[str] = []

        def write_first(foo: dict[str, Any], deployment: dict[str, Any]) -> None:
            if not conflicts:  # someone else writes the Foo just before our status write
                env.foos.patch("web", {"metadata": {"labels": {"touched": "yes"}}})
            try:
                real(foo, deployment)
            except Conflict as err:
                conflicts.append(str(err))
                raise

        env.foo.update_foo_status = write_first  # type: ignore[method-assign]
        env.run()
        deadline = time.monotonic() + 10
        while (env.foos.get("web").get("status") or {}).get("availableReplicas") != 2:
            assert time.monotonic() < deadline, env.foo.controller.recent_errors()
            step(env)
            time.sleep(0.002)
        assert conflicts and "the object has been modified" in conflicts[0]
        m = env.foo.controller.metrics()
        assert m.errors >= 1 and m.dropped == 0
        assert any("Conflict" in msg for _, msg in env.foo.controller.recent_errors())
        assert env.foos.get("web")["metadata"]["labels"] == {"touched": "yes"}


def test_a_deployment_owned_by_someone_else_is_a_warning_event_and_an_error() -> None:
    with foo_env(pods=False) as env:
        env.deployments.create(new_deployment({
            "metadata": {"name": "squatter", "namespace": NS, "uid": "not-a-foo-uid"},
            "spec": {"deploymentName": "taken", "replicas": 1}}))
        # The Foo's informer and the Deployments' are two watches: let the squatter reach
        # the lister first, or the reconcile may try a create that the server refuses.
        wait_until(lambda: any(meta_name(d) == "taken"
                               for d in env.foo.deployments_lister.deployments(NS).list()),
                   what="the squatter to reach the Foo controller's lister")
        env.foos.create(new_foo("mine", deployment_name="taken"))
        env.foo.controller.max_retries = 0
        env.foo.run_until_idle()
        m = env.foo.controller.metrics()
        assert m.dropped == 1
        assert 'Resource "taken" already exists and is not managed by Foo' in m.last_error
        assert env.foo.broadcaster is not None and env.foo.broadcaster.flush()
        [event] = env.cluster.resource("events").list()["items"]
        assert (event["type"], event["reason"], event["involvedObject"]["name"]) == (
            "Warning", "ErrResourceExists", "mine")
        assert "status" not in env.foos.get("mine")


def test_handle_object_maps_only_deployments_of_existing_foos() -> None:
    with foo_env(pods=False) as env:
        foo = env.foos.create(new_foo("web"))
        ctrl = env.foo
        deadline = time.monotonic() + 5
        while not ctrl.foos_lister.list():
            assert time.monotonic() < deadline
            time.sleep(0.002)
        dep = new_deployment(foo)
        assert ctrl.handle_object(dep) == "default/web"
        assert ctrl.handle_object(DeletedFinalStateUnknown("default/web", dep)) == "default/web"
        orphan = new_deployment({**foo, "metadata": {**foo["metadata"], "name": "gone"}})
        assert ctrl.handle_object(orphan) is None  # its Foo does not exist
        other = {"metadata": {"name": "x", "namespace": NS, "ownerReferences": [
            {"kind": "ReplicaSet", "name": "web", "uid": "u", "controller": True}]}}
        assert ctrl.handle_object(other) is None
        assert ctrl.handle_object({"metadata": {"name": "plain", "namespace": NS}}) is None


def test_deployment_simulator_without_pods_reports_every_replica_available() -> None:
    with foo_env(pods=False) as env:
        env.foos.create(new_foo("web", replicas=4))
        env.run()
        deadline = time.monotonic() + 10
        while (env.foos.get("web").get("status") or {}).get("availableReplicas") != 4:
            assert time.monotonic() < deadline
            step(env)
            time.sleep(0.002)
        status = env.deployments.get("web")["status"]
        assert (status["replicas"], status["availableReplicas"], status["readyReplicas"]) == (
            4, 4, 4)
        assert env.pods.list()["items"] == []


# -- 20 seeds of churn and faults --------------------------------------------------------------

OPS = ("scale_foo", "scale_deployment", "delete_deployment", "touch_foo", "new_foo",
       "drop_watches", "compact_and_drop", "churn")


def _chaos(env: Env, rng: random.Random, op: str) -> None:
    server = env.cluster.server
    names = [f["metadata"]["name"] for f in env.foos.list()["items"]]
    name = rng.choice(names)
    foo = env.foos.get(name)
    dep_name = foo["spec"]["deploymentName"]
    if op == "scale_foo":
        env.foos.patch(name, {"spec": {"replicas": rng.randint(1, 4)}})
    elif op == "scale_deployment":  # by hand, behind the controller's back
        with contextlib.suppress(NotFound):  # not (re)made yet
            env.deployments.patch(dep_name, {"spec": {"replicas": rng.randint(1, 6)}})
    elif op == "delete_deployment":
        with contextlib.suppress(NotFound):
            env.deployments.delete(dep_name)
    elif op == "touch_foo":  # a concurrent writer: the controller's next status write may 409
        env.foos.patch(name, {"metadata": {"labels": {"touched": str(rng.random())}}})
    elif op == "new_foo":
        new = new_foo(f"extra-{rng.randrange(10**6)}", replicas=rng.randint(1, 3))
        retrying(lambda: env.foos.create(new))
    elif op == "drop_watches":
        server.drop_watches()
    elif op == "compact_and_drop":  # resumes get 410 Gone: the informers relist
        env.cluster.resource("configmaps").create({"metadata": {"generateName": "rv-"}})
        server.compact()
        server.drop_watches()
    elif op == "churn":
        env.churn.run(rng.randint(5, 20))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("seed", range(20))
def test_foo_converges_across_churn_and_fault_seeds(seed: int) -> None:
    rng = random.Random(seed)
    with foo_env(seed) as env:
        faults = env.cluster.server.faults
        for i in range(rng.randint(2, 4)):
            env.foos.create(new_foo(f"foo-{i}", replicas=rng.randint(1, 4)))
        # The first Deployment creates fail for sure; then a share of every write fails.
        sure = faults.fail("create", code=500, resource="deployments",
                           count=rng.randint(1, 2))
        code = rng.choice((500, 429))
        fraction = rng.choice((0.05, 0.1, 0.2))
        for n, (verb, resource) in enumerate([
                ("create", "deployments"), ("update", "deployments"), ("update", "foos"),
                ("create", "pods"), ("delete", "pods")]):
            faults.fail(verb, fraction=fraction, code=code, retry_after=0, resource=resource,
                        seed=seed * 10 + n)
        env.run()
        for _ in range(rng.randint(3, 6)):
            _chaos(env, rng, rng.choice(OPS))
            step(env, rng.randint(0, 2))
            time.sleep(rng.choice((0, 0.002, 0.01)))  # sometimes let the controllers act
        converge(env)
        assert sure.injected >= 1
        assert faults.stats()["failed"] >= sure.injected
        m = env.foo.controller.metrics()
        assert m.errors >= 1 and m.dropped == 0  # it failed, retried, and got there


def meta_name(obj: dict[str, Any]) -> str:
    return str(obj["metadata"]["name"])
