"""The embedded cluster for tests written without pytest: a context manager and a
`unittest.TestCase` base class that give what the pytest fixtures give.

`test_cluster()` is `kubenb.embedded()` for a `with` block. `ClusterTestCase` starts one
cluster per class (its `controllers` attribute chooses them), and gives each test a
fresh namespace, a kubeconfig file exported as `KUBECONFIG`, and fault switches reset
afterwards, all undone when the test ends.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import unittest
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from kubenb.testing.kubeconfigs import write_test_kubeconfig
from kubenb.testing.namespaces import create_namespace, delete_namespace
from kubenb.testing.pool import ControllerSpec, controller_set

if TYPE_CHECKING:  # types only: the cluster is composed lazily, when a test needs it
    from kubenb.cluster import Cluster
    from kubenb.server import Faults

__all__ = ["ClusterTestCase", "test_cluster"]


@contextlib.contextmanager
def test_cluster(controllers: ControllerSpec = True, **server_options: Any) -> Iterator[Cluster]:
    """An embedded cluster running `controllers` (as `kubenb.embedded(controllers=)`:
    True, "*,-job", ("kubelet",), False ...) for the `with` block, stopped after it."""
    from kubenb.embedded_cluster import embedded  # lazy: kubenb.testing imports nothing heavy

    names = controller_set(controllers)  # an unknown name fails here, before any start
    cluster = embedded(controllers=names if names else False, **server_options)
    try:
        yield cluster
    finally:
        cluster.close()


# Named as the house's other test helpers are; pytest must not collect it as a test when
# a test module imports it.
test_cluster.__test__ = False  # type: ignore[attr-defined]


class ClusterTestCase(unittest.TestCase):
    """A TestCase whose class shares one embedded cluster (`cls.cluster`) and whose
    tests each get `self.namespace`, `self.kubeconfig` (also `KUBECONFIG` during the
    test) and `self.faults` (reset after the test). Set `controllers` on the subclass
    to choose the cluster's controllers (default: all), and `cluster_options` to pass
    more options to `kubenb.embedded()` (e.g. `{"kubelet": {"start_delay": 0}}`)."""

    controllers: ClassVar[ControllerSpec] = True
    cluster_options: ClassVar[dict[str, Any]] = {}
    cluster: ClassVar[Cluster]

    namespace: str
    kubeconfig: Path
    faults: Faults

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)
        cls.cluster = stack.enter_context(test_cluster(cls.controllers, **cls.cluster_options))

    def setUp(self) -> None:
        super().setUp()
        cluster = type(self).cluster
        assert cluster.server is not None
        self.faults = cluster.server.faults
        self.faults.reset()
        self.namespace = create_namespace(cluster, self.id().rsplit(".", 1)[-1])
        self.addCleanup(delete_namespace, cluster, self.namespace)
        self.addCleanup(self.faults.reset)  # cleanups run last first: before the delete
        folder = tempfile.TemporaryDirectory(prefix="kubenb-test-")
        self.addCleanup(folder.cleanup)
        self.kubeconfig = write_test_kubeconfig(cluster, Path(folder.name) / "kubeconfig",
                                                self.namespace)
        previous = os.environ.get("KUBECONFIG")
        os.environ["KUBECONFIG"] = str(self.kubeconfig)
        self.addCleanup(_restore_env, "KUBECONFIG", previous)


def _restore_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
