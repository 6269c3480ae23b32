"""A recording keeps the CustomResourceDefinitions of its custom resources, so
`kubenb.embedded(replay=...)` serves and replays them in one step; files without them
still load."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import kubenb
from kubenb.recording import Recording, RecordingError, ResourceSpec
from kubenb.recording.definitions import portable_definition
from kubenb.server import EmbeddedServer
from tests.helpers import wait_until
from tests.recording.support import configmap, write_recording

FOOS = ResourceSpec("example.com/v1", "foos", "Foo", True, "default")


def foo_crd() -> dict[str, Any]:
    schema = {"openAPIV3Schema": {"type": "object",
                                  "x-kubernetes-preserve-unknown-fields": True}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.example.com", "labels": {"team": "a"}},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "foos", "singular": "foo", "kind": "Foo",
                               "listKind": "FooList"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": schema}]}}


def foo(name: str, size: int) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Foo",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"size": size}}


def test_a_recorded_custom_resource_replays_in_one_step(tmp_path: Path) -> None:
    path = tmp_path / "foos.jsonl.gz"
    with kubenb.embedded(controllers=False) as cluster:
        cluster.resource("customresourcedefinitions").create(foo_crd())
        foos = cluster.resource("foos.example.com", namespace="default")
        foos.create(foo("one", 1))
        recorder = cluster.record(["foos.example.com", "configmaps"], path,
                                  namespace="default")
        cluster.informer("foos.example.com", namespace="default")
        cluster.informer("configmaps", namespace="default")
        foos.create(foo("two", 2))
        foos.patch("one", {"spec": {"size": 3}})
        wait_until(lambda: recorder.events >= 2, what="two Foo events")
        recorder.stop()
    recording = Recording.read(path)
    (crd,) = recording.definitions  # configmaps are built in: no definition
    assert crd == portable_definition(crd)
    assert crd["metadata"] == {"name": "foos.example.com", "labels": {"team": "a"}}
    assert crd["spec"]["names"]["kind"] == "Foo" and "status" not in crd
    assert recording.definition_of("foos") is crd
    assert recording.definition_of("configmaps") is None
    want = {k: v["spec"] for k, v in recording.final_state("foos").items()}
    assert want == {"default/one": {"size": 3}, "default/two": {"size": 2}}

    with kubenb.embedded(replay=path, speed=None) as cluster:
        replay = cluster.replay
        assert replay.definitions_created == ["foos.example.com"]
        informer = cluster.informer("foos.example.com", namespace="default")
        cluster.informer("configmaps", namespace="default")
        assert replay.wait(10), replay
        assert not replay.error
        got = {k: informer.get_indexer().get_by_key(k)["spec"]
               for k in informer.get_indexer().list_keys()}
        assert got == want
        crds = cluster.resource("customresourcedefinitions").get("foos.example.com")
        assert crds["metadata"]["labels"] == {"team": "a"}


def test_a_recording_without_definitions_still_loads_and_says_what_is_missing(
        tmp_path: Path) -> None:
    records = [{"t": 0.0, "r": 0, "op": "list", "rv": "20", "items": [
        {"metadata": {"name": "x", "namespace": "default", "resourceVersion": "20"},
         "spec": {"size": 1}}]}]
    path = write_recording(tmp_path / "old.jsonl.gz", [FOOS], records)
    recording = Recording.read(path)
    assert "definitions" not in recording.header and recording.definitions == []
    with EmbeddedServer() as server, pytest.raises(
            RecordingError, match="no CustomResourceDefinition for it"):
        server.replay(recording)
    with EmbeddedServer() as server:  # the CRD created by hand, as before
        server.registry.create(server.types.lookup(
            "apiextensions.k8s.io", "v1", "customresourcedefinitions"), "", foo_crd())
        replay = server.replay(recording, autoplay=False)
        assert replay.definitions_created == []
        assert server.storage.get("foos.example.com", "default", "x") is not None


def test_a_recorded_definition_the_server_refuses_is_named(tmp_path: Path) -> None:
    bad = foo_crd()
    bad["spec"]["scope"] = "Galactic"
    header_crd = {**bad, "metadata": {"name": "foos.example.com"}}
    path = tmp_path / "bad.jsonl.gz"
    write_recording(path, [FOOS], [{"t": 0.0, "r": 0, "op": "list", "rv": "5",
                                     "items": [configmap("c", 5, "1", listed=True)]}])
    recording = Recording.read(path)
    recording.header["definitions"] = [header_crd]
    with EmbeddedServer() as server, pytest.raises(
            RecordingError, match=r"CustomResourceDefinition foos\.example\.com cannot be "
                                  r"created:.*Galactic"):
        server.replay(recording)


def test_a_definition_that_cannot_be_read_is_left_out_with_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "unread.jsonl.gz"
    with kubenb.embedded(controllers=False) as cluster:
        cluster.resource("customresourcedefinitions").create(foo_crd())
        assert cluster.server is not None
        cluster.server.faults.fail("get", code=500, retry_after=0,
                                   resource="customresourcedefinitions.apiextensions.k8s.io")
        with caplog.at_level(logging.WARNING, logger="kubenb.recording.definitions"):
            recorder = cluster.record("foos.example.com", path, namespace="default")
        cluster.informer("foos.example.com", namespace="default")
        recorder.stop()
    (record,) = [r for r in caplog.records if r.name == "kubenb.recording.definitions"]
    assert "recording foos.example.com without its CustomResourceDefinition" in \
        record.getMessage()
    assert Recording.read(path).definitions == []
