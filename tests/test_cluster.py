"""kubenb.connect / kubenb.embedded: the notebook entry point, end to end over HTTP; what
a Cluster's repr hides, and selectors or lists the server refuses failing at once."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import yaml

import kubenb
from kubenb.cluster import CacheSyncTimeout, Cluster
from kubenb.errors import (
    BadRequest,
    Forbidden,
    NoResourceMatchError,
    NotFound,
    SelectorError,
    Unauthorized,
)
from kubenb.server import EmbeddedServer
from tests.helpers import assert_no_new_threads, wait_until

SECRET = "s3cr3t-pw"


def test_embedded_cluster_resources_informers_and_close() -> None:
    before = set(threading.enumerate())
    with kubenb.embedded() as cluster:
        assert cluster.server is not None and cluster.config.server == cluster.server.url
        cms = cluster.resource("cm")
        assert cms.namespace_name == "default"  # the context's namespace
        cms.create({"metadata": {"name": "one", "labels": {"app": "web"}}})
        informer = cluster.informer("configmaps", label_selector="app=web")
        assert informer.has_synced()
        assert [o["metadata"]["name"] for o in informer.get_indexer().list()] == ["one"]
        assert cluster.informer("configmaps", label_selector="app=web") is informer  # shared
        cms.create({"metadata": {"name": "two", "labels": {"app": "web"}}})
        wait_until(lambda: len(informer.get_indexer().list_keys()) == 2, what="watch event")
        lister = cluster.lister("configmaps", label_selector="app=web")
        assert lister.namespace("default").get("two")["metadata"]["name"] == "two"
        with pytest.raises(NotFound):
            lister.namespace("default").get("three")
        nodes = cluster.resource("nodes")  # cluster-scoped: no namespace
        assert nodes.namespace_name is None
        everywhere = cluster.resource("pods", all_namespaces=True)
        assert everywhere.path() == "/api/v1/pods"
        with pytest.raises(NoResourceMatchError):
            cluster.resource("podz")
        server = cluster.server
    assert server._httpd is None  # the embedded server was stopped
    assert_no_new_threads(before, grace=5.0)


def test_connect_reads_a_kubeconfig_and_a_wrong_token_is_unauthorized() -> None:
    with EmbeddedServer(token="right-token") as server:
        with kubenb.connect(str(server.kubeconfig_path)) as cluster:
            assert cluster.resource("ns").get("default")["metadata"]["name"] == "default"
        path = Path(server.kubeconfig_path)
        bad = path.with_name("bad-kubeconfig")
        bad.write_text(path.read_text().replace("right-token", "wrong-token"))
        with kubenb.connect(str(bad)) as cluster, pytest.raises(Unauthorized):
            cluster.resource("pods")
        assert "wrong-token" not in repr(cluster.config)


@pytest.mark.slow
def test_a_sync_that_cannot_finish_says_why() -> None:
    with kubenb.embedded() as cluster:
        cluster.server.faults.fail(verb="list", fraction=1.0, code=500)
        with pytest.raises(CacheSyncTimeout, match=r"did not sync within 2s.*500"):
            cluster.informer("pods", timeout=2)


def test_cluster_frame_is_a_live_dataframe_closed_with_the_cluster() -> None:
    # The kubelet stops a deleted pod's containers at once (not after its grace period).
    with kubenb.embedded(kubelet={"stop_seconds": 0}) as cluster:
        cluster.server.seed_objects(3, kind="pods", namespace="default")
        frame = cluster.frame("pods", progress=False)
        wait_until(lambda: len(frame.df) == 3, what="the frame to show 3 pods")
        assert {"NAME", "READY", "STATUS"} <= set(frame.df.columns)
        cluster.resource("pods").delete(frame.df["NAME"].iloc[0])
        wait_until(lambda: len(frame.df) == 2, what="the frame to drop the deleted pod")


def test_cluster_table_and_pipeline_follow_the_cluster() -> None:
    with kubenb.embedded() as cluster:
        cluster.resource("cm").create({"metadata": {"name": "one"}})
        table = cluster.table("configmaps", progress=False)
        informer = cluster.informer("configmaps")
        pipeline = cluster.pipeline(informer)
        cluster.resource("cm").create({"metadata": {"name": "two"}})
        # Every namespace of a cluster also holds kube-root-ca.crt (its controllers').
        wait_until(lambda: set(table.frame.df["NAME"]) == {"kube-root-ca.crt", "one", "two"},
                   what="the table's frame to show the new row")
        pipeline.refresh()
        assert "kubenb-pipeline" in pipeline.widget._dom_classes
        assert pipeline.renders >= 1
    assert table.frame.closed and pipeline.closed


def test_closing_a_table_twice_is_harmless() -> None:
    """A table closed by hand, then again by the cluster's close() and once more by hand,
    raises nothing, stays closed, and stops following the cache from the first close."""
    with kubenb.embedded() as cluster:
        table = cluster.table("configmaps", progress=False)
        table.close()
        renders = table.renders
        cluster.resource("cm").create({"metadata": {"name": "after-close"}})
        wait_until(lambda: "after-close" in set(table.frame.df["NAME"]),
                   what="the frame to get the new row")
        assert table.renders == renders  # the frame moved on; the closed table did not
    assert table.frame.closed  # the cluster closed the frame, and the table again
    table.close()  # a third time is as harmless
    assert table.renders == renders


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
            assert repr(cluster).startswith("Cluster('http://127.0.0.1:")


# -- selectors and permanent 400s fail at once -----------------------------------------------------


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


def test_a_first_list_refused_with_403_fails_at_once_saying_how_to_ask_for_less(
        cluster: Cluster) -> None:
    """A user allowed one namespace: a frame of all namespaces raises the server's
    Forbidden at once (not CacheSyncTimeout after 60 s), and one namespace works."""
    cluster.server.faults.fail(verb="list", code=403, resource="configmaps", user="jane")
    cluster.server.faults.fail(verb="watch", code=403, resource="configmaps", user="jane")
    with pytest.raises(Forbidden) as info:
        cluster.frame("configmaps", progress=False, timeout=60)
    err = info.value
    assert err.status == 403 and err.reason == "Forbidden"
    assert err.message.startswith('configmaps is forbidden: User "jane" cannot list resource '
                                  '"configmaps" in API group "" at the cluster scope; ')
    assert "namespace=" in err.message and "cluster.frame('configmaps', namespace=" in str(err)
    assert cluster.factory.informers() == {}  # forgotten: it does not retry until close
    cluster.server.faults.clear()
    cluster.server.faults.fail(verb="list", code=403, resource="configmaps", count=1)
    with pytest.raises(Forbidden) as info:  # one namespace: refused, without the hint
        cluster.informer("configmaps", namespace="default", timeout=60)
    assert "in the namespace \"default\"" in str(info.value)
    assert "namespace=..." not in str(info.value)
    frame = cluster.frame("configmaps", namespace="default", progress=False)
    assert len(frame.df) == len(cluster.resource("cm").list()["items"])


def test_a_valid_selector_still_syncs(cluster: Cluster) -> None:
    cluster.resource("cm").create({"metadata": {"name": "web", "labels": {"app": "web"}}})
    informer = cluster.informer("cm", label_selector={"app": "web"},
                                field_selector="metadata.name=web")
    assert informer.get_indexer().list_keys() == ["default/web"]
