"""The delta stepper and the Controller's pause/step/resume gate, over HTTP."""

from __future__ import annotations

import pytest

from kubenb.widgets.stepper import DeltaStepper
from tests.helpers import wait_until


def _cm(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "default"}, "data": {"k": name}}


def test_stepper_applies_one_delta_at_a_time(cluster) -> None:
    cms = cluster.resource("configmaps")
    cms.create(_cm("a"))
    informer = cluster.informer("configmaps")
    stepper = DeltaStepper(informer)
    try:
        assert "kubenb-stepper" in stepper.widget._dom_classes
        stepper.pause_button.click()
        controller = informer.get_controller()
        assert controller.is_paused()
        a = cms.get("a")
        a["data"] = {"k": "changed"}
        cms.update(a)
        cms.create(_cm("b"))
        # the Reflector keeps queueing; nothing reaches the store while paused
        wait_until(lambda: (controller.held() is not None) + len(controller.queue.list_keys())
                   == 2, what="two items waiting")
        assert informer.get_indexer().get_by_key("default/b") is None
        assert informer.get_indexer().get_by_key("default/a")["data"] == {"k": "a"}

        first = stepper.step()
        assert first.key == "default/a" and [t for t, _ in first.deltas] == ["Updated"]
        assert first.before["data"] == {"k": "a"} and first.after["data"] == {"k": "changed"}
        assert first.calls == [("on_update", "default/a")]
        assert informer.get_indexer().get_by_key("default/b") is None  # one at a time
        assert "on_update(default/a)" in stepper.step_view.value

        second = stepper.step()
        assert second.key == "default/b" and second.before is None
        assert second.calls == [("on_add", "default/b")]
        assert stepper.step() is None  # nothing left
        stepper.resume_button.click()
        cms.create(_cm("c"))
        wait_until(lambda: informer.get_indexer().get_by_key("default/c") is not None,
                   what="a resumed loop to apply deltas again")
    finally:
        stepper.close()


def test_step_without_pause_is_refused(cluster) -> None:
    informer = cluster.informer("configmaps")
    with pytest.raises(RuntimeError, match="pause"):
        informer.get_controller().step()


def test_a_paused_informer_still_stops_cleanly(cluster) -> None:
    informer = cluster.informer("configmaps")
    informer.get_controller().pause()
    cms = cluster.resource("configmaps")
    cms.create(_cm("z"))
    cluster.factory.shutdown()  # the factory started it; its stop must not hang on the gate
    assert informer.is_stopped()
