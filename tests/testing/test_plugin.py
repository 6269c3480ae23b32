"""The plugin in a user's test session (run by pytester): the fixtures work, the
namespace is deleted, KUBECONFIG is exported and restored, faults are reset between
tests, the ini option and the marker choose the controllers, and a test that uses no
fixture meets no cluster. One inner session covers them, so that its clusters start once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from tests.testing import INNER_ARGS

SESSION = '''
import os
import subprocess
import threading

import pytest

import kubenb
from kubenb.errors import NotFound, ServerError

seen = {}


def server_threads():
    return [t.name for t in threading.enumerate() if t.name.startswith("kubenb-server-http")]


def test_a_test_without_fixtures_meets_no_cluster():
    assert server_threads() == []
    assert os.environ["KUBECONFIG"] == "/nowhere/kubeconfig"


def test_the_cluster_answers(kube_cluster):
    assert kube_cluster.resource("namespaces").get("default")["metadata"]["name"] == "default"
    assert "job" not in kube_cluster.controllers.names           # the ini option
    assert "deployment" in kube_cluster.controllers.names
    assert kube_cluster.controllers.kubelet.start_delay == 0     # kube_pod_start_delay
    seen["url"] = kube_cluster.server.url


def test_the_cluster_is_shared(kube_cluster, kube_clusters):
    assert kube_cluster.server.url == seen["url"]
    assert kube_clusters.get() is kube_cluster


def test_a_namespace_of_its_own(kube_cluster, kube_namespace):
    assert kube_namespace.startswith("test-a-namespace-of-its-own-")
    assert kube_cluster.resource("serviceaccounts", kube_namespace).get("default")
    assert kube_cluster.resource("configmaps", kube_namespace).get("kube-root-ca.crt")
    kube_cluster.resource("configmaps", kube_namespace).create({"metadata": {"name": "left"}})
    seen["namespace"] = kube_namespace


def test_the_namespace_was_deleted(kube_cluster):
    with pytest.raises(NotFound):
        kube_cluster.resource("namespaces").get(seen["namespace"])
    with pytest.raises(NotFound):
        kube_cluster.resource("configmaps", seen["namespace"]).get("left")


@pytest.mark.parametrize("case", ["A b", "A_b"])
def test_parametrized_names(kube_namespace, case):
    seen.setdefault("parametrized", []).append(kube_namespace)


def test_namespace_names_are_unique():
    first, second = seen["parametrized"]
    assert first != second
    assert first.startswith("test-parametrized-names-a-b-")
    assert second.startswith("test-parametrized-names-a-b-")


def test_kubeconfig_is_exported(kubeconfig, kube_namespace):
    assert os.environ["KUBECONFIG"] == str(kubeconfig)
    with kubenb.connect() as cluster:                            # found through KUBECONFIG
        assert cluster.config.namespace == kube_namespace
        assert cluster.resource("configmaps").get("kube-root-ca.crt")
    shown = subprocess.run(["kubectl", "get", "configmaps", "-o", "name"],
                           capture_output=True, text=True, timeout=60)
    assert shown.stdout.split() == ["configmap/kube-root-ca.crt"], shown.stderr
    seen["kubeconfig"] = kubeconfig


def test_kubeconfig_is_restored():
    assert os.environ["KUBECONFIG"] == "/nowhere/kubeconfig"


def test_faults_switched_on(kube_cluster, kube_faults):
    kube_faults.fail("list", resource="configmaps")
    kube_faults.latency(0.001, verb="get")
    with pytest.raises(ServerError):                             # after the client's retries
        kube_cluster.resource("configmaps", "default").list()
    kube_cluster.resource("namespaces").get("default")
    assert kube_faults.stats()["failed"] >= 1 and kube_faults.stats()["delayed"] >= 1


def test_faults_do_not_leak_into_the_next_test(kube_cluster):
    faults = kube_cluster.server.faults                          # no kube_faults here
    assert faults.rules() == [] and faults.stats()["failed"] == 0
    kube_cluster.resource("configmaps", "default").list()
    kube_cluster.resource("namespaces").get("default")
    assert faults.stats()["failed"] == 0 and faults.stats()["delayed"] == 0


def test_faults_that_fail_deletes(kube_faults, kube_namespace):
    kube_faults.fail("delete")                # kube_faults set up first, torn down last
    seen["failing deletes"] = kube_namespace


def test_did_not_keep_its_namespace(kube_cluster):
    with pytest.raises(NotFound):
        kube_cluster.resource("namespaces").get(seen["failing deletes"])


@pytest.mark.kube_controllers("kubelet")
def test_a_marker_chooses_the_controllers(kube_cluster):
    assert kube_cluster.controllers.names == ("kubelet",)
    assert kube_cluster.server.url != seen["url"]
    seen["kubelet"] = kube_cluster.server.url


@pytest.mark.kube_controllers("kubelet,")
def test_the_same_set_shares_its_cluster(kube_cluster):
    assert kube_cluster.server.url == seen["kubelet"]


@pytest.mark.kube_controllers()
def test_an_empty_marker_means_no_controllers(kube_cluster):
    assert kube_cluster.controllers is None


@pytest.mark.kube_controllers("kublet")
def test_an_unknown_controller(kube_cluster):
    pass


@pytest.mark.kube_controllers(["kubelet"])
def test_a_marker_that_is_not_names(kube_cluster):
    pass
'''


def server_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("kubenb-server-http")]


def test_the_fixtures_in_a_users_session(pytester: pytest.Pytester,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", "/nowhere/kubeconfig")
    running = server_threads()
    pytester.makeini("[pytest]\nkube_controllers = *,-job\nkube_pod_start_delay = 0\n")
    pytester.makepyfile(test_session=SESSION)
    result = pytester.runpytest(*INNER_ARGS)
    result.assert_outcomes(passed=17, errors=2)
    result.stdout.fnmatch_lines([
        "*test_an_unknown_controller*@pytest.mark.kube_controllers('kublet',): controllers: "
        "unknown controller 'kublet'; choose from kubelet, *",
        "*test_a_marker_that_is_not_names*kube_controllers takes controller names as "
        "strings*",
    ])
    assert server_threads() == running  # the session stopped every cluster it started


@pytest.mark.parametrize(("ini", "message"), [
    ("kube_controllers = *,-jobs",
     "*ini option kube_controllers = '*,-jobs': controllers: unknown controller 'jobs'*"),
    ("kube_pod_start_delay = soon",
     "*ini option kube_pod_start_delay = 'soon': give a number of seconds >= 0*"),
    ("kube_pod_start_delay = -1",
     "*ini option kube_pod_start_delay = '-1': give a number of seconds >= 0*"),
])
def test_a_bad_ini_option_is_named(pytester: pytest.Pytester, ini: str, message: str) -> None:
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile("def test_it(kube_cluster):\n    pass\n")
    result = pytester.runpytest(*INNER_ARGS)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


def test_the_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*INNER_ARGS, "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.kube_controllers(*names): *"])


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    """pytest imports the plugin in every run where kubenb is installed: beyond what
    `import kubenb` loads, it adds only kubenb.testing's own modules (no cluster, no
    client for one)."""
    probe = ("import json, sys, kubenb; before = set(sys.modules); "
             "import kubenb.testing.plugin; "
             "print(json.dumps(sorted(set(sys.modules) - before)))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120, env=os.environ.copy())
    assert run.returncode == 0, run.stderr
    added = json.loads(run.stdout)
    heavy = [m for m in added if (m.startswith("kubenb.") and not m.startswith("kubenb.testing"))
             or m.split(".")[0] in ("kubernetes", "kopf", "requests", "yaml")]
    assert "kubenb.testing.plugin" in added and heavy == []
