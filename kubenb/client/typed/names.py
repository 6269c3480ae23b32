"""client-go's generated names, derived from a resource's Kind and group version.

Every accessor name kubenb generates comes from here, so `docs/porting.md` and the
docstrings name the same Go twin: `ConfigMap` -> `config_maps` (`ConfigMaps`),
`rbac.authorization.k8s.io/v1` -> `rbac_v1` (`RbacV1`).
"""

from __future__ import annotations

import re

from kubenb.client.discovery import ResourceInfo

__all__ = [
    "full_group_accessor",
    "go_group_accessor",
    "go_plural",
    "go_type",
    "group_accessor",
    "group_package",
    "lower_camel",
    "resource_accessor",
    "snake_case",
]

# Groups whose Go package name is not the first label of the group name.
_GROUP_PACKAGES = {"": "core", "apiserverinternal.k8s.io": "internal"}
_ACRONYM_RE = re.compile(r"([A-Z]+)([A-Z][a-z])")
_WORD_RE = re.compile(r"([a-z0-9])([A-Z])")


def snake_case(name: str) -> str:
    """`ConfigMap` -> `config_map`, `CSIDriver` -> `csi_driver`, `APIService` -> `api_service`."""
    return _WORD_RE.sub(r"\1_\2", _ACRONYM_RE.sub(r"\1_\2", name)).lower()


def _split_plural(info: ResourceInfo) -> tuple[str, str]:
    """(the Kind's part shared with the plural, the plural's own tail).

    `NetworkPolicy` / `networkpolicies` -> (`NetworkPolic`, `ies`): the Kind gives the
    word breaks, the served plural gives the ending, so irregular plurals
    (`Endpoints`, a CRD's `people`) come out as the server names them.
    """
    kind, plural = info.kind, info.resource
    shared = 0
    for a, b in zip(kind.lower(), plural, strict=False):
        if a != b:
            break
        shared += 1
    return kind[:shared], plural[shared:]


def go_plural(info: ResourceInfo) -> str:
    """The Go accessor of a resource: `ConfigMaps`, `Endpoints`, `NetworkPolicies`."""
    head, tail = _split_plural(info)
    return head + tail


def resource_accessor(info: ResourceInfo) -> str:
    """The Python accessor of a resource: `config_maps`, `endpoints`, `network_policies`."""
    head, tail = _split_plural(info)
    return (snake_case(head) + tail) if head else tail


def lower_camel(kind: str) -> str:
    """`ConfigMap` -> `configMap`, `CSIDriver` -> `csiDriver`: Go's parameter names."""
    match = re.match(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]+$|[A-Z]", kind)
    if not match:
        return kind
    return kind[:match.end()].lower() + kind[match.end():]


def group_package(group: str) -> str:
    """The Go package of a group: `core`, `apps`, `rbac`, `apiextensions`, `flowcontrol`."""
    if group in _GROUP_PACKAGES:
        return _GROUP_PACKAGES[group]
    return group.split(".", 1)[0].replace("-", "").lower()


def group_accessor(group: str, version: str) -> str:
    """The Python accessor of a group version: `core_v1`, `rbac_v1`, `autoscaling_v2`."""
    return f"{group_package(group)}_{version}"


def go_group_accessor(group: str, version: str) -> str:
    """The Go accessor of a group version: `CoreV1`, `RbacV1`, `AutoscalingV2`."""
    return group_package(group).capitalize() + version.capitalize()


def full_group_accessor(group: str, version: str) -> str:
    """A collision-free accessor for a served group whose short name is taken:
    `apps.example.com/v1` -> `apps_example_com_v1`."""
    return re.sub(r"[^0-9a-zA-Z]", "_", group).lower() + "_" + version


def go_type(info: ResourceInfo, suffix: str = "") -> str:
    """The Go type an object decodes to: `*corev1.Pod`, `*appsv1.DeploymentList`."""
    return f"*{group_package(info.group)}{info.version}.{info.kind}{suffix}"
