"""Complete controllers built on `kubenb.controller`, to run, read and port to Go.

`foo` is sample-controller (k8s.io/sample-controller) re-made in Python: a `Foo` custom
resource owns a Deployment. `new_foo_controller(cluster)` wires it up the way
sample-controller's `main.go` does. `DeploymentSimulator` is *not* part of
sample-controller: it stands in for kube-controller-manager, which the embedded API
server does not have, so that Deployments get Pods and a status.
"""

from __future__ import annotations

from kubenb.controller.samples.foo import (
    CONTROLLER_AGENT_NAME,
    ERR_RESOURCE_EXISTS,
    EXAMPLE_FOO,
    FOO_CRD,
    GROUP,
    GROUP_VERSION,
    MESSAGE_RESOURCE_SYNCED,
    SUCCESS_SYNCED,
    VERSION,
    DeploymentSimulator,
    FooController,
    ResourceExistsError,
    foo_rate_limiter,
    install_foo_crd,
    is_controlled_by,
    message_resource_exists,
    new_controller_ref,
    new_deployment,
    new_foo,
    new_foo_controller,
    write_manifests,
)

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
