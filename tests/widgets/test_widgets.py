"""The widgets' Python-side state against real informers of the embedded server."""

from __future__ import annotations

import re
import threading

import numpy as np
import pandas as pd
import pytest

import kubenb.workqueue as wq
from kubenb.clock import FakeClock
from kubenb.errors import KubenbError, SelectorError
from kubenb.printers import BUILTIN_RESOURCES, DEFAULT_PRINTER, kind_for_resource, printer_for
from kubenb.reactive.frame import LiveFrame
from kubenb.reactive.publisher import Publisher
from kubenb.widgets import (
    EventLog,
    ObjectView,
    PipelineView,
    ResourceTable,
    ServerControls,
    WorkqueueView,
    to_yaml,
)
from kubenb.widgets.table import _cell, informer_kind, status_tone
from tests import helpers


def wait_until(predicate, timeout: float = 30.0, what: str = "") -> None:
    """helpers.wait_until with a deadline generous enough for a loaded machine."""
    helpers.wait_until(predicate, timeout=timeout, what=what)


def _cm(name: str, namespace: str = "default", **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "data": {"k": name}}


# -- ResourceTable --------------------------------------------------------------------


def test_resource_table_filters_sorts_counts_and_shows_yaml(cluster) -> None:
    configmaps = cluster.resource("configmaps", all_namespaces=True)
    cluster.resource("namespaces").create({"apiVersion": "v1", "kind": "Namespace",
                                           "metadata": {"name": "team"}})
    configmaps.namespace("default").create(_cm("alpha", app="web"))
    configmaps.namespace("default").create(_cm("beta", app="db"))
    configmaps.namespace("team").create(_cm("gamma", "team", app="web"))
    informer = cluster.informer("configmaps")
    table = ResourceTable(informer, columns={"NAME": "metadata.name", "K": "data.k"})
    try:
        assert "kubenb-resource-table" in table.widget._dom_classes
        wait_until(lambda: table.frame.synced and table.matched == 3, what="3 rows")
        assert 'data-count="3"' in table.row_count.value
        assert set(table.namespace.options) == {"(all namespaces)", "default", "team"}

        table.namespace.value = "team"
        assert table.visible_keys == ["team/gamma"]
        table.namespace.value = "(all namespaces)"
        table.labels.value = "app=web"
        assert sorted(table.visible_keys) == ["default/alpha", "team/gamma"]
        table.labels.value = ""
        table.search.value = "BET"
        assert table.visible_keys == ["default/beta"]
        table.search.value = ""
        table.sort.value = "NAME"
        table.ascending.value = False
        assert table.visible_keys == ["team/gamma", "default/beta", "default/alpha"]
        assert table.body.value.index("gamma") < table.body.value.index("alpha")

        table.select.value = "default/beta"
        assert table.object_view.key == "default/beta"
        assert "name: beta" in table.object_view.widget.value

        # a live change reaches the table through the publisher, rows and YAML included
        configmaps.namespace("default").create(_cm("delta", app="web"))
        beta = configmaps.namespace("default").get("beta")
        beta["data"] = {"k": "changed"}
        configmaps.namespace("default").update(beta)
        wait_until(lambda: table.matched == 4 and "changed" in table.object_view.widget.value,
                   what="the table to show the new row and the changed object")
        assert "4 of 4 rows" in table.row_count.value
        configmaps.namespace("default").delete("alpha")
        wait_until(lambda: table.matched == 3, what="the deleted row to go")
        assert "default/alpha" not in table.visible_keys
    finally:
        table.close()
    assert table.frame.closed  # the table made it, the table closed it


def test_resource_table_filters_by_a_selector_given_to_its_constructor(cluster) -> None:
    configmaps = cluster.resource("configmaps")
    configmaps.create(_cm("alpha", app="web"))
    configmaps.create(_cm("beta", app="db"))
    table = ResourceTable(cluster.informer("configmaps"), selector="app=web")
    try:
        assert table.labels.value == "app=web"              # the text box shows it
        # the rows, the synced flag and the redraw come in whichever batches the
        # publisher makes: wait for the drawn count of both rows and for the flag
        wait_until(lambda: table.frame.synced and "1 of 2 rows" in table.row_count.value
                   and table.visible_keys == ["default/alpha"],
                   what="one of the two rows matching, drawn")
        assert table.object_view.widget.layout.display == "none"   # no YAML box yet
        table.select.value = "default/alpha"
        assert table.object_view.widget.layout.display == ""
        assert "name: alpha" in table.object_view.widget.value
        table.select.value = ""
        assert table.object_view.widget.layout.display == "none"
        table.labels.value = "app=db"                        # the box still filters
        assert table.visible_keys == ["default/beta"]
    finally:
        table.close()
    with pytest.raises(SelectorError):
        ResourceTable(cluster.informer("configmaps"), selector="app in (web")


