"""pytest-xdist: each worker process has a cluster of its own (the session fixtures are
per worker), so tests on different workers never share a server."""

from __future__ import annotations

import json

import pytest

from tests.testing import INNER_ARGS

WORKER_TESTS = '''
import json
import os

import pytest


@pytest.mark.parametrize("n", range(2))
def test_note_my_server(kube_cluster, kube_namespace, n):
    worker = os.environ["PYTEST_XDIST_WORKER"]
    note = {"worker": worker, "url": kube_cluster.server.url, "pid": os.getpid()}
    with open(f"seen-{worker}-{n}.json", "w") as out:
        json.dump(note, out)
'''


@pytest.mark.slow  # two worker processes, each importing kubenb and starting a cluster
def test_each_xdist_worker_has_its_own_cluster(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_workers=WORKER_TESTS)
    # --dist each runs every test on every worker: both workers surely start a cluster
    result = pytester.runpytest_subprocess(*INNER_ARGS, "-n", "2", "--dist", "each")
    result.assert_outcomes(passed=4)
    notes = [json.loads(path.read_text()) for path in sorted(pytester.path.glob("seen-*"))]
    assert len(notes) == 4
    by_worker: dict[str, set[str]] = {}
    for note in notes:
        by_worker.setdefault(note["worker"], set()).add(note["url"])
    assert sorted(by_worker) == ["gw0", "gw1"]
    urls = [by_worker["gw0"], by_worker["gw1"]]
    assert all(len(u) == 1 for u in urls)           # one cluster per worker, shared
    assert urls[0] != urls[1]                        # and not the other worker's
    assert len({note["pid"] for note in notes}) == 2
