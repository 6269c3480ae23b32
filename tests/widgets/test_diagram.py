"""InformerDiagram: the picture for given samples (pure), and the live widget against
the embedded server: counts, lit arrows, inspectors, pause / step / resume, the
workqueue's processNextWorkItem with a stepped FakeClock, and closed clusters."""

from __future__ import annotations

import re

import pytest

import kubenb.workqueue as wq
from kubenb.clock import FakeClock
from kubenb.controller import Controller
from kubenb.errors import KubenbError
from kubenb.widgets import InformerDiagram, PipelineView
from kubenb.widgets.diagram import ARROWS, BOXES, diagram_svg, flow_totals, inspector_html
from tests import helpers


def wait_until(predicate, timeout: float = 30.0, what: str = "") -> None:
    """helpers.wait_until with a deadline generous enough for a loaded machine."""
    helpers.wait_until(predicate, timeout=timeout, what=what)


def _cm(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "default"}, "data": {"k": name}}


def _sample(**overrides: dict) -> dict:
    sample = {
        "api": {"endpoint": "v1 configmaps in all namespaces", "resource_version": "41"},
        "reflector": {"state": "watching", "resource_version": "41", "lists": 2, "relists": 1,
                      "gone": 1, "watches": 3, "events": 7, "bookmarks": 0,
                      "objects_listed": 5, "errors": 0, "last_error": ""},
        "fifo": {"depth": 3, "popped": 12, "process_errors": 0,
                 "types": {"Added": 2, "Updated": 1}, "kind": "DeltaFIFO",
                 "queued": [("default/a", ["Added"]), ("default/b", ["Added", "Updated"])]},
        "informer": {"state": "paused", "synced": True, "popped": 12, "process_errors": 0,
                     "held": "default/a", "steps": 2},
        "indexer": {"items": 5, "index_count": 1, "indexes": ["namespace"],
                    "index_values": {"namespace": [("default", 4), ("team", 1)]}},
        "handlers": {"listeners": 1, "calls": 12, "errors": 0, "backlog": 2,
                     "handler_list": [{"name": "1", "handler": "Enqueue", "adds": 5,
                                       "updates": 7, "deletes": 0, "errors": 0, "backlog": 2,
                                       "busy": True, "synced": True}]},
        "workqueue": {"depth": 2, "processing": 1, "adds": 9, "retries": 3, "delayed": 1,
                      "detail": {"ready": ["a", "c"], "processing": ["b"], "redo": ["b"],
                                 "waiting": [("d", 0.25)], "waiting_count": 1,
                                 "requeues": {"d": 2, "b": 1}}},
        "process": {"done": 6, "gets": 7, "errors": 2, "in_flight": ["b"],
                    "recent_errors": [("d", "RuntimeError: boom")]},
    }
    for key, value in overrides.items():
        sample[key] = {**sample[key], **value}
    return sample


def _counter(svg: str, name: str) -> str:
    match = re.search(rf'kubenb-counter-{name}" data-value="([^"]*)"', svg)
    assert match, f"no counter {name}"
    return match.group(1)


# -- the picture, for given samples ---------------------------------------------------------


def test_svg_draws_every_box_and_numbered_arrow_with_the_sampled_counts() -> None:
    svg = diagram_svg(_sample())
    assert svg.startswith('<svg class="kubenb-diagram-svg"') and svg.endswith("</svg>")
    for box, title in BOXES:
        assert f'kubenb-box kubenb-box-{box}"' in svg and f">{title}<" in svg
    for number, label in enumerate(("List", "Add", "Pop", "Add object", "Store",
                                    "Dispatch event", "Enqueue", "Get", "Get object"), start=1):
        assert f">({number}) {label}<" in svg
    assert len(ARROWS) == 9
    assert _counter(svg, "fifo-depth") == "3" and _counter(svg, "fifo-popped") == "12"
    assert _counter(svg, "reflector-gone") == "1" and _counter(svg, "indexer-items") == "5"
    assert _counter(svg, "handlers-backlog") == "2"
    assert _counter(svg, "workqueue-delayed") == "1" and _counter(svg, "process-done") == "6"
    assert "holding default/a" in svg            # the item a paused loop popped and holds
    assert 'kubenb-badge-fifo' in svg and ">paused<" in svg
    # a click on a box (its release, which a redraw between press and release keeps)
    # presses that box's button
    assert ".kubenb-diagram-inspect-fifo" in svg and "onmouseup=" in svg