def test_resource_table_bad_label_selector_says_what_was_wrong(cluster) -> None:
    table = ResourceTable(cluster.informer("configmaps"))
    try:
        with pytest.raises(SelectorError):
            table.set_label_selector("app in (web")
        assert "label filter" in table.error.value
        table.set_label_selector("app")
        assert table.error.value == ""
    finally:
        table.close()


def test_resource_table_max_rows_bounds_the_rendered_rows(cluster) -> None:
    cluster.server.seed_objects(12, kind="configmaps")
    frame = LiveFrame(cluster.informer("configmaps"), with_namespace=True)
    table = ResourceTable(frame, max_rows=5)
    try:
        wait_until(lambda: table.matched == 12, what="12 rows")
        assert len(table.visible_keys) == 5 and table.body.value.count('<tr class="kubenb-row') == 5
        assert "12 of 12 rows (showing 5)" in table.row_count.value
    finally:
        table.close()
        assert not frame.closed  # not ours to close
        frame.close()


def test_resource_table_rejects_what_it_cannot_show() -> None:
    with pytest.raises(KubenbError, match="LiveFrame or an informer"):
        ResourceTable(object())


def _status_of(table: ResourceTable, key: str) -> tuple[str, str]:
    row = table.body.value[table.body.value.index(f'data-key="{key}"'):]
    row = row[:row.index("</tr>")]
    match = re.search(r'kubenb-status kubenb-status-(\w+)" data-status="([^"]*)"', row)
    assert match, row
    return match.group(1), match.group(2)


def test_resource_table_of_pods_shows_kubectls_columns_coloured_by_status(cluster) -> None:
    """Given only an informer (whose list items carry no kind), the table still finds
    the kind and shows NAME READY STATUS RESTARTS AGE, with AGE as kubectl writes it
    and STATUS coloured; rows the last batch changed are marked."""
    cluster.server.seed_objects(3, seed=6)
    cluster.server.seed_objects(1, seed=7, running=False)
    pods = cluster.informer("pods")
    table = ResourceTable(pods, mark_seconds=0)
    try:
        assert table.frame.kind == "Pod"
        assert list(table.frame.columns.names) == ["NAMESPACE", "NAME", "READY", "STATUS",
                                                   "RESTARTS", "AGE"]
        wait_until(lambda: table.frame.synced and table.matched == 4, what="4 rows, synced")
        body = table.body.value
        assert "<th" in body and ">AGE</th>" in body and "days" not in body
        ages = re.findall(r'<td style="padding:1px 10px 1px 4px">(\d+[smhd][^<]*)</td></tr>',
                          body)
        assert len(ages) == 4, body                      # "0s", "1s": kubectl's durations
        tones = sorted(_status_of(table, k) for k in table.visible_keys)
        assert tones == [("ok", "Running")] * 3 + [("warn", "Pending")]
        assert "kubenb-row-changed" not in body          # nothing changed since it was made
        api = cluster.resource("pods").namespace("default")
        name = api.list()["items"][0]["metadata"]["name"]
        for phase, tone in (("Failed", "bad"), ("Succeeded", "done")):
            pod = api.get(name)
            pod["status"]["phase"] = phase
            api.update_status(pod)
            # one render sets the body, then the row count: wait for both
            wait_until(lambda phase=phase: phase in table.body.value
                       and "changed in the last batch" in table.row_count.value, what=phase)
            assert _status_of(table, f"default/{name}")[0] == tone
            marked = re.findall(r'class="kubenb-row kubenb-row-changed" data-key="([^"]+)"',
                                table.body.value)
            assert marked == [f"default/{name}"]
            assert "1 changed in the last batch" in table.row_count.value
        layout = table.body.layout                     # the widget scrolls, not its value:
        assert (layout.height, layout.overflow) == ("320px", "auto")  # re-renders keep it
        assert "overflow" not in table.body.value
    finally:
        table.close()


