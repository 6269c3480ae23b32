"""Hostile inputs to `Cluster` and the cache keys (issue 17).

- `repr()` of a Cluster and everything in it hides a password in the server URL (6);
- a key error names the object (kind, namespace, name) and never prints it (9);
- a malformed selector fails at once, and a first list the server refuses with 400
  fails at once with the server's message, instead of waiting out the timeout (10).
"""

from __future__ import annotations

import base64
import logging
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

import kubenb
from kubenb.cache.keys import meta_namespace_key_func
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.cache.store import new_store
from kubenb.client.config import Config
from kubenb.client.dynamic import DynamicClient
from kubenb.client.rest import RESTClient
from kubenb.cluster import Cluster
from kubenb.errors import BadRequest, KeyFuncError, SelectorError
from kubenb.server import EmbeddedServer
from tests.client.test_hardening import Answer, _json, scripted_server
from tests.helpers import assert_no_new_threads, wait_until

SECRET = "s3cr3t-pw"
SECRET_B64 = base64.b64encode(SECRET.encode()).decode()


# -- 6: Cluster repr ---------------------------------------------------------------------------


def test_cluster_and_its_parts_hide_a_password_in_the_server_url(tmp_path: Path) -> None:
    with EmbeddedServer() as server:
        doc = yaml.safe_load(Path(server.kubeconfig_path).read_text())
        doc["clusters"][0]["cluster"]["server"] = server.url.replace(
            "http://", f"http://admin:{SECRET}@")
        path = tmp_path / "kubeconfig"
        path.write_text(yaml.safe_dump(doc))
        with kubenb.connect(str(path)) as cluster:
            assert cluster.resource("cm").list()["items"] == []  # it works
            parts = (cluster, cluster.config, cluster.rest, cluster.dynamic, cluster.discovery,
                     cluster.mapper, cluster.clientset, cluster.factory)
            for part in parts:
                assert SECRET not in repr(part), repr(part)
            assert repr(cluster).startswith("Cluster('http://<redacted>@127.0.0.1:")


# -- 9: key errors name the object, never its contents -------------------------------------------


@pytest.mark.parametrize(("obj", "named"), [
    ({"kind": "Secret", "metadata": {"namespace": "prod"}, "data": {"password": SECRET_B64}},
     'Secret with no name in namespace "prod"'),
    ({"kind": "Secret", "metadata": {"name": 7, "namespace": "prod"}, "data": {"k": SECRET}},
     'Secret with no name in namespace "prod"'),
    ({"kind": "Secret", "data": {"password": SECRET_B64}}, "a Secret with no metadata"),
    ({"stringData": {"password": SECRET}}, "a dict with no metadata"),
    (f"password={SECRET}", "a str"),
    ([SECRET], "a list"),
])
def test_key_error_names_the_object_and_never_prints_it(obj: Any, named: str) -> None:
    with pytest.raises(KeyFuncError) as info:
        meta_namespace_key_func(obj)
    err = info.value
    assert f"couldn't create key for object {named}: " in str(err)
    assert err.obj is obj  # still there for code that wants it
    for text in (str(err), repr(err), str(err.args)):
        assert SECRET not in text and SECRET_B64 not in text, text


def test_key_error_from_a_custom_key_function_names_the_object() -> None:
    store = new_store(key_func=lambda obj: obj["id"])
    secret = {"kind": "Secret", "metadata": {"name": "db", "namespace": "prod"},
              "data": {"password": SECRET_B64}}
    with pytest.raises(KeyFuncError) as info:
        store.add(secret)
    assert str(info.value) == "couldn't create key for object Secret \"prod/db\": 'id'"
    assert isinstance(info.value.__cause__, KeyError)


