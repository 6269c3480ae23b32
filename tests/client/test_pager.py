"""ListPager: G54 (stitching pages), G55 (the expired-continue fallback), and a 200 answer
that is not a List: an error naming the request, never an empty List."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.client.options import ListOptions
from kubenb.client.pager import ListPager, PageInfo
from kubenb.client.typed import Clientset
from kubenb.errors import Gone, InvalidResponseError, KubenbError
from kubenb.server import EmbeddedServer
from tests.client.conftest import configmap, rest_for
from tests.client.rawserver import Answer, answering_server, json_answer
from tests.helpers import wait_until


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


# -- a 200 answer that is not a List ---------------------------------------------------------------

SECRET = "s3cr3t-pw"
GOOD_ITEM = {"kind": "ConfigMap", "metadata": {"name": "a", "namespace": "default"}}


NOT_A_LIST: list[tuple[str, Answer, str]] = [
    ("html", (200, "text/html; charset=utf-8",
              b"<html><body><h1>Welcome to nginx!</h1></body></html>"),
     "text/html text '<html><body><h1>Welcome to nginx!"),
    ("items-a-string", json_answer({"kind": "ConfigMapList", "metadata": {}, "items": "abc"}),
     "a List whose items is a string, not an array"),
    ("metadata-a-string", json_answer({"kind": "ConfigMapList", "metadata": "x", "items": []}),
     "a List whose metadata is a string, not an object"),
    ("item-a-string", json_answer({"kind": "ConfigMapList", "items": [GOOD_ITEM, "b"]}),
     "a List whose items[1] is a string, not an object"),
    ("json-number", json_answer(42), "the JSON number 42, not a List"),
    ("json-string", json_answer("hello there"), "a JSON string 'hello there', not a List"),
    ("json-null", json_answer(None), "JSON null, not a List"),
    ("json-array", json_answer([GOOD_ITEM]), "a JSON array of 1 element, not a List"),
    ("a-secret", json_answer({"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "db"},
                        "data": {"password": base64.b64encode(SECRET.encode()).decode()}}),
     "a JSON object of kind 'Secret' with keys [apiVersion, data, kind, metadata], "
     "not a List (no items)"),
    ("not-json", (200, "application/json", b'{"kind": "ConfigMapList", "items": [{"data": '
                                           b'{"password": "s3cr3t-pw"'),
     "is not valid JSON"),
]


@pytest.fixture(params=NOT_A_LIST, ids=[case[0] for case in NOT_A_LIST])
def not_a_list(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    _, answer, expected = request.param
    with answering_server(lambda path, query: answer) as (url, _):
        yield url, expected


def _check_not_a_list(err: InvalidResponseError, expected: str) -> None:
    text = str(err)
    assert expected in text, text
    assert "s3cr3t" not in text and "czNjcjN0" not in text  # nor its base64
    assert isinstance(err, KubenbError) and isinstance(err, ValueError)


def test_dynamic_list_of_a_non_list_raises_naming_the_request(not_a_list: tuple[str, str]
                                                              ) -> None:
    url, expected = not_a_list
    rest = rest_for(url)
    try:
        cms = DynamicClient(rest).resource("v1", "configmaps").namespace("default")
        with pytest.raises(InvalidResponseError) as info:
            cms.list(label_selector="app=web")
    finally:
        rest.close()
    _check_not_a_list(info.value, expected)
    assert str(info.value).startswith(
        'list v1 configmaps in namespace "default" with labelSelector "app=web": ')
    assert info.value.request_info is not None and info.value.request_info.verb == "list"


def test_pager_and_typed_list_of_a_non_list_raise(not_a_list: tuple[str, str]) -> None:
    url, expected = not_a_list
    rest = rest_for(url)
    try:
        cms = DynamicClient(rest).resource("v1", "configmaps").namespace("default")
        with pytest.raises(InvalidResponseError) as paged:
            cms.list_all()
        _check_not_a_list(paged.value, expected)
        with pytest.raises(InvalidResponseError) as pages:
            list(ListPager(cms.list_with_options).items())
        _check_not_a_list(pages.value, expected)
        typed = Clientset(rest).core_v1().config_maps("default")
        with pytest.raises(InvalidResponseError) as by_type:
            typed.list()
        _check_not_a_list(by_type.value, expected)
    finally:
        rest.close()


@pytest.mark.parametrize("page", ["<html>", {"items": "abc"}, {"metadata": "x", "items": []},
                                  {"kind": "Status"}, 7])
def test_pager_checks_pages_from_any_list_function(page: Any) -> None:
    def list_func(options: ListOptions) -> Any:
        return page

    with pytest.raises(InvalidResponseError, match=r"^list \(page 1\): the server answered"):
        ListPager(list_func).list()
    with pytest.raises(InvalidResponseError, match=r"not a List|not an array|not an object"):
        list(ListPager(list_func).pages())


def test_a_list_with_null_items_or_no_metadata_is_still_a_list() -> None:
    with answering_server(lambda path, query: json_answer({"kind": "ConfigMapList", "items": None})
                         ) as (url, _):
        rest = rest_for(url)
        try:
            cms = DynamicClient(rest).resource("v1", "configmaps")
            assert cms.list()["items"] is None
            assert cms.list_all()["items"] == []
        finally:
            rest.close()


def test_informer_keeps_its_cache_when_a_relist_is_not_a_list(
        caplog: pytest.LogCaptureFixture, threads_checked: None) -> None:
    """The first list fills the cache; the watch closes at once, so the Reflector
    lists again, and this time a proxy answers with a JSON object that is not a List.
    Taken for an empty List, it would make the informer delete every object: the list
    fails instead, the error reaches the watch error handler and the stats, and the
    cache keeps what it had."""
    items = [{"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": n, "namespace": "default", "resourceVersion": "5"}}
             for n in ("a", "b")]
    lists: list[int] = []

    def answer(path: str, query: dict[str, str]) -> Answer:
        if query.get("watch") == "true":
            return 200, "application/json", b""  # the watch ends at once
        lists.append(1)
        if len(lists) == 1:
            return json_answer({"kind": "ConfigMapList", "apiVersion": "v1",
                          "metadata": {"resourceVersion": "5"}, "items": items})
        return json_answer({"ok": True, "message": "maintenance"})

    errors: list[BaseException] = []
    with answering_server(answer) as (url, _):
        rest = rest_for(url)
        cms = DynamicClient(rest).resource("v1", "configmaps")
        informer = SharedIndexInformer(ListWatch.from_client(cms), name="hostile")
        informer.set_watch_error_handler(lambda reflector, err: errors.append(err))
        deleted: list[Any] = []

        class Handler:
            def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
                pass

            def on_update(self, old: Any, new: Any) -> None:
                pass

            def on_delete(self, obj: Any) -> None:
                deleted.append(obj)

        informer.add_event_handler(Handler())
        informer.start()
        try:
            wait_until(lambda: deleted or any(isinstance(e.__cause__, InvalidResponseError)
                                              for e in errors), timeout=30,
                       what="the bad relist to reach the watch error handler")
            assert deleted == []
            assert sorted(informer.get_indexer().list_keys()) == ["default/a", "default/b"]
            stats = informer.stats()["reflector"]
            assert "not a List" in stats["last_error"]
            assert "list v1 configmaps" in stats["last_error"]
        finally:
            informer.stop()
            rest.close()