def test_svg_lights_the_arrows_traffic_crossed_with_its_count() -> None:
    before, after = _sample(), _sample(fifo={"popped": 15}, handlers={"calls": 14})
    flows = {k: v - flow_totals(before)[k] for k, v in flow_totals(after).items()
             if v > flow_totals(before)[k]}
    assert flows == {"pop": 3, "add_to_indexer": 3, "store_key": 3, "dispatch": 2}
    svg = diagram_svg(after, flows)
    hot = set(re.findall(r'kubenb-arrow kubenb-arrow-(\w+) kubenb-arrow-hot"', svg))
    assert hot == {"pop", "add_to_indexer", "store_key", "dispatch"}
    assert 'kubenb-flow kubenb-flow-pop"' in svg and ">+3<" in svg and ">+2<" in svg
    quiet = diagram_svg(after, {})
    assert "kubenb-arrow-hot" not in quiet and "kubenb-flow" not in quiet


def test_svg_greys_the_lower_half_without_a_workqueue_and_outlines_the_selection() -> None:
    sample = _sample()
    del sample["workqueue"], sample["process"]
    svg = diagram_svg(sample, {"enqueue": 4}, selected="indexer", lower=False)
    assert 'data-lower="off"' in svg and "No workqueue attached" in svg
    assert "kubenb-counter-workqueue-depth" not in svg
    assert "kubenb-arrow-hot" not in svg                  # nothing lit in a greyed half
    indexer = svg[svg.index('kubenb-box-indexer"'):]
    assert 'stroke="#1565c0" stroke-width="3.5"' in indexer[:600]
    assert 'data-lower="on"' in diagram_svg(_sample())


def test_inspectors_list_what_each_box_holds() -> None:
    sample = _sample()
    fifo = inspector_html("fifo", sample, ["12:00:00.000 popped +1 (now 12)"])
    assert "default/a  (popped, held by the pause)" in fifo and "Added, Updated" in fifo
    assert "12:00:00.000 popped +1 (now 12)" in fifo
    indexer = inspector_html("indexer", sample, [])
    assert "index namespace" in indexer and "<td style='padding-right:12px'>team</td>" in indexer
    handlers = inspector_html("handlers", sample, [])
    assert "Enqueue" in handlers and "backlog" in handlers
    queue = inspector_html("workqueue", sample, [])
    ready = queue[queue.index("kubenb-inspector-wq-ready"):queue.index("kubenb-inspector-wq-pro")]
    assert ready.index(">a<") < ready.index(">c<")        # in hand-out order
    waiting = queue[queue.index("kubenb-inspector-wq-waiting"):]
    assert ">d<" in waiting and ">2<" in waiting and "250ms" in waiting  # requeues, next retry
    assert "added again: queued on done()" in queue
    process = inspector_html("process", sample, [], recent=[("12:00:01.000", "a", "done")])
    assert "RuntimeError: boom" in process and ">done<" in process
    greyed = inspector_html("workqueue", sample, [], lower=False)
    assert "No workqueue attached" in greyed
    for box, _ in BOXES:  # every box has an inspector
        assert f"kubenb-inspector-{box}" in inspector_html(box, sample, [])


# -- live, against the embedded server ---------------------------------------------------------


class _Enqueue:
    def __init__(self, queue) -> None:
        self.queue = queue

    def on_add(self, obj, is_in_initial_list=False) -> None:
        self.queue.add(obj["metadata"]["name"])

    def on_update(self, old, new) -> None:
        self.queue.add(new["metadata"]["name"])

    def on_delete(self, obj) -> None:
        pass


def test_pipeline_view_is_the_diagram() -> None:
    assert PipelineView is InformerDiagram


