"""Real clients against the server: the official `kubernetes` package and kubectl."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator

import pytest

from kubenb.server import EmbeddedServer
from tests.helpers import Kubectl, needs_kubectl

kubernetes = pytest.importorskip("kubernetes")
from kubernetes import client, config, watch  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

pytestmark = pytest.mark.slow  # the official client and kubectl, end to end


@pytest.fixture
def core(server: EmbeddedServer) -> Iterator[client.CoreV1Api]:
    api_client = config.new_client_from_config(config_file=server.kubeconfig_path)
    try:
        yield client.CoreV1Api(api_client)
    finally:
        api_client.close()


def test_typed_create_list_patch_delete(core: client.CoreV1Api) -> None:
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg", labels={"a": "b"}),
                              data={"k": "v"})
    created = core.create_namespaced_config_map("default", body)
    assert created.metadata.uid and created.metadata.resource_version
    listed = core.list_namespaced_config_map("default", label_selector="a=b")
    assert [i.metadata.name for i in listed.items] == ["cfg"]
    patched = core.patch_namespaced_config_map("cfg", "default", {"data": {"k": "v2"}})
    assert patched.data == {"k": "v2"}
    pod = client.V1Pod(metadata=client.V1ObjectMeta(name="p"),
                       spec=client.V1PodSpec(containers=[client.V1Container(name="c",
                                                                            image="i")]))
    core.create_namespaced_pod("default", pod)
    assert core.read_namespaced_pod("p", "default").status.phase == "Pending"
    core.delete_namespaced_config_map("cfg", "default")
    with pytest.raises(ApiException) as info:
        core.read_namespaced_config_map("cfg", "default")
    assert info.value.status == 404
    with pytest.raises(ApiException) as info:
        core.create_namespaced_config_map("nope", body)
    assert info.value.status == 404


def test_watch_stream_receives_events_and_resumes(core: client.CoreV1Api) -> None:
    rv = core.list_namespaced_config_map("default").metadata.resource_version
    seen: list[tuple[str, str]] = []
    w = watch.Watch()

    def run() -> None:
        for event in w.stream(core.list_namespaced_config_map, "default",
                              resource_version=rv, timeout_seconds=5):
            seen.append((event["type"], event["object"].metadata.name))
            if len(seen) == 3:
                w.stop()

    reader = threading.Thread(target=run)
    reader.start()
    core.create_namespaced_config_map("default", {"metadata": {"name": "one"}})
    core.patch_namespaced_config_map("one", "default", {"data": {"x": "y"}})
    core.delete_namespaced_config_map("one", "default")
    reader.join(10)
    assert seen == [("ADDED", "one"), ("MODIFIED", "one"), ("DELETED", "one")]


def test_watch_410_surfaces_as_the_client_expects(core: client.CoreV1Api,
                                                  server: EmbeddedServer) -> None:
    old = core.create_namespaced_config_map("default", {"metadata": {"name": "a"}})
    core.create_namespaced_config_map("default", {"metadata": {"name": "b"}})
    server.compact()
    with pytest.raises(ApiException) as info:
        for _ in watch.Watch().stream(core.list_namespaced_config_map, "default",
                                      resource_version=old.metadata.resource_version,
                                      timeout_seconds=2):
            pass
    assert info.value.status == 410


def kubectl(server: EmbeddedServer, *args: str, stdin: str | None = None
            ) -> subprocess.CompletedProcess[str]:
    return Kubectl(server.kubeconfig_path)(*args, stdin=stdin, ok=False)


MANIFEST = """\
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  color: blue
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
  labels: {app: web}
spec:
  containers:
  - name: app
    image: nginx
"""


@needs_kubectl
def test_kubectl_end_to_end(server: EmbeddedServer) -> None:
    created = kubectl(server, "create", "-f", "-", stdin=MANIFEST)
    assert created.returncode == 0, created.stderr
    assert "pod/web created" in created.stdout
    as_json = kubectl(server, "get", "pods", "-n", "shop", "-o", "json")
    assert as_json.returncode == 0, as_json.stderr
    assert [i["metadata"]["name"] for i in json.loads(as_json.stdout)["items"]] == ["web"]
    as_yaml = kubectl(server, "get", "pod", "web", "-n", "shop", "-o", "yaml")
    assert "name: web" in as_yaml.stdout and "phase: Pending" in as_yaml.stdout
    wide = kubectl(server, "get", "pods", "-n", "shop", "-o", "wide")
    assert wide.returncode == 0 and "web" in wide.stdout
    labeled = kubectl(server, "label", "pod", "web", "-n", "shop", "tier=front")
    assert labeled.returncode == 0, labeled.stderr
    selected = kubectl(server, "get", "pods", "-n", "shop", "-l", "tier=front", "-o", "name")
    assert selected.stdout.strip() == "pod/web"
    deleted = kubectl(server, "delete", "pod", "web", "-n", "shop")
    assert deleted.returncode == 0, deleted.stderr
    gone = kubectl(server, "get", "pod", "web", "-n", "shop")
    assert gone.returncode != 0 and "NotFound" in gone.stderr


@needs_kubectl
def test_kubectl_api_resources(server: EmbeddedServer) -> None:
    out = kubectl(server, "api-resources")
    assert out.returncode == 0, out.stderr
    rows = {line.split()[0]: line for line in out.stdout.splitlines()[1:]}
    assert {"pods", "deployments", "customresourcedefinitions", "namespaces"} <= set(rows)
    assert "deploy" in rows["deployments"] and "apps/v1" in rows["deployments"]