@pytest.mark.parametrize(("text", "tone"), [
    ("Running", "ok"), ("Active", "ok"), ("Ready", "ok"), ("Pending", "warn"),
    ("ContainerCreating", "warn"), ("Init:0/1", "warn"), ("Terminating", "warn"),
    ("Failed", "bad"), ("CrashLoopBackOff", "bad"), ("ImagePullBackOff", "bad"),
    ("ErrImagePull", "bad"), ("Error", "bad"), ("OOMKilled", "bad"), ("Init:Error", "bad"),
    ("NotReady", "warn"), ("Succeeded", "done"), ("Completed", "done"), ("", ""),
    ("1/2", ""),
])
def test_status_tones_read_as_kubectl_users_read_them(text: str, tone: str) -> None:
    assert status_tone(text) == tone


def test_cells_show_durations_as_kubectl_does() -> None:
    assert _cell(pd.Timedelta(seconds=5)) == "5s"
    assert _cell(np.timedelta64(190, "s")) == "3m10s"
    assert _cell(pd.Timedelta(days=2, hours=4)) == "2d4h"
    assert _cell(pd.NaT) == "" and _cell(None) == "" and _cell(float("nan")) == ""


def test_informer_kind_from_its_list_watch(cluster) -> None:
    assert informer_kind(cluster.informer("pods")) == ("Pod", "")
    assert informer_kind(cluster.informer("deployments")) == ("Deployment", "apps")
    assert informer_kind(cluster.informer("customresourcedefinitions")) == (None, "")
    for (group, _resource), kind in BUILTIN_RESOURCES.items():
        assert printer_for(kind, group) is not DEFAULT_PRINTER, kind
        assert kind_for_resource(_resource, group) == kind


def test_sort_toggle_says_the_order_it_sorts_in(cluster) -> None:
    cluster.server.seed_objects(3, kind="configmaps")
    table = ResourceTable(cluster.informer("configmaps"), sort_by="NAME")
    try:
        wait_until(lambda: table.matched == 3, what="3 rows")
        assert table.ascending.description == "ascending"
        first = table.visible_keys[0]
        table.ascending.value = False
        assert table.ascending.description == "descending"
        assert table.visible_keys[-1] == first
        assert "sort ascending" in table.ascending.tooltip
    finally:
        table.close()


def test_search_matches_cells_as_shown(cluster) -> None:
    cluster.server.seed_objects(2, seed=3)
    table = ResourceTable(cluster.informer("pods"))
    try:
        wait_until(lambda: table.matched == 2, what="2 rows")
        table.search.value = "days"                      # the raw Timedelta's text
        assert table.matched == 0
        table.search.value = "running"
        assert table.matched == 2
    finally:
        table.close()


def test_object_view_hides_managed_fields_in_a_fixed_height_box() -> None:
    obj = {"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": "c", "managedFields": [{"manager": "kubectl"}]}}
    view = ObjectView(obj)
    assert "managedFields" not in view.widget.value and "name: c" in view.widget.value
    assert (view.widget.layout.height, view.widget.layout.overflow) == ("260px", "auto")
    assert "managedFields" in to_yaml(obj, show_managed_fields=True)
    assert obj["metadata"]["managedFields"]              # the cached object is untouched


def test_object_view_masks_secret_values() -> None:
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
              "data": {"token": "c2VjcmV0LXRva2Vu"}}
    view = ObjectView(secret)
    assert "c2VjcmV0LXRva2Vu" not in view.widget.value and "***" in view.widget.value
    assert "c2VjcmV0LXRva2Vu" not in to_yaml(secret)
    assert "kubenb-object-view" in view.widget._dom_classes


# -- PipelineView ---------------------------------------------------------------------


class _Enqueue:
    def __init__(self, queue) -> None:
        self.queue = queue

    def on_add(self, obj, is_in_initial_list=False) -> None:
        self.queue.add(obj["metadata"]["name"])

    def on_update(self, old, new) -> None:
        self.queue.add(new["metadata"]["name"])

    def on_delete(self, obj) -> None:
        pass


