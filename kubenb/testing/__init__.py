"""Test Python operators against kubenb's embedded cluster.

`kubenb.testing.plugin` is a pytest plugin (fixtures `kube_cluster`, `kube_namespace`,
`kubeconfig`, `kube_faults`, `kube_clusters`); `test_cluster()` and `ClusterTestCase`
give the same to tests written without pytest; `wait_for` waits, by watching, until an
object is as a test expects. docs/testing.md is the guide.

Importing this package starts and imports nothing heavy (pytest loads the plugin in
every run where kubenb is installed): clusters are composed when first asked for.
"""

from kubenb.testing.kubeconfigs import write_test_kubeconfig
from kubenb.testing.namespaces import (
    create_namespace,
    delete_namespace,
    namespace_name,
    temporary_namespace,
)
from kubenb.testing.pool import ClusterPool, ControllerSpec, controller_set
from kubenb.testing.testcase import ClusterTestCase, test_cluster
from kubenb.testing.waiting import wait_for, wait_for_deletion

__all__ = [
    "ClusterPool",
    "ClusterTestCase",
    "ControllerSpec",
    "controller_set",
    "create_namespace",
    "delete_namespace",
    "namespace_name",
    "temporary_namespace",
    "test_cluster",
    "wait_for",
    "wait_for_deletion",
    "write_test_kubeconfig",
]
