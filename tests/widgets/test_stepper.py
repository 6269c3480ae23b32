"""The delta stepper and the Controller's pause/step/resume gate, over HTTP."""

from __future__ import annotations

import pytest

from kubenb.cache import ResourceEventHandlerFuncs
from kubenb.clock import FakeClock
from kubenb.errors import KubenbError
from kubenb.reactive.publisher import Publisher
from kubenb.widgets.stepper import DeltaStepper
from tests import helpers


def wait_until(predicate, timeout: float = 30.0, what: str = "") -> None:
    """helpers.wait_until with a deadline generous enough for a loaded machine."""
    helpers.wait_until(predicate, timeout=timeout, what=what)


def _cm(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "default"}, "data": {"k": name}}


def test_stepper_applies_one_delta_at_a_time(cluster) -> None:
    cms = cluster.resource("configmaps")
    cms.create(_cm("a"))
    informer = cluster.informer("configmaps")
    informer.add_event_handler(ResourceEventHandlerFuncs())  # a handler, doing nothing
    stepper = DeltaStepper(informer, poll=False)
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
        # before / after labelled, and the diff between them
        view = stepper.step_view.value
        assert "before: the Indexer before this step" in view
        assert "after: the Indexer now" in view
        assert '<span class="kubenb-diff-del"' in view and "-  k: a" in view
        assert '<span class="kubenb-diff-add"' in view and "+  k: changed" in view
        assert first.diff() == [line for line in first.diff() if line]  # no empty lines

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


def test_stepper_counts_the_keys_queued_live_including_the_held_one(cluster) -> None:
    """Regression: the line said "0 keys queued" while the FIFO held 3, because it was
    drawn only on a click and left out the item a paused loop had already popped."""
    cms = cluster.resource("configmaps")
    informer = cluster.informer("configmaps")
    clock = FakeClock()
    publisher = Publisher("stepper-live", clock=clock).start()
    stepper = DeltaStepper(informer, interval=1.0, publisher=publisher, rate=1000.0)
    try:
        wait_until(lambda: stepper.renders >= 1, what="the first sample")
        stepper.pause()
        controller = informer.get_controller()
        for name in ("a", "b", "c"):
            cms.create(_cm(name))
        wait_until(lambda: (controller.held() is not None) + len(controller.queue.list_keys())
                   == 3, what="three keys waiting")
        renders = stepper.renders
        clock.step(1.0)                  # the next sample, with nobody clicking anything
        wait_until(lambda: stepper.renders > renders, what="a live sample")
        assert 'kubenb-counter-stepper-queued" data-value="3"' in stepper.queue_view.value
        assert "default/a, default/b, default/c" in stepper.queue_view.value
        assert "paused" in stepper.queue_view.value
    finally:
        stepper.close()
        publisher.stop()


def test_stepper_buttons_say_why_they_cannot_act(cluster) -> None:
    informer = cluster.informer("configmaps")
    stepper = DeltaStepper(informer, poll=False)
    stepper.step_button.click()
    assert "needs the loop paused first" in stepper.status.value
    cluster.factory.shutdown()
    stepper.pause_button.click()
    assert "the informer has stopped" in stepper.status.value
    stepper.close()
    stepper.resume_button.click()
    assert "the informer has stopped" in stepper.status.value
    with pytest.raises(KubenbError, match=r"cluster\.close\(\)"):
        stepper.pause()


def test_a_closed_stepper_says_so(cluster) -> None:
    informer = cluster.informer("configmaps")
    stepper = DeltaStepper(informer, poll=False)
    stepper.close()
    stepper.pause_button.click()
    assert "this stepper is closed" in stepper.status.value
    assert not informer.get_controller().is_paused()


def test_server_controls_say_when_the_server_is_stopped() -> None:
    import kubenb
    from kubenb.widgets import ServerControls

    cluster = kubenb.embedded()
    controls = ServerControls(cluster)
    cluster.close()
    controls.buttons["drop-watches"].click()
    assert "the embedded server is stopped" in controls.last_action
    assert "stopped" in controls.status.value
    controls.close()