def test_the_inspector_scrolls_in_a_box_of_its_own(cluster) -> None:
    """Its scroll box is the widget, not part of the value re-drawn twice a second, so
    a re-render keeps where the reader scrolled to."""
    diagram = InformerDiagram(cluster.informer("configmaps"), poll=False)
    try:
        layout = diagram.detail.layout
        assert (layout.height, layout.overflow) == ("260px", "auto")
        assert layout.display == "none"                  # no empty frame while nothing is picked
        diagram.select("reflector")
        assert "overflow" not in diagram.detail.value and layout.display == ""
        assert diagram.buttons["reflector"].button_style == "info"   # shown pressed
        diagram.buttons["reflector"].click()             # pressed again: hidden
        assert diagram.selected is None and layout.display == "none"
        assert diagram.buttons["reflector"].button_style == ""
    finally:
        diagram.close()


def test_diagram_pause_step_resume_from_its_buttons(cluster) -> None:
    cms = cluster.resource("configmaps")
    cms.create(_cm("a"))
    informer = cluster.informer("configmaps")
    seen = []
    informer.add_event_handler(type("H", (), {
        "on_add": lambda self, o, i=False: seen.append(("add", o["metadata"]["name"])),
        "on_update": lambda self, o, n: seen.append(("update", n["metadata"]["name"])),
        "on_delete": lambda self, o: None})())
    diagram = InformerDiagram(informer, poll=False)
    try:
        assert {"kubenb-diagram", "kubenb-pipeline"} <= set(diagram.widget._dom_classes)
        wait_until(lambda: seen == [("add", "a")], what="the initial add")
        diagram.controls["pause"].click()
        controller = informer.get_controller()
        assert controller.is_paused()
        assert "paused" in diagram.status.value
        cms.create(_cm("b"))
        a = cms.get("a")
        a["data"] = {"k": "changed"}
        cms.update(a)
        wait_until(lambda: (controller.held() is not None) + len(controller.queue.list_keys())
                   == 2, what="two keys waiting in the FIFO")
        diagram.buttons["fifo"].click()
        assert diagram.selected == "fifo"
        assert ">paused<" in diagram.svg.value
        assert 'kubenb-counter-informer-state" data-value="paused"' in diagram.svg.value
        inspector = diagram.detail.value
        assert "default/b" in inspector and "default/a" in inspector and "Updated" in inspector
        assert informer.get_indexer().get_by_key("default/b") is None   # nothing applied

        diagram.controls["step"].click()
        step = diagram.last_step
        assert step is not None and step.key == "default/b" and step.calls == [
            ("on_add", "default/b")]
        assert diagram.selected == "informer" and "applied default/b" in diagram.detail.value
        assert "applied default/b" in diagram.step_view.value   # deltas, YAML, diff
        assert "applied default/b: Added -&gt; on_add" in diagram.status.value
        assert informer.get_indexer().get_by_key("default/a")["data"] == {"k": "a"}
        diagram.controls["step"].click()
        assert diagram.last_step.key == "default/a"
        assert "kubenb-diff-add" in diagram.step_view.value and "changed" in \
            diagram.step_view.value
        diagram.controls["step"].click()
        assert "nothing queued" in diagram.status.value
        diagram.controls["resume"].click()
        assert not controller.is_paused()
        cms.create(_cm("c"))
        wait_until(lambda: ("add", "c") in seen, what="the resumed loop")
        diagram.refresh()
        assert 'kubenb-counter-informer-state" data-value="running"' in diagram.svg.value
    finally:
        diagram.close()