def test_reflector_log_never_shows_a_malformed_secrets_data(
        caplog: pytest.LogCaptureFixture) -> None:
    """A list with a nameless Secret: the Reflector cannot file it and logs the failure
    at WARNING; the log names the Secret, not its data."""
    before = set(threading.enumerate())
    secret = {"apiVersion": "v1", "kind": "Secret",
              "metadata": {"namespace": "default", "resourceVersion": "3"},
              "data": {"password": SECRET_B64}, "stringData": {"plain": SECRET}}

    def answer(path: str, query: dict[str, str]) -> Answer:
        return _json({"kind": "SecretList", "apiVersion": "v1",
                      "metadata": {"resourceVersion": "3"}, "items": [secret]})

    with scripted_server(answer) as (url, _), \
            caplog.at_level(logging.WARNING, logger="kubenb"):
        rest = RESTClient(Config(server=url))
        informer = SharedIndexInformer(
            ListWatch.from_client(DynamicClient(rest).resource("v1", "secrets")), name="s")
        informer.start()
        try:
            wait_until(lambda: "couldn't create key" in caplog.text, timeout=30,
                       what="the Reflector to log the key error")
        finally:
            informer.stop()
            rest.close()
    assert 'Secret with no name in namespace "default"' in caplog.text
    assert SECRET not in caplog.text and SECRET_B64 not in caplog.text
    assert_no_new_threads(before)


# -- 10: selectors and permanent 400s ------------------------------------------------------------


@pytest.fixture
def cluster() -> Any:
    before = set(threading.enumerate())
    with kubenb.embedded() as c:
        yield c
    assert_no_new_threads(before, grace=5.0)


@pytest.mark.parametrize(("options", "where"), [
    ({"label_selector": "app in (web"}, "invalid label selector 'app in (web'"),
    ({"label_selector": {"app": "two words"}}, "invalid label selector 'app=two words'"),
    ({"label_selector": "tier=db", "field_selector": "metadata.name"},
     "invalid field selector 'metadata.name'"),
])
def test_malformed_selector_fails_at_once_and_starts_nothing(cluster: Cluster,
                                                             options: dict[str, Any],
                                                             where: str) -> None:
    with pytest.raises(SelectorError) as info:
        cluster.informer("configmaps", timeout=30, **options)
    assert where in str(info.value)
    assert "^" in str(info.value)  # points at the mistake
    with pytest.raises(SelectorError):
        cluster.frame("configmaps", progress=False, timeout=30, **options)
    assert cluster.factory.informers() == {}  # no informer was made, none retries


def test_a_first_list_refused_with_400_fails_at_once_with_the_servers_message(
        cluster: Cluster) -> None:
    seen: list[BaseException] = []
    shared = cluster.factory.for_resource("v1", "configmaps", None, None, "spec.foo=x")
    shared.informer().set_watch_error_handler(lambda reflector, err: seen.append(err))
    with pytest.raises(BadRequest) as info:
        cluster.informer("configmaps", field_selector="spec.foo=x", timeout=30)
    err = info.value
    assert err.status == 400 and err.reason == "BadRequest"
    assert err.message == ('"spec.foo" is not a known field selector: only "metadata.name", '
                           '"metadata.namespace"')
    assert 'list v1 configmaps with fieldSelector "spec.foo=x"' in str(err)
    assert seen, "a handler set before still sees the error"
    refused = shared.informer()
    assert cluster.factory.informers() == {}  # forgotten: it does not retry until close
    assert refused.is_stopped()
    assert not [t for t in threading.enumerate() if t.name == f"kubenb-informer-{refused.name}"]
    with pytest.raises(BadRequest):  # asking again does not wait either
        cluster.informer("configmaps", field_selector="spec.foo=x", timeout=30)
    assert cluster.factory.informers() == {}


def test_a_valid_selector_still_syncs(cluster: Cluster) -> None:
    cluster.resource("cm").create({"metadata": {"name": "web", "labels": {"app": "web"}}})
    informer = cluster.informer("cm", label_selector={"app": "web"},
                                field_selector="metadata.name=web")
    assert informer.get_indexer().list_keys() == ["default/web"]
