"""sample-controller in Python: a `Foo` (samplecontroller.k8s.io/v1alpha1) owns a Deployment.

The Go original is k8s.io/sample-controller's `controller.go`; every function here has
its twin there, under the same name in snake_case (docs/porting.md puts them side by
side). A Foo says `spec.deploymentName` and `spec.replicas`; the controller creates that
Deployment (owned by the Foo), scales it back when someone scales it by hand, creates it
again when someone deletes it, copies the Deployment's `status.availableReplicas` into
the Foo's status, and records Events about the Foo.

`kubenb.embedded()` runs the cluster's own controllers (kubenb.controllermanager: deployment,
replicaset, garbage collector, a kubelet), so the Deployment gets a ReplicaSet, Pods
and a status, and deleting the Foo deletes its Deployment. `DeploymentSimulator`
(deployment_simulator.py, re-exported here) is *not* sample-controller: a small stand-in
for those controllers on a bare server (`kubenb.embedded(controllers={"kubelet"})`),
kept for benchmarks and tests. `new_controller_ref` and `is_controlled_by` are
apimachinery's, from kubenb/controller/owners.py, re-exported beside the sample's own.
"""

from __future__ import annotations

import argparse
import copy
import logging
import os
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import yaml

from kubenb.cache.keys import DeletedFinalStateUnknown, split_meta_namespace_key
from kubenb.cache.typed_factory import informer_class
from kubenb.clock import Clock, RealClock
from kubenb.controller.enqueue import enqueue_key
from kubenb.controller.owners import controller_of, is_controlled_by, new_controller_ref
from kubenb.controller.record import (
    EventBroadcaster,
    EventRecorder,
    EventSource,
    get_reference,
)
from kubenb.controller.runner import Controller
from kubenb.controller.samples._informers import start_and_sync
from kubenb.controller.samples.deployment_simulator import DeploymentSimulator
from kubenb.errors import AlreadyExists, KubenbError, NotFound
from kubenb.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
)

if TYPE_CHECKING:
    # The sample runs over a Cluster (the top of kubenb) that callers hand it: the
    # controller layer never imports the layer that composes clusters.
    from kubenb.cluster import Cluster

__all__ = [
    "CONTROLLER_AGENT_NAME",
    "ERR_RESOURCE_EXISTS",
    "EXAMPLE_FOO",
    "FOO_CRD",
    "GROUP",
    "GROUP_VERSION",
    "MESSAGE_RESOURCE_SYNCED",
    "SUCCESS_SYNCED",
    "VERSION",
    "DeploymentSimulator",
    "FooController",
    "ResourceExistsError",
    "foo_rate_limiter",
    "install_foo_crd",
    "is_controlled_by",
    "message_resource_exists",
    "new_controller_ref",
    "new_deployment",
    "new_foo",
    "new_foo_controller",
    "write_manifests",
]

log = logging.getLogger("kubenb.controller.samples.foo")

# -- the API (sample-controller's pkg/apis/samplecontroller/v1alpha1 + artifacts/) ----------

GROUP = "samplecontroller.k8s.io"
VERSION = "v1alpha1"
GROUP_VERSION = f"{GROUP}/{VERSION}"
KIND = "Foo"

#: The name Events are reported under, and the field manager of every write.
CONTROLLER_AGENT_NAME = "sample-controller"
FIELD_MANAGER = CONTROLLER_AGENT_NAME
#: Event reasons and messages, as sample-controller's constants.
SUCCESS_SYNCED = "Synced"
ERR_RESOURCE_EXISTS = "ErrResourceExists"
MESSAGE_RESOURCE_SYNCED = "Foo synced successfully"

