"""Listers (spec items 97-99, client-go `listers.go`)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from kubenb.cache.keys import NAMESPACE_INDEX, meta_namespace_index_func
from kubenb.cache.lister import (
    Lister,
    NamespaceLister,
    as_label_selector,
    list_all,
    list_all_by_namespace,
    new_not_found,
)
from kubenb.cache.selectors import everything, nothing, parse_label_selector
from kubenb.cache.store import Indexer, new_indexer, new_store
from kubenb.errors import ApiError, KubenbError, NotFound, SelectorError
from kubenb.server.errors import not_found as server_not_found
from tests.realapi import REALAPI


def obj(name: str, ns: str = "", **labels: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": labels}
    if ns:
        meta["namespace"] = ns
    return {"metadata": meta}


def names(objs: list[Any]) -> list[str]:
    return sorted(o["metadata"]["name"] for o in objs)


@pytest.fixture
def pods() -> Indexer:
    ix = new_indexer(indexers={NAMESPACE_INDEX: meta_namespace_index_func})
    for o in (
        obj("a", "ns1", app="web", tier="front"),
        obj("b", "ns1", app="db"),
        obj("c", "ns2", app="web"),
        obj("d", "ns2"),
    ):
        ix.add(o)
    return ix


# ---------------------------------------------------------------------- J.97


def test_j097_list_all_filters_by_labels_at_scale():
    store = new_store()
    n = 100_000
    for i in range(n):
        store.add(obj(f"o{i}", match="true" if i % 10 == 0 else "false"))
    out: list[Any] = []
    list_all(store, parse_label_selector("match=true"), out.append)
    assert len(out) == 10_000
    out.clear()
    list_all(store, everything(), out.append)
    assert len(out) == n
    out.clear()
    list_all(store, "match=nothing", out.append)
    assert out == []
    list_all(store, nothing(), out.append)  # @master: returns nothing at once
    assert out == []


def test_j097_everything_does_not_read_labels():
    # Objects without metadata are appended by an empty selector (Go skips the accessor),
    # and refused by any real selector.
    store = new_store(key_func=lambda o: o["id"])
    store.add({"id": "x"})
    out: list[Any] = []
    list_all(store, None, out.append)
    assert out == [{"id": "x"}]
    with pytest.raises(KubenbError, match="object has no meta: dict"):
        list_all(store, "a=b", out.append)


@pytest.mark.parametrize(
    "selector",
    [
        parse_label_selector("app=web"),
        "app=web",
        "app in (web)",
        {"app": "web"},
    ],
    ids=["LabelSelector", "text", "set-based", "dict"],
)
def test_j097_selector_may_be_given_in_any_form(pods, selector):
    assert names(Lister(pods).list(selector)) == ["a", "c"]


def test_j097_none_empty_string_and_empty_dict_select_everything(pods):
    for selector in (None, "", {}):
        assert names(Lister(pods).list(selector)) == ["a", "b", "c", "d"]
    assert as_label_selector(None).empty()


def test_j097_bad_selectors_raise_selector_error(pods):
    with pytest.raises(SelectorError, match="got int"):
        Lister(pods).list(42)  # type: ignore[arg-type]
    with pytest.raises(SelectorError):
        Lister(pods).list("app in web")
    with pytest.raises(SelectorError):
        Lister(pods).list({"app": 1})  # type: ignore[dict-item]


# ---------------------------------------------------------------------- J.98


class SpyIndexer(Indexer):
    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.calls: list[str] = []

    def by_index(self, index_name: str, indexed_value: str) -> list[Any]:
        self.calls.append(f"by_index:{index_name}={indexed_value}")
        return super().by_index(index_name, indexed_value)

    def list(self) -> list[Any]:
        self.calls.append("list")
        return super().list()


def spy(with_index: bool) -> SpyIndexer:
    indexers = {NAMESPACE_INDEX: meta_namespace_index_func} if with_index else {}
    ix = SpyIndexer(indexers=indexers)
    for o in (obj("a", "ns1", app="web"), obj("b", "ns1"), obj("c", "ns2", app="web")):
        ix.add(o)
    ix.calls.clear()
    return ix


def test_j098_by_namespace_uses_the_namespace_index():
    ix = spy(with_index=True)
    out: list[Any] = []
    list_all_by_namespace(ix, "ns1", None, out.append)
    assert names(out) == ["a", "b"]
    out.clear()
    list_all_by_namespace(ix, "ns1", "app=web", out.append)
    assert names(out) == ["a"]
    assert ix.calls == ["by_index:namespace=ns1", "by_index:namespace=ns1"]


def test_j098_empty_namespace_delegates_to_list_all():
    ix = spy(with_index=True)
    out: list[Any] = []
    list_all_by_namespace(ix, "", "app=web", out.append)
    assert names(out) == ["a", "c"]
    assert ix.calls == ["list"]


def test_j098_missing_index_falls_back_to_a_scan_with_a_warning(caplog):
    ix = spy(with_index=False)
    out: list[Any] = []
    with caplog.at_level(logging.WARNING, logger="kubenb.cache.lister"):
        list_all_by_namespace(ix, "ns1", "app=web", out.append)
    assert names(out) == ["a"]
    assert ix.calls == ["by_index:namespace=ns1", "list"]  # the index lookup failed
    assert "can not retrieve list of objects using index" in caplog.text
    assert "Index with name namespace does not exist" in caplog.text


def test_j098_plain_store_without_indexes_also_falls_back():
    store = new_store()
    store.add(obj("a", "ns1"))
    store.add(obj("b", "ns2"))
    out: list[Any] = []
    list_all_by_namespace(store, "ns2", None, out.append)
    assert names(out) == ["b"]


def test_j098_namespace_lister_lists_one_namespace(pods):
    ns2 = Lister(pods, "pods").namespace("ns2")
    assert isinstance(ns2, NamespaceLister)
    assert names(ns2.list()) == ["c", "d"]
    assert names(ns2.list({"app": "web"})) == ["c"]
    assert names(Lister(pods).by_namespace("nope").list()) == []
    assert repr(ns2) == "<NamespaceLister pods in 'ns2'>"


# ---------------------------------------------------------------------- J.99


def test_j099_get_uses_the_name_as_the_key(pods):
    lister = Lister(pods, "pods")
    assert lister.get("ns1/a")["metadata"]["name"] == "a"  # GetByKey(name)
    with pytest.raises(NotFound):
        lister.get("a")  # a namespaced object's key includes its namespace
    assert lister.namespace("ns1").get("a")["metadata"]["name"] == "a"  # GetByKey(ns/name)
    cluster = new_indexer()
    cluster.add(obj("node-1"))
    assert Lister(cluster, "nodes").get("node-1")["metadata"]["name"] == "node-1"


def test_j099_not_found_is_the_servers_404(pods):
    with pytest.raises(NotFound) as info:
        Lister(pods, "pods").namespace("ns1").get("zzz")
    err = info.value
    assert isinstance(err, ApiError)
    assert (err.status, err.reason, err.message) == (404, "NotFound", 'pods "zzz" not found')
    assert str(err) == '404 NotFound: pods "zzz" not found'
    assert err.body["details"] == {"name": "zzz", "kind": "pods"}


def test_j099_group_qualified_resource_in_the_message(pods):
    with pytest.raises(NotFound) as info:
        Lister(pods, "deployments", group="apps").get("web")
    assert info.value.message == 'deployments.apps "web" not found'
    assert info.value.body["details"] == {"name": "web", "group": "apps", "kind": "deployments"}
    assert repr(Lister(pods, "deployments", "apps")) == "<Lister deployments.apps>"


def test_j099_not_found_body_matches_the_real_server_and_the_embedded_one():
    path = REALAPI / "errors" / "get-missing-404.json"
    if not path.exists():
        pytest.skip("real-API fixtures are not available")
    real = json.loads(path.read_text())["response"]["body"]
    assert new_not_found("configmaps", "does-not-exist").body == real
    ours = new_not_found("deployments", "web", "apps").body
    assert ours == server_not_found("deployments", "web", "apps").status


def test_j099_not_found_without_a_resource_name():
    err = new_not_found("", "x")
    assert err.message == '"x" not found'
