"""Without pytest: `test_cluster()` and `ClusterTestCase` give what the fixtures give."""

from __future__ import annotations

import io
import os
import unittest
from typing import Any

import pytest

from kubenb.errors import KubenbError, NotFound, ServerError
from kubenb.testing import ClusterTestCase, test_cluster
from tests.testing import INNER_ARGS


def test_test_cluster_runs_the_chosen_controllers_and_stops() -> None:
    with test_cluster(controllers="kubelet") as cluster:
        assert cluster.controllers is not None and cluster.controllers.names == ("kubelet",)
        assert cluster.resource("namespaces").get("default")
        server = cluster.server
        assert server is not None and server.running
    assert not server.running


def test_test_cluster_without_controllers_is_a_bare_server() -> None:
    with test_cluster(controllers=False) as cluster:
        assert cluster.controllers is None


def test_test_cluster_names_an_unknown_controller() -> None:
    with pytest.raises(KubenbError, match="unknown controller 'jobs'"), \
            test_cluster(controllers="*,-jobs"):
        pass


def test_pytest_does_not_collect_the_helpers(pytester: pytest.Pytester) -> None:
    """A test module that imports them runs only its own tests."""
    pytester.makepyfile("from kubenb.testing import ClusterTestCase, test_cluster\n"
                        "def test_mine():\n    pass\n")
    result = pytester.runpytest(*INNER_ARGS)
    result.assert_outcomes(passed=1)


def test_cluster_test_case_gives_each_test_a_namespace_kubeconfig_and_faults(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", "/nowhere/kubeconfig")
    seen: dict[str, Any] = {}

    class Example(ClusterTestCase):
        controllers = ["kubelet", "serviceaccount"]
        cluster_options = {"kubelet": {"start_delay": 0}}

        def test_1_uses_everything(self) -> None:
            assert self.cluster.controllers is not None
            self.assertEqual(self.cluster.controllers.names, ("kubelet", "serviceaccount"))
            assert self.cluster.controllers.kubelet is not None
            self.assertEqual(self.cluster.controllers.kubelet.start_delay, 0)
            self.assertTrue(self.namespace.startswith("test-1-uses-everything-"))
            self.cluster.resource("serviceaccounts", self.namespace).get("default")
            self.assertEqual(os.environ["KUBECONFIG"], str(self.kubeconfig))
            self.assertIn(f"namespace: {self.namespace}", self.kubeconfig.read_text())
            self.faults.fail("list", resource="pods")
            with self.assertRaises(ServerError):
                self.cluster.resource("pods", self.namespace).list()
            self.faults.fail("delete", resource="namespaces")  # reset before the cleanup
            seen.update(namespace=self.namespace, kubeconfig=self.kubeconfig,
                        server=self.cluster.server)

        def test_2_starts_clean(self) -> None:
            self.assertNotEqual(self.namespace, seen["namespace"])
            with self.assertRaises(NotFound):
                self.cluster.resource("namespaces").get(seen["namespace"])
            self.assertFalse(seen["kubeconfig"].exists())
            self.assertEqual(self.faults.rules(), [])
            self.assertEqual(self.faults.stats()["failed"], 0)
            self.cluster.resource("pods", self.namespace).list()

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Example)
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    assert result.testsRun == 2
    assert result.wasSuccessful(), result.failures + result.errors
    assert os.environ["KUBECONFIG"] == "/nowhere/kubeconfig"
    assert not seen["server"].running  # the class's cluster stopped with the class