#: The Foo CRD: artifacts/examples/crd-status-subresource.yaml (UpdateStatus needs the
#: status subresource), plus the printer columns and scale subresource the real
#: apiserver fixture uses, so `kubectl get foos` shows the Deployment and availability.
FOO_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {
        "name": f"foos.{GROUP}",
        "annotations": {
            "api-approved.kubernetes.io":
                "unapproved, experimental-only; please get an approval from Kubernetes API "
                "reviewers if you're trying to develop a CRD in the *.k8s.io or "
                "*.kubernetes.io groups"},
    },
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": "foos", "singular": "foo", "kind": KIND, "listKind": "FooList",
                  "shortNames": ["fo"]},
        "versions": [{
            "name": VERSION, "served": True, "storage": True,
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "description": "Foo is a specification for a Foo resource "
                               "(k8s.io/sample-controller)",
                "properties": {
                    "spec": {"type": "object", "required": ["deploymentName"], "properties": {
                        "deploymentName": {"type": "string"},
                        "replicas": {"type": "integer", "minimum": 1, "maximum": 10}}},
                    "status": {"type": "object", "properties": {
                        "availableReplicas": {"type": "integer"}}}}}},
            "subresources": {
                "status": {},
                "scale": {"specReplicasPath": ".spec.replicas",
                          "statusReplicasPath": ".status.availableReplicas"}},
            "additionalPrinterColumns": [
                {"name": "Deployment", "type": "string", "jsonPath": ".spec.deploymentName"},
                {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                {"name": "Available", "type": "integer",
                 "jsonPath": ".status.availableReplicas"},
                {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
        }],
    },
}

#: artifacts/examples/example-foo.yaml.
EXAMPLE_FOO: dict[str, Any] = {
    "apiVersion": GROUP_VERSION, "kind": KIND,
    "metadata": {"name": "example-foo"},
    "spec": {"deploymentName": "example-foo", "replicas": 1},
}


class ResourceExistsError(KubenbError):
    """The Deployment a Foo names exists and another owner controls it."""


def message_resource_exists(name: str) -> str:
    """sample-controller's `MessageResourceExists` for Deployment `name`."""
    return f'Resource "{name}" already exists and is not managed by Foo'


def new_foo(name: str, replicas: int | None = 1, deployment_name: str | None = None,
            namespace: str | None = None) -> dict[str, Any]:
    """A Foo object to create (deploymentName defaults to the Foo's own name)."""
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    spec: dict[str, Any] = {"deploymentName": deployment_name or name}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": GROUP_VERSION, "kind": KIND, "metadata": meta, "spec": spec}


def new_deployment(foo: dict[str, Any]) -> dict[str, Any]:
    """The Deployment a Foo wants (sample-controller's `newDeployment`): nginx, labelled
    for the Foo, `replicas` from the Foo, and the Foo as its controller."""
    meta, spec = foo["metadata"], foo.get("spec") or {}
    labels = {"app": "nginx", "controller": meta["name"]}
    deployment_spec: dict[str, Any] = {
        "selector": {"matchLabels": dict(labels)},
        "template": {"metadata": {"labels": dict(labels)},
                     "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}},
    }
    if spec.get("replicas") is not None:
        deployment_spec = {"replicas": spec["replicas"], **deployment_spec}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": spec.get("deploymentName"),
                         "namespace": meta.get("namespace"),
                         "ownerReferences": [new_controller_ref(foo, GROUP_VERSION, KIND)]},
            "spec": deployment_spec}


def foo_rate_limiter(clock: Clock | None = None) -> RateLimiter:
    """sample-controller's limiter: per key 5 ms doubling to 1000 s, overall 50 qps with a
    burst of 300 (a little looser than client-go's default controller limiter)."""
    return MaxOfRateLimiter(ItemExponentialFailureRateLimiter(0.005, 1000.0),
                            BucketRateLimiter(50.0, 300, clock=clock))


def install_foo_crd(cluster: Cluster, timeout: float = 30.0) -> dict[str, Any]:
    """Create the Foo CRD (kept if it exists) and wait until the server serves foos.

    What `kubectl apply -f artifacts/examples/crd-status-subresource.yaml` and a short wait
    do before sample-controller starts. Raises `KubenbError` naming the CRD on timeout.
    """
    crds = cluster.resource("customresourcedefinitions")
    try:
        crd = crds.create(copy.deepcopy(FOO_CRD))
    except AlreadyExists:
        crd = crds.get(FOO_CRD["metadata"]["name"])
    deadline = time.monotonic() + timeout
    while True:
        try:
            cluster.resource_info(f"foos.{GROUP}")
            break
        except KubenbError as err:
            if time.monotonic() > deadline:
                raise KubenbError(f"the CRD foos.{GROUP} was not served within {timeout}s "
                                  f"({err})") from err
            time.sleep(0.01)
    cluster.clientset.refresh()  # the sample clientset comes from discovery
    return crd


# -- the controller (controller.go) ------------------------------------------------------------


