"""Fixtures shared by every test package."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from kubenb.server import EmbeddedServer

# Every xdist worker imports the test modules and kubenb, and so do the processes the tests
# start (CLIs, notebook kernels). With PYTHONDONTWRITEBYTECODE set, each would compile them
# (and rewrite the tests' asserts) again: the caches are written (to __pycache__, which git
# ignores) so that they are compiled once.
sys.dont_write_bytecode = False

# Hypothesis's per-example deadline and its too-slow health check are wall-clock
# assertions: on a loaded machine they fail tests whose property holds. The suite times
# nothing, so neither applies to any test (a test's own @settings keeps its example count).
settings.register_profile("kubenb", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kubenb")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: two workers per CPU. About half of the suite's time is waiting (for a
    watch's timeout, a server's answer, a subprocess), which a second worker fills. The
    PYTEST_XDIST_AUTO_NUM_WORKERS variable still decides where it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    affinity = getattr(os, "sched_getaffinity", None)
    cpus = len(affinity(0)) if affinity else os.cpu_count() or 1
    return 2 * cpus


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups off the items
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A `serial` test joins the xdist group "serial", so no two of them share the CPUs.

    Then the grouped and the slow tests move to the front, in their order. pytest-xdist
    (--dist loadgroup) hands tests out in collection order, one at a time: the long ones
    start first on a fresh worker and the short ones fill in around them, so the workers
    finish together instead of one waiting for the other's last notebook."""
    for item in items:
        if item.get_closest_marker("serial") and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group("serial"))

    def late(item: pytest.Item) -> int:
        if item.get_closest_marker("xdist_group"):
            return 0
        return 1 if item.get_closest_marker("slow") else 2

    items.sort(key=late)  # stable: each tier keeps the files' order


@pytest.fixture(autouse=True, scope="session")
def kubectl_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """kubectl's discovery and HTTP caches (KUBECACHEDIR) in a folder of this worker's: the
    user's ~/.kube/cache stays as it was, and no worker reads what another worker's server,
    on a port since reused, left there. A test's own --cache-dir still wins."""
    env = pytest.MonkeyPatch()
    env.setenv("KUBECACHEDIR", str(tmp_path_factory.mktemp("kube-cache")))
    yield
    env.undo()


@pytest.fixture
def server() -> Iterator[EmbeddedServer]:
    """A fresh embedded API server per test, over real HTTP on loopback; fast bookmarks
    and a short wait for too-large resourceVersions keep watch tests quick."""
    srv = EmbeddedServer(bookmark_interval=0.2, too_large_rv_wait=0.2, history_window=1000)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
