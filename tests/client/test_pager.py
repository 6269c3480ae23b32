"""ListPager: G54 (stitching pages) and G55 (the expired-continue fallback)."""

from __future__ import annotations

from typing import Any

import pytest

from kubenb.client.dynamic import ResourceClient
from kubenb.client.options import ListOptions
from kubenb.client.pager import ListPager, PageInfo
from kubenb.errors import Gone
from kubenb.server import EmbeddedServer
from tests.client.conftest import configmap


class PagedSource:
    """A list function over `n` numbered items that pages like the API server."""

    def __init__(self, n: int, expire_on_page: int | None = None) -> None:
        self.items = [{"metadata": {"name": f"i{k:03d}"}} for k in range(n)]
        self.calls: list[ListOptions] = []
        self.expire_on_page = expire_on_page

    def __call__(self, options: ListOptions) -> dict[str, Any]:
        self.calls.append(options)
        if self.expire_on_page is not None and len(self.calls) == self.expire_on_page:
            raise Gone(410, "Expired", "The provided continue parameter is too old")
        start = int(options.continue_ or 0)
        end = len(self.items) if not options.limit else start + options.limit
        page = self.items[start:end]
        meta: dict[str, Any] = {"resourceVersion": options.resource_version or "77"}
        if end < len(self.items):
            meta["continue"] = str(end)
            meta["remainingItemCount"] = len(self.items) - end
        return {"kind": "List", "metadata": meta, "items": page}


@pytest.mark.parametrize(("n", "paginated"), [(0, False), (9, False), (10, False),
                                              (11, True), (21, True)])
def test_g054_pages_are_stitched(n: int, paginated: bool) -> None:
    source = PagedSource(n)
    result, was_paginated = ListPager(source, page_size=10).list(
        ListOptions(resource_version="5", resource_version_match="NotOlderThan"))
    assert [i["metadata"]["name"] for i in result["items"]] == [
        i["metadata"]["name"] for i in source.items]
    assert was_paginated is paginated
    assert result["metadata"] == {"resourceVersion": "5"}  # from the first page
    assert source.calls[0].limit == 10
    for later in source.calls[1:]:  # continuation clears RV and RVMatch
        assert later.continue_ and later.resource_version == ""
        assert later.resource_version_match == ""


def test_g054_an_explicit_limit_wins_and_page_size_zero_means_unpaginated() -> None:
    source = PagedSource(7)
    ListPager(source, page_size=10).list(ListOptions(limit=3))
    assert [c.limit for c in source.calls] == [3, 3, 3]
    single = PagedSource(7)
    result, paginated = ListPager(single, page_size=0).list(ListOptions(resource_version="9"))
    assert [c.limit for c in single.calls] == [0] and not paginated
    assert len(result["items"]) == 7


def test_g055_expired_on_first_page_is_raised() -> None:
    with pytest.raises(Gone):
        ListPager(PagedSource(30, expire_on_page=1), page_size=10).list()


def test_g055_expired_later_falls_back_to_one_full_list_at_the_original_rv() -> None:
    source = PagedSource(30, expire_on_page=2)
    pages: list[PageInfo] = []
    result, paginated = ListPager(source, page_size=10).list(
        ListOptions(resource_version="10", resource_version_match="NotOlderThan"),
        on_page=pages.append)
    fallback = source.calls[-1]
    assert (fallback.limit, fallback.continue_, fallback.resource_version,
            fallback.resource_version_match) == (0, "", "10", "NotOlderThan")
    assert len(result["items"]) == 30 and paginated
    assert pages[-1].fallback and pages[-1].total == 30


def test_g055_no_fallback_when_disabled() -> None:
    pager = ListPager(PagedSource(30, expire_on_page=2), page_size=10,
                      full_list_if_expired=False)
    with pytest.raises(Gone):
        pager.list()


def test_pages_and_items_stream_as_they_arrive() -> None:
    source = PagedSource(25)
    pager = ListPager(source, page_size=10)
    assert [len(p["items"]) for p in pager.pages()] == [10, 10, 5]
    assert len(list(pager.items())) == 25


# -- over HTTP -------------------------------------------------------------------------


def test_list_all_over_http_reports_progress(configmaps: ResourceClient) -> None:
    for i in range(23):
        configmaps.create(configmap(f"cm-{i:02d}"))
    pages: list[PageInfo] = []
    result = configmaps.list_all(page_size=10, on_page=pages.append)
    assert len(result["items"]) == 23
    assert [p.items for p in pages] == [10, 10, 3]
    assert [p.remaining for p in pages] == [13, 3, None]
    assert result["metadata"]["resourceVersion"]
    assert "continue" not in result["metadata"]


def test_expired_continue_over_http_falls_back_to_a_full_list() -> None:
    with EmbeddedServer(history_window=3) as server:
        from kubenb.client.config import load_config
        from kubenb.client.dynamic import DynamicClient

        cms = DynamicClient(load_config(str(server.kubeconfig_path))).resource(
            "v1", "configmaps").namespace("default")
        for i in range(6):
            cms.create(configmap(f"cm-{i}"))
        calls: list[ListOptions] = []

        def churn_after_first_page(options: ListOptions) -> dict[str, Any]:
            calls.append(options)
            page = cms.list_with_options(options)
            if len(calls) == 1:  # the token's RV falls out of the history window
                for i in range(5):
                    cms.patch("cm-0", {"data": {"i": str(i)}})
            return page

        result, paginated = ListPager(churn_after_first_page, page_size=2).list()
        cms.rest.close()
    assert paginated and len(result["items"]) == 6
    assert calls[-1].limit == 0 and calls[-1].continue_ == ""