class FooController:
    """sample-controller's `Controller`, over kubenb's reconcile runner.

    Build it with `new_foo_controller(cluster)`, or as Go's `NewController` does, from a
    kube clientset, a sample clientset (`samplecontroller_v1alpha1().foos(ns)`), and the
    Deployment and Foo informers (typed informer accessors: `.informer()` and
    `.lister()`). `run()` reconciles in the background, `run_until_idle()` until nothing
    is left to do (a notebook cell), `stop()` ends it; `close()` also stops the Event
    broadcaster `new_foo_controller` made.
    """

    def __init__(self, kubeclientset: Any, sampleclientset: Any, deployment_informer: Any,
                 foo_informer: Any, recorder: EventRecorder, *, workers: int = 2,
                 rate_limiter: RateLimiter | None = None, clock: Clock | None = None,
                 name: str = "foo-controller") -> None:
        self.kubeclientset = kubeclientset
        self.sampleclientset = sampleclientset
        self.deployments_lister = deployment_informer.lister()
        self.deployments_informer = deployment_informer.informer()
        self.foos_lister = foo_informer.lister()
        self.foos_informer = foo_informer.informer()
        self.recorder = recorder
        self.broadcaster: EventBroadcaster | None = None
        self.clock: Clock = clock if clock is not None else RealClock()
        limiter = rate_limiter if rate_limiter is not None else foo_rate_limiter(self.clock)
        self.controller = (
            Controller(name, self.sync_handler, workers=workers, rate_limiter=limiter,
                       clock=self.clock)
            .watch(self.foos_informer, enqueue=self.enqueue_foo)
            .watch(self.deployments_informer, enqueue=self.handle_object))

    def __repr__(self) -> str:
        m = self.controller.metrics()
        return (f"FooController(running={m.running}, reconciles={m.reconciles}, "
                f"errors={m.errors}, queue={m.queue.depth if m.queue else 0})")

    def __enter__(self) -> FooController:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def workqueue(self) -> Any:
        """The rate-limited workqueue of Foo keys (Go: `c.workqueue`)."""
        return self.controller.queue

    # -- running -------------------------------------------------------------------------

    def run(self, workers: int | None = None) -> FooController:
        """Wait for the caches, then reconcile with `workers` threads in the background
        (Go: `Run(ctx, workers)`); returns self."""
        self.controller.run(workers)
        return self

    def run_until_idle(self, timeout: float = 10.0, quiet: float = 0.05) -> int:
        """Reconcile until nothing is left to do now; returns how many reconciles ran."""
        return self.controller.run_until_idle(timeout=timeout, quiet=quiet)

    def stop(self) -> None:
        """Stop the workers (keys in hand finish) and join them."""
        self.controller.stop()

    def close(self) -> None:
        """`stop()`, then flush and stop the Event broadcaster if this controller owns it."""
        self.stop()
        if self.broadcaster is not None:
            self.broadcaster.shutdown()

    # -- event handlers ------------------------------------------------------------------

    def enqueue_foo(self, obj: Any) -> str | None:
        """A Foo's key (Go: `enqueueFoo` with `cache.ObjectToName`)."""
        return enqueue_key(obj)

    def handle_object(self, obj: Any) -> str | None:
        """The key of the Foo that controls `obj` (a Deployment), if that Foo exists
        (Go: `handleObject`); a tombstone is unwrapped, anything else maps to nothing."""
        if isinstance(obj, DeletedFinalStateUnknown):
            obj = obj.obj
        if not isinstance(obj, dict):
            log.error("handle_object: cannot decode %s, invalid type", type(obj).__name__)
            return None
        ref = controller_of(obj)
        if ref is None or ref.get("kind") != KIND:
            return None
        namespace = (obj.get("metadata") or {}).get("namespace") or ""
        try:
            foo = self.foos_lister.foos(namespace).get(ref.get("name", ""))
        except NotFound:
            log.debug("ignoring orphaned object %s/%s of Foo %s", namespace,
                      obj["metadata"].get("name"), ref.get("name"))
            return None
        return self.enqueue_foo(foo)

    # -- reconcile -----------------------------------------------------------------------

    def sync_handler(self, key: str) -> None:
        """Compare the Foo's wanted state with the Deployment, converge the two, then write
        the Foo's status (Go: `syncHandler`). An error is raised, and the runner requeues
        the key with backoff, as Go's `processNextWorkItem` does."""
        namespace, name = split_meta_namespace_key(key)
        try:
            foo = self.foos_lister.foos(namespace).get(name)
        except NotFound:
            log.info("Foo %r in the work queue no longer exists", key)
            return None  # its Deployment goes with it (garbage collection)

        deployment_name = (foo.get("spec") or {}).get("deploymentName")
        if not deployment_name:
            # Absorbed, not retried: the next update of the Foo queues it again.
            log.error("Foo %r: deployment name missing from spec", key)
            return None

        deployments = self.kubeclientset.apps_v1().deployments(namespace)
        try:
            deployment = self.deployments_lister.deployments(namespace).get(deployment_name)
        except NotFound:
            deployment = deployments.create(new_deployment(foo), field_manager=FIELD_MANAGER)

        if not is_controlled_by(deployment, foo):
            message = message_resource_exists(deployment_name)
            self.recorder.event(self._reference(foo), "Warning", ERR_RESOURCE_EXISTS, message)
            raise ResourceExistsError(message)

        replicas = (foo.get("spec") or {}).get("replicas")
        if replicas is not None and replicas != (deployment.get("spec") or {}).get("replicas"):
            log.debug("Foo %r: scaling Deployment %s from %s to %s", key, deployment_name,
                      deployment["spec"].get("replicas"), replicas)
            deployment = deployments.update(new_deployment(foo), field_manager=FIELD_MANAGER)

        self.update_foo_status(foo, deployment)
        self.recorder.event(self._reference(foo), "Normal", SUCCESS_SYNCED,
                            MESSAGE_RESOURCE_SYNCED)
        return None

    def update_foo_status(self, foo: dict[str, Any], deployment: dict[str, Any]) -> None:
        """Copy the Deployment's availableReplicas into the Foo's status with UpdateStatus
        (Go: `updateFooStatus`). Never modify a cached object: this writes a copy, with
        the cached resourceVersion, so a concurrent write to the Foo answers 409."""
        foo_copy = copy.deepcopy(foo)
        available = (deployment.get("status") or {}).get("availableReplicas") or 0
        foo_copy["status"] = {**(foo_copy.get("status") or {}), "availableReplicas": available}
        namespace = foo["metadata"].get("namespace") or ""
        self.sampleclientset.samplecontroller_v1alpha1().foos(namespace).update_status(foo_copy)

    @staticmethod
    def _reference(foo: dict[str, Any]) -> dict[str, str]:
        return get_reference(foo, kind=KIND, api_version=GROUP_VERSION)