def test_pipeline_view_boxes_follow_every_stage(cluster) -> None:
    cms = cluster.resource("configmaps")
    for name in ("a", "b", "c"):
        cms.create(_cm(name))
    informer = cluster.informer("configmaps")
    queue = wq.RateLimitingQueue(wq.default_controller_rate_limiter(), name="pipeline-test")
    informer.add_event_handler(_Enqueue(queue))
    view = PipelineView(informer, queue, poll=False)
    try:
        assert "kubenb-pipeline" in view.widget._dom_classes
        wait_until(lambda: len(queue) == 3, what="3 items in the workqueue")
        view.refresh()
        reflector = view.counters("reflector")
        assert reflector["state"] == "watching" and reflector["lists"] == 1
        assert reflector["resource_version"] == informer.last_sync_resource_version()
        assert view.counters("indexer")["items"] == 3
        assert view.counters("handlers")["calls"] == 3
        assert view.counters("workqueue")["depth"] == 3
        assert 'kubenb-counter-indexer-items" data-value="3"' in view.svg.value
        item, _ = queue.get()
        cms.create(_cm("d"))
        wait_until(lambda: len(informer.get_indexer().list()) == 4, what="the new object")
        view.refresh()
        assert view.counters("workqueue")["processing"] == 1
        assert 'kubenb-counter-workqueue-processing" data-value="1"' in view.svg.value
        # clicking a box's button shows what changed in it, newest first
        view.buttons["indexer"].click()
        assert view.selected == "indexer"
        assert "items +1 (now 4)" in view.detail.value
        view.buttons["reflector"].click()
        assert "watch events +1" in view.detail.value
        queue.done(item)
        with pytest.raises(KubenbError, match="no such box"):
            view.select("bogus")
    finally:
        view.close()
        queue.shut_down()


@pytest.mark.slow
def test_pipeline_view_shows_the_reflector_healing_after_a_compaction(cluster) -> None:
    """Compact + drop watches: the Reflector's resume gets 410 Gone, it relists, and the
    box counts the 410 and the relist."""
    cms = cluster.resource("configmaps")
    cms.create(_cm("a"))
    informer = cluster.informer("configmaps")
    view = PipelineView(informer, poll=False)
    try:
        wait_until(lambda: informer.stats()["reflector"].get("watches", 0) >= 1)
        view.refresh()  # the "before" picture
        # move the server's revision on without touching configmaps, then compact it away
        cluster.resource("secrets").create({"apiVersion": "v1", "kind": "Secret",
                                            "metadata": {"name": "s"}})
        cluster.server.compact()
        cluster.server.drop_watches()
        wait_until(lambda: informer.stats()["reflector"].get("lists", 0) >= 2, timeout=10,
                   what="the Reflector to relist")
        view.refresh()
        reflector = view.counters("reflector")
        assert reflector["relists"] >= 1
        assert 'kubenb-counter-reflector-relists" data-value="' in view.svg.value
        view.select("reflector")
        assert "relists +" in view.detail.value
    finally:
        view.close()


def test_pipeline_view_polls_on_its_clock_through_the_publisher(cluster) -> None:
    informer = cluster.informer("configmaps")
    clock = FakeClock()
    publisher = Publisher("pipeline-poll", clock=clock).start()
    view = PipelineView(informer, interval=1.0, publisher=publisher, rate=1000.0)
    try:
        wait_until(lambda: view.renders == 1, what="the first sample to be rendered")
        cluster.resource("configmaps").create(_cm("new"))
        wait_until(lambda: len(informer.get_indexer().list()) == 1, what="the informer")
        assert view.counters("indexer")["items"] == 0  # not sampled yet: time stands still
        clock.step(1.0)
        wait_until(lambda: view.renders == 2, what="the second sample")
        assert view.counters("indexer")["items"] == 1
        threads = [t.name for t in threading.enumerate()]
        assert any(n.startswith("kubenb-widget-poll-") for n in threads)
    finally:
        view.close()
        publisher.stop()


def test_pipeline_view_rejects_a_non_informer() -> None:
    with pytest.raises(KubenbError, match="needs a SharedIndexInformer"):
        PipelineView(object())


# -- WorkqueueView --------------------------------------------------------------------


def test_workqueue_view_counters_sparklines_and_processing_items() -> None:
    clock = FakeClock()
    queue = wq.RateLimitingQueue(wq.default_controller_rate_limiter(), name="wqv-test",
                                 clock=clock)
    view = WorkqueueView(queue, clock=clock, poll=False, history=3)
    try:
        assert "kubenb-workqueue" in view.widget._dom_classes
        queue.add("a")
        queue.add("b")
        clock.step(0.25)
        item, _ = queue.get()
        clock.step(0.5)
        queue.add_rate_limited("b")
        view.refresh()
        counters = view.counters.value
        assert 'kubenb-counter-workqueue-depth" data-value="1"' in counters
        assert 'kubenb-counter-workqueue-adds" data-value="2"' in counters
        assert 'kubenb-counter-workqueue-retries" data-value="1"' in counters
        assert 'kubenb-counter-workqueue-latency-p50" data-value="250ms"' in counters
        assert '<li class="kubenb-processing-item">a</li>' in view.processing.value
        queue.done(item)
        for _ in range(3):
            view.refresh()
        assert list(view.latencies) == [0.0, 0.0, 0.0]  # nothing got out of the queue since
        assert list(view.durations) == [0.5, 0.0, 0.0]  # bounded history: oldest dropped
        assert 'data-points="3"' in view.sparklines.value
        assert "processing now (0)" in view.processing.value
    finally:
        view.close()
        queue.shut_down()


