"""The informer diagram as a reader meets it: no text drawn over another at any count,
handlers named and told apart (yours or a view's), the step panel folding away, no
empty inspector frame, pressed buttons that look pressed, diffs without kind /
apiVersion noise, a closed cluster's picture saying so, and picture-only copies kept
current."""

from __future__ import annotations

import pytest

import kubenb.workqueue as wq
from kubenb.cache import ResourceEventHandlerFuncs
from kubenb.clock import FakeClock
from kubenb.reactive import LiveFrame
from kubenb.widgets import InformerDiagram
from kubenb.widgets.diagram import ARROWS, BOXES, diagram_svg
from kubenb.widgets.diagram_svg import count_text
from kubenb.widgets.table import yaml_diff
from tests import helpers
from tests.widgets.svg_layout import layout_of, overlaps
from tests.widgets.test_diagram import _sample


def _widest(sample: dict, digits: int) -> dict:
    """`sample` with every count `digits` wide."""
    big = int("9" * digits)
    out = {}
    for box, values in sample.items():
        out[box] = {k: big if isinstance(v, int) and not isinstance(v, bool) else v
                    for k, v in values.items()}
    out["fifo"]["types"] = {"Added": big, "Updated": big, "Deleted": big, "Sync": big}
    out["informer"]["held"] = "default/a-configmap-with-a-long-name"
    out["process"]["last"] = "default/a-configmap-with-a-long-name: gone → clean up"
    out["process"]["in_flight"] = ["default/a-configmap-with-a-long-name", "default/b"]
    out["handlers"]["views"] = big
    return out


@pytest.mark.parametrize("digits", [1, 3, 5, 6, 7])
def test_no_two_texts_overlap_at_any_count_width(digits: int) -> None:
    sample = _widest(_sample(), digits)
    flows = {arrow[0]: int("9" * digits) for arrow in ARROWS}
    for svg in (diagram_svg(sample, flows),
                diagram_svg(sample, flows, selected="fifo", heat={"pop": 0.2}),
                diagram_svg(sample, flows, closed="closed: the informer has stopped "
                                                  "(cluster.close())"),
                diagram_svg(sample, flows, clickable=False)):
        assert overlaps(svg) == []
    lower_off = {k: v for k, v in sample.items() if k not in ("workqueue", "process")}
    assert overlaps(diagram_svg(lower_off, flows, lower=False)) == []


def test_the_layout_check_sees_an_overlap() -> None:
    """The check itself: a text moved onto another is reported."""
    svg = diagram_svg(_sample())
    moved = svg.replace('<text x="200" y="60"', '<text x="243" y="70"', 1)
    assert moved != svg and any("overlaps" in o or "runs into" in o for o in overlaps(moved))
    assert len(layout_of(svg).boxes) == len(BOXES)


def test_counts_are_at_most_five_characters_wide() -> None:
    assert [count_text(n) for n in (0, 99_999, 100_000, 999_999, 1_234_567, 12_345_678,
                                    999_999_999, 5_000_000_000)] == \
        ["0", "99999", "100k", "999k", "1.2M", "12M", "999M", "5G"]
    svg = diagram_svg(_sample(fifo={"popped": 1_234_567}))
    assert 'kubenb-counter-fifo-popped" data-value="1234567" font-weight="bold">1.2M<' in svg


def test_handlers_are_named_and_told_apart_as_yours_or_a_views(cluster) -> None:
    informer = cluster.informer("configmaps")
    queue = wq.RateLimitingQueue(name="tidy-handlers")

    def enqueue(obj):
        queue.add(obj["metadata"]["name"])

    informer.add_event_handler(ResourceEventHandlerFuncs(on_add=enqueue))
    informer.add_event_handler(ResourceEventHandlerFuncs(on_add=lambda o: None,
                                                         name="recorder"))
    informer.add_event_handler(ResourceEventHandlerFuncs(on_add=lambda o: None))
    frame = LiveFrame(informer)
    diagram = InformerDiagram(informer, queue, poll=False)
    try:
        diagram.select("handlers")
        rows = diagram.last_sample["handlers"]["handler_list"]
        assert [(r["handler"], r["owner"]) for r in rows] == [
            ("enqueue", "yours"), ("recorder", "yours"),
            ("unnamed (lambdas; name= names it)", "yours"),
            (f"FeedHandler({frame.name!r})", "view")]
        assert ">4</tspan> handlers<" in diagram.svg.value
        assert ">1</tspan> of them for a view<" in diagram.svg.value
        assert "<td style='padding-right:12px'>view</td>" in diagram.detail.value
        assert "lambd" not in diagram.detail.value.replace("(lambdas;", "")
        assert ResourceEventHandlerFuncs(on_add=enqueue).name == "enqueue"
        assert ResourceEventHandlerFuncs(on_update=lambda o, n: None).name == ""
    finally:
        diagram.close()
        frame.close()
        queue.shut_down()