def test_diagram_counts_move_and_arrows_light_as_objects_flow(cluster) -> None:
    informer = cluster.informer("configmaps")
    queue = wq.RateLimitingQueue(wq.default_controller_rate_limiter(), name="diagram-flow")
    informer.add_event_handler(_Enqueue(queue))
    clock = FakeClock()
    diagram = InformerDiagram(informer, queue, poll=False, clock=clock, fade=5.0)
    try:
        diagram.refresh()
        assert diagram.last_flows == {}                  # the first picture: nothing to compare
        for name in ("x", "y"):
            cluster.resource("configmaps").create(_cm(name))
        wait_until(lambda: len(queue) == 2, what="two keys in the workqueue")
        diagram.refresh()
        assert diagram.last_flows["pop"] == 2 and diagram.last_flows["dispatch"] == 2
        assert diagram.last_flows["enqueue"] == 2 and diagram.last_flows["add_object"] == 2
        assert 'kubenb-arrow-enqueue kubenb-arrow-hot" data-arrow="enqueue" data-flow="2" ' \
            'data-heat="1.00"' in diagram.svg.value
        assert diagram.counters("workqueue")["depth"] == 2
        assert _counter(diagram.svg.value, "indexer-items") == "2"
        clock.step(2.0)                                  # quiet for 2 s: still lit, dimmer
        diagram.refresh()
        assert diagram.last_flows["enqueue"] == 2 and diagram.last_heat["enqueue"] == 0.6
        assert 'data-flow="2" data-heat="0.60"' in diagram.svg.value
        cluster.resource("configmaps").create(_cm("z"))  # more traffic adds to the count
        wait_until(lambda: len(queue) == 3, what="a third key")
        diagram.refresh()
        assert diagram.last_flows["enqueue"] == 3 and diagram.last_heat["enqueue"] == 1.0
        assert ">+3<" in diagram.svg.value
        clock.step(5.5)                                  # quiet longer than the fade: dark
        diagram.refresh()
        assert diagram.last_flows == {} and "kubenb-arrow-hot" not in diagram.svg.value
        diagram.select("indexer")
        assert "items +2 (now 2)" in diagram.detail.value and "items +1 (now 3)" in \
            diagram.detail.value
        assert re.search(r"\d\d:\d\d:\d\d\.\d{3} items \+2", diagram.detail.value)  # wall clock
        with pytest.raises(KubenbError, match="no such box"):
            diagram.select("bogus")
    finally:
        diagram.close()
        queue.shut_down()


def test_process_next_key_with_backoff_on_a_stepped_fake_clock(cluster) -> None:
    """processNextWorkItem from the diagram: an error requeues with backoff (5 ms, then
    10 ms), visible as waiting keys with their requeue count and next retry; stepping
    the queue's FakeClock makes the key ready; success forgets it."""
    informer = cluster.informer("configmaps")
    clock = FakeClock()
    limiter = wq.ItemExponentialFailureRateLimiter(0.005, 10.0)
    queue = wq.RateLimitingQueue(limiter, name="diagram-backoff", clock=clock)
    informer.add_event_handler(_Enqueue(queue))
    failures = {"web": 2}

    def reconcile(key: str) -> None:
        if failures.get(key):
            failures[key] -= 1
            raise RuntimeError(f"{key} is not ready")

    diagram = InformerDiagram(informer, queue, process_item=reconcile, poll=False,
                              clock_step=0.005)
    try:
        assert "clock" in diagram.controls               # the queue runs on a FakeClock
        cluster.resource("configmaps").create(_cm("web"))
        wait_until(lambda: len(queue) == 1, what="the key in the workqueue")
        diagram.controls["process-next"].click()
        assert "RuntimeError: web is not ready" in diagram.status.value
        assert "add_rate_limited, requeue 1" in diagram.status.value
        assert queue.num_requeues("web") == 1 and len(queue) == 0
        diagram.select("workqueue")
        waiting = diagram.detail.value[diagram.detail.value.index("kubenb-inspector-wq-waiting"):]
        assert ">web<" in waiting and ">1<" in waiting and "5ms" in waiting
        diagram.controls["process-next"].click()         # not due yet: says why
        assert "no key is ready; 1 key(s) wait for a retry" in diagram.status.value
        diagram.controls["clock"].click()
        wait_until(lambda: len(queue) == 1, what="the retry to fall due")
        diagram.controls["process-next"].click()
        assert "requeue 2" in diagram.status.value
        diagram.refresh()
        assert "10ms" in diagram.detail.value             # the backoff doubled
        clock.step(0.010)
        wait_until(lambda: len(queue) == 1, what="the second retry")
        diagram.controls["process-next"].click()
        assert "done; forgotten" in diagram.status.value
        assert queue.num_requeues("web") == 0 and queue.processing_items() == []
        diagram.select("process")
        process = diagram.detail.value
        assert process.count(">web<") == 3 and "done; forgotten" in process
        assert diagram.counters("process")["done"] == 3
        assert diagram.counters("process")["errors"] == 2
        assert diagram.counters("workqueue")["retries"] == 2
    finally:
        diagram.close()
        queue.shut_down()


