"""apps/v1's printers: Deployments, ReplicaSets, StatefulSets, DaemonSets, ControllerRevisions."""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field, nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    CONTAINERS_DOC,
    IMAGES_DOC,
    NONE,
    Column,
    Obj,
    TablePrinter,
    as_int,
    as_str,
    containers_and_images,
    dicts,
    format_label_selector,
    format_labels,
    label_selector_string,
    name_column,
    object_age,
    object_name,
    spec_replicas,
    template_containers,
)

__all__ = [
    "CONTROLLERREVISION_PRINTER",
    "DAEMONSET_PRINTER",
    "DEPLOYMENT_PRINTER",
    "REPLICASET_PRINTER",
    "STATEFULSET_PRINTER",
]


def _deployment_cells(obj: Obj, now: float) -> list[Any]:
    status = dict_field(obj, "status")
    names, images = containers_and_images(template_containers(obj))
    return [object_name(obj), f"{as_int(status.get('readyReplicas'))}/{spec_replicas(obj)}",
            as_int(status.get("updatedReplicas")), as_int(status.get("availableReplicas")),
            object_age(obj, now), names, images, label_selector_string(nested_field(obj, "spec",
                                                                          "selector"))]


_SELECTOR_DOC = ("Label selector for pods. Existing ReplicaSets whose pods are selected by "
                 "this will be the ones affected by this deployment.")

DEPLOYMENT_PRINTER = TablePrinter((
    name_column(),
    Column("Ready", description="Number of the pod with ready state"),
    Column("Up-to-date", description="Total number of non-terminated pods targeted by this "
                                     "deployment that have the desired template spec."),
    Column("Available", description="Total number of available pods (ready for at least "
                                    "minReadySeconds) targeted by this deployment."),
    AGE_COLUMN,
    Column("Containers", priority=1, description=CONTAINERS_DOC),
    Column("Images", priority=1, description=IMAGES_DOC),
    Column("Selector", priority=1, description=_SELECTOR_DOC),
), _deployment_cells)


def _replicaset_cells(obj: Obj, now: float) -> list[Any]:
    status = dict_field(obj, "status")
    names, images = containers_and_images(template_containers(obj))
    return [object_name(obj), spec_replicas(obj), as_int(status.get("replicas")),
            as_int(status.get("readyReplicas")), object_age(obj, now), names, images,
            format_label_selector(nested_field(obj, "spec", "selector"))]


REPLICASET_PRINTER = TablePrinter((
    name_column(),
    Column("Desired", "integer", description="Replicas is the number of desired replicas. This "
                                             "is a pointer to distinguish between explicit zero "
                                             "and unspecified. Defaults to 1."),
    Column("Current", "integer", description="Replicas is the most recently observed number of "
                                             "replicas."),
    Column("Ready", "integer", description="The number of ready replicas for this replica "
                                           "set."),
    AGE_COLUMN,
    Column("Containers", priority=1, description=CONTAINERS_DOC),
    Column("Images", priority=1, description=IMAGES_DOC),
    Column("Selector", priority=1, description="Selector is a label query over pods that "
                                               "should match the replica count."),
), _replicaset_cells)


def _statefulset_cells(obj: Obj, now: float) -> list[Any]:
    names, images = containers_and_images(template_containers(obj))
    ready = as_int(nested_field(obj, "status", "readyReplicas"))
    return [object_name(obj), f"{ready}/{spec_replicas(obj)}", object_age(obj, now), names, images]


STATEFULSET_PRINTER = TablePrinter((
    name_column(),
    Column("Ready", description="Number of the pod with ready state"),
    AGE_COLUMN,
    Column("Containers", priority=1, description=CONTAINERS_DOC),
    Column("Images", priority=1, description=IMAGES_DOC),
), _statefulset_cells)


def _daemonset_cells(obj: Obj, now: float) -> list[Any]:
    status = dict_field(obj, "status")
    names, images = containers_and_images(template_containers(obj))
    return [object_name(obj), as_int(status.get("desiredNumberScheduled")),
            as_int(status.get("currentNumberScheduled")), as_int(status.get("numberReady")),
            as_int(status.get("updatedNumberScheduled")), as_int(status.get("numberAvailable")),
            format_labels(nested_field(obj, "spec", "template", "spec", "nodeSelector")),
            object_age(obj, now), names, images,
            format_label_selector(nested_field(obj, "spec", "selector"))]


DAEMONSET_PRINTER = TablePrinter((
    name_column(),
    Column("Desired", "integer", description="The total number of nodes that should be running "
                                             "the daemon pod (including nodes correctly running "
                                             "the daemon pod)."),
    Column("Current", "integer", description="The number of nodes that are running at least 1 "
                                             "daemon pod and are supposed to run the daemon "
                                             "pod."),
    Column("Ready", "integer", description="The number of nodes that should be running the "
                                           "daemon pod and have one or more of the daemon pod "
                                           "running and ready."),
    Column("Up-to-date", "integer", description="The total number of nodes that are running "
                                                "updated daemon pod"),
    Column("Available", "integer", description="The number of nodes that should be running the "
                                               "daemon pod and have one or more of the daemon "
                                               "pod running and available (ready for at least "
                                               "spec.minReadySeconds)"),
    Column("Node Selector", description="NodeSelector is a selector which must be true for the "
                                        "pod to fit on a node. Selector which must match a "
                                        "node's labels for the pod to be scheduled on that "
                                        "node."),
    AGE_COLUMN,
    Column("Containers", priority=1, description=CONTAINERS_DOC),
    Column("Images", priority=1, description=IMAGES_DOC),
    Column("Selector", priority=1, description="A label query over pods that are managed by "
                                               "the daemon set."),
), _daemonset_cells)


def _controller_revision_cells(revision: Obj, now: float) -> list[Any]:
    ref = None
    for owner in dicts(nested_field(revision, "metadata", "ownerReferences")):
        if owner.get("controller") is True:
            ref = owner
            break
    controller = NONE
    if ref is not None:
        api_version = as_str(ref.get("apiVersion"))
        group = api_version.split("/", 1)[0] if "/" in api_version else ""
        kind = as_str(ref.get("kind"))
        group_kind = f"{kind}.{group}" if group else kind
        controller = f"{group_kind.lower()}/{as_str(ref.get('name'))}" if kind or group else as_str(
            ref.get("name"))
    return [object_name(revision), controller, as_int(revision.get("revision")),
            object_age(revision, now)]


CONTROLLERREVISION_PRINTER = TablePrinter((
    name_column(),
    Column("Controller", description="Controller of the object"),
    Column("Revision", description=(
        "revision indicates the revision of the state represented by Data.")),
    AGE_COLUMN,
), _controller_revision_cells)