def test_the_step_panel_folds_and_pressed_buttons_look_pressed(cluster) -> None:
    cms = cluster.resource("configmaps")
    cms.create({"metadata": {"name": "a"}, "data": {"k": "1"}})
    informer = cluster.informer("configmaps")
    diagram = InformerDiagram(informer, poll=False)
    try:
        assert diagram.step_view.layout.display == "none"
        diagram.controls["pause"].click()
        assert diagram.controls["pause"].button_style == "warning"   # paused shows
        cms.patch("a", {"data": {"k": "2"}})
        helpers.wait_until(lambda: informer.get_controller().held() is not None
                           or informer.get_controller().queue.list_keys(), timeout=30,
                           what="the update waiting")
        step = diagram.step()
        assert step is not None and diagram.step_view.layout.display == ""
        # a listed object has no kind / apiVersion, a watched one has: not a change
        assert [line for line in step.diff() if "kind" in line or "apiVersion" in line] == []
        assert any(line.startswith("+") and "'2'" in line for line in step.diff())
        diagram.select("fifo")                        # another box: the step folds away
        assert diagram.step_view.layout.display == "none" and diagram.step_view.value == ""
        diagram.controls["resume"].click()
        assert diagram.controls["pause"].button_style == ""
        assert diagram.buttons["fifo"].button_style == "info"
        assert "hide" in diagram.buttons["fifo"].tooltip
    finally:
        diagram.close()


def test_yaml_diff_ignores_kind_and_api_version_only_one_side_has() -> None:
    listed = {"metadata": {"name": "a"}, "data": {"k": "1"}}
    watched = {"apiVersion": "v1", "kind": "ConfigMap", **listed, "data": {"k": "2"}}
    assert [line for line in yaml_diff(listed, watched) if line[:1] in "+-"] == \
        ["-  k: '1'", "+  k: '2'"]
    other = {**watched, "kind": "Secret"}
    assert "+kind: Secret" in yaml_diff(watched, other)   # a real change still shows


def test_a_closed_cluster_and_a_closed_diagram_say_so_in_the_picture(cluster) -> None:
    informer = cluster.informer("configmaps")
    diagram = InformerDiagram(informer, poll=False)
    copy = diagram.picture()
    diagram.refresh()
    assert 'data-live="on"' in diagram.svg.value and ">watching<" in diagram.svg.value
    cluster.close()
    diagram.close()
    for svg in (diagram.svg.value, copy.value):
        assert 'data-live="off"' in svg and "closed: the informer has stopped" in svg
        assert ">watching<" not in svg and ">running<" not in svg


def test_a_closed_diagram_over_a_live_informer_says_it_is_not_live(cluster) -> None:
    diagram = InformerDiagram(cluster.informer("configmaps"), poll=False)
    diagram.close()
    assert "closed: diagram.close() stopped this picture" in diagram.svg.value


def test_picture_copies_follow_the_live_diagram_and_press_no_button(cluster) -> None:
    informer = cluster.informer("configmaps")
    queue = wq.RateLimitingQueue(name="tidy-copy", clock=FakeClock())

    def reconcile(key):
        return f"reconcile read {key}: gone → clean up"

    informer.add_event_handler(ResourceEventHandlerFuncs(
        on_add=lambda o: queue.add(f"default/{o['metadata']['name']}"), name="enqueue"))
    diagram = InformerDiagram(informer, queue, process_item=reconcile, poll=False)
    try:
        copy = diagram.picture()
        assert "onmouseup" not in copy.value and "click to inspect" not in copy.value
        diagram.refresh()                             # the first picture: nothing lit yet
        cluster.resource("configmaps").create({"metadata": {"name": "x"}})
        helpers.wait_until(lambda: len(queue) == 1, timeout=30, what="the key")
        diagram.refresh()
        assert 'kubenb-arrow-enqueue kubenb-arrow-hot' in copy.value
        print(diagram.process_next())
        for svg in (diagram.svg.value, copy.value):   # Process Item says what it came to
            assert ">reconcile read default/x:<" in svg and ">gone → clean up<" in svg
        # mouse presses stay in the widget (JupyterLab would select the cell)
        assert "stopPropagation" in diagram.svg.value and "stopPropagation" in copy.value
    finally:
        diagram.close()
        queue.shut_down()
