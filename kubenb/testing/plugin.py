"""The pytest plugin: kubenb's embedded cluster as the test cluster of Python operators.

Fixtures (none is autouse: a test that asks for none of them runs as if the plugin
were not there, and no cluster is started):

- `kube_cluster`: a running `kubenb.Cluster`, shared by the tests of this process that
  want the same controllers. The ini option `kube_controllers` chooses the session's
  set (default "*", all); `@pytest.mark.kube_controllers("*", "-job")` gives a test a
  cluster with another set, started once per distinct set. The ini option
  `kube_pod_start_delay` sets the simulated kubelet's seconds from scheduling to Running.
- `kube_clusters`: the session's `ClusterPool`, for session- or module-scoped fixtures
  (`kube_clusters.get()` is the default cluster).
- `kube_namespace`: a fresh namespace named after the test, deleted after it.
- `kubeconfig`: a kubeconfig file of the test's own (its namespace the test's
  `kube_namespace`), exported as `KUBECONFIG` during the test
  (and the official client's default path, where that client is already imported).
- `kube_faults`: the server's fault switches, reset before and after the test.

Each pytest-xdist worker is a process of its own with its own clusters. Loaded by the
`pytest11` entry point where kubenb is installed; `-p kubenb.testing.plugin` loads it
explicitly, `-p no:kubenb.testing.plugin` keeps it out.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from kubenb.testing.kubeconfigs import write_test_kubeconfig
from kubenb.testing.namespaces import create_namespace, delete_namespace
from kubenb.testing.pool import ClusterPool

if TYPE_CHECKING:  # types only: clusters are composed lazily, in the fixtures
    from kubenb.cluster import Cluster
    from kubenb.server import Faults

__all__ = ["kube_cluster", "kube_clusters", "kube_faults", "kube_namespace", "kubeconfig",
           "pytest_addoption", "pytest_configure"]

INI_CONTROLLERS = "kube_controllers"
INI_POD_START_DELAY = "kube_pod_start_delay"
MARKER = "kube_controllers"
#: The official `kubernetes` client's default kubeconfig path (`load_kube_config()`).
OFFICIAL_DEFAULT = "KUBE_CONFIG_DEFAULT_LOCATION"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(INI_CONTROLLERS, "the controllers of the kubenb test cluster (kube_cluster "
                  "fixture), as kube-controller-manager's --controllers: '*' (all, the "
                  "default), '*,-job', 'kubelet,garbagecollector', or '' (none)",
                  default="*")
    parser.addini(INI_POD_START_DELAY, "seconds the simulated kubelet of the kubenb test "
                  "cluster takes from scheduling a Pod to Running (default 1; 0: at once)",
                  default="1")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(*names): run this test's kube_cluster with these controllers "
        "(as the kube_controllers ini option: '*', '-job', 'kubelet' ...)")


def _fail(message: str) -> None:
    """A usage mistake in a test's setup: fail the test with the message alone."""
    pytest.fail(message, pytrace=False)


@pytest.fixture(scope="session")
def kube_clusters(pytestconfig: pytest.Config) -> Iterator[ClusterPool]:
    """The embedded clusters of this test process, one per controller set; stopped at
    the end of the session. `kube_clusters.get()` is the `kube_controllers` ini set's."""
    from kubenb.errors import KubenbError  # lazy: importing the plugin stays cheap

    spec = pytestconfig.getini(INI_CONTROLLERS)
    delay = pytestconfig.getini(INI_POD_START_DELAY)
    try:
        start_delay = float(delay)
    except ValueError:
        start_delay = -1.0
    if not start_delay >= 0:  # also NaN
        _fail(f"ini option {INI_POD_START_DELAY} = {delay!r}: give a number of seconds >= 0")
    try:
        pool = ClusterPool(spec, kubelet={"start_delay": start_delay})
    except KubenbError as err:
        _fail(f"ini option {INI_CONTROLLERS} = {spec!r}: {err}")
        raise  # not reached: _fail raises
    with pool:
        yield pool


@pytest.fixture
def kube_cluster(request: pytest.FixtureRequest, kube_clusters: ClusterPool) -> Cluster:
    """A running embedded cluster (`kubenb.Cluster`; `.server`, `.controllers`), shared
    with the other tests of this process that want the same controllers."""
    from kubenb.errors import KubenbError  # lazy: importing the plugin stays cheap

    marker = request.node.get_closest_marker(MARKER)
    if marker is None:
        return kube_clusters.get()
    if marker.kwargs or not all(isinstance(arg, str) for arg in marker.args):
        _fail(f"{request.node.nodeid}: @pytest.mark.{MARKER} takes controller names as "
              f"strings (e.g. '*', '-job'), not {marker.args!r} {marker.kwargs or ''}")
    try:
        return kube_clusters.get(",".join(marker.args))
    except KubenbError as err:
        _fail(f"{request.node.nodeid}: @pytest.mark.{MARKER}{marker.args!r}: {err}")
        raise  # not reached: _fail raises


@pytest.fixture
def kube_namespace(request: pytest.FixtureRequest, kube_cluster: Cluster) -> Iterator[str]:
    """A namespace of this test's own, named after it; deleted with its contents after."""
    name = create_namespace(kube_cluster, request.node.name)
    yield name
    if "kube_faults" in request.fixturenames and kube_cluster.server is not None:
        # kube_faults may be torn down after this fixture: its switches must not fail
        # the delete (they are reset now, as they would be a moment later)
        kube_cluster.server.faults.reset()
    delete_namespace(kube_cluster, name)


@pytest.fixture
def kubeconfig(kube_cluster: Cluster, kube_namespace: str,
               tmp_path_factory: pytest.TempPathFactory,
               monkeypatch: pytest.MonkeyPatch) -> Path:
    """A kubeconfig file for `kube_cluster`, of this test's own, its namespace the
    test's `kube_namespace`; also `KUBECONFIG` in os.environ until the test ends (for
    operators run as subprocesses)."""
    folder = tmp_path_factory.mktemp("kubeconfig")
    path = write_test_kubeconfig(kube_cluster, folder / "kubeconfig", kube_namespace)
    monkeypatch.setenv("KUBECONFIG", str(path))
    # The official client reads KUBECONFIG once, when imported (kopf imports it at its own
    # import): where it is loaded already, its default path follows the variable too.
    official = sys.modules.get("kubernetes.config.kube_config")
    if official is not None and hasattr(official, OFFICIAL_DEFAULT):
        monkeypatch.setattr(official, OFFICIAL_DEFAULT, str(path))
    return path


@pytest.fixture
def kube_faults(kube_cluster: Cluster) -> Iterator[Faults]:
    """The fault switches of `kube_cluster`'s server (`fail`, `latency`, `drop_watches`,
    `compact`, `expire_continue_tokens`), reset before and after the test."""
    server = kube_cluster.server
    assert server is not None  # the pool only makes embedded clusters
    server.faults.reset()
    yield server.faults
    server.faults.reset()