def new_foo_controller(cluster: Cluster, *, workers: int = 2, clock: Clock | None = None,
                       rate_limiter: RateLimiter | None = None, install_crd: bool = True,
                       broadcaster: EventBroadcaster | None = None, record_events: bool = True,
                       timeout: float = 30.0) -> FooController:
    """sample-controller's `main.go` for a kubenb `Cluster`: install the Foo CRD (unless
    `install_crd=False`), take the clientsets and shared informers from the cluster,
    record Events to the API server as "sample-controller", and build the controller.

    The informers are started and synced here; the controller is not running yet: call
    `run()` or `run_until_idle()`. `clock` drives the workqueue and its rate limiter.
    Events go through `broadcaster` if given (the caller shuts it down), else through one
    made here (on the real clock: Event timestamps are wall time) that `close()` shuts
    down; `record_events=False` makes that one drop them instead of writing them.
    """
    if install_crd:
        install_foo_crd(cluster, timeout)
    elif not hasattr(cluster.clientset, "samplecontroller_v1alpha1"):
        cluster.clientset.refresh()  # discovery was read before the CRD was applied
    factory = cluster.factory
    deployment_informer = factory.apps().v1().deployments()
    foo_informer = informer_class(cluster.resource_info(f"foos.{GROUP}"))(factory)
    start_and_sync(factory, [deployment_informer.informer(), foo_informer.informer()],
                    timeout, "new_foo_controller")
    owned = broadcaster is None
    if broadcaster is None:
        broadcaster = EventBroadcaster()
        if record_events:
            broadcaster.start_recording_to_sink(cluster)
    recorder = broadcaster.new_recorder(EventSource(CONTROLLER_AGENT_NAME))
    ctrl = FooController(cluster.clientset, cluster.clientset, deployment_informer,
                         foo_informer, recorder, workers=workers, rate_limiter=rate_limiter,
                         clock=clock)
    if owned:
        ctrl.broadcaster = broadcaster
    return ctrl


