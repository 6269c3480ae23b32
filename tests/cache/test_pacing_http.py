"""Over real HTTP (the embedded server), an informer whose watch goes quiet after a
burst holds none of the objects the burst replaced: the Pacer frees them when the
watch is about to wait for the network."""

from __future__ import annotations

import gc

import kubenb
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from tests.helpers import wait_until


def test_a_quiet_watch_after_a_burst_holds_no_replaced_objects() -> None:
    assert gc.isenabled()  # pacing is off without the collector
    with kubenb.embedded(controllers=False) as cluster:
        configmaps = cluster.resource("configmaps", namespace="default")
        informer = cluster.informer("configmaps", namespace="default")
        updates: list[str] = []
        informer.add_event_handler(ResourceEventHandlerFuncs(
            on_update=lambda old, new: updates.append(new["metadata"]["name"])))
        wait_until(informer.has_synced, what="informer sync")
        for i in range(40):
            configmaps.create({"metadata": {"name": f"c{i}"}, "data": {"v": "0"}})
        for round_ in range(1, 4):  # bursts of updates, each replacing 40 cached objects
            for i in range(40):
                configmaps.patch(f"c{i}", {"data": {"v": str(round_)}})
        wait_until(lambda: len(updates) == 120, what="120 updates delivered")
        pacer = informer.pacer
        assert pacer is not None
        # nothing more comes: what the listener hands back is freed, never held
        wait_until(lambda: pacer.stats()["held_for_reflector"] == 0,
                   what="the held notifications freed while the watch is quiet")
        assert pacer.stats()["held_for_reflector"] == 0