def test_workqueue_view_rejects_a_non_queue() -> None:
    with pytest.raises(KubenbError, match="needs a workqueue"):
        WorkqueueView(object())


# -- EventLog -----------------------------------------------------------------------------


def test_event_log_records_filters_and_bounds_events(cluster) -> None:
    cms = cluster.resource("configmaps")
    # RealFIFO delivers in server order. A DeltaFIFO may legitimately hand over a's
    # DELETED before b's ADDED (a key's new deltas join its queued entry), which made
    # the order asserted below depend on timing.
    informer = cluster.informer("configmaps", queue="RealFIFO")
    log = EventLog(informer, size=4, shown=10)
    try:
        assert "kubenb-event-log" in log.widget._dom_classes
        a = cms.create(_cm("a"))
        a["data"] = {"k": "2"}
        cms.update(a)
        cms.create(_cm("b"))
        cms.delete("a")
        cms.create(_cm("c"))
        wait_until(lambda: log.total == 5, what="5 events")
        assert [e.type for e in log.entries] == ["MODIFIED", "ADDED", "DELETED", "ADDED"]
        log.type_filter.value = "ADDED"
        assert [e.key for e in log.visible()] == ["default/c", "default/b"]
        assert 'data-count="2"' in log.count.value
        log.type_filter.value = "(all)"
        log.text_filter.value = "default/a"
        assert [e.type for e in log.visible()] == ["DELETED", "MODIFIED"]
        assert log.lines.value.count('class="kubenb-event ') == 2
        assert "4 kept, 5 seen" in log.count.value
        # wall-clock times (not the monotonic clock's seconds), in a fixed-height box
        assert re.search(r"<td>\d\d:\d\d:\d\d\.\d{3}</td>", log.lines.value)
        assert (log.lines.layout.height, log.lines.layout.overflow) == ("260px", "auto")
    finally:
        log.close()


def test_event_log_coalesces_nothing_but_stays_bounded() -> None:
    clock = FakeClock()
    publisher = Publisher("eventlog", clock=clock)  # not started: flushed by hand
    log = EventLog(None, size=3, publisher=publisher)
    try:
        for i in range(10):
            log.record("ADDED", _cm(f"x{i}"))
        with pytest.raises(KubenbError, match="type must be one of"):
            log.record("BOOKMARK", _cm("y"))
        assert log.total == 0  # nothing reaches the widget before the publisher publishes
        log.flush()
        assert [e.key for e in log.entries] == ["default/x7", "default/x8", "default/x9"]
        assert log.total == 10  # merged pending lines are bounded; every event is seen
    finally:
        log.close()
        publisher.stop()


# -- ServerControls -----------------------------------------------------------------------


def test_server_controls_buttons_drive_the_fault_switches(cluster) -> None:
    informer = cluster.informer("configmaps")
    controls = ServerControls(cluster, rate=50.0, kinds=("configmaps",))
    try:
        assert "kubenb-server-controls" in controls.widget._dom_classes
        # the server holds the watch (the Reflector counts it when it asks, a bit earlier)
        wait_until(lambda: informer.stats()["reflector"].get("watches", 0) >= 1
                   and cluster.server.storage.watch_count >= 1, what="an open watch")
        controls.buttons["drop-watches"].click()
        assert "watches dropped" in controls.last_action
        assert cluster.server.faults.stats()["watches_dropped"] >= 1
        controls.buttons["compact"].click()
        assert cluster.server.faults.stats()["compactions"] == 1
        assert 'kubenb-counter-server-compactions" data-value="1"' in controls.status.value
        controls.buttons["inject-errors"].click()
        assert len(cluster.server.faults.rules()) == 1
        controls.buttons["clear-faults"].click()
        assert cluster.server.faults.rules() == []
        controls.churn_toggle.value = True
        assert controls.churn is not None and controls.churn.running
        wait_until(lambda: sum(controls.churn.ops.values()) > 0, what="churn to make ops")
        controls.churn_toggle.value = False
        assert not controls.churn.running
        assert controls.last_action == "churn: churn off"
    finally:
        controls.close()


def test_server_controls_need_the_embedded_server() -> None:
    with pytest.raises(KubenbError, match="embedded server"):
        ServerControls(object())