def test_process_next_needs_a_process_item_or_a_stopped_controller(cluster) -> None:
    informer = cluster.informer("configmaps")
    queue = wq.RateLimitingQueue(name="diagram-no-process")
    diagram = InformerDiagram(informer, queue, poll=False)
    try:
        diagram.controls["process-next"].click()
        assert "process_item=fn" in diagram.status.value
        assert "clock" not in diagram.controls           # a real clock: nothing to step
        assert "workers-pause" not in diagram.controls   # no controller: no workers
    finally:
        diagram.close()
        queue.shut_down()


def test_diagram_with_a_running_controller_lights_the_lower_half(cluster) -> None:
    cms = cluster.resource("configmaps")
    for name in ("a", "b", "c"):
        cms.create(_cm(name))
    informer = cluster.informer("configmaps")
    done = []
    controller = Controller("diagram-test", lambda key: done.append(key), workers=1)
    controller.watch(informer).run()
    diagram = InformerDiagram(informer, controller, poll=False)
    try:
        wait_until(lambda: len(done) == 3, what="three reconciles")
        diagram.refresh()
        assert 'data-lower="on"' in diagram.svg.value
        assert diagram.counters("process")["done"] == 3
        assert _counter(diagram.svg.value, "workqueue-adds") == "3"
        diagram.select("handlers")
        assert "diagram-test" in diagram.detail.value   # the controller's handler, named
        diagram.controls["process-next"].click()
        assert "is running: its workers take every key" in diagram.status.value
    finally:
        diagram.close()
        controller.stop()


def test_pause_step_resume_workers_of_a_running_controller_from_the_buttons(cluster) -> None:
    """The workqueue half, stepped: paused workers leave keys queued (and drawn), step
    worker lets exactly one through, process next key steps too, resume drains."""
    import threading

    informer = cluster.informer("configmaps")
    lock = threading.Lock()
    done: list[str] = []

    def reconcile(key: str) -> None:
        with lock:
            done.append(key)

    def reconciled() -> list[str]:
        with lock:
            return list(done)

    controller = Controller("diagram-gate", reconcile, workers=2, clock=FakeClock())
    diagram = InformerDiagram(informer, controller, poll=False)
    try:
        controller.watch(informer).run()
        diagram.controls["workers-pause"].click()
        assert "paused: its workers wait before taking a key" in diagram.status.value
        assert controller.paused
        wait_until(lambda: controller.parked_workers == 2, what="both workers at the gate")
        cms = cluster.resource("configmaps")
        for name in ("a", "b", "c"):
            cms.create(_cm(name))
        wait_until(lambda: len(controller.queue) == 3, what="three keys queued")
        wait_until(lambda: controller.parked_workers == 2, what="both workers at the gate")
        diagram.refresh()
        assert diagram.counters("workqueue")["detail"]["ready"] == [
            "default/a", "default/b", "default/c"]
        assert reconciled() == []

        diagram.controls["workers-step"].click()
        assert "one worker takes the next key" in diagram.status.value
        wait_until(lambda: controller.metrics().reconciles == 1, what="one reconcile")
        wait_until(lambda: controller.parked_workers == 2, what="back at the gate")
        assert reconciled() == ["default/a"]
        assert len(controller.queue) == 2

        diagram.controls["process-next"].click()  # on a paused controller: one step too
        wait_until(lambda: controller.metrics().reconciles == 2, what="a second reconcile")
        wait_until(lambda: controller.parked_workers == 2, what="back at the gate")
        assert reconciled() == ["default/a", "default/b"]
        diagram.refresh()
        assert diagram.counters("process")["done"] == 2
        assert diagram.counters("workqueue")["detail"]["ready"] == ["default/c"]

        diagram.controls["workers-resume"].click()
        assert "resumed" in diagram.status.value
        wait_until(lambda: controller.metrics().reconciles == 3, what="the last key")
        assert sorted(reconciled()) == ["default/a", "default/b", "default/c"]
        diagram.controls["workers-step"].click()  # running and not paused: says why not
        assert "pause workers first" in diagram.status.value
    finally:
        diagram.close()
        controller.stop()


