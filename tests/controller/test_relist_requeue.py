"""A relist after a failed watch re-queues every key of the controllers watching.

What was created and deleted while an informer's watch was down is in no list and
reaches no handler. A controller that maps such objects to other keys (a Secret to the
ConfigMap that owns it) would never hear of that key again; so a relist of any informer
it watches queues every key of every informer it watches, as a resync would.

The stress scenario (tests/controller/mirror_scenario.py) shows why: without the
re-queue a key is lost when the controller makes its Secret while the Secrets informer
is relisting after compaction (a 410) and the load deletes that Secret before the list
is read; nothing would ever reconcile that ConfigMap again.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest

import kubenb
from kubenb.controller import Controller, enqueue_owner
from tests.controller.mirror_scenario import run_scenario
from tests.helpers import wait_until


def _compact_past(cluster: kubenb.Cluster) -> None:
    """Move the history on past what the informers of namespace default saw, compact it
    and drop every watch: their resumes get 410 Gone, so they list again."""
    assert cluster.server is not None
    cluster.resource("cm", namespace="kube-system").create(
        {"metadata": {"generateName": "elsewhere-"}})
    cluster.server.faults.compact()
    cluster.server.faults.drop_watches()


def test_an_informer_tells_its_relist_handlers_of_every_list_but_the_first() -> None:
    with kubenb.embedded(controllers=False) as cluster:
        assert cluster.server is not None
        informer = cluster.informer("configmaps", namespace="default")
        relists: list[str] = []
        informer.add_relist_handler(lambda: relists.append(threading.current_thread().name))
        assert relists == []  # the first list was not a relist
        cluster.resource("cm").create({"metadata": {"name": "a"}})
        wait_until(lambda: informer.get_indexer().list_keys() == ["default/a"], what="the add")
        _compact_past(cluster)
        wait_until(lambda: len(relists) == 1, timeout=60, what="the relist")
        assert relists[0].startswith("kubenb-informer-")  # the thread the Reflector runs on
        assert informer.stats()["reflector"]["relist_notifications"] == 1


def test_a_relist_of_an_owned_resource_reconciles_every_owner_again() -> None:
    with kubenb.embedded(controllers=False) as cluster:
        assert cluster.server is not None
        cms = cluster.resource("cm")
        for name in ("a", "b"):
            cms.create({"metadata": {"name": name}})
        seen: Counter[str] = Counter()
        controller = Controller("mirror", lambda key: seen.update([key]), workers=2)
        controller.watch(cluster.informer("configmaps", namespace="default"))
        secrets = cluster.informer("secrets", namespace="default")
        controller.watch(secrets, enqueue_owner("ConfigMap"))
        controller.run()
        try:
            wait_until(lambda: seen["default/a"] == 1 and seen["default/b"] == 1,
                       what="the first reconciles")
            _compact_past(cluster)  # both informers relist
            wait_until(lambda: seen["default/a"] >= 2 and seen["default/b"] >= 2, timeout=60,
                       what="every ConfigMap reconciled again after the relists")
            assert controller.metrics().relist_requeues >= 1
        finally:
            controller.stop()


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 11])
def test_the_mirror_controller_converges_after_random_operations_and_faults(
        seed: int) -> None:
    """The scenario of this module's docstring, two runs (`python -m
    tests.controller.mirror_scenario --runs 200` repeats it)."""
    outcome = run_scenario(seed, deadline=60.0)
    assert outcome.wrong == [], "\n".join(outcome.wrong + outcome.diagnosis)