# -- main.go: run it in a terminal, drive it with kubectl ---------------------------------------


def write_manifests(directory: str) -> tuple[str, str]:
    """Write `foo-crd.yaml` and `example-foo.yaml` (what sample-controller keeps in
    artifacts/examples) into `directory`; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    paths = (os.path.join(directory, "foo-crd.yaml"), os.path.join(directory, "example-foo.yaml"))
    for path, doc in zip(paths, (FOO_CRD, EXAMPLE_FOO), strict=True):
        with open(path, "w") as fh:
            yaml.safe_dump(doc, fh, sort_keys=False)
    return paths


def _wait_served(cluster: Cluster, stop: threading.Event) -> bool:
    """Wait until the server serves foos (someone applied the CRD) or `stop` is set."""
    while not stop.is_set():
        try:
            cluster.resource_info(f"foos.{GROUP}")
            return True
        except KubenbError:
            stop.wait(0.2)
    return False


def main(argv: list[str] | None = None, stop: threading.Event | None = None, *,
         embedded: Callable[..., Cluster]) -> int:
    """`python -m kubenb.controller.samples.foo`: sample-controller's main.go over an
    embedded API server and its controllers (kubenb.controllermanager), until Ctrl-C (or
    until `stop`, a threading.Event, is set). Prints the kubectl commands to follow along.

    `embedded` makes the cluster (`kubenb.embedded`, a context manager of a Cluster): the
    caller composes it, so this layer never imports the one that composes clusters.
    """
    parser = argparse.ArgumentParser(prog="python -m kubenb.controller.samples.foo",
                                     description=main.__doc__)
    parser.add_argument("--kubeconfig-out", metavar="PATH",
                        help="write the embedded server's kubeconfig here (default: a temp dir)")
    parser.add_argument("--manifests", metavar="DIR",
                        help="write foo-crd.yaml and example-foo.yaml here "
                             "(default: next to the kubeconfig)")
    parser.add_argument("--install-crd", action="store_true",
                        help="install the Foo CRD now instead of waiting for kubectl apply")
    parser.add_argument("--workers", type=int, default=2, help="Foo controller workers")
    parser.add_argument("--kubelet-delay", type=float, default=1.0,
                        help="seconds before the kubelet reports a new pod Running")
    args = parser.parse_args(argv)

    kubeconfig = args.kubeconfig_out or os.path.join(tempfile.mkdtemp(prefix="kubenb-foo-"),
                                                     "kubeconfig")
    manifests = args.manifests or os.path.dirname(os.path.abspath(kubeconfig))
    stop = stop if stop is not None else threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        signal.signal(signal.SIGTERM, lambda *_: stop.set())

    with embedded(kubelet={"start_delay": args.kubelet_delay}) as cluster:
        server = cluster.server
        if server is None:
            raise KubenbError("main: embedded() gave a cluster without an embedded server")
        server.write_kubeconfig(kubeconfig)
        crd_path, foo_path = write_manifests(manifests)
        print(f"embedded API server at {server.url}\n"
              f"  export KUBECONFIG={kubeconfig}\n"
              f"  kubectl apply -f {crd_path}\n"
              f"  kubectl apply -f {foo_path}\n"
              f"  kubectl get foos,deployments,pods\n"
              f"  kubectl scale deployment example-foo --replicas=3   # scaled back to 1\n"
              f"  kubectl delete deployment example-foo               # made again\n"
              f"  kubectl delete foo example-foo                      # takes it along\n"
              f"  kubectl get events\n"
              "Ctrl-C stops everything.", flush=True)
        controller = None
        try:
            if args.install_crd:
                install_foo_crd(cluster)
            elif not _wait_served(cluster, stop):
                return 0
            controller = new_foo_controller(cluster, workers=args.workers,
                                            install_crd=args.install_crd).run()
            print("sample-controller: Foo CRD served, controller running", flush=True)
            stop.wait()
        finally:
            if controller is not None:
                controller.close()
    return 0


if __name__ == "__main__":
    # Run as a script, the sample is the top of the program: it composes the cluster.
    # This import runs only then; importing the module never reaches above its layer.
    from kubenb.embedded_cluster import embedded as _embedded

    raise SystemExit(main(embedded=_embedded))
