"""ListProgress: an informer's initial list, page by page, as text or as a widget."""

from __future__ import annotations

import io
from typing import Any

import pytest

from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.client.pager import PageInfo
from kubenb.clock import FakeClock
from kubenb.reactive import ListProgress, PublisherError
from kubenb.server import EmbeddedServer
from tests.cache.fake_source import FakeSource, pod
from tests.helpers import wait_until


class TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_text_progress_counts_items_and_pages_of_a_paginated_list() -> None:
    source = FakeSource()
    for i in range(45):
        source.add(pod(f"p{i:02d}"))
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock(), page_size=10)
    stream = io.StringIO()
    progress = ListProgress("pods", widget=False, stream=stream, rate=1000).attach(informer)

    def hold_page_two(options: Any) -> None:  # let page 1 be drawn before page 2 comes
        if options.continue_.endswith(":10"):
            wait_until(lambda: stream.getvalue(), what="page 1 drawn")

    source.list_hook = hold_page_two
    informer.start()
    try:
        wait_until(informer.has_synced, what="sync")
        progress.finish()
    finally:
        informer.stop()
    lines = stream.getvalue().splitlines()
    assert lines[-1] == "listed pods: 45 items in 5 pages"
    assert all(line.startswith("listing pods: ") for line in lines[:-1])
    assert "of 45 items" in lines[0]  # remainingItemCount gives the total from page 1
    assert (progress.items, progress.pages, progress.done) == (45, 5, True)


def test_progress_over_http_against_the_embedded_server() -> None:
    with EmbeddedServer() as server:
        server.seed_objects(25)
        dynamic = DynamicClient(load_config(str(server.kubeconfig_path)))
        informer = SharedIndexInformer(ListWatch.from_client(dynamic.resource("v1", "pods"),
                                                             namespace="default"))
        stream = TTY()
        with ListProgress("pods", widget=False, stream=stream).attach(informer) as progress:
            informer.start()
            assert informer.wait_for_cache_sync(10)
        informer.stop()
        dynamic.rest.close()
    assert progress.items == 25 and progress.done
    assert stream.getvalue().endswith("\rlisted pods: 25 items in 1 page\n")  # in place


def test_widget_progress_shows_pages_then_success() -> None:
    progress = ListProgress("foos", widget=True, rate=1000)
    progress.on_page(PageInfo(1, 500, 500, 1500, False))
    wait_until(lambda: progress._bar.value == 500, what="the first page drawn")
    assert progress._bar.max == 2000 and progress._label.value == (
        "listing foos: 500 of 2,000 items, 1 page")
    progress.on_page(PageInfo(2, 500, 1000, 1000, False))
    progress.finish()
    assert (progress._bar.value, progress._bar.max, progress._bar.bar_style) == (
        1000, 1000, "success")
    assert progress._label.value == "listed foos: 1,000 items in 2 pages"
    progress.finish()  # idempotent


def test_a_failed_list_and_attaching_too_late() -> None:
    stream = io.StringIO()
    with pytest.raises(RuntimeError), ListProgress("secrets", widget=False, stream=stream):
        raise RuntimeError("403 forbidden")
    assert "listing secrets failed after 0 items, 0 pages: RuntimeError: 403" in (
        stream.getvalue())
    source = FakeSource()
    informer = SharedIndexInformer(source, None, 0.0, clock=FakeClock())
    informer.start()
    try:
        progress = ListProgress("pods", widget=False, stream=stream)
        with pytest.raises(PublisherError, match="already started"):
            progress.attach(informer)
        progress.finish()
    finally:
        informer.stop()
