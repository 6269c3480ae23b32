"""Complete controllers built on `kubenb.controller`, to run, read and port to Go.

`foo` is sample-controller (k8s.io/sample-controller) re-made in Python: a `Foo` custom
resource owns a Deployment. `new_foo_controller(cluster)` wires it up the way
sample-controller's `main.go` does. `DeploymentSimulator` is *not* part of
sample-controller: a stand-in for kube-controller-manager on a bare embedded server
(`kubenb.embedded()` runs the real ones, kubenb.controllermanager).
"""

from __future__ import annotations

from kubenb.controller.samples import foo
from kubenb.controller.samples.foo import *  # noqa: F403 - the sample's public names

__all__ = list(foo.__all__)