def test_process_item_lists_the_keys_a_running_controller_finished(cluster) -> None:
    """A worker's keys are seen by comparing samples: one processing in a sample and
    gone in the next is listed as done; one back waiting for a retry as failed."""
    import threading

    informer = cluster.informer("configmaps")
    release = threading.Event()
    attempts: dict[str, int] = {}

    def reconcile(key: str) -> None:
        attempts[key] = attempts.get(key, 0) + 1
        if key == "default/slow":
            release.wait(10)
        if key == "default/bad" and attempts[key] == 1:
            raise RuntimeError("not yet")

    clock = FakeClock()   # the failed key's retry waits until we step it: it stays waiting
    controller = Controller("diagram-sampled", reconcile, workers=1, clock=clock)
    controller.watch(informer).run()
    diagram = InformerDiagram(informer, controller, poll=False)
    try:
        cluster.resource("configmaps").create(_cm("slow"))
        wait_until(lambda: attempts.get("default/slow") == 1, what="the slow key processing")
        cluster.resource("configmaps").create(_cm("bad"))
        wait_until(lambda: diagram.refresh() is None and
                   diagram.counters("workqueue")["detail"]["ready"] == ["default/bad"],
                   what="the bad key queued behind the slow one")
        assert diagram.counters("process")["in_flight"] == ["default/slow"]
        release.set()
        wait_until(lambda: attempts.get("default/bad") == 1, what="the bad key tried")
        wait_until(lambda: controller.metrics().reconciles == 2, what="both reconciles")
        diagram.refresh()
        outcomes = {key: outcome for _, key, outcome in diagram.recent}
        assert outcomes == {"default/slow": "done (seen by sampling)",
                            "default/bad": "failed: waiting for a retry"}
        diagram.select("process")
        assert "failed: waiting for a retry" in diagram.detail.value
    finally:
        release.set()
        diagram.close()
        controller.stop()


def test_buttons_say_the_cluster_is_closed_instead_of_doing_nothing(cluster) -> None:
    informer = cluster.informer("configmaps")
    closed_early = InformerDiagram(informer, poll=False)
    closed_early.close()
    closed_early.controls["pause"].click()
    assert "this diagram is closed" in closed_early.status.value
    assert not informer.get_controller().is_paused()
    diagram = InformerDiagram(informer, poll=False)
    try:
        cluster.factory.shutdown()                        # what cluster.close() does first
        diagram.controls["pause"].click()
        assert "the informer has stopped" in diagram.status.value
        assert "cluster.close()" in diagram.status.value
        diagram.refresh()
        assert 'kubenb-counter-informer-state" data-value="stopped"' in diagram.svg.value
    finally:
        diagram.close()
    diagram.controls["step"].click()                       # the cluster's fate comes first
    assert "the informer has stopped" in diagram.status.value
    diagram.buttons["reflector"].click()                  # inspecting still works when closed
    assert diagram.selected == "reflector" and "kubenb-inspector-reflector" in \
        diagram.detail.value


def test_process_next_key_on_a_stopped_controller_runs_its_process_next_work_item(
        cluster) -> None:
    """With a stopped Controller attached, "process next key" is the controller's own
    processNextWorkItem: its reconcile, its backoff, its counts, one key a click."""
    informer = cluster.informer("configmaps")
    clock = FakeClock()
    seen: list[str] = []

    def reconcile(key: str) -> None:
        seen.append(key)
        if key == "ns/bad":
            raise RuntimeError("not yet")

    controller = Controller("diagram-by-hand", reconcile, clock=clock)
    diagram = InformerDiagram(informer, controller, poll=False)
    try:
        controller.enqueue("ns/good")
        controller.enqueue("ns/bad")
        diagram.controls["process-next"].click()
        assert "processed ns/good: done; forgotten" in diagram.status.value
        diagram.controls["process-next"].click()
        assert "processed ns/bad: error: requeued with backoff" in diagram.status.value
        assert seen == ["ns/good", "ns/bad"]
        m = controller.metrics()
        assert (m.reconciles, m.successes, m.errors) == (2, 1, 1)
        assert controller.queue.num_requeues("ns/bad") == 1
        diagram.controls["process-next"].click()
        assert "no key is ready; 1 key(s) wait for a retry" in diagram.status.value
        diagram.select("process")
        assert ">ns/good<" in diagram.detail.value and ">ns/bad<" in diagram.detail.value
    finally:
        diagram.close()
        controller.stop()
