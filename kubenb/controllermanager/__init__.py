"""The cluster's own controllers, each written with `kubenb.controller`.

A real cluster is an API server plus processes that talk to it over its API. kubenb
keeps that shape: `kubenb/server/` is the API server alone, and this package holds
what kube-controller-manager, the scheduler and a kubelet would run, each a short
controller over kubenb's client (informers, listers, a workqueue, HTTP writes):

=============================  ==============================================
name                           what it does
=============================  ==============================================
``garbagecollector``           deletes dependents whose owners are gone;
                               background, foreground and orphan deletion
                               (garbage_collector.py)
``deployment``                 Deployment -> ReplicaSets, rolling updates,
                               revisions, status and conditions (deployment.py)
``replicaset``                 ReplicaSet -> Pods, adoption, status
                               (replicaset.py)
``job``                        Job -> Pods, completions, parallelism,
                               backoffLimit (job.py)
``kubelet``                    registers a Node, schedules pods onto it, runs
                               their containers (images as Python programs,
                               restarts with back-off, logs), stops them on
                               deletion (kubelet.py, container_runtime.py,
                               container_logs.py, kubelet_server.py)
``serviceaccount``             a ``default`` ServiceAccount in every namespace
                               (serviceaccounts.py)
``root-ca-cert-publisher``     a ``kube-root-ca.crt`` ConfigMap (the CA bundle
                               clients trust for the server) in every
                               namespace (root_ca_publisher.py)
=============================  ==============================================

`ControllerManager` (manager.py) runs a chosen set of them over a connection of its own, as
kube-controller-manager does (`--controllers=*,-job` works here too).
`kubenb.embedded()` starts one with every controller on, in the notebook's process;
`python -m kubenb serve` runs them in a `kubenb controller-manager` process beside the
server (`ControllerManagerProcess`, process.py), as a real cluster runs
kube-controller-manager and its kubelets; `kubenb.embedded(controllers=False)` gives a
bare API server.
A controller whose name has dashes is the attribute with underscores
(`manager.root_ca_cert_publisher`).
"""

from kubenb.controllermanager.container_runtime import ContainerContext, ContainerKilled, Image
from kubenb.controllermanager.deployment import DeploymentController
from kubenb.controllermanager.garbage_collector import GarbageCollector
from kubenb.controllermanager.job import JobController
from kubenb.controllermanager.kubelet import Kubelet
from kubenb.controllermanager.manager import CONTROLLERS, ControllerManager, controller_names
from kubenb.controllermanager.process import ControllerManagerProcess
from kubenb.controllermanager.replicaset import ReplicaSetController
from kubenb.controllermanager.root_ca_publisher import RootCAPublisher
from kubenb.controllermanager.serviceaccounts import ServiceAccountsController

__all__ = [
    "CONTROLLERS",
    "ContainerContext",
    "ContainerKilled",
    "ControllerManager",
    "ControllerManagerProcess",
    "DeploymentController",
    "GarbageCollector",
    "Image",
    "JobController",
    "Kubelet",
    "ReplicaSetController",
    "RootCAPublisher",
    "ServiceAccountsController",
    "controller_names",
]
